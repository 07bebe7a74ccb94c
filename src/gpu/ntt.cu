/* Number-theoretic transforms over Fr on the device, and the H polynomial.
 *
 * Same conventions and results as the CPU NTT (include/cuzk/ntt.h):
 * natural order in and out, omega from cuzk_fr_root_of_unity, coset shift
 * g = 7, the inverse scaled by 1/n. The field is exact, so any correct
 * algorithm gives the CPU's bytes.
 *
 * A transform of 2^L elements is a decimation-in-frequency (Gentleman-Sande)
 * network cut into passes of at most 10 stages, each pass one kernel over
 * the whole vector (2^27: three passes of 9). A pass owns the index bits
 * [b, b + R): a block loads, for T = 2^log_t columns, the 2^R elements of
 * each column that interact in those stages (E = R + log_t bits of block
 * index, at most 256 threads). Columns are T consecutive indices below bit
 * b, so loads and stores are runs of T elements, or in the last pass (b = 0)
 * T values of the top bits, whose bit reversals are consecutive.
 *
 * Each thread keeps 2^lp elements in registers and runs up to lp stages on
 * them between exchanges through shared memory (two planes of 16-byte
 * halves, swizzled so that no round has bank conflicts): with 4, a pass of
 * 9 stages is 5 rounds, the first reading global memory and the last
 * writing it. On the H200 a pass that only transforms, or scales by a
 * constant, runs 8 per thread (3 rounds, 2 blocks of 256 threads per SM)
 * and one with a power table, product or gather folded in runs 4 (3
 * blocks: its extra multiplications are latency-bound, and more resident
 * warps beat more registers per thread); ntt_knobs can force 2, 4 or 8.
 * Each kind of pass (first with a folded operation, middle, last, last
 * with a scaling) has its own compiled kernel, so no pass carries the
 * registers and branches of another, and indices are 32-bit. Twiddles come
 * from one table of n entries, tw[h + j] = omega_2h^j, loaded once per
 * thread and stage where j != 0 (j = 0 needs no multiplication). Each entry
 * is the twiddle's canonical value and its Shoup quotient (fr_mul_shoup):
 * the butterfly's product then needs no Montgomery reduction, about a
 * fifth fewer multiply-adds, for twice the table (64 bytes an entry).
 *
 * There is no separate permutation: the last pass writes each result
 * straight to its bit-reversed index. Because that store scatters across
 * the vector, the passes run out of place: the first reads the data and
 * writes a scratch vector of n elements (kept after the twiddles), the last
 * reads scratch and writes the data (one pass: in place, one block). The
 * inverse is the forward network with the output index negated (X[-k] of
 * the forward transform). Scalings are folded into the ends: coset powers
 * g^i into the first pass's loads; 1/n, g^-i / n, H's 1/(n Z) g^-i, or g^i /
 * n ahead of a coset transform, into the last pass's stores, from powers
 * tables hi[i >> b] * lo[i & (2^b - 1)] with the constant in hi, or by a
 * constant (one Shoup product, like the twiddles'). The tables stay
 * Montgomery forms: as Shoup pairs (two products from 128 bytes of table
 * an element) those passes were 1.4-3.6 ms slower at 2^27. H takes six
 * transforms, not seven: a and b go to the coset, c only to its
 * coefficients (scaled by 1/(n Z)), and the last transform computes a b in
 * its first pass and subtracts c's coefficients in its last (h_from_coset).
 * snarkjs's row permutation is a gather in the first pass. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fr_shoup.cuh"
#include "gpu_internal.h"

#define NTT_PASS_LOG 10      /* most stages one pass keeps in shared memory */
#define NTT_SMEM_BYTES 65536 /* 2^11 elements: the largest block (R + log_t <= 11) */

static __device__ __forceinline__ fr_t pow_get(const fr_t *tab, unsigned bits, unsigned e)
{
    return fr_mul(tab[(1u << bits) + (e >> bits)], tab[e & ((1u << bits) - 1)]);
}

/* A factor as fr_mul_shoup takes it (its canonical value and quotient):
 * the twiddles and the constant scalings. */
typedef struct {
    fr_t w, q;
} ntt_tw;

/* tw[i] for 1 <= i < n: i = h + j with h the top power of two of i. */
__global__ void k_ntt_twiddles(ntt_tw *tw, unsigned log_n, const fr_t *wtab, unsigned bits)
{
    size_t n = (size_t)1 << log_n;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        if (i == 0) {
            tw[0].w = tw[0].q = fr_zero();
            continue;
        }
        unsigned lh = 63 - __clzll((long long)i);
        size_t j = i - ((size_t)1 << lh);
        fr_shoup_prep(pow_get(wtab, bits, (unsigned)(j << (log_n - 1 - lh))), &tw[i].w, &tw[i].q);
    }
}

/* One pass: the DIF stages of the index bits [b, b + R) (top comment). */
typedef struct {
    const fr_t *in;
    fr_t *out;
    const ntt_tw *tw;
    const fr_t *pre;           /* first pass: x_g *= pre^g (a power table), or NULL */
    const fr_t *mul_b, *sub_c; /* first pass: x_g = x_g mul_b_g - sub_c_g, or NULL */
    uint64_t gather;           /* first pass: x_g read from in[g gather mod n], or 0 */
    const fr_t *post;          /* last pass, scale: y_d *= post^d (a power table), or NULL */
    ntt_tw post_c;             /* last pass, scale, no post: y_d *= post_c */
    const fr_t *sub_out;       /* last pass, scale: then y_d -= sub_out[d], or NULL */
    unsigned log_n, b, R, log_t, pow_bits;
    int scale, inverse;
} ntt_pass;

/* Global index of block element e = p T + t: base + p 2^lps + t 2^lts
 * (the strides are powers of two: shifts). Indices fit 32 bits (n <= 2^28),
 * which halves the integer work of every address and twiddle index. */
