/* A synthetic circuit generator with Filecoin-like statistics (synth.h).
 *
 * The circuit is a sequence of "blocks", each modelled on what PoRep spends
 * its constraints on (SHA-256 bit logic around Poseidon-style arithmetic):
 *
 *   decomposition  k fresh bits b_i, each with bellperson's boolean
 *                  constraint (1 - b) * b = 0, then x with the packing
 *                  constraint (sum 2^i b_i) * 1 = x              k + 1 rows
 *   bit gates      G gates c = a XOR b ((2a) * b = a + b - c, 3 in 4) or
 *                  c = a AND b (a * b = c); a is mostly the previous gate's
 *                  output (sometimes a recent bit), b is one of this
 *                  block's decomposition bits                         G rows
 *   output packing the last min(32, G) gate outputs packed into one number
 *                  (sum 2^i c_i) * 1 = p                                1 row
 *   x^5 rounds     R Poseidon-like rounds u -> u^5 with a round constant
 *                  and an "MDS" multiplier from small seeded tables:
 *                  u * u = y, y * y = z, z * u = t, where the first u of a
 *                  block is m*t' + p' + x + rc (t', p' from the previous
 *                  block) and later ones are m*t + rc                3R rows
 *
 * A full block is 160 rows (k = 32, G = 102, R = 8); a shorter budget gets a
 * proportionally smaller block, and a tail of fewer than 8 rows is filled
 * with single gates, so any size comes out exact. Per full block ~84% of the
 * aux values are bits. B only sees the decomposition bits (the b operands
 * and booleanity), x, y and the chaining values, while A sees nearly every gate
 * output: B's non-empty columns are ~34% of A's (PoRep's b_g1 is ~25% of a).
 * Every aux variable appears in at least one constraint by construction.
 *
 * Public input j is the packing of 8 recent bits, (sum 2^i b_i) * 1 = x_j,
 * placed at evenly spread points of the circuit; with bellperson's input
 * constraint each costs 2 rows.
 *
 * Two generators keep the structure independent of the values: `shape`
 * draws every structural choice (gate kinds, operands, constants) and `vals`
 * draws only witness values, and is consulted only with values.
 *
 * The generator writes into one of two sinks through alloc_aux,
 * alloc_input and constrain, so both share every line of gadget logic:
 *   - the R1CS builder (cuzk_synth_build), which stores every term;
 *   - values only (cuzk_synth_witness): constraints are counted, not stored,
 *     and each value is written straight to its final place in
 *     w = (1, inputs..., aux...). The input count (n_public + 1) is known up
 *     front and every aux variable is defined by its own body row, so w is
 *     allocated once at its final size; handles are numbered as the builder
 *     numbers them (input i, CUZK_VAR_AUX_BIT | aux j), so aux j lands at
 *     w[n_public + 1 + j], the builder's column for it. Finalize adds rows
 *     only (bellperson's input constraints), no variables. This costs
 *     32 bytes per variable and no allocation per constraint. */
#include "cuzk/synth.h"

#include <stdlib.h>
#include <string.h>

#define FULL_BLOCK 160u
#define MIN_BLOCK 8u
#define N_CONSTANTS 16u
#define RING 256u /* recent bits available as gate and public-input operands */
#define RECENT 64u
#define PUB_BITS 8u
#define MAX_TERMS 40u

typedef struct {
    cuzk_var var;
    cuzk_fr val; /* meaningful only with values */
} value_var;

typedef struct {
    cuzk_r1cs *cs; /* the builder sink; NULL for the values-only sink */
    int values;

    /* Values-only sink: w = (1, inputs..., aux...) with room for
     * max_inputs inputs (ONE included) and max_aux aux variables. */
    cuzk_fr *w;
    uint32_t n_inputs, max_inputs;
    uint64_t n_aux, max_aux;
    uint64_t rows; /* constraints so far, input constraints included */

    cuzk_rng shape, vals;
    cuzk_fr rc[N_CONSTANTS], mds[N_CONSTANTS], pow2[64], one, minus_one, two;

    cuzk_var ring_var[RING];
    uint8_t ring_bit[RING];
    uint64_t ring_n; /* bits pushed so far */

    cuzk_var dec_var[32]; /* the latest decomposition: b operands of gates */
    uint8_t dec_bit[32];
    unsigned n_dec;

    int chained; /* a previous block left t and p to fold in */
    value_var t_prev, p_prev;
    uint64_t emitted; /* body rows so far (public inputs' rows excluded) */
} gen;

