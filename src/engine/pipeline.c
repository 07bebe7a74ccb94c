/* The engine's pipeline (jobs.h): synthesis workers -> prove workers ->
 * finalizers, with admission in front.
 *
 * Admission (next_task, lock held) walks the priority queues from CRITICAL
 * down, FIFO within a level. A job seen for the first time is prepared by
 * the worker that finds it (synthetic files generated if needed, the SRS
 * acquired, the working-set profile computed); after that its partitions
 * are admitted one at a time, each only when
 *   - the pipeline has room: partitions in synthesis or waiting for a
 *     prove worker stay below pipeline_depth (backpressure: the CPU never
 *     runs further ahead of the GPUs than that), and
 *   - the memory accountant can reserve the partition's profile next to the
 *     resident SRS within the budget.
 * With `lookahead`, when the pipeline is full one partition may still be
 * admitted ahead:
 * the first of a synthetic job behind, whose shared witness takes seconds
 * of single-threaded work to build, so that it is ready when the job's
 * turn comes (memory permitting; it is not counted against the depth while
 * it builds). When the job at the head cannot be admitted for memory,
 * admission waits:
 * lower priorities do not overtake it (they would starve it); nor do they
 * while a job of a higher level is being prepared (its SRS load, a
 * synthetic witness), though jobs behind it at its own level may. Partitions
 * whose a, b, c were consumed by a failed prove attempt are synthesized
 * again first (the redo list); they keep their reservation.
 *
 * Prove workers take ready partitions by priority, then admission order,
 * preferring ones whose circuit last ran on their device (its bases are
 * resident there) and leaving a partition to another idle device that has
 * its circuit when they have not; up to max_batch_size partitions of one
 * circuit are taken in a row. Errors: EINVAL is the job's fault (it fails);
 * ENOMEM on a GPU halves the worker's batch and retries the partition once;
 * anything else from a GPU marks the device unhealthy, its worker stops, and
 * the partition is synthesized again for another device.
 *
 * srs_device_only: a preload (cuzk_jobs_srs_loaded) or a job's
 * preparation asks every prove worker to keep the circuit's parameters on
 * its device; idle workers do so before taking partitions, and the last one
 * releases the host copy. The circuit's
 * partitions are admitted only after that (or once it failed, when the host
 * copy stays), so the working sets never meet the host copy in memory.
 *
 * Finalizers verify (verify_proofs) and encode the proof into the job's
 * result. Every exit of every stage goes through engine_part_end, which
 * frees the partition's memory and may end its job. */
#define _GNU_SOURCE
#include "cuzk/c1.h"
#include "cuzk/cs.h"
#include "cuzk/curio.h"
#include "cuzk/gen.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/log.h"
#include "cuzk/pce.h"
#include "cuzk/progress.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"
#include "engine/engine.h"
#include "cuzk/fc_circuit.h"
#include "cuzk/snap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { T_PREPARE, T_SYNTH };

typedef struct {
    int what;
    job *jb;
    part *p;
} task;

static uint64_t srs_used(cuzk_jobs *j, uint64_t *unused_hot)
{
    cuzk_srs_info *list = NULL;
    size_t n = 0;
    cuzk_srs_totals t;
    *unused_hot = 0;
    if (cuzk_srs_snapshot(j->srs, &list, &n, &t))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (list[i].tier == CUZK_SRS_HOT && !list[i].ref_count && !list[i].loading)
            *unused_hot += list[i].size_bytes;
    free(list);
    return t.used_bytes;
}

uint64_t engine_srs_bytes(cuzk_jobs *j)
{
    uint64_t unused;
    return srs_used(j, &unused);
}

/* Demote every resident circuit no job uses, to make room for work. */
static void evict_unused_srs(cuzk_jobs *j)
{
    cuzk_srs_info *list = NULL;
    size_t n = 0;
    cuzk_srs_totals t;
    if (cuzk_srs_snapshot(j->srs, &list, &n, &t))
        return;
    for (size_t i = 0; i < n; i++)
        if (list[i].tier == CUZK_SRS_HOT && !list[i].ref_count && !list[i].loading) {
            int was;
            uint64_t freed;
            uint32_t in_use;
            if (cuzk_srs_evict(j->srs, list[i].id, &was, &freed, &in_use) == CUZK_OK)
                CUZK_INFO("event=srs_evicted circuit=%s freed=%llu reason=memory_budget",
                          list[i].id, (unsigned long long)freed);
        }
    free(list);
}

/* Reserve `need` bytes for work (or, commit == 0, only check that they
 * fit), demoting unused SRS if that makes them fit. */
static int reserve(cuzk_jobs *j, uint64_t need, int commit)
{
    uint64_t unused, used = srs_used(j, &unused);
    if (commit ? cuzk_mem_try_reserve(j->mem, need, used) : cuzk_mem_fits(j->mem, need, used))
        return 1;
    if (unused && cuzk_mem_fits(j->mem, need, used - unused)) {
        evict_unused_srs(j);
        used = srs_used(j, &unused);
        return commit ? cuzk_mem_try_reserve(j->mem, need, used)
                      : cuzk_mem_fits(j->mem, need, used);
    }
    return 0;
}

static int healthy_devices(const cuzk_jobs *j)
{
    int n = 0;
    for (size_t d = 0; d < j->n_devices; d++)
        n += j->devices[d].healthy;
    return n;
}

/* Bytes that acquiring circuit `id` would add to the resident SRS (0 when
 * it is resident, or unknown yet). */
static uint64_t srs_load_bytes(cuzk_jobs *j, const char *id)
{
    cuzk_srs_info *list = NULL;
    size_t n = 0;
    cuzk_srs_totals t;
    uint64_t need = 0;
    if (cuzk_srs_snapshot(j->srs, &list, &n, &t))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i].id, id) && list[i].tier != CUZK_SRS_HOT && !list[i].loading)
            need = list[i].size_bytes;
    free(list);
    return need;
}

void engine_abc_put(cuzk_jobs *j, part *p)
{
    if (!p->abc)
        return;
    if (j->n_pool < j->pool_max && j->n_pool < N_POOL && p->reserved >= p->abc_bytes) {
        j->pool[j->n_pool++] = (pooled){p->abc, p->abc_bytes, p->abc_pinned, 0};
        p->reserved -= p->abc_bytes; /* the pool holds that part now */
    } else {
        cuzk_backend_host_free(p->abc, p->abc_pinned);
        cuzk_mem_uncharge(j->mem, p->abc_bytes);
    }
    p->abc = NULL;
    p->abc_bytes = 0;
}

/* A witness buffer of the partition's job: pooled for the next partition
 * of that size (its reservation moves to the pool) or freed. */
static void w_buffer_put(cuzk_jobs *j, part *p, cuzk_fr *buf, size_t bytes)
{
    if (p->jb->w_pool_bytes == bytes && j->n_pool < j->pool_max && j->n_pool < N_POOL &&
        p->reserved >= bytes) {
        j->pool[j->n_pool++] = (pooled){buf, bytes, 0, 1};
        p->reserved -= bytes;
    } else {
        cuzk_mem_release(j->mem, buf, bytes);
    }
}

void engine_w_put(cuzk_jobs *j, part *p)
{
    if (p->w)
        w_buffer_put(j, p, p->w, p->w_bytes);
    if (p->w_offer)
        w_buffer_put(j, p, p->w_offer, p->w_offer_bytes);
    p->w = p->w_offer = NULL;
    p->w_bytes = p->w_offer_bytes = 0;
}

void engine_wpack_drop(cuzk_jobs *j, part *p)
{
    if (!p->wp)
        return;
    cuzk_wpack_free(p->wp);
    cuzk_mem_uncharge(j->mem, p->wp_bytes);
    p->wp = NULL;
    p->wp_bytes = 0;
}

void engine_pool_drain(cuzk_jobs *j)
{
    for (size_t i = 0; i < j->n_pool; i++) {
        cuzk_backend_host_free(j->pool[i].p, j->pool[i].pinned);
        cuzk_mem_uncharge(j->mem, j->pool[i].bytes);
        cuzk_mem_unreserve(j->mem, j->pool[i].bytes);
    }
    j->n_pool = 0;
}

static pinned_srs *pin_find(cuzk_jobs *j, const cuzk_srs_circuit *c)
{
    for (int i = 0; i < N_PINNED; i++)
        if (j->pinned[i].circ && j->pinned[i].circ->params == c->params)
            return &j->pinned[i];
    return NULL;
}

/* Whether partitions of the job's circuit must wait for its parameters to
 * reach the devices (srs_device_only). Lock held. */
static int pin_pending(cuzk_jobs *j, const job *jb)
{
    const pinned_srs *ps = jb->circ ? pin_find(j, jb->circ) : NULL;
    return ps && !ps->released && !ps->failed;
}

/* srs_device_only: ask every prove worker to keep a loaded circuit's
 * parameters on its device (once per circuit), after a job's preparation
 * or a preload. who: the log line's subject. Lock held; the circuit is
 * resident, so acquiring it does not load anything. */
static void pin_request_circuit(cuzk_jobs *j, const char *circuit_id, const char *who)
{
    if (!j->cfg.srs_device_only || !(j->pin_abc || j->cfg.test_pin_on_cpu) || j->n_provers > 64)
        return;
    cuzk_srs_circuit *c = NULL;
    if (cuzk_srs_acquire(j->srs, circuit_id, &c, NULL) != CUZK_OK)
        return; /* it stays on the host */
    if (!c->params->host_released && !pin_find(j, c))
        for (int i = 0; i < N_PINNED; i++)
            if (!j->pinned[i].circ) {
                memset(&j->pinned[i], 0, sizeof j->pinned[i]);
                j->pinned[i].circ = c; /* the slot keeps the reference */
                CUZK_INFO("%s event=srs_to_devices circuit=%s", who, circuit_id);
                return;
            }
    cuzk_srs_release(j->srs, c);
}

static void pin_request(cuzk_jobs *j, job *jb)
{
    char who[64];
    snprintf(who, sizeof who, "job=%s", jb->id);
    if (jb->circ)
        pin_request_circuit(j, jb->circuit_id, who);
}