static __device__ __forceinline__ unsigned pass_index(unsigned log_t, unsigned base, unsigned lps,
                                                      unsigned lts, unsigned e)
{
    return base + ((e >> log_t) << lps) + ((e & ((1u << log_t) - 1)) << lts);
}

/* Shared memory holds a block's elements as two planes of 16-byte halves,
 * element e at slot sh_swz(e) of each. A quarter warp's 16-byte accesses
 * are free of bank conflicts when its 8 slots differ mod 8; the threads of
 * a round differ in the lowest three bits of e outside the round's window
 * (bits lo .. lo + lp - 1), and XOR-ing bits 3..5 of e into bits 0..2 by
 * the matrix below (columns 7, 5, 6) makes those 8 slots distinct for
 * every lo and lp = 1..3. The map is linear, so a round forms the slot of
 * its base and of each window offset once and XORs them. */
static __device__ __forceinline__ unsigned sh_swz(unsigned e)
{
    return e ^ ((0x43162570u >> ((e >> 1) & 0x1cu)) & 7u);
}

static __device__ __forceinline__ fr_t sh_get(const uint4 *s, unsigned E, unsigned a)
{
    uint4 u = s[a], v = s[E + a];
    fr_t r;
    r.l[0] = u.x, r.l[1] = u.y, r.l[2] = u.z, r.l[3] = u.w;
    r.l[4] = v.x, r.l[5] = v.y, r.l[6] = v.z, r.l[7] = v.w;
    return r;
}

static __device__ __forceinline__ void sh_put(uint4 *s, unsigned E, unsigned a, const fr_t &x)
{
    s[a] = make_uint4(x.l[0], x.l[1], x.l[2], x.l[3]);
    s[E + a] = make_uint4(x.l[4], x.l[5], x.l[6], x.l[7]);
}

/* What a pass kernel is compiled for (the host picks the kernel that
 * matches the pass): NF_OPS the first pass with a power table, product or
 * gather folded in, NF_LAST the last pass (scattered stores), NF_SCALE its
 * scaling; NF_ANY decides all of it at run time (the 2-per-thread kernel,
 * a measurement knob only). */
#define NF_OPS 1
#define NF_LAST 2
#define NF_SCALE 4
#define NF_ANY 8

/* The pass with 2^LP elements per thread (top comment). */
template <int LP, int FL> static __device__ __forceinline__ void ntt_pass_body(const ntt_pass &P)
{
    extern __shared__ uint4 ntt_smem[];
    const unsigned E = 1u << (P.R + P.log_t);
    const bool any = FL & NF_ANY;
    const bool first = any ? P.b + P.R == P.log_n : (FL & NF_OPS) != 0;
    const bool last = any ? P.b == 0 : (FL & NF_LAST) != 0;
    const bool scale = any ? P.scale != 0 : (FL & NF_SCALE) != 0;
    const bool ops = first && (any || (FL & NF_OPS));
    unsigned base, ps, ts; /* log2 of the strides */
    if (!last) {           /* columns: T consecutive indices below bit b */
        const unsigned lc = P.b - P.log_t;
        base = ((blockIdx.x >> lc) << (P.b + P.R)) + ((blockIdx.x & ((1u << lc) - 1)) << P.log_t);
        ps = P.b;
        ts = 0;
    } else { /* columns: T values of the top bits, their reversals consecutive */
        base = blockIdx.x << P.R;
        ps = 0;
        ts = P.log_n - P.log_t;
    }
    const unsigned n = 1u << P.log_n;
    const int pt = 1 << LP;
    fr_t x[1 << LP];
    unsigned lo = 0, eb = 0;
    for (int c = (int)P.R - 1; c >= 0;) {
        /* This round: stages of pass bits c .. c-r+1, on the pt elements
         * whose block index differs in bits lo .. lo+LP-1 (the window). */
        const int r = c + 1 < LP ? c + 1 : LP;
        const unsigned w = c + (int)P.log_t < LP - 1 ? LP - 1 : (unsigned)c + P.log_t;
        lo = w - (unsigned)(LP - 1);
        eb = ((threadIdx.x >> lo) << (w + 1)) | (threadIdx.x & ((1u << lo) - 1));
        const int top = c == (int)P.R - 1;
        if (!top) {
            const unsigned sb = sh_swz(eb);
#pragma unroll
            for (int k = 0; k < pt; k++) {
                const unsigned e = eb | ((unsigned)k << lo);
                x[k] = e < E ? sh_get(ntt_smem, E, sb ^ sh_swz((unsigned)k << lo)) : fr_zero();
            }
        } else {
#pragma unroll
            for (int k = 0; k < pt; k++) {
                const unsigned e = eb | ((unsigned)k << lo);
                if (e >= E) {
                    x[k] = fr_zero();
                    continue;
                }
                const unsigned gi = pass_index(P.log_t, base, ps, ts, e);
                fr_t v = P.in[ops && P.gather ? (gi * (unsigned)P.gather) & (n - 1) : gi];
                if (ops && P.pre)
                    v = fr_mul(v, pow_get(P.pre, P.pow_bits, gi));
                if (ops && P.mul_b)
                    v = fr_mul(v, P.mul_b[gi]);
                if (ops && P.sub_c)
                    v = fr_sub(v, P.sub_c[gi]);
                x[k] = v;
            }
        }
#pragma unroll
        for (int l = LP - 1; l >= 0; l--) {
            const int pb = (int)(lo + l) - (int)P.log_t; /* pass bit of window bit l */
            if (pb < 0 || pb > c || pb <= c - r)
                continue;
            const unsigned q = P.b + (unsigned)pb; /* global bit: half-size 2^q */
            const unsigned qmask = (1u << q) - 1;
#pragma unroll
            for (int m = 0; m < (1 << l); m++) {
                const unsigned j =
                    pass_index(P.log_t, base, ps, ts, eb | ((unsigned)m << lo)) & qmask;
                ntt_tw wv;
                if (j)
                    wv = P.tw[(1u << q) + j];
#pragma unroll
                for (int hh = 0; hh < (pt >> (l + 1)); hh++) {
                    const int k0 = (hh << (l + 1)) | m, k1 = k0 | (1 << l);
                    fr_t u = x[k0], v = x[k1];
                    x[k0] = fr_add(u, v);
                    v = fr_sub(u, v);
                    x[k1] = j ? fr_mul_shoup(v, wv.w, wv.q) : v;
                }
            }
        }
        c -= r;
        if (c >= 0) {
            const unsigned sb = sh_swz(eb);
#pragma unroll
            for (int k = 0; k < pt; k++)
                if ((eb | ((unsigned)k << lo)) < E)
                    sh_put(ntt_smem, E, sb ^ sh_swz((unsigned)k << lo), x[k]);
            __syncthreads();
        }
    }
    if (last && P.in == P.out) /* one block in place: all loads done first */
        __syncthreads();
#pragma unroll
    for (int k = 0; k < pt; k++) {
        const unsigned e = eb | ((unsigned)k << lo);
        if (e >= E)
            continue;
        const unsigned gi = pass_index(P.log_t, base, ps, ts, e);
        fr_t v = x[k];
        if (!last) {
            P.out[gi] = v;
            continue;
        }
        /* DIF leaves X[brev(gi)] at gi; the inverse reads X[-d] at d. */
        unsigned d = __brev(gi) >> (32 - P.log_n);
        if (P.inverse)
            d = (n - d) & (n - 1);
        if (scale) {
            v = P.post ? fr_mul(v, pow_get(P.post, P.pow_bits, d))
                       : fr_mul_shoup(v, P.post_c.w, P.post_c.q);
            if (P.sub_out)
                v = fr_sub(v, P.sub_out[d]);
        }
        P.out[d] = v;
    }
}

