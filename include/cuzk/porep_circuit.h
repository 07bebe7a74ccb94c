/* The PoRep (StackedDrg) partition circuit as rust-fil-proofs'
 * storage-proofs-porep stacked/circuit (proof.rs, params.rs, column.rs,
 * create_label.rs, hash.rs) synthesizes it, bit-exact (src/circuits/porep.c).
 *
 * Top: replica_id allocated and inputized, its to_bits_le with bits
 * reversed within each byte (255 bits padded to 256); comm_d and comm_r
 * allocated and inputized; comm_r_last and comm_c allocated;
 * comm_r * 1 = Poseidon-2(comm_c, comm_r_last) (Merkle-tree constants).
 *
 * Per challenge, in order:
 *  1. data_leaf allocated; its inclusion in comm_d (binary SHA-256 tree of
 *     log2(nodes) levels, leaf and root as variables, root private).
 *  2. 6 DRG parents then 8 expander parents: the column (`layers` numbers)
 *     allocated, its Poseidon-`layers` hash (Merkle-tree constants), its
 *     inclusion in comm_c (tree_c, the shape of tree_r_last).
 *  3. The challenge as 64 allocated bits, packed into one public input.
 *  4. Layer l = 1..layers: the bits (to_bits_le, reversed within bytes) of
 *     each DRG parent's row l-1 and, for l > 1, each expander parent's row
 *     l-2; the 37 parents of the label (layer 1: the 6 repeated 6 times then
 *     the first; l > 1: the 14 twice then the first 9); the label:
 *     SHA-256(replica_id bits || l as u32 BE (constant) || challenge u64 BE
 *     || zeros to 512 bits || 37 x 256 parent bits), output bits reversed
 *     within bytes, the first 254 packed (pack_bits).
 *  5. encoded = label_layers + data_leaf (constraint::add); its inclusion in
 *     comm_r_last at the challenge.
 *  6. Poseidon-`layers` of the in-circuit labels; its inclusion in comm_c at
 *     the challenge.
 *
 * Public inputs: replica_id, comm_d, comm_r, then per challenge its comm_d
 * leaf index, the 14 parents' comm_c leaf indexes, the challenge, its
 * comm_r_last and comm_c leaf indexes (porep.h's order). */
#ifndef CUZK_POREP_CIRCUIT_H
#define CUZK_POREP_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/filecoin.h"
#include "cuzk/fr.h"
#include "cuzk/merkle.h"
#include "cuzk/porep.h"

struct cuzk_pce;

/* The circuit's shape: what a registry entry fixes. */
typedef struct {
    uint64_t nodes;         /* sector_size / 32: comm_d's tree has log2(nodes) levels */
    unsigned layers;        /* 2 or 11 (the column hash arities the circuit knows) */
    unsigned challenges;    /* per partition */
    cuzk_merkle_shape tree; /* tree_r_last and tree_c (Poseidon) */
} cuzk_porep_shape;

/* The shape of a seal registry entry: layers 2 below 32 GiB, 11 at 32 and
 * 64 GiB (filecoin-proofs constants.rs LAYERS); tree_r_last from the
 * entry. Synthetic PoRep and NI-PoRep prove with the same circuit (their
 * challenges differ, not its shape). EINVAL for another family or an entry
 * without a challenge count. */
cuzk_err cuzk_porep_shape_of(const cuzk_fc_proof *p, cuzk_porep_shape *out);

/* One challenge's private values, as a vanilla proof gives them. Arrays are
 * borrowed. */
typedef struct {
    uint64_t challenge;             /* the node, 1 .. nodes-1 */
    cuzk_fr data_leaf;              /* the unsealed node */
    const cuzk_fr *comm_d_siblings; /* log2(nodes) */
    uint32_t parents[CUZK_POREP_DEGREE];
    /* The 14 parents' columns, parent after parent, each `layers` labels
     * (layer 1 first), and their comm_c paths, each
     * cuzk_merkle_sibling_count(tree) long. */
    const cuzk_fr *columns;
    const cuzk_fr *column_siblings;
    const cuzk_fr *comm_r_last_siblings, *comm_c_siblings;
} cuzk_porep_challenge_values;

