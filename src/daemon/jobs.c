/* The daemon's job engine (include/cuzk/jobs.h).
 *
 * One mutex guards everything the engine owns: the list of all jobs (queued,
 * running and the retained finished ones), four FIFO queues (one per
 * priority) and the counters. One condition variable, `changed`, is
 * broadcast whenever a job changes state; workers, awaiters and drain all
 * wait on it and re-check their own predicate, which keeps the protocol
 * simple and correct at the daemon's scale (tens of jobs, not millions).
 *
 * A worker takes the head of the highest non-empty queue and runs the job
 * without the lock: the request fields are immutable after submit, and the
 * only shared fields it writes (stage, partitions_done) are written under the
 * lock. Cancellation is a flag the worker reads at every boundary (after SRS
 * load, after each synthesis, prove and verify); a job that sees it frees
 * its buffers and ends CANCELLED.
 *
 * Finished jobs keep their result until more than `retain` jobs have
 * finished; the oldest is dropped first, except while an awaiter holds it. */
#define _GNU_SOURCE
#include "cuzk/jobs.h"
#include "cuzk/groth16.h"
#include "cuzk/log.h"
#include "cuzk/synth.h"
#include "cuzk/util.h"
#include "daemon/daemon.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

enum { ST_QUEUED, ST_RUNNING, ST_DONE };
#define N_PRIO 4
#define N_STAGES 6
#define N_BUCKETS 16

static const char *const stage_names[N_STAGES] = {"queue", "srs_load", "synthesis",
                                                  "prove", "verify",   "total"};
static const double bucket_le[N_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                            2.5,   5,    10,    30,   60,  120,  300, 600};
static const int kind_values[CUZK_JOBS_N_KINDS] = {1, 2, 3, 4, 16, 17, 0};

typedef struct job {
    struct job *next_all, *next_q;
    char id[CUZK_JOB_ID_MAX];
    char request_id[CUZK_REQUEST_ID_MAX + 1];
    int kind, prio; /* prio: 0..3 = LOW..CRITICAL */
    char circuit_id[CUZK_SRS_ID_MAX + 1];
    uint8_t **wit;
    size_t *wit_size;
    size_t n_wit;
    uint64_t input_bytes; /* sum of wit_size */
    uint64_t syn_n, syn_seed;
    uint32_t syn_public;
    int state;
    atomic_int cancel;
    const char *stage;
    uint32_t partitions, partitions_done;
    unsigned waiters;
    double t_submit, t_end;
    cuzk_job_result res;
} job;

typedef struct {
    cuzk_jobs *j;
    cuzk_backend *be;
    pthread_t thread;
    int started;
} worker;

typedef struct {
    uint64_t count[N_BUCKETS + 1];
    double sum;
} histogram;

struct cuzk_jobs {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_mutex_t gen_lock; /* one synthetic parameter generation at a time */
    cuzk_jobs_config cfg;
    char *param_dir, *backend;
    cuzk_srs_manager *srs;
    worker *workers;
    job *all;
    job *qhead[N_PRIO], *qtail[N_PRIO];
    size_t n_queued, n_running, n_done;
    uint64_t queued_bytes; /* witness bytes held by queued jobs */
    uint64_t next_id;
    int draining, stopping;
    uint64_t outcome[CUZK_JOBS_N_KINDS][3]; /* completed, failed, cancelled */
    histogram hist[N_STAGES];
};

const char *cuzk_kind_name(int kind)
{
    switch (kind) {
    case CUZK_KIND_UNSPECIFIED: return "unspecified";
    case CUZK_KIND_POREP_SEAL_COMMIT: return "porep_seal_commit";
    case CUZK_KIND_SNAP_DEALS_UPDATE: return "snap_deals_update";
    case CUZK_KIND_WINDOW_POST_PARTITION: return "window_post_partition";
    case CUZK_KIND_WINNING_POST: return "winning_post";
    case CUZK_KIND_GENERIC_R1CS: return "generic_r1cs";
    case CUZK_KIND_SYNTHETIC: return "synthetic";
    default: return "unknown";
    }
}

const char *cuzk_priority_name(int prio)
{
    static const char *const names[] = {"normal", "low", "normal", "high", "critical"};
    return prio >= 0 && prio <= 4 ? names[prio] : "unknown";
}

int cuzk_kind_valid(int kind)
{
    return (kind >= 1 && kind <= 4) || kind == CUZK_KIND_GENERIC_R1CS ||
           kind == CUZK_KIND_SYNTHETIC;
}

static int kind_index(int kind)
{
    for (int i = 0; i < CUZK_JOBS_N_KINDS; i++)
        if (kind_values[i] == kind)
            return i;
    return CUZK_JOBS_N_KINDS - 1;
}

