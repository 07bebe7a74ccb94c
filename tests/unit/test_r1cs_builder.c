/* R1CS builder: canonical rows (merging, zero dropping, sorting), the
 * coefficient table, variable layout with interleaved inputs, bellperson's
 * input constraints, the satisfaction check and every misuse that must fail.
 * Rows are inspected through the compiled PCE, the form the prover sees. */
#include "check.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"
#include "cuzk/threads.h"

static cuzk_fr fr(uint64_t v)
{
    cuzk_fr r;
    cuzk_fr_from_u64(&r, v);
    return r;
}

static cuzk_fr fr_neg(uint64_t v)
{
    cuzk_fr r = fr(v);
    cuzk_fr_neg(&r, &r);
    return r;
}

static cuzk_term t(cuzk_var v, cuzk_fr c)
{
    return (cuzk_term){v, c};
}

/* Row r of m holds exactly the (column, value) pairs given, in order. */
static int row_is(const cuzk_pce *p, const cuzk_csr *m, uint64_t r, const uint32_t *cols,
                  const cuzk_fr *vals, size_t n)
{
    if (m->row_ptr[r + 1] - m->row_ptr[r] != n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t k = m->row_ptr[r] + i;
        if (m->col[k] != cols[i] || !cuzk_fr_eq(&p->coeffs[m->coef[k]], &vals[i]))
            return 0;
    }
    return 1;
}

static void test_merge_and_drop(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 0));
    cuzk_var x, y, z, in1;
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &x));
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &y));
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &z));
    CHECK(x == (CUZK_VAR_AUX_BIT | 0) && z == (CUZK_VAR_AUX_BIT | 2));
    /* Row 0: A = x + 2y + 3x -> 4x + 2y; B = y - y + 0z -> empty; C = z + ONE
     * given out of order -> ONE, z. */
    cuzk_term a0[] = {t(x, fr(1)), t(y, fr(2)), t(x, fr(3))};
    cuzk_term b0[] = {t(y, fr(1)), t(y, fr_neg(1)), t(z, fr(0))};
    cuzk_term c0[] = {t(z, fr(1)), t(CUZK_VAR_ONE, fr(1))};
    CHECK_OK(cuzk_r1cs_enforce(cs, a0, 3, b0, 3, c0, 2));
    /* An input allocated after a row that used aux: aux columns move up. */
    CHECK_OK(cuzk_r1cs_alloc_input(cs, NULL, &in1));
    CHECK(in1 == 1);
    /* Row 1: a long reversed LC with duplicates takes the sorting path:
     * 40 terms on z, y, x, in1 cycling, each with coefficient 1. */
    cuzk_term big[40];
    cuzk_var order[4] = {z, y, x, in1};
    for (int i = 0; i < 40; i++)
        big[i] = t(order[i % 4], fr(1));
    CHECK_OK(cuzk_r1cs_enforce(cs, big, 40, NULL, 0, NULL, 0));
    /* Row 2: everything cancels. */
    cuzk_term gone[] = {t(x, fr(5)), t(x, fr_neg(5))};
    CHECK_OK(cuzk_r1cs_enforce(cs, gone, 2, gone, 2, gone, 2));
    CHECK(cuzk_r1cs_num_constraints(cs) == 3);
    CHECK_OK(cuzk_r1cs_finalize(cs));
    CHECK(cuzk_r1cs_num_inputs(cs) == 2 && cuzk_r1cs_num_aux(cs) == 3);
    CHECK(cuzk_r1cs_num_constraints(cs) == 5);

    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    cuzk_r1cs_free(cs); /* the PCE must not depend on the builder */
    /* columns: ONE 0, in1 1, x 2, y 3, z 4 */
    CHECK(row_is(p, &p->a, 0, (uint32_t[]){2, 3}, (cuzk_fr[]){fr(4), fr(2)}, 2));
    CHECK(row_is(p, &p->b, 0, NULL, NULL, 0));
    CHECK(row_is(p, &p->c, 0, (uint32_t[]){0, 4}, (cuzk_fr[]){fr(1), fr(1)}, 2));
    CHECK(row_is(p, &p->a, 1, (uint32_t[]){1, 2, 3, 4}, (cuzk_fr[]){fr(10), fr(10), fr(10), fr(10)},
                 4));
    for (int k = 0; k < 3; k++) {
        const cuzk_csr *m = k == 0 ? &p->a : k == 1 ? &p->b : &p->c;
        CHECK(row_is(p, m, 2, NULL, NULL, 0));
    }
    /* Input constraints, in order: A = x_i, B = C = 0. */
    for (uint32_t i = 0; i < 2; i++) {
        CHECK(row_is(p, &p->a, 3 + i, &i, (cuzk_fr[]){fr(1)}, 1));
        CHECK(row_is(p, &p->b, 3 + i, NULL, NULL, 0));
        CHECK(row_is(p, &p->c, 3 + i, NULL, NULL, 0));
    }
    /* Distinct non-zero coefficients: 4, 2, 1, 10 (5 and -5 only cancelled;
     * -1 was merged away before reaching the table). */
    CHECK(p->n_coeffs == 4);
    CHECK(p->log_domain == 3);
    /* Densities: A has ONE, in1 (input rows), x, y, z; B nothing. */
    CHECK(p->a_density[0] == 0x1f && p->b_density[0] == 0);
    CHECK(p->a_input_count == 2 && p->a_aux_count == 3);
    CHECK(p->b_input_count == 0 && p->b_aux_count == 0);
    cuzk_pce_free(p);
}

