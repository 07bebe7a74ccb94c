/* cuzk-bench post: a Filecoin PoSt partition end to end, in memory, and
 * WinningPoSt latency on an engine that is busy with a synthetic job.
 *
 *   cuzk-bench post --registered-proof N [--backend B] [--setup-backend B]
 *                   [--reps R] [--sectors K] [--seed S]
 *                   [--load-log L --load-partitions P [--winning W]]
 *
 * 1. The circuit's constraint system (one sector recorded, then tiled), its
 *    parameters by a setup straight into memory (no 40 GB .params file for
 *    a 32 GiB WindowPoSt), and synthetic sectors (gen.h) encoded as the
 *    bincode vanilla proofs Curio sends (K sectors; default a full
 *    partition).
 * 2. R requests proved one after the other, each timed by phase as the
 *    daemon runs them: decode (bincode), check (paths' shapes, challenges,
 *    roots, comm_r: cuzk_post_partition_build_unhashed, the paths being
 *    hashed by the witness), witness (all cores), SpMV (on a
 *    backend that computes a, b, c itself, the GPU: the witness's pack
 *    instead, the SpMV being part of the device time), the backend's H and
 *    MSMs (the GPU's part), and verify; total = request to verified proof
 *    bytes.
 * 3. With --load-log: an engine (jobs.h) on the backend proves one
 *    SYNTHETIC job of P partitions of about 2^L constraints; while it runs,
 *    W WinningPoSt requests of this proof type (a Winning number is
 *    required) are submitted at CRITICAL one after the other, each timed
 *    from submission to its verified proof; the same W before the load
 *    give the idle figure. The synthetic parameters are made in memory as
 *    in `cuzk-bench engine`. */
#define _GNU_SOURCE
#include "cmd/bench.h"
#include "cuzk/gen.h"
#include "cuzk/groth16.h"
#include "cuzk/jobs.h"
#include "cuzk/pce.h"
#include "cuzk/post.h"
#include "cuzk/srs.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"
#include "cuzk/wpack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    uint8_t **bytes;
    size_t *sizes, n;
} vanilla_set;

static void vanilla_free(vanilla_set *v)
{
    for (size_t i = 0; i < v->n; i++)
        free(v->bytes[i]);
    free(v->bytes);
    free(v->sizes);
    memset(v, 0, sizeof *v);
}

