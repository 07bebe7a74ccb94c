/* The number-theoretic transform over Fr on the CPU (module poly).
 *
 * A domain holds the constants of one size n = 2^log_n: the primitive root
 * omega (bellperson's, from cuzk_fr_root_of_unity), 1/n, the coset shift g = 7
 * and small twiddle tables. Transforms work in place on n elements in natural
 * order, run on the thread pool (cuzk_parallel_for) and give the same result
 * for any thread count. They never allocate: their scratch lives on the
 * calling threads' stacks (about 128 KiB each), so they cannot fail once the
 * domain exists, and they may block for as long as the transform takes.
 *
 * Conventions follow bellperson's EvaluationDomain:
 *   forward         a_i <- sum_j a_j omega^(ij)                 (fft)
 *   inverse         the exact inverse of forward, 1/n included   (ifft)
 *   coset_forward   a_j *= g^j, then forward: values at g omega^i (coset_fft)
 *   coset_inverse   inverse, then a_j *= g^-j                    (icoset_fft)
 *
 * A domain is read-only after init, so threads may share one. */
#ifndef CUZK_NTT_H
#define CUZK_NTT_H

#include <stddef.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

/* Largest supported size is 2^CUZK_NTT_MAX_LOG (8 GiB of input). */
#define CUZK_NTT_MAX_LOG 28
/* Transforms are split into in-cache sub-transforms of at most
 * 2^CUZK_NTT_RADIX_LOG points (64 KiB: L1 or close, well inside L2). */
#define CUZK_NTT_RADIX_LOG 11

/* Powers x^e for 0 <= e < n from two tables of about sqrt(n) entries each:
 * x^e = hi[e >> lo_bits] * lo[e & (2^lo_bits - 1)]. Owned by the domain. */
typedef struct {
    unsigned lo_bits;
    cuzk_fr *lo, *hi;
} cuzk_ntt_powers;

typedef struct {
    unsigned log_n;
    size_t n;
    cuzk_fr omega, omega_inv, n_inv, shift, shift_inv; /* shift = multiplicative generator 7 */
    /* Radix-2 twiddles of the in-cache sub-transforms: roots[t] = u^t for
     * t < 2^(root_log-1), u the primitive 2^root_log-th root (a power of
     * omega), root_log = min(log_n, radix_log); roots_inv holds u^-t. */
    unsigned root_log;
    cuzk_fr *roots, *roots_inv;
    /* Powers of omega, omega^-1, g and g^-1 for exponents below n. */
    cuzk_ntt_powers omega_pow, omega_inv_pow, shift_pow, shift_inv_pow;
    /* The plan, private to src/poly: the transform runs `passes` passes of
     * 2^pass_log[i]-point sub-transforms (P_i), first to last. coset_pre[m]
     * = g^(m n / P_0) scales the inputs of the first pass (coset_forward);
     * coset_post[m] = g^-(rev(m) n / P_last), times 1/n for a single pass,
     * scales the outputs of the last one (coset_inverse). */
    unsigned passes;
    unsigned pass_log[CUZK_NTT_MAX_LOG];
    cuzk_fr *coset_pre, *coset_post;
} cuzk_ntt_domain;

/* Build the domain of size 2^log_n, 0 <= log_n <= CUZK_NTT_MAX_LOG. EINVAL
 * for a larger log_n, ENOMEM if the tables (a few MiB at most) cannot be
 * allocated; on failure *d is left empty and safe to free. */
cuzk_err cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n);
/* The same with sub-transforms of at most 2^radix_log points, 1 <= radix_log
 * <= CUZK_NTT_RADIX_LOG (init uses the maximum). Results do not depend on
 * it; a small radix makes small sizes run many passes, which is how the
 * tests reach the plans of large sizes. */
cuzk_err cuzk_ntt_domain_init_radix(cuzk_ntt_domain *d, unsigned log_n, unsigned radix_log);
/* Release the tables; *d becomes empty. Safe on an empty or zeroed domain. */
void cuzk_ntt_domain_free(cuzk_ntt_domain *d);

/* All transforms are in place on d->n elements, natural order in and out. */
void cuzk_ntt_forward(const cuzk_ntt_domain *d, cuzk_fr *a);
void cuzk_ntt_inverse(const cuzk_ntt_domain *d, cuzk_fr *a);
void cuzk_ntt_coset_forward(const cuzk_ntt_domain *d, cuzk_fr *a);
void cuzk_ntt_coset_inverse(const cuzk_ntt_domain *d, cuzk_fr *a);

/* x^e for 0 <= e < d->n from a power table of the domain (one multiply). */
void cuzk_ntt_powers_get(cuzk_fr *r, const cuzk_ntt_powers *p, size_t e);

/* 1 / Z(g) with Z(X) = X^n - 1: the vanishing polynomial of the domain is
 * the constant Z(g) = g^n - 1 on the whole coset, so dividing coset values by
 * Z is a scale by this (bellperson divide_by_z_on_coset). */
void cuzk_ntt_coset_z_inv(const cuzk_ntt_domain *d, cuzk_fr *z_inv);

#endif
