/* The EmptySectorUpdate (SnapDeals) partition circuit, SHA-256 TreeD
 * variant (include/cuzk/snap.h), in the order of rust-fil-proofs'
 * storage-proofs-update circuit.rs EmptySectorUpdateCircuit::synthesize and
 * gadgets.rs (apex_por, gen_challenge_bits, get_challenge_high_bits,
 * label_r_new, por_no_challenge_input): the order of allocations and
 * constraints is the R1CS, so it is kept step for step. */
#include "cuzk/gadgets.h"
#include "cuzk/merkle.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/snap.h"
#include "cuzk/threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HS 6 /* the h values a sector size allows (constants.rs hs) */

static unsigned hs_of(const cuzk_snap_config *c, unsigned i)
{
    return c->sector_size <= (32ull << 10) ? 1 : 7 + i;
}

static unsigned log2u(unsigned x)
{
    return (unsigned)__builtin_ctz(x);
}

/* The public k_and_h_select: k, and above its bits h_select = 1 << (the
 * index of h in hs). */
static uint64_t k_and_h_select(const cuzk_snap_config *c, unsigned k)
{
    unsigned hi = 0;
    while (hi < HS && hs_of(c, hi) != c->h)
        hi++;
    return (uint64_t)k | ((uint64_t)1 << hi) << c->partition_bits;
}

/* por_no_challenge_input: the path's siblings allocated by the caller, the
 * index bits given (least significant first, level by level), no input;
 * computed root * 1 = root. */
static cuzk_err por_no_input(cuzk_cs *cs, const cuzk_merkle_shape *s, const cuzk_bool *bits,
                             const cuzk_num *leaf, const cuzk_num *sibs, const cuzk_num *root)
{
    unsigned levels = s->base_levels + (s->sub_arity != 0) + (s->top_arity != 0);
    cuzk_num cur = *leaf, ins[8];
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = l < s->base_levels    ? s->base_arity
                     : l == s->base_levels ? s->sub_arity
                                           : s->top_arity;
        unsigned nb = log2u(a);
        CUZK_TRY(cuzk_insert(cs, &cur, bits, nb, sibs, ins));
        if (s->hasher == CUZK_MERKLE_SHA256) {
            CUZK_TRY(cuzk_sha256_fr_gadget(cs, ins, a, &cur));
        } else {
            const cuzk_poseidon *p;
            CUZK_TRY(cuzk_poseidon_merkle(a, &p));
            CUZK_TRY(cuzk_poseidon_gadget(cs, p, ins, a, &cur));
        }
        bits += nb;
        sibs += a - 1;
    }
    return cuzk_num_equal(cs, &cur, root);
}

static cuzk_err alloc_nums(cuzk_cs *cs, const cuzk_fr *vals, size_t n, cuzk_num *out)
{
    static const cuzk_fr zero;
    for (size_t i = 0; i < n; i++)
        CUZK_TRY(cuzk_num_alloc(cs, vals ? &vals[i] : &zero, &out[i]));
    return CUZK_OK;
}

/* get_challenge_high_bits: per h of hs, c_high = pack_bits(the h high bits
 * of c), c_high_or_zero = c_high * h_select_bit; their sum, selected. */
static cuzk_err challenge_high(cuzk_cs *cs, const cuzk_snap_config *c, const cuzk_bool *cbits,
                               const cuzk_bool *hsel, cuzk_num *out)
{
    cuzk_num cz[HS];
    cuzk_fr sum;
    cuzk_fr_zero(&sum);
    for (unsigned i = 0; i < HS; i++) {
        cuzk_num high;
        unsigned h = hs_of(c, i);
        CUZK_TRY(cuzk_pack_bits(cs, cbits + c->node_bits - h, h, &high));
        cuzk_fr v;
        if (hsel[i].value)
            v = high.val;
        else
            cuzk_fr_zero(&v);
        CUZK_TRY(cuzk_num_alloc(cs, &v, &cz[i]));
        cuzk_term ta = {high.var, *cuzk_cs_one()}, tb = {hsel[i].var, *cuzk_cs_one()},
                  tc = {cz[i].var, *cuzk_cs_one()};
        CUZK_TRY(cuzk_cs_enforce(cs, &ta, 1, &tb, 1, &tc, 1, "c_high_or_zero"));
        blst_fr_add(&sum, &sum, &v);
    }
    CUZK_TRY(cuzk_num_alloc(cs, &sum, out));
    cuzk_term ta[HS], tb = {CUZK_VAR_ONE, *cuzk_cs_one()}, tc = {out->var, *cuzk_cs_one()};
    for (unsigned i = 0; i < HS; i++)
        ta[i] = (cuzk_term){cz[i].var, *cuzk_cs_one()};
    return cuzk_cs_enforce(cs, ta, HS, &tb, 1, &tc, 1, "c_high_selected");
}

