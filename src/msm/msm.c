/* CPU multi-scalar multiplication with the 0/1 split.
 *
 * Pass 1 (parallel over blocks of 64*BLOCK_WORDS entries): each block knows
 * its first base index from a prefix count of the density bitmap; it sums the
 * bases whose scalar is 1 with blst's batch-affine addition and records the
 * others (base pointer + canonical scalar) in its slice of a shared array.
 * Pass 2: the recorded entries are compacted and cut into one piece per
 * thread; each piece runs blst's single-threaded Pippenger with its own
 * scratch. The partial sums are added in a fixed order. */
#include "cuzk/msm.h"
#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

#define BLOCK_ENTRIES 4096 /* multiple of 64 so blocks start on bitmap words */

uint64_t cuzk_bitmap_count(const uint64_t *bits, size_t n)
{
    uint64_t c = 0;
    size_t w = n / 64;
    for (size_t i = 0; i < w; i++)
        c += (uint64_t)__builtin_popcountll(bits[i]);
    if (n % 64)
        c += (uint64_t)__builtin_popcountll(bits[w] & ((1ULL << (n % 64)) - 1));
    return c;
}

static int density_bit(const uint64_t *d, size_t i)
{
    return !d || ((d[i / 64] >> (i % 64)) & 1);
}

/* Everything below is written once for G1 and G2 through this macro; the
 * two groups differ only in types and blst function names. */
