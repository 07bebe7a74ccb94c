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
        acc = PN(_add)(acc, in[gi * k_in + p]);
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
    if (q % (2 * s) == 0 && q + s < kcount[b])
        partial[it] = PN(_add)(partial[it], partial[it + s]);
}

/* One thread per segment of L buckets of a window: the running-sum
 * reduction sum_j (j + 1) B_j restricted to the segment, with the segment
 * offset lo applied as lo * (sum of its buckets) by double-and-add. */
__global__ void PN(_k_bucket_reduce)(const XYZZ *partial, const uint32_t *off,
                                     const uint32_t *kcount, size_t nw, size_t nbw, size_t L,
                                     XYZZ *out)
{
    size_t nseg = nbw / L, t = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (t >= nw * nseg)
        return;
    size_t w = t / nseg, lo = (t % nseg) * L;
    XYZZ S = PN(_inf)(), T = PN(_inf)();
    for (size_t j = lo + L; j-- > lo;) {
        size_t b = w * nbw + j;
        if (kcount[b])
            S = PN(_add)(S, partial[off[b]]);
        T = PN(_add)(T, S);
    }
    if (lo) {
        XYZZ M = PN(_inf)();
        for (int bit = 63 - __clzll((long long)lo); bit >= 0; bit--) {
            M = PN(_dbl)(M);
            if ((lo >> bit) & 1)
                M = PN(_add)(M, S);
        }
        T = PN(_add)(T, M);
    }
    out[t] = T;
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

/* Reduce groups x k points to groups x 1 (in place through a scratch). */
static cuzk_err PN(_reduce_groups)(cuzk_gpu *g, XYZZ *buf, XYZZ *scratch, size_t groups, size_t k,
                                   XYZZ **result)
{
    const unsigned f = 8;
    XYZZ *in = buf, *out = scratch;
    while (k > 1) {
        size_t k_out = (k + f - 1) / f, th = groups * k_out;
        PN(_k_sum_groups)<<<(unsigned)((th + 127) / 128), 128, 0, g->stream>>>(in, groups, k, f,
                                                                               out, k_out);
        XYZZ *tmp = in;
        in = out;
        out = tmp;
        k = k_out;
    }
    *result = in;
    GPU_TRY(cudaGetLastError(), "MSM reduction launch");
    return CUZK_OK;
}

/* The MSM on device data: sum of the ones (indices in ones_idx) plus the
 * Pippenger sum over the m significant entries (indices sig_idx, canonical
 * scalars sig_k), into *out. */
static cuzk_err PN(_msm_device)(cuzk_gpu *g, H_PT *out, const AFF *bases, const uint32_t *ones_idx,
                                size_t n_ones, const uint32_t *sig_idx, const fr_t *sig_k, size_t m)
{
    cuzk_err rc = CUZK_OK;
    H_PT acc;
    memset(&acc, 0, sizeof acc);
    void *scratch[8] = {0};
    /* Ones: chunked sums, then a tree. */
    if (n_ones) {
        size_t chunk = 64, nt = (n_ones + chunk - 1) / chunk;
        if ((rc = gpu_alloc(&scratch[0], 2 * nt * sizeof(XYZZ), "MSM ones partial sums")))
            goto done;
        XYZZ *part = (XYZZ *)scratch[0], *res;
        PN(_k_sum_indexed)<<<(unsigned)((nt + 127) / 128), 128, 0, g->stream>>>(
            bases, ones_idx, n_ones, chunk, part, nt);
        if ((rc = PN(_reduce_groups)(g, part, part + nt, 1, nt, &res)))
            goto done;
        XYZZ h;
        cudaError_t e = cudaMemcpyAsync(&h, res, sizeof h, cudaMemcpyDeviceToHost, g->stream);
        if (e == cudaSuccess)
            e = cudaStreamSynchronize(g->stream);
        if (e != cudaSuccess) {
            rc = gpu_fail(e, "MSM ones sum");
            goto done;
        }
        PN(_xyzz_to_host)(&acc, &h);
        cudaFree(scratch[0]);
        scratch[0] = NULL;
    }
    if (m) {
        msm_plan pl;
        msm_choose(&pl, m, sizeof(XYZZ));
        size_t nbw = (size_t)1 << (pl.c - 1);
        XYZZ *wins = (XYZZ *)calloc(pl.nw, sizeof(XYZZ));
        if (!wins) {
            rc = cuzk_fail(CUZK_ENOMEM, "MSM: out of host memory");
            goto done;
        }
        for (unsigned w0 = 0; w0 < pl.nw && !rc; w0 += pl.wb) {
            unsigned nwc = pl.nw - w0 < pl.wb ? pl.nw - w0 : pl.wb;
            size_t pairs = (size_t)nwc * m, nb = (size_t)nwc * nbw;
            uint32_t *keys, *vals, *keys2, *vals2, *starts, *ends, *kcount, *off, *maxk;
            uint32_t *item_end, *item_bucket;
            XYZZ *partial, *segs, *res;
            size_t L = nbw < 32 ? nbw : 32, nseg = nbw / L;
            /* Entries per accumulation thread: 8..256, keeping >= 2^18
             * threads (several waves on the device) when there is work. */
            unsigned lK = 3;
            while (lK < 8 && (pairs >> (lK + 1)) >= ((size_t)1 << 18))
                lK++;
            const uint32_t K = 1u << lK;
            size_t max_items = nb + pairs / K + 1, nchunks = (pairs + K - 1) / K;
            void *tmp = NULL;
            size_t tmp_bytes = 0, scan_bytes = 0;
            unsigned keybits = 1;
            while (((size_t)nwc << (pl.c - 1)) >> keybits)
                keybits++;
            cub::DeviceRadixSort::SortPairs(tmp, tmp_bytes, (uint32_t *)0, (uint32_t *)0,
                                            (uint32_t *)0, (uint32_t *)0, pairs, 0, (int)keybits,
                                            g->stream);
            cub::DeviceScan::ExclusiveSum(tmp, scan_bytes, (uint32_t *)0, (uint32_t *)0, nb,
                                          g->stream);
            if (scan_bytes > tmp_bytes)
                tmp_bytes = scan_bytes;
            if ((rc = gpu_alloc(&scratch[1], 4 * pairs * sizeof(uint32_t), "MSM digit pairs")) ||
                (rc = gpu_alloc(&scratch[2], tmp_bytes, "MSM sort scratch")) ||
                (rc = gpu_alloc(&scratch[3], (4 * nb + 1) * sizeof(uint32_t),
                                "MSM bucket bounds")) ||
                (rc = gpu_alloc(&scratch[4], max_items * (sizeof(XYZZ) + 2 * sizeof(uint32_t)),
                                "MSM bucket partial sums")) ||
                (rc = gpu_alloc(&scratch[5], 2 * nwc * nseg * sizeof(XYZZ), "MSM segments")))
                break;
            keys = (uint32_t *)scratch[1];
            vals = keys + pairs;
            keys2 = vals + pairs;
            vals2 = keys2 + pairs;
            starts = (uint32_t *)scratch[3];
            ends = starts + nb;
            kcount = ends + nb;
            off = kcount + nb;
            maxk = off + nb;
            partial = (XYZZ *)scratch[4];
            item_end = (uint32_t *)(partial + max_items);
            item_bucket = item_end + max_items;
            segs = (XYZZ *)scratch[5];
            msm_prof pf;
            prof_init(&pf);
            prof_mark(&pf, g->stream, "start");
            k_msm_digits<<<(unsigned)((m + 255) / 256), 256, 0, g->stream>>>(
                sig_k, sig_idx, m, pl.c, w0, nwc, keys, vals);
            cudaError_t e = cub::DeviceRadixSort::SortPairs(
                scratch[2], tmp_bytes, keys, keys2, vals, vals2, pairs, 0, (int)keybits, g->stream);
            if (e != cudaSuccess) {
                rc = gpu_fail(e, "MSM sort");
                break;
            }
            prof_mark(&pf, g->stream, "digits+sort");
            cudaMemsetAsync(starts, 0, 2 * nb * sizeof(uint32_t), g->stream);
            cudaMemsetAsync(maxk, 0, sizeof(uint32_t), g->stream);
            k_msm_bounds<<<(unsigned)((pairs + 255) / 256), 256, 0, g->stream>>>(
                keys2, pairs, (uint32_t)nb, starts, ends);
            k_msm_item_counts<<<(unsigned)((nb + 255) / 256), 256, 0, g->stream>>>(starts, ends, nb,
                                                                                   K, kcount, maxk);
            e = cub::DeviceScan::ExclusiveSum(scratch[2], tmp_bytes, kcount, off, nb, g->stream);
            /* Item count (off[nb-1] + kcount[nb-1]) and the largest per bucket
             * (maxk, stored right after off). */
            uint32_t hk[3];
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(hk, off + nb - 1, 2 * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                    g->stream);
            if (e == cudaSuccess)
                e = cudaMemcpyAsync(hk + 2, kcount + nb - 1, sizeof(uint32_t),
                                    cudaMemcpyDeviceToHost, g->stream);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(g->stream);
            if (e != cudaSuccess) {
                rc = gpu_fail(e, "MSM work items");
                break;
            }
            size_t nitems = (size_t)hk[0] + hk[2];
            uint32_t max_count = hk[1];
            k_msm_items<<<(unsigned)((nb + 127) / 128), 128, 0, g->stream>>>(
                starts, ends, off, kcount, nb, K, item_end, item_bucket);
            prof_mark(&pf, g->stream, "bounds+items");
            if (nitems)
                PN(_k_chunk_acc)<<<(unsigned)((nchunks + ACC_THREADS - 1) / ACC_THREADS),
                                   ACC_THREADS, 0, g->stream>>>(bases, keys2, vals2, pairs,
                                                                (uint32_t)nb, K, starts, off,
                                                                item_end, nitems, partial);
            prof_mark(&pf, g->stream, "acc");
            for (uint32_t st = 1; st < max_count; st *= 2)
                PN(_k_item_combine)<<<(unsigned)((nitems + 127) / 128), 128, 0, g->stream>>>(
                    partial, item_bucket, off, kcount, st, nitems);
            prof_mark(&pf, g->stream, "combine");
            PN(_k_bucket_reduce)<<<(unsigned)((nwc * nseg + 63) / 64), 64, 0, g->stream>>>(
                partial, off, kcount, nwc, nbw, L, segs);
            prof_mark(&pf, g->stream, "reduce");
            if ((rc = PN(_reduce_groups)(g, segs, segs + nwc * nseg, nwc, nseg, &res)))
                break;
            prof_mark(&pf, g->stream, "tree");
            if (pf.on) {
                char what[160];
                snprintf(what, sizeof what, "m=%zu c=%u nw=%u chunk=%u+%u K=%u items=%zu maxk=%u",
                         m, pl.c, pl.nw, w0, nwc, K, nitems, max_count);
                prof_print(&pf, what);
            }
            e = cudaMemcpyAsync(wins + w0, res, nwc * sizeof(XYZZ), cudaMemcpyDeviceToHost,
                                g->stream);
            if (e == cudaSuccess)
                e = cudaStreamSynchronize(g->stream);
            if (e != cudaSuccess)
                rc = gpu_fail(e, "MSM windows");
            for (int i = 1; i < 6; i++) {
                cudaFree(scratch[i]);
                scratch[i] = NULL;
            }
        }
        if (!rc) {
            /* Horner over the window sums, on the host (nw points). */
            H_PT s, t;
            memset(&s, 0, sizeof s);
            for (unsigned w = pl.nw; w-- > 0;) {
                for (unsigned b = 0; b < pl.c && w + 1 < pl.nw; b++)
                    H_DBL(&s, &s);
                PN(_xyzz_to_host)(&t, &wins[w]);
                H_ADD(&s, &s, &t);
            }
            H_ADD(&acc, &acc, &s);
        }
        free(wins);
    }
done:
    for (int i = 0; i < 8; i++)
        cudaFree(scratch[i]);
    if (!rc)
        *out = acc;
    return rc;
}

#undef XYZZ
#undef AFF
#undef PN
#undef M_CAT
#undef M_CAT2
