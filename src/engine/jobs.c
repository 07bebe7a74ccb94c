/* The engine's jobs (include/cuzk/jobs.h): the job table, the priority
 * queues, submission, await, cancel, drain, status and metrics. The worker
 * threads of the pipeline are in pipeline.c; what both share, and the
 * locking rule, is in engine.h.
 *
 * A job is QUEUED until its first partition is taken (the SRS load counts
 * as taken), RUNNING while any of its partitions is in flight or left to
 * admit, and DONE once, through finish(). Its partitions leave the
 * priority queue one at a time (admission, pipeline.c), so jobs of a higher
 * priority submitted later are admitted before the rest of a running job.
 *
 * Finished jobs keep their result until more than `retain` jobs have
 * finished; the oldest is dropped first, except while an awaiter holds it. */
#define _GNU_SOURCE
#include "engine/engine.h"
#include "cuzk/vanilla.h"
#include "cuzk/c1.h"
#include "cuzk/log.h"
#include "cuzk/synth.h"
#include "cuzk/util.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const stage_names[N_STAGES] = {"queue", "srs_load", "synthesis",
                                                  "prove", "verify",   "total"};
static const double bucket_le[N_BUCKETS] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
                                            2.5,   5,    10,    30,   60,  120,  300, 600};
static const int kind_values[CUZK_JOBS_N_KINDS] = {1, 2, 3, 4, 16, 17, 0};

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

const char *cuzk_part_stage_name(int stage)
{
    static const char *const names[] = {"queued",   "synthesis", "ready",  "prove",
                                        "finalize", "done",      "failed", "cancelled"};
    return stage >= 0 && stage <= CUZK_PART_CANCELLED ? names[stage] : "unknown";
}

/* An ended job's status as its log lines and metrics name it. */
static const char *outcome_name(cuzk_job_status st)
{
    return st == CUZK_JOB_COMPLETED ? "completed" : st == CUZK_JOB_FAILED ? "failed" : "cancelled";
}

