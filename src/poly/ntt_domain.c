/* NTT domains: the constants, twiddle tables and plan of one transform size.
 *
 * Tables stay small on purpose: at 2^28 the input alone is 8 GiB, so a full
 * table of omega^i (n/2 entries, 4 GiB) is out of the question. Instead the
 * domain keeps
 *   - the radix-2 twiddles of a 2^11-point sub-transform (32 KiB for each
 *     direction), all that the butterflies inside a cache-sized block need;
 *   - two-level power tables for omega, omega^-1, g and g^-1: x^e for any
 *     e < n costs one multiply from two tables of about sqrt(n) entries;
 *   - the pass plan and two coset scale tables of at most 2^11 entries.
 * Together this is about 4 MiB at 2^28 and a few KiB for small sizes. */
#include "cuzk/ntt.h"

#include <stdlib.h>
#include <string.h>

static cuzk_fr *fr_alloc(size_t count, size_t *total)
{
    *total += count * sizeof(cuzk_fr);
    return malloc(count * sizeof(cuzk_fr));
}

/* lo[i] = x^i for i < 2^lo_bits, hi[i] = x^(i 2^lo_bits) for the rest of the
 * exponent bits. */
static int powers_init(cuzk_ntt_powers *p, const cuzk_fr *x, unsigned log_n, size_t *total)
{
    p->lo_bits = (log_n + 1) / 2;
    size_t n_lo = (size_t)1 << p->lo_bits, n_hi = (size_t)1 << (log_n - p->lo_bits);
    p->lo = fr_alloc(n_lo, total);
    p->hi = fr_alloc(n_hi, total);
    if (!p->lo || !p->hi)
        return 0;
    cuzk_fr_one(&p->lo[0]);
    for (size_t i = 1; i < n_lo; i++)
        blst_fr_mul(&p->lo[i], &p->lo[i - 1], x);
    cuzk_fr step;
    blst_fr_mul(&step, &p->lo[n_lo - 1], x);
    cuzk_fr_one(&p->hi[0]);
    for (size_t i = 1; i < n_hi; i++)
        blst_fr_mul(&p->hi[i], &p->hi[i - 1], &step);
    return 1;
}

static void powers_free(cuzk_ntt_powers *p)
{
    free(p->lo);
    free(p->hi);
}

/* Split log_n bits into as few passes of at most root_log bits as
 * possible, as evenly as possible (2^20 = 10 + 10, 2^28 = 10 + 9 + 9): the
 * multiplies per element grow with the number of passes. */
static void plan_init(cuzk_ntt_domain *d)
{
    unsigned rem = d->log_n;
    d->passes = rem ? (rem + d->root_log - 1) / d->root_log : 0;
    for (unsigned i = 0; i < d->passes; i++) {
        d->pass_log[i] = (rem + (d->passes - i) - 1) / (d->passes - i);
        rem -= d->pass_log[i];
    }
}

