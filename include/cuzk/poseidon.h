/* Poseidon over BLS12-381 Fr as neptune (v11) defines it for Filecoin: the
 * native hash and the "legacy" circuit (neptune src/circuit.rs
 * poseidon_hash, the one rust-fil-proofs uses), bit-exact.
 *
 * Parameters (neptune Strength::Standard): width w = arity + 1, x^5 S-box,
 * RF = 8 full rounds, RP from neptune's round-number search (w 3 -> 55,
 * 5 -> 56, 9 -> 57, 12 -> 57, 37 -> 60). Round constants come from the Grain
 * LFSR procedure of the Poseidon paper, computed at first use, never from a
 * table; the MDS matrix is the Cauchy matrix 1 / (i + (w + j)); the
 * optimized form (compressed round constants, pre-sparse and sparse
 * matrices) is derived as neptune derives it, because the circuit's
 * coefficients are exactly those matrices and constants.
 *
 * Domain tags (the constant first state element): Merkle tree 2^arity - 1;
 * constant length n -> n * 2^64 (inputs after the n-th are zero); custom
 * id (1..256) -> id * 2^40.
 *
 * Circuit cost (constraints = aux): 3(w*RF + RP - 1) + (w*RF + RP - arity):
 * arity 2 -> 311, 4 -> 377, 8 -> 505, 11 -> 598, 36 -> 1385.
 *
 * A cuzk_poseidon is immutable after creation and may be shared by threads. */
#ifndef CUZK_POSEIDON_H
#define CUZK_POSEIDON_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/gadgets.h"

#define CUZK_POSEIDON_MAX_ARITY 36

typedef enum {
    CUZK_POSEIDON_MERKLE = 0,
    CUZK_POSEIDON_CONSTANT_LENGTH = 1,
    CUZK_POSEIDON_CUSTOM = 2,
} cuzk_poseidon_type;

typedef struct cuzk_poseidon cuzk_poseidon;

/* neptune's round numbers (Standard strength) for a width t = arity + 1. */
cuzk_err cuzk_poseidon_round_numbers(unsigned arity, unsigned *rf, unsigned *rp);

/* The (rf + rp) * width Grain LFSR round constants into out (caller-sized). */
void cuzk_poseidon_grain_constants(unsigned width, unsigned rf, unsigned rp, cuzk_fr *out);

/* New constants for arity 1..36. param: the length (1..arity) for
 * CONSTANT_LENGTH, the id (1..256) for CUSTOM, ignored for MERKLE. EINVAL for
 * anything else. Costs a few ms (matrix inversions). */
cuzk_err cuzk_poseidon_new(cuzk_poseidon **out, unsigned arity, cuzk_poseidon_type type,
                           uint64_t param);
void cuzk_poseidon_free(cuzk_poseidon *p);
/* Shared Merkle-tree constants of an arity, built once per process
 * (thread-safe); never freed. */
cuzk_err cuzk_poseidon_merkle(unsigned arity, const cuzk_poseidon **out);

/* SnapDeals' "gen randomness" constants (storage-proofs-update
 * POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2, custom id 1), built once per
 * process; never freed. */
cuzk_err cuzk_poseidon_gen_randomness(const cuzk_poseidon **out);

unsigned cuzk_poseidon_arity(const cuzk_poseidon *p);
const cuzk_fr *cuzk_poseidon_domain_tag(const cuzk_poseidon *p);
/* Number of inputs a hash takes: arity (Merkle, custom) or the length. */
unsigned cuzk_poseidon_input_count(const cuzk_poseidon *p);
void cuzk_poseidon_rounds(const cuzk_poseidon *p, unsigned *rf, unsigned *rp);
/* The first Grain round constant (for checks against published tables). */
const cuzk_fr *cuzk_poseidon_round_constant(const cuzk_poseidon *p, size_t i);

/* Hash n = input_count elements (EINVAL otherwise), neptune's optimized
 * static path. Thread-safe. */
cuzk_err cuzk_poseidon_hash(const cuzk_poseidon *p, const cuzk_fr *in, size_t n, cuzk_fr *out);
/* The textbook permutation (add round constants, S-boxes, multiply by M)
 * with the uncompressed constants: neptune's HashMode::Correct, used to
 * cross-check the optimized path. */
cuzk_err cuzk_poseidon_hash_plain(const cuzk_poseidon *p, const cuzk_fr *in, size_t n,
                                  cuzk_fr *out);
/* count hashes of input_count consecutive elements each, multi-threaded on
 * the pool (threads.h). */
cuzk_err cuzk_poseidon_hash_many(const cuzk_poseidon *p, const cuzk_fr *in, size_t count,
                                 cuzk_fr *out);

/* neptune::circuit::poseidon_hash over input_count allocated numbers.
 * Constant-length constants must have length == arity (the legacy circuit
 * does no padding; EINVAL otherwise). */
cuzk_err cuzk_poseidon_gadget(cuzk_cs *cs, const cuzk_poseidon *p, const cuzk_num *in, size_t n,
                              cuzk_num *out);

#endif
