/* cuzk-bench porep: a Filecoin PoRep C2 (StackedDrg) in memory, by phase,
 * and sustained through the engine.
 *
 *   cuzk-bench porep --registered-proof N [--backend B] [--setup-backend B]
 *                    [--seed S] [--partitions K] [--jobs J]
 *                    [--witness-only | --synthesis-only]
 *                    [--synthesis-workers W] [--budget auto|NGiB] [--host-spmv]
 *
 * 1. The partition circuit's constraint system (the top and one challenge
 *    recorded, the rest tiled), its parameters by a setup straight into
 *    memory (no 44 GiB .params file on disk), and a sparse C1 output of
 *    the registered proof's sector size (gen.h cuzk_gen_porep) in Curio's
 *    envelope.
 * 2. One request as the daemon runs it, partition after partition with no
 *    overlap: decode (envelope, JSON, every value checked), then per
 *    partition (the first K; default all) witness (challenges on all
 *    cores), SpMV, the backend's H and MSMs, verify. On a backend that
 *    computes a, b, c itself (the GPU) the witness is packed instead of
 *    the SpMV (spmv_s is then the pack; --host-spmv: the SpMV on the host
 *    as before, in the engine of section 3 too). The sum is the
 *    latency of a proof on an idle machine without the engine's overlap.
 *    --witness-only skips the circuit's parameters and the proofs: the C1
 *    and the witnesses alone; --synthesis-only also records the constraint
 *    system and runs each partition's SpMV (a, b, c): the CPU's whole share
 *    of a partition, no GPU.
 * 3. With --jobs J: an engine (jobs.h) with the circuit adopted proves J
 *    POREP_SEAL_COMMIT requests of that C1, all submitted at once: per job
 *    its end time and phases; sustained s/proof (between the first and the
 *    last job's end), GPU busy, synthesis and prove time per partition,
 *    peak host RSS and peak device memory. */
#define _GNU_SOURCE
#include "cmd/bench.h"
#include "cuzk/c1.h"
#include "cuzk/curio.h"
#include "cuzk/gen.h"
#include "cuzk/groth16.h"
#include "cuzk/jobs.h"
#include "cuzk/mem.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/srs.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

/* Section 2: the request decoded, then each partition proved. */
static cuzk_err single(const char *env, size_t env_len, uint64_t miner, uint64_t sector,
                       unsigned parts, cuzk_backend *be, const cuzk_params *params,
                       const cuzk_pce *pce, int packed)
{
    double t0 = cuzk_now(), sum_w = 0, sum_dev = 0, sum_spmv = 0;
    cuzk_curio_c1 cc;
    cuzk_c1 *c1 = NULL;
    uint8_t prover[32];
    cuzk_gen_prover_id(miner, prover);
    cuzk_c1_expect x = {.prover_id = prover, .sector_id = sector};
    CUZK_TRY(cuzk_curio_c1_decode((const uint8_t *)env, env_len, &cc));
    cuzk_err e = cuzk_c1_from_json((const char *)cc.c1, cc.c1_len, &x, &c1);
    cuzk_curio_c1_free(&cc);
    printf("request decode_s=%.3f\n", cuzk_now() - t0);
    fflush(stdout);
    /* Without parameters but with the constraint system: the SpMV alone,
     * into buffers kept for every partition (as the engine pools them). */
    cuzk_fr *abc[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3 && !params && pce && !e; i++)
        if (!(abc[i] = malloc(pce->n_constraints * sizeof *abc[i])))
            e = cuzk_fail(CUZK_ENOMEM, "out of memory for a, b, c");
    /* Each partition's witness goes into the last one's buffer, as the
     * engine's pool hands it on within a job. */
    cuzk_fr *keep = NULL;
    size_t keep_n = 0;
    for (unsigned k = 0; k < parts && !e; k++) {
        cuzk_porep_values v;
        cuzk_fr *w = NULL;
        size_t nw = 0;
        cuzk_wbuf offer = {keep, keep_n};
        double t1 = cuzk_now(), tw = 0, tv = 0;
        cuzk_proof proof;
        cuzk_prove_timings tm;
        memset(&tm, 0, sizeof tm);
        if (!(e = cuzk_c1_partition(c1, k, &v)) &&
            !(e = cuzk_porep_witness_into(&c1->shape, &v, &offer, &w, &nw))) {
            if (w != keep)
                free(keep);
            keep = w;
            keep_n = nw;
            tw = cuzk_now() - t1;
            if (params && packed) {
                /* the device computes a, b, c: the CPU's share is the pack */
                double t2 = cuzk_now();
                cuzk_wpack *wp = NULL;
                if (!(e = cuzk_wpack_build(w, nw, &wp))) {
                    double tp = cuzk_now() - t2;
                    e = cuzk_groth16_prove_packed(be, params, pce, w, wp, NULL, NULL, &proof, &tm);
                    tm.spmv = tp;
                }
                cuzk_wpack_free(wp);
            } else if (params) {
                e = cuzk_groth16_prove(be, params, pce, w, NULL, NULL, &proof, &tm);
            } else if (pce) {
                double t2 = cuzk_now();
                e = cuzk_pce_spmv(pce, w, abc[0], abc[1], abc[2]);
                tm.spmv = cuzk_now() - t2;
            }
        }
        if (!e && params) {
            double t2 = cuzk_now();
            e = cuzk_groth16_verify(&params->vk, w + 1, pce->n_inputs - 1, &proof);
            tv = cuzk_now() - t2;
        }
        double dev = tm.dev_h_copy + tm.dev_h_kernel + tm.dev_msm_copy + tm.dev_msm_kernel;
        if (!e)
            printf("partition k=%u witness_s=%.3f spmv_s=%.3f h_s=%.3f msm_s=%.3f device_s=%.3f "
                   "verify_s=%.3f total_s=%.3f\n",
                   k, tw, tm.spmv, tm.h, tm.msm_h + tm.msm_l + tm.msm_a + tm.msm_b_g1 + tm.msm_b_g2,
                   dev, tv, cuzk_now() - t1);
        fflush(stdout);
        sum_w += tw, sum_dev += dev, sum_spmv += tm.spmv;
    }
    free(keep);
    for (int i = 0; i < 3; i++)
        free(abc[i]);
    if (!e)
        printf(
            "single partitions=%u proofs_verified=%u latency_s=%.2f witness_s_per_partition=%.3f "
            "spmv_s_per_partition=%.3f device_s_per_partition=%.3f peak_rss_gib=%.1f\n",
            parts, params ? parts : 0, cuzk_now() - t0, sum_w / parts, sum_spmv / parts,
            sum_dev / parts, (double)cuzk_peak_rss() / GIB);
    cuzk_c1_free(c1);
    return e;
}

