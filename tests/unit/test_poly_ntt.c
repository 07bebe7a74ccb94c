/* NTT: all four transforms against their definitions (naive evaluation) for
 * sizes 2^0..2^11 under several radices, so that multi-pass plans are
 * checked exhaustively; sampled outputs of larger sizes; round trips up to
 * 2^18; independence from the thread count; known structure (e_1 maps to
 * omega^i); and the sizes and radices a domain must reject. */
#include "check.h"
#include "cuzk/ntt.h"
#include "cuzk/threads.h"

static int vec_eq(const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static cuzk_fr *vec_new(size_t n)
{
    cuzk_fr *v = malloc(n * sizeof *v);
    if (!v) {
        fprintf(stderr, "test_poly_ntt: out of memory for %zu elements\n", n);
        exit(2);
    }
    return v;
}

/* sum_j a_j x^j by Horner. */
static void poly_eval(cuzk_fr *r, const cuzk_fr *a, size_t n, const cuzk_fr *x)
{
    cuzk_fr acc;
    cuzk_fr_zero(&acc);
    for (size_t j = n; j-- > 0;) {
        blst_fr_mul(&acc, &acc, x);
        blst_fr_add(&acc, &acc, &a[j]);
    }
    *r = acc;
}

/* out_i = a(c omega^i) for all i: the O(n^2) definition. */
static void naive_eval_all(cuzk_fr *out, const cuzk_fr *a, const cuzk_ntt_domain *d,
                           const cuzk_fr *c)
{
    cuzk_fr x = *c;
    for (size_t i = 0; i < d->n; i++) {
        poly_eval(&out[i], a, d->n, &x);
        blst_fr_mul(&x, &x, &d->omega);
    }
}

static void test_domain(void)
{
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, 12));
    cuzk_fr x, one, seven;
    cuzk_fr_one(&one);
    cuzk_fr_from_u64(&seven, 7);
    CHECK(d.n == 4096 && d.log_n == 12);
    cuzk_fr_pow_u64(&x, &d.omega, 2048);
    CHECK(!cuzk_fr_eq(&x, &one)); /* primitive */
    blst_fr_sqr(&x, &x);
    CHECK(cuzk_fr_eq(&x, &one));
    blst_fr_mul(&x, &d.omega, &d.omega_inv);
    CHECK(cuzk_fr_eq(&x, &one));
    cuzk_fr_from_u64(&x, 4096);
    blst_fr_mul(&x, &x, &d.n_inv);
    CHECK(cuzk_fr_eq(&x, &one));
    CHECK(cuzk_fr_eq(&d.shift, &seven));
    blst_fr_mul(&x, &d.shift, &d.shift_inv);
    CHECK(cuzk_fr_eq(&x, &one));
    /* The power tables against plain exponentiation. */
    size_t es[] = {0, 1, 63, 64, 65, 1000, 4095};
    for (size_t i = 0; i < sizeof es / sizeof es[0]; i++) {
        cuzk_fr got, want;
        cuzk_ntt_powers_get(&got, &d.omega_pow, es[i]);
        cuzk_fr_pow_u64(&want, &d.omega, es[i]);
        CHECK(cuzk_fr_eq(&got, &want));
        cuzk_ntt_powers_get(&got, &d.shift_inv_pow, es[i]);
        cuzk_fr_pow_u64(&want, &d.shift_inv, es[i]);
        CHECK(cuzk_fr_eq(&got, &want));
    }
    /* 1/Z(g) with Z = X^n - 1. */
    cuzk_fr z_inv;
    cuzk_ntt_coset_z_inv(&d, &z_inv);
    cuzk_fr_pow_u64(&x, &d.shift, d.n);
    blst_fr_sub(&x, &x, &one);
    blst_fr_mul(&x, &x, &z_inv);
    CHECK(cuzk_fr_eq(&x, &one));
    cuzk_ntt_domain_free(&d);
    cuzk_ntt_domain_free(&d); /* freeing an emptied domain is harmless */

    CHECK_OK(cuzk_ntt_domain_init(&d, 0)); /* n = 1: every transform is the identity */
    cuzk_fr v, v0;
    cuzk_fr_from_u64(&v, 5);
    v0 = v;
    cuzk_ntt_forward(&d, &v);
    cuzk_ntt_inverse(&d, &v);
    cuzk_ntt_coset_forward(&d, &v);
    cuzk_ntt_coset_inverse(&d, &v);
    CHECK(cuzk_fr_eq(&v, &v0));
    cuzk_ntt_domain_free(&d);

    CHECK_OK(cuzk_ntt_domain_init(&d, CUZK_NTT_MAX_LOG)); /* tables only: no 8 GiB vector */
    CHECK(d.n == (size_t)1 << CUZK_NTT_MAX_LOG);
    cuzk_ntt_domain_free(&d);
}

