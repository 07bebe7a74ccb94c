/* cuzk piece: piece and data commitments and their CIDs (piece.h), for
 * making and checking test sectors' deal data by hand or from scripts.
 *
 *   cuzk piece commp FILE
 *       commP of the file's bytes as one piece (zero-filled to a power-of-
 *       two padded size, as Lotus and Curio size it): piece_cid=baga...,
 *       padded_size=N and commp=HEX (the 32 bytes as stored).
 *   cuzk piece cid HEX --sealed|--unsealed
 *       the CID of a commitment given as 64 hex digits (the 32 bytes as
 *       stored, little-endian): baga... (unsealed: commP, comm_d) or
 *       bagboea4b5abc... (sealed: comm_r).
 *   cuzk piece cid CID
 *       decodes a CID: kind=sealed|unsealed and commitment=HEX.
 *   cuzk piece commd --sector-size S [CID:PADDED_SIZE ...]
 *       comm_d of a sector holding those pieces in order (each aligned to
 *       its size, zeros up to the sector size; none: the empty sector):
 *       comm_d_cid=baga... and comm_d=HEX.
 *
 * Output is key=value lines (the bare CID for `piece cid HEX`); failures
 * print one line "cuzk: piece: <why>" and exit 2. */
#include "cmd/cmd.h"
#include "cuzk/piece.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail_msg(const char *what)
{
    fprintf(stderr, "cuzk: piece: %s: %s\n", what, cuzk_errmsg());
    return 2;
}

static int usage_err(const char *msg)
{
    fprintf(stderr, "cuzk: piece: %s (cuzk piece --help)\n", msg);
    return 2;
}

void cmd_hex32(char out[65], const uint8_t b[32])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void cmd_print_hex32(const char *key, const uint8_t b[32])
{
    char h[65];
    cmd_hex32(h, b);
    printf("%s=%s\n", key, h);
}

/* Declared in cmd.h. */
int cmd_parse_hex32(const char *s, uint8_t out[32])
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    if (strlen(s) != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        int h = cuzk_hex_digit(s[2 * i]), l = cuzk_hex_digit(s[2 * i + 1]);
        if (h < 0 || l < 0)
            return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return 0;
}

static int piece_commp(int argc, char **argv)
{
    if (argc != 1)
        return usage_err("commp takes one FILE");
    uint8_t comm[32];
    uint64_t padded;
    char cid[CUZK_CID_STR_MAX];
    if (cuzk_commp_file(argv[0], comm, &padded) != CUZK_OK ||
        cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid) != CUZK_OK)
        return fail_msg("commp");
    printf("piece_cid=%s\npadded_size=%llu\n", cid, (unsigned long long)padded);
    cmd_print_hex32("commp", comm);
    return 0;
}

static int piece_cid(int argc, char **argv)
{
    const char *arg = NULL;
    int kind = -1;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--sealed") || !strcmp(argv[i], "--unsealed")) {
            if (kind >= 0)
                return usage_err("cid: give --sealed or --unsealed once");
            kind = !strcmp(argv[i], "--sealed") ? CUZK_CID_SEALED : CUZK_CID_UNSEALED;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            fprintf(stderr, "cuzk: piece: cid: unknown option %s\n", argv[i]);
            return 2;
        } else if (arg) {
            return usage_err("cid takes one HEX or CID");
        } else {
            arg = argv[i];
        }
    }
    if (!arg)
        return usage_err("cid takes one HEX or CID");
    uint8_t comm[32];
    if (kind >= 0) {
        char cid[CUZK_CID_STR_MAX];
        if (cmd_parse_hex32(arg, comm)) {
            fprintf(stderr, "cuzk: piece: cid: \"%s\" is not 64 hex digits\n", arg);
            return 2;
        }
        if (cuzk_cid_encode((cuzk_cid_kind)kind, comm, cid) != CUZK_OK)
            return fail_msg("cid");
        printf("%s\n", cid);
        return 0;
    }
    cuzk_cid_kind k;
    if (cuzk_cid_decode(arg, &k, comm) != CUZK_OK)
        return fail_msg("cid");
    printf("kind=%s\n", k == CUZK_CID_SEALED ? "sealed" : "unsealed");
    cmd_print_hex32("commitment", comm);
    return 0;
}

static int piece_commd(int argc, char **argv)
{
    const char *size_s = NULL;
    cuzk_piece_info *pieces = calloc((size_t)argc + 1, sizeof *pieces);
    size_t n = 0;
    int rc = 2;
    if (!pieces)
        return usage_err("out of memory");
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--sector-size") && i + 1 < argc) {
            size_s = argv[++i];
            continue;
        }
        char *colon = strrchr(argv[i], ':');
        cuzk_cid_kind k;
        if (argv[i][0] == '-' || !colon) {
            fprintf(stderr, "cuzk: piece: commd: \"%s\" is not CID:PADDED_SIZE\n", argv[i]);
            goto out;
        }
        *colon = 0;
        cuzk_err e = cuzk_cid_decode(argv[i], &k, pieces[n].comm);
        *colon = ':';
        if (e != CUZK_OK) {
            rc = fail_msg("commd");
            goto out;
        }
        if (k != CUZK_CID_UNSEALED) {
            fprintf(stderr, "cuzk: piece: commd: %s is a sealed CID, not a piece\n", argv[i]);
            goto out;
        }
        if (cmd_parse_size(colon + 1, &pieces[n].padded_size)) {
            fprintf(stderr, "cuzk: piece: commd: \"%s\": bad padded size\n", argv[i]);
            goto out;
        }
        n++;
    }
    uint64_t sector;
    if (!size_s || cmd_parse_size(size_s, &sector)) {
        fprintf(stderr, "cuzk: piece: commd: --sector-size S: 2KiB, 8MiB, 512MiB, 32GiB, 64GiB "
                        "or bytes\n");
        goto out;
    }
    uint8_t comm[32];
    char cid[CUZK_CID_STR_MAX];
    if (cuzk_comm_d(sector, pieces, n, comm) != CUZK_OK ||
        cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid) != CUZK_OK) {
        rc = fail_msg("commd");
        goto out;
    }
    printf("comm_d_cid=%s\n", cid);
    cmd_print_hex32("comm_d", comm);
    rc = 0;
out:
    free(pieces);
    return rc;
}

int cmd_piece_main(int argc, char **argv)
{
    if (argc < 1)
        return usage_err("want commp, cid or commd");
    if (!strcmp(argv[0], "commp"))
        return piece_commp(argc - 1, argv + 1);
    if (!strcmp(argv[0], "cid"))
        return piece_cid(argc - 1, argv + 1);
    if (!strcmp(argv[0], "commd"))
        return piece_commd(argc - 1, argv + 1);
    fprintf(stderr, "cuzk: piece: unknown subcommand \"%s\"\n", argv[0]);
    return 2;
}
