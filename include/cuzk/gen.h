/* Synthetic Filecoin sectors (src/seal/): PoSt vanilla proofs of sectors
 * that were never sealed, for tests and benchmarks of the PoSt circuits at
 * any sector size without a sealed sector on disk.
 *
 * A synthetic sector's tree_r_last has one seed-derived leaf value
 * everywhere except at the leaves a PoSt challenges, which hold their own
 * seed-derived values. Its root is computed without building the tree: the
 * root of an all-default subtree depends only on its height, so one hash per
 * level gives every default node, and only the paths through the challenged
 * leaves are hashed explicitly (a 32 GiB sector, 2^30 leaves, costs about
 * a hundred Poseidon hashes). comm_c is a seed-derived value and comm_r =
 * Poseidon-2(comm_c, comm_r_last), as a sealed sector's is, so the vanilla
 * proofs pass cuzk_post_partition_build and satisfy the circuit.
 *
 * Every derived value is SHA-256 of a fixed tag, the seed, the sector id,
 * the value's kind and its leaf index, with the top two bits of the last
 * byte cleared (a canonical field element): the same arguments give the
 * same sector, byte for byte, on every machine. */
#ifndef CUZK_GEN_H
#define CUZK_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/c1.h"
#include "cuzk/filecoin.h"
#include "cuzk/merkle.h"
#include "cuzk/vanilla.h"

/* The root of a Poseidon tree of shape s whose leaves are all *fill except
 * leaf idx[k] = vals[k] (k < n; an index may repeat with the same value),
 * and when siblings is non-NULL the path of each idx[k] into
 * siblings + k * cuzk_merkle_sibling_count(s) (the layout of
 * cuzk_merkle_build). Costs one hash per level for the default subtrees
 * and at most n per level for the paths, whatever the leaf count. EINVAL
 * for a bad or SHA-256 shape, an index beyond the leaf count, or one index
 * given two values. */
cuzk_err cuzk_gen_sparse_root(const cuzk_merkle_shape *s, const cuzk_fr *fill, const uint64_t *idx,
                              const cuzk_fr *vals, size_t n, cuzk_fr *root, cuzk_fr *siblings);

/* One synthetic PoSt sector of a WinningPoSt or WindowPoSt registry entry:
 * the FallbackPoStSectorProof Curio would send for it (one SectorProof,
 * its inclusion proofs in the tree's form: Single, Sub or Top). Winning: 66
 * inclusion proofs, challenge indexes 0..65. Window: 10 at sector_index,
 * the sector's position in the whole request (partition_index * the
 * partition's sectors + its position in the partition), which moves the
 * challenges under API 1.0.0 only. randomness must be canonical. EINVAL
 * naming what is wrong (not a PoSt entry, non-canonical randomness); *out
 * is zeroed on failure. Free with cuzk_post_sector_proof_free. */
cuzk_err cuzk_gen_post_sector(const cuzk_fc_proof *proof, const uint8_t randomness[32],
                              uint64_t seed, uint64_t sector_id, uint64_t sector_index,
                              cuzk_post_sector_proof *out);

/* The n sectors of partition partition_index, with ids first_sector_id,
 * first_sector_id + 1, ...: what cuzk_post_partition_build takes for that
 * partition. n is 1 for Winning (partition 0 only) and 1..the partition's
 * sectors for Window (EINVAL otherwise). out holds n; on failure nothing
 * is left to free. */
cuzk_err cuzk_gen_post_partition(const cuzk_fc_proof *proof, const uint8_t randomness[32],
                                 uint64_t seed, uint32_t partition_index, uint64_t first_sector_id,
                                 size_t n, cuzk_post_sector_proof *out);

/* A synthetic PoRep sector (src/seal/gen_porep.c says why it satisfies
 * the circuit and why it is not a seal): a committed-capacity sector (zero
 * data, comm_d the empty sector's) of miner_id's sector sector_number,
 * its ticket and interactive seed derived from seed, real labels at the
 * challenged nodes and seed-derived ones at their other parents, sparse
 * tree_c and tree_r_last. */
typedef struct {
    uint64_t registered_proof; /* a RegisteredSealProof with interactive challenges */
    uint64_t seed;
    uint64_t miner_id, sector_number;
} cuzk_gen_porep_params;

/* The sector's C1 output (c1.h; cuzk_c1_to_json writes it as Curio sends
 * it). Costs the challenges' labels and paths only: well under a second
 * for 32 GiB. EINVAL for a number that is not a seal proof, EUNSUPPORTED
 * for non-interactive PoRep and for synthetic PoRep (its challenges depend
 * on comm_r, which these sparse trees derive from the challenged nodes:
 * seal.h seals a synthetic sector). Free with cuzk_c1_free. */
cuzk_err cuzk_gen_porep(const cuzk_gen_porep_params *p, cuzk_c1 **out);

/* A synthetic SnapDeals update of a sector size (src/seal/gen_snap.c says
 * why it verifies and what it is not): a constant sector key (one
 * seed-derived value), constant new data, a seed-derived comm_c; the
 * commitments and every partition's PartitionProof, each checked with
 * cuzk_snap_verify before it is returned. Costs a few thousand hashes at
 * any size. EINVAL for a size with no SnapDeals proof. Free *out with
 * cuzk_snap_update_free. */
struct cuzk_snap_update;
cuzk_err cuzk_gen_snap(uint64_t sector_size, uint64_t seed, struct cuzk_snap_update *out);

/* Filecoin's prover id of a miner actor id: the unsigned LEB128 varint of
 * the id (the payload of its ID address), zero padded to 32 bytes (1000 ->
 * e8 07 00 ...). */
void cuzk_gen_prover_id(uint64_t miner_id, uint8_t out[32]);

#endif
