/* Device arithmetic against blst: Fp, Fr, Fp2 field operations and G1/G2
 * XYZZ point operations on random inputs and on the edge cases (0, 1, p-1,
 * -1, doubling, the point at infinity, P + (-P)). Every device result is
 * compared with blst's on the host, byte for byte for field elements and by
 * affine coordinates for points (converted on the host with blst, so the
 * device's own affine conversion is checked separately). Exits non-zero on
 * any mismatch or CUDA error. */
#include <blst.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/curve.cuh"
#include "gpu/fr_shoup.cuh"

static int failures;

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__,          \
                    __LINE__);                                                                     \
            exit(2);                                                                               \
        }                                                                                          \
    } while (0)

static void check(int ok, const char *what, int i)
{
    if (!ok) {
        if (failures < 20)
            fprintf(stderr, "FAIL %s at %d\n", what, i);
        failures++;
    }
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* ---- fields ------------------------------------------------------------ */

#define NF 4096 /* random pairs; the first entries are edge values */
enum { OP_MUL, OP_SQR, OP_ADD, OP_SUB, OP_NEG, OP_DBL, OP_EXTRA, NOPS };
#define NEDGE 6
/* Cases inverted by the division steps (fp_inv_sgcd): every edge value as a
 * (i < NEDGE^2 with i % NEDGE == 1 or 2), every 16th + 4th and + 8th case
 * and every 64th + 32nd. */
#define SGCD_CASE(i)                                                                               \
    (((i) < NEDGE * NEDGE && ((i) % NEDGE == 1 || (i) % NEDGE == 2)) || (i) % 16 == 4 ||           \
     (i) % 16 == 8 || (i) % 64 == 32)

__global__ void k_fp(const fp_t *a, const fp_t *b, fp_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp_t x = a[i], y = b[i];
    out[NOPS * i + OP_MUL] = fp_mul(x, y);
    out[NOPS * i + OP_SQR] = fp_sqr(x);
    out[NOPS * i + OP_ADD] = fp_add(x, y);
    out[NOPS * i + OP_SUB] = fp_sub(x, y);
    out[NOPS * i + OP_NEG] = fp_neg(x);
    out[NOPS * i + OP_DBL] = fp_dbl(x);
    /* inversions: Fermat on every 64th case, division steps on SGCD_CASE */
    out[NOPS * i + OP_EXTRA] = i % 64 == 0    ? fp_inv(x)
                               : SGCD_CASE(i) ? fp_inv_sgcd(x)
                                              : fp_from_mont(x);
}

__global__ void k_fr(const fr_t *a, const fr_t *b, fr_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = a[i], y = b[i];
    out[NOPS * i + OP_MUL] = fr_mul(x, y);
    out[NOPS * i + OP_SQR] = fr_sqr(x);
    out[NOPS * i + OP_ADD] = fr_add(x, y);
    out[NOPS * i + OP_SUB] = fr_sub(x, y);
    out[NOPS * i + OP_NEG] = fr_neg(x);
    out[NOPS * i + OP_DBL] = fr_dbl(x);
    out[NOPS * i + OP_EXTRA] = fr_from_mont(x);
}

__global__ void k_fr_shoup(const fr_t *a, const fr_t *b, fr_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = a[i], w, wq, x2 = x;
    fr_shoup_prep(b[i], &w, &wq);
    out[4 * i] = w;
    out[4 * i + 1] = wq;
    out[4 * i + 2] = fr_mul_shoup(x, w, wq);
    /* x + p, below 2p: the largest inputs fr_mul_shoup takes */
    uint32_t c = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t s = (uint64_t)x.l[k] + CUZK_FR_P[k] + c;
        x2.l[k] = (uint32_t)s;
        c = (uint32_t)(s >> 32);
    }
    out[4 * i + 3] = fr_mul_shoup(x2, w, wq);
}

__global__ void k_fp2(const fp2_t *a, const fp2_t *b, fp2_t *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fp2_t x = a[i], y = b[i];
    out[NOPS * i + OP_MUL] = fp2_mul(x, y);
    out[NOPS * i + OP_SQR] = fp2_sqr(x);
    out[NOPS * i + OP_ADD] = fp2_add(x, y);
    out[NOPS * i + OP_SUB] = fp2_sub(x, y);
    out[NOPS * i + OP_NEG] = fp2_neg(x);
    out[NOPS * i + OP_DBL] = fp2_dbl(x);
    /* the other cases: x x, or (on odd i) the norms of x and y (the
     * batch-affine levels' G2 denominators) */
    fp2_t nrm = {fp2_norm(x), fp2_norm(y)};
    out[NOPS * i + OP_EXTRA] = i % 64 == 0    ? fp2_inv(x)
                               : SGCD_CASE(i) ? fp2_inv_sgcd(x)
                               : i % 2        ? nrm
                                              : fp2_mul(x, x);
}