static void test_bad_sizes(void)
{
    cuzk_ntt_domain d;
    CHECK_ERR(cuzk_ntt_domain_init(&d, CUZK_NTT_MAX_LOG + 1), CUZK_EINVAL, "2^29");
    CHECK(d.n == 0 && d.roots == NULL);
    cuzk_ntt_domain_free(&d);
    CHECK_ERR(cuzk_ntt_domain_init(&d, 64), CUZK_EINVAL, "2^64");
    CHECK_ERR(cuzk_ntt_domain_init(&d, ~0u), CUZK_EINVAL, "exceeds the maximum 2^28");
    CHECK_ERR(cuzk_ntt_domain_init_radix(&d, 5, 0), CUZK_EINVAL, "radix 2^0");
    char want[32];
    snprintf(want, sizeof want, "radix 2^%u", CUZK_NTT_RADIX_LOG + 1);
    CHECK_ERR(cuzk_ntt_domain_init_radix(&d, 5, CUZK_NTT_RADIX_LOG + 1), CUZK_EINVAL, want);
}

/* All four transforms against their definitions, for every size up to
 * 2^max_log: a radix of 2^1..2^4 makes these sizes run up to ten passes,
 * the plans that large sizes use with the default radix. */
static void test_definition(unsigned radix_log, unsigned max_log)
{
    for (unsigned log_n = 0; log_n <= max_log; log_n++) {
        cuzk_ntt_domain d;
        CHECK_OK(cuzk_ntt_domain_init_radix(&d, log_n, radix_log));
        cuzk_fr *x = vec_new(d.n), *y = vec_new(d.n), *yc = vec_new(d.n), *a = vec_new(d.n);
        cuzk_fr one;
        cuzk_fr_one(&one);
        cuzk_fr_vec_rng(x, d.n, 100 + log_n);
        naive_eval_all(y, x, &d, &one);      /* y_i = x(omega^i) */
        naive_eval_all(yc, x, &d, &d.shift); /* yc_i = x(g omega^i) */
        memcpy(a, x, d.n * sizeof *x);
        cuzk_ntt_forward(&d, a);
        int ok_f = vec_eq(a, y, d.n);
        memcpy(a, x, d.n * sizeof *x);
        cuzk_ntt_coset_forward(&d, a);
        int ok_cf = vec_eq(a, yc, d.n);
        cuzk_ntt_inverse(&d, y);
        int ok_i = vec_eq(y, x, d.n);
        cuzk_ntt_coset_inverse(&d, yc);
        int ok_ci = vec_eq(yc, x, d.n);
        CHECK(ok_f && ok_cf && ok_i && ok_ci);
        if (!(ok_f && ok_cf && ok_i && ok_ci))
            fprintf(
                stderr,
                "  2^%u radix 2^%u (%u passes): forward %d coset %d inverse %d coset inverse %d\n",
                log_n, radix_log, d.passes, ok_f, ok_cf, ok_i, ok_ci);
        free(x);
        free(y);
        free(yc);
        free(a);
        cuzk_ntt_domain_free(&d);
    }
}

/* Sizes above one in-cache block run column passes: check a few outputs of
 * forward and coset_forward against direct evaluation. */
static void test_sampled_large(void)
{
    static const unsigned sizes[] = {11, 13, 16, 18};
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        cuzk_ntt_domain d;
        CHECK_OK(cuzk_ntt_domain_init(&d, sizes[si]));
        cuzk_fr *a = vec_new(d.n), *f = vec_new(d.n), *cf = vec_new(d.n);
        cuzk_fr_vec_rng(a, d.n, 300 + sizes[si]);
        memcpy(f, a, d.n * sizeof *a);
        memcpy(cf, a, d.n * sizeof *a);
        cuzk_ntt_forward(&d, f);
        cuzk_ntt_coset_forward(&d, cf);
        cuzk_rng g;
        cuzk_rng_seed(&g, sizes[si]);
        size_t idx[6] = {0, 1, d.n / 2, d.n - 1, 0, 0};
        idx[4] = cuzk_rng_u64(&g) % d.n;
        idx[5] = cuzk_rng_u64(&g) % d.n;
        for (int k = 0; k < 6; k++) {
            cuzk_fr x, want;
            cuzk_fr_pow_u64(&x, &d.omega, idx[k]);
            poly_eval(&want, a, d.n, &x);
            CHECK(cuzk_fr_eq(&f[idx[k]], &want));
            blst_fr_mul(&x, &x, &d.shift);
            poly_eval(&want, a, d.n, &x);
            CHECK(cuzk_fr_eq(&cf[idx[k]], &want));
        }
        free(a);
        free(f);
        free(cf);
        cuzk_ntt_domain_free(&d);
    }
}

