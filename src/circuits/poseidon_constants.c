/* Poseidon constants derived at run time (poseidon.h): round numbers, Grain
 * LFSR round constants, the MDS matrix and neptune's optimized forms.
 *
 * Round numbers: neptune src/round_numbers.rs searches RF (even, 2..1000)
 * and RP (4..199) for the fewest S-boxes meeting the paper's security bounds
 * for a 256-bit prime and M = 128, with its security margin (RF + 2,
 * RP * 1.075 rounded up). It computes in f32, so this does too: a different
 * float type could round a bound differently.
 *
 * Round constants: the Grain LFSR of the Poseidon paper (neptune
 * src/round_constants.rs): 80-bit state initialised from (field = 1,
 * sbox = 1, field size 255, t, RF, RP, 30 ones), 160 warm-up bits, then
 * self-shrinking pairs; each constant is 255 bits taken most significant
 * first (a 7-bit first byte, then 31 bytes) and rejected when >= r.
 *
 * Optimized forms (neptune src/mds.rs, src/preprocessing.rs): the compressed
 * round constants push each round's constants back through M^-1 so that only
 * one constant per partial round remains; the sparse factorization writes
 * M^RP-ish products as pre_sparse * S_1 * ... * S_RP with each S_k identity
 * except its first row and column. Products are row vector times matrix
 * ("apply_matrix"), as in neptune. */
#include "poseidon_internal.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ---- round numbers ---- */

static int round_numbers_secure(unsigned t, unsigned rf, unsigned rp)
{
    const float n = 256.0f, m = 128.0f;
    float ft = (float)t, frp = (float)rp;
    float rf_stat = m <= (n - 3.0f) * (ft + 1.0f) ? 6.0f : 10.0f;
    float rf_interp = 0.43f * m + log2f(ft) - frp;
    float rf_grob_1 = 0.21f * n - frp;
    float rf_grob_2 = (0.14f * n - 1.0f - frp) / (ft - 1.0f);
    float bounds[4] = {rf_stat, rf_interp, rf_grob_1, rf_grob_2};
    long max = 0;
    for (int i = 0; i < 4; i++) {
        float c = ceilf(bounds[i]);
        /* Rust's `as usize` saturates negatives to 0. */
        long v = c < 0 ? 0 : (long)c;
        if (v > max)
            max = v;
    }
    return (long)rf >= max;
}

cuzk_err cuzk_poseidon_round_numbers(unsigned arity, unsigned *rf_out, unsigned *rp_out)
{
    if (arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY)
        return cuzk_fail(CUZK_EINVAL, "poseidon: arity %u, supported 1..%d", arity,
                         CUZK_POSEIDON_MAX_ARITY);
    unsigned t = arity + 1, rf = 0, rp = 0;
    uint64_t best = UINT64_MAX;
    for (unsigned rf_test = 2; rf_test <= 1000; rf_test += 2)
        for (unsigned rp_test = 4; rp_test < 200; rp_test++) {
            if (!round_numbers_secure(t, rf_test, rp_test))
                continue;
            unsigned f = rf_test + 2;
            unsigned p = (unsigned)ceilf(1.075f * (float)rp_test);
            uint64_t cost = (uint64_t)t * f + p;
            if (cost < best || (cost == best && f < rf)) {
                rf = f;
                rp = p;
                best = cost;
            }
        }
    *rf_out = rf;
    *rp_out = rp;
    return CUZK_OK;
}

/* ---- Grain LFSR ---- */

typedef struct {
    uint8_t s[80];
    unsigned head; /* s[head] is bit 0 of the window */
} grain;

static int grain_step(grain *g)
{
#define B(i) g->s[(g->head + (i)) % 80]
    int nb = B(62) ^ B(51) ^ B(38) ^ B(23) ^ B(13) ^ B(0);
#undef B
    g->s[g->head] = (uint8_t)nb; /* bit 0 leaves, the new bit enters at 79 */
    g->head = (g->head + 1) % 80;
    return nb;
}