static cuzk_term term(cuzk_var v, const cuzk_fr *c)
{
    return (cuzk_term){v, *c};
}

static void ring_push(gen *g, cuzk_var v, uint8_t bit)
{
    g->ring_var[g->ring_n % RING] = v;
    g->ring_bit[g->ring_n % RING] = bit;
    g->ring_n++;
}

/* Position (absolute push index) of a random bit among the recent ones. */
static uint64_t ring_pick(gen *g)
{
    uint64_t span = g->ring_n < RECENT ? g->ring_n : RECENT;
    return g->ring_n - 1 - cuzk_rng_u64(&g->shape) % span;
}

/* ---- the sink: the builder, or values only ---- */

static cuzk_err alloc_aux(gen *g, const cuzk_fr *v, cuzk_var *out)
{
    if (g->cs)
        return cuzk_r1cs_alloc_aux(g->cs, g->values ? v : NULL, out);
    if (g->n_aux >= g->max_aux)
        return cuzk_fail(CUZK_EINTERNAL, "synth: more than %llu aux variables",
                         (unsigned long long)g->max_aux);
    g->w[g->max_inputs + g->n_aux] = *v;
    *out = CUZK_VAR_AUX_BIT | (uint32_t)g->n_aux++;
    return CUZK_OK;
}

static cuzk_err alloc_input(gen *g, const cuzk_fr *v, cuzk_var *out)
{
    if (g->cs)
        return cuzk_r1cs_alloc_input(g->cs, g->values ? v : NULL, out);
    if (g->n_inputs >= g->max_inputs)
        return cuzk_fail(CUZK_EINTERNAL, "synth: more than %u inputs", g->max_inputs);
    g->w[g->n_inputs] = *v;
    *out = g->n_inputs++;
    return CUZK_OK;
}

static cuzk_err constrain(gen *g, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                          const cuzk_term *c, size_t nc)
{
    g->rows++;
    return g->cs ? cuzk_r1cs_enforce(g->cs, a, na, b, nb, c, nc) : CUZK_OK;
}

/* Bellperson's input constraints: one row per input, no variables. */
static cuzk_err finalize(gen *g)
{
    if (g->cs) {
        g->rows += cuzk_r1cs_num_inputs(g->cs);
        return cuzk_r1cs_finalize(g->cs);
    }
    if (g->n_inputs != g->max_inputs) /* the aux were placed after max_inputs */
        return cuzk_fail(CUZK_EINTERNAL, "synth: %u inputs instead of %u", g->n_inputs,
                         g->max_inputs);
    g->rows += g->n_inputs;
    return CUZK_OK;
}

/* A body row (public inputs' rows are not). */
static cuzk_err enforce(gen *g, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                        const cuzk_term *c, size_t nc)
{
    g->emitted++;
    return constrain(g, a, na, b, nb, c, nc);
}

static void fr_of_bit(cuzk_fr *r, uint8_t bit, const gen *g)
{
    if (bit)
        *r = g->one;
    else
        cuzk_fr_zero(r);
}

/* k booleanity rows and one packing row: k bits and x. */
static cuzk_err decompose(gen *g, unsigned k, value_var *x)
{
    uint64_t xv = g->values ? cuzk_rng_u64(&g->vals) & (((uint64_t)1 << k) - 1) : 0;
    cuzk_term pack[32];
    g->n_dec = k;
    for (unsigned i = 0; i < k; i++) {
        uint8_t bit = (uint8_t)((xv >> i) & 1);
        cuzk_fr v;
        cuzk_var b;
        fr_of_bit(&v, bit, g);
        CUZK_TRY(alloc_aux(g, &v, &b));
        cuzk_term a_lc[2] = {term(CUZK_VAR_ONE, &g->one), term(b, &g->minus_one)};
        cuzk_term b_lc = term(b, &g->one);
        CUZK_TRY(enforce(g, a_lc, 2, &b_lc, 1, NULL, 0));
        g->dec_var[i] = b;
        g->dec_bit[i] = bit;
        ring_push(g, b, bit);
        pack[i] = term(b, &g->pow2[i]);
    }
    cuzk_fr_from_u64(&x->val, xv);
    CUZK_TRY(alloc_aux(g, &x->val, &x->var));
    cuzk_term one = term(CUZK_VAR_ONE, &g->one), c_lc = term(x->var, &g->one);
    return enforce(g, pack, k, &one, 1, &c_lc, 1);
}