/* One challenge's share (its bits given). */
static cuzk_err synth_challenge(cuzk_cs *cs, const cuzk_snap_config *c, const cuzk_bool *cbits,
                                const cuzk_bool *hsel, const cuzk_num *phi, const cuzk_num *roots,
                                const cuzk_num *apex, const cuzk_snap_challenge_values *v,
                                cuzk_num *scratch)
{
    const cuzk_poseidon *gen;
    CUZK_TRY(cuzk_poseidon_gen_randomness(&gen));
    cuzk_num high, rho, lro, ldn, prod, lrn, in[2];
    CUZK_TRY(challenge_high(cs, c, cbits, hsel, &high));
    in[0] = *phi, in[1] = high;
    CUZK_TRY(cuzk_poseidon_gadget(cs, gen, in, 2, &rho));
    static const cuzk_fr zero;
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->leaf_r_old : &zero, &lro));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->leaf_d_new : &zero, &ldn));
    /* label_r_new = label_r_old + label_d_new * rho */
    CUZK_TRY(cuzk_num_mul(cs, &ldn, &rho, &prod));
    cuzk_fr s;
    blst_fr_add(&s, &lro.val, &prod.val);
    CUZK_TRY(cuzk_num_alloc(cs, &s, &lrn));
    cuzk_term ta[2] = {{lro.var, *cuzk_cs_one()}, {prod.var, *cuzk_cs_one()}};
    cuzk_term tb = {CUZK_VAR_ONE, *cuzk_cs_one()}, tc = {lrn.var, *cuzk_cs_one()};
    CUZK_TRY(cuzk_cs_enforce(cs, ta, 2, &tb, 1, &tc, 1, "label_r_new"));
    size_t ns = cuzk_merkle_sibling_count(&c->tree_r);
    CUZK_TRY(alloc_nums(cs, v ? v->path_r_old : NULL, ns, scratch));
    CUZK_TRY(por_no_input(cs, &c->tree_r, cbits, &lro, scratch, &roots[0]));
    CUZK_TRY(alloc_nums(cs, v ? v->path_r_new : NULL, ns, scratch));
    CUZK_TRY(por_no_input(cs, &c->tree_r, cbits, &lrn, scratch, &roots[1]));
    unsigned to_apex = c->node_bits - c->partition_bits - c->apex_bits;
    cuzk_num leaf;
    CUZK_TRY(cuzk_select(cs, apex, cbits + to_apex, c->apex_bits, &leaf));
    CUZK_TRY(alloc_nums(cs, v ? v->path_d_new : NULL, to_apex, scratch));
    cuzk_merkle_shape td = {2, to_apex, 0, 0, CUZK_MERKLE_SHA256};
    return por_no_input(cs, &td, cbits, &ldn, scratch, &leaf);
}

/* What the challenges share: the top's variables and scratch. */
typedef struct {
    const cuzk_snap_config *c;
    const cuzk_snap_values *v;
    cuzk_num partition, comm_r_new, comm_d_new, phi, roots[2];
    cuzk_bool khbits[4 + HS];
    cuzk_num *apex, *scratch; /* one allocation: apex, row, path, scratch */
    cuzk_bool *cbits, *dbits;
    unsigned r, per, digests;
} snap_ctx;

static void ctx_free(snap_ctx *x)
{
    free(x->apex);
    free(x->cbits);
    x->apex = NULL;
    x->cbits = NULL;
}

