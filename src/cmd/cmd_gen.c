/* cuzk gen: synthetic Filecoin test data (gen.h) made in seconds at any
 * sector size, 32 GiB included.
 *
 *   cuzk gen porep --sector-size S [--registered-proof N] [--seed N]
 *                  [--miner-id M] [--sector-number N] --out FILE
 *       writes the C1 output (SealCommitPhase1Output JSON, as Curio sends
 *       it to C2) of a synthetic committed-capacity sector: the registered
 *       proof's partitions and challenges, real labels at the challenged
 *       nodes, sparse trees elsewhere (src/seal/gen_porep.c: why it
 *       satisfies the circuit, and why it is test data and not a seal).
 *       The sector size picks the V1_1 seal proof of that size (API
 *       1.1.0) unless --registered-proof names another; both given must
 *       agree. Defaults: seed 1, miner 1000, sector 1. The JSON is decoded
 *       and every value checked (c1.h) before it is written. Prints the
 *       proof, the timings (gen_s, json_s, check_s) and replica_id, comm_d,
 *       comm_d_cid, comm_r, comm_r_cid, ticket and seed as key=value
 *       lines: what `cuzk porep check FILE --miner-id M --sector-number N`
 *       and a PoRep C2 request need.
 *
 *   cuzk gen snap --sector-size S [--seed N] --out DIR
 *       a synthetic SnapDeals update of a committed-capacity sector
 *       (src/seal/gen_snap.c: a constant sector key and constant new data,
 *       so every tree costs a few thousand hashes): DIR/partition-<k>.vproof
 *       (one bincode PartitionProof per partition, as Curio sends them) and
 *       DIR/request.json (registered_proof, sector_size, partitions and hex
 *       comm_c, comm_r_old, comm_d_new, comm_r_new: 32 bytes little-endian,
 *       as stored). Every partition is checked by the vanilla verification
 *       before anything is written. Prints the update, one line per file,
 *       and the commitments as key=value lines (with their CIDs).
 *
 *   cuzk gen post ...   (cmd_post.c) */
#define _GNU_SOURCE
#include "cmd/cmd.h"
#include "cuzk/gen.h"
#include "cuzk/piece.h"
#include "cuzk/snap.h"
#include "cuzk/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *sector_size, *out;
    uint64_t registered_proof, seed, miner_id, sector_number;
    int have_registered_proof;
} porep_opts;

static int porep_parse(int argc, char **argv, porep_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = 1, o->miner_id = 1000, o->sector_number = 1;
    static const char *const names[] = {"--sector-size", "--out",      "--registered-proof",
                                        "--seed",        "--miner-id", "--sector-number"};
    for (int i = 0; i < argc; i++) {
        size_t k = 0;
        while (k < 6 && strcmp(argv[i], names[k]))
            k++;
        if (k == 6)
            return cmd_usage_fail(
                "gen porep", argv[i][0] == '-' ? "unknown option %s" : "unexpected argument \"%s\"",
                argv[i]);
        if (i + 1 >= argc)
            return cmd_usage_fail("gen porep", "%s needs a value", argv[i]);
        const char *v = argv[++i];
        uint64_t *num[] = {NULL,     NULL,         &o->registered_proof,
                           &o->seed, &o->miner_id, &o->sector_number};
        if (k == 0)
            o->sector_size = v;
        else if (k == 1)
            o->out = v;
        else if (cmd_parse_u64(v, num[k]))
            return fprintf(stderr, "cuzk: gen porep: %s: bad number \"%s\"\n", names[k], v), 2;
        o->have_registered_proof |= k == 2;
    }
    if (!o->out)
        return cmd_usage_fail("gen porep", "%s", "--out FILE is required");
    if (!o->sector_size && !o->have_registered_proof)
        return cmd_usage_fail("gen porep", "%s",
                              "--sector-size S (or --registered-proof N) is required");
    return 0;
}

/* The seal proof the options name: --registered-proof, else the V1_1 entry
 * of the sector size. */