static void fp_random(blst_fp *r)
{
    uint64_t l[6];
    for (int i = 0; i < 6; i++)
        l[i] = rnd();
    l[5] &= 0x0fffffffffffffffULL; /* below p: any such value is a Montgomery form */
    memcpy(r, l, sizeof l);
}

static void fr_random(blst_fr *r)
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++)
        l[i] = rnd();
    l[3] &= 0x3fffffffffffffffULL;
    memcpy(r, l, sizeof l);
}

static const uint64_t FP_P[6] = {0xb9feffffffffaaab, 0x1eabfffeb153ffff, 0x6730d2a0f6b0f624,
                                 0x64774b84f38512bf, 0x4b1ba7b6434bacd7, 0x1a0111ea397fe69a};
static const uint64_t FR_P[4] = {0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805,
                                 0x73eda753299d7d48};

/* Heavy values: all-ones limbs under a top limb just below p's (so below
 * p), one limb random: the products' carry chains run long, where a lost
 * carry in the multiplication would show. Used for NHEAVY pairs after the
 * edge pairs. */
#define NHEAVY 512
static void heavy_limbs(uint64_t *l, int n, uint64_t p_top)
{
    for (int i = 0; i < n - 1; i++)
        l[i] = ~0ULL;
    l[rnd() % (uint64_t)(n - 1)] = rnd();
    l[n - 1] = p_top - 1 - (rnd() & 0xffff);
}

static void fp_heavy(blst_fp *r)
{
    uint64_t l[6];
    heavy_limbs(l, 6, FP_P[5]);
    memcpy(r, l, sizeof l);
}

static void fr_heavy(blst_fr *r)
{
    uint64_t l[4];
    heavy_limbs(l, 4, FR_P[3]);
    memcpy(r, l, sizeof l);
}

/* Edge values as raw Montgomery limbs: 0, 1 (raw), p-1 (raw), the
 * Montgomery one, minus one, 2^(bits-2). */
static void fp_edges(blst_fp e[NEDGE])
{
    uint64_t one[6] = {1, 0, 0, 0, 0, 0};
    memset(e, 0, NEDGE * sizeof *e);
    memcpy(&e[1], one, sizeof one);
    memcpy(&e[2], FP_P, sizeof FP_P);
    ((uint64_t *)&e[2])[0] -= 1;
    blst_fp_from_uint64(&e[3], one);
    blst_fp_cneg(&e[4], &e[3], 1);
    ((uint64_t *)&e[5])[5] = 1ULL << 60;
}

static void fr_edges(blst_fr e[NEDGE])
{
    uint64_t one[4] = {1, 0, 0, 0};
    memset(e, 0, NEDGE * sizeof *e);
    memcpy(&e[1], one, sizeof one);
    memcpy(&e[2], FR_P, sizeof FR_P);
    ((uint64_t *)&e[2])[0] -= 1;
    blst_fr_from_uint64(&e[3], one);
    blst_fr_cneg(&e[4], &e[3], 1);
    ((uint64_t *)&e[5])[3] = 1ULL << 61;
}

/* Runs the field kernel `which` on the NF pairs (a[i], b[i]) of elements of
 * `elem` bytes; out receives NOPS results per pair. */
enum { FIELD_FP, FIELD_FR, FIELD_FP2 };
static void run_field_kernel(int which, const void *a, const void *b, void *out, size_t elem)
{
    void *da, *db, *dout;
    CK(cudaMalloc(&da, NF * elem));
    CK(cudaMalloc(&db, NF * elem));
    CK(cudaMalloc(&dout, NOPS * NF * elem));
    CK(cudaMemcpy(da, a, NF * elem, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, NF * elem, cudaMemcpyHostToDevice));
    if (which == FIELD_FP)
        k_fp<<<NF / 128, 128>>>((const fp_t *)da, (const fp_t *)db, (fp_t *)dout, NF);
    else if (which == FIELD_FR)
        k_fr<<<NF / 128, 128>>>((const fr_t *)da, (const fr_t *)db, (fr_t *)dout, NF);
    else
        k_fp2<<<NF / 128, 128>>>((const fp2_t *)da, (const fp2_t *)db, (fp2_t *)dout, NF);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, dout, NOPS * NF * elem, cudaMemcpyDeviceToHost));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
}