void cuzk_jobs_srs_loaded(cuzk_jobs *j, const char *circuit_id)
{
    pthread_mutex_lock(&j->lock);
    pin_request_circuit(j, circuit_id, "preload");
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
}

void engine_pins_free(cuzk_jobs *j)
{
    for (int i = 0; i < N_PINNED; i++)
        if (j->pinned[i].circ) {
            cuzk_srs_release(j->srs, j->pinned[i].circ);
            j->pinned[i].circ = NULL;
        }
}

/* A pooled buffer of `bytes`, or -1. */
static int pool_find(const cuzk_jobs *j, size_t bytes, int witness)
{
    for (size_t i = 0; bytes && i < j->n_pool; i++)
        if (j->pool[i].bytes == bytes && j->pool[i].witness == witness)
            return (int)i;
    return -1;
}

/* Take pool entry i out (the last one moves into its place). */
static pooled pool_take(cuzk_jobs *j, int i)
{
    pooled pb = j->pool[i];
    j->pool[i] = j->pool[--j->n_pool];
    return pb;
}

/* Undo the preparation of jobs that hold an SRS but have nothing admitted
 * (prepared while the job in front was being prepared), so that their SRS
 * can make room for `for_jb`; they are prepared again in their turn.
 * Returns how many were undone. Lock held. */
static int unprepare_idle(cuzk_jobs *j, const job *for_jb)
{
    int n = 0;
    for (int pr = 0; pr < N_PRIO; pr++)
        for (job *jb = j->qhead[pr]; jb; jb = jb->next_q) {
            if (jb == for_jb || jb->prep != PREP_READY || jb->next_admit || jb->inflight ||
                !jb->circ || (for_jb->circ && jb->circ->params == for_jb->circ->params))
                continue;
            CUZK_INFO("job=%s event=unprepared circuit=%s reason=memory_budget for=%s", jb->id,
                      jb->circuit_id, for_jb->id);
            cuzk_srs_release(j->srs, jb->circ);
            jb->circ = NULL;
            jb->prep = PREP_NONE;
            cuzk_job_result_free(&jb->res); /* the buffers prepare made */
            n++;
        }
    return n;
}

/* Admit the job's next partition; lock held, reservation made. */
static part *admit(cuzk_jobs *j, job *jb, uint64_t reserved)
{
    part *p = &jb->parts[jb->next_admit++];
    if (jb->next_admit == jb->partitions)
        engine_unqueue(j, jb); /* nothing left to admit */
    p->reserved = reserved;
    p->seq = j->next_seq++;
    p->stage = CUZK_PART_SYNTHESIS;
    jb->inflight++;
    return p;
}

/* The next thing a synthesis worker should do; lock held. 0: nothing now. */
static int next_task(cuzk_jobs *j, task *t, int critical_only)
{
    if (j->redo && !critical_only) {
        t->what = T_SYNTH;
        t->p = j->redo;
        t->jb = t->p->jb;
        j->redo = t->p->next;
        t->p->next = NULL;
        return 1;
    }
    /* Full: only look ahead, preparing the jobs behind and building the
     * witness of one (seconds of single-threaded work the GPUs would
     * otherwise wait for when that job's turn comes). */
    int full = j->n_synth - j->n_lookahead - j->n_express + j->n_ready >= j->cfg.pipeline_depth;
    /* A CRITICAL job (WinningPoSt has a deadline) does not wait for a full
     * pipeline to drain: one of its partitions at a time may be synthesized
     * past the depth, and the ready list puts it before the lower-priority
     * partitions waiting there, so it waits at most for the partition the
     * prove worker holds. */
    int express = full && j->qhead[N_PRIO - 1] && !j->n_express;
    if (full && !j->cfg.lookahead && !express)
        return 0;
    int witnessed = 0; /* jobs passed whose shared witness is built */
    for (int pr = N_PRIO - 1; pr >= (critical_only ? N_PRIO - 1 : 0); pr--) {
        int busy = 0; /* a job of this level is being prepared */
        int level_full = full && !(express && pr == N_PRIO - 1);
        if (level_full && !j->cfg.lookahead)
            return 0;
        for (job *jb = j->qhead[pr], *nx; jb; jb = nx) {
            nx = jb->next_q;
            if (engine_job_stopped(jb))
                continue;
            if (!healthy_devices(j)) {
                engine_fail_job(j, jb, "no healthy prove device left (see status: devices)");
                continue;
            }
            int heavy = jb->prep == PREP_RUNNING ||
                        (jb->kind == CUZK_KIND_SYNTHETIC && jb->wit_state == WIT_BUILDING) ||
                        (jb->prep == PREP_READY && pin_pending(j, jb));
            int lookahead = 0;
            if (level_full) {
                /* One job ahead at most: the first synthetic one without its
                 * witness, once nothing heavy is under way and only the head
                 * job has its witness. */
                if (heavy || j->n_prep || j->n_lookahead)
                    return 0;
                if (jb->kind != CUZK_KIND_SYNTHETIC || jb->wit_state != WIT_NONE) {
                    witnessed += jb->kind == CUZK_KIND_SYNTHETIC;
                    continue;
                }
                if (witnessed > 1)
                    return 0;
                lookahead = 1;
            } else if (heavy) {
                busy = 1; /* jobs behind it at its level may go ahead */
                continue;
            }
            if (jb->prep == PREP_NONE) {
                /* Its SRS must fit next to the work in flight (pooled
                 * buffers are given back if that makes it fit). */
                uint64_t load = srs_load_bytes(j, jb->circuit_id);
                if (load && !reserve(j, load, 0) && j->n_pool)
                    engine_pool_drain(j);
                if (load && !reserve(j, load, 0) && !(unprepare_idle(j, jb) && reserve(j, load, 0)))
                    return 0;
                if (jb->state == ST_QUEUED) {
                    jb->state = ST_RUNNING;
                    j->n_queued--;
                    j->queued_bytes -= jb->input_bytes;
                    j->n_running++;
                    jb->t_start = cuzk_now();
                    jb->res.queue_wait_ms = engine_to_ms(jb->t_start - jb->t_submit);
                    CUZK_INFO("job=%s event=started kind=%s priority=%s", jb->id,
                              cuzk_kind_name(jb->kind), cuzk_priority_name(jb->prio + 1));
                }
                jb->prep = PREP_RUNNING;
                t->what = T_PREPARE;
                t->jb = jb;
                t->p = NULL;
                return 1;
            }
            int builds_witness = jb->kind == CUZK_KIND_SYNTHETIC && jb->wit_state == WIT_NONE;
            uint64_t need = jb->part_bytes + (builds_witness ? jb->job_bytes : 0);
            int pi = pool_find(j, jb->abc_bytes, 0), wi = pool_find(j, jb->w_pool_bytes, 1);
            if (pi >= 0)
                need -= jb->abc_bytes; /* reserved by the pool already */
            if (wi >= 0)
                need -= jb->w_pool_bytes;
            int ok = reserve(j, need, 1);
            if (!ok && j->n_pool) { /* pooled buffers of no use here: give them back */
                if (pi >= 0)
                    need += jb->abc_bytes;
                if (wi >= 0)
                    need += jb->w_pool_bytes;
                engine_pool_drain(j);
                pi = wi = -1;
                ok = reserve(j, need, 1);
            }
            if (!ok && lookahead)
                continue;
            if (!ok && unprepare_idle(j, jb))
                ok = reserve(j, need, 1);
            if (!ok) {
                uint64_t unused, used = srs_used(j, &unused);
                cuzk_mem_stats ms;
                cuzk_mem_stats_get(j->mem, &ms);
                if (ms.reserved == 0 && j->n_prep == 0 &&
                    !cuzk_mem_fits(j->mem, need, used - unused)) {
                    char why[512];
                    snprintf(why, sizeof why,
                             "a partition of circuit %s needs %llu bytes of working memory; with "
                             "%llu bytes of its SRS resident that exceeds the memory budget of "
                             "%llu bytes (memory.budget)",
                             jb->circuit_id, (unsigned long long)need,
                             (unsigned long long)(used - unused), (unsigned long long)ms.budget);
                    engine_fail_job(j, jb, why);
                    continue;
                }
                /* Nothing in flight will give it room: what it waits for is
                 * held by a job behind it (one admitted while this one was
                 * being prepared keeps its witness until it ends), which
                 * goes on meanwhile instead of waiting for it for ever. */
                if (!j->n_prep && !j->n_synth && !j->n_ready && !j->n_prove && !j->n_final)
                    continue;
                return 0; /* wait: strict priority */
            }
            t->what = T_SYNTH;
            t->jb = jb;
            t->p = admit(j, jb, jb->part_bytes);
            /* the higher index first: taking it cannot move the other */
            int hi = pi > wi ? pi : wi, lo = pi > wi ? wi : pi;
            for (int k = 0; k < 2; k++) {
                int at = k == 0 ? hi : lo;
                if (at < 0)
                    continue;
                pooled pb = pool_take(j, at);
                if (pb.witness) {
                    t->p->w_offer = pb.p;
                    t->p->w_offer_bytes = pb.bytes;
                } else {
                    t->p->abc = pb.p;
                    t->p->abc_bytes = pb.bytes;
                    t->p->abc_pinned = pb.pinned;
                }
            }
            if (builds_witness) {
                jb->wit_state = WIT_BUILDING;
                jb->job_reserved = jb->job_bytes;
                t->p->builds_witness = 1;
            }
            t->p->lookahead = lookahead;
            j->n_lookahead += (uint32_t)lookahead;
            t->p->express = full && !level_full;
            j->n_express += (uint32_t)t->p->express;
            return 1;
        }
        /* Lower levels wait until this one's preparations are done, so a
         * higher-priority job never finds its pipeline filled by lower ones. */
        if (busy && !level_full)
            return 0;
    }
    return 0;
}

