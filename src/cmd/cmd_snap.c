/* cuzk snap check: a SnapDeals request's partition proofs against the
 * EmptySectorUpdate circuit, offline.
 *
 *   cuzk snap check --sector-size S --comm-r-old HEX --comm-r-new HEX
 *                   --comm-d-new HEX [--partition K] [--no-value-checks] FILE...
 *
 * One bincode PartitionProof per FILE, partition 0, 1, ... in order (as a
 * SNAP_DEALS_UPDATE request lists them), or the one FILE of partition K.
 * Each is decoded (a malformed file: its byte offset and field), checked as
 * rust-fil-proofs' vanilla verification does (snap.h cuzk_snap_verify:
 * counts, paths, roots, comm_r_old/new, the encoding, the apex tree;
 * --no-value-checks leaves those to the circuit), then synthesized in check
 * mode: "partition k: satisfied: C constraints, 5 public inputs" (C after
 * bellperson's input constraints), exit 0; the first unsatisfied
 * constraint, exit 1; a malformed file, a value check or a bad request,
 * exit 2. HEX values are the 32 bytes as stored (little-endian), as gen
 * snap's request.json holds them. */
#include "cmd/cmd.h"
#include "cuzk/cs.h"
#include "cuzk/snap.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FILES 64

typedef struct {
    const char *size, *old_hex, *new_hex, *d_hex, *part;
    int no_value_checks;
    const char *files[MAX_FILES];
    size_t n_files;
} snap_opts;

static int parse(int argc, char **argv, snap_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < argc; i++) {
        const char **dst = !strcmp(argv[i], "--sector-size")  ? &o->size
                           : !strcmp(argv[i], "--comm-r-old") ? &o->old_hex
                           : !strcmp(argv[i], "--comm-r-new") ? &o->new_hex
                           : !strcmp(argv[i], "--comm-d-new") ? &o->d_hex
                           : !strcmp(argv[i], "--partition")  ? &o->part
                                                              : NULL;
        if (dst) {
            if (i + 1 >= argc)
                return cmd_usage_fail("snap check", "%s needs a value", argv[i]);
            *dst = argv[++i];
        } else if (!strcmp(argv[i], "--no-value-checks")) {
            o->no_value_checks = 1;
        } else if (argv[i][0] == '-' && argv[i][1] == '-') {
            return cmd_usage_fail("snap check", "unknown option %s", argv[i]);
        } else if (o->n_files == MAX_FILES) {
            return cmd_usage_fail("snap check", "%s", "too many files (a sector has at most 16)");
        } else {
            o->files[o->n_files++] = argv[i];
        }
    }
    if (!o->size || !o->old_hex || !o->new_hex || !o->d_hex)
        return cmd_usage_fail("snap check", "%s",
                              "--sector-size, --comm-r-old, --comm-r-new and --comm-d-new are "
                              "required");
    if (!o->n_files)
        return cmd_usage_fail("snap check", "%s", "FILE... (one PartitionProof each) is required");
    return 0;
}

static cuzk_err hex_fr(const char *what, const char *s, cuzk_fr *out)
{
    uint8_t b[32];
    if (cmd_parse_hex32(s, b))
        return cuzk_fail(CUZK_EINVAL, "%s \"%s\": 64 hex digits expected", what, s);
    if (cuzk_fr_from_bytes_le(out, b))
        return cuzk_fail(CUZK_EINVAL, "%s is not a canonical field element", what);
    return CUZK_OK;
}

/* One file as partition k: 0 satisfied, 1 unsatisfied, 2 anything else. */
static int check_one(const snap_opts *o, const cuzk_snap_config *c, unsigned k, const char *file,
                     const cuzk_fr com[3])
{
    uint8_t *b = NULL;
    size_t n = 0;
    cuzk_snap_partition_proof p;
    cuzk_snap_values v;
    memset(&v, 0, sizeof v);
    cuzk_err e = cuzk_read_file(file, &b, &n);
    if (!e)
        e = cuzk_snap_partition_proof_decode(b, n, file, &p);
    free(b);
    if (e)
        return cmd_fail("snap check", e);
    if (!o->no_value_checks && (e = cuzk_snap_verify(c, k, &com[0], &com[1], &com[2], &p)))
        e = cuzk_fail_ctx(e, "%s (partition %u): ", file, k);
    if (!e)
        e = cuzk_snap_values_of(c, k, &com[0], &com[1], &com[2], &p, &v);
    cuzk_cs *cs = NULL;
    if (!e && !(e = cuzk_cs_new(&cs, CUZK_CS_CHECK)))
        e = cuzk_snap_synthesize(cs, c, &v);
    int rc = cmd_check_verdict("snap check", k, cs, e);
    cuzk_cs_free(cs);
    cuzk_snap_values_free(&v);
    cuzk_snap_partition_proof_free(&p);
    return rc;
}

int cmd_snap_main(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "check"))
        return cmd_usage_fail("snap", "which? \"%s\" is not check", argc ? argv[0] : "");
    snap_opts o;
    int rc = parse(argc - 1, argv + 1, &o);
    if (rc)
        return rc;
    uint64_t size, k0 = 0;
    cuzk_snap_config c;
    cuzk_fr com[3];
    cuzk_err e = cmd_parse_size(o.size, &size)
                     ? cuzk_fail(CUZK_EINVAL,
                                 "--sector-size \"%s\": 2KiB, 8MiB, 512MiB, 32GiB, "
                                 "64GiB or bytes",
                                 o.size)
                     : cuzk_snap_config_of(size, &c);
    if (!e)
        e = hex_fr("--comm-r-old", o.old_hex, &com[0]);
    if (!e)
        e = hex_fr("--comm-d-new", o.d_hex, &com[1]);
    if (!e)
        e = hex_fr("--comm-r-new", o.new_hex, &com[2]);
    if (!e && o.part && (cmd_parse_u64(o.part, &k0) || k0 >= c.partitions || o.n_files != 1))
        e = cuzk_fail(CUZK_EINVAL, "--partition \"%s\": 0 .. %u, with one FILE", o.part,
                      c.partitions - 1);
    if (!e && !o.part && o.n_files > c.partitions)
        e = cuzk_fail(CUZK_EINVAL, "%zu files; a %s sector has %u partitions", o.n_files, o.size,
                      c.partitions);
    if (e)
        return cmd_fail("snap check", e);
    printf("snap check: %llu-byte sector, %u partition(s) x %u challenges, h %u\n",
           (unsigned long long)size, c.partitions, c.challenges, c.h);
    rc = 0;
    for (size_t i = 0; i < o.n_files && !rc; i++)
        rc = check_one(&o, &c, (unsigned)(k0 + i), o.files[i], com);
    return rc;
}
