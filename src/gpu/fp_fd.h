/* The whole 768-bit product of two 384-bit integers with its partial
 * products on the double-precision pipe: plain C for the host (tests) and
 * the device (field.cuh).
 *
 * Why: the Montgomery multiplication of field_impl.cuh runs every partial
 * product as 32-bit integer multiply-adds, which share one pipe of half the
 * issue rate; the fused multiply-add on doubles is a separate pipe of the
 * same rate, idle in every kernel of ours. Here each operand is cut into 16
 * digits of 24 bits, held exactly as doubles; a digit product is below
 * 2^48, so the 16 products of a column and their sum (below 16 * 2^48 =
 * 2^52) are exact in a double's 53-bit mantissa, and each column is one
 * chain of fused multiply-adds with no rounding anywhere. Adding 2^52 to a
 * column sum puts its integer value in the low 52 bits of the double's
 * encoding; the 31 columns are then carried into 32 digits of 24 bits and
 * packed into 24 limbs of 32 bits, for the integer Montgomery reduction
 * (fp_redc). The digits enter the double format the same way, by encoding
 * 2^52 + d and subtracting 2^52.
 *
 * Whether that pays is a measurement (cuzk-bench gpu-fpmul). On the H200
 * it does not: 21.4 G products/s against 26.1 for the integer CIOS, 24.6
 * with one chain of each per thread. The integer pipe's wide multiply-add
 * yields 64 product bits an instruction, a double's 48; with the digit and
 * column conversions a product takes about twice the instructions, and the
 * issue slots, not the multipliers, then run out. Kept for the benchmark
 * and for devices whose pipes are balanced differently; no kernel uses it. */
#ifndef CUZK_FP_FD_H
#define CUZK_FP_FD_H

#include <stdint.h>

#ifdef __CUDACC__
#define FD_INL static __host__ __device__ __forceinline__
#define FD_UNROLL _Pragma("unroll")
#else
#define FD_UNROLL
#include <math.h>
#include <string.h>
#define FD_INL static inline
#endif

FD_INL uint64_t fd_bits(double x)
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__double_as_longlong(x);
#else
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
#endif
}

FD_INL double fd_from_bits(uint64_t u)
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double((long long)u);
#else
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
#endif
}

FD_INL double fd_fma(double a, double b, double c)
{
#ifdef __CUDA_ARCH__
    return __fma_rn(a, b, c);
#else
    return fma(a, b, c);
#endif
}

#define FD_TWO52 4503599627370496.0 /* 2^52 */
#define FD_TWO52_BITS 0x4330000000000000ull

/* A digit d < 2^24 as the double d, exactly. */
FD_INL double fd_digit(uint32_t d)
{
    return fd_from_bits(FD_TWO52_BITS | d) - FD_TWO52;
}

/* x (12 limbs, little-endian) as 16 digits of 24 bits. */
FD_INL void fd_split(double D[16], const uint32_t x[12])
{
    FD_UNROLL
    for (int g = 0; g < 4; g++) {
        uint32_t w0 = x[3 * g], w1 = x[3 * g + 1], w2 = x[3 * g + 2];
        D[4 * g] = fd_digit(w0 & 0xffffffu);
        D[4 * g + 1] = fd_digit((w0 >> 24) | ((w1 & 0xffffu) << 8));
        D[4 * g + 2] = fd_digit((w1 >> 16) | ((w2 & 0xffu) << 16));
        D[4 * g + 3] = fd_digit(w2 >> 8);
    }
}

/* t = a b (24 limbs) for a, b < 2^384 (12 limbs each). */
FD_INL void fd_mul_wide(uint32_t t[24], const uint32_t a[12], const uint32_t b[12])
{
    double A[16], B[16];
    fd_split(A, a);
    fd_split(B, b);
    uint32_t d[32];
    uint64_t carry = 0;
    FD_UNROLL
    for (int k = 0; k < 31; k++) {
        double c = 0;
        FD_UNROLL
        for (int i = 0; i < 16; i++) /* constant bounds: unrolled into registers */
            if (k - i >= 0 && k - i < 16)
                c = i == (k < 16 ? 0 : k - 15) ? A[i] * B[k - i] : fd_fma(A[i], B[k - i], c);
        /* c < 2^52 and an integer: 2^52 + c is exact, its low 52 bits c */
        uint64_t s = (fd_bits(c + FD_TWO52) & 0xfffffffffffffull) + carry;
        d[k] = (uint32_t)s & 0xffffffu;
        carry = s >> 24;
    }
    d[31] = (uint32_t)carry; /* below 2^24: the product is below 2^768 */
    FD_UNROLL
    for (int g = 0; g < 8; g++) {
        t[3 * g] = d[4 * g] | (d[4 * g + 1] << 24);
        t[3 * g + 1] = (d[4 * g + 1] >> 8) | (d[4 * g + 2] << 16);
        t[3 * g + 2] = (d[4 * g + 2] >> 16) | (d[4 * g + 3] << 8);
    }
}

#undef FD_INL
#undef FD_UNROLL
#endif
