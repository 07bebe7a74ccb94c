/* Groth16 over BLS12-381 as bellperson does it: setup, prove, verify.
 *
 * A circuit is a PCE (pce.h) whose constraints already include bellperson's
 * input constraints; a witness is the full assignment w = (1, inputs, aux).
 * Parameters and proofs use the formats of params.h. */
#ifndef CUZK_GROTH16_H
#define CUZK_GROTH16_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/backend.h"
#include "cuzk/fr.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"
#include "cuzk/wpack.h"
#include "cuzk/progress.h"

/* Seconds spent in each phase of one proof. */
typedef struct {
    double spmv; /* a, b, c = A.w, B.w, C.w */
    double h;    /* NTTs: the H polynomial */
    double msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2;
    double total;
    cuzk_msm_stats st_l, st_a, st_b_g1; /* 0/1 statistics of the split MSMs */
    /* Device time of the backend phases (seconds, from device events; all 0
     * on the CPU backend): copies and kernels of H, and of the MSMs
     * together (the witness upload counted once, with the MSMs). */
    double dev_h_copy, dev_h_kernel, dev_msm_copy, dev_msm_kernel;
} cuzk_prove_timings;

/* Prove one partition. r and s: the proof randomness; NULL draws them from the
 * OS CSPRNG (what production must do); fixed values make proofs reproducible
 * for tests. The params must belong to the circuit (counts are checked: a
 * mismatch is EINVAL naming the section). timings may be NULL. */
cuzk_err cuzk_groth16_prove(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                            const cuzk_fr *w, const cuzk_fr *r, const cuzk_fr *s, cuzk_proof *out,
                            cuzk_prove_timings *timings);

/* The CPU part of a proof, apart: a, b, c = A.w, B.w, C.w (m = 2^log_domain
 * elements each, zero beyond the constraints on entry) with every row
 * checked (EINVAL names the first unsatisfied constraint). Then
 * cuzk_groth16_prove_abc on the same a, b, c finishes the proof. */
cuzk_err cuzk_groth16_abc(const cuzk_pce *pce, const cuzk_fr *w, cuzk_fr *a, cuzk_fr *b,
                          cuzk_fr *c);

/* Prove n witnesses of one circuit (e.g. the partitions of a sector) with
 * the CPU part of proof i + 1 (SpMV and witness check, on a second thread)
 * overlapping the backend part of proof i (H and the MSMs, on the calling
 * thread), through two sets of a, b, c buffers (6 x 2^log_m elements). r, s:
 * n values each, or NULL for random ones; timings: n entries or NULL (spmv is
 * the overlapped SpMV time, total the wall time from the end of the previous
 * proof). Proofs are the same bytes as cuzk_groth16_prove's for the same r, s.
 * Stops at the first failure, whose message names the proof index; *n_done
 * (may be NULL) tells how many proofs in front of it are complete. */
cuzk_err cuzk_groth16_prove_batch(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                                  const cuzk_fr *const *w, size_t n, const cuzk_fr *r,
                                  const cuzk_fr *s, cuzk_proof *out, cuzk_prove_timings *timings,
                                  size_t *n_done);

/* Keep the five query arrays of params (h, l, a, b_g1, b_g2) on the
 * backend's device for good: uploaded now unless resident, never evicted,
 * so that proofs on this backend no longer read them from the host and
 * their host copy may be released (params.h cuzk_params_release_host).
 * EUNSUPPORTED on a host-only backend; ENOMEM when the device cannot hold
 * them. _on_device: whether all five are kept there. */
cuzk_err cuzk_groth16_params_to_device(cuzk_backend *be, const cuzk_params *params);
int cuzk_groth16_params_on_device(cuzk_backend *be, const cuzk_params *params);
/* Drop every parameter set the backend keeps on its device (a no-op on
 * host backends): needed before freeing parameters it keeps, since kept
 * sets are found by the address of their host arrays. */
void cuzk_groth16_device_forget(cuzk_backend *be);

/* The basis of the H query, told apart by its length: bellperson's
 * tau^i Z(tau)/delta has m - 1 points; snarkjs's basis (zkey files, and
 * parameters converted from them) has m, one per point of the odd coset of
 * the 2m-domain (backend.h compute_h_odd_coset). */
typedef enum { CUZK_H_BELLPERSON, CUZK_H_SNARKJS } cuzk_h_basis;

/* What the prover needs of a circuit besides its matrices: the domain, the
 * variable counts and which variables have a point in each query. */
typedef struct {
    unsigned log_m;
    size_t n_inputs; /* including ONE */
    size_t n_aux;
    const uint64_t *a_density, *b_density; /* over n_inputs + n_aux columns */
    const uint64_t *l_density;             /* over the n_aux columns; NULL: all */
    /* Set bits of a_density and b_density when the caller has them (a
     * PCE's popcounts); both 0: the prover counts the bitmaps. */
    uint64_t a_count, b_count;
} cuzk_groth16_shape;

/* The shape of a PCE's circuit, with its popcounts. */
cuzk_groth16_shape cuzk_groth16_shape_of(const cuzk_pce *pce);

/* The prover after the SpMV: a, b, c hold A.w, B.w, C.w zero-padded to
 * m = 2^log_m elements; they are consumed as scratch. Used by
 * cuzk_groth16_prove and by provers whose matrices are not a PCE (zkey). The
 * H basis follows params->n_h. Does not check the witness (a*b == c). */
cuzk_err cuzk_groth16_prove_abc(cuzk_backend *be, const cuzk_params *params,
                                const cuzk_groth16_shape *shape, const cuzk_fr *w, cuzk_fr *a,
                                cuzk_fr *b, cuzk_fr *c, const cuzk_fr *r, const cuzk_fr *s,
                                cuzk_proof *out, cuzk_prove_timings *timings);

