/* Partitions taken ahead (pipeline.c): a prove worker starting the last
 * partition it holds also takes the next ready one, so that a device
 * backend moves that one's packed witness to the GPU under the current
 * proof (cuzk_groth16_prove_packed_next). The engine runs on the CPU
 * backend with witnesses packed as for a GPU (test_pack_witness); the CPU
 * backend proves from the witness itself, so the upload is
 * test_gpu_backend's to check. A hook holds prove calls while the test puts
 * the ready list in a known state (status polled, with a cap), so no timing
 * decides an outcome:
 *   1. a job's partitions are proved in order, the second taken ahead while
 *      the first ran, and nothing is given back;
 *   2. a CRITICAL partition that becomes ready while a LOW one is held ahead
 *      is proved first: the LOW one is given back and proved after it;
 *   3. a job cancelled while its partition is held ahead: that partition
 *      ends cancelled without a prove, and the job ends CANCELLED.
 * Everywhere: the completed jobs' proofs verify, and nothing stays reserved
 * or allocated once the jobs are done. */
#include "engine_fixture.h"

#include <pthread.h>
#include <time.h>

#define MAX_EV 256
#define WAIT_S 120

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    char id[MAX_EV][CUZK_JOB_ID_MAX]; /* PROVE events, in order */
    uint32_t part[MAX_EV];
    size_t n;
    int block_next; /* the next PROVE event blocks ... */
    int blocked;    /* ... until the test clears this */
} hk = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static struct timespec deadline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += WAIT_S;
    return ts;
}

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point != CUZK_HOOK_PROVE)
        return CUZK_OK;
    pthread_mutex_lock(&hk.mu);
    if (hk.n < MAX_EV) {
        snprintf(hk.id[hk.n], CUZK_JOB_ID_MAX, "%s", ev->job_id);
        hk.part[hk.n++] = ev->partition;
    }
    if (hk.block_next) {
        hk.block_next = 0;
        hk.blocked = 1;
        pthread_cond_broadcast(&hk.cv);
        struct timespec dl = deadline();
        while (hk.blocked)
            if (pthread_cond_timedwait(&hk.cv, &hk.mu, &dl)) {
                hk.blocked = 0; /* the test failed to release it: let the engine go on */
                fprintf(stderr, "  hook released by its deadline\n");
            }
    }
    pthread_mutex_unlock(&hk.mu);
    return CUZK_OK;
}

/* Wait until a prove call sits in the hook. */
static int wait_blocked(void)
{
    int ok = 1;
    struct timespec dl = deadline();
    pthread_mutex_lock(&hk.mu);
    while (!hk.blocked && ok)
        ok = !pthread_cond_timedwait(&hk.cv, &hk.mu, &dl) || hk.blocked;
    pthread_mutex_unlock(&hk.mu);
    return ok;
}

static void block_next(void)
{
    pthread_mutex_lock(&hk.mu);
    hk.block_next = 1;
    pthread_mutex_unlock(&hk.mu);
}

static void release(void)
{
    pthread_mutex_lock(&hk.mu);
    hk.blocked = 0;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
}

/* Position of job id's partition k among the PROVE events, or -1. */
static int proved_at(const char *id, uint32_t k)
{
    int at = -1;
    pthread_mutex_lock(&hk.mu);
    for (size_t i = 0; i < hk.n && at < 0; i++)
        if (!strcmp(hk.id[i], id) && hk.part[i] == k)
            at = (int)i;
    pthread_mutex_unlock(&hk.mu);
    return at;
}

/* Poll status until job id has at least n partitions READY (1 ms apart,
 * capped): 1 when it did. */