#define DEFINE_MSM(G, PT, AFF, ADD, BULKADD, PIPP, PIPP_SCRATCH, MULT)                             \
    typedef struct {                                                                               \
        const AFF *bases;                                                                          \
        const cuzk_fr *k;                                                                          \
        const uint64_t *density;                                                                   \
        size_t n;                                                                                  \
        const uint64_t *block_base; /* first base index of each block */                           \
        PT *block_ones;             /* per-block sum of bases with scalar 1 */                     \
        const AFF **sig_pts;        /* per-block slices, BLOCK_ENTRIES each */                     \
        blst_scalar *sig_k;                                                                        \
        uint32_t *block_nsig;                                                                      \
        uint64_t *block_zeros, *block_ones_n;                                                      \
    } G##_split_ctx;                                                                               \
                                                                                                   \
    static void G##_split_block(void *vctx, size_t lo, size_t hi, unsigned w)                      \
    {                                                                                              \
        (void)w;                                                                                   \
        G##_split_ctx *c = vctx;                                                                   \
        cuzk_fr one;                                                                               \
        cuzk_fr_one(&one);                                                                         \
        const AFF *ones[BLOCK_ENTRIES + 1];                                                        \
        for (size_t blk = lo; blk < hi; blk++) {                                                   \
            size_t i0 = blk * BLOCK_ENTRIES, i1 = i0 + BLOCK_ENTRIES;                              \
            if (i1 > c->n)                                                                         \
                i1 = c->n;                                                                         \
            uint64_t base = c->block_base[blk];                                                    \
            size_t nones = 0, nsig = 0, nzero = 0;                                                 \
            const AFF **sp = c->sig_pts + i0;                                                      \
            blst_scalar *sk = c->sig_k + i0;                                                       \
            for (size_t i = i0; i < i1; i++) {                                                     \
                if (!density_bit(c->density, i))                                                   \
                    continue;                                                                      \
                const AFF *p = &c->bases[base++];                                                  \
                const cuzk_fr *ki = &c->k[i];                                                      \
                if (cuzk_fr_is_zero(ki)) {                                                         \
                    nzero++;                                                                       \
                } else if (cuzk_fr_eq(ki, &one)) {                                                 \
                    ones[nones++] = p;                                                             \
                } else {                                                                           \
                    sp[nsig] = p;                                                                  \
                    blst_scalar_from_fr(&sk[nsig], ki);                                            \
                    nsig++;                                                                        \
                }                                                                                  \
            }                                                                                      \
            memset(&c->block_ones[blk], 0, sizeof(PT));                                            \
            if (nones) {                                                                           \
                ones[nones] = NULL;                                                                \
                BULKADD(&c->block_ones[blk], ones, nones);                                         \
            }                                                                                      \
            c->block_nsig[blk] = (uint32_t)nsig;                                                   \
            c->block_zeros[blk] = nzero;                                                           \
            c->block_ones_n[blk] = nones;                                                          \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    typedef struct {                                                                               \
        const AFF **pts;                                                                           \
        const blst_scalar *k;                                                                      \
        size_t n, pieces;                                                                          \
        PT *part;                                                                                  \
        int failed;                                                                                \
    } G##_pipp_ctx;                                                                                \
                                                                                                   \
    static void G##_pipp_piece(void *vctx, size_t lo, size_t hi, unsigned w)                       \
    {                                                                                              \
        (void)w;                                                                                   \
        G##_pipp_ctx *c = vctx;                                                                    \
        for (size_t pc = lo; pc < hi; pc++) {                                                      \
            size_t b = c->n * pc / c->pieces, e = c->n * (pc + 1) / c->pieces, m = e - b;          \
            memset(&c->part[pc], 0, sizeof(PT));                                                   \
            if (m == 0)                                                                            \
                continue;                                                                          \
            if (m < 4) {                                                                           \
                for (size_t i = b; i < e; i++) {                                                   \
                    PT t;                                                                          \
                    G##_from_affine_(&t, c->pts[i]);                                               \
                    MULT(&t, &t, c->k[i].b, 255);                                                  \
                    ADD(&c->part[pc], &c->part[pc], &t);                                           \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            void *scratch = malloc(PIPP_SCRATCH(m));                                               \
            const byte **kp = malloc(2 * sizeof *kp);                                              \
            if (!scratch || !kp) {                                                                 \
                free(scratch);                                                                     \
                free(kp);                                                                          \
                c->failed = 1;                                                                     \
                continue;                                                                          \
            }                                                                                      \
            /* Scalars are contiguous: a NULL second pointer tells blst so. */                     \
            kp[0] = c->k[b].b;                                                                     \
            kp[1] = NULL;                                                                          \
            PIPP(&c->part[pc], c->pts + b, m, kp, 255, scratch);                                   \
            free(kp);                                                                              \
            free(scratch);                                                                         \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    cuzk_err cuzk_msm_##G(PT *out, const AFF *bases, size_t n_bases, const cuzk_fr *k,             \
                          const uint64_t *density, size_t n, cuzk_msm_stats *stats)                \
    {                                                                                              \
        memset(out, 0, sizeof *out);                                                               \
        size_t nblocks = (n + BLOCK_ENTRIES - 1) / BLOCK_ENTRIES;                                  \
        uint64_t want = density ? cuzk_bitmap_count(density, n) : n;                               \
        if (want != n_bases)                                                                       \
            return cuzk_fail(CUZK_EINVAL,                                                          \
                             "MSM: %zu bases for %llu selected scalars (density mismatch)",        \
                             n_bases, (unsigned long long)want);                                   \
        if (stats)                                                                                 \
            memset(stats, 0, sizeof *stats);                                                       \
        if (n == 0)                                                                                \
            return CUZK_OK;                                                                        \
        G##_split_ctx c = {bases, k, density, n, NULL, NULL, NULL, NULL, NULL, NULL, NULL};        \
        uint64_t *block_base = malloc(nblocks * sizeof *block_base);                               \
        c.block_ones = malloc(nblocks * sizeof(PT));                                               \
        c.sig_pts = malloc((n + 1) * sizeof *c.sig_pts);                                           \
        c.sig_k = malloc(n * sizeof *c.sig_k);                                                     \
        c.block_nsig = malloc(nblocks * sizeof *c.block_nsig);                                     \
        c.block_zeros = malloc(nblocks * sizeof *c.block_zeros);                                   \
        c.block_ones_n = malloc(nblocks * sizeof *c.block_ones_n);                                 \
        cuzk_err rc = CUZK_OK;                                                                     \
        PT *part = NULL;                                                                           \
        if (!block_base || !c.block_ones || !c.sig_pts || !c.sig_k || !c.block_nsig ||             \
            !c.block_zeros || !c.block_ones_n) {                                                   \
            rc = cuzk_fail(CUZK_ENOMEM, "MSM of %zu points: out of memory for scratch", n);        \
            goto done;                                                                             \
        }                                                                                          \
        for (size_t b = 0, acc = 0; b < nblocks; b++) {                                            \
            block_base[b] = acc;                                                                   \
            size_t i0 = b * BLOCK_ENTRIES, len = n - i0 < BLOCK_ENTRIES ? n - i0 : BLOCK_ENTRIES;  \
            acc += density ? cuzk_bitmap_count(density + i0 / 64, len) : len;                      \
        }                                                                                          \
        c.block_base = block_base;                                                                 \
        cuzk_parallel_for(nblocks, 1, G##_split_block, &c);                                        \
        /* Compact the significant entries to the front, in block order. */                        \
        size_t nsig = 0;                                                                           \
        for (size_t b = 0; b < nblocks; b++) {                                                     \
            size_t i0 = b * BLOCK_ENTRIES, m = c.block_nsig[b];                                    \
            if (nsig != i0 && m) {                                                                 \
                memmove(c.sig_pts + nsig, c.sig_pts + i0, m * sizeof *c.sig_pts);                  \
                memmove(c.sig_k + nsig, c.sig_k + i0, m * sizeof *c.sig_k);                        \
            }                                                                                      \
            nsig += m;                                                                             \
        }                                                                                          \
        c.sig_pts[nsig] = NULL;                                                                    \
        size_t pieces = cuzk_threads_count();                                                      \
        if (pieces > nsig / 1024 + 1)                                                              \
            pieces = nsig / 1024 + 1;                                                              \
        part = malloc(pieces * sizeof *part);                                                      \
        if (!part) {                                                                               \
            rc = cuzk_fail(CUZK_ENOMEM, "MSM: out of memory");                                     \
            goto done;                                                                             \
        }                                                                                          \
        G##_pipp_ctx pc = {c.sig_pts, c.sig_k, nsig, pieces, part, 0};                             \
        cuzk_parallel_for(pieces, 1, G##_pipp_piece, &pc);                                         \
        if (pc.failed) {                                                                           \
            rc = cuzk_fail(CUZK_ENOMEM, "MSM: out of memory for Pippenger scratch");               \
            goto done;                                                                             \
        }                                                                                          \
        for (size_t i = 0; i < pieces; i++)                                                        \
            ADD(out, out, &part[i]);                                                               \
        for (size_t b = 0; b < nblocks; b++)                                                       \
            ADD(out, out, &c.block_ones[b]);                                                       \
        if (stats) {                                                                               \
            stats->n = want;                                                                       \
            stats->others = nsig;                                                                  \
            for (size_t b = 0; b < nblocks; b++) {                                                 \
                stats->zeros += c.block_zeros[b];                                                  \
                stats->ones += c.block_ones_n[b];                                                  \
            }                                                                                      \
        }                                                                                          \
    done:                                                                                          \
        free(part);                                                                                \
        free(block_base);                                                                          \
        free(c.block_ones);                                                                        \
        free(c.sig_pts);                                                                           \
        free(c.sig_k);                                                                             \
        free(c.block_nsig);                                                                        \
        free(c.block_zeros);                                                                       \
        free(c.block_ones_n);                                                                      \
        return rc;                                                                                 \
    }

static void g1_from_affine_(blst_p1 *o, const blst_p1_affine *a)
{
    blst_p1_from_affine(o, a);
}
static void g2_from_affine_(blst_p2 *o, const blst_p2_affine *a)
{
    blst_p2_from_affine(o, a);
}

DEFINE_MSM(g1, blst_p1, blst_p1_affine, blst_p1_add_or_double, blst_p1s_add,
           blst_p1s_mult_pippenger, blst_p1s_mult_pippenger_scratch_sizeof, blst_p1_mult)
DEFINE_MSM(g2, blst_p2, blst_p2_affine, blst_p2_add_or_double, blst_p2s_add,
           blst_p2s_mult_pippenger, blst_p2s_mult_pippenger_scratch_sizeof, blst_p2_mult)

/* What cuzk_msm_g1/g2 allocate above: the split arrays, the partial sums and
 * one Pippenger scratch per piece. A piece holds at most
 * max(n / threads, 1024) + 1 entries (pieces = min(threads, nsig / 1024 + 1)
 * and nsig <= n). */
size_t cuzk_msm_scratch_bytes(size_t n, int g2)
{
    size_t nblocks = (n + BLOCK_ENTRIES - 1) / BLOCK_ENTRIES, pieces = cuzk_threads_count();
    size_t pt = g2 ? sizeof(blst_p2) : sizeof(blst_p1);
    size_t per_piece = (pieces ? n / pieces : n) + 1;
    if (per_piece < 1025)
        per_piece = 1025;
    size_t pipp = g2 ? blst_p2s_mult_pippenger_scratch_sizeof(per_piece)
                     : blst_p1s_mult_pippenger_scratch_sizeof(per_piece);
    return nblocks * (sizeof(uint64_t) * 3 + sizeof(uint32_t) + pt) + (n + 1) * sizeof(void *) +
           n * sizeof(blst_scalar) + pieces * (pt + pipp + 2 * sizeof(void *));
}