static int grain_next(grain *g)
{
    for (;;) {
        int first = grain_step(g);
        int second = grain_step(g);
        if (first)
            return second;
    }
}

static void grain_append(grain *g, unsigned *pos, unsigned nbits, uint64_t v)
{
    for (unsigned i = nbits; i-- > 0;)
        g->s[(*pos)++] = (uint8_t)((v >> i) & 1);
}

void cuzk_poseidon_grain_constants(unsigned width, unsigned rf, unsigned rp, cuzk_fr *out)
{
    grain g = {{0}, 0};
    unsigned pos = 0;
    grain_append(&g, &pos, 2, 1);    /* field: prime */
    grain_append(&g, &pos, 4, 1);    /* S-box x^5 as neptune encodes it */
    grain_append(&g, &pos, 12, 255); /* field size in bits */
    grain_append(&g, &pos, 12, width);
    grain_append(&g, &pos, 10, rf);
    grain_append(&g, &pos, 10, rp);
    grain_append(&g, &pos, 30, 0x3fffffff);
    for (int i = 0; i < 160; i++)
        grain_step(&g);
    size_t n = (size_t)(rf + rp) * width;
    for (size_t k = 0; k < n; k++) {
        for (;;) {
            uint8_t be[32] = {0}, le[32];
            for (int bit = 0; bit < 255; bit++) {
                int byte = (bit + 1) / 8; /* 7 bits in byte 0, then whole bytes */
                be[byte] = (uint8_t)(be[byte] << 1 | grain_next(&g));
            }
            for (int i = 0; i < 32; i++)
                le[i] = be[31 - i];
            if (cuzk_fr_from_bytes_le(&out[k], le) == CUZK_OK)
                break;
        }
    }
    cuzk_err_clear();
}

/* ---- matrices ---- */

#define AT(mat, w, i, j) ((mat)[(size_t)(i) * (w) + (j)])

/* Gauss-Jordan inverse of a w x w matrix; EINTERNAL when singular. */
static cuzk_err mat_inverse(cuzk_fr *inv, const cuzk_fr *a, unsigned w)
{
    cuzk_fr *t = malloc((size_t)w * w * sizeof *t);
    if (!t)
        return cuzk_fail(CUZK_ENOMEM, "poseidon: out of memory");
    memcpy(t, a, (size_t)w * w * sizeof *t);
    for (unsigned i = 0; i < w; i++)
        for (unsigned j = 0; j < w; j++) {
            if (i == j)
                cuzk_fr_one(&AT(inv, w, i, j));
            else
                cuzk_fr_zero(&AT(inv, w, i, j));
        }
    for (unsigned col = 0; col < w; col++) {
        unsigned piv = col;
        while (piv < w && cuzk_fr_is_zero(&AT(t, w, piv, col)))
            piv++;
        if (piv == w) {
            free(t);
            return cuzk_fail(CUZK_EINTERNAL, "poseidon: singular matrix");
        }
        if (piv != col)
            for (unsigned j = 0; j < w; j++) {
                cuzk_fr x = AT(t, w, col, j), y = AT(inv, w, col, j);
                AT(t, w, col, j) = AT(t, w, piv, j);
                AT(inv, w, col, j) = AT(inv, w, piv, j);
                AT(t, w, piv, j) = x;
                AT(inv, w, piv, j) = y;
            }
        cuzk_fr pinv;
        cuzk_fr_inv(&pinv, &AT(t, w, col, col));
        for (unsigned j = 0; j < w; j++) {
            blst_fr_mul(&AT(t, w, col, j), &AT(t, w, col, j), &pinv);
            blst_fr_mul(&AT(inv, w, col, j), &AT(inv, w, col, j), &pinv);
        }
        for (unsigned i = 0; i < w; i++) {
            if (i == col || cuzk_fr_is_zero(&AT(t, w, i, col)))
                continue;
            cuzk_fr f = AT(t, w, i, col), p;
            for (unsigned j = 0; j < w; j++) {
                blst_fr_mul(&p, &f, &AT(t, w, col, j));
                blst_fr_sub(&AT(t, w, i, j), &AT(t, w, i, j), &p);
                blst_fr_mul(&p, &f, &AT(inv, w, col, j));
                blst_fr_sub(&AT(inv, w, i, j), &AT(inv, w, i, j), &p);
            }
        }
    }
    free(t);
    return CUZK_OK;
}