/* One kernel per shape and pass kind: 8 elements per thread (2 blocks of
 * 256 threads per SM: 128 registers), 4 (3 blocks) and 2 (4 blocks). */
template <int LP, int FL>
__global__ void __launch_bounds__(256, LP == 3   ? 2
                                       : LP == 2 ? 3
                                                 : 4) k_ntt_pass(ntt_pass P)
{
    ntt_pass_body<LP, FL>(P);
}

typedef void (*ntt_pass_kernel)(ntt_pass);
/* [LP - 1][NF_OPS | NF_LAST | NF_SCALE]; NULL where a pass cannot be (a
 * scaling belongs to the last pass). */
#define NTT_KINDS(lp)                                                                              \
    {                                                                                              \
        k_ntt_pass<lp, 0>, k_ntt_pass<lp, NF_OPS>, k_ntt_pass<lp, NF_LAST>,                        \
            k_ntt_pass<lp, NF_OPS | NF_LAST>, NULL, NULL, k_ntt_pass<lp, NF_LAST | NF_SCALE>,      \
            k_ntt_pass<lp, NF_OPS | NF_LAST | NF_SCALE>                                            \
    }
static const ntt_pass_kernel ntt_kernels[3][8] = {
    {k_ntt_pass<1, NF_ANY>, k_ntt_pass<1, NF_ANY>, k_ntt_pass<1, NF_ANY>, k_ntt_pass<1, NF_ANY>,
     NULL, NULL, k_ntt_pass<1, NF_ANY>, k_ntt_pass<1, NF_ANY>},
    NTT_KINDS(2),
    NTT_KINDS(3)};

/* Random field elements below 2^253 (valid Montgomery forms) for benchmarks. */
__global__ void k_rand_fr(fr_t *a, size_t n, uint64_t seed)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        uint64_t z = seed + i * 0x9e3779b97f4a7c15ULL;
        fr_t x;
        for (int k = 0; k < 4; k++) {
            z += 0x9e3779b97f4a7c15ULL;
            uint64_t v = z;
            v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
            v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
            v ^= v >> 31;
            x.l[2 * k] = (uint32_t)v;
            x.l[2 * k + 1] = (uint32_t)(v >> 32);
        }
        x.l[7] &= 0x1fffffff;
        a[i] = x;
    }
}

void gpu_rand_fr(cuzk_gpu *g, void *a, size_t n, uint64_t seed)
{
    k_rand_fr<<<gpu_grid_for(n), 256, 0, g->stream>>>((fr_t *)a, n, seed);
}

/* Host tables lo[i] = x^i, hi[i] = c x^(i 2^bits), i < 2^bits (c = 1 when
 * NULL): pow_get then gives c x^e. */
static void pow_tables(cuzk_fr *t, const cuzk_fr *x, unsigned bits, const cuzk_fr *c)
{
    size_t m = (size_t)1 << bits;
    cuzk_fr_one(&t[0]);
    for (size_t i = 1; i < m; i++)
        blst_fr_mul(&t[i], &t[i - 1], x);
    cuzk_fr step;
    blst_fr_mul(&step, &t[m - 1], x); /* x^(2^bits) */
    if (c)
        t[m] = *c;
    else
        cuzk_fr_one(&t[m]);
    for (size_t i = 1; i < m; i++)
        blst_fr_mul(&t[m + i], &t[m + i - 1], &step);
}

/* The pair of a factor x (Montgomery form) for fr_mul_shoup: its canonical
 * value w, and wq = -x p^-1 mod 2^256 (fr_shoup_prep's exact division). */
