/* cuzk seal, cuzk c1 and cuzk porep check: seal one sector on the CPU
 * (seal.h), for making test sectors and checking sealing against other
 * implementations' commitments; its C1 output (c1.h); and the check of a
 * C1 output against the PoRep circuit.
 *
 *   cuzk seal --registered-proof N [--sector-size S] [--porep-id HEX]
 *             [--api-version 1.0.0|1.1.0|1.2.0] --prover-id HEX
 *             --sector-number N --ticket HEX [--padded] DATA --out DIR
 *
 * The registered proof (RegisteredSealProof number, filecoin.h) gives the
 * sector size, porep_id and API version; --sector-size must agree with it,
 * --porep-id and --api-version replace its own (polka-storage, for one,
 * seals 2 KiB sectors with porep_id 0^32). DATA is the sector's unpadded
 * bytes (at most 127/128 of the sector size), fr32-padded and zero-filled,
 * as one piece filling the sector is laid out; with --padded it is the
 * padded sector itself (at most the sector size, zero-filled). HEX values
 * are 64 hex digits, the 32 bytes as used.
 *
 * Writes DIR/unsealed (the padded sector), DIR/sealed (the replica),
 * DIR/labels (every layer's labels, layer 1 first) and DIR/seal.json (the
 * registered proof, sector size, layers, API version, porep_id, prover_id,
 * sector number, ticket, replica_id and commitments, hex as stored) and
 * prints replica_id, comm_d, comm_d_cid, comm_c, comm_r_last, comm_r and
 * comm_r_cid as key=value lines; failures print one line "cuzk: seal:
 * <why>" and exit 2.
 *
 *   cuzk seal c1 --dir DIR --seed HEX --out FILE
 *
 * The C1 output of the sector cuzk seal wrote to DIR, for the interactive
 * seed, checked against DIR's public data before it is written (files
 * changed since the seal are refused); prints the challenges as below.
 *
 *   cuzk seal update --dir DIR [--padded] DATA --out DIR2
 *
 * A SnapDeals update of the sector cuzk seal wrote to DIR (seal.h
 * cuzk_seal_update): DIR's replica is the sector key, DATA the new data
 * (read as for seal). Writes DIR2/sealed (the new replica), DIR2/unsealed
 * (the new padded data), DIR2/partition-<k>.vproof (bincode
 * PartitionProofs, as Curio sends them) and DIR2/request.json, each
 * partition checked by the vanilla verification first; prints the
 * commitments as gen snap does.
 *
 *   cuzk c1 <cuzk seal's options and DATA> --seed HEX --out FILE
 *
 * Seals the same way in memory (nothing else is written), then writes the
 * sector's C1 output (SealCommitPhase1Output JSON, c1.h) for the
 * interactive seed to FILE and prints the challenges as
 * "challenge[k][i]=node" lines. Synthetic PoRep numbers (10-14) open the
 * synthetic challenges the seed selects; non-interactive PoRep is refused.
 *
 *   cuzk porep check (--c1 FILE | FILE) --sector-number N (--miner-id M |
 *              --prover-id HEX) [--partition K] [--porep-id HEX]
 *              [--api-version V] [--no-value-checks]
 *
 * Decodes the C1 (its registered proof gives porep_id and API version
 * unless overridden, as for seal), checks every value against the public
 * data (replica_id of this prover and sector, challenges from the seed,
 * paths to their roots, labels, encoding, comm_r), then synthesizes each
 * partition's circuit (or partition K's) in check mode: "partition k: satisfied: C
 * constraints, I public inputs" (C after the input constraints, I with
 * ONE), exit 0; the first unsatisfied constraint, exit 1; a malformed or
 * inconsistent C1 (the message names its JSON path) or a bad request,
 * exit 2. --no-value-checks checks the JSON's structure only and leaves
 * the values to the circuit.
 *
 *   cuzk porep parents --registered-proof N [--porep-id HEX]
 *              [--api-version V] NODE...
 *
 * One line per NODE: the node, then its 6 DRG and 8 expander parents in the
 * order the circuit's public inputs list them, separated by spaces (the
 * graph of the registered proof's sector size and porep_id, or --porep-id).
 *
 *   cuzk porep inputs --c1 FILE (--miner-id M | --prover-id HEX)
 *              --sector-number S [--partition K] [--porep-id HEX]
 *              [--api-version V]
 *
 * Decodes and checks the C1 as porep check does, then prints the public
 * inputs (without ONE) of every partition, or of partition K, one decimal
 * field element a line, partition after partition: the lines `cuzk verify
 * --public` reads. */