static cuzk_err ctx_alloc(snap_ctx *x)
{
    const cuzk_snap_config *c = x->c;
    size_t ns = cuzk_merkle_sibling_count(&c->tree_r), nb = c->node_bits;
    size_t scratch_n = ns > nb ? ns : nb;
    x->apex = malloc((2 * c->apex_leaves + c->partition_bits + scratch_n) * sizeof *x->apex);
    x->cbits = malloc((255 + nb) * sizeof *x->cbits);
    if (!x->apex || !x->cbits) {
        ctx_free(x);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    x->scratch = x->apex + 2 * c->apex_leaves + c->partition_bits;
    x->dbits = x->cbits + nb;
    x->r = c->node_bits - c->partition_bits;
    x->per = 254 / x->r;
    x->digests = (c->challenges + x->per - 1) / x->per;
    return CUZK_OK;
}

/* The top: everything before the first digest. In three parts, so that
 * the witness can hash the apex tree's rows on all threads: the inputs and
 * commitments (ctx_top_pre), the apex tree (apex_hash, row by row), and its
 * root up the partition path (ctx_top_post). */
static cuzk_err ctx_top_pre(cuzk_cs *cs, snap_ctx *x)
{
    const cuzk_snap_config *c = x->c;
    const cuzk_snap_values *v = x->v;
    const cuzk_poseidon *gen, *p2;
    CUZK_TRY(cuzk_poseidon_gen_randomness(&gen));
    CUZK_TRY(cuzk_poseidon_merkle(2, &p2));
    unsigned pb = c->partition_bits;
    cuzk_fr kh;
    cuzk_fr_from_u64(&kh, v ? k_and_h_select(c, v->k) : 0);
    static const cuzk_fr zero;
    cuzk_num k_and_h, comm_r_old, in[2], comm_c, calc;
    CUZK_TRY(cuzk_num_alloc(cs, &kh, &k_and_h));
    CUZK_TRY(cuzk_num_inputize(cs, &k_and_h));
    CUZK_TRY(cuzk_num_to_allocated_bits(cs, &k_and_h, pb + HS, x->khbits));
    CUZK_TRY(cuzk_pack_bits(cs, x->khbits, pb, &x->partition));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->comm_r_old : &zero, &comm_r_old));
    CUZK_TRY(cuzk_num_inputize(cs, &comm_r_old));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->comm_d_new : &zero, &x->comm_d_new));
    CUZK_TRY(cuzk_num_inputize(cs, &x->comm_d_new));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->comm_r_new : &zero, &x->comm_r_new));
    CUZK_TRY(cuzk_num_inputize(cs, &x->comm_r_new));
    in[0] = x->comm_d_new, in[1] = comm_r_old;
    CUZK_TRY(cuzk_poseidon_gadget(cs, gen, in, 2, &x->phi));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->comm_c : &zero, &comm_c));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->root_r_old : &zero, &x->roots[0]));
    CUZK_TRY(cuzk_num_alloc(cs, v ? &v->root_r_new : &zero, &x->roots[1]));
    cuzk_num *row = x->apex + c->apex_leaves, *ppath = row + c->apex_leaves;
    CUZK_TRY(alloc_nums(cs, v ? v->apex_leafs : NULL, c->apex_leaves, x->apex));
    CUZK_TRY(alloc_nums(cs, v ? v->partition_path : NULL, pb, ppath));
    for (int r = 0; r < 2; r++) { /* comm_r = H(comm_c, root_r), old then new */
        in[0] = comm_c, in[1] = x->roots[r];
        CUZK_TRY(cuzk_poseidon_gadget(cs, p2, in, 2, &calc));
        CUZK_TRY(cuzk_num_equal(cs, &calc, r ? &x->comm_r_new : &comm_r_old));
    }
    /* apex_por: the apex tree row by row from its leaves ... */
    memcpy(row, x->apex, c->apex_leaves * sizeof *row);
    return CUZK_OK;
}

/* Node i of the next apex row: the hash of nodes 2i, 2i + 1 of row (out may
 * be row + i). */
static cuzk_err apex_hash(cuzk_cs *cs, const cuzk_num *row, unsigned i, cuzk_num *out)
{
    cuzk_num pair[2] = {row[2 * i], row[2 * i + 1]};
    return cuzk_sha256_fr_gadget(cs, pair, 2, out);
}