/* r = a x b (w x w); r must not alias. */
static void mat_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, unsigned w)
{
    for (unsigned i = 0; i < w; i++)
        for (unsigned j = 0; j < w; j++) {
            cuzk_fr acc, p;
            cuzk_fr_zero(&acc);
            for (unsigned k = 0; k < w; k++) {
                blst_fr_mul(&p, &AT(a, w, i, k), &AT(b, w, k, j));
                blst_fr_add(&acc, &acc, &p);
            }
            AT(r, w, i, j) = acc;
        }
}

/* r[j] = sum_i m[i][j] v[i] (neptune apply_matrix); r must not alias v. */
static void vec_mat(cuzk_fr *r, const cuzk_fr *v, const cuzk_fr *m, unsigned w)
{
    for (unsigned j = 0; j < w; j++) {
        cuzk_fr acc, p;
        cuzk_fr_zero(&acc);
        for (unsigned i = 0; i < w; i++) {
            blst_fr_mul(&p, &AT(m, w, i, j), &v[i]);
            blst_fr_add(&acc, &acc, &p);
        }
        r[j] = acc;
    }
}

/* compress_round_constants with every partial round preprocessed. */
static cuzk_err compress_constants(cuzk_poseidon *p, const cuzk_fr *m_inv)
{
    unsigned w = p->width, half = p->rf / 2;
    const cuzk_fr *rc = p->rc;
    cuzk_fr acc[CUZK_POSEIDON_MAX_ARITY + 1], inv[CUZK_POSEIDON_MAX_ARITY + 1];
    cuzk_fr *partial = malloc(p->rp * sizeof *partial);
    if (!partial)
        return cuzk_fail(CUZK_ENOMEM, "poseidon: out of memory");
    size_t o = 0;
    for (unsigned j = 0; j < w; j++)
        p->crc[o++] = rc[j];
    for (unsigned i = 0; i + 1 < half; i++) {
        vec_mat(p->crc + o, rc + (size_t)(i + 1) * w, m_inv, w);
        o += w;
    }
    unsigned final_round = half + p->rp;
    memcpy(acc, rc + (size_t)final_round * w, w * sizeof *acc);
    for (unsigned i = 0; i < p->rp; i++) {
        vec_mat(inv, acc, m_inv, w);
        partial[i] = inv[0];
        cuzk_fr_zero(&inv[0]);
        const cuzk_fr *prev = rc + (size_t)(final_round - i - 1) * w;
        for (unsigned j = 0; j < w; j++)
            blst_fr_add(&acc[j], &prev[j], &inv[j]);
    }
    vec_mat(p->crc + o, acc, m_inv, w);
    o += w;
    for (unsigned i = p->rp; i-- > 0;)
        p->crc[o++] = partial[i];
    for (unsigned i = 1; i < half; i++) {
        vec_mat(p->crc + o, rc + (size_t)(i + final_round) * w, m_inv, w);
        o += w;
    }
    free(partial);
    return CUZK_OK;
}

