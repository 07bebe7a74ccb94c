/* Multi-scalar multiplication on the device, G1 and G2, with the 0/1 split
 * of msm.h (same arguments, same group element as the CPU MSM).
 *
 * 1. Split (k_msm_classify): each entry whose density bit is set gets its
 *    base index (rank in the bitmap: a popcount prefix per 64-bit word plus
 *    a popcount inside the word), its scalar leaves Montgomery form, and it
 *    is dropped (0), appended to the "ones" list (1) or to the significant
 *    list with its canonical scalar. Appends are warp-aggregated atomics,
 *    so list order varies between runs; the sums do not (the group law is
 *    exact).
 * 2. Ones: from ONES_AFFINE_MIN of them, by the batch-affine levels of 3.
 *    (the list cut into pieces that fit the scratch, each piece into
 *    groups of 2^8 that play the buckets, their last 16 points a group
 *    added in XYZZ, the groups' sums added by a tree); fewer, each thread
 *    sums 16 listed bases with mixed XYZZ additions, then a tree of XYZZ
 *    additions reduces the partial sums.
 * 3. Pippenger over the significant entries: signed digits (a c-bit
 *    window has d in [-2^(c-1), 2^(c-1)], a carry into the next), so a
 *    window has 2^(c-1) buckets and a negative digit adds the negated
 *    base. The nw windows (chosen for the size, msm_choose) split 256
 *    bits evenly: c bits for some, c - 1 for the rest, so no window is
 *    left with a few crowded buckets. For each window chunk: one (key,
 *    value) pair per entry and window, key = window and bucket, value =
 *    base index and sign; a CUB radix sort over the key bits only groups
 *    them by bucket; k_msm_bounds finds each bucket's run. Then one of two
 *    accumulations gives each bucket its sum. With batch-affine
 *    accumulation the next chunk's digits and sort run on a second stream
 *    once the current chunk's first level has read its sorted entries, so
 *    the sort (memory-bound) overlaps the levels and reduction; each
 *    chunk's bucket reduction (latency-bound) then runs on that stream
 *    too, beside the next chunk's levels, with two sets of bucket sums
 *    used in turn (PN(_worker)).
 *    Batch-affine (from AFFINE_MIN entries, where it measured faster): in
 *    levels, each bucket's points are added in pairs in affine form
 *    (l = (yq - yp)/(xq - xp), 2M + 1S), so a bucket of k points has
 *    ceil(k/2) after a level. A level's passes run over its pairs only:
 *    an odd bucket's last point is copied to the next level by the task
 *    kernel, so no lane idles on it and no product carries its factor 1
 *    (a pass-through is ~1/3 of a late level's outputs). Once every
 *    bucket has at most BA_TAIL_K
 *    points and a level little more than one entry per bucket, one thread
 *    per bucket adds what is left in XYZZ (each level skipped saves an
 *    inversion chain and a pass over every bucket). The inversions of a
 *    level are shared (Montgomery's trick, in Fp for G2 too: see BA_NORM):
 *    a forward pass stores each
 *    thread's running product of its B denominators (G1 16; G2 1, whose
 *    backward pass is too large in registers to chain well), a tree of products
 *    (fan-in G) over the threads' products ends in at most TOP elements
 *    inverted one per thread (Bernstein-Yang division steps, fp_inv_sgcd:
 *    its latency is part of the level's fixed cost), and a backward pass turns the
 *    inverse of each product into each denominator's (2M) before adding.
 *    About 5M + 1S per
 *    addition against 8M + 2S for XYZZ += affine, for two reads of each
 *    pair and a write of the sum per level. Each pair decides its case:
 *    equal points take the tangent (d = 2y), and a pair with a point at
 *    infinity or summing to it gets d = 1, so a level never inverts zero.
 *    XYZZ: the sorted
 *    entries are cut into chunks of K (8..256, by size), one per thread of
 *    the accumulation (k_chunk_acc): each thread adds exactly K signed
 *    points (XYZZ += affine; for G1 the next base is loaded during
 *    the current addition) in one flat loop and stores a partial sum wherever a bucket
 *    run ends inside its chunk, so the work is even whatever the bucket
 *    sizes (Poisson-distributed runs, a crowded bucket from skewed digits
 *    or the short top window). A work item is one bucket's part of one
 *    chunk; a per-bucket tree of XYZZ additions joins the items of a
 *    bucket.
 *    Reduction: one thread per segment of 32
 *    buckets computes the segment's share of sum_j (j+1) B_j by running
 *    sums; a tree of additions reduces segments to one sum per window.
 *    After the batch-affine levels (a sum per bucket at partial[b]) this
 *    takes kernels that keep one accumulator each and read the other
 *    operand from memory (_add_to): the segment's suffix sums in place,
 *    then their sum; the segments' offsets (segment s adds 32 s times its
 *    total) are the same reduction one level up, over runs of 16 segment
 *    totals, so the double-and-add for an offset is done once a run
 *    instead of once a segment. One kernel with both running sums live
 *    spilled (G2: 5.5 KB of stack a thread).
 *    The window sums (a few dozen points) are combined on the host by
 *    Horner's rule with blst: a doubling per bit of each window,
 *    microseconds.
 * Windows are processed in chunks sized to the free device memory (at most
 * CUZK_GPU_MSM_SCRATCH_GIB), so a large MSM needs less memory at some cost
 * in speed; the scratch is one block kept between MSMs (the device's arena,
 * device.cu), given back when another allocation needs the memory; an
 * allocation that still fails returns CUZK_ENOMEM with what did not fit.
 *
 * CUZK_GPU_MSM_PROFILE=1 prints the device time of each phase to stderr
 * (events between the launches; for tuning, not for production).
 *
 * Bases stay resident: the first call with a host array uploads it and
 * later calls with the same array (address, size, sampled points) reuse the
 * device copy, evicting the least recently used set when memory runs out.
 * Density bitmaps stay too (a few slots, matched by their whole content).
 *
 * CUB (radix sort, prefix sum) is the one C++ library used; it is called
 * through its plain entry points. */
#include <cub/cub.cuh>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.cuh"
#include "gpu_internal.h"
#include "shed.h"

extern "C" {
#include "cuzk/log.h"
#include "cuzk/util.h" /* cuzk_now */
}

typedef struct {
    unsigned c;   /* bits of the widest window: 2^(c-1) buckets a window */
    unsigned nw;  /* windows, together exactly 256 bits (room for the last carry) */
    unsigned nhi; /* windows 0 .. nhi-1 have c bits, the others c - 1 */
    unsigned wb;  /* windows per chunk (memory) */
    int affine;   /* batch-affine accumulation (else XYZZ chunks) */
} msm_plan;

/* Batch-affine accumulation: outputs per thread of a level (the group's
 * BA_OUTPUTS, below; CUZK_GPU_MSM_BA_B=1..64 and CUZK_GPU_MSM_BA_THREADS=64
 * for tuning), fan-in of the product tree (G; CUZK_GPU_MSM_BA_G=2..64), the
 * tree's top inverted one element per thread (at most TOP elements;
 * CUZK_GPU_MSM_BA_TOP=64..2^20), tree levels at most MAXT. */
#define BA_G 16u
#define BA_TOP 2048u
#define BA_MAXT 24
/* The last levels in XYZZ (see _acc_affine) from these. */
#define BA_TAIL_K 256u
#define BA_TAIL_N ((size_t)1 << 20)

/* Where the batch-affine arrays of one window chunk lie in one allocation:
 * level outputs X (level 1, 3, ...) and Y (2, 4, ...) with their bucket
 * ids, the forward products of a level (pre), the product tree (tv, tp),
 * the pairs' first inputs and outputs (pin, pout),
 * bucket offsets of two levels (sa, sb), counts (kn), odd-count flags and
 * their offsets (ko, so) and the largest bucket (mx). */
typedef struct {
    size_t x, y, pre, tv[BA_MAXT], tp[BA_MAXT], bidx, bidy, pin, pout, sa, sb, kn, ko, so, mx,
        bytes;
    unsigned b, threads; /* outputs per thread, threads per block of a level's passes */
    unsigned g, top;     /* the product tree's fan-in and top (BA_G, BA_TOP) */
    unsigned tail_k;     /* finish in XYZZ from this bucket size (BA_TAIL_K; 0: never) */
} ba_layout;

