/* One prime field in Montgomery form on the device, written once and
 * included by field.cuh for each field (Fp of BLS12-381 and its scalar field
 * Fr). The includer defines:
 *   FLD       name prefix (fp, fr)
 *   FLD_N     number of 32-bit limbs (12, 8)
 *   FLD_P     __constant__ array of the modulus limbs, little-endian
 *   FLD_PINV  -p^-1 mod 2^32
 *   FLD_P01   (optional) when p's two low limbs are 1 and 2^32 - 1
 *   FLD_ONE   __constant__ array of R mod p (the Montgomery form of 1)
 *
 * Elements are FLD_N little-endian 32-bit limbs, always fully reduced
 * (< p), with R = 2^(32 FLD_N): the same bytes as blst's blst_fp / blst_fr,
 * so vectors move between host and device without conversion and results
 * compare bit for bit.
 *
 * Multiplication is word-by-word Montgomery (CIOS) with every 32x32-bit
 * product kept whole: the even-indexed limbs of a multiplicand are added
 * into one accumulator and the odd-indexed ones into another, so the 64-bit
 * products of one row land on disjoint limb pairs and a row is one carry
 * chain of lo/hi pairs (mad.lo.cc / madc.hi.cc), which the device runs as
 * wide multiply-adds; the reduction by m p uses the same two accumulators,
 * and the division by 2^32 is a swap of their roles. Squaring computes each
 * cross product once (again as whole products into two accumulators),
 * doubles, adds the diagonal and reduces the low half the same way. Both
 * fields have 2p < R, so one conditional subtraction at the end gives a
 * fully reduced result. Carry-flag ordering across the
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

/* acc[0..N] += (x[o] + x[o+2] 2^64 + x[o+4] 2^128 + ...) y (+ the carry flag
 * when cin): the 64-bit products of every other limb of x land on disjoint
 * limb pairs of acc, so one carry chain adds them all, and each lo/hi pair
 * of the chain is one wide multiply-add on the device (a product split into
 * a low chain and a high chain needs a separate high-half multiply, at a
 * higher cost per product). The chain's carry goes into acc[N]. */
static __device__ __forceinline__ void FN(_mad_pairs_from)(uint32_t *acc, const uint32_t *x, int o,
                                                           uint32_t y, int k0)
{
#pragma unroll
    for (int k = k0; k < FLD_N; k += 2) {
        PTX_MADLOC_CC(acc[k], x[k + o], y, acc[k]);
        PTX_MADHIC_CC(acc[k + 1], x[k + o], y, acc[k + 1]);
    }
    PTX_ADDC(acc[FLD_N], acc[FLD_N], 0);
}

static __device__ __forceinline__ void FN(_mad_pairs)(uint32_t *acc, const uint32_t *x, int o,
                                                      uint32_t y, int cin)
{
    if (cin)
        PTX_MADLOC_CC(acc[0], x[o], y, acc[0]);
    else
        PTX_MADLO_CC(acc[0], x[o], y, acc[0]);
    PTX_MADHIC_CC(acc[1], x[o], y, acc[1]);
    FN(_mad_pairs_from)(acc, x, o, y, 2);
}

/* The same with the modulus as x (its limbs come from constant memory:
 * the pointer is resolved once inlined). With FLD_P01 (Fr: p_0 = 1, p_1 =
 * 2^32 - 1) the first pair of either chain needs no multiplication: y p_0
 * = y, and y p_1 = 2^32 (y - 1) + (2^32 - y) for y > 0 (0 for y = 0), so
 * each Montgomery row does 4 of its 16 wide multiply-adds as additions. */
static __device__ __forceinline__ void FN(_mad_pairs_p)(uint32_t *acc, int o, uint32_t y, int cin)
{
#ifdef FLD_P01
    const uint32_t lo = o ? 0u - y : y, hi = o ? y - (y != 0) : 0u;
    if (cin)
        PTX_ADDC_CC(acc[0], acc[0], lo);
    else
        PTX_ADD_CC(acc[0], acc[0], lo);
    PTX_ADDC_CC(acc[1], acc[1], hi);
    FN(_mad_pairs_from)(acc, FLD_P, o, y, 2);
#else
    FN(_mad_pairs)(acc, FLD_P, o, y, cin);
#endif
}

