/* The in-memory R1CS builder (r1cs.h): variables, canonical rows, the
 * coefficient table, finalize and the satisfaction check.
 *
 * Appending a row costs a few array writes per term: a linear combination
 * whose handles are already strictly increasing (what circuits produce almost
 * always) goes straight in; otherwise it is copied to scratch, sorted, and
 * duplicate variables are merged. Each surviving coefficient is looked up in
 * an open-addressing hash table keyed by its Montgomery limbs (canonical, so
 * equal values have equal limbs). Arrays grow by doubling with realloc, which
 * for large blocks remaps pages instead of copying them. */
#include "r1cs_internal.h"

#include "cuzk/threads.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDEX 0x7fffffffu   /* inputs and aux each index below 2^31 */
#define MAX_COLUMNS 0xffffffffu /* PCE columns are u32 */
#define INITIAL_ROWS 1024u
#define INITIAL_TERMS 4096u
#define INITIAL_GAP 64u
static const char *const MATRIX_NAME[3] = {"A", "B", "C"};

/* Grow *p (elements of `elem` bytes, capacity *cap) to hold at least `need`. */
static cuzk_err grow(void **p, uint64_t *cap, uint64_t need, size_t elem, const char *what)
{
    if (need <= *cap)
        return CUZK_OK;
    uint64_t n = *cap ? *cap : 16;
    while (n < need)
        n = n > UINT64_MAX / 2 ? need : n * 2;
    if (n > SIZE_MAX / elem)
        return cuzk_fail(CUZK_ENOMEM, "r1cs: %s of %llu elements is too large", what,
                         (unsigned long long)n);
    void *q = realloc(*p, (size_t)n * elem);
    if (!q)
        return cuzk_fail(CUZK_ENOMEM, "r1cs: out of memory growing %s to %llu elements", what,
                         (unsigned long long)n);
    *p = q;
    *cap = n;
    return CUZK_OK;
}

/* ---- coefficient table ---- */

static uint64_t coeff_hash(const cuzk_fr *v)
{
    uint64_t h = v->l[0] * 0x9E3779B97F4A7C15ULL;
    h ^= v->l[1] + 0xC2B2AE3D27D4EB4FULL + (h << 6) + (h >> 2);
    h ^= v->l[2] * 0x165667B19E3779F9ULL + (h << 6) + (h >> 2);
    h ^= v->l[3] + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 29);
}

static cuzk_err coeff_rehash(cuzk_r1cs *cs, uint64_t n_slots)
{
    uint32_t *s = calloc((size_t)n_slots, sizeof *s);
    if (!s)
        return cuzk_fail(CUZK_ENOMEM, "r1cs: out of memory growing the coefficient table");
    uint64_t mask = n_slots - 1;
    for (uint32_t id = 0; id < cs->n_coeffs; id++) {
        uint64_t i = coeff_hash(&cs->coeffs[id]) & mask;
        while (s[i])
            i = (i + 1) & mask;
        s[i] = id + 1;
    }
    free(cs->slots);
    cs->slots = s;
    cs->slots_mask = mask;
    return CUZK_OK;
}

/* The id of a non-zero value, inserting it when new. */
static cuzk_err coeff_id(cuzk_r1cs *cs, const cuzk_fr *v, uint32_t *id)
{
    uint64_t i = coeff_hash(v) & cs->slots_mask;
    for (;; i = (i + 1) & cs->slots_mask) {
        uint32_t s = cs->slots[i];
        if (!s)
            break;
        if (memcmp(&cs->coeffs[s - 1], v, sizeof *v) == 0) {
            *id = s - 1;
            return CUZK_OK;
        }
    }
    if (cs->n_coeffs >= MAX_COLUMNS - 1)
        return cuzk_fail(CUZK_EINVAL, "r1cs: more than 2^32 - 2 distinct coefficients");
    uint64_t cap = cs->coeffs_cap;
    CUZK_TRY(grow((void **)&cs->coeffs, &cap, (uint64_t)cs->n_coeffs + 1, sizeof(cuzk_fr),
                  "the coefficient table"));
    cs->coeffs_cap = cap > MAX_COLUMNS ? MAX_COLUMNS : (uint32_t)cap;
    *id = cs->n_coeffs;
    cs->coeffs[cs->n_coeffs++] = *v;
    if ((uint64_t)cs->n_coeffs * 2 > cs->slots_mask + 1)
        return coeff_rehash(cs, (cs->slots_mask + 1) * 2);
    cs->slots[i] = *id + 1;
    return CUZK_OK;
}

