/* Fault injection into the engine through its test hooks (jobs.h).
 *
 * Each case starts an engine on the CPU backend, either as one CPU device
 * (ordinal -1) or as CPU "lanes" that the engine treats as GPUs 0 and 1, so
 * device failures and device out-of-memory take the GPU paths. The hook
 * records every event (job, point, partition, device) and then runs the
 * case's behaviour: return an injected error, cancel the job, or block on
 * a condition until the test releases it. Hooks of a job are held at a gate
 * while its submission is in progress, so the hook always knows which job
 * plays which role. The test waits for states through those records (a
 * condition variable) or by polling cuzk_jobs_status_get with a cap; no
 * sleep decides an outcome. Cases:
 *
 *   1. a synthesis error in one partition fails its job, naming it;
 *   2. a device error on lane 0 marks it unhealthy and the job completes on
 *      lane 1; later jobs prove on lane 1 only;
 *   3. all devices failing fails the jobs left, and later submissions;
 *   4. a device out-of-memory is retried once, and fails the job the second
 *      time;
 *   5. an allocation failure fails its job, naming the partition;
 *   6. an await aborted by its client returns TIMEOUT; the job goes on;
 *   7. a cancel from inside the hook at each stage, while queued, and while
 *      a partition waits READY for the (blocked) prove worker;
 *   8. a partition that can never fit the memory budget fails its job;
 *   9. drain with jobs in every stage: each ends once, cancelled, and new
 *      submissions are refused;
 *  10. a prove worker taking a partition wakes synthesis (pipeline room).
 *
 * Everywhere: the jobs submitted alongside complete and their proofs
 * verify; every job ends exactly once (END events per job id); and when an
 * engine's life ends nothing is reserved or allocated in its accountant. */
#define _GNU_SOURCE
#include "engine_fixture.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#define MAX_EVENTS 8192
#define MAX_ROLES 8
#define WAIT_S 120      /* cap on any wait: reaching it is a failure, not a timing */
#define POLL_CAP 100000 /* status polls before a wait for a state gives up */
#define ANY -99         /* any partition or device in count() */
#define ID CUZK_JOB_ID_MAX

typedef struct {
    char id[ID];
    cuzk_hook_point point;
    uint32_t partition;
    int device;
} event;

typedef cuzk_err (*behaviour)(const cuzk_hook_event *ev);

/* Shared by the hook (engine threads) and the test. Lock order: an engine
 * lock may be held when hk.mu is taken (END), so the engine is never called
 * with hk.mu held. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* broadcast on every event and every change below */
    event ev[MAX_EVENTS];
    size_t n_ev;
    int overflow;
    int open;    /* the gate: 0 while a submission is in progress */
    int release; /* blocked hooks go on */
    int flag;    /* a case's own signal */
    char role[MAX_ROLES][ID];
    behaviour fn;
} hk = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static fixture fx;
static cuzk_jobs *eng;
static const uint8_t *wits[CUZK_JOB_MAX_PARTITIONS];
static size_t sizes[CUZK_JOB_MAX_PARTITIONS];

static struct timespec deadline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += WAIT_S;
    return ts;
}

/* hk.mu held: wait until cond holds; ok = 0 when WAIT_S passed first. */
#define HK_AWAIT(cond, ok)                                                                         \
    do {                                                                                           \
        struct timespec dl_ = deadline();                                                          \
        (ok) = 1;                                                                                  \
        while (!(cond))                                                                            \
            if (pthread_cond_timedwait(&hk.cv, &hk.mu, &dl_) == ETIMEDOUT) {                       \
                (ok) = (cond);                                                                     \
                break;                                                                             \
            }                                                                                      \
    } while (0)

/* Events of job `id` at `point` (partition and device: ANY matches all);
 * hk.mu held. */
static size_t count_locked(const char *id, int point, int part, int device)
{
    size_t n = 0;
    for (size_t i = 0; i < hk.n_ev; i++)
        n += !strcmp(hk.ev[i].id, id) && (int)hk.ev[i].point == point &&
             (part == ANY || (int)hk.ev[i].partition == part) &&
             (device == ANY || hk.ev[i].device == device);
    return n;
}

static size_t count(const char *id, int point, int part, int device)
{
    pthread_mutex_lock(&hk.mu);
    size_t n = count_locked(id, point, part, device);
    pthread_mutex_unlock(&hk.mu);
    return n;
}

static size_t ends(const char *id)
{
    return count(id, CUZK_HOOK_END, ANY, ANY);
}

/* Wait until job `id` has at least n events at point/part. */
static int wait_events(const char *id, int point, int part, size_t n)
{
    int ok;
    pthread_mutex_lock(&hk.mu);
    HK_AWAIT(count_locked(id, point, part, ANY) >= n, ok);
    pthread_mutex_unlock(&hk.mu);
    return ok;
}

static int role_is(const cuzk_hook_event *ev, int r)
{
    pthread_mutex_lock(&hk.mu);
    int is = !strcmp(hk.role[r], ev->job_id);
    pthread_mutex_unlock(&hk.mu);
    return is;
}

static void set_flag(void)
{
    pthread_mutex_lock(&hk.mu);
    hk.flag = 1;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
}

static void set_release(int v)
{
    pthread_mutex_lock(&hk.mu);
    hk.release = v;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
}

static void set_behaviour(behaviour fn)
{
    pthread_mutex_lock(&hk.mu);
    hk.fn = fn;
    pthread_mutex_unlock(&hk.mu);
}

