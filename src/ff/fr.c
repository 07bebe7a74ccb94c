/* Fr on the host: thin wrappers over blst_fr plus the pieces blst does not
 * expose (pow, roots of unity, canonical byte checks, vector loops on the
 * thread pool, a seeded generator for reproducible synthetic data). */
#include "cuzk/fr.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

const uint64_t CUZK_FR_MODULUS[4] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                     0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

void cuzk_fr_zero(cuzk_fr *r)
{
    memset(r, 0, sizeof *r);
}
void cuzk_fr_from_u64(cuzk_fr *r, uint64_t v)
{
    uint64_t l[4] = {v, 0, 0, 0};
    blst_fr_from_uint64(r, l);
}
void cuzk_fr_one(cuzk_fr *r)
{
    cuzk_fr_from_u64(r, 1);
}
int cuzk_fr_is_zero(const cuzk_fr *a)
{
    return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0;
}
int cuzk_fr_eq(const cuzk_fr *a, const cuzk_fr *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}
int cuzk_fr_is_one(const cuzk_fr *a)
{
    cuzk_fr one;
    cuzk_fr_one(&one);
    return cuzk_fr_eq(a, &one);
}
void cuzk_fr_neg(cuzk_fr *r, const cuzk_fr *a)
{
    blst_fr_cneg(r, a, 1);
}

void cuzk_fr_pow(cuzk_fr *r, const cuzk_fr *a, const uint64_t e[4])
{
    cuzk_fr acc, base = *a;
    cuzk_fr_one(&acc);
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 64; b++) {
            if ((e[i] >> b) & 1)
                blst_fr_mul(&acc, &acc, &base);
            blst_fr_sqr(&base, &base);
        }
    *r = acc;
}

void cuzk_fr_pow_u64(cuzk_fr *r, const cuzk_fr *a, uint64_t e)
{
    uint64_t l[4] = {e, 0, 0, 0};
    cuzk_fr_pow(r, a, l);
}

void cuzk_fr_inv(cuzk_fr *r, const cuzk_fr *a)
{
    blst_fr_inverse(r, a);
}

static int limbs_lt_modulus(const uint64_t l[4])
{
    for (int i = 3; i >= 0; i--) {
        if (l[i] < CUZK_FR_MODULUS[i])
            return 1;
        if (l[i] > CUZK_FR_MODULUS[i])
            return 0;
    }
    return 0;
}

cuzk_err cuzk_fr_from_bytes_le(cuzk_fr *r, const uint8_t in[32])
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++) {
        l[i] = 0;
        for (int b = 7; b >= 0; b--)
            l[i] = (l[i] << 8) | in[8 * i + b];
    }
    if (!limbs_lt_modulus(l))
        return cuzk_fail(CUZK_EFORMAT, "scalar is not canonical (>= r)");
    blst_fr_from_uint64(r, l);
    return CUZK_OK;
}

void cuzk_fr_to_u64s(uint64_t out[4], const cuzk_fr *a)
{
    blst_uint64_from_fr(out, a);
}

void cuzk_fr_to_bytes_le(uint8_t out[32], const cuzk_fr *a)
{
    uint64_t l[4];
    blst_uint64_from_fr(l, a);
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++)
            out[8 * i + b] = (uint8_t)(l[i] >> (8 * b));
}

void cuzk_fr_to_hex(char out[67], const cuzk_fr *a)
{
    static const char hx[] = "0123456789abcdef";
    uint64_t l[4];
    blst_uint64_from_fr(l, a);
    out[0] = '0';
    out[1] = 'x';
    for (int i = 0; i < 64; i++) {
        int nib = 63 - i; /* most significant nibble first */
        out[2 + i] = hx[(l[nib / 16] >> (4 * (nib % 16))) & 15];
    }
    out[66] = 0;
}