static size_t ba_align(size_t x)
{
    return (x + 255) & ~(size_t)255;
}

static void ba_layout_make(ba_layout *L, size_t pairs, size_t nb, size_t aff, size_t fe,
                           unsigned outputs)
{
    L->b = env_uint("CUZK_GPU_MSM_BA_B", outputs, 1, 64);
    L->threads = env_uint("CUZK_GPU_MSM_BA_THREADS", 128, 64, 64); /* BA_BOUNDS allows 128 */
    L->g = env_uint("CUZK_GPU_MSM_BA_G", BA_G, 2, 64);
    L->top = env_uint("CUZK_GPU_MSM_BA_TOP", BA_TOP, 64, 1u << 20);
    /* CUZK_GPU_MSM_BA_TAIL=0: no XYZZ tail (every level in batch-affine) */
    L->tail_k = env_uint("CUZK_GPU_MSM_BA_TAIL", 1, 0, 1) ? BA_TAIL_K : 0;
    /* a level's outputs: at most half its inputs plus half a point per
     * bucket (odd counts), so level 1 <= pairs/2 + nb, level 2 <= pairs/4 + nb */
    size_t n1 = pairs / 2 + nb, n2 = pairs / 4 + nb, o = 0, c = (n1 + L->b - 1) / L->b;
    L->x = o;
    o += ba_align(n1 * aff);
    L->y = o;
    o += ba_align(n2 * aff);
    L->pre = o; /* read and written only with more than one output a thread */
    o += L->b > 1 ? ba_align(n1 * fe) : 0;
    for (int l = 0; l < BA_MAXT; l++) {
        L->tv[l] = o;
        o += ba_align(c * fe);
        L->tp[l] = o;
        o += ba_align(c * fe);
        c = c > L->top ? (c + L->g - 1) / L->g : 0;
    }
    L->bidx = o;
    o += ba_align(n1 * sizeof(uint32_t));
    L->bidy = o;
    o += ba_align(n2 * sizeof(uint32_t));
    L->pin = o;
    o += ba_align(n1 * sizeof(uint32_t));
    L->pout = o;
    o += ba_align(n1 * sizeof(uint32_t));
    L->sa = o;
    o += ba_align((nb + 1) * sizeof(uint32_t));
    L->sb = o;
    o += ba_align((nb + 1) * sizeof(uint32_t));
    L->kn = o;
    o += ba_align((nb + 1) * sizeof(uint32_t));
    L->ko = o;
    o += ba_align((nb + 1) * sizeof(uint32_t));
    L->so = o;
    o += ba_align((nb + 1) * sizeof(uint32_t));
    L->mx = o;
    o += 256;
    L->bytes = o;
}

/* The scratch one MSM may use, from free_b free device bytes: at most
 * 80% of them and at most CUZK_GPU_MSM_SCRATCH_GIB (default 40; more
 * windows per chunk gain little, and the scratch is kept for the next
 * MSM). */
static size_t msm_scratch_avail(size_t free_b)
{
    size_t avail = (size_t)((double)free_b * 0.8);
    size_t cap = (size_t)env_uint("CUZK_GPU_MSM_SCRATCH_GIB", 40, 1, 1u << 20) << 30;
    return avail < cap ? avail : cap;
}

/* The windows split 256 bits as evenly as nw windows can: c = ceil(256 /
 * nw) bits for the first nhi, c - 1 for the rest. Uniform windows of c
 * bits would leave the top one a few bits and so a few crowded buckets
 * (c = 19: 2^8 buckets of 2^16 entries at 2^24), whose last points one
 * thread each adds in sequence. */
static void msm_windows(msm_plan *p, unsigned nw)
{
    p->nw = nw;
    p->c = (256 + nw - 1) / nw;
    p->nhi = 256 - nw * (p->c - 1);
}

/* Cost model: nw * m bucket additions + r per bucket for the reduction,
 * r the group's BUCKET_COST; c in [4, 22]. Chunk so that pairs and buckets
 * fit in ~80% of free memory, shared by the workers (each with its own
 * chunk in flight); the batch-affine accumulation from affine_min entries
 * (where it measured faster) when its arrays for at least one window fit;
 * CUZK_GPU_MSM_ACC=affine or xyzz forces one (affine still needs the
 * memory). beside: the bucket reductions would run beside the levels
 * (their second set of bucket sums is counted). */
static void msm_choose(msm_plan *p, size_t m, size_t xyzz_bytes, size_t aff_bytes, size_t fe_bytes,
                       size_t free_b, size_t affine_min, unsigned workers, double bucket_cost,
                       unsigned outputs, int beside)
{
    double best = 0;
    unsigned best_nw = 64;
    for (unsigned nw = 12; nw <= 64; nw++) { /* c = 22 .. 4 */
        msm_plan q;
        msm_windows(&q, nw);
        double buckets = (double)q.nhi * (double)((size_t)1 << (q.c - 1)) +
                         (double)(nw - q.nhi) * (double)((size_t)1 << (q.c - 2));
        double cost = (double)nw * (double)m + bucket_cost * buckets;
        if (nw == 12 || cost <= best) { /* a tie: the narrower windows */
            best = cost;
            best_nw = nw;
        }
    }
    /* CUZK_GPU_MSM_WINDOW=c (4..22) sets the windows to ceil(256 / c), for
     * tuning. */
    unsigned cw = env_uint("CUZK_GPU_MSM_WINDOW", 0, 4, 22);
    if (cw)
        best_nw = (256 + cw - 1) / cw;
    msm_windows(p, best_nw);
    /* CUZK_GPU_MSM_WINDOWS=uniform: every window c bits (the top one then
     * short), for comparison */
    const char *ue = getenv("CUZK_GPU_MSM_WINDOWS");
    if (ue && !strcmp(ue, "uniform"))
        p->nhi = p->nw;
    size_t nbw = (size_t)1 << (p->c - 1);
    size_t avail = msm_scratch_avail(free_b) / workers; /* a scratch per worker */
    /* per window: pairs and sort scratch, bucket bounds, the reduction's
     * segments; XYZZ: work items (at most m/16 plus one per bucket) with
     * their partial sums; batch-affine: its level arrays and one partial
     * sum per bucket */
    size_t common = m * 4 * sizeof(uint32_t) * 5 / 4 + nbw * (xyzz_bytes + 28);
    size_t xyzz = common + (m / 16) * (xyzz_bytes + 12);
    ba_layout L;
    ba_layout_make(&L, m, nbw, aff_bytes, fe_bytes, outputs);
    /* batch-affine with the reductions beside the levels (beside): a second
     * set of bucket sums, so that one chunk's reduction runs beside the next
     * chunk's levels */
    size_t aff = common + L.bytes + (beside ? nbw * (xyzz_bytes + 8) : 0);
    const char *acc = getenv("CUZK_GPU_MSM_ACC");
    int want = acc && !strcmp(acc, "affine") ? 1
               : acc && !strcmp(acc, "xyzz") ? 0
                                             : m >= affine_min;
    p->affine = want && aff <= avail;
    size_t per_window = p->affine ? aff : xyzz;
    size_t fit = avail / (per_window ? per_window : 1);
    p->wb = fit < 1 ? 1 : fit > p->nw ? p->nw : (unsigned)fit;
}

/* Batch-affine bookkeeping (group independent). Level 0 counts from the
 * bucket runs, kn[nb] = 0 so a scan gives the total at S[nb]; the largest
 * count into *mx. */
__global__ void k_ba_count0(const uint32_t *starts, const uint32_t *ends, size_t nb, uint32_t *kn,
                            uint32_t *mx)
{
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    uint32_t k = b < nb ? ends[b] - starts[b] : 0;
    if (b <= nb)
        kn[b] = k;
    k = __reduce_max_sync(0xffffffffu, k);
    if ((threadIdx.x & 31) == 0 && k > 1)
        atomicMax(mx, k);
}

/* The next level's counts: half of each bucket's, rounded up (kn), and
 * whether the bucket passes an odd point on (ko: a scan of it gives each
 * pass-through its rank, k_ba_task). */
__global__ void k_ba_halve(const uint32_t *S, size_t nb, uint32_t *kn, uint32_t *ko)
{
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b <= nb) {
        uint32_t k = b < nb ? S[b + 1] - S[b] : 0;
        kn[b] = (k + 1) / 2;
        ko[b] = k & 1;
    }
}