#include "cmd/cmd.h"
#include "cuzk/c1.h"
#include "cuzk/gen.h"
#include "cuzk/piece.h"
#include "cuzk/porep.h"
#include "cuzk/seal.h"
#include "cuzk/snap.h"
#include "cuzk/snark.h"
#include "cuzk/util.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The command running: "seal", "c1" or "porep check". */
static const char *cmd_name = "seal";

static int usage_err(const char *fmt, const char *arg) __attribute__((format(printf, 1, 0)));
static int usage_err(const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk: %s: ", cmd_name);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (cuzk %s --help)\n", cmd_name);
    return 2;
}

typedef struct {
    const char *proof, *size, *porep_id, *api, *prover, *sector, *ticket, *data, *out, *seed;
    int padded;
} seal_opts;

static int parse_opts(int argc, char **argv, seal_opts *o)
{
    memset(o, 0, sizeof *o);
    struct {
        const char *name;
        const char **dst;
    } opts[] = {{"--registered-proof", &o->proof},
                {"--sector-size", &o->size},
                {"--porep-id", &o->porep_id},
                {"--api-version", &o->api},
                {"--prover-id", &o->prover},
                {"--sector-number", &o->sector},
                {"--ticket", &o->ticket},
                {"--out", &o->out},
                {"--seed", &o->seed}};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--padded")) {
            o->padded = 1;
            continue;
        }
        size_t k, n = sizeof opts / sizeof opts[0];
        for (k = 0; k < n && strcmp(argv[i], opts[k].name); k++)
            ;
        if (k < n) {
            if (i + 1 >= argc)
                return usage_err("%s needs a value", argv[i]);
            *opts[k].dst = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_err("unknown option %s", argv[i]);
        } else if (o->data) {
            return usage_err("one DATA file, not also \"%s\"", argv[i]);
        } else {
            o->data = argv[i];
        }
    }
    if (!o->proof)
        return usage_err("%s is required", "--registered-proof N");
    if (!o->prover || !o->sector || !o->ticket)
        return usage_err("%s are required", "--prover-id, --sector-number and --ticket");
    if (!o->data)
        return usage_err("%s is required", "DATA");
    if (!o->out)
        return usage_err("%s is required", strcmp(cmd_name, "c1") ? "--out DIR" : "--out FILE");
    if (!strcmp(cmd_name, "c1") != !!o->seed)
        return usage_err("%s", o->seed ? "--seed is an option of c1" : "--seed HEX is required");
    return 0;
}

