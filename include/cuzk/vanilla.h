/* Filecoin vanilla proofs as Curio sends them: bincode 1.x (little-endian,
 * fixed-width integers) of rust-fil-proofs' structures, decoded with every
 * length checked against the bytes that remain before anything is
 * allocated, and every field element checked canonical.
 *
 * FallbackPoStSectorProof (one per sector of a PoSt request):
 *   sector_id u64 | comm_r [32] | sectors: u64 n, n x SectorProof
 *   SectorProof: inclusion_proofs: u64 n, n x MerkleProof | comm_c [32] |
 *                comm_r_last [32]
 *   MerkleProof = ProofData: u32 variant
 *     0 Single { root [32], leaf [32], path: InclusionPath }
 *     1 Sub    { base_proof: InclusionPath, sub_proof: InclusionPath,
 *                root [32], leaf [32] }
 *     2 Top    { base_proof, sub_proof, top_proof: InclusionPath,
 *                root [32], leaf [32] }
 *   InclusionPath: u64 n, n x PathElement { hashes: u64 k, k x [32];
 *                                           index u64 }
 * A [32] is a field element's 32-byte little-endian representation (the
 * Poseidon and SHA-256 domains alike).
 *
 * Errors are EFORMAT with the byte offset and the path of the field, e.g.
 * "sectors[0].inclusion_proofs[3].base_proof.path[2].hashes: length
 * 4294967296 at byte 1432 needs 137438953472 bytes, 88 remain". */
#ifndef CUZK_VANILLA_H
#define CUZK_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

#define CUZK_VANILLA_MAX_LEVELS 64

typedef enum {
    CUZK_MERKLE_SINGLE = 0,
    CUZK_MERKLE_SUB = 1,
    CUZK_MERKLE_TOP = 2,
} cuzk_merkle_form;

/* One inclusion proof. Levels run from the leaf up: the base path, then the
 * sub level, then the top level. At each level the node on the path sits at
 * index[l] among arity[l] children, and siblings holds the other
 * arity[l] - 1 in position order (the owner's storage). */
typedef struct {
    cuzk_merkle_form form;
    cuzk_fr leaf, root;
    unsigned n_levels, n_base;
    uint8_t arity[CUZK_VANILLA_MAX_LEVELS];
    uint32_t index[CUZK_VANILLA_MAX_LEVELS];
    cuzk_fr *siblings;
} cuzk_vanilla_merkle;

/* The leaf index the path spells: sum of index[l] * (product of the
 * arities below l). */
uint64_t cuzk_vanilla_merkle_leaf_index(const cuzk_vanilla_merkle *p);
/* Siblings before level l (offset into siblings). */
size_t cuzk_vanilla_merkle_sibling_offset(const cuzk_vanilla_merkle *p, unsigned l);

typedef struct {
    cuzk_vanilla_merkle *inclusion_proofs;
    size_t n_inclusion_proofs;
    cuzk_fr comm_c, comm_r_last;
} cuzk_vanilla_sector;

/* FallbackPoStSectorProof. Owns everything it points to. */
typedef struct {
    uint64_t sector_id;
    cuzk_fr comm_r;
    cuzk_vanilla_sector *sectors;
    size_t n_sectors;
} cuzk_post_sector_proof;

/* Decode one FallbackPoStSectorProof; `name` prefixes messages (e.g.
 * "vanilla_proofs[7]"). The whole buffer must be consumed. On failure *out
 * is zeroed (nothing to free). */
cuzk_err cuzk_post_sector_proof_decode(const uint8_t *data, size_t size, const char *name,
                                       cuzk_post_sector_proof *out);
/* Encode (the exact bytes rust-fil-proofs' bincode writes); *out malloc'd. */
cuzk_err cuzk_post_sector_proof_encode(const cuzk_post_sector_proof *p, uint8_t **out,
                                       size_t *size);
void cuzk_post_sector_proof_free(cuzk_post_sector_proof *p);

#endif