/* The first NEDGE*NEDGE pairs are all combinations of edge values. */
static void test_fp(void)
{
    blst_fp *a = (blst_fp *)malloc(NF * sizeof(blst_fp)),
            *b = (blst_fp *)malloc(NF * sizeof(blst_fp));
    blst_fp *out = (blst_fp *)malloc(NOPS * NF * sizeof(blst_fp)), e[NEDGE];
    fp_edges(e);
    for (int i = 0; i < NF; i++) {
        if (i < NEDGE * NEDGE) {
            a[i] = e[i / NEDGE];
            b[i] = e[i % NEDGE];
        } else if (i < NEDGE * NEDGE + NHEAVY) {
            fp_heavy(&a[i]);
            fp_heavy(&b[i]);
        } else {
            fp_random(&a[i]);
            fp_random(&b[i]);
        }
    }
    run_field_kernel(FIELD_FP, a, b, out, sizeof(fp_t));
    for (int i = 0; i < NF; i++) {
        blst_fp r;
        blst_fp_mul(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_MUL], sizeof r), "fp mul", i);
        blst_fp_sqr(&r, &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SQR], sizeof r), "fp sqr", i);
        blst_fp_add(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_ADD], sizeof r), "fp add", i);
        blst_fp_sub(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SUB], sizeof r), "fp sub", i);
        blst_fp_cneg(&r, &a[i], 1);
        check(!memcmp(&r, &out[NOPS * i + OP_NEG], sizeof r), "fp neg", i);
        blst_fp_add(&r, &a[i], &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_DBL], sizeof r), "fp dbl", i);
        if (i % 64 == 0 || SGCD_CASE(i)) {
            blst_fp_inverse(&r, &a[i]);
            check(!memcmp(&r, &out[NOPS * i + OP_EXTRA], sizeof r),
                  SGCD_CASE(i) ? "fp inv (division steps)" : "fp inv", i);
        } else {
            uint64_t canon[6];
            blst_uint64_from_fp(canon, &a[i]);
            check(!memcmp(canon, &out[NOPS * i + OP_EXTRA], sizeof canon), "fp from_mont", i);
        }
    }
    printf("fp: %d cases x %d ops checked\n", NF, NOPS);
    free(a);
    free(b);
    free(out);
}

/* Fr pairs: every pair of edge values, then heavy pairs, then random ones. */
static void fr_cases(blst_fr *a, blst_fr *b)
{
    blst_fr e[NEDGE];
    fr_edges(e);
    for (int i = 0; i < NF; i++) {
        if (i < NEDGE * NEDGE) {
            a[i] = e[i / NEDGE];
            b[i] = e[i % NEDGE];
        } else if (i < NEDGE * NEDGE + NHEAVY) {
            fr_heavy(&a[i]);
            fr_heavy(&b[i]);
        } else {
            fr_random(&a[i]);
            fr_random(&b[i]);
        }
    }
}

static void test_fr(void)
{
    blst_fr *a = (blst_fr *)malloc(NF * sizeof(blst_fr)),
            *b = (blst_fr *)malloc(NF * sizeof(blst_fr));
    blst_fr *out = (blst_fr *)malloc(NOPS * NF * sizeof(blst_fr));
    fr_cases(a, b);
    run_field_kernel(FIELD_FR, a, b, out, sizeof(fr_t));
    for (int i = 0; i < NF; i++) {
        blst_fr r;
        blst_fr_mul(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_MUL], sizeof r), "fr mul", i);
        blst_fr_sqr(&r, &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SQR], sizeof r), "fr sqr", i);
        blst_fr_add(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_ADD], sizeof r), "fr add", i);
        blst_fr_sub(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SUB], sizeof r), "fr sub", i);
        blst_fr_cneg(&r, &a[i], 1);
        check(!memcmp(&r, &out[NOPS * i + OP_NEG], sizeof r), "fr neg", i);
        blst_fr_add(&r, &a[i], &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_DBL], sizeof r), "fr dbl", i);
        uint64_t canon[4];
        blst_uint64_from_fr(canon, &a[i]);
        check(!memcmp(canon, &out[NOPS * i + OP_EXTRA], sizeof canon), "fr from_mont", i);
    }
    printf("fr: %d cases x %d ops checked\n", NF, NOPS);
    free(a);
    free(b);
    free(out);
}

