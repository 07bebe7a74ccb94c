/* SHA-256: the native hash (FIPS 180-4) and bellperson's circuit
 * (src/gadgets/sha256.rs), bit-exact.
 *
 * Circuit bits are big-endian within each byte, as bellperson takes them
 * (bytes_to_bits). The compression function runs inside one MultiEq whose
 * pending constraint is emitted when it returns, as the reference's Drop
 * does. Reference checkpoints: one compression of 512 allocated bits with
 * the constant IV = 25,840 constraints; sha256 of 512 allocated bits (two
 * blocks) = 44,874 (bellperson sha256.rs tests test_full_block and
 * test_full_hash, counts excluding the 512 input booleanity rows). */
#ifndef CUZK_SHA256_H
#define CUZK_SHA256_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/gadgets.h"

/* The initial hash value H(0). */
extern const uint32_t CUZK_SHA256_IV[8];

/* One compression of a 64-byte block into state (in place). */
void cuzk_sha256_compress(uint32_t state[8], const uint8_t block[64]);
/* SHA-256 of len bytes. */
void cuzk_sha256(const uint8_t *data, size_t len, uint8_t out[32]);

/* sha256_compression_function: 512 input bits (big-endian words) and the
 * current state (8 UInt32, constants for the IV) -> the new state. */
cuzk_err cuzk_sha256_compress_gadget(cuzk_cs *cs, const cuzk_bool in[512], const cuzk_u32 state[8],
                                     cuzk_u32 out[8]);
/* sha256(bits): n_bits % 8 == 0 (EINVAL otherwise); pads with constants and
 * compresses block by block from the constant IV; out = 256 bits,
 * big-endian words. */
cuzk_err cuzk_sha256_gadget(cuzk_cs *cs, const cuzk_bool *bits, size_t n_bits, cuzk_bool out[256]);

/* filecoin-hashers Sha256Function over field elements (the comm_d tree):
 * SHA-256 of the elements' 32-byte little-endian encodings concatenated,
 * the digest's last byte masked with 0x3f so it is a field element
 * (fr32 trim). 1 <= n <= 8 (EINVAL otherwise). */
cuzk_err cuzk_sha256_fr_hash(const cuzk_fr *in, size_t n, cuzk_fr *out);
/* Its circuit (hash_multi_leaf_circuit / hash2_circuit): per element
 * to_bits_le (255 bits) plus a constant zero bit, bit order reversed within
 * each byte, the SHA-256 gadget, output bits reversed within each byte, the
 * first 254 packed with pack_bits. 1 <= n <= 8. */
cuzk_err cuzk_sha256_fr_gadget(cuzk_cs *cs, const cuzk_num *in, size_t n, cuzk_num *out);

#endif