/* ---- construction ---- */

static cuzk_err matrix_init(r1cs_matrix *m, uint64_t rows_cap)
{
    m->row_ptr = malloc((size_t)(rows_cap + 1) * sizeof *m->row_ptr);
    m->var = malloc(INITIAL_TERMS * sizeof *m->var);
    m->coef = malloc(INITIAL_TERMS * sizeof *m->coef);
    if (!m->row_ptr || !m->var || !m->coef)
        return cuzk_fail(CUZK_ENOMEM, "r1cs: out of memory");
    m->row_ptr[0] = 0;
    m->cap = INITIAL_TERMS;
    return CUZK_OK;
}

cuzk_err cuzk_r1cs_new(cuzk_r1cs **out, int with_values)
{
    *out = NULL;
    cuzk_r1cs *cs = calloc(1, sizeof *cs);
    if (!cs)
        return cuzk_fail(CUZK_ENOMEM, "r1cs: out of memory");
    cs->with_values = with_values != 0;
    cs->rows_cap = INITIAL_ROWS;
    cuzk_err e = CUZK_OK;
    for (int k = 0; k < 3 && !e; k++)
        e = matrix_init(&cs->m[k], cs->rows_cap);
    if (!e)
        e = coeff_rehash(cs, 64);
    if (!e && cs->with_values) {
        cs->vals_cap = INITIAL_GAP + INITIAL_ROWS;
        cs->gap = INITIAL_GAP;
        cs->vals = malloc((size_t)cs->vals_cap * sizeof *cs->vals);
        if (!cs->vals)
            e = cuzk_fail(CUZK_ENOMEM, "r1cs: out of memory");
        else
            cuzk_fr_one(&cs->vals[cs->gap]);
    }
    if (e) {
        cuzk_r1cs_free(cs);
        return e;
    }
    cs->n_inputs = 1; /* ONE */
    *out = cs;
    return CUZK_OK;
}

void cuzk_r1cs_free(cuzk_r1cs *cs)
{
    if (!cs)
        return;
    for (int k = 0; k < 3; k++) {
        free(cs->m[k].row_ptr);
        free(cs->m[k].var);
        free(cs->m[k].coef);
    }
    free(cs->coeffs);
    free(cs->slots);
    free(cs->vals);
    free(cs->scratch);
    free(cs);
}

static cuzk_err alloc_check(const cuzk_r1cs *cs, const cuzk_fr *value, const char *what)
{
    if (cs->finalized)
        return cuzk_fail(CUZK_EINVAL, "r1cs: cannot allocate %s after finalize", what);
    if (cs->with_values && !value)
        return cuzk_fail(CUZK_EINVAL,
                         "r1cs: %s allocated without a value in a system that "
                         "records values",
                         what);
    if ((uint64_t)cs->n_inputs + cs->n_aux + 1 >= MAX_COLUMNS)
        return cuzk_fail(CUZK_EINVAL, "r1cs: more than 2^32 - 2 variables");
    return CUZK_OK;
}

