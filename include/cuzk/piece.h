/* Filecoin piece and data commitments (src/seal/piece.c): fr32 padding,
 * commP of a piece, comm_d of a sector from its pieces, and the piece and
 * sealed CIDs that carry commitments on chain.
 *
 * fr32 padding (filecoin-proofs fr32.rs) turns every 127 bytes (1016 bits)
 * into 128: the input is read as a little-endian bit stream and two zero
 * bits follow each 254 bits, so each 32-byte word of the output is a
 * BLS12-381 scalar whose top two bits are clear. An unpadded piece of
 * 127 * 2^k bytes is a padded piece of 128 * 2^k bytes.
 *
 * commP is the root of the binary SHA-256 Merkle tree over the padded
 * piece's 32-byte words, each node SHA-256(left || right) with byte 31 of
 * the digest masked with 0x3f (filecoin-hashers trim_to_fr32). A piece
 * whose padded size is not a power of two is zero-filled up to one; the
 * root of an all-zero subtree depends only on its height, so those parts
 * cost one hash per level. */
#ifndef CUZK_PIECE_H
#define CUZK_PIECE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#define CUZK_FR32_UNPADDED 127 /* bytes of one fr32 chunk before padding */
#define CUZK_FR32_PADDED 128   /* and after */
#define CUZK_PIECE_MIN_PADDED 128
/* The largest padded size this module handles: 2^50 bytes (1 PiB), far
 * beyond any sector, small enough that sizes never overflow. */
#define CUZK_PIECE_MAX_PADDED (UINT64_C(1) << 50)

/* fr32: n_chunks chunks of 127 bytes from in into n_chunks * 128 bytes at
 * out, and back. unpad ignores the two pad bits of each word (they are zero
 * in anything pad wrote). in and out must not overlap. */
void cuzk_fr32_pad(const uint8_t *in, size_t n_chunks, uint8_t *out);
void cuzk_fr32_unpad(const uint8_t *in, size_t n_chunks, uint8_t *out);

/* A node of the piece tree: SHA-256(left || right), byte 31 &= 0x3f. */
void cuzk_piece_hash(const uint8_t left[32], const uint8_t right[32], uint8_t out[32]);

/* The commitment of an all-zero piece of padded_size bytes: a power of two,
 * 32 (a single zero word) to CUZK_PIECE_MAX_PADDED (EINVAL otherwise). It
 * is also the comm_d of an empty sector of that size. */
cuzk_err cuzk_piece_zero_comm(uint64_t padded_size, uint8_t out[32]);

/* The padded size of a piece of n unpadded bytes as Lotus and Curio size
 * it: the bytes, zero-filled to whole 127-byte chunks, padded, rounded up
 * to a power of two, at least 128. 0 when n is 0 or beyond
 * CUZK_PIECE_MAX_PADDED. */
uint64_t cuzk_piece_padded_size(uint64_t n);

/* commP of a byte stream, fed in any pieces: new, write as often as
 * needed, finish (once), free. Memory is constant: one partial chunk and
 * one pending node per tree level. The data is the unpadded piece; its
 * commitment is that of the data zero-filled to cuzk_piece_padded_size
 * bytes of padded piece (what Lotus's ClientCalcCommP and go-fil-commp-
 * hashhash compute). finish fails with EINVAL for an empty stream and for
 * one beyond CUZK_PIECE_MAX_PADDED; write fails once that is exceeded. */
typedef struct cuzk_commp cuzk_commp;
cuzk_err cuzk_commp_new(cuzk_commp **out);
cuzk_err cuzk_commp_write(cuzk_commp *c, const void *data, size_t n);
cuzk_err cuzk_commp_finish(cuzk_commp *c, uint8_t comm[32], uint64_t *padded_size);
void cuzk_commp_free(cuzk_commp *c);

/* commP of n bytes in memory, and of a file's contents (EIO naming the
 * file for a read failure). */
cuzk_err cuzk_commp_bytes(const void *data, size_t n, uint8_t comm[32], uint64_t *padded_size);
cuzk_err cuzk_commp_file(const char *path, uint8_t comm[32], uint64_t *padded_size);

/* A piece of a sector: its commP and padded size (a power of two, at
 * least 128). */
typedef struct {
    uint8_t comm[32];
    uint64_t padded_size;
} cuzk_piece_info;

/* comm_d of a sector of sector_size bytes (a power of two, at least 128)
 * holding pieces[0..n) in order (filecoin-proofs pieces.rs compute_comm_d):
 * each piece starts at a multiple of its own size, the gap before it is
 * zero pieces, and the space after the last one up to sector_size is
 * zero. No pieces: the empty sector's comm_d. EINVAL naming the piece for
 * a size that is not a power of two >= 128, and when the pieces, so
 * aligned, do not fit in the sector. (compute_comm_d itself stops at the
 * last piece without filling up to the sector size; its callers always
 * pass pieces that fill the sector, for which both agree.) */
cuzk_err cuzk_comm_d(uint64_t sector_size, const cuzk_piece_info *pieces, size_t n,
                     uint8_t out[32]);

/* CIDs of commitments (go-fil-commcid): CIDv1 with codec
 * fil-commitment-unsealed (0xf101) and multihash sha2-256-trunc254-padded
 * (0x1012) for commP and comm_d, fil-commitment-sealed (0xf102) and
 * poseidon-bls12_381-a2-fc1 (0xb401) for comm_r; a 32-byte digest, the
 * commitment as stored (little-endian field element); written in
 * lower-case base32 with the multibase prefix 'b': "baga6ea4sea..." and
 * "bagboea4b5abc..." */
typedef enum { CUZK_CID_UNSEALED, CUZK_CID_SEALED } cuzk_cid_kind;

/* Longest CID text this module writes (the sealed one, 65 characters),
 * with its terminating NUL. */
#define CUZK_CID_STR_MAX 66

/* The CID of comm. EINVAL when comm cannot be a commitment of its kind
 * (unsealed: top two bits set, so no trimmed digest; sealed: not below the
 * modulus r) or kind is neither. */
cuzk_err cuzk_cid_encode(cuzk_cid_kind kind, const uint8_t comm[32], char out[CUZK_CID_STR_MAX]);
/* The commitment of a CID text and its kind. EFORMAT saying what is
 * wrong: a multibase prefix other than 'b', a character outside base32,
 * non-zero trailing bits, a truncated or overlong varint, a CID version
 * other than 1, a codec or multihash not one of the pairs above, a digest
 * length other than 32, trailing bytes, or a digest that cannot be a
 * commitment of its kind. On failure *kind and comm are left alone. */
cuzk_err cuzk_cid_decode(const char *s, cuzk_cid_kind *kind, uint8_t comm[32]);

#endif