static void test_values_and_check(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 1));
    cuzk_var a, b, c, in;
    cuzk_fr v3 = fr(3), v5 = fr(5), v15 = fr(15), v16 = fr(16);
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v3, &a));
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v5, &b));
    CHECK_ERR(cuzk_r1cs_alloc_aux(cs, NULL, &c), CUZK_EINVAL, "without a value");
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v15, &c));
    CHECK_OK(cuzk_r1cs_alloc_input(cs, &v16, &in));
    /* a * b = c; (c + 1) * 1 = in; a * a = c (false: 9 != 15); a * b = c */
    cuzk_term ta = t(a, fr(1)), tb = t(b, fr(1)), tc = t(c, fr(1)), tin = t(in, fr(1));
    cuzk_term one = t(CUZK_VAR_ONE, fr(1)), c1[] = {tc, one};
    CHECK_OK(cuzk_r1cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1));
    CHECK_OK(cuzk_r1cs_enforce(cs, c1, 2, &one, 1, &tin, 1));
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    uint64_t bad = 99;
    CHECK_OK(cuzk_r1cs_check(cs, w, &bad));
    CHECK(bad == 99);
    CHECK_OK(cuzk_r1cs_enforce(cs, &ta, 1, &ta, 1, &tc, 1));
    CHECK_OK(cuzk_r1cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1));
    CHECK_ERR(cuzk_r1cs_check(cs, w, &bad), CUZK_EINVAL, "row 2 ");
    CHECK(bad == 2);
    CHECK_ERR(cuzk_r1cs_check(cs, NULL, NULL), CUZK_EINVAL, "no assignment");
    CHECK_OK(cuzk_r1cs_finalize(cs));
    w = cuzk_r1cs_assignment(cs);
    CHECK(cuzk_fr_is_one(&w[0]));
    CHECK(cuzk_fr_eq(&w[1], &v16) && cuzk_fr_eq(&w[2], &v3) && cuzk_fr_eq(&w[4], &v15));
    CHECK_ERR(cuzk_r1cs_check(cs, w, NULL), CUZK_EINVAL, "row 2 of 6");
    cuzk_r1cs_free(cs);

    /* Without values there is no assignment. */
    CHECK_OK(cuzk_r1cs_new(&cs, 0));
    CHECK(cuzk_r1cs_assignment(cs) == NULL);
    cuzk_r1cs_free(cs);
}

/* Inputs interleaved with many aux, past the initial gap: the assignment is
 * still (1, inputs..., aux...) in allocation order within each kind. */