/* Hold the calling worker until the test releases it. */
static cuzk_err block_here(void)
{
    int ok;
    pthread_mutex_lock(&hk.mu);
    HK_AWAIT(hk.release, ok);
    pthread_mutex_unlock(&hk.mu);
    return ok ? CUZK_OK : cuzk_fail(CUZK_EINTERNAL, "test hook: never released");
}

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    pthread_mutex_lock(&hk.mu);
    if (hk.n_ev < MAX_EVENTS) {
        event *e = &hk.ev[hk.n_ev++];
        snprintf(e->id, sizeof e->id, "%s", ev->job_id);
        e->point = ev->point;
        e->partition = ev->partition;
        e->device = ev->device;
    } else {
        hk.overflow = 1;
    }
    pthread_cond_broadcast(&hk.cv);
    int ok = 1;
    if (ev->point != CUZK_HOOK_END) /* END runs under the engine lock: never wait there */
        HK_AWAIT(hk.open, ok);
    behaviour fn = hk.fn;
    pthread_mutex_unlock(&hk.mu);
    if (!ok)
        return cuzk_fail(CUZK_EINTERNAL, "test hook: the gate never opened");
    return fn && ev->point != CUZK_HOOK_END ? fn(ev) : CUZK_OK;
}

/* Polling status for a state, with a cap. */
typedef int (*status_pred)(const cuzk_jobs_status *st, const void *arg);

static int poll_status(status_pred pred, const void *arg)
{
    for (int i = 0; i < POLL_CAP; i++) {
        cuzk_jobs_status st;
        if (cuzk_jobs_status_get(eng, &st) != CUZK_OK)
            return 0;
        int ok = pred(&st, arg);
        cuzk_jobs_status_free(&st);
        if (ok)
            return 1;
        struct timespec ts = {0, 200000}; /* pacing of the poll only */
        nanosleep(&ts, NULL);
    }
    return 0;
}

static const cuzk_job_info *find_info(const cuzk_jobs_status *st, const char *id)
{
    for (size_t i = 0; i < st->n_jobs; i++)
        if (!strcmp(st->jobs[i].job_id, id))
            return &st->jobs[i];
    return NULL;
}

typedef struct {
    const char *id;
    uint32_t from, to; /* partitions from..to-1 */
    int stage;
} stage_query;

static int parts_in_stage(const cuzk_jobs_status *st, const void *arg)
{
    const stage_query *q = arg;
    const cuzk_job_info *ji = find_info(st, q->id);
    if (!ji)
        return 0;
    for (uint32_t p = q->from; p < q->to; p++)
        if (ji->part_stage[p] != q->stage)
            return 0;
    return 1;
}

static int device_down(const cuzk_jobs_status *st, const void *arg)
{
    size_t d = *(const size_t *)arg;
    return d < st->n_devices && !st->devices[d].healthy;
}

static int is_draining(const cuzk_jobs_status *st, const void *arg)
{
    (void)arg;
    return st->draining;
}

/* Engines: the CPU backend as one device (lanes = 0) or as lanes 0..lanes-1. */
static const int lane_ordinals[2] = {0, 1};
static unsigned pipeline_depth; /* 0: the engine's default */

static void engine_start(size_t lanes, unsigned synthesis_workers, uint64_t budget)
{
    pthread_mutex_lock(&hk.mu);
    hk.n_ev = 0;
    hk.open = 1;
    hk.release = 0;
    hk.flag = 0;
    memset(hk.role, 0, sizeof hk.role);
    hk.fn = NULL;
    pthread_mutex_unlock(&hk.mu);
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .gpu_devices = lanes ? lane_ordinals : NULL,
                            .n_gpu_devices = lanes,
                            .verify_proofs = 1,
                            .param_dir = fx.dir,
                            .retain = 256,
                            .max_queued = 256,
                            .max_queued_bytes = 1 << 30,
                            .max_synthetic = 1 << 16,
                            .synthesis_workers = synthesis_workers,
                            .pipeline_depth = pipeline_depth,
                            .memory_budget = budget,
                            .mem_sample_ms = 5,
                            .hook = hook};
    eng = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &eng));
    if (!eng) {
        fprintf(stderr, "cannot start the engine\n");
        exit(1);
    }
}

/* The end of an engine's life: nothing left running, nothing reserved or
 * allocated, and every job it saw ended exactly once. */
static void engine_stop(const char *what)
{
    set_release(1); /* a failed case may have left a hook blocked */
    cuzk_jobs_drain(eng, WAIT_S);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    if (st.n_jobs || st.mem.reserved || st.mem.allocated)
        fprintf(stderr, "%s: at the end %zu jobs, %llu bytes reserved, %llu allocated\n", what,
                st.n_jobs, (unsigned long long)st.mem.reserved,
                (unsigned long long)st.mem.allocated);
    CHECK(st.n_jobs == 0);
    CHECK(st.mem.reserved == 0 && st.mem.allocated == 0);
    CHECK(st.synthesizing == 0 && st.ready == 0 && st.proving == 0 && st.finalizing == 0);
    cuzk_jobs_status_free(&st);
    pthread_mutex_lock(&hk.mu);
    CHECK(!hk.overflow);
    int once = 1;
    for (size_t i = 0; i < hk.n_ev; i++) {
        size_t n = count_locked(hk.ev[i].id, CUZK_HOOK_END, ANY, ANY);
        if (n != 1) {
            fprintf(stderr, "%s: job %s ended %zu times\n", what, hk.ev[i].id, n);
            once = 0;
        }
    }
    pthread_mutex_unlock(&hk.mu);
    CHECK(once);
    cuzk_jobs_free(eng);
    eng = NULL;
}

/* Requests: "gen" (GENERIC_R1CS, 512 constraints) with n partitions, and
 * two synthetic circuits. */
static cuzk_job_request gen(size_t n)
{
    return gen_req(wits, sizes, n, CUZK_PRIO_NORMAL);
}

