/* The group-dependent half of the MSM (msm.cu): kernels that add points and
 * the host driver of one split MSM, written once and included per group
 * with CRV (g1, g2) and the matching blst names:
 *   H_PT (blst_p1), H_FP (blst_fp), H_FP_MUL, H_FP_SQR, H_DBL, H_ADD.
 * See msm.cu for the design. */

#define M_CAT2(a, b) a##b
#define M_CAT(a, b) M_CAT2(a, b)
#define PN(x) M_CAT(CRV, x)
#define AFF M_CAT(CRV, _aff_t)
#define XYZZ M_CAT(CRV, _xyzz_t)

/* partial[t] = sum of bases[idx[p]] for p in thread t's chunk. */
__global__ void PN(_k_sum_indexed)(const AFF *bases, const uint32_t *idx, size_t count,
                                   size_t chunk, XYZZ *partial, size_t nthreads)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nthreads)
        return;
    XYZZ acc = PN(_inf)();
    size_t lo = t * chunk, hi = lo + chunk < count ? lo + chunk : count;
    for (size_t p = lo; p < hi; p++)
        acc = PN(_add_aff)(acc, bases[idx[p]]);
    partial[t] = acc;
}

/* out[g * k_out + o] = sum of in[g * k_in + o * f ...] (f consecutive). */
__global__ void PN(_k_sum_groups)(const XYZZ *in, size_t groups, size_t k_in, unsigned f, XYZZ *out,
                                  size_t k_out)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= groups * k_out)
        return;
    size_t gi = t / k_out, o = t % k_out;
    size_t lo = o * f, hi = lo + f < k_in ? lo + f : k_in;
    XYZZ acc = PN(_inf)();
    for (size_t p = lo; p < hi; p++)
        PN(_add_to)(&acc, &in[gi * k_in + p]);
    out[t] = acc;
}

/* One thread per chunk of K sorted entries: it adds its signed points in
 * order and stores the sum of each work item (the chunk's part of one
 * bucket) as the item ends. One flat loop, so the threads of a warp stay
 * together however their items are cut. With prefetch, the next entry's
 * base is loaded before the current addition so the gather overlaps the
 * arithmetic (worth its registers for G1, see msm.cu). */
static __device__ __forceinline__ void
PN(_chunk_acc)(const AFF *bases, const uint32_t *keys, const uint32_t *vals, size_t total,
               uint32_t nb, uint32_t K, const uint32_t *starts, const uint32_t *off,
               const uint32_t *item_end, size_t nitems, XYZZ *partial, int prefetch)
{
    size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x, p = t * K;
    if (p >= total)
        return;
    uint32_t key = keys[p];
    if (key >= nb)
        return;
    size_t it = off[key] + (t - starts[key] / K);
    size_t pend = p + K < total ? p + K : total;
    uint32_t e = item_end[it];
    XYZZ acc = PN(_inf)();
    uint32_t v = vals[p];
    AFF q = bases[v & 0x7fffffffu];
    for (; p < pend; p++) {
        uint32_t vn = 0;
        AFF qn;
        if (prefetch) {
            vn = vals[p + 1 < pend ? p + 1 : p];
            qn = bases[vn & 0x7fffffffu];
        }
        if (v >> 31)
            q = PN(_aff_neg)(q);
        acc = PN(_add_aff)(acc, q);
        if (p + 1 == e) {
            partial[it] = acc;
            acc = PN(_inf)();
            if (++it >= nitems)
                break;
            e = item_end[it];
        }
        if (prefetch) {
            v = vn;
            q = qn;
        } else if (p + 1 < pend) {
            v = vals[p + 1];
            q = bases[v & 0x7fffffffu];
        }
    }
}

__global__ void ACC_BOUNDS PN(_k_chunk_acc)(const AFF *bases, const uint32_t *keys,
                                            const uint32_t *vals, size_t total, uint32_t nb,
                                            uint32_t K, const uint32_t *starts, const uint32_t *off,
                                            const uint32_t *item_end, size_t nitems, XYZZ *partial)
{
    PN(_chunk_acc)
    (bases, keys, vals, total, nb, K, starts, off, item_end, nitems, partial, ACC_PREFETCH);
}

/* One step of the per-bucket tree over its items: item q of a bucket adds
 * item q + s when q is a multiple of 2s. After steps s = 1, 2, 4, ... below
 * the largest item count, a bucket's sum is its first item. */
__global__ void PN(_k_item_combine)(XYZZ *partial, const uint32_t *item_bucket, const uint32_t *off,
                                    const uint32_t *kcount, uint32_t s, size_t nitems)
{
    size_t it = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (it >= nitems)
        return;
    uint32_t b = item_bucket[it], q = (uint32_t)it - off[b];
    if (q % (2 * s) == 0 && q + s < kcount[b]) {
        XYZZ a = partial[it];
        PN(_add_to)(&a, &partial[it + s]);
        partial[it] = a;
    }
}

/* One thread per segment of L buckets of a window: the running-sum
 * reduction sum_j (j + 1) B_j restricted to the segment, with the segment
 * offset lo applied as lo * (sum of its buckets) by double-and-add. The
 * running sum S stays in registers and the total T in out[t], both added
 * to in place: with both by value G2's frame was 4,464 bytes a
 * thread (ptxas, sm_90), with both in place 2,416, this way 1,824, and the
 * device reserves the largest frame for every thread it can hold
 * (gpu_msm_stack_need). */
__global__ void PN(_k_bucket_reduce)(const XYZZ *partial, const uint32_t *off,
                                     const uint32_t *kcount, size_t nw, size_t nbw, size_t L,
                                     XYZZ *out)
{
    size_t nseg = nbw / L, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nw * nseg)
        return;
    size_t w = t / nseg, lo = (t % nseg) * L;
    XYZZ S = PN(_inf)(), *T = &out[t];
    *T = PN(_inf)();
    for (size_t j = lo + L; j-- > lo;) {
        size_t b = w * nbw + j;
        if (kcount[b])
            PN(_add_to)(&S, &partial[off[b]]);
        PN(_add_to)(T, &S);
    }
    if (lo)
        PN(_add_mul_to)(T, &S, lo);
}

/* The bucket reduction of the batch-affine path in kernels that each keep
 * one accumulator (the one above keeps two and spills, badly for G2).
 * There bucket b's sum is partial[b] (kcount[b] = 0: empty). A window's
 * nbw buckets are cut into segments of L; with the suffix sums S_j = sum
 * of B_i for i >= j within segment s (lo = s L), the segment's share of
 * sum_j (j + 1) B_j is sum_j S_j + lo T_s, T_s = S_lo its total. First
 * each segment's suffix sums, in place: */
__global__ void PN(_k_bucket_suffix)(XYZZ *partial, const uint32_t *kcount, size_t nw, size_t nbw,
                                     size_t L)
{
    size_t nseg = nbw / L, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nw * nseg)
        return;
    size_t base = (t / nseg) * nbw + (t % nseg) * L;
    XYZZ S = PN(_inf)();
    for (size_t j = L; j-- > 0;) {
        if (kcount[base + j])
            PN(_add_to)(&S, &partial[base + j]);
        partial[base + j] = S;
    }
}

/* ... then out[w * ko + s] = sum_j S_j for segment s of window w, plus
 * lo T_s by double-and-add when offset is set (else _k_bucket_offsets
 * adds the offsets) ... */
__global__ void PN(_k_bucket_segsum)(const XYZZ *partial, size_t nw, size_t nbw, size_t L,
                                     size_t ko, int offset, XYZZ *out)
{
    size_t nseg = nbw / L, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nw * nseg)
        return;
    size_t s = t % nseg, lo = s * L, base = (t / nseg) * nbw + lo;
    XYZZ T = PN(_inf)(), *o = out + (t / nseg) * ko + s;
    for (size_t j = 0; j < L; j++)
        PN(_add_to)(&T, &partial[base + j]);
    *o = T;
    if (offset && lo)
        PN(_add_mul_to)(o, &partial[base], lo);
}

