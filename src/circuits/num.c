/* AllocatedNum, packing and the storage-proofs-core selection gadgets
 * (gadgets.h): bellpepper-core src/gadgets/num.rs, bellperson
 * src/gadgets/multipack.rs, rust-fil-proofs storage-proofs-core
 * src/gadgets/{constraint.rs,insertion.rs}.
 *
 * Long linear combinations (unpacking, packing) are built only when the cs
 * wants them; witness mode computes the values and counts the constraint.
 * insert_2/4/8 reproduce the reference's hand-written pick sequences, in
 * the reference's order, because the order fixes the variable numbering. */
#include "cuzk/gadgets.h"

#include <string.h>

#define MAX_SELECT_BITS 8 /* SnapDeals selects one of 128 apex leaves */
#define MAX_INSERT_BITS 6 /* tree arities: 64 at most */

static void term(cuzk_term *t, size_t *n, cuzk_var v, const cuzk_fr *c)
{
    t[*n].var = v;
    t[*n].coeff = *c;
    (*n)++;
}

cuzk_err cuzk_num_alloc(cuzk_cs *cs, const cuzk_fr *value, cuzk_num *out)
{
    CUZK_TRY(cuzk_cs_alloc(cs, value, &out->var));
    out->val = *value;
    return CUZK_OK;
}

cuzk_err cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *x)
{
    cuzk_var u;
    CUZK_TRY(cuzk_cs_alloc_input(cs, &x->val, &u));
    cuzk_term a = {u, *cuzk_cs_one()}, b = {CUZK_VAR_ONE, *cuzk_cs_one()},
              c = {x->var, *cuzk_cs_one()};
    return cuzk_cs_enforce(cs, &a, 1, &b, 1, &c, 1, "enforce input is correct");
}

cuzk_err cuzk_num_mul(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y, cuzk_num *out)
{
    cuzk_fr v;
    blst_fr_mul(&v, &x->val, &y->val);
    cuzk_num r;
    CUZK_TRY(cuzk_num_alloc(cs, &v, &r));
    cuzk_term a = {x->var, *cuzk_cs_one()}, b = {y->var, *cuzk_cs_one()},
              c = {r.var, *cuzk_cs_one()};
    CUZK_TRY(cuzk_cs_enforce(cs, &a, 1, &b, 1, &c, 1, "multiplication constraint"));
    *out = r;
    return CUZK_OK;
}

cuzk_err cuzk_num_square(cuzk_cs *cs, const cuzk_num *x, cuzk_num *out)
{
    return cuzk_num_mul(cs, x, x, out);
}

cuzk_err cuzk_num_to_bits_le(cuzk_cs *cs, const cuzk_num *x, cuzk_bool out[255])
{
    uint64_t limbs[4];
    cuzk_fr_to_u64s(limbs, &x->val);
    for (unsigned i = 0; i < 255; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (int)((limbs[i / 64] >> (i % 64)) & 1), &out[i]));
    if (!cuzk_cs_wants_lc(cs))
        return cuzk_cs_skip(cs, 1);
    cuzk_lc c = {0};
    cuzk_err e = CUZK_OK;
    for (unsigned i = 0; i < 255 && !e; i++)
        e = cuzk_lc_add(&c, out[i].var, cuzk_cs_pow2(i));
    if (!e)
        e = cuzk_lc_add(&c, x->var, cuzk_cs_minus_one());
    if (!e)
        e = cuzk_cs_enforce_lc(cs, NULL, NULL, &c, "unpacking constraint");
    cuzk_lc_free(&c);
    return e;
}