/* ... then its root up the partition path to comm_d_new. */
static cuzk_err ctx_top_post(cuzk_cs *cs, snap_ctx *x)
{
    unsigned pb = x->c->partition_bits;
    cuzk_num *row = x->apex + x->c->apex_leaves, *ppath = row + x->c->apex_leaves;
    cuzk_merkle_shape pt = {2, pb, 0, 0, CUZK_MERKLE_SHA256};
    if (pb)
        return por_no_input(cs, &pt, x->khbits, &row[0], ppath, &x->comm_d_new);
    return cuzk_num_equal(cs, &row[0], &x->comm_d_new);
}

static cuzk_err ctx_top(cuzk_cs *cs, snap_ctx *x)
{
    CUZK_TRY(ctx_top_pre(cs, x));
    cuzk_num *row = x->apex + x->c->apex_leaves;
    for (unsigned w = x->c->apex_leaves; w > 1; w /= 2)
        for (unsigned i = 0; i < w / 2; i++)
            CUZK_TRY(apex_hash(cs, row, i, &row[i]));
    return ctx_top_post(cs, x);
}

/* gen_challenge_bits' digest j: its index, hash and bits (into dbits). */
static cuzk_err ctx_digest(cuzk_cs *cs, snap_ctx *x, unsigned j)
{
    const cuzk_poseidon *gen;
    CUZK_TRY(cuzk_poseidon_gen_randomness(&gen));
    cuzk_fr idx, dj;
    cuzk_num di, digest, in[2];
    cuzk_fr_from_u64(&dj, x->digests);
    blst_fr_mul(&idx, &x->partition.val, &dj);
    cuzk_fr_from_u64(&dj, j);
    blst_fr_add(&idx, &idx, &dj);
    CUZK_TRY(cuzk_num_alloc(cs, &idx, &di));
    cuzk_term ta[2] = {{x->partition.var, {{0}}}, {CUZK_VAR_ONE, dj}};
    cuzk_fr_from_u64(&ta[0].coeff, x->digests);
    cuzk_term tb = {CUZK_VAR_ONE, *cuzk_cs_one()}, tc = {di.var, *cuzk_cs_one()};
    CUZK_TRY(cuzk_cs_enforce(cs, ta, j ? 2 : 1, &tb, 1, &tc, 1, "digest_index"));
    in[0] = x->comm_r_new, in[1] = di;
    CUZK_TRY(cuzk_poseidon_gadget(cs, gen, in, 2, &digest));
    return cuzk_num_to_allocated_bits(cs, &digest, 255, x->dbits);
}

/* Challenge l of digest j (bits from dbits). */
static cuzk_err ctx_challenge(cuzk_cs *cs, snap_ctx *x, unsigned j, unsigned l)
{
    unsigned i = j * x->per + l, pb = x->c->partition_bits;
    memcpy(x->cbits, x->dbits + l * x->r, x->r * sizeof *x->cbits);
    memcpy(x->cbits + x->r, x->khbits, pb * sizeof *x->cbits);
    return synth_challenge(cs, x->c, x->cbits, x->khbits + pb, &x->phi, x->roots, x->apex,
                           x->v ? &x->v->challenges[i] : NULL, x->scratch);
}

static unsigned digest_challenges(const snap_ctx *x, unsigned j)
{
    return j == x->digests - 1 ? x->c->challenges - j * x->per : x->per;
}

cuzk_err cuzk_snap_synthesize(cuzk_cs *cs, const cuzk_snap_config *c, const cuzk_snap_values *v)
{
    snap_ctx x = {.c = c, .v = v};
    CUZK_TRY(ctx_alloc(&x));
    cuzk_err e = ctx_top(cs, &x);
    for (unsigned j = 0; j < x.digests && !e; j++) {
        e = ctx_digest(cs, &x, j);
        for (unsigned l = 0; l < digest_challenges(&x, j) && !e; l++)
            e = ctx_challenge(cs, &x, j, l);
    }
    ctx_free(&x);
    return e;
}