/* Montgomery steps on a value held as V = E + 2^32 O + e (E and O of N+1
 * limbs, e one limb): even-indexed limbs of a multiplicand are added into E
 * and odd-indexed ones into O, each as disjoint pairs. A step adds m p with
 * m = E[0] (-p^-1) so that E[0] becomes 0, then divides by 2^32: O is then
 * aligned at limb 0 and becomes E, E's limbs 2.. become O, and E[1], which
 * lands on limb 0 again, is kept aside as e: the next step adds it to E[0]
 * and its carry enters that step's first O chain (O starts one limb up), so
 * no step needs a carry propagation of its own. Each accumulator stays
 * below 2^(32N+2); V stays below 2p (CIOS bound for inputs below p). */
static __device__ __forceinline__ void FN(_step_end)(uint32_t *E, uint32_t *O, uint32_t *e)
{
    *e = E[1];
    uint32_t t[FLD_N + 1];
#pragma unroll
    for (int k = 0; k + 2 <= FLD_N; k++)
        t[k] = E[k + 2];
    t[FLD_N - 1] = t[FLD_N] = 0;
#pragma unroll
    for (int k = 0; k <= FLD_N; k++) {
        E[k] = O[k];
        O[k] = t[k];
    }
}

/* E + 2^32 O + e into N limbs (the value is known to fit). */
static __device__ __forceinline__ FT FN(_merge)(const uint32_t *E, const uint32_t *O, uint32_t e)
{
    FT r;
    PTX_ADD_CC(r.l[0], E[0], e);
#pragma unroll
    for (int k = 1; k < FLD_N - 1; k++)
        PTX_ADDC_CC(r.l[k], E[k], O[k - 1]);
    PTX_ADDC(r.l[FLD_N - 1], E[FLD_N - 1], O[FLD_N - 2]);
    return r;
}

/* Montgomery reduction of a 2N-limb t < p R: t / R mod p, fully reduced.
 * The low half is reduced by N steps (to at most p), then the high half
 * (< p) is added: the sum is < 2p < R. */
static __device__ __forceinline__ FT FN(_redc)(const uint32_t t[2 * FLD_N])
{
    uint32_t E[FLD_N + 1], O[FLD_N + 1], e = 0;
#pragma unroll
    for (int k = 0; k < FLD_N; k++) {
        E[k] = t[k];
        O[k] = 0;
    }
    E[FLD_N] = O[FLD_N] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        /* m from E[0] + e before the carry flag is set. */
        uint32_t m = (E[0] + e) * FLD_PINV;
        if (i) {
            PTX_ADD_CC(E[0], E[0], e);
            FN(_mad_pairs_p)(O, 1, m, 1);
        } else {
            FN(_mad_pairs_p)(O, 1, m, 0);
        }
        FN(_mad_pairs_p)(E, 0, m, 0);
        FN(_step_end)(E, O, &e);
    }
    FT v = FN(_merge)(E, O, e), r;
    uint32_t c;
    PTX_ADD_CC(r.l[0], v.l[0], t[FLD_N]);
#pragma unroll
    for (int i = 1; i < FLD_N; i++)
        PTX_ADDC_CC(r.l[i], v.l[i], t[FLD_N + i]);
    PTX_ADDC(c, 0, 0);
    return FN(_final_sub)(r, c);
}

/* Montgomery product, word by word (CIOS) on the two accumulators: step i
 * adds a b_i (even limbs of a into E, odd limbs into O) and reduces. */
static __device__ __forceinline__ FT FN(_mul)(FT a, FT b)
{
    uint32_t E[FLD_N + 1], O[FLD_N + 1], e = 0;
    /* Step 0 starts from zero: plain products. */
#pragma unroll
    for (int k = 0; k < FLD_N; k += 2) {
        E[k] = a.l[k] * b.l[0];
        E[k + 1] = __umulhi(a.l[k], b.l[0]);
        O[k] = a.l[k + 1] * b.l[0];
        O[k + 1] = __umulhi(a.l[k + 1], b.l[0]);
    }
    E[FLD_N] = O[FLD_N] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        if (i) {
            PTX_ADD_CC(E[0], E[0], e);
            FN(_mad_pairs)(O, a.l, 1, b.l[i], 1);
            FN(_mad_pairs)(E, a.l, 0, b.l[i], 0);
        }
        uint32_t m = E[0] * FLD_PINV;
        FN(_mad_pairs_p)(E, 0, m, 0);
        FN(_mad_pairs_p)(O, 1, m, 0);
        FN(_step_end)(E, O, &e);
    }
    return FN(_final_sub)(FN(_merge)(E, O, e), 0);
}

