/* cuzk-bench partition: one synthetic partition end to end, in memory.
 *
 *   cuzk-bench partition --log K [--constraints N] [--public-inputs P] [--seed S]
 *                        [--backend B] [--setup-backend B] [--reps R] [--batch R]
 *
 * 1. Synthesis: the synthetic circuit of synth.h (PoRep-like statistics:
 *    mostly-bit aux values, B about a third as dense as A) with its witness,
 *    and its PCE. N defaults to 97 % of 2^K, the share of its domain that a
 *    32 GiB PoRep partition fills (130,169,893 of 2^27).
 * 2. Setup with random secrets, straight into memory (no .params file: at
 *    2^27 it would be ~47 GB on disk and as much again to read back), with
 *    the fixed-base multiplications on --setup-backend (default: --backend).
 * 3. R proofs one after the other with per-phase times (the backend phases
 *    H and the MSMs are what the GPU does; each call blocks until its device
 *    work is done, copies included), and the device time from device events
 *    (copies, and the span of the kernels), each proof verified with blst.
 * 4. On a backend that computes a, b, c itself (the GPU's SpMV): the
 *    witness packed once (pack_s), then R proofs from it with
 *    cuzk_groth16_prove_packed ("packed" lines; the SpMV is inside the
 *    device time), each verified. Then R + 1 proofs that each upload the
 *    next one's packed witness meanwhile, as the engine's prove workers do
 *    (cuzk_groth16_prove_packed_next; a second pack of the same witness
 *    alternates with the first so that each proof's is another array):
 *    "packed-ahead" lines, the first of them uploading its own.
 * 5. A batch of R proofs through cuzk_groth16_prove_batch (the SpMV of
 *    proof i + 1 overlaps the backend work of proof i): wall time per proof,
 *    each verified.
 * Peak host RSS is the process's high-water mark; peak device memory is the
 * device's used memory (total - free) sampled every 5 ms by a thread, so it
 * includes the CUDA context and anything else on that GPU. */
#define _GNU_SOURCE
#include "cmd/bench.h"
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"
#include "cuzk/wpack.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double gib(size_t b)
{
    return (double)b / (1024.0 * 1024.0 * 1024.0);
}

static double backend_s(const cuzk_prove_timings *t)
{
    return t->h + t->msm_h + t->msm_l + t->msm_a + t->msm_b_g1 + t->msm_b_g2;
}

/* Device time of a proof (copies + kernel spans, from device events). */
static double device_s(const cuzk_prove_timings *t)
{
    return t->dev_h_copy + t->dev_h_kernel + t->dev_msm_copy + t->dev_msm_kernel;
}

static void print_proof(const char *what, int i, const cuzk_prove_timings *t)
{
    printf("%s i=%d spmv_s=%.3f h_ntt_s=%.3f msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f "
           "msm_b_g1_s=%.3f msm_b_g2_s=%.3f backend_s=%.3f total_s=%.3f dev_h_copy_s=%.3f "
           "dev_h_kernel_s=%.3f dev_msm_copy_s=%.3f dev_msm_kernel_s=%.3f device_s=%.3f\n",
           what, i, t->spmv, t->h, t->msm_h, t->msm_l, t->msm_a, t->msm_b_g1, t->msm_b_g2,
           backend_s(t), t->total, t->dev_h_copy, t->dev_h_kernel, t->dev_msm_copy,
           t->dev_msm_kernel, device_s(t));
}