cuzk_err cuzk_r1cs_alloc_aux(cuzk_r1cs *cs, const cuzk_fr *value, cuzk_var *out)
{
    CUZK_TRY(alloc_check(cs, value, "an aux variable"));
    if (cs->n_aux >= MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "r1cs: more than 2^31 - 1 aux variables");
    if (cs->with_values) {
        uint64_t at = cs->gap + cs->n_inputs + cs->n_aux;
        CUZK_TRY(grow((void **)&cs->vals, &cs->vals_cap, at + 1, sizeof(cuzk_fr), "values"));
        cs->vals[at] = *value;
    }
    *out = CUZK_VAR_AUX_BIT | (uint32_t)cs->n_aux++;
    return CUZK_OK;
}

cuzk_err cuzk_r1cs_alloc_input(cuzk_r1cs *cs, const cuzk_fr *value, cuzk_var *out)
{
    CUZK_TRY(alloc_check(cs, value, "an input"));
    if (cs->n_inputs >= MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "r1cs: more than 2^31 - 1 inputs");
    if (cs->with_values) {
        uint64_t used = cs->gap + cs->n_inputs + cs->n_aux;
        if (cs->n_aux == 0) { /* inputs first: a plain append */
            CUZK_TRY(grow((void **)&cs->vals, &cs->vals_cap, used + 1, sizeof(cuzk_fr), "values"));
        } else {
            if (cs->gap == 0) { /* reopen a gap in front; rare (the gap doubles) */
                uint64_t add = cs->n_inputs > INITIAL_GAP ? cs->n_inputs : INITIAL_GAP;
                CUZK_TRY(
                    grow((void **)&cs->vals, &cs->vals_cap, used + add, sizeof(cuzk_fr), "values"));
                memmove(cs->vals + add, cs->vals, (size_t)used * sizeof(cuzk_fr));
                cs->gap = add;
            }
            /* Slide the inputs one slot left so the new one ends them. */
            memmove(cs->vals + cs->gap - 1, cs->vals + cs->gap,
                    (size_t)cs->n_inputs * sizeof(cuzk_fr));
            cs->gap--;
        }
        cs->vals[cs->gap + cs->n_inputs] = *value;
    }
    *out = cs->n_inputs++;
    return CUZK_OK;
}

/* ---- constraints ---- */

static cuzk_err check_terms(const cuzk_r1cs *cs, const cuzk_term *t, size_t n, int k)
{
    if (n && !t)
        return cuzk_fail(CUZK_EINVAL, "r1cs: enforce: NULL terms for %s with %zu terms",
                         MATRIX_NAME[k], n);
    for (size_t i = 0; i < n; i++) {
        cuzk_var v = t[i].var;
        if (v & CUZK_VAR_AUX_BIT) {
            uint32_t idx = v & ~CUZK_VAR_AUX_BIT;
            if (idx >= cs->n_aux)
                return cuzk_fail(CUZK_EINVAL,
                                 "r1cs: enforce: unknown variable aux %u in term %zu of %s "
                                 "(%llu aux allocated)",
                                 idx, i, MATRIX_NAME[k], (unsigned long long)cs->n_aux);
        } else if (v >= cs->n_inputs) {
            return cuzk_fail(CUZK_EINVAL,
                             "r1cs: enforce: unknown variable input %u in term %zu of %s "
                             "(%u inputs allocated)",
                             v, i, MATRIX_NAME[k], cs->n_inputs);
        }
    }
    return CUZK_OK;
}

static int term_cmp(const void *x, const void *y)
{
    cuzk_var a = ((const cuzk_term *)x)->var, b = ((const cuzk_term *)y)->var;
    return (a > b) - (a < b);
}

