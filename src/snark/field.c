/* Field constants and representation changes between snarkjs and blst.
 *
 * snarkjs (ffjavascript) and blst both use Montgomery form with R = 2^384
 * for Fp and R = 2^256 for Fr, on little-endian limbs, so a point in a zkey
 * ("LEM": little-endian Montgomery) is byte for byte a blst affine point once
 * its coordinates are checked to be below q. zkey coefficients are stored as
 * the integer c R^2 mod r: read as blst limbs that is the element c R, and
 * one Montgomery multiplication by the raw integer 1 (the element R^-1)
 * gives c. JSON carries plain decimal integers. */
#include "snark_internal.h"

#include <string.h>

const uint8_t snark_bls_q[48] = {
    0xab, 0xaa, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xb9, 0xff, 0xff, 0x53, 0xb1, 0xfe, 0xff, 0xab, 0x1e,
    0x24, 0xf6, 0xb0, 0xf6, 0xa0, 0xd2, 0x30, 0x67, 0xbf, 0x12, 0x85, 0xf3, 0x84, 0x4b, 0x77, 0x64,
    0xd7, 0xac, 0x4b, 0x43, 0xb6, 0xa7, 0x1b, 0x4b, 0x9a, 0xe6, 0x7f, 0x39, 0xea, 0x11, 0x01, 0x1a};
const uint8_t snark_bls_r[32] = {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xfe, 0x5b, 0xfe,
                                 0xff, 0x02, 0xa4, 0xbd, 0x53, 0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8,
                                 0x39, 0x33, 0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
const uint8_t snark_bn128_q[32] = {0x47, 0xfd, 0x7c, 0xd8, 0x16, 0x8c, 0x20, 0x3c, 0x8d, 0xca, 0x71,
                                   0x68, 0x91, 0x6a, 0x81, 0x97, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                   0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};
const uint8_t snark_bn128_r[32] = {0x01, 0x00, 0x00, 0xf0, 0x93, 0xf5, 0xe1, 0x43, 0x91, 0x70, 0xb9,
                                   0x79, 0x48, 0xe8, 0x33, 0x28, 0x5d, 0x58, 0x81, 0x81, 0xb6, 0x45,
                                   0x50, 0xb8, 0x29, 0xa0, 0x31, 0xe1, 0x72, 0x4e, 0x64, 0x30};

cuzk_err snark_check_prime(const char *file, const char *what, const uint8_t *prime, uint32_t n8,
                           const uint8_t *want, uint32_t want_n8)
{
    if (n8 == want_n8 && !memcmp(prime, want, n8))
        return CUZK_OK;
    if (n8 == 32 && (!memcmp(prime, snark_bn128_q, 32) || !memcmp(prime, snark_bn128_r, 32)))
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "%s: curve bn128 is not supported yet (cuzk proves over bls12381)", file);
    return cuzk_fail(CUZK_EFORMAT, "%s: %s is not BLS12-381's (%u-byte prime)", file, what, n8);
}