/* ... and the offsets sum_s s L T_s, which are the same reduction one
 * level up: one thread per run of L2 segments (first segment lo) forms
 * the suffix sums R_i of their totals in place (T_{lo+i} at
 * partial[(lo + i) L], its segment's first bucket), then sum_{i>=1} R_i +
 * lo R_0 (double-and-add) = sum_i (lo + i) T_{lo+i}, times L (doublings),
 * into out[w * ko + nseg + run]. With 2^18 buckets a window, segments of
 * 32 and runs of 16, the double-and-add is done 512 times a window
 * instead of 8192. */
__global__ void PN(_k_bucket_offsets)(XYZZ *partial, size_t nw, size_t nbw, size_t L, size_t L2,
                                      size_t ko, XYZZ *out)
{
    size_t nseg = nbw / L, nrun = nseg / L2, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nw * nrun)
        return;
    size_t w = t / nrun, lo = (t % nrun) * L2;
    XYZZ *p = partial + w * nbw + lo * L, *o = out + w * ko + nseg + t % nrun;
    XYZZ R = PN(_inf)();
    for (size_t i = L2; i-- > 0;) {
        PN(_add_to)(&R, &p[i * L]);
        p[i * L] = R;
    }
    XYZZ V = PN(_inf)();
    for (size_t i = 1; i < L2; i++)
        PN(_add_to)(&V, &p[i * L]);
    if (lo) {
        *o = V;
        PN(_add_mul_to)(o, p, lo);
        V = *o;
    }
    for (size_t l = L; l > 1; l >>= 1)
        PN(_dbl_to)(&V);
    *o = V;
}

/* Benchmark bases: out[i] = A[i mod 2^logA] + B[i >> logA] in affine form
 * (distinct points for distinct i unless an improbable collision). */
__global__ void PN(_k_gen_points)(const AFF *A, unsigned logA, const AFF *B, size_t n, AFF *out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    XYZZ p = PN(_from_aff)(A[i & (((size_t)1 << logA) - 1)]);
    out[i] = PN(_to_aff)(PN(_add_aff)(p, B[i >> logA]));
}

/* ---- batch-affine accumulation (see msm.cu) -------------------------------- */

/* Entry i of a level: level 0 reads the sorted (sign, base index) entries
 * through the bases, later levels their own affine points. */
static __device__ __forceinline__ AFF PN(_ba_pt)(const AFF *bases, const uint32_t *vals,
                                                 const AFF *pts, size_t i)
{
    if (pts)
        return pts[i];
    uint32_t v = vals[i];
    AFF q = bases[v & 0x7fffffffu];
    return (v >> 31) ? PN(_aff_neg)(q) : q;
}

/* The x coordinate of entry i (the sign does not change it). */
static __device__ __forceinline__ FD_T PN(_ba_x)(const AFF *bases, const uint32_t *vals,
                                                 const AFF *pts, size_t i)
{
    return pts ? pts[i].x : bases[vals[i] & 0x7fffffffu].x;
}

/* The denominator of p + q and the kind of the sum: 0 chord
 * (d = xq - xp), 1 tangent (p = q, d = 2 yp), 2 the sum is q (p at
 * infinity), 3 the sum is p, 4 infinity (p = -q); d = 1 when there is
 * nothing to invert, so a batch never meets a zero. */
static __device__ __forceinline__ int PN(_ba_den)(const AFF &p, const AFF &q, FD_T *d)
{
    *d = FD(_one)();
    if (PN(_aff_is_inf)(q))
        return 3;
    if (PN(_aff_is_inf)(p))
        return 2;
    if (FD(_eq)(p.x, q.x)) {
        if (!FD(_eq)(p.y, q.y))
            return 4;
        *d = FD(_dbl)(p.y);
        return 1;
    }
    *d = FD(_sub)(q.x, p.x);
    return 0;
}

/* The next level's layout, one thread per input p of this level (bucket
 * bid[p], offsets S, the next level's Sn): the first input of each pair
 * (j = p - S[b] even) writes the output's bucket; an input with a second
 * one after it in its bucket is pair r (its rank among the level's pairs,
 * Sn[b] + j/2 less the odd buckets before b, So) with first input
 * pin[r] = p and output pout[r]; the last point of an odd bucket is copied
 * to the next level right here (the level's passes then see pairs only). */
__global__ void PN(_k_ba_task)(const AFF *bases, const uint32_t *vals, const AFF *pts,
                               const uint32_t *bid, const uint32_t *S, const uint32_t *Sn,
                               const uint32_t *So, size_t n, uint32_t *bidn, uint32_t *pin,
                               uint32_t *pout, AFF *out)
{
    size_t p = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (p >= n)
        return;
    uint32_t b = bid[p], j = (uint32_t)p - S[b];
    if (j & 1)
        return;
    uint32_t t = Sn[b] + j / 2;
    bidn[t] = b;
    if (j + 1 < S[b + 1] - S[b]) {
        uint32_t r = t - So[b];
        pin[r] = (uint32_t)p;
        pout[r] = t;
    } else {
        out[t] = PN(_ba_pt)(bases, vals, pts, p);
    }
}

/* Forward pass of a level over its np pairs: thread i takes pairs r = i +
 * s T (s < B), stores the running product of their denominators (their
 * norms in Fp, BA_NORM) in pre[r] and the whole product in prod[i]. Pair r
 * adds the entries pin[r] and pin[r] + 1 of one bucket (k_ba_task).
 * BA_BOUNDS: the launch bounds of the level passes (msm.cu). */
__global__ void BA_BOUNDS PN(_k_ba_fwd)(const AFF *bases, const uint32_t *vals, const AFF *pts,
                                        const uint32_t *pin, size_t np, size_t T, unsigned B,
                                        fp_t *pre, fp_t *prod)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= T)
        return;
    fp_t acc = fp_one();
    for (unsigned s = 0; s < B; s++) {
        size_t r = i + s * T;
        if (r >= np)
            break;
        size_t in0 = pin[r];
        FD_T d;
        /* x alone decides unless an x is 0 (infinity is (0, 0), but x = 0
         * is also on the curve) or both are equal */
        FD_T xp = PN(_ba_x)(bases, vals, pts, in0), xq = PN(_ba_x)(bases, vals, pts, in0 + 1);
        if (FD(_is_zero)(xp) | FD(_is_zero)(xq) | FD(_eq)(xp, xq)) {
            AFF p = PN(_ba_pt)(bases, vals, pts, in0), q = PN(_ba_pt)(bases, vals, pts, in0 + 1);
            PN(_ba_den)(p, q, &d);
        } else {
            d = FD(_sub)(xq, xp);
        }
        fp_t nd = BA_NORM(d);
        acc = s ? fp_mul(acc, nd) : nd;
        if (B > 1) /* the backward pass reads pre[r] for s < its count - 1 only */
            pre[r] = acc;
    }
    prod[i] = acc;
}

/* Backward pass: from the inverse of thread i's product, each pair's
 * inverse denominator (BA_DINV of r pre[r - T], r *= BA_NORM(d)), then the
 * affine sum into out[pout[r]]:
 * l = n / d, x3 = l^2 - xp - xq, y3 = l (xp - x3) - yp. */