/* Synthetic sectors, as bytes on the wire. */
static cuzk_err make_vanilla(const cuzk_fc_proof *fp, const uint8_t r[32], uint64_t seed, size_t n,
                             vanilla_set *out)
{
    memset(out, 0, sizeof *out);
    cuzk_post_sector_proof *v = calloc(n, sizeof *v);
    out->bytes = calloc(n, sizeof *out->bytes);
    out->sizes = calloc(n, sizeof *out->sizes);
    if (!v || !out->bytes || !out->sizes) {
        free(v);
        vanilla_free(out);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    cuzk_err e = cuzk_gen_post_partition(fp, r, seed, 0, 1, n, v);
    for (size_t i = 0; i < n && !e; i++, out->n++)
        e = cuzk_post_sector_proof_encode(&v[i], &out->bytes[i], &out->sizes[i]);
    for (size_t i = 0; i < n; i++) /* zeroed (calloc, or freed on failure) ones free nothing */
        cuzk_post_sector_proof_free(&v[i]);
    free(v);
    if (e)
        vanilla_free(out);
    return e;
}

typedef struct {
    double decode, check, witness, spmv, backend, device, verify, total;
    /* the device time by part (copies and kernels of H and of the MSMs), and
     * each MSM's backend time: where a partition's GPU time goes */
    double h_copy, h_kernel, msm_copy, msm_kernel, msm[5];
} post_times;

/* One request as the daemon runs it, timed by phase. */
static cuzk_err prove_once(const cuzk_fc_proof *fp, const uint8_t r[32], const vanilla_set *vs,
                           cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                           post_times *t)
{
    memset(t, 0, sizeof *t);
    double t0 = cuzk_now(), t1;
    cuzk_post_sector_proof *v = calloc(vs->n, sizeof *v);
    cuzk_post_partition part;
    memset(&part, 0, sizeof part);
    cuzk_fr *w = NULL;
    size_t nw = 0;
    if (!v)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    cuzk_err e = CUZK_OK;
    if (vs->n)
        e = cuzk_post_sector_proofs_decode((const uint8_t *const *)vs->bytes, vs->sizes, vs->n,
                                           "vanilla_proofs", v); /* as the daemon */
    t->decode = (t1 = cuzk_now()) - t0;
    if (!e)
        e = cuzk_post_partition_build_unhashed(fp, r, 0, v, vs->n, &part); /* as the daemon */
    t->check = cuzk_now() - t1;
    t1 = cuzk_now();
    if (!e)
        e = cuzk_post_witness(&part, &w, &nw);
    t->witness = cuzk_now() - t1;
    cuzk_proof proof;
    cuzk_prove_timings tm;
    memset(&tm, 0, sizeof tm);
    double pack_s = -1;
    if (!e && cuzk_backend_device_spmv(be)) {
        /* the device computes a, b, c: the host's share is the pack */
        cuzk_wpack *wp = NULL;
        t1 = cuzk_now();
        if (!(e = cuzk_wpack_build(w, nw, &wp))) {
            pack_s = cuzk_now() - t1;
            e = cuzk_groth16_prove_packed(be, params, pce, w, wp, NULL, NULL, &proof, &tm);
        }
        cuzk_wpack_free(wp);
    } else if (!e) {
        e = cuzk_groth16_prove(be, params, pce, w, NULL, NULL, &proof, &tm);
    }
    t->spmv = pack_s >= 0 ? pack_s : tm.spmv;
    t->backend = tm.h + tm.msm_h + tm.msm_l + tm.msm_a + tm.msm_b_g1 + tm.msm_b_g2;
    t->device = tm.dev_h_copy + tm.dev_h_kernel + tm.dev_msm_copy + tm.dev_msm_kernel;
    t->h_copy = tm.dev_h_copy, t->h_kernel = tm.dev_h_kernel;
    t->msm_copy = tm.dev_msm_copy, t->msm_kernel = tm.dev_msm_kernel;
    t->msm[0] = tm.msm_h, t->msm[1] = tm.msm_l, t->msm[2] = tm.msm_a;
    t->msm[3] = tm.msm_b_g1, t->msm[4] = tm.msm_b_g2;
    t->total = cuzk_now() - t0;
    t1 = cuzk_now();
    if (!e)
        e = cuzk_groth16_verify(&params->vk, w + 1, pce->n_inputs - 1, &proof);
    t->verify = cuzk_now() - t1;
    free(w);
    cuzk_post_partition_free(&part);
    for (size_t i = 0; i < vs->n; i++)
        cuzk_post_sector_proof_free(&v[i]);
    free(v);
    return e;
}

/* W WinningPoSt jobs at CRITICAL, one after the other: request to proof. */
static cuzk_err winning_round(cuzk_jobs *eng, const cuzk_fc_proof *fp, const uint8_t r[32],
                              const vanilla_set *vs, int w, const char *label)
{
    double lat[MAX_REPS];
    for (int i = 0; i < w; i++) {
        cuzk_job_request q;
        memset(&q, 0, sizeof q);
        q.kind = CUZK_KIND_WINNING_POST;
        q.priority = CUZK_PRIO_CRITICAL;
        q.registered_proof = fp->number;
        q.vanilla_proofs = (const uint8_t *const *)vs->bytes;
        q.vanilla_sizes = vs->sizes;
        q.n_vanilla = vs->n;
        q.randomness = r;
        q.randomness_len = 32;
        char id[CUZK_JOB_ID_MAX];
        uint32_t pos;
        int existing;
        double t0 = cuzk_now();
        CUZK_TRY(cuzk_jobs_submit(eng, &q, id, &pos, &existing));
        cuzk_job_result res;
        CUZK_TRY(cuzk_jobs_await(eng, id, 0, NULL, &res));
        lat[i] = cuzk_now() - t0;
        printf("winning %s i=%d status=%d latency_s=%.3f queue_ms=%llu synthesis_ms=%llu "
               "prove_ms=%llu verify_ms=%llu%s%s\n",
               label, i, res.status, lat[i], (unsigned long long)res.queue_wait_ms,
               (unsigned long long)res.synthesis_ms, (unsigned long long)res.prove_ms,
               (unsigned long long)res.verify_ms, res.error[0] ? " error=" : "", res.error);
        fflush(stdout);
        int ok = res.status == CUZK_JOB_COMPLETED;
        cuzk_job_result_free(&res);
        if (!ok)
            return cuzk_fail(CUZK_EINTERNAL, "a WinningPoSt job did not complete");
    }
    double m = bench_median(lat, w), worst = 0;
    for (int i = 0; i < w; i++)
        worst = lat[i] > worst ? lat[i] : worst;
    printf("winning %s n=%d median_latency_s=%.3f max_latency_s=%.3f\n", label, w, m, worst);
    fflush(stdout);
    return CUZK_OK;
}

/* Section 3: the engine with the synthetic load, WinningPoSt idle then
 * under it. params/pce are moved into the engine's SRS manager. */
static cuzk_err under_load(int argc, char **argv, const cuzk_fc_proof *fp, const uint8_t r[32],
                           const vanilla_set *vs, const char *bn, cuzk_params *params,
                           cuzk_pce **pce)
{
    /* The load: a synthetic circuit of 97 % of 2^L constraints, as
     * `cuzk-bench engine --log L` makes it (a 32 GiB PoRep partition fills
     * that share of its 2^27 domain). */
    unsigned log_n = (unsigned)atoi(bench_arg(argc, argv, "--load-log", "20"));
    if (log_n < 10 || log_n > 28)
        return cuzk_fail(CUZK_EINVAL, "--load-log %u: expected 10..28", log_n);
    cuzk_synth_params sp = {
        .n_constraints = ((uint64_t)1 << log_n) / 100 * 97, .n_public = 4, .seed = 1};
    int parts = atoi(bench_arg(argc, argv, "--load-partitions", "10"));
    int w = atoi(bench_arg(argc, argv, "--winning", "5"));
    if (fp->family != CUZK_FC_WINNING || w < 1 || w > MAX_REPS || parts < 1 ||
        parts > CUZK_JOB_MAX_PARTITIONS)
        return cuzk_fail(CUZK_EINVAL,
                         "--load-log needs a WinningPoSt --registered-proof, "
                         "--winning 1..%d and --load-partitions 1..%d",
                         MAX_REPS, CUZK_JOB_MAX_PARTITIONS);
    double t = cuzk_now();
    cuzk_srs_manager *srs = NULL;
    cuzk_jobs *eng = NULL;
    cuzk_err e = cuzk_srs_manager_new(".", 0, &srs);
    if (!e)
        e = bench_synthetic_adopt(&sp, bn, 0, srs);
    if (!e && !(e = cuzk_srs_adopt(srs, fp->circuit_id, params, *pce)))
        *pce = NULL;
    if (e)
        goto out;
    printf("load constraints=%llu partitions=%d setup_s=%.2f\n",
           (unsigned long long)sp.n_constraints, parts, cuzk_now() - t);
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = bn,
                            .verify_proofs = 1,
                            .param_dir = ".",
                            .retain = 64,
                            .max_queued = 64,
                            .max_queued_bytes = (uint64_t)1 << 30,
                            .max_synthetic = sp.n_constraints,
                            .synthesis_workers = 2};
    if ((e = cuzk_jobs_new(&cfg, srs, &eng)))
        goto out;
    if ((e = winning_round(eng, fp, r, vs, w, "idle")))
        goto out;
    cuzk_job_request q;
    memset(&q, 0, sizeof q);
    q.kind = CUZK_KIND_SYNTHETIC;
    q.synthetic_constraints = sp.n_constraints;
    q.synthetic_public_inputs = sp.n_public;
    q.synthetic_seed = sp.seed;
    q.synthetic_partitions = (uint32_t)parts;
    char load_id[CUZK_JOB_ID_MAX];
    uint32_t pos;
    int existing;
    if ((e = cuzk_jobs_submit(eng, &q, load_id, &pos, &existing)))
        goto out;
    /* Once the load's first partition is on the prove worker. */
    for (int i = 0; i < 6000; i++) {
        cuzk_jobs_status st;
        int proving = 0;
        if (!cuzk_jobs_status_get(eng, &st)) {
            proving = st.proving > 0;
            cuzk_jobs_status_free(&st);
        }
        if (proving)
            break;
        struct timespec ts = {0, 10000000L};
        nanosleep(&ts, NULL);
    }
    if ((e = winning_round(eng, fp, r, vs, w, "loaded")))
        goto out;
    cuzk_job_result res;
    if (!(e = cuzk_jobs_await(eng, load_id, 0, NULL, &res))) {
        printf("load status=%d total_ms=%llu prove_ms=%llu prove_s_per_partition=%.3f\n",
               res.status, (unsigned long long)res.total_ms, (unsigned long long)res.prove_ms,
               (double)res.prove_ms / 1000.0 / parts);
        cuzk_job_result_free(&res);
    }
out:
    cuzk_jobs_free(eng);
    cuzk_srs_manager_free(srs);
    return e;
}

