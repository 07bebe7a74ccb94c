/* The PoRep (StackedDrg) partition circuit (include/cuzk/porep_circuit.h)
 * and its counts.
 *
 * Every step follows rust-fil-proofs' storage-proofs-porep stacked/circuit
 * in its order of allocations and constraints, since the R1CS (and so the
 * parameter files) depends on that order: the top (proof.rs
 * StackedCircuit::synthesize), then each challenge (params.rs
 * Proof::synthesize). */
#include "cuzk/porep_circuit.h"
#include "cuzk/gadgets.h"
#include "cuzk/pce.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/threads.h"

#include <pthread.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* The label's parent count (stacked/vanilla TOTAL_PARENTS). */
#define LABEL_PARENTS 37
#define LABEL_BITS ((2 + LABEL_PARENTS) * 256)

cuzk_err cuzk_porep_shape_of(const cuzk_fc_proof *p, cuzk_porep_shape *out)
{
    memset(out, 0, sizeof *out);
    if (p->family != CUZK_FC_SEAL)
        return cuzk_fail(CUZK_EINVAL, "%s is not a seal proof", p->name);
    if (!p->challenges)
        return cuzk_fail(CUZK_EINVAL, "%s: no challenge count in the registry", p->name);
    out->nodes = p->sector_size / 32;
    out->layers = p->sector_size >= (32ull << 30) ? 11 : 2;
    out->challenges = p->challenges;
    cuzk_merkle_shape t = {8, p->base_levels, p->sub_arity, p->top_arity, CUZK_MERKLE_POSEIDON};
    out->tree = t;
    return CUZK_OK;
}

static unsigned log2_exact(uint64_t n)
{
    unsigned k = 0;
    while ((1ull << k) < n)
        k++;
    return k;
}

/* comm_d's tree: binary SHA-256 over the nodes. */
static cuzk_merkle_shape tree_d_shape(const cuzk_porep_shape *s)
{
    cuzk_merkle_shape d = {2, log2_exact(s->nodes), 0, 0, CUZK_MERKLE_SHA256};
    return d;
}

static cuzk_err check_shape(const cuzk_porep_shape *s)
{
    if (s->nodes < 2 || (s->nodes & (s->nodes - 1)) || s->nodes > (1ull << 31))
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: %llu nodes (a power of two, 2 .. 2^31)",
                         (unsigned long long)s->nodes);
    if (s->layers != 2 && s->layers != 11)
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: %u layers (the column hash takes 2 or 11)",
                         s->layers);
    if (!s->challenges)
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: no challenges");
    CUZK_TRY(cuzk_merkle_shape_check(&s->tree));
    if (s->tree.hasher != CUZK_MERKLE_POSEIDON)
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: tree_r_last / tree_c must be Poseidon");
    if (cuzk_merkle_leaf_count(&s->tree) != s->nodes)
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: the tree has %llu leaves, the sector %llu",
                         (unsigned long long)cuzk_merkle_leaf_count(&s->tree),
                         (unsigned long long)s->nodes);
    return CUZK_OK;
}

/* util.rs reverse_bit_numbering: pad with constant false to whole bytes,
 * then reverse the bits of each byte. Returns the padded length. */
static size_t reverse_bit_numbering(const cuzk_bool *in, size_t n, cuzk_bool *out)
{
    size_t padded = (n + 7) / 8 * 8;
    for (size_t i = 0; i < padded; i++) {
        size_t src = i / 8 * 8 + (7 - i % 8);
        out[i] = src < n ? in[src] : cuzk_bool_const(0);
    }
    return padded;
}

/* A number's to_bits_le, byte-reversed: the 256 bits SHA-256 takes. */
static cuzk_err num_bits(cuzk_cs *cs, const cuzk_num *x, cuzk_bool out[256])
{
    cuzk_bool le[255];
    CUZK_TRY(cuzk_num_to_bits_le(cs, x, le));
    reverse_bit_numbering(le, 255, out);
    return CUZK_OK;
}

