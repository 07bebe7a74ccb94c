/* The compute backend behind Groth16 proving: the operations whose cost
 * dominates a proof (the H polynomial by NTTs, and the MSMs). The CPU backend
 * (blst Pippenger + C NTT) is always built and is the reference; a CUDA
 * backend implements the same operations on the GPU. The prover in
 * groth16/prove.c only talks to this interface.
 *
 * A backend is opened once and used by one proving thread at a time. */
#ifndef CUZK_BACKEND_H
#define CUZK_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include <blst.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/msm.h"
#include "cuzk/pce.h"
#include "cuzk/wpack.h"

typedef struct cuzk_backend cuzk_backend;

typedef struct {
    const char *name;
    /* H polynomial coefficients, bellperson's basis. a, b, c hold A.w, B.w,
     * C.w zero-padded to m = 2^log_m elements; on return a[0 .. m-2] holds h
     * (the quotient (a*b - c)/Z in coefficient form); b and c are scratch. */
    cuzk_err (*compute_h)(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c);
    /* Split MSMs as in msm.h. */
    cuzk_err (*msm_g1)(cuzk_backend *be, blst_p1 *out, const blst_p1_affine *bases, size_t n_bases,
                       const cuzk_fr *k, const uint64_t *density, size_t n, cuzk_msm_stats *stats);
    cuzk_err (*msm_g2)(cuzk_backend *be, blst_p2 *out, const blst_p2_affine *bases, size_t n_bases,
                       const cuzk_fr *k, const uint64_t *density, size_t n, cuzk_msm_stats *stats);
    void (*close)(cuzk_backend *be);
    /* H in snarkjs's basis (zkey files): a, b, c as for compute_h; on return
     * a[0 .. m-1] holds a(x)*b(x) - c(x) at x = g*omega^i, i < m, natural
     * order, where a(x), b(x), c(x) interpolate a, b, c on the m-domain and g
     * is the primitive 2m-th root of unity (the odd coset of the 2m-domain).
     * No division by Z: it is the constant -2 there, folded into the key.
     * NULL: the prover uses cuzk_h_odd_coset_cpu (below). */
    cuzk_err (*compute_h_odd_coset)(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b,
                                    cuzk_fr *c);
    /* The GPU ordinal the backend runs on; NULL for host-only backends. */
    int (*device)(const cuzk_backend *be);
    /* Optional: the witness w[0..n) of the proof about to run its MSMs, so a
     * device backend uploads it once; MSM scalars inside w may then be read
     * from that copy until witness_end. w must not change in between. An
     * ENOMEM here only means the MSMs upload their scalars themselves. */
    cuzk_err (*witness_begin)(cuzk_backend *be, const cuzk_fr *w, size_t n);
    void (*witness_end)(cuzk_backend *be);
    /* Optional: compute_h when the H MSM (msm_h on the same a) and the
     * witness MSMs follow: h may stay on the device only (a is scratch
     * afterwards, its content unspecified), and the witness w[0..n_w) is
     * uploaded meanwhile as witness_begin would (end with witness_end). */
    cuzk_err (*compute_h_resident)(cuzk_backend *be, unsigned log_m, cuzk_fr *a, cuzk_fr *b,
                                   cuzk_fr *c, const cuzk_fr *w, size_t n_w);
    /* Optional: the H MSM (msm_g1 without density) right after compute_h
     * with the same a, unchanged since: a device backend may read the h that
     * compute_h left on the device. NULL: msm_g1 is used. */
    cuzk_err (*msm_h)(cuzk_backend *be, blst_p1 *out, const blst_p1_affine *bases, size_t n_bases,
                      const cuzk_fr *h, size_t n);
    /* Optional: device time of the last operation (seconds, from device
     * events): host<->device copies and the span of its kernels. */
    void (*last_device_time)(const cuzk_backend *be, double *copy_s, double *kernel_s);
    /* Optional (device backends): keep the bases host[0..n) (elem bytes
     * each) on the device for good, so later MSMs over them never read the
     * host copy (gpu.h cuzk_gpu_bases_pin); and whether they are so kept. */
    cuzk_err (*pin_bases)(cuzk_backend *be, const void *host, size_t n, size_t elem);
    int (*bases_pinned)(cuzk_backend *be, const void *host, size_t n, size_t elem);
    /* Optional: drop every set of bases kept on the device, pinned ones too
     * (before the host arrays they were keyed by are freed). */
    void (*forget_bases)(cuzk_backend *be);
    /* Optional (device backends): compute_h_resident from the constraint
     * system and the packed witness wp of w instead of host a, b, c: the
     * device computes a, b, c itself (every row checked: EINVAL naming the
     * first unsatisfied constraint, as cuzk_groth16_abc), keeps h for msm_h
     * called with h_key (an address that is never read) and the expanded
     * witness for the MSMs over w (not read either). End with witness_end.
     * next (NULL: none): the packed witness of the caller's next
     * compute_h_pce, which the backend may start moving to the device
     * meanwhile (gpu.h cuzk_gpu_compute_h_pce); it must stay valid until a
     * compute_h_pce has returned or packed_drop has. */
    cuzk_err (*compute_h_pce)(cuzk_backend *be, const cuzk_pce *pce, const cuzk_wpack *wp,
                              const cuzk_wpack *next, const cuzk_fr *w, const void *h_key);
    /* Optional, with compute_h_pce: abandon what was started for its next. */
    void (*packed_drop)(cuzk_backend *be);
    /* Optional (device backends): give back the device memory kept for
     * reuse between proofs (gpu.h cuzk_gpu_trim), for when nothing runs. */
    void (*trim)(cuzk_backend *be);
    /* Optional (device backends): start moving the bases host[0..n) to the
     * device while the caller's next MSM, of `entries` entries, runs (gpu.h
     * cuzk_gpu_bases_ahead): 0 they are there, 1 under way, -1 not now.
     * Never an error: the MSM over them uploads whatever is missing. */
    int (*bases_ahead)(cuzk_backend *be, const void *host, size_t n, size_t elem, size_t entries);
} cuzk_backend_ops;

