/* The public side of Filecoin's PoRep (StackedDrg) circuit as rust-fil-proofs
 * builds it: replica id, interactive and synthetic challenges, the stacked graph's parents
 * and a partition's public inputs (src/filecoin/porep_inputs.c). Nothing
 * here is a constraint; the hashes are libcrypto's.
 *
 * replica_id (storage-proofs-porep stacked/vanilla/params.rs
 * generate_replica_id): SHA-256(prover_id[32] || sector_id u64 BIG-endian ||
 * ticket[32] || comm_d[32] || porep_id[32]) with the top two bits of byte
 * 31 cleared, read as a little-endian field element.
 *
 * Interactive challenge i of partition k (stacked/vanilla/challenges.rs):
 * j = challenges * k + i as u32; the little-endian integer of
 * SHA-256(replica_id || seed[32] || j u32 LE), mod (nodes - 1), plus 1 (node
 * 0 is never challenged). The same under every API version.
 *
 * Synthetic PoRep (registered proofs 10-14, the same circuit): the seed
 * selects each partition's challenges from a synthetic set of min(nodes,
 * 2^18) challenges fixed by (replica_id, comm_r) (cuzk_porep_synth_*;
 * porep_inputs.c says how).
 *
 * The graph (storage-proofs-core drgraph.rs, crypto/feistel.rs;
 * storage-proofs-porep stacked/vanilla/graph.rs): 6 DRG parents from
 * BucketGraph, seeded by the first 28 bytes of SHA-256("Filecoin_DRSample"
 * || porep_id), then 8 expander parents from a 3-round Feistel permutation
 * of [0, 8 * nodes) keyed by SHA-256("Filecoin_Feistel" || porep_id). API
 * 1.0.0 puts the predecessor last among the DRG parents and truncates the
 * permuted index to 32 bits before dividing by 8; 1.1.0 and 1.2.0 put the
 * predecessor first and keep the full index.
 *
 * porep_id (rust-filecoin-proofs-api registry.rs): the registered proof's
 * id as u64 LE, a nonce (0 for every proof) as u64 LE, then 16 zero bytes. */
#ifndef CUZK_POREP_H
#define CUZK_POREP_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin.h"
#include "cuzk/fr.h"

#define CUZK_POREP_DRG_DEGREE 6
#define CUZK_POREP_EXP_DEGREE 8
#define CUZK_POREP_DEGREE (CUZK_POREP_DRG_DEGREE + CUZK_POREP_EXP_DEGREE)
/* Public inputs per challenge: comm_d leaf, 6 + 8 parents' comm_c leaves,
 * the challenge, its comm_r_last leaf and its comm_c leaf. */
#define CUZK_POREP_INPUTS_PER_CHALLENGE (1 + CUZK_POREP_DEGREE + 3)

/* The porep_id of RegisteredSealProof `number` (above). */
void cuzk_porep_id(uint64_t number, uint8_t out[32]);

void cuzk_porep_replica_id(const uint8_t prover_id[32], uint64_t sector_id,
                           const uint8_t ticket[32], const uint8_t comm_d[32],
                           const uint8_t porep_id[32], uint8_t out[32]);

/* Interactive challenge `index` (= challenges * k + i) of a sector of
 * `nodes` nodes (2 .. 2^32). */
uint32_t cuzk_porep_challenge(const uint8_t replica_id[32], const uint8_t seed[32], uint32_t index,
                              uint64_t nodes);

/* Synthetic PoRep (stacked/vanilla/challenges.rs): synthetic challenge i
 * of (replica_id, comm_r) for a sector of `nodes` nodes (2 .. 2^32), and
 * the index, in a synthetic set of num_synth challenges, that porep
 * challenge j (= challenges * k + i) selects under seed. EINTERNAL when
 * libcrypto's BLAKE2b MAC or ChaCha20 fails; EINVAL for a bad size. */
cuzk_err cuzk_porep_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                    uint64_t nodes, uint64_t i, uint32_t *out);
cuzk_err cuzk_porep_synth_index(const uint8_t replica_id[32], const uint8_t seed[32],
                                uint64_t num_synth, uint64_t j, uint64_t *out);

/* The stacked graph of one sector size and porep_id: what parent
 * generation needs, derived once. Plain data, no allocation. */
typedef struct {
    uint64_t nodes;
    cuzk_fc_api api;
    uint8_t drg_seed[28];
    uint64_t feistel_keys[4]; /* rounds use the first 3 */
    uint64_t left_mask, right_mask;
    unsigned half_bits;
} cuzk_porep_graph;

/* EINVAL unless nodes is in 2 .. 2^31 (64 GiB) and api is a known version. */
cuzk_err cuzk_porep_graph_init(cuzk_porep_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                               cuzk_fc_api api);
/* node's 6 DRG parents then its 8 expander parents, in rust-fil-proofs'
 * order. EINVAL when node is not below g->nodes; ENOMEM or EINTERNAL when
 * libcrypto cannot give a BLAKE2b-512 digest. About 25 µs a node (some 50
 * BLAKE2b digests). */
cuzk_err cuzk_porep_parents(const cuzk_porep_graph *g, uint32_t node,
                            uint32_t out[CUZK_POREP_DEGREE]);

/* A seal's circuit parameters: sector size, partitions, challenges per
 * partition, porep_id, API version and how its challenges are drawn. */
typedef struct {
    uint64_t sector_size;
    unsigned partitions, challenges;
    uint8_t porep_id[32];
    cuzk_fc_api api;
    int synthetic; /* synthetic PoRep (registered proofs 10-14): same circuit,
                      challenges from the synthetic set (cuzk_porep_challenge_of) */
} cuzk_porep_config;

/* The configuration of a registry entry (family CUZK_FC_SEAL). EUNSUPPORTED
 * for non-interactive PoRep (its own challenges and aggregated proofs);
 * EINVAL for other families. */
cuzk_err cuzk_porep_config_of(const cuzk_fc_proof *p, cuzk_porep_config *out);

/* Challenge `index` (= challenges * k + i) of a seal of configuration c:
 * interactive (replica_id and seed) or, for synthetic PoRep, the synthetic
 * challenge of (replica_id, comm_r) that the seed selects from a set of
 * min(nodes, 2^18). Errors as cuzk_porep_synth_challenge. */
cuzk_err cuzk_porep_challenge_of(const cuzk_porep_config *c, const uint8_t replica_id[32],
                                 const uint8_t comm_r[32], const uint8_t seed[32], uint32_t index,
                                 uint32_t *out);

/* What a seal commit states publicly. */
typedef struct {
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32], seed[32];
    uint8_t comm_d[32], comm_r[32]; /* little-endian field elements */
} cuzk_porep_public;

size_t cuzk_porep_public_input_count(const cuzk_porep_config *c);
/* The public inputs (excluding ONE) of partition k, in the circuit's order:
 * replica_id, comm_d, comm_r, then per challenge its comm_d leaf, its 6 DRG
 * and 8 expander parents, the challenge, its comm_r_last leaf and its
 * comm_c leaf (every leaf packed as one element: its index).
 * cuzk_porep_public_input_count(c) elements into out. EINVAL naming the
 * value when comm_d or comm_r is not a canonical field element, when k is
 * not a partition of c, or when the sector size is not a power of two
 * 64 .. 64 GiB. */
cuzk_err cuzk_porep_public_inputs(const cuzk_porep_config *c, const cuzk_porep_public *pub,
                                  unsigned k, cuzk_fr *out);

#endif
