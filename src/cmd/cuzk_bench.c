/* cuzk-bench: local benchmarks of the proving phases (programs, not tests).
 *
 *   cuzk-bench ntt   --log K [--reps R]              forward / inverse / coset NTT
 *   cuzk-bench msm   --n N [--g2] [--reps R]         dense MSM of random scalars
 *   cuzk-bench prove --params P --pce C --witness W [--reps R] [--backend B]
 *                                                    (B: cpu, cuda, cuda:N, auto)
 *   cuzk-bench gpu-ntt --log K [--reps R]            the same four NTTs on the GPU
 *   cuzk-bench gpu-msm --log-lo A --log-hi B [--g2] [--reps R] [--cross-check] [--ones P]
 *                                                    dense GPU MSMs of 2^A..2^B points
 *                                                    (P % of the scalars 1)
 *   cuzk-bench gpu-h   --log K [--reps R]            H on the GPU from host vectors
 *   cuzk-bench gpu-fpmul [--reps R]                  Fp products/s of each way to multiply
 *   cuzk-bench gpu-alloc [--mib M] [--reps R]        a device block taken and given back
 *   cuzk-bench partition --log K [...]               a synthetic partition end to end
 *                                                    in memory (bench_partition.c)
 *   cuzk-bench engine --log K [--partitions P] [--jobs J] [--backend B] [--devices 0,1]
 *                     [--workers W] [--synthesis-workers S] [--depth D] [--batch B]
 *                     [--budget auto|NGiB] [--device-only] [--lookahead]
 *                                                    sustained throughput of the engine
 *                                                    on synthetic jobs (bench_engine.c)
 *   cuzk-bench params-load --file F [--make-points N] [--reps R] [--cold]
 *                                                    how fast a parameter file decodes
 *                                                    (the parse the SRS manager runs);
 *                                                    --make-points first writes F
 *   cuzk-bench synth-witness --log K [--public N] [--seed S] [--reps R] [--compare]
 *                                                    the 2^K synthetic circuit's witness
 *                                                    alone; --compare also builds the
 *                                                    circuit with values (once) and
 *                                                    checks both give the same assignment
 *
 * Every benchmark takes --log-level debug|info|warn|error (default info) for
 * the engine's and the GPU's log lines on stderr; debug adds each base set a
 * GPU gives back to make room, with what it made room for.
 *
 * GPU benchmarks run on GPU 0 or --device N, keep their inputs on the device
 * and report device time
 * (CUDA events, median of the repetitions); gpu-msm also checks the MSM of
 * its first 2^min(A, 20) points against the CPU MSM, and with --cross-check
 * every size against both bucket accumulations forced. gpu-h reports copies and kernels
 * apart, as the prover sees them (host vectors in, h out).
 * Each prints one key=value line per measurement with the median over the
 * repetitions, the thread count and the peak RSS, for bench/RESULTS.md.
 * `cuzk-bench` alone or with --help lists every command (these and the
 * daemon's client commands of bench_client.c), one line each;
 * `cuzk-bench CMD --help` prints CMD's usage and runs nothing. */
#include "cuzk/curve.h"
#include "cuzk/gpu.h"
#include "cuzk/groth16.h"
#include "cuzk/log.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/bench.h"

int bench_die(const char *what, cuzk_err e)
{
    (void)e;
    fprintf(stderr, "cuzk-bench: %s: %s\n", what, cuzk_errmsg());
    return 2;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

const char *bench_arg(int argc, char **argv, const char *name, const char *def)
{
    for (int i = 0; i + 1 < argc; i++)
        if (!strcmp(argv[i], name))
            return argv[i + 1];
    return def;
}

int bench_flag(int argc, char **argv, const char *name)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], name))
            return 1;
    return 0;
}

#define die bench_die
#define median bench_median
#define arg bench_arg
#define flag bench_flag