cuzk_err cuzk_num_to_allocated_bits(cuzk_cs *cs, const cuzk_num *x, unsigned n, cuzk_bool *out)
{
    uint64_t limbs[4];
    cuzk_fr_to_u64s(limbs, &x->val);
    if (n > 255)
        return cuzk_fail(CUZK_EINVAL, "to_allocated_bits: %u bits of a 255-bit field", n);
    for (unsigned i = 0; i < n; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (int)((limbs[i / 64] >> (i % 64)) & 1), &out[i]));
    if (!cuzk_cs_wants_lc(cs))
        return cuzk_cs_skip(cs, 1);
    cuzk_lc a = {0};
    cuzk_err e = CUZK_OK;
    for (unsigned i = 0; i < n && !e; i++)
        e = cuzk_lc_add(&a, out[i].var, cuzk_cs_pow2(i));
    cuzk_term b = {CUZK_VAR_ONE, *cuzk_cs_one()}, c = {x->var, *cuzk_cs_one()};
    if (!e)
        e = cuzk_cs_enforce(cs, a.t, a.n, &b, 1, &c, 1, "binary decomp");
    cuzk_lc_free(&a);
    return e;
}

/* sum 2^i lc(bits[i]) into lc (when wanted) and its value into *v. */
static cuzk_err pack_lc(const cuzk_bool *bits, size_t n, cuzk_lc *lc, cuzk_fr *v)
{
    cuzk_fr_zero(v);
    for (size_t i = 0; i < n; i++) {
        if (bits[i].value)
            blst_fr_add(v, v, cuzk_cs_pow2((unsigned)i));
        if (lc)
            CUZK_TRY(cuzk_bool_lc_add(lc, bits[i], cuzk_cs_pow2((unsigned)i)));
    }
    return CUZK_OK;
}

/* (packed) * 1 = target */
static cuzk_err pack_enforce(cuzk_cs *cs, const cuzk_lc *lc, cuzk_var target, const char *what)
{
    cuzk_term b = {CUZK_VAR_ONE, *cuzk_cs_one()}, c = {target, *cuzk_cs_one()};
    return cuzk_cs_enforce(cs, lc->t, lc->n, &b, 1, &c, 1, what);
}

cuzk_err cuzk_pack_bits(cuzk_cs *cs, const cuzk_bool *bits, size_t n, cuzk_num *out)
{
    if (n > 254)
        n = 254;
    int want = cuzk_cs_wants_lc(cs);
    cuzk_lc lc = {0};
    cuzk_fr v;
    cuzk_err e = pack_lc(bits, n, want ? &lc : NULL, &v);
    if (!e)
        e = cuzk_num_alloc(cs, &v, out);
    if (!e)
        e = want ? pack_enforce(cs, &lc, out->var, "packing constraint") : cuzk_cs_skip(cs, 1);
    cuzk_lc_free(&lc);
    return e;
}

cuzk_err cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n)
{
    int want = cuzk_cs_wants_lc(cs);
    cuzk_lc lc = {0};
    cuzk_err e = CUZK_OK;
    for (size_t off = 0; off < n && !e; off += 254) {
        size_t k = n - off < 254 ? n - off : 254;
        cuzk_fr v;
        cuzk_var u;
        cuzk_lc_clear(&lc);
        e = pack_lc(bits + off, k, want ? &lc : NULL, &v);
        if (!e)
            e = cuzk_cs_alloc_input(cs, &v, &u);
        if (!e)
            e = want ? pack_enforce(cs, &lc, u, "packing constraint") : cuzk_cs_skip(cs, 1);
    }
    cuzk_lc_free(&lc);
    return e;
}

cuzk_err cuzk_num_equal(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b)
{
    cuzk_term ta = {a->var, *cuzk_cs_one()}, tb = {CUZK_VAR_ONE, *cuzk_cs_one()},
              tc = {b->var, *cuzk_cs_one()};
    return cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1, "equal");
}

