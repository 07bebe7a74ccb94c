/* cuzk-bench engine: sustained throughput of the engine (jobs.h) on
 * synthetic multi-partition jobs, in process, without gRPC.
 *
 * It builds a synthetic circuit of 2^log constraints, makes its parameters
 * in memory (setup on the GPU when the backend is one), hands them to an
 * SRS manager (cuzk_srs_adopt), starts the engine on the chosen devices and
 * submits `jobs` SYNTHETIC jobs of `partitions` partitions each at once.
 * Every proof is verified by the engine (verify_proofs). Reported: seconds
 * per proof (a proof = one job, all its partitions) over the whole run and
 * in the steady state (between the first and the last job's end, with the
 * number of intervals between completions and the shortest and longest of
 * them, and the device time per proof there), how busy
 * the devices were (device time from events, and prove-worker time, over
 * wall time), the CPU/GPU split per partition, admissions refused for
 * memory, peak host RSS (over the run, and in the steady state from the
 * first job's end) and peak device memory per GPU. --device-only
 * releases the parameters' host copy once every GPU keeps them
 * (srs_device_only in jobs.h); --lookahead builds the next job's witness
 * while the pipeline is full (lookahead in jobs.h).
 *
 * The device-memory sampler is shared with `cuzk-bench partition`. */
#define _GNU_SOURCE
#include "cmd/bench.h"
#include "cuzk/backend.h"
#include "cuzk/groth16.h"
#include "cuzk/jobs.h"
#include "cuzk/log.h"
#include "cuzk/mem.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEVMEM_MAX 16

struct bench_devmem {
    int ordinal[DEVMEM_MAX];
    size_t n, peak_used[DEVMEM_MAX], total[DEVMEM_MAX];
    uint64_t rss_peak; /* the process's, since start or the last reset */
    int stop, started;
    pthread_mutex_t mu;
    pthread_t thread;
};