/* ---- the witness, a challenge per task ----
 *
 * The top (inputs and the apex tree: 5.7 M constraints at 32 GiB) is
 * synthesized once; each task starts from it as a base (cs.h
 * cuzk_cs_set_base), synthesizes its challenge's digest in its own memory
 * (the first challenge of each digest also places the digest's aux) and
 * its challenge through an aux window straight into the assignment: top |
 * (digest j | its challenges) for each j. */

typedef struct {
    snap_ctx top;
    const cuzk_cs *top_cs;
    const cuzk_fr *top_aux; /* the top's ta aux values */
    uint64_t ta, d, ch, n_in;
    cuzk_fr *w;
    cuzk_err *errs;
    char (*msgs)[256];
} snap_job;

static void snap_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    snap_job *q = ctx;
    cuzk_cs *cs = NULL;
    snap_ctx x = q->top; /* the top's variables; its own scratch */
    x.apex = NULL, x.cbits = NULL;
    cuzk_err e = ctx_alloc(&x);
    if (!e)
        memcpy(x.apex, q->top.apex, (2 * x.c->apex_leaves + x.c->partition_bits) * sizeof *x.apex);
    for (size_t i = begin; i < end; i++) {
        unsigned j = (unsigned)i / x.per, l = (unsigned)i % x.per;
        uint64_t at_d = q->ta + (uint64_t)j * (q->d + x.per * q->ch);
        if (!e)
            e = cs ? cuzk_cs_reset(cs) : cuzk_cs_new(&cs, CUZK_CS_WITNESS);
        if (!e)
            e = cuzk_cs_set_base(cs, cuzk_cs_inputs(q->top_cs), cuzk_cs_num_inputs(q->top_cs),
                                 q->top_aux, q->ta);
        if (!e)
            e = ctx_digest(cs, &x, j);
        if (!e && l == 0)
            memcpy(q->w + q->n_in + at_d, cuzk_cs_aux(cs), q->d * sizeof *q->w);
        if (!e)
            e = cuzk_cs_set_aux_window(cs, q->w + q->n_in + at_d + q->d + l * q->ch, q->ch);
        if (!e)
            e = ctx_challenge(cs, &x, j, l);
        if (!e && cuzk_cs_num_aux(cs) != q->ta + q->d + q->ch)
            e = cuzk_fail(CUZK_EINTERNAL, "challenge %zu: %llu aux, not %llu", i,
                          (unsigned long long)cuzk_cs_num_aux(cs),
                          (unsigned long long)(q->ta + q->d + q->ch));
        q->errs[i] = e;
        if (e)
            snprintf(q->msgs[i], sizeof q->msgs[i], "challenge %zu: %s", i, cuzk_errmsg());
    }
    cuzk_cs_free(cs);
    ctx_free(&x);
}

/* ---- the top's witness, the apex tree on all threads ----
 *
 * ctx_top_pre runs in the top system; then each row of the apex tree is
 * hashed in parallel, hash g (in the sequential order) in a system based on
 * everything before it, its aux written through a window at aux index
 * t0 + g * per_hash of one buffer of the top's ta aux values; the rest
 * (ctx_top_post) likewise after the last hash. Each hash allocates the same
 * number of aux (a SHA-256 of two field elements: per_hash). */

typedef struct {
    const cuzk_cs *top;
    cuzk_fr *aux;          /* ta values: [0, t0) copied from the top */
    uint64_t t0, per_hash; /* aux before the apex; of one hash */
    uint64_t first;        /* sequential index of this row's first hash */
    const cuzk_num *row;   /* this row */
    cuzk_num *next;        /* the next one */
    cuzk_err *errs;
    char (*msgs)[256];
} apex_job;

/* A system based on the top's inputs and the first `base` aux of the
 * buffer, writing the next `cap` aux into the buffer after them. */
static cuzk_err based_window(cuzk_cs **cs, const cuzk_cs *top, cuzk_fr *aux, uint64_t base,
                             uint64_t cap)
{
    CUZK_TRY(*cs ? cuzk_cs_reset(*cs) : cuzk_cs_new(cs, CUZK_CS_WITNESS));
    CUZK_TRY(cuzk_cs_set_base(*cs, cuzk_cs_inputs(top), cuzk_cs_num_inputs(top), aux, base));
    return cuzk_cs_set_aux_window(*cs, aux + base, cap);
}