void cuzk_job_result_free(cuzk_job_result *r)
{
    free(r->proof);
    free(r->public_inputs);
    r->proof = r->public_inputs = NULL;
    r->proof_size = 0;
}

static void job_free(job *jb)
{
    for (size_t i = 0; i < jb->n_wit; i++)
        free(jb->wit[i]);
    free(jb->wit);
    free(jb->wit_size);
    cuzk_job_result_free(&jb->res);
    free(jb);
}

static void job_drop_inputs(job *jb)
{
    for (size_t i = 0; i < jb->n_wit; i++)
        free(jb->wit[i]);
    free(jb->wit);
    free(jb->wit_size);
    jb->wit = NULL;
    jb->wit_size = NULL;
    jb->n_wit = 0;
}

static uint64_t to_ms(double s)
{
    return s > 0 ? (uint64_t)(s * 1000.0 + 0.5) : 0;
}

static void observe(histogram *h, double s)
{
    int b = 0;
    while (b < N_BUCKETS && s > bucket_le[b])
        b++;
    h->count[b]++;
    h->sum += s;
}

static job *find_job(cuzk_jobs *j, const char *id)
{
    for (job *jb = j->all; jb; jb = jb->next_all)
        if (!strcmp(jb->id, id))
            return jb;
    return NULL;
}

/* Drop the oldest finished jobs beyond `retain`; lock held. */
static void purge(cuzk_jobs *j)
{
    while (j->n_done > j->cfg.retain) {
        job **oldest = NULL;
        for (job **p = &j->all; *p; p = &(*p)->next_all)
            if ((*p)->state == ST_DONE && !(*p)->waiters &&
                (!oldest || (*p)->t_end < (*oldest)->t_end))
                oldest = p;
        if (!oldest)
            return;
        job *jb = *oldest;
        *oldest = jb->next_all;
        j->n_done--;
        job_free(jb);
    }
}

/* Record the end of a job; lock held. */
static void finish(cuzk_jobs *j, job *jb, cuzk_job_status st)
{
    jb->state = ST_DONE;
    jb->stage = "done";
    jb->t_end = cuzk_now();
    jb->res.status = st;
    jb->res.total_ms = to_ms(jb->t_end - jb->t_submit);
    job_drop_inputs(jb);
    j->n_done++;
    int o = st == CUZK_JOB_COMPLETED ? 0 : st == CUZK_JOB_FAILED ? 1 : 2;
    j->outcome[kind_index(jb->kind)][o]++;
    if (st == CUZK_JOB_COMPLETED) {
        double v[N_STAGES] = {jb->res.queue_wait_ms, jb->res.srs_load_ms, jb->res.synthesis_ms,
                              jb->res.prove_ms,      jb->res.verify_ms,   jb->res.total_ms};
        for (int s = 0; s < N_STAGES; s++)
            if (s != 4 || j->cfg.verify_proofs)
                observe(&j->hist[s], v[s] / 1000.0);
    }
    if (st == CUZK_JOB_COMPLETED)
        CUZK_INFO("job=%s event=completed kind=%s circuit=%s partitions=%zu queue_ms=%llu "
                  "srs_load_ms=%llu synthesis_ms=%llu prove_ms=%llu verify_ms=%llu total_ms=%llu",
                  jb->id, cuzk_kind_name(jb->kind), jb->res.circuit_id, jb->res.n_partitions,
                  (unsigned long long)jb->res.queue_wait_ms,
                  (unsigned long long)jb->res.srs_load_ms, (unsigned long long)jb->res.synthesis_ms,
                  (unsigned long long)jb->res.prove_ms, (unsigned long long)jb->res.verify_ms,
                  (unsigned long long)jb->res.total_ms);
    else
        CUZK_WARN("job=%s event=%s kind=%s total_ms=%llu error=\"%s\"", jb->id,
                  st == CUZK_JOB_FAILED ? "failed" : "cancelled", cuzk_kind_name(jb->kind),
                  (unsigned long long)jb->res.total_ms, jb->res.error);
    pthread_cond_broadcast(&j->changed);
    purge(j);
}

static void set_stage(cuzk_jobs *j, job *jb, const char *stage)
{
    pthread_mutex_lock(&j->lock);
    jb->stage = stage;
    pthread_mutex_unlock(&j->lock);
}

/* The synthetic circuit's files, generated into the parameter folder when
 * missing (setup with fresh toxic waste: fine for a test circuit). */
