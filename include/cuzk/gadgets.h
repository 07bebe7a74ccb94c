/* Bit-exact gadgets: bellpepper-core's Boolean and AllocatedNum, bellperson's
 * multipack and UInt32 (with MultiEq), and rust-fil-proofs' constraint and
 * insertion helpers (storage-proofs-core gadgets).
 *
 * "Bit-exact" means: the same allocations in the same order, the same
 * constraints in the same order with the same A/B/C orientation and
 * coefficients, and every constant-folding shortcut of the reference (a
 * gadget applied to constants allocates nothing). Each function's comment
 * gives its allocations and constraints.
 *
 * Values are always computed (see cs.h). All functions return cuzk_err from
 * the cs (EINVAL/ENOMEM) and write results through pointers. */
#ifndef CUZK_GADGETS_H
#define CUZK_GADGETS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"

/* ---- Boolean ---- */

typedef enum { CUZK_BOOL_CONST = 0, CUZK_BOOL_IS = 1, CUZK_BOOL_NOT = 2 } cuzk_bool_kind;

/* Boolean::Constant(value) | Is(var) | Not(var). `value` is the Boolean's
 * own value (for Not: the negation of var's value). */
typedef struct {
    uint8_t kind;
    uint8_t value;
    cuzk_var var;
} cuzk_bool;

static inline cuzk_bool cuzk_bool_const(int v)
{
    cuzk_bool b = {CUZK_BOOL_CONST, (uint8_t)(v != 0), 0};
    return b;
}
/* Boolean::not: free. */
static inline cuzk_bool cuzk_bool_not(cuzk_bool b)
{
    if (b.kind == CUZK_BOOL_IS)
        b.kind = CUZK_BOOL_NOT;
    else if (b.kind == CUZK_BOOL_NOT)
        b.kind = CUZK_BOOL_IS;
    b.value ^= 1;
    return b;
}

/* AllocatedBit::alloc: alloc b; (1 - b) * b = 0. */
cuzk_err cuzk_bit_alloc(cuzk_cs *cs, int value, cuzk_bool *out);
/* AllocatedBit and/and_not/nor/xor on allocated bits (var handles with their
 * values): alloc r; a*b = r / a*(1-b) = r / (1-a)*(1-b) = r /
 * (2a)*b = a + b - r. */
cuzk_err cuzk_bit_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
cuzk_err cuzk_bit_nor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);