static void apex_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    apex_job *a = ctx;
    cuzk_cs *cs = NULL;
    for (size_t i = begin; i < end; i++) {
        uint64_t at = a->t0 + (a->first + i) * a->per_hash;
        cuzk_err e = based_window(&cs, a->top, a->aux, at, a->per_hash);
        if (!e)
            e = apex_hash(cs, a->row, (unsigned)i, &a->next[i]);
        if (!e && cuzk_cs_num_aux(cs) != at + a->per_hash)
            e = cuzk_fail(CUZK_EINTERNAL, "apex hash %llu: %llu aux, not %llu",
                          (unsigned long long)(a->first + i),
                          (unsigned long long)(cuzk_cs_num_aux(cs) - at),
                          (unsigned long long)a->per_hash);
        a->errs[i] = e;
        if (e)
            snprintf(a->msgs[i], sizeof a->msgs[i], "apex hash %llu: %s",
                     (unsigned long long)(a->first + i), cuzk_errmsg());
    }
    cuzk_cs_free(cs);
}

/* Aux of one apex hash (a blank one, measured once). */
static cuzk_err apex_hash_aux(uint64_t *out)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static uint64_t n;
    pthread_mutex_lock(&lock);
    cuzk_err e = CUZK_OK;
    if (!n) {
        cuzk_cs *cs = NULL;
        static const cuzk_fr zero;
        cuzk_num row[2], h;
        if (!(e = cuzk_cs_new(&cs, CUZK_CS_WITNESS)) && !(e = cuzk_num_alloc(cs, &zero, &row[0])) &&
            !(e = cuzk_num_alloc(cs, &zero, &row[1])) && !(e = apex_hash(cs, row, 0, &h)))
            n = cuzk_cs_num_aux(cs) - 2;
        cuzk_cs_free(cs);
    }
    *out = n;
    pthread_mutex_unlock(&lock);
    return e;
}

/* The top of x into top (its inputs and the aux before the apex) and into
 * aux (all ta of its aux values). */
static cuzk_err top_witness(cuzk_cs *top, snap_ctx *x, uint64_t ta, cuzk_fr *aux)
{
    const cuzk_snap_config *c = x->c;
    uint64_t per_hash, hashes = c->apex_leaves - 1;
    CUZK_TRY(apex_hash_aux(&per_hash));
    CUZK_TRY(ctx_top_pre(top, x));
    uint64_t t0 = cuzk_cs_num_aux(top);
    if (t0 + hashes * per_hash > ta)
        return cuzk_fail(CUZK_EINTERNAL,
                         "snap top: %llu aux before the apex and %llu hashes of "
                         "%llu do not fit its %llu",
                         (unsigned long long)t0, (unsigned long long)hashes,
                         (unsigned long long)per_hash, (unsigned long long)ta);
    memcpy(aux, cuzk_cs_aux(top), t0 * sizeof *aux);
    cuzk_num *row = x->apex + c->apex_leaves;
    cuzk_num *next = malloc((c->apex_leaves / 2 + 1) * sizeof *next);
    cuzk_err *errs = calloc(c->apex_leaves / 2 + 1, sizeof *errs);
    char(*msgs)[256] = calloc(c->apex_leaves / 2 + 1, sizeof *msgs);
    cuzk_err e = next && errs && msgs ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    uint64_t first = 0;
    for (unsigned w = c->apex_leaves; w > 1 && !e; first += w / 2, w /= 2) {
        apex_job a = {top, aux, t0, per_hash, first, row, next, errs, msgs};
        cuzk_parallel_for(w / 2, 1, apex_task, &a);
        for (unsigned i = 0; i < w / 2 && !e; i++)
            if (errs[i])
                e = cuzk_fail(errs[i], "%s", msgs[i]);
        memcpy(row, next, w / 2 * sizeof *row);
    }
    free(next);
    free(errs);
    free(msgs);
    cuzk_cs *post = NULL;
    uint64_t at = t0 + hashes * per_hash;
    if (!e)
        e = based_window(&post, top, aux, at, ta - at);
    if (!e)
        e = ctx_top_post(post, x);
    if (!e && cuzk_cs_num_aux(post) != ta)
        e = cuzk_fail(CUZK_EINTERNAL, "snap top: %llu aux, not %llu",
                      (unsigned long long)cuzk_cs_num_aux(post), (unsigned long long)ta);
    cuzk_cs_free(post);
    return e;
}

