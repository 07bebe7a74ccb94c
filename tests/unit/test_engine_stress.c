/* The engine under load: 200 jobs of mixed kinds and priorities from 32
 * concurrent client threads, with a memory budget that holds the resident
 * SRS plus about three partitions' working sets.
 *
 * Checks: every job ends exactly once (counted by the END hook) with the
 * status its request implies (valid jobs COMPLETED and their proofs verify
 * against the circuit's VK; Filecoin kinds and an unsatisfied witness
 * FAILED with a precise message; cancelled ones CANCELLED, or COMPLETED when
 * the cancel came too late); a resubmitted request_id of a running or
 * completed job returns that job;
 * admission was refused for memory at times (the budget was binding) and
 * reservations never passed the budget; the sampled RSS stayed within the
 * RSS at the start plus the budget's working part plus a stated margin;
 * nothing is reserved or allocated at the end; and every CRITICAL job
 * finished within a bound counted in partitions, not seconds: at most
 * 1 + pipeline_depth + prove workers + 2 x synthesis workers partitions of
 * any job started proving between its submission and its end, while
 * lower-priority work was queued. */
#include "engine_fixture.h"
#include "cuzk/mem.h"

#include <pthread.h>
#include <stdatomic.h>

#define N_JOBS 200
#define N_CLIENTS 32
#define PROVE_WORKERS 2
#define SYNTH_WORKERS 2
#define DEPTH 6

enum { EXPECT_OK, EXPECT_FAIL, EXPECT_CANCEL_OR_OK };

typedef struct {
    char id[CUZK_JOB_ID_MAX];
    int priority, expect;
    const char *needle; /* in the error of an expected failure */
    unsigned long starts_at_submit;
    int pending_lower; /* CRITICAL: lower-priority jobs queued at submission */
    cuzk_job_status got;
    int verified, resubmit_ok;
    char error[256];
} client_job;

typedef struct {
    char id[CUZK_JOB_ID_MAX];
    int ends;
    unsigned long starts_at_end;
} end_rec;

static struct {
    pthread_mutex_t mu;
    end_rec ends[N_JOBS * 2];
    size_t n_ends;
    atomic_ulong prove_starts;
} hk = {.mu = PTHREAD_MUTEX_INITIALIZER};

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point == CUZK_HOOK_PROVE)
        atomic_fetch_add(&hk.prove_starts, 1);
    if (ev->point == CUZK_HOOK_END) {
        pthread_mutex_lock(&hk.mu);
        size_t i = 0;
        while (i < hk.n_ends && strcmp(hk.ends[i].id, ev->job_id))
            i++;
        if (i == hk.n_ends && hk.n_ends < N_JOBS * 2)
            snprintf(hk.ends[hk.n_ends++].id, CUZK_JOB_ID_MAX, "%s", ev->job_id);
        if (i < hk.n_ends) {
            hk.ends[i].ends++;
            hk.ends[i].starts_at_end = atomic_load(&hk.prove_starts);
        }
        pthread_mutex_unlock(&hk.mu);
    }
    return CUZK_OK;
}

static fixture fx;
static cuzk_jobs *eng;
static client_job jobs[N_JOBS];
static atomic_int next_job;

static int lower_pending(void)
{
    cuzk_jobs_status st;
    if (cuzk_jobs_status_get(eng, &st))
        return 0;
    int n = 0;
    for (size_t i = 0; i < st.n_jobs; i++)
        n += st.jobs[i].priority < CUZK_PRIO_CRITICAL && !strcmp(st.jobs[i].stage, "queued");
    cuzk_jobs_status_free(&st);
    return n;
}