static int bench_ntt(int argc, char **argv)
{
    unsigned log_n = (unsigned)atoi(arg(argc, argv, "--log", "20"));
    int reps = atoi(arg(argc, argv, "--reps", "3"));
    if (reps < 1 || reps > MAX_REPS)
        reps = 3;
    cuzk_ntt_domain d;
    cuzk_err e = cuzk_ntt_domain_init(&d, log_n);
    if (e)
        return die("ntt", e);
    cuzk_fr *a = malloc(d.n * sizeof *a);
    if (!a)
        return die("ntt", cuzk_fail(CUZK_ENOMEM, "out of memory"));
    cuzk_fr_vec_rng(a, d.n, 1);
    double f[MAX_REPS], inv[MAX_REPS], cf[MAX_REPS], ci[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t = cuzk_now();
        cuzk_ntt_forward(&d, a);
        f[r] = cuzk_now() - t;
        t = cuzk_now();
        cuzk_ntt_inverse(&d, a);
        inv[r] = cuzk_now() - t;
        t = cuzk_now();
        cuzk_ntt_coset_forward(&d, a);
        cf[r] = cuzk_now() - t;
        t = cuzk_now();
        cuzk_ntt_coset_inverse(&d, a);
        ci[r] = cuzk_now() - t;
    }
    printf("ntt log_n=%u threads=%u reps=%d forward_ms=%.2f inverse_ms=%.2f coset_forward_ms=%.2f "
           "coset_inverse_ms=%.2f\n",
           log_n, cuzk_threads_count(), reps, 1e3 * median(f, reps), 1e3 * median(inv, reps),
           1e3 * median(cf, reps), 1e3 * median(ci, reps));
    free(a);
    cuzk_ntt_domain_free(&d);
    return 0;
}

static int bench_msm(int argc, char **argv)
{
    size_t n = (size_t)strtoull(arg(argc, argv, "--n", "65536"), NULL, 0);
    int reps = atoi(arg(argc, argv, "--reps", "3")), g2 = flag(argc, argv, "--g2");
    if (reps < 1 || reps > MAX_REPS)
        reps = 3;
    cuzk_fr *k = malloc(n * sizeof *k), *kb = malloc(n * sizeof *kb);
    void *bases = malloc(n * (g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine)));
    if (!k || !kb || !bases)
        return die("msm", cuzk_fail(CUZK_ENOMEM, "out of memory"));
    cuzk_fr_vec_rng(k, n, 1);
    cuzk_fr_vec_rng(kb, n, 2);
    cuzk_err e;
    if (g2) {
        cuzk_g2_fixed t;
        if ((e = cuzk_g2_fixed_init(&t, blst_p2_generator(), 8)))
            return die("msm", e);
        cuzk_g2_fixed_mul_batch(bases, &t, kb, n);
        cuzk_g2_fixed_free(&t);
    } else {
        cuzk_g1_fixed t;
        if ((e = cuzk_g1_fixed_init(&t, blst_p1_generator(), 10)))
            return die("msm", e);
        cuzk_g1_fixed_mul_batch(bases, &t, kb, n);
        cuzk_g1_fixed_free(&t);
    }
    double tt[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        double t = cuzk_now();
        if (g2) {
            blst_p2 out;
            e = cuzk_msm_g2(&out, bases, n, k, NULL, n, NULL);
        } else {
            blst_p1 out;
            e = cuzk_msm_g1(&out, bases, n, k, NULL, n, NULL);
        }
        if (e)
            return die("msm", e);
        tt[r] = cuzk_now() - t;
    }
    printf("msm group=%s n=%zu threads=%u reps=%d ms=%.2f\n", g2 ? "g2" : "g1", n,
           cuzk_threads_count(), reps, 1e3 * median(tt, reps));
    free(k);
    free(kb);
    free(bases);
    return 0;
}

