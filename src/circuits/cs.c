/* The constraint system of cs.h: one value store shared by the three modes,
 * plus a builder (record) or an evaluator (check) behind enforce.
 *
 * Values live in two growable arrays, inputs (with ONE at 0) and aux, indexed
 * like the handles, so a handle's value is one load. Witness mode touches
 * nothing else: alloc is an array store, enforce a counter increment, and
 * after cuzk_cs_reset() the arrays keep their capacity, so resynthesizing
 * the same shape allocates nothing. Record mode forwards every call to a
 * cuzk_r1cs built without values (the values here are the single copy).
 * Check mode evaluates <A,w>, <B,w>, <C,w> from the same arrays at enforce
 * time, which is possible because bellperson's circuits only reference
 * variables that already have values. */
#include "cuzk/cs.h"
#include "cuzk/pce.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INDEX 0x7fffffffu

struct cuzk_cs {
    cuzk_cs_mode mode;
    int closed; /* finished or builder taken: one flag for the hot paths */
    int finished;
    cuzk_fr *in, *aux;
    uint64_t n_in, n_aux, cap_in, cap_aux;
    /* Witness mode: aux from win_from on live in the caller's win (at most
     * win_cap of them); before it, in aux. */
    cuzk_fr *win;
    uint64_t win_from, win_cap, win_cap_owned;
    /* Witness mode: the first aux_off aux are the caller's base_aux (a
     * shared prefix); aux holds those from aux_off on. */
    const cuzk_fr *base_aux;
    uint64_t aux_off;
    uint64_t n_constraints;
    cuzk_r1cs *r1cs; /* record mode, until taken */
    int taken;
};

/* ---- constants ---- */

static cuzk_fr g_pow2[256], g_one, g_minus_one;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static atomic_int g_ready; /* fast path: gadgets ask for these constantly */

static void consts_init(void)
{
    cuzk_fr_one(&g_one);
    cuzk_fr_neg(&g_minus_one, &g_one);
    g_pow2[0] = g_one;
    for (int i = 1; i < 256; i++)
        blst_fr_add(&g_pow2[i], &g_pow2[i - 1], &g_pow2[i - 1]);
    atomic_store_explicit(&g_ready, 1, memory_order_release);
}

static inline void consts(void)
{
    if (!atomic_load_explicit(&g_ready, memory_order_acquire))
        pthread_once(&g_once, consts_init);
}

const cuzk_fr *cuzk_cs_pow2(unsigned i)
{
    consts();
    return &g_pow2[i & 255];
}

const cuzk_fr *cuzk_cs_one(void)
{
    consts();
    return &g_one;
}

const cuzk_fr *cuzk_cs_minus_one(void)
{
    consts();
    return &g_minus_one;
}

/* ---- linear combinations ---- */

void cuzk_lc_clear(cuzk_lc *lc)
{
    lc->n = 0;
}

void cuzk_lc_free(cuzk_lc *lc)
{
    free(lc->t);
    memset(lc, 0, sizeof *lc);
}

static cuzk_err lc_reserve(cuzk_lc *lc, size_t need)
{
    if (need <= lc->cap)
        return CUZK_OK;
    size_t n = lc->cap ? lc->cap : 16;
    while (n < need)
        n *= 2;
    cuzk_term *t = realloc(lc->t, n * sizeof *t);
    if (!t)
        return cuzk_fail(CUZK_ENOMEM, "cs: out of memory growing a linear combination to %zu terms",
                         n);
    lc->t = t;
    lc->cap = n;
    return CUZK_OK;
}

cuzk_err cuzk_lc_add(cuzk_lc *lc, cuzk_var var, const cuzk_fr *coeff)
{
    CUZK_TRY(lc_reserve(lc, lc->n + 1));
    lc->t[lc->n].var = var;
    lc->t[lc->n].coeff = *coeff;
    lc->n++;
    return CUZK_OK;
}