/* The shared inversion runs in Fp for both groups: a G2 denominator d
 * enters the products through its norm N(d) = d0^2 + d1^2 (BA_NORM), and
 * its inverse is conj(d) / N(d) (BA_DINV), so the forward products, the
 * tree and its top are Fp elements, half the bytes and a third of the
 * multiplications of Fp2 ones. */

/* How many of the elements i + s T (s < k) lie below n (i < T). */
static __device__ __forceinline__ unsigned ba_outputs(size_t i, size_t T, size_t n, unsigned k)
{
    unsigned c = 0; /* k is small: no 64-bit division */
    while (c < k && i + c * T < n)
        c++;
    return c;
}

/* One level of the product tree over v (n elements): thread i multiplies
 * e = i + s T (s < G), pre[e] = running product, prod[i] = all of them. */
__global__ void k_ba_up(const fp_t *v, size_t n, size_t T, unsigned G, fp_t *pre, fp_t *prod)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= T)
        return;
    fp_t acc = v[i];
    pre[i] = acc;
    for (unsigned s = 1; s < G && i + s * T < n; s++) {
        acc = fp_mul(acc, v[i + s * T]);
        pre[i + s * T] = acc;
    }
    prod[i] = acc;
}

/* Down the tree: from inv_prod[i] = 1 / prod[i], v[e] becomes 1 / v[e]. */
__global__ void k_ba_down(fp_t *v, const fp_t *pre, size_t n, size_t T, unsigned G,
                          const fp_t *inv_prod)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= T)
        return;
    fp_t r = inv_prod[i];
    for (unsigned s = ba_outputs(i, T, n, G); s-- > 0;) {
        size_t e = i + s * T;
        fp_t ve = v[e];
        v[e] = s ? fp_mul(r, pre[e - T]) : r;
        if (s)
            r = fp_mul(r, ve);
    }
}

/* The top of the tree, inverted one element per thread (division steps:
 * ~40 us on the H200, where the binary extended Euclid took ~210). */
__global__ void k_ba_inv(fp_t *v, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        v[i] = fp_inv_sgcd(v[i]);
}

/* The ones' groups (_ones_affine): entry e in group e >> lg. */
__global__ void k_ones_groups(size_t n, unsigned lg, uint32_t *keys, uint32_t *starts,
                              uint32_t *ends)
{
    size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (e >= n)
        return;
    keys[e] = (uint32_t)(e >> lg);
    if (!(e & (((size_t)1 << lg) - 1))) {
        size_t end = e + ((size_t)1 << lg);
        starts[e >> lg] = (uint32_t)e;
        ends[e >> lg] = (uint32_t)(end < n ? end : n);
    }
}

__global__ void k_msm_popc(const uint64_t *bits, size_t words, uint32_t *cnt)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < words)
        cnt[i] = (uint32_t)__popcll(bits[i]);
}

/* Warp-aggregated append: returns this lane's slot when pred holds. */
static __device__ __forceinline__ uint32_t warp_append(uint32_t *counter, int pred)
{
    unsigned mask = __ballot_sync(0xffffffffu, pred), lane = threadIdx.x & 31;
    uint32_t base = 0;
    if (mask) {
        unsigned leader = __ffs(mask) - 1;
        if (lane == leader)
            base = atomicAdd(counter, (uint32_t)__popc(mask));
        base = __shfl_sync(0xffffffffu, base, leader);
    }
    return base + (uint32_t)__popc(mask & ((1u << lane) - 1));
}

/* counters: [0] zeros, [1] ones, [2] significant, [3] considered. sig_k
 * is limb-major: limb j of significant entry p at sig_k[j n + p]
 * (k_msm_digits reads only the limbs of its windows). */
__global__ void k_msm_classify(const fr_t *k, const uint64_t *dens, const uint32_t *pre, size_t n,
                               uint32_t *ones_idx, uint32_t *sig_idx, uint32_t *sig_k,
                               uint32_t *counters)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i0 = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) & ~(size_t)31; i0 < n;
         i0 += stride) {
        size_t i = i0 + (threadIdx.x & 31);
        int kind = 0; /* 0 none, 1 zero, 2 one, 3 significant */
        uint32_t base = 0;
        fr_t s;
        if (i < n) {
            int has = 1;
            if (dens) {
                uint64_t wd = dens[i / 64];
                has = (wd >> (i % 64)) & 1;
                base = pre[i / 64] + (uint32_t)__popcll(wd & ((1ULL << (i % 64)) - 1));
            } else {
                base = (uint32_t)i;
            }
            if (has) {
                s = fr_from_mont(k[i]);
                uint32_t hi = 0;
#pragma unroll
                for (int j = 1; j < 8; j++)
                    hi |= s.l[j];
                kind = (hi == 0 && s.l[0] == 0) ? 1 : (hi == 0 && s.l[0] == 1) ? 2 : 3;
            }
        }
        unsigned any = __ballot_sync(0xffffffffu, kind != 0);
        if (!any)
            continue;
        unsigned zeros = __ballot_sync(0xffffffffu, kind == 1),
                 considered = __ballot_sync(0xffffffffu, kind != 0);
        if ((threadIdx.x & 31) == 0) {
            if (zeros)
                atomicAdd(&counters[0], (uint32_t)__popc(zeros));
            atomicAdd(&counters[3], (uint32_t)__popc(considered));
        }
        uint32_t po = warp_append(&counters[1], kind == 2);
        uint32_t ps = warp_append(&counters[2], kind == 3);
        if (kind == 2)
            ones_idx[po] = base;
        if (kind == 3) {
            sig_idx[ps] = base;
#pragma unroll
            for (int j = 0; j < 8; j++)
                sig_k[j * n + ps] = s.l[j];
        }
    }
}

/* Signed digits of windows [w0, w0 + nw) of each canonical scalar (limb j
 * of entry e at sk[j ld + e]). The carry into window w0 is cin[e], the
 * previous chunk's carry out, or recomputed from window 0 when cin is
 * NULL; cout (when set) gets the carry out of the last window. A chunk
 * so reads only the limbs of its own windows. */
__global__ void k_msm_digits(const uint32_t *sk, size_t ld, const uint32_t *sidx, size_t m,
                             unsigned c, unsigned nhi, unsigned w0, unsigned nw, const uint8_t *cin,
                             uint8_t *cout, uint32_t *keys, uint32_t *vals)
{
    size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (e >= m)
        return;
    uint32_t idx = sidx[e], carry = 0;
    uint32_t sentinel = nw << (c - 1);
    unsigned w = 0, b = 0;
    if (cin && w0) {
        w = w0;
        b = w0 < nhi ? w0 * c : nhi * c + (w0 - nhi) * (c - 1);
        carry = cin[e];
    }
    int have = -2; /* pair holds limbs have and have + 1 */
    uint64_t pair = 0;
    for (; w < w0 + nw; w++) {
        unsigned cw = w < nhi ? c : c - 1, limb = b / 32, sh = b % 32;
        uint32_t half = 1u << (cw - 1), mask = (1u << cw) - 1;
        if ((int)limb != have) { /* a window moves on by at most one limb */
            uint32_t lo = (int)limb == have + 1 ? (uint32_t)(pair >> 32)
                          : limb < 8            ? sk[limb * ld + e]
                                                : 0;
            uint32_t hi = limb + 1 < 8 ? sk[(limb + 1) * ld + e] : 0;
            pair = lo | (uint64_t)hi << 32;
            have = (int)limb;
        }
        b += cw;
        uint32_t raw = (uint32_t)(pair >> sh) & mask;
        raw += carry;
        int32_t d;
        if (raw > half) {
            d = (int32_t)raw - (int32_t)(1u << cw);
            carry = 1;
        } else {
            d = (int32_t)raw;
            carry = 0;
        }
        if (w < w0)
            continue;
        size_t o = (size_t)(w - w0) * m + e;
        if (d == 0) {
            keys[o] = sentinel;
            vals[o] = 0;
        } else {
            uint32_t mag = d < 0 ? (uint32_t)(-d) : (uint32_t)d;
            keys[o] = ((w - w0) << (c - 1)) | (mag - 1);
            vals[o] = idx | (d < 0 ? 0x80000000u : 0);
        }
    }
    if (cout)
        cout[e] = (uint8_t)carry;
}