/* One XOR or AND gate whose output joins the ring. */
static cuzk_err gate(gen *g)
{
    uint64_t ai = cuzk_rng_u64(&g->shape) % 4 ? g->ring_n - 1 : ring_pick(g);
    unsigned bi = (unsigned)(cuzk_rng_u64(&g->shape) % g->n_dec);
    int is_and = cuzk_rng_u64(&g->shape) % 4 == 0;
    cuzk_var a = g->ring_var[ai % RING], b = g->dec_var[bi];
    uint8_t av = g->ring_bit[ai % RING], bv = g->dec_bit[bi];
    uint8_t cv = is_and ? (av & bv) : (av ^ bv);
    cuzk_fr v;
    cuzk_var c;
    fr_of_bit(&v, cv, g);
    CUZK_TRY(alloc_aux(g, &v, &c));
    cuzk_term b_lc = term(b, &g->one);
    if (is_and) {
        cuzk_term a_lc = term(a, &g->one), c_lc = term(c, &g->one);
        CUZK_TRY(enforce(g, &a_lc, 1, &b_lc, 1, &c_lc, 1));
    } else {
        cuzk_term a_lc = term(a, &g->two);
        cuzk_term c_lc[3] = {term(a, &g->one), term(b, &g->one), term(c, &g->minus_one)};
        CUZK_TRY(enforce(g, &a_lc, 1, &b_lc, 1, c_lc, 3));
    }
    ring_push(g, c, cv);
    return CUZK_OK;
}

/* (sum 2^i bit_i) * 1 = out over the last n ring entries (n <= 32). */
static cuzk_err pack_recent(gen *g, unsigned n, value_var *out)
{
    cuzk_term lc[32];
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t at = (g->ring_n - n + i) % RING;
        lc[i] = term(g->ring_var[at], &g->pow2[i]);
        v |= (uint64_t)g->ring_bit[at] << i;
    }
    cuzk_fr_from_u64(&out->val, v);
    CUZK_TRY(alloc_aux(g, &out->val, &out->var));
    cuzk_term one = term(CUZK_VAR_ONE, &g->one), c_lc = term(out->var, &g->one);
    return enforce(g, lc, n, &one, 1, &c_lc, 1);
}

/* Value of a linear combination (with values only). */
static void lc_eval(cuzk_fr *r, const cuzk_term *t, const cuzk_fr *v, size_t n)
{
    cuzk_fr_zero(r);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr x;
        blst_fr_mul(&x, &t[i].coeff, &v[i]);
        blst_fr_add(r, r, &x);
    }
}

/* One round u -> t = u^5 in three rows; u is given as terms with values. */
static cuzk_err pow5(gen *g, const cuzk_term *u, const cuzk_fr *uv, size_t nu, value_var *t)
{
    value_var y = {0}, z = {0};
    cuzk_fr u_val;
    if (g->values) {
        lc_eval(&u_val, u, uv, nu);
        blst_fr_sqr(&y.val, &u_val);
        blst_fr_sqr(&z.val, &y.val);
        blst_fr_mul(&t->val, &z.val, &u_val);
    }
    CUZK_TRY(alloc_aux(g, &y.val, &y.var));
    cuzk_term c_lc = term(y.var, &g->one);
    CUZK_TRY(enforce(g, u, nu, u, nu, &c_lc, 1));
    CUZK_TRY(alloc_aux(g, &z.val, &z.var));
    cuzk_term y_lc = term(y.var, &g->one);
    c_lc = term(z.var, &g->one);
    CUZK_TRY(enforce(g, &y_lc, 1, &y_lc, 1, &c_lc, 1));
    CUZK_TRY(alloc_aux(g, &t->val, &t->var));
    cuzk_term z_lc = term(z.var, &g->one);
    c_lc = term(t->var, &g->one);
    return enforce(g, &z_lc, 1, u, nu, &c_lc, 1);
}

