/* The layout of Poseidon constants, shared by the constant derivation
 * (poseidon_constants.c), the native hash (poseidon.c) and the circuit
 * (poseidon_gadget.c). Matrices are row-major w x w. */
#ifndef CUZK_POSEIDON_INTERNAL_H
#define CUZK_POSEIDON_INTERNAL_H

#include "cuzk/poseidon.h"

struct cuzk_poseidon {
    unsigned arity, width, rf, rp, n_inputs;
    cuzk_fr tag;
    cuzk_fr *rc;         /* (rf + rp) * w Grain constants */
    cuzk_fr *m;          /* MDS */
    cuzk_fr *pre_sparse; /* used after round rf/2 - 1 */
    cuzk_fr *w_hat;      /* rp x w: column 0 of each sparse matrix */
    cuzk_fr *v_rest;     /* rp x (w - 1): row 0 of each, after [0][0] */
    cuzk_fr *crc;        /* rf * w + rp compressed round constants */
};

#endif
