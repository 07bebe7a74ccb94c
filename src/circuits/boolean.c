/* Boolean gadgets (gadgets.h), following bellpepper-core
 * src/gadgets/boolean.rs case by case.
 *
 * A cuzk_bool carries its own value; the variable of an Is/Not holds
 * value / !value. Every match arm of the reference is kept in its order,
 * because the arm decides what is allocated (e.g. xor of Is and Not is
 * xor(is, var(not)) negated, with the Is operand doubled in A). Constraints
 * are built as small term arrays on the stack; in witness mode enforce only
 * counts, so nothing here allocates memory. */
#include "cuzk/gadgets.h"

static const cuzk_fr *fr01(int v)
{
    static const cuzk_fr zero;
    return v ? cuzk_cs_one() : &zero;
}

static int var_value(cuzk_bool b)
{
    return b.kind == CUZK_BOOL_NOT ? !b.value : b.value;
}

static void term(cuzk_term *t, size_t *n, cuzk_var v, const cuzk_fr *c)
{
    t[*n].var = v;
    t[*n].coeff = *c;
    (*n)++;
}

void cuzk_bool_terms(cuzk_bool b, const cuzk_fr *coeff, cuzk_term *terms, size_t *n)
{
    switch (b.kind) {
    case CUZK_BOOL_CONST:
        if (b.value)
            term(terms, n, CUZK_VAR_ONE, coeff);
        break;
    case CUZK_BOOL_IS: term(terms, n, b.var, coeff); break;
    default: {
        cuzk_fr neg;
        cuzk_fr_neg(&neg, coeff);
        term(terms, n, CUZK_VAR_ONE, coeff);
        term(terms, n, b.var, &neg);
    }
    }
}

cuzk_err cuzk_bool_lc_add(cuzk_lc *lc, cuzk_bool b, const cuzk_fr *coeff)
{
    cuzk_term t[2];
    size_t n = 0;
    cuzk_bool_terms(b, coeff, t, &n);
    for (size_t i = 0; i < n; i++)
        CUZK_TRY(cuzk_lc_add(lc, t[i].var, &t[i].coeff));
    return CUZK_OK;
}

static cuzk_err alloc_bit_var(cuzk_cs *cs, int v, cuzk_var *out)
{
    return cuzk_cs_alloc(cs, fr01(v), out);
}

static cuzk_bool is_bit(cuzk_var v, int value)
{
    cuzk_bool b = {CUZK_BOOL_IS, (uint8_t)value, v};
    return b;
}

cuzk_err cuzk_bit_alloc(cuzk_cs *cs, int value, cuzk_bool *out)
{
    cuzk_var v;
    CUZK_TRY(alloc_bit_var(cs, value, &v));
    *out = is_bit(v, value != 0);
    if (!cuzk_cs_wants_lc(cs))
        return cuzk_cs_skip(cs, 1);
    cuzk_term a[2], b[1];
    size_t na = 0, nb = 0;
    term(a, &na, CUZK_VAR_ONE, cuzk_cs_one());
    term(a, &na, v, cuzk_cs_minus_one());
    term(b, &nb, v, cuzk_cs_one());
    return cuzk_cs_enforce(cs, a, na, b, nb, NULL, 0, "boolean constraint");
}

/* The AllocatedBit binary gates on variables x, y (values vx, vy). */
enum gate { GATE_AND, GATE_AND_NOT, GATE_NOR, GATE_XOR };

static cuzk_err bit_gate(cuzk_cs *cs, enum gate g, cuzk_var x, int vx, cuzk_var y, int vy,
                         cuzk_bool *out)
{
    int r = g == GATE_AND       ? (vx & vy)
            : g == GATE_AND_NOT ? (vx & !vy)
            : g == GATE_NOR     ? (!vx & !vy)
                                : (vx ^ vy);
    cuzk_var rv;
    CUZK_TRY(alloc_bit_var(cs, r, &rv));
    *out = is_bit(rv, r);
    if (!cuzk_cs_wants_lc(cs))
        return cuzk_cs_skip(cs, 1);
    cuzk_term a[2], b[2], c[3];
    size_t na = 0, nb = 0, nc = 0;
    const cuzk_fr *one = cuzk_cs_one(), *m1 = cuzk_cs_minus_one();
    const char *what;
    switch (g) {
    case GATE_AND:
        term(a, &na, x, one);
        term(b, &nb, y, one);
        term(c, &nc, rv, one);
        what = "and constraint";
        break;
    case GATE_AND_NOT:
        term(a, &na, x, one);
        term(b, &nb, CUZK_VAR_ONE, one);
        term(b, &nb, y, m1);
        term(c, &nc, rv, one);
        what = "and not constraint";
        break;
    case GATE_NOR:
        term(a, &na, CUZK_VAR_ONE, one);
        term(a, &na, x, m1);
        term(b, &nb, CUZK_VAR_ONE, one);
        term(b, &nb, y, m1);
        term(c, &nc, rv, one);
        what = "nor constraint";
        break;
    default:
        term(a, &na, x, one);
        term(a, &na, x, one);
        term(b, &nb, y, one);
        term(c, &nc, x, one);
        term(c, &nc, y, one);
        term(c, &nc, rv, m1);
        what = "xor constraint";
        break;
    }
    return cuzk_cs_enforce(cs, a, na, b, nb, c, nc, what);
}