cuzk_err cuzk_num_add(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b, cuzk_num *out)
{
    cuzk_fr v;
    blst_fr_add(&v, &a->val, &b->val);
    cuzk_num r;
    CUZK_TRY(cuzk_num_alloc(cs, &v, &r));
    cuzk_term ta[2], tb = {CUZK_VAR_ONE, *cuzk_cs_one()}, tc = {r.var, *cuzk_cs_one()};
    size_t na = 0;
    term(ta, &na, a->var, cuzk_cs_one());
    term(ta, &na, b->var, cuzk_cs_one());
    CUZK_TRY(cuzk_cs_enforce(cs, ta, na, &tb, 1, &tc, 1, "sum constraint"));
    *out = r;
    return CUZK_OK;
}

cuzk_err cuzk_pick(cuzk_cs *cs, cuzk_bool cond, const cuzk_num *a, const cuzk_num *b, cuzk_num *out)
{
    cuzk_num r;
    CUZK_TRY(cuzk_num_alloc(cs, cond.value ? &a->val : &b->val, &r));
    cuzk_term ta[2], tb[2], tc[2];
    size_t na = 0, nb = 0, nc = 0;
    term(ta, &na, b->var, cuzk_cs_one());
    term(ta, &na, a->var, cuzk_cs_minus_one());
    cuzk_bool_terms(cond, cuzk_cs_one(), tb, &nb);
    term(tc, &nc, b->var, cuzk_cs_one());
    term(tc, &nc, r.var, cuzk_cs_minus_one());
    CUZK_TRY(cuzk_cs_enforce(cs, ta, na, tb, nb, tc, nc, "pick"));
    *out = r;
    return CUZK_OK;
}

cuzk_err cuzk_select(cuzk_cs *cs, const cuzk_num *from, const cuzk_bool *bits, unsigned n_bits,
                     cuzk_num *out)
{
    if (n_bits > MAX_SELECT_BITS)
        return cuzk_fail(CUZK_EINVAL, "select: %u bits, at most %d supported", n_bits,
                         MAX_SELECT_BITS);
    cuzk_num state[1u << MAX_SELECT_BITS];
    size_t size = (size_t)1 << n_bits;
    memcpy(state, from, size * sizeof *state);
    size_t half = size / 2;
    for (unsigned i = 0; i < n_bits; i++) {
        cuzk_bool bit = bits[n_bits - 1 - i]; /* most significant first */
        for (size_t j = 0; j < half; j++)
            CUZK_TRY(cuzk_pick(cs, bit, &state[half + j], &state[j], &state[j]));
        half /= 2;
    }
    *out = state[0];
    return CUZK_OK;
}

static cuzk_err insert_4(cuzk_cs *cs, const cuzk_num *x, const cuzk_bool *bits, const cuzk_num *el,
                         cuzk_num *out)
{
    cuzk_bool b0 = bits[0], b1 = bits[1];
    const cuzk_num *a = x, *b = &el[0], *c = &el[1], *d = &el[2];
    cuzk_num p0_x0, p1_x0, p2_x1, p3_x1;
    CUZK_TRY(cuzk_pick(cs, b0, b, a, &p0_x0));
    CUZK_TRY(cuzk_pick(cs, b1, b, &p0_x0, &out[0]));
    CUZK_TRY(cuzk_pick(cs, b0, a, b, &p1_x0));
    CUZK_TRY(cuzk_pick(cs, b1, c, &p1_x0, &out[1]));
    CUZK_TRY(cuzk_pick(cs, b0, d, a, &p2_x1));
    CUZK_TRY(cuzk_pick(cs, b1, &p2_x1, c, &out[2]));
    CUZK_TRY(cuzk_pick(cs, b0, a, d, &p3_x1));
    return cuzk_pick(cs, b1, &p3_x1, d, &out[3]);
}

