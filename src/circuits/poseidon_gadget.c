/* The Poseidon circuit (poseidon.h): neptune src/circuit.rs poseidon_hash,
 * the "legacy" circuit rust-fil-proofs uses.
 *
 * State elements are either allocated numbers or linear combinations
 * ("Num"); the MDS layers are free (LC arithmetic) and each S-box first
 * allocates a Num input with [lc * 1 = v], then v^2, v^4 and
 * [v * v^4 = v^5 - post key]. The tag's first S-box is a constant, the
 * inputs' first S-box adds the pre key inside the constraints (3 rows, no
 * re-allocation), partial rounds box element 0 only, the terminal round adds
 * no key, and the result is element 1 allocated once more.
 *
 * An LC is kept sorted by variable handle with duplicates merged, so the
 * partial rounds' growing combinations (each round adds one variable to
 * every element) stay at w + RP terms at most. Only record and check modes
 * build LCs; witness mode follows the same steps on values alone and does
 * not allocate memory. */
#include "poseidon_internal.h"

#include <stdlib.h>
#include <string.h>

#define WMAX (CUZK_POSEIDON_MAX_ARITY + 1)

typedef struct {
    cuzk_fr val;
    int allocated;
    cuzk_var var;
    cuzk_term *t; /* sorted by var; capacity ctx.cap (1 in witness mode) */
    size_t n;
    cuzk_term own; /* the single term of witness mode */
} elt;

typedef struct {
    cuzk_cs *cs;
    const cuzk_poseidon *p;
    int lc; /* build linear combinations */
    int overflow;
    size_t cap;
    elt a[WMAX], b[WMAX];
    elt *cur, *nxt;
    cuzk_term *tmp;
    cuzk_term *mem;
} ctx;

static inline void sbox_val(cuzk_fr *r, const cuzk_fr *x)
{
    cuzk_fr t;
    blst_fr_sqr(&t, x);
    blst_fr_sqr(&t, &t);
    blst_fr_mul(r, x, &t);
}

/* out = x + s * y over sorted term lists, zero sums dropped. */
static size_t merge(cuzk_term *out, const cuzk_term *x, size_t nx, const cuzk_term *y, size_t ny,
                    const cuzk_fr *s)
{
    size_t i = 0, j = 0, n = 0;
    while (i < nx || j < ny) {
        if (j == ny || (i < nx && x[i].var < y[j].var)) {
            out[n++] = x[i++];
            continue;
        }
        cuzk_fr sy;
        blst_fr_mul(&sy, &y[j].coeff, s);
        if (i < nx && x[i].var == y[j].var) {
            blst_fr_add(&sy, &sy, &x[i].coeff);
            i++;
        }
        j++;
        if (!cuzk_fr_is_zero(&sy)) {
            out[n].var = y[j - 1].var;
            out[n].coeff = sy;
            n++;
        }
    }
    return n;
}

/* e += s * f (value always, LC when wanted). An LC only ever holds ONE, the
 * w variables of the last full round and one variable per partial round so
 * far, so it fits in cap; the check guards that reasoning (tmp holds 2 cap). */
static void elt_axpy(ctx *c, elt *e, const elt *f, const cuzk_fr *s)
{
    cuzk_fr p;
    blst_fr_mul(&p, &f->val, s);
    blst_fr_add(&e->val, &e->val, &p);
    e->allocated = 0;
    if (c->lc) {
        size_t n = merge(c->tmp, e->t, e->n, f->t, f->n, s);
        if (n > c->cap) {
            c->overflow = 1;
            n = c->cap;
        }
        memcpy(e->t, c->tmp, n * sizeof *e->t);
        e->n = n;
    }
}

static void elt_zero(elt *e)
{
    cuzk_fr_zero(&e->val);
    e->allocated = 0;
    e->n = 0;
}

static void elt_set_var(elt *e, cuzk_var v, const cuzk_fr *val)
{
    e->val = *val;
    e->allocated = 1;
    e->var = v;
    e->t[0].var = v;
    e->t[0].coeff = *cuzk_cs_one();
    e->n = 1;
}

static void elt_set_const(elt *e, const cuzk_fr *val)
{
    e->val = *val;
    e->allocated = 0;
    e->t[0].var = CUZK_VAR_ONE;
    e->t[0].coeff = *val;
    e->n = cuzk_fr_is_zero(val) ? 0 : 1;
}

static void term(cuzk_term *t, size_t *n, cuzk_var v, const cuzk_fr *c)
{
    t[*n].var = v;
    t[*n].coeff = *c;
    (*n)++;
}

