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
 * SnapDeals PartitionProof (one per partition of a SNAP_DEALS_UPDATE
 * request; storage-proofs-update vanilla.rs):
 *   comm_c [32] | apex_leafs: u64 n, n x [32] |
 *   challenge_proofs: u64 n, n x { proof_r_old: MerkleProof (tree_r's
 *   form), proof_d_new: MerkleProof (Single, binary tree_d),
 *   proof_r_new: MerkleProof (tree_r's form) }
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
/* Decode n of them on the CPU pool, each named "<prefix>[i]"; out[0..n)
 * must be zeroed. On failure the error is the lowest failing index's (as a
 * one-by-one loop would report it) and every out[i] is freed and zeroed. */
cuzk_err cuzk_post_sector_proofs_decode(const uint8_t *const *data, const size_t *sizes, size_t n,
                                        const char *prefix, cuzk_post_sector_proof *out);
/* Encode (the exact bytes rust-fil-proofs' bincode writes); *out malloc'd. */
cuzk_err cuzk_post_sector_proof_encode(const cuzk_post_sector_proof *p, uint8_t **out,
                                       size_t *size);
void cuzk_post_sector_proof_free(cuzk_post_sector_proof *p);

/* One challenge of a SnapDeals partition: its openings of tree_r_last old
 * and new and of tree_d new. */
typedef struct {
    cuzk_vanilla_merkle r_old, d_new, r_new;
} cuzk_snap_challenge_proof;
/* PartitionProof. Owns everything it points to. */
typedef struct cuzk_snap_partition_proof {
    cuzk_fr comm_c;
    cuzk_fr *apex_leafs;
    size_t n_apex_leafs;
    cuzk_snap_challenge_proof *challenges;
    size_t n_challenges;
} cuzk_snap_partition_proof;
/* Decode one PartitionProof (the whole buffer; name prefixes messages, e.g.
 * "vanilla_proofs[3]"); *out zeroed on failure. */
cuzk_err cuzk_snap_partition_proof_decode(const uint8_t *data, size_t size, const char *name,
                                          cuzk_snap_partition_proof *out);
cuzk_err cuzk_snap_partition_proof_encode(const cuzk_snap_partition_proof *p, uint8_t **out,
                                          size_t *size);
void cuzk_snap_partition_proof_free(cuzk_snap_partition_proof *p);

#endif