static void sort_terms(cuzk_term *t, size_t n)
{
    if (n > 32) {
        qsort(t, n, sizeof *t, term_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        cuzk_term x = t[i];
        size_t j = i;
        for (; j > 0 && t[j - 1].var > x.var; j--)
            t[j] = t[j - 1];
        t[j] = x;
    }
}

static cuzk_err push_term(cuzk_r1cs *cs, r1cs_matrix *m, cuzk_var v, const cuzk_fr *c)
{
    uint32_t id;
    CUZK_TRY(coeff_id(cs, c, &id));
    m->var[m->nnz] = v;
    m->coef[m->nnz] = id;
    m->nnz++;
    return CUZK_OK;
}

/* Append one linear combination in canonical form; capacity for n terms is
 * already reserved. */
static cuzk_err append_lc(cuzk_r1cs *cs, r1cs_matrix *m, const cuzk_term *t, size_t n)
{
    size_t i = 1;
    while (i < n && t[i].var > t[i - 1].var)
        i++;
    if (i >= n) { /* already canonical up to zeros */
        for (i = 0; i < n; i++)
            if (!cuzk_fr_is_zero(&t[i].coeff))
                CUZK_TRY(push_term(cs, m, t[i].var, &t[i].coeff));
        return CUZK_OK;
    }
    if (n > cs->scratch_cap) {
        uint64_t cap = cs->scratch_cap;
        CUZK_TRY(grow((void **)&cs->scratch, &cap, n, sizeof(cuzk_term), "scratch"));
        cs->scratch_cap = (size_t)cap;
    }
    cuzk_term *s = cs->scratch;
    memcpy(s, t, n * sizeof *s);
    sort_terms(s, n);
    for (i = 0; i < n;) {
        cuzk_fr sum = s[i].coeff;
        size_t j = i + 1;
        for (; j < n && s[j].var == s[i].var; j++)
            blst_fr_add(&sum, &sum, &s[j].coeff);
        if (!cuzk_fr_is_zero(&sum))
            CUZK_TRY(push_term(cs, m, s[i].var, &sum));
        i = j;
    }
    return CUZK_OK;
}

static cuzk_err reserve_row(cuzk_r1cs *cs, const size_t n[3])
{
    if (cs->n_constraints + 1 > cs->rows_cap) {
        uint64_t cap = cs->rows_cap;
        for (int k = 0; k < 3; k++) {
            /* row_ptr holds rows + 1 entries */
            uint64_t c = cs->rows_cap + 1;
            CUZK_TRY(grow((void **)&cs->m[k].row_ptr, &c, cs->n_constraints + 2, sizeof(uint64_t),
                          "row pointers"));
            cap = c - 1;
        }
        cs->rows_cap = cap;
    }
    for (int k = 0; k < 3; k++) {
        r1cs_matrix *m = &cs->m[k];
        uint64_t vc = m->cap, cc = m->cap;
        CUZK_TRY(grow((void **)&m->var, &vc, m->nnz + n[k], sizeof(uint32_t), "terms"));
        CUZK_TRY(grow((void **)&m->coef, &cc, m->nnz + n[k], sizeof(uint32_t), "terms"));
        m->cap = vc < cc ? vc : cc;
    }
    return CUZK_OK;
}

static cuzk_err append_row(cuzk_r1cs *cs, const cuzk_term *const t[3], const size_t n[3])
{
    CUZK_TRY(reserve_row(cs, n));
    uint64_t saved[3];
    for (int k = 0; k < 3; k++)
        saved[k] = cs->m[k].nnz;
    for (int k = 0; k < 3; k++) {
        cuzk_err e = append_lc(cs, &cs->m[k], t[k], n[k]);
        if (e) { /* leave no partial row behind */
            for (int j = 0; j < 3; j++)
                cs->m[j].nnz = saved[j];
            return e;
        }
    }
    cs->n_constraints++;
    for (int k = 0; k < 3; k++)
        cs->m[k].row_ptr[cs->n_constraints] = cs->m[k].nnz;
    return CUZK_OK;
}

cuzk_err cuzk_r1cs_enforce(cuzk_r1cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b,
                           size_t nb, const cuzk_term *c, size_t nc)
{
    if (cs->finalized)
        return cuzk_fail(CUZK_EINVAL, "r1cs: cannot enforce a constraint after finalize");
    const cuzk_term *t[3] = {a, b, c};
    const size_t n[3] = {na, nb, nc};
    for (int k = 0; k < 3; k++)
        CUZK_TRY(check_terms(cs, t[k], n[k], k));
    return append_row(cs, t, n);
}

cuzk_err cuzk_r1cs_finalize(cuzk_r1cs *cs)
{
    if (cs->finalized)
        return cuzk_fail(CUZK_EINVAL, "r1cs: already finalized");
    cuzk_term x;
    cuzk_fr_one(&x.coeff);
    const size_t n[3] = {1, 0, 0};
    for (uint32_t i = 0; i < cs->n_inputs; i++) {
        x.var = i;
        const cuzk_term *t[3] = {&x, NULL, NULL};
        CUZK_TRY(append_row(cs, t, n));
    }
    cs->finalized = 1;
    return CUZK_OK;
}

int cuzk_r1cs_is_finalized(const cuzk_r1cs *cs)
{
    return cs->finalized;
}
uint32_t cuzk_r1cs_num_inputs(const cuzk_r1cs *cs)
{
    return cs->n_inputs;
}
uint64_t cuzk_r1cs_num_aux(const cuzk_r1cs *cs)
{
    return cs->n_aux;
}
uint64_t cuzk_r1cs_num_constraints(const cuzk_r1cs *cs)
{
    return cs->n_constraints;
}
uint32_t cuzk_r1cs_num_coeffs(const cuzk_r1cs *cs)
{
    return cs->n_coeffs;
}

const cuzk_fr *cuzk_r1cs_assignment(const cuzk_r1cs *cs)
{
    return cs->with_values ? cs->vals + cs->gap : NULL;
}

/* ---- satisfaction check ---- */

typedef struct {
    const cuzk_r1cs *cs;
    const cuzk_fr *w;
    _Atomic uint64_t first_bad;
} check_ctx;

static void eval_lc(cuzk_fr *acc, const cuzk_r1cs *cs, const r1cs_matrix *m, uint64_t row,
                    const cuzk_fr *w)
{
    cuzk_fr_zero(acc);
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        cuzk_fr t;
        blst_fr_mul(&t, &cs->coeffs[m->coef[k]], &w[r1cs_var_column(m->var[k], cs->n_inputs)]);
        blst_fr_add(acc, acc, &t);
    }
}

