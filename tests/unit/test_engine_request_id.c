/* request_id in the engine (jobs.h cuzk_jobs_submit): one id, several
 * submissions over a job's life.
 *
 * While the id's job runs (held inside its synthesis by the hook), the same
 * payload gets that job and another payload is refused, naming the job.
 * Once it has completed, the same payload gets it again (its proof, not a
 * second one) and another payload is a new job. A job that failed or was
 * cancelled frees the id: the same payload again is a new job (a retry),
 * and so is another payload. Old job ids stay valid for await. Every
 * completed proof verifies; nothing stays reserved. */
#include "engine_fixture.h"

#include <pthread.h>

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int hold, held;
} hk = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0};

/* While hold is set, every synthesis waits here until released. */
static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point != CUZK_HOOK_SYNTHESIS)
        return CUZK_OK;
    pthread_mutex_lock(&hk.mu);
    hk.held = 1;
    pthread_cond_broadcast(&hk.cv);
    while (hk.hold)
        pthread_cond_wait(&hk.cv, &hk.mu);
    pthread_mutex_unlock(&hk.mu);
    return CUZK_OK;
}

static void set_hold(int on)
{
    pthread_mutex_lock(&hk.mu);
    hk.hold = on;
    hk.held = 0;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
}

static void wait_held(void)
{
    pthread_mutex_lock(&hk.mu);
    while (!hk.held)
        pthread_cond_wait(&hk.cv, &hk.mu);
    pthread_mutex_unlock(&hk.mu);
}

/* Submits with request_id rid: the job id, and whether it was an existing
 * job (-1 when the submission failed). */
static int submit(cuzk_jobs *j, const uint8_t *wit, size_t size, const char *rid,
                  char id[CUZK_JOB_ID_MAX])
{
    const uint8_t *w[1] = {wit};
    size_t sz[1] = {size};
    cuzk_job_request r = gen_req(w, sz, 1, CUZK_PRIO_NORMAL);
    r.request_id = rid;
    uint32_t pos;
    int ex = 0;
    id[0] = 0;
    return cuzk_jobs_submit(j, &r, id, &pos, &ex) == CUZK_OK ? ex : -1;
}

static cuzk_job_status await_status(cuzk_jobs *j, const char *dir, const char *id, int *verifies)
{
    cuzk_job_result res;
    memset(&res, 0, sizeof res);
    cuzk_err e = cuzk_jobs_await(j, id, 0, NULL, &res);
    CHECK_OK(e);
    cuzk_job_status st = e ? CUZK_JOB_UNKNOWN : res.status;
    if (verifies)
        *verifies = st == CUZK_JOB_COMPLETED && result_verifies(dir, &res);
    cuzk_job_result_free(&res);
    return st;
}

int main(void)
{
    fixture fx;
    if (!fixture_open(&fx, "test_engine_request_id"))
        return 1;
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .verify_proofs = 1,
                            .param_dir = fx.dir,
                            .retain = 64,
                            .max_queued = 16,
                            .max_queued_bytes = 1 << 24,
                            .max_synthetic = 1 << 16,
                            .hook = hook};
    cuzk_jobs *j = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &j));
    if (!j)
        return check_done("test_engine_request_id");
    const uint8_t *good = fx.wit, *bad = fx.bad_wit;
    size_t n = fx.wit_size;
    char a[CUZK_JOB_ID_MAX], b[CUZK_JOB_ID_MAX], c[CUZK_JOB_ID_MAX], d[CUZK_JOB_ID_MAX],
        e[CUZK_JOB_ID_MAX], f[CUZK_JOB_ID_MAX], x[CUZK_JOB_ID_MAX];
    int ok = 0;

    /* A runs (held in its synthesis). */
    set_hold(1);
    CHECK(submit(j, good, n, "sector-7", a) == 0);
    wait_held();
    CHECK(submit(j, good, n, "sector-7", x) == 1 && !strcmp(x, a)); /* a retry: the same job */
    char want[128];
    snprintf(want, sizeof want,
             "request_id \"sector-7\" names another request still in progress "
             "(job %s, kind generic_r1cs)",
             a);
    CHECK(submit(j, bad, n, "sector-7", x) == -1);
    CHECK(strstr(cuzk_errmsg(), want) != NULL);
    set_hold(0);
    CHECK(await_status(j, fx.dir, a, &ok) == CUZK_JOB_COMPLETED && ok);

    /* Completed: the same payload gets A again, another one is a new job. */
    CHECK(submit(j, good, n, "sector-7", x) == 1 && !strcmp(x, a));
    CHECK(submit(j, bad, n, "sector-7", b) == 0 && strcmp(b, a));
    CHECK(await_status(j, fx.dir, b, NULL) == CUZK_JOB_FAILED);

    /* B failed: the same payload again is a retry, a new job. */
    CHECK(submit(j, bad, n, "sector-7", c) == 0 && strcmp(c, b) && strcmp(c, a));
    CHECK(await_status(j, fx.dir, c, NULL) == CUZK_JOB_FAILED);
    /* ... and after C failed, A's payload is a new job too (the id's newest
     * job is C), which then answers for that payload. */
    CHECK(submit(j, good, n, "sector-7", d) == 0 && strcmp(d, a) && strcmp(d, c));
    CHECK(await_status(j, fx.dir, d, &ok) == CUZK_JOB_COMPLETED && ok);
    CHECK(submit(j, good, n, "sector-7", x) == 1 && !strcmp(x, d));

    /* A cancelled job frees its id as well. */
    set_hold(1);
    CHECK(submit(j, good, n, "sector-8", e) == 0);
    wait_held();
    int was_running = 0;
    CHECK_OK(cuzk_jobs_cancel(j, e, &was_running));
    CHECK(was_running);
    CHECK(submit(j, bad, n, "sector-8", x) == -1); /* E has not ended yet */
    set_hold(0);
    CHECK(await_status(j, fx.dir, e, NULL) == CUZK_JOB_CANCELLED);
    CHECK(submit(j, good, n, "sector-8", f) == 0 && strcmp(f, e));
    CHECK(await_status(j, fx.dir, f, &ok) == CUZK_JOB_COMPLETED && ok);

    /* Earlier jobs keep their own results. */
    CHECK(await_status(j, fx.dir, a, &ok) == CUZK_JOB_COMPLETED && ok);
    CHECK(await_status(j, fx.dir, b, NULL) == CUZK_JOB_FAILED);
    CHECK(await_status(j, fx.dir, e, NULL) == CUZK_JOB_CANCELLED);

    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.completed == 3 && st.failed == 2 && st.cancelled == 1 && st.mem.reserved == 0 &&
          st.mem.allocated == 0);
    cuzk_jobs_status_free(&st);
    cuzk_jobs_free(j);
    fixture_close(&fx);
    return check_done("test_engine_request_id");
}
