/* Sealing on the CPU (src/seal/sdr.c): SDR labels, tree_d, tree_c, the
 * encoding, tree_r_last and the commitments comm_d, comm_c, comm_r_last and
 * comm_r, as rust-fil-proofs' StackedDrg (storage-proofs-porep
 * stacked/vanilla) computes them in seal_pre_commit_phase1 and 2.
 *
 * Labels (create_label/single.rs, graph.rs copy_parents_data*): node v of
 * layer l (1-based) is SHA-256 of replica_id[32] || l u32 big-endian || v
 * u64 big-endian || 20 zero bytes || 37 parent labels, the digest's byte 31
 * masked with 0x3f. Node 0 hashes no parents (only the first 64 bytes).
 * Layer 1 takes the 6 DRG parents (from layer 1 itself) six times, then
 * the first again; a later layer takes the 6 DRG parents from itself and
 * the 8 expander parents from the layer before, those 14 twice, then the
 * first 9 of them. Parents are porep.h's cuzk_porep_parents.
 *
 * tree_d: the binary SHA-256 tree (piece.h's node hash) over the sector's
 * data as 32-byte words; its root is comm_d.
 * tree_c: node v's column, the labels of v in layers 1..L, hashed with
 * Poseidon of arity L (Merkle constants: neptune's PoseidonConstants::new,
 * stacked/vanilla/hash.rs), then a Poseidon tree of the sector size's
 * shape (that of tree_r_last); its root is comm_c.
 * Encoding (encode.rs): replica word v = data word v + label of v in layer
 * L, in the field. tree_r_last: the Poseidon tree of the replica; its root
 * is comm_r_last. comm_r = Poseidon arity 2 (Merkle constants) of (comm_c,
 * comm_r_last).
 *
 * Everything is held in memory: the data, the replica and all L layers
 * (L + 2 times the sector size). Labelling is sequential within a layer;
 * each node's parents (about 25 µs of BLAKE2b and Feistel a node) come from
 * all threads, 64 Ki nodes at a time, ahead of it. This is meant for test
 * sectors (2 KiB .. 512 MiB), not 32 GiB. */
#ifndef CUZK_SEAL_H
#define CUZK_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin.h"
#include "cuzk/merkle.h"
#include "cuzk/porep.h"

/* The number of SDR layers of a sector size (filecoin-proofs constants.rs
 * LAYERS): 2 up to 1 GiB, 11 for 32 and 64 GiB. EINVAL for a size not in
 * that table. */
cuzk_err cuzk_seal_layers(uint64_t sector_size, unsigned *layers);

/* The shape of tree_c and tree_r_last of a sector size: Poseidon, base
 * arity 8, the sub and top arities of the registry (filecoin.h). EINVAL for
 * a size no RegisteredSealProof has. */
cuzk_err cuzk_seal_tree_shape(uint64_t sector_size, cuzk_merkle_shape *out);

/* Labels of all `layers` layers (1 .. 16) of g's graph into labels: layer l
 * (1-based) at labels + (l - 1) * g->nodes * 32, node v at + v * 32, each a
 * little-endian field element. ENOMEM/EINTERNAL from parent generation. */
cuzk_err cuzk_sdr_labels(const cuzk_porep_graph *g, const uint8_t replica_id[32], unsigned layers,
                         uint8_t *labels);

/* The root of tree_d over size bytes of sector data (a power of two, 64 ..
 * 2^40): comm_d. EINVAL for a bad size or a word whose top two bits are
 * set (not fr32-padded data). */
cuzk_err cuzk_seal_tree_d(const uint8_t *data, uint64_t size, uint8_t comm_d[32]);

/* What a seal needs besides the data. porep_id and api pick the graph
 * (porep.h); layers 0 means cuzk_seal_layers(sector_size). */
typedef struct {
    uint64_t sector_size;
    unsigned layers;
    uint8_t porep_id[32];
    cuzk_fc_api api;
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
} cuzk_seal_params;

/* What a seal commits to: 32-byte little-endian field elements. */
typedef struct {
    uint8_t replica_id[32];
    uint8_t comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
} cuzk_seal_result;

/* Seal sector_size bytes of fr32-padded sector data (piece.h: every
 * 32-byte word below 2^254) into replica (sector_size bytes, may not
 * overlap data). When labels is non-NULL it receives the layers as
 * cuzk_sdr_labels writes them (layers * sector_size bytes). EINVAL naming
 * the problem for a sector size with no shape or layer count, an unknown
 * api, or data that is not fr32-padded; ENOMEM. */
cuzk_err cuzk_seal(const cuzk_seal_params *p, const uint8_t *data, uint8_t *replica,
                   uint8_t *labels, cuzk_seal_result *out);

/* A SnapDeals update of a sealed sector (snap.h): sector_key is the sealed
 * replica (sector_size bytes of field elements) whose tree_r_last root is
 * comm_r_last_old, data the new padded sector (every word fr32-padded).
 * Writes the new replica (sector_size bytes) and fills *out: comm_c as
 * given, comm_r_old, comm_d_new, comm_r_new and every partition's
 * PartitionProof, each checked with cuzk_snap_verify. Whole trees in
 * memory: for test sectors. EINVAL naming a bad word or size, EVERIFY when
 * the sector key does not hash to comm_r_last_old. Free *out with
 * cuzk_snap_update_free. */
struct cuzk_snap_update;
cuzk_err cuzk_seal_update(uint64_t sector_size, const uint8_t comm_c[32],
                          const uint8_t comm_r_last_old[32], const uint8_t *sector_key,
                          const uint8_t *data, uint8_t *replica, struct cuzk_snap_update *out);
#endif