static ntt_tw shoup_pair(const cuzk_fr *x)
{
    static const uint64_t ninv[4] = {0xfffffffeffffffffULL, 0x53ba5bfffffe5bfdULL,
                                     0x181b2c170004ec06ULL, 0x3d443ab0d7bf2839ULL};
    uint64_t W[4], w[4], q[4] = {0, 0, 0, 0};
    memcpy(W, x, sizeof W);
    blst_uint64_from_fr(w, x);
    for (int i = 0; i < 4; i++) {
        unsigned __int128 c = 0;
        for (int j = 0; i + j < 4; j++) {
            c += (unsigned __int128)W[i] * ninv[j] + q[i + j];
            q[i + j] = (uint64_t)c;
            c >>= 64;
        }
    }
    ntt_tw r;
    memcpy(&r.w, w, sizeof w);
    memcpy(&r.q, q, sizeof q);
    return r;
}

void gpu_ntt_free(cuzk_gpu *g)
{
    cudaFree(g->tw);
    cudaFree(g->pow_g);
    cudaFree(g->pow_gi);
    g->tw = g->pow_g = g->pow_gi = NULL;
    g->ntt_log = 0;
}

static void n_inverse(cuzk_fr *r, unsigned log_n)
{
    cuzk_fr_from_u64(r, (uint64_t)1 << log_n);
    cuzk_fr_inv(r, r);
}

/* 1/Z on the coset, 1/(g^n - 1), as the CPU backend computes it, times
 * 1/n: the scale of H's last transform (and of c's coefficients). */
static void h_scale(cuzk_fr *z, unsigned log_n)
{
    cuzk_fr gen, one, ninv;
    cuzk_fr_generator(&gen);
    cuzk_fr_pow_u64(z, &gen, (uint64_t)1 << log_n);
    cuzk_fr_one(&one);
    blst_fr_sub(z, z, &one);
    cuzk_fr_inv(z, z);
    n_inverse(&ninv, log_n);
    blst_fr_mul(z, z, &ninv);
}

/* Shape and profiling, from the environment once, for measurements:
 * CUZK_GPU_NTT_PER_THREAD=2|4|8 elements per thread (default: 8 in the
 * passes that only transform or scale by a constant, 4 in those with a
 * power table, product or gather folded in, where 8 was slower on the
 * H200);
 * CUZK_GPU_NTT_COLUMNS=k caps log_t at k (0..2, default 2);
 * CUZK_GPU_NTT_PROFILE=1 times each pass with events and prints the times
 * on stderr (it synchronizes the stream after each transform). */
static struct {
    int read, max_log_t, profile, lp;
    cudaEvent_t ev[4];
} ntt_knobs;

static void ntt_knobs_read(void)
{
    if (ntt_knobs.read)
        return;
    ntt_knobs.read = 1;
    ntt_knobs.max_log_t = (int)env_uint("CUZK_GPU_NTT_COLUMNS", 2, 0, 2);
    const unsigned pt = env_uint("CUZK_GPU_NTT_PER_THREAD", 0, 2, 8);
    ntt_knobs.lp = pt == 2 ? 1 : pt == 4 ? 2 : pt == 8 ? 3 : 0;
    ntt_knobs.profile = (int)env_uint("CUZK_GPU_NTT_PROFILE", 0, 0, 1);
    for (int i = 0; i < 4 && ntt_knobs.profile; i++)
        if (cudaEventCreate(&ntt_knobs.ev[i]) != cudaSuccess)
            ntt_knobs.profile = 0;
}

/* Build (or keep) the tables for 2^log_n: g->tw holds the twiddles, then n
 * elements of scratch; g->pow_g the powers of g, then those of g scaled by
 * 1/n; g->pow_gi the powers of 1/g scaled by 1/n, then by 1/(n Z) with Z
 * the vanishing polynomial on the coset. */