static cuzk_job_request syn_small(uint32_t n)
{
    return synth_req(256, 1, 5, n, CUZK_PRIO_NORMAL);
}

static cuzk_job_request syn_large(uint32_t n)
{
    return synth_req(1024, 2, 6, n, CUZK_PRIO_NORMAL);
}

/* Submit with the hooks held at the gate until the job's id is known to
 * them as role r (-1: no role). */
static void submit_as(cuzk_job_request r, int role, char id[ID])
{
    pthread_mutex_lock(&hk.mu);
    hk.open = 0;
    pthread_mutex_unlock(&hk.mu);
    uint32_t pos;
    int existing = -1;
    cuzk_err rc = cuzk_jobs_submit(eng, &r, id, &pos, &existing);
    CHECK_OK(rc);
    CHECK(existing == 0);
    pthread_mutex_lock(&hk.mu);
    if (role >= 0)
        snprintf(hk.role[role], ID, "%s", id);
    hk.open = 1;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
}

/* Await a job and check its outcome: COMPLETED with proofs that verify and
 * no error, or `want` with no proof bytes and an error containing needle
 * (and needle2 when given); and exactly one END. */
static void expect_job(const char *what, const char *id, cuzk_job_status want, const char *needle,
                       const char *needle2)
{
    cuzk_job_result res;
    CHECK_OK(cuzk_jobs_await(eng, id, (uint64_t)WAIT_S * 1000, NULL, &res));
    int good = res.status == want && !strcmp(res.job_id, id);
    if (want == CUZK_JOB_COMPLETED)
        good = good && res.error[0] == 0 && result_verifies(fx.dir, &res);
    else
        good = good && !res.proof && res.proof_size == 0 && strstr(res.error, needle) &&
               (!needle2 || strstr(res.error, needle2));
    if (!good)
        fprintf(stderr, "%s: job %s: status %d (want %d), error \"%s\" (want \"%s\"%s%s%s)\n", what,
                id, res.status, want, res.error, needle ? needle : "", needle2 ? " and \"" : "",
                needle2 ? needle2 : "", needle2 ? "\"" : "");
    CHECK(good);
    CHECK(ends(id) == 1);
    cuzk_job_result_free(&res);
}

static void expect_done(const char *what, const char *id)
{
    expect_job(what, id, CUZK_JOB_COMPLETED, NULL, NULL);
}

/* ---- 1. A synthesis error in one partition. */

static cuzk_err synthesis_error(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_SYNTHESIS && ev->partition == 1 && role_is(ev, 0))
        return cuzk_fail(CUZK_EIO, "injected synthesis failure");
    return CUZK_OK;
}

static void case_synthesis_error(void)
{
    const char *what = "synthesis error";
    engine_start(0, 2, 0);
    set_behaviour(synthesis_error);
    char t[ID], o1[ID], o2[ID];
    submit_as(gen(3), 0, t);
    submit_as(syn_small(2), -1, o1);
    submit_as(gen(1), -1, o2);
    expect_job(what, t, CUZK_JOB_FAILED, "partition 1: injected synthesis failure", NULL);
    expect_done(what, o1);
    expect_done(what, o2);
    /* The failed partition went no further. */
    CHECK(count(t, CUZK_HOOK_SYNTHESIS, 1, ANY) == 1);
    CHECK(count(t, CUZK_HOOK_ALLOC, 1, ANY) == 0 && count(t, CUZK_HOOK_PROVE, 1, ANY) == 0);
    engine_stop(what);
}

/* ---- 2. A device error on lane 0; the job is retried on lane 1. */

static struct {
    int finals, on_lane1;
} c2;

static cuzk_err device_error(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_PROVE && role_is(ev, 0)) {
        if (ev->device == 0) {
            set_flag();
            return cuzk_fail(CUZK_EIO, "injected device failure");
        }
        /* Lane 1 holds its partition until lane 0 has failed, so lane 0
         * surely takes one of the job's partitions (the job has two). */
        int ok;
        pthread_mutex_lock(&hk.mu);
        HK_AWAIT(hk.flag, ok);
        pthread_mutex_unlock(&hk.mu);
        return ok ? CUZK_OK : cuzk_fail(CUZK_EINTERNAL, "test hook: lane 0 never failed");
    }
    if (ev->point == CUZK_HOOK_FINALIZE && (role_is(ev, 1) || role_is(ev, 2) || role_is(ev, 3))) {
        /* Status while the job runs says where its partition was proved. */
        cuzk_jobs_status st;
        int lane = -2;
        if (cuzk_jobs_status_get(eng, &st) == CUZK_OK) {
            const cuzk_job_info *ji = find_info(&st, ev->job_id);
            if (ji)
                lane = ji->part_device[ev->partition];
            cuzk_jobs_status_free(&st);
        }
        pthread_mutex_lock(&hk.mu);
        c2.finals++;
        c2.on_lane1 += lane == 1;
        pthread_mutex_unlock(&hk.mu);
    }
    return CUZK_OK;
}

