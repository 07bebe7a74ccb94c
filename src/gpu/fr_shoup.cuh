/* Fr products by a factor known ahead (Shoup's method), for the NTT's
 * twiddles; apart from field.cuh, as only the NTT and its tests use it. */
#ifndef CUZK_GPU_FR_SHOUP_CUH
#define CUZK_GPU_FR_SHOUP_CUH

#include "field.cuh"

/* 2^256 - p and -p^-1 mod 2^256, for fr_mul_shoup and its factors. */
static __device__ __constant__ uint32_t CUZK_FR_PNEG[8] = {
    0xffffffff, 0x00000000, 0x0001a401, 0xac425bfd, 0xf65e27fa, 0xccc627f7, 0xd66282b7, 0x8c1258ac};
static __device__ __constant__ uint32_t CUZK_FR_NINV[8] = {
    0xffffffff, 0xfffffffe, 0xfffe5bfd, 0x53ba5bff, 0x0004ec06, 0x181b2c17, 0xd7bf2839, 0x3d443ab0};

/* For a factor used many times (the NTT's twiddles), keep its canonical
 * value w (not its Montgomery form) and wq = floor(w 2^256 / p). Then
 * x w mod p for any x < 2p needs no Montgomery reduction: q = floor(x wq /
 * 2^256) is floor(x w / p) or one less, so r = x w - q p is in [0, 2p),
 * below 2^256 (p < 0.46 2^256), and is the low half of x w + q (2^256 - p);
 * one conditional subtraction reduces it. If x is a Montgomery form (x' R),
 * r is that of x' w, the same bytes fr_mul gives with w's Montgomery form.
 * q needs only the product's columns 7 and up (and the high halves of
 * column 6): what is left out is below 13 2^224, which moves q by less than
 * one besides the one that wq's rounding allows. 36 + 7 half products for
 * q, 36 + 21 low ones for r (2^256 - p has a zero limb 1): ~180 wide
 * multiply-adds against fr_mul's ~230. */

/* acc += a b_j 2^(32 (i + j)) mod 2^256 for j = j0, j0 + 2, ... (i + j <=
 * 7): one carry chain from limb i + j0 to the top, its carry dropped. */
static __device__ __forceinline__ void fr_lo_row(uint32_t acc[8], uint32_t a, const uint32_t *b,
                                                 int i, int j0)
{
#pragma unroll
    for (int j = j0; i + j <= 7; j += 2) {
        const int k = i + j;
        if (k == 7) { /* the low half only, at the top */
            if (j == j0)
                acc[7] += a * b[j];
            else
                PTX_MADLOC(acc[7], a, b[j], acc[7]);
        } else {
            if (j == j0)
                PTX_MADLO_CC(acc[k], a, b[j], acc[k]);
            else
                PTX_MADLOC_CC(acc[k], a, b[j], acc[k]);
            if (k == 6)
                PTX_MADHIC(acc[7], a, b[j], acc[7]);
            else
                PTX_MADHIC_CC(acc[k + 1], a, b[j], acc[k + 1]);
        }
    }
}

/* a b mod 2^256 (limbs). */
static __device__ __forceinline__ fr_t fr_mul_lo(const uint32_t *a, const uint32_t *b)
{
    fr_t r = fr_zero();
#pragma unroll
    for (int i = 0; i < 8; i++) {
        fr_lo_row(r.l, a[i], b, i, 0);
        fr_lo_row(r.l, a[i], b, i, 1);
    }
    return r;
}

/* The factor's pair from its Montgomery form W = w 2^256 mod p: w, and wq =
 * (w 2^256 - W) / p, which is -W p^-1 mod 2^256 (exact division by odd p). */
static __device__ __forceinline__ void fr_shoup_prep(fr_t W, fr_t *w, fr_t *wq)
{
    *w = fr_from_mont(W);
    *wq = fr_mul_lo(W.l, CUZK_FR_NINV);
}

/* q = floor(T / 2^256), T the columns >= 7 of x wq plus the high halves of
 * column 6, relative to column 7 in two accumulators: C holds the pairs
 * that start at even positions, D those at odd ones after column 6's high
 * halves at position 0. Row i's chains end by position i + 1 and carry into
 * a limb that holds at most one earlier carry. */
static __device__ __forceinline__ void fr_shoup_q(uint32_t q[8], const fr_t &x, const fr_t &wq)
{
    uint32_t C[9], D[9];
#pragma unroll
    for (int k = 0; k < 9; k++)
        C[k] = D[k] = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        const uint32_t a = x.l[i];
        /* pairs at even positions k <= i: wq_j with j = k + 7 - i */
        PTX_MADLO_CC(C[0], a, wq.l[7 - i], C[0]);
        PTX_MADHIC_CC(C[1], a, wq.l[7 - i], C[1]);
#pragma unroll
        for (int k = 2; k <= i; k += 2) {
            PTX_MADLOC_CC(C[k], a, wq.l[k + 7 - i], C[k]);
            PTX_MADHIC_CC(C[k + 1], a, wq.l[k + 7 - i], C[k + 1]);
        }
        PTX_ADDC(C[(i & ~1) + 2], C[(i & ~1) + 2], 0);
        /* column 6's high half, then the pairs at odd positions */
        if (i < 7)
            PTX_MADHI_CC(D[0], a, wq.l[6 - i], D[0]);
#pragma unroll
        for (int k = 1; k <= i; k += 2) {
            if (i == 7 && k == 1)
                PTX_MADLO_CC(D[1], a, wq.l[1], D[1]);
            else
                PTX_MADLOC_CC(D[k], a, wq.l[k + 7 - i], D[k]);
            PTX_MADHIC_CC(D[k + 1], a, wq.l[k + 7 - i], D[k + 1]);
        }
        if (i < 7) /* row 7 ends at the top, whose carry is zero */
            PTX_ADDC(D[i == 0 ? 1 : ((i - 1) | 1) + 2], D[i == 0 ? 1 : ((i - 1) | 1) + 2], 0);
    }
    PTX_ADD_CC(C[0], C[0], D[0]); /* only its carry is needed */
#pragma unroll
    for (int k = 1; k < 8; k++)
        PTX_ADDC_CC(q[k - 1], C[k], D[k]);
    PTX_ADDC(q[7], C[8], D[8]);
}

/* x w mod p, fully reduced, for x < 2p and (w, wq) from fr_shoup_prep. */
static __device__ __forceinline__ fr_t fr_mul_shoup(fr_t x, const fr_t &w, const fr_t &wq)
{
    uint32_t q[8];
    fr_shoup_q(q, x, wq);
    fr_t r = fr_zero();
#pragma unroll
    for (int i = 0; i < 8; i++) {
        fr_lo_row(r.l, x.l[i], w.l, i, 0);
        fr_lo_row(r.l, x.l[i], w.l, i, 1);
        fr_lo_row(r.l, q[i], CUZK_FR_PNEG, i, 0);
        fr_lo_row(r.l, q[i], CUZK_FR_PNEG, i, 3); /* limb 1 of 2^256 - p is 0 */
    }
    return fr_final_sub(r, 0);
}

#endif
