/* Synthetic PoRep sectors (include/cuzk/gen.h): the C1 output of a
 * committed-capacity sector of any size, a 32 GiB one included, without
 * sealing it.
 *
 * What the StackedDrg circuit checks of one challenge c (porep_circuit.h):
 * the data leaf's path to comm_d; each of c's 14 parents' columns and
 * their paths to comm_c; c's label in every layer, hashed in the circuit
 * from those columns' rows; the encoding (last label + data leaf) and its
 * path to comm_r_last; the column of c's own labels and its path to
 * comm_c; comm_r = Poseidon-2(comm_c, comm_r_last). It never looks at a
 * parent's label as a function of the parent's own parents: those are
 * leaves of tree_c, opened and nothing more. So a sector whose labels are
 *   - real SHA-256 labels at every challenged node, in every layer, from
 *     the labels of its parents (a challenged node that is the parent of
 *     another gives its real label: one value per node and layer),
 *   - seed-derived values at the parents that are not challenged,
 * whose data is zero everywhere (comm_d is then the published comm_d of an
 * empty sector of that size, and every tree_d sibling a zero-subtree root),
 * and whose tree_c and tree_r_last hold the real column hashes and
 * encodings at the opened leaves and one seed-derived fill value at every
 * other leaf (each level's default node hashed once: gen_post.c's sparse
 * roots) satisfies every constraint of every partition, with public inputs
 * (replica_id, challenges, parents) derived exactly as for a sealed sector.
 *
 * This is test data, not a seal: the labels of the unchallenged nodes are
 * not the SDR labels of anything, so the replica they imply is not an
 * encoding of the data, and a sector made this way proves nothing about
 * storage (a PoRep made from it verifies only because the challenges were
 * known when the trees were built; a real seed is drawn after comm_r is on
 * chain). Its use is to exercise the circuit, the prover and the daemon at
 * full size in seconds.
 *
 * Derived values: SHA-256 of a 16-byte tag, the seed, a kind and two
 * indices (u64 little-endian each), byte 31's top two bits cleared. */
#include "cuzk/gen.h"
#include "cuzk/piece.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/util.h"
#include "seal/c1_priv.h"
#include "seal/gen_priv.h"

#include <stdlib.h>
#include <string.h>

enum { KIND_TICKET = 1, KIND_SEED = 2, KIND_LABEL = 3, KIND_TREE_C = 4, KIND_TREE_R = 5 };

static void derive(uint64_t seed, uint64_t kind, uint64_t a, uint64_t b, uint8_t out[32])
{
    uint64_t w[4] = {seed, kind, a, b};
    cuzk_gen_derive("cuzk gen porep 1", w, 4, out);
}

static void derive_fr(uint64_t seed, uint64_t kind, uint64_t a, uint64_t b, cuzk_fr *out)
{
    uint8_t h[32];
    derive(seed, kind, a, b, h);
    cuzk_fr_from_bytes_le(out, h);
}

/* The distinct challenged nodes (sorted), their parents and their labels
 * (layers per node, layer 1 first). */
typedef struct {
    uint64_t seed;
    size_t layers, n;
    uint32_t *node;
    uint32_t (*parents)[CUZK_POREP_DEGREE];
    cuzk_fr *labels;
} label_set;

static int u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static long find_node(const label_set *s, uint32_t v)
{
    const uint32_t *hit = bsearch(&v, s->node, s->n, sizeof *s->node, u32_cmp);
    return hit ? hit - s->node : -1;
}

/* The label of v in layer l (1-based): real at a challenged node, derived
 * elsewhere. */
static void label_at(const label_set *s, unsigned l, uint32_t v, cuzk_fr *out)
{
    long i = find_node(s, v);
    if (i >= 0)
        *out = s->labels[(size_t)i * s->layers + (l - 1)];
    else
        derive_fr(s->seed, KIND_LABEL, l, v, out);
}

/* Every challenged node's labels, layer by layer and, within a layer, in
 * node order: a DRG parent is a lower node of the same layer and an
 * expander parent is in the layer before, so each challenged parent's
 * label is known when a child needs it (checked). */
