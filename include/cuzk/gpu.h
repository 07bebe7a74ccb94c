/* The CUDA side of cuzk as seen from C. Declared always; defined only when
 * the build has CUDA (CUZK_HAVE_CUDA). Callers check cuzk_gpu_count().
 *
 * A cuzk_gpu is one device opened for proving: its stream, its events, the
 * NTT tables of the last size used and the device copies of the MSM bases
 * it has seen (the SRS stays resident across proofs; see msm below). It is
 * used by one thread at a time. Every call blocks until the device work is
 * done. A device out-of-memory is returned as CUZK_ENOMEM with a message
 * saying what could not be allocated; the handle stays usable. */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <blst.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/msm.h"
#include "cuzk/pce.h"
#include "cuzk/wpack.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices visible (0 when none or no driver). */
int cuzk_gpu_count(void);
/* One line describing device `ordinal`: name, compute capability, memory. */
cuzk_err cuzk_gpu_describe(int ordinal, char *buf, size_t cap);

typedef struct cuzk_gpu cuzk_gpu;

/* Open device `ordinal`. EUNSUPPORTED when it does not exist. */
cuzk_err cuzk_gpu_open(int ordinal, cuzk_gpu **out);
/* Free every device buffer of the handle, then the handle. NULL is a no-op. */
void cuzk_gpu_close(cuzk_gpu *g);
/* Make the handle's device current on the calling thread (CUDA keeps the
 * current device per thread): call before using a handle on a thread other
 * than the one that opened it. */
cuzk_err cuzk_gpu_bind(cuzk_gpu *g);
int cuzk_gpu_ordinal(const cuzk_gpu *g);

/* Device memory as the handle sees it: free and total of the device (all
 * processes), the bytes of MSM bases this handle keeps resident, and the
 * pinned host staging buffers it holds (resident_bytes counts the
 * constraint systems kept for the device SpMV too). free_bytes includes
 * what cuzk holds for reuse and gives back to any allocation that needs
 * it: the idle MSM scratch (arena_bytes) and the blocks kept between
 * proofs (kept_bytes, CUZK_GPU_KEEP_BLOCKS=1), both of the whole device. */
typedef struct {
    size_t free_bytes, total_bytes, resident_bytes, pinned_host_bytes;
    size_t arena_bytes, kept_bytes;
} cuzk_gpu_mem;
cuzk_err cuzk_gpu_mem_info(cuzk_gpu *g, cuzk_gpu_mem *out);
/* Pinned host memory held by cuzk's GPU code in this process (staging
 * buffers of every handle, setup's chunk buffers). */
size_t cuzk_gpu_pinned_bytes(void);
/* Page-locked host memory (counted in cuzk_gpu_pinned_bytes): copies to
 * and from it skip the staging buffers. ENOMEM when the system refuses. */
cuzk_err cuzk_gpu_host_alloc(void **p, size_t bytes);
void cuzk_gpu_host_free(void *p);
/* Free and total memory of device `ordinal` without a handle (selects that
 * device on the calling thread). EINVAL when it does not exist. */
cuzk_err cuzk_gpu_device_mem(int ordinal, size_t *free_bytes, size_t *total_bytes);

/* Device times of the last operation, from CUDA events (ms): host-to-device
 * copies, kernels, device-to-host copies. */
typedef struct {
    double h2d_ms, kernel_ms, d2h_ms;
} cuzk_gpu_times;
void cuzk_gpu_last_times(const cuzk_gpu *g, cuzk_gpu_times *t);

typedef enum {
    CUZK_GPU_NTT_FORWARD,
    CUZK_GPU_NTT_INVERSE,
    CUZK_GPU_NTT_COSET_FORWARD,
    CUZK_GPU_NTT_COSET_INVERSE,
} cuzk_gpu_ntt_kind;

/* The NTTs of ntt.h (same conventions, same results bit for bit) on 2^log_n
 * host elements in place, 1 <= log_n <= 28. */
