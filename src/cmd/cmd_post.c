/* cuzk gen post and cuzk post check: synthetic PoSt sectors (gen.h) and the
 * check of a PoSt request's vanilla proofs against the circuit, offline.
 *
 *   cuzk gen post --proof-type window|winning --sector-size S --randomness HEX
 *                 [--sectors N] [--seed N] [--partition-index K] [--first-sector ID]
 *                 [--api-version 1.0.0|1.2.0 | --registered-proof N] [--miner-id M]
 *                 --out DIR
 *       writes DIR/sector-<id>.vproof (one bincode FallbackPoStSectorProof per
 *       sector, as Curio sends them) and DIR/request.json (the request's
 *       public data; hex strings are the 32-byte little-endian
 *       representations).
 *   cuzk post check (--registered-proof N | --proof-type window|winning
 *                   --sector-size S [--api-version V]) --randomness HEX
 *                   (--prover-id HEX | --miner-id M) [--partition-index K] FILE...
 *       decodes each file, builds the partition (cuzk_post_partition_build)
 *       and synthesizes its circuit in check mode: "satisfied: C constraints,
 *       I public inputs" (C after the input constraints, I with ONE), exit 0;
 *       an unsatisfied constraint: its index and name, exit 1; a malformed
 *       file or a bad request: the message naming the file, sector and byte
 *       offset, exit 2. --sectors-in-circuit N (diagnostics) synthesizes
 *       the first N circuit sectors only: a 32 GiB WindowPoSt partition is
 *       125 M constraints, a sector 53,333.
 *
 * The proof type is a registered PoSt proof number, or a proof type and a
 * sector size (2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes) with the API
 * version (WindowPoSt: 1.2.0 by default, the V1_1 numbers the network uses
 * now; WinningPoSt: 1.0.0, its only one). Randomness and prover ids are 64
 * hex digits, the 32 bytes as sent, and must be canonical field elements
 * (Curio clears the top two bits of byte 31). The prover id of a miner id is
 * its LEB128 varint, zero padded (gen.h); it enters neither the challenges
 * nor the circuit, so check only validates it (canonical, and the id of
 * --miner-id when both are given). */
#include "cmd/cmd.h"
#include "cuzk/gen.h"
#include "cuzk/post.h"
#include "cuzk/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MAX_FILES 4096

typedef struct {
    const char *proof_type, *sector_size, *api, *randomness, *prover_id, *out;
    uint64_t registered_proof, miner_id, seed, sectors, partition_index, first_sector;
    uint64_t sectors_in_circuit; /* post check, diagnostics: 0 = all */
    const char *foreign;         /* the first option given that the command does not take */
    int have_registered_proof, have_miner_id;
    const char *files[MAX_FILES];
    size_t n_files;
} post_opts;

int cmd_usage_fail(const char *what, const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk: %s: ", what);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 2;
}

int cmd_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (!*s || *end || s[0] == '-' || errno)
        return -1;
    *out = v;
    return 0;
}

/* "32GiB", "2KiB", "512MiB" (any case) or a byte count. */
int cmd_parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s || s[0] == '-' || errno)
        return -1;
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"", 0}, {"KiB", 10}, {"MiB", 20}, {"GiB", 30}};
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strcasecmp(end, units[i].suffix)) {
            if (v > UINT64_MAX >> units[i].shift)
                return -1;
            *out = (uint64_t)v << units[i].shift;
            return 0;
        }
    return -1;
}

/* 64 hex digits to 32 bytes, checked canonical; what names the value. */
static cuzk_err parse_fr_hex(const char *what, const char *s, uint8_t out[32])
{
    if (strlen(s) != 64)
        return cuzk_fail(CUZK_EINVAL,
                         "%s \"%s\": 64 hex digits expected (the 32 bytes, little-endian)", what,
                         s);
    for (int i = 0; i < 32; i++) {
        int h = cuzk_hex_digit(s[2 * i]), l = cuzk_hex_digit(s[2 * i + 1]);
        if (h < 0 || l < 0)
            return cuzk_fail(CUZK_EINVAL, "%s \"%s\": not hex at digit %d", what, s, 2 * i);
        out[i] = (uint8_t)(h << 4 | l);
    }
    cuzk_fr x;
    if (cuzk_fr_from_bytes_le(&x, out) != CUZK_OK)
        return cuzk_fail(CUZK_EINVAL,
                         "%s is not a canonical field element (byte 31 is 0x%02x; Curio clears "
                         "its top two bits)",
                         what, out[31]);
    return CUZK_OK;
}

