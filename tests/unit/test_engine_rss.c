/* memory.budget holds for the whole process: synthetic jobs of a 2^19
 * circuit, submitted at once under a budget that holds the circuit's SRS
 * and the working set of one partition (witness, a, b, c, the prover's
 * scratch), so the jobs wait for one another. The peak resident set of the
 * process (VmHWM of /proc/self/status, which the kernel keeps exactly) must
 * stay within the budget plus CUZK_MEM_MARGIN; every job completes with
 * proofs that verify against the circuit's .vk, admission was refused for
 * memory (the budget was binding) and nothing stays reserved.
 *
 * The circuit's files are made first by a child process, forked before this
 * one starts any thread, so that what setup allocates is not part of this
 * process's peak: the budget has to cover loading the SRS (its file mapped
 * and parsed) and the proofs. */
#include "cuzk/mem.h"
#include "engine_fixture.h"

#include <sys/stat.h>
#include <sys/wait.h>

#define LOG_M 19
#define PUBLIC 2
#define SEED 5
#define JOBS 3

static uint64_t file_bytes(const char *dir, const char *id, const char *ext)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s%s", dir, id, ext);
    return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

int main(void)
{
    char dir[512], cmd[1200], id[CUZK_SRS_ID_MAX + 1];
    snprintf(dir, sizeof dir, "%s/test_engine_rss_%ld", check_tmpdir(), (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;
    uint64_t n = (uint64_t)(0.97 * (double)(1u << LOG_M));
    cuzk_job_request req = synth_req(n, PUBLIC, SEED, 1, 0);
    cuzk_synthetic_id(&req, id);
    pid_t child = fork();
    if (child == 0)
        _exit(cuzk_synthetic_generate(&req, dir) == CUZK_OK ? 0 : 1);
    int ws = 0;
    CHECK(child > 0 && waitpid(child, &ws, 0) == child && WIFEXITED(ws) && !WEXITSTATUS(ws));

    /* The budget: the SRS (what its files hold), plus one partition's
     * working set and its job's witness, and 1 MiB: no second partition. */
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.pce", dir, id);
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_pce_load(&pce, path));
    if (!pce)
        return check_done("test_engine_rss");
    uint64_t m = (uint64_t)1 << pce->log_domain, n_vars = pce->n_inputs + pce->n_aux;
    uint64_t part = 3 * m * sizeof(cuzk_fr) + prover_scratch(pce);
    uint64_t witness = n_vars * sizeof(cuzk_fr);
    cuzk_pce_free(pce);
    uint64_t srs = file_bytes(dir, id, ".params") + file_bytes(dir, id, ".pce");
    uint64_t budget = srs + part + witness + (1 << 20);
    CHECK(file_bytes(dir, id, ".vk") > 0 && srs > part);

    cuzk_srs_manager *srsm = NULL;
    CHECK_OK(cuzk_srs_manager_new(dir, budget, &srsm));
    cuzk_jobs_config cfg = cpu_engine_cfg_in(dir);
    cfg.max_synthetic = 1 << 20;
    cfg.memory_budget = budget;
    cuzk_jobs *j = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, srsm, &j));
    if (!j)
        return check_done("test_engine_rss");
    char ids[JOBS][CUZK_JOB_ID_MAX];
    for (int i = 0; i < JOBS; i++) {
        uint32_t pos;
        int ex;
        CHECK_OK(cuzk_jobs_submit(j, &req, ids[i], &pos, &ex));
    }
    for (int i = 0; i < JOBS; i++) {
        cuzk_job_result res;
        CHECK_OK(cuzk_jobs_await(j, ids[i], 0, NULL, &res));
        if (res.status != CUZK_JOB_COMPLETED)
            fprintf(stderr, "job %d: %s\n", i, res.error);
        CHECK(res.status == CUZK_JOB_COMPLETED && result_verifies(dir, &res));
        cuzk_job_result_free(&res);
    }
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(j, &st));
    CHECK(st.completed == JOBS && st.failed == 0);
    CHECK(st.mem.refusals > 0); /* the jobs waited for one another */
    cuzk_jobs_status_free(&st);
    cuzk_jobs_free(j);
    uint64_t peak = cuzk_mem_peak_rss();
    printf("peak RSS %.1f MiB, budget %.1f MiB (SRS %.1f MiB), margin %.1f MiB\n",
           (double)peak / 1048576, (double)budget / 1048576, (double)srs / 1048576,
           (double)CUZK_MEM_MARGIN / 1048576);
    CHECK(peak > 0 && peak <= budget + CUZK_MEM_MARGIN);
    cuzk_srs_manager_free(srsm);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_engine_rss");
}