static void run_one(int i)
{
    client_job *cj = &jobs[i];
    const uint8_t *wits[3] = {fx.wit, fx.wit, fx.wit};
    size_t sizes[3] = {fx.wit_size, fx.wit_size, fx.wit_size};
    cuzk_job_request r;
    cj->expect = EXPECT_OK;
    switch (i % 10) {
    case 0: r = synth_req(256, 1, 1, 1, CUZK_PRIO_CRITICAL); break;
    case 1: r = gen_req(wits, sizes, 2, CUZK_PRIO_HIGH); break;
    case 2:
    case 3:
    case 4: r = synth_req(1024, 2, (uint64_t)(i % 3), 3, CUZK_PRIO_NORMAL); break;
    case 5: r = gen_req(wits, sizes, 3, CUZK_PRIO_NORMAL); break;
    case 6: r = synth_req(512, 0, 4, 2, CUZK_PRIO_LOW); break;
    case 7: { /* a SnapDeals partition proof that is not one: fails in prepare */
        static const uint8_t junk[2] = {1, 2}, zero[32];
        static const uint8_t *const van[1] = {junk};
        static const size_t van_size[1] = {2};
        memset(&r, 0, sizeof r);
        r.kind = CUZK_KIND_SNAP_DEALS_UPDATE;
        r.vanilla_proofs = van;
        r.vanilla_sizes = van_size;
        r.n_vanilla = 1;
        r.comm_r_old = r.comm_d_new = r.comm_r_new = zero;
        r.comm_r_old_len = r.comm_d_new_len = r.comm_r_new_len = 32;
        cj->expect = EXPECT_FAIL;
        cj->needle = "vanilla_proofs[0]";
        break;
    }
    case 8:
        wits[1] = fx.bad_wit;
        r = gen_req(wits, sizes, 2, CUZK_PRIO_NORMAL);
        cj->expect = EXPECT_FAIL;
        cj->needle = "partition 1: witness does not satisfy constraint";
        break;
    default:
        r = synth_req(1024, 2, 0, 2, CUZK_PRIO_NORMAL);
        cj->expect = EXPECT_CANCEL_OR_OK;
        break;
    }
    char rid[32];
    snprintf(rid, sizeof rid, "stress-%d", i);
    r.request_id = rid;
    cj->priority = r.priority ? r.priority : CUZK_PRIO_NORMAL;
    if (cj->priority == CUZK_PRIO_CRITICAL)
        cj->pending_lower = lower_pending();
    cj->starts_at_submit = atomic_load(&hk.prove_starts);
    uint32_t pos;
    int existing = -1;
    if (cuzk_jobs_submit(eng, &r, cj->id, &pos, &existing) != CUZK_OK || existing) {
        snprintf(cj->error, sizeof cj->error, "submit: %s", cuzk_errmsg());
        return;
    }
    if (i % 50 == 3) { /* an idempotent resubmission, of a job that cannot fail (case 3): the
                          same request after a failure would be a new job (a retry) */
        char again[CUZK_JOB_ID_MAX];
        cj->resubmit_ok = cuzk_jobs_submit(eng, &r, again, &pos, &existing) == CUZK_OK &&
                          existing == 1 && !strcmp(again, cj->id);
    }
    if (cj->expect == EXPECT_CANCEL_OR_OK) {
        int was;
        cuzk_jobs_cancel(eng, cj->id, &was);
    }
    cuzk_job_result res;
    if (cuzk_jobs_await(eng, cj->id, 0, NULL, &res) != CUZK_OK) {
        snprintf(cj->error, sizeof cj->error, "await: %s", cuzk_errmsg());
        return;
    }
    cj->got = res.status;
    snprintf(cj->error, sizeof cj->error, "%.255s", res.error);
    if (res.status == CUZK_JOB_COMPLETED)
        cj->verified = result_verifies(fx.dir, &res);
    cuzk_job_result_free(&res);
}

static void *client(void *arg)
{
    (void)arg;
    int i;
    while ((i = atomic_fetch_add(&next_job, 1)) < N_JOBS)
        run_one(i);
    return NULL;
}

/* One job of every circuit the stress run uses, so their files exist and
 * their SRS is resident before the budget is computed. */
static void warm_up(void)
{
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .param_dir = fx.dir,
                            .retain = 16,
                            .max_queued = 64,
                            .max_queued_bytes = 1 << 30,
                            .max_synthetic = 1 << 16};
    cuzk_jobs *w;
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &w));
    const uint8_t *wits[1] = {fx.wit};
    size_t sizes[1] = {fx.wit_size};
    cuzk_job_request reqs[] = {synth_req(256, 1, 1, 1, 0),  synth_req(1024, 2, 0, 1, 0),
                               synth_req(1024, 2, 1, 1, 0), synth_req(1024, 2, 2, 1, 0),
                               synth_req(512, 0, 4, 1, 0),  gen_req(wits, sizes, 1, 0)};
    for (size_t k = 0; k < sizeof reqs / sizeof reqs[0]; k++) {
        char id[CUZK_JOB_ID_MAX];
        uint32_t pos;
        int ex;
        CHECK_OK(cuzk_jobs_submit(w, &reqs[k], id, &pos, &ex));
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(w, id, 0, NULL, &res));
        CHECK(res.status == CUZK_JOB_COMPLETED);
        cuzk_job_result_free(&res);
    }
    cuzk_jobs_free(w);
}