int snark_lt_le(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

static int all_zero(const uint8_t *p, size_t n)
{
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

static void fp_raw(blst_fp *out, const uint8_t in[48])
{
    for (int i = 0; i < 6; i++)
        out->l[i] = cuzk_get_le64(in + 8 * i);
}

static void fp_raw_put(uint8_t out[48], const blst_fp *a)
{
    for (int i = 0; i < 6; i++)
        cuzk_put_le64(out + 8 * i, a->l[i]);
}

cuzk_err snark_g1_from_lem(blst_p1_affine *out, const uint8_t in[96], int in_group)
{
    if (all_zero(in, 96)) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (!snark_lt_le(in, snark_bls_q, 48) || !snark_lt_le(in + 48, snark_bls_q, 48))
        return cuzk_fail(CUZK_EFORMAT, "G1 coordinate is not below q");
    fp_raw(&out->x, in);
    fp_raw(&out->y, in + 48);
    if (!blst_p1_affine_on_curve(out))
        return cuzk_fail(CUZK_ECURVE, "G1 point is not on the curve");
    if (in_group && !blst_p1_affine_in_g1(out))
        return cuzk_fail(CUZK_ECURVE, "G1 point is not in the subgroup");
    return CUZK_OK;
}

cuzk_err snark_g2_from_lem(blst_p2_affine *out, const uint8_t in[192], int in_group)
{
    if (all_zero(in, 192)) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    for (int i = 0; i < 4; i++)
        if (!snark_lt_le(in + 48 * i, snark_bls_q, 48))
            return cuzk_fail(CUZK_EFORMAT, "G2 coordinate is not below q");
    fp_raw(&out->x.fp[0], in);
    fp_raw(&out->x.fp[1], in + 48);
    fp_raw(&out->y.fp[0], in + 96);
    fp_raw(&out->y.fp[1], in + 144);
    if (!blst_p2_affine_on_curve(out))
        return cuzk_fail(CUZK_ECURVE, "G2 point is not on the curve");
    if (in_group && !blst_p2_affine_in_g2(out))
        return cuzk_fail(CUZK_ECURVE, "G2 point is not in the subgroup");
    return CUZK_OK;
}

void snark_g1_to_lem(uint8_t out[96], const blst_p1_affine *p)
{
    if (blst_p1_affine_is_inf(p)) {
        memset(out, 0, 96);
        return;
    }
    fp_raw_put(out, &p->x);
    fp_raw_put(out + 48, &p->y);
}

void snark_g2_to_lem(uint8_t out[192], const blst_p2_affine *p)
{
    if (blst_p2_affine_is_inf(p)) {
        memset(out, 0, 192);
        return;
    }
    fp_raw_put(out, &p->x.fp[0]);
    fp_raw_put(out + 48, &p->x.fp[1]);
    fp_raw_put(out + 96, &p->y.fp[0]);
    fp_raw_put(out + 144, &p->y.fp[1]);
}

/* The element whose Montgomery limbs are the integer 1, i.e. R^-1. */
static void fr_r_inv(cuzk_fr *x)
{
    memset(x, 0, sizeof *x);
    x->l[0] = 1;
}

cuzk_err snark_coef_from_zkey(cuzk_fr *out, const uint8_t in[32])
{
    if (!snark_lt_le(in, snark_bls_r, 32))
        return cuzk_fail(CUZK_EFORMAT, "coefficient is not below r");
    cuzk_fr raw, r_inv;
    for (int i = 0; i < 4; i++)
        raw.l[i] = cuzk_get_le64(in + 8 * i);
    fr_r_inv(&r_inv);
    blst_fr_mul(out, &raw, &r_inv);
    return CUZK_OK;
}

void snark_coef_to_zkey(uint8_t out[32], const cuzk_fr *c)
{
    cuzk_fr r, x;
    fr_r_inv(&r);
    cuzk_fr_inv(&r, &r); /* R */
    blst_fr_mul(&x, c, &r);
    for (int i = 0; i < 4; i++)
        cuzk_put_le64(out + 8 * i, x.l[i]);
}

/* Decimal <-> little-endian integers of up to 48 bytes. */
static cuzk_err dec_to_le(uint8_t *out, size_t n, const char *s)
{
    uint32_t limb[14] = {0}; /* 448 bits: room to see an overflow of 384 */
    size_t nl = (n + 3) / 4;
    if (!*s)
        return cuzk_fail(CUZK_EFORMAT, "empty number");
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return cuzk_fail(CUZK_EFORMAT, "\"%.40s\" is not a decimal integer", s);
        uint64_t carry = (uint64_t)(*c - '0');
        for (size_t i = 0; i <= nl; i++) {
            uint64_t t = (uint64_t)limb[i] * 10 + carry;
            limb[i] = (uint32_t)t;
            carry = t >> 32;
        }
        if (limb[nl] || carry)
            return cuzk_fail(CUZK_EFORMAT, "number \"%.40s...\" is too large", s);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = (uint8_t)(limb[i / 4] >> (8 * (i % 4)));
    return CUZK_OK;
}

static void le_to_dec(char *out, const uint8_t *in, size_t n)
{
    uint32_t limb[12] = {0};
    size_t nl = (n + 3) / 4;
    for (size_t i = 0; i < n; i++)
        limb[i / 4] |= (uint32_t)in[i] << (8 * (i % 4));
    char rev[128];
    size_t len = 0;
    for (;;) {
        int zero = 1;
        uint64_t rem = 0;
        for (size_t i = nl; i-- > 0;) {
            uint64_t cur = (rem << 32) | limb[i];
            limb[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
            zero &= limb[i] == 0;
        }
        for (int d = 0; d < 9; d++) {
            rev[len++] = (char)('0' + rem % 10);
            rem /= 10;
            if (zero && rem == 0)
                break;
        }
        if (zero)
            break;
    }
    while (len > 1 && rev[len - 1] == '0')
        len--;
    for (size_t i = 0; i < len; i++)
        out[i] = rev[len - 1 - i];
    out[len] = 0;
}

cuzk_err snark_fp_from_dec(blst_fp *out, const char *s)
{
    uint8_t b[48];
    CUZK_TRY(dec_to_le(b, 48, s));
    if (!snark_lt_le(b, snark_bls_q, 48))
        return cuzk_fail(CUZK_EFORMAT, "coordinate %.40s... is not below q", s);
    blst_fp_from_lendian(out, b);
    return CUZK_OK;
}

cuzk_err snark_fr_from_dec(cuzk_fr *out, const char *s)
{
    uint8_t b[32];
    CUZK_TRY(dec_to_le(b, 32, s));
    if (!snark_lt_le(b, snark_bls_r, 32))
        return cuzk_fail(CUZK_EFORMAT, "value %.40s... is not below r", s);
    return cuzk_fr_from_bytes_le(out, b);
}

void snark_fp_to_dec(char out[120], const blst_fp *a)
{
    uint8_t b[48];
    blst_lendian_from_fp(b, a);
    le_to_dec(out, b, 48);
}

void snark_fr_to_dec(char out[80], const cuzk_fr *a)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, a);
    le_to_dec(out, b, 32);
}

void cuzk_snarkjs_fr_to_dec(char out[80], const cuzk_fr *a)
{
    snark_fr_to_dec(out, a);
}
