/* PoRep public inputs (include/cuzk/porep.h), each part against an oracle
 * named where it is used:
 *   - replica id and challenges against values computed independently with
 *     Python's hashlib over the documented preimages (SHA-256 of prover_id ||
 *     sector u64 BE || ticket || comm_d || porep_id, top two bits cleared;
 *     SHA-256 of replica_id || seed || j u32 LE as a little-endian integer
 *     mod (nodes - 1), plus 1);
 *   - the whole parent graph against rust-fil-proofs' parent-cache manifest
 *     (storage-proofs-porep/parent_cache.json): the SHA-256 of every node's
 *     14 parents as u32 LE, per sector size and porep_id, under the file name
 *     rust-fil-proofs derives from the graph's identifier and Feistel keys;
 *   - rust-fil-proofs' graph property tests for 32 and 64 GiB (API 1.0.0's
 *     truncated expander edges, 1.1.0's full ones);
 *   - polka-storage's 2 KiB PoRep proof and verifying key (a random setup of
 *     rust-fil-proofs' StackedDrg circuit): our 39 public inputs make it
 *     verify, and a changed seed, ticket, sector number, prover id or
 *     porep_id makes it fail;
 *   - synthetic PoRep's challenges against rust-fil-proofs' known answers
 *     (stacked/vanilla/challenges.rs, test_synth_challenges_against_hardcoded:
 *     2^10 nodes, replica_id 55, comm_r 101, 21 synthetic challenges, 10
 *     porep challenges under the seed [1; 32]). */
#include "check.h"
#include "polka_vk.h"
#include "cuzk/filecoin.h"
#include "cuzk/groth16.h"
#include "cuzk/porep.h"
#include "cuzk/util.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUZK_SOURCE_DIR
#define CUZK_SOURCE_DIR "."
#endif
#define FIXTURES CUZK_SOURCE_DIR "/tests/fixtures/filecoin/"

static void hex32(const char *hex, uint8_t out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
}

static void to_hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* polka-storage's test data (pallets/proofs/src/tests/porep.rs). */
static void polka_public(cuzk_porep_public *pub)
{
    memset(pub, 0, sizeof *pub);
    pub->sector_id = 77;
    memset(pub->ticket, 12, 32);
    memset(pub->seed, 13, 32);
    hex32("129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421", pub->comm_d);
    hex32("4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950", pub->comm_r);
}

static void test_replica_and_challenges(void)
{
    cuzk_porep_public pub;
    polka_public(&pub);
    uint8_t pid[32], rid[32], want[32];
    cuzk_porep_id(0, pid);
    cuzk_porep_replica_id(pub.prover_id, pub.sector_id, pub.ticket, pub.comm_d, pid, rid);
    hex32("b9a46849a25004df1345838204c76a324d7adb7bbb100cdf323d7996a5ac9b34", want);
    CHECK(memcmp(rid, want, 32) == 0);
    CHECK(cuzk_porep_challenge(rid, pub.seed, 0, 64) == 37);
    CHECK(cuzk_porep_challenge(rid, pub.seed, 1, 64) == 29);

    /* porep_id: proof number LE, nonce 0, zeros */
    cuzk_porep_id(8, pid);
    CHECK(pid[0] == 8);
    for (int i = 1; i < 32; i++)
        CHECK(pid[i] == 0);
}

/* The parent cache of a sector size as rust-fil-proofs writes it: its file
 * name hash and its content digest. */
static void parent_cache(uint64_t sector_size, uint64_t number, cuzk_fc_api api, char name[65],
                         char digest[65])
{
    uint8_t pid[32], h[32];
    cuzk_porep_id(number, pid);
    cuzk_porep_graph g;
    CHECK_OK(cuzk_porep_graph_init(&g, sector_size / 32, pid, api));

    /* cache_path(): SHA-256 of the hasher name, the graph identifier, the
     * Feistel keys as u64 LE and the entry count as u32 LE. */
    char id[256];
    snprintf(id, sizeof id,
             "poseidon_hasherstacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
             "drgraph::BucketGraph{size: %llu; degree: 6; hasher: poseidon_hasher} }",
             (unsigned long long)g.nodes);
    size_t n = strlen(id);
    uint8_t pre[256 + 36];
    memcpy(pre, id, n);
    for (int k = 0; k < 4; k++)
        for (int i = 0; i < 8; i++)
            pre[n + 8 * k + i] = (uint8_t)(g.feistel_keys[k] >> (8 * i));
    for (int i = 0; i < 4; i++)
        pre[n + 32 + i] = (uint8_t)(g.nodes >> (8 * i));
    SHA256(pre, n + 36, h);
    to_hex(h, 32, name);

    size_t bytes = (size_t)g.nodes * CUZK_POREP_DEGREE * 4;
    uint8_t *data = malloc(bytes);
    CHECK(data != NULL);
    for (uint32_t v = 0; v < g.nodes; v++) {
        uint32_t p[CUZK_POREP_DEGREE];
        if (cuzk_porep_parents(&g, v, p) != CUZK_OK) {
            CHECK(0);
            break;
        }
        for (int j = 0; j < CUZK_POREP_DEGREE; j++)
            for (int i = 0; i < 4; i++)
                data[((size_t)v * CUZK_POREP_DEGREE + j) * 4 + i] = (uint8_t)(p[j] >> (8 * i));
    }
    SHA256(data, bytes, h);
    free(data);
    to_hex(h, 32, digest);
}