__global__ void BA_BOUNDS PN(_k_ba_bwd)(const AFF *bases, const uint32_t *vals, const AFF *pts,
                                        const uint32_t *pin, const uint32_t *pout, size_t np,
                                        size_t T, unsigned B, const fp_t *pre, const fp_t *inv_prod,
                                        AFF *out)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= T)
        return;
    fp_t r = inv_prod[i];
    for (unsigned s = ba_outputs(i, T, np, B); s-- > 0;) {
        size_t t = i + s * T;
        size_t in0 = pin[t];
        AFF p = PN(_ba_pt)(bases, vals, pts, in0), q = PN(_ba_pt)(bases, vals, pts, in0 + 1), o;
        FD_T d;
        int kind = PN(_ba_den)(p, q, &d);
        FD_T inv = BA_DINV(d, s ? fp_mul(r, pre[t - T]) : r);
        if (s)
            r = fp_mul(r, BA_NORM(d));
        if (kind <= 1) {
            FD_T num;
            if (kind == 0) {
                num = FD(_sub)(q.y, p.y);
            } else {
                FD_T x2 = FD(_sqr)(p.x);
                num = FD(_add)(FD(_dbl)(x2), x2);
            }
            FD_T l = FD(_mul)(num, inv);
            o.x = FD(_sub)(FD(_sub)(FD(_sqr)(l), p.x), q.x);
            o.y = FD(_sub)(FD(_mul)(l, FD(_sub)(p.x, o.x)), p.y);
        } else if (kind == 2) {
            o = q;
        } else if (kind == 3) {
            o = p;
        } else {
            o.x = FD(_zero)();
            o.y = FD(_zero)();
        }
        out[pout[t]] = o;
    }
}

/* Each bucket's remaining points (at most BA_TAIL_K, one thread per
 * bucket, XYZZ += affine) as an XYZZ partial sum for the bucket reduction:
 * partial[b], off[b] = b, kcount[b] = the count (0: empty). */
__global__ void PN(_k_ba_final)(const AFF *bases, const uint32_t *vals, const AFF *pts,
                                const uint32_t *S, size_t nb, XYZZ *partial, uint32_t *off,
                                uint32_t *kcount)
{
    size_t b = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (b >= nb)
        return;
    uint32_t k = S[b + 1] - S[b];
    off[b] = (uint32_t)b;
    kcount[b] = k;
    if (!k)
        return;
    XYZZ acc = PN(_from_aff)(PN(_ba_pt)(bases, vals, pts, S[b]));
    for (uint32_t j = 1; j < k; j++)
        acc = PN(_add_aff)(acc, PN(_ba_pt)(bases, vals, pts, (size_t)S[b] + j));
    partial[b] = acc;
}

/* Host: XYZZ -> blst Jacobian without an inversion: with ZZ = z^2,
 * ZZZ = z^3, take Z' = ZZ ZZZ = z^5, X' = X ZZ ZZZ^2, Y' = Y ZZZ^4. */
static void PN(_xyzz_to_host)(H_PT *r, const XYZZ *p)
{
    const H_FP *X = (const H_FP *)&p->X, *Y = (const H_FP *)&p->Y, *ZZ = (const H_FP *)&p->ZZ,
               *ZZZ = (const H_FP *)&p->ZZZ;
    static const H_FP zero = {};
    if (!memcmp(ZZ, &zero, sizeof zero)) {
        memset(r, 0, sizeof *r);
        return;
    }
    H_FP t, zzz2;
    H_FP_MUL(&r->z, ZZ, ZZZ);
    H_FP_SQR(&zzz2, ZZZ);
    H_FP_MUL(&t, X, ZZ);
    H_FP_MUL(&r->x, &t, &zzz2);
    H_FP_SQR(&t, &zzz2);
    H_FP_MUL(&r->y, Y, &t);
}

/* The point at res on the device, as a host point (g->stream). */
static cuzk_err PN(_sum_to_host)(cuzk_gpu *g, const XYZZ *res, H_PT *out)
{
    XYZZ h;
    cudaError_t e = cudaMemcpyAsync(&h, res, sizeof h, cudaMemcpyDeviceToHost, g->stream);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(g->stream);
    if (e != cudaSuccess)
        return gpu_fail(e, "MSM ones sum");
    PN(_xyzz_to_host)(out, &h);
    return CUZK_OK;
}

/* Reduce groups x k points to groups x 1 (in place through a scratch). */
static cuzk_err PN(_reduce_groups)(cudaStream_t st, XYZZ *buf, XYZZ *scratch, size_t groups,
                                   size_t k, XYZZ **result)
{
    const unsigned f = 8;
    XYZZ *in = buf, *out = scratch;
    while (k > 1) {
        size_t k_out = (k + f - 1) / f, th = groups * k_out;
        PN(_k_sum_groups)<<<(unsigned)((th + 127) / 128), 128, 0, st>>>(in, groups, k, f, out,
                                                                        k_out);
        XYZZ *tmp = in;
        in = out;
        out = tmp;
        k = k_out;
    }
    *result = in;
    GPU_TRY(cudaGetLastError(), "MSM reduction launch");
    return CUZK_OK;
}

/* The batch-affine accumulation of one window chunk (sorted entries keys2,
 * vals2; bucket runs starts/ends): level by level, each bucket's points
 * are added in pairs (a bucket of k points has ceil(k/2) after a level)
 * with one inversion shared by the whole level (Montgomery's trick over a
 * product tree), until every bucket has at most one point; these become
 * partial[b] with off[b] = b, kcount[b] = 0 or 1 for the bucket
 * reduction. *levels gets the number of levels. inputs_read(ctx), when
 * given, is called once everything that reads keys2, vals2, starts and
 * ends has been enqueued (after level 0, or the tail when no level runs),
 * so that the next chunk's sort can start on another stream. */