static cuzk_err rounds(gen *g, unsigned n, const value_var *x, const value_var *p)
{
    cuzk_term u[4];
    cuzk_fr uv[4];
    size_t nu = 0;
    const cuzk_fr *rc = &g->rc[cuzk_rng_u64(&g->shape) % N_CONSTANTS];
    u[nu] = term(CUZK_VAR_ONE, rc);
    uv[nu++] = g->one;
    u[nu] = term(x->var, &g->one);
    uv[nu++] = x->val;
    if (g->chained) {
        u[nu] = term(g->t_prev.var, &g->mds[cuzk_rng_u64(&g->shape) % N_CONSTANTS]);
        uv[nu++] = g->t_prev.val;
        u[nu] = term(g->p_prev.var, &g->one);
        uv[nu++] = g->p_prev.val;
    }
    value_var t = {0};
    for (unsigned r = 0; r < n; r++) {
        CUZK_TRY(pow5(g, u, uv, nu, &t));
        nu = 0;
        u[nu] = term(t.var, &g->mds[cuzk_rng_u64(&g->shape) % N_CONSTANTS]);
        uv[nu++] = t.val;
        u[nu] = term(CUZK_VAR_ONE, &g->rc[cuzk_rng_u64(&g->shape) % N_CONSTANTS]);
        uv[nu++] = g->one;
    }
    g->t_prev = t;
    g->p_prev = *p;
    g->chained = 1;
    return CUZK_OK;
}

/* A block of exactly `budget` rows, MIN_BLOCK <= budget <= FULL_BLOCK. */
static cuzk_err block(gen *g, unsigned budget)
{
    unsigned n_rounds = budget / 20;
    n_rounds = n_rounds < 1 ? 1 : n_rounds > 8 ? 8 : n_rounds;
    unsigned k = (budget - 3 * n_rounds - 2) / 4;
    k = k < 1 ? 1 : k > 32 ? 32 : k;
    unsigned n_gates = budget - k - 2 - 3 * n_rounds;
    value_var x, p;
    CUZK_TRY(decompose(g, k, &x));
    for (unsigned i = 0; i < n_gates; i++)
        CUZK_TRY(gate(g));
    CUZK_TRY(pack_recent(g, n_gates < 32 ? n_gates : 32, &p));
    return rounds(g, n_rounds, &x, &p);
}

/* Public input: the packing of PUB_BITS consecutive recent bits. Its row is
 * not a body row, so it bypasses enforce()'s count. */
static cuzk_err public_input(gen *g)
{
    uint64_t avail = g->ring_n < RING ? g->ring_n : RING;
    unsigned n = avail < PUB_BITS ? (unsigned)avail : PUB_BITS;
    uint64_t slack = (avail < RECENT ? avail : RECENT) - n;
    uint64_t start = g->ring_n - n - cuzk_rng_u64(&g->shape) % (slack + 1);
    cuzk_term lc[PUB_BITS];
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) {
        uint64_t at = (start + i) % RING;
        lc[i] = term(g->ring_var[at], &g->pow2[i]);
        v |= (uint64_t)g->ring_bit[at] << i;
    }
    cuzk_fr val;
    cuzk_var x;
    cuzk_fr_from_u64(&val, v);
    CUZK_TRY(alloc_input(g, &val, &x));
    cuzk_term one = term(CUZK_VAR_ONE, &g->one), c_lc = term(x, &g->one);
    return constrain(g, lc, n, &one, 1, &c_lc, 1);
}

/* The sink is cs, or the values-only one when cs is NULL (w set after). */
static void gen_init(gen *g, cuzk_r1cs *cs, int values, uint64_t seed)
{
    memset(g, 0, sizeof *g);
    g->cs = cs;
    g->values = values;
    cuzk_rng_seed(&g->shape, seed);
    cuzk_rng_seed(&g->vals, seed ^ 0x5851F42D4C957F2DULL);
    for (unsigned i = 0; i < N_CONSTANTS; i++) {
        cuzk_fr_rng(&g->rc[i], &g->shape);
        cuzk_fr_rng(&g->mds[i], &g->shape);
    }
    for (unsigned i = 0; i < 64; i++) {
        uint64_t l[4] = {0};
        l[i / 64] = (uint64_t)1 << (i % 64);
        blst_fr_from_uint64(&g->pow2[i], l);
    }
    cuzk_fr_one(&g->one);
    cuzk_fr_neg(&g->minus_one, &g->one);
    cuzk_fr_from_u64(&g->two, 2);
}

uint64_t cuzk_synth_min_constraints(uint32_t n_public)
{
    uint64_t m = 2 * (uint64_t)n_public + 1 + MIN_BLOCK;
    return m < 16 ? 16 : m;
}

/* Rows left for blocks after the 2 rows of each public input and ONE's
 * input constraint. Every aux variable is defined by one of them. */