static int bench_prove(int argc, char **argv)
{
    const char *pp = arg(argc, argv, "--params", NULL), *cp = arg(argc, argv, "--pce", NULL),
               *wp = arg(argc, argv, "--witness", NULL), *bn = arg(argc, argv, "--backend", "cpu");
    int reps = atoi(arg(argc, argv, "--reps", "3"));
    if (reps < 1 || reps > MAX_REPS)
        reps = 3;
    if (!pp || !cp || !wp) {
        fprintf(stderr, "cuzk-bench prove --params P --pce C --witness W [--reps R]\n");
        return 2;
    }
    cuzk_pce *pce;
    cuzk_params params;
    cuzk_fr *w;
    uint32_t ni;
    uint64_t na;
    cuzk_backend *be;
    cuzk_err e;
    if ((e = cuzk_pce_load(&pce, cp)) || (e = cuzk_params_read(pp, &params, 0)) ||
        (e = cuzk_witness_read(wp, &w, &ni, &na)) || (e = cuzk_backend_open(bn, &be)))
        return die("prove", e);
    double spmv[MAX_REPS], h[MAX_REPS], mh[MAX_REPS], ml[MAX_REPS], ma[MAX_REPS], mb1[MAX_REPS],
        mb2[MAX_REPS], tot[MAX_REPS], dhc[MAX_REPS], dhk[MAX_REPS], dmc[MAX_REPS], dmk[MAX_REPS];
    for (int r = 0; r < reps; r++) {
        cuzk_proof proof;
        cuzk_prove_timings tm;
        if ((e = cuzk_groth16_prove(be, &params, pce, w, NULL, NULL, &proof, &tm)))
            return die("prove", e);
        if ((e = cuzk_groth16_verify(&params.vk, w + 1, ni - 1, &proof)))
            return die("verify", e);
        spmv[r] = tm.spmv, h[r] = tm.h, mh[r] = tm.msm_h, ml[r] = tm.msm_l, ma[r] = tm.msm_a;
        mb1[r] = tm.msm_b_g1, mb2[r] = tm.msm_b_g2, tot[r] = tm.total;
        dhc[r] = tm.dev_h_copy, dhk[r] = tm.dev_h_kernel, dmc[r] = tm.dev_msm_copy;
        dmk[r] = tm.dev_msm_kernel;
    }
    /* dev_*: device time from device events (0 on the CPU backend) */
    printf("prove backend=%s constraints=%llu domain=2^%u threads=%u reps=%d spmv_s=%.3f "
           "h_ntt_s=%.3f msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f msm_b_g1_s=%.3f msm_b_g2_s=%.3f "
           "total_s=%.3f dev_h_copy_s=%.3f dev_h_kernel_s=%.3f dev_msm_copy_s=%.3f "
           "dev_msm_kernel_s=%.3f peak_rss_mib=%.1f\n",
           cuzk_backend_name(be), (unsigned long long)pce->n_constraints, pce->log_domain,
           cuzk_threads_count(), reps, median(spmv, reps), median(h, reps), median(mh, reps),
           median(ml, reps), median(ma, reps), median(mb1, reps), median(mb2, reps),
           median(tot, reps), median(dhc, reps), median(dhk, reps), median(dmc, reps),
           median(dmk, reps), cuzk_peak_rss() / 1048576.0);
    cuzk_backend_close(be);
    free(w);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    return 0;
}