static cuzk_err label_challenged(label_set *s, const uint8_t replica_id[32])
{
    cuzk_fr par[CUZK_C1_HASHED_PARENTS], unique[CUZK_POREP_DEGREE];
    for (unsigned l = 1; l <= s->layers; l++)
        for (size_t i = 0; i < s->n; i++) {
            unsigned deg = l == 1 ? CUZK_POREP_DRG_DEGREE : CUZK_POREP_DEGREE;
            for (unsigned j = 0; j < deg; j++) {
                uint32_t p = s->parents[i][j];
                int drg = j < CUZK_POREP_DRG_DEGREE;
                if (drg && p >= s->node[i] && find_node(s, p) >= 0)
                    return cuzk_fail(CUZK_EINTERNAL, "node %u has DRG parent %u, not below it",
                                     s->node[i], p);
                label_at(s, drg ? l : l - 1, p, &unique[j]);
            }
            for (unsigned k = 0; k < CUZK_C1_HASHED_PARENTS; k++)
                par[k] = unique[k % deg];
            CUZK_TRY(
                cuzk_c1_label(replica_id, l, s->node[i], par, &s->labels[i * s->layers + (l - 1)]));
        }
    return CUZK_OK;
}

/* The column of v: its labels in every layer. */
static void column_of(const label_set *s, uint32_t v, cuzk_fr *rows)
{
    for (unsigned l = 1; l <= s->layers; l++)
        label_at(s, l, v, &rows[l - 1]);
}

static cuzk_err zero_path(uint64_t nodes, cuzk_fr *sib)
{
    for (unsigned l = 0; (1ull << l) < nodes; l++) {
        uint8_t z[32];
        CUZK_TRY(cuzk_piece_zero_comm(32ull << l, z));
        CUZK_TRY(cuzk_fr_from_bytes_le(&sib[l], z));
    }
    return CUZK_OK;
}

/* The challenges of every partition, their distinct nodes and parents. */
static cuzk_err challenges(cuzk_c1 *c, const cuzk_porep_graph *g, uint32_t *ch, label_set *s)
{
    size_t n = (size_t)c->config.partitions * c->config.challenges;
    if (c->config.synthetic) /* the challenges would depend on the trees they shape */
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "registered proof %llu (%s): Filecoin's synthetic PoRep draws its "
                         "challenges from comm_r, which this generator's sparse trees derive "
                         "from the challenged nodes; seal a sector (`cuzk seal` or `cuzk c1`, "
                         "2 KiB to 512 MiB) for such a C1 output",
                         (unsigned long long)c->registered_proof,
                         cuzk_c1_proof_name(c->registered_proof));
    for (unsigned k = 0; k < c->config.partitions; k++)
        for (unsigned i = 0; i < c->config.challenges; i++)
            ch[(size_t)k * c->config.challenges + i] = cuzk_porep_challenge(
                c->replica_id, c->seed, c->config.challenges * k + i, c->shape.nodes);
    memcpy(s->node, ch, n * sizeof *ch);
    qsort(s->node, n, sizeof *s->node, u32_cmp);
    s->n = 0;
    for (size_t i = 0; i < n; i++)
        if (!s->n || s->node[s->n - 1] != s->node[i])
            s->node[s->n++] = s->node[i];
    for (size_t i = 0; i < s->n; i++)
        CUZK_TRY(cuzk_porep_parents(g, s->node[i], s->parents[i]));
    return CUZK_OK;
}

