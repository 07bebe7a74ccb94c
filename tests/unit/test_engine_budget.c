/* Two circuits under a memory budget that holds one circuit's SRS and one
 * partition's working set, but not both SRS at once. Jobs of both circuits
 * are submitted together, so the second job is prepared (its SRS acquired)
 * while the first is (a hook holds the first preparation until the second
 * is done): admission must then undo the second's preparation to let the
 * first job's SRS and working set fit, instead of failing a job that would
 * run once the other's SRS is gone. Every job completes and verifies, the
 * budget was binding, the SRS of the first circuit was dropped to make room
 * for the second, and nothing stays reserved. */
#include "engine_fixture.h"

#include <pthread.h>

/* The first job's preparation waits until the second's is done, so both
 * hold their SRS when the first one's partition asks for memory. */
static struct {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int on, first_seen, second_done, unprepared;
    char first[CUZK_JOB_ID_MAX];
} hk = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, ""};

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point != CUZK_HOOK_PREPARE)
        return CUZK_OK;
    pthread_mutex_lock(&hk.mu);
    if (hk.on && !hk.first_seen) {
        hk.first_seen = 1;
        snprintf(hk.first, sizeof hk.first, "%s", ev->job_id);
        for (int i = 0; i < 2000 && !hk.second_done; i++) { /* 20 s at most */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000L;
            ts.tv_sec += ts.tv_nsec / 1000000000L;
            ts.tv_nsec %= 1000000000L;
            pthread_cond_timedwait(&hk.cv, &hk.mu, &ts);
        }
    } else if (hk.on && strcmp(ev->job_id, hk.first)) {
        hk.second_done = 1;
        pthread_cond_broadcast(&hk.cv);
    }
    pthread_mutex_unlock(&hk.mu);
    return CUZK_OK;
}

/* Working sets (a, b, c) allocated by synthesis, counted. */
static unsigned allocs;

static cuzk_err count_hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point == CUZK_HOOK_ALLOC)
        __atomic_add_fetch(&allocs, 1, __ATOMIC_RELAXED);
    return CUZK_OK;
}

static uint64_t srs_bytes_of(cuzk_srs_manager *m, const char *id)
{
    cuzk_srs_info *l;
    size_t n;
    cuzk_srs_totals t;
    uint64_t b = 0;
    if (cuzk_srs_snapshot(m, &l, &n, &t))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].id, id))
            b = l[i].size_bytes;
    free(l);
    return b;
}

static void run_jobs(cuzk_jobs *j, const cuzk_job_request *reqs, size_t n, const fixture *fx)
{
    char ids[8][CUZK_JOB_ID_MAX];
    for (size_t i = 0; i < n; i++) {
        uint32_t pos;
        int ex;
        CHECK_OK(cuzk_jobs_submit(j, &reqs[i], ids[i], &pos, &ex));
    }
    for (size_t i = 0; i < n; i++) {
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(j, ids[i], 0, NULL, &res));
        if (res.status != CUZK_JOB_COMPLETED)
            fprintf(stderr, "job %zu: %s\n", i, res.error);
        CHECK(res.status == CUZK_JOB_COMPLETED && result_verifies(fx->dir, &res));
        cuzk_job_result_free(&res);
    }
}

int main(void)
{
    fixture fx;
    if (!fixture_open(&fx, "test_engine_budget"))
        return 1;
    cuzk_job_request reqs[4] = {synth_req(1024, 2, 21, 2, 0), synth_req(1024, 2, 22, 2, 0),
                                synth_req(1024, 2, 21, 1, 0), synth_req(1024, 2, 22, 1, 0)};
    /* Files and sizes, without a budget. */
    cuzk_jobs_config cfg = cpu_engine_cfg(&fx);
    cuzk_jobs *j;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &j));
    if (!j)
        return check_done("test_engine_budget");
    run_jobs(j, reqs, 2, &fx);
    cuzk_jobs_free(j);
    uint64_t s1 = srs_bytes_of(fx.srs, "synthetic-n1024-p2-s21");
    uint64_t s2 = srs_bytes_of(fx.srs, "synthetic-n1024-p2-s22");
    CHECK(s1 > 0 && s2 > 0);
    /* One SRS plus a partition (a, b, c: 3 x 1024 x 32 bytes, the prover's
     * scratch) and its job's witness (~1030 x 32), with a little slack:
     * never both SRS. */
    cuzk_srs_circuit *c = NULL;
    CHECK_OK(cuzk_srs_acquire(fx.srs, "synthetic-n1024-p2-s21", &c, NULL));
    if (!c)
        return check_done("test_engine_budget");
    uint64_t work = 3 * 1024 * 32 + prover_scratch(c->pce) + 1100 * 32;
    cuzk_srs_release(fx.srs, c);
    uint64_t budget = (s1 > s2 ? s1 : s2) + work + 4096;
    CHECK(budget < s1 + s2);
    cfg.memory_budget = budget;
    cfg.hook = hook;
    hk.on = 1;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &j));
    if (!j)
        return check_done("test_engine_budget");
    run_jobs(j, reqs, 4, &fx);
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.completed == 4 && st.failed == 0 && st.n_jobs == 0);
    CHECK(st.mem.refusals > 0 && st.mem.reserved == 0 && st.mem.allocated == 0);
    CHECK(st.mem.peak_reserved <= budget - (s1 < s2 ? s1 : s2));
    cuzk_jobs_status_free(&st);
    cuzk_srs_totals tot;
    cuzk_srs_info *l;
    size_t n;
    CHECK_OK(cuzk_srs_snapshot(fx.srs, &l, &n, &tot));
    free(l);
    CHECK(tot.evictions > 0);               /* one circuit's SRS made room for the other's */
    CHECK(hk.first_seen && hk.second_done); /* both were prepared at once */
    cuzk_jobs_free(j);

    /* The packed path of GPU backends on the CPU: each partition's witness
     * packed by synthesis (no partition allocates a, b, c: the working-set
     * hook never runs), proved, and the pack released by the finalizer
     * after the prove worker has moved on. Every proof verifies and nothing
     * stays counted. Without the setting the same jobs allocate a, b, c. */
    for (int packed = 1; packed >= 0; packed--) {
        cfg.memory_budget = 0;
        cfg.hook = count_hook;
        cfg.test_pack_witness = packed;
        __atomic_store_n(&allocs, 0, __ATOMIC_RELAXED);
        CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &j));
        if (!j)
            return check_done("test_engine_budget");
        run_jobs(j, reqs, 4, &fx);
        CHECK_OK(cuzk_jobs_status_get(j, &st));
        CHECK(st.completed == 4 && st.failed == 0 && st.n_jobs == 0);
        CHECK(st.mem.reserved == 0 && st.mem.allocated == 0);
        cuzk_jobs_status_free(&st);
        cuzk_jobs_free(j);
        unsigned a = __atomic_load_n(&allocs, __ATOMIC_RELAXED);
        CHECK(packed ? a == 0 : a == 6); /* 2 + 2 + 1 + 1 partitions */
        if (packed ? a != 0 : a != 6)
            fprintf(stderr, "  packed=%d: %u working sets allocated\n", packed, a);
    }
    fixture_close(&fx);
    return check_done("test_engine_budget");
}
