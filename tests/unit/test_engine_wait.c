/* A job that waits for memory held by a job behind it. Under a memory
 * budget that holds the circuit's SRS, one partition's working set and one
 * synthetic job's witness (and not a second of either), three synthetic jobs
 * of two partitions each are submitted at once; the first job's preparation
 * is held back (a PREPARE hook) so that the second one is prepared and
 * admitted first and keeps its witness until it ends. The first job then
 * cannot be admitted until the second has ended, while strict priority kept
 * the second waiting behind the first: every worker slept and no job ever
 * ended (seen on an 80 GB GPU with 2^27 jobs, and here in ~40 % of runs of
 * a 2^16 circuit before the fix). Every job must now complete with proofs
 * that verify against the circuit's .vk (the oracle: the Groth16 verifier),
 * the second before the first (so the case did arise), with admission
 * refused for memory along the way and nothing left reserved. */
#include "cuzk/mem.h"
#include "cuzk/srs.h"
#include "engine_fixture.h"

#include <pthread.h>

#define LOG_M 14
#define PUBLIC 2
#define SEED 9
#define JOBS 3
#define PARTS 2
#define AWAIT_MS (300 * 1000) /* a deadlock fails the test, not CI's clock */

static struct {
    pthread_mutex_t lock;
    int submitted;      /* all ids below are filled in */
    int second_proving; /* the second job has a partition at the prover */
    char ids[JOBS][CUZK_JOB_ID_MAX];
    int order[JOBS], n_ended; /* jobs by index, in the order they ended */
} hk = {.lock = PTHREAD_MUTEX_INITIALIZER};

static int job_index(const char *id)
{
    for (int i = 0; i < JOBS; i++)
        if (!strcmp(hk.ids[i], id))
            return i;
    return -1;
}

/* Waits (1 ms polls, up to ms) until *flag is set under hk.lock. */
static void wait_for(const int *flag, int ms)
{
    for (int t = 0; t < ms; t++) {
        pthread_mutex_lock(&hk.lock);
        int set = *flag;
        pthread_mutex_unlock(&hk.lock);
        if (set)
            return;
        usleep(1000);
    }
}

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point == CUZK_HOOK_PREPARE) {
        wait_for(&hk.submitted, 30000); /* the ids are known once every submit returned */
        pthread_mutex_lock(&hk.lock);
        int first = job_index(ev->job_id) == 0;
        pthread_mutex_unlock(&hk.lock);
        /* The first job's preparation ends once the second job, admitted
         * meanwhile, proves its first partition (30 s at most). */
        if (first)
            wait_for(&hk.second_proving, 30000);
    } else if (ev->point == CUZK_HOOK_PROVE) {
        pthread_mutex_lock(&hk.lock);
        if (job_index(ev->job_id) == 1)
            hk.second_proving = 1;
        pthread_mutex_unlock(&hk.lock);
    } else if (ev->point == CUZK_HOOK_END) {
        pthread_mutex_lock(&hk.lock);
        if (hk.n_ended < JOBS)
            hk.order[hk.n_ended++] = job_index(ev->job_id);
        pthread_mutex_unlock(&hk.lock);
    }
    return CUZK_OK;
}

int main(void)
{
    char dir[512], cmd[1200], id[CUZK_SRS_ID_MAX + 1], path[1024];
    snprintf(dir, sizeof dir, "%s/test_engine_wait_%ld", check_tmpdir(), (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;
    uint64_t n = (uint64_t)(0.97 * (double)(1u << LOG_M));
    cuzk_job_request req = synth_req(n, PUBLIC, SEED, PARTS, 0);
    cuzk_synthetic_id(&req, id);
    CHECK_OK(cuzk_synthetic_generate(&req, dir));

    /* The SRS as the engine counts it (resident bytes), then the working
     * set of one partition and one witness, as the engine sizes them. */
    cuzk_srs_manager *srsm = NULL;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &srsm));
    if (!srsm)
        return check_done("test_engine_wait");
    int already = 0;
    double load_s = 0;
    CHECK_OK(cuzk_srs_preload(srsm, id, &already, &load_s));
    cuzk_srs_info *list = NULL;
    size_t n_list = 0;
    cuzk_srs_totals tot;
    CHECK_OK(cuzk_srs_snapshot(srsm, &list, &n_list, &tot));
    uint64_t srs = 0;
    for (size_t i = 0; i < n_list; i++)
        if (!strcmp(list[i].id, id))
            srs = list[i].size_bytes;
    free(list);
    snprintf(path, sizeof path, "%s/%s.pce", dir, id);
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_pce_load(&pce, path));
    if (!pce || !srs)
        return check_done("test_engine_wait");
    uint64_t m = (uint64_t)1 << pce->log_domain, n_vars = pce->n_inputs + pce->n_aux;
    uint64_t part = 3 * m * sizeof(cuzk_fr) + prover_scratch(pce);
    uint64_t witness = n_vars * sizeof(cuzk_fr);
    cuzk_pce_free(pce);
    /* room for half a witness more: no second partition, no second witness */
    uint64_t budget = srs + part + witness + witness / 2;
    CHECK(part > witness / 2);
    printf("SRS %llu bytes, partition %llu, witness %llu, budget %llu\n", (unsigned long long)srs,
           (unsigned long long)part, (unsigned long long)witness, (unsigned long long)budget);

    cuzk_jobs_config cfg = cpu_engine_cfg_in(dir);
    cfg.memory_budget = budget;
    cfg.hook = hook;
    cuzk_jobs *j = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, srsm, &j));
    if (!j)
        return check_done("test_engine_wait");
    pthread_mutex_lock(&hk.lock); /* the hook reads ids only after this */
    for (int i = 0; i < JOBS; i++) {
        uint32_t pos;
        int ex;
        CHECK_OK(cuzk_jobs_submit(j, &req, hk.ids[i], &pos, &ex));
    }
    hk.submitted = 1;
    pthread_mutex_unlock(&hk.lock);
    for (int i = 0; i < JOBS; i++) {
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(j, hk.ids[i], AWAIT_MS, NULL, &res));
        if (res.status != CUZK_JOB_COMPLETED)
            fprintf(stderr, "job %d: status %d %s\n", i, (int)res.status, res.error);
        CHECK(res.status == CUZK_JOB_COMPLETED && res.n_partitions == PARTS &&
              result_verifies(dir, &res));
        cuzk_job_result_free(&res);
    }
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.completed == JOBS && st.failed == 0);
    CHECK(st.mem.refusals > 0);                           /* the budget was binding */
    CHECK(st.mem.reserved == 0 && st.mem.allocated == 0); /* all given back */
    cuzk_jobs_status_free(&st);
    cuzk_jobs_free(j);
    pthread_mutex_lock(&hk.lock);
    CHECK(hk.n_ended == JOBS);
    /* the case arose: the second job ended before the first */
    int pos0 = -1, pos1 = -1;
    for (int i = 0; i < hk.n_ended; i++) {
        pos0 = hk.order[i] == 0 ? i : pos0;
        pos1 = hk.order[i] == 1 ? i : pos1;
    }
    pthread_mutex_unlock(&hk.lock);
    printf("jobs ended in the order %d %d %d\n", hk.order[0], hk.order[1], hk.order[2]);
    CHECK(pos0 >= 0 && pos1 >= 0 && pos1 < pos0);
    cuzk_srs_manager_free(srsm);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_engine_wait");
}