static size_t bit_reverse(size_t x, unsigned bits)
{
    size_t r = 0;
    for (unsigned i = 0; i < bits; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

/* The coset scales that do not fold into the passes' twiddles (see ntt.c):
 * coset_pre on the first pass's inputs, coset_post on the last's outputs. */
static int coset_tables_init(cuzk_ntt_domain *d, size_t *total)
{
    unsigned r0 = d->passes ? d->pass_log[0] : 0;
    unsigned rl = d->passes ? d->pass_log[d->passes - 1] : 0;
    d->coset_pre = fr_alloc((size_t)1 << r0, total);
    d->coset_post = fr_alloc((size_t)1 << rl, total);
    if (!d->coset_pre || !d->coset_post)
        return 0;
    for (size_t m = 0; m < ((size_t)1 << r0); m++)
        cuzk_ntt_powers_get(&d->coset_pre[m], &d->shift_pow, m << (d->log_n - r0));
    for (size_t m = 0; m < ((size_t)1 << rl); m++) {
        cuzk_ntt_powers_get(&d->coset_post[m], &d->shift_inv_pow,
                            bit_reverse(m, rl) << (d->log_n - rl));
        if (d->passes == 1) /* otherwise 1/n rides on the first pass */
            blst_fr_mul(&d->coset_post[m], &d->coset_post[m], &d->n_inv);
    }
    return 1;
}

/* roots[t] = u^t for t < max(1, 2^(root_log-1)). */
static cuzk_fr *roots_init(const cuzk_fr *u, unsigned root_log, size_t *total)
{
    size_t count = root_log ? (size_t)1 << (root_log - 1) : 1;
    cuzk_fr *t = fr_alloc(count, total);
    if (!t)
        return NULL;
    cuzk_fr_one(&t[0]);
    for (size_t i = 1; i < count; i++)
        blst_fr_mul(&t[i], &t[i - 1], u);
    return t;
}

cuzk_err cuzk_ntt_domain_init(cuzk_ntt_domain *d, unsigned log_n)
{
    return cuzk_ntt_domain_init_radix(d, log_n, CUZK_NTT_RADIX_LOG);
}

cuzk_err cuzk_ntt_domain_init_radix(cuzk_ntt_domain *d, unsigned log_n, unsigned radix_log)
{
    memset(d, 0, sizeof *d);
    if (log_n > CUZK_NTT_MAX_LOG)
        return cuzk_fail(CUZK_EINVAL, "ntt domain: size 2^%u (log_n = %u) exceeds the maximum 2^%u",
                         log_n, log_n, CUZK_NTT_MAX_LOG);
    if (radix_log < 1 || radix_log > CUZK_NTT_RADIX_LOG)
        return cuzk_fail(CUZK_EINVAL, "ntt domain: radix 2^%u is outside 2^1..2^%u", radix_log,
                         CUZK_NTT_RADIX_LOG);
    d->log_n = log_n;
    d->n = (size_t)1 << log_n;
    CUZK_TRY(cuzk_fr_root_of_unity(&d->omega, log_n));
    cuzk_fr_inv(&d->omega_inv, &d->omega);
    cuzk_fr_from_u64(&d->n_inv, d->n);
    cuzk_fr_inv(&d->n_inv, &d->n_inv);
    cuzk_fr_generator(&d->shift);
    cuzk_fr_inv(&d->shift_inv, &d->shift);

    /* The primitive 2^k-th root of bellperson is omega^(n / 2^k) for every
     * k <= log_n, so the sub-transform roots are powers of omega. */
    d->root_log = log_n < radix_log ? log_n : radix_log;
    cuzk_fr u, u_inv;
    CUZK_TRY(cuzk_fr_root_of_unity(&u, d->root_log));
    cuzk_fr_inv(&u_inv, &u);

    size_t total = 0;
    d->roots = roots_init(&u, d->root_log, &total);
    d->roots_inv = roots_init(&u_inv, d->root_log, &total);
    int ok = d->roots && d->roots_inv;
    ok = powers_init(&d->omega_pow, &d->omega, log_n, &total) && ok;
    ok = powers_init(&d->omega_inv_pow, &d->omega_inv, log_n, &total) && ok;
    ok = powers_init(&d->shift_pow, &d->shift, log_n, &total) && ok;
    ok = powers_init(&d->shift_inv_pow, &d->shift_inv, log_n, &total) && ok;
    plan_init(d);
    ok = ok && coset_tables_init(d, &total);
    if (!ok) {
        cuzk_ntt_domain_free(d);
        return cuzk_fail(CUZK_ENOMEM,
                         "ntt domain 2^%u: cannot allocate %zu bytes of twiddle tables", log_n,
                         total);
    }
    return CUZK_OK;
}

void cuzk_ntt_domain_free(cuzk_ntt_domain *d)
{
    free(d->roots);
    free(d->roots_inv);
    powers_free(&d->omega_pow);
    powers_free(&d->omega_inv_pow);
    powers_free(&d->shift_pow);
    powers_free(&d->shift_inv_pow);
    free(d->coset_pre);
    free(d->coset_post);
    memset(d, 0, sizeof *d);
}

void cuzk_ntt_powers_get(cuzk_fr *r, const cuzk_ntt_powers *p, size_t e)
{
    size_t mask = ((size_t)1 << p->lo_bits) - 1;
    blst_fr_mul(r, &p->hi[e >> p->lo_bits], &p->lo[e & mask]);
}

void cuzk_ntt_coset_z_inv(const cuzk_ntt_domain *d, cuzk_fr *z_inv)
{
    cuzk_fr one;
    cuzk_fr_one(&one);
    cuzk_fr_pow_u64(z_inv, &d->shift, d->n);
    blst_fr_sub(z_inv, z_inv, &one);
    cuzk_fr_inv(z_inv, z_inv);
}
