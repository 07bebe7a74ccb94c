/* The CPU NTT: radix-2 decimation in frequency, blocked for the cache, then
 * one bit-reversal permutation.
 *
 * A size-B DFT with B = P L splits (Cooley-Tukey) into L column DFTs of P
 * points over x[j + m L], a twiddle w_B^(j k) on output k of column j, and P
 * row DFTs of L points over contiguous rows. Done with radix-2 DIF inside
 * each piece, every output lands at its bit-reversed index, exactly as a
 * plain radix-2 DIF over the whole vector would leave it. So the transform is
 * a few passes over memory (the domain's plan: 2^20 is 10 + 10 bits, 2^22 is
 * 11 + 11, 2^28 is 10 + 9 + 9), each a batch of independent P-point DIFs on
 * data that fits in cache (P <= 2^CUZK_NTT_RADIX_LOG):
 *   - column passes copy J adjacent columns (J P <= TILE_ELEMS) into a stack
 *     tile, transform them there, apply the twiddles and copy back; the copy
 *     avoids power-of-two strides that would thrash the cache sets;
 *   - the last pass transforms contiguous blocks of P in place.
 * Output k of column j takes (w_B^j)^k, made on the fly by repeated
 * multiplication: no n-entry table, two multiplies per element per column
 * pass. Everything is multiply-bound (blst_fr_mul), so the scales ride along:
 *   - 1/n of the inverse: the first pass's twiddle chains start at 1/n;
 *   - g^-k of coset_inverse: k is a sum of digits k_p Q_p, one per pass, so
 *     g^-k is a product of g^(-Q_p k_p), and g^-Q_p joins the ratio of pass
 *     p's chains; only the last pass pays a multiply (the domain's coset_post);
 *   - g^i of coset_forward: i = j + m L in the first pass, g^j starts column
 *     j's chain and g^(m L) (coset_pre) is applied as the tile is gathered.
 * A size with a single pass has no chains and scales directly.
 *
 * The bit reversal then swaps 16 x 16 tiles (rows contiguous) so it streams
 * through memory instead of jumping. Work items never share output, so
 * results are independent of the thread count. */
#include "cuzk/ntt.h"
#include "cuzk/threads.h"

#include <stdint.h>

#define TILE_ELEMS 4096 /* column pass scratch: 128 KiB of stack per thread */
#define BITREV_Q 4      /* bit reversal tiles of 2^Q x 2^Q elements */
#define BITREV_SIDE (1u << BITREV_Q)

_Static_assert(TILE_ELEMS >= (2u << CUZK_NTT_RADIX_LOG), "a tile must hold two columns");

static inline size_t bit_reverse(size_t x, unsigned bits)
{
    uint64_t v = x;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return bits ? (size_t)(__builtin_bswap64(v) >> (64 - bits)) : 0;
}

/* Radix-2 DIF in place on x[0, 2^r): natural order in, bit-reversed out.
 * roots[t] = u^t with u of order 2^root_log >= 2^r. */
static void dif_block(cuzk_fr *x, unsigned r, const cuzk_fr *roots, unsigned root_log)
{
    size_t p = (size_t)1 << r;
    for (size_t h = p >> 1; h >= 1; h >>= 1) {
        size_t stride = ((size_t)1 << root_log) / (2 * h); /* u^stride has order 2h */
        for (size_t s = 0; s < p; s += 2 * h) {
            cuzk_fr *lo = x + s, *hi = x + s + h, t;
            /* Twiddle 1 at k = 0: skip the multiply (all of the last stage). */
            blst_fr_sub(&t, &lo[0], &hi[0]);
            blst_fr_add(&lo[0], &lo[0], &hi[0]);
            hi[0] = t;
            for (size_t k = 1; k < h; k++) {
                blst_fr_sub(&t, &lo[k], &hi[k]);
                blst_fr_add(&lo[k], &lo[k], &hi[k]);
                blst_fr_mul(&hi[k], &t, &roots[k * stride]);
            }
        }
    }
}

typedef struct {
    cuzk_fr *a;
    const cuzk_ntt_domain *d;
    int inverse, coset;
    const cuzk_fr *roots;        /* d->roots or d->roots_inv */
    const cuzk_ntt_powers *w;    /* powers of omega or omega^-1 */
    unsigned pass, log_block, r; /* blocks of B = 2^log_block, P = 2^r points per DIF */
    size_t cols;                 /* J: columns per work item */
    cuzk_fr out_ratio;           /* coset_inverse: g^-Q, Q = n / B */
} pass_ctx;