static void fr_hex32(char out[65], const cuzk_fr *x)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    cmd_hex32(out, b);
}

/* parse_opts reads the options of both commands; each refuses those of
 * the other rather than ignore them. */
static const char *const gen_only[] = {"--out", "--seed", "--sectors", "--first-sector", NULL};
static const char *const check_only[] = {"--prover-id", "--sectors-in-circuit", NULL};

static int parse_opts(const char *what, int argc, char **argv, post_opts *o)
{
    const char *const *not_here = !strcmp(what, "gen post") ? check_only : gen_only;
    memset(o, 0, sizeof *o);
    o->seed = 1;
    o->sectors = 1;
    o->first_sector = 1;
    o->miner_id = 1000;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const char *const strs[] = {"--proof-type", "--sector-size", "--api-version",
                                           "--randomness", "--prover-id",   "--out"};
        static const char *const nums[] = {
            "--registered-proof", "--miner-id",          "--seed", "--sectors", "--partition-index",
            "--first-sector",     "--sectors-in-circuit"};
        const char **sv[] = {&o->proof_type, &o->sector_size, &o->api,
                             &o->randomness, &o->prover_id,   &o->out};
        uint64_t *nv[] = {&o->registered_proof,  &o->miner_id,        &o->seed,
                          &o->sectors,           &o->partition_index, &o->first_sector,
                          &o->sectors_in_circuit};
        size_t ks = 0, kn = 0;
        while (ks < 6 && strcmp(a, strs[ks]))
            ks++;
        while (kn < 7 && strcmp(a, nums[kn]))
            kn++;
        for (size_t k = 0; not_here[k] && !o->foreign; k++)
            if (!strcmp(a, not_here[k]))
                o->foreign = not_here[k];
        if (ks < 6 || kn < 7) {
            if (!v)
                return cmd_usage_fail(what, "%s needs a value", a);
            i++;
            if (ks < 6)
                *sv[ks] = v;
            else if (cmd_parse_u64(v, nv[kn]))
                return fprintf(stderr, "cuzk: %s: %s: bad number \"%s\"\n", what, a, v), 2;
            o->have_registered_proof |= kn == 0;
            o->have_miner_id |= kn == 1;
            continue;
        }
        if (a[0] == '-')
            return cmd_usage_fail(what, "unknown option %s", a);
        if (o->n_files == MAX_FILES)
            return cmd_usage_fail(what, "%s", "too many files");
        o->files[o->n_files++] = a;
    }
    if (o->foreign)
        return fprintf(stderr, "cuzk: %s: %s is not an option of %s\n", what, o->foreign, what), 2;
    return 0;
}

/* The registry entry the options name (EINVAL saying what is missing or
 * contradicts). */