/* Run boundaries of each bucket in the sorted keys (sentinel keys >= nb). */
__global__ void k_msm_bounds(const uint32_t *keys, size_t total, uint32_t nb, uint32_t *starts,
                             uint32_t *ends)
{
    size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (p >= total)
        return;
    uint32_t k = keys[p];
    if (k >= nb)
        return;
    if (p == 0 || keys[p - 1] != k)
        starts[k] = (uint32_t)p;
    if (p + 1 == total || keys[p + 1] != k)
        ends[k] = (uint32_t)(p + 1);
}

/* Phase timing for CUZK_GPU_MSM_PROFILE: events recorded between phases,
 * printed once the chunk is done. */
typedef struct {
    int on, n;
    cudaEvent_t ev[12];
    const char *name[12];
} msm_prof;

static void prof_init(msm_prof *p)
{
    p->on = env_uint("CUZK_GPU_MSM_PROFILE", 0, 0, 1);
    p->n = 0;
}

static void prof_mark(msm_prof *p, cudaStream_t s, const char *name)
{
    if (!p->on || p->n >= 12)
        return;
    cudaEventCreate(&p->ev[p->n]);
    cudaEventRecord(p->ev[p->n], s);
    p->name[p->n++] = name;
}

static void prof_print(msm_prof *p, const char *what)
{
    if (!p->on)
        return;
    cudaEventSynchronize(p->ev[p->n - 1]);
    fprintf(stderr, "msm-profile %s", what);
    for (int i = 1; i < p->n; i++) {
        float ms = 0;
        cudaEventElapsedTime(&ms, p->ev[i - 1], p->ev[i]);
        fprintf(stderr, " %s=%.2f", p->name[i], ms);
    }
    fprintf(stderr, "\n");
    for (int i = 0; i < p->n; i++)
        cudaEventDestroy(p->ev[i]);
    p->n = 0;
}

/* Work items: the sorted entries are cut into chunks of K, one per thread
 * of the accumulation, and a work item is the part of one bucket's run that
 * lies in one chunk, so every thread adds the same number of points
 * whatever the bucket sizes, and a crowded bucket is spread over many
 * threads. kcount[b] = the number of chunks bucket b's run meets (0 when
 * empty); maxk gets the largest. */
__global__ void k_msm_item_counts(const uint32_t *starts, const uint32_t *ends, size_t nb,
                                  uint32_t K, uint32_t *kcount, uint32_t *maxk)
{
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    uint32_t s = starts[b], e = ends[b];
    uint32_t k = e > s ? (e - 1) / K - s / K + 1 : 0;
    kcount[b] = k;
    if (k > 1)
        atomicMax(maxk, k);
}

/* The items of each bucket, in bucket order (off = prefix of kcount), so
 * items are also in entry order. */
__global__ void k_msm_items(const uint32_t *starts, const uint32_t *ends, const uint32_t *off,
                            const uint32_t *kcount, size_t nb, uint32_t K, uint32_t *item_end,
                            uint32_t *item_bucket)
{
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    uint32_t s = starts[b], e = ends[b], o = off[b], t0 = s / K;
    for (uint32_t q = 0; q < kcount[b]; q++) {
        uint32_t hi = (t0 + q + 1) * K;
        item_end[o + q] = hi < e ? hi : e;
        item_bucket[o + q] = (uint32_t)b;
    }
}

/* The accumulation's launch shape, from H200 measurements (2^22..2^27):
 * G1 at 128 threads with the natural register count (~200) and the next
 * base prefetched was 1.5-2.5% faster than without the prefetch and 3-7%
 * faster than 256 threads capped at 128 registers; G2 (points twice as
 * large) keeps 128 threads without the prefetch. */
/* Batch-affine from these sizes up (H200, CUZK_GPU_MSM_ACC=affine vs xyzz):
 * G1 tied at 2^21 and won from 2^22 (32 vs 35 ms; 712 vs 836 ms at 2^27), G2
 * won from 2^19 (28 vs 29 ms; 573 vs 813 ms at 2^25). The ones' sum in
 * batch-affine levels from ONES_AFFINE_MIN (H200, gpu-msm --ones 84 and the
 * 2^27 partition, ms, affine vs XYZZ): G1 1.8e6 ones 3.9 vs 1.7, 7.0e6 4.5
 * vs 4.2, 1.3e7 5.9 vs 7.5, 1.4e7 6.2 vs 7.4; G2 7.0e6 8.9 vs 14.8 (groups
 * of 2^8), 1.3e7 14.7 vs 24.5 (groups of 2^10), 1.4e7 14.4 (2^8) and 15.6
 * (2^10) vs 24.8. With the groups' XYZZ tail from 16 points (was 256) and
 * XYZZ chunks of 16 (was 64), ones alone (ms, affine vs XYZZ; 2026-12-04):
 * G1 4.4e5 1.60 vs 0.81, 3.5e6 2.66 vs 2.25, 7.0e6 3.79 vs 3.88 (chunks of
 * 64); G2 4.4e5 3.33 vs 2.96, 8.8e5 3.91 vs 3.80, 1.8e6 4.75 vs 5.37, 3.5e6
 * 6.13 vs 8.07, so G2 is affine from 2^20 ones and G1 from 2^23. The groups
 * (ONES_LOG_DEFAULT in msm_impl.cuh) of 2^8..2^12
 * entries: G1 the same from 2^8 to 2^10 (1.4e7: 6.11 / 6.12 / 6.13), G2
 * fastest at 2^8-2^9 (7.0e6: 8.9 / 10.1 / 12.9 / 18.2 / 18.3). The product
 * tree's fan-in 4, 8, 16 and top 2^11, 2^14, 2^16: G1 and G2 MSMs within
 * 0.5 % of one another from 2^23 up (the defaults stay). The level passes of G1
 * capped at 128 registers (4 blocks of 128 threads per SM, 130 registers
 * uncapped) were 2 % faster (2^27: 696 vs 710 ms); 5 or 6 blocks (spills)
 * and G2 capped at 2 or 3 blocks were not. The cost of a
 * bucket against an entry (msm_choose), from window sweeps: G1 5 (one
 * window fewer, c = 22 instead of 20, lost 9.5 ms at 2^25 and gained 5.4
 * at 2^26 and 32 at 2^27; c = 14, 15, 18, 19 at 2^18, 2^19, 2^22, 2^23
 * gained 0.8-3 %), G2 8 (c = 18 lost 2 % at 2^22, c = 19 3 % at 2^23).
 * Outputs per thread of a level pass (BA_OUTPUTS), from sweeps of 1..32:
 * G1 16 (1: 720 and 2: 646 against 621 ms for 8 at 2^27 while odd points
 * still had lanes of their own; with the passes over pairs only, 16 took
 * 602 against 608-611 for 8 and 615 for 4, and 32 was no faster);
 * G2 1, so its products chain only in the lean tree kernels and not in the
 * 250-register backward pass (2^22..2^26: 65.4 / 117.7 / 222.6 / 431.0 /
 * 794.8 against 71.0 / 130.2 / 247.6 / 465.3 / 872.5 ms with 8). */
#define CRV g1
#define BUCKET_COST 5.0
#define BA_OUTPUTS 16u
#define AFFINE_MIN ((size_t)3 << 20)
#define ONES_AFFINE_MIN ((size_t)1 << 23)
#define BA_BOUNDS __launch_bounds__(128, 4)
#define FD(x) fp##x
#define FD_T fp_t
#define BA_NORM(d) (d)
#define BA_DINV(d, n) (n)
#define ACC_THREADS 128
#define ACC_BOUNDS
#define ACC_PREFETCH 1
#define H_PT blst_p1
#define H_FP blst_fp
#define H_FP_MUL blst_fp_mul
#define H_FP_SQR blst_fp_sqr
#define H_DBL blst_p1_double
#define H_ADD blst_p1_add_or_double
#include "msm_impl.cuh"
#undef CRV
#undef BUCKET_COST
#undef BA_OUTPUTS
#undef AFFINE_MIN
#undef ONES_AFFINE_MIN
#undef BA_BOUNDS
#undef FD
#undef FD_T
#undef BA_NORM
#undef BA_DINV
#undef ACC_THREADS
#undef ACC_BOUNDS
#undef ACC_PREFETCH
#undef H_PT
#undef H_FP
#undef H_FP_MUL
#undef H_FP_SQR
#undef H_DBL
#undef H_ADD

