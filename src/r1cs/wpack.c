/* Packed witnesses (wpack.h). Two passes over the words on the thread
 * pool: the first classifies (small and ones bits, and the count of dense
 * elements of each word into before[]), a scan turns the counts into
 * offsets, and the second copies the dense elements to their offsets;
 * a mostly dense witness stops after the first, borrowing w. */
#include "cuzk/wpack.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>

/* Both directions: w is read by the pack and written by the expansion. */
typedef struct {
    cuzk_fr *w;
    cuzk_wpack *p;
    cuzk_fr one;
} pack_ctx;

static void classify_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    pack_ctx *c = vctx;
    cuzk_wpack *p = c->p;
    for (size_t k = lo; k < hi; k++) {
        uint64_t small = 0, ones = 0, end = (k + 1) * 64 < p->n ? (k + 1) * 64 : p->n;
        for (uint64_t j = k * 64; j < end; j++) {
            const cuzk_fr *x = &c->w[j];
            if (cuzk_fr_is_zero(x))
                small |= 1ull << (j & 63);
            else if (cuzk_fr_eq(x, &c->one)) {
                small |= 1ull << (j & 63);
                ones |= 1ull << (j & 63);
            }
        }
        p->small[k] = small;
        p->ones[k] = ones;
        p->before[k] = (uint32_t)((end - k * 64) - (uint64_t)__builtin_popcountll(small));
    }
}

static void copy_dense_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    pack_ctx *c = vctx;
    cuzk_wpack *p = c->p;
    for (size_t k = lo; k < hi; k++) {
        uint64_t end = (k + 1) * 64 < p->n ? (k + 1) * 64 : p->n, at = p->before[k];
        for (uint64_t j = k * 64; j < end; j++)
            if (!(p->small[k] >> (j & 63) & 1))
                p->dense[at++] = c->w[j];
    }
}

cuzk_err cuzk_wpack_build(const cuzk_fr *w, uint64_t n, cuzk_wpack **out)
{
    *out = NULL;
    if (n >= ((uint64_t)1 << 32))
        return cuzk_fail(CUZK_EINVAL, "witness pack: %llu elements (at most 2^32 - 1)",
                         (unsigned long long)n);
    if (n && !w)
        return cuzk_fail(CUZK_EINVAL, "witness pack: NULL witness");
    cuzk_wpack *p = calloc(1, sizeof *p);
    if (!p)
        return cuzk_fail(CUZK_ENOMEM, "witness pack: out of memory");
    p->n = n;
    p->words = (n + 63) / 64;
    p->meta_bytes = (size_t)p->words * (2 * sizeof(uint64_t) + sizeof(uint32_t));
    /* huge pages where the size allows: fewer faults while packing, and
     * freeing a dense part of gigabytes unmaps in milliseconds */
    p->meta = cuzk_alloc_huge(p->meta_bytes);
    if (!p->meta) {
        size_t bytes = p->meta_bytes;
        free(p);
        return cuzk_fail(CUZK_ENOMEM, "witness pack: out of memory for %zu bytes", bytes);
    }
    p->small = p->meta;
    p->ones = p->small + p->words;
    p->before = (uint32_t *)(p->ones + p->words);
    pack_ctx c = {(cuzk_fr *)w, p, {{0}}}; /* only read */
    cuzk_fr_one(&c.one);
    /* Mostly not bits (judged on every 64th word: either form is right,
     * this only picks the cheaper): every element dense, w borrowed. */
    uint64_t seen = 0, others = 0;
    for (uint64_t k = 0; k < p->words; k += 64)
        for (uint64_t j = k * 64; j < n && j < k * 64 + 64; j++, seen++)
            others += !cuzk_fr_is_zero(&w[j]) && !cuzk_fr_eq(&w[j], &c.one);
    if (seen && others >= seen - seen / 4) {
        memset(p->small, 0, 2 * p->words * sizeof *p->small);
        for (uint64_t k = 0; k < p->words; k++)
            p->before[k] = (uint32_t)(k * 64);
        p->n_dense = n;
        p->dense = (cuzk_fr *)w;
        p->dense_borrowed = 1;
        *out = p;
        return CUZK_OK;
    }
    cuzk_parallel_for((size_t)p->words, 4096, classify_range, &c);
    uint64_t sum = 0;
    for (uint64_t k = 0; k < p->words; k++) {
        uint32_t d = p->before[k];
        p->before[k] = (uint32_t)sum;
        sum += d;
    }
    p->n_dense = sum;
    p->dense = cuzk_alloc_huge((size_t)sum * sizeof(cuzk_fr));
    if (!p->dense) {
        cuzk_wpack_free(p);
        return cuzk_fail(CUZK_ENOMEM, "witness pack: out of memory for %llu dense elements",
                         (unsigned long long)sum);
    }
    cuzk_parallel_for((size_t)p->words, 4096, copy_dense_range, &c);
    *out = p;
    return CUZK_OK;
}

static void expand_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    pack_ctx *c = vctx;
    const cuzk_wpack *p = c->p;
    for (size_t k = lo; k < hi; k++) {
        uint64_t end = (k + 1) * 64 < p->n ? (k + 1) * 64 : p->n, at = p->before[k];
        for (uint64_t j = k * 64; j < end; j++) {
            unsigned b = (unsigned)(j & 63);
            if (p->small[k] >> b & 1) {
                if (p->ones[k] >> b & 1)
                    c->w[j] = c->one;
                else
                    memset(&c->w[j], 0, sizeof c->w[j]);
            } else {
                c->w[j] = p->dense[at++];
            }
        }
    }
}

void cuzk_wpack_expand(const cuzk_wpack *p, cuzk_fr *w)
{
    pack_ctx c = {w, (cuzk_wpack *)p, {{0}}}; /* p only read */
    cuzk_fr_one(&c.one);
    cuzk_parallel_for((size_t)p->words, 4096, expand_range, &c);
}

size_t cuzk_wpack_bytes(const cuzk_wpack *p)
{
    return p->meta_bytes + (size_t)p->n_dense * sizeof(cuzk_fr);
}

void cuzk_wpack_free(cuzk_wpack *p)
{
    if (!p)
        return;
    free(p->meta);
    if (!p->dense_borrowed)
        free(p->dense);
    free(p);
}
