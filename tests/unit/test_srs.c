/* The SRS manager: load on demand, sharing and reference counts, preload,
 * explicit eviction (refused while in use), LRU demotion under a byte
 * budget, refusal when the budget cannot hold a circuit, and precise errors
 * for bad ids, missing files, a truncated .params, a .vk of another setup and
 * params of another circuit. Circuits are small synthetic ones set up here. */
#include "check.h"
#include "cuzk/groth16.h"
#include "cuzk/srs.h"
#include "cuzk/synth.h"
#include "cuzk/util.h"

#include <unistd.h>

static char dir[512];

/* Writes <dir>/<id>.pce/.params/.vk for a synthetic circuit. */
static int make_circuit(const char *id, uint64_t n, uint64_t seed)
{
    cuzk_synth_params sp = {n, 2, seed};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    char pp[700], vp[700], cp[700];
    snprintf(pp, sizeof pp, "%s/%s.params", dir, id);
    snprintf(vp, sizeof vp, "%s/%s.vk", dir, id);
    snprintf(cp, sizeof cp, "%s/%s.pce", dir, id);
    cuzk_err e = cuzk_synth_build(&sp, 0, &cs);
    if (!e)
        e = cuzk_pce_from_r1cs(&pce, cs);
    if (!e)
        e = cuzk_pce_write(pce, cp);
    if (!e)
        e = cuzk_groth16_setup(pce, pp, vp, NULL, NULL);
    CHECK_OK(e);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    return e ? -1 : 0;
}

static void copy_file(const char *from_id, const char *ext, const char *to_id, size_t cut)
{
    char a[700], b[700];
    snprintf(a, sizeof a, "%s/%s%s", dir, from_id, ext);
    snprintf(b, sizeof b, "%s/%s%s", dir, to_id, ext);
    uint8_t *d;
    size_t n;
    CHECK_OK(cuzk_read_file(a, &d, &n));
    CHECK_OK(cuzk_write_file(b, d, n - cut));
    free(d);
}

static const cuzk_srs_info *info_of(const cuzk_srs_info *l, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(l[i].id, id))
            return &l[i];
    return NULL;
}

static void test_ids(void)
{
    CHECK_OK(cuzk_srs_check_id("v28-stacked-proof-of-replication-abc.1_2"));
    CHECK_ERR(cuzk_srs_check_id(""), CUZK_EINVAL, "1..200 characters");
    CHECK_ERR(cuzk_srs_check_id("../etc/passwd"), CUZK_EINVAL, "must not start with '.'");
    CHECK_ERR(cuzk_srs_check_id("a/b"), CUZK_EINVAL, "outside [A-Za-z0-9._-] at 1");
    CHECK_ERR(cuzk_srs_check_id("a b"), CUZK_EINVAL, "at 1");
    char longid[300];
    memset(longid, 'x', sizeof longid - 1);
    longid[sizeof longid - 1] = 0;
    CHECK_ERR(cuzk_srs_check_id(longid), CUZK_EINVAL, "got 299");
}

static void test_lifecycle(void)
{
    cuzk_srs_manager *m;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &m));
    CHECK(cuzk_srs_known(m, "c1"));
    CHECK(!cuzk_srs_known(m, "nope"));
    CHECK(!cuzk_srs_known(m, "../c1"));

    cuzk_srs_circuit *a = NULL, *b = NULL;
    double load_s = -1;
    CHECK_OK(cuzk_srs_acquire(m, "c1", &a, &load_s));
    CHECK(a && a->params && a->pce && a->vk && load_s >= 0);
    CHECK(a && a->pce->n_inputs == 3 && a->params->vk.n_ic == 3);
    CHECK_OK(cuzk_srs_acquire(m, "c1", &b, NULL));
    CHECK(a == b); /* shared, not loaded twice */
    /* Loaded, it stays known while its file is away (an operator moving
     * parameter files must not fail the jobs of a resident circuit). */
    char pp[1024], away[1040];
    snprintf(pp, sizeof pp, "%s/c1.params", dir);
    snprintf(away, sizeof away, "%s.away", pp);
    CHECK(rename(pp, away) == 0);
    CHECK(cuzk_srs_known(m, "c1"));
    CHECK(rename(away, pp) == 0);

    cuzk_srs_info *l;
    size_t n;
    cuzk_srs_totals t;
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    const cuzk_srs_info *i1 = info_of(l, n, "c1");
    CHECK(i1 && i1->tier == CUZK_SRS_HOT && i1->ref_count == 2 && i1->size_bytes > 0);
    CHECK(t.loads == 1 && i1 && t.used_bytes == i1->size_bytes);
    free(l);

    int was;
    uint64_t freed;
    uint32_t in_use;
    CHECK_ERR(cuzk_srs_evict(m, "c1", &was, &freed, &in_use), CUZK_EINVAL, "in use by 2 job(s)");
    CHECK(in_use == 2);
    cuzk_srs_release(m, a);
    cuzk_srs_release(m, b);

    int already = -1;
    CHECK_OK(cuzk_srs_preload(m, "c1", &already, NULL));
    CHECK(already == 1);
    CHECK_OK(cuzk_srs_evict(m, "c1", &was, &freed, &in_use));
    CHECK(was == 1 && freed > 0 && in_use == 0);
    CHECK_OK(cuzk_srs_evict(m, "c1", &was, &freed, &in_use));
    CHECK(was == 0 && freed == 0);
    CHECK_OK(cuzk_srs_evict(m, "never-seen", &was, &freed, &in_use));
    CHECK(was == 0);
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    i1 = info_of(l, n, "c1");
    CHECK(i1 && i1->tier == CUZK_SRS_COLD && t.used_bytes == 0 && t.evictions == 1);
    free(l);

    CHECK_OK(cuzk_srs_preload(m, "c1", &already, NULL));
    CHECK(already == 0);
    cuzk_srs_manager_free(m); /* frees a HOT entry */
}

