/* Synthetic circuits: exact sizes for several input counts, satisfiable,
 * deterministic in the seed (and structurally identical without values),
 * and with the statistics they promise: >= 70% of aux values are bits, B's
 * non-empty columns fewer than half of A's, every aux column used, and every
 * public input constrained beyond its input constraint. */
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
    cuzk_threads_shutdown();
    return check_done("test_circuits_synth");
}