/* Section 3: J jobs of the request q (its inputs about `bytes`) through an
 * engine that adopts params and pce (bench.h). */
cuzk_err bench_sustained(const cuzk_fc_proof *fp, const cuzk_job_request *q, size_t bytes,
                         const bench_fc_opts *o, cuzk_params *params, cuzk_pce **pce)
{
    int jobs = o->jobs;
    uint64_t budget = o->budget;
    cuzk_srs_manager *srs = NULL;
    cuzk_jobs *eng = NULL;
    bench_devmem *dm = NULL;
    char(*ids)[CUZK_JOB_ID_MAX] = calloc((size_t)jobs, sizeof *ids);
    double *t_end = calloc((size_t)jobs, sizeof *t_end);
    cuzk_err e = ids && t_end ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_srs_manager_new(".", budget, &srs);
    if (!e && !(e = cuzk_srs_adopt(srs, fp->circuit_id, params, *pce)))
        *pce = NULL;
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = o->backend,
                            .verify_proofs = 1,
                            .param_dir = ".",
                            .retain = (size_t)jobs + 1,
                            .max_queued = (size_t)jobs + 1,
                            .max_queued_bytes = (uint64_t)jobs * (bytes + 4096),
                            .synthesis_workers = o->synthesis_workers,
                            .host_spmv = o->host_spmv,
                            .memory_budget = budget,
                            .mem_sample_ms = 20};
    if (!e)
        e = cuzk_jobs_new(&cfg, srs, &eng);
    cuzk_jobs_status st;
    int ords[CUZK_JOBS_MAX_DEVICES];
    size_t n_devs = 0;
    if (!e && !(e = cuzk_jobs_status_get(eng, &st))) {
        n_devs = st.n_devices;
        for (size_t d = 0; d < n_devs; d++)
            ords[d] = st.devices[d].ordinal;
        cuzk_jobs_status_free(&st);
        dm = bench_devmem_start(ords, n_devs);
    }
    double t0 = cuzk_now(), dev_first = 0, syn_ms = 0, prove_ms = 0;
    for (int i = 0; i < jobs && !e; i++) {
        uint32_t pos;
        int existing;
        e = cuzk_jobs_submit(eng, q, ids[i], &pos, &existing);
    }
    int completed = 0;
    for (int i = 0; i < jobs && !e; i++) {
        cuzk_job_result res;
        if ((e = cuzk_jobs_await(eng, ids[i], 0, NULL, &res)))
            break;
        t_end[i] = cuzk_now() - t0;
        printf("job %d status=%d end_s=%.2f queue_ms=%llu synthesis_ms=%llu prove_ms=%llu "
               "verify_ms=%llu total_ms=%llu proof_bytes=%zu%s%s\n",
               i, res.status, t_end[i], (unsigned long long)res.queue_wait_ms,
               (unsigned long long)res.synthesis_ms, (unsigned long long)res.prove_ms,
               (unsigned long long)res.verify_ms, (unsigned long long)res.total_ms, res.proof_size,
               res.error[0] ? " error=" : "", res.error);
        fflush(stdout);
        completed += res.status == CUZK_JOB_COMPLETED;
        syn_ms += (double)res.synthesis_ms;
        prove_ms += (double)res.prove_ms;
        cuzk_job_result_free(&res);
        if (i == 0 && !cuzk_jobs_status_get(eng, &st)) {
            for (size_t d = 0; d < st.n_devices; d++)
                dev_first += st.devices[d].device_s;
            cuzk_jobs_status_free(&st);
        }
    }
    size_t peak[CUZK_JOBS_MAX_DEVICES] = {0}, total[CUZK_JOBS_MAX_DEVICES] = {0};
    if (dm)
        bench_devmem_stop(dm, peak, total);
    if (!e && !(e = cuzk_jobs_status_get(eng, &st))) {
        double dev_s = 0, peak_dev = 0;
        for (size_t d = 0; d < st.n_devices; d++) {
            dev_s += st.devices[d].device_s;
            peak_dev = (double)peak[d] > peak_dev ? (double)peak[d] : peak_dev;
        }
        double span = jobs > 1 ? t_end[jobs - 1] - t_end[0] : t_end[0];
        double nd = st.n_devices ? (double)st.n_devices : 1.0;
        unsigned parts = fp->partitions;
        printf("sustained %s jobs=%d completed=%d partitions=%u first_proof_s=%.2f "
               "steady_s_per_proof=%.2f steady_gpu_busy=%.3f synthesis_s_per_partition=%.2f "
               "prove_s_per_partition=%.2f peak_rss_gib=%.1f peak_device_gib=%.1f\n",
               fp->circuit_id, jobs, completed, parts, t_end[0],
               jobs > 1 ? span / (jobs - 1) : span,
               jobs > 1 ? (dev_s - dev_first) / (span * nd) : dev_s / (span * nd),
               syn_ms / 1000.0 / (jobs * parts), prove_ms / 1000.0 / (jobs * parts),
               (double)st.mem.peak_rss / GIB, peak_dev / GIB);
        cuzk_jobs_status_free(&st);
        if (completed != jobs)
            e = cuzk_fail(CUZK_EVERIFY, "%d of %d jobs completed", completed, jobs);
    }
    cuzk_jobs_free(eng);
    bench_devmem_free(dm);
    cuzk_srs_manager_free(srs);
    free(ids);
    free(t_end);
    return e;
}