static void check_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    check_ctx *c = vctx;
    for (size_t r = lo; r < hi; r++) {
        cuzk_fr a, b, cc;
        eval_lc(&a, c->cs, &c->cs->m[0], r, c->w);
        eval_lc(&b, c->cs, &c->cs->m[1], r, c->w);
        eval_lc(&cc, c->cs, &c->cs->m[2], r, c->w);
        blst_fr_mul(&a, &a, &b);
        if (!cuzk_fr_eq(&a, &cc)) {
            uint64_t cur = atomic_load(&c->first_bad);
            while (r < cur && !atomic_compare_exchange_weak(&c->first_bad, &cur, r))
                ;
            return; /* later rows of this chunk cannot be first */
        }
    }
}

cuzk_err cuzk_r1cs_check(const cuzk_r1cs *cs, const cuzk_fr *w, uint64_t *bad_row)
{
    if (!w)
        return cuzk_fail(CUZK_EINVAL, "r1cs check: no assignment");
    check_ctx c = {cs, w, UINT64_MAX};
    cuzk_parallel_for((size_t)cs->n_constraints, 1024, check_range, &c);
    uint64_t bad = atomic_load(&c.first_bad);
    if (bad == UINT64_MAX)
        return CUZK_OK;
    if (bad_row)
        *bad_row = bad;
    return cuzk_fail(CUZK_EINVAL,
                     "r1cs check: constraint row %llu of %llu is not satisfied "
                     "(A.w * B.w != C.w)",
                     (unsigned long long)bad, (unsigned long long)cs->n_constraints);
}
