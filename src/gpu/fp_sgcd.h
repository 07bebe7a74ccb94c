/* Modular inversion by Bernstein and Yang's division steps ("Fast
 * constant-time gcd computation and modular inversion", 2019), for an odd
 * modulus of at most 381 bits given as 12 little-endian 32-bit words.
 *
 * Plain C that compiles for the host and, under nvcc, for the device: the
 * GPU's batch-affine levels invert the top of their product tree with it
 * (field.cuh, fp_inv_sgcd), and the CPU tests check it against blst.
 *
 * The state is delta, f = p, g = x and the coefficients d = 0, e = 1, with
 * f = d x and g = e x (mod p) throughout. A divstep is
 *   delta > 0 and g odd: (delta, f, g) <- (1 - delta, g, (g - f) / 2)
 *   g odd:               (delta, f, g) <- (1 + delta, f, (g + f) / 2)
 *   g even:              (delta, f, g) <- (1 + delta, f, g / 2).
 * Thirty of them depend only on the low 30 bits of f and g, so they run on
 * one word and give a matrix T with 2^30 (f', g') = T (f, g); the full f, g
 * are then updated once (an exact division by 2^30), and d, e become
 * T (d, e) / 2^30 mod p (a multiple of p added to clear the low 30 bits).
 * Theorem 11.2 of the paper bounds the steps to reach g = 0 by
 * floor((49 b + 57) / 17) for b-bit inputs (b >= 46): 1101 for 381 bits,
 * so 37 batches of 30 (1110 steps) always suffice; then f = +-1 and
 * x^-1 = +-d. Each batch lets |d|, |e| grow by at most p, so they stay
 * below 38 p and are reduced once at the end. x = 0 gives 0.
 *
 * Numbers are 13 signed limbs of 30 bits (390 bits): limbs 0..11 in
 * [0, 2^30) and the top one signed. The running time does not depend on x
 * except through an early exit once g is 0 (the GPU's values are public). */
#ifndef CUZK_GPU_FP_SGCD_H
#define CUZK_GPU_FP_SGCD_H

#include <stdint.h>

#ifdef __CUDACC__
#define SGCD_FN static __host__ __device__ __forceinline__
#define SGCD_UNROLL _Pragma("unroll")
#else
#define SGCD_FN static inline
#define SGCD_UNROLL
#endif
/* Whether any thread still has g != 0: a warp vote on the device. */
#ifdef __CUDA_ARCH__
#define SGCD_ANY(x) __any_sync(__activemask(), (x))
#else
#define SGCD_ANY(x) (x)
#endif

#define SGCD_LIMBS 13
#define SGCD_M30 0x3fffffff
#define SGCD_BATCHES 37 /* 37 x 30 = 1110 >= 1101 divsteps */

/* 12 words -> 13 limbs of 30 bits. */
SGCD_FN void sgcd_from_words(int32_t r[SGCD_LIMBS], const uint32_t w[12])
{
    SGCD_UNROLL
    for (int k = 0; k < SGCD_LIMBS; k++) {
        int bit = 30 * k, i = bit >> 5, s = bit & 31;
        uint32_t lo = i < 12 ? w[i] >> s : 0;
        if (s > 2 && i + 1 < 12)
            lo |= w[i + 1] << (32 - s);
        r[k] = (int32_t)(lo & SGCD_M30);
    }
}

/* 13 limbs of a value in [0, 2^384) -> 12 words: word i is bits 32 i ..
 * 32 i + 31, from limb k = 32 i / 30 at offset s and the next limb. */
SGCD_FN void sgcd_to_words(uint32_t w[12], const int32_t r[SGCD_LIMBS])
{
    SGCD_UNROLL
    for (int i = 0; i < 12; i++) {
        int k = 32 * i / 30, s = 32 * i % 30;
        uint64_t v = (uint64_t)(uint32_t)r[k] >> s;
        if (k + 1 < SGCD_LIMBS)
            v |= (uint64_t)(uint32_t)r[k + 1] << (30 - s);
        w[i] = (uint32_t)v;
    }
}

/* Thirty divsteps on the low words of f and g: returns the new delta and
 * the matrix t = (u, v, q, r), 2^30 f' = u f + v g, 2^30 g' = q f + r g.
 * Branch-free: the first case is the second after (f, g) <- (g, -f). */
SGCD_FN int32_t sgcd_divsteps30(int32_t delta, uint32_t f0, uint32_t g0, int32_t t[4])
{
    int32_t u = 1, v = 0, q = 0, r = 1;
    SGCD_UNROLL
    for (int i = 0; i < 30; i++) {
        /* all ones when delta > 0 and g is odd */
        int32_t c1 = (-delta >> 31) & -(int32_t)(g0 & 1);
        uint32_t m1 = (uint32_t)c1, tf = f0;
        int32_t tu = u, tv = v;
        f0 ^= (f0 ^ g0) & m1;
        g0 ^= (g0 ^ (0u - tf)) & m1;
        u ^= (u ^ q) & c1;
        v ^= (v ^ r) & c1;
        q ^= (q ^ -tu) & c1;
        r ^= (r ^ -tv) & c1;
        delta = (delta ^ c1) - c1;
        /* g odd: g += f, (q, r) += (u, v); then g /= 2, (u, v) *= 2 */
        int32_t c2 = -(int32_t)(g0 & 1);
        g0 += f0 & (uint32_t)c2;
        q += u & c2;
        r += v & c2;
        g0 >>= 1;
        u = (int32_t)((uint32_t)u << 1);
        v = (int32_t)((uint32_t)v << 1);
        delta += 1;
    }
    t[0] = u, t[1] = v, t[2] = q, t[3] = r;
    return delta;
}