static cuzk_err ensure_synthetic(cuzk_jobs *j, job *jb)
{
    pthread_mutex_lock(&j->gen_lock);
    cuzk_err rc = CUZK_OK;
    if (!cuzk_srs_known(j->srs, jb->circuit_id)) {
        char pce_path[4096], params_path[4096], vk_path[4096];
        snprintf(pce_path, sizeof pce_path, "%s/%s.pce", j->param_dir, jb->circuit_id);
        snprintf(params_path, sizeof params_path, "%s/%s.params", j->param_dir, jb->circuit_id);
        snprintf(vk_path, sizeof vk_path, "%s/%s.vk", j->param_dir, jb->circuit_id);
        CUZK_INFO("job=%s event=generate circuit=%s folder=%s", jb->id, jb->circuit_id,
                  j->param_dir);
        double t = cuzk_now();
        cuzk_synth_params sp = {jb->syn_n, jb->syn_public, jb->syn_seed};
        cuzk_r1cs *cs = NULL;
        cuzk_pce *pce = NULL;
        rc = cuzk_synth_build(&sp, 0, &cs);
        if (!rc)
            rc = cuzk_pce_from_r1cs(&pce, cs);
        cuzk_r1cs_free(cs);
        if (!rc)
            rc = cuzk_pce_write(pce, pce_path);
        if (!rc)
            rc = cuzk_groth16_setup(pce, params_path, vk_path, NULL, NULL);
        cuzk_pce_free(pce);
        if (rc)
            cuzk_fail_ctx(rc, "generating synthetic circuit %s: ", jb->circuit_id);
        else
            CUZK_INFO("job=%s event=generated circuit=%s time_s=%.3f", jb->id, jb->circuit_id,
                      cuzk_now() - t);
    }
    pthread_mutex_unlock(&j->gen_lock);
    return rc;
}

/* The witness of partition p: decoded from the request, or (synthetic) the
 * circuit's own assignment. *owned is what the caller frees. */
static cuzk_err partition_witness(job *jb, size_t p, const cuzk_pce *pce, cuzk_r1cs **cs,
                                  const cuzk_fr **w, cuzk_fr **owned)
{
    *owned = NULL;
    if (jb->kind == CUZK_KIND_SYNTHETIC) {
        if (!*cs) {
            cuzk_synth_params sp = {jb->syn_n, jb->syn_public, jb->syn_seed};
            CUZK_TRY(cuzk_synth_build(&sp, 1, cs));
        }
        *w = cuzk_r1cs_assignment(*cs);
        return CUZK_OK;
    }
    char name[64];
    snprintf(name, sizeof name, "witness %zu", p);
    uint32_t ni;
    uint64_t na;
    CUZK_TRY(cuzk_witness_parse(jb->wit[p], jb->wit_size[p], name, owned, &ni, &na));
    if (ni != pce->n_inputs || na != pce->n_aux) {
        free(*owned);
        *owned = NULL;
        return cuzk_fail(CUZK_EINVAL,
                         "%s has %u inputs and %llu aux; circuit %s has %u inputs and %llu aux",
                         name, ni, (unsigned long long)na, jb->circuit_id, pce->n_inputs,
                         (unsigned long long)pce->n_aux);
    }
    *w = *owned;
    return CUZK_OK;
}