static void case_device_error(void)
{
    const char *what = "device error";
    engine_start(2, 2, 0);
    set_behaviour(device_error);
    char t[ID], o[ID];
    submit_as(gen(2), 0, t);
    submit_as(syn_small(2), -1, o);
    expect_done(what, t);
    expect_done(what, o);
    /* One attempt on lane 0 (its worker stopped there), both partitions
     * proved on lane 1. */
    CHECK(count(t, CUZK_HOOK_PROVE, ANY, 0) == 1);
    CHECK(count(t, CUZK_HOOK_PROVE, ANY, 1) == 2);
    CHECK(count(t, CUZK_HOOK_PROVE, ANY, ANY) == 3);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.n_devices == 2 && st.devices[0].ordinal == 0 && st.devices[1].ordinal == 1);
    CHECK(!st.devices[0].healthy && strstr(st.devices[0].error, "injected device failure"));
    CHECK(st.devices[1].healthy && st.devices[1].error[0] == 0);
    cuzk_jobs_status_free(&st);

    /* Later jobs: every partition on lane 1. */
    char l1[ID], l2[ID], l3[ID];
    submit_as(gen(2), 1, l1);
    submit_as(syn_large(1), 2, l2);
    submit_as(syn_small(3), 3, l3);
    expect_done(what, l1);
    expect_done(what, l2);
    expect_done(what, l3);
    const char *later[3] = {l1, l2, l3};
    size_t proved = 0;
    for (int i = 0; i < 3; i++) {
        CHECK(count(later[i], CUZK_HOOK_PROVE, ANY, 0) == 0);
        proved += count(later[i], CUZK_HOOK_PROVE, ANY, 1);
    }
    CHECK(proved == 6);
    pthread_mutex_lock(&hk.mu);
    CHECK(c2.finals == 6 && c2.on_lane1 == 6);
    pthread_mutex_unlock(&hk.mu);
    engine_stop(what);
}

/* ---- 3. All devices fail. */

static cuzk_err last_lane_fails(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_PROVE && role_is(ev, 0)) {
        /* Fail the only lane once U's partition waits READY and W's is in
         * synthesis. */
        int ok;
        pthread_mutex_lock(&hk.mu);
        HK_AWAIT(count_locked(hk.role[2], CUZK_HOOK_SYNTHESIS, 0, ANY) > 0, ok);
        char u[ID];
        snprintf(u, sizeof u, "%s", hk.role[1]);
        pthread_mutex_unlock(&hk.mu);
        stage_query q = {u, 0, 1, CUZK_PART_READY};
        if (!ok || !poll_status(parts_in_stage, &q))
            return cuzk_fail(CUZK_EINTERNAL, "test hook: U never READY, W never in synthesis");
        return cuzk_fail(CUZK_EIO, "injected device failure");
    }
    if (ev->point == CUZK_HOOK_SYNTHESIS && role_is(ev, 2)) {
        /* W's synthesis ends after the lane is gone. */
        size_t d = 0;
        if (!poll_status(device_down, &d))
            return cuzk_fail(CUZK_EINTERNAL, "test hook: lane 0 never failed");
    }
    return CUZK_OK;
}

static cuzk_err every_lane_fails(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_PROVE && role_is(ev, 0))
        return cuzk_fail(CUZK_EIO, "injected device failure");
    return CUZK_OK;
}

static void after_all_failed(const char *what, size_t lanes)
{
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.n_devices == lanes);
    for (size_t d = 0; d < st.n_devices; d++)
        CHECK(!st.devices[d].healthy && strstr(st.devices[d].error, "injected device failure"));
    cuzk_jobs_status_free(&st);
    char v[ID];
    submit_as(gen(1), -1, v);
    expect_job(what, v, CUZK_JOB_FAILED, "no healthy prove device left", NULL);
}

static void case_all_devices_fail(void)
{
    /* One lane: the job on it fails with the injected error; the job whose
     * partition waited READY and the one in synthesis when the lane died
     * fail with "no healthy prove device left". */
    const char *what = "one lane fails";
    engine_start(1, 2, 0);
    char c[ID], t[ID], u[ID], w[ID];
    submit_as(gen(1), -1, c);
    expect_done(what, c);
    set_behaviour(last_lane_fails);
    submit_as(gen(1), 0, t);
    CHECK(wait_events(t, CUZK_HOOK_PROVE, 0, 1)); /* T holds the lane before U can */
    submit_as(syn_small(1), 1, u);
    submit_as(gen(1), 2, w);
    expect_job(what, t, CUZK_JOB_FAILED, "partition 0: injected device failure", NULL);
    expect_job(what, u, CUZK_JOB_FAILED, "no healthy prove device left", NULL);
    expect_job(what, w, CUZK_JOB_FAILED, "no healthy prove device left", NULL);
    CHECK(count(u, CUZK_HOOK_PROVE, ANY, ANY) == 0 && count(w, CUZK_HOOK_PROVE, ANY, ANY) == 0);
    after_all_failed(what, 1);
    engine_stop(what);

    /* Two lanes: the partition fails on one, is retried on the other, fails
     * there too: nothing is left to prove on. */
    what = "both lanes fail";
    engine_start(2, 2, 0);
    submit_as(gen(1), -1, c);
    expect_done(what, c);
    set_behaviour(every_lane_fails);
    submit_as(gen(1), 0, t);
    expect_job(what, t, CUZK_JOB_FAILED, "partition 0: injected device failure", NULL);
    CHECK(count(t, CUZK_HOOK_PROVE, 0, 0) == 1 && count(t, CUZK_HOOK_PROVE, 0, 1) == 1);
    after_all_failed(what, 2);
    engine_stop(what);
}

/* ---- 4. Device out of memory. */

static cuzk_err device_oom(const cuzk_hook_event *ev)
{
    if (ev->point != CUZK_HOOK_PROVE)
        return CUZK_OK;
    if (role_is(ev, 0) && ev->partition == 1 &&
        count(ev->job_id, CUZK_HOOK_PROVE, 1, ANY) == 1) /* the first attempt only */
        return cuzk_fail(CUZK_ENOMEM, "injected device out of memory");
    if (role_is(ev, 1) && ev->partition == 0) /* every attempt */
        return cuzk_fail(CUZK_ENOMEM, "injected device out of memory");
    return CUZK_OK;
}