#define CRV g2
#define BUCKET_COST 8.0
#define BA_OUTPUTS 1u
#define AFFINE_MIN ((size_t)1 << 19)
#define ONES_AFFINE_MIN ((size_t)1 << 20)
#define BA_BOUNDS __launch_bounds__(128)
#define FD(x) fp2##x
#define FD_T fp2_t
#define BA_NORM(d) fp2_norm(d)
#define BA_DINV(d, n) fp2_conj_scale(d, n)
#define ACC_THREADS 128
#define ACC_BOUNDS __launch_bounds__(128)
#define ACC_PREFETCH 0
#define H_PT blst_p2
#define H_FP blst_fp2
#define H_FP_MUL blst_fp2_mul
#define H_FP_SQR blst_fp2_sqr
#define H_DBL blst_p2_double
#define H_ADD blst_p2_add_or_double
#include "msm_impl.cuh"
#undef CRV
#undef BUCKET_COST
#undef BA_OUTPUTS
#undef AFFINE_MIN
#undef ONES_AFFINE_MIN
#undef BA_BOUNDS
#undef FD
#undef FD_T
#undef BA_NORM
#undef BA_DINV
#undef ACC_THREADS
#undef ACC_BOUNDS
#undef ACC_PREFETCH
#undef H_PT
#undef H_FP
#undef H_FP_MUL
#undef H_FP_SQR
#undef H_DBL
#undef H_ADD

/* The most local memory (stack frame) a thread of an MSM kernel takes, as
 * CUDA reports it (sm_90, ptxas: g2_k_bucket_reduce 1,824 bytes, the other
 * G2 reductions and sums 0.9-1.4 KB, G1's at most 0.4 KB). */
size_t gpu_msm_stack_need(void)
{
    const void *k[] = {
        (const void *)g1_k_bucket_reduce,  (const void *)g2_k_bucket_reduce,
        (const void *)g1_k_bucket_suffix,  (const void *)g2_k_bucket_suffix,
        (const void *)g1_k_bucket_segsum,  (const void *)g2_k_bucket_segsum,
        (const void *)g1_k_bucket_offsets, (const void *)g2_k_bucket_offsets,
        (const void *)g1_k_sum_groups,     (const void *)g2_k_sum_groups,
        (const void *)g1_k_sum_indexed,    (const void *)g2_k_sum_indexed,
        (const void *)g1_k_chunk_acc,      (const void *)g2_k_chunk_acc,
        (const void *)g1_k_item_combine,   (const void *)g2_k_item_combine,
        (const void *)g1_k_ba_task,        (const void *)g2_k_ba_task,
        (const void *)g1_k_ba_fwd,         (const void *)g2_k_ba_fwd,
        (const void *)g1_k_ba_bwd,         (const void *)g2_k_ba_bwd,
        (const void *)g1_k_ba_final,       (const void *)g2_k_ba_final,
    };
    size_t most = 0;
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        cudaFuncAttributes a;
        if (cudaFuncGetAttributes(&a, k[i]) != cudaSuccess) {
            cudaGetLastError();
            continue;
        }
        if (a.localSizeBytes > most)
            most = a.localSizeBytes;
    }
    return most;
}

/* ---- resident bases ------------------------------------------------------ */

static void resident_sample(const void *host, size_t n, size_t elem, unsigned char s[][192])
{
    for (int i = 0; i < GPU_SAMPLE; i++) {
        size_t at = n ? (n - 1) * (size_t)i / (GPU_SAMPLE - 1) : 0;
        memset(s[i], 0, 192);
        if (n)
            memcpy(s[i], (const unsigned char *)host + at * elem, elem);
    }
}

static void resident_drop(gpu_resident *r)
{
    cudaFree(r->dev);
    memset(r, 0, sizeof *r);
}

static void density_drop(gpu_density *d)
{
    cudaFree(d->dev);
    free(d->host);
    memset(d, 0, sizeof *d);
}

static void ahead_finish(cuzk_gpu *g);

extern "C" void cuzk_gpu_msm_forget(cuzk_gpu *g)
{
    ahead_finish(g);
    for (int i = 0; i < GPU_MAX_RESIDENT; i++)
        if (g->res[i].dev)
            resident_drop(&g->res[i]);
    for (int i = 0; i < GPU_MAX_DENSITY; i++)
        if (g->dens[i].dev)
            density_drop(&g->dens[i]);
}

/* The device copy of a density bitmap of n bits and its count of set bits:
 * one kept with the same content, else counted and uploaded into a free or
 * the least recently used slot. A host memcmp (0.7-2.1 ms for the 16 MB of
 * a 2^27 circuit on the 2-core development machine) costs less than the
 * staged upload it saves (~6.5 ms of device time each), and a kept count
 * saves the popcount over the same 16 MB while the device waits.
 * CUZK_ENOMEM when no memory is left for it (the caller then counts and
 * uploads into its own buffer). */
static cuzk_err density_get(cuzk_gpu *g, const uint64_t *host, size_t n, const uint64_t **dev,
                            uint64_t *count)
{
    size_t bytes = (n + 63) / 64 * sizeof(uint64_t);
    g->use_clock++;
    int slot = -1;
    for (int i = 0; i < GPU_MAX_DENSITY; i++) {
        gpu_density *d = &g->dens[i];
        if (d->dev && d->n == n && !memcmp(d->host, host, bytes)) {
            d->last_use = g->use_clock;
            *dev = (const uint64_t *)d->dev;
            *count = d->count;
            return CUZK_OK;
        }
        if (slot < 0 || !d->dev || (g->dens[slot].dev && d->last_use < g->dens[slot].last_use))
            slot = i;
    }
    gpu_density *d = &g->dens[slot];
    if (d->dev)
        density_drop(d);
    uint64_t *hc = (uint64_t *)malloc(bytes);
    if (!hc)
        return cuzk_fail(CUZK_ENOMEM, "GPU MSM: no host memory for a density copy");
    void *dv = NULL;
    cuzk_err rc = gpu_alloc(&dv, bytes, "MSM density");
    if (!rc)
        rc = gpu_copy_h2d(g, dv, host, bytes);
    if (rc) {
        cudaFree(dv);
        free(hc);
        return rc;
    }
    memcpy(hc, host, bytes);
    d->host = hc;
    d->n = n;
    d->count = cuzk_bitmap_count(host, n);
    d->dev = dv;
    d->last_use = g->use_clock;
    *dev = (const uint64_t *)dv;
    *count = d->count;
    return CUZK_OK;
}

/* A pinned set for these host bases, or NULL. Pinned sets are matched by
 * address, count and size alone: their host copy may be gone. */
static gpu_resident *pinned_find(cuzk_gpu *g, const void *host, size_t n, size_t elem)
{
    for (int i = 0; i < GPU_MAX_RESIDENT; i++) {
        gpu_resident *r = &g->res[i];
        if (r->dev && r->pinned && r->host == host && r->n == n && r->elem == elem)
            return r;
    }
    return NULL;
}

