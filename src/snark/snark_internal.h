/* Private to src/snark: iden3's binary container, the field constants of
 * BLS12-381 (and bn128's, to name it in errors) as little-endian bytes, and
 * conversions between snarkjs's representations and blst's. */
#ifndef CUZK_SNARK_INTERNAL_H
#define CUZK_SNARK_INTERNAL_H

#include "cuzk/snark.h"
#include "cuzk/util.h"

#include <blst.h>

#define BIN_MAX_SECTIONS 64

typedef struct {
    uint32_t type;
    size_t off, size;
} bin_section;

typedef struct {
    const char *name; /* the path, for messages */
    cuzk_mapfile map;
    uint32_t version;
    size_t n_sec;
    bin_section sec[BIN_MAX_SECTIONS];
} binfile;

/* Map path and walk its sections: magic, version <= max_version, every
 * section inside the file, nothing after the last one. */
cuzk_err binfile_open(binfile *b, const char *path, const char magic[4], uint32_t max_version);
void binfile_close(binfile *b);
/* The one section of this type: EFORMAT if it is missing or repeated. */
cuzk_err binfile_section(const binfile *b, uint32_t type, const char *what, const uint8_t **p,
                         size_t *size);
/* 1 if a section of this type exists. */
int binfile_has(const binfile *b, uint32_t type);

/* Container writer over a FILE: sections are written whole. */
void bin_put_header(uint8_t out[12], const char magic[4], uint32_t version, uint32_t n_sections);
void bin_put_section_header(uint8_t out[12], uint32_t type, uint64_t size);

/* Field primes, little-endian. */
extern const uint8_t snark_bls_q[48], snark_bls_r[32], snark_bn128_q[32], snark_bn128_r[32];
/* EUNSUPPORTED for bn128, EFORMAT for anything else: `what` names the field
 * (e.g. "base field"), `file` the file. */
cuzk_err snark_check_prime(const char *file, const char *what, const uint8_t *prime, uint32_t n8,
                           const uint8_t *want, uint32_t want_n8);

/* Little-endian integer comparison: 1 if a < b (n bytes each). */
int snark_lt_le(const uint8_t *a, const uint8_t *b, size_t n);

/* Points in snarkjs's LEM form (coordinates little-endian Montgomery, R =
 * 2^384, Fp2 as c0, c1; all zero = infinity) are blst's affine layout. These
 * check canonical coordinates and on-curve; in_group adds the subgroup. */
cuzk_err snark_g1_from_lem(blst_p1_affine *out, const uint8_t in[96], int in_group);
cuzk_err snark_g2_from_lem(blst_p2_affine *out, const uint8_t in[192], int in_group);
void snark_g1_to_lem(uint8_t out[96], const blst_p1_affine *p);
void snark_g2_to_lem(uint8_t out[192], const blst_p2_affine *p);

/* zkey coefficients are stored as the integer c R^2 mod r (R = 2^256). */
cuzk_err snark_coef_from_zkey(cuzk_fr *out, const uint8_t in[32]);
void snark_coef_to_zkey(uint8_t out[32], const cuzk_fr *c);

/* Decimal strings of field elements (JSON). from_dec: EFORMAT for anything
 * but digits or a value >= the modulus. */
cuzk_err snark_fp_from_dec(blst_fp *out, const char *s);
cuzk_err snark_fr_from_dec(cuzk_fr *out, const char *s);
void snark_fp_to_dec(char out[120], const blst_fp *a);
void snark_fr_to_dec(char out[80], const cuzk_fr *a);

#endif
