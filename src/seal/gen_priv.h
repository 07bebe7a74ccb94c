/* What the synthetic-data generators of src/seal share (gen_post.c,
 * gen_porep.c, gen_snap.c). Not installed. */
#ifndef CUZK_SEAL_GEN_PRIV_H
#define CUZK_SEAL_GEN_PRIV_H
#include <stddef.h>
#include <stdint.h>

/* A seed-derived value: SHA-256 of the 16-byte tag (one per generator and
 * format version) and the n (<= 6) words as u64 little-endian, byte 31's
 * top two bits cleared: a canonical field element, and fr32-valid data.
 * The same arguments give the same bytes on every machine. */
void cuzk_gen_derive(const char tag[16], const uint64_t *words, size_t n, uint8_t out[32]);

#endif