/* An unsigned option in lo..hi, or def when absent. */
static cuzk_err uint_arg(int argc, char **argv, const char *name, uint64_t def, uint64_t lo,
                         uint64_t hi, uint64_t *out)
{
    const char *s = arg(argc, argv, name, NULL);
    if (!s) {
        *out = def;
        return CUZK_OK;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (s[0] < '0' || s[0] > '9' || *end || errno || v < lo || v > hi)
        return cuzk_fail(CUZK_EINVAL, "%s %s: expected %llu..%llu", name, s, (unsigned long long)lo,
                         (unsigned long long)hi);
    *out = v;
    return CUZK_OK;
}

/* A parameter file for params-load: n - 1 h points, n in l, a and b_g1,
 * n / 4 in b_g2 (at least 1), every one a multiple of its generator (valid
 * uncompressed points, not a setup: only decoding is measured). */
static cuzk_err params_load_make(const char *path, size_t n)
{
    enum { K = 4096 }; /* distinct points, written over and over */
    blst_p1_affine *g1 = malloc(K * sizeof *g1);
    blst_p2_affine *g2 = malloc(K * sizeof *g2);
    cuzk_err e = CUZK_OK;
    if (!g1 || !g2) {
        e = cuzk_fail(CUZK_ENOMEM, "params-load: out of memory");
        goto out;
    }
    blst_p1 p = *blst_p1_generator();
    blst_p2 q = *blst_p2_generator();
    for (size_t i = 0; i < K; i++) {
        blst_p1_to_affine(&g1[i], &p);
        blst_p2_to_affine(&g2[i], &q);
        blst_p1_add_or_double(&p, &p, blst_p1_generator());
        blst_p2_add_or_double(&q, &q, blst_p2_generator());
    }
    cuzk_vk vk;
    memset(&vk, 0, sizeof vk);
    vk.alpha_g1 = vk.beta_g1 = vk.delta_g1 = g1[0];
    vk.beta_g2 = vk.gamma_g2 = vk.delta_g2 = g2[0];
    cuzk_params_writer w;
    if ((e = cuzk_params_writer_open(&w, path, &vk)))
        goto out;
    const size_t count[6] = {1, n - 1, n, n, n, n / 4 ? n / 4 : 1}; /* ic .. b_g2 */
    for (int s = 0; s < 6 && !e; s++) {
        e = cuzk_params_writer_begin(&w, count[s]);
        for (size_t done = 0; !e && done < count[s];) {
            size_t m = count[s] - done < K ? count[s] - done : K;
            e = s == 5 ? cuzk_params_writer_g2(&w, g2, m) : cuzk_params_writer_g1(&w, g1, m);
            done += m;
        }
    }
    if (e)
        cuzk_params_writer_abort(&w);
    else
        e = cuzk_params_writer_close(&w);
out:
    free(g1);
    free(g2);
    return e;
}

static int bench_params_load(int argc, char **argv)
{
    const char *path = arg(argc, argv, "--file", NULL);
    uint64_t reps, make;
    cuzk_err e;
    if ((e = uint_arg(argc, argv, "--reps", 3, 1, MAX_REPS, &reps)) ||
        (e = uint_arg(argc, argv, "--make-points", 0, 2, (uint64_t)1 << 30, &make)))
        return die("params-load", e);
    if (!path)
        return die("params-load", cuzk_fail(CUZK_EINVAL, "--file F is required"));
    int cold = flag(argc, argv, "--cold");
    if (make) {
        double t = cuzk_now();
        if ((e = params_load_make(path, (size_t)make)))
            return die("params-load: --make-points", e);
        printf("params-make file=%s points=%llu make_s=%.2f\n", path, (unsigned long long)make,
               cuzk_now() - t);
        fflush(stdout);
    }
    struct stat st;
    if (stat(path, &st))
        return die("params-load", cuzk_fail(CUZK_EIO, "%s: %s", path, strerror(errno)));
    size_t bytes = (size_t)st.st_size;
    double ts[MAX_REPS];
    for (int r = 0; r < (int)reps; r++) {
        if (cold) { /* clean pages only: the file was written and synced earlier */
            int fd = open(path, O_RDONLY);
            if (fd < 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)) {
                if (fd >= 0)
                    close(fd);
                return die("params-load",
                           cuzk_fail(CUZK_EIO, "%s: cannot drop its cached pages", path));
            }
            close(fd);
        }
        cuzk_params p;
        double t = cuzk_now();
        if ((e = cuzk_params_read(path, &p, 0)))
            return die("params-load", e);
        ts[r] = cuzk_now() - t;
        printf("params-load file=%s bytes=%zu rep=%d cold=%d load_s=%.3f rate_gb_s=%.3f\n", path,
               bytes, r, cold, ts[r], (double)bytes / ts[r] / 1e9);
        fflush(stdout);
        cuzk_params_free(&p);
    }
    double t = median(ts, (int)reps);
    printf("params-load file=%s bytes=%zu reps=%d cold=%d threads=%u median_load_s=%.3f "
           "median_rate_gb_s=%.3f peak_rss_mib=%.1f\n",
           path, bytes, (int)reps, cold, cuzk_threads_count(), t, (double)bytes / t / 1e9,
           cuzk_peak_rss() / 1048576.0);
    return 0;
}

/* The witness of the 2^K synthetic circuit with and (--compare) without the
 * constraint system. Witness bytes are its array; the RSS figures are the
 * process's high-water mark after each phase (the witness is freed before
 * the build, so the second one is the build's own peak). */
static int bench_synth_witness(int argc, char **argv)
{
    uint64_t log_n, n_public, seed, reps;
    cuzk_err e;
    if ((e = uint_arg(argc, argv, "--log", 20, 4, 31, &log_n)) ||
        (e = uint_arg(argc, argv, "--public", 0, 0, UINT32_MAX, &n_public)) ||
        (e = uint_arg(argc, argv, "--seed", 1, 0, UINT64_MAX, &seed)) ||
        (e = uint_arg(argc, argv, "--reps", 3, 1, MAX_REPS, &reps)))
        return die("synth-witness", e);
    cuzk_synth_params sp = {(uint64_t)1 << log_n, (uint32_t)n_public, seed};
    cuzk_fr *w;
    size_t n;
    uint64_t ck = 0;
    double tw[MAX_REPS];
    for (int r = 0; r < (int)reps; r++) {
        double t = cuzk_now();
        if ((e = cuzk_synth_witness(&sp, &w, &n)))
            return die("synth-witness", e);
        tw[r] = cuzk_now() - t;
        ck = cuzk_checksum64(w, n * sizeof *w);
        free(w);
    }
    double t_w = median(tw, (int)reps);
    printf("synth-witness log=%u constraints=%llu public=%u seed=%llu variables=%zu reps=%d "
           "witness_s=%.3f witness_mib=%.1f peak_rss_mib=%.1f\n",
           (unsigned)log_n, (unsigned long long)sp.n_constraints, sp.n_public,
           (unsigned long long)seed, n, (int)reps, t_w, (double)(n * sizeof *w) / 1048576.0,
           cuzk_peak_rss() / 1048576.0);
    if (!flag(argc, argv, "--compare"))
        return 0;
    fflush(stdout);
    cuzk_r1cs *cs;
    double t = cuzk_now();
    if ((e = cuzk_synth_build(&sp, 1, &cs)))
        return die("synth-witness: build", e);
    double t_b = cuzk_now() - t;
    size_t nb = cuzk_r1cs_num_inputs(cs) + cuzk_r1cs_num_aux(cs);
    int same = nb == n && cuzk_checksum64(cuzk_r1cs_assignment(cs), nb * sizeof *w) == ck;
    printf("synth-build log=%u constraints=%llu variables=%zu build_s=%.3f peak_rss_mib=%.1f "
           "speedup=%.1f same_witness=%s\n",
           (unsigned)log_n, (unsigned long long)sp.n_constraints, nb, t_b,
           cuzk_peak_rss() / 1048576.0, t_w > 0 ? t_b / t_w : 0.0, same ? "yes" : "no");
    cuzk_r1cs_free(cs);
    return same ? 0 : 1;
}

