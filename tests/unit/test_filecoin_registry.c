/* The proof-type registry (filecoin.h) against its sources, each fact
 * rebuilt here from its definition rather than copied from the table:
 *   - every RegisteredSealProof 0..19, RegisteredPoStProof 0..14 and
 *     RegisteredUpdateProof 0..4 exactly once, with the Go name, sector size
 *     and API version that go-state-types and rust-filecoin-proofs-api give
 *     its position (sizes cycle 2KiB, 8MiB, 512MiB, 32GiB, 64GiB);
 *   - the tree shape covers the sector's nodes (sector size / 32);
 *   - each v28 file name is the cache prefix and the SHA-256 of the
 *     circuit's public-parameter identifier string, built here with the
 *     format strings of rust-fil-proofs (FallbackPoSt, layered_drgporep,
 *     empty_sector_update) and hashed with libcrypto;
 *   - cuzk_fc_resolve's refusals and acceptance;
 *   - cuzk_fc_file_digest: BLAKE2b-512 known answers ("abc" from RFC 7693
 *     appendix A; the empty message as Python's hashlib gives it),
 *     a file of several 8 MiB pieces against libcrypto's one-shot digest of
 *     the same bytes, progress, cancellation, a missing file, a folder. */
#include "check.h"
#include "cuzk/filecoin.h"
#include "cuzk/util.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
static const char *const size_names[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
/* Sub and top arity of tree_r_last per size (SectorShapeBase, Sub8, Top2). */
static const unsigned sub_of[5] = {0, 0, 0, 8, 8}, top_of[5] = {0, 0, 0, 0, 2};
/* go-state-types WindowPoStPartitionSectors. */
static const unsigned window_sectors[5] = {2, 2, 2, 2349, 2300};

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

/* "<prefix>-8-<sub>-<top><mid>-<sha256(identifier) hex>", the v28 name. */
static void v28_name(char *out, size_t cap, const char *prefix, unsigned k, const char *mid,
                     const char *identifier)
{
    uint8_t d[32];
    unsigned len = 0;
    char h[65];
    EVP_Digest(identifier, strlen(identifier), d, &len, EVP_sha256(), NULL);
    hex(d, 32, h);
    snprintf(out, cap, "v28-%s-merkletree-poseidon_hasher-8-%u-%u%s-%s", prefix, sub_of[k],
             top_of[k], mid, h);
}

/* The file base name an entry must have, from its family and size. */
static void expected_name(const cuzk_fc_proof *p, unsigned k, char *out, size_t cap)
{
    char id[512];
    unsigned long long size = (unsigned long long)sizes[k], nodes = size / 32;
    switch (p->family) {
    case CUZK_FC_WINNING:
    case CUZK_FC_WINDOW:
        snprintf(id, sizeof id,
                 "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                 "sector_count: %u}",
                 size, p->family == CUZK_FC_WINNING ? 1 : 10,
                 p->family == CUZK_FC_WINNING ? 66 : window_sectors[k]);
        v28_name(out, cap, "proof-of-spacetime-fallback", k, "", id);
        return;
    case CUZK_FC_SEAL:
        snprintf(id, sizeof id,
                 "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                 "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %llu; degree: 6; "
                 "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %u, "
                 "max_count: %u }, tree: merkletree-poseidon_hasher-8-%u-%u }",
                 nodes, k < 3 ? 2 : 11, k < 3 ? 2 : 18, sub_of[k], top_of[k]);
        v28_name(out, cap, "stacked-proof-of-replication", k, "-sha256_hasher", id);
        return;
    case CUZK_FC_UPDATE:
        snprintf(id, sizeof id, "empty_sector_update::PublicParams{ sector_nodes: %llu }", nodes);
        v28_name(out, cap, "empty-sector-update", k, "", id);
        return;
    }
}

/* Go's name for (family, number), and the API version of that number. */
static void expected_go(cuzk_fc_family f, uint64_t number, char *name, size_t cap, cuzk_fc_api *api)
{
    static const char *const seal_suffix[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                               "V1_2_Feat_NiPoRep"};
    static const cuzk_fc_api seal_api[4] = {CUZK_API_1_0_0, CUZK_API_1_1_0, CUZK_API_1_2_0,
                                            CUZK_API_1_2_0};
    const char *size = size_names[number % 5];
    switch (f) {
    case CUZK_FC_SEAL:
        snprintf(name, cap, "StackedDrg%s%s", size, seal_suffix[number / 5]);
        *api = seal_api[number / 5];
        return;
    case CUZK_FC_WINNING:
        snprintf(name, cap, "StackedDrgWinning%sV1", size);
        *api = CUZK_API_1_0_0;
        return;
    case CUZK_FC_WINDOW:
        snprintf(name, cap, "StackedDrgWindow%s%s", size, number < 10 ? "V1" : "V1_1");
        *api = number < 10 ? CUZK_API_1_0_0 : CUZK_API_1_2_0;
        return;
    case CUZK_FC_UPDATE:
        snprintf(name, cap, "StackedDrg%sV1", size);
        *api = CUZK_API_1_1_0;
        return;
    }
}