static cuzk_err enforce(ctx *c, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                        const cuzk_term *cc, size_t nc, const char *what)
{
    if (!c->lc)
        return cuzk_cs_skip(c->cs, 1);
    return cuzk_cs_enforce(c->cs, a, na, b, nb, cc, nc, what);
}

/* Elt::ensure_allocated with enforce = true. */
static cuzk_err ensure_allocated(ctx *c, elt *e)
{
    if (e->allocated)
        return CUZK_OK;
    cuzk_var v;
    CUZK_TRY(cuzk_cs_alloc(c->cs, &e->val, &v));
    if (c->lc) {
        cuzk_term one = {CUZK_VAR_ONE, *cuzk_cs_one()}, tv = {v, *cuzk_cs_one()};
        CUZK_TRY(cuzk_cs_enforce(c->cs, e->t, e->n, &one, 1, &tv, 1,
                                 "enforce num allocation preserves lc"));
    } else {
        CUZK_TRY(cuzk_cs_skip(c->cs, 1));
    }
    elt_set_var(e, v, &e->val);
    return CUZK_OK;
}

/* x^5 of element e with optional pre key (first round: square_sum, then the
 * pre key again inside mul_sum) and optional post key. */
static cuzk_err sbox(ctx *c, elt *e, const cuzk_fr *pre, const cuzk_fr *post)
{
    CUZK_TRY(ensure_allocated(c, e));
    cuzk_var l = e->var;
    cuzk_fr x = e->val, x2, x4, x5;
    if (pre)
        blst_fr_add(&x, &x, pre);
    blst_fr_sqr(&x2, &x);
    blst_fr_sqr(&x4, &x2);
    blst_fr_mul(&x5, &x4, &x);
    if (post)
        blst_fr_add(&x5, &x5, post);
    const cuzk_fr *one = cuzk_cs_one();
    cuzk_term ta[2], tb[2], tc[2];
    size_t na = 0, nb = 0, nc = 0;
    cuzk_var v2, v4, v5;

    CUZK_TRY(cuzk_cs_alloc(c->cs, &x2, &v2));
    term(ta, &na, l, one);
    if (pre)
        term(ta, &na, CUZK_VAR_ONE, pre);
    term(tc, &nc, v2, one);
    CUZK_TRY(enforce(c, ta, na, ta, na, tc, nc, pre ? "squared sum constraint" : "squaring"));

    CUZK_TRY(cuzk_cs_alloc(c->cs, &x4, &v4));
    na = nc = 0;
    term(ta, &na, v2, one);
    term(tc, &nc, v4, one);
    CUZK_TRY(enforce(c, ta, na, ta, na, tc, nc, "squaring constraint"));

    CUZK_TRY(cuzk_cs_alloc(c->cs, &x5, &v5));
    na = nb = nc = 0;
    term(ta, &na, l, one);
    if (pre)
        term(ta, &na, CUZK_VAR_ONE, pre);
    term(tb, &nb, v4, one);
    term(tc, &nc, v5, one);
    if (post) {
        cuzk_fr neg;
        cuzk_fr_neg(&neg, post);
        term(tc, &nc, CUZK_VAR_ONE, &neg);
    }
    CUZK_TRY(enforce(c, ta, na, tb, nb, tc, nc, "mul sum constraint"));
    elt_set_var(e, v5, &x5);
    return CUZK_OK;
}

static void swap(ctx *c)
{
    elt *t = c->cur;
    c->cur = c->nxt;
    c->nxt = t;
}

/* nxt[j] = sum_i m[i][j] cur[i] */
static void product_dense(ctx *c, const cuzk_fr *m)
{
    unsigned w = c->p->width;
    for (unsigned j = 0; j < w; j++) {
        elt_zero(&c->nxt[j]);
        for (unsigned i = 0; i < w; i++)
            elt_axpy(c, &c->nxt[j], &c->cur[i], &m[(size_t)i * w + j]);
    }
    swap(c);
}