void cuzk_job_result_free(cuzk_job_result *r)
{
    free(r->proof);
    free(r->public_inputs);
    r->proof = r->public_inputs = NULL;
    r->proof_size = 0;
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

static void job_free(job *jb)
{
    job_drop_inputs(jb);
    cuzk_post_partition_free(&jb->post);
    cuzk_c1_free(jb->c1);
    for (size_t i = 0; i < jb->n_snap; i++)
        cuzk_snap_partition_proof_free(&jb->snap[i]);
    free(jb->snap);
    for (size_t i = 0; i < jb->n_vanilla; i++)
        cuzk_post_sector_proof_free(&jb->vanilla[i]);
    free(jb->vanilla);
    free(jb->parts);
    cuzk_job_result_free(&jb->res);
    free(jb);
}

uint64_t engine_to_ms(double s)
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

cuzk_err engine_hook(cuzk_jobs *j, cuzk_hook_point pt, const job *jb, uint32_t partition,
                     int device)
{
    if (!j->cfg.hook)
        return CUZK_OK;
    cuzk_hook_event ev = {pt,        jb->id, jb->kind,       jb->prio + 1,
                          partition, device, jb->res.status, jb->circuit_id};
    return j->cfg.hook(j->cfg.hook_ctx, &ev);
}

cuzk_err engine_hook_pin(cuzk_jobs *j, const char *circuit_id, int device)
{
    if (!j->cfg.hook)
        return CUZK_OK;
    cuzk_hook_event ev = {.point = CUZK_HOOK_PIN, .device = device, .circuit_id = circuit_id};
    return j->cfg.hook(j->cfg.hook_ctx, &ev);
}

void engine_unqueue(cuzk_jobs *j, job *jb)
{
    if (!jb->queued)
        return;
    job *prev = NULL;
    for (job *q = j->qhead[jb->prio]; q; prev = q, q = q->next_q)
        if (q == jb) {
            if (prev)
                prev->next_q = q->next_q;
            else
                j->qhead[jb->prio] = q->next_q;
            if (j->qtail[jb->prio] == q)
                j->qtail[jb->prio] = prev;
            break;
        }
    jb->next_q = NULL;
    jb->queued = 0;
    if (jb->state == ST_QUEUED) {
        j->n_queued--;
        j->queued_bytes -= jb->input_bytes;
    }
}

/* Record the end of a job; lock held, nothing of it in flight. */
static void finish(cuzk_jobs *j, job *jb, cuzk_job_status st)
{
    engine_unqueue(j, jb);
    if (jb->state == ST_RUNNING)
        j->n_running--;
    for (uint32_t i = jb->next_admit; i < jb->partitions; i++)
        jb->parts[i].stage = CUZK_PART_CANCELLED;
    if (jb->circ) {
        cuzk_srs_release(j->srs, jb->circ);
        jb->circ = NULL;
    }
    if (jb->syn_w) {
        cuzk_mem_release(j->mem, jb->syn_w, jb->syn_w_bytes);
        jb->syn_w = NULL;
    }
    cuzk_mem_unreserve(j->mem, jb->job_reserved);
    jb->job_reserved = 0;
    jb->state = ST_DONE;
    jb->t_end = cuzk_now();
    jb->res.status = st;
    jb->res.total_ms = engine_to_ms(jb->t_end - jb->t_submit);
    if (!jb->t_start)
        jb->res.queue_wait_ms = jb->res.total_ms;
    job_drop_inputs(jb);
    if (st != CUZK_JOB_COMPLETED) {
        cuzk_job_result_free(&jb->res);
        jb->res.n_partitions = 0;
    }
    j->n_done++;
    if (!j->n_queued && !j->n_running) {
        /* idle: pooled a, b, c buffers go back, and each prover gives back
         * what its device keeps for reuse (the MSM scratch, kept blocks) */
        engine_pool_drain(j);
        for (size_t i = 0; i < j->n_provers; i++)
            j->provers[i].trim = 1;
    }
    int o = st == CUZK_JOB_COMPLETED ? 0 : st == CUZK_JOB_FAILED ? 1 : 2;
    j->outcome[kind_index(jb->kind)][o]++;
    if (st == CUZK_JOB_COMPLETED) {
        double v[N_STAGES] = {jb->res.queue_wait_ms, jb->res.srs_load_ms, jb->res.synthesis_ms,
                              jb->res.prove_ms,      jb->res.verify_ms,   jb->res.total_ms};
        for (int s = 0; s < N_STAGES; s++)
            if (s != 4 || j->cfg.verify_proofs)
                observe(&j->hist[s], v[s] / 1000.0);
        CUZK_INFO("job=%s event=completed kind=%s circuit=%s partitions=%zu queue_ms=%llu "
                  "srs_load_ms=%llu synthesis_ms=%llu prove_ms=%llu verify_ms=%llu total_ms=%llu",
                  jb->id, cuzk_kind_name(jb->kind), jb->res.circuit_id, jb->res.n_partitions,
                  (unsigned long long)jb->res.queue_wait_ms,
                  (unsigned long long)jb->res.srs_load_ms, (unsigned long long)jb->res.synthesis_ms,
                  (unsigned long long)jb->res.prove_ms, (unsigned long long)jb->res.verify_ms,
                  (unsigned long long)jb->res.total_ms);
    } else {
        CUZK_WARN("job=%s event=%s kind=%s total_ms=%llu error=\"%s\"", jb->id, outcome_name(st),
                  cuzk_kind_name(jb->kind), (unsigned long long)jb->res.total_ms, jb->res.error);
    }
    engine_hook(j, CUZK_HOOK_END, jb, 0, -1);
    pthread_cond_broadcast(&j->changed);
    purge(j);
}

int engine_job_stopped(const job *jb)
{
    return jb->failed || atomic_load(&jb->cancel);
}

/* End the job if nothing of it is in flight any more and it has nothing
 * left to do (all partitions proved, or it failed or was cancelled). */
void engine_maybe_finish(cuzk_jobs *j, job *jb)
{
    if (jb->state == ST_DONE || jb->inflight || jb->prep == PREP_RUNNING)
        return;
    if (jb->failed)
        finish(j, jb, CUZK_JOB_FAILED);
    else if (atomic_load(&jb->cancel))
        finish(j, jb, CUZK_JOB_CANCELLED);
    else if (jb->partitions_done == jb->partitions) {
        jb->res.proof_size = (size_t)jb->partitions * CUZK_PROOF_BYTES;
        jb->res.n_partitions = jb->partitions;
        finish(j, jb, CUZK_JOB_COMPLETED);
    }
}

/* Remove the job's partitions from a queue, ending them; lock held. */
static void drop_queued_parts(cuzk_jobs *j, job *jb, part **head, uint32_t *count, int stage)
{
    for (part **pp = head; *pp;) {
        part *p = *pp;
        if (p->jb != jb) {
            pp = &p->next;
            continue;
        }
        *pp = p->next;
        p->next = NULL;
        if (count)
            (*count)--;
        engine_part_end(j, p, stage);
    }
}

/* Stop a running job at its partitions' next boundary: nothing more is
 * admitted, and what waits between stages ends now. */
static void stop_job(cuzk_jobs *j, job *jb)
{
    engine_unqueue(j, jb);
    drop_queued_parts(j, jb, &j->ready, &j->n_ready, CUZK_PART_CANCELLED);
    drop_queued_parts(j, jb, &j->redo, NULL, CUZK_PART_CANCELLED);
    /* The final queue keeps a tail pointer: rebuild it. */
    drop_queued_parts(j, jb, &j->final_head, &j->n_final, CUZK_PART_CANCELLED);
    j->final_tail = NULL;
    for (part *p = j->final_head; p; p = p->next)
        j->final_tail = p;
    engine_maybe_finish(j, jb);
}

void engine_fail_job(cuzk_jobs *j, job *jb, const char *why)
{
    if (jb->state == ST_DONE)
        return;
    if (!engine_job_stopped(jb)) {
        jb->failed = 1;
        snprintf(jb->res.error, sizeof jb->res.error, "%.1000s", why);
    }
    stop_job(j, jb);
}

void engine_part_end(cuzk_jobs *j, part *p, int stage)
{
    job *jb = p->jb;
    engine_w_put(j, p);
    engine_abc_put(j, p);
    engine_wpack_drop(j, p);
    free(p->pub);
    p->pub = NULL;
    cuzk_mem_unreserve(j->mem, p->reserved);
    p->reserved = 0;
    p->stage = stage;
    if (stage == CUZK_PART_DONE)
        jb->partitions_done++;
    jb->inflight--;
    engine_maybe_finish(j, jb);
    pthread_cond_broadcast(&j->changed);
}

void cuzk_jobs_free(cuzk_jobs *j)
{
    if (!j)
        return;
    cuzk_jobs_drain(j, 0);
    engine_pool_drain(j);
    engine_pins_free(j);
    engine_workers_free(j);
    for (job *jb = j->all, *nx; jb; jb = nx) {
        nx = jb->next_all;
        job_free(jb);
    }
    cuzk_mem_free(j->mem);
    pthread_mutex_destroy(&j->lock);
    pthread_mutex_destroy(&j->gen_lock);
    pthread_cond_destroy(&j->changed);
    free(j->param_dir);
    free(j->filecoin_dir);
    free(j->pce_dir);
    free(j->backend);
    free(j);
}

cuzk_err cuzk_jobs_new(const cuzk_jobs_config *cfg, cuzk_srs_manager *srs, cuzk_jobs **out)
{
    *out = NULL;
    if (cfg->workers < 1 || cfg->retain < 1)
        return cuzk_fail(CUZK_EINVAL, "jobs: workers and retain must be >= 1");
    if (cfg->n_gpu_devices > CUZK_JOBS_MAX_DEVICES)
        return cuzk_fail(CUZK_EINVAL, "jobs: at most %d devices (got %zu)", CUZK_JOBS_MAX_DEVICES,
                         cfg->n_gpu_devices);
    cuzk_jobs *j = calloc(1, sizeof *j);
    if (!j)
        return cuzk_fail(CUZK_ENOMEM, "jobs: out of memory");
    pthread_mutex_init(&j->lock, NULL);
    pthread_mutex_init(&j->gen_lock, NULL);
    pthread_cond_init(&j->changed, NULL);
    j->cfg = *cfg;
    j->srs = srs;
    if (!j->cfg.synthesis_workers)
        j->cfg.synthesis_workers = 2;
    if (!j->cfg.finalizers)
        j->cfg.finalizers = 1;
    if (!j->cfg.max_batch_size)
        j->cfg.max_batch_size = 1;
    if (!j->cfg.mem_sample_ms)
        j->cfg.mem_sample_ms = 50;
    j->param_dir = strdup(cfg->param_dir ? cfg->param_dir : ".");
    j->filecoin_dir = strdup(cfg->filecoin_dir ? cfg->filecoin_dir
                             : j->param_dir    ? j->param_dir
                                               : ".");
    j->pce_dir = strdup(cfg->pce_dir ? cfg->pce_dir : j->filecoin_dir ? j->filecoin_dir : ".");
    j->backend = strdup(cfg->backend ? cfg->backend : "cpu");
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    /* Ids differ across restarts so a stale id is "unknown", never another job. */
    j->next_id = ((uint64_t)ts.tv_sec << 20) ^ (uint64_t)ts.tv_nsec;
    cuzk_err rc = CUZK_OK;
    if (!j->param_dir || !j->backend || !j->filecoin_dir || !j->pce_dir)
        rc = cuzk_fail(CUZK_ENOMEM, "jobs: out of memory");
    else
        rc = cuzk_mem_new(cfg->memory_budget, j->cfg.mem_sample_ms, &j->mem);
    cuzk_mem_tune_allocator();
    j->cfg.param_dir = j->param_dir;
    j->cfg.filecoin_dir = j->filecoin_dir;
    j->cfg.pce_dir = j->pce_dir;
    j->cfg.backend = j->backend;
    if (!rc)
        rc = engine_workers_start(j);
    j->cfg.gpu_devices = NULL; /* borrowed: used only by engine_workers_start */
    if (rc) {
        cuzk_jobs_free(j);
        return rc;
    }
    *out = j;
    return CUZK_OK;
}

const char *cuzk_jobs_backend(const cuzk_jobs *j)
{
    return cuzk_backend_name(j->provers[0].be);
}

/* The registry entry a Filecoin request names (cuzk_fc_resolve), refused
 * at once when cuzk lists it without proving it: a permanent refusal,
 * not one to retry. */
static cuzk_err resolve_request(const cuzk_job_request *r, cuzk_fc_family f,
                                const cuzk_fc_proof **fp)
{
    if (cuzk_fc_resolve(f, r->registered_proof, r->sector_size, fp))
        return cuzk_fail_ctx(CUZK_EINVAL, "%s: ", cuzk_kind_name(r->kind));
    if (!(*fp)->supported)
        return cuzk_fail(CUZK_EINVAL,
                         "%s: registered_proof %llu (%s) is %s, which this daemon does not "
                         "prove (`cuzk filecoin list` shows which it does)",
                         cuzk_kind_name(r->kind), (unsigned long long)r->registered_proof,
                         (*fp)->name, (*fp)->feature[0] ? (*fp)->feature : "a proof type");
    return CUZK_OK;
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
    if (r->kind == CUZK_KIND_WINNING_POST || r->kind == CUZK_KIND_WINDOW_POST_PARTITION) {
        const cuzk_fc_proof *fp;
        cuzk_fc_family f = r->kind == CUZK_KIND_WINNING_POST ? CUZK_FC_WINNING : CUZK_FC_WINDOW;
        CUZK_TRY(resolve_request(r, f, &fp));
        size_t max = f == CUZK_FC_WINNING ? 1 : fp->sectors;
        if (r->n_vanilla < 1 || r->n_vanilla > max)
            return cuzk_fail(CUZK_EINVAL,
                             "%s: %zu vanilla_proofs; %s takes 1..%zu (one per sector)",
                             cuzk_kind_name(r->kind), r->n_vanilla, fp->name, max);
        if (r->randomness_len != 32)
            return cuzk_fail(CUZK_EINVAL, "%s: randomness has %zu bytes (32 expected)",
                             cuzk_kind_name(r->kind), r->randomness_len);
    } else if (r->kind == CUZK_KIND_POREP_SEAL_COMMIT) {
        const cuzk_fc_proof *fp;
        CUZK_TRY(resolve_request(r, CUZK_FC_SEAL, &fp));
        if (r->n_vanilla != 1)
            return cuzk_fail(CUZK_EINVAL,
                             "%s: the C1 output comes as one vanilla_proof (Curio's envelope); "
                             "got %zu",
                             cuzk_kind_name(r->kind), r->n_vanilla);
        if (fp->partitions > CUZK_JOB_MAX_PARTITIONS)
            return cuzk_fail(CUZK_EINVAL, "%s: %s has %u partitions, more than %d",
                             cuzk_kind_name(r->kind), fp->name, fp->partitions,
                             CUZK_JOB_MAX_PARTITIONS);
    } else if (r->kind == CUZK_KIND_SNAP_DEALS_UPDATE) {
        const cuzk_fc_proof *fp;
        CUZK_TRY(resolve_request(r, CUZK_FC_UPDATE, &fp));
        if (r->n_vanilla != fp->partitions)
            return cuzk_fail(CUZK_EINVAL,
                             "%s: %zu vanilla_proofs; %s takes %u, one PartitionProof per "
                             "partition",
                             cuzk_kind_name(r->kind), r->n_vanilla, fp->name, fp->partitions);
        const struct {
            const char *name;
            const uint8_t *v;
            size_t len;
        } comm[3] = {{"comm_r_old", r->comm_r_old, r->comm_r_old_len},
                     {"comm_d_new", r->comm_d_new, r->comm_d_new_len},
                     {"comm_r_new", r->comm_r_new, r->comm_r_new_len}};
        for (int i = 0; i < 3; i++) {
            cuzk_fr x;
            if (comm[i].len != 32 || !comm[i].v)
                return cuzk_fail(CUZK_EINVAL, "%s: %s has %zu bytes (32 expected)",
                                 cuzk_kind_name(r->kind), comm[i].name, comm[i].len);
            if (cuzk_fr_from_bytes_le(&x, comm[i].v))
                return cuzk_fail(CUZK_EINVAL, "%s: %s is not a canonical field element",
                                 cuzk_kind_name(r->kind), comm[i].name);
        }
    } else if (r->n_vanilla) {
        return cuzk_fail(CUZK_EINVAL, "vanilla proofs are only for Filecoin jobs (kind %s)",
                         cuzk_kind_name(r->kind));
    }
    if (r->kind == CUZK_KIND_SYNTHETIC && j->cfg.synthetic_disabled)
        return cuzk_fail(CUZK_EINVAL,
                         "SYNTHETIC jobs are disabled in this daemon: set [synthetic] enabled = "
                         "true in its config (or --set synthetic.enabled=true) to accept them");
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

/* Copy a request's input images (witnesses or vanilla proofs) into the job;
 * 0 when out of memory (what was copied is freed with the job). */
static int copy_inputs(job *jb, const uint8_t *const *in, const size_t *sizes, size_t n)
{
    jb->wit = calloc(n, sizeof *jb->wit);
    jb->wit_size = calloc(n, sizeof *jb->wit_size);
    if (!jb->wit || !jb->wit_size)
        return 0;
    jb->n_wit = n;
    for (size_t i = 0; i < n; i++) {
        if (!(jb->wit[i] = malloc(sizes[i] + 1)))
            return 0;
        memcpy(jb->wit[i], in[i], sizes[i]);
        jb->wit_size[i] = sizes[i];
        jb->input_bytes += sizes[i];
    }
    return 1;
}

/* The digest of what the engine itself knows of a request; every field
 * length-prefixed, so that no two requests hash the same bytes. */
static cuzk_err request_digest(const cuzk_job_request *r, uint8_t out[32])
{
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    if (!h || EVP_DigestInit_ex(h, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(h);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    uint64_t head[12] = {(uint64_t)r->kind, r->sector_number,           r->synthetic_constraints,
                         r->synthetic_seed, r->synthetic_public_inputs, r->synthetic_partitions,
                         r->n_witnesses,    r->registered_proof,        r->sector_size,
                         r->miner_id,       r->partition_index,         r->n_vanilla};
    uint64_t id_len = r->circuit_id ? strlen(r->circuit_id) : 0, rl = r->randomness_len;
    EVP_DigestUpdate(h, head, sizeof head);
    EVP_DigestUpdate(h, &id_len, sizeof id_len);
    EVP_DigestUpdate(h, r->circuit_id ? r->circuit_id : "", id_len);
    EVP_DigestUpdate(h, &rl, sizeof rl);
    EVP_DigestUpdate(h, r->randomness ? r->randomness : (const uint8_t *)"", rl);
    const uint8_t *comm[3] = {r->comm_r_old, r->comm_d_new, r->comm_r_new};
    size_t comm_len[3] = {r->comm_r_old_len, r->comm_d_new_len, r->comm_r_new_len};
    for (int i = 0; i < 3; i++) {
        uint64_t n = comm[i] ? comm_len[i] : 0;
        EVP_DigestUpdate(h, &n, sizeof n);
        EVP_DigestUpdate(h, comm[i] ? comm[i] : (const uint8_t *)"", n);
    }
    for (size_t i = 0; i < r->n_witnesses; i++) {
        uint64_t n = r->witness_sizes[i];
        EVP_DigestUpdate(h, &n, sizeof n);
        EVP_DigestUpdate(h, r->witnesses[i], r->witness_sizes[i]);
    }
    for (size_t i = 0; i < r->n_vanilla; i++) {
        uint64_t n = r->vanilla_sizes[i];
        EVP_DigestUpdate(h, &n, sizeof n);
        EVP_DigestUpdate(h, r->vanilla_proofs[i], r->vanilla_sizes[i]);
    }
    unsigned len = 0;
    EVP_DigestFinal_ex(h, out, &len);
    EVP_MD_CTX_free(h);
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
    if (jb->request_id[0]) {
        cuzk_err e = CUZK_OK;
        if (r->payload_digest)
            memcpy(jb->digest, r->payload_digest, sizeof jb->digest);
        else
            e = request_digest(r, jb->digest);
        if (e) {
            free(jb);
            return e;
        }
    }
    jb->partitions = 1;
    if (r->kind == CUZK_KIND_GENERIC_R1CS) {
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "%s", r->circuit_id);
        jb->partitions = (uint32_t)r->n_witnesses;
        if (!copy_inputs(jb, r->witnesses, r->witness_sizes, r->n_witnesses)) {
            job_free(jb);
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the witnesses");
        }
    } else if (r->kind == CUZK_KIND_WINNING_POST || r->kind == CUZK_KIND_WINDOW_POST_PARTITION) {
        cuzk_fc_resolve(r->kind == CUZK_KIND_WINNING_POST ? CUZK_FC_WINNING : CUZK_FC_WINDOW,
                        r->registered_proof, r->sector_size, &jb->fc);
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "%s", jb->fc->circuit_id);
        memcpy(jb->randomness, r->randomness, 32);
        jb->partition_index = r->partition_index;
        if (!copy_inputs(jb, r->vanilla_proofs, r->vanilla_sizes, r->n_vanilla)) {
            job_free(jb);
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the vanilla proofs");
        }
    } else if (r->kind == CUZK_KIND_POREP_SEAL_COMMIT) {
        cuzk_fc_resolve(CUZK_FC_SEAL, r->registered_proof, r->sector_size, &jb->fc);
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "%s", jb->fc->circuit_id);
        jb->partitions = jb->fc->partitions;
        jb->sector_number = r->sector_number;
        jb->miner_id = r->miner_id;
        if (!copy_inputs(jb, r->vanilla_proofs, r->vanilla_sizes, r->n_vanilla)) {
            job_free(jb);
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the C1 output");
        }
    } else if (r->kind == CUZK_KIND_SNAP_DEALS_UPDATE) {
        cuzk_fc_resolve(CUZK_FC_UPDATE, r->registered_proof, r->sector_size, &jb->fc);
        snprintf(jb->circuit_id, sizeof jb->circuit_id, "%s", jb->fc->circuit_id);
        jb->partitions = jb->fc->partitions;
        /* canonical: check_request decoded them */
        cuzk_fr_from_bytes_le(&jb->snap_comm[0], r->comm_r_old);
        cuzk_fr_from_bytes_le(&jb->snap_comm[1], r->comm_d_new);
        cuzk_fr_from_bytes_le(&jb->snap_comm[2], r->comm_r_new);
        if (!copy_inputs(jb, r->vanilla_proofs, r->vanilla_sizes, r->n_vanilla)) {
            job_free(jb);
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the partition proofs");
        }
    } else if (r->kind == CUZK_KIND_SYNTHETIC) {
        jb->syn_n = r->synthetic_constraints;
        jb->syn_public = r->synthetic_public_inputs;
        jb->syn_seed = r->synthetic_seed;
        jb->partitions = r->synthetic_partitions ? r->synthetic_partitions : 1;
        cuzk_synthetic_id(r, jb->circuit_id);
    }
    snprintf(jb->res.circuit_id, sizeof jb->res.circuit_id, "%s", jb->circuit_id);
    jb->parts = calloc(jb->partitions, sizeof *jb->parts);
    if (!jb->parts) {
        job_free(jb);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < jb->partitions; i++) {
        jb->parts[i].jb = jb;
        jb->parts[i].index = i;
        jb->parts[i].device = -1;
    }

    pthread_mutex_lock(&j->lock);
    /* A request_id already known (its newest job: the list runs newest
     * first) is a retry while that job runs or once it has completed: the
     * same payload gets that job, another payload is refused while the job
     * runs. Once it has ended without a proof (failed, cancelled), or has
     * completed for another payload, the id is free again and this request
     * is a new job: a client that derives its ids from what it proves (a
     * sector number) retries a failed proof, or proves that sector again
     * with new data, without ever being answered with another request's
     * proof. */
    job *prev = NULL;
    if (jb->request_id[0])
        for (job *o = j->all; o && !prev; o = o->next_all)
            if (!strcmp(o->request_id, jb->request_id))
                prev = o;
    if (prev) {
        int same = !memcmp(prev->digest, jb->digest, sizeof jb->digest);
        int live = prev->state != ST_DONE;
        if (live || (same && prev->res.status == CUZK_JOB_COMPLETED)) {
            cuzk_err rc = CUZK_OK;
            if (!same)
                rc = cuzk_fail(CUZK_EINVAL,
                               "request_id \"%s\" names another request still in progress (job "
                               "%s, kind %s): reuse it once that job has ended, or use a new one",
                               jb->request_id, prev->id, cuzk_kind_name(prev->kind));
            else {
                snprintf(job_id, CUZK_JOB_ID_MAX, "%s", prev->id);
                *existing = 1;
            }
            pthread_mutex_unlock(&j->lock);
            job_free(jb);
            return rc;
        }
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
    jb->queued = 1;
    uint32_t ahead = (uint32_t)j->n_running;
    for (int p = N_PRIO - 1; p >= jb->prio; p--)
        for (job *q = j->qhead[p]; q; q = q->next_q)
            ahead += q->state == ST_QUEUED;
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
    char reuse[CUZK_JOB_ID_MAX + 64] = "";
    if (prev) /* the id's earlier job ended: say which, and how */
        snprintf(reuse, sizeof reuse, " request_id_reused_from=%s previous_status=%s", prev->id,
                 outcome_name(prev->res.status));
    CUZK_INFO("job=%s event=submitted kind=%s priority=%s circuit=%s partitions=%u "
              "queue_position=%u request_id=%s%s",
              jb->id, cuzk_kind_name(jb->kind), cuzk_priority_name(jb->prio + 1),
              jb->circuit_id[0] ? jb->circuit_id : "-", jb->partitions, ahead,
              jb->request_id[0] ? jb->request_id : "-", reuse);
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    return CUZK_OK;
}

/* The stage a job is in, for status: its most advanced partition in
 * flight. */
static const char *job_stage(const job *jb)
{
    if (jb->state == ST_DONE)
        return "done";
    if (jb->state == ST_QUEUED)
        return "queued";
    if (jb->prep == PREP_RUNNING)
        return "srs_load";
    int best = -1;
    for (uint32_t i = 0; i < jb->partitions; i++) {
        int s = jb->parts[i].stage;
        if (s >= CUZK_PART_SYNTHESIS && s <= CUZK_PART_FINALIZE && s > best)
            best = s;
    }
    return best == CUZK_PART_PROVE      ? "prove"
           : best == CUZK_PART_FINALIZE ? "verify"
           : best >= 0                  ? "synthesis"
                                        : "admission";
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
    struct timespec dl;
    cuzk_deadline_in_ms(timeout_ms, &dl);
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
        if (timed_out)
            snprintf(out->error, sizeof out->error, "job still %s after %llu ms", job_stage(jb),
                     (unsigned long long)timeout_ms);
        else
            snprintf(out->error, sizeof out->error,
                     "job still %s: the wait was abandoned (the client went away)", job_stage(jb));
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
        snprintf(jb->res.error, sizeof jb->res.error, "cancelled while queued");
        atomic_store(&jb->cancel, 1);
        finish(j, jb, CUZK_JOB_CANCELLED);
    } else if (jb->state == ST_RUNNING && !engine_job_stopped(jb)) {
        *was_running = 1;
        snprintf(jb->res.error, sizeof jb->res.error,
                 "cancelled at a partition boundary (the job was in %s)", job_stage(jb));
        CUZK_INFO("job=%s event=cancel_requested stage=%s", jb->id, job_stage(jb));
        atomic_store(&jb->cancel, 1);
        stop_job(j, jb);
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

/* End the jobs a shutdown stops: the queued ones at once (CANCELLED), and
 * with running too, the running ones at their partitions' next boundary.
 * finish() may drop other finished jobs from the list: look again from the
 * start after each one. Lock held. */
static void cancel_for_shutdown(cuzk_jobs *j, int running_too)
{
    for (;;) {
        job *jb = j->all;
        while (jb && !(jb->state == ST_QUEUED ||
                       (running_too && jb->state == ST_RUNNING && !engine_job_stopped(jb))))
            jb = jb->next_all;
        if (!jb)
            break;
        if (jb->state == ST_QUEUED) {
            snprintf(jb->res.error, sizeof jb->res.error,
                     "cancelled while queued: daemon shutting down");
            CUZK_INFO("job=%s event=cancel_requested stage=queued reason=shutdown", jb->id);
            atomic_store(&jb->cancel, 1);
            finish(j, jb, CUZK_JOB_CANCELLED);
        } else {
            snprintf(jb->res.error, sizeof jb->res.error,
                     "cancelled at a partition boundary: daemon shutting down");
            CUZK_INFO("job=%s event=cancel_requested stage=%s reason=shutdown", jb->id,
                      job_stage(jb));
            atomic_store(&jb->cancel, 1);
            stop_job(j, jb);
        }
    }
}

void cuzk_jobs_drain(cuzk_jobs *j, double grace_s)
{
    pthread_mutex_lock(&j->lock);
    j->draining = 1;
    /* Nothing new starts once a shutdown begins: the grace period is for
     * the jobs already running. */
    cancel_for_shutdown(j, 0);
    double end = cuzk_now() + grace_s;
    while (j->n_running > 0 && cuzk_now() < end) {
        struct timespec ts;
        cuzk_deadline_in_ms(100, &ts);
        pthread_cond_timedwait(&j->changed, &j->lock, &ts);
    }
    cancel_for_shutdown(j, 1);
    /* Workers end the partitions they hold at their next boundary. */
    while (j->n_running > 0)
        pthread_cond_wait(&j->changed, &j->lock);
    pthread_mutex_unlock(&j->lock);
    engine_workers_stop(j);
}

cuzk_err cuzk_jobs_status_get(cuzk_jobs *j, cuzk_jobs_status *out)
{
    memset(out, 0, sizeof *out);
    uint64_t srs_bytes = engine_srs_bytes(j);
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
        ji->stage = job_stage(jb);
        ji->partitions = jb->partitions;
        ji->partitions_done = jb->partitions_done;
        snprintf(ji->circuit_id, sizeof ji->circuit_id, "%s", jb->circuit_id);
        for (uint32_t i = 0; i < jb->partitions; i++) {
            ji->part_stage[i] = (uint8_t)jb->parts[i].stage;
            ji->part_device[i] = (int8_t)jb->parts[i].device;
        }
        cuzk_kind_stats *ks = &out->kinds[kind_index(jb->kind)];
        if (jb->state == ST_QUEUED)
            ks->pending++;
        else
            ks->in_progress++;
    }
    out->draining = j->draining;
    out->n_devices = j->n_devices;
    for (size_t d = 0; d < j->n_devices; d++) {
        const device *dv = &j->devices[d];
        cuzk_jobs_device *o = &out->devices[d];
        o->ordinal = dv->ordinal;
        o->healthy = dv->healthy;
        o->workers = dv->workers;
        o->partitions = dv->partitions;
        o->busy_s = dv->busy_s;
        o->device_s = dv->device_s;
        snprintf(o->error, sizeof o->error, "%s", dv->error);
        if (dv->current) {
            snprintf(o->current_job, sizeof o->current_job, "%s", dv->current->id);
            o->current_kind = dv->current->kind;
        }
    }
    out->synthesizing = j->n_synth;
    out->ready = j->n_ready;
    out->proving = j->n_prove;
    out->finalizing = j->n_final;
    for (size_t i = 0; i < j->n_pool; i++)
        out->pooled_bytes += j->pool[i].bytes;
    out->witness_buffers_reused = __atomic_load_n(&j->w_reused, __ATOMIC_RELAXED);
    out->taken_ahead = j->ahead;
    out->ahead_given_back = j->ahead_back;
    pthread_mutex_unlock(&j->lock);
    cuzk_mem_stats_get(j->mem, &out->mem);
    out->srs_bytes = srs_bytes;
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
    fprintf(f, "# HELP cuzk_jobs_total Jobs ended, by proof kind and outcome.\n"
               "# TYPE cuzk_jobs_total counter\n");
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        uint64_t v[3] = {st.kinds[k].completed, st.kinds[k].failed, st.kinds[k].cancelled};
        for (int o = 0; o < 3; o++)
            fprintf(f, "cuzk_jobs_total{kind=\"%s\",outcome=\"%s\"} %llu\n",
                    cuzk_kind_name(st.kinds[k].kind), outcome_name(CUZK_JOB_COMPLETED + o),
                    (unsigned long long)v[o]);
    }
    fprintf(f, "# HELP cuzk_queue_depth Jobs queued (pending) or running, by proof kind.\n"
               "# TYPE cuzk_queue_depth gauge\n");
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        fprintf(f, "cuzk_queue_depth{kind=\"%s\",state=\"pending\"} %u\n",
                cuzk_kind_name(st.kinds[k].kind), st.kinds[k].pending);
        fprintf(f, "cuzk_queue_depth{kind=\"%s\",state=\"running\"} %u\n",
                cuzk_kind_name(st.kinds[k].kind), st.kinds[k].in_progress);
    }
    fprintf(f,
            "# HELP cuzk_partitions Partitions in each stage of the pipeline.\n"
            "# TYPE cuzk_partitions gauge\n"
            "cuzk_partitions{stage=\"synthesis\"} %u\ncuzk_partitions{stage=\"ready\"} %u\n"
            "cuzk_partitions{stage=\"prove\"} %u\ncuzk_partitions{stage=\"finalize\"} %u\n",
            st.synthesizing, st.ready, st.proving, st.finalizing);
    fprintf(f,
            "# HELP cuzk_memory_bytes The memory budget and what counts against it: reserved "
            "working sets, their allocated bytes, the resident SRS, and peaks.\n"
            "# TYPE cuzk_memory_bytes gauge\n"
            "cuzk_memory_bytes{what=\"budget\"} %llu\ncuzk_memory_bytes{what=\"reserved\"} %llu\n"
            "cuzk_memory_bytes{what=\"reserved_peak\"} %llu\n"
            "cuzk_memory_bytes{what=\"allocated\"} %llu\n"
            "cuzk_memory_bytes{what=\"allocated_peak\"} %llu\n"
            "cuzk_memory_bytes{what=\"srs\"} %llu\ncuzk_memory_bytes{what=\"rss_peak\"} %llu\n"
            "# HELP cuzk_admissions_total Partitions admitted, and admissions refused for "
            "memory (each retried later).\n"
            "# TYPE cuzk_admissions_total counter\n"
            "cuzk_admissions_total{outcome=\"admitted\"} %llu\n"
            "cuzk_admissions_total{outcome=\"refused\"} %llu\n",
            (unsigned long long)st.mem.budget, (unsigned long long)st.mem.reserved,
            (unsigned long long)st.mem.peak_reserved, (unsigned long long)st.mem.allocated,
            (unsigned long long)st.mem.peak_allocated, (unsigned long long)st.srs_bytes,
            (unsigned long long)st.mem.peak_rss, (unsigned long long)st.mem.admissions,
            (unsigned long long)st.mem.refusals);
    fprintf(f, "# HELP cuzk_device_healthy Whether a prove device takes work (cpu = -1).\n"
               "# TYPE cuzk_device_healthy gauge\n");
    for (size_t d = 0; d < st.n_devices; d++)
        fprintf(f, "cuzk_device_healthy{device=\"%d\"} %d\n", st.devices[d].ordinal,
                st.devices[d].healthy);
    fprintf(f, "# HELP cuzk_device_busy_seconds_total Time prove workers spent proving.\n"
               "# TYPE cuzk_device_busy_seconds_total counter\n");
    for (size_t d = 0; d < st.n_devices; d++)
        fprintf(f, "cuzk_device_busy_seconds_total{device=\"%d\"} %.3f\n", st.devices[d].ordinal,
                st.devices[d].busy_s);
    fprintf(f, "# HELP cuzk_device_partitions_total Partitions proved per device.\n"
               "# TYPE cuzk_device_partitions_total counter\n");
    for (size_t d = 0; d < st.n_devices; d++)
        fprintf(f, "cuzk_device_partitions_total{device=\"%d\"} %llu\n", st.devices[d].ordinal,
                (unsigned long long)st.devices[d].partitions);
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

cuzk_err cuzk_jobs_filecoin_circuit(cuzk_jobs *j, const char *circuit_id, int *is_filecoin)
{
    const cuzk_fc_proof *fp = cuzk_fc_by_circuit(circuit_id);
    *is_filecoin = fp != NULL;
    if (!fp)
        return CUZK_OK;
    if (!fp->supported)
        return cuzk_fail(CUZK_EUNSUPPORTED, "%s (%s): circuit not available yet", circuit_id,
                         fp->name);
    return engine_filecoin_circuit(j, fp, "preload");
}