static int parse_api(const char *s, cuzk_fc_api *out)
{
    static const cuzk_fc_api all[] = {CUZK_API_1_0_0, CUZK_API_1_1_0, CUZK_API_1_2_0};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (!strcmp(s, cuzk_fc_api_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}

/* The parameters from the options: registry entry first, then overrides;
 * the registered proof's number into *number. */
static int make_params(const seal_opts *o, cuzk_seal_params *p, uint64_t *number_out)
{
    uint64_t number, size = 0;
    const cuzk_fc_proof *proof;
    memset(p, 0, sizeof *p);
    if (cmd_parse_u64(o->proof, &number))
        return usage_err("--registered-proof \"%s\": a number", o->proof);
    if (o->size && (cmd_parse_size(o->size, &size) || !size))
        return usage_err("--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes",
                         o->size);
    cuzk_err e = cuzk_fc_resolve(CUZK_FC_SEAL, number, size, &proof);
    if (e)
        return cmd_fail(cmd_name, e);
    p->sector_size = proof->sector_size;
    p->api = proof->api;
    cuzk_porep_id(number, p->porep_id);
    if (o->porep_id && cmd_parse_hex32(o->porep_id, p->porep_id))
        return usage_err("--porep-id \"%s\": 64 hex digits", o->porep_id);
    if (o->api && parse_api(o->api, &p->api))
        return usage_err("--api-version \"%s\": 1.0.0, 1.1.0 or 1.2.0", o->api);
    if (cmd_parse_hex32(o->prover, p->prover_id))
        return usage_err("--prover-id \"%s\": 64 hex digits", o->prover);
    if (cmd_parse_hex32(o->ticket, p->ticket))
        return usage_err("--ticket \"%s\": 64 hex digits", o->ticket);
    if (cmd_parse_u64(o->sector, &p->sector_id))
        return usage_err("--sector-number \"%s\": a number", o->sector);
    *number_out = number;
    return 0;
}

/* DATA as the padded sector (sector_size bytes, malloc'd into *out). */
static cuzk_err load_sector(const seal_opts *o, uint64_t sector_size, uint8_t **out)
{
    uint8_t *raw, *sector = NULL;
    size_t n;
    cuzk_err e = cuzk_read_file(o->data, &raw, &n);
    if (e)
        return e;
    uint64_t room = o->padded ? sector_size : sector_size / CUZK_FR32_PADDED * CUZK_FR32_UNPADDED;
    if (n > room) {
        e = cuzk_fail(CUZK_EINVAL, "%s: %zu bytes; a sector holds %llu %s bytes", o->data, n,
                      (unsigned long long)room, o->padded ? "padded" : "unpadded");
        goto out;
    }
    sector = calloc(1, sector_size);
    if (!sector) {
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for a sector of %llu bytes",
                      (unsigned long long)sector_size);
        goto out;
    }
    if (o->padded) {
        memcpy(sector, raw, n);
    } else {
        /* Zero-fill the unpadded bytes to whole chunks; padding zeros
         * gives zeros, so the rest of the sector stays zero. */
        size_t chunks = (n + CUZK_FR32_UNPADDED - 1) / CUZK_FR32_UNPADDED;
        uint8_t *whole = calloc(chunks ? chunks : 1, CUZK_FR32_UNPADDED);
        if (!whole) {
            e = cuzk_fail(CUZK_ENOMEM, "out of memory padding %s", o->data);
            goto out;
        }
        memcpy(whole, raw, n);
        cuzk_fr32_pad(whole, chunks, sector);
        free(whole);
    }
out:
    free(raw);
    if (e)
        free(sector);
    else
        *out = sector;
    return e;
}

/* DIR/seal.json: the seal's parameters and commitments, what `cuzk seal
 * c1` needs besides the data and the labels. */
static cuzk_err write_seal_json(const char *path, uint64_t number, const cuzk_seal_params *p,
                                const cuzk_seal_result *r)
{
    char h[8][65];
    const uint8_t *v[8] = {p->porep_id, p->prover_id, p->ticket,      r->replica_id,
                           r->comm_d,   r->comm_c,    r->comm_r_last, r->comm_r};
    for (int i = 0; i < 8; i++)
        cmd_hex32(h[i], v[i]);
    json_t *j = json_pack(
        "{s:I, s:I, s:i, s:s, s:s, s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:s}", "registered_proof",
        (json_int_t)number, "sector_size", (json_int_t)p->sector_size, "layers", (int)p->layers,
        "api_version", cuzk_fc_api_name(p->api), "porep_id", h[0], "prover_id", h[1],
        "sector_number", (json_int_t)p->sector_id, "ticket", h[2], "replica_id", h[3], "comm_d",
        h[4], "comm_c", h[5], "comm_r_last", h[6], "comm_r", h[7]);
    if (!j)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for %s", path);
    char *text = json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(j);
    if (!text)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for %s", path);
    size_t n = strlen(text);
    char *line = realloc(text, n + 2); /* the file ends with a newline */
    if (!line) {
        free(text);
        return cuzk_fail(CUZK_ENOMEM, "out of memory for %s", path);
    }
    text = line;
    text[n++] = '\n';
    text[n] = 0;
    cuzk_err e = cuzk_write_file(path, text, n);
    free(text);
    return e;
}

static cuzk_err write_outputs(const char *dir, const uint8_t *unsealed, const uint8_t *sealed,
                              const uint8_t *labels, uint64_t number, const cuzk_seal_params *p,
                              const cuzk_seal_result *r)
{
    static const char *const names[] = {"/unsealed", "/sealed", "/labels", "/seal.json"};
    const uint8_t *bytes[] = {unsealed, sealed, labels};
    const size_t sizes[] = {p->sector_size, p->sector_size, (size_t)p->layers * p->sector_size};
    cuzk_err e = cuzk_make_dirs(dir);
    for (int i = 0; i < 4 && !e; i++) {
        char *f = cmd_path_with(dir, names[i]);
        if (!f)
            e = cuzk_fail(CUZK_ENOMEM, "out of memory");
        else if (i < 3)
            e = cuzk_write_file(f, bytes[i], sizes[i]);
        else
            e = write_seal_json(f, number, p, r);
        free(f);
    }
    return e;
}

/* The C1's challenges, one "challenge[k][i]=node" line each. */
static void print_challenges(const cuzk_c1 *c)
{
    for (unsigned k = 0; k < c->config.partitions; k++)
        for (unsigned i = 0; i < c->config.challenges; i++)
            printf("challenge[%u][%u]=%llu\n", k, i,
                   (unsigned long long)c->values[k * c->config.challenges + i].challenge);
}

/* A 64-hex-digit member of seal.json into out. */
static cuzk_err json_hex32(json_t *j, const char *path, const char *key, uint8_t out[32])
{
    const char *v = json_string_value(json_object_get(j, key));
    if (!v || cmd_parse_hex32(v, out))
        return cuzk_fail(CUZK_EFORMAT, "%s: \"%s\" must be 64 hex digits", path, key);
    return CUZK_OK;
}

static cuzk_err json_u64(json_t *j, const char *path, const char *key, uint64_t *out)
{
    json_t *v = json_object_get(j, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: \"%s\" must be a non-negative integer", path, key);
    *out = (uint64_t)json_integer_value(v);
    return CUZK_OK;
}

/* DIR/seal.json into the seal's parameters and result. */
static cuzk_err read_seal_json(const char *path, uint64_t *number, cuzk_seal_params *p,
                               cuzk_seal_result *r)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        return cuzk_fail(CUZK_EFORMAT, "%s: line %d: %s", path, err.line, err.text);
    memset(p, 0, sizeof *p);
    uint64_t layers = 0;
    const char *api = json_string_value(json_object_get(j, "api_version"));
    cuzk_err e = json_u64(j, path, "registered_proof", number);
    if (!e)
        e = json_u64(j, path, "sector_size", &p->sector_size);
    if (!e)
        e = json_u64(j, path, "layers", &layers);
    if (!e)
        e = json_u64(j, path, "sector_number", &p->sector_id);
    if (!e && (!api || parse_api(api, &p->api)))
        e = cuzk_fail(CUZK_EFORMAT, "%s: \"api_version\" must be 1.0.0, 1.1.0 or 1.2.0", path);
    static const char *const keys[] = {"porep_id", "prover_id", "ticket",      "replica_id",
                                       "comm_d",   "comm_c",    "comm_r_last", "comm_r"};
    uint8_t *outs[8] = {p->porep_id, p->prover_id, p->ticket,      r->replica_id,
                        r->comm_d,   r->comm_c,    r->comm_r_last, r->comm_r};
    for (int i = 0; i < 8 && !e; i++)
        e = json_hex32(j, path, keys[i], outs[i]);
    json_decref(j);
    if (!e && layers > 64)
        e = cuzk_fail(CUZK_EFORMAT, "%s: \"layers\" %llu is not a layer count", path,
                      (unsigned long long)layers);
    p->layers = (unsigned)layers;
    return e;
}