int main(void)
{
    if (!fixture_open(&fx, "test_engine_stress"))
        return 1;
    warm_up();
    cuzk_srs_info *list;
    size_t n;
    cuzk_srs_totals tot;
    CHECK_OK(cuzk_srs_snapshot(fx.srs, &list, &n, &tot));
    uint64_t srs_min = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (list[i].size_bytes < srs_min)
            srs_min = list[i].size_bytes;
    free(list);
    CHECK(n == 6 && tot.used_bytes > 0);
    /* The largest working set: a 1024-constraint partition (a, b, c) plus
     * its job's witness; the budget holds three next to all the SRS. */
    const uint64_t part_max = 3 * 1024 * 32 + 1100 * 32;
    const uint64_t budget = tot.used_bytes + 3 * part_max;
    uint64_t rss0 = cuzk_mem_rss();

    cuzk_jobs_config cfg = {.workers = PROVE_WORKERS,
                            .backend = "cpu",
                            .verify_proofs = 1,
                            .param_dir = fx.dir,
                            .retain = 1000,
                            .max_queued = 1000,
                            .max_queued_bytes = 1 << 30,
                            .max_synthetic = 1 << 16,
                            .synthesis_workers = SYNTH_WORKERS,
                            .pipeline_depth = DEPTH,
                            .memory_budget = budget,
                            .mem_sample_ms = 2,
                            .hook = hook};
    CHECK_OK(cuzk_jobs_new(&cfg, fx.srs, &eng));
    pthread_t th[N_CLIENTS];
    for (int c = 0; c < N_CLIENTS; c++)
        CHECK(pthread_create(&th[c], NULL, client, NULL) == 0);
    for (int c = 0; c < N_CLIENTS; c++)
        pthread_join(th[c], NULL);

    /* Outcomes. */
    int n_ok = 0, n_fail = 0, n_cancel = 0, n_crit = 0, crit_loaded = 0, resubmits = 0;
    const unsigned long bound = 1 + DEPTH + PROVE_WORKERS + 2 * SYNTH_WORKERS;
    for (int i = 0; i < N_JOBS; i++) {
        client_job *cj = &jobs[i];
        int good;
        if (cj->expect == EXPECT_OK)
            good = cj->got == CUZK_JOB_COMPLETED && cj->verified;
        else if (cj->expect == EXPECT_FAIL)
            good = cj->got == CUZK_JOB_FAILED && strstr(cj->error, cj->needle);
        else
            good = (cj->got == CUZK_JOB_CANCELLED && strstr(cj->error, "cancelled")) ||
                   (cj->got == CUZK_JOB_COMPLETED && cj->verified);
        if (!good)
            fprintf(stderr, "job %d (%s): status %d, expected %d, verified %d, error \"%s\"\n", i,
                    cj->id, cj->got, cj->expect, cj->verified, cj->error);
        CHECK(good);
        n_ok += cj->got == CUZK_JOB_COMPLETED;
        n_fail += cj->got == CUZK_JOB_FAILED;
        n_cancel += cj->got == CUZK_JOB_CANCELLED;
        if (i % 50 == 3) {
            CHECK(cj->resubmit_ok);
            resubmits++;
        }
        /* Exactly one end, and the CRITICAL bound. */
        int found = 0;
        for (size_t e = 0; e < hk.n_ends; e++)
            if (!strcmp(hk.ends[e].id, cj->id)) {
                found = 1;
                CHECK(hk.ends[e].ends == 1);
                if (cj->priority == CUZK_PRIO_CRITICAL) {
                    unsigned long started = hk.ends[e].starts_at_end - cj->starts_at_submit;
                    if (started > bound)
                        fprintf(stderr,
                                "CRITICAL job %s: %lu partitions started before it ended "
                                "(bound %lu)\n",
                                cj->id, started, bound);
                    CHECK(started <= bound);
                    n_crit++;
                    crit_loaded += cj->pending_lower >= 5;
                }
            }
        CHECK(found);
    }
    CHECK(hk.n_ends == N_JOBS); /* no job ended that no client submitted */
    CHECK(n_ok + n_fail + n_cancel == N_JOBS && resubmits == N_JOBS / 50);
    CHECK(n_crit == N_JOBS / 10 && crit_loaded >= n_crit / 2);
    printf("stress: %d completed, %d failed, %d cancelled; %d of %d CRITICAL jobs submitted with "
           ">= 5 lower-priority jobs queued\n",
           n_ok, n_fail, n_cancel, crit_loaded, n_crit);

    /* Memory: the budget held, and nothing is left. */
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.n_jobs == 0 && st.completed == (uint64_t)n_ok && st.failed == (uint64_t)n_fail &&
          st.cancelled == (uint64_t)n_cancel);
    CHECK(st.mem.reserved == 0 && st.mem.allocated == 0);
    CHECK(st.mem.refusals > 0); /* the budget was binding */
    CHECK(st.mem.peak_reserved <= budget - srs_min);
    CHECK(st.mem.peak_allocated <= st.mem.peak_reserved);
    /* Margin over the RSS at the start: thread stacks and malloc arenas of
     * 32 clients and the workers, and results kept for await (48 MiB);
     * under AddressSanitizer also its quarantine of freed memory (256 MiB by
     * default) and shadow. */
    uint64_t margin = (uint64_t)48 << 20;
#if defined(__SANITIZE_ADDRESS__)
    margin += (uint64_t)320 << 20;
#endif
    uint64_t work = budget - srs_min;
    printf("memory: budget %llu (SRS %llu), peak reserved %llu, peak allocated %llu, "
           "refusals %llu; RSS at start %.1f MiB, peak %.1f MiB, limit %.1f MiB\n",
           (unsigned long long)budget, (unsigned long long)tot.used_bytes,
           (unsigned long long)st.mem.peak_reserved, (unsigned long long)st.mem.peak_allocated,
           (unsigned long long)st.mem.refusals, rss0 / 1048576.0, st.mem.peak_rss / 1048576.0,
           (rss0 + work + margin) / 1048576.0);
    CHECK(st.mem.peak_rss > 0 && st.mem.peak_rss <= rss0 + work + margin);
    cuzk_jobs_status_free(&st);

    cuzk_jobs_free(eng);
    fixture_close(&fx);
    return check_done("test_engine_stress");
}
