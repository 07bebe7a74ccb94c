/* Groth16 verification with blst's pairing:
 *   e(A, B) == e(alpha, beta) * e(acc, gamma) * e(C, delta),
 *   acc = ic[0] + sum x_i ic[i+1],
 * checked as one product of Miller loops, e(A,B) e(-acc,gamma) e(-C,delta)
 * e(-alpha,beta), followed by a single final exponentiation. Terms whose G1
 * or G2 point is the identity contribute 1 and are skipped. */
#include "cuzk/groth16.h"
#include "cuzk/curve.h"

#include <string.h>

static void ml_acc(blst_fp12 *acc, int *have, const blst_p1_affine *p, const blst_p2_affine *q,
                   int negate)
{
    if (blst_p1_affine_is_inf(p) || blst_p2_affine_is_inf(q))
        return;
    blst_p1_affine pp = *p;
    if (negate)
        blst_fp_cneg(&pp.y, &pp.y, 1);
    blst_fp12 t;
    blst_miller_loop(&t, q, &pp);
    if (*have)
        blst_fp12_mul(acc, acc, &t);
    else
        *acc = t;
    *have = 1;
}

cuzk_err cuzk_groth16_verify(const cuzk_vk *vk, const cuzk_fr *inputs, size_t n,
                             const cuzk_proof *proof)
{
    if (n + 1 != vk->n_ic)
        return cuzk_fail(CUZK_EINVAL,
                         "verify: %zu public inputs given, the verifying key expects %zu", n,
                         vk->n_ic ? vk->n_ic - 1 : 0);
    blst_p1 acc;
    blst_p1_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n; i++) {
        blst_p1 t;
        blst_p1_from_affine(&t, &vk->ic[i + 1]);
        cuzk_g1_mul(&t, &t, &inputs[i]);
        blst_p1_add_or_double(&acc, &acc, &t);
    }
    blst_p1_affine acc_a;
    blst_p1_to_affine(&acc_a, &acc);

    blst_fp12 f;
    int have = 0;
    ml_acc(&f, &have, &proof->a, &proof->b, 0);
    ml_acc(&f, &have, &acc_a, &vk->gamma_g2, 1);
    ml_acc(&f, &have, &proof->c, &vk->delta_g2, 1);
    ml_acc(&f, &have, &vk->alpha_g1, &vk->beta_g2, 1);
    if (!have)
        return CUZK_OK; /* every term is 1 */
    blst_fp12 e;
    blst_final_exp(&e, &f);
    if (!blst_fp12_is_one(&e))
        return cuzk_fail(CUZK_EVERIFY, "proof does not verify");
    return CUZK_OK;
}