static cuzk_err ntt_tables(cuzk_gpu *g, unsigned log_n)
{
    for (int k = 0; k < 3 * 8; k++)
        if (ntt_kernels[k / 8][k % 8])
            GPU_TRY(cudaFuncSetAttribute(ntt_kernels[k / 8][k % 8],
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         NTT_SMEM_BYTES),
                    "NTT shared memory");
    ntt_knobs_read();
    if (g->ntt_log == log_n)
        return CUZK_OK;
    gpu_ntt_free(g);
    unsigned bits = (log_n + 1) / 2;
    size_t m = (size_t)1 << bits, tb = 2 * m * sizeof(fr_t);
    cuzk_fr *h = (cuzk_fr *)malloc(5 * 2 * m * sizeof(cuzk_fr));
    if (!h)
        return cuzk_fail(CUZK_ENOMEM, "NTT tables: out of host memory");
    cuzk_fr w, gen, gi, ninv;
    cuzk_err rc = cuzk_fr_root_of_unity(&w, log_n);
    if (rc) {
        free(h);
        return rc;
    }
    cuzk_fr_generator(&gen);
    cuzk_fr_inv(&gi, &gen);
    n_inverse(&ninv, log_n);
    pow_tables(h, &w, bits, NULL);
    pow_tables(h + 2 * m, &gen, bits, NULL);
    pow_tables(h + 4 * m, &gen, bits, &ninv);
    pow_tables(h + 6 * m, &gi, bits, &ninv);
    cuzk_fr z;
    h_scale(&z, log_n);
    pow_tables(h + 8 * m, &gi, bits, &z);
    void *wtab = NULL;
    if ((rc = gpu_alloc(&g->tw, ((size_t)1 << log_n) * (sizeof(ntt_tw) + sizeof(fr_t)),
                        "NTT twiddles and scratch")) ||
        (rc = gpu_alloc(&g->pow_g, 2 * tb, "NTT coset powers")) ||
        (rc = gpu_alloc(&g->pow_gi, 2 * tb, "NTT coset powers")) ||
        (rc = gpu_alloc(&wtab, tb, "NTT root powers"))) {
        free(h);
        cudaFree(wtab);
        gpu_ntt_free(g);
        return rc;
    }
    cudaError_t e = cudaMemcpy(wtab, h, tb, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->pow_g, h + 2 * m, 2 * tb, cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
        e = cudaMemcpy(g->pow_gi, h + 6 * m, 2 * tb, cudaMemcpyHostToDevice);
    free(h);
    if (e == cudaSuccess) {
        k_ntt_twiddles<<<gpu_grid_for((size_t)1 << log_n), 256, 0, g->stream>>>(
            (ntt_tw *)g->tw, log_n, (const fr_t *)wtab, bits);
        e = cudaStreamSynchronize(g->stream);
    }
    cudaFree(wtab);
    if (e != cudaSuccess) {
        gpu_ntt_free(g);
        return gpu_fail(e, "NTT tables");
    }
    g->ntt_log = log_n;
    g->pow_bits = bits;
    return CUZK_OK;
}

/* The scaled powers tables in g->pow_g and g->pow_gi. */
static const fr_t *pow_g_over_n(const cuzk_gpu *g)
{
    return (const fr_t *)g->pow_g + ((size_t)2 << g->pow_bits);
}

/* What the first pass may do to the input besides pre, and the last pass
 * to the output after its scaling (ntt_pass). */
typedef struct {
    const fr_t *mul_b, *sub_c;
    uint64_t gather;
    const fr_t *sub_out;
} ntt_input;

/* One transform of device data a, in place (tables ready for log_n): the
 * passes of the top comment. inverse: the output index negated (the 1/n
 * comes from the scaling); pre: a powers table applied to the input; scale:
 * the output multiplied by post's powers, or by *c when post is NULL; in:
 * NULL or a pointwise product or gather folded into the first pass. */
static void ntt_run(cuzk_gpu *g, fr_t *a, unsigned log_n, int inverse, const fr_t *pre, int scale,
                    const fr_t *post, const cuzk_fr *c, const ntt_input *in)
{
    size_t n = (size_t)1 << log_n;
    fr_t *scratch = (fr_t *)((ntt_tw *)g->tw + n);
    /* at most 256 threads of 2^lp elements: blocks of up to 2^(lp + 8) */
    const unsigned lpmax = ntt_knobs.lp ? (unsigned)ntt_knobs.lp : 3u;
    const unsigned rmax = lpmax + 8 < NTT_PASS_LOG ? lpmax + 8 : NTT_PASS_LOG;
    unsigned passes = (log_n + rmax - 1) / rmax, b = log_n;
    ntt_pass P;
    memset(&P, 0, sizeof P);
    P.tw = (const ntt_tw *)g->tw;
    P.log_n = log_n;
    P.pow_bits = g->pow_bits;
    P.inverse = inverse;
    P.post = post;
    if (c)
        P.post_c = shoup_pair(c);
    for (unsigned i = 0; i < passes; i++) {
        P.R = log_n / passes + (i < log_n % passes);
        b -= P.R;
        P.b = b;
        P.in = i == 0 ? a : scratch;
        P.out = i + 1 == passes ? a : scratch;
        P.pre = i == 0 ? pre : NULL;
        if (in && i == 0) {
            P.mul_b = in->mul_b;
            P.sub_c = in->sub_c;
            P.gather = in->gather;
        } else {
            P.mul_b = P.sub_c = NULL;
            P.gather = 0;
        }
        P.scale = i + 1 == passes ? scale : 0;
        P.sub_out = in && P.scale ? in->sub_out : NULL;
        /* a scaling by a constant runs 8 per thread too (measured) */
        int plain = !P.pre && !P.mul_b && !P.sub_c && !P.gather && !(P.scale && P.post);
        const unsigned lp = ntt_knobs.lp ? (unsigned)ntt_knobs.lp : plain ? 3u : 2u, emax = lp + 8;
        unsigned lt = ntt_knobs.max_log_t, room = b ? b : log_n - P.R;
        if (lt > emax - P.R)
            lt = emax - P.R;
        P.log_t = lt < room ? lt : room;
        unsigned log_e = P.R + P.log_t;
        unsigned threads = log_e < lp ? 1 : 1u << (log_e - lp);
        if (ntt_knobs.profile)
            cudaEventRecord(ntt_knobs.ev[i], g->stream);
        ntt_pass_kernel kern =
            ntt_kernels[lp - 1][(P.pre || P.mul_b || P.sub_c || P.gather ? NF_OPS : 0) |
                                (b == 0 ? NF_LAST : 0) | (P.scale ? NF_SCALE : 0)];
        size_t smem = sizeof(fr_t) << log_e;
        kern<<<(unsigned)(n >> log_e), threads, smem, g->stream>>>(P);
    }
    if (ntt_knobs.profile) {
        cudaEventRecord(ntt_knobs.ev[passes], g->stream);
        cudaEventSynchronize(ntt_knobs.ev[passes]);
        fprintf(stderr, "ntt 2^%u inverse=%d:", log_n, inverse);
        for (unsigned i = 0; i < passes; i++) {
            float ms = 0;
            cudaEventElapsedTime(&ms, ntt_knobs.ev[i], ntt_knobs.ev[i + 1]);
            fprintf(stderr, " pass%u=%.3fms", i, ms);
        }
        fprintf(stderr, "\n");
    }
}

/* One transform on device data; tables must be ready for log_n. */
static void ntt_device(cuzk_gpu *g, cuzk_gpu_ntt_kind kind, unsigned log_n, fr_t *a)
{
    cuzk_fr ninv;
    n_inverse(&ninv, log_n);
    switch (kind) {
    case CUZK_GPU_NTT_FORWARD: ntt_run(g, a, log_n, 0, NULL, 0, NULL, NULL, NULL); break;
    case CUZK_GPU_NTT_INVERSE: ntt_run(g, a, log_n, 1, NULL, 1, NULL, &ninv, NULL); break;
    case CUZK_GPU_NTT_COSET_FORWARD:
        ntt_run(g, a, log_n, 0, (const fr_t *)g->pow_g, 0, NULL, NULL, NULL);
        break;
    case CUZK_GPU_NTT_COSET_INVERSE:
        ntt_run(g, a, log_n, 1, NULL, 1, (const fr_t *)g->pow_gi, NULL, NULL);
        break;
    }
}

static cuzk_err check_log(unsigned log_n)
{
    if (log_n < 1 || log_n > 28)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT: log size %u outside 1..28", log_n);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_ntt(cuzk_gpu *g, cuzk_gpu_ntt_kind kind, unsigned log_n, cuzk_fr *a)
{
    CUZK_TRY(check_log(log_n));
    if ((unsigned)kind > CUZK_GPU_NTT_COSET_INVERSE)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT: unknown transform %d", (int)kind);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_n));
    size_t bytes = ((size_t)1 << log_n) * sizeof(fr_t);
    void *d;
    CUZK_TRY(gpu_alloc(&d, bytes, "NTT data"));
    gpu_times_begin(g);
    cuzk_err rc = gpu_copy_h2d(g, d, a, bytes);
    if (!rc) {
        gpu_times_mark(g, 1);
        ntt_device(g, kind, log_n, (fr_t *)d);
        gpu_times_mark(g, 2);
        rc = gpu_copy_d2h(g, a, d, bytes);
    }
    if (!rc)
        rc = gpu_times_end(g);
    cudaFree(d);
    return rc;
}

/* One of H's a, b, c from evaluations on the domain to evaluations on the
 * coset: the inverse NTT with the coset scaling g^i / n folded into its
 * last pass, then the forward NTT. */
static void h_to_coset(cuzk_gpu *g, fr_t *v, unsigned log_m)
{
    ntt_run(g, v, log_m, 1, NULL, 1, pow_g_over_n(g), NULL, NULL);
    ntt_run(g, v, log_m, 0, NULL, 0, NULL, NULL, NULL);
}

/* c from evaluations on the domain to its coefficients divided by Z, for
 * h_from_coset: the inverse NTT with 1/(n Z) as its scale. */
static void h_c_coeffs(cuzk_gpu *g, fr_t *c, unsigned log_m)
{
    cuzk_fr z;
    h_scale(&z, log_m);
    ntt_run(g, c, log_m, 1, NULL, 1, NULL, &z, NULL);
}

/* h into v[0] from a and b on the coset and c's coefficients over Z
 * (h_c_coeffs): h = (iNTT_coset(a b) - C) / Z, which is iNTT_coset(a b -
 * c_coset) / Z without c's forward transform, since the coset inverse
 * undoes it exactly. a b in the coset inverse's first pass, 1/Z and the
 * subtraction in its last. */
static void h_from_coset(cuzk_gpu *g, fr_t *v[3], unsigned log_m)
{
    ntt_input ab = {v[1], NULL, 0, v[2]};
    ntt_run(g, v[0], log_m, 1, NULL, 1, (const fr_t *)g->pow_gi + ((size_t)2 << g->pow_bits), NULL,
            &ab);
}

/* H on the device (see gpu.h). With download, h comes back into a; without,
 * h stays on the device only and the witness w (nw scalars, may be NULL) is
 * uploaded on the copy stream while the last kernels run. Either way h is
 * kept for cuzk_gpu_msm_g1_h. */
static cuzk_err compute_h(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                          const cuzk_fr *c, int download, const cuzk_fr *w, size_t nw)
{
    CUZK_TRY(check_log(log_m));
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_m));
    size_t n = (size_t)1 << log_m, bytes = n * sizeof(fr_t);
    gpu_drop_h(g); /* the device memory of an unused earlier h */
    gpu_proof_begin(g);
    void *da = NULL, *dbc = NULL;
    CUZK_TRY(gpu_alloc_for(g, &da, bytes, "H: a", 1));
    cuzk_err rc = gpu_alloc_for(g, &dbc, 2 * bytes, "H: b and c", 1);
    if (rc) {
        gpu_free(da);
        return rc;
    }
    fr_t *v[3] = {(fr_t *)da, (fr_t *)dbc, (fr_t *)dbc + n};
    const cuzk_fr *hv[3] = {a, b, c};
    /* a goes up on the main stream; b and c on the copy stream while the
     * kernels of the vector before them run, each vector's kernels waiting
     * for its upload (an event). The h2d time is then a's upload alone. */
    cudaStream_t cs = gpu_copy_stream(g);
    cudaEvent_t up[2] = {NULL, NULL};
    for (int i = 0; i < 2 && cs != g->stream; i++)
        if (cudaEventCreateWithFlags(&up[i], cudaEventDisableTiming) != cudaSuccess) {
            cudaGetLastError();
            up[i] = NULL;
            cs = g->stream;
        }
    gpu_times_begin(g);
    rc = gpu_copy_h2d(g, v[0], hv[0], bytes);
    if (!rc)
        gpu_times_mark(g, 1);
    for (int i = 0; i < 3 && !rc; i++) {
        if (i > 0 && cs != g->stream) {
            rc = gpu_copy_h2d_on(g, cs, v[i], hv[i], bytes);
            if (rc)
                break;
            cudaEventRecord(up[i - 1], cs);
            cudaStreamWaitEvent(g->stream, up[i - 1], 0);
        } else if (i > 0) {
            if ((rc = gpu_copy_h2d(g, v[i], hv[i], bytes)))
                break;
        }
        if (i < 2)
            h_to_coset(g, v[i], log_m);
        else
            h_c_coeffs(g, v[i], log_m);
    }
    if (!rc) {
        h_from_coset(g, v, log_m);
        if (download) {
            gpu_times_mark(g, 2);
            rc = gpu_copy_d2h(g, a, v[0], bytes);
        }
    }
    void *dw = NULL;
    if (!rc && !download && w && nw) {
        /* the witness goes up while the kernels above run */
        /* short of memory: no window, the MSMs upload their scalars */
        if (gpu_alloc_kept(&dw, nw * sizeof(fr_t), "witness scalars") == CUZK_OK)
            rc = gpu_copy_h2d_on(g, cs, dw, w, nw * sizeof(fr_t));
    }
    if (!rc && !download)
        gpu_times_mark(g, 2);
    if (!rc)
        rc = gpu_times_end(g);
    cudaStreamSynchronize(cs);
    cudaStreamSynchronize(g->stream);
    for (int i = 0; i < 2; i++)
        if (up[i])
            cudaEventDestroy(up[i]);
    gpu_free(dbc);
    if (rc) {
        gpu_free(da);
        gpu_free(dw);
        return rc;
    }
    gpu_keep_h(g, a, da, n, !download); /* for cuzk_gpu_msm_g1_h */
    if (dw)
        gpu_set_witness(g, w, nw, dw);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_compute_h(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                                       const cuzk_fr *c)
{
    return compute_h(g, log_m, a, b, c, 1, NULL, 0);
}

extern "C" cuzk_err cuzk_gpu_compute_h_resident(cuzk_gpu *g, unsigned log_m, cuzk_fr *a,
                                                const cuzk_fr *b, const cuzk_fr *c,
                                                const cuzk_fr *w, size_t nw)
{
    return compute_h(g, log_m, a, b, c, 0, w, nw);
}

extern "C" cuzk_err cuzk_gpu_compute_h_pce(cuzk_gpu *g, const cuzk_pce *pce, const cuzk_wpack *wp,
                                           const cuzk_wpack *next, const cuzk_fr *w_key,
                                           const void *h_key)
{
    unsigned log_m = pce->log_domain;
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    /* A copy made ahead is settled here, whatever happens below: taken when
     * it is wp's (gpu_pce_abc owns it then), else dropped. */
    void *pre = gpu_prefetch_take(g, wp);
    cuzk_err rc = check_log(log_m);
    if (!rc)
        rc = ntt_tables(g, log_m);
    size_t n = (size_t)1 << log_m, bytes = n * sizeof(fr_t);
    size_t nw = (size_t)pce->n_inputs + pce->n_aux;
    gpu_drop_h(g); /* the device memory of an unused earlier h and witness */
    gpu_proof_begin(g);
    cuzk_gpu_scalars_clear(g);
    if (!rc)
        rc = gpu_pce_resident(g, pce);
    void *da = NULL, *dbc = NULL, *dw = NULL, *pk = NULL;
    if (!rc)
        rc = gpu_alloc_for(g, &da, bytes, "H: a", 1);
    if (!rc)
        rc = gpu_alloc_for(g, &dbc, 2 * bytes + 64, "H: b and c", 1);
    if (!rc)
        rc = gpu_alloc_for(g, &dw, nw * sizeof(fr_t), "witness scalars", 1);
    unsigned long long bad = ~0ull, *dbad = (unsigned long long *)((fr_t *)dbc + 2 * n);
    if (rc)
        gpu_free(pre);
    if (!rc) {
        fr_t *v[3] = {(fr_t *)da, (fr_t *)dbc, (fr_t *)dbc + n};
        void *vv[3] = {v[0], v[1], v[2]};
        gpu_times_begin(g);
        rc = gpu_pce_abc(g, pce, wp, pre, next, dw, vv, dbad, &pk);
        if (!rc) {
            h_to_coset(g, v[0], log_m);
            h_to_coset(g, v[1], log_m);
            h_c_coeffs(g, v[2], log_m);
            h_from_coset(g, v, log_m);
            gpu_times_mark(g, 2);
            cudaError_t e =
                cudaMemcpyAsync(&bad, dbad, sizeof bad, cudaMemcpyDeviceToHost, g->stream);
            if (e != cudaSuccess)
                rc = gpu_fail(e, "device SpMV: the check's result");
        }
        if (!rc)
            rc = gpu_times_end(g);
        cudaStreamSynchronize(g->stream);
    }
    gpu_free(pk);
    gpu_free(dbc);
    if (!rc && bad != ~0ull)
        rc = cuzk_fail(CUZK_EINVAL, "witness does not satisfy constraint %llu", bad);
    if (rc) {
        gpu_free(da);
        gpu_free(dw);
        return rc;
    }
    gpu_keep_h(g, h_key, da, n, 1);
    gpu_set_witness(g, w_key, nw, dw);
    return CUZK_OK;
}

/* dst[i] = a_k b_k - c_k with k = i j mod n: snarkjs's H row i from our
 * domain point k (the index map of fr.h). */
__global__ void k_h_gather(fr_t *dst, const fr_t *a, const fr_t *b, const fr_t *c, size_t n,
                           uint64_t j)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t k = (size_t)(((uint64_t)i * j) & (n - 1));
        dst[i] = fr_sub(fr_mul(a[k], b[k]), c[k]);
    }
}

