/* circom and snarkjs interop: circom's .r1cs, snarkjs's .wtns and Groth16
 * .zkey files, and snarkjs's proof / public / verification-key JSON, for the
 * BLS12-381 curve (snarkjs's "bls12381").
 *
 * The binary files share iden3's container: a 4-byte magic ("r1cs", "wtns",
 * "zkey"), a u32 version, a u32 section count, then sections of (u32 type,
 * u64 size, bytes), all little-endian. Readers map the file, check the
 * container, every section size against its contents, the field primes and
 * every point (canonical coordinates, on the curve, in the subgroup: see
 * cuzk_zkey_read for when), and fail
 * with CUZK_EFORMAT (layout), CUZK_ECURVE (points) or CUZK_EUNSUPPORTED (a
 * curve or feature cuzk does not handle, e.g. bn128) and a message that names
 * the file, the section and the offending element.
 *
 * Conventions that differ from bellperson (groth16.h) and how they map:
 *   - variables ("wires") are numbered as bellperson's: 0 is ONE, then the
 *     public signals (outputs, then public inputs), then the private ones;
 *   - the zkey keeps a point for every variable in A, B1, B2 (the point at
 *     infinity where the column is empty): cuzk keeps only the non-empty ones
 *     and a density bitmap, as bellperson does;
 *   - the zkey's C section is bellperson's L query; its H section is in the
 *     odd-coset basis (groth16.h CUZK_H_SNARKJS), which the prover follows;
 *   - the zkey stores only A and B; the prover computes c = a * b row by row,
 *     as snarkjs does, and verifies its own proof before returning it. */
#ifndef CUZK_SNARK_H
#define CUZK_SNARK_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/backend.h"
#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"

/* ---- circom .r1cs ---- */

typedef struct {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    /* The system as a finalized builder (input constraints appended), wire i
     * being variable i; owned. */
    cuzk_r1cs *cs;
} cuzk_circom_r1cs;

/* Read and validate every section: header (prime must be BLS12-381's Fr),
 * constraints (wire indices < n_wires, canonical coefficients, exact section
 * length), the wire-to-label map. Custom-gate sections (PLONK) are
 * EUNSUPPORTED. On success *out is owned by the caller. */
cuzk_err cuzk_circom_r1cs_read(const char *path, cuzk_circom_r1cs **out);
void cuzk_circom_r1cs_free(cuzk_circom_r1cs *r);
/* Public signals = outputs + public inputs (ONE excluded). */
uint32_t cuzk_circom_r1cs_n_public(const cuzk_circom_r1cs *r);

/* ---- snarkjs .wtns ---- */

/* Read a witness: *w (malloc'd, n elements, Montgomery form) with w[0] == 1
 * checked. */
cuzk_err cuzk_wtns_read(const char *path, cuzk_fr **w, size_t *n);
/* Write a witness as snarkjs does (version 2, n8 = 32). */
cuzk_err cuzk_wtns_write(const char *path, const cuzk_fr *w, size_t n);

/* ---- snarkjs Groth16 .zkey ---- */

typedef struct {
    uint32_t n_vars, n_public; /* n_public excludes ONE */
    unsigned log_m;
    /* The proving key in cuzk's form: vk (alpha, beta, gamma, delta, ic),
     * h (m points, odd-coset basis), l (C section, points at infinity
     * removed), a, b_g1, b_g2 (points at infinity removed). */
    cuzk_params params;
    uint64_t *a_density, *b_density; /* n_vars bits */
    uint64_t *l_density;             /* n_vars - n_public - 1 bits */
    cuzk_groth16_shape shape;
    /* A and B of the coefficient section as CSR over the m rows. */
    uint64_t *a_row, *b_row; /* m + 1 */
    uint32_t *a_col, *b_col;
    cuzk_fr *a_val, *b_val;
} cuzk_zkey;

/* Read and validate a Groth16 zkey for BLS12-381: every point canonical and
 * on the curve, the verifying key's points (header, IC) in the subgroup,
 * coefficient entries in range, B1 and B2 empty for the same variables. The
 * subgroup checks of the proving-key points (the bulk of the file) are
 * deferred: cuzk_zkey_prove runs them if its proof fails to verify, so a bad
 * key is still named as such. Multi-threaded. */
cuzk_err cuzk_zkey_read(const char *path, cuzk_zkey **out);
/* Subgroup check of every proving-key point: ECURVE naming the section and
 * index of the first bad one. */
cuzk_err cuzk_zkey_check_subgroups(const cuzk_zkey *z);
void cuzk_zkey_free(cuzk_zkey *z);

/* Prove from a full witness (n == n_vars, w[0] == 1). r, s as in groth16.h
 * (NULL: random). The proof is verified before it is returned; a witness
 * that does not satisfy the circuit gives EINVAL. timings may be NULL. */
cuzk_err cuzk_zkey_prove(cuzk_backend *be, const cuzk_zkey *z, const cuzk_fr *w, size_t n,
                         const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                         cuzk_prove_timings *timings);

/* Check that a PCE (e.g. from the circuit's .r1cs) has the zkey's A and B
 * matrices and variable counts: EINVAL naming the first difference. */
cuzk_err cuzk_zkey_check_pce(const cuzk_zkey *z, const cuzk_pce *pce);

/* Write a zkey from parameters whose H query is in the odd-coset basis and
 * the circuit's PCE (A and B go to the coefficient section). The MPC section
 * records no contribution and a zero circuit hash: snarkjs proves and
 * exports keys from it, but `zkey verify` reports that it did not come from
 * a ceremony. Written through a temporary file renamed into place. */
cuzk_err cuzk_zkey_write(const char *path, const cuzk_params *p, const cuzk_pce *pce);
/* The same reporting progress in points written (progress.h; every 2^16
 * points, a G2 point counting as one): a non-zero return from `progress`
 * stops the writing, removes the temporary file and returns
 * CUZK_ECANCELLED. */
cuzk_err cuzk_zkey_write_progress(const char *path, const cuzk_params *p, const cuzk_pce *pce,
                                  cuzk_progress_fn progress, void *ctx);

/* ---- snarkjs JSON ---- */

/* proof.json: {"pi_a": [x, y, "1"], "pi_b": [[x0, x1], [y0, y1], ["1", "0"]],
 * "pi_c": [...], "protocol": "groth16", "curve": "bls12381"}, decimal
 * strings, written in snarkjs's layout (one-space indentation). */
cuzk_err cuzk_snarkjs_proof_write(const char *path, const cuzk_proof *p);
cuzk_err cuzk_snarkjs_proof_read(const char *path, cuzk_proof *p);
/* A field element as snarkjs writes it: decimal, no leading zeros. */
void cuzk_snarkjs_fr_to_dec(char out[80], const cuzk_fr *a);
/* public.json: an array of decimal strings. */
cuzk_err cuzk_snarkjs_public_write(const char *path, const cuzk_fr *x, size_t n);
cuzk_err cuzk_snarkjs_public_read(const char *path, cuzk_fr **x, size_t *n);
/* verification_key.json: protocol groth16, curve bls12381; alpha_1, beta_2,
 * gamma_2, delta_2 and IC are read (beta_1 and delta_1 are not in the file
 * and are left at infinity; vk_alphabeta_12 is ignored). */
cuzk_err cuzk_snarkjs_vkey_read(const char *path, cuzk_vk *vk);

#endif