static cuzk_err insert_8(cuzk_cs *cs, const cuzk_num *x, const cuzk_bool *bits, const cuzk_num *el,
                         cuzk_num *out)
{
    cuzk_bool b0 = bits[0], b1 = bits[1], b2 = bits[2];
    if (b0.kind != CUZK_BOOL_IS || b1.kind != CUZK_BOOL_IS)
        return cuzk_fail(CUZK_EINVAL, "insert_8: bits must be allocated and unnegated");
    const cuzk_num *a = x, *b = &el[0], *c = &el[1], *d = &el[2], *e = &el[3], *f = &el[4],
                   *g = &el[5], *h = &el[6];
    cuzk_bool nor, and;
    CUZK_TRY(cuzk_bit_nor(cs, b0, b1, &nor));
    CUZK_TRY(cuzk_bit_and(cs, b0, b1, &and));
    cuzk_num t1, t2;
    CUZK_TRY(cuzk_pick(cs, nor, a, b, &t1)); /* p0_xx0 */
    CUZK_TRY(cuzk_pick(cs, b2, b, &t1, &out[0]));
    CUZK_TRY(cuzk_pick(cs, b0, a, b, &t1));   /* p1_x00 */
    CUZK_TRY(cuzk_pick(cs, b1, c, &t1, &t2)); /* p1_xx0 */
    CUZK_TRY(cuzk_pick(cs, b2, c, &t2, &out[1]));
    CUZK_TRY(cuzk_pick(cs, b0, d, a, &t1));   /* p2_x10 */
    CUZK_TRY(cuzk_pick(cs, b1, &t1, c, &t2)); /* p2_xx0 */
    CUZK_TRY(cuzk_pick(cs, b2, d, &t2, &out[2]));
    CUZK_TRY(cuzk_pick(cs, and, a, d, &t1)); /* p3_xx0 */
    CUZK_TRY(cuzk_pick(cs, b2, e, &t1, &out[3]));
    CUZK_TRY(cuzk_pick(cs, nor, a, f, &t1)); /* p4_xx1 */
    CUZK_TRY(cuzk_pick(cs, b2, &t1, e, &out[4]));
    CUZK_TRY(cuzk_pick(cs, b0, a, f, &t1));   /* p5_x01 */
    CUZK_TRY(cuzk_pick(cs, b1, g, &t1, &t2)); /* p5_xx1 */
    CUZK_TRY(cuzk_pick(cs, b2, &t2, f, &out[5]));
    CUZK_TRY(cuzk_pick(cs, b0, h, a, &t1));   /* p6_x11 */
    CUZK_TRY(cuzk_pick(cs, b1, &t1, g, &t2)); /* p6_xx1 */
    CUZK_TRY(cuzk_pick(cs, b2, &t2, g, &out[6]));
    CUZK_TRY(cuzk_pick(cs, and, a, h, &t1)); /* p7_xx1 */
    return cuzk_pick(cs, b2, &t1, h, &out[7]);
}

cuzk_err cuzk_insert(cuzk_cs *cs, const cuzk_num *element, const cuzk_bool *bits, unsigned n_bits,
                     const cuzk_num *elements, cuzk_num *out)
{
    if (n_bits == 0 || n_bits > MAX_INSERT_BITS)
        return cuzk_fail(CUZK_EINVAL, "insert: %u index bits, need 1..%d", n_bits, MAX_INSERT_BITS);
    size_t size = (size_t)1 << n_bits;
    if (size == 2) {
        CUZK_TRY(cuzk_pick(cs, bits[0], &elements[0], element, &out[0]));
        return cuzk_pick(cs, bits[0], element, &elements[0], &out[1]);
    }
    if (size == 4)
        return insert_4(cs, element, bits, elements, out);
    if (size == 8)
        return insert_8(cs, element, bits, elements, out);
    cuzk_num choices[1u << MAX_INSERT_BITS];
    for (size_t pos = 0; pos < size; pos++) {
        for (size_t index = 0; index < size; index++)
            choices[index] = pos < index    ? elements[pos]
                             : pos == index ? *element
                                            : elements[pos - 1];
        CUZK_TRY(cuzk_select(cs, choices, bits, n_bits, &out[pos]));
    }
    return CUZK_OK;
}