/* A file of DIR that must hold exactly `size` bytes, malloc'd into *out. */
static cuzk_err read_sized(const char *dir, const char *name, uint64_t size, uint8_t **out)
{
    char *f = cmd_path_with(dir, name);
    if (!f)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    size_t n = 0;
    *out = NULL;
    cuzk_err e = cuzk_read_file(f, out, &n);
    if (!e && n != size) {
        e = cuzk_fail(CUZK_EFORMAT, "%s: %zu bytes, %llu expected (seal.json's sector)", f, n,
                      (unsigned long long)size);
        free(*out);
        *out = NULL;
    }
    free(f);
    return e;
}

/* cuzk seal c1 --dir DIR --seed HEX --out FILE: the C1 of a sector that
 * cuzk seal wrote to DIR. */
static int seal_c1_main(int argc, char **argv)
{
    const char *dir = NULL, *seed_hex = NULL, *out = NULL;
    cmd_name = "seal c1";
    for (int i = 0; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--dir")    ? &dir
                           : !strcmp(argv[i], "--seed") ? &seed_hex
                           : !strcmp(argv[i], "--out")  ? &out
                                                        : NULL;
        if (!dst)
            return usage_err("unknown argument \"%s\"", argv[i]);
        if (i + 1 >= argc)
            return usage_err("%s needs a value", argv[i]);
        *dst = argv[++i];
    }
    uint8_t seed[32];
    if (!dir || !seed_hex || !out)
        return usage_err("%s", "--dir DIR, --seed HEX and --out FILE are required");
    if (cmd_parse_hex32(seed_hex, seed))
        return usage_err("--seed \"%s\": 64 hex digits", seed_hex);
    uint64_t number = 0;
    cuzk_seal_params p;
    cuzk_seal_result r;
    uint8_t *data = NULL, *labels = NULL;
    char *json = NULL, *meta = cmd_path_with(dir, "/seal.json");
    size_t len = 0;
    cuzk_c1 *c = NULL, *back = NULL;
    cuzk_err e =
        meta ? read_seal_json(meta, &number, &p, &r) : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = read_sized(dir, "/unsealed", p.sector_size, &data);
    if (!e)
        e = read_sized(dir, "/labels", (uint64_t)p.layers * p.sector_size, &labels);
    if (!e)
        e = cuzk_c1_generate(number, &p, &r, data, labels, seed, &c);
    if (!e)
        e = cuzk_c1_to_json(c, &json, &len);
    /* The files could have been changed since the seal: the C1 must check
     * against its own public data before it is written. */
    cuzk_c1_expect x = {
        .prover_id = p.prover_id, .sector_id = p.sector_id, .porep_id = p.porep_id, .api = p.api};
    if (!e && (e = cuzk_c1_from_json(json, len, &x, &back)))
        e = cuzk_fail_ctx(e, "%s: the files do not hold together: ", dir);
    if (!e)
        e = cuzk_write_file(out, json, len);
    if (!e)
        print_challenges(c);
    free(meta);
    free(data);
    free(labels);
    free(json);
    cuzk_c1_free(c);
    cuzk_c1_free(back);
    return e ? cmd_fail(cmd_name, e) : 0;
}