static void product(ctx *c, unsigned round)
{
    const cuzk_poseidon *p = c->p;
    unsigned w = p->width, sparse_at = p->rf / 2 - 1;
    if (round == sparse_at) {
        product_dense(c, p->pre_sparse);
        return;
    }
    if (round < sparse_at || round >= p->rf / 2 + p->rp) {
        product_dense(c, p->m);
        return;
    }
    size_t k = round - sparse_at - 1;
    const cuzk_fr *w_hat = p->w_hat + k * w, *v_rest = p->v_rest + k * (w - 1);
    elt_zero(&c->nxt[0]);
    for (unsigned i = 0; i < w; i++)
        elt_axpy(c, &c->nxt[0], &c->cur[i], &w_hat[i]);
    for (unsigned j = 1; j < w; j++) {
        elt *e = &c->nxt[j];
        e->val = c->cur[j].val;
        e->allocated = 0;
        e->n = c->cur[j].n;
        if (c->lc)
            memcpy(e->t, c->cur[j].t, e->n * sizeof *e->t);
        elt_axpy(c, e, &c->cur[0], &v_rest[j - 1]);
    }
    swap(c);
}

static cuzk_err hash(ctx *c, const cuzk_num *in, cuzk_num *out)
{
    const cuzk_poseidon *p = c->p;
    unsigned w = p->width, half = p->rf / 2, round = 0;
    const cuzk_fr *k = p->crc;
    elt_set_const(&c->cur[0], &p->tag);
    for (unsigned i = 1; i < w; i++)
        elt_set_var(&c->cur[i], in[i - 1].var, &in[i - 1].val);
    /* first round: pre keys k[0..w), post keys k[w..2w) */
    for (unsigned i = 0; i < w; i++) {
        if (i == 0) {
            cuzk_fr t;
            blst_fr_add(&t, &c->cur[0].val, &k[0]);
            sbox_val(&t, &t);
            blst_fr_add(&t, &t, &k[w]);
            elt_set_const(&c->cur[0], &t);
        } else {
            CUZK_TRY(sbox(c, &c->cur[i], &k[i], &k[w + i]));
        }
    }
    k += 2 * w;
    product(c, round++);
    for (unsigned r = 1; r < half; r++) {
        for (unsigned i = 0; i < w; i++)
            CUZK_TRY(sbox(c, &c->cur[i], NULL, &k[i]));
        k += w;
        product(c, round++);
    }
    for (unsigned r = 0; r < p->rp; r++) {
        CUZK_TRY(sbox(c, &c->cur[0], NULL, k++));
        product(c, round++);
    }
    for (unsigned r = 1; r < half; r++) {
        for (unsigned i = 0; i < w; i++)
            CUZK_TRY(sbox(c, &c->cur[i], NULL, &k[i]));
        k += w;
        product(c, round++);
    }
    for (unsigned i = 0; i < w; i++)
        CUZK_TRY(sbox(c, &c->cur[i], NULL, NULL));
    product(c, round++);
    CUZK_TRY(ensure_allocated(c, &c->cur[1]));
    out->var = c->cur[1].var;
    out->val = c->cur[1].val;
    return CUZK_OK;
}

cuzk_err cuzk_poseidon_gadget(cuzk_cs *cs, const cuzk_poseidon *p, const cuzk_num *in, size_t n,
                              cuzk_num *out)
{
    if (n != p->n_inputs || n != p->arity)
        return cuzk_fail(CUZK_EINVAL,
                         "poseidon gadget: %zu inputs for arity %u (the circuit takes exactly "
                         "arity inputs)",
                         n, p->arity);
    static ctx zero_ctx;
    ctx c = zero_ctx;
    c.cs = cs;
    c.p = p;
    c.lc = cuzk_cs_wants_lc(cs);
    c.cur = c.a;
    c.nxt = c.b;
    if (c.lc) {
        c.cap = 2 * (size_t)p->width + p->rp + 4;
        c.mem = malloc((2 * p->width + 2) * c.cap * sizeof *c.mem);
        if (!c.mem)
            return cuzk_fail(CUZK_ENOMEM, "poseidon gadget: out of memory");
        for (unsigned i = 0; i < p->width; i++) {
            c.a[i].t = c.mem + (size_t)i * c.cap;
            c.b[i].t = c.mem + (size_t)(p->width + i) * c.cap;
        }
        c.tmp = c.mem + (size_t)2 * p->width * c.cap;
    } else {
        /* Values only: elements still record their single variable. */
        for (unsigned i = 0; i < p->width; i++) {
            c.a[i].t = &c.a[i].own;
            c.b[i].t = &c.b[i].own;
        }
    }
    cuzk_err e = hash(&c, in, out);
    if (!e && c.overflow)
        e = cuzk_fail(CUZK_EINTERNAL, "poseidon gadget: linear combination over %zu terms", c.cap);
    free(c.mem);
    return e;
}