int bench_partition(int argc, char **argv)
{
    unsigned log_n;
    cuzk_synth_params sp;
    int bad = bench_synth_args(argc, argv, "partition", "20", &log_n, &sp);
    if (bad)
        return bad;
    uint64_t n = sp.n_constraints;
    uint32_t n_public = sp.n_public;
    const char *bn = bench_arg(argc, argv, "--backend", "auto");
    const char *sbn = bench_arg(argc, argv, "--setup-backend", bn);
    int reps = atoi(bench_arg(argc, argv, "--reps", "2"));
    int nbatch = atoi(bench_arg(argc, argv, "--batch", "3"));
    if (reps < 0 || reps > MAX_REPS || nbatch < 0 || nbatch > MAX_REPS)
        return bench_die("partition",
                         cuzk_fail(CUZK_EINVAL, "--reps and --batch: expected 0..%d", MAX_REPS));

    cuzk_err e;
    cuzk_backend *be = NULL;
    if ((e = cuzk_backend_open(bn, &be)))
        return bench_die("partition: backend", e);
    int dev = cuzk_backend_device(be);
    bench_devmem *dm = bench_devmem_start(&dev, 1);
    size_t dev_peak = 0, dev_total = 0;
    printf("# partition log=%u constraints=%llu public=%u backend=%s setup_backend=%s "
           "threads=%u\n",
           log_n, (unsigned long long)n, n_public, cuzk_backend_name(be), sbn,
           cuzk_threads_count());
    fflush(stdout);

    /* 1. circuit and witness */
    double t = cuzk_now();
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_fr *w = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    int rc = 0;
    if ((e = cuzk_synth_build(&sp, 1, &cs))) {
        rc = bench_die("partition: synthesis", e);
        goto out;
    }
    double t_synth = cuzk_now() - t;
    t = cuzk_now();
    if ((e = cuzk_pce_from_r1cs(&pce, cs))) {
        rc = bench_die("partition: pce", e);
        goto out;
    }
    size_t nv = pce->n_inputs + pce->n_aux;
    if (!(w = malloc(nv * sizeof *w))) {
        rc = bench_die("partition", cuzk_fail(CUZK_ENOMEM, "witness: out of memory"));
        goto out;
    }
    memcpy(w, cuzk_r1cs_assignment(cs), nv * sizeof *w);
    cuzk_r1cs_free(cs);
    cs = NULL;
    double t_pce = cuzk_now() - t;
    size_t na = cuzk_bitmap_count(pce->a_density, nv), nb = cuzk_bitmap_count(pce->b_density, nv);
    printf("synth constraints=%llu domain=2^%u inputs=%u aux=%llu a_density=%.2f%% "
           "b_density=%.2f%% synth_s=%.2f pce_s=%.2f rss_gib=%.1f\n",
           (unsigned long long)pce->n_constraints, pce->log_domain, pce->n_inputs,
           (unsigned long long)pce->n_aux, 100.0 * (double)na / (double)nv,
           100.0 * (double)nb / (double)nv, t_synth, t_pce, gib(cuzk_peak_rss()));
    fflush(stdout);

    /* 2. setup into memory */
    cuzk_setup_options so;
    memset(&so, 0, sizeof so);
    so.basis = CUZK_H_BELLPERSON;
    so.backend = sbn;
    so.device = dev >= 0 ? dev : 0;
    so.params_out = &params;
    cuzk_setup_timings st;
    if ((e = cuzk_groth16_setup_ex(pce, NULL, NULL, NULL, &so, &st))) {
        rc = bench_die("partition: setup", e);
        goto out;
    }
    printf("setup backend=%s lagrange_s=%.2f qap_s=%.2f vk_ic_s=%.2f h_s=%.2f l_s=%.2f "
           "a_s=%.2f b_g1_s=%.2f b_g2_s=%.2f total_s=%.2f points=%zu rss_gib=%.1f\n",
           st.backend ? st.backend : sbn, st.lagrange, st.qap, st.vk, st.h, st.l, st.a, st.b_g1,
           st.b_g2, st.total,
           params.vk.n_ic + params.n_h + params.n_l + params.n_a + params.n_b_g1 + params.n_b_g2,
           gib(cuzk_peak_rss()));
    fflush(stdout);

    /* 3. proofs one at a time (the first one uploads the bases) */
    double tot[MAX_REPS + 1], bk[MAX_REPS + 1], dv[MAX_REPS + 1];
    int nrec = 0;
    for (int i = 0; i <= reps && i < MAX_REPS + 1; i++) {
        cuzk_proof proof;
        cuzk_prove_timings tm;
        if ((e = cuzk_groth16_prove(be, &params, pce, w, NULL, NULL, &proof, &tm))) {
            rc = bench_die("partition: prove", e);
            goto out;
        }
        if ((e = cuzk_groth16_verify(&params.vk, w + 1, pce->n_inputs - 1, &proof))) {
            rc = bench_die("partition: verify", e);
            goto out;
        }
        print_proof(i == 0 ? "prove-first" : "prove", i, &tm);
        fflush(stdout);
        if (i > 0 || reps == 0) {
            tot[nrec] = tm.total;
            dv[nrec] = device_s(&tm);
            bk[nrec++] = backend_s(&tm);
        }
    }

    /* 4. from the packed witness, a, b, c on the device */
    double pk_tot[MAX_REPS], pk_dv[MAX_REPS], ah_dv[MAX_REPS], pack_s = 0;
    int npk = 0, nah = 0;
    if (cuzk_backend_device_spmv(be)) {
        cuzk_wpack *wp = NULL;
        t = cuzk_now();
        if ((e = cuzk_wpack_build(w, (uint64_t)pce->n_inputs + pce->n_aux, &wp))) {
            rc = bench_die("partition: pack", e);
            goto out;
        }
        pack_s = cuzk_now() - t;
        printf("pack s=%.3f bytes=%zu dense=%llu of %llu\n", pack_s, cuzk_wpack_bytes(wp),
               (unsigned long long)wp->n_dense, (unsigned long long)wp->n);
        /* R + 1 proofs from wp ("packed"), then R + 1 uploaded ahead
         * ("packed-ahead"): wp and a second pack of w alternate, each proof
         * told the next one's */
        cuzk_wpack *wp2 = NULL;
        e = cuzk_wpack_build(w, (uint64_t)pce->n_inputs + pce->n_aux, &wp2);
        const int n = reps + 1 < MAX_REPS ? reps + 1 : MAX_REPS;
        for (int ahead = 0; ahead < 2 && !e; ahead++)
            for (int i = 0; i < n && !e; i++) {
                cuzk_proof proof;
                cuzk_prove_timings tm;
                const cuzk_wpack *cur = ahead && i % 2 ? wp2 : wp, *nx = cur == wp ? wp2 : wp;
                if (!(e = cuzk_groth16_prove_packed_next(be, &params, pce, w, cur,
                                                         ahead && i + 1 < n ? nx : NULL, NULL, NULL,
                                                         &proof, &tm)))
                    e = cuzk_groth16_verify(&params.vk, w + 1, pce->n_inputs - 1, &proof);
                if (e)
                    break;
                print_proof(ahead ? "packed-ahead" : i == 0 ? "packed-first" : "packed", i, &tm);
                fflush(stdout);
                if (ahead && i > 0) {
                    ah_dv[nah++] = device_s(&tm);
                } else if (!ahead && (i > 0 || reps == 0)) {
                    pk_tot[npk] = tm.total;
                    pk_dv[npk++] = device_s(&tm);
                }
            }
        cuzk_backend_packed_drop(be);
        cuzk_wpack_free(wp2);
        cuzk_wpack_free(wp);
        if (e) {
            rc = bench_die("partition: prove packed", e);
            goto out;
        }
    }

    /* 5. a pipelined batch */
    double batch_wall = 0;
    if (nbatch > 0) {
        const cuzk_fr *ws[MAX_REPS];
        cuzk_proof proofs[MAX_REPS];
        cuzk_prove_timings tms[MAX_REPS];
        for (int i = 0; i < nbatch; i++)
            ws[i] = w;
        t = cuzk_now();
        if ((e = cuzk_groth16_prove_batch(be, &params, pce, ws, (size_t)nbatch, NULL, NULL, proofs,
                                          tms, NULL))) {
            rc = bench_die("partition: batch", e);
            goto out;
        }
        batch_wall = cuzk_now() - t;
        for (int i = 0; i < nbatch; i++) {
            if ((e = cuzk_groth16_verify(&params.vk, w + 1, pce->n_inputs - 1, &proofs[i]))) {
                rc = bench_die("partition: batch verify", e);
                goto out;
            }
            print_proof("batch", i, &tms[i]);
        }
    }
    bench_devmem_stop(dm, &dev_peak, &dev_total);
    printf("partition log=%u constraints=%llu backend=%s proofs_verified=%d "
           "prove_total_s=%.3f backend_s=%.3f device_s=%.3f batch=%d batch_s_per_proof=%.3f "
           "pack_s=%.3f packed_total_s=%.3f packed_device_s=%.3f packed_ahead_device_s=%.3f "
           "peak_rss_gib=%.1f peak_device_gib=%.1f device_total_gib=%.1f\n",
           log_n, (unsigned long long)pce->n_constraints, cuzk_backend_name(be),
           reps + 1 + nbatch + (npk ? 2 * (reps + 1) : 0), nrec ? bench_median(tot, nrec) : 0.0,
           nrec ? bench_median(bk, nrec) : 0.0, nrec ? bench_median(dv, nrec) : 0.0, nbatch,
           nbatch ? batch_wall / nbatch : 0.0, pack_s, npk ? bench_median(pk_tot, npk) : 0.0,
           npk ? bench_median(pk_dv, npk) : 0.0, nah ? bench_median(ah_dv, nah) : 0.0,
           gib(cuzk_peak_rss()), gib(dev_peak), gib(dev_total));
out:
    bench_devmem_free(dm);
    cuzk_params_free(&params);
    free(w);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    cuzk_backend_close(be);
    return rc;
}