/* seal update: a sealed DIR's replica as the sector key, new data. */
static int seal_update_main(int argc, char **argv)
{
    seal_opts o;
    memset(&o, 0, sizeof o);
    const char *dir = NULL;
    cmd_name = "seal update";
    for (int i = 0; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--dir")   ? &dir
                           : !strcmp(argv[i], "--out") ? &o.out
                                                       : NULL;
        if (dst) {
            if (i + 1 >= argc)
                return usage_err("%s needs a value", argv[i]);
            *dst = argv[++i];
        } else if (!strcmp(argv[i], "--padded")) {
            o.padded = 1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_err("unknown option %s", argv[i]);
        } else if (o.data) {
            return usage_err("one DATA file, not also \"%s\"", argv[i]);
        } else {
            o.data = argv[i];
        }
    }
    if (!dir || !o.out || !o.data)
        return usage_err("%s", "--dir DIR, DATA and --out DIR are required");
    uint64_t number = 0;
    cuzk_seal_params p;
    cuzk_seal_result r;
    uint8_t *key = NULL, *data = NULL, *replica = NULL;
    char *meta = cmd_path_with(dir, "/seal.json");
    cuzk_snap_update u;
    memset(&u, 0, sizeof u);
    cuzk_err e =
        meta ? read_seal_json(meta, &number, &p, &r) : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = read_sized(dir, "/sealed", p.sector_size, &key);
    if (!e)
        e = load_sector(&o, p.sector_size, &data);
    if (!e && !(replica = malloc(p.sector_size)))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    double t = cuzk_now();
    if (!e &&
        (e = cuzk_seal_update(p.sector_size, r.comm_c, r.comm_r_last, key, data, replica, &u)))
        e = cuzk_fail_ctx(e, "%s: ", dir);
    if (!e) {
        printf("seal update: %llu-byte sector %llu, %u partition(s) x %u challenges, h %u, "
               "update_s=%.3f\n",
               (unsigned long long)p.sector_size, (unsigned long long)p.sector_id,
               u.config.partitions, u.config.challenges, u.config.h, cuzk_now() - t);
        e = cmd_snap_write(o.out, &u);
    }
    char *f = NULL;
    if (!e && !(f = cmd_path_with(o.out, "/sealed")))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_write_file(f, replica, p.sector_size);
    free(f);
    f = NULL;
    if (!e && !(f = cmd_path_with(o.out, "/unsealed")))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_write_file(f, data, p.sector_size);
    free(f);
    free(meta);
    free(key);
    free(data);
    free(replica);
    cuzk_snap_update_free(&u);
    return e ? cmd_fail(cmd_name, e) : 0;
}

int cmd_seal_main(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "c1"))
        return seal_c1_main(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "update"))
        return seal_update_main(argc - 1, argv + 1);
    seal_opts o;
    cuzk_seal_params p;
    uint64_t number = 0;
    cuzk_seal_result r;
    int rc = parse_opts(argc, argv, &o);
    if (rc || (rc = make_params(&o, &p, &number)))
        return rc;
    uint8_t *data = NULL, *replica = NULL, *labels = NULL;
    char cid_d[CUZK_CID_STR_MAX], cid_r[CUZK_CID_STR_MAX];
    cuzk_err e = cuzk_seal_layers(p.sector_size, &p.layers);
    if (!e)
        e = load_sector(&o, p.sector_size, &data);
    if (!e && (!(replica = malloc(p.sector_size)) || !(labels = malloc(p.layers * p.sector_size))))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for the replica and its labels");
    if (!e)
        e = cuzk_seal(&p, data, replica, labels, &r);
    if (!e)
        e = cuzk_cid_encode(CUZK_CID_UNSEALED, r.comm_d, cid_d);
    if (!e)
        e = cuzk_cid_encode(CUZK_CID_SEALED, r.comm_r, cid_r);
    if (!e)
        e = write_outputs(o.out, data, replica, labels, number, &p, &r);
    free(data);
    free(replica);
    free(labels);
    if (e)
        return cmd_fail("seal", e);
    cmd_print_hex32("replica_id", r.replica_id);
    cmd_print_hex32("comm_d", r.comm_d);
    printf("comm_d_cid=%s\n", cid_d);
    cmd_print_hex32("comm_c", r.comm_c);
    cmd_print_hex32("comm_r_last", r.comm_r_last);
    cmd_print_hex32("comm_r", r.comm_r);
    printf("comm_r_cid=%s\n", cid_r);
    return 0;
}