cuzk_err cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *other, const cuzk_fr *coeff)
{
    CUZK_TRY(lc_reserve(lc, lc->n + other->n));
    for (size_t i = 0; i < other->n; i++) {
        lc->t[lc->n].var = other->t[i].var;
        if (coeff)
            blst_fr_mul(&lc->t[lc->n].coeff, &other->t[i].coeff, coeff);
        else
            lc->t[lc->n].coeff = other->t[i].coeff;
        lc->n++;
    }
    return CUZK_OK;
}

/* ---- the system ---- */

static cuzk_err grow_vals(cuzk_fr **p, uint64_t *cap, uint64_t need)
{
    if (need <= *cap)
        return CUZK_OK;
    uint64_t n = *cap ? *cap : 256;
    while (n < need)
        n *= 2;
    if (n > MAX_INDEX) /* keeps the alloc fast path's bound check implicit */
        n = MAX_INDEX;
    cuzk_fr *q = realloc(*p, (size_t)n * sizeof *q);
    if (!q)
        return cuzk_fail(CUZK_ENOMEM, "cs: out of memory growing the values to %llu",
                         (unsigned long long)n);
    *p = q;
    *cap = n;
    return CUZK_OK;
}

cuzk_err cuzk_cs_new(cuzk_cs **out, cuzk_cs_mode mode)
{
    *out = NULL;
    if (mode != CUZK_CS_RECORD && mode != CUZK_CS_WITNESS && mode != CUZK_CS_CHECK)
        return cuzk_fail(CUZK_EINVAL, "cs: unknown mode %d", (int)mode);
    cuzk_cs *cs = calloc(1, sizeof *cs);
    if (!cs)
        return cuzk_fail(CUZK_ENOMEM, "cs: out of memory");
    cs->mode = mode;
    cuzk_err e = grow_vals(&cs->in, &cs->cap_in, 1);
    if (!e && mode == CUZK_CS_RECORD)
        e = cuzk_r1cs_new(&cs->r1cs, 0);
    if (e) {
        cuzk_cs_free(cs);
        return e;
    }
    cuzk_fr_one(&cs->in[0]);
    cs->n_in = 1;
    *out = cs;
    return CUZK_OK;
}

void cuzk_cs_free(cuzk_cs *cs)
{
    if (!cs)
        return;
    free(cs->in);
    free(cs->aux);
    cuzk_r1cs_free(cs->r1cs);
    free(cs);
}

cuzk_cs_mode cuzk_cs_get_mode(const cuzk_cs *cs)
{
    return cs->mode;
}

cuzk_err cuzk_cs_reset(cuzk_cs *cs)
{
    if (cs->mode == CUZK_CS_RECORD)
        return cuzk_fail(CUZK_EINVAL, "cs: reset is for witness and check modes only");
    cs->n_in = 1;
    cs->n_aux = 0;
    cs->n_constraints = 0;
    if (cs->win) { /* back to the owned array, its real capacity */
        cs->win = NULL;
        cs->cap_aux = cs->win_cap_owned;
    }
    cs->base_aux = NULL;
    cs->aux_off = 0;
    cs->finished = cs->closed = 0;
    return CUZK_OK;
}

int cuzk_cs_wants_lc(const cuzk_cs *cs)
{
    return cs->mode != CUZK_CS_WITNESS;
}

static cuzk_err check_open(const cuzk_cs *cs, const char *what)
{
    if (cs->finished)
        return cuzk_fail(CUZK_EINVAL, "cs: %s after finish", what);
    if (cs->taken)
        return cuzk_fail(CUZK_EINVAL, "cs: %s after the builder was taken", what);
    return CUZK_OK;
}

cuzk_err cuzk_cs_set_base(cuzk_cs *cs, const cuzk_fr *in, uint32_t n_in, const cuzk_fr *aux,
                          uint64_t n_aux)
{
    CUZK_TRY(check_open(cs, "set_base"));
    if (cs->mode != CUZK_CS_WITNESS)
        return cuzk_fail(CUZK_EINVAL, "cs: a base is for witness mode only");
    if (cs->n_in != 1 || cs->n_aux != 0 || cs->win)
        return cuzk_fail(CUZK_EINVAL, "cs: a base goes on an empty system");
    if (n_in < 1 || n_aux > MAX_INDEX || n_in > MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "cs: a base of %u inputs and %llu aux", n_in,
                         (unsigned long long)n_aux);
    CUZK_TRY(grow_vals(&cs->in, &cs->cap_in, n_in));
    memcpy(cs->in, in, (size_t)n_in * sizeof *in);
    cs->n_in = n_in;
    cs->base_aux = aux;
    cs->n_aux = cs->aux_off = n_aux;
    return CUZK_OK;
}