static cuzk_err PN(_acc_affine)(cudaStream_t st, const AFF *bases, const uint32_t *keys2,
                                const uint32_t *vals2, const uint32_t *starts, const uint32_t *ends,
                                size_t nb, const ba_layout *L, char *mem, void *cub_tmp,
                                size_t cub_bytes, XYZZ *partial, uint32_t *off, uint32_t *kcount,
                                unsigned *levels, void (*inputs_read)(void *), void *ctx)
{
    AFF *X = (AFF *)(mem + L->x), *Y = (AFF *)(mem + L->y);
    fp_t *pre = (fp_t *)(mem + L->pre);
    uint32_t *bidx = (uint32_t *)(mem + L->bidx), *bidy = (uint32_t *)(mem + L->bidy);
    uint32_t *S = (uint32_t *)(mem + L->sa), *Sn = (uint32_t *)(mem + L->sb);
    uint32_t *kn = (uint32_t *)(mem + L->kn), *mx = (uint32_t *)(mem + L->mx);
    uint32_t *ko = (uint32_t *)(mem + L->ko), *So = (uint32_t *)(mem + L->so);
    uint32_t *pin = (uint32_t *)(mem + L->pin), *pout = (uint32_t *)(mem + L->pout);
    unsigned nbl = (unsigned)((nb + 1 + 255) / 256);
    uint32_t h[2];
    cudaMemsetAsync(mx, 0, sizeof(uint32_t), st);
    k_ba_count0<<<nbl, 256, 0, st>>>(starts, ends, nb, kn, mx);
    cudaError_t e = cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, kn, S, nb + 1, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(h, mx, sizeof(uint32_t), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaMemcpyAsync(h + 1, S + nb, sizeof(uint32_t), cudaMemcpyDeviceToHost, st);
    if (e == cudaSuccess)
        e = cudaStreamSynchronize(st);
    if (e != cudaSuccess)
        return gpu_fail(e, "MSM batch-affine counts");
    uint32_t maxk = h[0];
    size_t n = h[1];
    if (n > 0x7fffffffu)
        return cuzk_fail(CUZK_EINVAL,
                         "MSM batch-affine: %zu entries in one chunk (at most 2^31 - 1)", n);
    const uint32_t *bid = keys2;
    const AFF *pts = NULL;
    unsigned lvl = 0;
    while (maxk > 1) {
        /* the tail in XYZZ (_k_ba_final): once a bucket has at most
         * BA_TAIL_K points and the level at most BA_TAIL_N more entries
         * than buckets, the levels left would cost more in their fixed
         * part (an inversion chain, launches, a host round trip: ~0.5 ms
         * each) than the additions */
        if (maxk <= L->tail_k && n <= nb + BA_TAIL_N)
            break;
        k_ba_halve<<<nbl, 256, 0, st>>>(S, nb, kn, ko);
        e = cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, kn, Sn, nb + 1, st);
        if (e == cudaSuccess)
            e = cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, ko, So, nb + 1, st);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(h, Sn + nb, sizeof(uint32_t), cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess)
            e = cudaMemcpyAsync(h + 1, So + nb, sizeof(uint32_t), cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            return gpu_fail(e, "MSM batch-affine level");
        size_t nn = h[0], np = h[0] - h[1]; /* outputs, of which pairs */
        uint32_t *bidn = (lvl & 1) ? bidy : bidx;
        AFF *out = (lvl & 1) ? Y : X;
        PN(_k_ba_task)<<<(unsigned)((n + 255) / 256), 256, 0, st>>>(bases, vals2, pts, bid, S, Sn,
                                                                    So, n, bidn, pin, pout, out);
        if (!np) /* cannot happen while a bucket holds two points */
            return cuzk_fail(CUZK_EINVAL, "MSM batch-affine: a level without pairs");
        size_t cnt[BA_MAXT + 1];
        unsigned B = L->b, th = L->threads;
        cnt[0] = (np + B - 1) / B;
        fp_t *tv0 = (fp_t *)(mem + L->tv[0]);
        unsigned grid0 = (unsigned)((cnt[0] + th - 1) / th);
        PN(_k_ba_fwd)<<<grid0, th, 0, st>>>(bases, vals2, pts, pin, np, cnt[0], B, pre, tv0);
        int top = 0;
        while (cnt[top] > L->top) {
            if (top + 1 >= BA_MAXT)
                return cuzk_fail(CUZK_EINVAL, "MSM batch-affine: %zu products exceed the tree",
                                 cnt[0]);
            cnt[top + 1] = (cnt[top] + L->g - 1) / L->g;
            k_ba_up<<<(unsigned)((cnt[top + 1] + 127) / 128), 128, 0, st>>>(
                (fp_t *)(mem + L->tv[top]), cnt[top], cnt[top + 1], L->g,
                (fp_t *)(mem + L->tp[top]), (fp_t *)(mem + L->tv[top + 1]));
            top++;
        }
        k_ba_inv<<<(unsigned)((cnt[top] + 63) / 64), 64, 0, st>>>((fp_t *)(mem + L->tv[top]),
                                                                  cnt[top]);
        for (int l = top; l-- > 0;)
            k_ba_down<<<(unsigned)((cnt[l + 1] + 127) / 128), 128, 0, st>>>(
                (fp_t *)(mem + L->tv[l]), (fp_t *)(mem + L->tp[l]), cnt[l], cnt[l + 1], L->g,
                (fp_t *)(mem + L->tv[l + 1]));
        PN(_k_ba_bwd)<<<grid0, th, 0, st>>>(bases, vals2, pts, pin, pout, np, cnt[0], B, pre, tv0,
                                            out);
        if (!lvl && inputs_read) { /* later levels read only their own arrays */
            inputs_read(ctx);
            inputs_read = NULL;
        }
        uint32_t *t = S;
        S = Sn;
        Sn = t;
        pts = out;
        bid = bidn;
        n = nn;
        maxk = (maxk + 1) / 2;
        lvl++;
    }
    PN(_k_ba_final)<<<(unsigned)((nb + 127) / 128), 128, 0, st>>>(bases, vals2, pts, S, nb, partial,
                                                                  off, kcount);
    if (inputs_read)
        inputs_read(ctx);
    *levels = lvl;
    GPU_TRY(cudaGetLastError(), "MSM batch-affine launch");
    return CUZK_OK;
}

/* The ones' sum by the batch-affine levels: the list is cut into pieces
 * that fit the scratch, each piece into groups of 2^ONES_LOG_DEFAULT entries
 * (CUZK_GPU_MSM_ONES_GROUP=4..16 for tuning) that play the buckets, and the
 * groups' sums are added by a tree. Adds the sum to *acc; *done = 0 when
 * not even the smallest piece fits (the caller then sums in XYZZ). */
#define ONES_LOG_DEFAULT 8u
#define ONES_TAIL_DEFAULT 16u
static cuzk_err PN(_ones_affine)(cuzk_gpu *g, const AFF *bases, const uint32_t *ones_idx,
                                 size_t n_ones, H_PT *acc, int *done)
{
    size_t free_b = 0, total_b = 0;
    *done = 0;
    cudaMemGetInfo(&free_b, &total_b);
    size_t avail = msm_scratch_avail(free_b + gpu_arena_idle_bytes(g));
    const unsigned lg = env_uint("CUZK_GPU_MSM_ONES_GROUP", ONES_LOG_DEFAULT, 4, 16);
    /* pieces of at most 2^26 entries, or CUZK_GPU_MSM_ONES_PIECE=log2 (tests,
     * tuning), and no larger than the list needs */
    unsigned lp = env_uint("CUZK_GPU_MSM_ONES_PIECE", 26, lg, 26);
    /* a few thousand groups run the XYZZ tail one thread each: from
     * ONES_TAIL_DEFAULT points a group (CUZK_GPU_MSM_ONES_TAIL=1..256), not
     * the windows' BA_TAIL_K, so that no thread adds hundreds of points in a
     * row */
    const unsigned tail_k = env_uint("CUZK_GPU_MSM_ONES_TAIL", ONES_TAIL_DEFAULT, 1, 256);
    size_t piece = (size_t)1 << lp, nbp = 0, cub_bytes = 0, part[4] = {0}, total = 0;
    while (piece / 2 >= n_ones)
        piece /= 2;
    ba_layout BL;
    for (;; piece /= 2) {
        nbp = (piece + ((size_t)1 << lg) - 1) >> lg;
        cub_bytes = 0;
        GPU_TRY(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, (uint32_t *)0, (uint32_t *)0,
                                              nbp + 1, g->stream),
                "MSM ones: scan scratch size");
        ba_layout_make(&BL, piece, nbp, sizeof(AFF), sizeof(fp_t), BA_OUTPUTS);
        if (BL.tail_k)
            BL.tail_k = tail_k;
        part[0] =
            ba_align((piece + 4 * nbp) * sizeof(uint32_t)); /* keys, starts, ends, off, kcount */
        part[1] = ba_align(2 * nbp * sizeof(XYZZ));         /* partial sums, tree scratch */
        part[2] = ba_align(cub_bytes);
        part[3] = BL.bytes;
        total = part[0] + part[1] + part[2] + part[3];
        if (total <= avail)
            break;
        if (piece <= ((size_t)1 << lg))
            return CUZK_OK;
    }
    void *arena = NULL;
    int own = 0;
    CUZK_TRY(gpu_arena_get(g, total, &arena, &own));
    char *mem = (char *)arena;
    uint32_t *keys = (uint32_t *)mem, *starts = keys + piece, *ends = starts + nbp;
    uint32_t *off = ends + nbp, *kcount = off + nbp;
    XYZZ *partial = (XYZZ *)(mem + part[0]), *res = NULL;
    void *cub_tmp = mem + part[0] + part[1];
    char *lv = mem + part[0] + part[1] + part[2];
    cuzk_err rc = CUZK_OK;
    for (size_t o = 0; o < n_ones && !rc; o += piece) {
        size_t cnt = n_ones - o < piece ? n_ones - o : piece;
        size_t nb = (cnt + ((size_t)1 << lg) - 1) >> lg;
        unsigned levels = 0;
        k_ones_groups<<<(unsigned)((cnt + 255) / 256), 256, 0, g->stream>>>(cnt, lg, keys, starts,
                                                                            ends);
        if ((rc = PN(_acc_affine)(g->stream, bases, keys, ones_idx + o, starts, ends, nb, &BL, lv,
                                  cub_tmp, cub_bytes, partial, off, kcount, &levels, NULL, NULL)))
            break;
        if ((rc = PN(_reduce_groups)(g->stream, partial, partial + nbp, 1, nb, &res)))
            break;
        H_PT t;
        if ((rc = PN(_sum_to_host)(g, res, &t)))
            break;
        H_ADD(acc, acc, &t);
    }
    cudaStreamSynchronize(g->stream);
    gpu_arena_put(g, arena, own);
    *done = !rc;
    return rc;
}
#undef ONES_LOG_DEFAULT
#undef ONES_TAIL_DEFAULT