static cuzk_err resolve_proof(const post_opts *o, const cuzk_fc_proof **out)
{
    cuzk_fc_family fam = CUZK_FC_SEAL;
    uint64_t size = 0;
    cuzk_fc_api api = 0;
    char b1[24];
    if (o->proof_type) {
        if (!strcmp(o->proof_type, "window"))
            fam = CUZK_FC_WINDOW;
        else if (!strcmp(o->proof_type, "winning"))
            fam = CUZK_FC_WINNING;
        else
            return cuzk_fail(CUZK_EINVAL, "--proof-type \"%s\": window or winning", o->proof_type);
    }
    if (o->sector_size && cmd_parse_size(o->sector_size, &size))
        return cuzk_fail(CUZK_EINVAL,
                         "--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes",
                         o->sector_size);
    if (o->api) {
        if (!strcmp(o->api, "1.0.0"))
            api = CUZK_API_1_0_0;
        else if (!strcmp(o->api, "1.2.0"))
            api = CUZK_API_1_2_0;
        else
            return cuzk_fail(CUZK_EINVAL, "--api-version \"%s\": 1.0.0 or 1.2.0", o->api);
    }
    if (o->have_registered_proof) {
        const cuzk_fc_proof *p = cuzk_fc_post(o->registered_proof);
        if (!p)
            return cuzk_fail(CUZK_EINVAL,
                             "unknown registered PoSt proof %llu (0..4 Winning, 5..14 Window)",
                             (unsigned long long)o->registered_proof);
        if ((o->proof_type && p->family != fam) || (size && p->sector_size != size) ||
            (api && p->api != api))
            return cuzk_fail(CUZK_EINVAL,
                             "--registered-proof %llu is %s (%s, API %s); the other options say "
                             "otherwise",
                             (unsigned long long)o->registered_proof, p->name,
                             cuzk_fc_size_name(p->sector_size, b1), cuzk_fc_api_name(p->api));
        *out = p;
        return CUZK_OK;
    }
    if (!o->proof_type || !size)
        return cuzk_fail(CUZK_EINVAL,
                         "the proof: --registered-proof N, or --proof-type and --sector-size");
    if (!api)
        api = fam == CUZK_FC_WINDOW ? CUZK_API_1_2_0 : CUZK_API_1_0_0;
    size_t n;
    const cuzk_fc_proof *all = cuzk_fc_proofs(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i].family == fam && all[i].sector_size == size && all[i].api == api) {
            *out = &all[i];
            return CUZK_OK;
        }
    return cuzk_fail(CUZK_EINVAL, "no %s proof for sector size %s under API %s",
                     cuzk_fc_family_name(fam), cuzk_fc_size_name(size, b1), cuzk_fc_api_name(api));
}

/* DIR/request.json: the request's public data. */
static cuzk_err write_request(const char *path, const cuzk_fc_proof *p, const uint8_t r[32],
                              const post_opts *o, const cuzk_post_sector_proof *v, size_t n)
{
    uint8_t prover[32];
    char hr[65], hp[65], hc[65];
    cuzk_gen_prover_id(o->miner_id, prover);
    cmd_hex32(hr, r);
    cmd_hex32(hp, prover);
    FILE *f = fopen(path, "w");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot create %s: %s", path, cuzk_strerror(errno));
    fprintf(f,
            "{\"registered_proof\": %llu, \"proof_type\": \"%s\", \"sector_size\": %llu, "
            "\"randomness\": \"%s\", \"prover_id\": \"%s\", \"miner_id\": %llu, "
            "\"partition_index\": %llu, \"sectors\": [",
            (unsigned long long)p->number, p->family == CUZK_FC_WINDOW ? "window" : "winning",
            (unsigned long long)p->sector_size, hr, hp, (unsigned long long)o->miner_id,
            (unsigned long long)o->partition_index);
    for (size_t i = 0; i < n; i++) {
        fr_hex32(hc, &v[i].comm_r);
        fprintf(f, "%s{\"sector_id\": %llu, \"comm_r\": \"%s\"}", i ? ", " : "",
                (unsigned long long)v[i].sector_id, hc);
    }
    fprintf(f, "]}\n");
    if (fclose(f) != 0)
        return cuzk_fail(CUZK_EIO, "writing %s failed", path);
    return CUZK_OK;
}

static cuzk_err write_sectors(const char *dir, const cuzk_post_sector_proof *v, size_t n)
{
    cuzk_err e = CUZK_OK;
    for (size_t i = 0; i < n && !e; i++) {
        char path[4096];
        uint8_t *b;
        size_t nb;
        snprintf(path, sizeof path, "%s/sector-%llu.vproof", dir,
                 (unsigned long long)v[i].sector_id);
        if ((e = cuzk_post_sector_proof_encode(&v[i], &b, &nb)))
            break;
        e = cuzk_write_file(path, b, nb);
        free(b);
        char hc[65];
        fr_hex32(hc, &v[i].comm_r);
        if (!e)
            printf("%s: sector %llu, %zu bytes, comm_r %s\n", path,
                   (unsigned long long)v[i].sector_id, nb, hc);
    }
    return e;
}

