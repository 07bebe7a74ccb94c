/* The builder's private layout, shared by builder.c (which fills it) and
 * pce.c (which compiles it). Nothing outside src/r1cs includes this.
 *
 * Terms store the variable handle (cuzk_var), not the global column: the
 * column of an aux variable depends on the final input count, which is only
 * known at finalize. Handles sort like columns (inputs below the aux bit), so
 * rows sorted by handle are sorted by column. */
#ifndef CUZK_R1CS_INTERNAL_H
#define CUZK_R1CS_INTERNAL_H

#include "cuzk/r1cs.h"

typedef struct {
    uint64_t *row_ptr; /* n_constraints + 1 entries, capacity rows_cap + 1 */
    uint32_t *var;     /* nnz handles */
    uint32_t *coef;    /* nnz coefficient ids */
    uint64_t nnz, cap;
} r1cs_matrix;

struct cuzk_r1cs {
    int with_values, finalized;
    uint32_t n_inputs;
    uint64_t n_aux, n_constraints, rows_cap;
    r1cs_matrix m[3]; /* A, B, C */

    /* Coefficient table: values in id order plus an open-addressing index
     * (slot = id + 1, 0 = empty) kept at most half full. */
    cuzk_fr *coeffs;
    uint32_t n_coeffs, coeffs_cap;
    uint32_t *slots;
    uint64_t slots_mask;

    /* Values: [gap unused][inputs][aux] so inputs allocated after aux only
     * shift the (few) inputs, never the aux; the assignment is vals + gap. */
    cuzk_fr *vals;
    uint64_t vals_cap, gap;

    /* Scratch for canonicalizing one linear combination. */
    cuzk_term *scratch;
    size_t scratch_cap;
};

/* Global column of a handle, given the final input count. */
static inline uint32_t r1cs_var_column(uint32_t var, uint32_t n_inputs)
{
    return (var & CUZK_VAR_AUX_BIT) ? n_inputs + (var & ~CUZK_VAR_AUX_BIT) : var;
}

#endif