static cuzk_err porep_proof(const porep_opts *o, const cuzk_fc_proof **out)
{
    uint64_t size = 0;
    char b[24];
    if (o->sector_size && cmd_parse_size(o->sector_size, &size))
        return cuzk_fail(CUZK_EINVAL,
                         "--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes",
                         o->sector_size);
    if (o->have_registered_proof) {
        const cuzk_fc_proof *p = cuzk_fc_find(CUZK_FC_SEAL, o->registered_proof);
        if (!p)
            return cuzk_fail(CUZK_EINVAL, "--registered-proof %llu is not a RegisteredSealProof",
                             (unsigned long long)o->registered_proof);
        if (size && p->sector_size != size)
            return cuzk_fail(CUZK_EINVAL, "--registered-proof %llu (%s) seals %s sectors, not %s",
                             (unsigned long long)o->registered_proof, p->name,
                             cuzk_fc_size_name(p->sector_size, b), o->sector_size);
        *out = p;
        return CUZK_OK;
    }
    size_t n;
    const cuzk_fc_proof *all = cuzk_fc_proofs(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i].family == CUZK_FC_SEAL && all[i].sector_size == size &&
            all[i].api == CUZK_API_1_1_0 && !all[i].feature[0]) {
            *out = &all[i];
            return CUZK_OK;
        }
    return cuzk_fail(CUZK_EINVAL,
                     "no seal proof for sector size %s (2KiB, 8MiB, 512MiB, 32GiB "
                     "or 64GiB)",
                     o->sector_size);
}

static int gen_porep(int argc, char **argv)
{
    porep_opts o;
    int rc = porep_parse(argc, argv, &o);
    if (rc)
        return rc;
    const cuzk_fc_proof *p = NULL;
    cuzk_err e = porep_proof(&o, &p);
    if (!e)
        e = cmd_output_check(o.out);
    if (e)
        return cmd_fail("gen porep", e);
    cuzk_gen_porep_params gp = {.registered_proof = p->number,
                                .seed = o.seed,
                                .miner_id = o.miner_id,
                                .sector_number = o.sector_number};
    cuzk_c1 *c = NULL, *back = NULL;
    char *json = NULL;
    size_t len = 0;
    double t0 = cuzk_now(), t1 = 0, t2 = 0, t3 = 0;
    e = cuzk_gen_porep(&gp, &c);
    if (!e) {
        t1 = cuzk_now();
        e = cuzk_c1_to_json(c, &json, &len);
        t2 = cuzk_now();
    }
    /* Decoded with every value checked, as a C2 request's would be. */
    uint8_t prover[32];
    cuzk_gen_prover_id(o.miner_id, prover);
    cuzk_c1_expect x = {.prover_id = prover, .sector_id = o.sector_number};
    if (!e && (e = cuzk_c1_from_json(json, len, &x, &back)))
        e = cuzk_fail_ctx(e, "the generated C1 does not check: ");
    t3 = cuzk_now();
    if (!e)
        e = cuzk_write_file(o.out, json, len);
    char cd[CUZK_CID_STR_MAX], cr[CUZK_CID_STR_MAX];
    if (!e && !(e = cuzk_cid_encode(CUZK_CID_UNSEALED, c->comm_d, cd)))
        e = cuzk_cid_encode(CUZK_CID_SEALED, c->comm_r, cr);
    if (!e) {
        printf("gen porep: %s (API %s), %u partition(s) x %u challenges, miner %llu, sector "
               "%llu, seed %llu, gen_s=%.3f json_s=%.3f check_s=%.3f\n",
               p->name, cuzk_fc_api_name(c->config.api), c->config.partitions, c->config.challenges,
               (unsigned long long)o.miner_id, (unsigned long long)o.sector_number,
               (unsigned long long)o.seed, t1 - t0, t2 - t1, t3 - t2);
        printf("%s: %zu bytes\n", o.out, len);
        cmd_print_hex32("replica_id", c->replica_id);
        cmd_print_hex32("comm_d", c->comm_d);
        printf("comm_d_cid=%s\n", cd);
        cmd_print_hex32("comm_r", c->comm_r);
        printf("comm_r_cid=%s\n", cr);
        cmd_print_hex32("ticket", c->ticket);
        cmd_print_hex32("seed", c->seed);
    }
    free(json);
    cuzk_c1_free(c);
    cuzk_c1_free(back);
    return e ? cmd_fail("gen porep", e) : 0;
}

static void fr_hex(char out[65], const cuzk_fr *x)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    cmd_hex32(out, b);
}

