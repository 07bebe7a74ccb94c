/* Field arithmetic of BLS12-381 on the device: Fp (381-bit, 12 limbs), Fr
 * (255-bit, 8 limbs) and Fp2 = Fp[u]/(u^2 + 1).
 *
 * Fp and Fr come from one implementation, field_impl.cuh, included once per
 * field with its constants; the layout and Montgomery radix match blst
 * (R = 2^384 for Fp, 2^256 for Fr), so a blst_fp / blst_fr / blst_fp2 array
 * is a device array of these types byte for byte.
 *
 * The PTX_* macros wrap one carry-chain instruction each. */
#ifndef CUZK_GPU_FIELD_CUH
#define CUZK_GPU_FIELD_CUH

#include <stdint.h>
#include "fp_sgcd.h"

#define PTX_ADD_CC(d, a, b) asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_ADDC_CC(d, a, b) asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_ADDC(d, a, b) asm volatile("addc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_SUB_CC(d, a, b) asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_SUBC_CC(d, a, b) asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_SUBC(d, a, b) asm volatile("subc.u32 %0, %1, %2;" : "=r"(d) : "r"(a), "r"(b))
#define PTX_MADLO_CC(d, a, b, c)                                                                   \
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define PTX_MADLOC_CC(d, a, b, c)                                                                  \
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define PTX_MADHI_CC(d, a, b, c)                                                                   \
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define PTX_MADHIC_CC(d, a, b, c)                                                                  \
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define PTX_MADHIC(d, a, b, c)                                                                     \
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))
#define PTX_MADLOC(d, a, b, c)                                                                     \
    asm volatile("madc.lo.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c))

static __device__ __constant__ uint32_t CUZK_FP_P[12] = {
    0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe, 0xf6b0f624, 0x6730d2a0,
    0xf38512bf, 0x64774b84, 0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
static __device__ __constant__ uint32_t CUZK_FP_ONE[12] = {
    0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b, 0x53c758ba, 0x5f489857,
    0x70525745, 0x77ce5853, 0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
/* p - 2, the exponent of inversion by Fermat. */
static __device__ __constant__ uint64_t CUZK_FP_P_MINUS_2[6] = {
    0xb9feffffffffaaa9, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
    0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static __device__ __constant__ uint32_t CUZK_FR_P[8] = {
    0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402, 0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
static __device__ __constant__ uint32_t CUZK_FR_ONE[8] = {
    0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa, 0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};

#define FLD fp
#define FLD_N 12
#define FLD_P CUZK_FP_P
#define FLD_PINV 0xfffcfffdu
#define FLD_ONE CUZK_FP_ONE
#include "field_impl.cuh"
#undef FLD
#undef FLD_N
#undef FLD_P
#undef FLD_PINV
#undef FLD_ONE

#define FLD fr
#define FLD_N 8
#define FLD_P CUZK_FR_P
#define FLD_PINV 0xffffffffu
#define FLD_P01
#define FLD_ONE CUZK_FR_ONE
#include "field_impl.cuh"
#undef FLD
#undef FLD_N
#undef FLD_P
#undef FLD_PINV
#undef FLD_P01
#undef FLD_ONE

static __device__ __forceinline__ fp_t fp_inv(fp_t a)
{
    return fp_pow(a, CUZK_FP_P_MINUS_2, 6);
}

/* R^3 mod p (R = 2^384): turns the plain inverse of a Montgomery form aR
 * into the Montgomery form of 1/a, fp_mul((aR)^-1, R^3) = a^-1 R. */
static __device__ __constant__ uint32_t CUZK_FP_R3[12] = {
    0xd94ca1e0, 0xed48ac6b, 0x03a7adf8, 0x315f831e, 0x615e29dd, 0x9a53352a,
    0x921e1761, 0x34c04e5e, 0x65724728, 0x2512d435, 0x91755d4d, 0x0aa63460};

/* 1/a by Bernstein and Yang's division steps (fp_sgcd.h): 37 batches of
 * 30 steps on one word each, with the full values updated once per batch,
 * on the plain integer aR, then the product by R^3 (CUZK_FP_R3). 0 gives 0. */
static __device__ __forceinline__ fp_t fp_inv_sgcd(fp_t a)
{
    fp_t d, r3;
    sgcd_inverse(d.l, a.l, CUZK_FP_P);
#pragma unroll
    for (int i = 0; i < 12; i++)
        r3.l[i] = CUZK_FP_R3[i];
    return fp_mul(d, r3);
}

/* Fp2 = c0 + c1 u with u^2 = -1 (blst_fp2 layout). */
typedef struct {
    fp_t c0, c1;
} fp2_t;

static __device__ __forceinline__ fp2_t fp2_zero(void)
{
    fp2_t r = {fp_zero(), fp_zero()};
    return r;
}
static __device__ __forceinline__ fp2_t fp2_one(void)
{
    fp2_t r = {fp_one(), fp_zero()};
    return r;
}
static __device__ __forceinline__ int fp2_is_zero(fp2_t a)
{
    return fp_is_zero(a.c0) & fp_is_zero(a.c1);
}
static __device__ __forceinline__ int fp2_eq(fp2_t a, fp2_t b)
{
    return fp_eq(a.c0, b.c0) & fp_eq(a.c1, b.c1);
}
static __device__ __forceinline__ fp2_t fp2_add(fp2_t a, fp2_t b)
{
    fp2_t r = {fp_add(a.c0, b.c0), fp_add(a.c1, b.c1)};
    return r;
}
static __device__ __forceinline__ fp2_t fp2_dbl(fp2_t a)
{
    return fp2_add(a, a);
}
static __device__ __forceinline__ fp2_t fp2_sub(fp2_t a, fp2_t b)
{
    fp2_t r = {fp_sub(a.c0, b.c0), fp_sub(a.c1, b.c1)};
    return r;
}
static __device__ __forceinline__ fp2_t fp2_neg(fp2_t a)
{
    fp2_t r = {fp_neg(a.c0), fp_neg(a.c1)};
    return r;
}
/* p^2, 24 limbs: keeps a0 b0 - a1 b1 non-negative in fp2_mul. */
static __device__ __constant__ uint32_t CUZK_FP_P2[24] = {
    0x1c718e39, 0x26aa0000, 0x76382eab, 0x7ced6b1d, 0x62113cfd, 0x162c3383, 0x3e71b743, 0x66bf91ed,
    0x7091a049, 0x292e85a8, 0x86185c7b, 0x1d68619c, 0x0978ef01, 0xf5314933, 0x16ddca6e, 0x50a62cfd,
    0x349e8bd0, 0x66e59e49, 0x0e7046b4, 0xe2dc90e5, 0xa22f25e9, 0x4bd278ea, 0xb8c35fc7, 0x02a437a4};

/* a + b without the final subtraction (below 2p < 2^382: it fits). */
static __device__ __forceinline__ fp_t fp_add_unreduced(fp_t a, fp_t b)
{
    fp_t r;
    PTX_ADD_CC(r.l[0], a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < 11; i++)
        PTX_ADDC_CC(r.l[i], a.l[i], b.l[i]);
    PTX_ADDC(r.l[11], a.l[11], b.l[11]);
    return r;
}

/* x -= y over 24 limbs, modulo 2^768. */
static __device__ __forceinline__ void fp_wide_sub(uint32_t x[24], const uint32_t y[24])
{
    PTX_SUB_CC(x[0], x[0], y[0]);
#pragma unroll
    for (int i = 1; i < 24; i++)
        PTX_SUBC_CC(x[i], x[i], y[i]);
}

/* (a0 + a1 u)(b0 + b1 u) by Karatsuba with one Montgomery reduction per
 * output: the three whole products t0 = a0 b0, t1 = a1 b1 and s = (a0 +
 * a1)(b0 + b1), then c0 = redc(t0 - t1 + p^2) and c1 = redc(s - t0 - t1) =
 * redc(a0 b1 + a1 b0). Both arguments lie in [0, 2 p^2), below p R as redc
 * needs (2p < R), and a0 + a1 < 2p fits 12 limbs. Three products and two
 * reductions instead of three of each: on the H200 an Fp2 product went from
 * 8.6 to 10.1 G/s. */
static __device__ __forceinline__ fp2_t fp2_mul(fp2_t a, fp2_t b)
{
    uint32_t t0[24], t1[24], s[24];
    fp_mul_wide(t0, a.c0, b.c0);
    fp_mul_wide(t1, a.c1, b.c1);
    fp_t sa = fp_add_unreduced(a.c0, a.c1), sb = fp_add_unreduced(b.c0, b.c1);
    fp_mul_wide(s, sa, sb);
    fp_wide_sub(s, t0);
    fp_wide_sub(s, t1);
    fp_wide_sub(t0, t1);
    PTX_ADD_CC(t0[0], t0[0], CUZK_FP_P2[0]);
#pragma unroll
    for (int i = 1; i < 24; i++)
        PTX_ADDC_CC(t0[i], t0[i], CUZK_FP_P2[i]);
    fp2_t r = {fp_redc(t0), fp_redc(s)};
    return r;
}
/* The same product as three Montgomery multiplications (Karatsuba without
 * the lazy reduction): fewer live registers than fp2_mul, for the XYZZ
 * formulas (curve_impl.cuh), whose kernels keep whole points in registers
 * and spilled with the three 24-limb products live. fp_mul_narrow is
 * fp_mul, so the formulas read the same for both fields. */
static __device__ __forceinline__ fp2_t fp2_mul_narrow(fp2_t a, fp2_t b)
{
    fp_t v0 = fp_mul(a.c0, b.c0), v1 = fp_mul(a.c1, b.c1);
    fp_t s = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    fp2_t r = {fp_sub(v0, v1), fp_sub(fp_sub(s, v0), v1)};
    return r;
}
static __device__ __forceinline__ fp_t fp_mul_narrow(fp_t a, fp_t b)
{
    return fp_mul(a, b);
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp multiplications. */
static __device__ __forceinline__ fp2_t fp2_sqr(fp2_t a)
{
    fp_t t = fp_mul(a.c0, a.c1);
    fp2_t r = {fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1)), fp_dbl(t)};
    return r;
}
/* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2), given n = 1/(c0^2 + c1^2). */
static __device__ __forceinline__ fp2_t fp2_conj_scale(fp2_t a, fp_t n)
{
    fp2_t r = {fp_mul(a.c0, n), fp_neg(fp_mul(a.c1, n))};
    return r;
}
/* c0^2 + c1^2 with one reduction (the sum of the whole squares is below
 * 2 p^2 < p R). */
static __device__ __forceinline__ fp_t fp2_norm(fp2_t a)
{
    uint32_t t0[24], t1[24], t[24];
    fp_sqr_wide(t0, a.c0);
    fp_sqr_wide(t1, a.c1);
    fp_add_wide(t, t0, t1);
    return fp_redc(t);
}
static __device__ __forceinline__ fp2_t fp2_inv(fp2_t a)
{
    return fp2_conj_scale(a, fp_inv(fp2_norm(a)));
}
/* The same through fp_inv_sgcd. */
static __device__ __forceinline__ fp2_t fp2_inv_sgcd(fp2_t a)
{
    return fp2_conj_scale(a, fp_inv_sgcd(fp2_norm(a)));
}

#endif