cuzk_err cuzk_cs_set_aux_window(cuzk_cs *cs, cuzk_fr *buf, uint64_t cap)
{
    CUZK_TRY(check_open(cs, "set_aux_window"));
    if (cs->mode != CUZK_CS_WITNESS)
        return cuzk_fail(CUZK_EINVAL, "cs: an aux window is for witness mode only");
    if (cs->win)
        return cuzk_fail(CUZK_EINVAL, "cs: the aux window is set already");
    cs->win = buf;
    cs->win_from = cs->n_aux;
    cs->win_cap = cap;
    cs->win_cap_owned = cs->cap_aux;
    cs->cap_aux = cs->n_aux - cs->aux_off; /* the fast path below stops at the window */
    return CUZK_OK;
}

cuzk_err cuzk_cs_alloc(cuzk_cs *cs, const cuzk_fr *value, cuzk_var *out)
{
    /* Witness-mode fast path: one store, in the array or the window. */
    if (!cs->r1cs && !cs->closed && value) {
        if (cs->n_aux - cs->aux_off < cs->cap_aux) {
            cs->aux[cs->n_aux - cs->aux_off] = *value;
            *out = CUZK_VAR_AUX_BIT | (cuzk_var)cs->n_aux++;
            return CUZK_OK;
        }
        if (cs->win && cs->n_aux - cs->win_from < cs->win_cap) {
            cs->win[cs->n_aux - cs->win_from] = *value;
            *out = CUZK_VAR_AUX_BIT | (cuzk_var)cs->n_aux++;
            return CUZK_OK;
        }
    }
    CUZK_TRY(check_open(cs, "alloc"));
    if (!value)
        return cuzk_fail(CUZK_EINVAL, "cs: alloc without a value");
    if (cs->n_aux >= MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "cs: too many aux variables (%llu)",
                         (unsigned long long)cs->n_aux);
    if (cs->win) {
        if (cs->n_aux - cs->win_from >= cs->win_cap)
            return cuzk_fail(CUZK_EINVAL, "cs: aux %llu is past the aux window (%llu from %llu)",
                             (unsigned long long)cs->n_aux, (unsigned long long)cs->win_cap,
                             (unsigned long long)cs->win_from);
        cs->win[cs->n_aux - cs->win_from] = *value;
        *out = CUZK_VAR_AUX_BIT | (cuzk_var)cs->n_aux++;
        return CUZK_OK;
    }
    if (cs->n_aux - cs->aux_off == cs->cap_aux)
        CUZK_TRY(grow_vals(&cs->aux, &cs->cap_aux, cs->n_aux - cs->aux_off + 1));
    if (cs->r1cs) {
        cuzk_var v;
        CUZK_TRY(cuzk_r1cs_alloc_aux(cs->r1cs, NULL, &v));
    }
    cs->aux[cs->n_aux - cs->aux_off] = *value;
    *out = CUZK_VAR_AUX_BIT | (cuzk_var)cs->n_aux;
    cs->n_aux++;
    return CUZK_OK;
}

cuzk_err cuzk_cs_alloc_input(cuzk_cs *cs, const cuzk_fr *value, cuzk_var *out)
{
    CUZK_TRY(check_open(cs, "alloc_input"));
    if (!value)
        return cuzk_fail(CUZK_EINVAL, "cs: alloc_input without a value");
    if (cs->n_in >= MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "cs: too many inputs (%llu)", (unsigned long long)cs->n_in);
    CUZK_TRY(grow_vals(&cs->in, &cs->cap_in, cs->n_in + 1));
    if (cs->r1cs) {
        cuzk_var v;
        CUZK_TRY(cuzk_r1cs_alloc_input(cs->r1cs, NULL, &v));
    }
    cs->in[cs->n_in] = *value;
    *out = (cuzk_var)cs->n_in;
    cs->n_in++;
    return CUZK_OK;
}