cuzk_err cuzk_porep_label_gadget(cuzk_cs *cs, const cuzk_bool replica_id[256],
                                 const cuzk_bool *parents, uint32_t layer, const cuzk_bool node[64],
                                 cuzk_num *out)
{
    cuzk_bool *pre = malloc(LABEL_BITS * sizeof *pre);
    if (!pre)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    memcpy(pre, replica_id, 256 * sizeof *pre);
    for (int i = 0; i < 32; i++)
        pre[256 + i] = cuzk_bool_const((int)((layer >> (31 - i)) & 1));
    for (int i = 0; i < 64; i++)
        pre[288 + i] = node[63 - i];
    for (int i = 352; i < 512; i++)
        pre[i] = cuzk_bool_const(0);
    memcpy(pre + 512, parents, (size_t)LABEL_PARENTS * 256 * sizeof *pre);
    cuzk_bool digest[256], rev[256];
    cuzk_err e = cuzk_sha256_gadget(cs, pre, LABEL_BITS, digest);
    free(pre);
    if (e)
        return e;
    reverse_bit_numbering(digest, 256, rev);
    return cuzk_pack_bits(cs, rev, 254, out);
}

/* PoRCircuit with the leaf and the root as variables, the root private
 * (params.rs enforce_inclusion). */
static cuzk_err inclusion(cuzk_cs *cs, const cuzk_merkle_shape *shape, const cuzk_num *leaf,
                          const cuzk_fr *siblings, uint64_t index, const cuzk_num *root)
{
    cuzk_root l = {1, *leaf}, r = {1, *root};
    return cuzk_por_gadget(cs, shape, &l, siblings, index, &r, 1);
}

/* What every challenge shares: the top's variables and constants. */
typedef struct {
    const cuzk_porep_shape *s;
    cuzk_merkle_shape tree_d;
    size_t tree_siblings;
    const cuzk_poseidon *column_hash;
    cuzk_num comm_d, comm_c, comm_r_last;
    cuzk_bool replica_id[256];
    /* scratch: the 14 parents' allocated columns, the layer's parent bits,
     * the label's 37 parents */
    cuzk_num *cols;
    cuzk_bool *bits, *label_parents;
} top_ctx;