static void case_device_oom(void)
{
    const char *what = "device out of memory";
    engine_start(1, 2, 0);
    set_behaviour(device_oom);
    char t1[ID], t2[ID], o[ID];
    submit_as(gen(2), 0, t1);
    submit_as(syn_small(2), 1, t2);
    submit_as(gen(1), -1, o);
    expect_done(what, t1);
    CHECK(count(t1, CUZK_HOOK_PROVE, 1, 0) == 2 && count(t1, CUZK_HOOK_PROVE, 0, 0) == 1);
    expect_job(what, t2, CUZK_JOB_FAILED, "partition 0: injected device out of memory", NULL);
    CHECK(count(t2, CUZK_HOOK_PROVE, 0, 0) == 2);
    expect_done(what, o);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.n_devices == 1 && st.devices[0].healthy && st.devices[0].error[0] == 0);
    cuzk_jobs_status_free(&st);
    engine_stop(what);
}

/* ---- 5. Allocation failure. */

static cuzk_err alloc_failure(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_ALLOC &&
        ((role_is(ev, 0) && ev->partition == 2) || (role_is(ev, 1) && ev->partition == 0)))
        return cuzk_fail(CUZK_ENOMEM, "injected allocation failure");
    return CUZK_OK;
}

static void case_alloc_failure(void)
{
    const char *what = "allocation failure";
    engine_start(0, 2, 0);
    set_behaviour(alloc_failure);
    char t[ID], ts[ID], o1[ID], o2[ID];
    submit_as(gen(3), 0, t);
    /* Partition 0 of a synthetic job builds the job's witness first. */
    submit_as(syn_large(2), 1, ts);
    submit_as(gen(2), -1, o1);
    submit_as(syn_small(1), -1, o2);
    expect_job(what, t, CUZK_JOB_FAILED, "partition 2: injected allocation failure", NULL);
    expect_job(what, ts, CUZK_JOB_FAILED, "partition 0: injected allocation failure", NULL);
    CHECK(count(t, CUZK_HOOK_PROVE, 2, ANY) == 0 && count(ts, CUZK_HOOK_PROVE, 0, ANY) == 0);
    expect_done(what, o1);
    expect_done(what, o2);
    engine_stop(what);
}

/* ---- 6. A client that goes away during await. */

static cuzk_err hold_prove(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_PROVE && ev->partition == 0 && role_is(ev, 0))
        return block_here();
    return CUZK_OK;
}

static struct {
    char id[ID];
    volatile int abort;
    cuzk_err rc;
    cuzk_job_result res;
} c6;

static void *aborted_await(void *arg)
{
    (void)arg;
    c6.rc = cuzk_jobs_await(eng, c6.id, 0, &c6.abort, &c6.res);
    return NULL;
}

static void case_await_abort(void)
{
    const char *what = "await abort";
    engine_start(0, 2, 0);
    set_behaviour(hold_prove);
    char t[ID], o[ID];
    submit_as(gen(2), 0, t);
    submit_as(syn_small(1), -1, o);
    snprintf(c6.id, sizeof c6.id, "%s", t);
    c6.abort = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, aborted_await, NULL) == 0);
    CHECK(wait_events(t, CUZK_HOOK_PROVE, 0, 1)); /* the job is running */
    c6.abort = 1;
    cuzk_jobs_wake(eng);
    pthread_join(th, NULL);
    CHECK_OK(c6.rc);
    CHECK(c6.res.status == CUZK_JOB_TIMEOUT && !strcmp(c6.res.job_id, t));
    CHECK(strstr(c6.res.error, "job still ") != NULL);
    CHECK(!c6.res.proof && c6.res.proof_size == 0);
    cuzk_job_result_free(&c6.res);
    CHECK(ends(t) == 0); /* the abort did not touch the job */
    set_release(1);
    expect_done(what, t);
    expect_done(what, o);
    engine_stop(what);
}

/* ---- 7. Cancellation at every stage. */

static struct {
    int point, calls, was;
    cuzk_err rc;
} c7;

static cuzk_err cancel_at_point(const cuzk_hook_event *ev)
{
    int point;
    pthread_mutex_lock(&hk.mu);
    point = c7.point;
    pthread_mutex_unlock(&hk.mu);
    if ((int)ev->point == point && ev->partition == 1 && role_is(ev, 0) &&
        count(ev->job_id, point, 1, ANY) == 1) {
        int was = -1;
        cuzk_err rc = cuzk_jobs_cancel(eng, ev->job_id, &was);
        pthread_mutex_lock(&hk.mu);
        c7.calls++;
        c7.was = was;
        c7.rc = rc;
        pthread_mutex_unlock(&hk.mu);
    }
    return CUZK_OK;
}

static cuzk_err hold_blocker(const cuzk_hook_event *ev)
{
    int point;
    pthread_mutex_lock(&hk.mu);
    point = c7.point;
    pthread_mutex_unlock(&hk.mu);
    if ((int)ev->point == point && role_is(ev, 1))
        return block_here();
    return CUZK_OK;
}