int bench_fc_opts_parse(int argc, char **argv, const cuzk_fc_proof *fp, bench_fc_opts *o)
{
    o->backend = bench_arg(argc, argv, "--backend", "auto");
    o->setup_backend = bench_arg(argc, argv, "--setup-backend", o->backend);
    o->seed = strtoull(bench_arg(argc, argv, "--seed", "1"), NULL, 0);
    o->partitions = (unsigned)atoi(bench_arg(argc, argv, "--partitions", "0"));
    o->jobs = atoi(bench_arg(argc, argv, "--jobs", "0"));
    o->synthesis_workers = (unsigned)atoi(bench_arg(argc, argv, "--synthesis-workers", "2"));
    o->host_spmv = bench_flag(argc, argv, "--host-spmv");
    const char *bs = bench_arg(argc, argv, "--budget", "auto");
    o->budget =
        !strcmp(bs, "auto") ? cuzk_mem_available() / 10 * 9 : strtoull(bs, NULL, 0) * (uint64_t)GIB;
    if (!o->partitions)
        o->partitions = fp->partitions;
    if (o->partitions > fp->partitions || o->jobs < 0 || o->jobs > 1000 ||
        o->synthesis_workers < 1 || !o->budget) {
        cuzk_fail(CUZK_EINVAL,
                  "--partitions 1..%u, --jobs 0..1000, --synthesis-workers >= 1, "
                  "--budget auto|GiB",
                  fp->partitions);
        return -1;
    }
    return 0;
}