static cuzk_err synth_challenge(cuzk_cs *cs, top_ctx *t, const cuzk_porep_challenge_values *c)
{
    const cuzk_porep_shape *s = t->s;
    unsigned L = s->layers;
    if (c->challenge >= s->nodes)
        return cuzk_fail(CUZK_EINVAL, "PoRep circuit: challenge %llu, the sector has %llu nodes",
                         (unsigned long long)c->challenge, (unsigned long long)s->nodes);
    cuzk_num data_leaf;
    CUZK_TRY(cuzk_num_alloc(cs, &c->data_leaf, &data_leaf));
    CUZK_TRY(inclusion(cs, &t->tree_d, &data_leaf, c->comm_d_siblings, c->challenge, &t->comm_d));

    /* DRG then expander parents: column, its hash, its inclusion in comm_c. */
    for (unsigned p = 0; p < CUZK_POREP_DEGREE; p++) {
        if (c->parents[p] >= s->nodes)
            return cuzk_fail(CUZK_EINVAL, "PoRep circuit: parent %u is node %u of %llu", p,
                             c->parents[p], (unsigned long long)s->nodes);
        cuzk_num *col = t->cols + (size_t)p * L, h;
        for (unsigned r = 0; r < L; r++)
            CUZK_TRY(cuzk_num_alloc(cs, &c->columns[(size_t)p * L + r], &col[r]));
        CUZK_TRY(cuzk_poseidon_gadget(cs, t->column_hash, col, L, &h));
        CUZK_TRY(inclusion(cs, &s->tree, &h, c->column_siblings + (size_t)p * t->tree_siblings,
                           c->parents[p], &t->comm_c));
    }

    cuzk_bool node[64];
    CUZK_TRY(cuzk_u64_alloc(cs, c->challenge, node));
    CUZK_TRY(cuzk_pack_into_inputs(cs, node, 64));

    /* The labels of the challenged node, layer by layer. Layer l's DRG
     * parents are in layer l, its expander parents in layer l - 1. */
    cuzk_num labels[11];
    for (unsigned l = 1; l <= L; l++) {
        unsigned np = 0;
        for (unsigned p = 0; p < CUZK_POREP_DRG_DEGREE; p++, np++)
            CUZK_TRY(num_bits(cs, &t->cols[(size_t)p * L + l - 1], t->bits + (size_t)np * 256));
        if (l > 1)
            for (unsigned p = CUZK_POREP_DRG_DEGREE; p < CUZK_POREP_DEGREE; p++, np++)
                CUZK_TRY(num_bits(cs, &t->cols[(size_t)p * L + l - 2], t->bits + (size_t)np * 256));
        /* create_label's 37 parents: the parents repeated, then cut. */
        for (unsigned k = 0; k < LABEL_PARENTS; k++)
            memcpy(t->label_parents + (size_t)k * 256, t->bits + (size_t)(k % np) * 256,
                   256 * sizeof *t->bits);
        CUZK_TRY(
            cuzk_porep_label_gadget(cs, t->replica_id, t->label_parents, l, node, &labels[l - 1]));
    }

    cuzk_num encoded, col_hash;
    CUZK_TRY(cuzk_num_add(cs, &labels[L - 1], &data_leaf, &encoded));
    CUZK_TRY(
        inclusion(cs, &s->tree, &encoded, c->comm_r_last_siblings, c->challenge, &t->comm_r_last));
    CUZK_TRY(cuzk_poseidon_gadget(cs, t->column_hash, labels, L, &col_hash));
    return inclusion(cs, &s->tree, &col_hash, c->comm_c_siblings, c->challenge, &t->comm_c);
}

static cuzk_err synth_top(cuzk_cs *cs, top_ctx *t, const cuzk_porep_values *v)
{
    cuzk_num replica_id, comm_r, h;
    CUZK_TRY(cuzk_num_alloc(cs, &v->replica_id, &replica_id));
    CUZK_TRY(cuzk_num_inputize(cs, &replica_id));
    CUZK_TRY(num_bits(cs, &replica_id, t->replica_id));
    CUZK_TRY(cuzk_num_alloc(cs, &v->comm_d, &t->comm_d));
    CUZK_TRY(cuzk_num_inputize(cs, &t->comm_d));
    CUZK_TRY(cuzk_num_alloc(cs, &v->comm_r, &comm_r));
    CUZK_TRY(cuzk_num_inputize(cs, &comm_r));
    CUZK_TRY(cuzk_num_alloc(cs, &v->comm_r_last, &t->comm_r_last));
    CUZK_TRY(cuzk_num_alloc(cs, &v->comm_c, &t->comm_c));
    const cuzk_poseidon *p2;
    CUZK_TRY(cuzk_poseidon_merkle(2, &p2));
    cuzk_num in[2] = {t->comm_c, t->comm_r_last};
    CUZK_TRY(cuzk_poseidon_gadget(cs, p2, in, 2, &h));
    return cuzk_num_equal(cs, &comm_r, &h);
}

/* The top, then challenges first .. first + challenges - 1 (none: the top
 * alone, for the counts); blank values when v is NULL. */