int cmd_gen_post(int argc, char **argv)
{
    post_opts o;
    int rc = parse_opts("gen post", argc, argv, &o);
    if (rc)
        return rc;
    if (o.n_files)
        return cmd_usage_fail("gen post", "unexpected argument \"%s\"", o.files[0]);
    if (!o.out)
        return cmd_usage_fail("gen post", "%s", "--out DIR is required");
    if (!o.randomness)
        return cmd_usage_fail("gen post", "%s", "--randomness HEX is required");
    const cuzk_fc_proof *p = NULL;
    uint8_t r[32];
    cuzk_err e = resolve_proof(&o, &p);
    if (!e)
        e = parse_fr_hex("randomness", o.randomness, r);
    if (!e && o.partition_index > UINT32_MAX)
        e = cuzk_fail(CUZK_EINVAL, "--partition-index %llu: at most %u",
                      (unsigned long long)o.partition_index, UINT32_MAX);
    size_t max = p && p->family == CUZK_FC_WINDOW ? p->sectors : 1;
    if (!e && (o.sectors < 1 || o.sectors > max))
        e = cuzk_fail(CUZK_EINVAL, "--sectors %llu: %s takes 1..%zu per partition",
                      (unsigned long long)o.sectors, p->name, max);
    if (e)
        return cmd_fail("gen post", e);
    cuzk_post_sector_proof *v = calloc(o.sectors, sizeof *v);
    if (!v)
        return cmd_fail("gen post", cuzk_fail(CUZK_ENOMEM, "out of memory"));
    double t = cuzk_now();
    e = cuzk_gen_post_partition(p, r, o.seed, (uint32_t)o.partition_index, o.first_sector,
                                o.sectors, v);
    t = cuzk_now() - t;
    int generated = !e; /* else the generator freed what it made */
    if (!e)
        e = cuzk_make_dirs(o.out);
    if (!e) {
        printf("gen post: %s (API %s), partition %llu, %llu sector(s), seed %llu, gen_s=%.6f\n",
               p->name, cuzk_fc_api_name(p->api), (unsigned long long)o.partition_index,
               (unsigned long long)o.sectors, (unsigned long long)o.seed, t);
        e = write_sectors(o.out, v, o.sectors);
    }
    char *req = e ? NULL : cmd_path_with(o.out, "/request.json");
    if (!e && !req)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e && !(e = write_request(req, p, r, &o, v, o.sectors)))
        printf("%s\n", req);
    free(req);
    for (size_t i = 0; i < o.sectors && generated; i++)
        cuzk_post_sector_proof_free(&v[i]);
    free(v);
    return e ? cmd_fail("gen post", e) : 0;
}

/* A partition-build message names vanilla_proofs[i]: say which file that
 * is. */
static cuzk_err name_file(cuzk_err e, const post_opts *o)
{
    size_t i;
    if (sscanf(cuzk_errmsg(), "vanilla_proofs[%zu]", &i) == 1 && i < o->n_files)
        return cuzk_fail_ctx(e, "%s: ", o->files[i]);
    return e;
}

/* Decode, build, synthesize in check mode. 0 satisfied, 1 unsatisfied, 2
 * anything else. */
