/* Synthetic circuits: exact sizes for several input counts, satisfiable,
 * deterministic in the seed (and structurally identical without values),
 * and with the statistics they promise: >= 70% of aux values are bits, B's
 * non-empty columns fewer than half of A's, every aux column used, and every
 * public input constrained beyond its input constraint. cuzk_synth_witness
 * gives the built circuit's assignment element by element, and it satisfies
 * the circuit (builder check and PCE SpMV). */
#include "check.h"
#include "cuzk/pce.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t n;
    uint32_t n_public;
} size_case;

static void check_case(size_case sc, int print)
{
    cuzk_synth_params sp = {sc.n, sc.n_public, 1234 + sc.n};
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    if (!cs)
        return;
    CHECK(cuzk_r1cs_num_constraints(cs) == sc.n);
    CHECK(cuzk_r1cs_num_inputs(cs) == sc.n_public + 1);
    CHECK(cuzk_r1cs_is_finalized(cs));
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    CHECK_OK(cuzk_r1cs_check(cs, w, NULL));

    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    uint64_t n_cols = p->n_inputs + p->n_aux;

    /* bits among aux values */
    uint64_t bits = 0;
    for (uint64_t i = p->n_inputs; i < n_cols; i++)
        bits += cuzk_fr_is_zero(&w[i]) || cuzk_fr_is_one(&w[i]);
    double bit_share = (double)bits / (double)p->n_aux;

    /* every aux column in some matrix; every public input in C */
    uint8_t *in_c = calloc(n_cols, 1);
    for (uint64_t k = 0; k < p->c.nnz; k++)
        in_c[p->c.col[k]] = 1;
    int all_used = 1, inputs_used = 1;
    for (uint64_t j = 0; j < n_cols; j++) {
        int used = in_c[j] || ((p->a_density[j / 64] >> (j % 64)) & 1) ||
                   ((p->b_density[j / 64] >> (j % 64)) & 1);
        if (j >= p->n_inputs)
            all_used &= used;
        else if (j > 0)
            inputs_used &= in_c[j];
    }
    free(in_c);
    uint64_t a_cnt = p->a_input_count + p->a_aux_count, b_cnt = p->b_input_count + p->b_aux_count;
    CHECK(all_used);
    CHECK(inputs_used);
    CHECK(p->a_input_count == p->n_inputs);
    CHECK(b_cnt * 2 < a_cnt);
    if (sc.n >= 1024)
        CHECK(bit_share >= 0.70);
    CHECK(p->n_coeffs < 128); /* few distinct coefficients, as in Filecoin */
    if (print)
        printf("synth n=%llu public=%u: aux=%llu bits=%.1f%% A=%llu B=%llu (B/A %.1f%%) "
               "nnz A/B/C=%llu/%llu/%llu coeffs=%u\n",
               (unsigned long long)sc.n, sc.n_public, (unsigned long long)p->n_aux, 100 * bit_share,
               (unsigned long long)a_cnt, (unsigned long long)b_cnt,
               100.0 * (double)b_cnt / (double)a_cnt, (unsigned long long)p->a.nnz,
               (unsigned long long)p->b.nnz, (unsigned long long)p->c.nnz, p->n_coeffs);
    cuzk_pce_free(p);
    cuzk_r1cs_free(cs);
}

static uint64_t checksum_of(uint64_t n, uint32_t n_public, uint64_t seed, int values)
{
    cuzk_synth_params sp = {n, n_public, seed};
    cuzk_r1cs *cs;
    cuzk_pce *p;
    uint64_t ck = 0;
    CHECK_OK(cuzk_synth_build(&sp, values, &cs));
    if (!cs)
        return 0;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    if (p)
        ck = p->checksum;
    cuzk_pce_free(p);
    cuzk_r1cs_free(cs);
    return ck;
}

static void test_determinism(void)
{
    uint64_t a = checksum_of(5000, 3, 7, 1);
    CHECK(a != 0);
    CHECK(a == checksum_of(5000, 3, 7, 1));
    CHECK(a == checksum_of(5000, 3, 7, 0)); /* structure does not depend on values */
    CHECK(a != checksum_of(5000, 3, 8, 1));
    CHECK(a != checksum_of(5001, 3, 7, 1));

    /* Same seed, same witness. */
    cuzk_synth_params sp = {3000, 2, 42};
    cuzk_r1cs *x, *y;
    CHECK_OK(cuzk_synth_build(&sp, 1, &x));
    CHECK_OK(cuzk_synth_build(&sp, 1, &y));
    uint64_t n = cuzk_r1cs_num_inputs(x) + cuzk_r1cs_num_aux(x);
    CHECK(memcmp(cuzk_r1cs_assignment(x), cuzk_r1cs_assignment(y), n * sizeof(cuzk_fr)) == 0);
    cuzk_r1cs_free(x);
    cuzk_r1cs_free(y);
}