static void case_cancel(void)
{
    static const char *const names[] = {"cancel at synthesis", "cancel at alloc", "cancel at prove",
                                        "cancel at finalize"};
    /* One synthesis worker: while it is in partition 1, partition 2 cannot
     * have been admitted yet. */
    engine_start(0, 1, 0);
    char t[ID], o[ID];
    for (int point = CUZK_HOOK_SYNTHESIS; point <= CUZK_HOOK_FINALIZE; point++) {
        const char *what = names[point];
        pthread_mutex_lock(&hk.mu);
        c7.point = point;
        c7.calls = 0;
        c7.was = -1;
        c7.rc = CUZK_EINTERNAL;
        pthread_mutex_unlock(&hk.mu);
        set_behaviour(cancel_at_point);
        submit_as(gen(3), 0, t);
        submit_as(syn_small(2), -1, o);
        expect_job(what, t, CUZK_JOB_CANCELLED, "cancelled at a partition boundary", NULL);
        expect_done(what, o);
        pthread_mutex_lock(&hk.mu);
        CHECK(c7.calls == 1 && c7.rc == CUZK_OK && c7.was == 1);
        pthread_mutex_unlock(&hk.mu);
        /* Partition 1 stopped at its next boundary... */
        CHECK(count(t, CUZK_HOOK_ALLOC, 1, ANY) == 1);
        CHECK(count(t, CUZK_HOOK_PROVE, 1, ANY) == (size_t)(point >= CUZK_HOOK_PROVE));
        CHECK(count(t, CUZK_HOOK_FINALIZE, 1, ANY) == (size_t)(point == CUZK_HOOK_FINALIZE));
        /* ... and partition 2, behind it, never got past where 1 was. */
        if (point <= CUZK_HOOK_ALLOC)
            CHECK(count(t, CUZK_HOOK_SYNTHESIS, 2, ANY) == 0);
        if (point <= CUZK_HOOK_PROVE)
            CHECK(count(t, CUZK_HOOK_PROVE, 2, ANY) == 0);
        CHECK(count(t, CUZK_HOOK_FINALIZE, 2, ANY) == 0);
        set_behaviour(NULL);
    }

    /* While queued: the only synthesis worker is held in another job, so
     * nothing of the target is admitted; the cancel ends it at once. */
    const char *what = "cancel while queued";
    char b[ID];
    pthread_mutex_lock(&hk.mu);
    c7.point = CUZK_HOOK_SYNTHESIS;
    pthread_mutex_unlock(&hk.mu);
    set_release(0);
    set_behaviour(hold_blocker);
    submit_as(gen(1), 1, b);
    CHECK(wait_events(b, CUZK_HOOK_SYNTHESIS, 0, 1));
    submit_as(gen(2), 0, t);
    stage_query q = {t, 0, 2, CUZK_PART_QUEUED};
    CHECK(poll_status(parts_in_stage, &q));
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    const cuzk_job_info *ji = find_info(&st, t);
    CHECK(ji && !strcmp(ji->stage, "queued"));
    cuzk_jobs_status_free(&st);
    int was = -1;
    CHECK_OK(cuzk_jobs_cancel(eng, t, &was));
    CHECK(was == 0);
    CHECK(ends(t) == 1); /* ended within the call */
    expect_job(what, t, CUZK_JOB_CANCELLED, "cancelled while queued", NULL);
    pthread_mutex_lock(&hk.mu);
    int other = 0;
    for (size_t i = 0; i < hk.n_ev; i++)
        other += !strcmp(hk.ev[i].id, t) && hk.ev[i].point != CUZK_HOOK_END;
    pthread_mutex_unlock(&hk.mu);
    CHECK(other == 0);
    CHECK_OK(cuzk_jobs_cancel(eng, t, &was)); /* again: nothing changes */
    CHECK(was == 0 && ends(t) == 1);
    set_release(1);
    expect_done(what, b);

    /* While READY: the only prove worker is held in another job's PROVE
     * hook; the target's partitions are synthesized and wait for it. The
     * cancel ends the job before that worker is released. */
    what = "cancel while ready";
    pthread_mutex_lock(&hk.mu);
    c7.point = CUZK_HOOK_PROVE;
    pthread_mutex_unlock(&hk.mu);
    set_release(0);
    submit_as(gen(1), 1, b);
    CHECK(wait_events(b, CUZK_HOOK_PROVE, 0, 1));
    submit_as(gen(2), 0, t);
    stage_query r = {t, 0, 2, CUZK_PART_READY};
    CHECK(poll_status(parts_in_stage, &r));
    CHECK_OK(cuzk_jobs_cancel(eng, t, &was));
    CHECK(was == 1);
    CHECK(ends(t) == 1);
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(find_info(&st, t) == NULL && st.ready == 0);
    cuzk_jobs_status_free(&st);
    expect_job(what, t, CUZK_JOB_CANCELLED, "cancelled at a partition boundary", NULL);
    CHECK(count(b, CUZK_HOOK_END, ANY, ANY) == 0); /* the worker is still held */
    set_release(1);
    expect_done(what, b);
    CHECK(count(t, CUZK_HOOK_PROVE, ANY, ANY) == 0);
    set_behaviour(NULL);
    engine_stop("cancel");
}

/* ---- 8. A partition that can never fit the memory budget. */

static void case_budget(void)
{
    const char *what = "memory budget";
    /* The working set of one "gen" partition (a, b, c over the domain, the
     * prover's scratch and its witness) and the resident size of its SRS. */
    cuzk_srs_circuit *c = NULL;
    CHECK_OK(cuzk_srs_acquire(fx.srs, "gen", &c, NULL));
    if (!c)
        return;
    uint64_t m = (uint64_t)1 << c->pce->log_domain;
    uint64_t need = 3 * m * sizeof(cuzk_fr) + prover_scratch(c->pce) +
                    (c->pce->n_inputs + c->pce->n_aux) * sizeof(cuzk_fr);
    cuzk_srs_release(fx.srs, c);
    cuzk_srs_info *list = NULL;
    size_t n = 0;
    cuzk_srs_totals tot;
    CHECK_OK(cuzk_srs_snapshot(fx.srs, &list, &n, &tot));
    uint64_t srs = 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(list[i].id, "gen"))
            srs = list[i].size_bytes;
    free(list);
    CHECK(srs > 0);
    /* One element short of the partition plus its SRS. */
    uint64_t budget = srs + need - sizeof(cuzk_fr);
    engine_start(0, 2, budget);
    char t[ID], o[ID];
    submit_as(gen(1), 0, t);
    submit_as(syn_small(1), -1, o);
    char needs[128], of[128];
    snprintf(needs, sizeof needs, "a partition of circuit gen needs %llu bytes",
             (unsigned long long)need);
    snprintf(of, sizeof of, "exceeds the memory budget of %llu bytes", (unsigned long long)budget);
    expect_job(what, t, CUZK_JOB_FAILED, needs, of);
    CHECK(count(t, CUZK_HOOK_SYNTHESIS, ANY, ANY) == 0);
    expect_done(what, o);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.mem.budget == budget && st.mem.peak_reserved <= budget && st.mem.refusals > 0);
    cuzk_jobs_status_free(&st);
    engine_stop(what);
}