/* Products by a factor known ahead (fr_mul_shoup, the NTT's twiddles): the
 * factor's pair from its Montgomery form must satisfy wq p + W = w 2^256
 * exactly (w its canonical value, checked against blst), and the products
 * of x and of x + p must be blst's x W, on the same edge, heavy and random
 * pairs as test_fr. */
static void test_fr_shoup(void)
{
    blst_fr *a = (blst_fr *)malloc(NF * sizeof(blst_fr)),
            *b = (blst_fr *)malloc(NF * sizeof(blst_fr));
    blst_fr *out = (blst_fr *)malloc(4 * NF * sizeof(blst_fr));
    fr_cases(a, b);
    void *da, *db, *dout;
    CK(cudaMalloc(&da, NF * sizeof(fr_t)));
    CK(cudaMalloc(&db, NF * sizeof(fr_t)));
    CK(cudaMalloc(&dout, 4 * NF * sizeof(fr_t)));
    CK(cudaMemcpy(da, a, NF * sizeof(fr_t), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b, NF * sizeof(fr_t), cudaMemcpyHostToDevice));
    k_fr_shoup<<<NF / 128, 128>>>((const fr_t *)da, (const fr_t *)db, (fr_t *)dout, NF);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, dout, 4 * NF * sizeof(fr_t), cudaMemcpyDeviceToHost));
    cudaFree(da);
    cudaFree(db);
    cudaFree(dout);
    for (int i = 0; i < NF; i++) {
        uint64_t w[4], wq[4], W[4], t[8] = {0};
        blst_uint64_from_fr(w, &b[i]);
        check(!memcmp(w, &out[4 * i], sizeof w), "fr shoup: canonical factor", i);
        memcpy(wq, &out[4 * i + 1], sizeof wq);
        memcpy(W, &b[i], sizeof W);
        /* t = wq p + W, schoolbook over 64-bit limbs */
        for (int r = 0; r < 4; r++) {
            unsigned __int128 c = 0;
            for (int k = 0; k < 4; k++) {
                c += (unsigned __int128)wq[r] * FR_P[k] + t[r + k];
                t[r + k] = (uint64_t)c;
                c >>= 64;
            }
            t[r + 4] = (uint64_t)c;
        }
        unsigned __int128 c = 0;
        for (int k = 0; k < 8; k++) {
            c += (unsigned __int128)t[k] + (k < 4 ? W[k] : 0);
            t[k] = (uint64_t)c;
            c >>= 64;
        }
        check(!c && !(t[0] | t[1] | t[2] | t[3]) && !memcmp(&t[4], w, sizeof w),
              "fr shoup: wq p + W = w 2^256", i);
        blst_fr r;
        blst_fr_mul(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[4 * i + 2], sizeof r), "fr shoup: x w", i);
        check(!memcmp(&r, &out[4 * i + 3], sizeof r), "fr shoup: (x + p) w", i);
    }
    printf("fr shoup: %d cases checked\n", NF);
    free(a);
    free(b);
    free(out);
}