#ifdef CUZK_BENCH_CLIENT
int cuzk_bench_client(int argc, char **argv); /* bench_client.c; -1: not a client command */
#endif

enum { GPU_NTT, GPU_MSM, GPU_H, GPU_FPMUL, GPU_ALLOC };

#ifdef CUZK_HAVE_CUDA
/* H from host vectors: wall time and the device's copy/kernel split. */
static int bench_gpu_h(cuzk_gpu *g, unsigned log_m, int reps)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr *v = malloc(3 * m * sizeof *v);
    if (!v || log_m > 28)
        return die("gpu-h", cuzk_fail(CUZK_EINVAL, "--log %u: out of memory or too large", log_m));
    cuzk_fr_vec_rng(v, 3 * m, 5);
    double h2d[MAX_REPS], ker[MAX_REPS], d2h[MAX_REPS], wall[MAX_REPS];
    for (int r = -1; r < reps; r++) {
        double t = cuzk_now();
        cuzk_err e = cuzk_gpu_compute_h(g, log_m, v, v + m, v + 2 * m);
        if (e)
            return die("gpu-h", e);
        cuzk_gpu_times tm;
        cuzk_gpu_last_times(g, &tm);
        if (r >= 0) {
            wall[r] = 1e3 * (cuzk_now() - t);
            h2d[r] = tm.h2d_ms, ker[r] = tm.kernel_ms, d2h[r] = tm.d2h_ms;
        }
    }
    printf("gpu-h log_m=%u reps=%d wall_ms=%.2f h2d_ms=%.2f kernels_ms=%.2f d2h_ms=%.2f\n", log_m,
           reps, median(wall, reps), median(h2d, reps), median(ker, reps), median(d2h, reps));
    free(v);
    return 0;
}
#endif