/* acc += x b_j 2^(32 (i + j)) for j = j0, j0 + 2, ... < N: disjoint limb
 * pairs, one carry chain, its carry into the limb after the last pair
 * (dropped past 2N - 1, where the sum it belongs to is known to end). */
static __device__ __forceinline__ void FN(_mul_row)(uint32_t *acc, uint32_t x, const uint32_t *b,
                                                    int i, int j0)
{
    int last = j0;
    PTX_MADLO_CC(acc[i + j0], x, b[j0], acc[i + j0]);
    PTX_MADHIC_CC(acc[i + j0 + 1], x, b[j0], acc[i + j0 + 1]);
#pragma unroll
    for (int j = j0 + 2; j < FLD_N; j += 2) {
        PTX_MADLOC_CC(acc[i + j], x, b[j], acc[i + j]);
        PTX_MADHIC_CC(acc[i + j + 1], x, b[j], acc[i + j + 1]);
        last = j;
    }
    if (i + last + 2 < 2 * FLD_N)
        PTX_ADDC(acc[i + last + 2], acc[i + last + 2], 0);
}

/* t = C + D over 2N limbs (the sum is known to fit). */
static __device__ __forceinline__ void FN(_add_wide)(uint32_t *t, const uint32_t *C,
                                                     const uint32_t *D)
{
    PTX_ADD_CC(t[0], C[0], D[0]);
#pragma unroll
    for (int i = 1; i < 2 * FLD_N - 1; i++)
        PTX_ADDC_CC(t[i], C[i], D[i]);
    PTX_ADDC(t[2 * FLD_N - 1], C[2 * FLD_N - 1], D[2 * FLD_N - 1]);
}

/* The whole product t = a b (2N limbs, not reduced), for sums of products
 * that are reduced once (fp2_mul). Row i adds a_i b_j with j even and with
 * j odd as two chains; the pairs of a chain sit at positions of one parity,
 * so C takes the even positions and D the odd ones. A row's last carry
 * lands on a limb that holds at most one earlier carry. */
static __device__ __forceinline__ void FN(_mul_wide)(uint32_t t[2 * FLD_N], FT a, FT b)
{
    uint32_t C[2 * FLD_N], D[2 * FLD_N];
#pragma unroll
    for (int i = 0; i < 2 * FLD_N; i++)
        C[i] = D[i] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N; i++) {
        FN(_mul_row)((i & 1) ? D : C, a.l[i], b.l, i, 0);
        FN(_mul_row)((i & 1) ? C : D, a.l[i], b.l, i, 1);
    }
    FN(_add_wide)(t, C, D);
}

/* Square, whole (t = a^2, 2N limbs): the cross products a_i a_j (i < j)
 * once, doubled, plus the squares a_i^2; _sqr reduces it. Row i puts a_i a_j with j - i odd into D
 * (pairs at odd limb positions) and with j - i even into C (pairs at even
 * positions), one chain each; a row's last carry lands on a limb that holds
 * at most two earlier carries, so it never overflows. */
static __device__ __forceinline__ void FN(_sqr_wide)(uint32_t t[2 * FLD_N], FT a)
{
    uint32_t C[2 * FLD_N], D[2 * FLD_N];
#pragma unroll
    for (int i = 0; i < 2 * FLD_N; i++)
        C[i] = D[i] = 0;
#pragma unroll
    for (int i = 0; i < FLD_N - 1; i++) {
        FN(_mul_row)(D, a.l[i], a.l, i, i + 1);
        if (i + 2 < FLD_N)
            FN(_mul_row)(C, a.l[i], a.l, i, i + 2);
    }
    /* t = 2 (C + D) + sum a_i^2 2^(64 i); the cross sum is below 2^(64N-1). */
    FN(_add_wide)(t, C, D);
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
}

static __device__ __forceinline__ FT FN(_sqr)(FT a)
{
    uint32_t t[2 * FLD_N];
    FN(_sqr_wide)(t, a);
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