cuzk_err cuzk_gpu_ntt(cuzk_gpu *g, cuzk_gpu_ntt_kind kind, unsigned log_n, cuzk_fr *a);

/* backend.h compute_h on the device: a, b, c on the host, m = 2^log_m
 * elements each; on return a holds h (a[m-1] = 0); b and c are unchanged.
 * b and c are uploaded on a second stream while a is transformed, and h
 * stays on the device for cuzk_gpu_msm_g1_h. */
cuzk_err cuzk_gpu_compute_h(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                            const cuzk_fr *c);
/* compute_h for a proof whose next steps are cuzk_gpu_msm_g1_h on a and the
 * witness MSMs: h stays on the device only (the host a is not written), and
 * the witness w[0..nw) (NULL: none) is uploaded while the last kernels run
 * and installed as by cuzk_gpu_scalars_set. */
cuzk_err cuzk_gpu_compute_h_resident(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                                     const cuzk_fr *c, const cuzk_fr *w, size_t nw);
/* backend.h compute_h_pce on the device: the constraint system kept on the
 * device (its image uploaded on first use, found again by checksum; the
 * least recently used one evicted when memory runs short), the packed
 * witness uploaded and expanded there, a, b, c by a device SpMV that checks
 * every row (EINVAL "witness does not satisfy constraint R", R the first
 * failing row, as the CPU check says), then H as compute_h_resident. The
 * expanded witness becomes the scalars of the MSMs over w_key (a host array
 * of the same n_inputs + n_aux elements, never read), as
 * cuzk_gpu_scalars_set would install it; h is kept for cuzk_gpu_msm_g1_h
 * called with h_key, a host address that is never read.
 * next (NULL: none): the packed witness of the next compute_h_pce the
 * caller means to run on g. Once wp is on the device, next starts going up
 * on the copy stream (from a thread of its own, through the staging
 * buffers), under this proof's kernels and MSMs; the next compute_h_pce
 * takes that copy when its wp is next, and drops it otherwise. next must
 * stay valid and unchanged until a compute_h_pce has returned on g or
 * cuzk_gpu_prefetch_drop has. */
cuzk_err cuzk_gpu_compute_h_pce(cuzk_gpu *g, const cuzk_pce *pce, const cuzk_wpack *wp,
                                const cuzk_wpack *next, const cuzk_fr *w_key, const void *h_key);
/* Abandon a copy started for compute_h_pce's next: waits for it to stop
 * reading the host and frees its device memory. No-op without one. */
void cuzk_gpu_prefetch_drop(cuzk_gpu *g);
/* Drop the constraint systems kept on the device. */
void cuzk_gpu_pce_forget(cuzk_gpu *g);
/* backend.h compute_h_odd_coset (snarkjs's basis) on the device, same
 * arguments: on return a holds a*b - c on the odd coset, snarkjs's order. */
cuzk_err cuzk_gpu_compute_h_odd_coset(cuzk_gpu *g, unsigned log_m, cuzk_fr *a, const cuzk_fr *b,
                                      const cuzk_fr *c);

/* msm.h's split MSMs on the device, same arguments and result. The bases
 * are copied to the device on first use and kept there (keyed by host
 * address, size and a sample of the points) while device memory allows, so
 * the parameters of a circuit are uploaded once per process. */
cuzk_err cuzk_gpu_msm_g1(cuzk_gpu *g, blst_p1 *out, const blst_p1_affine *bases, size_t n_bases,
                         const cuzk_fr *k, const uint64_t *density, size_t n,
                         cuzk_msm_stats *stats);
cuzk_err cuzk_gpu_msm_g2(cuzk_gpu *g, blst_p2 *out, const blst_p2_affine *bases, size_t n_bases,
                         const cuzk_fr *k, const uint64_t *density, size_t n,
                         cuzk_msm_stats *stats);
