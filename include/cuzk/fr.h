/* The scalar field Fr of BLS12-381 on the host, over blst.
 *
 * cuzk_fr is blst_fr: 4 x u64 limbs in Montgomery form. Conversions to bytes
 * are canonical little-endian (as bellperson/blstrs `to_repr`). Vector helpers
 * run on the thread pool. Nothing here allocates except where it says so. */
#ifndef CUZK_FR_H
#define CUZK_FR_H

#include <stddef.h>
#include <stdint.h>

#include <blst.h>

#include "cuzk/err.h"

typedef blst_fr cuzk_fr;

/* The modulus r, little-endian u64 limbs. */
extern const uint64_t CUZK_FR_MODULUS[4];
/* 2-adicity of r - 1: Fr has roots of unity of order 2^32. */
#define CUZK_FR_TWO_ADICITY 32

void cuzk_fr_zero(cuzk_fr *r);
void cuzk_fr_one(cuzk_fr *r);
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v);
int cuzk_fr_is_zero(const cuzk_fr *a);
int cuzk_fr_is_one(const cuzk_fr *a);
int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b);
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a);
/* r = a^e, e given as 4 little-endian u64 limbs. */
void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t e[4]);
void cuzk_fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e);
/* r = 1/a; r = 0 when a = 0. */
void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a);

/* Canonical little-endian encoding. from_bytes rejects values >= r. */
cuzk_err cuzk_fr_from_bytes_le(cuzk_fr *r, const uint8_t in[32]);
void cuzk_fr_to_bytes_le(uint8_t out[32], const cuzk_fr *a);
/* Canonical value as 4 little-endian u64 limbs. */
void cuzk_fr_to_u64s(uint64_t out[4], const cuzk_fr *a);
/* Parse decimal or 0x-hex text (< r). */
cuzk_err cuzk_fr_from_str(cuzk_fr *r, const char *s);
/* Canonical value as 0x-prefixed 64-digit hex; out must hold 67 bytes. */
void cuzk_fr_to_hex(char out[67], const cuzk_fr *a);

/* Multiplicative generator of Fr* (7), the coset shift of bellperson. */
void cuzk_fr_generator(cuzk_fr *g);
/* Primitive 2^log_n-th root of unity, omega = ROOT^(2^(32-log_n)) with
 * ROOT = 7^((r-1)/2^32) as in bellperson/blstrs. log_n <= 32. */
cuzk_err cuzk_fr_root_of_unity(cuzk_fr *w, unsigned log_n);
/* snarkjs's (ffjavascript's) root of unity of order 2^log_n: 5^t squared
 * down (5 is the smallest quadratic non-residue; t the odd part of r - 1).
 * A different primitive root from ours: snarkjs's = ours^J for the odd J of
 * cuzk_fr_snarkjs_root_exponent, so on a domain of size m its point i is
 * our point i*J mod m. */
cuzk_err cuzk_fr_root_of_unity_snarkjs(cuzk_fr *w, unsigned log_n);
uint64_t cuzk_fr_snarkjs_root_exponent(void);

/* Uniform random element from the OS CSPRNG. */
cuzk_err cuzk_fr_random(cuzk_fr *r);

/* A small deterministic generator (xoshiro256**) for tests, synthetic
 * circuits and benchmarks. Never for toxic waste or proof randomness. */
typedef struct {
    uint64_t s[4];
} cuzk_rng;
void cuzk_rng_seed(cuzk_rng *g, uint64_t seed);
uint64_t cuzk_rng_u64(cuzk_rng *g);
/* Uniform element of Fr from the generator. */
void cuzk_fr_rng(cuzk_fr *r, cuzk_rng *g);

/* Vectors (n elements; outputs may alias inputs). Multi-threaded. */
void cuzk_fr_vec_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n);
void cuzk_fr_vec_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n);
void cuzk_fr_vec_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n);
void cuzk_fr_vec_scale(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *s, size_t n);
/* r[i] = a[i] * s^i * c: "distribute powers". c == NULL means 1; a == NULL
 * means all ones (r[i] = c * s^i). */
void cuzk_fr_vec_powers_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *s, const cuzk_fr *c,
                            size_t n);
/* In place a[i] = 1/a[i] (Montgomery's trick, one inversion per thread).
 * Zero elements stay zero. Allocates n elements of scratch. */
cuzk_err cuzk_fr_vec_inv(cuzk_fr *a, size_t n);
/* Random vector from a seeded generator (deterministic for a seed). */
void cuzk_fr_vec_rng(cuzk_fr *r, size_t n, uint64_t seed);

/* Canonical little-endian scalars for MSM (blst_scalar), multi-threaded. */
void cuzk_fr_vec_to_scalars(blst_scalar *out, const cuzk_fr *a, size_t n);

#endif