struct cuzk_backend {
    const cuzk_backend_ops *ops;
    void *impl;
};

/* Host memory for big buffers a device backend copies every proof (a, b,
 * c): page-locked when the build has CUDA and a GPU is present (copies then
 * skip the staging buffers), else malloc'd; *pinned tells which. Not
 * zeroed. Free with cuzk_backend_host_free(p, pinned). */
cuzk_err cuzk_backend_host_alloc(size_t bytes, void **out, int *pinned);
void cuzk_backend_host_free(void *p, int pinned);

/* Open a backend by name: "cpu", "cuda" (GPU 0), "cuda:N" (GPU N) or "auto"
 * (CUDA on GPU 0 when built and present, else CPU). EUNSUPPORTED with a
 * message when the named backend or device is not available in this build or
 * on this machine; EINVAL for an unknown name or a malformed ordinal. */
cuzk_err cuzk_backend_open(const char *name, cuzk_backend **out);
/* The same with the device given apart: name "cpu", "cuda" or "auto" and a
 * GPU ordinal (ignored by "cpu"; "auto" falls back to the CPU when that GPU
 * is absent). Every operation of a CUDA backend selects its device itself,
 * so a backend opened on one thread may be used on another. */
cuzk_err cuzk_backend_open_on(const char *name, int ordinal, cuzk_backend **out);
void cuzk_backend_close(cuzk_backend *be);
const char *cuzk_backend_name(const cuzk_backend *be);
/* Pinned host memory held by the GPU backends of this process (0 without
 * CUDA). */
size_t cuzk_backend_pinned_bytes(void);
/* GPUs a CUDA backend can open (0 in a build without CUDA). */
int cuzk_backend_gpus(void);
/* Free and total memory of GPU `ordinal` (all processes); EUNSUPPORTED in a
 * build without CUDA, EINVAL for a device that does not exist. */
cuzk_err cuzk_backend_device_mem(int ordinal, size_t *free_bytes, size_t *total_bytes);
/* Whether the backend computes a, b, c itself from a packed witness
 * (compute_h_pce): then a prover hands it cuzk_groth16_prove_packed's
 * arguments and needs no host a, b, c. */
int cuzk_backend_device_spmv(const cuzk_backend *be);
/* Abandon the upload cuzk_groth16_prove_packed_next started for its next
 * (waits until it stops reading next). No-op when none, or on a backend
 * that does not upload ahead. */
void cuzk_backend_packed_drop(cuzk_backend *be);
/* Give back what the backend keeps on its device for the next proof (the
 * MSM scratch, blocks of a proof's vectors): for a prover with nothing to
 * do, so that other programs can use the device meanwhile. No-op on the
 * CPU backend. */
void cuzk_backend_trim(cuzk_backend *be);
/* The GPU ordinal a backend runs on, or -1 for the CPU backend. */
int cuzk_backend_device(const cuzk_backend *be);
/* Host memory (bytes) a proof of 2^log_m constraints and n_vars variables
 * allocates at most at any moment on the backend's side, beyond the
 * caller's a, b, c and witness: what a memory budget counts next to them.
 * The CPU backend: the larger of its longest MSMs' scratch (msm.h) and the
 * m-element scratch of H in snarkjs's basis. Device backends: 0 (their
 * scratch is device memory). */
uint64_t cuzk_backend_host_scratch(const cuzk_backend *be, unsigned log_m, size_t n_vars);

/* The CPU reference of compute_h_odd_coset, for backends without one
 * (builds the NTT tables of size m each call: O(sqrt m) memory). */
cuzk_err cuzk_h_odd_coset_cpu(unsigned log_m, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c);

#endif
