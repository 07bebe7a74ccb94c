/* SnapDeals (EmptySectorUpdate, RegisteredUpdateProof V1): the public side
 * as rust-fil-proofs' storage-proofs-update defines it (src/filecoin/snap.c).
 * Nothing here is a constraint.
 *
 * A committed-capacity sector's replica (the "sector key") takes new data:
 * replica_new[v] = sector_key[v] + data[v] * rho(v >> (node_bits - h)),
 * where phi = Poseidon(comm_d_new, comm_r_old) and rho(high) =
 * Poseidon(phi, high), both of arity 2 with the "gen randomness" domain
 * tag (neptune's custom type, id 1: 2^40) (vanilla.rs phi, rho). comm_d_new
 * is the SHA-256 tree_d over the new data; tree_r_last_new is the replica's
 * Poseidon tree (the registry's shape); comm_r_new = Poseidon-2 (Merkle
 * constants) of (comm_c, root of tree_r_last_new), comm_c being the
 * sector's, unchanged.
 *
 * Sizes (constants.rs): partitions 1 up to 8 KiB, 2 up to 32 KiB, 4 up to
 * 16 MiB, else 16; challenges per partition 10 up to 16 MiB, else 86; h
 * (the high bits of a node index that select rho) from hs = [1 x 6] up to
 * 32 KiB, else [7 .. 12], Filecoin using hs[3] (h = 10 for 32 GiB); apex
 * leaves per partition 8 up to 8 KiB, else 128.
 *
 * Challenges of partition k (challenges.rs): random bits per challenge r =
 * node_bits - partition_bits, per digest floor(254 / r) of them; digest j
 * (counted over all partitions: partition k starts at k * ceil(challenges
 * / per digest)) is Poseidon(comm_r_new, j) with the gen-randomness tag;
 * challenge i of a digest is its little-endian bits [i*r, (i+1)*r) with k
 * above them (so every challenge of partition k lies in its k-th slice of
 * the sector).
 *
 * TreeD's apex: partition k's apex leaves are the tree_d nodes at height
 * node_bits - partition_bits - apex_bits, k * apex_leaves .. + apex_leaves
 * - 1; the circuit hashes them up to the partition's root (apex tree) and
 * checks each challenge's tree_d path against that tree. */
#ifndef CUZK_SNAP_H
#define CUZK_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/merkle.h"
#include "cuzk/vanilla.h"

#define CUZK_SNAP_MAX_CHALLENGES 86

typedef struct {
    uint64_t sector_size, nodes;
    unsigned node_bits, partitions, partition_bits, challenges, h;
    unsigned apex_leaves, apex_bits;
    cuzk_merkle_shape tree_r; /* tree_r_last's shape (Poseidon) */
} cuzk_snap_config;

/* The configuration of a sector size of the registry (2 KiB, 8 MiB, 512
 * MiB, 32 GiB, 64 GiB); h is Filecoin's, hs[3]. EINVAL otherwise. */
cuzk_err cuzk_snap_config_of(uint64_t sector_size, cuzk_snap_config *out);

/* phi = Poseidon_gen(comm_d_new, comm_r_old); rho = Poseidon_gen(phi, high). */
cuzk_err cuzk_snap_phi(const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old, cuzk_fr *phi);
cuzk_err cuzk_snap_rho(const cuzk_fr *phi, uint32_t high, cuzk_fr *rho);

/* The challenges of partition k (c->challenges of them) into out. EINVAL
 * for k beyond the partitions. */
cuzk_err cuzk_snap_challenges(const cuzk_snap_config *c, const cuzk_fr *comm_r_new, unsigned k,
                              uint32_t *out);

/* comm_r = Poseidon-2 (Merkle constants) of (comm_c, root). */
cuzk_err cuzk_snap_comm_r(const cuzk_fr *comm_c, const cuzk_fr *root, cuzk_fr *comm_r);

/* What rust-fil-proofs' vanilla verify checks of partition k's proof, with
 * the shapes checked first: apex leaf and challenge counts; comm_r_old and
 * comm_r_new = Poseidon-2(comm_c, the first challenge's tree_r roots); per
 * challenge each path's shape and position (the challenge), its root
 * (root_r_old, comm_d_new, root_r_new) and its hashes; leaf_r_new =
 * leaf_r_old + leaf_d_new * rho(c >> (node_bits - h)); each tree_d sibling
 * from the apex leaves up in the apex tree of the partition's leaves. EINVAL
 * naming the field for a malformed proof (counts, shapes), EVERIFY naming
 * the challenge and what does not hold. */
cuzk_err cuzk_snap_verify(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                          const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                          const cuzk_snap_partition_proof *p);