static void expect_cache(uint64_t sector_size, uint64_t number, cuzk_fc_api api,
                         const char *want_name, const char *want_digest)
{
    char name[65], digest[65];
    parent_cache(sector_size, number, api, name, digest);
    CHECK(strcmp(name, want_name) == 0);
    CHECK(strcmp(digest, want_digest) == 0);
    if (strcmp(name, want_name) || strcmp(digest, want_digest))
        fprintf(stderr, "parent cache %llu/%llu: got %s %s\n", (unsigned long long)sector_size,
                (unsigned long long)number, name, digest);
}

static void test_parent_cache(void)
{
    /* rust-fil-proofs storage-proofs-porep/parent_cache.json, v28 entries
     * (V1 graphs: porep ids 0, 1; V1_1: 5, 6). */
    expect_cache(2048, 0, CUZK_API_1_0_0,
                 "3f0eef38bb48af1f48ad65e14eb85b4ebfc167cec18cd81764f6d998836c9899",
                 "3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d");
    expect_cache(2048, 5, CUZK_API_1_1_0,
                 "494d91dc80f2df5272c4b9e129bc7ade9405225993af9fe34e6542a39a47554b",
                 "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97");
    expect_cache(8u << 20, 1, CUZK_API_1_0_0,
                 "dcdabb0fbe4364bf0ac28b6a18c66de246409fa1a9020a00f33fb3e3053da6dc",
                 "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce");
    expect_cache(8u << 20, 6, CUZK_API_1_1_0,
                 "5eed212119fd91aa6220a27f31a8966444a9381842bceb3a1ea61525bd47a5b5",
                 "03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab");
}

/* Whether any expander parent of the first `children` nodes reaches
 * `bound`. */
static int exp_reaches(uint64_t nodes, uint64_t number, cuzk_fc_api api, uint32_t children,
                       uint32_t bound)
{
    uint8_t pid[32];
    cuzk_porep_id(number, pid);
    cuzk_porep_graph g;
    CHECK_OK(cuzk_porep_graph_init(&g, nodes, pid, api));
    for (uint32_t v = 0; v < children; v++) {
        uint32_t p[CUZK_POREP_DEGREE];
        CHECK_OK(cuzk_porep_parents(&g, v, p));
        for (int j = CUZK_POREP_DRG_DEGREE; j < CUZK_POREP_DEGREE; j++)
            if (p[j] >= bound)
                return 1;
    }
    return 0;
}

/* rust-fil-proofs' own graph tests (storage-proofs-porep
 * stacked/vanilla/graph.rs): test_graph_distribution_pathology (API 1.0.0
 * truncated the permuted index, so 32 and 64 GiB expander parents of the
 * first 1000 nodes stay in the lower half; 1.1.0 and 1.2.0 do not) and
 * test_high_parent_bits (a 64 GiB V1_2 graph reaches parents at 2^29 and
 * above within 3 nodes). */