cuzk_err cmd_snap_write(const char *dir, const cuzk_snap_update *u)
{
    const cuzk_snap_config *c = &u->config;
    const cuzk_fc_proof *fp = NULL;
    size_t n;
    const cuzk_fc_proof *all = cuzk_fc_proofs(&n);
    for (size_t i = 0; i < n && !fp; i++)
        if (all[i].family == CUZK_FC_UPDATE && all[i].sector_size == c->sector_size)
            fp = &all[i];
    if (!fp)
        return cuzk_fail(CUZK_EINTERNAL, "no update proof of %llu-byte sectors",
                         (unsigned long long)c->sector_size);
    CUZK_TRY(cuzk_make_dirs(dir));
    cuzk_err e = CUZK_OK;
    for (unsigned k = 0; k < c->partitions && !e; k++) {
        char path[4096];
        uint8_t *b;
        size_t nb;
        snprintf(path, sizeof path, "%s/partition-%u.vproof", dir, k);
        if ((e = cuzk_snap_partition_proof_encode(&u->partitions[k], &b, &nb)))
            break;
        e = cuzk_write_file(path, b, nb);
        free(b);
        if (!e)
            printf("%s: partition %u, %zu bytes\n", path, k, nb);
    }
    char cc[65], ro[65], dn[65], rn[65], *json = NULL;
    fr_hex(cc, &u->comm_c);
    fr_hex(ro, &u->comm_r_old);
    fr_hex(dn, &u->comm_d_new);
    fr_hex(rn, &u->comm_r_new);
    if (!e && asprintf(&json,
                       "{\"registered_proof\": %llu, \"proof\": \"%s\", \"sector_size\": %llu, "
                       "\"partitions\": %u, \"comm_c\": \"%s\", \"comm_r_old\": \"%s\", "
                       "\"comm_d_new\": \"%s\", \"comm_r_new\": \"%s\"}\n",
                       (unsigned long long)fp->number, fp->name, (unsigned long long)c->sector_size,
                       c->partitions, cc, ro, dn, rn) < 0)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    char *req = e ? NULL : cmd_path_with(dir, "/request.json");
    if (!e && !req)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e && !(e = cuzk_write_file(req, json, strlen(json))))
        printf("%s\n", req);
    free(req);
    free(json);
    uint8_t b[32];
    char cid[CUZK_CID_STR_MAX];
    const struct {
        const char *key;
        const cuzk_fr *v;
        int cid; /* 0 none, 1 sealed, 2 unsealed */
    } out[] = {{"comm_c", &u->comm_c, 0},
               {"comm_r_old", &u->comm_r_old, 1},
               {"comm_d_new", &u->comm_d_new, 2},
               {"comm_r_new", &u->comm_r_new, 1}};
    for (size_t i = 0; i < sizeof out / sizeof *out && !e; i++) {
        cuzk_fr_to_bytes_le(b, out[i].v);
        cmd_print_hex32(out[i].key, b);
        if (out[i].cid &&
            !(e = cuzk_cid_encode(out[i].cid == 1 ? CUZK_CID_SEALED : CUZK_CID_UNSEALED, b, cid)))
            printf("%s_cid=%s\n", out[i].key, cid);
    }
    return e;
}

static int gen_snap(int argc, char **argv)
{
    const char *size_s = NULL, *out = NULL;
    uint64_t seed = 1, size = 0;
    for (int i = 0; i < argc; i++) {
        int known = !strcmp(argv[i], "--sector-size") || !strcmp(argv[i], "--out") ||
                    !strcmp(argv[i], "--seed");
        if (!known)
            return cmd_usage_fail(
                "gen snap", argv[i][0] == '-' ? "unknown option %s" : "unexpected argument \"%s\"",
                argv[i]);
        if (i + 1 >= argc)
            return cmd_usage_fail("gen snap", "%s needs a value", argv[i]);
        const char *v = argv[++i];
        if (!strcmp(argv[i - 1], "--sector-size"))
            size_s = v;
        else if (!strcmp(argv[i - 1], "--out"))
            out = v;
        else if (cmd_parse_u64(v, &seed))
            return fprintf(stderr, "cuzk: gen snap: --seed: bad number \"%s\"\n", v), 2;
    }
    if (!out)
        return cmd_usage_fail("gen snap", "%s", "--out DIR is required");
    if (!size_s)
        return cmd_usage_fail("gen snap", "%s", "--sector-size S is required");
    if (cmd_parse_size(size_s, &size))
        return cmd_fail("gen snap", cuzk_fail(CUZK_EINVAL,
                                              "--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, "
                                              "64GiB or bytes",
                                              size_s));
    cuzk_snap_update u;
    double t = cuzk_now();
    cuzk_err e = cuzk_gen_snap(size, seed, &u);
    if (e)
        return cmd_fail("gen snap", e);
    printf("gen snap: %llu-byte sector, %u partition(s) x %u challenges, h %u, seed %llu, "
           "gen_s=%.3f\n",
           (unsigned long long)size, u.config.partitions, u.config.challenges, u.config.h,
           (unsigned long long)seed, cuzk_now() - t);
    e = cmd_snap_write(out, &u);
    cuzk_snap_update_free(&u);
    return e ? cmd_fail("gen snap", e) : 0;
}

int cmd_gen_main(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "post"))
        return cmd_gen_post(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "porep"))
        return gen_porep(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "snap"))
        return gen_snap(argc - 1, argv + 1);
    return cmd_usage_fail("gen", "what to generate? \"%s\" is not porep, snap or post",
                          argc ? argv[0] : "");
}