static void test_fp2(void)
{
    blst_fp2 *a = (blst_fp2 *)malloc(NF * sizeof(blst_fp2)),
             *b = (blst_fp2 *)malloc(NF * sizeof(blst_fp2));
    blst_fp2 *out = (blst_fp2 *)malloc(NOPS * NF * sizeof(blst_fp2));
    blst_fp e[NEDGE];
    fp_edges(e);
    for (int i = 0; i < NF; i++) {
        if (i < NEDGE * NEDGE) {
            a[i].fp[0] = e[i / NEDGE];
            a[i].fp[1] = e[i % NEDGE];
            b[i].fp[0] = e[i % NEDGE];
            b[i].fp[1] = e[(i / NEDGE + 1) % NEDGE];
        } else if (i < NEDGE * NEDGE + NHEAVY) {
            /* long carry chains in the whole products and their sums; every
             * other pair with a0 b0 = 0 under a heavy a1 b1, the most
             * negative a0 b0 - a1 b1 that fp2_mul corrects by p^2 */
            fp_heavy(&a[i].fp[0]);
            fp_heavy(&a[i].fp[1]);
            fp_heavy(&b[i].fp[0]);
            fp_heavy(&b[i].fp[1]);
            if (i % 2)
                memset(&a[i].fp[0], 0, sizeof a[i].fp[0]);
        } else {
            fp_random(&a[i].fp[0]);
            fp_random(&a[i].fp[1]);
            fp_random(&b[i].fp[0]);
            fp_random(&b[i].fp[1]);
        }
    }
    run_field_kernel(FIELD_FP2, a, b, out, sizeof(fp2_t));
    for (int i = 0; i < NF; i++) {
        blst_fp2 r;
        blst_fp2_mul(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_MUL], sizeof r), "fp2 mul", i);
        blst_fp2_sqr(&r, &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SQR], sizeof r), "fp2 sqr", i);
        blst_fp2_add(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_ADD], sizeof r), "fp2 add", i);
        blst_fp2_sub(&r, &a[i], &b[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_SUB], sizeof r), "fp2 sub", i);
        blst_fp2_cneg(&r, &a[i], 1);
        check(!memcmp(&r, &out[NOPS * i + OP_NEG], sizeof r), "fp2 neg", i);
        blst_fp2_add(&r, &a[i], &a[i]);
        check(!memcmp(&r, &out[NOPS * i + OP_DBL], sizeof r), "fp2 dbl", i);
        if (i % 64 == 0 || SGCD_CASE(i)) {
            blst_fp2_inverse(&r, &a[i]);
        } else if (i % 2) {
            const blst_fp2 *v[2] = {&a[i], &b[i]};
            for (int k = 0; k < 2; k++) {
                blst_fp s0, s1;
                blst_fp_sqr(&s0, &v[k]->fp[0]);
                blst_fp_sqr(&s1, &v[k]->fp[1]);
                blst_fp_add(&r.fp[k], &s0, &s1);
            }
        } else {
            blst_fp2_mul(&r, &a[i], &a[i]);
        }
        check(!memcmp(&r, &out[NOPS * i + OP_EXTRA], sizeof r), "fp2 inv/norm/mul", i);
    }
    printf("fp2: %d cases x %d ops checked\n", NF, NOPS);
    free(a);
    free(b);
    free(out);
}

/* ---- points ------------------------------------------------------------ */

#define NP 256
enum {
    PT_ADD_AFF,      /* P + Q (mixed) */
    PT_DBL,          /* 2P */
    PT_ADD_SELF,     /* P + P (mixed: the doubling case) */
    PT_ADD_NEG,      /* P + (-P) = infinity */
    PT_INF_ADD,      /* infinity + Q */
    PT_ADD_INF,      /* P + infinity */
    PT_ADD_FULL,     /* (P + Q) + 2P (both XYZZ with Z != 1) */
    PT_ADD_FULL_EQ,  /* (P + Q) + (P + Q): the XYZZ doubling case */
    PT_ADD_FULL_NEG, /* (P + Q) + -(P + Q) */
    PT_DBL_INF,      /* 2 * infinity */
    PT_CHAIN,        /* P + Q + Q + ... (8 mixed additions) + 2P - P */
    NPT
};

/* The mixed addition is inlined where the MSM uses it; here one out-of-line
 * copy keeps the test kernels small. */
#define DEFINE_POINT_KERNEL(G)                                                                     \
    static __device__ __noinline__ G##_xyzz_t G##_madd(G##_xyzz_t p, G##_aff_t q)                  \
    {                                                                                              \
        return G##_add_aff(p, q);                                                                  \
    }                                                                                              \
    __global__ void k_##G(const G##_aff_t *p, const G##_aff_t *q, G##_xyzz_t *out,                 \
                          G##_aff_t *aff_out, int n)                                               \
    {                                                                                              \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                             \
        if (i >= n)                                                                                \
            return;                                                                                \
        G##_aff_t P = p[i], Q = q[i], inf_aff;                                                     \
        memset(&inf_aff, 0, sizeof inf_aff);                                                       \
        G##_xyzz_t xp = G##_from_aff(P), *o = out + NPT * i;                                       \
        G##_xyzz_t pq = G##_madd(xp, Q), p2 = G##_dbl(xp);                                         \
        o[PT_ADD_AFF] = pq;                                                                        \
        o[PT_DBL] = p2;                                                                            \
        o[PT_ADD_SELF] = G##_madd(xp, P);                                                          \
        o[PT_ADD_NEG] = G##_madd(xp, G##_aff_neg(P));                                              \
        o[PT_INF_ADD] = G##_madd(G##_inf(), Q);                                                    \
        o[PT_ADD_INF] = G##_madd(xp, inf_aff);                                                     \
        o[PT_ADD_FULL] = G##_add(pq, p2);                                                          \
        o[PT_ADD_FULL_EQ] = G##_add(pq, pq);                                                       \
        o[PT_ADD_FULL_NEG] = G##_add(pq, G##_neg(pq));                                             \
        o[PT_DBL_INF] = G##_dbl(G##_inf());                                                        \
        G##_xyzz_t acc = xp;                                                                       \
        _Pragma("unroll 1") for (int j = 0; j < 8; j++) acc = G##_madd(acc, Q);                    \
        acc = G##_add(acc, p2);                                                                    \
        o[PT_CHAIN] = G##_madd(acc, G##_aff_neg(P));                                               \
        aff_out[i] = G##_to_aff(pq);                                                               \
    }
