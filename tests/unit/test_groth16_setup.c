/* Setup's entry points and options: cuzk_groth16_setup_ex writes the same
 * bytes as cuzk_groth16_setup / _basis for the same secrets (both H bases,
 * backends "cpu" and "auto", 1 and 4 threads); bad backend names, ordinals
 * and bases are refused with EINVAL before any file is made; "cuda" without
 * a usable GPU is EUNSUPPORTED; density bitmaps that disagree with the
 * matrices are reported at the lowest bad column; the progress callback
 * sees every point and can stop the setup, which then leaves no file. */
#include "check.h"
#include "cuzk/backend.h"
#include "cuzk/groth16.h"
#include "cuzk/msm.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <unistd.h>

static cuzk_setup_secrets fixed_secrets(void)
{
    cuzk_setup_secrets s;
    cuzk_fr_from_u64(&s.tau, 123456789);
    cuzk_fr_from_u64(&s.alpha, 5);
    cuzk_fr_from_u64(&s.beta, 7);
    cuzk_fr_from_u64(&s.gamma, 11);
    cuzk_fr_from_u64(&s.delta, 13);
    return s;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    uint8_t *b = NULL;
    *n = 0;
    return cuzk_read_file(path, &b, n) == CUZK_OK ? b : NULL;
}

static int same_file(const char *a, const char *b)
{
    size_t na, nb;
    uint8_t *x = slurp(a, &na), *y = slurp(b, &nb);
    int same = x && y && na == nb && !memcmp(x, y, na);
    free(x);
    free(y);
    return same;
}

static void path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/setup-%s", check_tmpdir(), name);
}

static void test_same_bytes(cuzk_pce *pce, cuzk_h_basis basis)
{
    cuzk_setup_secrets s = fixed_secrets();
    char p0[512], v0[512], p1[512], v1[512];
    path(p0, sizeof p0, "old.params");
    path(v0, sizeof v0, "old.vk");
    path(p1, sizeof p1, "ex.params");
    path(v1, sizeof v1, "ex.vk");
    cuzk_setup_timings tm;
    CHECK_OK(cuzk_groth16_setup_basis(pce, p0, v0, &s, basis, &tm));
    CHECK(tm.backend && !strcmp(tm.backend, "cpu"));
    const char *names[] = {"cpu", NULL, "auto"};
    for (int i = 0; i < 3; i++) {
        cuzk_setup_options o = {.basis = basis, .backend = names[i]};
        if (names[i] && !strcmp(names[i], "auto") && cuzk_backend_gpus() > 0)
            continue; /* a GPU here: the device test covers it */
        for (unsigned th = i ? 4 : 1; th <= 4; th += 3) {
            cuzk_threads_set(th);
            memset(&tm, 0xff, sizeof tm.total);
            CHECK_OK(cuzk_groth16_setup_ex(pce, p1, v1, &s, &o, &tm));
            CHECK(tm.backend && !strcmp(tm.backend, "cpu"));
            CHECK(tm.total > 0);
            CHECK(same_file(p0, p1));
            CHECK(same_file(v0, v1));
            unlink(p1);
            unlink(v1);
        }
    }
    /* Into memory: the points of the file, without the file. */
    cuzk_params fp, mp;
    memset(&mp, 0, sizeof mp);
    CHECK_OK(cuzk_params_read(p0, &fp, 0));
    cuzk_setup_options om = {.basis = basis, .backend = "cpu", .params_out = &mp};
    CHECK_OK(cuzk_groth16_setup_ex(pce, NULL, v1, &s, &om, &tm));
    CHECK(same_file(v0, v1));
    unlink(v1);
    CHECK(mp.n_h == fp.n_h && mp.n_l == fp.n_l && mp.n_a == fp.n_a && mp.n_b_g1 == fp.n_b_g1 &&
          mp.n_b_g2 == fp.n_b_g2 && mp.vk.n_ic == fp.vk.n_ic);
    if (mp.n_h == fp.n_h && mp.n_b_g2 == fp.n_b_g2 && mp.n_l == fp.n_l && mp.n_a == fp.n_a &&
        mp.n_b_g1 == fp.n_b_g1 && mp.vk.n_ic == fp.vk.n_ic) {
        CHECK(!memcmp(mp.h, fp.h, fp.n_h * sizeof *fp.h));
        CHECK(!memcmp(mp.l, fp.l, fp.n_l * sizeof *fp.l));
        CHECK(!memcmp(mp.a, fp.a, fp.n_a * sizeof *fp.a));
        CHECK(!memcmp(mp.b_g1, fp.b_g1, fp.n_b_g1 * sizeof *fp.b_g1));
        CHECK(!memcmp(mp.b_g2, fp.b_g2, fp.n_b_g2 * sizeof *fp.b_g2));
        CHECK(!memcmp(mp.vk.ic, fp.vk.ic, fp.vk.n_ic * sizeof *fp.vk.ic));
        CHECK(!memcmp(&mp.vk.delta_g2, &fp.vk.delta_g2, sizeof fp.vk.delta_g2));
    }
    cuzk_params_free(&mp);
    cuzk_params_free(&fp);
    CHECK_ERR(cuzk_groth16_setup_ex(pce, p1, NULL, &s, &om, NULL), CUZK_EINVAL, "not both");
    CHECK(access(p1, F_OK) != 0);
    CHECK_ERR(cuzk_groth16_setup_ex(pce, NULL, NULL, &s, NULL, NULL), CUZK_EINVAL,
              "params_path or params_out");
    /* NULL options: bellperson's basis on the CPU, as cuzk_groth16_setup. */
    if (basis == CUZK_H_BELLPERSON) {
        CHECK_OK(cuzk_groth16_setup_ex(pce, p1, NULL, &s, NULL, NULL));
        CHECK(same_file(p0, p1));
        CHECK_OK(cuzk_groth16_setup(pce, p1, NULL, &s, NULL));
        CHECK(same_file(p0, p1));
        unlink(p1);
    }
    unlink(p0);
    unlink(v0);
}