static cuzk_err synthesize_range(cuzk_cs *cs, const cuzk_porep_shape *s, unsigned first,
                                 unsigned challenges, const cuzk_porep_values *v, cuzk_fr *win,
                                 uint64_t win_cap)
{
    CUZK_TRY(check_shape(s));
    top_ctx t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.tree_d = tree_d_shape(s);
    t.tree_siblings = cuzk_merkle_sibling_count(&s->tree);
    CUZK_TRY(cuzk_poseidon_merkle(s->layers, &t.column_hash));
    size_t L = s->layers, nsib = t.tree_siblings > 64 ? t.tree_siblings : 64;
    /* Blank values: zeros, every index 0. */
    cuzk_porep_values blank;
    cuzk_porep_challenge_values bc;
    memset(&blank, 0, sizeof blank);
    memset(&bc, 0, sizeof bc);
    cuzk_fr *zeros = NULL;
    if (!v) {
        zeros = calloc(CUZK_POREP_DEGREE * (nsib + L), sizeof *zeros);
        bc.comm_d_siblings = bc.comm_r_last_siblings = bc.comm_c_siblings = zeros;
        bc.column_siblings = zeros;
        bc.columns = zeros;
        blank.challenges = &bc;
        v = &blank;
    }
    t.cols = malloc(CUZK_POREP_DEGREE * L * sizeof *t.cols);
    t.bits = malloc(CUZK_POREP_DEGREE * 256 * sizeof *t.bits);
    t.label_parents = malloc(LABEL_PARENTS * 256 * sizeof *t.label_parents);
    cuzk_err e = CUZK_OK;
    if (!t.cols || !t.bits || !t.label_parents || (v == &blank && !zeros))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = synth_top(cs, &t, v);
    if (!e && win)
        e = cuzk_cs_set_aux_window(cs, win, win_cap);
    for (unsigned i = first; i < first + challenges && !e; i++)
        e = synth_challenge(cs, &t, v == &blank ? &bc : &v->challenges[i]);
    free(zeros);
    free(t.cols);
    free(t.bits);
    free(t.label_parents);
    return e;
}

static cuzk_err synthesize(cuzk_cs *cs, const cuzk_porep_shape *s, unsigned challenges,
                           const cuzk_porep_values *v)
{
    return synthesize_range(cs, s, 0, challenges, v, NULL, 0);
}

cuzk_err cuzk_porep_synthesize(cuzk_cs *cs, const cuzk_porep_shape *s, const cuzk_porep_values *v)
{
    return synthesize(cs, s, s->challenges, v);
}

/* The witness of a partition, a challenge per task: each task synthesizes
 * the top (a few hundred constraints) and its challenge in a system of its
 * own; a challenge's variables depend on the top's and on nothing of the
 * other challenges, and every challenge allocates the same number of
 * inputs and aux (the tiling of cuzk_porep_record_pce), so task i's aux go
 * straight into the assignment at a fixed offset (an aux window) and only
 * its few inputs are copied. */

/* Inputs and aux of the top (ONE included) and of one challenge, for the
 * last shape asked (a blank witness-mode run, once per shape). */
static cuzk_err part_counts(const cuzk_porep_shape *s, uint64_t n[4])
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static cuzk_porep_shape last;
    static uint64_t counts[4];
    static int have;
    pthread_mutex_lock(&lock);
    cuzk_err e = CUZK_OK;
    if (!have || memcmp(&last, s, sizeof last)) {
        cuzk_cs *cs = NULL;
        uint64_t c[4] = {0};
        if (!(e = cuzk_cs_new(&cs, CUZK_CS_WITNESS)) &&
            !(e = synthesize_range(cs, s, 0, 0, NULL, NULL, 0))) {
            c[0] = cuzk_cs_num_inputs(cs), c[1] = cuzk_cs_num_aux(cs);
            if (!(e = cuzk_cs_reset(cs)) && !(e = synthesize_range(cs, s, 0, 1, NULL, NULL, 0))) {
                c[2] = cuzk_cs_num_inputs(cs) - c[0], c[3] = cuzk_cs_num_aux(cs) - c[1];
                memcpy(counts, c, sizeof c);
                last = *s;
                have = 1;
            }
        }
        cuzk_cs_free(cs);
    }
    memcpy(n, counts, sizeof counts);
    pthread_mutex_unlock(&lock);
    return e;
}

typedef struct {
    const cuzk_porep_shape *s;
    const cuzk_porep_values *v;
    uint64_t ti, ta, pi, pa, n_in;
    cuzk_fr *w;
    cuzk_err *errs;
    char (*msgs)[256];
} witness_job;