/* Multiply-accumulate on 5-limb integers to parse text without overflow. */
static int mul_add_small(uint64_t l[5], uint64_t m, uint64_t add)
{
    unsigned __int128 carry = add;
    for (int i = 0; i < 5; i++) {
        unsigned __int128 t = (unsigned __int128)l[i] * m + carry;
        l[i] = (uint64_t)t;
        carry = t >> 64;
    }
    return carry != 0 || l[4] != 0;
}

cuzk_err cuzk_fr_from_str(cuzk_fr *r, const char *s)
{
    uint64_t l[5] = {0};
    const char *p = s;
    unsigned base = 10;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    }
    if (!*p)
        return cuzk_fail(CUZK_EINVAL, "empty field element \"%s\"", s);
    for (; *p; p++) {
        int d;
        if (isdigit((unsigned char)*p))
            d = *p - '0';
        else if (base == 16 && isxdigit((unsigned char)*p))
            d = tolower((unsigned char)*p) - 'a' + 10;
        else
            return cuzk_fail(CUZK_EINVAL, "bad digit '%c' in field element \"%s\"", *p, s);
        if (mul_add_small(l, base, (uint64_t)d))
            return cuzk_fail(CUZK_EINVAL, "field element \"%s\" is >= r", s);
    }
    if (!limbs_lt_modulus(l))
        return cuzk_fail(CUZK_EINVAL, "field element \"%s\" is >= r", s);
    blst_fr_from_uint64(r, l);
    return CUZK_OK;
}

void cuzk_fr_generator(cuzk_fr *g)
{
    cuzk_fr_from_u64(g, 7);
}

static const uint64_t fr_odd_part[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
                                        0x299d7d483339d808ULL, 0x0000000073eda753ULL};

cuzk_err cuzk_fr_root_of_unity(cuzk_fr *w, unsigned log_n)
{
    if (log_n > CUZK_FR_TWO_ADICITY)
        return cuzk_fail(CUZK_EINVAL, "no root of unity of order 2^%u in Fr", log_n);
    cuzk_fr g, root;
    cuzk_fr_generator(&g);
    cuzk_fr_pow(&root, &g, fr_odd_part); /* t = (r - 1) >> 32 */
    for (unsigned i = log_n; i < CUZK_FR_TWO_ADICITY; i++)
        blst_fr_sqr(&root, &root);
    *w = root;
    return CUZK_OK;
}

cuzk_err cuzk_fr_root_of_unity_snarkjs(cuzk_fr *w, unsigned log_n)
{
    if (log_n > CUZK_FR_TWO_ADICITY)
        return cuzk_fail(CUZK_EINVAL, "no root of unity of order 2^%u in Fr", log_n);
    cuzk_fr five, root;
    cuzk_fr_from_u64(&five, 5);
    cuzk_fr_pow(&root, &five, fr_odd_part);
    for (unsigned i = log_n; i < CUZK_FR_TWO_ADICITY; i++)
        blst_fr_sqr(&root, &root);
    *w = root;
    return CUZK_OK;
}

/* The discrete log of snarkjs's 2^32-th root to base ours, bit by bit
 * (Pohlig-Hellman in a group of order 2^32): bit k of J is set when
 * (h w^-J)^(2^(31-k)) != 1 for the bits found so far. */
uint64_t cuzk_fr_snarkjs_root_exponent(void)
{
    cuzk_fr w, w_inv, h, one;
    cuzk_fr_root_of_unity(&w, CUZK_FR_TWO_ADICITY);
    cuzk_fr_root_of_unity_snarkjs(&h, CUZK_FR_TWO_ADICITY);
    cuzk_fr_inv(&w_inv, &w);
    cuzk_fr_one(&one);
    uint64_t j = 0;
    cuzk_fr w_inv_pow = w_inv; /* w^-(2^k) */
    for (unsigned k = 0; k < CUZK_FR_TWO_ADICITY; k++) {
        cuzk_fr e = h;
        for (unsigned i = 0; i < CUZK_FR_TWO_ADICITY - 1 - k; i++)
            blst_fr_sqr(&e, &e);
        if (!cuzk_fr_eq(&e, &one)) {
            j |= (uint64_t)1 << k;
            blst_fr_mul(&h, &h, &w_inv_pow);
        }
        blst_fr_sqr(&w_inv_pow, &w_inv_pow);
    }
    return j;
}

