/* Subcommands of the cuzk tool that live in their own src/cmd/cmd_*.c file.
 *
 * Each takes the arguments after its name (argv[0] is the first argument, not
 * the program) and returns the process exit status. The convention of
 * cuzk.c holds: one line "cuzk: <what>: <why>" on stderr for a failure, exit
 * status 2 for usage and I/O errors. Register a new one in cuzk_subcommands
 * (cuzk.c) and in the usage text there. */
#ifndef CUZK_CMD_H
#define CUZK_CMD_H

#include <stddef.h>

#include "cuzk/fr.h"
#include "cuzk/progress.h"

typedef struct {
    const char *name;
    int (*main)(int argc, char **argv);
    const char *usage; /* one or more lines, each starting "  cuzk <name>" */
} cuzk_subcommand;

/* cmd_snark.c: circom / snarkjs files. prove, verify and setup hand over
 * to these when their arguments name snarkjs files (--zkey, --vkey,
 * --r1cs); convert is a subcommand of its own. */
int cmd_snark_prove(int argc, char **argv);
int cmd_snark_verify(int argc, char **argv);
int cmd_snark_setup(int argc, char **argv);
int cmd_convert_main(int argc, char **argv);
/* inspect of a .zkey, .r1cs or .wtns (cuzk inspect hands these over). */
int cmd_snark_inspect(const char *path);

/* cuzk.c: write public inputs as `cuzk verify --public` reads them (a
 * comment line, then one 0x-hex field element per line). */
cuzk_err cmd_public_write(const char *path, const cuzk_fr *x, size_t n);

/* cmd_hash.c: native Poseidon / SHA-256; cmd_circuit.c: circuit sizes. */
int cmd_hash_main(int argc, char **argv);
int cmd_circuit_main(int argc, char **argv);
/* cmd_filecoin.c: the proof-type registry (filecoin list) and the check of
 * the parameter files it names (params check). */
int cmd_filecoin_main(int argc, char **argv);
int cmd_params_main(int argc, char **argv);
/* cmd_gen.c: synthetic test data (gen porep, gen post: cmd_post.c's
 * cmd_gen_post). cmd_post.c: the check of a PoSt request's vanilla proofs
 * against the circuit (post check). */
int cmd_gen_main(int argc, char **argv);
int cmd_gen_post(int argc, char **argv);
/* cmd_gen.c: an update's DIR/partition-<k>.vproof files and
 * DIR/request.json (DIR made if missing), printing each file and the
 * commitments as key=value lines (gen snap, seal update). */
struct cuzk_snap_update;
cuzk_err cmd_snap_write(const char *dir, const struct cuzk_snap_update *u);
int cmd_post_main(int argc, char **argv);
/* cmd_post.c: a size as "32GiB", "2KiB", "512MiB" (any case) or a byte
 * count; -1 for anything else or an overflow. */
int cmd_parse_size(const char *s, uint64_t *out);
/* cmd_post.c: a decimal u64 (no sign); -1 for anything else or an
 * overflow. */
int cmd_parse_u64(const char *s, uint64_t *out);
/* cmd_post.c: "cuzk: <what>: " + fmt with arg on stderr; returns 2. */
int cmd_usage_fail(const char *what, const char *fmt, const char *arg)
    __attribute__((format(printf, 2, 0)));
/* cmd_snap.c: SnapDeals partition proofs against the circuit (snap check). */
int cmd_snap_main(int argc, char **argv);
/* cmd_seal.c: the verdict of a partition synthesized in check mode (e its
 * result, cs the system): "partition k: satisfied: C constraints, I public
 * inputs" 0, "partition k: unsatisfied: <constraint>" 1, else the failure
 * on stderr and 2. */
struct cuzk_cs;
int cmd_check_verdict(const char *what, unsigned k, struct cuzk_cs *cs, cuzk_err e);
/* cmd_piece.c: piece commitments and their CIDs (piece commp, piece cid,
 * piece commd). */
int cmd_piece_main(int argc, char **argv);
/* cmd_piece.c: exactly 64 hex digits (an optional 0x) to 32 bytes, -1
 * otherwise; and a "key=HEX" line of 32 bytes on stdout. */
int cmd_parse_hex32(const char *s, uint8_t out[32]);
void cmd_print_hex32(const char *key, const uint8_t b[32]);
/* The 32 bytes as 64 lowercase hex digits, NUL-terminated. */
void cmd_hex32(char out[65], const uint8_t b[32]);
/* cmd_seal.c: seal a sector on the CPU (seal.h); its C1 output (c1 ...);
 * the check of a C1 output against the PoRep circuit (porep check). */
int cmd_seal_main(int argc, char **argv);
int cmd_c1_main(int argc, char **argv);
int cmd_porep_main(int argc, char **argv);

/* cuzk.c: the failure of a command: "cuzk: <what>: <message> (<CODE>)" and
 * 2, or when SIGINT / SIGTERM stopped it (cmd_progress_start) "cuzk: <what>:
 * interrupted by SIGTERM; its temporary files were removed" and 128 + the
 * signal number, as a shell reports a killed command. */
int cmd_fail(const char *what, cuzk_err e);

/* cuzk.c: a progress reporter on stderr for long work (progress.h, AUTO
 * mode: one updating line on a terminal, whole lines otherwise), to be
 * passed as the work's cuzk_progress_fn (cuzk_progress_callback). The first
 * call installs handlers for SIGINT and SIGTERM that only raise a flag
 * (a second signal kills as usual); the callback returns it, so the work
 * stops and removes its temporary files. Finish it with
 * cuzk_progress_finish. */
cuzk_err cmd_progress_start(const char *label, const char *unit, cuzk_progress **out);
/* Those handlers alone, for a command whose long work starts later. */
void cmd_catch_stop_signals(void);

/* cuzk.c: refuse an output path before the work that would write it: its
 * folder must exist and be writable, and the path must not be a folder
 * (EIO naming the path and why). */
cuzk_err cmd_output_check(const char *path);
/* base + s1 and base + s2 into *a and *b (malloc'd), both checked so; on
 * failure both are NULL. */
cuzk_err cmd_output_pair(const char *base, const char *s1, const char *s2, char **a, char **b);

/* prefix followed by suffix, malloc'd (NULL when out of memory); cuzk.c. */
char *cmd_path_with(const char *prefix, const char *suffix);

/* Defined in cuzk.c: the table of subcommands, NULL-terminated. */
extern const cuzk_subcommand cuzk_subcommands[];

#endif
