/* FallbackPoSt (WinningPoSt and WindowPoSt) as rust-fil-proofs proves it:
 * challenges, public inputs and the partition a request asks for
 * (src/filecoin/post.c), and the circuit (src/circuits/post.c).
 *
 * Challenges (storage-proofs-post fallback/utils.rs, vanilla.rs): the leaf
 * challenged by challenge index c of sector s is
 *   LE_u64(SHA256(randomness[32] || s as u64 LE || c as u64 LE)[0..8])
 *     mod (sector_size / 32),
 * with c = sector_index * challenges + n under API 1.0.0/1.1.0 and c = n
 * under 1.2.0 (sector_index: the sector's position in the whole request).
 *
 * Public inputs of a partition: per circuit sector, comm_r then one leaf
 * index per challenge; a short partition repeats its last sector's inputs
 * (and witness). WinningPoSt's circuit sees 66 sectors of one challenge:
 * the one sector, with challenge index i for circuit sector i. */
#ifndef CUZK_POST_H
#define CUZK_POST_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/filecoin.h"
#include "cuzk/fr.h"
#include "cuzk/merkle.h"
#include "cuzk/progress.h"
#include "cuzk/vanilla.h"

/* The leaf a challenge names (above). */
uint64_t cuzk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t sector_size);
/* A request's randomness as a field element: EINVAL "randomness is not a
 * canonical field element (byte 31 is 0x..; Curio clears its top two
 * bits)" when its 32 little-endian bytes are r or more. */
cuzk_err cuzk_post_randomness_check(const uint8_t randomness[32]);
/* The challenge index of challenge n of the sector at sector_index. */
uint64_t cuzk_post_challenge_index(cuzk_fc_api api, uint64_t sector_index, unsigned challenges,
                                   unsigned n);

/* tree_r_last's shape for a registry entry. */
void cuzk_post_tree_shape(const cuzk_fc_proof *p, cuzk_merkle_shape *out);

/* One circuit sector of a partition, as the circuit consumes it: its id
 * and comm_r, comm_c and comm_r_last, and per challenge the expected leaf
 * index and the inclusion proof (borrowed from the decoded vanilla
 * proofs). */
typedef struct {
    uint64_t sector_id;
    cuzk_fr comm_r, comm_c, comm_r_last;
    const cuzk_vanilla_merkle *const *proofs; /* `challenges` of them */
    const uint64_t *leaves;                   /* the challenged leaf of each */
} cuzk_post_sector;

/* A partition's circuit input, built from a request: the registry entry,
 * sector_count circuit sectors (short partitions padded). Owns its arrays;
 * borrows the decoded vanilla proofs, which must outlive it. */
typedef struct {
    const cuzk_fc_proof *proof;
    cuzk_post_sector *sectors;
    size_t n_sectors; /* = proof->sectors */
    const cuzk_vanilla_merkle **proof_ptrs;
    uint64_t *leaves;
} cuzk_post_partition;

/* Build the partition a request asks for from its decoded vanilla proofs
 * (one FallbackPoStSectorProof per sector, as Curio sends them), its
 * randomness (32 bytes, a canonical field element) and, for WindowPoSt, the
 * partition index. Checks everything the circuit will rely on, each failure
 * EINVAL/EFORMAT naming the sector (its position and id) and what is wrong:
 * the number of sectors (1 for Winning; 1..sectors for Window), each
 * sector's SectorProofs and inclusion-proof counts, every path's shape
 * against the sector size's tree, each proof's leaf index against its
 * derived challenge, each proof's root against comm_r_last, and comm_r
 * against Poseidon(comm_c, comm_r_last). */
cuzk_err cuzk_post_partition_build(const cuzk_fc_proof *proof, const uint8_t randomness[32],
                                   uint32_t partition_index, const cuzk_post_sector_proof *vanilla,
                                   size_t n_vanilla, cuzk_post_partition *out);
/* The same checks but one: the inclusion proofs are not hashed to their
 * roots (hundreds of thousands of Poseidon hashes for a 32 GiB WindowPoSt
 * partition), for a prover whose next step is cuzk_post_witness, which
 * hashes every path anyway and names a path that misses its root as this
 * check would. */
cuzk_err cuzk_post_partition_build_unhashed(const cuzk_fc_proof *proof,
                                            const uint8_t randomness[32], uint32_t partition_index,
                                            const cuzk_post_sector_proof *vanilla, size_t n_vanilla,
                                            cuzk_post_partition *out);
void cuzk_post_partition_free(cuzk_post_partition *p);

/* The partition's public inputs (excluding ONE): n_sectors * (1 +
 * challenges) elements into out (caller-sized). */
void cuzk_post_public_inputs(const cuzk_post_partition *p, cuzk_fr *out);
size_t cuzk_post_public_input_count(const cuzk_fc_proof *p);

/* The FallbackPoSt circuit over the partition (any cs mode). With p ==
 * NULL in record mode: the circuit's shape with placeholder values (for
 * the PCE and setup), same constraints and variables. */
cuzk_err cuzk_post_synthesize(cuzk_cs *cs, const cuzk_fc_proof *proof,
                              const cuzk_post_partition *p);

/* The circuit's constraint system (record mode over the blank shape),
 * compiled to a PCE (*out owned by the caller). progress (may be NULL)
 * counts sectors recorded; a non-zero return stops with ECANCELLED. Memory:
 * the builder's (about 60 bytes per constraint) while it runs. */
struct cuzk_pce;
cuzk_err cuzk_post_record_pce(const cuzk_fc_proof *fp, cuzk_progress_fn progress, void *ctx,
                              struct cuzk_pce **out);

/* The partition's full assignment w = (1, inputs, aux) as witness-only
 * synthesis makes it, input constraints included, the sectors spread over
 * the thread pool. *w malloc'd (caller frees), *n its length. A path that
 * does not hash to its sector's comm_r_last is EINVAL with the message of
 * cuzk_post_partition_build ("vanilla_proofs[i] (sector S): inclusion proof
 * k does not hash to its root ..."; the first such path in sector order). */
cuzk_err cuzk_post_witness(const cuzk_post_partition *p, cuzk_fr **w, size_t *n);
/* The same, written into offer's buffer when it holds the witness (then
 * *w is that buffer; r1cs.h cuzk_witness_buffer). */
cuzk_err cuzk_post_witness_into(const cuzk_post_partition *p, const cuzk_wbuf *offer, cuzk_fr **w,
                                size_t *n);

#endif
