/* Multi-scalar multiplication on the CPU, over blst's Pippenger.
 *
 * The "split" MSM is the shape every Groth16 query has: a full scalar vector
 * (e.g. the witness), an optional density bitmap saying which entries have a
 * base (bases of the query are packed: entry i uses base number rank(i), the
 * count of set bits before i), and scalars that are mostly 0 or 1 in Filecoin
 * circuits. Entries with scalar 0 are skipped, entries with scalar 1 are
 * summed with batch-affine additions (blst_p1s_add), and only the rest go to
 * Pippenger. Work is split over the thread pool; the result (a group element)
 * does not depend on the thread count. */
#ifndef CUZK_MSM_H
#define CUZK_MSM_H

#include <stddef.h>
#include <stdint.h>

#include <blst.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

typedef struct {
    uint64_t n;      /* entries considered (density set) */
    uint64_t zeros;  /* skipped */
    uint64_t ones;   /* summed by batch addition */
    uint64_t others; /* sent to Pippenger */
} cuzk_msm_stats;

/* out = sum_{i < n, density(i)} k[i] * bases[rank(i)]. density == NULL means
 * every entry has a base (rank(i) = i). n_bases must equal the number of set
 * bits (or n); EINVAL otherwise. stats may be NULL. Allocates scratch. */
cuzk_err cuzk_msm_g1(blst_p1 *out, const blst_p1_affine *bases, size_t n_bases, const cuzk_fr *k,
                     const uint64_t *density, size_t n, cuzk_msm_stats *stats);
cuzk_err cuzk_msm_g2(blst_p2 *out, const blst_p2_affine *bases, size_t n_bases, const cuzk_fr *k,
                     const uint64_t *density, size_t n, cuzk_msm_stats *stats);

/* The most scratch memory (bytes) one cuzk_msm_g1 (g2 == 0) or cuzk_msm_g2
 * (g2 != 0) call over n entries allocates at once, with the thread pool at
 * its current size: what a caller that budgets memory counts next to the
 * MSM's own inputs. */
size_t cuzk_msm_scratch_bytes(size_t n, int g2);

/* Number of set bits among the first n bits of a bitmap. */
uint64_t cuzk_bitmap_count(const uint64_t *bits, size_t n);
/* Bit i of a bitmap. */
static inline int cuzk_bitmap_get(const uint64_t *bits, size_t i)
{
    return (int)((bits[i / 64] >> (i % 64)) & 1);
}

#endif