/* One worker of the window chunks: its stream, its share of the scratch
 * (parts 1..7 as laid out by _msm_device) and the chunks w0 = first wb,
 * (first + step) wb, ... of the plan; the window sums go to wins. With a
 * sort stream (sst), each chunk's digits and sort run there, started as
 * soon as the chunk before has read its sorted entries (after its first
 * level), so a sort (memory-bound) overlaps the levels and reduction of the
 * chunk before (compute- and latency-bound). */
typedef struct {
    cudaStream_t st, sst;
    const AFF *bases;
    const uint32_t *sig_idx;
    const uint32_t *sig_k; /* limb-major, leading dimension ld */
    size_t ld;
    uint8_t *carries; /* carries between chunks (one worker), or NULL */
    size_t m, nbw, max_items, tmp_bytes, scan_bytes, L, nseg, nrun;
    const msm_plan *plan;
    const ba_layout *BL;
    uint32_t K;
    unsigned keybits, first, step;
    int ordinal; /* the device, for a worker thread */
    void *scratch[8];
    /* With the sort stream and batch-affine levels, each chunk's bucket
     * reduction runs there too, beside the next chunk's levels: the bucket
     * sums (scratch[4], with counts) and the reduction's segments
     * (scratch[5]) are then two sets of p4 and p5 bytes, used by
     * alternate chunks, and the window sums go to dwins (device, after
     * the second set of segments) until the last chunk is done. */
    int red_ov;
    size_t p4, p5;
    XYZZ *dwins;
    XYZZ *wins;
    cuzk_err rc;
    char msg[512]; /* a worker thread's error message (messages are per thread) */
} PN(_worker);

/* Digits, radix sort and bucket bounds of the chunk of nwc windows from w0,
 * on stream s: keys2, vals2 (scratch[1]) sorted by bucket, starts and ends
 * (scratch[3]) each bucket's run. */
static cuzk_err PN(_chunk_sort)(PN(_worker) * w, cudaStream_t s, unsigned w0, unsigned nwc)
{
    const msm_plan &pl = *w->plan;
    size_t pairs = (size_t)nwc * w->m, nb = (size_t)nwc * w->nbw;
    uint32_t *keys = (uint32_t *)w->scratch[1], *vals = keys + pairs, *keys2 = vals + pairs,
             *vals2 = keys2 + pairs;
    uint32_t *starts = (uint32_t *)w->scratch[3], *ends = starts + nb;
    k_msm_digits<<<(unsigned)((w->m + 255) / 256), 256, 0, s>>>(w->sig_k, w->ld, w->sig_idx, w->m,
                                                                pl.c, pl.nhi, w0, nwc, w->carries,
                                                                w->carries, keys, vals);
    size_t tmp_bytes = w->tmp_bytes;
    cudaError_t e = cub::DeviceRadixSort::SortPairs(w->scratch[2], tmp_bytes, keys, keys2, vals,
                                                    vals2, pairs, 0, (int)w->keybits, s);
    if (e == cudaSuccess)
        e = cudaMemsetAsync(starts, 0, 2 * nb * sizeof(uint32_t), s);
    if (e != cudaSuccess)
        return gpu_fail(e, "MSM sort");
    k_msm_bounds<<<(unsigned)((pairs + 255) / 256), 256, 0, s>>>(keys2, pairs, (uint32_t)nb, starts,
                                                                 ends);
    GPU_TRY(cudaGetLastError(), "MSM sort launch");
    return CUZK_OK;
}

/* The next chunk's sort, enqueued on the sort stream once the current
 * chunk's first level is enqueued (_acc_affine's inputs_read). */
typedef struct {
    PN(_worker) * w;
    cudaEvent_t read, sorted;
    unsigned w0, nwc;
    cuzk_err rc;
} PN(_next_sort);

static void PN(_issue_sort)(void *arg)
{
    PN(_next_sort) *n = (PN(_next_sort) *)arg;
    cudaError_t e = cudaEventRecord(n->read, n->w->st);
    if (e == cudaSuccess)
        e = cudaStreamWaitEvent(n->w->sst, n->read, 0);
    if (e != cudaSuccess) {
        n->rc = gpu_fail(e, "MSM sort stream");
        return;
    }
    if ((n->rc = PN(_chunk_sort)(n->w, n->w->sst, n->w0, n->nwc)))
        return;
    e = cudaEventRecord(n->sorted, n->w->sst);
    if (e != cudaSuccess)
        n->rc = gpu_fail(e, "MSM sort stream");
}