DEFINE_POINT_KERNEL(g1)
DEFINE_POINT_KERNEL(g2)

/* Host-side XYZZ -> affine with blst (independent of the device code). */
typedef struct {
    blst_fp X, Y, ZZ, ZZZ;
} h_g1_xyzz;
typedef struct {
    blst_fp2 X, Y, ZZ, ZZZ;
} h_g2_xyzz;

static void g1_host_aff(blst_p1_affine *r, const h_g1_xyzz *p)
{
    static const blst_fp zero = {{0}};
    if (!memcmp(&p->ZZ, &zero, sizeof zero)) {
        memset(r, 0, sizeof *r);
        return;
    }
    blst_fp t;
    blst_fp_inverse(&t, &p->ZZ);
    blst_fp_mul(&r->x, &p->X, &t);
    blst_fp_inverse(&t, &p->ZZZ);
    blst_fp_mul(&r->y, &p->Y, &t);
}

static void g2_host_aff(blst_p2_affine *r, const h_g2_xyzz *p)
{
    static const blst_fp2 zero = {{{{0}}}};
    if (!memcmp(&p->ZZ, &zero, sizeof zero)) {
        memset(r, 0, sizeof *r);
        return;
    }
    blst_fp2 t;
    blst_fp2_inverse(&t, &p->ZZ);
    blst_fp2_mul(&r->x, &p->X, &t);
    blst_fp2_inverse(&t, &p->ZZZ);
    blst_fp2_mul(&r->y, &p->Y, &t);
}

static void random_scalar(byte s[32])
{
    for (int i = 0; i < 32; i++)
        s[i] = (byte)rnd();
    s[31] &= 0x3f;
}