int cmd_c1_main(int argc, char **argv)
{
    seal_opts o;
    cuzk_seal_params p;
    uint64_t number = 0;
    cuzk_seal_result r;
    uint8_t seed[32];
    cmd_name = "c1";
    int rc = parse_opts(argc, argv, &o);
    if (rc || (rc = make_params(&o, &p, &number)))
        return rc;
    if (cmd_parse_hex32(o.seed, seed))
        return usage_err("--seed \"%s\": 64 hex digits", o.seed);
    unsigned layers;
    uint8_t *data = NULL, *replica = NULL, *labels = NULL;
    char *json = NULL;
    size_t len = 0;
    cuzk_c1 *c = NULL;
    cuzk_err e = cuzk_seal_layers(p.sector_size, &layers);
    if (!e)
        e = load_sector(&o, p.sector_size, &data);
    if (!e && (!(replica = malloc(p.sector_size)) || !(labels = malloc(layers * p.sector_size))))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for the replica and its labels");
    if (!e)
        e = cuzk_seal(&p, data, replica, labels, &r);
    if (!e)
        e = cuzk_c1_generate(number, &p, &r, data, labels, seed, &c);
    if (!e)
        e = cuzk_c1_to_json(c, &json, &len);
    if (!e)
        e = cuzk_write_file(o.out, json, len);
    if (!e)
        print_challenges(c);
    free(data);
    free(replica);
    free(labels);
    free(json);
    cuzk_c1_free(c);
    return e ? cmd_fail("c1", e) : 0;
}

/* porep check's request: the C1 and what its replica_id must be of. */
/* The options of porep check (check != 0) and porep inputs: the C1 (--c1
 * FILE, or for check a FILE argument), --partition K (*part, NULL when
 * absent), the prover and sector, porep_id and API overrides. */
static int porep_opts(int argc, char **argv, int check, const char **file, const char **part,
                      uint8_t prover[32], cuzk_c1_expect *x, uint8_t porep_id[32])
{
    const char *prover_hex = NULL, *miner = NULL, *sector = NULL, *pid = NULL, *api = NULL;
    const char *c1 = NULL;
    memset(x, 0, sizeof *x);
    *file = *part = NULL;
    for (int i = 0; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--prover-id")       ? &prover_hex
                           : !strcmp(argv[i], "--miner-id")      ? &miner
                           : !strcmp(argv[i], "--sector-number") ? &sector
                           : !strcmp(argv[i], "--porep-id")      ? &pid
                           : !strcmp(argv[i], "--api-version")   ? &api
                           : !strcmp(argv[i], "--c1")            ? &c1
                           : !strcmp(argv[i], "--partition")     ? part
                                                                 : NULL;
        if (dst) {
            if (i + 1 >= argc)
                return usage_err("%s needs a value", argv[i]);
            *dst = argv[++i];
        } else if (!strcmp(argv[i], "--no-value-checks")) {
            if (!check)
                return usage_err("%s is an option of porep check", argv[i]);
            x->no_value_checks = 1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_err("unknown option %s", argv[i]);
        } else if (!check) {
            return usage_err("\"%s\": the C1 goes after --c1", argv[i]);
        } else if (*file) {
            return usage_err("one C1 file, not also \"%s\"", argv[i]);
        } else {
            *file = argv[i];
        }
    }
    if (c1 && *file)
        return usage_err("one C1 file: --c1 or an argument, not also \"%s\"", *file);
    if (c1)
        *file = c1;
    if (!*file)
        return usage_err("%s is required", check ? "--c1 FILE (or FILE)" : "--c1 FILE");
    if (!sector || cmd_parse_u64(sector, &x->sector_id))
        return usage_err("--sector-number N is required (a number)%s", "");
    if (!prover_hex == !miner)
        return usage_err("the prover: %s", "--prover-id HEX or --miner-id M");
    uint64_t m;
    if (miner && cmd_parse_u64(miner, &m))
        return usage_err("--miner-id \"%s\": a number", miner);
    if (miner)
        cuzk_gen_prover_id(m, prover);
    else if (cmd_parse_hex32(prover_hex, prover))
        return usage_err("--prover-id \"%s\": 64 hex digits", prover_hex);
    x->prover_id = prover;
    if (pid && cmd_parse_hex32(pid, porep_id))
        return usage_err("--porep-id \"%s\": 64 hex digits", pid);
    if (pid)
        x->porep_id = porep_id;
    if (api && parse_api(api, &x->api))
        return usage_err("--api-version \"%s\": 1.0.0, 1.1.0 or 1.2.0", api);
    return 0;
}