/* Aux of the top, of a digest and of a challenge, for the last config
 * asked (a blank run, once per config). */
static cuzk_err part_counts(const cuzk_snap_config *c, uint64_t n[3])
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static cuzk_snap_config last;
    static uint64_t counts[3];
    static int have;
    pthread_mutex_lock(&lock);
    cuzk_err e = CUZK_OK;
    if (!have || memcmp(&last, c, sizeof last)) {
        snap_ctx x = {.c = c};
        cuzk_cs *cs = NULL;
        if (!(e = ctx_alloc(&x)) && !(e = cuzk_cs_new(&cs, CUZK_CS_WITNESS)) &&
            !(e = ctx_top(cs, &x))) {
            uint64_t t = cuzk_cs_num_aux(cs);
            if (!(e = ctx_digest(cs, &x, 0))) {
                uint64_t d = cuzk_cs_num_aux(cs) - t;
                if (!(e = ctx_challenge(cs, &x, 0, 0))) {
                    counts[0] = t, counts[1] = d, counts[2] = cuzk_cs_num_aux(cs) - t - d;
                    last = *c;
                    have = 1;
                }
            }
        }
        cuzk_cs_free(cs);
        ctx_free(&x);
    }
    memcpy(n, counts, sizeof counts);
    pthread_mutex_unlock(&lock);
    return e;
}

cuzk_err cuzk_snap_witness(const cuzk_snap_config *c, const cuzk_snap_values *v, cuzk_fr **w,
                           size_t *n)
{
    return cuzk_snap_witness_into(c, v, NULL, w, n);
}

cuzk_err cuzk_snap_witness_into(const cuzk_snap_config *c, const cuzk_snap_values *v,
                                const cuzk_wbuf *offer, cuzk_fr **w, size_t *n)
{
    *w = NULL;
    *n = 0;
    uint64_t cnt[3];
    CUZK_TRY(part_counts(c, cnt));
    snap_job q = {.ta = cnt[0], .d = cnt[1], .ch = cnt[2]};
    q.top.c = c, q.top.v = v;
    cuzk_cs *top = NULL;
    cuzk_fr *top_aux = malloc((q.ta ? q.ta : 1) * sizeof *top_aux);
    cuzk_err e = top_aux ? ctx_alloc(&q.top) : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e && !(e = cuzk_cs_new(&top, CUZK_CS_WITNESS)))
        e = top_witness(top, &q.top, q.ta, top_aux);
    q.top_cs = top;
    q.top_aux = top_aux;
    size_t total = 0;
    if (!e) {
        q.n_in = cuzk_cs_num_inputs(top);
        total = q.n_in + q.ta + q.top.digests * q.d + (size_t)c->challenges * q.ch;
        q.errs = calloc(c->challenges, sizeof *q.errs);
        q.msgs = calloc(c->challenges, sizeof *q.msgs);
        q.w = cuzk_witness_buffer(offer, total);
        if (!q.errs || !q.msgs || !q.w)
            e = cuzk_fail(CUZK_ENOMEM, "out of memory for a witness of %zu variables", total);
    }
    if (!e) {
        memcpy(q.w, cuzk_cs_inputs(top), q.n_in * sizeof *q.w);
        memcpy(q.w + q.n_in, top_aux, q.ta * sizeof *q.w);
        cuzk_parallel_for(c->challenges, 1, snap_task, &q);
        for (unsigned i = 0; i < c->challenges && !e; i++)
            if (q.errs[i])
                e = cuzk_fail(q.errs[i], "%s", q.msgs[i]);
    }
    if (e) {
        if (q.w)
            cuzk_witness_buffer_drop(offer, q.w);
    } else {
        *w = q.w;
        *n = total;
    }
    free(q.errs);
    free(q.msgs);
    free(top_aux);
    cuzk_cs_free(top);
    ctx_free(&q.top);
    return e;
}