/* Boolean::xor / and with bellpepper's constant folding and Is/Not cases. */
cuzk_err cuzk_bool_xor(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
cuzk_err cuzk_bool_and(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool *out);
/* Boolean::sha256_ch = (a & b) ^ (!a & c) and sha256_maj = majority, with
 * every shortcut of the reference; the general maj allocates maj before the
 * b&c bit. */
cuzk_err cuzk_bool_sha256_ch(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out);
cuzk_err cuzk_bool_sha256_maj(cuzk_cs *cs, cuzk_bool a, cuzk_bool b, cuzk_bool c, cuzk_bool *out);
/* Boolean::enforce_equal (0 * 0 = difference; constants fold or fail with
 * EINVAL when two constants differ). */
cuzk_err cuzk_bool_enforce_equal(cuzk_cs *cs, cuzk_bool a, cuzk_bool b);

/* Append coeff * lc(b) to terms[*n] (at most 2 terms): Constant(true) ->
 * coeff*ONE, Is -> coeff*b, Not -> coeff*ONE - coeff*b. */
void cuzk_bool_terms(cuzk_bool b, const cuzk_fr *coeff, cuzk_term *terms, size_t *n);
/* lc += coeff * lc(b). */
cuzk_err cuzk_bool_lc_add(cuzk_lc *lc, cuzk_bool b, const cuzk_fr *coeff);

/* ---- AllocatedNum ---- */

typedef struct {
    cuzk_var var;
    cuzk_fr val;
} cuzk_num;

/* AllocatedNum::alloc: one aux, no constraint. */
cuzk_err cuzk_num_alloc(cuzk_cs *cs, const cuzk_fr *value, cuzk_num *out);
/* inputize: alloc input u; u * 1 = x. */
cuzk_err cuzk_num_inputize(cuzk_cs *cs, const cuzk_num *x);
/* square / mul: alloc r; x*x = r / x*y = r. */
cuzk_err cuzk_num_square(cuzk_cs *cs, const cuzk_num *x, cuzk_num *out);
cuzk_err cuzk_num_mul(cuzk_cs *cs, const cuzk_num *x, const cuzk_num *y, cuzk_num *out);
/* to_bits_le (non-strict): 255 AllocatedBits LE (booleanity each), then
 * 0 * 0 = sum 2^i b_i - x. out holds 255. */
cuzk_err cuzk_num_to_bits_le(cuzk_cs *cs, const cuzk_num *x, cuzk_bool out[255]);
/* storage-proofs-update allocated_num_to_allocated_bits (n = 255) and the
 * k_and_h_select split (n = its bits): the n low bits of x as AllocatedBits,
 * least significant first (booleanity each), then (sum 2^i b_i) * 1 = x.
 * Unlike to_bits_le the packing is A = the bits, B = ONE, C = x. */
cuzk_err cuzk_num_to_allocated_bits(cuzk_cs *cs, const cuzk_num *x, unsigned n, cuzk_bool *out);
/* multipack::pack_bits: the first min(n, 254) bits; alloc r;
 * (sum 2^i lc(bit_i)) * 1 = r. */
cuzk_err cuzk_pack_bits(cuzk_cs *cs, const cuzk_bool *bits, size_t n, cuzk_num *out);
/* multipack::pack_into_inputs: per chunk of 254 bits an input u with
 * (sum 2^i lc(bit_i)) * 1 = u. */
cuzk_err cuzk_pack_into_inputs(cuzk_cs *cs, const cuzk_bool *bits, size_t n);
/* constraint::equal: a * 1 = b. */
cuzk_err cuzk_num_equal(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b);
/* constraint::add: alloc r; (a + b) * 1 = r. */
cuzk_err cuzk_num_add(cuzk_cs *cs, const cuzk_num *a, const cuzk_num *b, cuzk_num *out);

/* insertion.rs pick: alloc c = cond ? a : b; (b - a) * lc(cond) = b - c. */
cuzk_err cuzk_pick(cuzk_cs *cs, cuzk_bool cond, const cuzk_num *a, const cuzk_num *b,
                   cuzk_num *out);
/* insertion.rs select: from[index(bits LE)], 2^n - 1 picks MSB first. */
cuzk_err cuzk_select(cuzk_cs *cs, const cuzk_num *from, const cuzk_bool *bits, unsigned n_bits,
                     cuzk_num *out);
/* insertion.rs insert: out = elements with `element` inserted at the index
 * given by bits (LE); arity = n_elements + 1 = 2^n_bits. Arity 2, 4, 8 use
 * the hand-optimized insert_2/4/8 (insert_8 needs allocated, unnegated bits:
 * EINVAL otherwise); other arities the generic select per position. */
cuzk_err cuzk_insert(cuzk_cs *cs, const cuzk_num *element, const cuzk_bool *bits, unsigned n_bits,
                     const cuzk_num *elements, cuzk_num *out);

/* ---- UInt32 (bellperson uint32.rs) ---- */

typedef struct {
    cuzk_bool bits[32]; /* least significant first */
    uint32_t value;
} cuzk_u32;

cuzk_u32 cuzk_u32_const(uint32_t v);
/* 32 AllocatedBits, LE. */
cuzk_err cuzk_u32_alloc(cuzk_cs *cs, uint32_t v, cuzk_u32 *out);
/* From 32 big-endian bits (bits[0] is the most significant). */
cuzk_u32 cuzk_u32_from_bits_be(const cuzk_bool bits[32]);
void cuzk_u32_to_bits_be(const cuzk_u32 *x, cuzk_bool out[32]);
cuzk_u32 cuzk_u32_rotr(const cuzk_u32 *x, unsigned by);
cuzk_u32 cuzk_u32_shr(const cuzk_u32 *x, unsigned by);
cuzk_err cuzk_u32_xor(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, cuzk_u32 *out);
cuzk_err cuzk_u32_sha256_ch(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c,
                            cuzk_u32 *out);
cuzk_err cuzk_u32_sha256_maj(cuzk_cs *cs, const cuzk_u32 *a, const cuzk_u32 *b, const cuzk_u32 *c,
                             cuzk_u32 *out);

/* storage-proofs-core UInt64::alloc: 64 AllocatedBits, least significant
 * first; its pack_into_input is cuzk_pack_into_inputs(bits, 64). */
cuzk_err cuzk_u64_alloc(cuzk_cs *cs, uint64_t v, cuzk_bool out[64]);

/* MultiEq (bellperson multieq.rs): packs several "sum = sum" equalities into
 * one constraint until 254 bits of capacity would be exceeded. The caller owns
 * it: init, use, then cuzk_multieq_flush (the reference's Drop), then free. */
typedef struct {
    cuzk_lc lhs, rhs;
    unsigned bits_used;
} cuzk_multieq;
void cuzk_multieq_init(cuzk_multieq *m);
void cuzk_multieq_free(cuzk_multieq *m);
cuzk_err cuzk_multieq_flush(cuzk_cs *cs, cuzk_multieq *m);

/* UInt32::addmany of 2..10 operands: all-constant operands fold to a
 * constant; otherwise bitlen(n * (2^32 - 1)) result bits are allocated
 * (booleanity each) and the equality goes to the MultiEq. */
cuzk_err cuzk_u32_addmany(cuzk_cs *cs, cuzk_multieq *m, const cuzk_u32 *ops, size_t n,
                          cuzk_u32 *out);

#endif
