/* What the C1 generators share inside src/seal: c1.c (from a sealed
 * sector) and gen_porep.c (sparse, 32 GiB-shaped). Not installed. */
#ifndef CUZK_SEAL_C1_PRIV_H
#define CUZK_SEAL_C1_PRIV_H
#include "cuzk/c1.h"

#define CUZK_C1_HASHED_PARENTS 37

/* Per-challenge storage in cuzk_fr, as c1.c lays it out in pool_: the
 * comm_d path (nd), the 14 parents' columns (layers each), their 14
 * comm_c paths (ns each), the comm_r_last path, the challenge's own comm_c
 * path; per elements in all. */
typedef struct {
    size_t nd, ns, layers, per;
} cuzk_c1_layout;

cuzk_c1_layout cuzk_c1_layout_of(const cuzk_c1 *c);

/* A C1 of registered proof `registered_proof` with its storage for every
 * partition's challenges allocated (zeroed) and the values' pointers set;
 * porep_id / api (when non-NULL / non-zero) replace the registry's. */
cuzk_err cuzk_c1_new(uint64_t registered_proof, const uint8_t *porep_id, cuzk_fc_api api,
                     cuzk_c1 **out);

/* The writable storage of challenge idx (partition-major). */
cuzk_fr *cuzk_c1_storage(cuzk_c1 *c, size_t idx);

/* The label of node in layer (1-based) from the 37 parent labels it hashes
 * (labeling_proof.rs create_label: SHA-256, byte 31 masked). */
cuzk_err cuzk_c1_label(const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                       const cuzk_fr parents[CUZK_C1_HASHED_PARENTS], cuzk_fr *out);

/* The Poseidon hash of a column of `layers` labels (tree_c's leaf). */
cuzk_err cuzk_c1_column_hash(const cuzk_fr *rows, size_t layers, cuzk_fr *out);

#endif