static void test_bad_options(cuzk_pce *pce)
{
    cuzk_setup_secrets s = fixed_secrets();
    char pp[512];
    path(pp, sizeof pp, "bad.params");
    const char *bad_names[] = {"tpu", "", "CPU", "cuda0", "cpu:0"};
    for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
        cuzk_setup_options o = {.basis = CUZK_H_BELLPERSON, .backend = bad_names[i]};
        CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, NULL, &s, &o, NULL), CUZK_EINVAL,
                  "unknown backend");
        CHECK_ERR(cuzk_groth16_setup_check(&o), CUZK_EINVAL, "unknown backend");
        CHECK(access(pp, F_OK) != 0);
    }
    const char *bad_dev[] = {"cuda:", "cuda:x", "cuda:-1", "cuda:1x", "cuda:99999", "cuda: 1"};
    for (size_t i = 0; i < sizeof bad_dev / sizeof *bad_dev; i++) {
        cuzk_setup_options o = {.basis = CUZK_H_BELLPERSON, .backend = bad_dev[i]};
        CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, NULL, &s, &o, NULL), CUZK_EINVAL,
                  "expected cuda:N");
    }
    int bad_ord[] = {-1, 1024, -1000};
    for (size_t i = 0; i < sizeof bad_ord / sizeof *bad_ord; i++) {
        cuzk_setup_options o = {
            .basis = CUZK_H_BELLPERSON, .backend = "cuda", .device = bad_ord[i]};
        CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, NULL, &s, &o, NULL), CUZK_EINVAL,
                  "outside 0..1023");
        o.backend = "auto";
        CHECK_ERR(cuzk_groth16_setup_check(&o), CUZK_EINVAL, "outside 0..1023");
    }
    cuzk_setup_options ob = {.basis = (cuzk_h_basis)7, .backend = "cpu"};
    CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, NULL, &s, &ob, NULL), CUZK_EINVAL,
              "unknown H basis 7");
    CHECK_ERR(cuzk_groth16_setup_check(&ob), CUZK_EINVAL, "unknown H basis 7");
    CHECK_ERR(cuzk_groth16_setup_ex(NULL, pp, NULL, &s, NULL, NULL), CUZK_EINVAL,
              "circuit is NULL");
    CHECK(access(pp, F_OK) != 0);

    /* cuda where no GPU can be used: refused, never silently the CPU. */
    if (cuzk_backend_gpus() == 0) {
        cuzk_setup_options o = {.basis = CUZK_H_BELLPERSON, .backend = "cuda"};
#ifdef CUZK_HAVE_CUDA
        const char *why = "no such CUDA device";
#else
        const char *why = "this build has no CUDA support";
#endif
        CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, NULL, &s, &o, NULL), CUZK_EUNSUPPORTED, why);
        CHECK_ERR(cuzk_groth16_setup_check(&o), CUZK_EUNSUPPORTED, why);
        o.backend = "cuda:3";
        CHECK_ERR(cuzk_groth16_setup_check(&o), CUZK_EUNSUPPORTED, why);
        CHECK(access(pp, F_OK) != 0);
        o.backend = "auto";
        CHECK_OK(cuzk_groth16_setup_check(&o));
    }
    cuzk_setup_options ok = {.basis = CUZK_H_SNARKJS};
    CHECK_OK(cuzk_groth16_setup_check(&ok));
    CHECK_OK(cuzk_groth16_setup_check(NULL));
}