static void test_interleaved_layout(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 1));
    enum { N_IN = 300, AUX_PER_IN = 7 };
    for (int i = 0; i < N_IN; i++) {
        for (int j = 0; j < AUX_PER_IN; j++) {
            cuzk_fr v = fr(1000000 + (uint64_t)i * AUX_PER_IN + (uint64_t)j);
            cuzk_var x;
            CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v, &x));
        }
        cuzk_fr v = fr(500 + (uint64_t)i);
        cuzk_var x;
        CHECK_OK(cuzk_r1cs_alloc_input(cs, &v, &x));
        CHECK(x == (cuzk_var)i + 1);
    }
    CHECK(cuzk_r1cs_num_inputs(cs) == N_IN + 1);
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    int ok = cuzk_fr_is_one(&w[0]);
    for (int i = 0; i < N_IN; i++) {
        cuzk_fr want = fr(500 + (uint64_t)i);
        ok &= cuzk_fr_eq(&w[1 + i], &want);
    }
    for (int i = 0; i < N_IN * AUX_PER_IN; i++) {
        cuzk_fr want = fr(1000000 + (uint64_t)i);
        ok &= cuzk_fr_eq(&w[N_IN + 1 + i], &want);
    }
    CHECK(ok);
    cuzk_r1cs_free(cs);
}

static void test_misuse(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 0));
    cuzk_var x, y;
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &x));
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &y));
    cuzk_term ok = t(x, fr(1)), bad_aux = t(CUZK_VAR_AUX_BIT | 5, fr(1)), bad_in = t(9, fr(1));
    CHECK_ERR(cuzk_r1cs_enforce(cs, &ok, 1, &bad_aux, 1, NULL, 0), CUZK_EINVAL,
              "unknown variable aux 5 in term 0 of B");
    CHECK_ERR(cuzk_r1cs_enforce(cs, &ok, 1, NULL, 0, &bad_in, 1), CUZK_EINVAL,
              "unknown variable input 9");
    CHECK_ERR(cuzk_r1cs_enforce(cs, NULL, 2, NULL, 0, NULL, 0), CUZK_EINVAL, "NULL terms");
    CHECK(cuzk_r1cs_num_constraints(cs) == 0); /* nothing half-appended */
    cuzk_pce *p;
    CHECK_ERR(cuzk_pce_from_r1cs(&p, cs), CUZK_EINVAL, "not finalized");
    CHECK_OK(cuzk_r1cs_enforce(cs, &ok, 1, &ok, 1, &ok, 1));
    CHECK(!cuzk_r1cs_is_finalized(cs));
    CHECK_OK(cuzk_r1cs_finalize(cs));
    CHECK(cuzk_r1cs_is_finalized(cs));
    CHECK_ERR(cuzk_r1cs_alloc_aux(cs, NULL, &x), CUZK_EINVAL, "after finalize");
    CHECK_ERR(cuzk_r1cs_alloc_input(cs, NULL, &x), CUZK_EINVAL, "after finalize");
    CHECK_ERR(cuzk_r1cs_enforce(cs, &ok, 1, &ok, 1, &ok, 1), CUZK_EINVAL, "after finalize");
    CHECK_ERR(cuzk_r1cs_finalize(cs), CUZK_EINVAL, "already finalized");
    CHECK(cuzk_r1cs_num_constraints(cs) == 2);
    cuzk_r1cs_free(cs);
}

/* Many rows and many distinct coefficients: the row and coefficient tables
 * grow, ids stay stable, and the PCE reproduces every coefficient. */
static void test_growth(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 0));
    enum { N = 5000 };
    cuzk_var x;
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, NULL, &x));
    for (int i = 0; i < N; i++) {
        cuzk_term a = t(x, fr(1 + (uint64_t)(i % 1000)));
        CHECK_OK(cuzk_r1cs_enforce(cs, &a, 1, NULL, 0, NULL, 0));
    }
    CHECK(cuzk_r1cs_num_coeffs(cs) == 1000);
    CHECK_OK(cuzk_r1cs_finalize(cs));
    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    int ok = p->n_constraints == N + 1 && p->a.nnz == N + 1;
    for (int i = 0; i < N && ok; i++) {
        cuzk_fr want = fr(1 + (uint64_t)(i % 1000));
        ok = p->a.col[i] == 1 && cuzk_fr_eq(&p->coeffs[p->a.coef[i]], &want);
    }
    CHECK(ok);
    CHECK(p->log_domain == 13);
    cuzk_pce_free(p);
    cuzk_r1cs_free(cs);
}

int main(void)
{
    test_merge_and_drop();
    test_values_and_check();
    test_interleaved_layout();
    test_misuse();
    test_growth();
    cuzk_threads_shutdown();
    return check_done("test_r1cs_builder");
}