static int wait_ready(cuzk_jobs *j, const char *id, unsigned n)
{
    for (int poll = 0; poll < WAIT_S * 1000; poll++) {
        cuzk_jobs_status st;
        if (cuzk_jobs_status_get(j, &st))
            return 0;
        unsigned r = 0;
        for (size_t i = 0; i < st.n_jobs; i++)
            if (!strcmp(st.jobs[i].job_id, id))
                for (uint32_t k = 0; k < st.jobs[i].partitions; k++)
                    r += st.jobs[i].part_stage[k] == CUZK_PART_READY;
        cuzk_jobs_status_free(&st);
        if (r >= n)
            return 1;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return 0;
}

static void submit(cuzk_jobs *j, cuzk_job_request r, char *id)
{
    uint32_t pos;
    int ex;
    CHECK_OK(cuzk_jobs_submit(j, &r, id, &pos, &ex));
}

/* Await a job: its status, and with COMPLETED its proofs verified. */
static int await_status(cuzk_jobs *j, const char *id, const fixture *fx)
{
    cuzk_job_result res;
    CHECK_OK(cuzk_jobs_await(j, id, 0, NULL, &res));
    int s = res.status;
    if (s == CUZK_JOB_COMPLETED)
        CHECK(result_verifies(fx->dir, &res));
    else
        fprintf(stderr, "  job %s: status %d %s\n", id, s, res.error);
    cuzk_job_result_free(&res);
    return s;
}

static void counters(cuzk_jobs *j, uint64_t *ahead, uint64_t *back)
{
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    *ahead = st.taken_ahead;
    *back = st.ahead_given_back;
    cuzk_jobs_status_free(&st);
}

/* A one-partition job whose prove call is held, then a 3-partition job
 * with two partitions ready: released, the worker takes the second job's
 * partition 0 and holds its partition 1 ahead. blocker and job get the ids. */
static void stage_ahead(cuzk_jobs *j, char *blocker, char *job, uint64_t seed, int hold_first)
{
    block_next();
    submit(j, synth_req(1024, 2, seed, 1, 0), blocker);
    CHECK(wait_blocked());
    submit(j, synth_req(1024, 2, seed + 1, 3, 0), job);
    CHECK(wait_ready(j, job, 2));
    if (hold_first)
        block_next();
    release();
    if (hold_first)
        CHECK(wait_blocked()); /* job's partition 0, with partition 1 held ahead */
}

int main(void)
{
    fixture fx;
    if (!fixture_open(&fx, "test_engine_ahead"))
        return 1;
    cuzk_jobs_config cfg = cpu_engine_cfg(&fx);
    cfg.hook = hook;
    cfg.test_pack_witness = 1;
    cuzk_jobs *j;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &j));
    if (!j)
        return check_done("test_engine_ahead");
    char a[CUZK_JOB_ID_MAX], b[CUZK_JOB_ID_MAX], c[CUZK_JOB_ID_MAX];
    uint64_t ah0, bk0, ah1, bk1;

    /* 1. in order, one taken ahead, nothing given back */
    counters(j, &ah0, &bk0);
    stage_ahead(j, a, b, 31, 0);
    CHECK(await_status(j, a, &fx) == CUZK_JOB_COMPLETED);
    CHECK(await_status(j, b, &fx) == CUZK_JOB_COMPLETED);
    counters(j, &ah1, &bk1);
    CHECK(ah1 - ah0 >= 1 && bk1 == bk0);
    CHECK(proved_at(a, 0) >= 0 && proved_at(a, 0) < proved_at(b, 0) &&
          proved_at(b, 0) < proved_at(b, 1) && proved_at(b, 1) < proved_at(b, 2));

    /* 2. a CRITICAL partition ready while a LOW one is held ahead goes
     * first; the LOW one is given back and proved after it */
    counters(j, &ah0, &bk0);
    stage_ahead(j, a, b, 41, 1);
    submit(j, synth_req(1024, 2, 43, 1, 3), c);
    CHECK(wait_ready(j, c, 1));
    release();
    CHECK(await_status(j, c, &fx) == CUZK_JOB_COMPLETED);
    CHECK(await_status(j, a, &fx) == CUZK_JOB_COMPLETED);
    CHECK(await_status(j, b, &fx) == CUZK_JOB_COMPLETED);
    counters(j, &ah1, &bk1);
    CHECK(bk1 - bk0 >= 1);
    CHECK(proved_at(b, 0) >= 0 && proved_at(b, 0) < proved_at(c, 0) &&
          proved_at(c, 0) < proved_at(b, 1));
    if (!(proved_at(c, 0) < proved_at(b, 1)))
        fprintf(stderr, "  critical at %d, the partition held ahead at %d\n", proved_at(c, 0),
                proved_at(b, 1));

    /* 3. cancelled while held ahead: never proved, the job ends CANCELLED */
    counters(j, &ah0, &bk0);
    stage_ahead(j, a, b, 51, 1);
    int was_running = 0;
    CHECK_OK(cuzk_jobs_cancel(j, b, &was_running));
    CHECK(was_running);
    release();
    CHECK(await_status(j, a, &fx) == CUZK_JOB_COMPLETED);
    CHECK(await_status(j, b, &fx) == CUZK_JOB_CANCELLED);
    counters(j, &ah1, &bk1);
    CHECK(bk1 - bk0 >= 1);
    CHECK(proved_at(b, 0) >= 0 && proved_at(b, 1) < 0 && proved_at(b, 2) < 0);

    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.n_jobs == 0 && st.proving == 0 && st.ready == 0);
    CHECK(st.mem.reserved == 0 && st.mem.allocated == 0);
    cuzk_jobs_status_free(&st);
    cuzk_jobs_free(j);
    fixture_close(&fx);
    return check_done("test_engine_ahead");
}