/* The device copy of host bases, uploading (and evicting) as needed. */
static cuzk_err resident_get(cuzk_gpu *g, const void *host, size_t n, size_t elem, void **dev,
                             gpu_resident **slot_out)
{
    g->use_clock++;
    gpu_resident *pr = pinned_find(g, host, n, elem);
    if (pr) {
        pr->last_use = g->use_clock;
        *dev = pr->dev;
        *slot_out = pr;
        return CUZK_OK;
    }
    if (g->ahead.live) { /* this set, uploaded ahead: wait for the rest of it */
        const gpu_resident *a = &g->res[g->ahead.slot];
        if (a->host == host && a->n == n && a->elem == elem)
            ahead_finish(g);
    }
    unsigned char s[GPU_SAMPLE][192];
    resident_sample(host, n, elem, s);
    for (int i = 0; i < GPU_MAX_RESIDENT; i++) {
        gpu_resident *r = &g->res[i];
        if (r->dev && r->host == host && r->n == n && r->elem == elem &&
            !memcmp(r->sample, s, sizeof s)) {
            r->last_use = g->use_clock;
            *dev = r->dev;
            *slot_out = r;
            return CUZK_OK;
        }
    }
    /* A slot: a free one, else the least recently used one neither pinned
     * nor in use. */
    int slot = -1;
    for (int i = 0; i < GPU_MAX_RESIDENT; i++) {
        const gpu_resident *r = &g->res[i];
        if (!r->dev) {
            slot = i;
            break;
        }
        if (!r->pinned && !r->busy && !r->ahead &&
            (slot < 0 || r->last_use < g->res[slot].last_use))
            slot = i;
    }
    if (slot < 0)
        return cuzk_fail(CUZK_ENOMEM, "GPU %d: all %d resident base sets are pinned or in use",
                         g->ordinal, GPU_MAX_RESIDENT);
    if (g->res[slot].dev)
        resident_drop(&g->res[slot]);
    void *d = NULL;
    CUZK_TRY(gpu_alloc_for(g, &d, n * elem, "MSM bases", 0));
    double t0 = cuzk_now();
    cuzk_err ce = gpu_copy_h2d(g, d, host, n * elem);
    cudaError_t e = ce ? cudaSuccess : cudaStreamSynchronize(g->stream);
    if (ce || e != cudaSuccess) {
        cudaFree(d);
        return ce ? ce : gpu_fail(e, "MSM bases upload");
    }
    /* once per circuit and GPU, unless the GPU is too small to keep a
     * circuit's bases beside its proofs (then every proof: see the log) */
    double up_s = cuzk_now() - t0;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        cudaGetLastError();
    CUZK_INFO("gpu=%d event=bases_uploaded mib=%.0f s=%.3f gb_s=%.1f free_mib=%.0f", g->ordinal,
              (double)(n * elem) / 1048576.0, up_s,
              up_s > 0 ? (double)(n * elem) / up_s / 1e9 : 0.0, free_b / 1048576.0);
    gpu_resident *r = &g->res[slot];
    r->host = host;
    r->n = n;
    r->elem = elem;
    memcpy(r->sample, s, sizeof s);
    r->dev = d;
    r->last_use = g->use_clock;
    *dev = d;
    *slot_out = r;
    return CUZK_OK;
}

void gpu_proof_begin(cuzk_gpu *g)
{
    g->proof_mark[0] = g->proof_mark[1];
    g->proof_mark[1] = g->use_clock;
}

/* Which set goes when a proof's buffer does not fit: the one whose next
 * use is furthest away (shed.h has the order). Sets no proof used since
 * the previous one began belong to other circuits: the least recently used
 * of those first. Else every set belongs to the circuit being proved, whose
 * MSMs use them in the same order every proof: one this proof has used
 * already is next needed in the next proof (those not yet used come
 * sooner), the most recently used the latest. Least recently used first
 * instead, a GPU too small to keep a circuit's sets beside a proof's
 * buffers (80 GB, a 32 GiB WindowPoSt's ~60 GB of bases) would upload
 * every set again every proof; this way only the last. Of the two sets
 * needed last the smaller goes when it covers `shortfall` alone (0: not
 * known): on an H100 the engine's 2^27 partitions then gave back B_G1
 * instead of B_G2 and uploaded it again ahead of its MSM, 1.5 s of device
 * time less per 10-partition proof. CUZK_GPU_SHED_COVER=0: the order
 * alone. */
size_t gpu_resident_shed(cuzk_gpu *g, size_t shortfall)
{
    gpu_shed_cand c[GPU_MAX_RESIDENT];
    for (int i = 0; i < GPU_MAX_RESIDENT; i++) {
        const gpu_resident *r = &g->res[i];
        c[i].bytes = r->n * r->elem;
        c[i].last_use = r->last_use;
        c[i].cls = !r->dev || r->pinned || r->busy || r->ahead ? -1
                   : r->last_use <= g->proof_mark[0]           ? 2
                                                               : r->last_use > g->proof_mark[1];
    }
    int v = gpu_shed_pick(c, GPU_MAX_RESIDENT, shortfall, env_uint("CUZK_GPU_SHED_COVER", 1, 0, 1));
    if (v < 0)
        return 0;
    size_t bytes = g->res[v].n * g->res[v].elem;
    resident_drop(&g->res[v]);
    return bytes;
}

/* ---- a base set uploaded ahead of its MSM ----------------------------------- */

/* The upload's thread: the copies on the copy stream (staged through the
 * staging buffers, whose lock makes it take turns with the caller's own
 * staged copies), then waits for them to end. */