static void *devmem_main(void *arg)
{
    bench_devmem *dm = arg;
    for (;;) {
        uint64_t rss = cuzk_mem_rss();
        pthread_mutex_lock(&dm->mu);
        if (rss > dm->rss_peak)
            dm->rss_peak = rss;
        pthread_mutex_unlock(&dm->mu);
        for (size_t i = 0; i < dm->n; i++) {
            size_t free_b = 0, total_b = 0;
            if (cuzk_backend_device_mem(dm->ordinal[i], &free_b, &total_b) == CUZK_OK) {
                pthread_mutex_lock(&dm->mu);
                if (total_b - free_b > dm->peak_used[i])
                    dm->peak_used[i] = total_b - free_b;
                dm->total[i] = total_b;
                pthread_mutex_unlock(&dm->mu);
            }
        }
        pthread_mutex_lock(&dm->mu);
        int stop = dm->stop;
        pthread_mutex_unlock(&dm->mu);
        if (stop)
            return NULL;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

bench_devmem *bench_devmem_start(const int *ordinals, size_t n)
{
    bench_devmem *dm = calloc(1, sizeof *dm);
    if (!dm)
        return NULL;
    pthread_mutex_init(&dm->mu, NULL);
    for (size_t i = 0; i < n && dm->n < DEVMEM_MAX; i++)
        if (ordinals[i] >= 0)
            dm->ordinal[dm->n++] = ordinals[i];
    dm->started = pthread_create(&dm->thread, NULL, devmem_main, dm) == 0;
    return dm;
}

uint64_t bench_devmem_rss_peak(bench_devmem *dm, int reset)
{
    if (!dm)
        return 0;
    pthread_mutex_lock(&dm->mu);
    uint64_t v = dm->rss_peak;
    if (reset)
        dm->rss_peak = cuzk_mem_rss();
    pthread_mutex_unlock(&dm->mu);
    return v;
}

void bench_devmem_stop(bench_devmem *dm, size_t *peak_used, size_t *total)
{
    if (!dm)
        return;
    if (dm->started) {
        pthread_mutex_lock(&dm->mu);
        dm->stop = 1;
        pthread_mutex_unlock(&dm->mu);
        pthread_join(dm->thread, NULL);
        dm->started = 0;
    }
    for (size_t i = 0; i < dm->n; i++) {
        if (peak_used)
            peak_used[i] = dm->peak_used[i];
        if (total)
            total[i] = dm->total[i];
    }
}

void bench_devmem_free(bench_devmem *dm)
{
    if (!dm)
        return;
    bench_devmem_stop(dm, NULL, NULL);
    pthread_mutex_destroy(&dm->mu);
    free(dm);
}

static double gib(double b)
{
    return b / (1024.0 * 1024.0 * 1024.0);
}

int bench_synth_args(int argc, char **argv, const char *what, const char *def_log, unsigned *log_n,
                     cuzk_synth_params *sp)
{
    *log_n = (unsigned)atoi(bench_arg(argc, argv, "--log", def_log));
    if (*log_n < 5 || *log_n > 28)
        return bench_die(what, cuzk_fail(CUZK_EINVAL, "--log %u: expected 5..28", *log_n));
    sp->n_constraints = strtoull(bench_arg(argc, argv, "--constraints", "0"), NULL, 0);
    if (!sp->n_constraints)
        sp->n_constraints = (uint64_t)(0.97 * (double)((uint64_t)1 << *log_n));
    sp->n_public = (uint32_t)atoi(bench_arg(argc, argv, "--public-inputs", "4"));
    sp->seed = strtoull(bench_arg(argc, argv, "--seed", "1"), NULL, 0);
    return 0;
}

/* "96GiB", "512MiB", "1e9": bytes; 0 when malformed. */
static uint64_t parse_size(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    double mul = !strcmp(end, "GiB")   ? 1073741824.0
                 : !strcmp(end, "MiB") ? 1048576.0
                 : !*end               ? 1
                                       : 0;
    return v > 0 ? (uint64_t)(v * mul) : 0;
}

/* "0,1" -> ordinals; returns the count, -1 when malformed. */
static int parse_devices(const char *s, int *out, int cap)
{
    int n = 0;
    while (s && *s) {
        char *end;
        long v = strtol(s, &end, 10);
        if (end == s || v < 0 || v > 1023 || n == cap)
            return -1;
        out[n++] = (int)v;
        s = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return n;
}

cuzk_err bench_synthetic_adopt(const cuzk_synth_params *sp, const char *setup_backend, int device,
                               cuzk_srs_manager *srs)
{
    double t = cuzk_now();
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    cuzk_err e = cuzk_synth_build(sp, 0, &cs);
    if (!e)
        e = cuzk_pce_from_r1cs(&pce, cs);
    cuzk_r1cs_free(cs);
    if (!e)
        printf("circuit constraints=%llu log_m=%u aux=%llu time_s=%.2f\n",
               (unsigned long long)pce->n_constraints, pce->log_domain,
               (unsigned long long)pce->n_aux, cuzk_now() - t);
    t = cuzk_now();
    cuzk_setup_options so = {.basis = CUZK_H_BELLPERSON,
                             .backend = setup_backend,
                             .device = device,
                             .params_out = &params};
    if (!e && !(e = cuzk_groth16_setup_ex(pce, NULL, NULL, NULL, &so, NULL)))
        printf("setup time_s=%.2f\n", cuzk_now() - t);
    char id[CUZK_SRS_ID_MAX + 1];
    cuzk_job_request idr = {.synthetic_constraints = sp->n_constraints,
                            .synthetic_public_inputs = sp->n_public,
                            .synthetic_seed = sp->seed};
    cuzk_synthetic_id(&idr, id);
    if (!e && !(e = cuzk_srs_adopt(srs, id, &params, pce)))
        pce = NULL; /* the manager's now */
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    fflush(stdout);
    return e;
}

int bench_engine(int argc, char **argv)
{
    unsigned log_n;
    cuzk_synth_params sp;
    int bad = bench_synth_args(argc, argv, "engine", "16", &log_n, &sp);
    if (bad)
        return bad;
    uint64_t n = sp.n_constraints, seed = sp.seed;
    uint32_t n_public = sp.n_public;
    int parts = atoi(bench_arg(argc, argv, "--partitions", "10"));
    int n_jobs = atoi(bench_arg(argc, argv, "--jobs", "3"));
    const char *bn = bench_arg(argc, argv, "--backend", "auto");
    const char *sbn = bench_arg(argc, argv, "--setup-backend", bn);
    int devices[DEVMEM_MAX];
    int n_dev = parse_devices(bench_arg(argc, argv, "--devices", ""), devices, DEVMEM_MAX);
    unsigned workers = (unsigned)atoi(bench_arg(argc, argv, "--workers", "1"));
    unsigned synth = (unsigned)atoi(bench_arg(argc, argv, "--synthesis-workers", "2"));
    unsigned depth = (unsigned)atoi(bench_arg(argc, argv, "--depth", "0"));
    unsigned batch = (unsigned)atoi(bench_arg(argc, argv, "--batch", "1"));
    uint64_t budget = 0;
    const char *bs = bench_arg(argc, argv, "--budget", "auto");
    if (!strcmp(bs, "auto"))
        budget = cuzk_mem_available() / 10 * 9;
    else if (!(budget = parse_size(bs)))
        return bench_die("engine", cuzk_fail(CUZK_EINVAL,
                                             "--budget %s: expected auto, bytes, "
                                             "NMiB or NGiB",
                                             bs));
    if (parts < 1 || parts > CUZK_JOB_MAX_PARTITIONS || n_jobs < 1 || n_jobs > 1000 || n_dev < 0 ||
        workers < 1 || synth < 1 || batch < 1)
        return bench_die("engine", cuzk_fail(CUZK_EINVAL,
                                             "--partitions 1..%d, --jobs 1..1000, --workers, "
                                             "--synthesis-workers, --batch >= 1, --devices N,M",
                                             CUZK_JOB_MAX_PARTITIONS));

    printf("# engine log=%u constraints=%llu public=%u partitions=%d jobs=%d backend=%s "
           "setup_backend=%s devices=%s workers=%u synthesis_workers=%u depth=%u batch=%u "
           "budget_gib=%.1f threads=%u device_only=%d lookahead=%d\n",
           log_n, (unsigned long long)n, n_public, parts, n_jobs, bn, sbn,
           n_dev ? bench_arg(argc, argv, "--devices", "") : "default", workers, synth, depth, batch,
           gib((double)budget), cuzk_threads_count(), bench_flag(argc, argv, "--device-only"),
           bench_flag(argc, argv, "--lookahead"));
    fflush(stdout);

    /* 1. The circuit (structure only) and its parameters, in memory. */
    cuzk_srs_manager *srs = NULL;
    cuzk_jobs *eng = NULL;
    bench_devmem *dm = NULL;
    int rc = 0;
    cuzk_err e;
    if ((e = cuzk_srs_manager_new(".", budget, &srs)) ||
        (e = bench_synthetic_adopt(&sp, sbn, n_dev ? devices[0] : 0, srs))) {
        rc = bench_die("engine: circuit", e);
        goto out;
    }

    /* 2. The engine. */
    cuzk_jobs_config cfg = {.workers = workers,
                            .backend = bn,
                            .gpu_devices = devices,
                            .n_gpu_devices = (size_t)n_dev,
                            .verify_proofs = 1,
                            .param_dir = ".",
                            .retain = (size_t)n_jobs + 1,
                            .max_queued = (size_t)n_jobs + 1,
                            .max_queued_bytes = 1,
                            .max_synthetic = n,
                            .synthesis_workers = synth,
                            .pipeline_depth = depth,
                            .max_batch_size = batch,
                            .memory_budget = budget,
                            .mem_sample_ms = 20,
                            .srs_device_only = bench_flag(argc, argv, "--device-only"),
                            .lookahead = bench_flag(argc, argv, "--lookahead")};
    if ((e = cuzk_jobs_new(&cfg, srs, &eng))) {
        rc = bench_die("engine: start", e);
        goto out;
    }
    cuzk_jobs_status st;
    if ((e = cuzk_jobs_status_get(eng, &st))) {
        rc = bench_die("engine: status", e);
        goto out;
    }
    int ords[CUZK_JOBS_MAX_DEVICES];
    size_t n_devs = st.n_devices;
    for (size_t d = 0; d < n_devs; d++)
        ords[d] = st.devices[d].ordinal;
    cuzk_jobs_status_free(&st);
    dm = bench_devmem_start(ords, n_devs);

    /* 3. All jobs at once; await them in order. */
    char(*ids)[CUZK_JOB_ID_MAX] = calloc((size_t)n_jobs, sizeof *ids);
    double *t_end = calloc((size_t)n_jobs, sizeof *t_end);
    if (!ids || !t_end) {
        free(ids);
        free(t_end);
        rc = bench_die("engine", cuzk_fail(CUZK_ENOMEM, "out of memory"));
        goto out;
    }
    double t0 = cuzk_now(), dev_s_first = 0, busy_s_first = 0;
    for (int i = 0; i < n_jobs && !rc; i++) {
        cuzk_job_request r;
        memset(&r, 0, sizeof r);
        r.kind = CUZK_KIND_SYNTHETIC;
        r.synthetic_constraints = n;
        r.synthetic_public_inputs = n_public;
        r.synthetic_seed = seed;
        r.synthetic_partitions = (uint32_t)parts;
        uint32_t pos;
        int existing;
        if ((e = cuzk_jobs_submit(eng, &r, ids[i], &pos, &existing)))
            rc = bench_die("engine: submit", e);
    }
    double syn_ms = 0, prove_ms = 0;
    int completed = 0;
    for (int i = 0; i < n_jobs && !rc; i++) {
        cuzk_job_result res;
        if ((e = cuzk_jobs_await(eng, ids[i], 0, NULL, &res))) {
            rc = bench_die("engine: await", e);
            break;
        }
        t_end[i] = cuzk_now() - t0;
        printf("job %d status=%d end_s=%.2f queue_ms=%llu srs_ms=%llu synthesis_ms=%llu "
               "prove_ms=%llu verify_ms=%llu total_ms=%llu%s%s\n",
               i, res.status, t_end[i], (unsigned long long)res.queue_wait_ms,
               (unsigned long long)res.srs_load_ms, (unsigned long long)res.synthesis_ms,
               (unsigned long long)res.prove_ms, (unsigned long long)res.verify_ms,
               (unsigned long long)res.total_ms, res.error[0] ? " error=" : "", res.error);
        fflush(stdout);
        completed += res.status == CUZK_JOB_COMPLETED;
        syn_ms += (double)res.synthesis_ms;
        prove_ms += (double)res.prove_ms;
        cuzk_job_result_free(&res);
        if (i == 0)
            bench_devmem_rss_peak(dm, 1); /* the steady state starts here */
        if (i == 0 && !cuzk_jobs_status_get(eng, &st)) {
            for (size_t d = 0; d < st.n_devices; d++) {
                dev_s_first += st.devices[d].device_s;
                busy_s_first += st.devices[d].busy_s;
            }
            cuzk_jobs_status_free(&st);
        }
    }
    double wall = cuzk_now() - t0;
    uint64_t steady_rss = bench_devmem_rss_peak(dm, 0);
    size_t peak[DEVMEM_MAX] = {0}, total[DEVMEM_MAX] = {0};
    bench_devmem_stop(dm, peak, total);
    if (!rc && !(e = cuzk_jobs_status_get(eng, &st))) {
        double dev_s = 0, busy_s = 0;
        for (size_t d = 0; d < st.n_devices; d++) {
            const cuzk_jobs_device *dv = &st.devices[d];
            printf("device %d healthy=%d partitions=%llu busy_s=%.2f device_s=%.2f "
                   "peak_device_gib=%.1f total_gib=%.1f%s%s\n",
                   dv->ordinal, dv->healthy, (unsigned long long)dv->partitions, dv->busy_s,
                   dv->device_s, gib((double)peak[d]), gib((double)total[d]),
                   dv->error[0] ? " error=" : "", dv->error);
            dev_s += dv->device_s;
            busy_s += dv->busy_s;
        }
        double nd = (double)(st.n_devices ? st.n_devices : 1);
        double steady = n_jobs > 1 ? (t_end[n_jobs - 1] - t_end[0]) / (n_jobs - 1) : wall;
        double steady_span = n_jobs > 1 ? t_end[n_jobs - 1] - t_end[0] : wall;
        /* the intervals between consecutive completions behind the steady
         * figure: how many, the shortest and the longest */
        double iv_min = steady, iv_max = steady;
        for (int i = 1; i < n_jobs; i++) {
            double iv = t_end[i] - t_end[i - 1];
            if (i == 1 || iv < iv_min)
                iv_min = iv;
            if (i == 1 || iv > iv_max)
                iv_max = iv;
        }
        printf("engine log=%u partitions=%d jobs=%d completed=%d devices=%zu wall_s=%.2f "
               "s_per_proof=%.2f steady_s_per_proof=%.2f gpu_busy=%.3f steady_gpu_busy=%.3f "
               "worker_busy=%.3f steady_worker_busy=%.3f synthesis_s_per_partition=%.2f "
               "prove_s_per_partition=%.2f admissions_refused=%llu peak_rss_gib=%.1f "
               "steady_peak_rss_gib=%.1f peak_reserved_gib=%.1f srs_gib=%.1f steady_intervals=%d "
               "steady_interval_min_s=%.2f steady_interval_max_s=%.2f "
               "steady_device_s_per_proof=%.2f taken_ahead=%llu ahead_given_back=%llu\n",
               log_n, parts, n_jobs, completed, st.n_devices, wall, wall / n_jobs, steady,
               dev_s / (wall * nd), n_jobs > 1 ? (dev_s - dev_s_first) / (steady_span * nd) : 0,
               busy_s / (wall * nd), n_jobs > 1 ? (busy_s - busy_s_first) / (steady_span * nd) : 0,
               syn_ms / 1000.0 / (n_jobs * parts), prove_ms / 1000.0 / (n_jobs * parts),
               (unsigned long long)st.mem.refusals, gib((double)st.mem.peak_rss),
               gib((double)steady_rss), gib((double)st.mem.peak_reserved),
               gib((double)st.srs_bytes), n_jobs - 1, iv_min, iv_max,
               n_jobs > 1 ? (dev_s - dev_s_first) / (n_jobs - 1) : dev_s,
               (unsigned long long)st.taken_ahead, (unsigned long long)st.ahead_given_back);
        cuzk_jobs_status_free(&st);
        if (completed != n_jobs)
            rc = 1;
    }
    free(ids);
    free(t_end);
out:
    cuzk_jobs_free(eng);
    bench_devmem_free(dm);
    cuzk_srs_manager_free(srs);
    return rc;
}