static cuzk_err PN(_chunks)(PN(_worker) * w)
{
    cudaStream_t st = w->st;
    const msm_plan &pl = *w->plan;
    const AFF *bases = w->bases;
    const size_t m = w->m, nbw = w->nbw, max_items = w->max_items;
    const size_t L = w->L, nseg = w->nseg, nrun = w->nrun;
    const uint32_t K = w->K;
    void **scratch = w->scratch;
    XYZZ *wins = w->wins;
    const ba_layout &BL = *w->BL;
    cuzk_err rc = CUZK_OK;
    const unsigned wstep = w->step * pl.wb;
    /* the sort stream is for the batch-affine path, whose first level is
     * the last reader of a chunk's sorted entries */
    PN(_next_sort) nx = {w, NULL, NULL, 0, 0, CUZK_OK};
    int ov = w->sst && pl.affine;
    if (ov && (cudaEventCreateWithFlags(&nx.read, cudaEventDisableTiming) != cudaSuccess ||
               cudaEventCreateWithFlags(&nx.sorted, cudaEventDisableTiming) != cudaSuccess)) {
        cudaGetLastError();
        ov = 0;
    }
    /* the reductions on the sort stream: red[p] is recorded after the
     * reduction of the last chunk that used set p, acc after a chunk's
     * levels */
    int rov = ov && w->red_ov;
    cudaEvent_t acc_ev = NULL, red_ev[2] = {NULL, NULL};
    if (rov && (cudaEventCreateWithFlags(&acc_ev, cudaEventDisableTiming) != cudaSuccess ||
                cudaEventCreateWithFlags(&red_ev[0], cudaEventDisableTiming) != cudaSuccess ||
                cudaEventCreateWithFlags(&red_ev[1], cudaEventDisableTiming) != cudaSuccess)) {
        cudaGetLastError();
        rov = 0;
    }
    cudaStream_t rs = rov ? w->sst : st;
    /* a chunk's profile is printed once the next chunk's levels are
     * enqueued (printing waits for its last event) */
    msm_prof pfs[2];
    char pwhat[2][200];
    int pend = -1;
    unsigned ci = 0;
    unsigned w0 = w->first * pl.wb;
    if (ov && w0 < pl.nw) {
        nx.w0 = w0;
        nx.nwc = pl.nw - w0 < pl.wb ? pl.nw - w0 : pl.wb;
        PN(_issue_sort)(&nx); /* the first: after what the stream holds (caller) */
        rc = nx.rc;
    }
    for (; w0 < pl.nw && !rc; w0 += wstep, ci++) {
        unsigned nwc = pl.nw - w0 < pl.wb ? pl.nw - w0 : pl.wb;
        unsigned set = rov ? (ci & 1) : 0;
        size_t pairs = (size_t)nwc * m, nb = (size_t)nwc * nbw;
        uint32_t *keys2, *vals2, *starts, *ends, *kcount, *off, *maxk;
        uint32_t *item_end, *item_bucket;
        XYZZ *partial, *segs, *res;
        size_t nchunks = (pairs + K - 1) / K;
        keys2 = (uint32_t *)scratch[1] + 2 * pairs;
        vals2 = keys2 + pairs;
        starts = (uint32_t *)scratch[3];
        ends = starts + nb;
        kcount = ends + nb;
        off = kcount + nb;
        maxk = off + nb;
        partial = (XYZZ *)((char *)scratch[4] + set * w->p4);
        item_end = (uint32_t *)(partial + max_items);
        item_bucket = item_end + max_items;
        segs = (XYZZ *)((char *)scratch[5] + set * w->p5);
        if (pl.affine) { /* no work items: the counts go with the sums */
            kcount = item_end;
            off = item_bucket;
        }
        msm_prof &pf = pfs[ci & 1];
        prof_init(&pf);
        prof_mark(&pf, st, "start");
        cudaError_t e = cudaSuccess;
        if (ov) {
            e = cudaStreamWaitEvent(st, nx.sorted, 0);
            if (e == cudaSuccess && rov) /* the set's last reduction is done */
                e = cudaStreamWaitEvent(st, red_ev[set], 0);
            if (e != cudaSuccess) {
                rc = gpu_fail(e, "MSM sort stream");
                break;
            }
            prof_mark(&pf, st, "sort-wait");
        } else {
            if ((rc = PN(_chunk_sort)(w, st, w0, nwc)))
                break;
            prof_mark(&pf, st, "sort+bounds");
        }
        size_t nitems = 0;
        uint32_t max_count = 0;
        unsigned levels = 0;
        if (pl.affine) {
            nx.w0 = w0 + wstep;
            nx.nwc = nx.w0 < pl.nw ? (pl.nw - nx.w0 < pl.wb ? pl.nw - nx.w0 : pl.wb) : 0;
            int more = ov && nx.nwc;
            if ((rc = PN(_acc_affine)(st, bases, keys2, vals2, starts, ends, nb, &BL,
                                      (char *)scratch[6], scratch[7], w->scan_bytes, partial, off,
                                      kcount, &levels, more ? PN(_issue_sort) : NULL, &nx)))
                break;
            if (more && (rc = nx.rc))
                break;
            prof_mark(&pf, st, "affine");
            if (pend >= 0) { /* the chunk before: its reduction is enqueued */
                prof_print(&pfs[pend], pwhat[pend]);
                pend = -1;
            }
            if (rov) {
                e = cudaEventRecord(acc_ev, st);
                if (e == cudaSuccess)
                    e = cudaStreamWaitEvent(rs, acc_ev, 0);
                if (e != cudaSuccess) {
                    rc = gpu_fail(e, "MSM reduction stream");
                    break;
                }
            }
        } else {
            cudaMemsetAsync(maxk, 0, sizeof(uint32_t), st);
            k_msm_item_counts<<<(unsigned)((nb + 255) / 256), 256, 0, st>>>(starts, ends, nb, K,
                                                                            kcount, maxk);
            e = cub::DeviceScan::ExclusiveSum(scratch[7], w->scan_bytes, kcount, off, nb, st);
            /* Item count (off[nb-1] + kcount[nb-1]) and the largest per
             * bucket (maxk, stored right after off). */
            uint32_t hk[3];
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(hk, off + nb - 1, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    st);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(hk + 2, kcount + nb - 1, sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, st);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(st);
            if (e != cudaSuccess) {
                rc = gpu_fail(e, "MSM work items");
                break;
            }
            nitems = (size_t)hk[0] + hk[2];
            max_count = hk[1];
            k_msm_items<<<(unsigned)((nb + 127) / 128), 128, 0, st>>>(starts, ends, off, kcount, nb,
                                                                      K, item_end, item_bucket);
            prof_mark(&pf, st, "bounds+items");
            if (nitems)
                PN(_k_chunk_acc)<<<(unsigned)((nchunks + ACC_THREADS - 1) / ACC_THREADS),
                                   ACC_THREADS, 0, st>>>(bases, keys2, vals2, pairs, (uint32_t)nb,
                                                         K, starts, off, item_end, nitems, partial);
            prof_mark(&pf, st, "acc");
            for (uint32_t sp = 1; sp < max_count; sp *= 2)
                PN(_k_item_combine)<<<(unsigned)((nitems + 127) / 128), 128, 0, st>>>(
                    partial, item_bucket, off, kcount, sp, nitems);
            prof_mark(&pf, st, "combine");
        }
        unsigned rgrid = (unsigned)((nwc * nseg + 63) / 64);
        size_t ko = nseg; /* reduction outputs a window */
        if (pl.affine) {
            PN(_k_bucket_suffix)<<<rgrid, 64, 0, rs>>>(partial, kcount, nwc, nbw, L);
            PN(_k_bucket_segsum)<<<rgrid, 64, 0, rs>>>(partial, nwc, nbw, L, nseg + nrun, !nrun,
                                                       segs);
            if (nrun) {
                ko += nrun;
                PN(_k_bucket_offsets)<<<(unsigned)((nwc * nrun + 63) / 64), 64, 0, rs>>>(
                    partial, nwc, nbw, L, nseg / nrun, ko, segs);
            }
        } else {
            PN(_k_bucket_reduce)<<<rgrid, 64, 0, st>>>(partial, off, kcount, nwc, nbw, L, segs);
        }
        prof_mark(&pf, rs, "reduce");
        if ((rc = PN(_reduce_groups)(rs, segs, segs + nwc * ko, nwc, ko, &res)))
            break;
        prof_mark(&pf, rs, "tree");
        if (pf.on)
            snprintf(pwhat[ci & 1], sizeof pwhat[0],
                     "m=%zu c=%u nw=%u chunk=%u+%u %s K=%u items=%zu maxk=%u levels=%u%s", m, pl.c,
                     pl.nw, w0, nwc, pl.affine ? "affine" : "xyzz", K, nitems, max_count, levels,
                     rov ? " reduce-beside" : "");
        if (rov) {
            e = cudaMemcpyAsync(w->dwins + w0, res, nwc * sizeof(XYZZ), cudaMemcpyDeviceToDevice,
                                rs);
            if (e == cudaSuccess)
                e = cudaEventRecord(red_ev[set], rs);
            if (e != cudaSuccess) {
                rc = gpu_fail(e, "MSM windows");
                break;
            }
            pend = pf.on ? (int)(ci & 1) : -1;
            continue;
        }
        prof_print(&pf, pwhat[ci & 1]);
        e = cudaMemcpyAsync(wins + w0, res, nwc * sizeof(XYZZ), cudaMemcpyDeviceToHost, st);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(st);
        if (e != cudaSuccess)
            rc = gpu_fail(e, "MSM windows");
    }
    if (rov) { /* every chunk's reduction, then the window sums */
        cudaError_t e = cudaStreamSynchronize(rs);
        if (e != cudaSuccess && !rc)
            rc = gpu_fail(e, "MSM reduction stream");
        if (pend >= 0)
            prof_print(&pfs[pend], pwhat[pend]);
        if (!rc) {
            e = cudaMemcpy(wins, w->dwins, pl.nw * sizeof(XYZZ), cudaMemcpyDeviceToHost);
            if (e != cudaSuccess)
                rc = gpu_fail(e, "MSM windows");
        }
    }
    for (int k = 0; k < 2; k++)
        if (red_ev[k])
            cudaEventDestroy(red_ev[k]);
    if (acc_ev)
        cudaEventDestroy(acc_ev);
    if (nx.read) { /* nothing of the sort stream may outlive the scratch */
        cudaError_t e = cudaStreamSynchronize(w->sst);
        if (e != cudaSuccess && !rc)
            rc = gpu_fail(e, "MSM sort stream");
        cudaEventDestroy(nx.read);
    }
    if (nx.sorted)
        cudaEventDestroy(nx.sorted);
    return rc;
}

