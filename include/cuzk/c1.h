/* Curio's C1 output (SealCommitPhase1Output): a sealed sector's interactive
 * PoRep vanilla proofs as JSON, generated from a CPU seal (seal.h) and
 * decoded into the StackedDrg circuit's values (porep_circuit.h)
 * (src/seal/c1.c).
 *
 * The JSON is serde_json's compact form of rust-filecoin-proofs-api
 * seal.rs SealCommitPhase1Output, as filecoin-ffi seal_commit_phase1
 * writes it, fields in declaration order:
 *   {"registered_proof": "StackedDrg2KiBV1_1",   (Rust enum name)
 *    "vanilla_proofs": {"StackedDrg2KiBV1": [[Proof x challenges] x partitions]},
 *    "comm_r": D, "comm_d": D, "replica_id": D, "seed": D, "ticket": D}
 * where D is 32 bytes as an array of 32 integers. The VanillaSealProof
 * variant names the sector size only ("StackedDrg<size>V1" for every
 * registered proof of that size: V1, V1_1, synthetic and NI alike).
 * Proof (storage-proofs-porep stacked/vanilla/params.rs):
 *   {"comm_d_proofs": M, "comm_r_last_proof": M,
 *    "replica_column_proofs": {"c_x": C, "drg_parents": [C x 6],
 *                              "exp_parents": [C x 8]},
 *    "labeling_proofs": [{"parents": [D x 37], "layer_index": l,
 *                         "node": challenge} x layers],
 *    "encoding_proof": {"parents": [D x 37], "layer_index": layers,
 *                       "node": challenge}}
 *   C (column_proof.rs, column.rs): {"column": {"index": node,
 *     "rows": [D x layers], "_h": null}, "inclusion_proof": M}: Column's
 *     PhantomData is not skipped, so it is written as null; those of
 *     LabelingProof, EncodingProof and PathElement are (serde skip).
 *   M (storage-proofs-core merkle/proof.rs): {"data": {"Single": {"root",
 *     "leaf", "path"}}} or {"Sub": {"base_proof", "sub_proof", "root",
 *     "leaf"}} or {"Top": {"base_proof", "sub_proof", "top_proof", "root",
 *     "leaf"}}, each path {"path": [{"hashes": [D x arity-1], "index": i}
 *     per level from the leaf up]}.
 * Labeling proof l carries the 37 parent labels hashed for the challenge's
 * label in layer l (proof.rs prove_layers_generate: layer 1 its 6 DRG
 * parents' labels repeated, later layers the 6 DRG parents in layer l and
 * the 8 expander parents in layer l-1, repeated to 37); the encoding proof
 * is the last layer's labeling proof again. comm_d_proofs opens tree_d
 * (SHA-256, arity 2) at the challenge; comm_r_last_proof tree_r_last;
 * the columns tree_c, each leaf the Poseidon hash of its column. */
#ifndef CUZK_C1_H
#define CUZK_C1_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/filecoin.h"
#include "cuzk/porep.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/seal.h"

/* rust-filecoin-proofs-api's RegisteredSealProof name of a seal number
 * ("StackedDrg2KiBV1_1", "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep":
 * not always Go's name); NULL for an unknown number. */
const char *cuzk_c1_proof_name(uint64_t number);

/* A C1 output held in memory: what the circuit needs per challenge plus
 * each challenge's own column (the rest of the JSON is derived from these
 * and checked against them when decoding). Owned by the library; free with
 * cuzk_c1_free. */
typedef struct cuzk_c1 {
    uint64_t registered_proof;
    cuzk_porep_config config; /* partitions, challenges, porep_id, api used */
    cuzk_porep_shape shape;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    cuzk_fr comm_c, comm_r_last;
    /* partitions x challenges, partition after partition; the pointers
     * inside lead into the owned storage below. */
    cuzk_porep_challenge_values *values;
    cuzk_fr *labels; /* per challenge its layers labels, layer 1 first */
    cuzk_fr *pool_;
} cuzk_c1;

/* The vanilla proofs of every partition of a sealed sector: its
 * interactive challenges (porep.h) and their openings of tree_d, tree_c
 * and tree_r_last. p and r are the seal's parameters and result (p's
 * porep_id and api are used as they are, so a sector sealed with another
 * porep_id than the registry's proves with it), data the padded sector and
 * labels every layer as cuzk_seal kept them. `registered_proof` (a seal
 * number with interactive challenges, of p's sector size) gives partitions
 * and challenges. Every path rebuilds its tree, so this is for test
 * sectors. EINVAL naming the problem; EUNSUPPORTED for synthetic and
 * non-interactive PoRep. */
cuzk_err cuzk_c1_generate(uint64_t registered_proof, const cuzk_seal_params *p,
                          const cuzk_seal_result *r, const uint8_t *data, const uint8_t *labels,
                          const uint8_t seed[32], cuzk_c1 **out);

/* The JSON (compact, as serde_json::to_vec writes it), NUL-terminated,
 * malloc'ed into *json (free with free()), its length in *len. */
cuzk_err cuzk_c1_to_json(const cuzk_c1 *c, char **json, size_t *len);

/* What decoding checks besides the JSON itself. */
typedef struct {
    /* When non-NULL, replica_id must be the one of this prover and sector
     * (with comm_d, ticket and the porep_id below). */
    const uint8_t *prover_id;
    uint64_t sector_id;
    /* NULL: the registered proof's porep_id; else this one. */
    const uint8_t *porep_id;
    /* 0: the registered proof's API version; else this one. */
    cuzk_fc_api api;
    /* Non-zero: check the JSON's structure only (counts, types, canonical
     * elements), none of the EVERIFY checks below; the challenges are the
     * nodes the proofs open. For letting the circuit find what is wrong. */
    int no_value_checks;
} cuzk_c1_expect;

/* Decode and check a C1 JSON (len bytes, need not be NUL-terminated).
 * EFORMAT naming the JSON path (vanilla_proofs.StackedDrg2KiBV1[0][1].
 * labeling_proofs[1].parents[3], say) for anything malformed: not JSON, a
 * missing or extra field, a wrong type, a registered proof that is unknown
 * or has no interactive challenges, a variant of another sector size, a
 * partition, challenge, path, hash, column or parent count that is not
 * the registered proof's, a byte over 255, a domain that is not a
 * canonical field element. EVERIFY naming the path for values that do not
 * hold together: a proof of another node than the challenge derived from
 * replica_id and seed, a column of another node than the graph's parent,
 * a path that does not hash to its root, roots that differ from comm_d,
 * from each other or whose Poseidon hash is not comm_r, a leaf that is not
 * its column's hash, a label or parent list that is not the one the
 * columns give, an encoding that is not label + data, a replica_id not
 * the expected one. x may be NULL (no replica_id check, the registry's
 * porep_id and API). */
cuzk_err cuzk_c1_from_json(const char *json, size_t len, const cuzk_c1_expect *x, cuzk_c1 **out);

/* Partition k's circuit values (pointing into c). EINVAL for k beyond the
 * partitions. */
cuzk_err cuzk_c1_partition(const cuzk_c1 *c, unsigned k, cuzk_porep_values *out);

void cuzk_c1_free(cuzk_c1 *c);

#endif