/* Letters, digits, '_', '-', '.': `cuzk filecoin list --json` prints the
 * registry's strings without escaping on the strength of this. */
static int plain(const char *s)
{
    for (; *s; s++)
        if (!(*s == '_' || *s == '-' || *s == '.' || (*s >= '0' && *s <= '9') ||
              (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
            return 0;
    return 1;
}

static int lower_hex(const char *s, size_t n)
{
    if (strlen(s) != n)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

static void test_table(void)
{
    size_t n;
    const cuzk_fc_proof *t = cuzk_fc_proofs(&n);
    CHECK(n == 20 + 15 + 5);
    /* seen[family][number]: each number of each enum exactly once. */
    int seen[4][20] = {{0}};
    for (size_t i = 0; i < n; i++) {
        const cuzk_fc_proof *p = &t[i];
        if (p->family > CUZK_FC_UPDATE || p->number >= 20) {
            CHECK(!"family or number out of range");
            continue;
        }
        seen[p->family][p->number]++;
        unsigned k = (unsigned)(p->number % 5);
        char name[128], file[256];
        cuzk_fc_api api;
        expected_go(p->family, p->number, name, sizeof name, &api);
        CHECK(!strcmp(p->name, name));
        CHECK(p->api == api);
        CHECK(p->sector_size == sizes[k]);
        /* PoSt numbers: 0..4 Winning, 5..14 Window. */
        if (p->family == CUZK_FC_WINNING || p->family == CUZK_FC_WINDOW)
            CHECK((p->family == CUZK_FC_WINNING) == (p->number < 5) && p->number < 15);
        if (p->family == CUZK_FC_UPDATE)
            CHECK(p->number < 5);
        /* tree_r_last: 8^base_levels leaves per base tree, times sub, top. */
        uint64_t leaves = 1;
        for (unsigned l = 0; l < p->base_levels; l++)
            leaves *= 8;
        leaves *= (p->sub_arity ? p->sub_arity : 1) * (p->top_arity ? p->top_arity : 1);
        CHECK(leaves == p->sector_size / 32);
        CHECK(p->sub_arity == sub_of[k] && p->top_arity == top_of[k]);
        if (p->family == CUZK_FC_WINNING)
            CHECK(p->partitions == 1 && p->sectors == 66 && p->challenges == 1);
        if (p->family == CUZK_FC_WINDOW)
            CHECK(p->partitions == 1 && p->sectors == window_sectors[k] && p->challenges == 10);
        expected_name(p, k, file, sizeof file);
        if (strcmp(p->param_name, file))
            fprintf(stderr, "%s %llu: %s\n  want %s\n", cuzk_fc_family_name(p->family),
                    (unsigned long long)p->number, p->param_name, file);
        CHECK(!strcmp(p->param_name, file));
        CHECK(lower_hex(p->params_digest, 32) && lower_hex(p->vk_digest, 32));
        CHECK(strcmp(p->params_digest, p->vk_digest) != 0);
        CHECK(plain(p->name) && plain(p->circuit_id) && plain(p->param_name) && plain(p->feature));
        /* One circuit id, one file (and its digests), both ways. */
        for (size_t j = 0; j < n; j++)
            if (!strcmp(t[j].circuit_id, p->circuit_id) !=
                    !strcmp(t[j].param_name, p->param_name) ||
                (!strcmp(t[j].param_name, p->param_name) &&
                 (strcmp(t[j].params_digest, p->params_digest) ||
                  strcmp(t[j].vk_digest, p->vk_digest))))
                CHECK(!"circuit id, file and digests do not go together");
    }
    for (int f = 0; f < 4; f++)
        for (int num = 0; num < 20; num++) {
            int want = f == CUZK_FC_SEAL      ? 1
                       : f == CUZK_FC_WINNING ? num < 5
                       : f == CUZK_FC_WINDOW  ? num >= 5 && num < 15
                                              : /* update */ num < 5;
            if (seen[f][num] != want)
                fprintf(stderr, "family %d number %d: %d entries, want %d\n", f, num, seen[f][num],
                        want);
            CHECK(seen[f][num] == want);
        }
    /* Lookups agree with the table. */
    CHECK(cuzk_fc_post(3) && cuzk_fc_post(3)->family == CUZK_FC_WINNING);
    CHECK(cuzk_fc_post(13) && cuzk_fc_post(13)->family == CUZK_FC_WINDOW);
    CHECK(cuzk_fc_post(15) == NULL);
    CHECK(cuzk_fc_find(CUZK_FC_SEAL, 20) == NULL && cuzk_fc_find(CUZK_FC_UPDATE, 5) == NULL);
    const cuzk_fc_proof *w = cuzk_fc_by_circuit("post-window-32g");
    CHECK(w && w->sectors == 2349 && w->sector_size == sizes[3]);
    CHECK(cuzk_fc_by_circuit("post-window-33g") == NULL && cuzk_fc_by_circuit(NULL) == NULL);
}

static void test_resolve(void)
{
    const cuzk_fc_proof *p = (const cuzk_fc_proof *)1;
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_WINDOW, 15, 0, &p), CUZK_EINVAL,
              "registered_proof 15 is not a known RegisteredPoStProof");
    CHECK(p == NULL);
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_SEAL, 20, 0, &p), CUZK_EINVAL, "RegisteredSealProof");
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_UPDATE, 5, 0, &p), CUZK_EINVAL, "RegisteredUpdateProof");
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_WINDOW, 3, 0, &p), CUZK_EINVAL,
              "registered_proof 3 is StackedDrgWinning32GiBV1, not a window-post proof");
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_WINNING, 8, 0, &p), CUZK_EINVAL, "not a winning-post");
    /* A 2 KiB proof with a 32 GiB sector size: the message names both. */
    CHECK_ERR(cuzk_fc_resolve(CUZK_FC_WINDOW, 5, sizes[3], &p), CUZK_EINVAL, "2KiB");
    CHECK(strstr(cuzk_errmsg(), "32GiB") && strstr(cuzk_errmsg(), "34359738368"));
    CHECK(p == NULL);

    CHECK_OK(cuzk_fc_resolve(CUZK_FC_WINDOW, 13, sizes[3], &p));
    CHECK(p && p->number == 13 && p->sectors == 2349 && p->api == CUZK_API_1_2_0);
    CHECK_OK(cuzk_fc_resolve(CUZK_FC_WINDOW, 13, 0, &p));
    CHECK(p && p->number == 13);
    CHECK_OK(cuzk_fc_resolve(CUZK_FC_WINNING, 0, 2048, &p));
    CHECK(p && p->family == CUZK_FC_WINNING && p->sectors == 66);
    CHECK_OK(cuzk_fc_resolve(CUZK_FC_SEAL, 8, sizes[3], &p));
    CHECK(p && !strcmp(p->name, "StackedDrg32GiBV1_1"));
    CHECK_OK(cuzk_fc_resolve(CUZK_FC_UPDATE, 4, sizes[4], &p));
    CHECK(p && p->family == CUZK_FC_UPDATE && p->top_arity == 2);
}