static void *PN(_chunks_thread)(void *arg)
{
    PN(_worker) *w = (PN(_worker) *)arg;
    cudaError_t e = cudaSetDevice(w->ordinal);
    w->rc = e == cudaSuccess ? PN(_chunks)(w) : gpu_fail(e, "MSM worker: select device");
    if (w->rc)
        snprintf(w->msg, sizeof w->msg, "%s", cuzk_errmsg());
    return NULL;
}

/* The Pippenger sum over m significant entries (indices sig_idx, scalars
 * sig_k limb-major with leading dimension ld, carries a byte each), added
 * to *acc; the streams and overlaps as PN(_msm_device) chose them. */
static cuzk_err PN(_pippenger)(cuzk_gpu *g, H_PT *acc, const AFF *bases, const uint32_t *sig_idx,
                               const uint32_t *sig_k, size_t ld, uint8_t *carries, size_t m,
                               unsigned workers, int sort_ov, int red_want, cudaStream_t st2)
{
    cuzk_err rc = CUZK_OK;
    msm_plan pl;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    msm_choose(&pl, m, sizeof(XYZZ), sizeof(AFF), sizeof(fp_t), free_b + gpu_arena_idle_bytes(g),
               AFFINE_MIN, workers, BUCKET_COST, BA_OUTPUTS, red_want);
    if (workers > 1 && pl.wb >= pl.nw) /* one chunk holds every window: two halves */
        pl.wb = (pl.nw + 1) / 2;
    size_t nbw = (size_t)1 << (pl.c - 1);
    XYZZ *wins = (XYZZ *)calloc(pl.nw, sizeof(XYZZ));
    if (!wins)
        return cuzk_fail(CUZK_ENOMEM, "MSM: out of host memory");
    /* Scratch for the largest chunk (wb windows), allocated once and
     * reused by every chunk. */
    size_t pmax = (size_t)pl.wb * m, nbmax = (size_t)pl.wb * nbw;
    /* the reduction: segments of L buckets, one thread each; after the
     * batch-affine levels their offsets in runs of L2 segments (nrun a
     * window). L = 32, or 16 or 8 where a chunk holds so few windows that
     * fewer than 2^15 threads would leave most of the device idle (an 80 GB
     * GPU's one-window chunks of a G2 MSM: 2^13 threads reduced a window in
     * 20 ms, its levels took 14). CUZK_GPU_MSM_SEG=2..32 (a power of two)
     * sets L. */
    size_t L = 32;
    unsigned seg = env_uint("CUZK_GPU_MSM_SEG", 0, 2, 32);
    if (seg && !(seg & (seg - 1)))
        L = seg;
    else
        while (L > 8 && (size_t)pl.wb * (nbw / L) < ((size_t)1 << 15))
            L /= 2;
    if (L > nbw)
        L = nbw;
    size_t nseg = nbw / L, L2 = nseg < 16 ? nseg : 16;
    /* CUZK_GPU_MSM_RUNS=0: offsets by double-and-add */
    size_t nrun = pl.affine && nseg > 1 && env_uint("CUZK_GPU_MSM_RUNS", 1, 0, 1) ? nseg / L2 : 0;
    /* Entries per accumulation thread (XYZZ): 8..256, keeping >= 2^18
     * threads (several waves on the device) when there is work. */
    unsigned lK = 3;
    while (lK < 8 && (pmax >> (lK + 1)) >= ((size_t)1 << 18))
        lK++;
    const uint32_t K = 1u << lK;
    size_t max_items = pl.affine ? nbmax : nbmax + pmax / K + 1;
    void *tmp = NULL;
    size_t tmp_bytes = 0, scan_bytes = 0;
    unsigned keybits = 1;
    while (((size_t)pl.wb << (pl.c - 1)) >> keybits)
        keybits++;
    cudaError_t qe =
        cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, (uint32_t *)0, (uint32_t *)0, (uint32_t *)0,
                                        (uint32_t *)0, pmax, 0, (int)keybits, g->stream);
    if (qe == cudaSuccess)
        qe = cub::DeviceScan::ExclusiveSum(tmp, scan_bytes, (uint32_t *)0, (uint32_t *)0, nbmax + 1,
                                           g->stream);
    if (qe != cudaSuccess) {
        free(wins);
        return gpu_fail(qe, "MSM: sort and scan scratch sizes");
    }
    ba_layout BL;
    ba_layout_make(&BL, pmax, nbmax, sizeof(AFF), sizeof(fp_t), BA_OUTPUTS);
    int red_ov = red_want && pl.affine;
    /* one block: digit pairs, sort scratch, bucket bounds, partial sums,
     * segments, batch-affine levels, the scans' scratch (apart from the
     * sort's, which the next chunk's sort may be using); with the
     * reductions beside, two sets of partial sums and segments and the
     * window sums */
    size_t p4 = ba_align(max_items * (sizeof(XYZZ) + 2 * sizeof(uint32_t))),
           p5 = ba_align(2 * pl.wb * (nseg + nrun) * sizeof(XYZZ));
    size_t part[7] = {ba_align(4 * pmax * sizeof(uint32_t)),
                      ba_align(tmp_bytes),
                      ba_align((4 * nbmax + 1) * sizeof(uint32_t)),
                      red_ov ? 2 * p4 : p4,
                      red_ov ? 2 * p5 + ba_align(pl.nw * sizeof(XYZZ)) : p5,
                      pl.affine ? BL.bytes : 0,
                      ba_align(scan_bytes)};
    size_t total = 0, poff[7];
    for (int i = 0; i < 7; i++) {
        poff[i] = total;
        total += part[i];
    }
    void *arena = NULL;
    int arena_own = 0;
    if ((rc = gpu_arena_get(g, workers * total, &arena, &arena_own))) {
        free(wins);
        return rc;
    }
    PN(_worker) wk[2];
    for (unsigned k = 0; k < workers; k++) {
        PN(_worker) *w = &wk[k];
        memset(w, 0, sizeof *w);
        w->st = k ? st2 : g->stream;
        w->sst = sort_ov ? st2 : NULL;
        w->bases = bases;
        w->sig_idx = sig_idx;
        w->sig_k = sig_k;
        w->ld = ld;
        w->carries = workers == 1 ? carries : NULL; /* two: chunks interleave */
        w->m = m;
        w->nbw = nbw;
        w->max_items = max_items;
        w->tmp_bytes = tmp_bytes;
        w->scan_bytes = scan_bytes;
        w->L = L;
        w->nseg = nseg;
        w->nrun = nrun;
        w->plan = &pl;
        w->BL = &BL;
        w->K = K;
        w->keybits = keybits;
        w->first = k;
        w->step = workers;
        w->ordinal = g->ordinal;
        for (int i = 0; i < 7; i++)
            w->scratch[i + 1] = (char *)arena + k * total + poff[i];
        w->red_ov = red_ov;
        w->p4 = p4;
        w->p5 = p5;
        w->dwins = red_ov ? (XYZZ *)((char *)w->scratch[5] + 2 * p5) : NULL;
        w->wins = wins;
    }
    /* the second stream (a worker's or the sorts') starts after
     * everything enqueued so far (the split lists, the carries, the
     * ones' use of the scratch) */
    pthread_t th2;
    int th2_on = 0;
    if (st2) {
        cudaEvent_t ev;
        cudaError_t e = cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        if (e == cudaSuccess) {
            e = cudaEventRecord(ev, g->stream);
            if (e == cudaSuccess)
                e = cudaStreamWaitEvent(st2, ev, 0);
            cudaEventDestroy(ev);
        }
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "MSM: second stream");
        } else if (workers > 1) {
            if (pthread_create(&th2, NULL, PN(_chunks_thread), &wk[1]) == 0)
                th2_on = 1;
            else
                rc = cuzk_fail(CUZK_EINTERNAL, "MSM: no worker thread");
        }
    }
    if (!rc)
        rc = PN(_chunks)(&wk[0]);
    if (th2_on) {
        pthread_join(th2, NULL);
        if (!rc && wk[1].rc)
            rc = cuzk_fail(wk[1].rc, "%s", wk[1].msg);
    }
    if (st2) /* nothing of the second stream may outlive the scratch */
        cudaStreamSynchronize(st2);
    if (!rc) {
        /* Horner over the window sums, on the host (nw points). */
        H_PT s, t;
        memset(&s, 0, sizeof s);
        for (unsigned w = pl.nw; w-- > 0;) {
            unsigned cw = w < pl.nhi ? pl.c : pl.c - 1; /* window w's bits */
            for (unsigned b = 0; b < cw && w + 1 < pl.nw; b++)
                H_DBL(&s, &s);
            PN(_xyzz_to_host)(&t, &wins[w]);
            H_ADD(&s, &s, &t);
        }
        H_ADD(acc, acc, &s);
    }
    free(wins);
    /* the arena's next user (or its release) must find it idle */
    cudaStreamSynchronize(g->stream);
    gpu_arena_put(g, arena, arena_own);
    return rc;
}