static void test_graph_properties(void)
{
    const uint64_t n32 = 1ull << 30, n64 = 1ull << 31;
    CHECK(!exp_reaches(n32, 3, CUZK_API_1_0_0, 1000, (uint32_t)(n32 / 2)));
    CHECK(!exp_reaches(n64, 4, CUZK_API_1_0_0, 1000, (uint32_t)(n64 / 2)));
    CHECK(exp_reaches(n32, 8, CUZK_API_1_1_0, 1000, (uint32_t)(n32 / 2)));
    CHECK(exp_reaches(n64, 9, CUZK_API_1_1_0, 1000, (uint32_t)(n64 / 2)));
    CHECK(exp_reaches(n32, 8, CUZK_API_1_2_0, 1000, (uint32_t)(n32 / 2)));
    CHECK(exp_reaches(n64, 9, CUZK_API_1_2_0, 1000, (uint32_t)(n64 / 2)));
    CHECK(exp_reaches(n64, 5, CUZK_API_1_2_0, 3, 1u << 29));

    /* Every parent precedes its node in the DRG (node 0 names itself), and
     * the predecessor sits first (1.1.0) or last (1.0.0). */
    uint8_t pid[32];
    cuzk_porep_id(8, pid);
    cuzk_porep_graph g1, g0;
    CHECK_OK(cuzk_porep_graph_init(&g1, n32, pid, CUZK_API_1_1_0));
    CHECK_OK(cuzk_porep_graph_init(&g0, n32, pid, CUZK_API_1_0_0));
    for (uint32_t v = 2; v < 200; v++) {
        uint32_t a[CUZK_POREP_DEGREE], b[CUZK_POREP_DEGREE];
        CHECK_OK(cuzk_porep_parents(&g1, v * 997, a));
        CHECK_OK(cuzk_porep_parents(&g0, v * 997, b));
        CHECK(a[0] == v * 997 - 1 && b[5] == v * 997 - 1);
        for (int j = 1; j < CUZK_POREP_DRG_DEGREE; j++)
            CHECK(a[j] < v * 997 && a[j] == b[j - 1]); /* the same draws */
    }
    uint32_t p[CUZK_POREP_DEGREE];
    CHECK_ERR(cuzk_porep_parents(&g1, (uint32_t)n32, p), CUZK_EINVAL, "node 1073741824");
}

/* polka-storage proves StackedDRG2KiBV1P1 with porep_id 0^32 (the id of
 * RegisteredSealProof 0, not 5) and API 1.2.0 (lib/polka-storage-proofs
 * porep/mod.rs seal_to_config): the 2 KiB shape, 1 partition of 2
 * challenges. */
static void polka_config(cuzk_porep_config *c)
{
    const cuzk_fc_proof *fp = cuzk_fc_find(CUZK_FC_SEAL, 5);
    CHECK(fp != NULL);
    CHECK_OK(cuzk_porep_config_of(fp, c));
    CHECK(c->partitions == 1 && c->challenges == 2 && c->sector_size == 2048);
    cuzk_porep_id(0, c->porep_id);
    c->api = CUZK_API_1_2_0;
}

static int polka_verifies(const cuzk_vk *vk, const cuzk_proof *proof, const cuzk_porep_config *c,
                          const cuzk_porep_public *pub)
{
    cuzk_fr in[39];
    CHECK(cuzk_porep_public_input_count(c) == 39);
    CHECK_OK(cuzk_porep_public_inputs(c, pub, 0, in));
    cuzk_err e = cuzk_groth16_verify(vk, in, 39, proof);
    CHECK(e == CUZK_OK || e == CUZK_EVERIFY);
    return e == CUZK_OK;
}

static void test_polka(void)
{
    cuzk_vk vk;
    load_polka_vk(FIXTURES "polka-porep-2k.vk", 40, &vk);
    cuzk_proof proof;
    load_polka_proof(FIXTURES "polka-porep-2k.proof", &proof);

    cuzk_porep_config c;
    polka_config(&c);
    cuzk_porep_public pub;
    polka_public(&pub);
    CHECK(polka_verifies(&vk, &proof, &c, &pub));

    cuzk_porep_public bad = pub;
    bad.seed[0] ^= 1;
    CHECK(!polka_verifies(&vk, &proof, &c, &bad));
    bad = pub;
    bad.ticket[5] ^= 1;
    CHECK(!polka_verifies(&vk, &proof, &c, &bad));
    bad = pub;
    bad.sector_id = 78;
    CHECK(!polka_verifies(&vk, &proof, &c, &bad));
    bad = pub;
    bad.prover_id[0] = 1;
    CHECK(!polka_verifies(&vk, &proof, &c, &bad));
    cuzk_porep_config c5 = c; /* the registry's own porep_id for number 5 */
    cuzk_porep_id(5, c5.porep_id);
    CHECK(!polka_verifies(&vk, &proof, &c5, &pub));
    cuzk_vk_free(&vk);
}