static int post_check(const post_opts *o)
{
    const cuzk_fc_proof *p;
    uint8_t r[32], prover[32];
    cuzk_err e = resolve_proof(o, &p);
    if (!e && !o->randomness)
        e = cuzk_fail(CUZK_EINVAL, "--randomness HEX is required");
    if (!e)
        e = parse_fr_hex("randomness", o->randomness, r);
    if (!e && !o->prover_id && !o->have_miner_id)
        e = cuzk_fail(CUZK_EINVAL, "the prover: --prover-id HEX or --miner-id N");
    if (!e && o->prover_id)
        e = parse_fr_hex("prover id", o->prover_id, prover);
    uint8_t of_miner[32];
    cuzk_gen_prover_id(o->miner_id, of_miner);
    if (!e && o->prover_id && o->have_miner_id && memcmp(prover, of_miner, 32))
        e = cuzk_fail(CUZK_EINVAL, "--prover-id is not the prover id of --miner-id %llu",
                      (unsigned long long)o->miner_id);
    if (!e && o->partition_index > UINT32_MAX)
        e = cuzk_fail(CUZK_EINVAL, "--partition-index %llu: at most %u",
                      (unsigned long long)o->partition_index, UINT32_MAX);
    if (!e && !o->n_files)
        e = cuzk_fail(CUZK_EINVAL, "no vanilla proof files given");
    if (!e && o->sectors_in_circuit > p->sectors)
        e = cuzk_fail(CUZK_EINVAL, "--sectors-in-circuit %llu: %s has %u circuit sectors",
                      (unsigned long long)o->sectors_in_circuit, p->name, p->sectors);
    if (e)
        return cmd_fail("post check", e);
    cuzk_post_sector_proof *v = calloc(o->n_files, sizeof *v);
    if (!v)
        return cmd_fail("post check", cuzk_fail(CUZK_ENOMEM, "out of memory"));
    for (size_t i = 0; i < o->n_files && !e; i++) {
        uint8_t *data;
        size_t size;
        char name[4200];
        snprintf(name, sizeof name, "%s: proof", o->files[i]);
        if (!(e = cuzk_read_file(o->files[i], &data, &size))) {
            e = cuzk_post_sector_proof_decode(data, size, name, &v[i]);
            free(data);
        }
    }
    cuzk_post_partition part = {0};
    if (!e)
        e = name_file(
            cuzk_post_partition_build(p, r, (uint32_t)o->partition_index, v, o->n_files, &part), o);
    int rc = 2;
    cuzk_cs *cs = NULL;
    /* --sectors-in-circuit: the circuit of a copy of the entry with fewer
     * sectors, over the partition's first ones (every sector is checked
     * when the partition is built; this bounds the synthesis). */
    cuzk_fc_proof fewer = *p;
    cuzk_post_partition sub = part;
    if (o->sectors_in_circuit) {
        fewer.sectors = (unsigned)o->sectors_in_circuit;
        sub.proof = &fewer;
        sub.n_sectors = fewer.sectors;
    }
    if (!e) {
        printf("post check: %s (API %s), partition %llu, %zu file(s), %zu of %zu circuit "
               "sector(s)\n",
               p->name, cuzk_fc_api_name(p->api), (unsigned long long)o->partition_index,
               o->n_files, sub.n_sectors, part.n_sectors);
        fflush(stdout);
        e = cuzk_cs_new(&cs, CUZK_CS_CHECK);
    }
    if (!e) {
        e = cuzk_post_synthesize(cs, sub.proof, &sub);
        /* Check mode's own failure (cs.h): the constraint, by index and
         * name. Anything else is no verdict on the proofs. */
        if (e == CUZK_EINVAL && strstr(cuzk_errmsg(), "is not satisfied")) {
            printf("unsatisfied: %s\n", cuzk_errmsg());
            rc = 1;
        } else if (!e && !(e = cuzk_cs_finish(cs))) {
            printf("satisfied: %llu constraints, %u public inputs\n",
                   (unsigned long long)cuzk_cs_num_constraints(cs), cuzk_cs_num_inputs(cs));
            rc = 0;
        }
    }
    if (rc == 2)
        cmd_fail("post check", e);
    cuzk_cs_free(cs);
    cuzk_post_partition_free(&part);
    for (size_t i = 0; i < o->n_files; i++)
        cuzk_post_sector_proof_free(&v[i]);
    free(v);
    return rc;
}

int cmd_post_main(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "check"))
        return cmd_usage_fail("post", "which? \"%s\" is not check", argc ? argv[0] : "");
    post_opts o;
    int rc = parse_opts("post check", argc - 1, argv + 1, &o);
    return rc ? rc : post_check(&o);
}