cuzk_err bench_setup_memory(const cuzk_pce *pce, double pce_s, const char *setup_backend,
                            cuzk_backend *be, cuzk_params *params)
{
    printf("circuit constraints=%llu inputs=%u aux=%llu domain=2^%u pce_s=%.2f\n",
           (unsigned long long)pce->n_constraints, pce->n_inputs, (unsigned long long)pce->n_aux,
           pce->log_domain, pce_s);
    fflush(stdout);
    double t = cuzk_now();
    cuzk_setup_options so = {.basis = CUZK_H_BELLPERSON,
                             .backend = setup_backend,
                             .device = cuzk_backend_device(be) >= 0 ? cuzk_backend_device(be) : 0,
                             .params_out = params};
    CUZK_TRY(cuzk_groth16_setup_ex(pce, NULL, NULL, NULL, &so, NULL));
    printf("setup_s=%.2f\n", cuzk_now() - t);
    fflush(stdout);
    return CUZK_OK;
}

int bench_post(int argc, char **argv)
{
    const char *num = bench_arg(argc, argv, "--registered-proof", NULL);
    const cuzk_fc_proof *fp = num ? cuzk_fc_post(strtoull(num, NULL, 0)) : NULL;
    if (!fp)
        return bench_die("post", cuzk_fail(CUZK_EINVAL, "--registered-proof: a RegisteredPoStProof "
                                                        "number 0..14 is needed"));
    const char *bn = bench_arg(argc, argv, "--backend", "auto");
    const char *sbn = bench_arg(argc, argv, "--setup-backend", bn);
    int reps = atoi(bench_arg(argc, argv, "--reps", "3"));
    uint64_t seed = strtoull(bench_arg(argc, argv, "--seed", "1"), NULL, 0);
    size_t max = fp->family == CUZK_FC_WINNING ? 1 : fp->sectors;
    size_t n = (size_t)strtoull(bench_arg(argc, argv, "--sectors", "0"), NULL, 0);
    if (!n)
        n = max;
    if (reps < 1 || reps > MAX_REPS || n > max)
        return bench_die("post",
                         cuzk_fail(CUZK_EINVAL, "--reps 1..%d, --sectors 1..%zu", MAX_REPS, max));
    uint8_t r[32];
    for (int i = 0; i < 32; i++)
        r[i] = (uint8_t)(0x5a ^ i);
    r[31] &= 0x3f;
    cuzk_backend *be = NULL;
    cuzk_err e = cuzk_backend_open(bn, &be);
    if (e)
        return bench_die("post: backend", e);
    printf("# post %s (%s) sectors=%zu backend=%s setup_backend=%s threads=%u\n", fp->name,
           fp->circuit_id, n, cuzk_backend_name(be), sbn, cuzk_threads_count());
    fflush(stdout);
    int rc = 0;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    vanilla_set vs = {0};
    double t = cuzk_now();
    if ((e = cuzk_post_record_pce(fp, NULL, NULL, &pce))) {
        rc = bench_die("post: constraint system", e);
        goto out;
    }
    if ((e = bench_setup_memory(pce, cuzk_now() - t, sbn, be, &params))) {
        rc = bench_die("post: setup", e);
        goto out;
    }
    t = cuzk_now();
    if ((e = make_vanilla(fp, r, seed, n, &vs))) {
        rc = bench_die("post: sectors", e);
        goto out;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < vs.n; i++)
        bytes += vs.sizes[i];
    printf("sectors n=%zu vanilla_bytes=%zu gen_s=%.2f\n", vs.n, bytes, cuzk_now() - t);
    fflush(stdout);
    double tot[MAX_REPS], dev[MAX_REPS], wit[MAX_REPS];
    for (int i = 0; i < reps; i++) {
        post_times pt;
        if ((e = prove_once(fp, r, &vs, be, &params, pce, &pt))) {
            rc = bench_die("post: prove", e);
            goto out;
        }
        printf("request i=%d decode_s=%.3f check_s=%.3f witness_s=%.3f spmv_s=%.3f "
               "backend_s=%.3f device_s=%.3f total_s=%.3f verify_s=%.3f device_h_copy_s=%.3f "
               "device_h_kernel_s=%.3f device_msm_copy_s=%.3f device_msm_kernel_s=%.3f "
               "msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f msm_b_g1_s=%.3f msm_b_g2_s=%.3f\n",
               i, pt.decode, pt.check, pt.witness, pt.spmv, pt.backend, pt.device, pt.total,
               pt.verify, pt.h_copy, pt.h_kernel, pt.msm_copy, pt.msm_kernel, pt.msm[0], pt.msm[1],
               pt.msm[2], pt.msm[3], pt.msm[4]);
        fflush(stdout);
        tot[i] = pt.total, dev[i] = pt.device, wit[i] = pt.witness;
    }
    int later = reps > 1 ? reps - 1 : reps; /* the first request uploads the parameters */
    printf("post %s sectors=%zu constraints=%llu backend=%s proofs_verified=%d "
           "total_s=%.3f device_s=%.3f witness_s=%.3f peak_rss_gib=%.1f\n",
           fp->circuit_id, n, (unsigned long long)pce->n_constraints, cuzk_backend_name(be), reps,
           bench_median(tot + (reps - later), later), bench_median(dev + (reps - later), later),
           bench_median(wit + (reps - later), later),
           (double)cuzk_peak_rss() / (1024.0 * 1024.0 * 1024.0));
    fflush(stdout);
    if (bench_arg(argc, argv, "--load-log", NULL) &&
        (e = under_load(argc, argv, fp, r, &vs, bn, &params, &pce)))
        rc = bench_die("post: under load", e);
out:
    vanilla_free(&vs);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    cuzk_backend_close(be);
    return rc;
}