/* factor_to_sparse_matrixes(transpose(M), RP). */
static cuzk_err sparse_factor(cuzk_poseidon *p)
{
    unsigned w = p->width, h = w - 1;
    size_t ww = (size_t)w * w;
    cuzk_fr *base = malloc(ww * sizeof *base), *curr = malloc(ww * sizeof *curr),
            *mp = malloc(ww * sizeof *mp), *hat = malloc((size_t)h * h * sizeof *hat),
            *hat_inv = malloc((size_t)h * h * sizeof *hat_inv);
    cuzk_err e = CUZK_OK;
    if (!base || !curr || !mp || !hat || !hat_inv) {
        e = cuzk_fail(CUZK_ENOMEM, "poseidon: out of memory");
        goto out;
    }
    for (unsigned i = 0; i < w; i++)
        for (unsigned j = 0; j < w; j++)
            AT(base, w, i, j) = AT(p->m, w, j, i);
    memcpy(curr, base, ww * sizeof *curr);
    for (unsigned k = 0; k < p->rp; k++) {
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < h; j++)
                AT(hat, h, i, j) = AT(curr, w, i + 1, j + 1);
        if ((e = mat_inverse(hat_inv, hat, h)))
            goto out;
        cuzk_fr col[CUZK_POSEIDON_MAX_ARITY], what[CUZK_POSEIDON_MAX_ARITY];
        for (unsigned i = 0; i < h; i++)
            col[i] = AT(curr, w, i + 1, 0);
        vec_mat(what, col, hat_inv, h);
        /* Built in application order reversed: the first derived matrix is
         * the last one applied. */
        unsigned slot = p->rp - 1 - k;
        cuzk_fr *wh = p->w_hat + (size_t)slot * w, *vr = p->v_rest + (size_t)slot * h;
        wh[0] = AT(curr, w, 0, 0);
        for (unsigned i = 0; i < h; i++) {
            wh[i + 1] = what[i];
            vr[i] = AT(curr, w, 0, i + 1);
        }
        /* M' : row 0 = e_0, rows i >= 1 = (0, curr[i][1..]). */
        for (unsigned i = 0; i < w; i++)
            for (unsigned j = 0; j < w; j++) {
                if (i == 0 && j == 0)
                    cuzk_fr_one(&AT(mp, w, i, j));
                else if (i == 0 || j == 0)
                    cuzk_fr_zero(&AT(mp, w, i, j));
                else
                    AT(mp, w, i, j) = AT(curr, w, i, j);
            }
        mat_mul(curr, base, mp, w);
    }
    memcpy(p->pre_sparse, curr, ww * sizeof *curr);
out:
    free(base);
    free(curr);
    free(mp);
    free(hat);
    free(hat_inv);
    return e;
}

void cuzk_poseidon_free(cuzk_poseidon *p)
{
    if (!p)
        return;
    free(p->rc);
    free(p->m);
    free(p->pre_sparse);
    free(p->w_hat);
    free(p->v_rest);
    free(p->crc);
    free(p);
}

