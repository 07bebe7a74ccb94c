/* UInt32 and MultiEq (gadgets.h), following bellperson src/gadgets/uint32.rs
 * and src/gadgets/multieq.rs.
 *
 * addmany writes its operand and result terms straight into the MultiEq's
 * pending sums at the current bit offset (2^(offset + i) comes from the
 * shared power table) instead of building its own LCs first; the capacity
 * check happens before the terms are added, exactly where the reference
 * emits the pending constraint, so the rows and their order are the same. In
 * witness mode no terms are built: only the offset and the counts move. */
#include "cuzk/gadgets.h"

#define CAPACITY 254u

cuzk_u32 cuzk_u32_const(uint32_t v)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cuzk_bool_const((v >> i) & 1);
    r.value = v;
    return r;
}

cuzk_err cuzk_u32_alloc(cuzk_cs *cs, uint32_t v, cuzk_u32 *out)
{
    for (int i = 0; i < 32; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (v >> i) & 1, &out->bits[i]));
    out->value = v;
    return CUZK_OK;
}

cuzk_err cuzk_u64_alloc(cuzk_cs *cs, uint64_t v, cuzk_bool out[64])
{
    for (int i = 0; i < 64; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (int)((v >> i) & 1), &out[i]));
    return CUZK_OK;
}

cuzk_u32 cuzk_u32_from_bits_be(const cuzk_bool bits[32])
{
    cuzk_u32 r;
    r.value = 0;
    for (int i = 0; i < 32; i++) {
        r.value = (r.value << 1) | bits[i].value;
        r.bits[31 - i] = bits[i];
    }
    return r;
}

void cuzk_u32_to_bits_be(const cuzk_u32 *x, cuzk_bool out[32])
{
    for (int i = 0; i < 32; i++)
        out[i] = x->bits[31 - i];
}

cuzk_u32 cuzk_u32_rotr(const cuzk_u32 *x, unsigned by)
{
    by %= 32;
    cuzk_u32 r;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = x->bits[(i + by) % 32];
    r.value = by ? (x->value >> by) | (x->value << (32 - by)) : x->value;
    return r;
}

cuzk_u32 cuzk_u32_shr(const cuzk_u32 *x, unsigned by)
{
    by %= 32;
    cuzk_u32 r;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = i + by < 32 ? x->bits[i + by] : cuzk_bool_const(0);
    r.value = x->value >> by;
    return r;
}

cuzk_err cuzk_u32_xor(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, cuzk_u32 *out)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        CUZK_TRY(cuzk_bool_xor(cs, a->bits[i], b->bits[i], &r.bits[i]));
    r.value = a->value ^ b->value;
    *out = r;
    return CUZK_OK;
}

cuzk_err cuzk_u32_sha256_ch(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c,
                            cuzk_u32 *out)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        CUZK_TRY(cuzk_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i], &r.bits[i]));
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    *out = r;
    return CUZK_OK;
}

cuzk_err cuzk_u32_sha256_maj(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c,
                             cuzk_u32 *out)
{
    cuzk_u32 r;
    for (int i = 0; i < 32; i++)
        CUZK_TRY(cuzk_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i], &r.bits[i]));
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    *out = r;
    return CUZK_OK;
}

void cuzk_multieq_init(cuzk_multieq *m)
{
    m->lhs = (cuzk_lc){0};
    m->rhs = (cuzk_lc){0};
    m->bits_used = 0;
}

void cuzk_multieq_free(cuzk_multieq *m)
{
    cuzk_lc_free(&m->lhs);
    cuzk_lc_free(&m->rhs);
}

/* MultiEq::accumulate: (pending lhs) * 1 = (pending rhs). */
static cuzk_err multieq_emit(cuzk_cs *cs, cuzk_multieq *m)
{
    cuzk_err e;
    if (cuzk_cs_wants_lc(cs)) {
        cuzk_term one = {CUZK_VAR_ONE, *cuzk_cs_one()};
        e = cuzk_cs_enforce(cs, m->lhs.t, m->lhs.n, &one, 1, m->rhs.t, m->rhs.n, "multieq");
    } else {
        e = cuzk_cs_skip(cs, 1);
    }
    cuzk_lc_clear(&m->lhs);
    cuzk_lc_clear(&m->rhs);
    m->bits_used = 0;
    return e;
}

cuzk_err cuzk_multieq_flush(cuzk_cs *cs, cuzk_multieq *m)
{
    return m->bits_used ? multieq_emit(cs, m) : CUZK_OK;
}

cuzk_err cuzk_u32_addmany(cuzk_cs *cs, cuzk_multieq *m, const cuzk_u32 *ops, size_t n,
                          cuzk_u32 *out)
{
    if (n < 2 || n > 10)
        return cuzk_fail(CUZK_EINVAL, "addmany: %zu operands, need 2..10", n);
    uint64_t sum = 0;
    int all_const = 1;
    for (size_t k = 0; k < n; k++) {
        sum += ops[k].value;
        for (int i = 0; i < 32; i++)
            all_const &= ops[k].bits[i].kind == CUZK_BOOL_CONST;
    }
    if (all_const) {
        *out = cuzk_u32_const((uint32_t)sum);
        return CUZK_OK;
    }
    unsigned nbits = 0;
    for (uint64_t max = (uint64_t)n * 0xffffffffu; max; max >>= 1)
        nbits++;
    int want = cuzk_cs_wants_lc(cs);
    /* Allocations come first in the reference (the equality is recorded
     * after the result bits), and the pending constraint is emitted inside
     * enforce_equal, i.e. after those booleanity rows. */
    cuzk_bool res[36]; /* bitlen(10 * (2^32 - 1)) = 36 */
    for (unsigned i = 0; i < nbits; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (int)((sum >> i) & 1), &res[i]));
    if (m->bits_used + nbits >= CAPACITY)
        CUZK_TRY(multieq_emit(cs, m));
    unsigned off = m->bits_used;
    if (want) {
        for (size_t k = 0; k < n; k++)
            for (unsigned i = 0; i < 32; i++)
                CUZK_TRY(cuzk_bool_lc_add(&m->lhs, ops[k].bits[i], cuzk_cs_pow2(off + i)));
        for (unsigned i = 0; i < nbits; i++)
            CUZK_TRY(cuzk_lc_add(&m->rhs, res[i].var, cuzk_cs_pow2(off + i)));
    }
    m->bits_used += nbits;
    for (int i = 0; i < 32; i++)
        out->bits[i] = res[i];
    out->value = (uint32_t)sum;
    return CUZK_OK;
}