static void *ahead_main(void *arg)
{
    cuzk_gpu *g = (cuzk_gpu *)arg;
    gpu_ahead *a = &g->ahead;
    const gpu_resident *r = &g->res[a->slot];
    double t0 = cuzk_now();
    cudaStream_t cs = gpu_copy_stream(g);
    a->ok = cudaSetDevice(g->ordinal) == cudaSuccess &&
            gpu_copy_h2d_on(g, cs, r->dev, r->host, r->n * r->elem) == CUZK_OK &&
            cudaEventRecord(a->done, cs) == cudaSuccess &&
            cudaEventSynchronize(a->done) == cudaSuccess;
    if (!a->ok)
        cudaGetLastError();
    a->s = cuzk_now() - t0;
    __atomic_store_n(&a->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* Waits for the set in flight (if any) and makes it an ordinary resident
 * set, or drops it when its upload failed (its MSM then uploads it as
 * before). Logs how long the caller waited for it. */
static void ahead_finish(cuzk_gpu *g)
{
    gpu_ahead *a = &g->ahead;
    if (!a->live)
        return;
    double t0 = cuzk_now();
    pthread_join(a->thread, NULL);
    double waited = cuzk_now() - t0;
    a->live = 0;
    gpu_resident *r = &g->res[a->slot];
    r->ahead = 0;
    size_t bytes = r->n * r->elem;
    if (!a->ok) {
        CUZK_DEBUG("gpu=%d event=bases_ahead_failed mib=%.0f", g->ordinal, bytes / 1048576.0);
        resident_drop(r);
        return;
    }
    CUZK_INFO("gpu=%d event=bases_uploaded_ahead mib=%.0f s=%.3f gb_s=%.1f waited_s=%.3f",
              g->ordinal, bytes / 1048576.0, a->s, a->s > 0 ? bytes / a->s / 1e9 : 0.0, waited);
}

/* Room a base set uploaded ahead must leave free for the MSM that runs
 * meanwhile: its split lists (msm_core's layout: 41 bytes an entry and the
 * density's counts) and a slack for everything else it takes,
 * CUZK_GPU_BASES_AHEAD_SLACK_MIB (default 2048). Its scratch comes mostly
 * from the MSM arena, which an earlier MSM of the proof has sized already
 * and which counts as used here; with a smaller slack the MSM may find
 * less room to grow it and choose a plan that needs less. */
static size_t ahead_reserve(size_t entries)
{
    size_t slack = (size_t)env_uint("CUZK_GPU_BASES_AHEAD_SLACK_MIB", 2048, 0, 1u << 20) << 20;
    return entries * 41 + (entries + 63) / 64 * 8 + slack;
}

extern "C" int cuzk_gpu_bases_ahead(cuzk_gpu *g, const void *host, size_t n, size_t elem,
                                    size_t entries)
{
    if (!n)
        return 0;
    if (cudaSetDevice(g->ordinal) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    if (pinned_find(g, host, n, elem))
        return 0;
    gpu_ahead *a = &g->ahead;
    if (a->live && __atomic_load_n(&a->finished, __ATOMIC_ACQUIRE))
        ahead_finish(g); /* the last one is up: its thread has ended */
    unsigned char s[GPU_SAMPLE][192];
    resident_sample(host, n, elem, s);
    for (int i = 0; i < GPU_MAX_RESIDENT; i++) {
        const gpu_resident *r = &g->res[i];
        if (r->dev && r->host == host && r->n == n && r->elem == elem &&
            !memcmp(r->sample, s, sizeof s))
            return r->ahead ? 1 : 0;
    }
    if (a->live || !env_uint("CUZK_GPU_BASES_AHEAD", 1, 0, 1))
        return -1;
    if (gpu_copy_stream(g) == g->stream) /* made here, not on the thread */
        return -1;
    if (!a->done && cudaEventCreateWithFlags(&a->done, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        a->done = NULL;
        return -1;
    }
    int slot = -1;
    for (int i = 0; i < GPU_MAX_RESIDENT && slot < 0; i++)
        if (!g->res[i].dev)
            slot = i;
    size_t bytes = n * elem, free_b = 0, total_b = 0, want = bytes + ahead_reserve(entries);
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    /* Only into memory nobody holds: nothing given back for it (no other
     * set, kept block or the arena), so the MSMs before it run as they
     * would without it. */
    if (slot < 0 || free_b < want) {
        CUZK_DEBUG("gpu=%d event=bases_ahead_skipped mib=%.0f free_mib=%.0f want_mib=%.0f "
                   "slot=%d",
                   g->ordinal, bytes / 1048576.0, free_b / 1048576.0, want / 1048576.0, slot);
        return -1;
    }
    void *d = NULL;
    if (cudaMalloc(&d, bytes) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    gpu_resident *r = &g->res[slot];
    r->host = host;
    r->n = n;
    r->elem = elem;
    memcpy(r->sample, s, sizeof s);
    r->dev = d;
    /* as a set of this circuit not used yet this proof (gpu_resident_shed) */
    r->last_use = g->proof_mark[1];
    r->ahead = 1;
    a->slot = slot;
    a->ok = 0;
    a->finished = 0;
    if (pthread_create(&a->thread, NULL, ahead_main, g)) {
        resident_drop(r);
        return -1;
    }
    a->live = 1;
    return 1;
}

extern "C" cuzk_err cuzk_gpu_bases_pin(cuzk_gpu *g, const void *host, size_t n, size_t elem)
{
    if (!n)
        return CUZK_OK;
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    void *d;
    gpu_resident *r;
    CUZK_TRY(resident_get(g, host, n, elem, &d, &r));
    r->pinned = 1;
    return CUZK_OK;
}

extern "C" int cuzk_gpu_bases_pinned(cuzk_gpu *g, const void *host, size_t n, size_t elem)
{
    return !n || pinned_find(g, host, n, elem) != NULL;
}

/* ---- the split MSM --------------------------------------------------------- */

/* The split MSM over device scalars dk (Montgomery form) and an optional
 * device density bitmap dd (n bits). */
static cuzk_err msm_core(cuzk_gpu *g, int g2, void *out, const void *dbases, const fr_t *dk,
                         const uint64_t *dd, size_t n, cuzk_msm_stats *stats)
{
    size_t words = (n + 63) / 64;
    void *buf = NULL, *cub_tmp = NULL;
    size_t cub_bytes = 0;
    /* sig_k: n Fr (limb-major); ones and significant indices; counts,
     * prefix; counters; the digits' carries between window chunks */
    size_t bytes = n * sizeof(fr_t) + 2 * n * sizeof(uint32_t) + words * 2 * sizeof(uint32_t) +
                   4 * sizeof(uint32_t) + n;
    CUZK_TRY(gpu_alloc_for(g, &buf, bytes, "MSM split lists", 1));
    uint32_t *sig_k = (uint32_t *)buf;
    uint32_t *ones_idx = sig_k + 8 * n, *sig_idx = ones_idx + n;
    uint32_t *cnt = sig_idx + n, *pre = cnt + words, *counters = pre + words;
    uint8_t *carries = (uint8_t *)(counters + 4);
    cuzk_err rc = CUZK_OK;
    uint32_t hc[4];
    /* each call's error checked where it happens, so that none is left for
     * a later check to report as its own */
    cudaError_t e = cudaMemsetAsync(counters, 0, 4 * sizeof(uint32_t), g->stream);
    if (e != cudaSuccess) {
        rc = gpu_fail(e, "MSM split: counters");
        goto done;
    }
    if (dd) {
        k_msm_popc<<<(unsigned)((words + 255) / 256), 256, 0, g->stream>>>(dd, words, cnt);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, cnt, pre, words, g->stream);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "MSM split: density counts");
            goto done;
        }
        if ((rc = gpu_alloc(&cub_tmp, cub_bytes, "MSM scan scratch")))
            goto done;
        e = cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, cnt, pre, words, g->stream);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "MSM split: density prefix");
            goto done;
        }
    }
    {
        size_t blocks = (n + 255) / 256;
        k_msm_classify<<<(unsigned)(blocks > 65536 ? 65536 : blocks), 256, 0, g->stream>>>(
            dk, dd, pre, n, ones_idx, sig_idx, sig_k, counters);
        e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(hc, counters, sizeof hc, cudaMemcpyDeviceToHost, g->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g->stream);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "MSM split");
            goto done;
        }
    }
    if (g2)
        rc = g2_msm_device(g, (blst_p2 *)out, (const g2_aff_t *)dbases, ones_idx, hc[1], sig_idx,
                           sig_k, n, carries, hc[2]);
    else
        rc = g1_msm_device(g, (blst_p1 *)out, (const g1_aff_t *)dbases, ones_idx, hc[1], sig_idx,
                           sig_k, n, carries, hc[2]);
    if (!rc && stats) {
        stats->n = hc[3];
        stats->zeros = hc[0];
        stats->ones = hc[1];
        stats->others = hc[2];
    }
done:
    cudaFree(cub_tmp);
    gpu_free(buf);
    return rc;
}

static cuzk_err msm_split(cuzk_gpu *g, int g2, void *out, const void *bases, size_t n_bases,
                          const cuzk_fr *k, const uint64_t *density, size_t n,
                          cuzk_msm_stats *stats)
{
    size_t elem = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
    if (n > 0x7fffffffu)
        return cuzk_fail(CUZK_EINVAL, "GPU MSM: %zu entries (at most 2^31 - 1)", n);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    /* The density bitmap kept on the device (its count kept with it), or
     * (no memory for it) counted here and uploaded into buf. */
    size_t words = (n + 63) / 64;
    const uint64_t *dd = NULL;
    uint64_t want = n;
    cuzk_err rc = density && n ? density_get(g, density, n, &dd, &want) : CUZK_OK;
    if (rc && rc != CUZK_ENOMEM)
        return rc;
    int own_dd = density && n && rc == CUZK_ENOMEM;
    if (own_dd)
        want = cuzk_bitmap_count(density, n);
    if (n_bases != want)
        return cuzk_fail(CUZK_EINVAL, "GPU MSM: %zu bases for %llu entries with a base", n_bases,
                         (unsigned long long)want);
    if (n == 0 || n_bases == 0) {
        memset(out, 0, g2 ? sizeof(blst_p2) : sizeof(blst_p1));
        if (stats)
            memset(stats, 0, sizeof *stats);
        return CUZK_OK;
    }
    void *dbases, *buf = NULL;
    gpu_resident *r;
    CUZK_TRY(resident_get(g, bases, n_bases, elem, &dbases, &r));
    r->busy = 1; /* this MSM's own buffers may shed other sets, not this one */
    gpu_times_begin(g);
    /* Scalars inside the proof's witness are on the device already. */
    const fr_t *wk = (const fr_t *)gpu_scalars_lookup(g, k, n);
    size_t kbytes = wk ? 0 : n * sizeof(fr_t), dbytes = own_dd ? words * sizeof(uint64_t) : 0;
    rc = kbytes + dbytes ? gpu_alloc_for(g, &buf, kbytes + dbytes, "MSM scalars", 1) : CUZK_OK;
    fr_t *dk = wk ? (fr_t *)wk : (fr_t *)buf;
    if (!rc && !wk)
        rc = gpu_copy_h2d(g, dk, k, kbytes);
    if (!rc && own_dd) {
        dd = (const uint64_t *)((char *)buf + kbytes);
        rc = gpu_copy_h2d(g, (void *)dd, density, dbytes);
    }
    if (!rc) {
        gpu_times_mark(g, 1);
        rc = msm_core(g, g2, out, dbases, dk, dd, n, stats);
        gpu_times_mark(g, 2);
        if (!rc)
            rc = gpu_times_end(g);
    } else {
        cudaStreamSynchronize(g->stream);
    }
    gpu_free(buf);
    r->busy = 0;
    return rc;
}

extern "C" cuzk_err cuzk_gpu_msm_g1(cuzk_gpu *g, blst_p1 *out, const blst_p1_affine *bases,
                                    size_t n_bases, const cuzk_fr *k, const uint64_t *density,
                                    size_t n, cuzk_msm_stats *stats)
{
    return msm_split(g, 0, out, bases, n_bases, k, density, n, stats);
}

extern "C" cuzk_err cuzk_gpu_msm_g2(cuzk_gpu *g, blst_p2 *out, const blst_p2_affine *bases,
                                    size_t n_bases, const cuzk_fr *k, const uint64_t *density,
                                    size_t n, cuzk_msm_stats *stats)
{
    return msm_split(g, 1, out, bases, n_bases, k, density, n, stats);
}

