/* The job engine without gRPC: results retained up to `retain` (older ones
 * are dropped and then unknown), a full queue refused (by count and by
 * bytes of queued witnesses), await timeouts and
 * aborts, cancellation while queued, and a drain without grace that stops
 * the running job at a partition boundary, cancels the queued ones and
 * refuses new submissions. Jobs are small
 * synthetic ones whose parameters the engine generates in a scratch folder. */
#include "check.h"
#include "cuzk/jobs.h"

#include <unistd.h>

static cuzk_job_request synth(uint64_t n, uint32_t parts)
{
    cuzk_job_request r;
    memset(&r, 0, sizeof r);
    r.kind = CUZK_KIND_SYNTHETIC;
    r.synthetic_constraints = n;
    r.synthetic_public_inputs = 1;
    r.synthetic_seed = 5;
    r.synthetic_partitions = parts;
    return r;
}

static cuzk_job_status wait_job(cuzk_jobs *j, const char *id, uint64_t ms)
{
    cuzk_job_result res;
    cuzk_err e = cuzk_jobs_await(j, id, ms, NULL, &res);
    CHECK_OK(e);
    cuzk_job_status st = e ? CUZK_JOB_UNKNOWN : res.status;
    if (!e && st == CUZK_JOB_COMPLETED)
        CHECK(res.proof_size == res.n_partitions * 192 && res.proof && res.public_inputs);
    cuzk_job_result_free(&res);
    return st;
}

int main(void)
{
    char dir[512], cmd[600];
    snprintf(dir, sizeof dir, "%s/test_jobs_%ld", check_tmpdir(), (long)getpid());
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    cuzk_srs_manager *srs;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &srs));
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .verify_proofs = 1,
                            .param_dir = dir,
                            .retain = 2,
                            .max_queued = 2,
                            .max_queued_bytes = 1000,
                            .max_synthetic = 1 << 16};
    cuzk_jobs *j;
    CHECK_OK(cuzk_jobs_new(&cfg, srs, &j));
    CHECK(!strcmp(cuzk_jobs_backend(j), "cpu"));

    /* Three quick jobs with retain = 2: the first result is dropped. */
    char ids[3][CUZK_JOB_ID_MAX];
    uint32_t pos;
    int existing;
    cuzk_job_request small = synth(64, 1);
    for (int i = 0; i < 3; i++) {
        CHECK_OK(cuzk_jobs_submit(j, &small, ids[i], &pos, &existing));
        CHECK(wait_job(j, ids[i], 0) == CUZK_JOB_COMPLETED);
    }
    cuzk_job_result res;
    CHECK_ERR(cuzk_jobs_await(j, ids[0], 0, NULL, &res), CUZK_EINVAL, "unknown job id");
    CHECK(wait_job(j, ids[2], 0) == CUZK_JOB_COMPLETED);

    /* A long job runs; two queue; a third is refused (max_queued = 2). */
    cuzk_job_request big = synth(1 << 12, 6);
    char run[CUZK_JOB_ID_MAX], q1[CUZK_JOB_ID_MAX], q2[CUZK_JOB_ID_MAX], q3[CUZK_JOB_ID_MAX];
    CHECK_OK(cuzk_jobs_submit(j, &big, run, &pos, &existing));
    cuzk_jobs_status st;
    for (int tries = 0; tries < 6000; tries++) { /* until it proves (after generation) */
        CHECK_OK(cuzk_jobs_status_get(j, &st));
        int running = st.n_jobs == 1 && !strcmp(st.jobs[0].stage, "prove");
        cuzk_jobs_status_free(&st);
        if (running)
            break;
        usleep(10000);
    }
    CHECK_OK(cuzk_jobs_submit(j, &small, q1, &pos, &existing));
    CHECK(pos == 1); /* behind the running job */
    CHECK_OK(cuzk_jobs_submit(j, &small, q2, &pos, &existing));
    CHECK(pos == 2);
    CHECK_ERR(cuzk_jobs_submit(j, &small, q3, &pos, &existing), CUZK_ENOMEM,
              "queue full: 2 jobs queued");
    /* Bytes of queued inputs are bounded too (checked before the job count
     * would be: cancel q2 first to make room for one job). */
    int was;
    CHECK_OK(cuzk_jobs_cancel(j, q2, &was));
    static uint8_t blob[1001];
    const uint8_t *wits[1] = {blob};
    size_t sizes[1] = {sizeof blob};
    cuzk_job_request heavy = {.kind = CUZK_KIND_GENERIC_R1CS,
                              .circuit_id = "c",
                              .witnesses = wits,
                              .witness_sizes = sizes,
                              .n_witnesses = 1};
    CHECK_ERR(cuzk_jobs_submit(j, &heavy, q3, &pos, &existing), CUZK_ENOMEM,
              "this job brings 1001 (scheduler.max_queued_bytes = 1000)");
    sizes[0] = 1000;
    CHECK_OK(cuzk_jobs_submit(j, &heavy, q2, &pos, &existing)); /* takes q2's place */

    /* Await with a timeout and with an abort flag: TIMEOUT, job untouched. */
    CHECK_OK(cuzk_jobs_await(j, q1, 20, NULL, &res));
    CHECK(res.status == CUZK_JOB_TIMEOUT && strstr(res.error, "still queued"));
    cuzk_job_result_free(&res);
    volatile int gone = 1;
    CHECK_OK(cuzk_jobs_await(j, q1, 0, &gone, &res));
    CHECK(res.status == CUZK_JOB_TIMEOUT && strstr(res.error, "still queued: the wait was "
                                                              "abandoned"));
    cuzk_job_result_free(&res);

    /* Cancel one queued job; the drain finishes the running one, cancels
     * the other queued one, and refuses new work. */
    int was_running = -1;
    CHECK_OK(cuzk_jobs_cancel(j, q1, &was_running));
    CHECK(was_running == 0);
    CHECK(wait_job(j, q1, 0) == CUZK_JOB_CANCELLED);
    CHECK_ERR(cuzk_jobs_cancel(j, "job-none", &was_running), CUZK_EINVAL, "unknown job id");
    cuzk_jobs_drain(j, 0); /* no grace: the running job stops at a partition boundary */
    CHECK_OK(cuzk_jobs_await(j, run, 0, NULL, &res));
    CHECK(res.status == CUZK_JOB_CANCELLED && strstr(res.error, "partition boundary") &&
          !res.proof);
    cuzk_job_result_free(&res);
    CHECK_OK(cuzk_jobs_await(j, q2, 0, NULL, &res)); /* the heavy one, queued */
    CHECK(res.status == CUZK_JOB_CANCELLED && strstr(res.error, "shutting down"));
    cuzk_job_result_free(&res);
    CHECK_ERR(cuzk_jobs_submit(j, &small, q3, &pos, &existing), CUZK_EUNSUPPORTED, "shutting down");
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.n_jobs == 0 && st.draining == 1 && st.completed == 3 && st.cancelled == 4 &&
          st.failed == 0);
    cuzk_jobs_status_free(&st);

    cuzk_jobs_free(j);
    cuzk_srs_manager_free(srs);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_jobs");
}