/* Multiply the outputs of a column DIF: output k (at rev(k)) by
 * start ratio^k; either may be NULL for 1. */
static void chain_apply(cuzk_fr *col, unsigned r, const cuzk_fr *start, const cuzk_fr *ratio)
{
    size_t p = (size_t)1 << r;
    if (!start && !ratio)
        return;
    if (start)
        blst_fr_mul(&col[0], &col[0], start);
    if (!ratio) {
        for (size_t k = 1; k < p; k++)
            blst_fr_mul(&col[k], &col[k], start);
        return;
    }
    cuzk_fr pw = *ratio;
    if (start)
        blst_fr_mul(&pw, &pw, start);
    for (size_t k = 1; k < p; k++) {
        cuzk_fr *e = &col[bit_reverse(k, r)];
        blst_fr_mul(e, e, &pw);
        if (k + 1 < p)
            blst_fr_mul(&pw, &pw, ratio);
    }
}

/* One work item of a column pass: block blk, columns [j0, j0 + J). */
static void column_item(const pass_ctx *c, cuzk_fr *tile, size_t item)
{
    const cuzk_ntt_domain *d = c->d;
    size_t p = (size_t)1 << c->r, l = ((size_t)1 << c->log_block) >> c->r, nc = c->cols;
    size_t items_per_block = l / nc;
    size_t blk = item / items_per_block, j0 = (item % items_per_block) * nc;
    cuzk_fr *base = c->a + (blk << c->log_block) + j0;
    int first = c->pass == 0; /* a single block, B = n */
    int scale_in = first && c->coset && !c->inverse;

    for (size_t m = 0; m < p; m++)
        for (size_t jj = 0; jj < nc; jj++) {
            cuzk_fr *t = &tile[jj * p + m];
            if (scale_in)
                blst_fr_mul(t, &base[m * l + jj], &d->coset_pre[m]);
            else
                *t = base[m * l + jj];
        }

    for (size_t jj = 0; jj < nc; jj++) {
        cuzk_fr *col = tile + jj * p, start, ratio;
        size_t j = j0 + jj;
        dif_block(col, c->r, c->roots, d->root_log);
        /* start: the first pass's 1/n and g^j; ratio: the twiddle
         * w_B^j = omega^(j n / B) and g^-Q. */
        int has_start = first && (c->inverse || (scale_in && j));
        int has_ratio = j || (c->coset && c->inverse);
        if (has_start) {
            if (c->inverse) /* scale_in is forward only */
                start = d->n_inv;
            else
                cuzk_ntt_powers_get(&start, &d->shift_pow, j);
        }
        if (has_ratio) {
            if (!j) {
                ratio = c->out_ratio;
            } else {
                cuzk_ntt_powers_get(&ratio, c->w, j << (d->log_n - c->log_block));
                if (c->coset && c->inverse)
                    blst_fr_mul(&ratio, &ratio, &c->out_ratio);
            }
        }
        chain_apply(col, c->r, has_start ? &start : NULL, has_ratio ? &ratio : NULL);
    }

    for (size_t m = 0; m < p; m++)
        for (size_t jj = 0; jj < nc; jj++)
            base[m * l + jj] = tile[jj * p + m];
}

static void column_pass_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    cuzk_fr tile[TILE_ELEMS];
    for (size_t item = begin; item < end; item++)
        column_item(vctx, tile, item);
}

/* The last pass: contiguous blocks of P. Scales that no chain carried are
 * applied here: all of them for a single pass, else coset_post. */
static void row_pass_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const pass_ctx *c = vctx;
    const cuzk_ntt_domain *d = c->d;
    size_t p = (size_t)1 << c->r;
    int single = d->passes == 1;
    for (size_t blk = begin; blk < end; blk++) {
        cuzk_fr *x = c->a + (blk << c->r);
        if (single && c->coset && !c->inverse)
            for (size_t m = 0; m < p; m++)
                blst_fr_mul(&x[m], &x[m], &d->coset_pre[m]);
        dif_block(x, c->r, c->roots, d->root_log);
        if (c->coset && c->inverse)
            for (size_t m = 0; m < p; m++)
                blst_fr_mul(&x[m], &x[m], &d->coset_post[m]);
        else if (single && c->inverse)
            for (size_t m = 0; m < p; m++)
                blst_fr_mul(&x[m], &x[m], &d->n_inv);
    }
}