/* cuzk_groth16_prove from the packed witness wp of w (wpack.h): on a
 * backend with cuzk_backend_device_spmv the device computes a, b, c from
 * the PCE it keeps (uploaded on first use) and checks every row, so no
 * host a, b, c exist; w must stay valid and unchanged during the call (its
 * public part and w[0] are read). On any other backend it is
 * cuzk_groth16_prove (the host SpMV). The proof equals cuzk_groth16_prove's
 * for the same r, s; an unsatisfied witness is EINVAL naming the first
 * failing constraint on either path. bellperson's H basis only. */
cuzk_err cuzk_groth16_prove_packed(cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce,
                                   const cuzk_fr *w, const cuzk_wpack *wp, const cuzk_fr *r,
                                   const cuzk_fr *s, cuzk_proof *out, cuzk_prove_timings *timings);
/* cuzk_groth16_prove_packed told the packed witness of the caller's next
 * packed proof on this backend (NULL: none): a device backend moves it to
 * the device while this proof runs, so that the next one starts on a
 * witness already there. next must stay valid and unchanged until a packed
 * proof has run on the backend again or cuzk_backend_packed_drop has
 * returned: call that before freeing next when its proof is not the next
 * one after all. The proof does not depend on next. */
cuzk_err cuzk_groth16_prove_packed_next(cuzk_backend *be, const cuzk_params *params,
                                        const cuzk_pce *pce, const cuzk_fr *w, const cuzk_wpack *wp,
                                        const cuzk_wpack *next, const cuzk_fr *r, const cuzk_fr *s,
                                        cuzk_proof *out, cuzk_prove_timings *timings);

/* Verify a proof against public inputs x_1..x_n (ONE excluded):
 * CUZK_OK when valid, CUZK_EVERIFY when not, EINVAL when n does not match the
 * VK (n + 1 != n_ic). */
cuzk_err cuzk_groth16_verify(const cuzk_vk *vk, const cuzk_fr *inputs, size_t n,
                             const cuzk_proof *proof);

/* The toxic waste of a setup. Random for real use; fixed for tests. */
typedef struct {
    cuzk_fr tau, alpha, beta, gamma, delta;
} cuzk_setup_secrets;

typedef struct {
    double lagrange, qap, vk, h, l, a, b_g1, b_g2, total;
    const char *backend; /* the multiplier that ran: "cpu" or "cuda" (static) */
} cuzk_setup_timings;

/* Generate parameters for a circuit and write `params_path` (bellperson
 * .params, streamed to disk through a temporary file renamed at the end) and,
 * when vk_path is non-NULL, the matching .vk. secrets == NULL draws them from
 * the OS CSPRNG and forgets them. The A/B queries drop columns that are empty
 * in A/B (points at infinity). Fails with EINVAL when an aux or input variable
 * appears in no constraint (its L/IC point would be the point at infinity,
 * which bellperson's reader rejects). timings may be NULL. */
cuzk_err cuzk_groth16_setup(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                            const cuzk_setup_secrets *secrets, cuzk_setup_timings *timings);
/* The same with the H query in the given basis: CUZK_H_SNARKJS makes
 * parameters that convert to a snarkjs zkey (snark.h). */
cuzk_err cuzk_groth16_setup_basis(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                                  const cuzk_setup_secrets *secrets, cuzk_h_basis basis,
                                  cuzk_setup_timings *timings);

/* How a setup runs. backend picks the fixed-base multiplier: "cpu" (also
 * NULL), "cuda" (the GPU `device`; EUNSUPPORTED when the build has no CUDA
 * or there is no such device), "cuda:N" (GPU N) or "auto" (the GPU when one
 * is usable, else the CPU). Any other name, or a device outside 0..1023, is
 * EINVAL, before any work. The parameters are the same bytes on every
 * backend. */
typedef struct {
    cuzk_h_basis basis;
    const char *backend;
    int device;
    /* Non-NULL: the parameters are filled into *params_out in memory
     * (cuzk_params_writer_open_mem; the caller frees them with
     * cuzk_params_free) and params_path must be NULL; vk_path still works. */
    cuzk_params *params_out;
    /* Optional (NULL: none): called with done/total in points of the
     * parameters written (ic, h, l, a, b_g1, b_g2; a G2 point counts as
     * one), once at the start (done 0), between the phases before the
     * first point, after every chunk of points (2^16 on the CPU, 2^21..2^22
     * on a GPU) and once at the end (done == total) before the file is
     * renamed into place. It is always called on the thread that called
     * the setup, never concurrently, so it needs no lock of its own for
     * one setup. A non-zero return stops the setup: its temporary files
     * (params and vk "*.tmp-<pid>") are removed, nothing is renamed into
     * place and it returns CUZK_ECANCELLED. Use it to report progress
     * (progress.h cuzk_progress_callback) and to make a long setup
     * interruptible (SIGINT / SIGTERM). */
    cuzk_progress_fn progress;
    void *progress_ctx;
} cuzk_setup_options;

/* The checks of cuzk_groth16_setup_ex on opt alone (the backend name, the
 * device: a GPU is opened and closed), so a caller can refuse early. */
cuzk_err cuzk_groth16_setup_check(const cuzk_setup_options *opt);
/* cuzk_groth16_setup_basis with options; opt == NULL is bellperson's basis
 * on the CPU. The other two entry points call this one. Exactly one of
 * params_path and opt->params_out must be given (EINVAL otherwise). */
cuzk_err cuzk_groth16_setup_ex(const cuzk_pce *pce, const char *params_path, const char *vk_path,
                               const cuzk_setup_secrets *secrets, const cuzk_setup_options *opt,
                               cuzk_setup_timings *timings);

#endif