const cuzk_fr *cuzk_cs_value(const cuzk_cs *cs, cuzk_var v)
{
    if (v & CUZK_VAR_AUX_BIT) {
        uint64_t i = v & ~CUZK_VAR_AUX_BIT;
        if (i >= cs->n_aux)
            return NULL;
        if (i < cs->aux_off)
            return &cs->base_aux[i];
        return cs->win && i >= cs->win_from ? &cs->win[i - cs->win_from]
                                            : &cs->aux[i - cs->aux_off];
    }
    return v < cs->n_in ? &cs->in[v] : NULL;
}

/* <t, w> for check mode; EINVAL naming the first unallocated variable. */
static cuzk_err eval_terms(const cuzk_cs *cs, const cuzk_term *t, size_t n, cuzk_fr *acc,
                           const char *side)
{
    cuzk_fr_zero(acc);
    for (size_t i = 0; i < n; i++) {
        const cuzk_fr *x = cuzk_cs_value(cs, t[i].var);
        if (!x)
            return cuzk_fail(
                CUZK_EINVAL, "cs: constraint %llu: %s term %zu uses variable %s%u, not allocated",
                (unsigned long long)cs->n_constraints, side, i,
                (t[i].var & CUZK_VAR_AUX_BIT) ? "aux " : "input ", t[i].var & ~CUZK_VAR_AUX_BIT);
        cuzk_fr p;
        blst_fr_mul(&p, &t[i].coeff, x);
        blst_fr_add(acc, acc, &p);
    }
    return CUZK_OK;
}

cuzk_err cuzk_cs_enforce(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                         const cuzk_term *c, size_t nc, const char *what)
{
    CUZK_TRY(check_open(cs, "enforce"));
    if (cs->mode == CUZK_CS_RECORD) {
        CUZK_TRY(cuzk_r1cs_enforce(cs->r1cs, a, na, b, nb, c, nc));
    } else if (cs->mode == CUZK_CS_CHECK) {
        cuzk_fr va, vb, vc;
        CUZK_TRY(eval_terms(cs, a, na, &va, "A"));
        CUZK_TRY(eval_terms(cs, b, nb, &vb, "B"));
        CUZK_TRY(eval_terms(cs, c, nc, &vc, "C"));
        blst_fr_mul(&va, &va, &vb);
        if (!cuzk_fr_eq(&va, &vc))
            return cuzk_fail(CUZK_EINVAL, "cs: constraint %llu (%s) is not satisfied",
                             (unsigned long long)cs->n_constraints, what ? what : "unnamed");
    }
    cs->n_constraints++;
    return CUZK_OK;
}

cuzk_err cuzk_cs_enforce_lc(cuzk_cs *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c,
                            const char *what)
{
    return cuzk_cs_enforce(cs, a ? a->t : NULL, a ? a->n : 0, b ? b->t : NULL, b ? b->n : 0,
                           c ? c->t : NULL, c ? c->n : 0, what);
}

cuzk_err cuzk_cs_skip(cuzk_cs *cs, uint64_t n)
{
    if (cs->mode == CUZK_CS_WITNESS && !cs->closed) {
        cs->n_constraints += n;
        return CUZK_OK;
    }
    CUZK_TRY(check_open(cs, "skip"));
    if (cs->mode != CUZK_CS_WITNESS)
        return cuzk_fail(CUZK_EINVAL, "cs: skip is for witness mode only");
    cs->n_constraints += n;
    return CUZK_OK;
}