/* A/B density bits that disagree with the matrices, at the lowest column. */
static void test_bad_density(cuzk_pce *pce)
{
    cuzk_setup_secrets s = fixed_secrets();
    char pp[512];
    path(pp, sizeof pp, "dens.params");
    size_t nv = pce->n_inputs + pce->n_aux, empty = nv, full = nv;
    for (size_t i = nv; i-- > 0;) {
        if (!cuzk_bitmap_get(pce->b_density, i))
            empty = i;
        else
            full = i;
    }
    CHECK(empty < nv && full < nv);
    if (empty == nv || full == nv)
        return;
    uint64_t *b = (uint64_t *)pce->b_density;
    char want[128];
    cuzk_threads_set(4);
    b[empty / 64] ^= 1ULL << (empty % 64);
    snprintf(want, sizeof want, "B polynomial of column %zu vanishes", empty);
    CHECK_ERR(cuzk_groth16_setup(pce, pp, NULL, &s, NULL), CUZK_EINTERNAL, want);
    b[empty / 64] ^= 1ULL << (empty % 64);
    /* Two missing bits: the lower column is named, whatever the threads. */
    uint64_t *a = (uint64_t *)pce->a_density;
    size_t c1 = nv, c2 = nv;
    for (size_t i = nv / 3; i < nv; i++)
        if (cuzk_bitmap_get(pce->a_density, i))
            c2 = i, c1 = c1 == nv ? i : c1;
    CHECK(c1 < c2 && c2 < nv);
    if (c1 >= c2 || c2 >= nv)
        return;
    a[c1 / 64] ^= 1ULL << (c1 % 64);
    a[c2 / 64] ^= 1ULL << (c2 % 64);
    snprintf(want, sizeof want, "A density bitmap misses column %zu", c1);
    CHECK_ERR(cuzk_groth16_setup(pce, pp, NULL, &s, NULL), CUZK_EFORMAT, want);
    a[c1 / 64] ^= 1ULL << (c1 % 64);
    a[c2 / 64] ^= 1ULL << (c2 % 64);
    CHECK(access(pp, F_OK) != 0);
    cuzk_threads_set(1);
}

/* The progress callback: told 0 first and total last, never backwards;
 * a non-zero return at its first, a middle or its last call stops the
 * setup with ECANCELLED and leaves no file (temporary ones included), on
 * disk or in memory. */
static void test_progress(cuzk_pce *pce)
{
    cuzk_setup_secrets s = fixed_secrets();
    char pp[512], vp[512], tp[600], tv[600];
    path(pp, sizeof pp, "prog.params");
    path(vp, sizeof vp, "prog.vk");
    snprintf(tp, sizeof tp, "%s.tmp-%d", pp, (int)getpid());
    snprintf(tv, sizeof tv, "%s.tmp-%d", vp, (int)getpid());
    unlink(pp);
    unlink(vp);
    check_progress cp = {0};
    cuzk_setup_options o = {.basis = CUZK_H_BELLPERSON,
                            .backend = "cpu",
                            .progress = check_progress_fn,
                            .progress_ctx = &cp};
    CHECK_OK(cuzk_groth16_setup_ex(pce, pp, vp, &s, &o, NULL));
    size_t nv = pce->n_inputs + pce->n_aux;
    unsigned long long want = pce->n_inputs + ((size_t)1 << pce->log_domain) - 1 + pce->n_aux +
                              cuzk_bitmap_count(pce->a_density, nv) +
                              2 * cuzk_bitmap_count(pce->b_density, nv);
    CHECK(cp.calls >= 8 && cp.first == 0 && !cp.backwards);
    CHECK(cp.total == want && cp.last == want);
    CHECK(access(pp, F_OK) == 0 && access(vp, F_OK) == 0);
    unlink(pp);
    unlink(vp);
    int total_calls = cp.calls, stops[] = {1, 2, total_calls / 2, total_calls};
    for (size_t i = 0; i < sizeof stops / sizeof *stops; i++) {
        check_progress c = {0};
        c.stop_at = stops[i];
        o.progress_ctx = &c;
        CHECK_ERR(cuzk_groth16_setup_ex(pce, pp, vp, &s, &o, NULL), CUZK_ECANCELLED,
                  "setup: cancelled after");
        CHECK(c.calls == stops[i]);
        CHECK(access(pp, F_OK) != 0 && access(vp, F_OK) != 0);
        CHECK(access(tp, F_OK) != 0 && access(tv, F_OK) != 0);
    }
    /* In memory: nothing is left to free after a cancel (ASan checks). */
    cuzk_params mp;
    check_progress c = {0};
    c.stop_at = total_calls;
    cuzk_setup_options om = {.basis = CUZK_H_BELLPERSON,
                             .backend = "cpu",
                             .params_out = &mp,
                             .progress = check_progress_fn,
                             .progress_ctx = &c};
    CHECK_ERR(cuzk_groth16_setup_ex(pce, NULL, NULL, &s, &om, NULL), CUZK_ECANCELLED, "cancelled");
}

int main(void)
{
    cuzk_synth_params sp = {1500, 3, 42};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    if (!pce)
        return check_done("test_groth16_setup");
    test_bad_options(pce);
    test_same_bytes(pce, CUZK_H_BELLPERSON);
    test_same_bytes(pce, CUZK_H_SNARKJS);
    test_bad_density(pce);
    test_progress(pce);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    cuzk_threads_shutdown();
    return check_done("test_groth16_setup");
}