/* GPU benchmarks: device times (CUDA events). */
static int bench_gpu(int argc, char **argv, int mode)
{
    /* The arguments are checked before a GPU is looked for. */
    const char *what = mode == GPU_MSM     ? "gpu-msm"
                       : mode == GPU_H     ? "gpu-h"
                       : mode == GPU_FPMUL ? "gpu-fpmul"
                       : mode == GPU_ALLOC ? "gpu-alloc"
                                           : "gpu-ntt";
    uint64_t reps = 3, ones = 0, log_n = 20, lo = 16, hi = 20;
    cuzk_err e = uint_arg(argc, argv, "--reps", 3, 1, MAX_REPS, &reps);
    if (!e && mode == GPU_MSM && !(e = uint_arg(argc, argv, "--ones", 0, 0, 100, &ones)) &&
        !(e = uint_arg(argc, argv, "--log-lo", 16, 10, 30, &lo)))
        e = uint_arg(argc, argv, "--log-hi", lo > 20 ? lo : 20, lo, 30, &hi);
    uint64_t mib = 1024;
    if (!e && mode != GPU_MSM && mode != GPU_FPMUL && mode != GPU_ALLOC)
        e = uint_arg(argc, argv, "--log", 20, 1, 28, &log_n);
    if (!e && mode == GPU_ALLOC)
        e = uint_arg(argc, argv, "--mib", 1024, 64, 1u << 20, &mib);
    if (e)
        return die(what, e);
#ifdef CUZK_HAVE_CUDA
    cuzk_gpu *g;
    char desc[256];
    const char *dev = arg(argc, argv, "--device", "0");
    int ord = atoi(dev);
    if (dev[0] < '0' || dev[0] > '9')
        return die("gpu", cuzk_fail(CUZK_EINVAL, "--device %s: expected a GPU ordinal", dev));
    if (ord >= cuzk_gpu_count())
        return die("gpu", cuzk_fail(CUZK_EUNSUPPORTED, "--device %d: no such GPU (%d visible)", ord,
                                    cuzk_gpu_count()));
    if ((e = cuzk_gpu_describe(ord, desc, sizeof desc)) || (e = cuzk_gpu_open(ord, &g)))
        return die("gpu", e);
    printf("# %s\n", desc);
    if (mode == GPU_H) {
        int rc = bench_gpu_h(g, (unsigned)log_n, (int)reps);
        cuzk_gpu_close(g);
        return rc;
    }
    if (mode == GPU_ALLOC) {
        double ms[4];
        e = cuzk_gpu_bench_alloc(g, (size_t)mib << 20, (int)reps, ms);
        if (!e)
            printf("gpu-alloc mib=%llu reps=%d malloc_ms=%.3f free_ms=%.3f kept_take_ms=%.3f "
                   "kept_give_ms=%.3f\n",
                   (unsigned long long)mib, (int)reps, ms[0], ms[1], ms[2], ms[3]);
    } else if (mode == GPU_FPMUL) {
        double gm[4];
        int same = 0;
        e = cuzk_gpu_bench_fpmul(g, (int)reps, gm, &same);
        if (!e)
            printf("gpu-fpmul reps=%d cios_gmul_s=%.2f sos_gmul_s=%.2f fd_gmul_s=%.2f "
                   "mixed_gmul_s=%.2f same=%s\n",
                   (int)reps, gm[0], gm[1], gm[2], gm[3], same ? "yes" : "no");
        if (!e && !same)
            e = cuzk_fail(CUZK_EINTERNAL, "the multiplication variants disagree");
    } else if (mode == GPU_MSM) {
        int g2 = flag(argc, argv, "--g2");
        double ms[32];
        int cross = flag(argc, argv, "--cross-check");
        e = cuzk_gpu_bench_msm(g, g2, (unsigned)lo, (unsigned)hi, (int)reps, cross, (unsigned)ones,
                               ms);
        for (unsigned l = (unsigned)lo; !e && l <= hi; l++) {
            printf("gpu-msm group=%s log_n=%u ones_pct=%u reps=%d device_ms=%.2f", g2 ? "g2" : "g1",
                   l, (unsigned)ones, (int)reps, ms[l - lo]);
            if (l == lo)
                printf(" checked_vs_cpu=yes cpu_check_log=%u", lo < 20 ? (unsigned)lo : 20);
            printf("%s\n", cross ? " cross_checked=yes" : "");
        }
    } else {
        double ms[4];
        e = cuzk_gpu_bench_ntt(g, (unsigned)log_n, (int)reps, ms);
        if (!e)
            printf("gpu-ntt log_n=%u reps=%d forward_ms=%.3f inverse_ms=%.3f "
                   "coset_forward_ms=%.3f coset_inverse_ms=%.3f\n",
                   (unsigned)log_n, (int)reps, ms[0], ms[1], ms[2], ms[3]);
    }
    cuzk_gpu_close(g);
    return e ? die(what, e) : 0;
#else
    return die("gpu", cuzk_fail(CUZK_EUNSUPPORTED, "this build has no CUDA support"));
#endif
}

/* Every command of cuzk-bench: the list (no arguments, --help) shows one
 * line each; `cuzk-bench CMD --help` its usage. client: the daemon's client
 * (bench_client.c), present when the daemon was built. */