static cuzk_err need_vars(cuzk_bool a, cuzk_bool b, const char *what)
{
    if (a.kind == CUZK_BOOL_CONST || b.kind == CUZK_BOOL_CONST)
        return cuzk_fail(CUZK_EINVAL, "%s: operands must be allocated bits", what);
    return CUZK_OK;
}

cuzk_err cuzk_bit_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    CUZK_TRY(need_vars(a, b, "bit and"));
    return bit_gate(cs, GATE_AND, a.var, var_value(a), b.var, var_value(b), out);
}

cuzk_err cuzk_bit_nor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    CUZK_TRY(need_vars(a, b, "bit nor"));
    return bit_gate(cs, GATE_NOR, a.var, var_value(a), b.var, var_value(b), out);
}

cuzk_err cuzk_bool_xor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    if (a.kind == CUZK_BOOL_CONST && !a.value) {
        *out = b;
        return CUZK_OK;
    }
    if (b.kind == CUZK_BOOL_CONST && !b.value) {
        *out = a;
        return CUZK_OK;
    }
    if (a.kind == CUZK_BOOL_CONST) {
        *out = cuzk_bool_not(b);
        return CUZK_OK;
    }
    if (b.kind == CUZK_BOOL_CONST) {
        *out = cuzk_bool_not(a);
        return CUZK_OK;
    }
    if (a.kind != b.kind) { /* xor(is, not.not()).not() */
        cuzk_bool is = a.kind == CUZK_BOOL_IS ? a : b, nt = a.kind == CUZK_BOOL_IS ? b : a;
        cuzk_bool r;
        CUZK_TRY(bit_gate(cs, GATE_XOR, is.var, var_value(is), nt.var, var_value(nt), &r));
        *out = cuzk_bool_not(r);
        return CUZK_OK;
    }
    return bit_gate(cs, GATE_XOR, a.var, var_value(a), b.var, var_value(b), out);
}

cuzk_err cuzk_bool_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out)
{
    if ((a.kind == CUZK_BOOL_CONST && !a.value) || (b.kind == CUZK_BOOL_CONST && !b.value)) {
        *out = cuzk_bool_const(0);
        return CUZK_OK;
    }
    if (a.kind == CUZK_BOOL_CONST) {
        *out = b;
        return CUZK_OK;
    }
    if (b.kind == CUZK_BOOL_CONST) {
        *out = a;
        return CUZK_OK;
    }
    if (a.kind != b.kind) { /* and_not(is, not) */
        cuzk_bool is = a.kind == CUZK_BOOL_IS ? a : b, nt = a.kind == CUZK_BOOL_IS ? b : a;
        return bit_gate(cs, GATE_AND_NOT, is.var, var_value(is), nt.var, var_value(nt), out);
    }
    if (a.kind == CUZK_BOOL_NOT)
        return bit_gate(cs, GATE_NOR, a.var, var_value(a), b.var, var_value(b), out);
    return bit_gate(cs, GATE_AND, a.var, var_value(a), b.var, var_value(b), out);
}

/* and(x, y).not() */
static cuzk_err and_not_result(cuzk_cs *cs, cuzk_bool x, cuzk_bool y, cuzk_bool *out)
{
    cuzk_bool r;
    CUZK_TRY(cuzk_bool_and(cs, x, y, &r));
    *out = cuzk_bool_not(r);
    return CUZK_OK;
}

static int is_const(cuzk_bool b, int v)
{
    return b.kind == CUZK_BOOL_CONST && b.value == v;
}

