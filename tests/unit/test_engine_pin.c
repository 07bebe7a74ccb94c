/* srs.device_only when a device declines to keep the parameters. The
 * engine asks every prove worker to keep a circuit's parameters on its
 * device before any partition of that circuit is admitted; a worker whose
 * GPU is too small for them, or whose upload fails, declines, and the host
 * copy stays. The partitions held back for the upload must then go on: on
 * an 80 GB GPU, the decline of a 32 GiB PoRep's parameters once left every
 * worker asleep with jobs queued (nothing woke the partitions that waited).
 *
 * Here the CPU backend plays the device (cuzk_jobs_config.test_pin_on_cpu):
 *   1. a device that declines (the PIN hook fails, as a too-small GPU does)
 *      while three jobs' partitions already wait for it;
 *   2. an upload that fails (the CPU backend cannot keep parameters), asked
 *      for by a preload before any job arrives.
 * Oracles: every job completes with proofs that verify against the
 * circuit's .vk (the Groth16 verifier); each worker is asked once per
 * circuit (a declined slot is not asked again); the host copy of the
 * parameters is still there; nothing stays reserved or allocated. A
 * missing wake-up shows as an await that runs out (AWAIT_MS), not as a
 * hang of the test. */
#include "cuzk/srs.h"
#include "engine_fixture.h"

#include <pthread.h>

#define JOBS 3
#define PARTS 2
#define AWAIT_MS (120 * 1000)
#define SETTLE_US 200000 /* lets the partitions reach their wait; decides nothing */

static struct {
    pthread_mutex_t lock;
    int pins, submitted, decline;
    char circuit[CUZK_SRS_ID_MAX + 1];
    int device;
} hk = {.lock = PTHREAD_MUTEX_INITIALIZER};

static cuzk_err hook(void *ctx, const cuzk_hook_event *ev)
{
    (void)ctx;
    if (ev->point != CUZK_HOOK_PIN)
        return CUZK_OK;
    pthread_mutex_lock(&hk.lock);
    hk.pins++;
    snprintf(hk.circuit, sizeof hk.circuit, "%s", ev->circuit_id ? ev->circuit_id : "");
    hk.device = ev->device;
    int decline = hk.decline;
    pthread_mutex_unlock(&hk.lock);
    if (!decline)
        return CUZK_OK;
    /* Every job submitted and prepared (this call comes after the first
     * job's preparation asked for the upload), their partitions waiting. */
    for (int i = 0; i < 30000; i++) {
        pthread_mutex_lock(&hk.lock);
        int s = hk.submitted;
        pthread_mutex_unlock(&hk.lock);
        if (s)
            break;
        usleep(1000);
    }
    usleep(SETTLE_US);
    return cuzk_fail(CUZK_ENOMEM, "injected: the device has no room for them");
}

static void run_case(fixture *fx, int decline, int preload)
{
    pthread_mutex_lock(&hk.lock);
    hk.pins = hk.submitted = 0;
    hk.decline = decline;
    hk.circuit[0] = 0;
    hk.device = -2;
    pthread_mutex_unlock(&hk.lock);

    cuzk_jobs_config cfg = cpu_engine_cfg(fx);
    cfg.srs_device_only = 1;
    cfg.test_pin_on_cpu = 1;
    cfg.hook = hook;
    cuzk_jobs *j = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, fx->srs, &j));
    if (!j)
        return;
    if (preload) {
        int already = 0;
        double load_s = 0;
        CHECK_OK(cuzk_srs_preload(fx->srs, "gen", &already, &load_s));
        cuzk_jobs_srs_loaded(j, "gen");
    }
    const uint8_t *wits[PARTS];
    size_t sizes[PARTS];
    for (int p = 0; p < PARTS; p++) {
        wits[p] = fx->wit;
        sizes[p] = fx->wit_size;
    }
    char ids[JOBS][CUZK_JOB_ID_MAX];
    for (int i = 0; i < JOBS; i++) {
        cuzk_job_request req = gen_req(wits, sizes, PARTS, 0);
        uint32_t pos;
        int ex;
        CHECK_OK(cuzk_jobs_submit(j, &req, ids[i], &pos, &ex));
    }
    pthread_mutex_lock(&hk.lock);
    hk.submitted = 1;
    pthread_mutex_unlock(&hk.lock);
    for (int i = 0; i < JOBS; i++) {
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(j, ids[i], AWAIT_MS, NULL, &res));
        if (res.status != CUZK_JOB_COMPLETED)
            fprintf(stderr, "case decline=%d preload=%d job %d: status %d %s\n", decline, preload,
                    i, (int)res.status, res.error);
        CHECK(res.status == CUZK_JOB_COMPLETED && res.n_partitions == PARTS &&
              result_verifies(fx->dir, &res));
        cuzk_job_result_free(&res);
    }
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.completed == JOBS && st.failed == 0);
    CHECK(st.mem.reserved == 0 && st.mem.allocated == 0);
    cuzk_jobs_status_free(&st);
    /* one prove worker, one circuit: asked once, and not again */
    pthread_mutex_lock(&hk.lock);
    printf("decline=%d preload=%d: %d request(s) to keep %s on device %d\n", decline, preload,
           hk.pins, hk.circuit, hk.device);
    CHECK(hk.pins == 1 && !strcmp(hk.circuit, "gen") && hk.device == -1);
    pthread_mutex_unlock(&hk.lock);
    /* the host copy stayed */
    cuzk_srs_circuit *c = NULL;
    CHECK_OK(cuzk_srs_acquire(fx->srs, "gen", &c, NULL));
    if (c) {
        CHECK(!c->params->host_released && c->params->h && c->params->n_h > 0);
        cuzk_srs_release(fx->srs, c);
    }
    cuzk_jobs_free(j);
}

int main(void)
{
    fixture fx;
    if (!fixture_open(&fx, "test_engine_pin"))
        return check_done("test_engine_pin");
    run_case(&fx, 1, 0);
    run_case(&fx, 0, 1);
    fixture_close(&fx);
    return check_done("test_engine_pin");
}