int bench_fc_start(int argc, char **argv, const char *what, cuzk_fc_family fam, const char *opt,
                   const cuzk_fc_proof **fp, bench_fc_opts *o, cuzk_backend **be)
{
    const char *num = bench_arg(argc, argv, opt, NULL);
    *fp = num ? cuzk_fc_find(fam, strtoull(num, NULL, 0)) : NULL;
    *be = NULL;
    if (!*fp)
        return bench_die(what,
                         cuzk_fail(CUZK_EINVAL,
                                   "%s: the number of a registered %s proof is needed (see cuzk "
                                   "filecoin list)",
                                   opt, cuzk_fc_family_name(fam)));
    if (bench_fc_opts_parse(argc, argv, *fp, o))
        return bench_die(what, CUZK_EINVAL);
    cuzk_err e = cuzk_backend_open(o->backend, be);
    if (e)
        return bench_die(what, e);
    printf("# %s %s (%s) backend=%s setup_backend=%s threads=%u partitions=%u jobs=%d\n", what,
           (*fp)->name, (*fp)->circuit_id, cuzk_backend_name(*be), o->setup_backend,
           cuzk_threads_count(), o->partitions, o->jobs);
    fflush(stdout);
    return 0;
}

int bench_porep(int argc, char **argv)
{
    const cuzk_fc_proof *fp;
    bench_fc_opts fo;
    cuzk_backend *be = NULL;
    int rc = bench_fc_start(argc, argv, "porep", CUZK_FC_SEAL, "--registered-proof", &fp, &fo, &be);
    if (rc)
        return rc;
    const uint64_t miner = 1000, sector = 1;
    cuzk_err e;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    cuzk_c1 *c1 = NULL;
    char *json = NULL, *env = NULL;
    size_t len = 0;
    cuzk_porep_shape shape;
    double t = cuzk_now();
    int witness_only = bench_flag(argc, argv, "--witness-only");
    int synthesis_only = bench_flag(argc, argv, "--synthesis-only");
    if (witness_only)
        goto c1;
    if ((e = cuzk_porep_shape_of(fp, &shape)) || (e = cuzk_porep_record_pce(&shape, &pce))) {
        rc = bench_die("porep: constraint system", e);
        goto out;
    }
    if (synthesis_only) {
        printf("circuit constraints=%llu pce_s=%.2f\n", (unsigned long long)pce->n_constraints,
               cuzk_now() - t);
        witness_only = 1; /* no parameters, no proofs */
        goto c1;
    }
    if ((e = bench_setup_memory(pce, cuzk_now() - t, fo.setup_backend, be, &params))) {
        rc = bench_die("porep: setup", e);
        goto out;
    }
c1:
    t = cuzk_now();
    cuzk_gen_porep_params gp = {.registered_proof = fp->number,
                                .seed = fo.seed,
                                .miner_id = miner,
                                .sector_number = sector};
    if ((e = cuzk_gen_porep(&gp, &c1)) || (e = cuzk_c1_to_json(c1, &json, &len)) ||
        (e = cuzk_curio_c1_encode((int64_t)sector, fp->sector_size, (const uint8_t *)json, len,
                                  &env))) {
        rc = bench_die("porep: C1", e);
        goto out;
    }
    size_t env_len = strlen(env);
    printf("c1 json_bytes=%zu envelope_bytes=%zu gen_s=%.2f\n", len, env_len, cuzk_now() - t);
    fflush(stdout);
    if ((e = single(env, env_len, miner, sector, fo.partitions, be, witness_only ? NULL : &params,
                    pce, !fo.host_spmv && cuzk_backend_device_spmv(be)))) {
        rc = bench_die("porep: single", e);
        goto out;
    }
    cuzk_backend_close(be); /* the engine opens its own */
    be = NULL;
    const uint8_t *vp[1] = {(const uint8_t *)env};
    size_t vs[1] = {env_len};
    cuzk_job_request q = {.kind = CUZK_KIND_POREP_SEAL_COMMIT,
                          .registered_proof = fp->number,
                          .sector_number = sector,
                          .miner_id = miner,
                          .vanilla_proofs = vp,
                          .vanilla_sizes = vs,
                          .n_vanilla = 1};
    if (fo.jobs && !witness_only && (e = bench_sustained(fp, &q, env_len, &fo, &params, &pce)))
        rc = bench_die("porep: sustained", e);
out:
    free(json);
    free(env);
    cuzk_c1_free(c1);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    cuzk_backend_close(be);
    return rc;
}
