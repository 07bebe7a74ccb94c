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
#define FLD_ONE CUZK_FR_ONE
#include "field_impl.cuh"
#undef FLD
#undef FLD_N
#undef FLD_P
#undef FLD_PINV
#undef FLD_ONE

static __device__ __forceinline__ fp_t fp_inv(fp_t a)
{
    return fp_pow(a, CUZK_FP_P_MINUS_2, 6);
}

/* a^(p-2) with 4-bit windows: a table of a^0..a^15 (14 multiplications),
 * then 380 squarings and at most 95 multiplications, against ~190 for bit
 * by bit. The table lives in local memory (its index is data); for
 * kernels where one inversion's latency is the whole cost (the top of the
 * batch-affine product tree). */
static __device__ __forceinline__ fp_t fp_inv_w4(fp_t a)
{
    fp_t tab[16];
    tab[0] = fp_one();
    tab[1] = a;
    for (int i = 2; i < 16; i++)
        tab[i] = fp_mul(tab[i - 1], a);
    fp_t r = fp_one();
    int started = 0;
    for (int i = 5; i >= 0; i--)
        for (int nib = 15; nib >= 0; nib--) {
            if (started)
                r = fp_sqr(fp_sqr(fp_sqr(fp_sqr(r))));
            unsigned d = (unsigned)(CUZK_FP_P_MINUS_2[i] >> (4 * nib)) & 15u;
            if (d) {
                r = started ? fp_mul(r, tab[d]) : tab[d];
                started = 1;
            }
        }
    return r;
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
/* Karatsuba: 3 Fp multiplications. */
static __device__ __forceinline__ fp2_t fp2_mul(fp2_t a, fp2_t b)
{
    fp_t v0 = fp_mul(a.c0, b.c0), v1 = fp_mul(a.c1, b.c1);
    fp_t s = fp_mul(fp_add(a.c0, a.c1), fp_add(b.c0, b.c1));
    fp2_t r = {fp_sub(v0, v1), fp_sub(fp_sub(s, v0), v1)};
    return r;
}
/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: 2 Fp multiplications. */
static __device__ __forceinline__ fp2_t fp2_sqr(fp2_t a)
{
    fp_t t = fp_mul(a.c0, a.c1);
    fp2_t r = {fp_mul(fp_add(a.c0, a.c1), fp_sub(a.c0, a.c1)), fp_dbl(t)};
    return r;
}
/* 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2). */
static __device__ __forceinline__ fp2_t fp2_inv(fp2_t a)
{
    fp_t n = fp_inv(fp_add(fp_sqr(a.c0), fp_sqr(a.c1)));
    fp2_t r = {fp_mul(a.c0, n), fp_neg(fp_mul(a.c1, n))};
    return r;
}
/* The same through fp_inv_w4. */
static __device__ __forceinline__ fp2_t fp2_inv_w4(fp2_t a)
{
    fp_t n = fp_inv_w4(fp_add(fp_sqr(a.c0), fp_sqr(a.c1)));
    fp2_t r = {fp_mul(a.c0, n), fp_neg(fp_mul(a.c1, n))};
    return r;
}

#endif