/* ---- benchmark ------------------------------------------------------------- */

/* Scalar i becomes 1 where a hash of i mod 100 < pct. */
__global__ void k_bench_ones(fr_t *k, size_t n, unsigned pct)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t v = (i + 1) * 0x9e3779b97f4a7c15ULL;
    v = (v ^ (v >> 29)) * 0xbf58476d1ce4e5b9ULL;
    if ((v ^ (v >> 32)) % 100 < pct)
        k[i] = fr_one();
}

/* Random affine host points k_i * generator (fixed-base tables of blst). */
static cuzk_err host_points(int g2, void *out, size_t n, uint64_t seed)
{
    cuzk_fr *k = (cuzk_fr *)malloc(n * sizeof(cuzk_fr));
    if (!k)
        return cuzk_fail(CUZK_ENOMEM, "bench points: out of host memory");
    cuzk_fr_vec_rng(k, n, seed);
    cuzk_err rc;
    if (g2) {
        cuzk_g2_fixed t;
        if (!(rc = cuzk_g2_fixed_init(&t, blst_p2_generator(), 8))) {
            cuzk_g2_fixed_mul_batch((blst_p2_affine *)out, &t, k, n);
            cuzk_g2_fixed_free(&t);
        }
    } else {
        cuzk_g1_fixed t;
        if (!(rc = cuzk_g1_fixed_init(&t, blst_p1_generator(), 10))) {
            cuzk_g1_fixed_mul_batch((blst_p1_affine *)out, &t, k, n);
            cuzk_g1_fixed_free(&t);
        }
    }
    free(k);
    return rc;
}

/* The bench MSM of the first m generated points once more with the
 * accumulation forced to `acc`; EINTERNAL unless it equals *want. */
static cuzk_err bench_cross(cuzk_gpu *g, int g2, const void *dbases, const fr_t *dk, size_t m,
                            const char *acc, const blst_p2 *want)
{
    const char *prev = getenv("CUZK_GPU_MSM_ACC");
    char keep[16] = "";
    if (prev)
        snprintf(keep, sizeof keep, "%s", prev);
    setenv("CUZK_GPU_MSM_ACC", acc, 1);
    blst_p2 got;
    cuzk_err rc = msm_core(g, g2, &got, dbases, dk, NULL, m, NULL);
    if (prev)
        setenv("CUZK_GPU_MSM_ACC", keep, 1);
    else
        unsetenv("CUZK_GPU_MSM_ACC");
    if (rc)
        return rc;
    int same = g2 ? blst_p2_is_equal(&got, want)
                  : blst_p1_is_equal((const blst_p1 *)&got, (const blst_p1 *)want);
    if (!same)
        return cuzk_fail(CUZK_EINTERNAL,
                         "GPU MSM bench: %s result of 2^%u points with the %s "
                         "accumulation differs",
                         g2 ? "G2" : "G1", (unsigned)__builtin_ctzll(m), acc);
    return CUZK_OK;
}

extern "C" cuzk_err cuzk_gpu_bench_msm(cuzk_gpu *g, int g2, unsigned log_lo, unsigned log_hi,
                                       int reps, int cross, unsigned ones_pct, double *ms)
{
    if (log_lo < 10 || log_hi < log_lo || log_hi > 30 || reps < 1 || reps > 64 || ones_pct > 100)
        return cuzk_fail(CUZK_EINVAL, "GPU MSM bench: sizes 2^%u..2^%u, reps %d, ones %u%%", log_lo,
                         log_hi, reps, ones_pct);
    GPU_TRY(cudaSetDevice(g->ordinal), "select device");
    size_t elem = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t), n = (size_t)1 << log_hi;
    const unsigned logA = 10;
    /* the CPU checks the MSM of the first 2^min(log_lo, 20) points */
    unsigned log_ck = log_lo < 20 ? log_lo : 20;
    size_t nA = (size_t)1 << logA, nB = n >> logA, nlo = (size_t)1 << log_ck;
    unsigned char *hA = (unsigned char *)malloc((nA + nB) * elem);
    unsigned char *hb = (unsigned char *)malloc(nlo * elem);
    cuzk_fr *hk = (cuzk_fr *)malloc(nlo * sizeof(cuzk_fr));
    void *dA = NULL, *dbases = NULL, *dk = NULL;
    cuzk_err rc = CUZK_OK;
    if (!hA || !hb || !hk) {
        rc = cuzk_fail(CUZK_ENOMEM, "GPU MSM bench: out of host memory");
        goto done;
    }
    if ((rc = host_points(g2, hA, nA, 101)) || (rc = host_points(g2, hA + nA * elem, nB, 202)) ||
        (rc = gpu_alloc(&dA, (nA + nB) * elem, "bench seeds")) ||
        (rc = gpu_alloc(&dbases, n * elem, "bench bases")) ||
        (rc = gpu_alloc(&dk, n * sizeof(fr_t), "bench scalars")))
        goto done;
    cudaMemcpy(dA, hA, (nA + nB) * elem, cudaMemcpyHostToDevice);
    if (g2)
        g2_k_gen_points<<<(unsigned)((n + 127) / 128), 128, 0, g->stream>>>(
            (const g2_aff_t *)dA, logA, (const g2_aff_t *)dA + nA, n, (g2_aff_t *)dbases);
    else
        g1_k_gen_points<<<(unsigned)((n + 127) / 128), 128, 0, g->stream>>>(
            (const g1_aff_t *)dA, logA, (const g1_aff_t *)dA + nA, n, (g1_aff_t *)dbases);
    gpu_rand_fr(g, dk, n, 777);
    if (ones_pct)
        k_bench_ones<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>((fr_t *)dk, n, ones_pct);
    {
        cudaError_t e = cudaStreamSynchronize(g->stream);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "bench inputs");
            goto done;
        }
    }
    for (unsigned lg = log_lo; lg <= log_hi && !rc; lg++) {
        size_t m = (size_t)1 << lg;
        double t[65];
        blst_p2 out; /* large enough for either group */
        for (int r = -1; r < reps && !rc; r++) {
            cudaEventRecord(g->ev[0], g->stream);
            rc = msm_core(g, g2, &out, dbases, (const fr_t *)dk, NULL, m, NULL);
            cudaEventRecord(g->ev[3], g->stream);
            cudaEventSynchronize(g->ev[3]);
            float f = 0;
            cudaEventElapsedTime(&f, g->ev[0], g->ev[3]);
            if (r >= 0)
                t[r] = f;
        }
        if (rc)
            break;
        ms[lg - log_lo] = gpu_median(t, (size_t)reps);
        if (cross) /* both accumulations must give the timed result */
            if ((rc = bench_cross(g, g2, dbases, (const fr_t *)dk, m, "affine", &out)) ||
                (rc = bench_cross(g, g2, dbases, (const fr_t *)dk, m, "xyzz", &out)))
                break;
        if (lg == log_lo) { /* check against the CPU MSM */
            if (log_ck < lg &&
                (rc = msm_core(g, g2, &out, dbases, (const fr_t *)dk, NULL, nlo, NULL)))
                break;
            cudaMemcpy(hb, dbases, nlo * elem, cudaMemcpyDeviceToHost);
            cudaMemcpy(hk, dk, nlo * sizeof(fr_t), cudaMemcpyDeviceToHost);
            int same;
            if (g2) {
                blst_p2 want;
                if ((rc = cuzk_msm_g2(&want, (const blst_p2_affine *)hb, nlo, hk, NULL, nlo, NULL)))
                    break;
                same = blst_p2_is_equal(&want, &out);
            } else {
                blst_p1 want;
                if ((rc = cuzk_msm_g1(&want, (const blst_p1_affine *)hb, nlo, hk, NULL, nlo, NULL)))
                    break;
                same = blst_p1_is_equal(&want, (const blst_p1 *)&out);
            }
            if (!same)
                rc = cuzk_fail(CUZK_EINTERNAL,
                               "GPU MSM bench: %s result at 2^%u differs from the CPU",
                               g2 ? "G2" : "G1", log_ck);
        }
    }
done:
    cudaFree(dA);
    cudaFree(dbases);
    cudaFree(dk);
    free(hA);
    free(hb);
    free(hk);
    return rc;
}