static void test_errors(void)
{
    cuzk_porep_graph g;
    uint8_t pid[32] = {0};
    CHECK_ERR(cuzk_porep_graph_init(&g, 1, pid, CUZK_API_1_1_0), CUZK_EINVAL, "1 nodes");
    CHECK_ERR(cuzk_porep_graph_init(&g, (1ull << 31) + 1, pid, CUZK_API_1_1_0), CUZK_EINVAL,
              "nodes");
    cuzk_porep_config c;
    CHECK_ERR(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 18), &c), CUZK_EUNSUPPORTED,
              "non-interactive");
    CHECK_OK(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 13), &c));
    CHECK(c.synthetic && c.partitions == 10 && c.challenges == 18 && c.api == CUZK_API_1_2_0);
    CHECK_ERR(cuzk_porep_config_of(cuzk_fc_post(10), &c), CUZK_EINVAL, "not a seal proof");
    CHECK_OK(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 8), &c));
    CHECK(c.partitions == 10 && c.challenges == 18 && c.api == CUZK_API_1_1_0);
    CHECK(cuzk_porep_public_input_count(&c) == 3 + 18 * 18);
    cuzk_porep_public pub;
    polka_public(&pub);
    cuzk_fr in[3 + 18 * 18];
    CHECK_ERR(cuzk_porep_public_inputs(&c, &pub, 10, in), CUZK_EINVAL, "partition 10 of 10");
    pub.comm_r[31] = 0xff;
    CHECK_ERR(cuzk_porep_public_inputs(&c, &pub, 0, in), CUZK_EINVAL, "comm_r");
}

/* rust-fil-proofs' hardcoded synthetic challenges (see the top comment). */
static void test_synthetic(void)
{
    static const uint32_t synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint32_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t rid[32] = {55}, comm_r[32] = {101}, seed[32];
    memset(seed, 1, sizeof seed);
    for (unsigned i = 0; i < 21; i++) {
        uint32_t c = 0;
        CHECK_OK(cuzk_porep_synth_challenge(rid, comm_r, 1024, i, &c));
        if (c != synth[i])
            fprintf(stderr, "synthetic challenge %u: %u, want %u\n", i, c, synth[i]);
        CHECK(c == synth[i]);
    }
    for (unsigned j = 0; j < 10; j++) {
        uint64_t idx = 99;
        uint32_t c = 0;
        CHECK_OK(cuzk_porep_synth_index(rid, seed, 21, j, &idx));
        CHECK(idx < 21);
        CHECK_OK(cuzk_porep_synth_challenge(rid, comm_r, 1024, idx, &c));
        if (c != porep[j])
            fprintf(stderr, "porep challenge %u: synthetic %llu = %u, want %u\n", j,
                    (unsigned long long)idx, c, porep[j]);
        CHECK(c == porep[j]);
    }
    /* Through a registry entry: 2 KiB synthetic PoRep (64 nodes, a set of 64),
     * and the interactive entry of the same size draws differently. */
    cuzk_porep_config syn, inter;
    CHECK_OK(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 10), &syn));
    CHECK_OK(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 5), &inter));
    CHECK(syn.synthetic && !inter.synthetic && syn.partitions == 1 && syn.challenges == 2);
    int differ = 0;
    for (uint32_t j = 0; j < 8; j++) {
        uint32_t a = 0, b = 0, want = 0;
        uint64_t idx = 0;
        CHECK_OK(cuzk_porep_challenge_of(&syn, rid, comm_r, seed, j, &a));
        CHECK_OK(cuzk_porep_synth_index(rid, seed, 64, j, &idx));
        CHECK_OK(cuzk_porep_synth_challenge(rid, comm_r, 64, idx, &want));
        CHECK(a == want && a >= 1 && a < 64);
        CHECK_OK(cuzk_porep_challenge_of(&inter, rid, comm_r, seed, j, &b));
        CHECK(b == cuzk_porep_challenge(rid, seed, j, 64));
        differ += a != b;
    }
    CHECK(differ > 0);
    /* Non-interactive PoRep stays refused, naming why. */
    cuzk_porep_config ni;
    CHECK_ERR(cuzk_porep_config_of(cuzk_fc_find(CUZK_FC_SEAL, 15), &ni), CUZK_EUNSUPPORTED,
              "non-interactive-porep");
    uint32_t c;
    CHECK_ERR(cuzk_porep_synth_challenge(rid, comm_r, 1, 0, &c), CUZK_EINVAL, "1-node sector");
    uint64_t idx;
    CHECK_ERR(cuzk_porep_synth_index(rid, seed, 0, 0, &idx), CUZK_EINVAL, "empty");
}

int main(void)
{
    test_synthetic();
    test_replica_and_challenges();
    test_parent_cache();
    test_graph_properties();
    test_polka();
    test_errors();
    return check_done("test_filecoin_porep");
}