cuzk_err cuzk_poseidon_new(cuzk_poseidon **out, unsigned arity, cuzk_poseidon_type type,
                           uint64_t param)
{
    *out = NULL;
    unsigned rf, rp;
    CUZK_TRY(cuzk_poseidon_round_numbers(arity, &rf, &rp));
    cuzk_fr tag;
    unsigned n_inputs = arity;
    switch (type) {
    case CUZK_POSEIDON_MERKLE: cuzk_fr_from_u64(&tag, (1ull << arity) - 1); break;
    case CUZK_POSEIDON_CONSTANT_LENGTH:
        if (param < 1 || param > arity)
            return cuzk_fail(CUZK_EINVAL, "poseidon: constant length %llu, need 1..%u",
                             (unsigned long long)param, arity);
        cuzk_fr_from_u64(&tag, param);
        blst_fr_mul(&tag, &tag, cuzk_cs_pow2(64));
        n_inputs = (unsigned)param;
        break;
    case CUZK_POSEIDON_CUSTOM:
        if (param < 1 || param > 256)
            return cuzk_fail(CUZK_EINVAL, "poseidon: custom domain id %llu, need 1..256",
                             (unsigned long long)param);
        cuzk_fr_from_u64(&tag, param);
        blst_fr_mul(&tag, &tag, cuzk_cs_pow2(40));
        break;
    default: return cuzk_fail(CUZK_EINVAL, "poseidon: unknown hash type %d", (int)type);
    }
    cuzk_poseidon *p = calloc(1, sizeof *p);
    if (!p)
        return cuzk_fail(CUZK_ENOMEM, "poseidon: out of memory");
    unsigned w = arity + 1;
    p->arity = arity;
    p->width = w;
    p->rf = rf;
    p->rp = rp;
    p->n_inputs = n_inputs;
    p->tag = tag;
    size_t ww = (size_t)w * w;
    p->rc = malloc((size_t)(rf + rp) * w * sizeof *p->rc);
    p->m = malloc(ww * sizeof *p->m);
    p->pre_sparse = malloc(ww * sizeof *p->pre_sparse);
    p->w_hat = malloc((size_t)rp * w * sizeof *p->w_hat);
    p->v_rest = malloc((size_t)rp * (w - 1) * sizeof *p->v_rest);
    p->crc = malloc(((size_t)rf * w + rp) * sizeof *p->crc);
    cuzk_fr *m_inv = malloc(ww * sizeof *m_inv);
    cuzk_err e = CUZK_OK;
    if (!p->rc || !p->m || !p->pre_sparse || !p->w_hat || !p->v_rest || !p->crc || !m_inv) {
        e = cuzk_fail(CUZK_ENOMEM, "poseidon: out of memory");
        goto out;
    }
    cuzk_poseidon_grain_constants(w, rf, rp, p->rc);
    for (unsigned i = 0; i < w; i++)
        for (unsigned j = 0; j < w; j++) {
            cuzk_fr_from_u64(&AT(p->m, w, i, j), (uint64_t)i + w + j);
            cuzk_fr_inv(&AT(p->m, w, i, j), &AT(p->m, w, i, j));
        }
    if ((e = mat_inverse(m_inv, p->m, w)))
        goto out;
    if ((e = compress_constants(p, m_inv)))
        goto out;
    e = sparse_factor(p);
out:
    free(m_inv);
    if (e) {
        cuzk_poseidon_free(p);
        return e;
    }
    *out = p;
    return CUZK_OK;
}

/* ---- shared Merkle constants ---- */

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static cuzk_poseidon *g_merkle[CUZK_POSEIDON_MAX_ARITY + 1];

cuzk_err cuzk_poseidon_merkle(unsigned arity, const cuzk_poseidon **out)
{
    *out = NULL;
    if (arity < 1 || arity > CUZK_POSEIDON_MAX_ARITY)
        return cuzk_fail(CUZK_EINVAL, "poseidon: arity %u, supported 1..%d", arity,
                         CUZK_POSEIDON_MAX_ARITY);
    pthread_mutex_lock(&g_lock);
    cuzk_err e = CUZK_OK;
    if (!g_merkle[arity])
        e = cuzk_poseidon_new(&g_merkle[arity], arity, CUZK_POSEIDON_MERKLE, 0);
    *out = g_merkle[arity];
    pthread_mutex_unlock(&g_lock);
    return e;
}

cuzk_err cuzk_poseidon_gen_randomness(const cuzk_poseidon **out)
{
    static cuzk_poseidon *g_gen;
    pthread_mutex_lock(&g_lock);
    cuzk_err e = CUZK_OK;
    if (!g_gen)
        e = cuzk_poseidon_new(&g_gen, 2, CUZK_POSEIDON_CUSTOM, 1);
    *out = g_gen;
    pthread_mutex_unlock(&g_lock);
    return e;
}

unsigned cuzk_poseidon_arity(const cuzk_poseidon *p)
{
    return p->arity;
}
const cuzk_fr *cuzk_poseidon_domain_tag(const cuzk_poseidon *p)
{
    return &p->tag;
}
unsigned cuzk_poseidon_input_count(const cuzk_poseidon *p)
{
    return p->n_inputs;
}

void cuzk_poseidon_rounds(const cuzk_poseidon *p, unsigned *rf, unsigned *rp)
{
    *rf = p->rf;
    *rp = p->rp;
}

const cuzk_fr *cuzk_poseidon_round_constant(const cuzk_poseidon *p, size_t i)
{
    return i < (size_t)(p->rf + p->rp) * p->width ? &p->rc[i] : NULL;
}
