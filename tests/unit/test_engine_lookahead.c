/* The engine's lookahead (jobs.h `lookahead`): with the pipeline full and
 * the single prove worker held inside job A's first proof, job B (synthetic,
 * same priority, behind A) gets its shared witness built and its first
 * partition synthesized ahead, while A still has partitions to admit; the
 * lookahead is one job deep (job C behind B stays queued); without the
 * option B stays queued. Both runs end with every proof verified and
 * nothing reserved. */
#include "engine_fixture.h"

#include <pthread.h>

static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int hold, held;
    char a_id[CUZK_JOB_ID_MAX];
} hk = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, ""};

/* Holds the prove worker in job A's partition 0 until released. */
static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point != CUZK_HOOK_PROVE || ev->partition != 0)
        return CUZK_OK;
    pthread_mutex_lock(&hk.mu);
    if (!strcmp(ev->job_id, hk.a_id)) {
        hk.held = 1;
        pthread_cond_broadcast(&hk.cv);
        while (hk.hold)
            pthread_cond_wait(&hk.cv, &hk.mu);
    }
    pthread_mutex_unlock(&hk.mu);
    return CUZK_OK;
}

static const cuzk_job_info *info(const cuzk_jobs_status *st, const char *id)
{
    for (size_t i = 0; i < st->n_jobs; i++)
        if (!strcmp(st->jobs[i].job_id, id))
            return &st->jobs[i];
    return NULL;
}

/* Polls status until job `id` has partition `p` READY (1) or gives up (0). */
static int wait_ready(cuzk_jobs *j, const char *id, uint32_t p)
{
    for (int tries = 0; tries < 20000; tries++) {
        cuzk_jobs_status st;
        if (cuzk_jobs_status_get(j, &st))
            return 0;
        const cuzk_job_info *ji = info(&st, id);
        int ready = ji && ji->part_stage[p] == CUZK_PART_READY;
        cuzk_jobs_status_free(&st);
        if (ready)
            return 1;
        usleep(500);
    }
    return 0;
}

static void run(const fixture *fx, int lookahead)
{
    cuzk_jobs_config cfg = cpu_engine_cfg(fx);
    cfg.pipeline_depth = 1;
    cfg.lookahead = lookahead;
    cfg.hook = hook;
    cuzk_jobs *j;
    CHECK_OK(cuzk_jobs_new(&cfg, fx->srs, &j));
    if (!j)
        return;
    pthread_mutex_lock(&hk.mu);
    hk.hold = 1;
    hk.held = 0;
    pthread_mutex_unlock(&hk.mu);
    char a[CUZK_JOB_ID_MAX], b[CUZK_JOB_ID_MAX], c[CUZK_JOB_ID_MAX];
    uint32_t pos;
    int ex;
    cuzk_job_request ra = synth_req(1024, 2, 11, 3, CUZK_PRIO_NORMAL);
    cuzk_job_request rb = synth_req(1024, 2, 12, 2, CUZK_PRIO_NORMAL);
    cuzk_job_request rc = synth_req(1024, 2, 13, 2, CUZK_PRIO_NORMAL);
    pthread_mutex_lock(&hk.mu); /* A's id is known to the hook before it can run */
    CHECK_OK(cuzk_jobs_submit(j, &ra, a, &pos, &ex));
    snprintf(hk.a_id, sizeof hk.a_id, "%s", a);
    while (!hk.held)
        pthread_cond_wait(&hk.cv, &hk.mu);
    pthread_mutex_unlock(&hk.mu);
    /* The worker is inside A's partition 0; A's partition 1 fills the
     * pipeline (depth 1). */
    CHECK(wait_ready(j, a, 1));
    CHECK_OK(cuzk_jobs_submit(j, &rb, b, &pos, &ex));
    CHECK_OK(cuzk_jobs_submit(j, &rc, c, &pos, &ex));
    if (lookahead) {
        CHECK(wait_ready(j, b, 0)); /* built and synthesized ahead */
    } else {
        usleep(200 * 1000); /* room for a wrong admission to show */
    }
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    const cuzk_job_info *ia = info(&st, a), *ib = info(&st, b), *ic = info(&st, c);
    CHECK(ia && ib && ic);
    if (ia && ib && ic) {
        CHECK(ia->part_stage[0] == CUZK_PART_PROVE && ia->part_stage[1] == CUZK_PART_READY &&
              ia->part_stage[2] == CUZK_PART_QUEUED);
        if (lookahead)
            CHECK(ib->part_stage[0] == CUZK_PART_READY && ib->part_stage[1] == CUZK_PART_QUEUED);
        else
            CHECK(!strcmp(ib->stage, "queued") && ib->part_stage[0] == CUZK_PART_QUEUED);
        CHECK(!strcmp(ic->stage, "queued")); /* one job ahead at most */
    }
    cuzk_jobs_status_free(&st);
    pthread_mutex_lock(&hk.mu);
    hk.hold = 0;
    pthread_cond_broadcast(&hk.cv);
    pthread_mutex_unlock(&hk.mu);
    const char *ids[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(j, ids[i], 0, NULL, &res));
        CHECK(res.status == CUZK_JOB_COMPLETED && result_verifies(fx->dir, &res));
        cuzk_job_result_free(&res);
    }
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.n_jobs == 0 && st.completed == 3 && st.mem.reserved == 0 && st.mem.allocated == 0);
    cuzk_jobs_status_free(&st);
    cuzk_jobs_free(j);
}

int main(void)
{
    fixture fx;
    if (!fixture_open(&fx, "test_engine_lookahead"))
        return 1;
    run(&fx, 1);
    run(&fx, 0);
    fixture_close(&fx);
    return check_done("test_engine_lookahead");
}
