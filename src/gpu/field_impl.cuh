/* One prime field in Montgomery form on the device, written once and
 * included by field.cuh for each field (Fp of BLS12-381 and its scalar field
 * Fr). The includer defines:
 *   FLD       name prefix (fp, fr)
 *   FLD_N     number of 32-bit limbs (12, 8)
 *   FLD_P     __constant__ array of the modulus limbs, little-endian
 *   FLD_PINV  -p^-1 mod 2^32
 *   FLD_ONE   __constant__ array of R mod p (the Montgomery form of 1)
 *
 * Elements are FLD_N little-endian 32-bit limbs, always fully reduced
 * (< p), with R = 2^(32 FLD_N): the same bytes as blst's blst_fp / blst_fr,
 * so vectors move between host and device without conversion and results
 * compare bit for bit.
 *
 * Multiplication is separated operand scanning: a schoolbook 2N-limb product
 * whose rows are PTX carry chains (mad.lo.cc / madc.hi.cc, the low and high
 * halves of each row in two chains), then a word-by-word Montgomery
 * reduction of the low half added to the high half. Squaring computes each
 * cross product once, doubles, and adds the diagonal: about 3/4 of the
 * multiplications. Both fields have 2p < R, so one conditional subtraction
 * at the end gives a fully reduced result. Carry-flag ordering across the
 * separate asm statements is kept by ptxas, which tracks the condition code
 * as a resource; the device tests check every operation against blst. */

#define FLD_CAT2(a, b) a##b
#define FLD_CAT(a, b) FLD_CAT2(a, b)
#define FN(x) FLD_CAT(FLD, x)
#define FT FLD_CAT(FLD, _t)

/* 16-byte aligned (both sizes are multiples of 16) so arrays load with
 * 128-bit accesses. */
typedef struct __align__(16)
{
    uint32_t l[FLD_N];
}
FT;

static __device__ __forceinline__ FT FN(_zero)(void)
{
    FT r;
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        r.l[i] = 0;
    return r;
}

static __device__ __forceinline__ FT FN(_one)(void)
{
    FT r;
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        r.l[i] = FLD_ONE[i];
    return r;
}

static __device__ __forceinline__ int FN(_is_zero)(FT a)
{
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        x |= a.l[i];
    return x == 0;
}

static __device__ __forceinline__ int FN(_eq)(FT a, FT b)
{
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        x |= a.l[i] ^ b.l[i];
    return x == 0;
}

/* r = t - p if t (with carry-in limb c) >= p, else t. */
static __device__ __forceinline__ FT FN(_final_sub)(FT t, uint32_t c)
{
    FT s;
    uint32_t keep;
    PTX_SUB_CC(s.l[0], t.l[0], FLD_P[0]);
#pragma unroll
    for (int i = 1; i < FLD_N; i++)
        PTX_SUBC_CC(s.l[i], t.l[i], FLD_P[i]);
    PTX_SUBC(keep, c, 0); /* all ones when t < p */
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        s.l[i] = (t.l[i] & keep) | (s.l[i] & ~keep);
    return s;
}

static __device__ __forceinline__ FT FN(_add)(FT a, FT b)
{
    FT t;
    uint32_t c;
    PTX_ADD_CC(t.l[0], a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < FLD_N; i++)
        PTX_ADDC_CC(t.l[i], a.l[i], b.l[i]);
    PTX_ADDC(c, 0, 0);
    return FN(_final_sub)(t, c);
}

static __device__ __forceinline__ FT FN(_dbl)(FT a)
{
    return FN(_add)(a, a);
}

static __device__ __forceinline__ FT FN(_sub)(FT a, FT b)
{
    FT t;
    uint32_t borrow;
    PTX_SUB_CC(t.l[0], a.l[0], b.l[0]);
#pragma unroll
    for (int i = 1; i < FLD_N; i++)
        PTX_SUBC_CC(t.l[i], a.l[i], b.l[i]);
    PTX_SUBC(borrow, 0, 0); /* all ones when a < b: add p back */
    PTX_ADD_CC(t.l[0], t.l[0], FLD_P[0] & borrow);
#pragma unroll
    for (int i = 1; i < FLD_N - 1; i++)
        PTX_ADDC_CC(t.l[i], t.l[i], FLD_P[i] & borrow);
    PTX_ADDC(t.l[FLD_N - 1], t.l[FLD_N - 1], FLD_P[FLD_N - 1] & borrow);
    return t;
}

static __device__ __forceinline__ FT FN(_neg)(FT a)
{
    return FN(_sub)(FN(_zero)(), a);
}

/* Montgomery reduction of a 2N-limb t < p R: t / R mod p, fully reduced. */
static __device__ __forceinline__ FT FN(_redc)(const uint32_t t[2 * FLD_N])
{
    uint32_t u[FLD_N + 1];
#pragma unroll
    for (int i = 0; i < FLD_N; i++)
        u[i] = t[i];
    u[FLD_N] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        uint32_t m = u[0] * FLD_PINV;
        /* u += m p, low halves then high halves; u[0] becomes 0. */
        PTX_MADLO_CC(u[0], m, FLD_P[0], u[0]);
#pragma unroll
        for (int j = 1; j < FLD_N; j++)
            PTX_MADLOC_CC(u[j], m, FLD_P[j], u[j]);
        PTX_ADDC(u[FLD_N], u[FLD_N], 0);
        PTX_MADHI_CC(u[1], m, FLD_P[0], u[1]);
#pragma unroll
        for (int j = 1; j < FLD_N - 1; j++)
            PTX_MADHIC_CC(u[j + 1], m, FLD_P[j], u[j + 1]);
        PTX_MADHIC(u[FLD_N], m, FLD_P[FLD_N - 1], u[FLD_N]);
        /* u < 2^(32N) + 2^32 p fits N+1 limbs; divide by 2^32. */
#pragma unroll
        for (int j = 0; j < FLD_N; j++)
            u[j] = u[j + 1];
        u[FLD_N] = 0;
    }
    /* u <= p and the high half < p: the sum is < 2p < R. */
    FT r;
    uint32_t c;
    PTX_ADD_CC(r.l[0], u[0], t[FLD_N]);