static void witness_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    witness_job *j = ctx;
    cuzk_cs *cs = NULL;
    for (size_t i = begin; i < end; i++) {
        cuzk_err e = cs ? cuzk_cs_reset(cs) : cuzk_cs_new(&cs, CUZK_CS_WITNESS);
        if (!e)
            e = synthesize_range(cs, j->s, (unsigned)i, 1, j->v, j->w + j->n_in + j->ta + i * j->pa,
                                 j->pa);
        if (!e && (cuzk_cs_num_inputs(cs) != j->ti + j->pi || cuzk_cs_num_aux(cs) != j->ta + j->pa))
            e = cuzk_fail(CUZK_EINTERNAL, "%u inputs and %llu aux, not %llu and %llu",
                          cuzk_cs_num_inputs(cs), (unsigned long long)cuzk_cs_num_aux(cs),
                          (unsigned long long)(j->ti + j->pi), (unsigned long long)(j->ta + j->pa));
        if (!e) {
            const cuzk_fr *in = cuzk_cs_inputs(cs);
            memcpy(j->w + j->ti + i * j->pi, in + j->ti, j->pi * sizeof *in);
            if (i == 0) { /* ONE and the top's inputs, the top's aux */
                memcpy(j->w, in, j->ti * sizeof *in);
                memcpy(j->w + j->n_in, cuzk_cs_aux(cs), j->ta * sizeof *in);
            }
        }
        j->errs[i] = e;
        if (e)
            snprintf(j->msgs[i], sizeof j->msgs[i], "challenge %zu: %s", i, cuzk_errmsg());
    }
    cuzk_cs_free(cs);
}

cuzk_err cuzk_porep_witness(const cuzk_porep_shape *s, const cuzk_porep_values *v, cuzk_fr **w,
                            size_t *n)
{
    return cuzk_porep_witness_into(s, v, NULL, w, n);
}

cuzk_err cuzk_porep_witness_into(const cuzk_porep_shape *s, const cuzk_porep_values *v,
                                 const cuzk_wbuf *offer, cuzk_fr **w, size_t *n)
{
    *w = NULL;
    *n = 0;
    CUZK_TRY(check_shape(s));
    uint64_t c[4];
    CUZK_TRY(part_counts(s, c));
    size_t nc = s->challenges;
    witness_job j = {.s = s, .v = v, .ti = c[0], .ta = c[1], .pi = c[2], .pa = c[3]};
    j.n_in = j.ti + nc * j.pi;
    size_t total = j.n_in + j.ta + nc * j.pa;
    j.errs = calloc(nc, sizeof *j.errs);
    j.msgs = calloc(nc, sizeof *j.msgs);
    j.w = cuzk_witness_buffer(offer, total);
    cuzk_err e =
        j.errs && j.msgs && j.w
            ? CUZK_OK
            : cuzk_fail(CUZK_ENOMEM, "out of memory for a witness of %zu variables", total);
    if (!e)
        cuzk_parallel_for(nc, 1, witness_task, &j);
    for (size_t i = 0; i < nc && !e; i++)
        if (j.errs[i])
            e = cuzk_fail(j.errs[i], "%s", j.msgs[i]);
    if (e) {
        cuzk_witness_buffer_drop(offer, j.w);
    } else {
        *w = j.w;
        *n = total;
    }
    free(j.errs);
    free(j.msgs);
    return e;
}

static uint64_t popcount_range(const uint64_t *bits, uint64_t from, uint64_t to)
{
    uint64_t n = 0;
    for (uint64_t j = from; j < to; j++)
        n += (bits[j / 64] >> (j % 64)) & 1;
    return n;
}

void cuzk_pce_counts(const cuzk_pce *p, cuzk_r1cs_counts *out)
{
    out->inputs = p->n_inputs;
    out->aux = p->n_aux;
    out->constraints = p->n_constraints;
    out->nnz_a = p->a.nnz;
    out->nnz_b = p->b.nnz;
    out->nnz_c = p->c.nnz;
    out->a_input_density = p->a_input_count;
    out->a_aux_density = p->a_aux_count;
    out->b_input_density = p->b_input_count;
    out->b_aux_density = p->b_aux_count;
}

