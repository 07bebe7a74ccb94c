/* Sparse matrix-vector products over a PCE: a = A.w, b = B.w, c = C.w for the
 * prover, and the transposed products for setup.
 *
 * The forward product walks rows, so each output element is written by one
 * thread and summed in a fixed order: the result is the same for any thread
 * count. Most coefficients of real circuits are 1, -1 or 2, so a per-call
 * table of coefficient kinds turns those products into additions.
 *
 * The transposed product needs columns. It builds the transpose of one
 * matrix at a time by a counting sort (atomic counters per column, then an
 * atomic cursor per column to scatter (row, coef id) pairs) and then sums
 * each column on one thread. The order of the pairs within a column depends
 * on scheduling, but field addition is exact and associative, and blst keeps
 * elements fully reduced, so the sums are bit-identical for any order. */
#include "cuzk/pce.h"
#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

/* How a coefficient multiplies: most are +-1 or 2 (XOR gates, doubling). */
enum { K_MUL, K_ONE, K_MINUS_ONE, K_TWO };

/* A malloc'd table of the kind of each coefficient id (caller frees). */
static cuzk_err coeff_kinds(const cuzk_pce *p, uint8_t **out)
{
    uint8_t *kind = malloc(p->n_coeffs ? p->n_coeffs : 1);
    if (!kind)
        return cuzk_fail(CUZK_ENOMEM, "pce spmv: out of memory");
    cuzk_fr one, minus_one, two;
    cuzk_fr_one(&one);
    cuzk_fr_neg(&minus_one, &one);
    cuzk_fr_from_u64(&two, 2);
    for (uint32_t i = 0; i < p->n_coeffs; i++) {
        const cuzk_fr *v = &p->coeffs[i];
        kind[i] = cuzk_fr_eq(v, &one)         ? K_ONE
                  : cuzk_fr_eq(v, &minus_one) ? K_MINUS_ONE
                  : cuzk_fr_eq(v, &two)       ? K_TWO
                                              : K_MUL;
    }
    *out = kind;
    return CUZK_OK;
}

/* acc += coeff * x, with the multiplication skipped where the kind allows. */
static inline void mul_add(cuzk_fr *acc, uint8_t kind, const cuzk_fr *coeff, const cuzk_fr *x)
{
    cuzk_fr t;
    switch (kind) {
    case K_ONE: blst_fr_add(acc, acc, x); break;
    case K_MINUS_ONE: blst_fr_sub(acc, acc, x); break;
    case K_TWO: {
        blst_fr_add(acc, acc, x);
        blst_fr_add(acc, acc, x);
        break;
    }
    default: {
        blst_fr_mul(&t, coeff, x);
        blst_fr_add(acc, acc, &t);
    }
    }
}

typedef struct {
    const cuzk_pce *p;
    const cuzk_fr *w;
    cuzk_fr *out[3];
    const uint8_t *kind; /* per coefficient id */
} spmv_ctx;

static void row_dot(cuzk_fr *out, const spmv_ctx *c, const cuzk_csr *m, uint64_t r)
{
    cuzk_fr acc;
    cuzk_fr_zero(&acc);
    for (uint64_t k = m->row_ptr[r], e = m->row_ptr[r + 1]; k < e; k++) {
        uint32_t id = m->coef[k];
        mul_add(&acc, c->kind[id], &c->p->coeffs[id], &c->w[m->col[k]]);
    }
    *out = acc;
}

static void spmv_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    const spmv_ctx *c = vctx;
    const cuzk_csr *m[3] = {&c->p->a, &c->p->b, &c->p->c};
    for (int k = 0; k < 3; k++)
        for (size_t r = lo; r < hi; r++)
            row_dot(&c->out[k][r], c, m[k], r);
}

cuzk_err cuzk_pce_spmv(const cuzk_pce *p, const cuzk_fr *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c)
{
    if (!w || !a || !b || !c)
        return cuzk_fail(CUZK_EINVAL, "pce spmv: NULL vector");
    spmv_ctx ctx = {p, w, {a, b, c}, NULL};
    uint8_t *kind;
    CUZK_TRY(coeff_kinds(p, &kind));
    ctx.kind = kind;
    cuzk_parallel_for((size_t)p->n_constraints, 2048, spmv_range, &ctx);
    free(kind);
    return CUZK_OK;
}