/* ---- 9. Drain with jobs in every stage. */

static cuzk_err hold_stages(const cuzk_hook_event *ev)
{
    if ((ev->point == CUZK_HOOK_FINALIZE && role_is(ev, 0)) ||
        (ev->point == CUZK_HOOK_PROVE && role_is(ev, 1)) ||
        (ev->point == CUZK_HOOK_SYNTHESIS && ev->partition == 0 && role_is(ev, 2)))
        return block_here();
    return CUZK_OK;
}

/* Grace 0: the queued jobs end and the running ones are stopped in one
 * hold of the engine's lock, so by the time the test sees the queued jobs
 * end, the held ones are already marked to stop at their next boundary. */
static void *drainer(void *arg)
{
    (void)arg;
    cuzk_jobs_drain(eng, 0);
    return NULL;
}

static void case_drain(void)
{
    const char *what = "drain";
    /* One prove worker, one finalizer, two synthesis workers, pipeline
     * depth 2. */
    engine_start(0, 2, 0);
    char e[ID], f[ID], a[ID], d[ID], b[ID], c[ID];
    submit_as(gen(1), -1, e);
    expect_done(what, e);
    set_behaviour(hold_stages);
    submit_as(syn_small(1), 0, f); /* held in FINALIZE */
    CHECK(wait_events(f, CUZK_HOOK_FINALIZE, 0, 1));
    submit_as(gen(1), 1, a); /* held in PROVE */
    CHECK(wait_events(a, CUZK_HOOK_PROVE, 0, 1));
    submit_as(gen(2), 2, d); /* partition 0 held in SYNTHESIS, 1 READY */
    stage_query qd = {d, 1, 2, CUZK_PART_READY};
    CHECK(wait_events(d, CUZK_HOOK_SYNTHESIS, 0, 1));
    CHECK(poll_status(parts_in_stage, &qd));
    submit_as(syn_large(1), 3, b); /* QUEUED: the pipeline is full */
    cuzk_job_request rc = gen(1);
    rc.priority = CUZK_PRIO_HIGH;
    submit_as(rc, 4, c);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    const cuzk_job_info *jf = find_info(&st, f), *ja = find_info(&st, a), *jd = find_info(&st, d),
                        *jb = find_info(&st, b), *jc = find_info(&st, c);
    CHECK(jf && jf->part_stage[0] == CUZK_PART_FINALIZE);
    CHECK(ja && ja->part_stage[0] == CUZK_PART_PROVE);
    CHECK(jd && jd->part_stage[0] == CUZK_PART_SYNTHESIS && jd->part_stage[1] == CUZK_PART_READY);
    CHECK(jb && !strcmp(jb->stage, "queued") && jb->part_stage[0] == CUZK_PART_QUEUED);
    CHECK(jc && !strcmp(jc->stage, "queued") && jc->part_stage[0] == CUZK_PART_QUEUED);
    cuzk_jobs_status_free(&st);

    pthread_t th;
    CHECK(pthread_create(&th, NULL, drainer, NULL) == 0);
    CHECK(poll_status(is_draining, NULL));
    char x[ID];
    uint32_t pos;
    int existing;
    cuzk_job_request rx = gen(1);
    CHECK_ERR(cuzk_jobs_submit(eng, &rx, x, &pos, &existing), CUZK_EUNSUPPORTED, "shutting down");
    /* The queued jobs end as the drain starts; the held ones only when
     * their workers reach the next boundary. */
    int ok;
    pthread_mutex_lock(&hk.mu);
    HK_AWAIT(count_locked(b, CUZK_HOOK_END, ANY, ANY) && count_locked(c, CUZK_HOOK_END, ANY, ANY),
             ok);
    pthread_mutex_unlock(&hk.mu);
    CHECK(ok);
    CHECK(ends(f) == 0 && ends(a) == 0 && ends(d) == 0);
    set_release(1);
    pthread_join(th, NULL);
    const char *bound = "cancelled at a partition boundary: daemon shutting down";
    expect_job(what, f, CUZK_JOB_CANCELLED, bound, NULL);
    expect_job(what, a, CUZK_JOB_CANCELLED, bound, NULL);
    expect_job(what, d, CUZK_JOB_CANCELLED, bound, NULL);
    expect_job(what, b, CUZK_JOB_CANCELLED, "cancelled while queued: daemon shutting down", NULL);
    expect_job(what, c, CUZK_JOB_CANCELLED, "cancelled while queued: daemon shutting down", NULL);
    expect_done(what, e);
    CHECK(count(d, CUZK_HOOK_PROVE, ANY, ANY) == 0 && count(b, CUZK_HOOK_SYNTHESIS, ANY, ANY) == 0);
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.draining && st.completed == 1 && st.cancelled == 5 && st.failed == 0);
    cuzk_jobs_status_free(&st);
    engine_stop(what);
}

/* ---- 10. Room in the pipeline: with depth 1, the synthesis worker that
 * made partition 0 READY finds the pipeline full and waits; the prove
 * worker taking partition 0 must wake it, so partition 1 is synthesized
 * while 0 is proved (here: held in its PROVE hook), not after. */

