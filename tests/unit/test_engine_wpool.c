/* Filecoin witnesses go round the engine's buffer pool: six WindowPoSt
 * jobs (2 KiB, test parameters of a setup in the test's folder, sectors
 * from the generator) submitted at once to an engine with one prove worker
 * on the CPU backend; while the engine is busy a finished partition's
 * witness buffer is offered to the next admitted one, so later jobs write
 * their witnesses into reused buffers, and every proof still verifies; a
 * job whose vanilla proof misses its root fails naming it; idle, the pool
 * gives everything back. */
#include "check.h"
#include "cuzk/fc_circuit.h"
#include "cuzk/filecoin.h"
#include "cuzk/gen.h"
#include "cuzk/groth16.h"
#include "cuzk/jobs.h"
#include "cuzk/pce.h"
#include "cuzk/srs.h"
#include "cuzk/vanilla.h"

#include <unistd.h>

static uint64_t pooled(cuzk_jobs *eng)
{
    cuzk_jobs_status st;
    if (cuzk_jobs_status_get(eng, &st))
        return UINT64_MAX;
    uint64_t b = st.pooled_bytes;
    cuzk_jobs_status_free(&st);
    return b;
}

static int verifies(const cuzk_vk *vk, const cuzk_job_result *res)
{
    size_t per = res->inputs_per_partition;
    cuzk_fr *in = malloc((per ? per : 1) * sizeof *in);
    cuzk_proof pf;
    int ok = in && cuzk_proof_decode(&pf, res->proof) == CUZK_OK;
    for (size_t i = 0; ok && i < per; i++)
        ok = cuzk_fr_from_bytes_le(&in[i], res->public_inputs + i * 32) == CUZK_OK;
    ok = ok && cuzk_groth16_verify(vk, in, per, &pf) == CUZK_OK;
    free(in);
    return ok;
}

int main(void)
{
    char dir[512], cmd[1200], pp[1024], vp[1024];
    snprintf(dir, sizeof dir, "%s/engine_wpool_%ld", check_tmpdir(), (long)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    if (system(cmd) != 0)
        return 1;
    const cuzk_fc_proof *fp = cuzk_fc_post(10); /* WindowPoSt 2 KiB, V1_1 */
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_fc_record_pce(fp, NULL, NULL, &pce));
    if (!pce)
        return check_done("test_engine_wpool");
    snprintf(pp, sizeof pp, "%s/%s.params", dir, fp->param_name);
    snprintf(vp, sizeof vp, "%s/%s.vk", dir, fp->param_name);
    CHECK_OK(cuzk_groth16_setup_basis(pce, pp, vp, NULL, CUZK_H_BELLPERSON, NULL));
    uint64_t wbytes = ((uint64_t)pce->n_inputs + pce->n_aux) * sizeof(cuzk_fr);
    cuzk_pce_free(pce);
    cuzk_vk vk;
    CHECK_OK(cuzk_vk_read(vp, &vk));

    uint8_t r[32];
    for (int i = 0; i < 32; i++)
        r[i] = (uint8_t)(7 * i + 3);
    r[31] &= 0x3f;
    cuzk_post_sector_proof v[2];
    uint8_t *b[2] = {NULL, NULL}, *bad[2] = {NULL, NULL};
    size_t nb[2] = {0, 0};
    CHECK_OK(cuzk_gen_post_partition(fp, r, 3, 0, 1, 2, v));
    for (int i = 0; i < 2; i++)
        CHECK_OK(cuzk_post_sector_proof_encode(&v[i], &b[i], &nb[i]));
    /* sector 2's first path misses its root: a sibling changed */
    cuzk_fr_from_u64(&v[1].sectors[0].inclusion_proofs[0].siblings[0], 99);
    bad[0] = b[0];
    CHECK_OK(cuzk_post_sector_proof_encode(&v[1], &bad[1], &nb[1]));

    cuzk_srs_manager *srs = NULL;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &srs));
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .verify_proofs = 1,
                            .param_dir = dir,
                            .filecoin_dir = dir,
                            .pce_dir = dir,
                            .retain = 16,
                            .max_queued = 16,
                            .max_queued_bytes = (uint64_t)1 << 30,
                            .synthesis_workers = 1,
                            .finalizers = 1,
                            .mem_sample_ms = 20};
    cuzk_jobs *eng = NULL;
    CHECK_OK(cuzk_jobs_new(&cfg, srs, &eng));
    if (!eng)
        return check_done("test_engine_wpool");
    cuzk_job_request q = {.kind = CUZK_KIND_WINDOW_POST_PARTITION,
                          .registered_proof = fp->number,
                          .vanilla_proofs = (const uint8_t *const *)b,
                          .vanilla_sizes = nb,
                          .n_vanilla = 2,
                          .randomness = r,
                          .randomness_len = 32};
    CHECK(pooled(eng) == 0);
    enum { NJ = 6 };
    char ids[NJ + 1][CUZK_JOB_ID_MAX];
    uint32_t pos;
    int existing;
    for (int k = 0; k < NJ; k++)
        CHECK_OK(cuzk_jobs_submit(eng, &q, ids[k], &pos, &existing));
    cuzk_job_request qb = q; /* and one that must fail, among them */
    qb.vanilla_proofs = (const uint8_t *const *)bad;
    CHECK_OK(cuzk_jobs_submit(eng, &qb, ids[NJ], &pos, &existing));
    for (int k = 0; k <= NJ; k++) {
        cuzk_job_result res;
        memset(&res, 0, sizeof res);
        CHECK_OK(cuzk_jobs_await(eng, ids[k], 120000, NULL, &res));
        if (k == NJ) {
            CHECK(res.status == CUZK_JOB_FAILED &&
                  strstr(res.error, "vanilla_proofs[1] (sector 2): inclusion proof 0 does not "
                                    "hash to its root") != NULL);
        } else {
            CHECK(res.status == CUZK_JOB_COMPLETED && res.n_partitions == 1);
            CHECK(res.status != CUZK_JOB_COMPLETED || verifies(&vk, &res));
        }
        cuzk_job_result_free(&res);
    }
    cuzk_jobs_status st;
    CHECK_OK(cuzk_jobs_status_get(eng, &st));
    CHECK(st.witness_buffers_reused >= 1 && st.witness_buffers_reused < NJ + 1);
    CHECK(st.pooled_bytes == 0); /* idle */
    printf("%llu of %d witnesses written into reused buffers of %llu bytes\n",
           (unsigned long long)st.witness_buffers_reused, NJ + 1, (unsigned long long)wbytes);
    cuzk_jobs_status_free(&st);

    cuzk_jobs_free(eng);
    cuzk_srs_manager_free(srs);
    cuzk_vk_free(&vk);
    for (int i = 0; i < 2; i++) {
        free(b[i]);
        cuzk_post_sector_proof_free(&v[i]);
    }
    free(bad[1]);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_engine_wpool");
}