cuzk_err cuzk_snap_values_of(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                             const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                             const cuzk_snap_partition_proof *p, cuzk_snap_values *out)
{
    memset(out, 0, sizeof *out);
    if (k >= c->partitions || p->n_apex_leafs != c->apex_leaves || p->n_challenges != c->challenges)
        return cuzk_fail(CUZK_EINVAL,
                         "partition %u of %u with %zu apex leaves and %zu challenges; the sector "
                         "size has %u and %u",
                         k, c->partitions, p->n_apex_leafs, p->n_challenges, c->apex_leaves,
                         c->challenges);
    if (!(out->challenges = calloc(c->challenges, sizeof *out->challenges)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    out->k = k;
    out->comm_r_old = *comm_r_old;
    out->comm_d_new = *comm_d_new;
    out->comm_r_new = *comm_r_new;
    out->comm_c = p->comm_c;
    out->root_r_old = p->challenges[0].r_old.root;
    out->root_r_new = p->challenges[0].r_new.root;
    out->apex_leafs = p->apex_leafs;
    out->partition_path = p->challenges[0].d_new.siblings + (c->node_bits - c->partition_bits);
    for (unsigned i = 0; i < c->challenges; i++) {
        cuzk_snap_challenge_values *x = &out->challenges[i];
        x->leaf_r_old = p->challenges[i].r_old.leaf;
        x->leaf_d_new = p->challenges[i].d_new.leaf;
        x->path_r_old = p->challenges[i].r_old.siblings;
        x->path_d_new = p->challenges[i].d_new.siblings;
        x->path_r_new = p->challenges[i].r_new.siblings;
    }
    return CUZK_OK;
}

void cuzk_snap_values_free(cuzk_snap_values *v)
{
    free(v->challenges);
    memset(v, 0, sizeof *v);
}

cuzk_err cuzk_snap_public_inputs(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                                 const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                                 cuzk_fr out[4])
{
    if (k >= c->partitions)
        return cuzk_fail(CUZK_EINVAL, "partition %u of %u", k, c->partitions);
    cuzk_fr_from_u64(&out[0], k_and_h_select(c, k));
    out[1] = *comm_r_old, out[2] = *comm_d_new, out[3] = *comm_r_new;
    return CUZK_OK;
}

/* The blank circuit with `challenges` challenges, recorded and compiled. */
static cuzk_err record_counts(const cuzk_snap_config *c, unsigned challenges, cuzk_r1cs_counts *out)
{
    cuzk_snap_config x = *c;
    x.challenges = challenges;
    cuzk_cs *cs = NULL;
    cuzk_pce *p = NULL;
    cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_RECORD);
    if (!e)
        e = cuzk_snap_synthesize(cs, &x, NULL);
    if (!e)
        e = cuzk_cs_compile(cs, &p);
    cuzk_cs_free(cs);
    if (!e)
        cuzk_pce_counts(p, out);
    cuzk_pce_free(p);
    return e;
}

cuzk_err cuzk_snap_counts(const cuzk_snap_config *c, cuzk_r1cs_counts *out)
{
    unsigned per = 254 / (c->node_bits - c->partition_bits);
    cuzk_r1cs_counts f1, f2, f3;
    CUZK_TRY(record_counts(c, 1, &f1));
    CUZK_TRY(record_counts(c, 2, &f2));
    CUZK_TRY(record_counts(c, per + 1, &f3));
    uint64_t n = c->challenges, d = (n + per - 1) / per;
    /* f(n) = top + ceil(n / per) * digest + n * challenge, per count. */
#define FIELD(f)                                                                                   \
    do {                                                                                           \
        uint64_t ch = f2.f - f1.f, dg = f3.f - f1.f - per * ch, top = f1.f - dg - ch;              \
        out->f = top + d * dg + n * ch;                                                            \
    } while (0)
    FIELD(inputs);
    FIELD(aux);
    FIELD(constraints);
    FIELD(nnz_a);
    FIELD(nnz_b);
    FIELD(nnz_c);
    FIELD(a_input_density);
    FIELD(a_aux_density);
    FIELD(b_input_density);
    FIELD(b_aux_density);
#undef FIELD
    return CUZK_OK;
}