cuzk_err cuzk_bool_sha256_ch(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out)
{
    int v = (a.value & b.value) ^ ((!a.value) & c.value);
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST) {
        *out = cuzk_bool_const(v);
        return CUZK_OK;
    }
    if (is_const(a, 0)) {
        *out = c;
        return CUZK_OK;
    }
    if (is_const(b, 0))
        return cuzk_bool_and(cs, cuzk_bool_not(a), c, out);
    if (is_const(c, 0))
        return cuzk_bool_and(cs, a, b, out);
    if (is_const(c, 1))
        return and_not_result(cs, a, cuzk_bool_not(b), out);
    if (is_const(b, 1))
        return and_not_result(cs, cuzk_bool_not(a), cuzk_bool_not(c), out);
    /* a is Constant(true) or all are variables: the general case. */
    cuzk_var ch;
    CUZK_TRY(alloc_bit_var(cs, v, &ch));
    if (!cuzk_cs_wants_lc(cs)) {
        *out = is_bit(ch, v);
        return cuzk_cs_skip(cs, 1);
    }
    cuzk_term ta[4], tb[2], tc[3];
    size_t na = 0, nb = 0, nc = 0;
    cuzk_bool_terms(b, cuzk_cs_one(), ta, &na);
    cuzk_bool_terms(c, cuzk_cs_minus_one(), ta, &na);
    cuzk_bool_terms(a, cuzk_cs_one(), tb, &nb);
    term(tc, &nc, ch, cuzk_cs_one());
    cuzk_bool_terms(c, cuzk_cs_minus_one(), tc, &nc);
    CUZK_TRY(cuzk_cs_enforce(cs, ta, na, tb, nb, tc, nc, "ch computation"));
    *out = is_bit(ch, v);
    return CUZK_OK;
}

cuzk_err cuzk_bool_sha256_maj(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out)
{
    int v = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST && c.kind == CUZK_BOOL_CONST) {
        *out = cuzk_bool_const(v);
        return CUZK_OK;
    }
    if (is_const(a, 0))
        return cuzk_bool_and(cs, b, c, out);
    if (is_const(b, 0))
        return cuzk_bool_and(cs, a, c, out);
    if (is_const(c, 0))
        return cuzk_bool_and(cs, a, b, out);
    if (is_const(c, 1))
        return and_not_result(cs, cuzk_bool_not(a), cuzk_bool_not(b), out);
    if (is_const(b, 1))
        return and_not_result(cs, cuzk_bool_not(a), cuzk_bool_not(c), out);
    if (is_const(a, 1))
        return and_not_result(cs, cuzk_bool_not(b), cuzk_bool_not(c), out);
    cuzk_var maj;
    CUZK_TRY(alloc_bit_var(cs, v, &maj));
    cuzk_bool bc;
    CUZK_TRY(cuzk_bool_and(cs, b, c, &bc));
    if (!cuzk_cs_wants_lc(cs)) {
        *out = is_bit(maj, v);
        return cuzk_cs_skip(cs, 1);
    }
    cuzk_term ta[8], tb[2], tc[3];
    size_t na = 0, nb = 0, nc = 0;
    cuzk_bool_terms(bc, cuzk_cs_one(), ta, &na);
    cuzk_bool_terms(bc, cuzk_cs_one(), ta, &na);
    cuzk_bool_terms(b, cuzk_cs_minus_one(), ta, &na);
    cuzk_bool_terms(c, cuzk_cs_minus_one(), ta, &na);
    cuzk_bool_terms(a, cuzk_cs_one(), tb, &nb);
    cuzk_bool_terms(bc, cuzk_cs_one(), tc, &nc);
    term(tc, &nc, maj, cuzk_cs_minus_one());
    CUZK_TRY(cuzk_cs_enforce(cs, ta, na, tb, nb, tc, nc, "maj computation"));
    *out = is_bit(maj, v);
    return CUZK_OK;
}

cuzk_err cuzk_bool_enforce_equal(cuzk_cs *cs, cuzk_bool a, cuzk_bool b)
{
    if (a.kind == CUZK_BOOL_CONST && b.kind == CUZK_BOOL_CONST) {
        if (a.value != b.value)
            return cuzk_fail(CUZK_EINVAL, "enforce_equal: constants %d and %d differ", a.value,
                             b.value);
        return CUZK_OK;
    }
    cuzk_term tc[5];
    size_t nc = 0;
    if (is_const(a, 1) || is_const(b, 1)) {
        cuzk_bool x = is_const(a, 1) ? b : a;
        term(tc, &nc, CUZK_VAR_ONE, cuzk_cs_one());
        cuzk_bool_terms(x, cuzk_cs_minus_one(), tc, &nc);
        return cuzk_cs_enforce(cs, NULL, 0, NULL, 0, tc, nc, "enforce equal to one");
    }
    if (is_const(a, 0) || is_const(b, 0)) {
        cuzk_bool x = is_const(a, 0) ? b : a;
        cuzk_bool_terms(x, cuzk_cs_one(), tc, &nc);
        return cuzk_cs_enforce(cs, NULL, 0, NULL, 0, tc, nc, "enforce equal to zero");
    }
    cuzk_bool_terms(a, cuzk_cs_one(), tc, &nc);
    cuzk_bool_terms(b, cuzk_cs_minus_one(), tc, &nc);
    return cuzk_cs_enforce(cs, NULL, 0, NULL, 0, tc, nc, "enforce equal");
}