/* What a synthetic circuit of n constraints costs, before it exists: its
 * files (the .params sections for about n aux variables, A dense and B a
 * third as dense as the generator makes them, plus the .pce) and, in
 * memory, those parameters parsed plus a partition's a, b, c and witness.
 * An estimate (within ~20 % of the real figures), used to refuse a job
 * before minutes of generation rather than after. */
static void synthetic_cost(uint64_t n, uint64_t *disk, uint64_t *mem)
{
    uint64_t m = 1;
    while (m < n)
        m <<= 1;
    uint64_t params = 96 * (m + n + n + n / 2) + 192 * (n / 2), pce = 64 * n;
    *disk = params + pce;
    *mem = params + pce + 3 * m * 32 + 32 * n;
}

/* Bytes of the synthetic circuits' files already in dir. */
static uint64_t synthetic_usage(const char *dir)
{
    uint64_t total = 0;
    DIR *d = opendir(dir);
    struct dirent *de;
    while (d && (de = readdir(d))) {
        struct stat st;
        if (strncmp(de->d_name, "synthetic-", 10) || fstatat(dirfd(d), de->d_name, &st, 0) ||
            !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
    }
    if (d)
        closedir(d);
    return total;
}

void cuzk_synthetic_id(const cuzk_job_request *req, char id[CUZK_SRS_ID_MAX + 1])
{
    snprintf(id, CUZK_SRS_ID_MAX + 1, "synthetic-n%llu-p%u-s%llu",
             (unsigned long long)req->synthetic_constraints, req->synthetic_public_inputs,
             (unsigned long long)req->synthetic_seed);
}

/* The files of a synthetic circuit into dir; the setup reports to
 * progress (may be NULL), whose non-zero return stops it (ECANCELLED, no
 * file left). */
static cuzk_err synthetic_generate(const cuzk_job_request *req, const char *dir,
                                   cuzk_progress_fn progress, void *ctx)
{
    char id[CUZK_SRS_ID_MAX + 1], pce_path[4096], params_path[4096], vk_path[4096];
    cuzk_synthetic_id(req, id);
    snprintf(pce_path, sizeof pce_path, "%s/%s.pce", dir, id);
    snprintf(params_path, sizeof params_path, "%s/%s.params", dir, id);
    snprintf(vk_path, sizeof vk_path, "%s/%s.vk", dir, id);
    cuzk_synth_params sp = {req->synthetic_constraints, req->synthetic_public_inputs,
                            req->synthetic_seed};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_err rc = cuzk_synth_build(&sp, 0, &cs);
    if (!rc)
        rc = cuzk_pce_from_r1cs(&pce, cs);
    cuzk_r1cs_free(cs);
    if (!rc)
        rc = cuzk_pce_write(pce, pce_path);
    cuzk_setup_options opt = {.progress = progress, .progress_ctx = ctx};
    if (!rc)
        rc = cuzk_groth16_setup_ex(pce, params_path, vk_path, NULL, &opt, NULL);
    cuzk_pce_free(pce);
    if (rc) {
        unlink(pce_path);
        cuzk_fail_ctx(rc, "generating synthetic circuit %s: ", id);
    }
    return rc;
}

cuzk_err cuzk_synthetic_generate(const cuzk_job_request *req, const char *dir)
{
    return synthetic_generate(req, dir, NULL, NULL);
}

/* Host memory that generating a synthetic circuit's files takes at its
 * peak, per constraint: the builder and the PCE, then setup's evaluation
 * vectors next to the PCE (measured: 225 MiB at 10^6 constraints). */
#define GEN_BYTES_PER_CONSTRAINT 256

/* Reserve `need` bytes for work outside the pipeline (no lock held),
 * waiting while partitions in flight hold the room. ENOMEM when it can
 * never fit the budget, or when the job or the engine stops meanwhile. */
static cuzk_err reserve_wait(cuzk_jobs *j, job *jb, uint64_t need, const char *what)
{
    cuzk_err rc = CUZK_OK;
    pthread_mutex_lock(&j->lock);
    while (!reserve(j, need, 1)) {
        if (j->n_pool)
            engine_pool_drain(j); /* pooled buffers give their room back first */
        else if (j->stopping || engine_job_stopped(jb))
            rc = cuzk_fail(CUZK_ENOMEM, "%s: stopped while waiting for memory", what);
        else if (!j->n_synth && !j->n_ready && !j->n_prove && !j->n_final) {
            cuzk_mem_stats ms;
            cuzk_mem_stats_get(j->mem, &ms);
            rc = cuzk_fail(CUZK_ENOMEM,
                           "%s needs %llu bytes of working memory; with %llu bytes of SRS "
                           "resident and %llu reserved by waiting jobs that exceeds the memory "
                           "budget of %llu bytes (memory.budget)",
                           what, (unsigned long long)need, (unsigned long long)engine_srs_bytes(j),
                           (unsigned long long)ms.reserved, (unsigned long long)ms.budget);
        } else
            pthread_cond_wait(&j->changed, &j->lock);
        if (rc)
            break;
    }
    pthread_mutex_unlock(&j->lock);
    return rc;
}

/* Generation of a synthetic circuit's parameters: progress in the log, and
 * a stop when the job is cancelled (a drain past its grace period cancels
 * it too), which removes the setup's temporary files. */
typedef struct {
    job *jb;
    cuzk_progress *log;
} synthetic_gen;

static int synthetic_progress(void *ctx, uint64_t done, uint64_t total)
{
    synthetic_gen *g = ctx;
    if (g->log)
        cuzk_progress_callback(g->log, done, total);
    return atomic_load(&g->jb->cancel) != 0;
}

/* A cached constraint system this build cannot use (an older format, a
 * damaged header) is recorded again instead of failing every job that
 * needs it: 0 (removed, with a warning) or when absent, 1 when usable. */
static int pce_usable(const char *path, const char *who)
{
    if (access(path, F_OK) != 0)
        return 0;
    if (cuzk_pce_check_header(path) == CUZK_OK)
        return 1;
    CUZK_WARN("%s event=pce_stale file=%s reason=\"%s\" action=record_again", who, path,
              cuzk_errmsg());
    unlink(path);
    return 0;
}

/* The synthetic circuit's files, generated into the engine's param_dir
 * when missing (setup with fresh toxic waste: fine for a test circuit),
 * with the memory that takes reserved against the budget meanwhile, and
 * registered with the SRS manager. A circuit that cannot fit the memory
 * budget or the folder's cap fails first, without generating anything. */
static cuzk_err ensure_synthetic(cuzk_jobs *j, job *jb)
{
    pthread_mutex_lock(&j->gen_lock);
    cuzk_err rc = CUZK_OK;
    char pce_path[4096], params_path[4096], vk_path[4096];
    snprintf(pce_path, sizeof pce_path, "%s/%s.pce", j->param_dir, jb->circuit_id);
    snprintf(params_path, sizeof params_path, "%s/%s.params", j->param_dir, jb->circuit_id);
    snprintf(vk_path, sizeof vk_path, "%s/%s.vk", j->param_dir, jb->circuit_id);
    char who[64];
    snprintf(who, sizeof who, "job=%s", jb->id);
    int present =
        cuzk_srs_known(j->srs, jb->circuit_id) ||
        (pce_usable(pce_path, who) && !access(params_path, F_OK) && !access(vk_path, F_OK));
    uint64_t disk, mem;
    synthetic_cost(jb->syn_n, &disk, &mem);
    if (!present && j->cfg.memory_budget && mem > j->cfg.memory_budget) {
        rc = cuzk_fail(CUZK_ENOMEM,
                       "synthetic circuit %s needs about %llu MiB of memory (parameters and a "
                       "partition's working set), more than memory.budget (%llu MiB); nothing "
                       "was generated",
                       jb->circuit_id, (unsigned long long)(mem >> 20),
                       (unsigned long long)(j->cfg.memory_budget >> 20));
    } else if (!present && j->cfg.synthetic_max_bytes) {
        uint64_t used = synthetic_usage(j->param_dir);
        if (used + disk > j->cfg.synthetic_max_bytes)
            rc = cuzk_fail(CUZK_ENOMEM,
                           "synthetic circuit %s needs about %llu MiB of files in %s, which holds "
                           "%llu MiB of synthetic circuits already; synthetic.max_bytes is %llu "
                           "MiB (remove some of them or raise it)",
                           jb->circuit_id, (unsigned long long)(disk >> 20), j->param_dir,
                           (unsigned long long)(used >> 20),
                           (unsigned long long)(j->cfg.synthetic_max_bytes >> 20));
    }
    uint64_t gen = jb->syn_n * GEN_BYTES_PER_CONSTRAINT;
    char what[CUZK_SRS_ID_MAX + 64];
    snprintf(what, sizeof what, "generating synthetic circuit %s", jb->circuit_id);
    if (!rc && !present && !(rc = reserve_wait(j, jb, gen, what))) {
        CUZK_INFO("job=%s event=generate circuit=%s folder=%s", jb->id, jb->circuit_id,
                  j->param_dir);
        double t = cuzk_now();
        cuzk_job_request r = {.kind = CUZK_KIND_SYNTHETIC,
                              .synthetic_constraints = jb->syn_n,
                              .synthetic_public_inputs = jb->syn_public,
                              .synthetic_seed = jb->syn_seed};
        synthetic_gen g = {.jb = jb};
        char label[320];
        snprintf(label, sizeof label, "job=%s generating %s", jb->id, jb->circuit_id);
        if (cuzk_progress_open(&g.log, label, 0, "points", NULL, CUZK_PROGRESS_LOG))
            g.log = NULL; /* no progress lines, but the setup goes on */
        rc = synthetic_generate(&r, j->param_dir, synthetic_progress, &g);
        cuzk_progress_finish(g.log);
        if (!rc)
            CUZK_INFO("job=%s event=generated circuit=%s time_s=%.3f", jb->id, jb->circuit_id,
                      cuzk_now() - t);
        cuzk_mem_trim(); /* the builder's many small blocks */
        pthread_mutex_lock(&j->lock);
        cuzk_mem_unreserve(j->mem, gen);
        pthread_cond_broadcast(&j->changed);
        pthread_mutex_unlock(&j->lock);
    }
    if (!rc && !cuzk_srs_known(j->srs, jb->circuit_id) &&
        (rc = cuzk_srs_register(j->srs, jb->circuit_id, params_path, vk_path, pce_path)))
        cuzk_fail_ctx(rc, "synthetic circuit %s: ", jb->circuit_id);
    pthread_mutex_unlock(&j->gen_lock);
    return rc;
}

/* A Filecoin circuit's files: its v28 parameters in the Filecoin folder
 * (never generated here), and its constraint system, recorded once from
 * the circuit and cached as <pce_dir>/<v28 name>.pce; then registered with
 * the SRS manager under the registry's circuit id. */
cuzk_err engine_filecoin_circuit(cuzk_jobs *j, const cuzk_fc_proof *fp, const char *who)
{
    /* Registered already (an earlier job, a preload), or adopted from
     * memory (a benchmark): nothing to find or build. */
    if (cuzk_srs_known(j->srs, fp->circuit_id))
        return CUZK_OK;
    char params[4096], vk[4096], pce_path[4096];
    snprintf(params, sizeof params, "%s/%s.params", j->filecoin_dir, fp->param_name);
    snprintf(vk, sizeof vk, "%s/%s.vk", j->filecoin_dir, fp->param_name);
    snprintf(pce_path, sizeof pce_path, "%s/%s.pce", j->pce_dir, fp->param_name);
    if (access(params, R_OK) != 0)
        return cuzk_fail(CUZK_EIO,
                         "%s (%s): parameters %s: %s (Filecoin's v28 parameters belong in "
                         "srs.param_cache; `cuzk setup --circuit %s` makes test parameters)",
                         fp->circuit_id, fp->name, params, cuzk_strerror(errno), fp->circuit_id);
    pthread_mutex_lock(&j->gen_lock);
    cuzk_err rc = CUZK_OK;
    if (!pce_usable(pce_path, who)) {
        CUZK_INFO("%s event=record_circuit circuit=%s file=%s", who, fp->circuit_id, pce_path);
        double t = cuzk_now();
        cuzk_pce *pce = NULL;
        cuzk_progress *log = NULL;
        char label[300];
        snprintf(label, sizeof label, "%s recording %s", who, fp->circuit_id);
        if (cuzk_progress_open(&log, label, fp->sectors, "sectors", NULL, CUZK_PROGRESS_LOG))
            log = NULL;
        rc = cuzk_fc_record_pce(fp, log ? cuzk_progress_callback : NULL, log, &pce);
        cuzk_progress_finish(log);
        if (!rc)
            rc = cuzk_pce_write(pce, pce_path);
        if (!rc)
            CUZK_INFO("%s event=recorded_circuit circuit=%s constraints=%llu time_s=%.3f", who,
                      fp->circuit_id, (unsigned long long)pce->n_constraints, cuzk_now() - t);
        cuzk_pce_free(pce);
        if (rc)
            cuzk_fail_ctx(rc, "recording the constraint system of %s: ", fp->circuit_id);
    }
    if (!rc && !cuzk_srs_known(j->srs, fp->circuit_id) &&
        (rc = cuzk_srs_register(j->srs, fp->circuit_id, params, access(vk, R_OK) == 0 ? vk : NULL,
                                pce_path)))
        cuzk_fail_ctx(rc, "%s: ", fp->circuit_id);
    pthread_mutex_unlock(&j->gen_lock);
    return rc;
}

/* A PoSt request's vanilla proofs decoded and its partition built and
 * checked, before any parameter is loaded for it. */
static cuzk_err decode_post(job *jb)
{
    if (!(jb->vanilla = calloc(jb->n_wit, sizeof *jb->vanilla)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    CUZK_TRY(cuzk_post_sector_proofs_decode((const uint8_t *const *)jb->wit, jb->wit_size,
                                            jb->n_wit, "vanilla_proofs", jb->vanilla));
    jb->n_vanilla = jb->n_wit;
    /* The paths are hashed by the witness (it computes every hash anyway)
     * instead of here: a path that misses its root fails the job there,
     * named the same way. */
    return cuzk_post_partition_build_unhashed(jb->fc, jb->randomness, jb->partition_index,
                                              jb->vanilla, jb->n_vanilla, &jb->post);
}

/* A PoRep request's C1 output: Curio's envelope, then the
 * SealCommitPhase1Output checked against the request (its registered
 * proof, sector size and number, the replica_id of this miner's sector)
 * and every value against the others (c1.h), before any parameter is
 * loaded. */
static cuzk_err decode_c1(job *jb)
{
    cuzk_curio_c1 env;
    CUZK_TRY(cuzk_curio_c1_decode(jb->wit[0], jb->wit_size[0], &env));
    cuzk_err e = CUZK_OK;
    if (env.sector_size != jb->fc->sector_size)
        e = cuzk_fail(CUZK_EINVAL,
                      "vanilla_proof.SectorSize %llu: the request's %s is for %llu-byte sectors",
                      (unsigned long long)env.sector_size, jb->fc->name,
                      (unsigned long long)jb->fc->sector_size);
    else if (env.sector_num >= 0 && (uint64_t)env.sector_num != jb->sector_number)
        e = cuzk_fail(CUZK_EINVAL, "vanilla_proof.SectorNum %lld: the request is for sector %llu",
                      (long long)env.sector_num, (unsigned long long)jb->sector_number);
    uint8_t prover_id[32];
    cuzk_gen_prover_id(jb->miner_id, prover_id);
    cuzk_c1_expect x = {.prover_id = prover_id, .sector_id = jb->sector_number};
    if (!e)
        e = cuzk_c1_from_json((const char *)env.c1, env.c1_len, &x, &jb->c1);
    cuzk_curio_c1_free(&env);
    if (e)
        return cuzk_fail_ctx(e,
                             "C1 output of sector %llu: ", (unsigned long long)jb->sector_number);
    if (jb->c1->registered_proof != jb->fc->number)
        return cuzk_fail(
            CUZK_EINVAL, "C1 output is for registered proof %llu, the request for %llu",
            (unsigned long long)jb->c1->registered_proof, (unsigned long long)jb->fc->number);
    return CUZK_OK;
}

/* A PoRep partition's witness: witness-only synthesis of its values, its
 * challenges on all cores. */
static cuzk_err porep_witness(const job *jb, uint32_t k, const cuzk_wbuf *offer, cuzk_fr **w,
                              size_t *n)
{
    *w = NULL;
    *n = 0;
    cuzk_porep_values v;
    CUZK_TRY(cuzk_c1_partition(jb->c1, k, &v));
    return cuzk_porep_witness_into(&jb->c1->shape, &v, offer, w, n);
}

/* A SnapDeals request's partition proofs: each decoded and checked as
 * rust-fil-proofs' vanilla verification does (snap.h), before any parameter
 * is loaded for it. */
static cuzk_err decode_snap(job *jb)
{
    cuzk_snap_config c;
    const cuzk_fr *com = jb->snap_comm;
    CUZK_TRY(cuzk_snap_config_of(jb->fc->sector_size, &c));
    if (!(jb->snap = calloc(jb->n_wit, sizeof *jb->snap)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t k = 0; k < jb->n_wit; k++) {
        char name[40];
        snprintf(name, sizeof name, "vanilla_proofs[%zu]", k);
        CUZK_TRY(cuzk_snap_partition_proof_decode(jb->wit[k], jb->wit_size[k], name, &jb->snap[k]));
        jb->n_snap++;
        cuzk_err e = cuzk_snap_verify(&c, (unsigned)k, &com[0], &com[1], &com[2], &jb->snap[k]);
        if (e)
            return cuzk_fail_ctx(e, "%s (partition %zu): ", name, k);
    }
    return CUZK_OK;
}

/* A SnapDeals partition's witness: its challenges on all cores. */
static cuzk_err snap_witness(const job *jb, uint32_t k, const cuzk_wbuf *offer, cuzk_fr **w,
                             size_t *n)
{
    *w = NULL;
    *n = 0;
    cuzk_snap_config c;
    const cuzk_fr *com = jb->snap_comm;
    cuzk_snap_values v;
    CUZK_TRY(cuzk_snap_config_of(jb->fc->sector_size, &c));
    CUZK_TRY(cuzk_snap_values_of(&c, k, &com[0], &com[1], &com[2], &jb->snap[k], &v));
    cuzk_err e = cuzk_snap_witness_into(&c, &v, offer, w, n);
    cuzk_snap_values_free(&v);
    return e;
}

/* Prepare a job (no lock): its circuit resident and its profile. */
static cuzk_err prepare(cuzk_jobs *j, job *jb)
{
    int post = jb->kind == CUZK_KIND_WINNING_POST || jb->kind == CUZK_KIND_WINDOW_POST_PARTITION;
    int porep = jb->kind == CUZK_KIND_POREP_SEAL_COMMIT;
    int snap = jb->kind == CUZK_KIND_SNAP_DEALS_UPDATE;
    if (jb->kind != CUZK_KIND_GENERIC_R1CS && jb->kind != CUZK_KIND_SYNTHETIC && !post && !porep &&
        !snap)
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "proof kind %s: circuit not available yet (this daemon proves "
                         "POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE, WINNING_POST, "
                         "WINDOW_POST_PARTITION, GENERIC_R1CS and SYNTHETIC jobs)",
                         cuzk_kind_name(jb->kind));
    if (porep || snap) {
        CUZK_TRY(porep ? decode_c1(jb) : decode_snap(jb));
        char who[64];
        snprintf(who, sizeof who, "job=%s", jb->id);
        CUZK_TRY(engine_filecoin_circuit(j, jb->fc, who));
    }
    if (jb->kind == CUZK_KIND_SYNTHETIC)
        CUZK_TRY(ensure_synthetic(j, jb));
    if (post) {
        CUZK_TRY(decode_post(jb));
        char who[64];
        snprintf(who, sizeof who, "job=%s", jb->id);
        CUZK_TRY(engine_filecoin_circuit(j, jb->fc, who));
    }
    cuzk_srs_circuit *circ = NULL;
    CUZK_TRY(cuzk_srs_acquire(j->srs, jb->circuit_id, &circ, NULL));
    const cuzk_pce *pce = circ->pce;
    size_t per = pce->n_inputs - 1, parts = jb->partitions;
    uint64_t m = (uint64_t)1 << pce->log_domain, n_vars = pce->n_inputs + pce->n_aux;
    jb->res.proof = calloc(parts, CUZK_PROOF_BYTES);
    jb->res.public_inputs = malloc(parts * per * 32 + 1);
    if (!jb->res.proof || !jb->res.public_inputs) {
        cuzk_srs_release(j->srs, circ);
        return cuzk_fail(CUZK_ENOMEM, "out of memory for %zu proofs", parts);
    }
    jb->res.inputs_per_partition = per;
    jb->circ = circ;
    CUZK_TRY(engine_hook(j, CUZK_HOOK_PREPARE, jb, 0, -1));
    /* The working set: a, b, c, the prover's own scratch (a partition may
     * be the one proving), plus the witness (per partition when it comes
     * with the request; once per job for a synthetic circuit). */
    uint64_t scratch = 0;
    for (size_t i = 0; i < j->n_provers; i++) {
        uint64_t s = cuzk_backend_host_scratch(j->provers[i].be, pce->log_domain, n_vars);
        scratch = s > scratch ? s : scratch;
    }
    /* A device that computes a, b, c itself gets the witness packed: at
     * most 20 bytes per 64 variables plus the values that are not bits
     * (all of them, at worst) instead of a, b, c. */
    jb->packed = (j->device_spmv || j->cfg.test_pack_witness) && circ->params->n_h == m - 1;
    jb->abc_bytes = jb->packed ? 0 : 3 * m * sizeof(cuzk_fr);
    jb->part_bytes = jb->abc_bytes + scratch;
    if (jb->packed)
        jb->part_bytes += (n_vars + 63) / 64 * 20 + n_vars * sizeof(cuzk_fr);
    if (jb->kind == CUZK_KIND_SYNTHETIC)
        jb->job_bytes = n_vars * sizeof(cuzk_fr);
    else
        jb->part_bytes += n_vars * sizeof(cuzk_fr);
    /* Filecoin witnesses are written into a caller's buffer when offered
     * one: their buffers go round a pool instead of being faulted in (and
     * zeroed by the kernel) afresh for every partition. */
    jb->w_pool_bytes = jb->fc ? n_vars * sizeof(cuzk_fr) : 0;
    return CUZK_OK;
}

/* The synthetic job's witness, built by its first partition. */
static cuzk_err build_synthetic_witness(cuzk_jobs *j, job *jb)
{
    cuzk_synth_params sp = {jb->syn_n, jb->syn_public, jb->syn_seed};
    cuzk_fr *w = NULL;
    size_t n = 0;
    CUZK_TRY(cuzk_synth_witness(&sp, &w, &n));
    jb->syn_w = w;
    jb->syn_w_bytes = n * sizeof(cuzk_fr);
    cuzk_mem_charge(j->mem, jb->syn_w_bytes);
    return CUZK_OK;
}

/* The partition's public inputs (ONE excluded), kept for verification. */
static cuzk_err keep_public_inputs(part *p, const cuzk_pce *pce, const cuzk_fr *w)
{
    if (!p->pub && pce->n_inputs > 1) {
        p->pub = malloc((pce->n_inputs - 1) * sizeof(cuzk_fr));
        if (!p->pub)
            return cuzk_fail(CUZK_ENOMEM, "out of memory for the public inputs");
        memcpy(p->pub, w + 1, (pce->n_inputs - 1) * sizeof(cuzk_fr));
    }
    return CUZK_OK;
}

/* Synthesis of one partition (no lock): witness, then a, b, c, or the
 * witness packed for a device that computes them. */
static cuzk_err synthesize(cuzk_jobs *j, part *p, int builds_witness)
{
    job *jb = p->jb;
    const cuzk_pce *pce = jb->circ->pce;
    CUZK_TRY(engine_hook(j, CUZK_HOOK_SYNTHESIS, jb, p->index, -1));
    if (builds_witness)
        CUZK_TRY(build_synthetic_witness(j, jb));
    if (jb->kind == CUZK_KIND_GENERIC_R1CS && !p->w) {
        char name[64];
        snprintf(name, sizeof name, "witness %u", p->index);
        uint32_t ni;
        uint64_t na;
        cuzk_fr *w = NULL;
        CUZK_TRY(cuzk_witness_parse(jb->wit[p->index], jb->wit_size[p->index], name, &w, &ni, &na));
        p->w = w;
        p->w_bytes = (size_t)(ni + na) * sizeof(cuzk_fr);
        cuzk_mem_charge(j->mem, p->w_bytes);
        if (ni != pce->n_inputs || na != pce->n_aux)
            return cuzk_fail(CUZK_EINVAL,
                             "%s has %u inputs and %llu aux; circuit %s has %u inputs and %llu aux",
                             name, ni, (unsigned long long)na, jb->circuit_id, pce->n_inputs,
                             (unsigned long long)pce->n_aux);
    }
    if (jb->fc && !p->w) {
        cuzk_fr *w = NULL;
        size_t n = 0;
        cuzk_wbuf offer = {p->w_offer, p->w_offer_bytes / sizeof(cuzk_fr)};
        if (jb->c1)
            CUZK_TRY(porep_witness(jb, p->index, &offer, &w, &n));
        else if (jb->snap)
            CUZK_TRY(snap_witness(jb, p->index, &offer, &w, &n));
        else
            CUZK_TRY(cuzk_post_witness_into(&jb->post, &offer, &w, &n));
        p->w = w;
        if (w == p->w_offer) { /* counted already, from the pool */
            __atomic_fetch_add(&j->w_reused, 1, __ATOMIC_RELAXED);
            p->w_bytes = p->w_offer_bytes;
            p->w_offer = NULL;
            p->w_offer_bytes = 0;
        } else {
            p->w_bytes = n * sizeof(cuzk_fr);
            cuzk_mem_charge(j->mem, p->w_bytes);
        }
        if (n != (size_t)pce->n_inputs + pce->n_aux)
            return cuzk_fail(CUZK_EINTERNAL,
                             "%s: the witness has %zu variables, the constraint system %llu",
                             jb->circuit_id, n, (unsigned long long)(pce->n_inputs + pce->n_aux));
    }
    const cuzk_fr *w = p->w ? p->w : jb->syn_w;
    size_t m = (size_t)1 << pce->log_domain;
    if (jb->packed && !p->host_spmv) {
        if (!p->wp) {
            CUZK_TRY(cuzk_wpack_build(w, (uint64_t)pce->n_inputs + pce->n_aux, &p->wp));
            p->wp_bytes = cuzk_wpack_bytes(p->wp) + sizeof *p->wp;
            cuzk_mem_charge(j->mem, p->wp_bytes);
        }
        return keep_public_inputs(p, pce, w);
    }
    /* The hook runs whether a, b, c come new or from the pool (a pooled
     * buffer is handed over at admission, depending on timing), so an
     * injected failure does not depend on which. */
    CUZK_TRY(engine_hook(j, CUZK_HOOK_ALLOC, jb, p->index, -1));
    if (!p->abc) {
        void *abc = NULL;
        int pinned = 0;
        size_t bytes = 3 * m * sizeof(cuzk_fr);
        if (j->pin_abc) {
            CUZK_TRY(cuzk_backend_host_alloc(bytes, &abc, &pinned));
        } else if (!(abc = malloc(bytes))) {
            return cuzk_fail(CUZK_ENOMEM, "out of memory allocating %zu bytes for a, b, c", bytes);
        }
        cuzk_mem_charge(j->mem, bytes);
        p->abc = abc;
        p->abc_bytes = bytes;
        p->abc_pinned = pinned;
    }
    /* The SpMV writes every row below n_constraints; the padding up to m
     * must be zero (a new or reused buffer holds anything there). */
    for (int k = 0; k < 3; k++)
        memset(p->abc + (size_t)k * m + pce->n_constraints, 0,
               (m - pce->n_constraints) * sizeof(cuzk_fr));
    CUZK_TRY(cuzk_groth16_abc(pce, w, p->abc, p->abc + m, p->abc + 2 * m));
    return keep_public_inputs(p, pce, w);
}

/* Put a synthesized partition in the ready list: priority, then age. */
static void ready_insert(cuzk_jobs *j, part *p)
{
    part **pp = &j->ready;
    while (*pp && ((*pp)->jb->prio > p->jb->prio ||
                   ((*pp)->jb->prio == p->jb->prio && (*pp)->seq < p->seq)))
        pp = &(*pp)->next;
    p->next = *pp;
    *pp = p;
    p->stage = CUZK_PART_READY;
    j->n_ready++;
}

/* Fail the job of p with the current error message, naming the partition. */
static void fail_with_errmsg(cuzk_jobs *j, part *p, const char *msg)
{
    char why[1100];
    snprintf(why, sizeof why, "partition %u: %.1000s", p->index, msg);
    engine_fail_job(j, p->jb, why);
}

static void *synthesis_main(void *arg)
{
    cpu_worker *wk = arg;
    cuzk_jobs *j = wk->j;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        task t;
        int have = 0;
        while (!j->stopping && !(have = next_task(j, &t, wk->critical_only)))
            pthread_cond_wait(&j->changed, &j->lock);
        if (!have)
            break;
        job *jb = t.jb;
        char msg[1024];
        if (t.what == T_PREPARE) {
            j->n_prep++;
            pthread_mutex_unlock(&j->lock);
            double t0 = cuzk_now();
            cuzk_err rc = prepare(j, jb);
            snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
            pthread_mutex_lock(&j->lock);
            j->n_prep--;
            jb->res.srs_load_ms = engine_to_ms(cuzk_now() - t0);
            jb->prep = PREP_READY;
            if (rc) {
                char why[1100];
                snprintf(why, sizeof why, "%s", msg);
                engine_fail_job(j, jb, why);
            } else {
                pin_request(j, jb);
            }
            engine_maybe_finish(j, jb);
            pthread_cond_broadcast(&j->changed);
            continue;
        }
        part *p = t.p;
        int builds_witness = p->builds_witness;
        p->builds_witness = 0;
        p->stage = CUZK_PART_SYNTHESIS;
        j->n_synth++;
        pthread_mutex_unlock(&j->lock);
        double t0 = cuzk_now();
        /* A CRITICAL partition does not queue behind a batch job's SpMV for
         * the thread pool: it takes threads of its own if the pool is busy. */
        cuzk_threads_urgent(jb->prio == N_PRIO - 1);
        cuzk_err rc = engine_job_stopped(jb) ? CUZK_OK : synthesize(j, p, builds_witness);
        cuzk_threads_urgent(0);
        snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
        pthread_mutex_lock(&j->lock);
        j->n_synth--;
        j->n_lookahead -= (uint32_t)p->lookahead;
        j->n_express -= (uint32_t)p->express;
        p->lookahead = p->express = 0;
        jb->res.synthesis_ms += engine_to_ms(cuzk_now() - t0);
        if (builds_witness)
            jb->wit_state = jb->syn_w ? WIT_READY : WIT_NONE;
        if (rc) {
            fail_with_errmsg(j, p, msg);
            engine_part_end(j, p, CUZK_PART_FAILED);
        } else if (engine_job_stopped(jb)) {
            engine_part_end(j, p, CUZK_PART_CANCELLED);
        } else if (!healthy_devices(j)) {
            /* The last device failed while this partition was synthesized:
             * no prove worker is left to take it from the ready list. */
            engine_fail_job(j, jb, "no healthy prove device left (see status: devices)");
            engine_part_end(j, p, CUZK_PART_FAILED);
        } else {
            ready_insert(j, p);
        }
        pthread_cond_broadcast(&j->changed);
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

static int recent_on(const device *d, const job *jb)
{
    for (unsigned i = 0; i < d->n_recent && i < N_RECENT; i++)
        if (!strcmp(d->recent[i], jb->circuit_id))
            return 1;
    return 0;
}

static void remember(device *d, const job *jb)
{
    if (recent_on(d, jb))
        return;
    snprintf(d->recent[d->n_recent % N_RECENT], sizeof d->recent[0], "%s", jb->circuit_id);
    d->n_recent++;
}

/* Another idle healthy device that has jb's circuit resident. */
static int other_idle_has(const cuzk_jobs *j, int self, const job *jb)
{
    for (size_t d = 0; d < j->n_devices; d++)
        if ((int)d != self && j->devices[d].healthy && j->devices[d].idle &&
            recent_on(&j->devices[d], jb))
            return 1;
    return 0;
}

static void ready_unlink(cuzk_jobs *j, part *p)
{
    for (part **pp = &j->ready; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            p->next = NULL;
            j->n_ready--;
            return;
        }
}

/* Take up to `max` ready partitions for a worker of device d; lock held. */
static size_t pick_batch(cuzk_jobs *j, int d, part **out, size_t max, size_t have)
{
    device *dv = &j->devices[d];
    if (!j->ready)
        return have;
    if (!have) {
        int top = j->ready->jb->prio;
        part *pick = NULL;
        for (part *p = j->ready; p && p->jb->prio == top; p = p->next)
            if (recent_on(dv, p->jb)) {
                pick = p;
                break;
            }
        if (!pick) {
            if (other_idle_has(j, d, j->ready->jb))
                return 0; /* leave it to the device that has its SRS */
            pick = j->ready;
        }
        ready_unlink(j, pick);
        out[have++] = pick;
    }
    for (part *p = j->ready, *nx; p && have < max; p = nx) {
        nx = p->next;
        if (p->jb->circ == out[0]->jb->circ) {
            ready_unlink(j, p);
            out[have++] = p;
        }
    }
    return have;
}

/* Send a partition whose a, b, c were consumed back to synthesis. */
static void redo(cuzk_jobs *j, part *p)
{
    p->stage = CUZK_PART_SYNTHESIS;
    p->next = j->redo;
    j->redo = p;
}

static void pins_settle(cuzk_jobs *j);

static void device_failed(cuzk_jobs *j, device *dv, const char *msg)
{
    if (!dv->healthy)
        return;
    dv->healthy = 0;
    snprintf(dv->error, sizeof dv->error, "%.255s", msg);
    CUZK_ERROR("event=device_unhealthy device=%d error=\"%s\"", dv->ordinal, msg);
    pins_settle(j);
    if (healthy_devices(j))
        return;
    /* Nowhere left to prove: everything waiting fails. */
    while (j->ready) {
        part *p = j->ready;
        ready_unlink(j, p);
        engine_fail_job(j, p->jb, "no healthy prove device left (see status: devices)");
        engine_part_end(j, p, CUZK_PART_FAILED);
    }
}

#define MAX_BATCH 64

/* The slot's parameters stay on the host: partitions waiting for them to
 * reach the devices (pin_pending) go on, so wake them. Lock held. */
static void pin_declined(cuzk_jobs *j, pinned_srs *ps)
{
    ps->failed = 1;
    pthread_cond_broadcast(&j->changed);
}

/* Release the host copy of every slot that all healthy provers keep (a
 * device failing may complete one). Lock held. */
static void pins_settle(cuzk_jobs *j)
{
    for (int k = 0; k < N_PINNED; k++) {
        pinned_srs *ps = &j->pinned[k];
        if (!ps->circ || ps->released || ps->failed)
            continue;
        int all = 1, any = 0;
        for (size_t i = 0; i < j->n_provers; i++)
            if (j->devices[j->provers[i].dev].healthy) {
                any = 1;
                all &= (int)(ps->workers >> i & 1);
            }
        if (!any) {
            pin_declined(j, ps); /* nowhere to keep it */
            continue;
        }
        if (!all)
            continue;
        ps->released = 1;
        uint64_t freed = cuzk_srs_release_host(j->srs, ps->circ);
        CUZK_INFO("event=srs_host_released circuit=%s freed=%llu", ps->circ->id,
                  (unsigned long long)freed);
        pthread_cond_broadcast(&j->changed);
    }
}

/* A slot waiting for this prover's upload. Lock held. */
static pinned_srs *pin_wanted(cuzk_jobs *j, size_t me)
{
    for (int i = 0; i < N_PINNED; i++) {
        pinned_srs *ps = &j->pinned[i];
        if (ps->circ && !ps->released && !ps->failed && !((ps->workers | ps->busy) >> me & 1))
            return ps;
    }
    return NULL;
}

/* Beside its parameters' query arrays (the MSM bases), a proof on a domain
 * of 2^m takes about ten vectors of 2^m field elements of the device: a, b,
 * c, the NTT's tables and scratch, the witness, H, and the MSMs' scratch at
 * its smallest. Measured: a 2^27 partition held ~39 GiB beside its bases on
 * an 80 GB GPU; with a 32 GiB PoRep's bases (47 GB) kept there for good,
 * every proof failed for want of memory. */
#define DEVICE_ONLY_VECTORS 10

int engine_device_only_fits(const cuzk_params *p, unsigned log_m, uint64_t total_bytes,
                            uint64_t *need)
{
    uint64_t g1 = (uint64_t)p->n_h + p->n_l + p->n_a + p->n_b_g1;
    uint64_t bases = g1 * sizeof(blst_p1_affine) + (uint64_t)p->n_b_g2 * sizeof(blst_p2_affine);
    uint64_t n = bases + ((uint64_t)DEVICE_ONLY_VECTORS * sizeof(cuzk_fr) << log_m);
    if (need)
        *need = n;
    return n <= total_bytes;
}

/* Whether the device of a prove worker has room to keep a circuit's
 * parameters and prove beside them; if not, why, in `why`. Backends that
 * are not a device, and devices that cannot tell their memory, are left to
 * the upload to decide. */
static int device_has_room(cuzk_backend *be, int ordinal, const cuzk_srs_circuit *c, char *why,
                           size_t why_size)
{
    size_t dev_free = 0, dev_total = 0;
    uint64_t need = 0;
    unsigned log_m = c->pce ? c->pce->log_domain : 0;
    if (!log_m)
        while (((size_t)1 << log_m) < c->params->n_h + 1)
            log_m++;
    if (cuzk_backend_device(be) < 0 ||
        cuzk_backend_device_mem(ordinal, &dev_free, &dev_total) != CUZK_OK ||
        engine_device_only_fits(c->params, log_m, dev_total, &need))
        return 1;
    snprintf(why, why_size,
             "its parameters and a proof beside them need ~%.1f GiB, the GPU has %.1f GiB",
             (double)need / 1073741824.0, (double)dev_total / 1073741824.0);
    return 0;
}

/* Keep the slot's parameters on this prover's device; the last healthy
 * prover to do so releases the host copy. A device too small to keep them
 * and prove beside them, or one that fails the upload, keeps the host copy
 * instead (the proofs upload what they need), and so does a backend that
 * is not a device (logged, so that the setting is not silently void).
 * Whatever the outcome, the partitions waiting for it are woken. Lock held
 * on entry and exit, released meanwhile. */
static void keep_on_device(cuzk_jobs *j, prover *pw, pinned_srs *ps)
{
    size_t me = (size_t)(pw - j->provers);
    int ordinal = j->devices[pw->dev].ordinal;
    const cuzk_srs_circuit *c = ps->circ; /* the slot's reference keeps it */
    ps->busy |= (uint64_t)1 << me;
    pthread_mutex_unlock(&j->lock);
    double t = cuzk_now();
    char msg[512] = "";
    int small = 0;
    cuzk_err rc = engine_hook_pin(j, c->id, ordinal);
    if (rc == CUZK_OK && !device_has_room(pw->be, ordinal, c, msg, sizeof msg)) {
        small = 1;
        rc = CUZK_ENOMEM;
    } else if (rc == CUZK_OK) {
        rc = cuzk_groth16_params_to_device(pw->be, c->params);
    }
    if (rc && !small)
        snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
    pthread_mutex_lock(&j->lock);
    ps->busy &= ~((uint64_t)1 << me);
    if (rc) {
        pin_declined(j, ps);
        CUZK_WARN("event=srs_device_only_off circuit=%s device=%d %s=\"%s\" (the host copy stays)",
                  c->id, ordinal, small ? "reason" : "error", msg);
        return;
    }
    pthread_cond_broadcast(&j->changed);
    ps->workers |= (uint64_t)1 << me;
    CUZK_INFO("event=srs_on_device circuit=%s device=%d time_s=%.2f", c->id, ordinal,
              cuzk_now() - t);
    pins_settle(j);
}

/* Taking a partition ahead. While a worker proves its last partition in
 * hand, the next one it would take (the head of the ready list: highest
 * priority, then oldest) may be taken already, so that the backend moves
 * its packed witness to the device under the current proof's kernels
 * (cuzk_groth16_prove_packed_next). Only packed partitions, and only when
 * no other device is idle (it would have taken that partition at once). */
static part *ahead_take(cuzk_jobs *j, int d)
{
    if (!j->ready)
        return NULL;
    for (size_t k = 0; k < j->n_devices; k++)
        if ((int)k != d && j->devices[k].healthy && j->devices[k].idle)
            return NULL;
    /* pick_batch's choice: the top priority, its circuit resident here first */
    part *q = j->ready;
    for (part *p = j->ready; p && p->jb->prio == j->ready->jb->prio; p = p->next)
        if (recent_on(&j->devices[d], p->jb)) {
            q = p;
            break;
        }
    if (!q->wp || q->host_spmv)
        return NULL;
    ready_unlink(j, q);
    q->stage = CUZK_PART_PROVE;
    q->device = j->devices[d].ordinal;
    j->n_prove++;
    j->ahead++;
    pthread_cond_broadcast(&j->changed); /* room in the pipeline */
    return q;
}

/* The partition taken ahead, when the worker does not prove it next after
 * all: the upload started for it abandoned (the lock is released meanwhile;
 * the partition is this worker's alone), then back to the ready list, or
 * ended when its job stopped or no device is left. Lock held. */
static void ahead_give_back(cuzk_jobs *j, prover *pw, part *q)
{
    pthread_mutex_unlock(&j->lock);
    cuzk_backend_packed_drop(pw->be);
    pthread_mutex_lock(&j->lock);
    j->n_prove--;
    j->ahead_back++;
    if (engine_job_stopped(q->jb)) {
        engine_part_end(j, q, CUZK_PART_CANCELLED);
    } else if (!healthy_devices(j)) {
        engine_fail_job(j, q->jb, "no healthy prove device left (see status: devices)");
        engine_part_end(j, q, CUZK_PART_FAILED);
    } else {
        ready_insert(j, q);
    }
    pthread_cond_broadcast(&j->changed);
}

static void *prover_main(void *arg)
{
    prover *pw = arg;
    cuzk_jobs *j = pw->j;
    device *dv = &j->devices[pw->dev];
    pthread_mutex_lock(&j->lock);
    size_t me = (size_t)(pw - j->provers);
    part *ahead = NULL; /* taken ahead while the last partition was proved */
    while (dv->healthy || ahead) {
        part *batch[MAX_BATCH];
        size_t max = pw->batch_max < MAX_BATCH ? pw->batch_max : MAX_BATCH, n = 0;
        pinned_srs *ps = NULL;
        if (ahead) {
            /* Proved next, unless a partition of higher priority is ready
             * now (CRITICAL overtakes at the partition boundary) */
            part *q = ahead;
            ahead = NULL;
            if (j->stopping || !dv->healthy || engine_job_stopped(q->jb) ||
                (j->ready && j->ready->jb->prio > q->jb->prio)) {
                ahead_give_back(j, pw, q);
                continue;
            }
            batch[n++] = q; /* counted as proving since it was taken */
            goto prove;
        }
        dv->idle++;
        while (!j->stopping && dv->healthy && !(ps = pin_wanted(j, me)) &&
               !(n = pick_batch(j, pw->dev, batch, max, 0))) {
            if (pw->trim) { /* outside the lock: it waits for the device */
                pw->trim = 0;
                pthread_mutex_unlock(&j->lock);
                cuzk_backend_trim(pw->be);
                pthread_mutex_lock(&j->lock);
                continue;
            }
            pthread_cond_wait(&j->changed, &j->lock);
        }
        if (ps && !j->stopping && dv->healthy) {
            dv->idle--;
            keep_on_device(j, pw, ps);
            continue;
        }
        /* A batch that is not full waits up to max_batch_wait_ms for more. */
        if (n && n < max && j->cfg.max_batch_wait_ms) {
            double end = cuzk_now() + j->cfg.max_batch_wait_ms / 1000.0;
            while (n < max && !j->stopping && cuzk_now() < end) {
                struct timespec ts;
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += 2000000;
                ts.tv_sec += ts.tv_nsec / 1000000000L;
                ts.tv_nsec %= 1000000000L;
                pthread_cond_timedwait(&j->changed, &j->lock, &ts);
                n = pick_batch(j, pw->dev, batch, max, n);
            }
        }
        dv->idle--;
        if (!n)
            break;
        /* Taking partitions off the ready list makes room in the pipeline:
         * wake the synthesis workers waiting for it. */
        pthread_cond_broadcast(&j->changed);
        for (size_t i = 0; i < n; i++) {
            batch[i]->stage = CUZK_PART_PROVE;
            batch[i]->device = dv->ordinal;
        }
        j->n_prove += (uint32_t)n;
    prove:
        for (size_t i = 0; i < n; i++) {
            part *p = batch[i];
            job *jb = p->jb;
            if (engine_job_stopped(jb) || !dv->healthy) {
                if (i > 0 && batch[i - 1]->wp && p->wp) {
                    /* its witness may be going up already (below) */
                    pthread_mutex_unlock(&j->lock);
                    cuzk_backend_packed_drop(pw->be);
                    pthread_mutex_lock(&j->lock);
                }
                j->n_prove--;
                if (engine_job_stopped(jb))
                    engine_part_end(j, p, CUZK_PART_CANCELLED);
                else
                    redo(j, p);
                continue;
            }
            dv->current = jb;
            remember(dv, jb);
            p->attempts++;
            /* The packed witness of what this worker proves next goes up
             * meanwhile: the batch's next partition, or one taken ahead. */
            const cuzk_wpack *next = NULL;
            if (p->wp && i + 1 < n)
                next = batch[i + 1]->wp;
            else if (p->wp && !j->stopping && (ahead = ahead_take(j, pw->dev)))
                next = ahead->wp;
            pthread_mutex_unlock(&j->lock);
            const cuzk_pce *pce = jb->circ->pce;
            cuzk_groth16_shape sh = cuzk_groth16_shape_of(pce);
            size_t m = (size_t)1 << pce->log_domain;
            const cuzk_fr *w = p->w ? p->w : jb->syn_w;
            double t0 = cuzk_now();
            cuzk_err rc = engine_hook(j, CUZK_HOOK_PROVE, jb, p->index, dv->ordinal);
            cuzk_prove_timings tm;
            memset(&tm, 0, sizeof tm);
            cuzk_threads_urgent(jb->prio == N_PRIO - 1);
            if (!rc && p->wp)
                rc = cuzk_groth16_prove_packed_next(pw->be, jb->circ->params, pce, w, p->wp, next,
                                                    NULL, NULL, &p->proof, &tm);
            else
                cuzk_backend_packed_drop(pw->be); /* nothing proved packed settles it */
            if (!rc && !p->wp)
                rc = cuzk_groth16_prove_abc(pw->be, jb->circ->params, &sh, w, p->abc, p->abc + m,
                                            p->abc + 2 * m, NULL, NULL, &p->proof, &tm);
            cuzk_threads_urgent(0);
            char msg[1024];
            snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
            double dt = cuzk_now() - t0;
            pthread_mutex_lock(&j->lock);
            j->n_prove--;
            dv->current = NULL;
            dv->busy_s += dt;
            dv->device_s += tm.dev_h_copy + tm.dev_h_kernel + tm.dev_msm_copy + tm.dev_msm_kernel;
            jb->res.prove_ms += engine_to_ms(dt);
            if (!rc) {
                dv->partitions++;
                CUZK_INFO("job=%s event=partition_proved partition=%u device=%d wall_s=%.3f "
                          "device_s=%.3f",
                          jb->id, p->index, dv->ordinal, dt,
                          tm.dev_h_copy + tm.dev_h_kernel + tm.dev_msm_copy + tm.dev_msm_kernel);
                /* The working set is done with: pool or free it before
                 * finalizing; the packed witness, always freed (and its
                 * pages unmapped, milliseconds for a dense one), goes with
                 * the part to the finalizer, off the device's path. */
                engine_w_put(j, p);
                engine_abc_put(j, p);
                cuzk_mem_unreserve(j->mem, p->reserved);
                p->reserved = 0;
                if (engine_job_stopped(jb)) {
                    engine_part_end(j, p, CUZK_PART_CANCELLED);
                } else {
                    p->stage = CUZK_PART_FINALIZE;
                    if (j->final_tail)
                        j->final_tail->next = p;
                    else
                        j->final_head = p;
                    j->final_tail = p;
                    j->n_final++;
                }
            } else if (rc == CUZK_EINVAL || dv->ordinal < 0 ||
                       (rc == CUZK_ENOMEM && p->oom_retried)) {
                fail_with_errmsg(j, p, msg);
                engine_part_end(j, p, CUZK_PART_FAILED);
            } else if (rc == CUZK_ENOMEM) {
                /* Device out of memory: smaller batches, one more try, with
                 * a, b, c from the host when the budget has room for them
                 * now (the constraint system of the device SpMV may be what
                 * did not fit); else packed again. */
                pw->batch_max = pw->batch_max > 1 ? pw->batch_max / 2 : 1;
                p->oom_retried = 1;
                uint64_t abc = 3 * ((uint64_t)sizeof(cuzk_fr) << pce->log_domain);
                if (p->wp && reserve(j, abc, 1)) {
                    p->reserved += abc;
                    p->host_spmv = 1;
                    engine_wpack_drop(j, p);
                }
                CUZK_WARN("job=%s event=device_oom device=%d partition=%u batch_max=%u "
                          "error=\"%s\"",
                          jb->id, dv->ordinal, p->index, pw->batch_max, msg);
                if (engine_job_stopped(jb))
                    engine_part_end(j, p, CUZK_PART_CANCELLED);
                else
                    redo(j, p);
            } else {
                char why[1100];
                snprintf(why, sizeof why, "%s", msg);
                device_failed(j, dv, why);
                if (engine_job_stopped(jb))
                    engine_part_end(j, p, CUZK_PART_CANCELLED);
                else if (p->attempts > (int)j->n_devices || !healthy_devices(j)) {
                    fail_with_errmsg(j, p, msg);
                    engine_part_end(j, p, CUZK_PART_FAILED);
                } else {
                    CUZK_WARN("job=%s event=retry partition=%u reason=device_error device=%d",
                              jb->id, p->index, dv->ordinal);
                    redo(j, p);
                }
            }
            pthread_cond_broadcast(&j->changed);
        }
    }
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

static void *finalizer_main(void *arg)
{
    cpu_worker *wk = arg;
    cuzk_jobs *j = wk->j;
    pthread_mutex_lock(&j->lock);
    for (;;) {
        while (!j->stopping && !j->final_head)
            pthread_cond_wait(&j->changed, &j->lock);
        part *p = j->final_head;
        if (!p)
            break;
        j->final_head = p->next;
        if (!j->final_head)
            j->final_tail = NULL;
        p->next = NULL;
        /* n_final stays counted while it is worked on. */
        job *jb = p->jb;
        cuzk_wpack *wp = p->wp; /* left by the prover: freed outside the lock */
        size_t wp_bytes = p->wp_bytes;
        p->wp = NULL;
        p->wp_bytes = 0;
        pthread_mutex_unlock(&j->lock);
        cuzk_wpack_free(wp);
        cuzk_err rc = CUZK_OK;
        double t0 = cuzk_now();
        if (!engine_job_stopped(jb)) {
            rc = engine_hook(j, CUZK_HOOK_FINALIZE, jb, p->index, -1);
            size_t per = jb->circ->pce->n_inputs - 1;
            if (!rc && j->cfg.verify_proofs) {
                rc = cuzk_groth16_verify(jb->circ->vk, p->pub, per, &p->proof);
                if (rc == CUZK_EVERIFY)
                    cuzk_fail(rc, "the proof did not verify (verify_proofs = true)");
            }
            if (!rc) {
                cuzk_proof_encode(jb->res.proof + (size_t)p->index * CUZK_PROOF_BYTES, &p->proof);
                for (size_t i = 0; i < per; i++)
                    cuzk_fr_to_bytes_le(jb->res.public_inputs + ((size_t)p->index * per + i) * 32,
                                        &p->pub[i]);
            }
        }
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", cuzk_errmsg());
        pthread_mutex_lock(&j->lock);
        if (wp)
            cuzk_mem_uncharge(j->mem, wp_bytes);
        j->n_final--;
        jb->res.verify_ms += engine_to_ms(cuzk_now() - t0);
        if (rc) {
            fail_with_errmsg(j, p, msg);
            engine_part_end(j, p, CUZK_PART_FAILED);
        } else {
            engine_part_end(j, p, engine_job_stopped(jb) ? CUZK_PART_CANCELLED : CUZK_PART_DONE);
        }
    }
    pthread_mutex_unlock(&j->lock);
    return NULL;
}

/* Devices from the configuration: the CPU backend is one device (ordinal
 * -1), or one lane per configured ordinal; a CUDA backend gets the
 * configured GPUs, all visible ones, or the one its name pins. */
static cuzk_err plan_devices(cuzk_jobs *j, const cuzk_jobs_config *cfg)
{
    const char *be = j->backend;
    int pinned = -1;
    const char *colon = strchr(be, ':');
    if (colon)
        pinned = atoi(colon + 1);
    int cpu = !strcmp(be, "cpu") || (!strcmp(be, "auto") && cuzk_backend_gpus() <= 0);
    int visible = cuzk_backend_gpus();
    if (colon) {
        j->devices[0].ordinal = pinned;
        j->n_devices = 1;
    } else if (cfg->n_gpu_devices) {
        for (size_t i = 0; i < cfg->n_gpu_devices; i++)
            j->devices[i].ordinal = cfg->gpu_devices[i];
        j->n_devices = cfg->n_gpu_devices;
    } else if (cpu || visible <= 0) {
        j->devices[0].ordinal = -1;
        j->n_devices = 1;
    } else {
        j->n_devices = visible < CUZK_JOBS_MAX_DEVICES ? (size_t)visible : CUZK_JOBS_MAX_DEVICES;
        for (size_t i = 0; i < j->n_devices; i++)
            j->devices[i].ordinal = (int)i;
    }
    for (size_t d = 0; d < j->n_devices; d++) {
        j->devices[d].healthy = 1;
        j->devices[d].workers = cfg->workers;
    }
    return CUZK_OK;
}

cuzk_err engine_workers_start(cuzk_jobs *j)
{
    const cuzk_jobs_config *cfg = &j->cfg;
    CUZK_TRY(plan_devices(j, cfg));
    j->n_provers = j->n_devices * cfg->workers;
    if (!j->cfg.pipeline_depth)
        j->cfg.pipeline_depth = 2 * (unsigned)j->n_provers;
    j->pool_max = 2 * (j->cfg.pipeline_depth + j->n_provers); /* a, b, c and witnesses */
    j->provers = calloc(j->n_provers, sizeof *j->provers);
    /* One synthesis worker more than configured, for CRITICAL jobs only:
     * a WinningPoSt is synthesized at once even while every other worker
     * builds a PoRep's witness (seconds), instead of waiting for one. */
    j->n_synths = cfg->synthesis_workers + 1;
    j->synths = calloc(j->n_synths, sizeof *j->synths);
    j->finals = calloc(cfg->finalizers, sizeof *j->finals);
    if (!j->provers || !j->synths || !j->finals)
        return cuzk_fail(CUZK_ENOMEM, "jobs: out of memory");
    for (size_t i = 0; i < j->n_provers; i++) {
        prover *pw = &j->provers[i];
        pw->j = j;
        pw->dev = (int)(i / cfg->workers);
        pw->batch_max = cfg->max_batch_size;
        int ord = j->devices[pw->dev].ordinal;
        const char *name = strchr(j->backend, ':') ? "cuda" : j->backend;
        CUZK_TRY(cuzk_backend_open_on(name, ord < 0 ? 0 : ord, &pw->be));
        j->pin_abc |= cuzk_backend_device(pw->be) >= 0;
    }
    if (cfg->srs_device_only && !j->pin_abc)
        CUZK_WARN("event=srs_device_only_off reason=\"backend %s keeps parameters on the host\"",
                  j->backend);
    j->device_spmv = !cfg->host_spmv && j->n_provers > 0;
    for (size_t i = 0; i < j->n_provers; i++)
        j->device_spmv &= cuzk_backend_device_spmv(j->provers[i].be);
    for (size_t i = 0; i < j->n_provers; i++) {
        if (pthread_create(&j->provers[i].thread, NULL, prover_main, &j->provers[i]))
            return cuzk_fail(CUZK_EINTERNAL, "jobs: cannot start prove worker %zu", i);
        j->provers[i].started = 1;
    }
    for (unsigned i = 0; i < j->n_synths; i++) {
        j->synths[i].j = j;
        j->synths[i].critical_only = i == j->n_synths - 1;
        if (pthread_create(&j->synths[i].thread, NULL, synthesis_main, &j->synths[i]))
            return cuzk_fail(CUZK_EINTERNAL, "jobs: cannot start synthesis worker %u", i);
        j->synths[i].started = 1;
    }
    for (unsigned i = 0; i < cfg->finalizers; i++) {
        j->finals[i].j = j;
        if (pthread_create(&j->finals[i].thread, NULL, finalizer_main, &j->finals[i]))
            return cuzk_fail(CUZK_EINTERNAL, "jobs: cannot start finalizer %u", i);
        j->finals[i].started = 1;
    }
    CUZK_INFO("engine: backend=%s devices=%zu prove_workers=%zu synthesis_workers=%u "
              "finalizers=%u pipeline_depth=%u max_batch_size=%u memory_budget=%llu",
              j->backend, j->n_devices, j->n_provers, cfg->synthesis_workers, cfg->finalizers,
              j->cfg.pipeline_depth, cfg->max_batch_size, (unsigned long long)cfg->memory_budget);
    return CUZK_OK;
}

void engine_workers_free(cuzk_jobs *j)
{
    for (size_t i = 0; j->provers && i < j->n_provers; i++)
        if (j->provers[i].be)
            cuzk_backend_close(j->provers[i].be);
    free(j->provers);
    free(j->synths);
    free(j->finals);
    j->provers = NULL;
    j->synths = j->finals = NULL;
}

void engine_workers_stop(cuzk_jobs *j)
{
    pthread_mutex_lock(&j->lock);
    j->stopping = 1;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->lock);
    for (size_t i = 0; j->synths && i < j->n_synths; i++)
        if (j->synths[i].started) {
            pthread_join(j->synths[i].thread, NULL);
            j->synths[i].started = 0;
        }
    for (size_t i = 0; j->provers && i < j->n_provers; i++)
        if (j->provers[i].started) {
            pthread_join(j->provers[i].thread, NULL);
            j->provers[i].started = 0;
        }
    for (size_t i = 0; j->finals && i < j->cfg.finalizers; i++)
        if (j->finals[i].started) {
            pthread_join(j->finals[i].thread, NULL);
            j->finals[i].started = 0;
        }
}