/* How many parts the m significant entries are summed in (each its own
 * Pippenger sum): one, unless the batch-affine arrays of even one window do
 * not fit beside what the device holds (an 80 GB GPU beside a 2^27
 * circuit's bases) while those of a half or a quarter do. The parts repeat
 * the bucket reductions (a few ms a window) but add in batch-affine, ~40 %
 * fewer multiplications per addition than XYZZ. CUZK_GPU_MSM_PARTS=1..16
 * sets it. */
static unsigned PN(_parts)(cuzk_gpu *g, size_t m, unsigned workers, int red_want)
{
    unsigned forced = env_uint("CUZK_GPU_MSM_PARTS", 0, 1, 16);
    if (forced)
        return forced;
    const char *acc = getenv("CUZK_GPU_MSM_ACC");
    if (acc && !strcmp(acc, "xyzz"))
        return 1;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    for (unsigned parts = 1; parts <= 4; parts *= 2) {
        size_t mp = (m + parts - 1) / parts;
        if (mp < AFFINE_MIN)
            return 1;
        msm_plan q;
        msm_choose(&q, mp, sizeof(XYZZ), sizeof(AFF), sizeof(fp_t),
                   free_b + gpu_arena_idle_bytes(g), AFFINE_MIN, workers, BUCKET_COST, BA_OUTPUTS,
                   red_want);
        if (q.affine)
            return parts;
    }
    return 1;
}

/* The MSM on device data: sum of the ones (indices in ones_idx) plus the
 * Pippenger sum over the m significant entries (indices sig_idx, canonical
 * scalars sig_k, limb-major with leading dimension ld), into *out;
 * carries: a byte per entry for the digits' carries between chunks. */
static cuzk_err PN(_msm_device)(cuzk_gpu *g, H_PT *out, const AFF *bases, const uint32_t *ones_idx,
                                size_t n_ones, const uint32_t *sig_idx, const uint32_t *sig_k,
                                size_t ld, uint8_t *carries, size_t m)
{
    cuzk_err rc = CUZK_OK;
    H_PT acc;
    memset(&acc, 0, sizeof acc);
    void *scratch[8] = {0};
    /* Ones: batch-affine levels from ONES_AFFINE_MIN of them
     * (CUZK_GPU_MSM_ONES=affine|xyzz forces one), else chunked XYZZ sums and
     * a tree. */
    if (n_ones) {
        msm_prof pf;
        prof_init(&pf);
        prof_mark(&pf, g->stream, "start");
        const char *oe = getenv("CUZK_GPU_MSM_ONES");
        int aff = oe && !strcmp(oe, "affine") ? 1
                  : oe && !strcmp(oe, "xyzz") ? 0
                                              : n_ones >= ONES_AFFINE_MIN;
        int done = 0;
        if (aff && (rc = PN(_ones_affine)(g, bases, ones_idx, n_ones, &acc, &done)))
            goto done;
        if (!done) {
            /* each thread sums 16 listed bases (CUZK_GPU_MSM_ONES_CHUNK=1..256
             * sets it; H200, 4.4e5..3.5e6 ones: 16 within 0.2 ms of the best
             * of 4..64 wherever XYZZ is used, 64 up to 1.7 ms slower) */
            size_t chunk = env_uint("CUZK_GPU_MSM_ONES_CHUNK", 16, 1, 256);
            size_t nt = (n_ones + chunk - 1) / chunk;
            if ((rc = gpu_alloc(&scratch[0], 2 * nt * sizeof(XYZZ), "MSM ones partial sums")))
                goto done;
            XYZZ *part = (XYZZ *)scratch[0], *res;
            PN(_k_sum_indexed)<<<(unsigned)((nt + 127) / 128), 128, 0, g->stream>>>(
                bases, ones_idx, n_ones, chunk, part, nt);
            if ((rc = PN(_reduce_groups)(g->stream, part, part + nt, 1, nt, &res)))
                goto done;
            if ((rc = PN(_sum_to_host)(g, res, &acc)))
                goto done;
            cudaFree(scratch[0]);
            scratch[0] = NULL;
        }
        prof_mark(&pf, g->stream, "ones");
        if (pf.on) {
            char what[96];
            snprintf(what, sizeof what, "ones n=%zu %s", n_ones, done ? "affine" : "xyzz");
            prof_print(&pf, what);
        }
    }
    if (m) {
        /* CUZK_GPU_MSM_STREAMS=2: two workers, each a stream with its own
         * window chunk in flight, so that one's memory-bound passes and
         * latency-bound inversion chains can overlap the other's arithmetic.
         * One by default: on the H200 two were 3-5 % faster for G1 MSMs of
         * 2^24-2^25 points, 1-2 % slower at 2^22 and 2^27, and even in the
         * 2^27 partition (1.888 vs 1.887 s). */
        unsigned workers = env_uint("CUZK_GPU_MSM_STREAMS", 1, 1, 2);
        /* One worker sorts each chunk on the second stream while the chunk
         * before is added up (PN(_worker)); CUZK_GPU_MSM_SORT_OVERLAP=0 sorts
         * on the worker's stream, between the chunks. */
        int sort_ov = workers == 1 && env_uint("CUZK_GPU_MSM_SORT_OVERLAP", 1, 0, 1);
        cudaStream_t st2 = workers > 1 || sort_ov ? gpu_msm_stream(g) : NULL;
        if (!st2) {
            workers = 1;
            sort_ov = 0;
        }
        /* the bucket reductions beside the levels (PN(_worker)) when the
         * accumulation is batch-affine; CUZK_GPU_MSM_REDUCE_BESIDE=0: between
         * the chunks, on the levels' stream */
        int red_want = sort_ov && env_uint("CUZK_GPU_MSM_REDUCE_BESIDE", 1, 0, 1);
        unsigned parts = PN(_parts)(g, m, workers, red_want);
        size_t mp = (m + parts - 1) / parts;
        for (size_t off = 0; !rc && off < m; off += mp)
            rc = PN(_pippenger)(g, &acc, bases, sig_idx + off, sig_k + off, ld, carries + off,
                                m - off < mp ? m - off : mp, workers, sort_ov, red_want, st2);
        if (parts > 1 && !rc && getenv("CUZK_GPU_MSM_PROFILE"))
            fprintf(stderr, "msm-profile m=%zu parts=%u\n", m, parts);
    }
done:
    cudaFree(scratch[0]);
    if (!rc)
        *out = acc;
    return rc;
}

#undef XYZZ
#undef AFF
#undef PN
#undef M_CAT
#undef M_CAT2
