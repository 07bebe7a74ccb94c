/* G1 and G2 of BLS12-381 on the host, over blst: the ZCash encodings with the
 * checks bellperson applies, and small helpers used by setup and prove.
 *
 * Encodings (ZCash / blst): big-endian coordinates, flags in the three top bits
 * of byte 0 (0x80 compressed, 0x40 infinity, 0x20 sign of y), Fp2 written c1
 * then c0. Uncompressed G1 = 96 B, G2 = 192 B; compressed G1 = 48 B, G2 = 96 B. */
#ifndef CUZK_CURVE_H
#define CUZK_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include <blst.h>

#include "cuzk/err.h"

#define CUZK_G1_UNCOMPRESSED 96
#define CUZK_G2_UNCOMPRESSED 192
#define CUZK_G1_COMPRESSED 48
#define CUZK_G2_COMPRESSED 96

/* Checks applied when decoding (on-curve and canonical encoding are always
 * checked). */
enum {
    CUZK_PT_SUBGROUP = 1,    /* point must lie in the prime-order subgroup */
    CUZK_PT_NO_INFINITY = 2, /* the point at infinity is rejected */
};

/* Decoders: return CUZK_EFORMAT for a bad encoding (wrong flags, coordinate
 * >= p), CUZK_ECURVE for a point off the curve, outside the subgroup or at
 * infinity when forbidden. The message says which. */
cuzk_err cuzk_g1_decode(blst_p1_affine *out, const uint8_t in[96], unsigned checks);
cuzk_err cuzk_g2_decode(blst_p2_affine *out, const uint8_t in[192], unsigned checks);
cuzk_err cuzk_g1_decode_compressed(blst_p1_affine *out, const uint8_t in[48], unsigned checks);
cuzk_err cuzk_g2_decode_compressed(blst_p2_affine *out, const uint8_t in[96], unsigned checks);

void cuzk_g1_encode(uint8_t out[96], const blst_p1_affine *p);
void cuzk_g2_encode(uint8_t out[192], const blst_p2_affine *p);
void cuzk_g1_encode_compressed(uint8_t out[48], const blst_p1_affine *p);
void cuzk_g2_encode_compressed(uint8_t out[96], const blst_p2_affine *p);

/* Affine <-> projective and scalar multiplication by an Fr element. */
void cuzk_g1_mul(blst_p1 *out, const blst_p1 *p, const blst_fr *k);
void cuzk_g2_mul(blst_p2 *out, const blst_p2 *p, const blst_fr *k);

/* Fixed-base multiplication of many scalars by one base (setup): a comb table
 * of affine multiples, then ceil(255/w) mixed additions per scalar with no
 * doublings. Tables are owned by the caller (init/free). */
typedef struct {
    unsigned wbits, nwin;
    blst_p1_affine *t; /* nwin * 2^wbits entries */
} cuzk_g1_fixed;
typedef struct {
    unsigned wbits, nwin;
    blst_p2_affine *t;
} cuzk_g2_fixed;

cuzk_err cuzk_g1_fixed_init(cuzk_g1_fixed *f, const blst_p1 *base, unsigned wbits);
cuzk_err cuzk_g2_fixed_init(cuzk_g2_fixed *f, const blst_p2 *base, unsigned wbits);
void cuzk_g1_fixed_free(cuzk_g1_fixed *f);
void cuzk_g2_fixed_free(cuzk_g2_fixed *f);
/* out[i] = k[i] * base for i < n, as affine points (multi-threaded). */
void cuzk_g1_fixed_mul_batch(blst_p1_affine *out, const cuzk_g1_fixed *f, const blst_fr *k,
                             size_t n);
void cuzk_g2_fixed_mul_batch(blst_p2_affine *out, const cuzk_g2_fixed *f, const blst_fr *k,
                             size_t n);

#endif