static const struct {
    const char *name, *what, *usage;
    int client;
} commands[] = {
    {"ntt", "forward / inverse / coset NTTs on the CPU", "ntt --log K [--reps R] [--threads N]", 0},
    {"msm", "dense multi-scalar multiplication of random scalars",
     "msm --n N [--g2] [--reps R] [--threads N]", 0},
    {"prove", "proofs from parameters, a PCE and a witness, each verified",
     "prove --params P --pce C --witness W [--reps R] [--backend cpu|cuda|cuda:N|auto]", 0},
    {"partition", "a synthetic partition end to end in memory (synthesis, setup, proofs)",
     "partition --log K [--constraints N] [--public-inputs P] [--seed S] [--reps R] [--batch B]\n"
     "                     [--backend B] [--setup-backend B]",
     0},
    {"engine", "sustained throughput of the engine on synthetic multi-partition jobs",
     "engine --log K [--partitions P] [--jobs J] [--backend B] [--devices 0,1] [--workers W]\n"
     "                  [--synthesis-workers S] [--depth D] [--batch B] [--budget auto|NGiB]\n"
     "                  [--device-only] [--lookahead]",
     0},
    {"post", "a Filecoin PoSt partition in memory by phase; WinningPoSt idle and under load",
     "post --registered-proof N [--sectors K] [--reps R] [--seed S] [--backend B]\n"
     "                [--setup-backend B] [--load-log L --load-partitions P --winning W]",
     0},
    {"porep", "a Filecoin PoRep C2 in memory by phase, then sustained through the engine",
     "porep --registered-proof N [--partitions K] [--jobs J] [--seed S] [--backend B]\n"
     "                 [--setup-backend B] [--synthesis-workers W] [--budget auto|NGiB]\n"
     "                 [--witness-only | --synthesis-only] [--host-spmv]",
     0},
    {"snap", "a Filecoin SnapDeals proof in memory by phase, then sustained through the engine",
     "snap --update-proof N [--partitions K] [--jobs J] [--seed S] [--backend B]\n"
     "                [--setup-backend B] [--synthesis-workers W] [--budget auto|NGiB]\n"
     "                [--witness-only] [--host-spmv]",
     0},
    {"params-load", "how fast a parameter file decodes (--make-points: write one first)",
     "params-load --file F [--make-points N] [--reps R] [--cold]", 0},
    {"synth-witness", "the synthetic circuit's witness alone (--compare: against the build)",
     "synth-witness --log K [--public N] [--seed S] [--reps R] [--compare]", 0},
    {"gpu-fpmul", "Fp products per second of each way to multiply on a GPU (same results checked)",
     "gpu-fpmul [--reps R] [--device N]", 0},
    {"gpu-alloc", "what taking and giving back a device block costs, kept for reuse or not",
     "gpu-alloc [--mib M] [--reps R] [--device N]", 0},
    {"gpu-ntt", "the four NTTs on a GPU (device time)", "gpu-ntt --log K [--reps R] [--device N]",
     0},
    {"gpu-msm", "dense GPU MSMs of 2^A..2^B points, P % of the scalars 1 (device time)",
     "gpu-msm --log-lo A --log-hi B [--g2] [--reps R] [--cross-check] [--ones P] [--device N]", 0},
    {"gpu-h", "H on a GPU from host vectors (copies and kernels)",
     "gpu-h --log K [--reps R] [--device N]", 0},
    {"wait-ready", "wait until the daemon reports SERVING", "wait-ready [--timeout S] [--addr A]",
     1},
    {"single", "submit one job and await its proof",
     "single JOB-SPEC [--out PROOF] [--public-out FILE] [--json] [--addr A]", 1},
    {"batch", "N jobs, J at a time: throughput and latency",
     "batch JOB-SPEC -n N [-j J] [--prove [--retries R]] [--json] [--addr A]", 1},
    {"submit", "submit one job, print its id", "submit JOB-SPEC [--addr A]", 1},
    {"await", "await a submitted job", "await JOB-ID [--timeout-ms T] [--json] [--addr A]", 1},
    {"cancel", "cancel a job", "cancel JOB-ID [--addr A]", 1},
    {"status", "the daemon's status (queues, SRS, jobs); several --addr: one row each",
     "status [--json] [--addr A [--addr B ...]]", 1},
    {"metrics", "the daemon's Prometheus metrics", "metrics [--addr A]", 1},
    {"preload", "load a circuit's parameters into memory", "preload CIRCUIT-ID [--addr A]", 1},
    {"evict", "drop a circuit's parameters from memory", "evict CIRCUIT-ID [--addr A]", 1},
    {"stress", "jobs of every priority for a while: latency per priority",
     "stress JOB-SPEC --duration S [-j J] [--rate R] [--mixed] [--json] [--addr A]", 1},
    {"memmon", "sample the daemon's RSS, pinned, device and SRS bytes into a CSV",
     "memmon --pid PID [--interval-ms I] [--duration S] [--out CSV] [--json] [--addr A]", 1},
};
#define N_COMMANDS (sizeof commands / sizeof *commands)

#ifdef CUZK_BENCH_CLIENT
#define HAVE_CLIENT 1
#else
#define HAVE_CLIENT 0
#endif