/* (f, g) <- t (f, g) / 2^30, exactly. */
SGCD_FN void sgcd_update_fg(int32_t f[SGCD_LIMBS], int32_t g[SGCD_LIMBS], const int32_t t[4])
{
    int64_t cf = (int64_t)t[0] * f[0] + (int64_t)t[1] * g[0];
    int64_t cg = (int64_t)t[2] * f[0] + (int64_t)t[3] * g[0];
    cf >>= 30;
    cg >>= 30;
    SGCD_UNROLL
    for (int i = 1; i < SGCD_LIMBS; i++) {
        cf += (int64_t)t[0] * f[i] + (int64_t)t[1] * g[i];
        cg += (int64_t)t[2] * f[i] + (int64_t)t[3] * g[i];
        f[i - 1] = (int32_t)(cf & SGCD_M30);
        g[i - 1] = (int32_t)(cg & SGCD_M30);
        cf >>= 30;
        cg >>= 30;
    }
    f[SGCD_LIMBS - 1] = (int32_t)cf;
    g[SGCD_LIMBS - 1] = (int32_t)cg;
}

/* (d, e) <- t (d, e) / 2^30 mod p: m p added to each, m < 2^30 chosen with
 * ninv = -1/p mod 2^30 so that the low 30 bits vanish. */
SGCD_FN void sgcd_update_de(int32_t d[SGCD_LIMBS], int32_t e[SGCD_LIMBS], const int32_t t[4],
                            const int32_t p[SGCD_LIMBS], uint32_t ninv)
{
    int64_t cd = (int64_t)t[0] * d[0] + (int64_t)t[1] * e[0];
    int64_t ce = (int64_t)t[2] * d[0] + (int64_t)t[3] * e[0];
    int64_t md = (int64_t)(((uint32_t)cd * ninv) & SGCD_M30);
    int64_t me = (int64_t)(((uint32_t)ce * ninv) & SGCD_M30);
    cd += md * p[0];
    ce += me * p[0];
    cd >>= 30;
    ce >>= 30;
    SGCD_UNROLL
    for (int i = 1; i < SGCD_LIMBS; i++) {
        cd += (int64_t)t[0] * d[i] + (int64_t)t[1] * e[i] + md * p[i];
        ce += (int64_t)t[2] * d[i] + (int64_t)t[3] * e[i] + me * p[i];
        d[i - 1] = (int32_t)(cd & SGCD_M30);
        e[i - 1] = (int32_t)(ce & SGCD_M30);
        cd >>= 30;
        ce >>= 30;
    }
    d[SGCD_LIMBS - 1] = (int32_t)cd;
    e[SGCD_LIMBS - 1] = (int32_t)ce;
}

/* r <- r - k p when that is not negative (r >= 0, limbs normalized). */
SGCD_FN void sgcd_csub(int32_t r[SGCD_LIMBS], const int32_t p[SGCD_LIMBS], int64_t k)
{
    int32_t t[SGCD_LIMBS];
    int64_t c = 0;
    SGCD_UNROLL
    for (int i = 0; i < SGCD_LIMBS; i++) {
        c += (int64_t)r[i] - k * p[i];
        t[i] = i + 1 < SGCD_LIMBS ? (int32_t)(c & SGCD_M30) : (int32_t)c;
        c >>= 30;
    }
    int32_t keep = t[SGCD_LIMBS - 1] >> 31; /* all ones: negative, keep r */
    SGCD_UNROLL
    for (int i = 0; i < SGCD_LIMBS; i++)
        r[i] = (r[i] & keep) | (t[i] & ~keep);
}

/* out = x^-1 mod p (plain integers, x < p; 0 for 0). The batches stop
 * once g is 0 (in every lane of the warp, on the device). */
SGCD_FN void sgcd_inverse(uint32_t out[12], const uint32_t x[12], const uint32_t pw[12])
{
    int32_t p[SGCD_LIMBS], f[SGCD_LIMBS], g[SGCD_LIMBS], d[SGCD_LIMBS] = {0}, e[SGCD_LIMBS] = {1};
    sgcd_from_words(p, pw);
    sgcd_from_words(g, x);
    SGCD_UNROLL
    for (int i = 0; i < SGCD_LIMBS; i++)
        f[i] = p[i];
    /* -1/p mod 2^30 by Newton's iteration (p odd: 1/p = p mod 8) */
    uint32_t inv = pw[0];
    SGCD_UNROLL
    for (int i = 0; i < 4; i++)
        inv *= 2u - pw[0] * inv;
    uint32_t ninv = 0u - inv;
    int32_t delta = 1, t[4];
    for (int b = 0; b < SGCD_BATCHES; b++) {
        int32_t nz = 0;
        SGCD_UNROLL
        for (int i = 0; i < SGCD_LIMBS; i++)
            nz |= g[i];
        if (!SGCD_ANY(nz != 0))
            break;
        delta = sgcd_divsteps30(delta, (uint32_t)f[0], (uint32_t)g[0], t);
        sgcd_update_fg(f, g, t);
        sgcd_update_de(d, e, t, p, ninv);
    }
    /* f = +-1: r = sign(f) d + 40 p, in (2 p, 78 p), then reduced below p */
    int64_t s = f[SGCD_LIMBS - 1] < 0 ? -1 : 1, c = 0;
    int32_t r[SGCD_LIMBS];
    SGCD_UNROLL
    for (int i = 0; i < SGCD_LIMBS; i++) {
        c += s * d[i] + 40 * (int64_t)p[i];
        r[i] = i + 1 < SGCD_LIMBS ? (int32_t)(c & SGCD_M30) : (int32_t)c;
        c >>= 30;
    }
    SGCD_UNROLL
    for (int64_t k = 64; k >= 1; k >>= 1)
        sgcd_csub(r, p, k);
    sgcd_to_words(out, r);
}

#endif