static cuzk_err hold_first_prove(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_PROVE && ev->partition == 0 && role_is(ev, 0))
        return block_here();
    return CUZK_OK;
}

static void case_refill(void)
{
    const char *what = "pipeline refill";
    pipeline_depth = 1;
    engine_start(0, 1, 0);
    pipeline_depth = 0;
    set_behaviour(hold_first_prove);
    char x[ID];
    submit_as(gen(2), 0, x);
    CHECK(wait_events(x, CUZK_HOOK_PROVE, 0, 1));
    stage_query q = {x, 1, 2, CUZK_PART_READY};
    int refilled = poll_status(parts_in_stage, &q);
    if (!refilled)
        fprintf(stderr, "%s: partition 1 was not synthesized while partition 0 was proved\n", what);
    CHECK(refilled);
    set_release(1);
    expect_done(what, x);
    engine_stop(what);
}

/* ---- 11. A CRITICAL job past a full pipeline: with depth 1 and a NORMAL
 * job's partition 0 held in PROVE and its partition 1 READY (the pipeline
 * is full), a CRITICAL job is still synthesized at once, and is proved
 * before the NORMAL partition waiting in the ready list: it waits for the
 * partition on the prove worker only (WinningPoSt's deadline). */

static long first_event(const char *id, int point, int part)
{
    pthread_mutex_lock(&hk.mu);
    long at = -1;
    for (size_t i = 0; i < hk.n_ev && at < 0; i++)
        if (!strcmp(hk.ev[i].id, id) && (int)hk.ev[i].point == point &&
            (part == ANY || (int)hk.ev[i].partition == part))
            at = (long)i;
    pthread_mutex_unlock(&hk.mu);
    return at;
}

static void case_express(void)
{
    const char *what = "critical past a full pipeline";
    pipeline_depth = 1;
    engine_start(0, 1, 0);
    pipeline_depth = 0;
    set_behaviour(hold_first_prove);
    char x[ID], c[ID];
    submit_as(gen(2), 0, x);
    CHECK(wait_events(x, CUZK_HOOK_PROVE, 0, 1));
    stage_query q = {x, 1, 2, CUZK_PART_READY};
    CHECK(poll_status(parts_in_stage, &q)); /* the pipeline is full */
    cuzk_job_request rc = gen(1);
    rc.priority = CUZK_PRIO_CRITICAL;
    submit_as(rc, 1, c);
    stage_query qc = {c, 0, 1, CUZK_PART_READY};
    int admitted = poll_status(parts_in_stage, &qc);
    if (!admitted)
        fprintf(stderr, "%s: the CRITICAL job was not synthesized while the pipeline was full\n",
                what);
    CHECK(admitted);
    set_release(1);
    expect_done(what, c);
    expect_done(what, x);
    long pc = first_event(c, CUZK_HOOK_PROVE, 0), px = first_event(x, CUZK_HOOK_PROVE, 1);
    CHECK(pc >= 0 && px >= 0 && pc < px);
    engine_stop(what);
}

/* ---- 12. A synthesis worker kept for CRITICAL jobs: with the one
 * configured worker held in a NORMAL job's synthesis, a CRITICAL job is
 * still synthesized, proved and finished (its WinningPoSt must not wait
 * for a PoRep's witness). */

static cuzk_err hold_normal_synthesis(const cuzk_hook_event *ev)
{
    if (ev->point == CUZK_HOOK_SYNTHESIS && role_is(ev, 0))
        return block_here();
    return CUZK_OK;
}

static void case_critical_worker(void)
{
    const char *what = "critical synthesis worker";
    engine_start(0, 1, 0);
    set_behaviour(hold_normal_synthesis);
    char x[ID], c[ID];
    submit_as(gen(1), 0, x);
    CHECK(wait_events(x, CUZK_HOOK_SYNTHESIS, 0, 1)); /* the worker is held */
    cuzk_job_request rc = gen(1);
    rc.priority = CUZK_PRIO_CRITICAL;
    submit_as(rc, 1, c);
    cuzk_job_result res;
    CHECK_OK(cuzk_jobs_await(eng, c, (uint64_t)WAIT_S * 1000, NULL, &res));
    if (res.status != CUZK_JOB_COMPLETED)
        fprintf(stderr, "%s: the CRITICAL job did not finish while the worker was held: %d %s\n",
                what, res.status, res.error);
    CHECK(res.status == CUZK_JOB_COMPLETED && ends(x) == 0);
    cuzk_job_result_free(&res);
    set_release(1);
    expect_done(what, x);
    engine_stop(what);
}

/* Every circuit once, so synthetic files exist and SRS sizes are known. */
static void warm_up(void)
{
    engine_start(0, 2, 0);
    char id[3][ID];
    submit_as(gen(1), -1, id[0]);
    submit_as(syn_small(1), -1, id[1]);
    submit_as(syn_large(1), -1, id[2]);
    for (int i = 0; i < 3; i++)
        expect_done("warm-up", id[i]);
    engine_stop("warm-up");
}

int main(void)
{
    if (!fixture_open(&fx, "test_engine_faults"))
        return 1;
    for (int i = 0; i < CUZK_JOB_MAX_PARTITIONS; i++) {
        wits[i] = fx.wit;
        sizes[i] = fx.wit_size;
    }
    warm_up();
    case_synthesis_error();
    case_device_error();
    case_all_devices_fail();
    case_device_oom();
    case_alloc_failure();
    case_await_abort();
    case_cancel();
    case_budget();
    case_drain();
    case_refill();
    case_express();
    case_critical_worker();
    fixture_close(&fx);
    return check_done("test_engine_faults");
}