static void list_commands(FILE *f)
{
    fprintf(f, "usage: cuzk-bench COMMAND [options]   (cuzk-bench COMMAND --help for its options)\n"
               "  every benchmark also takes --log-level debug|info|warn|error (default info)\n");
    for (size_t i = 0; i < N_COMMANDS; i++) {
        if (i == 0 || commands[i].client != commands[i - 1].client)
            fprintf(f, "%s\n", commands[i].client ? "the daemon's client:" : "benchmarks:");
        fprintf(f, "  %-14s %s%s\n", commands[i].name, commands[i].what,
                commands[i].client && !HAVE_CLIENT ? " (not in this build: no daemon)" : "");
    }
}

/* `cuzk-bench CMD --help`: its usage on stdout, nothing run. */
static int command_help(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (!strcmp(name, commands[i].name)) {
            printf("usage: cuzk-bench %s\n  %s\n", commands[i].usage, commands[i].what);
            if (strstr(commands[i].usage, "JOB-SPEC"))
                printf("  JOB-SPEC: --kind synthetic|r1cs|porep|snap|window-post|winning-post\n"
                       "    synthetic: --constraints N [--public-inputs K] [--seed S] "
                       "[--partitions P]\n"
                       "    r1cs:      --circuit ID --witness FILE [--witness FILE ...]\n"
                       "    [--priority low|normal|high|critical] [--request-id ID]\n");
            if (commands[i].client)
                printf("  --addr ADDR: default $CUZK_ADDR, else unix:///run/curio/cuzk.sock;"
                       " --rpc-timeout S\n"
                       "  TLS: --tls-ca PEM (the CA of the daemon's certificate) [--tls-cert PEM"
                       " --tls-key PEM] (a client certificate) [--tls-server-name NAME]\n");
            return 0;
        }
    fprintf(stderr, "cuzk-bench: unknown command \"%s\"\n", name);
    list_commands(stderr);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        list_commands(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        list_commands(stdout);
        return 0;
    }
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return command_help(argv[1]);
#ifdef CUZK_BENCH_CLIENT
    int client_rc = cuzk_bench_client(argc, argv);
    if (client_rc >= 0)
        return client_rc;
#endif
    const char *th = arg(argc - 2, argv + 2, "--threads", NULL);
    if (th && atoi(th) > 0)
        cuzk_threads_set((unsigned)atoi(th));
    const char *lv = arg(argc - 2, argv + 2, "--log-level", NULL);
    if (lv) {
        static const char *const levels[] = {"debug", "info", "warn", "error"};
        int l = 0;
        while (l < 4 && strcmp(lv, levels[l]))
            l++;
        if (l == 4) {
            fprintf(stderr, "cuzk-bench: --log-level \"%s\": expected debug, info, warn or error\n",
                    lv);
            return 2;
        }
        cuzk_log_set_level((cuzk_log_level)l);
    }
    if (!strcmp(argv[1], "ntt"))
        return bench_ntt(argc - 2, argv + 2);
    if (!strcmp(argv[1], "msm"))
        return bench_msm(argc - 2, argv + 2);
    if (!strcmp(argv[1], "gpu-fpmul"))
        return bench_gpu(argc - 2, argv + 2, GPU_FPMUL);
    if (!strcmp(argv[1], "gpu-alloc"))
        return bench_gpu(argc - 2, argv + 2, GPU_ALLOC);
    if (!strcmp(argv[1], "gpu-ntt"))
        return bench_gpu(argc - 2, argv + 2, GPU_NTT);
    if (!strcmp(argv[1], "gpu-msm"))
        return bench_gpu(argc - 2, argv + 2, GPU_MSM);
    if (!strcmp(argv[1], "gpu-h"))
        return bench_gpu(argc - 2, argv + 2, GPU_H);
    if (!strcmp(argv[1], "prove"))
        return bench_prove(argc - 2, argv + 2);
    if (!strcmp(argv[1], "partition"))
        return bench_partition(argc - 2, argv + 2);
    if (!strcmp(argv[1], "engine"))
        return bench_engine(argc - 2, argv + 2);
    if (!strcmp(argv[1], "post"))
        return bench_post(argc - 2, argv + 2);
    if (!strcmp(argv[1], "porep"))
        return bench_porep(argc - 2, argv + 2);
    if (!strcmp(argv[1], "snap"))
        return bench_snap(argc - 2, argv + 2);
    if (!strcmp(argv[1], "synth-witness"))
        return bench_synth_witness(argc - 2, argv + 2);
    if (!strcmp(argv[1], "params-load"))
        return bench_params_load(argc - 2, argv + 2);
    fprintf(stderr, "cuzk-bench: unknown benchmark \"%s\"\n", argv[1]);
    list_commands(stderr);
    return 2;
}