/* A.w * B.w == C.w row by row through the PCE's SpMV. */
static int pce_satisfied(const cuzk_pce *p, const cuzk_fr *w)
{
    size_t m = (size_t)p->n_constraints;
    cuzk_fr *a = malloc(3 * m * sizeof *a);
    int ok = a != NULL;
    CHECK(ok);
    if (!ok)
        return 0;
    CHECK_OK(cuzk_pce_spmv(p, w, a, a + m, a + 2 * m));
    for (size_t i = 0; i < m && ok; i++) {
        cuzk_fr ab;
        blst_fr_mul(&ab, &a[i], &a[m + i]);
        ok = cuzk_fr_eq(&ab, &a[2 * m + i]);
    }
    free(a);
    return ok;
}

static void check_witness(uint64_t n, uint32_t n_public, uint64_t seed)
{
    cuzk_synth_params sp = {n, n_public, seed};
    cuzk_fr *w = NULL;
    size_t len = 0;
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_synth_witness(&sp, &w, &len));
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    if (!w || !cs) {
        free(w);
        cuzk_r1cs_free(cs);
        return;
    }
    uint64_t want = cuzk_r1cs_num_inputs(cs) + cuzk_r1cs_num_aux(cs);
    CHECK(len == want);
    CHECK(cuzk_r1cs_num_inputs(cs) == n_public + 1);
    const cuzk_fr *ref = cuzk_r1cs_assignment(cs);
    size_t first_diff = len;
    for (size_t i = 0; i < len && i < want; i++)
        if (!cuzk_fr_eq(&w[i], &ref[i])) {
            first_diff = i;
            break;
        }
    if (first_diff != len)
        printf("witness n=%llu public=%u seed=%llu: first difference at element %zu of %zu\n",
               (unsigned long long)n, n_public, (unsigned long long)seed, first_diff, len);
    CHECK(first_diff == len);
    CHECK(cuzk_fr_is_one(&w[0]));
    CHECK_OK(cuzk_r1cs_check(cs, w, NULL));
    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    if (p) {
        CHECK(p->n_inputs + p->n_aux == len);
        CHECK(pce_satisfied(p, w));
        /* Both checks can fail: the last aux value is pinned by its row. */
        blst_fr_add(&w[len - 1], &w[len - 1], &w[0]);
        CHECK_ERR(cuzk_r1cs_check(cs, w, NULL), CUZK_EINVAL, "is not satisfied");
        CHECK(!pce_satisfied(p, w));
    }
    cuzk_pce_free(p);
    cuzk_r1cs_free(cs);
    free(w);
}

static void test_witness(void)
{
    const uint32_t publics[] = {0, 1, 3, 20};
    for (size_t i = 0; i < sizeof publics / sizeof publics[0]; i++) {
        uint32_t np = publics[i];
        const uint64_t sizes[] = {cuzk_synth_min_constraints(np), 100, 1000, 4096, (1 << 16) + 3};
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++)
            for (uint64_t seed = 1; seed <= 2; seed++)
                check_witness(sizes[j], np, seed * 1000003 + sizes[j]);
    }

    /* Different seeds, different values. */
    cuzk_synth_params sp = {4096, 3, 1};
    cuzk_fr *x, *y;
    size_t nx, ny;
    CHECK_OK(cuzk_synth_witness(&sp, &x, &nx));
    sp.seed = 2;
    CHECK_OK(cuzk_synth_witness(&sp, &y, &ny));
    CHECK(nx == ny && memcmp(x, y, nx * sizeof *x) != 0);
    free(x);
    free(y);

    /* Sizes out of range, with the outputs cleared. */
    const cuzk_synth_params bad[] = {
        {15, 0, 1},
        {208, 100, 1},
        {((uint64_t)1 << 31) + 1, 0, 1},
        {(uint64_t)1 << 31, UINT32_MAX, 1},
    };
    const char *needle[] = {"need 16..2^31", "need 209..2^31",
                            "2147483649 constraints out of range", "for 4294967295 public inputs"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cuzk_fr dummy, *w = &dummy;
        size_t n = 7;
        CHECK_ERR(cuzk_synth_witness(&bad[i], &w, &n), CUZK_EINVAL, needle[i]);
        CHECK(w == NULL && n == 0);
    }
}

static void test_limits(void)
{
    cuzk_synth_params sp = {15, 0, 1};
    cuzk_r1cs *cs;
    CHECK_ERR(cuzk_synth_build(&sp, 1, &cs), CUZK_EINVAL, "out of range");
    CHECK(cs == NULL);
    CHECK(cuzk_synth_min_constraints(0) == 16);
    CHECK(cuzk_synth_min_constraints(100) == 209);
    sp = (cuzk_synth_params){208, 100, 1};
    CHECK_ERR(cuzk_synth_build(&sp, 0, &cs), CUZK_EINVAL, "need 209");
    /* the smallest accepted sizes work */
    for (uint32_t np = 0; np < 4; np++)
        check_case((size_case){cuzk_synth_min_constraints(np), np}, 0);
    check_case((size_case){209, 100}, 0);
}

int main(void)
{
    const size_case cases[] = {
        {16, 0},   {17, 1},        {100, 5},     {1 << 10, 0},       {1 << 10, 1},   {1 << 10, 100},
        {3001, 7}, {1 << 12, 100}, {1 << 14, 0}, {(1 << 14) + 3, 1}, {1 << 16, 100},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(cases[i], cases[i].n >= 1024);
    test_determinism();
    test_limits();
    test_witness();
    cuzk_threads_shutdown();
    return check_done("test_circuits_synth");
}