/* The C1 of porep_opts' arguments, decoded and checked into *c, and the
 * partitions asked for, [*k0, *k1) (0), or the exit status of a bad
 * request or C1 (message printed). x points into prover and porep_id. */
static int porep_load(int argc, char **argv, int check, uint8_t prover[32], uint8_t porep_id[32],
                      cuzk_c1_expect *x, cuzk_c1 **c, unsigned *k0, unsigned *k1)
{
    const char *file, *part;
    int rc = porep_opts(argc, argv, check, &file, &part, prover, x, porep_id);
    if (rc)
        return rc;
    uint8_t *json;
    size_t n;
    *c = NULL;
    cuzk_err e = cuzk_read_file(file, &json, &n);
    if (!e) {
        e = cuzk_c1_from_json((const char *)json, n, x, c);
        free(json);
    }
    if (e)
        return cmd_fail(cmd_name, e);
    *k0 = 0, *k1 = (*c)->config.partitions;
    if (part) {
        uint64_t k;
        if (cmd_parse_u64(part, &k) || k >= (*c)->config.partitions) {
            fprintf(stderr, "cuzk: %s: --partition \"%s\": 0 .. %u (%s has %u partition(s))\n",
                    cmd_name, part, (*c)->config.partitions - 1,
                    cuzk_c1_proof_name((*c)->registered_proof), (*c)->config.partitions);
            cuzk_c1_free(*c);
            *c = NULL;
            return 2;
        }
        *k0 = (unsigned)k, *k1 = (unsigned)k + 1;
    }
    return 0;
}

/* Decode, then synthesize every partition in check mode. 0 satisfied, 1
 * unsatisfied, 2 anything else. */
static int porep_check(int argc, char **argv)
{
    uint8_t prover[32], porep_id[32];
    cuzk_c1_expect x;
    cuzk_c1 *c;
    cuzk_err e;
    unsigned k0, k1;
    int rc = porep_load(argc, argv, 1, prover, porep_id, &x, &c, &k0, &k1);
    if (rc)
        return rc;
    printf("porep check: %s, %u partition(s) of %u challenges, API %s\n",
           cuzk_c1_proof_name(c->registered_proof), c->config.partitions, c->config.challenges,
           cuzk_fc_api_name(c->config.api));
    rc = 0;
    for (unsigned k = k0; k < k1 && !rc; k++) {
        cuzk_porep_values v;
        cuzk_cs *cs = NULL;
        rc = 2;
        fflush(stdout);
        if (!(e = cuzk_c1_partition(c, k, &v)) && !(e = cuzk_cs_new(&cs, CUZK_CS_CHECK)))
            e = cuzk_porep_synthesize(cs, &c->shape, &v);
        rc = cmd_check_verdict("porep check", k, cs, e);
        cuzk_cs_free(cs);
    }
    cuzk_c1_free(c);
    return rc;
}

int cmd_check_verdict(const char *what, unsigned k, cuzk_cs *cs, cuzk_err e)
{
    int rc = 2;
    /* Check mode's own failure (cs.h): the constraint, by index and name.
     * Anything else is no verdict on the proof. */
    if (e == CUZK_EINVAL && strstr(cuzk_errmsg(), "is not satisfied")) {
        printf("partition %u: unsatisfied: %s\n", k, cuzk_errmsg());
        rc = 1;
    } else if (!e && !(e = cuzk_cs_finish(cs))) {
        printf("partition %u: satisfied: %llu constraints, %u public inputs\n", k,
               (unsigned long long)cuzk_cs_num_constraints(cs), cuzk_cs_num_inputs(cs));
        rc = 0;
    } else {
        cmd_fail(what, e);
    }
    fflush(stdout);
    return rc;
}