#pragma unroll
    for (int i = 1; i < FLD_N; i++)
        PTX_ADDC_CC(r.l[i], u[i], t[FLD_N + i]);
    PTX_ADDC(c, 0, 0);
    return FN(_final_sub)(r, c);
}

static __device__ __forceinline__ FT FN(_mul)(FT a, FT b)
{
    uint32_t t[2 * FLD_N];
#pragma unroll
    for (int i = 0; i < 2 * FLD_N; i++)
        t[i] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        uint32_t bi = b.l[i];
        /* Row i: low halves into t[i .. i+N-1], carry into t[i+N]. */
        PTX_MADLO_CC(t[i], a.l[0], bi, t[i]);
#pragma unroll
        for (int j = 1; j < FLD_N; j++)
            PTX_MADLOC_CC(t[i + j], a.l[j], bi, t[i + j]);
        PTX_ADDC(t[i + FLD_N], t[i + FLD_N], 0);
        /* High halves into t[i+1 .. i+N], carry into t[i+N+1]. */
        PTX_MADHI_CC(t[i + 1], a.l[0], bi, t[i + 1]);
#pragma unroll
        for (int j = 1; j < FLD_N; j++)
            PTX_MADHIC_CC(t[i + j + 1], a.l[j], bi, t[i + j + 1]);
        if (i + FLD_N + 1 < 2 * FLD_N)
            PTX_ADDC(t[i + FLD_N + 1], 0, 0);
    }
    return FN(_redc)(t);
}

static __device__ __forceinline__ FT FN(_sqr)(FT a)
{
    uint32_t t[2 * FLD_N];
#pragma unroll
    for (int i = 0; i < 2 * FLD_N; i++)
        t[i] = 0;
        /* Cross products a_i a_j, i < j, each once. */
#pragma unroll
    for (int i = 0; i < FLD_N - 1; i++) {
        uint32_t ai = a.l[i];
        PTX_MADLO_CC(t[2 * i + 1], ai, a.l[i + 1], t[2 * i + 1]);
#pragma unroll
        for (int j = i + 2; j < FLD_N; j++)
            PTX_MADLOC_CC(t[i + j], ai, a.l[j], t[i + j]);
        PTX_ADDC(t[i + FLD_N], t[i + FLD_N], 0);
        PTX_MADHI_CC(t[2 * i + 2], ai, a.l[i + 1], t[2 * i + 2]);
#pragma unroll
        for (int j = i + 2; j < FLD_N; j++)
            PTX_MADHIC_CC(t[i + j + 1], ai, a.l[j], t[i + j + 1]);
        PTX_ADDC(t[i + FLD_N + 1], 0, 0);
    }
    /* Double (the cross sum is below 2^(64N-1)), then add the squares. */
#pragma unroll
    for (int i = 2 * FLD_N - 1; i > 0; i--)
        t[i] = __funnelshift_l(t[i - 1], t[i], 1);
    t[0] <<= 1;
    PTX_MADLO_CC(t[0], a.l[0], a.l[0], t[0]);
    PTX_MADHIC_CC(t[1], a.l[0], a.l[0], t[1]);
#pragma unroll
    for (int i = 1; i < FLD_N - 1; i++) {
        PTX_MADLOC_CC(t[2 * i], a.l[i], a.l[i], t[2 * i]);
        PTX_MADHIC_CC(t[2 * i + 1], a.l[i], a.l[i], t[2 * i + 1]);
    }
    PTX_MADLOC_CC(t[2 * FLD_N - 2], a.l[FLD_N - 1], a.l[FLD_N - 1], t[2 * FLD_N - 2]);
    PTX_MADHIC(t[2 * FLD_N - 1], a.l[FLD_N - 1], a.l[FLD_N - 1], t[2 * FLD_N - 1]);
    return FN(_redc)(t);
}

/* Montgomery form -> canonical value (a R^-1), and back (a R^2 R^-1). */
static __device__ __forceinline__ FT FN(_from_mont)(FT a)
{
    uint32_t t[2 * FLD_N];
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        t[i] = a.l[i];
        t[FLD_N + i] = 0;
    }
    return FN(_redc)(t);
}

/* a^e for a small public exponent given as 64-bit limbs, most significant
 * limb first in the loop (square and multiply, not constant time: only for
 * public values such as p - 2). */
static __device__ __forceinline__ FT FN(_pow)(FT a, const uint64_t *e, int nlimbs)
{
    FT r = FN(_one)();
    int started = 0;
    for (int i = nlimbs - 1; i >= 0; i--)
        for (int b = 63; b >= 0; b--) {
            if (started)
                r = FN(_sqr)(r);
            if ((e[i] >> b) & 1) {
                r = started ? FN(_mul)(r, a) : a;
                started = 1;
            }
        }
    return r;
}

#undef FT
#undef FN
#undef FLD_CAT
#undef FLD_CAT2