/* In-place permutation a[i] <-> a[rev(i)]. Index bits are (a | b | e): Q
 * high bits a, middle bits b, Q low bits e. The element at (a, b, e) comes
 * from (rev e, rev b, rev a), so tile b (all a, e) is tile rev b transposed;
 * tiles are handled in pairs (b, rev b). */
typedef struct {
    cuzk_fr *a;
    unsigned log_n;
} bitrev_ctx;

static inline size_t tile_index(const bitrev_ctx *c, size_t a, size_t b, size_t e)
{
    return (a << (c->log_n - BITREV_Q)) | (b << BITREV_Q) | e;
}

static void tile_load(const bitrev_ctx *c, cuzk_fr *t, size_t b)
{
    for (size_t a = 0; a < BITREV_SIDE; a++)
        for (size_t e = 0; e < BITREV_SIDE; e++)
            t[a * BITREV_SIDE + e] = c->a[tile_index(c, a, b, e)];
}

/* Fill tile b from src, the saved tile of rev b. */
static void tile_store(const bitrev_ctx *c, const cuzk_fr *src, size_t b)
{
    for (size_t a = 0; a < BITREV_SIDE; a++) {
        cuzk_fr *dst = c->a + tile_index(c, a, b, 0);
        size_t ra = bit_reverse(a, BITREV_Q);
        for (size_t e = 0; e < BITREV_SIDE; e++)
            dst[e] = src[bit_reverse(e, BITREV_Q) * BITREV_SIDE + ra];
    }
}

static void bitrev_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    const bitrev_ctx *c = vctx;
    unsigned mid_bits = c->log_n - 2 * BITREV_Q;
    cuzk_fr t1[BITREV_SIDE * BITREV_SIDE], t2[BITREV_SIDE * BITREV_SIDE];
    for (size_t b = begin; b < end; b++) {
        size_t rb = bit_reverse(b, mid_bits);
        if (rb < b)
            continue; /* done with its partner */
        tile_load(c, t1, b);
        if (rb == b) {
            tile_store(c, t1, b);
        } else {
            tile_load(c, t2, rb);
            tile_store(c, t2, b);
            tile_store(c, t1, rb);
        }
    }
}

static void bitrev_all(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    bitrev_ctx c = {a, d->log_n};
    if (d->log_n >= 2 * BITREV_Q) {
        cuzk_parallel_for((size_t)1 << (d->log_n - 2 * BITREV_Q), 16, bitrev_range, &c);
        return;
    }
    for (size_t i = 0; i < d->n; i++) { /* small: one cache's worth */
        size_t j = bit_reverse(i, d->log_n);
        if (i < j) {
            cuzk_fr t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

static void transform(const cuzk_ntt_domain *d, cuzk_fr *a, int inverse, int coset)
{
    pass_ctx c = {.a = a, .d = d, .inverse = inverse, .coset = coset};
    c.roots = inverse ? d->roots_inv : d->roots;
    c.w = inverse ? &d->omega_inv_pow : &d->omega_pow;
    unsigned rem = d->log_n;
    for (unsigned i = 0; i < d->passes; i++) {
        c.pass = i;
        c.log_block = rem;
        c.r = d->pass_log[i];
        size_t l = ((size_t)1 << rem) >> c.r;
        if (i + 1 == d->passes) { /* l == 1 */
            cuzk_parallel_for(d->n >> c.r, 1, row_pass_range, &c);
        } else {
            c.cols = (size_t)TILE_ELEMS >> c.r;
            if (c.cols > l)
                c.cols = l;
            if (coset && inverse)
                cuzk_ntt_powers_get(&c.out_ratio, &d->shift_inv_pow, d->n >> rem);
            cuzk_parallel_for((d->n >> rem) * (l / c.cols), 1, column_pass_range, &c);
        }
        rem -= c.r;
    }
    bitrev_all(d, a);
}

void cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    transform(d, a, 0, 0);
}
void cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    transform(d, a, 1, 0);
}
void cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    transform(d, a, 0, 1);
}
void cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *a)
{
    transform(d, a, 1, 1);
}