/* ---- the circuit (src/circuits/snap_circuit.c) ----
 *
 * EmptySectorUpdateCircuit (circuit.rs), SHA-256 TreeD: public inputs
 * [ONE, k_and_h_select, comm_r_old, comm_d_new, comm_r_new] with
 * k_and_h_select = k | (1 << index of h in hs) << partition_bits. In order:
 * k_and_h_select (input) split into partition_bits + 6 bits; partition =
 * pack_bits(its bits); comm_r_old, comm_d_new, comm_r_new (inputs); phi;
 * comm_c, root_r_old, root_r_new, the apex leaves and the partition path
 * (challenge 0's top tree_d siblings); comm_r_old/new = Poseidon-2(comm_c,
 * root); the apex tree (SHA-256) and its root up the partition path to
 * comm_d_new; then per digest its index, Poseidon_gen(comm_r_new, index)
 * and its 255 bits, and per challenge (its bits: the digest's slice, then
 * the partition bits): the selected high bits, rho, leaf_r_old,
 * leaf_d_new, leaf_r_new = leaf_r_old + leaf_d_new * rho, the tree_r old
 * and new paths (siblings allocated first), the apex leaf selected by its
 * bits, and the tree_d path up to it. Counts (storage-proofs-update
 * tests/circuit.rs): 2 KiB 1,705,039 constraints, 32 GiB 81,049,499. */
typedef struct {
    cuzk_fr leaf_r_old, leaf_d_new;
    const cuzk_fr *path_r_old, *path_d_new, *path_r_new; /* siblings, leaf up */
} cuzk_snap_challenge_values;

typedef struct {
    unsigned k;
    cuzk_fr comm_r_old, comm_d_new, comm_r_new, comm_c, root_r_old, root_r_new;
    const cuzk_fr *apex_leafs, *partition_path;
    cuzk_snap_challenge_values *challenges; /* owned: cuzk_snap_values_free */
} cuzk_snap_values;

struct cuzk_cs;
/* The partition circuit over v (NULL: the blank circuit, zero values, for
 * recording). Any cs mode. */
cuzk_err cuzk_snap_synthesize(struct cuzk_cs *cs, const cuzk_snap_config *c,
                              const cuzk_snap_values *v);
/* The witness (1, inputs, aux) of the circuit over v, malloc'ed into *w
 * (free with free()), *n variables: the top once, then the challenges in
 * parallel on the thread pool, each written straight into place. Equal to
 * a witness-mode cuzk_snap_synthesize's assignment. */
cuzk_err cuzk_snap_witness(const cuzk_snap_config *c, const cuzk_snap_values *v, cuzk_fr **w,
                           size_t *n);
/* The same, written into offer's buffer when it holds the witness (then
 * *w is that buffer; r1cs.h cuzk_witness_buffer). */
cuzk_err cuzk_snap_witness_into(const cuzk_snap_config *c, const cuzk_snap_values *v,
                                const cuzk_wbuf *offer, cuzk_fr **w, size_t *n);
/* Partition k's circuit values from its proof (pointing into p) and the
 * request's commitments. EINVAL for counts that are not the size's. */
cuzk_err cuzk_snap_values_of(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                             const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                             const cuzk_snap_partition_proof *p, cuzk_snap_values *out);
void cuzk_snap_values_free(cuzk_snap_values *v);
/* The blank circuit's figures (porep_circuit.h cuzk_r1cs_counts, input
 * constraints included) without recording all of it: recordings with 1, 2
 * and (challenges per digest + 1) challenges, each count being the top's,
 * plus one digest's per ceil(challenges / per digest), plus one challenge's
 * per challenge. Exact (tests compare it with a whole recording at 2 KiB).
 * At 32 GiB about 15 M constraints are recorded. */
struct cuzk_r1cs_counts;
cuzk_err cuzk_snap_counts(const cuzk_snap_config *c, struct cuzk_r1cs_counts *out);
/* The 4 public inputs after ONE. */
cuzk_err cuzk_snap_public_inputs(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                                 const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                                 cuzk_fr out[4]);

/* An update's public values and every partition's vanilla proof (what a
 * SNAP_DEALS_UPDATE request carries). Owns its partitions; free with
 * cuzk_snap_update_free. */
typedef struct cuzk_snap_update {
    cuzk_snap_config config;
    cuzk_fr comm_c, comm_r_old, comm_d_new, comm_r_new;
    cuzk_snap_partition_proof *partitions; /* config.partitions of them */
} cuzk_snap_update;

void cuzk_snap_update_free(cuzk_snap_update *u);

#endif