static uint64_t body_rows(const cuzk_synth_params *p)
{
    return p->n_constraints - 1 - 2 * (uint64_t)p->n_public;
}

static cuzk_err synthesize(gen *g, const cuzk_synth_params *p)
{
    uint64_t body = body_rows(p);
    uint32_t next_pub = 0;
    while (g->emitted < body) {
        uint64_t left = body - g->emitted;
        if (left >= FULL_BLOCK)
            CUZK_TRY(block(g, FULL_BLOCK));
        else if (left >= MIN_BLOCK)
            CUZK_TRY(block(g, (unsigned)left));
        else
            CUZK_TRY(gate(g));
        /* Spread the public inputs evenly over the body. */
        while (next_pub < p->n_public && (unsigned __int128)g->emitted * (p->n_public + 1) >=
                                             (unsigned __int128)(next_pub + 1) * body) {
            CUZK_TRY(public_input(g));
            next_pub++;
        }
    }
    while (next_pub < p->n_public) {
        CUZK_TRY(public_input(g));
        next_pub++;
    }
    CUZK_TRY(finalize(g));
    if (g->rows != p->n_constraints)
        return cuzk_fail(CUZK_EINTERNAL, "synth: built %llu constraints instead of %llu",
                         (unsigned long long)g->rows, (unsigned long long)p->n_constraints);
    return CUZK_OK;
}

static cuzk_err check_params(const cuzk_synth_params *p)
{
    uint64_t min = cuzk_synth_min_constraints(p->n_public);
    if (p->n_constraints < min || p->n_constraints > ((uint64_t)1 << 31))
        return cuzk_fail(CUZK_EINVAL,
                         "synth: %llu constraints out of range for %u public inputs "
                         "(need %llu..2^31)",
                         (unsigned long long)p->n_constraints, p->n_public,
                         (unsigned long long)min);
    return CUZK_OK;
}

/* Synthesize p into the sink g (initialized by the caller). */
static cuzk_err run(gen *g, const cuzk_synth_params *p)
{
    cuzk_err e = synthesize(g, p);
    if (e)
        return cuzk_fail_ctx(e, "synth (%llu constraints, %u public, seed %llu): ",
                             (unsigned long long)p->n_constraints, p->n_public,
                             (unsigned long long)p->seed);
    return CUZK_OK;
}

cuzk_err cuzk_synth_build(const cuzk_synth_params *p, int with_values, cuzk_r1cs **out)
{
    *out = NULL;
    CUZK_TRY(check_params(p));
    cuzk_r1cs *cs;
    CUZK_TRY(cuzk_r1cs_new(&cs, with_values));
    gen *g = malloc(sizeof *g);
    if (!g) {
        cuzk_r1cs_free(cs);
        return cuzk_fail(CUZK_ENOMEM, "synth: out of memory");
    }
    gen_init(g, cs, with_values != 0, p->seed);
    cuzk_err e = run(g, p);
    free(g);
    if (e) {
        cuzk_r1cs_free(cs);
        return e;
    }
    *out = cs;
    return CUZK_OK;
}

cuzk_err cuzk_synth_witness(const cuzk_synth_params *p, cuzk_fr **w, size_t *n)
{
    *w = NULL;
    *n = 0;
    CUZK_TRY(check_params(p));
    uint64_t max_aux = body_rows(p), len = (uint64_t)p->n_public + 1 + max_aux;
    if (len > SIZE_MAX / sizeof(cuzk_fr))
        return cuzk_fail(CUZK_ENOMEM, "synth: a witness of %llu elements is too large",
                         (unsigned long long)len);
    gen *g = malloc(sizeof *g);
    cuzk_fr *v = malloc((size_t)len * sizeof *v);
    if (!g || !v) {
        free(g);
        free(v);
        return cuzk_fail(CUZK_ENOMEM, "synth: out of memory for a witness of %llu elements",
                         (unsigned long long)len);
    }
    gen_init(g, NULL, 1, p->seed);
    g->w = v;
    g->max_inputs = p->n_public + 1;
    g->max_aux = max_aux;
    cuzk_fr_one(&v[0]);
    g->n_inputs = 1; /* ONE */
    cuzk_err e = run(g, p);
    uint64_t used = (uint64_t)g->n_inputs + g->n_aux;
    free(g);
    if (e) {
        free(v);
        return e;
    }
    *w = v; /* used == len today: each body row defines one aux variable */
    *n = (size_t)used;
    return CUZK_OK;
}