static void test_budget(void)
{
    /* Measure one circuit, then allow room for one and a half. */
    cuzk_srs_manager *m;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &m));
    int already;
    CHECK_OK(cuzk_srs_preload(m, "c1", &already, NULL));
    cuzk_srs_info *l;
    size_t n;
    cuzk_srs_totals t;
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    uint64_t one = t.used_bytes;
    free(l);
    cuzk_srs_manager_free(m);

    CHECK_OK(cuzk_srs_manager_new(dir, one + one / 2, &m));
    cuzk_srs_circuit *a = NULL, *b = NULL;
    CHECK_OK(cuzk_srs_acquire(m, "c1", &a, NULL));
    /* c2 does not fit next to a referenced c1. */
    CHECK_ERR(cuzk_srs_acquire(m, "c2", &b, NULL), CUZK_ENOMEM, "SRS budget is");
    cuzk_srs_release(m, a);
    /* Unreferenced, c1 is demoted (LRU) to make room. */
    CHECK_OK(cuzk_srs_acquire(m, "c2", &b, NULL));
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    const cuzk_srs_info *i1 = info_of(l, n, "c1"), *i2 = info_of(l, n, "c2");
    CHECK(i1 && i1->tier == CUZK_SRS_WARM);
    CHECK(i2 && i2->tier == CUZK_SRS_HOT && i2->ref_count == 1);
    CHECK(t.evictions == 1 && t.used_bytes <= t.budget_bytes);
    free(l);
    cuzk_srs_release(m, b);
    /* WARM reloads from the mapping. */
    CHECK_OK(cuzk_srs_preload(m, "c1", &already, NULL));
    CHECK(already == 0);
    cuzk_srs_manager_free(m);
}

static void test_bad_files(void)
{
    cuzk_srs_manager *m;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &m));
    cuzk_srs_circuit *c = NULL;
    CHECK_ERR(cuzk_srs_acquire(m, "absent", &c, NULL), CUZK_EIO, "parameters not found");
    CHECK(c == NULL);
    CHECK_ERR(cuzk_srs_acquire(m, "bad/id", &c, NULL), CUZK_EINVAL, "outside");

    copy_file("c1", ".params", "trunc", 100);
    copy_file("c1", ".pce", "trunc", 0);
    CHECK_ERR(cuzk_srs_acquire(m, "trunc", &c, NULL), CUZK_EFORMAT, "trunc.params");

    copy_file("c1", ".params", "nopce", 0);
    CHECK_ERR(cuzk_srs_acquire(m, "nopce", &c, NULL), CUZK_EIO, "constraint system not found");

    copy_file("c1", ".params", "wrongvk", 0);
    copy_file("c1", ".pce", "wrongvk", 0);
    copy_file("c2", ".vk", "wrongvk", 0);
    CHECK_ERR(cuzk_srs_acquire(m, "wrongvk", &c, NULL), CUZK_EFORMAT, "is not the verifying key");

    copy_file("c3", ".params", "mixed", 0); /* 5 inputs vs 3 */
    copy_file("c1", ".pce", "mixed", 0);
    CHECK_ERR(cuzk_srs_acquire(m, "mixed", &c, NULL), CUZK_EFORMAT, "ic points but");

    char pp[700], cp[700];
    snprintf(pp, sizeof pp, "%s/c1.params", dir);
    snprintf(cp, sizeof cp, "%s/c1.pce", dir);
    CHECK_OK(cuzk_srs_register(m, "alias", pp, NULL, cp));
    CHECK(cuzk_srs_known(m, "alias"));
    CHECK_OK(cuzk_srs_acquire(m, "alias", &c, NULL));
    CHECK(c && c->vk == &c->params->vk); /* no .vk registered */
    CHECK_ERR(cuzk_srs_register(m, "alias", pp, NULL, cp), CUZK_EINVAL, "is loaded");
    cuzk_srs_release(m, c);
    CHECK_ERR(cuzk_srs_register(m, "x", NULL, NULL, cp), CUZK_EINVAL, "are required");

    cuzk_srs_info *l;
    size_t n;
    cuzk_srs_totals t;
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    CHECK(t.load_failures == 3 && t.loads == 1); /* missing files fail before a load */
    free(l);
    cuzk_srs_manager_free(m);
}