/* The H MSM of a proof: cuzk_gpu_msm_g1 without density, for scalars h that
 * the last cuzk_gpu_compute_h wrote (h unchanged since): it reads the copy
 * that compute_h left on the device instead of uploading h again, then
 * frees it. With any other h it uploads as cuzk_gpu_msm_g1 does, except
 * after cuzk_gpu_compute_h_resident, whose h exists on the device only:
 * then another array or a larger n is EINVAL. */
cuzk_err cuzk_gpu_msm_g1_h(cuzk_gpu *g, blst_p1 *out, const blst_p1_affine *bases, size_t n_bases,
                           const cuzk_fr *h, size_t n);
/* Drop the resident bases, pinned ones too (they are re-uploaded from the
 * host on next use). */
void cuzk_gpu_msm_forget(cuzk_gpu *g);
/* Give back the device memory kept on g's device for reuse while idle: the
 * MSM scratch and the blocks of a proof's vectors kept for the next proof.
 * Both also go back by themselves when any allocation on the device runs
 * short; this is for callers that hand the device to something else. */
void cuzk_gpu_trim(cuzk_gpu *g);
/* Keep the bases host[0..n) (elem bytes each: a G1 or G2 affine point) on
 * the device for good: uploaded now unless resident, never evicted, and
 * found again by address, count and size alone, so the host copy may be
 * released afterwards (params.h cuzk_params_release_host). ENOMEM when the
 * device cannot hold them (or every resident set is pinned). */
cuzk_err cuzk_gpu_bases_pin(cuzk_gpu *g, const void *host, size_t n, size_t elem);
int cuzk_gpu_bases_pinned(cuzk_gpu *g, const void *host, size_t n, size_t elem);
/* Upload the bases host[0..n) ahead of their MSM, on the copy stream from a
 * thread, while the caller runs an MSM of `entries` entries meanwhile: only
 * into memory that is free beside that MSM's own buffers (nothing is given
 * back for it), one set at a time; their MSM waits for the rest. Returns 0
 * when the set is on the device already, 1 when its upload is under way,
 * -1 when it cannot start now (no room, another set in flight,
 * CUZK_GPU_BASES_AHEAD=0). Never fails a proof: an upload that fails is
 * dropped and the MSM uploads the set itself. */
int cuzk_gpu_bases_ahead(cuzk_gpu *g, const void *host, size_t n, size_t elem, size_t entries);
/* Upload a proof's witness w[0..n) once for its several MSMs: until _clear
 * (or the next _set), an MSM whose scalars lie inside w reads the device
 * copy instead of uploading them again. The caller must not change w in
 * between. */
cuzk_err cuzk_gpu_scalars_set(cuzk_gpu *g, const cuzk_fr *w, size_t n);
void cuzk_gpu_scalars_clear(cuzk_gpu *g);

/* Fixed-base multiplication for setup (fixed.cu): out[i] = k[i] * base for
 * Montgomery-form scalars k[i], as affine points in blst's layout; the same
 * points as curve.h's cuzk_g1/g2_fixed_mul_batch (k = 0 gives the all-zero
 * point at infinity). A cuzk_gpu_fixed owns a device table of window
 * multiples of one base (100 MiB for G1, 200 MiB for G2) and two slots of
 * `chunk` scalars (device buffers and pinned host buffers; 0 picks 2^22 for
 * G1, 2^21 for G2); it uses the handle's device and must not outlive it.
 * Errors: EINVAL for NULL arguments, a base at infinity or misuse of the
 * pipeline; ENOMEM (saying what did not fit) when device or pinned memory
 * is short. */
typedef struct cuzk_gpu_fixed cuzk_gpu_fixed;
cuzk_err cuzk_gpu_fixed_open_g1(cuzk_gpu *g, const blst_p1 *base, size_t chunk,
                                cuzk_gpu_fixed **out);
cuzk_err cuzk_gpu_fixed_open_g2(cuzk_gpu *g, const blst_p2 *base, size_t chunk,
                                cuzk_gpu_fixed **out);