typedef struct {
    cuzk_fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
    const cuzk_porep_challenge_values *challenges; /* shape.challenges of them */
} cuzk_porep_values;

/* The circuit (any cs mode). v == NULL: the shape alone with zero values
 * and leaf index 0 everywhere (for recording the R1CS: same constraints
 * and variables). EINVAL for an unsupported shape, a node or parent beyond
 * the sector. */
cuzk_err cuzk_porep_synthesize(cuzk_cs *cs, const cuzk_porep_shape *s, const cuzk_porep_values *v);

/* The witness (1, inputs, aux) of the circuit over v, as a witness-mode
 * cuzk_porep_synthesize gives it, malloc'ed into *w (free with free()),
 * *n variables: the challenges synthesized in parallel on the thread pool
 * (threads.h), each with a copy of the top. EINVAL naming the challenge
 * as cuzk_porep_synthesize does; ENOMEM. Memory: twice the witness at
 * its peak (each challenge's system, then the assignment). */
cuzk_err cuzk_porep_witness(const cuzk_porep_shape *s, const cuzk_porep_values *v, cuzk_fr **w,
                            size_t *n);
/* The same, written into offer's buffer when it holds the witness (then
 * *w is that buffer; r1cs.h cuzk_witness_buffer). */
cuzk_err cuzk_porep_witness_into(const cuzk_porep_shape *s, const cuzk_porep_values *v,
                                 const cuzk_wbuf *offer, cuzk_fr **w, size_t *n);

/* create_label_circuit alone: replica_id (256 bits), 37 parents of 256 bits
 * each (parents[37 * 256]), the layer (a constant) and the node (64 bits,
 * least significant first; constants or allocated). Reference checkpoint
 * (create_label.rs test_create_label, all 9,728 input bits allocated, node
 * constant): 532,025 constraints including the 9,728 booleanity ones. */
cuzk_err cuzk_porep_label_gadget(cuzk_cs *cs, const cuzk_bool replica_id[256],
                                 const cuzk_bool *parents, uint32_t layer, const cuzk_bool node[64],
                                 cuzk_num *out);

/* The size of an R1CS as the prover sees it (bellperson's counts):
 * constraints include the input constraints; densities count the columns
 * with a non-zero in A (B), split at the inputs (ONE among them). */
typedef struct cuzk_r1cs_counts {
    uint32_t inputs; /* counts ONE */
    uint64_t aux, constraints;
    uint64_t nnz_a, nnz_b, nnz_c;
    uint64_t a_input_density, a_aux_density, b_input_density, b_aux_density;
} cuzk_r1cs_counts;

/* The counts of a shape's partition circuit without recording all of it:
 * the top recorded alone and with one challenge; every challenge has the
 * same constraints over its own variables plus the top's, so each count is
 * top + challenges x (one challenge's share), and the density of the top's
 * columns is the one seen with one challenge. Exact (tests compare it with
 * full recordings of small shapes). Memory and time: those of recording
 * one challenge (7.2 M constraints at 32 GiB, about 60 bytes each). */
cuzk_err cuzk_porep_counts(const cuzk_porep_shape *s, cuzk_r1cs_counts *out);

/* The whole partition circuit's constraint system (record mode over the
 * blank shape) compiled to a PCE (*out owned by the caller): the top and
 * one challenge recorded, the other challenges tiled (pce.h
 * cuzk_pce_tile_prefix), the image recording all of them would give.
 * Memory: the PCE's (25.7 GiB at 32 GiB) plus one challenge's recording. */
cuzk_err cuzk_porep_record_pce(const cuzk_porep_shape *s, struct cuzk_pce **out);

/* The counts of a compiled system. */
void cuzk_pce_counts(const struct cuzk_pce *p, cuzk_r1cs_counts *out);

#endif
