/* What the benchmark programs of cuzk-bench share: option lookup, medians,
 * error exit. Private to src/cmd. */
#ifndef CUZK_CMD_BENCH_H
#define CUZK_CMD_BENCH_H

#include "cuzk/err.h"
#include "cuzk/groth16.h"
#include "cuzk/synth.h"

#define MAX_REPS 64

/* Prints "cuzk-bench: what: message (NAME)" to stderr; returns 2. */
int bench_die(const char *what, cuzk_err e);
/* Median of v[0..n) (sorts v). */
double bench_median(double *v, int n);
/* The value after option `name`, or def. */
const char *bench_arg(int argc, char **argv, const char *name, const char *def);
int bench_flag(int argc, char **argv, const char *name);

/* The synthetic circuit of a benchmark from --log K (def_log by default,
 * 5..28), --constraints N (97 % of 2^K by default), --public-inputs P (4)
 * and --seed S (1). Returns 0, or bench_die's status naming `what`. */
int bench_synth_args(int argc, char **argv, const char *what, const char *def_log, unsigned *log_n,
                     cuzk_synth_params *sp);

/* cuzk-bench partition (bench_partition.c). */
int bench_partition(int argc, char **argv);
/* cuzk-bench engine (bench_engine.c). */
int bench_engine(int argc, char **argv);
/* The synthetic circuit sp (its structure only) with parameters made in
 * memory by a setup on setup_backend (device: its GPU), adopted by srs
 * under its synthetic id (jobs.h cuzk_synthetic_id); prints the circuit's
 * size and the times (bench_engine.c). */
struct cuzk_srs_manager;
cuzk_err bench_synthetic_adopt(const cuzk_synth_params *sp, const char *setup_backend, int device,
                               struct cuzk_srs_manager *srs);
/* cuzk-bench post (bench_post.c). */
int bench_post(int argc, char **argv);
/* Prints the circuit's size (and pce_s, the time it took) and makes its
 * parameters in memory by a setup on setup_backend (be's GPU when it has
 * one), printing setup_s (bench_post.c). */
cuzk_err bench_setup_memory(const cuzk_pce *pce, double pce_s, const char *setup_backend,
                            cuzk_backend *be, cuzk_params *params);
/* cuzk-bench porep (bench_porep.c). */
int bench_porep(int argc, char **argv);
/* J copies of the request q (its inputs about `bytes`) submitted at once to
 * an engine on backend bn that adopts params and *pce (moved into it: *pce
 * becomes NULL) as fp's circuit; prints each job's end and phases, then the
 * steady s/proof, GPU busy, synthesis and prove time per partition, peak
 * RSS and device memory (bench_porep.c). */
#include "cuzk/filecoin.h"
#include "cuzk/jobs.h"
/* The options porep and snap share (backend, setup backend, seed,
 * partitions of the by-phase request, jobs, synthesis workers, budget,
 * --host-spmv: a, b, c on the host even where the device computes them);
 * -1 with the error message set for values out of range. */
typedef struct {
    const char *backend, *setup_backend;
    uint64_t seed, budget;
    unsigned partitions, synthesis_workers;
    int jobs, host_spmv;
} bench_fc_opts;
cuzk_err bench_sustained(const cuzk_fc_proof *fp, const cuzk_job_request *q, size_t bytes,
                         const bench_fc_opts *o, cuzk_params *params, cuzk_pce **pce);
int bench_fc_opts_parse(int argc, char **argv, const cuzk_fc_proof *fp, bench_fc_opts *o);
/* The start porep and snap share: the proof of family fam named by option
 * opt, the options above, the backend opened and a "# what ..." header
 * printed; 0, or bench_die's status (what names the command). */
int bench_fc_start(int argc, char **argv, const char *what, cuzk_fc_family fam, const char *opt,
                   const cuzk_fc_proof **fp, bench_fc_opts *o, cuzk_backend **be);
/* cuzk-bench snap (bench_snap.c). */
int bench_snap(int argc, char **argv);

#include <stddef.h>
#include <stdint.h>
/* Peak used memory of GPUs and the process's peak RSS, sampled every 5 ms
 * on a thread of its own (bench_engine.c). Ordinals < 0 are skipped; stop fills n entries. */
typedef struct bench_devmem bench_devmem;
bench_devmem *bench_devmem_start(const int *ordinals, size_t n);
void bench_devmem_stop(bench_devmem *dm, size_t *peak_used, size_t *total);
void bench_devmem_free(bench_devmem *dm);
/* The peak RSS of the process it sampled; reset != 0 starts a new peak. */
uint64_t bench_devmem_rss_peak(bench_devmem *dm, int reset);

#endif