cuzk_err cuzk_cs_extend(cuzk_cs *dst, const cuzk_cs *src)
{
    CUZK_TRY(check_open(dst, "extend"));
    if (dst->win || src->win || dst->aux_off || src->aux_off)
        return cuzk_fail(CUZK_EINVAL, "cs: extend of a system with an aux window or a base");
    if (dst->mode == CUZK_CS_RECORD || src->mode == CUZK_CS_RECORD)
        return cuzk_fail(CUZK_EINVAL, "cs: extend is for witness and check modes only");
    if (src->finished)
        return cuzk_fail(CUZK_EINVAL, "cs: extend with a finished system");
    if (dst->n_in + src->n_in - 1 > MAX_INDEX || dst->n_aux + src->n_aux > MAX_INDEX)
        return cuzk_fail(CUZK_EINVAL, "cs: extend past 2^31 - 1 variables");
    CUZK_TRY(grow_vals(&dst->in, &dst->cap_in, dst->n_in + src->n_in - 1));
    CUZK_TRY(grow_vals(&dst->aux, &dst->cap_aux, dst->n_aux + src->n_aux));
    memcpy(dst->in + dst->n_in, src->in + 1, (size_t)(src->n_in - 1) * sizeof *src->in);
    if (src->n_aux)
        memcpy(dst->aux + dst->n_aux, src->aux, (size_t)src->n_aux * sizeof *src->aux);
    dst->n_in += src->n_in - 1;
    dst->n_aux += src->n_aux;
    dst->n_constraints += src->n_constraints;
    return CUZK_OK;
}

cuzk_err cuzk_cs_finish(cuzk_cs *cs)
{
    CUZK_TRY(check_open(cs, "finish"));
    if (cs->r1cs)
        CUZK_TRY(cuzk_r1cs_finalize(cs->r1cs));
    /* The input constraints x_i * 0 = 0 hold for any value: nothing to check. */
    cs->n_constraints += cs->n_in;
    cs->finished = cs->closed = 1;
    return CUZK_OK;
}

uint32_t cuzk_cs_num_inputs(const cuzk_cs *cs)
{
    return (uint32_t)cs->n_in;
}
uint64_t cuzk_cs_num_aux(const cuzk_cs *cs)
{
    return cs->n_aux;
}
uint64_t cuzk_cs_num_constraints(const cuzk_cs *cs)
{
    return cs->n_constraints;
}
const cuzk_fr *cuzk_cs_inputs(const cuzk_cs *cs)
{
    return cs->in;
}
const cuzk_fr *cuzk_cs_aux(const cuzk_cs *cs)
{
    return cs->aux;
}

cuzk_err cuzk_cs_assignment(const cuzk_cs *cs, cuzk_fr **w, size_t *n)
{
    if (cs->win || cs->aux_off)
        return cuzk_fail(CUZK_EINVAL, "cs: the assignment of a system with an aux window or a "
                                      "base is its owner's");
    size_t total = (size_t)(cs->n_in + cs->n_aux);
    cuzk_fr *r = malloc(total * sizeof *r);
    if (!r)
        return cuzk_fail(CUZK_ENOMEM, "cs: out of memory for an assignment of %zu", total);
    memcpy(r, cs->in, (size_t)cs->n_in * sizeof *r);
    if (cs->n_aux)
        memcpy(r + cs->n_in, cs->aux, (size_t)cs->n_aux * sizeof *r);
    *w = r;
    *n = total;
    return CUZK_OK;
}

const cuzk_r1cs *cuzk_cs_r1cs(const cuzk_cs *cs)
{
    return cs->r1cs;
}

cuzk_err cuzk_cs_take_r1cs(cuzk_cs *cs, cuzk_r1cs **out)
{
    *out = NULL;
    if (cs->mode != CUZK_CS_RECORD)
        return cuzk_fail(CUZK_EINVAL, "cs: only record mode has a builder");
    if (!cs->r1cs)
        return cuzk_fail(CUZK_EINVAL, "cs: the builder was already taken");
    *out = cs->r1cs;
    cs->r1cs = NULL;
    cs->taken = cs->closed = 1;
    return CUZK_OK;
}

cuzk_err cuzk_cs_compile(cuzk_cs *cs, struct cuzk_pce **out)
{
    *out = NULL;
    cuzk_r1cs *r = NULL;
    cuzk_err e = cuzk_cs_finish(cs);
    if (!e)
        e = cuzk_cs_take_r1cs(cs, &r);
    if (!e)
        e = cuzk_pce_from_r1cs(out, r);
    cuzk_r1cs_free(r);
    return e;
}