/* ---- transposed ---- */

typedef struct {
    uint32_t row, coef;
} entry;

typedef struct {
    const cuzk_pce *p;
    const cuzk_csr *m;
    const cuzk_fr *x;
    cuzk_fr *out;
    uint64_t *cursor; /* n_cols + 1 */
    entry *entries;
    const uint8_t *kind;
} spmvt_ctx;

static void count_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    spmvt_ctx *c = vctx;
    for (size_t k = lo; k < hi; k++)
        __atomic_fetch_add(&c->cursor[c->m->col[k] + 1], 1, __ATOMIC_RELAXED);
}

static void scatter_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    spmvt_ctx *c = vctx;
    const cuzk_csr *m = c->m;
    for (size_t r = lo; r < hi; r++)
        for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
            uint64_t at = __atomic_fetch_add(&c->cursor[m->col[k]], 1, __ATOMIC_RELAXED);
            c->entries[at] = (entry){(uint32_t)r, m->coef[k]};
        }
}

static void gather_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    spmvt_ctx *c = vctx;
    for (size_t j = lo; j < hi; j++) {
        /* after the scatter, cursor[j] is the end of column j */
        uint64_t b = j ? c->cursor[j - 1] : 0, e = c->cursor[j];
        cuzk_fr acc;
        cuzk_fr_zero(&acc);
        for (uint64_t k = b; k < e; k++) {
            const entry *en = &c->entries[k];
            mul_add(&acc, c->kind[en->coef], &c->p->coeffs[en->coef], &c->x[en->row]);
        }
        c->out[j] = acc;
    }
}

cuzk_err cuzk_pce_spmv_t(const cuzk_pce *p, const cuzk_fr *x, cuzk_fr *u, cuzk_fr *v, cuzk_fr *t)
{
    if (!x || !u || !v || !t)
        return cuzk_fail(CUZK_EINVAL, "pce spmv_t: NULL vector");
    if (p->n_constraints > UINT32_MAX)
        return cuzk_fail(CUZK_EUNSUPPORTED, "pce spmv_t: %llu constraints exceed 2^32",
                         (unsigned long long)p->n_constraints);
    uint64_t n_cols = (uint64_t)p->n_inputs + p->n_aux, most = p->a.nnz;
    if (p->b.nnz > most)
        most = p->b.nnz;
    if (p->c.nnz > most)
        most = p->c.nnz;
    uint8_t *kind;
    CUZK_TRY(coeff_kinds(p, &kind));
    uint64_t *cursor = malloc((size_t)(n_cols + 1) * sizeof *cursor);
    entry *entries = malloc((size_t)(most ? most : 1) * sizeof *entries);
    if (!cursor || !entries) {
        free(kind);
        free(cursor);
        free(entries);
        return cuzk_fail(CUZK_ENOMEM, "pce spmv_t: out of memory for a %llu-entry transpose",
                         (unsigned long long)most);
    }
    const cuzk_csr *m[3] = {&p->a, &p->b, &p->c};
    cuzk_fr *out[3] = {u, v, t};
    spmvt_ctx c = {p, NULL, x, NULL, cursor, entries, kind};
    for (int k = 0; k < 3; k++) {
        c.m = m[k];
        c.out = out[k];
        memset(cursor, 0, (size_t)(n_cols + 1) * sizeof *cursor);
        cuzk_parallel_for((size_t)m[k]->nnz, 65536, count_range, &c);
        for (uint64_t j = 1; j <= n_cols; j++) /* cursor[j] = start of column j */
            cursor[j] += cursor[j - 1];
        cuzk_parallel_for((size_t)p->n_constraints, 4096, scatter_range, &c);
        cuzk_parallel_for((size_t)n_cols, 4096, gather_range, &c);
    }
    free(kind);
    free(cursor);
    free(entries);
    return CUZK_OK;
}