/* The sparse trees and every challenge's openings. */
static cuzk_err fill_proofs(cuzk_c1 *c, const label_set *s, const uint32_t *ch, uint64_t seed)
{
    size_t n = (size_t)c->config.partitions * c->config.challenges, L = s->layers;
    cuzk_c1_layout lo = cuzk_c1_layout_of(c);
    const size_t per = CUZK_POREP_DEGREE + 1; /* tree_c leaves opened per challenge */
    uint64_t *cidx = malloc(n * per * sizeof *cidx), *ridx = malloc(n * sizeof *ridx);
    cuzk_fr *cval = malloc(n * per * sizeof *cval), *rval = malloc(n * sizeof *rval);
    cuzk_fr *csib = malloc(n * per * lo.ns * sizeof *csib),
            *rsib = malloc(n * lo.ns * sizeof *rsib);
    cuzk_fr *dsib = malloc(lo.nd * sizeof *dsib), *rows = malloc(L * sizeof *rows), fill, in[2];
    cuzk_err e = cidx && ridx && cval && rval && csib && rsib && dsib && rows
                     ? CUZK_OK
                     : cuzk_fail(CUZK_ENOMEM, "out of memory for %zu challenges' trees", n);
    for (size_t i = 0; i < n && !e; i++) {
        const uint32_t *par = s->parents[find_node(s, ch[i])];
        for (size_t j = 0; j < per && !e; j++) {
            uint32_t v = j < CUZK_POREP_DEGREE ? par[j] : ch[i];
            cidx[i * per + j] = v;
            column_of(s, v, rows);
            e = cuzk_c1_column_hash(rows, L, &cval[i * per + j]);
        }
        ridx[i] = ch[i];
        label_at(s, (unsigned)L, ch[i], &rval[i]); /* + data 0 */
    }
    const cuzk_poseidon *p2;
    if (!e) {
        derive_fr(seed, KIND_TREE_C, 0, 0, &fill);
        e = cuzk_gen_sparse_root(&c->shape.tree, &fill, cidx, cval, n * per, &c->comm_c, csib);
    }
    if (!e) {
        derive_fr(seed, KIND_TREE_R, 0, 0, &fill);
        e = cuzk_gen_sparse_root(&c->shape.tree, &fill, ridx, rval, n, &c->comm_r_last, rsib);
    }
    if (!e && !(e = zero_path(c->shape.nodes, dsib)) && !(e = cuzk_poseidon_merkle(2, &p2))) {
        cuzk_fr comm_r;
        in[0] = c->comm_c, in[1] = c->comm_r_last;
        if (!(e = cuzk_poseidon_hash(p2, in, 2, &comm_r)))
            cuzk_fr_to_bytes_le(c->comm_r, &comm_r);
    }
    /* Into the C1's storage (c1_priv.h's layout). */
    for (size_t i = 0; i < n && !e; i++) {
        cuzk_porep_challenge_values *v = &c->values[i];
        cuzk_fr *st = cuzk_c1_storage(c, i), *cols = st + lo.nd;
        cuzk_fr *ps = cols + CUZK_POREP_DEGREE * L;
        v->challenge = ch[i];
        memset(&v->data_leaf, 0, sizeof v->data_leaf);
        memcpy(v->parents, s->parents[find_node(s, ch[i])], sizeof v->parents);
        memcpy(st, dsib, lo.nd * sizeof *st);
        for (unsigned j = 0; j < CUZK_POREP_DEGREE; j++)
            column_of(s, v->parents[j], cols + j * L);
        memcpy(ps, csib + i * per * lo.ns, CUZK_POREP_DEGREE * lo.ns * sizeof *ps);
        memcpy(ps + CUZK_POREP_DEGREE * lo.ns, rsib + i * lo.ns, lo.ns * sizeof *ps);
        memcpy(ps + (CUZK_POREP_DEGREE + 1) * lo.ns, csib + (i * per + CUZK_POREP_DEGREE) * lo.ns,
               lo.ns * sizeof *ps);
        column_of(s, ch[i], c->labels + i * L);
    }
    free(cidx);
    free(ridx);
    free(cval);
    free(rval);
    free(csib);
    free(rsib);
    free(dsib);
    free(rows);
    return e;
}

cuzk_err cuzk_gen_porep(const cuzk_gen_porep_params *p, cuzk_c1 **out)
{
    *out = NULL;
    cuzk_c1 *c;
    CUZK_TRY(cuzk_c1_new(p->registered_proof, NULL, 0, &c));
    size_t n = (size_t)c->config.partitions * c->config.challenges;
    label_set s = {.seed = p->seed, .layers = c->shape.layers};
    uint32_t *ch = malloc(n * sizeof *ch);
    s.node = malloc(n * sizeof *s.node);
    s.parents = malloc(n * sizeof *s.parents);
    s.labels = malloc(n * s.layers * sizeof *s.labels);
    cuzk_err e = ch && s.node && s.parents && s.labels
                     ? CUZK_OK
                     : cuzk_fail(CUZK_ENOMEM, "out of memory for %zu challenges", n);
    cuzk_porep_graph g;
    uint8_t prover_id[32];
    if (!e) {
        derive(p->seed, KIND_TICKET, 0, 0, c->ticket);
        derive(p->seed, KIND_SEED, 0, 0, c->seed);
        cuzk_gen_prover_id(p->miner_id, prover_id);
        e = cuzk_piece_zero_comm(c->config.sector_size, c->comm_d);
    }
    if (!e) {
        cuzk_porep_replica_id(prover_id, p->sector_number, c->ticket, c->comm_d, c->config.porep_id,
                              c->replica_id);
        e = cuzk_porep_graph_init(&g, c->shape.nodes, c->config.porep_id, c->config.api);
    }
    if (!e && !(e = challenges(c, &g, ch, &s)) && !(e = label_challenged(&s, c->replica_id)))
        e = fill_proofs(c, &s, ch, p->seed);
    free(ch);
    free(s.node);
    free(s.parents);
    free(s.labels);
    if (e)
        cuzk_c1_free(c);
    else
        *out = c;
    return e;
}