#define CANCELLED_AT(where)                                                                        \
    do {                                                                                           \
        if (atomic_load(&jb->cancel)) {                                                            \
            rc = CUZK_OK;                                                                          \
            cancelled = 1;                                                                         \
            snprintf(jb->res.error, sizeof jb->res.error, "cancelled %s", where);                  \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* Run one job; returns its end status, with res filled in. */
static cuzk_job_status run_job(worker *wk, job *jb)
{
    cuzk_jobs *j = wk->j;
    cuzk_job_result *res = &jb->res;
    cuzk_srs_circuit *circ = NULL;
    cuzk_r1cs *cs = NULL;
    cuzk_err rc = CUZK_OK;
    int cancelled = 0;
    double t = cuzk_now();
    res->queue_wait_ms = to_ms(t - jb->t_submit);

    if (jb->kind != CUZK_KIND_GENERIC_R1CS && jb->kind != CUZK_KIND_SYNTHETIC) {
        rc = cuzk_fail(CUZK_EUNSUPPORTED,
                       "proof kind %s: circuit not available yet (this daemon proves "
                       "GENERIC_R1CS and SYNTHETIC jobs)",
                       cuzk_kind_name(jb->kind));
        goto out;
    }
    if (jb->kind == CUZK_KIND_SYNTHETIC && (rc = ensure_synthetic(j, jb)) != CUZK_OK)
        goto out;
    double load_s = 0;
    rc = cuzk_srs_acquire(j->srs, jb->circuit_id, &circ, &load_s);
    res->srs_load_ms = to_ms(cuzk_now() - t);
    if (rc)
        goto out;
    CANCELLED_AT("after the SRS load");
    const cuzk_pce *pce = circ->pce;
    size_t per = pce->n_inputs - 1, parts = jb->partitions;
    res->proof = malloc(parts * CUZK_PROOF_BYTES);
    res->public_inputs = malloc(parts * per * 32 + 1);
    if (!res->proof || !res->public_inputs) {
        rc = cuzk_fail(CUZK_ENOMEM, "out of memory for %zu proofs", parts);
        goto out;
    }
    res->inputs_per_partition = per;
    for (size_t p = 0; p < parts; p++) {
        set_stage(j, jb, "synthesis");
        const cuzk_fr *w = NULL;
        cuzk_fr *owned = NULL;
        t = cuzk_now();
        rc = partition_witness(jb, p, pce, &cs, &w, &owned);
        res->synthesis_ms += to_ms(cuzk_now() - t);
        if (rc)
            goto out;
        if (atomic_load(&jb->cancel)) { /* the flag never goes back to 0 */
            free(owned);
            CANCELLED_AT("after synthesis");
        }
        set_stage(j, jb, "prove");
        cuzk_proof proof;
        t = cuzk_now();
        rc = cuzk_groth16_prove(wk->be, circ->params, pce, w, NULL, NULL, &proof, NULL);
        res->prove_ms += to_ms(cuzk_now() - t);
        for (size_t i = 0; i < per && !rc; i++)
            cuzk_fr_to_bytes_le(res->public_inputs + (p * per + i) * 32, &w[1 + i]);
        if (!rc && j->cfg.verify_proofs) {
            set_stage(j, jb, "verify");
            t = cuzk_now();
            rc = cuzk_groth16_verify(circ->vk, w + 1, per, &proof);
            res->verify_ms += to_ms(cuzk_now() - t);
            if (rc == CUZK_EVERIFY)
                cuzk_fail(rc, "the proof of partition %zu did not verify (verify_proofs = true)",
                          p);
        }
        free(owned);
        if (rc) {
            cuzk_fail_ctx(rc, "partition %zu: ", p);
            goto out;
        }
        cuzk_proof_encode(res->proof + p * CUZK_PROOF_BYTES, &proof);
        pthread_mutex_lock(&j->lock);
        jb->partitions_done = (uint32_t)(p + 1);
        pthread_mutex_unlock(&j->lock);
        if (p + 1 < parts)
            CANCELLED_AT("at a partition boundary");
    }
    res->proof_size = parts * CUZK_PROOF_BYTES;
    res->n_partitions = parts;
out:
    cuzk_r1cs_free(cs);
    cuzk_srs_release(j->srs, circ);
    if (rc || cancelled) {
        if (rc)
            snprintf(res->error, sizeof res->error, "%s (%s)", cuzk_errmsg(), cuzk_err_name(rc));
        cuzk_job_result_free(res);
        res->n_partitions = 0;
        return cancelled ? CUZK_JOB_CANCELLED : CUZK_JOB_FAILED;
    }
    return CUZK_JOB_COMPLETED;
}

static job *pop_queue(cuzk_jobs *j)
{
    for (int p = N_PRIO - 1; p >= 0; p--) {
        job *jb = j->qhead[p];
        if (jb) {
            j->qhead[p] = jb->next_q;
            if (!j->qhead[p])
                j->qtail[p] = NULL;
            jb->next_q = NULL;
            j->n_queued--;
            j->queued_bytes -= jb->input_bytes;
            return jb;
        }
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    worker *wk = arg;
    cuzk_jobs *j = wk->j;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        job *jb = NULL;
        while (!j->stopping && !(jb = pop_queue(j)))
            pthread_cond_wait(&j->changed, &j->lock);
        if (!jb)
            break;
        jb->state = ST_RUNNING;
        jb->stage = "srs_load";
        j->n_running++;
        CUZK_INFO("job=%s event=started kind=%s priority=%s", jb->id, cuzk_kind_name(jb->kind),
                  cuzk_priority_name(jb->prio + 1));
        pthread_mutex_unlock(&j->lock);
        cuzk_job_status st = run_job(wk, jb);
        pthread_mutex_lock(&j->lock);
        j->n_running--;
        finish(j, jb, st);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

static void stop_workers(cuzk_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    j->stopping = 1;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    for (unsigned i = 0; i < j->cfg.workers; i++)
        if (j->workers[i].started) {
            pthread_join(j->workers[i].thread, NULL);
            j->workers[i].started = 0;
        }
}

void cuzk_jobs_free(cuzk_jobs *j)
{
    if (!j)
        return;
    if (j->workers) {
        cuzk_jobs_drain(j, 0);
        for (unsigned i = 0; i < j->cfg.workers; i++)
            if (j->workers[i].be)
                cuzk_backend_close(j->workers[i].be);
    }
    for (job *jb = j->all, *nx; jb; jb = nx) {
        nx = jb->next_all;
        job_free(jb);
    }
    pthread_mutex_destroy(&j->lock);
    pthread_mutex_destroy(&j->gen_lock);
    pthread_cond_destroy(&j->changed);
    free(j->workers);
    free(j->param_dir);
    free(j->backend);
    free(j);
}

cuzk_err cuzk_jobs_new(const cuzk_jobs_config *cfg, cuzk_srs_manager *srs, cuzk_jobs **out)
{
    *out = NULL;
    if (cfg->workers < 1 || cfg->retain < 1)
        return cuzk_fail(CUZK_EINVAL, "jobs: workers and retain must be >= 1");
    cuzk_jobs *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_fail(CUZK_ENOMEM, "jobs: out of memory");
    pthread_mutex_init(&j->lock, NULL);
    pthread_mutex_init(&j->gen_lock, NULL);
    pthread_cond_init(&j->changed, NULL);
    j->cfg = *cfg;
    j->srs = srs;
    j->param_dir = strdup(cfg->param_dir ? cfg->param_dir : ".");
    j->backend = strdup(cfg->backend ? cfg->backend : "cpu");
    j->workers = calloc(cfg->workers, sizeof *j->workers);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Ids differ across restarts so a stale id is "unknown", never another job. */
    j->next_id = ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec;
    if (!j->param_dir || !j->backend || !j->workers) {
        cuzk_jobs_free(j);
        return cuzk_fail(CUZK_ENOMEM, "jobs: out of memory");
    }
    j->cfg.param_dir = j->param_dir;
    j->cfg.backend = j->backend;
    j->cfg.gpu_devices = NULL; /* borrowed: used only below */
    /* Workers go round the configured GPUs (all visible ones when none is
     * named); a "cuda:N" backend name pins every worker to GPU N. */
    int visible = cuzk_backend_gpus();
    for (unsigned i = 0; i < cfg->workers; i++) {
        j->workers[i].j = j;
        int ord = cfg->n_gpu_devices ? cfg->gpu_devices[i % cfg->n_gpu_devices]
                  : visible > 0      ? (int)(i % (unsigned)visible)
                                     : 0;
        cuzk_err rc = strchr(j->backend, ':')
                          ? cuzk_backend_open(j->backend, &j->workers[i].be)
                          : cuzk_backend_open_on(j->backend, ord, &j->workers[i].be);
        if (rc) {
            cuzk_jobs_free(j);
            return rc;
        }
    }
    for (unsigned i = 0; i < cfg->workers; i++) {
        if (pthread_create(&j->workers[i].thread, NULL, worker_main, &j->workers[i]) != 0) {
            cuzk_jobs_free(j);
            return cuzk_fail(CUZK_EINTERNAL, "jobs: cannot start worker %u", i);
        }
        j->workers[i].started = 1;
    }
    *out = j;
    return CUZK_OK;
}

const char *cuzk_jobs_backend(const cuzk_jobs *j)
{
    return cuzk_backend_name(j->workers[0].be);
}

/* Validation of what the call itself can know; lock not held. */
static cuzk_err check_request(const cuzk_jobs *j, const cuzk_job_request *r)
{
    if (!cuzk_kind_valid(r->kind))
        return cuzk_fail(CUZK_EINVAL, "unknown proof kind %d", r->kind);
    if (r->priority < 0 || r->priority > CUZK_PRIO_CRITICAL)
        return cuzk_fail(CUZK_EINVAL, "unknown priority %d", r->priority);
    if (r->request_id && strlen(r->request_id) > CUZK_REQUEST_ID_MAX)
        return cuzk_fail(CUZK_EINVAL, "request_id longer than %d characters", CUZK_REQUEST_ID_MAX);
    if (r->kind == CUZK_KIND_GENERIC_R1CS) {
        if (cuzk_srs_check_id(r->circuit_id))
            return cuzk_fail_ctx(CUZK_EINVAL, "GENERIC_R1CS: ");
        if (r->n_witnesses < 1 || r->n_witnesses > CUZK_JOB_MAX_PARTITIONS)
            return cuzk_fail(CUZK_EINVAL,
                             "GENERIC_R1CS needs 1..%d witnesses, one per partition (got %zu)",
                             CUZK_JOB_MAX_PARTITIONS, r->n_witnesses);
    } else if (r->n_witnesses) {
        return cuzk_fail(CUZK_EINVAL, "witnesses are only for GENERIC_R1CS jobs (kind %s)",
                         cuzk_kind_name(r->kind));
    }
    if (r->kind == CUZK_KIND_SYNTHETIC) {
        uint64_t lo = cuzk_synth_min_constraints(r->synthetic_public_inputs);
        if (r->synthetic_constraints < lo || r->synthetic_constraints > j->cfg.max_synthetic)
            return cuzk_fail(CUZK_EINVAL,
                             "SYNTHETIC: synthetic_constraints %llu out of range [%llu, %llu] "
                             "for %u public inputs",
                             (unsigned long long)r->synthetic_constraints, (unsigned long long)lo,
                             (unsigned long long)j->cfg.max_synthetic, r->synthetic_public_inputs);
        if (r->synthetic_partitions > CUZK_JOB_MAX_PARTITIONS)
            return cuzk_fail(CUZK_EINVAL, "SYNTHETIC: at most %d partitions (got %u)",
                             CUZK_JOB_MAX_PARTITIONS, r->synthetic_partitions);
    }
    return CUZK_OK;
}

cuzk_err cuzk_jobs_submit(cuzk_jobs *j, const cuzk_job_request *r, char job_id[CUZK_JOB_ID_MAX],
                          uint32_t *queue_position, int *existing)
{
    *existing = 0;
    *queue_position = 0;
    job_id[0] = 0;
    CUZK_TRY(check_request(j, r));
    job *jb = calloc(1, sizeof *jb);
    if (!jb)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    jb->kind = r->kind;
    jb->prio = (r->priority ? r->priority : CUZK_PRIO_NORMAL) - 1;
    snprintf(jb->request_id, sizeof jb->request_id, "%s", r->request_id ? r->request_id : "");
    jb->partitions = 1;
    if (r->kind == CUZK_KIND_GENERIC_R1CS) {
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "%s", r->circuit_id);
        jb->partitions = (uint32_t)r->n_witnesses;
        jb->wit = calloc(r->n_witnesses, sizeof *jb->wit);
        jb->wit_size = calloc(r->n_witnesses, sizeof *jb->wit_size);
        jb->n_wit = r->n_witnesses;
        for (size_t i = 0; jb->wit && jb->wit_size && i < r->n_witnesses; i++) {
            jb->wit[i] = malloc(r->witness_sizes[i] + 1);
            if (!jb->wit[i])
                break;
            memcpy(jb->wit[i], r->witnesses[i], r->witness_sizes[i]);
            jb->wit_size[i] = r->witness_sizes[i];
            jb->input_bytes += r->witness_sizes[i];
        }
        if (!jb->wit || !jb->wit_size || !jb->wit[r->n_witnesses - 1]) {
            job_free(jb);
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the witnesses");
        }
    } else if (r->kind == CUZK_KIND_SYNTHETIC) {
        jb->syn_n = r->synthetic_constraints;
        jb->syn_public = r->synthetic_public_inputs;
        jb->syn_seed = r->synthetic_seed;
        jb->partitions = r->synthetic_partitions ? r->synthetic_partitions : 1;
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "synthetic-n%llu-p%u-s%llu",
                 (unsigned long long)jb->syn_n, jb->syn_public, (unsigned long long)jb->syn_seed);
    }
    snprintf(jb->res.circuit_id, sizeof jb->res.circuit_id, "%s", jb->circuit_id);

    pthread_mutex_lock(&j->lock);
    if (jb->request_id[0])
        for (job *o = j->all; o; o = o->next_all)
            if (!strcmp(o->request_id, jb->request_id)) {
                snprintf(job_id, CUZK_JOB_ID_MAX, "%s", o->id);
                *existing = 1;
                pthread_mutex_unlock(&j->lock);
                job_free(jb);
                return CUZK_OK;
            }
    cuzk_err rc = CUZK_OK;
    if (j->draining)
        rc = cuzk_fail(CUZK_EUNSUPPORTED, "the daemon is shutting down; not accepting jobs");
    else if (j->n_queued >= j->cfg.max_queued)
        rc = cuzk_fail(CUZK_ENOMEM, "queue full: %zu jobs queued (scheduler.max_queued)",
                       j->n_queued);
    else if (j->queued_bytes + jb->input_bytes > j->cfg.max_queued_bytes)
        rc = cuzk_fail(CUZK_ENOMEM,
                       "queue full: %llu bytes of inputs queued, this job brings %llu "
                       "(scheduler.max_queued_bytes = %llu)",
                       (unsigned long long)j->queued_bytes, (unsigned long long)jb->input_bytes,
                       (unsigned long long)j->cfg.max_queued_bytes);
    if (rc) {
        pthread_mutex_unlock(&j->lock);
        job_free(jb);
        return rc;
    }
    snprintf(jb->id, sizeof jb->id, "job-%016llx", (unsigned long long)j->next_id++);
    snprintf(jb->res.job_id, sizeof jb->res.job_id, "%s", jb->id);
    jb->t_submit = cuzk_now();
    jb->stage = "queued";
    uint32_t ahead = (uint32_t)j->n_running;
    for (int p = N_PRIO - 1; p >= jb->prio; p--)
        for (job *q = j->qhead[p]; q; q = q->next_q)
            ahead++;
    if (j->qtail[jb->prio])
        j->qtail[jb->prio]->next_q = jb;
    else
        j->qhead[jb->prio] = jb;
    j->qtail[jb->prio] = jb;
    j->n_queued++;
    j->queued_bytes += jb->input_bytes;
    jb->next_all = j->all;
    j->all = jb;
    snprintf(job_id, CUZK_JOB_ID_MAX, "%s", jb->id);
    *queue_position = ahead;
    CUZK_INFO("job=%s event=submitted kind=%s priority=%s circuit=%s partitions=%u "
              "queue_position=%u request_id=%s",
              jb->id, cuzk_kind_name(jb->kind), cuzk_priority_name(jb->prio + 1),
              jb->circuit_id[0] ? jb->circuit_id : "-", jb->partitions, ahead,
              jb->request_id[0] ? jb->request_id : "-");
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    return CUZK_OK;
}

static cuzk_err copy_result(const cuzk_job_result *in, cuzk_job_result *out)
{
    *out = *in;
    out->proof = out->public_inputs = NULL;
    size_t pub = in->n_partitions * in->inputs_per_partition * 32;
    if (in->proof_size && !(out->proof = malloc(in->proof_size)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (pub && !(out->public_inputs = malloc(pub))) {
        free(out->proof);
        out->proof = NULL;
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    if (in->proof_size)
        memcpy(out->proof, in->proof, in->proof_size);
    if (pub)
        memcpy(out->public_inputs, in->public_inputs, pub);
    return CUZK_OK;
}

cuzk_err cuzk_jobs_await(cuzk_jobs *j, const char *job_id, uint64_t timeout_ms,
                         const volatile int *abort, cuzk_job_result *out)
{
    memset(out, 0, sizeof *out);
    struct timespec dl = cuzk_deadline_in_ms(timeout_ms);
    pthread_mutex_lock(&j->lock);
    job *jb = find_job(j, job_id ? job_id : "");
    if (!jb) {
        pthread_mutex_unlock(&j->lock);
        return cuzk_fail(CUZK_EINVAL, "unknown job id \"%s\" (never submitted, or expired)",
                         job_id ? job_id : "");
    }
    jb->waiters++;
    int timed_out = 0;
    while (jb->state != ST_DONE && !(abort && *abort) && !timed_out) {
        if (timeout_ms)
            timed_out = pthread_cond_timedwait(&j->changed, &j->lock, &dl) == ETIMEDOUT;
        else
            pthread_cond_wait(&j->changed, &j->lock);
    }
    cuzk_err rc = CUZK_OK;
    if (jb->state == ST_DONE) {
        rc = copy_result(&jb->res, out);
    } else {
        snprintf(out->job_id, sizeof out->job_id, "%s", jb->id);
        snprintf(out->circuit_id, sizeof out->circuit_id, "%s", jb->circuit_id);
        out->status = CUZK_JOB_TIMEOUT;
        snprintf(out->error, sizeof out->error, "job still %s after %llu ms", jb->stage,
                 (unsigned long long)timeout_ms);
    }
    jb->waiters--;
    purge(j);
    pthread_mutex_unlock(&j->lock);
    return rc;
}

void cuzk_jobs_wake(cuzk_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
}

/* Unlink a queued job from its queue; lock held. */
static void unqueue(cuzk_jobs *j, job *jb)
{
    job *prev = NULL;
    for (job *q = j->qhead[jb->prio]; q; prev = q, q = q->next_q)
        if (q == jb) {
            if (prev)
                prev->next_q = q->next_q;
            else
                j->qhead[jb->prio] = q->next_q;
            if (j->qtail[jb->prio] == q)
                j->qtail[jb->prio] = prev;
            j->n_queued--;
            j->queued_bytes -= jb->input_bytes;
            return;
        }
}

cuzk_err cuzk_jobs_cancel(cuzk_jobs *j, const char *job_id, int *was_running)
{
    *was_running = 0;
    pthread_mutex_lock(&j->lock);
    job *jb = find_job(j, job_id ? job_id : "");
    cuzk_err rc = CUZK_OK;
    if (!jb) {
        rc = cuzk_fail(CUZK_EINVAL, "unknown job id \"%s\" (never submitted, or expired)",
                       job_id ? job_id : "");
    } else if (jb->state == ST_QUEUED) {
        unqueue(j, jb);
        snprintf(jb->res.error, sizeof jb->res.error, "cancelled while queued");
        jb->res.queue_wait_ms = to_ms(cuzk_now() - jb->t_submit);
        finish(j, jb, CUZK_JOB_CANCELLED);
    } else if (jb->state == ST_RUNNING) {
        *was_running = 1;
        atomic_store(&jb->cancel, 1);
        CUZK_INFO("job=%s event=cancel_requested stage=%s", jb->id, jb->stage);
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

void cuzk_jobs_drain(cuzk_jobs *j, double grace_s)
{
    pthread_mutex_lock(&j->lock);
    j->draining = 1;
    double end = cuzk_now() + grace_s;
    while (j->n_queued + j->n_running > 0 && cuzk_now() < end) {
        struct timespec ts = cuzk_deadline_in_ms(100);
        pthread_cond_timedwait(&j->changed, &j->lock, &ts);
    }
    job *jb;
    while ((jb = pop_queue(j)) != NULL) {
        snprintf(jb->res.error, sizeof jb->res.error, "cancelled: the daemon is shutting down");
        finish(j, jb, CUZK_JOB_CANCELLED);
    }
    for (jb = j->all; jb; jb = jb->next_all)
        if (jb->state == ST_RUNNING)
            atomic_store(&jb->cancel, 1);
    pthread_mutex_unlock(&j->lock);
    stop_workers(j);
}

cuzk_err cuzk_jobs_status_get(cuzk_jobs *j, cuzk_jobs_status *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&j->lock);
    size_t n = j->n_queued + j->n_running;
    out->jobs = calloc(n ? n : 1, sizeof *out->jobs);
    if (!out->jobs) {
        pthread_mutex_unlock(&j->lock);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        out->kinds[k].kind = kind_values[k];
        out->kinds[k].completed = j->outcome[k][0];
        out->kinds[k].failed = j->outcome[k][1];
        out->kinds[k].cancelled = j->outcome[k][2];
        out->completed += j->outcome[k][0];
        out->failed += j->outcome[k][1];
        out->cancelled += j->outcome[k][2];
    }
    for (job *jb = j->all; jb; jb = jb->next_all) {
        if (jb->state == ST_DONE || out->n_jobs == n)
            continue;
        cuzk_job_info *ji = &out->jobs[out->n_jobs++];
        snprintf(ji->job_id, sizeof ji->job_id, "%s", jb->id);
        ji->kind = jb->kind;
        ji->priority = jb->prio + 1;
        ji->stage = jb->stage;
        ji->partitions = jb->partitions;
        ji->partitions_done = jb->partitions_done;
        snprintf(ji->circuit_id, sizeof ji->circuit_id, "%s", jb->circuit_id);
        cuzk_kind_stats *ks = &out->kinds[kind_index(jb->kind)];
        if (jb->state == ST_QUEUED)
            ks->pending++;
        else
            ks->in_progress++;
    }
    out->draining = j->draining;
    pthread_mutex_unlock(&j->lock);
    return CUZK_OK;
}

void cuzk_jobs_status_free(cuzk_jobs_status *s)
{
    free(s->jobs);
    s->jobs = NULL;
}

void cuzk_jobs_metrics(cuzk_jobs *j, FILE *f)
{
    cuzk_jobs_status st;
    if (cuzk_jobs_status_get(j, &st))
        return;
    static const char *const outcome[3] = {"completed", "failed", "cancelled"};
    fprintf(f, "# HELP cuzk_jobs_total Jobs ended, by proof kind and outcome.\n"
               "# TYPE cuzk_jobs_total counter\n");
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        uint64_t v[3] = {st.kinds[k].completed, st.kinds[k].failed, st.kinds[k].cancelled};
        for (int o = 0; o < 3; o++)
            fprintf(f, "cuzk_jobs_total{kind=\"%s\",outcome=\"%s\"} %llu\n",
                    cuzk_kind_name(st.kinds[k].kind), outcome[o], (unsigned long long)v[o]);
    }
    fprintf(f, "# HELP cuzk_queue_depth Jobs queued (pending) or running, by proof kind.\n"
               "# TYPE cuzk_queue_depth gauge\n");
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        fprintf(f, "cuzk_queue_depth{kind=\"%s\",state=\"pending\"} %u\n",
                cuzk_kind_name(st.kinds[k].kind), st.kinds[k].pending);
        fprintf(f, "cuzk_queue_depth{kind=\"%s\",state=\"running\"} %u\n",
                cuzk_kind_name(st.kinds[k].kind), st.kinds[k].in_progress);
    }
    cuzk_jobs_status_free(&st);
    fprintf(f, "# HELP cuzk_stage_seconds Duration of each stage of completed jobs.\n"
               "# TYPE cuzk_stage_seconds histogram\n");
    pthread_mutex_lock(&j->lock);
    for (int s = 0; s < N_STAGES; s++) {
        const histogram *h = &j->hist[s];
        uint64_t cum = 0;
        for (int b = 0; b < N_BUCKETS; b++) {
            cum += h->count[b];
            fprintf(f, "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"%g\"} %llu\n", stage_names[s],
                    bucket_le[b], (unsigned long long)cum);
        }
        cum += h->count[N_BUCKETS];
        fprintf(f,
                "cuzk_stage_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %llu\n"
                "cuzk_stage_seconds_sum{stage=\"%s\"} %.6f\n"
                "cuzk_stage_seconds_count{stage=\"%s\"} %llu\n",
                stage_names[s], (unsigned long long)cum, stage_names[s], h->sum, stage_names[s],
                (unsigned long long)cum);
    }
    pthread_mutex_unlock(&j->lock);
}
