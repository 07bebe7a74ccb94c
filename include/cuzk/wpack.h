/* A witness packed for the trip to a GPU: values 0 and 1 as bits, the rest
 * as field elements.
 *
 * In Filecoin's circuits most variables are bits (SHA-256 and the
 * challenge-index decompositions): a 32 GiB PoRep partition's 130 M
 * variables are 4.2 GB as field elements but under 1 GB packed. A device
 * backend uploads the packed form and expands it there (every proof's
 * a, b, c and MSM scalars then come from that copy), so the host keeps no
 * a, b, c at all.
 *
 * Layout, over the n elements w[0..n) (index j in word j / 64, bit j % 64):
 *   small[k]   bit set iff w[j] is 0 or 1 (the Montgomery forms of 0, 1)
 *   ones[k]    bit set iff w[j] is 1
 *   before[k]  number of elements that are not small in words 0..k-1
 *   dense      those elements, in index order (n_dense of them)
 * so element j is, when small, 0 or 1 by its ones bit, and otherwise
 * dense[before[j/64] + the count of non-small bits of word j/64 below j].
 * small, ones and before lie back to back in one block (meta, meta_bytes)
 * so that it moves in one copy. n < 2^32 (the column limit of a PCE).
 *
 * A witness whose values are mostly not bits (at least 3/4 of those in
 * every 64th word of 64: a PoSt partition's Poseidon values) gains little
 * from packing and would cost a copy of gigabytes: then every element
 * counts as dense (small and ones all zero) and dense is w itself,
 * borrowed (dense_borrowed), so w must outlive the pack.
 *
 * Ownership: cuzk_wpack_build allocates the struct and both blocks (dense
 * unless borrowed); cuzk_wpack_free releases them. Immutable once built: any number of
 * threads may read it. */
#ifndef CUZK_WPACK_H
#define CUZK_WPACK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

typedef struct {
    uint64_t n;       /* elements */
    uint64_t n_dense; /* elements other than 0 and 1 */
    uint64_t words;   /* ceil(n / 64) */
    uint64_t *small;  /* words */
    uint64_t *ones;   /* words */
    uint32_t *before; /* words */
    cuzk_fr *dense;   /* n_dense */
    void *meta;       /* small, ones, before: one block of meta_bytes */
    size_t meta_bytes;
    int dense_borrowed; /* dense is the witness itself (see above) */
} cuzk_wpack;

/* Pack w[0..n) (multi-threaded). EINVAL for n >= 2^32, ENOMEM. */
cuzk_err cuzk_wpack_build(const cuzk_fr *w, uint64_t n, cuzk_wpack **out);
/* Unpack into w[0..p->n) (multi-threaded): the reference the device
 * expansion is compared with. */
void cuzk_wpack_expand(const cuzk_wpack *p, cuzk_fr *w);
/* Bytes the packed form moves (meta + dense). */
size_t cuzk_wpack_bytes(const cuzk_wpack *p);
void cuzk_wpack_free(cuzk_wpack *p);

#endif
