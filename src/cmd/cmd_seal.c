/* cuzk seal: seal one sector on the CPU (seal.h), for making test sectors
 * and checking sealing against other implementations' commitments.
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
 * Writes DIR/unsealed (the padded sector) and DIR/sealed (the replica) and
 * prints replica_id, comm_d, comm_d_cid, comm_c, comm_r_last, comm_r and
 * comm_r_cid as key=value lines; failures print one line "cuzk: seal:
 * <why>" and exit 2. */
#include "cmd/cmd.h"
#include "cuzk/piece.h"
#include "cuzk/seal.h"
#include "cuzk/util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage_err(const char *fmt, const char *arg) __attribute__((format(printf, 1, 0)));
static int usage_err(const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk: seal: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (cuzk seal --help)\n");
    return 2;
}

typedef struct {
    const char *proof, *size, *porep_id, *api, *prover, *sector, *ticket, *data, *out;
    int padded;
} seal_opts;

static int parse_opts(int argc, char **argv, seal_opts *o)
{
    memset(o, 0, sizeof *o);
    struct {
        const char *name;
        const char **dst;
    } opts[] = {{"--registered-proof", &o->proof}, {"--sector-size", &o->size},
                {"--porep-id", &o->porep_id},      {"--api-version", &o->api},
                {"--prover-id", &o->prover},       {"--sector-number", &o->sector},
                {"--ticket", &o->ticket},          {"--out", &o->out}};
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
        return usage_err("%s is required", "--out DIR");
    return 0;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The parameters from the options: registry entry first, then overrides. */
static int make_params(const seal_opts *o, cuzk_seal_params *p)
{
    uint64_t number, size = 0;
    const cuzk_fc_proof *proof;
    memset(p, 0, sizeof *p);
    if (parse_u64(o->proof, &number))
        return usage_err("--registered-proof \"%s\": a number", o->proof);
    if (o->size && (cmd_parse_size(o->size, &size) || !size))
        return usage_err("--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or bytes",
                         o->size);
    cuzk_err e = cuzk_fc_resolve(CUZK_FC_SEAL, number, size, &proof);
    if (e)
        return cmd_fail("seal", e);
    p->sector_size = proof->sector_size;
    p->api = proof->api;
    cuzk_porep_id(number, p->porep_id);
    if (o->porep_id && cmd_parse_hex32(o->porep_id, p->porep_id))
        return usage_err("--porep-id \"%s\": 64 hex digits", o->porep_id);
    if (o->api) {
        if (!strcmp(o->api, "1.0.0"))
            p->api = CUZK_API_1_0_0;
        else if (!strcmp(o->api, "1.1.0"))
            p->api = CUZK_API_1_1_0;
        else if (!strcmp(o->api, "1.2.0"))
            p->api = CUZK_API_1_2_0;
        else
            return usage_err("--api-version \"%s\": 1.0.0, 1.1.0 or 1.2.0", o->api);
    }
    if (cmd_parse_hex32(o->prover, p->prover_id))
        return usage_err("--prover-id \"%s\": 64 hex digits", o->prover);
    if (cmd_parse_hex32(o->ticket, p->ticket))
        return usage_err("--ticket \"%s\": 64 hex digits", o->ticket);
    if (parse_u64(o->sector, &p->sector_id))
        return usage_err("--sector-number \"%s\": a number", o->sector);
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

static cuzk_err write_outputs(const char *dir, const uint8_t *unsealed, const uint8_t *sealed,
                              uint64_t size)
{
    char *u = NULL, *s = NULL;
    cuzk_err e = cmd_make_dirs(dir);
    if (!e && (!(u = cmd_path_with(dir, "/unsealed")) || !(s = cmd_path_with(dir, "/sealed"))))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_write_file(u, unsealed, size);
    if (!e)
        e = cuzk_write_file(s, sealed, size);
    free(u);
    free(s);
    return e;
}

int cmd_seal_main(int argc, char **argv)
{
    seal_opts o;
    cuzk_seal_params p;
    cuzk_seal_result r;
    int rc = parse_opts(argc, argv, &o);
    if (rc || (rc = make_params(&o, &p)))
        return rc;
    uint8_t *data = NULL, *replica = NULL;
    char cid_d[CUZK_CID_STR_MAX], cid_r[CUZK_CID_STR_MAX];
    cuzk_err e = load_sector(&o, p.sector_size, &data);
    if (!e && !(replica = malloc(p.sector_size)))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for the replica");
    if (!e)
        e = cuzk_seal(&p, data, replica, NULL, &r);
    if (!e)
        e = cuzk_cid_encode(CUZK_CID_UNSEALED, r.comm_d, cid_d);
    if (!e)
        e = cuzk_cid_encode(CUZK_CID_SEALED, r.comm_r, cid_r);
    if (!e)
        e = write_outputs(o.out, data, replica, p.sector_size);
    free(data);
    free(replica);
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
