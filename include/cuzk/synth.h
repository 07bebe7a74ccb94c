/* Synthetic circuits for tests, benchmarks and the demo: deterministic from a
 * seed, any size, with the statistics of Filecoin circuits that matter to
 * the prover (mostly 0/1 aux values, B much sparser than A, few distinct
 * coefficients). The gadget mix is described in src/circuits/synthetic.c. */
#ifndef CUZK_SYNTH_H
#define CUZK_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/r1cs.h"

typedef struct {
    /* TOTAL constraints after finalize, including the n_public + 1 input
     * constraints: a 2^k circuit has a 2^k domain. At least
     * cuzk_synth_min_constraints(n_public), at most 2^31. */
    uint64_t n_constraints;
    uint32_t n_public; /* public inputs excluding ONE */
    uint64_t seed;
} cuzk_synth_params;

/* The smallest n_constraints accepted for n_public inputs:
 * max(16, 2 * n_public + 9). */
uint64_t cuzk_synth_min_constraints(uint32_t n_public);

/* Build a finalized circuit of exactly p->n_constraints constraints into a
 * new builder (*out, caller frees with cuzk_r1cs_free). with_values records a
 * satisfying assignment; the structure (and so the PCE) is identical without
 * it. EINVAL for sizes out of range. Single-threaded; memory is the builder's
 * (about 60 bytes per constraint, plus 32 per variable with values). */
cuzk_err cuzk_synth_build(const cuzk_synth_params *p, int with_values, cuzk_r1cs **out);

/* The satisfying assignment w = (1, inputs..., aux...) of the circuit
 * cuzk_synth_build(p, 1, ...) makes, without building its constraints: the
 * same values, in the same order (cuzk_r1cs_assignment's layout). *w is
 * malloc'd (caller frees), *n its length (n_inputs + n_aux); both are
 * NULL / 0 on failure. EINVAL for sizes out of range (as cuzk_synth_build),
 * ENOMEM. Single-threaded; memory is the result only (32 bytes per
 * variable, allocated once), several times faster than building. */
cuzk_err cuzk_synth_witness(const cuzk_synth_params *p, cuzk_fr **w, size_t *n);

#endif