/* Waits for work in flight, frees device and pinned memory. NULL: no-op. */
void cuzk_gpu_fixed_free(cuzk_gpu_fixed *f);
/* The chunk size: the most scalars one submit takes. */
size_t cuzk_gpu_fixed_chunk(const cuzk_gpu_fixed *f);
/* Pipeline: submit copies n <= chunk scalars (k may be reused on return) and
 * enqueues their multiplication without waiting; at most two chunks are in
 * flight. collect waits for the oldest submitted chunk and lends its points
 * (blst_p1_affine or blst_p2_affine, *n of them) in pinned host memory,
 * valid until the next submit or collect. So chunk i+1 is computed while the
 * caller writes chunk i: submit(0); then for each i: submit(i+1) if any,
 * collect(i), use it. */
cuzk_err cuzk_gpu_fixed_submit(cuzk_gpu_fixed *f, const cuzk_fr *k, size_t n);
cuzk_err cuzk_gpu_fixed_collect(cuzk_gpu_fixed *f, const void **pts, size_t *n);
/* All n (any size) at once into out (points of the table's group); EINVAL
 * while submitted chunks are uncollected. */
cuzk_err cuzk_gpu_fixed_mul(cuzk_gpu_fixed *f, void *out, const cuzk_fr *k, size_t n);
/* One-shot forms: make a table for base, multiply, free it. */
cuzk_err cuzk_gpu_fixed_mul_g1(cuzk_gpu *g, blst_p1_affine *out, const blst_p1 *base,
                               const cuzk_fr *k, size_t n);
cuzk_err cuzk_gpu_fixed_mul_g2(cuzk_gpu *g, blst_p2_affine *out, const blst_p2 *base,
                               const cuzk_fr *k, size_t n);

/* Benchmarks with inputs resident on the device (random data made there),
 * timed with CUDA events, median of `reps`.
 * ntt: ms[4] = forward, inverse, coset forward, coset inverse at 2^log_n.
 * msm: for each log size in [log_lo, log_hi], the dense MSM of 2^log random
 * points (made on the device) and scalars, ms[log - log_lo]; the MSM of the
 * first 2^min(log_lo, 20) points is also computed by the CPU MSM and must
 * match, and with `cross` each size's result must equal the same MSM with
 * the batch-affine and with the XYZZ accumulation forced (EINTERNAL if
 * not). ones_pct (0..100): that share of the scalars (chosen by a hash of
 * the index) is 1, as in witnesses of mostly bits, so the 0/1 split's sum
 * of the ones is measured too. */
cuzk_err cuzk_gpu_bench_ntt(cuzk_gpu *g, unsigned log_n, int reps, double ms[4]);
/* fpmul: Fp Montgomery products per second (10^9) in chains on every
 * thread of 2^18, for the multiplication variants of arith_bench.cu:
 * gmul_s[0] word by word on the integer pipe (the kernels' own), [1] whole
 * product then reduction on the integer pipe, [2] the whole product on the
 * double-precision pipe then the integer reduction, [3] [0] and [2] mixed
 * in each thread. *same: every variant gave the same elements. */
cuzk_err cuzk_gpu_bench_fpmul(cuzk_gpu *g, int reps, double gmul_s[4], int *same);
cuzk_err cuzk_gpu_bench_msm(cuzk_gpu *g, int g2, unsigned log_lo, unsigned log_hi, int reps,
                            int cross, unsigned ones_pct, double *ms);
/* alloc: host wall times (ms, medians) of a device block of `bytes` taken
 * and given back: ms[0] cudaMalloc, ms[1] cudaFree (the block written in
 * between), ms[2] and ms[3] the same through the blocks kept for reuse
 * between proofs (a kept block taken, and kept again). */
cuzk_err cuzk_gpu_bench_alloc(cuzk_gpu *g, size_t bytes, int reps, double ms[4]);

#ifdef __cplusplus
}
#endif

#endif