/* blst expectations for one pair, as affine points (infinity = zeros). */
#define DEFINE_POINT_TEST(G, PT, AFF, XY, PFX)                                                     \
    static void test_##G(void)                                                                     \
    {                                                                                              \
        AFF *p = (AFF *)malloc(NP * sizeof(AFF)), *q = (AFF *)malloc(NP * sizeof(AFF));            \
        AFF *aff = (AFF *)malloc(NP * sizeof(AFF));                                                \
        XY *out = (XY *)malloc(NPT * NP * sizeof(XY));                                             \
        for (int i = 0; i < NP; i++) {                                                             \
            byte s[32];                                                                            \
            PT t;                                                                                  \
            random_scalar(s);                                                                      \
            PFX##_mult(&t, PFX##_generator(), s, 255);                                             \
            PFX##_to_affine(&p[i], &t);                                                            \
            random_scalar(s);                                                                      \
            PFX##_mult(&t, PFX##_generator(), s, 255);                                             \
            PFX##_to_affine(&q[i], &t);                                                            \
        }                                                                                          \
        q[1] = p[1]; /* Q = P */                                                                   \
        PFX##_to_affine(&q[2], PFX##_generator());                                                 \
        p[2] = q[2];                                                                               \
        {                                                                                          \
            PT t;                                                                                  \
            PFX##_from_affine(&t, &p[3]);                                                          \
            PFX##_cneg(&t, 1);                                                                     \
            PFX##_to_affine(&q[3], &t); /* Q = -P */                                               \
        }                                                                                          \
        memset(&q[4], 0, sizeof(AFF)); /* Q = infinity */                                          \
        memset(&p[5], 0, sizeof(AFF)); /* P = infinity */                                          \
        G##_aff_t *dp, *dq, *daff;                                                                 \
        G##_xyzz_t *dout;                                                                          \
        CK(cudaMalloc(&dp, NP * sizeof(AFF)));                                                     \
        CK(cudaMalloc(&dq, NP * sizeof(AFF)));                                                     \
        CK(cudaMalloc(&daff, NP * sizeof(AFF)));                                                   \
        CK(cudaMalloc(&dout, NPT *NP * sizeof(XY)));                                               \
        CK(cudaMemcpy(dp, p, NP * sizeof(AFF), cudaMemcpyHostToDevice));                           \
        CK(cudaMemcpy(dq, q, NP * sizeof(AFF), cudaMemcpyHostToDevice));                           \
        k_##G<<<NP / 64, 64>>>(dp, dq, dout, daff, NP);                                            \
        CK(cudaGetLastError());                                                                    \
        CK(cudaMemcpy(out, dout, NPT *NP * sizeof(XY), cudaMemcpyDeviceToHost));                   \
        CK(cudaMemcpy(aff, daff, NP * sizeof(AFF), cudaMemcpyDeviceToHost));                       \
        for (int i = 0; i < NP; i++) {                                                             \
            PT P, Q, PQ, P2, e[NPT], t;                                                            \
            PFX##_from_affine(&P, &p[i]);                                                          \
            PFX##_from_affine(&Q, &q[i]);                                                          \
            PFX##_add_or_double(&PQ, &P, &Q);                                                      \
            PFX##_double(&P2, &P);                                                                 \
            e[PT_ADD_AFF] = PQ;                                                                    \
            e[PT_DBL] = P2;                                                                        \
            e[PT_ADD_SELF] = P2;                                                                   \
            memset(&e[PT_ADD_NEG], 0, sizeof(PT));                                                 \
            e[PT_INF_ADD] = Q;                                                                     \
            e[PT_ADD_INF] = P;                                                                     \
            PFX##_add_or_double(&e[PT_ADD_FULL], &PQ, &P2);                                        \
            PFX##_double(&e[PT_ADD_FULL_EQ], &PQ);                                                 \
            memset(&e[PT_ADD_FULL_NEG], 0, sizeof(PT));                                            \
            memset(&e[PT_DBL_INF], 0, sizeof(PT));                                                 \
            t = P;                                                                                 \
            for (int j = 0; j < 8; j++)                                                            \
                PFX##_add_or_double(&t, &t, &Q);                                                   \
            PFX##_add_or_double(&t, &t, &P2);                                                      \
            {                                                                                      \
                PT np = P;                                                                         \
                PFX##_cneg(&np, 1);                                                                \
                PFX##_add_or_double(&e[PT_CHAIN], &t, &np);                                        \
            }                                                                                      \
            for (int k = 0; k < NPT; k++) {                                                        \
                AFF want, got;                                                                     \
                PFX##_to_affine(&want, &e[k]);                                                     \
                G##_host_aff(&got, &out[NPT * i + k]);                                             \
                char what[32];                                                                     \
                snprintf(what, sizeof what, #G " op %d", k);                                       \
                check(!memcmp(&want, &got, sizeof want), what, i);                                 \
            }                                                                                      \
            AFF want;                                                                              \
            PFX##_to_affine(&want, &PQ);                                                           \
            check(!memcmp(&want, &aff[i], sizeof want), #G " to_aff", i);                          \
        }                                                                                          \
        printf(#G ": %d pairs x %d ops checked (incl. P=Q, P=-Q, infinity)\n", NP, NPT + 1);       \
        cudaFree(dp);                                                                              \
        cudaFree(dq);                                                                              \
        cudaFree(daff);                                                                            \
        cudaFree(dout);                                                                            \
        free(p);                                                                                   \
        free(q);                                                                                   \
        free(aff);                                                                                 \
        free(out);                                                                                 \
    }
DEFINE_POINT_TEST(g1, blst_p1, blst_p1_affine, h_g1_xyzz, blst_p1)
DEFINE_POINT_TEST(g2, blst_p2, blst_p2_affine, h_g2_xyzz, blst_p2)

int main(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        fprintf(stderr, "test_gpu_arith: no CUDA device\n");
        return 2;
    }
    test_fp();
    test_fr();
    test_fr_shoup();
    test_fp2();
    test_g1();
    test_g2();
    if (failures) {
        printf("test_gpu_arith: %d FAILURES\n", failures);
        return 1;
    }
    printf("test_gpu_arith: all passed\n");
    return 0;
}