/* backend.h compute_h_odd_coset, as the CPU reference (backend_cpu.c) does
 * it: rows scattered to our domain order (gathered by the inverse NTT's
 * first pass), inverse NTT with the coefficient scaling by snarkjs's 2m-th
 * root and 1/n folded into its last pass, forward NTT, a*b - c gathered
 * back to snarkjs's order. */
extern "C" cuzk_err cuzk_gpu_compute_h_odd_coset(cuzk_gpu *g, unsigned log_m, cuzk_fr *a,
                                                 const cuzk_fr *b, const cuzk_fr *c)
{
    CUZK_TRY(check_log(log_m));
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_m));
    size_t n = (size_t)1 << log_m, bytes = n * sizeof(fr_t);
    size_t tn = (size_t)2 << g->pow_bits;
    cuzk_fr gs, ninv;
    CUZK_TRY(cuzk_fr_root_of_unity_snarkjs(&gs, log_m + 1));
    uint64_t j = cuzk_fr_snarkjs_root_exponent();
    n_inverse(&ninv, log_m);
    cuzk_fr *ht = (cuzk_fr *)malloc(tn * sizeof(cuzk_fr));
    if (!ht)
        return cuzk_fail(CUZK_ENOMEM, "H (snarkjs basis): out of host memory");
    pow_tables(ht, &gs, g->pow_bits, &ninv); /* ninv: scale of the inverse */
    void *d = NULL;
    cuzk_err rc =
        gpu_alloc_for(g, &d, 4 * bytes + tn * sizeof(fr_t), "H (snarkjs basis): a, b, c", 0);
    if (rc) {
        free(ht);
        return rc;
    }
    fr_t *v[4] = {(fr_t *)d, (fr_t *)d + n, (fr_t *)d + 2 * n, (fr_t *)d + 3 * n};
    fr_t *tab = (fr_t *)d + 4 * n;
    const cuzk_fr *hv[3] = {a, b, c};
    cudaError_t ce = cudaMemcpy(tab, ht, tn * sizeof(fr_t), cudaMemcpyHostToDevice);
    free(ht);
    if (ce != cudaSuccess) {
        cudaFree(d);
        return gpu_fail(ce, "H (snarkjs basis): powers table");
    }
    gpu_times_begin(g);
    for (int i = 0; i < 3 && !rc; i++)
        rc = gpu_copy_h2d(g, v[i], hv[i], bytes);
    if (rc) {
        cudaStreamSynchronize(g->stream);
        cudaFree(d);
        return rc;
    }
    gpu_times_mark(g, 1);
    /* j is odd (both roots are primitive 2^32-th roots): its inverse mod
     * 2^64 by Newton's iteration turns the scatter into the first pass's
     * gather. */
    uint64_t jinv = j;
    for (int it = 0; it < 6; it++)
        jinv *= 2 - j * jinv;
    ntt_input gin = {NULL, NULL, jinv, NULL};
    for (int i = 0; i < 3; i++) {
        ntt_run(g, v[i], log_m, 1, NULL, 1, tab, NULL, &gin);
        ntt_run(g, v[i], log_m, 0, NULL, 0, NULL, NULL, NULL);
    }
    k_h_gather<<<gpu_grid_for(n), 256, 0, g->stream>>>(v[3], v[0], v[1], v[2], n, j);
    gpu_times_mark(g, 2);
    rc = gpu_copy_d2h(g, a, v[3], bytes);
    if (!rc)
        rc = gpu_times_end(g);
    cudaFree(d);
    return rc;
}