/* Record the circuit with `challenges` challenges, finished, compiled. */
static cuzk_err record(const cuzk_porep_shape *s, unsigned challenges, cuzk_pce **out)
{
    cuzk_cs *cs = NULL;
    cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_RECORD);
    if (!e)
        e = synthesize(cs, s, challenges, NULL);
    if (!e)
        e = cuzk_cs_compile(cs, out);
    cuzk_cs_free(cs);
    return e;
}

cuzk_err cuzk_porep_record_pce(const cuzk_porep_shape *s, cuzk_pce **out)
{
    *out = NULL;
    CUZK_TRY(check_shape(s));
    /* The top's size, from a witness-mode run (no R1CS needed). */
    cuzk_cs *cs = NULL;
    cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_WITNESS);
    if (!e)
        e = synthesize(cs, s, 0, NULL);
    uint32_t top_inputs = e ? 0 : cuzk_cs_num_inputs(cs);
    uint64_t top_aux = e ? 0 : cuzk_cs_num_aux(cs), top_rows = e ? 0 : cuzk_cs_num_constraints(cs);
    cuzk_cs_free(cs);
    cuzk_pce *t1 = NULL;
    if (!e)
        e = record(s, 1, &t1);
    if (!e && s->challenges == 1) {
        *out = t1;
        return CUZK_OK;
    }
    if (!e)
        e = cuzk_pce_tile_prefix(t1, top_inputs, top_aux, top_rows, s->challenges, out);
    cuzk_pce_free(t1);
    return e;
}

cuzk_err cuzk_porep_counts(const cuzk_porep_shape *s, cuzk_r1cs_counts *out)
{
    memset(out, 0, sizeof *out);
    CUZK_TRY(check_shape(s));
    cuzk_pce *t0 = NULL, *t1 = NULL;
    cuzk_err e = record(s, 0, &t0);
    if (!e)
        e = record(s, 1, &t1);
    if (e) {
        cuzk_pce_free(t0);
        cuzk_pce_free(t1);
        return e;
    }
    uint64_t n = s->challenges;
    /* Global columns of t1: the top's inputs [0, i0), the challenge's
     * inputs [i0, i1), the top's aux [i1, i1 + a0), the challenge's aux
     * after. A top column's density is settled by one challenge (every
     * challenge touches the same top columns the same way). */
    uint64_t i0 = t0->n_inputs, i1 = t1->n_inputs, a0 = t0->n_aux, a1 = t1->n_aux;
    uint64_t end = i1 + a1;
    out->inputs = (uint32_t)(i0 + n * (i1 - i0));
    out->aux = a0 + n * (a1 - a0);
    out->constraints = t0->n_constraints + n * (t1->n_constraints - t0->n_constraints);
    out->nnz_a = t0->a.nnz + n * (t1->a.nnz - t0->a.nnz);
    out->nnz_b = t0->b.nnz + n * (t1->b.nnz - t0->b.nnz);
    out->nnz_c = t0->c.nnz + n * (t1->c.nnz - t0->c.nnz);
    const uint64_t *dens[2] = {t1->a_density, t1->b_density};
    uint64_t *in_out[2] = {&out->a_input_density, &out->b_input_density};
    uint64_t *aux_out[2] = {&out->a_aux_density, &out->b_aux_density};
    for (int m = 0; m < 2; m++) {
        *in_out[m] = popcount_range(dens[m], 0, i0) + n * popcount_range(dens[m], i0, i1);
        *aux_out[m] =
            popcount_range(dens[m], i1, i1 + a0) + n * popcount_range(dens[m], i1 + a0, end);
    }
    cuzk_pce_free(t0);
    cuzk_pce_free(t1);
    return CUZK_OK;
}