/* A circuit adopted from memory: HOT at once, known without files, never
 * demoted by the budget nor evicted; released host copies leave used_bytes
 * and pin the circuit too; bad adoptions are refused. */
static void test_adopt_and_release(void)
{
    cuzk_srs_manager *m;
    CHECK_OK(cuzk_srs_manager_new(dir, 0, &m));
    cuzk_synth_params sp = {256, 1, 9};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    CHECK_OK(cuzk_synth_build(&sp, 0, &cs));
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    cuzk_r1cs_free(cs);
    cuzk_setup_options so = {.basis = CUZK_H_BELLPERSON, .backend = "cpu", .params_out = &params};
    CHECK_OK(cuzk_groth16_setup_ex(pce, NULL, NULL, NULL, &so, NULL));
    CHECK_ERR(cuzk_srs_adopt(m, "mem", NULL, pce), CUZK_EINVAL, "params and pce are required");
    CHECK_ERR(cuzk_srs_adopt(m, "a/b", &params, pce), CUZK_EINVAL, "outside [A-Za-z0-9._-]");
    CHECK(!cuzk_srs_known(m, "mem"));
    size_t n_h = params.n_h;
    CHECK_OK(cuzk_srs_adopt(m, "mem", &params, pce));
    CHECK(params.h == NULL && params.n_h == 0); /* moved */
    CHECK(cuzk_srs_known(m, "mem"));
    cuzk_srs_info *l;
    size_t n;
    cuzk_srs_totals t;
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    const cuzk_srs_info *e = info_of(l, n, "mem");
    CHECK(e && e->tier == CUZK_SRS_HOT && e->size_bytes == t.used_bytes && t.used_bytes > 0);
    uint64_t before = t.used_bytes;
    free(l);
    cuzk_srs_circuit *c;
    CHECK_OK(cuzk_srs_acquire(m, "mem", &c, NULL));
    CHECK(c && c->params->n_h == n_h && c->pce == pce);
    int was, already;
    uint64_t freed;
    uint32_t in_use;
    cuzk_srs_release(m, c);
    CHECK_ERR(cuzk_srs_evict(m, "mem", &was, &freed, &in_use), CUZK_EINVAL, "in memory only");
    CHECK_OK(cuzk_srs_preload(m, "mem", &already, NULL));
    CHECK(already == 1);
    /* A file circuit whose host copy is released stays HOT for good. */
    CHECK_OK(cuzk_srs_acquire(m, "c1", &c, NULL));
    CHECK_OK(cuzk_srs_snapshot(m, &l, &n, &t));
    uint64_t with_c1 = t.used_bytes;
    free(l);
    CHECK(cuzk_srs_release_host(m, c) <= with_c1 - before);
    CHECK(cuzk_srs_release_host(m, c) == 0);
    CHECK(c->params->host_released == 1);
    cuzk_srs_release(m, c);
    CHECK_ERR(cuzk_srs_evict(m, "c1", &was, &freed, &in_use), CUZK_EINVAL, "host copy released");
    CHECK(cuzk_srs_release_host(m, NULL) == 0);
    cuzk_srs_manager_free(m); /* frees the adopted and the released ones */
}

int main(void)
{
    snprintf(dir, sizeof dir, "%s/test_srs_%ld", check_tmpdir(), (long)getpid());
    char cmd[700];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
    if (system(cmd) != 0)
        return 1;
    if (make_circuit("c1", 64, 1) || make_circuit("c2", 64, 2))
        return check_done("test_srs");
    {
        cuzk_synth_params sp = {64, 4, 3};
        cuzk_r1cs *cs = NULL;
        cuzk_pce *pce = NULL;
        char pp[700];
        snprintf(pp, sizeof pp, "%s/c3.params", dir);
        CHECK_OK(cuzk_synth_build(&sp, 0, &cs));
        CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
        if (pce)
            CHECK_OK(cuzk_groth16_setup(pce, pp, NULL, NULL, NULL));
        cuzk_pce_free(pce);
        cuzk_r1cs_free(cs);
    }
    test_ids();
    test_lifecycle();
    test_budget();
    test_bad_files();
    test_adopt_and_release();
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return check_done("test_srs");
}