/* Elements where a and b differ, added to *count. */
__global__ void k_count_diff(const fr_t *a, const fr_t *b, size_t n, unsigned long long *count)
{
    unsigned long long c = 0;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        c += !fr_eq(a[i], b[i]);
    if (c)
        atomicAdd(count, c);
}

/* The bench's check at its own size (the device tests compare with the CPU
 * up to 2^22): inverse(forward(x)) and coset_inverse(coset_forward(x)) must
 * give x back. */
static cuzk_err bench_round_trips(cuzk_gpu *g, unsigned log_n, fr_t *d)
{
    size_t n = (size_t)1 << log_n;
    void *x0;
    CUZK_TRY(gpu_alloc(&x0, n * sizeof(fr_t) + sizeof(unsigned long long), "NTT bench check"));
    unsigned long long *cnt = (unsigned long long *)((fr_t *)x0 + n), bad = 0;
    cudaError_t e = cudaMemcpyAsync(x0, d, n * sizeof(fr_t), cudaMemcpyDeviceToDevice, g->stream);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(cnt, 0, sizeof *cnt, g->stream);
    for (int k = 0; k < 4 && e == cudaSuccess; k += 2) {
        ntt_device(g, (cuzk_gpu_ntt_kind)k, log_n, d);
        ntt_device(g, (cuzk_gpu_ntt_kind)(k + 1), log_n, d);
        k_count_diff<<<gpu_grid_for(n), 256, 0, g->stream>>>((const fr_t *)x0, d, n, cnt);
    }
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(&bad, cnt, sizeof bad, cudaMemcpyDeviceToHost, g->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g->stream);
    cudaFree(x0);
    if (e != cudaSuccess)
        return gpu_fail(e, "NTT bench check");
    if (bad)
        return cuzk_fail(CUZK_EINTERNAL, "GPU NTT 2^%u: %llu elements differ after round trips",
                         log_n, bad);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_bench_ntt(cuzk_gpu *g, unsigned log_n, int reps, double ms[4])
{
    CUZK_TRY(check_log(log_n));
    if (reps < 1 || reps > 64)
        return cuzk_fail(CUZK_EINVAL, "GPU NTT bench: reps %d outside 1..64", reps);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    CUZK_TRY(ntt_tables(g, log_n));
    size_t n = (size_t)1 << log_n;
    void *d;
    CUZK_TRY(gpu_alloc(&d, n * sizeof(fr_t), "NTT bench data"));
    gpu_rand_fr(g, d, n, 12345);
    ntt_device(g, CUZK_GPU_NTT_FORWARD, log_n, (fr_t *)d); /* warm-up */
    double t[4][64];
    cudaEvent_t e0 = g->ev[0], e1 = g->ev[3];
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < 4; k++) {
            cudaEventRecord(e0, g->stream);
            ntt_device(g, (cuzk_gpu_ntt_kind)k, log_n, (fr_t *)d);
            cudaEventRecord(e1, g->stream);
            cudaError_t e = cudaEventSynchronize(e1);
            if (e == cudaSuccess)
                e = cudaGetLastError();
            if (e != cudaSuccess) {
                cudaFree(d);
                return gpu_fail(e, "NTT bench");
            }
            float f;
            cudaEventElapsedTime(&f, e0, e1);
            t[k][r] = f;
        }
    for (int k = 0; k < 4; k++)
        ms[k] = gpu_median(t[k], (size_t)reps);
    cuzk_err rc = bench_round_trips(g, log_n, (fr_t *)d);
    cudaFree(d);
    return rc;
}