/* porep parents: each NODE's 14 parents. */
static int porep_parents(int argc, char **argv)
{
    const char *proof = NULL, *pid = NULL, *api = NULL;
    int first_node = -1;
    for (int i = 0; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--registered-proof") ? &proof
                           : !strcmp(argv[i], "--porep-id")       ? &pid
                           : !strcmp(argv[i], "--api-version")    ? &api
                                                                  : NULL;
        if (dst) {
            if (i + 1 >= argc)
                return usage_err("%s needs a value", argv[i]);
            *dst = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return usage_err("unknown option %s", argv[i]);
        } else if (first_node < 0) {
            first_node = i;
        }
    }
    uint64_t number;
    if (!proof || cmd_parse_u64(proof, &number))
        return usage_err("--registered-proof N is required (a number)%s", "");
    if (first_node < 0)
        return usage_err("%s", "which nodes? NODE... is required");
    const cuzk_fc_proof *fp;
    cuzk_err e = cuzk_fc_resolve(CUZK_FC_SEAL, number, 0, &fp);
    if (e)
        return cmd_fail(cmd_name, e);
    uint8_t porep_id[32];
    cuzk_porep_id(number, porep_id);
    if (pid && cmd_parse_hex32(pid, porep_id))
        return usage_err("--porep-id \"%s\": 64 hex digits", pid);
    cuzk_fc_api a = fp->api;
    if (api && parse_api(api, &a))
        return usage_err("--api-version \"%s\": 1.0.0, 1.1.0 or 1.2.0", api);
    cuzk_porep_graph g;
    if ((e = cuzk_porep_graph_init(&g, fp->sector_size / 32, porep_id, a)))
        return cmd_fail(cmd_name, e);
    /* Every node is checked before any line is printed. */
    for (int i = first_node; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            i++; /* an option's value */
            continue;
        }
        uint64_t node;
        if (cmd_parse_u64(argv[i], &node) || node >= g.nodes) {
            fprintf(stderr, "cuzk: %s: node \"%s\": a number below %llu (%s has %llu nodes)\n",
                    cmd_name, argv[i], (unsigned long long)g.nodes, fp->name,
                    (unsigned long long)g.nodes);
            return 2;
        }
    }
    for (int i = first_node; i < argc; i++) {
        if (argv[i][0] == '-' && argv[i][1] == '-') {
            i++;
            continue;
        }
        uint64_t node;
        uint32_t par[CUZK_POREP_DEGREE];
        cmd_parse_u64(argv[i], &node);
        if ((e = cuzk_porep_parents(&g, (uint32_t)node, par)))
            return cmd_fail(cmd_name, e);
        printf("%llu", (unsigned long long)node);
        for (int k = 0; k < CUZK_POREP_DEGREE; k++)
            printf(" %u", par[k]);
        printf("\n");
    }
    return fflush(stdout) == 0 ? 0 : 2;
}

/* porep inputs: the public inputs of a C1's partitions, decimal. */
static int porep_inputs(int argc, char **argv)
{
    uint8_t prover[32], porep_id[32];
    cuzk_c1_expect x;
    cuzk_c1 *c;
    cuzk_err e = CUZK_OK;
    unsigned k0, k1;
    int rc = porep_load(argc, argv, 0, prover, porep_id, &x, &c, &k0, &k1);
    if (rc)
        return rc;
    cuzk_porep_public pub;
    memcpy(pub.prover_id, prover, 32);
    pub.sector_id = x.sector_id;
    memcpy(pub.ticket, c->ticket, 32);
    memcpy(pub.seed, c->seed, 32);
    memcpy(pub.comm_d, c->comm_d, 32);
    memcpy(pub.comm_r, c->comm_r, 32);
    size_t cnt = cuzk_porep_public_input_count(&c->config);
    cuzk_fr *in = malloc(cnt * sizeof *in);
    if (!in)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for %zu public inputs", cnt);
    for (unsigned k = k0; k < k1 && !e; k++) {
        if ((e = cuzk_porep_public_inputs(&c->config, &pub, k, in)))
            break;
        for (size_t i = 0; i < cnt; i++) {
            char d[80];
            cuzk_snarkjs_fr_to_dec(d, &in[i]);
            printf("%s\n", d);
        }
    }
    free(in);
    cuzk_c1_free(c);
    if (e)
        return cmd_fail(cmd_name, e);
    return fflush(stdout) == 0 ? 0 : 2;
}

int cmd_porep_main(int argc, char **argv)
{
    const char *sub = argc ? argv[0] : "";
    if (!strcmp(sub, "check")) {
        cmd_name = "porep check";
        return porep_check(argc - 1, argv + 1);
    }
    if (!strcmp(sub, "parents")) {
        cmd_name = "porep parents";
        return porep_parents(argc - 1, argv + 1);
    }
    if (!strcmp(sub, "inputs")) {
        cmd_name = "porep inputs";
        return porep_inputs(argc - 1, argv + 1);
    }
    cmd_name = "porep";
    return usage_err("which? \"%s\" is not check, parents or inputs", sub);
}
