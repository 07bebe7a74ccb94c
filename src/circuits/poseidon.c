/* Native Poseidon (poseidon.h): neptune's optimized static path, the plain
 * reference permutation, and a multi-threaded batch over the pool.
 *
 * The optimized path (neptune Poseidon::hash_optimized_static): add the
 * first w constants, then each S-box round adds its compressed constant after
 * the S-box; round r multiplies by M, except r = RF/2 - 1 (pre-sparse) and
 * the RP partial rounds after it (sparse: O(w) instead of O(w^2)); the
 * terminal round adds no constant. The state lives on the stack; nothing is
 * allocated. */
#include "poseidon_internal.h"

#include "cuzk/threads.h"

#include <string.h>

#define WMAX (CUZK_POSEIDON_MAX_ARITY + 1)

static inline void sbox(cuzk_fr *x)
{
    cuzk_fr t;
    blst_fr_sqr(&t, x);
    blst_fr_sqr(&t, &t);
    blst_fr_mul(x, x, &t);
}

static void vec_times(cuzk_fr *s, const cuzk_fr *m, unsigned w)
{
    cuzk_fr r[WMAX], p;
    for (unsigned j = 0; j < w; j++) {
        cuzk_fr_zero(&r[j]);
        for (unsigned i = 0; i < w; i++) {
            blst_fr_mul(&p, &m[(size_t)i * w + j], &s[i]);
            blst_fr_add(&r[j], &r[j], &p);
        }
    }
    memcpy(s, r, w * sizeof *s);
}

static void sparse_times(cuzk_fr *s, const cuzk_fr *w_hat, const cuzk_fr *v_rest, unsigned w)
{
    cuzk_fr r0, p;
    cuzk_fr_zero(&r0);
    for (unsigned i = 0; i < w; i++) {
        blst_fr_mul(&p, &w_hat[i], &s[i]);
        blst_fr_add(&r0, &r0, &p);
    }
    for (unsigned j = 1; j < w; j++) {
        blst_fr_mul(&p, &v_rest[j - 1], &s[0]);
        blst_fr_add(&s[j], &s[j], &p);
    }
    s[0] = r0;
}

static void round_mds(const cuzk_poseidon *p, cuzk_fr *s, unsigned round)
{
    unsigned w = p->width, sparse_at = p->rf / 2 - 1;
    if (round == sparse_at)
        vec_times(s, p->pre_sparse, w);
    else if (round > sparse_at && round < p->rf / 2 + p->rp) {
        size_t k = round - sparse_at - 1;
        sparse_times(s, p->w_hat + k * w, p->v_rest + k * (w - 1), w);
    } else
        vec_times(s, p->m, w);
}

static void init_state(const cuzk_poseidon *p, const cuzk_fr *in, cuzk_fr *s)
{
    s[0] = p->tag;
    for (unsigned i = 1; i < p->width; i++) {
        if (i <= p->n_inputs)
            s[i] = in[i - 1];
        else
            cuzk_fr_zero(&s[i]);
    }
}

static void hash_one(const cuzk_poseidon *p, const cuzk_fr *in, cuzk_fr *out)
{
    unsigned w = p->width, half = p->rf / 2, round = 0;
    cuzk_fr s[WMAX];
    init_state(p, in, s);
    const cuzk_fr *k = p->crc;
    for (unsigned i = 0; i < w; i++)
        blst_fr_add(&s[i], &s[i], k++);
    for (unsigned r = 0; r < half; r++, round++) {
        for (unsigned i = 0; i < w; i++) {
            sbox(&s[i]);
            blst_fr_add(&s[i], &s[i], k++);
        }
        round_mds(p, s, round);
    }
    for (unsigned r = 0; r < p->rp; r++, round++) {
        sbox(&s[0]);
        blst_fr_add(&s[0], &s[0], k++);
        round_mds(p, s, round);
    }
    for (unsigned r = 1; r < half; r++, round++) {
        for (unsigned i = 0; i < w; i++) {
            sbox(&s[i]);
            blst_fr_add(&s[i], &s[i], k++);
        }
        round_mds(p, s, round);
    }
    for (unsigned i = 0; i < w; i++)
        sbox(&s[i]);
    round_mds(p, s, round);
    *out = s[1];
}

static cuzk_err check_n(const cuzk_poseidon *p, size_t n)
{
    if (n != p->n_inputs)
        return cuzk_fail(CUZK_EINVAL, "poseidon: %zu inputs, arity %u hash takes %u", n, p->arity,
                         p->n_inputs);
    return CUZK_OK;
}

cuzk_err cuzk_poseidon_hash(const cuzk_poseidon *p, const cuzk_fr *in, size_t n, cuzk_fr *out)
{
    CUZK_TRY(check_n(p, n));
    hash_one(p, in, out);
    return CUZK_OK;
}

cuzk_err cuzk_poseidon_hash_plain(const cuzk_poseidon *p, const cuzk_fr *in, size_t n, cuzk_fr *out)
{
    CUZK_TRY(check_n(p, n));
    unsigned w = p->width, half = p->rf / 2, rounds = p->rf + p->rp;
    cuzk_fr s[WMAX];
    init_state(p, in, s);
    for (unsigned r = 0; r < rounds; r++) {
        const cuzk_fr *k = p->rc + (size_t)r * w;
        int full = r < half || r >= half + p->rp;
        for (unsigned i = 0; i < w; i++)
            blst_fr_add(&s[i], &s[i], &k[i]);
        for (unsigned i = 0; i < (full ? w : 1); i++)
            sbox(&s[i]);
        vec_times(s, p->m, w);
    }
    *out = s[1];
    return CUZK_OK;
}

typedef struct {
    const cuzk_poseidon *p;
    const cuzk_fr *in;
    cuzk_fr *out;
} batch_ctx;

static void batch_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    batch_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++)
        hash_one(c->p, c->in + i * c->p->n_inputs, &c->out[i]);
}

cuzk_err cuzk_poseidon_hash_many(const cuzk_poseidon *p, const cuzk_fr *in, size_t count,
                                 cuzk_fr *out)
{
    batch_ctx c = {p, in, out};
    cuzk_parallel_for(count, 64, batch_range, &c);
    return CUZK_OK;
}