void cuzk_rng_seed(cuzk_rng *g, uint64_t seed)
{
    for (int i = 0; i < 4; i++) { /* splitmix64 */
        seed += 0x9E3779B97F4A7C15ULL;
        uint64_t z = seed;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        g->s[i] = z ^ (z >> 31);
    }
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t cuzk_rng_u64(cuzk_rng *g)
{
    uint64_t *s = g->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

void cuzk_fr_rng(cuzk_fr *r, cuzk_rng *g)
{
    uint64_t l[4];
    do {
        for (int i = 0; i < 4; i++)
            l[i] = cuzk_rng_u64(g);
        l[3] &= 0x7fffffffffffffffULL; /* 255 bits; rejection keeps it uniform */
    } while (!limbs_lt_modulus(l));
    blst_fr_from_uint64(r, l);
}

cuzk_err cuzk_fr_random(cuzk_fr *r)
{
    uint64_t l[4];
    do {
        CUZK_TRY(cuzk_random_bytes(l, sizeof l));
        l[3] &= 0x7fffffffffffffffULL;
    } while (!limbs_lt_modulus(l));
    blst_fr_from_uint64(r, l);
    return CUZK_OK;
}

/* Vector loops: one context shape for all element-wise operations. */
typedef enum { VOP_ADD, VOP_SUB, VOP_MUL, VOP_SCALE } vec_op;
typedef struct {
    vec_op op;
    cuzk_fr *r;
    const cuzk_fr *a, *b;
} vec_ctx;

static void vec_range(void *vctx, size_t lo, size_t hi, unsigned w)
{
    (void)w;
    vec_ctx *c = vctx;
    switch (c->op) {
    case VOP_ADD:
        for (size_t i = lo; i < hi; i++)
            blst_fr_add(&c->r[i], &c->a[i], &c->b[i]);
        break;
    case VOP_SUB:
        for (size_t i = lo; i < hi; i++)
            blst_fr_sub(&c->r[i], &c->a[i], &c->b[i]);
        break;
    case VOP_MUL:
        for (size_t i = lo; i < hi; i++)
            blst_fr_mul(&c->r[i], &c->a[i], &c->b[i]);
        break;
    case VOP_SCALE:
        for (size_t i = lo; i < hi; i++)
            blst_fr_mul(&c->r[i], &c->a[i], c->b);
        break;
    }
}

static void vec_run(vec_op op, cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    vec_ctx c = {op, r, a, b};
    cuzk_parallel_for(n, 4096, vec_range, &c);
}

void cuzk_fr_vec_add(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    vec_run(VOP_ADD, r, a, b, n);
}
void cuzk_fr_vec_sub(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    vec_run(VOP_SUB, r, a, b, n);
}
void cuzk_fr_vec_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *b, size_t n)
{
    vec_run(VOP_MUL, r, a, b, n);
}
void cuzk_fr_vec_scale(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *s, size_t n)
{
    vec_run(VOP_SCALE, r, a, s, n);
}

typedef struct {
    cuzk_fr *r;
    const cuzk_fr *a, *s;
    cuzk_fr c;
} powers_ctx;

static void powers_range(void *vctx, size_t lo, size_t hi, unsigned w)
{
    (void)w;
    powers_ctx *c = vctx;
    cuzk_fr p;
    cuzk_fr_pow_u64(&p, c->s, lo);
    blst_fr_mul(&p, &p, &c->c);
    for (size_t i = lo; i < hi; i++) {
        if (c->a)
            blst_fr_mul(&c->r[i], &c->a[i], &p);
        else
            c->r[i] = p;
        blst_fr_mul(&p, &p, c->s);
    }
}

void cuzk_fr_vec_powers_mul(cuzk_fr *r, const cuzk_fr *a, const cuzk_fr *s, const cuzk_fr *c,
                            size_t n)
{
    powers_ctx ctx = {r, a, s, {{0}}};
    if (c)
        ctx.c = *c;
    else
        cuzk_fr_one(&ctx.c);
    cuzk_parallel_for(n, 4096, powers_range, &ctx);
}

typedef struct {
    cuzk_fr *a, *scratch;
} inv_ctx;

static void inv_range(void *vctx, size_t lo, size_t hi, unsigned w)
{
    (void)w;
    inv_ctx *c = vctx;
    cuzk_fr acc, t;
    cuzk_fr_one(&acc);
    for (size_t i = lo; i < hi; i++) {
        c->scratch[i] = acc;
        if (!cuzk_fr_is_zero(&c->a[i]))
            blst_fr_mul(&acc, &acc, &c->a[i]);
    }
    blst_fr_inverse(&acc, &acc);
    for (size_t i = hi; i-- > lo;) {
        if (cuzk_fr_is_zero(&c->a[i]))
            continue;
        blst_fr_mul(&t, &acc, &c->scratch[i]);
        blst_fr_mul(&acc, &acc, &c->a[i]);
        c->a[i] = t;
    }
}

cuzk_err cuzk_fr_vec_inv(cuzk_fr *a, size_t n)
{
    if (n == 0)
        return CUZK_OK;
    cuzk_fr *scratch = malloc(n * sizeof *scratch);
    if (!scratch)
        return cuzk_fail(CUZK_ENOMEM, "batch inversion of %zu elements: out of memory", n);
    inv_ctx c = {a, scratch};
    cuzk_parallel_for(n, 1024, inv_range, &c);
    free(scratch);
    return CUZK_OK;
}

typedef struct {
    cuzk_fr *r;
    uint64_t seed;
} rngvec_ctx;

#define RNG_BLOCK 1024
static void rngvec_range(void *vctx, size_t lo, size_t hi, unsigned w)
{
    (void)w;
    rngvec_ctx *c = vctx;
    /* Each block of RNG_BLOCK elements has its own stream: same output for
     * any thread count. */
    for (size_t blk = lo; blk < hi; blk++) {
        cuzk_rng g;
        cuzk_rng_seed(&g, c->seed ^ (0xA24BAED4963EE407ULL * (blk + 1)));
        for (size_t i = 0; i < RNG_BLOCK; i++)
            cuzk_fr_rng(&c->r[blk * RNG_BLOCK + i], &g);
    }
}

void cuzk_fr_vec_rng(cuzk_fr *r, size_t n, uint64_t seed)
{
    size_t full = n / RNG_BLOCK;
    rngvec_ctx c = {r, seed};
    cuzk_parallel_for(full, 1, rngvec_range, &c);
    if (n % RNG_BLOCK) {
        cuzk_rng g;
        cuzk_rng_seed(&g, seed ^ (0xA24BAED4963EE407ULL * (full + 1)));
        for (size_t i = full * RNG_BLOCK; i < n; i++)
            cuzk_fr_rng(&r[i], &g);
    }
}

typedef struct {
    blst_scalar *out;
    const cuzk_fr *a;
} scal_ctx;

static void scal_range(void *vctx, size_t lo, size_t hi, unsigned w)
{
    (void)w;
    scal_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++)
        blst_scalar_from_fr(&c->out[i], &c->a[i]);
}

void cuzk_fr_vec_to_scalars(blst_scalar *out, const cuzk_fr *a, size_t n)
{
    scal_ctx c = {out, a};
    cuzk_parallel_for(n, 4096, scal_range, &c);
}
