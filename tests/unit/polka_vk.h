/* polka-storage's verifying keys and proofs
 * (tests/fixtures/filecoin/README.md). A key is the SCALE encoding of its
 * VerifyingKey: compressed points α, β₁, β₂, γ₂, δ₁, δ₂, a u32 big-endian
 * IC count, then the IC points; a proof is A, B, C compressed. Shared by
 * the tests that verify its proofs with our public inputs. */
#ifndef CUZK_TEST_POLKA_VK_H
#define CUZK_TEST_POLKA_VK_H

#include "check.h"
#include "cuzk/groth16.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>

/* Load the key at path, expecting n_ic IC points (inputs + 1). */
static void load_polka_vk(const char *path, size_t n_ic, cuzk_vk *vk)
{
    uint8_t *d;
    size_t n;
    memset(vk, 0, sizeof *vk);
    CHECK_OK(cuzk_read_file(path, &d, &n));
    CHECK(n == 436 + 48 * n_ic);
    const uint8_t *p = d;
    CHECK(blst_p1_uncompress(&vk->alpha_g1, p) == BLST_SUCCESS);
    CHECK(blst_p1_uncompress(&vk->beta_g1, p + 48) == BLST_SUCCESS);
    CHECK(blst_p2_uncompress(&vk->beta_g2, p + 96) == BLST_SUCCESS);
    CHECK(blst_p2_uncompress(&vk->gamma_g2, p + 192) == BLST_SUCCESS);
    CHECK(blst_p1_uncompress(&vk->delta_g1, p + 288) == BLST_SUCCESS);
    CHECK(blst_p2_uncompress(&vk->delta_g2, p + 336) == BLST_SUCCESS);
    vk->n_ic = (size_t)p[432] << 24 | (size_t)p[433] << 16 | (size_t)p[434] << 8 | p[435];
    CHECK(vk->n_ic == n_ic);
    vk->ic = calloc(vk->n_ic, sizeof *vk->ic);
    CHECK(vk->ic != NULL);
    for (size_t i = 0; i < vk->n_ic && 436 + 48 * (i + 1) <= n; i++)
        CHECK(blst_p1_uncompress(&vk->ic[i], p + 436 + 48 * i) == BLST_SUCCESS);
    free(d);
}

/* Load a 192-byte proof. */
static void load_polka_proof(const char *path, cuzk_proof *proof)
{
    uint8_t *d;
    size_t n;
    CHECK_OK(cuzk_read_file(path, &d, &n));
    CHECK(n == CUZK_PROOF_BYTES);
    if (n == CUZK_PROOF_BYTES)
        CHECK_OK(cuzk_proof_decode(proof, d));
    free(d);
}

#endif