static void round_trip(unsigned log_n)
{
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, log_n));
    cuzk_fr *x = vec_new(d.n), *a = vec_new(d.n);
    cuzk_fr_vec_rng(x, d.n, 400 + log_n);
    memcpy(a, x, d.n * sizeof *x);
    cuzk_ntt_forward(&d, a);
    CHECK(log_n == 0 || !vec_eq(a, x, d.n));
    cuzk_ntt_inverse(&d, a);
    CHECK(vec_eq(a, x, d.n));
    cuzk_ntt_coset_forward(&d, a);
    cuzk_ntt_coset_inverse(&d, a);
    CHECK(vec_eq(a, x, d.n));
    cuzk_ntt_inverse(&d, a); /* the other way round too */
    cuzk_ntt_forward(&d, a);
    CHECK(vec_eq(a, x, d.n));
    if (!vec_eq(a, x, d.n))
        fprintf(stderr, "  round trip fails at 2^%u\n", log_n);
    free(x);
    free(a);
    cuzk_ntt_domain_free(&d);
}

static void test_round_trips(void)
{
    for (unsigned log_n = 0; log_n <= 16; log_n++)
        round_trip(log_n);
    round_trip(18);
}

static void test_thread_counts(void)
{
    unsigned saved = cuzk_threads_count();
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, 14));
    cuzk_fr *x = vec_new(d.n), *ref = vec_new(d.n), *a = vec_new(d.n);
    cuzk_fr_vec_rng(x, d.n, 500);
    void (*ops[4])(const cuzk_ntt_domain *, cuzk_fr *) = {
        cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    for (int op = 0; op < 4; op++) {
        cuzk_threads_set(1);
        memcpy(ref, x, d.n * sizeof *x);
        ops[op](&d, ref);
        for (unsigned t = 2; t <= 3; t++) {
            cuzk_threads_set(t);
            memcpy(a, x, d.n * sizeof *x);
            ops[op](&d, a);
            CHECK(vec_eq(a, ref, d.n));
        }
    }
    cuzk_threads_set(saved);
    free(x);
    free(ref);
    free(a);
    cuzk_ntt_domain_free(&d);
}

/* forward(e_1)_i = omega^i, coset_forward(e_1)_i = g omega^i,
 * inverse(e_1)_i = omega^-i / n, coset_inverse(e_1)_i = (g omega)^-i / n,
 * forward(e_0) = all ones. Every output of a two-pass size is checked. */
static void test_delta(void)
{
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, 16));
    cuzk_fr *a = vec_new(d.n), *b = vec_new(d.n), *c = vec_new(d.n), *ci = vec_new(d.n),
            *e = vec_new(d.n);
    memset(a, 0, d.n * sizeof *a);
    cuzk_fr_one(&a[1]);
    memcpy(b, a, d.n * sizeof *a);
    memcpy(c, a, d.n * sizeof *a);
    memcpy(ci, a, d.n * sizeof *a);
    cuzk_ntt_forward(&d, a);
    cuzk_ntt_coset_forward(&d, b);
    cuzk_ntt_inverse(&d, c);
    cuzk_ntt_coset_inverse(&d, ci);
    memset(e, 0, d.n * sizeof *e);
    cuzk_fr_one(&e[0]);
    cuzk_ntt_forward(&d, e);
    cuzk_fr w, gw, wi, gwi, step, one;
    cuzk_fr_one(&w);
    cuzk_fr_one(&one);
    gw = d.shift;
    wi = d.n_inv;
    gwi = d.n_inv;
    blst_fr_mul(&step, &d.omega_inv, &d.shift_inv);
    int ok_f = 1, ok_c = 1, ok_i = 1, ok_ci = 1, ok_e = 1;
    for (size_t i = 0; i < d.n; i++) {
        ok_f &= cuzk_fr_eq(&a[i], &w);
        ok_c &= cuzk_fr_eq(&b[i], &gw);
        ok_i &= cuzk_fr_eq(&c[i], &wi);
        ok_ci &= cuzk_fr_eq(&ci[i], &gwi);
        ok_e &= cuzk_fr_eq(&e[i], &one);
        blst_fr_mul(&w, &w, &d.omega);
        blst_fr_mul(&gw, &gw, &d.omega);
        blst_fr_mul(&wi, &wi, &d.omega_inv);
        blst_fr_mul(&gwi, &gwi, &step);
    }
    CHECK(ok_f);
    CHECK(ok_c);
    CHECK(ok_i);
    CHECK(ok_ci);
    CHECK(ok_e);
    free(a);
    free(b);
    free(c);
    free(ci);
    free(e);
    cuzk_ntt_domain_free(&d);
}

int main(void)
{
    test_domain();
    test_bad_sizes();
    test_definition(CUZK_NTT_RADIX_LOG, CUZK_NTT_RADIX_LOG);
    for (unsigned radix_log = 1; radix_log <= 4; radix_log++)
        test_definition(radix_log, 10);
    test_sampled_large();
    test_round_trips();
    test_thread_counts();
    test_delta();
    cuzk_threads_shutdown();
    return check_done("test_poly_ntt");
}