/* Write n bytes to a scratch file named tag; its path into path. */
static void scratch(char *path, size_t cap, const char *tag, const void *data, size_t n)
{
    snprintf(path, cap, "%s/registry-%d-%s", check_tmpdir(), (int)getpid(), tag);
    CHECK_OK(cuzk_write_file(path, data, n));
}

static void test_digest(void)
{
    char path[512], h[33];
    uint8_t d[CUZK_FC_DIGEST_BYTES];
    /* Known answers: the first 16 bytes of BLAKE2b-512. */
    scratch(path, sizeof path, "abc", "abc", 3);
    CHECK_OK(cuzk_fc_file_digest(path, NULL, NULL, d));
    hex(d, sizeof d, h);
    CHECK(!strcmp(h, "ba80a53f981c4d0d6a2797b69f12f6e9"));
    unlink(path);
    scratch(path, sizeof path, "empty", "", 0);
    CHECK_OK(cuzk_fc_file_digest(path, NULL, NULL, d));
    hex(d, sizeof d, h);
    CHECK(!strcmp(h, "786a02f742015903c6c6fd852552d272"));
    unlink(path);

    /* Two whole 8 MiB pieces and a short one, against libcrypto's digest
     * of the same bytes in one call. */
    size_t n = (16u << 20) + 5;
    uint8_t *big = malloc(n), full[64];
    unsigned len = 0;
    if (!big) {
        CHECK(!"out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        big[i] = (uint8_t)(i * 2654435761u >> 13);
    EVP_Digest(big, n, full, &len, EVP_blake2b512(), NULL);
    scratch(path, sizeof path, "big", big, n);
    free(big);
    check_progress pr = {0};
    CHECK_OK(cuzk_fc_file_digest(path, check_progress_fn, &pr, d));
    CHECK(len == 64 && !memcmp(d, full, sizeof d));
    CHECK(pr.calls == 3 && pr.first == 8u << 20 && pr.last == n && pr.total == n && !pr.backwards);

    /* Stopped by its progress callback after the first piece. */
    check_progress stop = {.stop_at = 1};
    CHECK_ERR(cuzk_fc_file_digest(path, check_progress_fn, &stop, d), CUZK_ECANCELLED,
              "stopped at byte 8388608 of 16777221");
    CHECK(stop.calls == 1);
    unlink(path);

    /* Missing, and a folder: EIO naming the path and why. */
    CHECK_ERR(cuzk_fc_file_digest(path, NULL, NULL, d), CUZK_EIO, path);
    CHECK(strstr(cuzk_errmsg(), "ENOENT") != NULL);
    snprintf(path, sizeof path, "%s/registry-%d-dir", check_tmpdir(), (int)getpid());
    CHECK(mkdir(path, 0755) == 0);
    CHECK_ERR(cuzk_fc_file_digest(path, NULL, NULL, d), CUZK_EIO, "EISDIR");
    rmdir(path);
}

int main(void)
{
    test_table();
    test_resolve();
    test_digest();
    return check_done("test_filecoin_registry");
}
