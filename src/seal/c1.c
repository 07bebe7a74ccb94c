/* C1 outputs (SealCommitPhase1Output): generation from a CPU seal, JSON in
 * serde_json's layout, and decoding with every value checked
 * (include/cuzk/c1.h says what each field is and where rust-fil-proofs
 * defines it). */
#include "seal/c1_priv.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NODE 32
#define HASHED_PARENTS CUZK_C1_HASHED_PARENTS
#define PATH_MAX_LEN 192

/* rust-filecoin-proofs-api registry.rs: the enum's variants in number
 * order (Go's RegisteredSealProof numbers are the same positions). */
static const char *const rust_names[] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
};
#define RUST_NAMES (sizeof rust_names / sizeof rust_names[0])

const char *cuzk_c1_proof_name(uint64_t number)
{
    return number < RUST_NAMES ? rust_names[number] : NULL;
}

/* seal.rs VanillaSealProof: one variant per sector size, whatever the
 * version or feature of the registered proof. */
static const char *variant_name(uint64_t sector_size, char buf[48])
{
    char size[24];
    snprintf(buf, 48, "StackedDrg%sV1", cuzk_fc_size_name(sector_size, size));
    return buf;
}

/* log2 of a sector's node count (a power of two: the registry's sizes). */
static unsigned log2_u64(uint64_t x)
{
    return (unsigned)__builtin_ctzll(x);
}

/* tree_d: the binary SHA-256 tree over the sector's words. */
static cuzk_merkle_shape tree_d_shape(uint64_t nodes)
{
    cuzk_merkle_shape s = {2, log2_u64(nodes), 0, 0, CUZK_MERKLE_SHA256};
    return s;
}

cuzk_c1_layout cuzk_c1_layout_of(const cuzk_c1 *c)
{
    cuzk_c1_layout l;
    l.nd = log2_u64(c->shape.nodes);
    l.ns = cuzk_merkle_sibling_count(&c->shape.tree);
    l.layers = c->shape.layers;
    l.per = l.nd + CUZK_POREP_DEGREE * l.layers + (CUZK_POREP_DEGREE + 2) * l.ns;
    return l;
}

cuzk_fr *cuzk_c1_storage(cuzk_c1 *c, size_t idx)
{
    return c->pool_ + idx * cuzk_c1_layout_of(c).per;
}

/* Storage for c's partitions x challenges, the values' pointers set. */
static cuzk_err c1_alloc(cuzk_c1 *c)
{
    cuzk_c1_layout l = cuzk_c1_layout_of(c);
    size_t n = (size_t)c->config.partitions * c->config.challenges;
    c->values = calloc(n, sizeof *c->values);
    c->labels = calloc(n * l.layers, sizeof *c->labels);
    c->pool_ = calloc(n * l.per, sizeof *c->pool_);
    if (!c->values || !c->labels || !c->pool_)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for %zu PoRep challenges", n);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr *p = c->pool_ + i * l.per;
        c->values[i].comm_d_siblings = p;
        c->values[i].columns = p + l.nd;
        c->values[i].column_siblings = p + l.nd + CUZK_POREP_DEGREE * l.layers;
        c->values[i].comm_r_last_siblings = p + l.nd + CUZK_POREP_DEGREE * (l.layers + l.ns);
        c->values[i].comm_c_siblings = c->values[i].comm_r_last_siblings + l.ns;
    }
    return CUZK_OK;
}

void cuzk_c1_free(cuzk_c1 *c)
{
    if (!c)
        return;
    free(c->values);
    free(c->labels);
    free(c->pool_);
    free(c);
}

/* The configuration and shape of a registered proof, with porep_id and api
 * replaced when given. */
static cuzk_err c1_setup(cuzk_c1 *c, uint64_t registered_proof, const uint8_t *porep_id,
                         cuzk_fc_api api)
{
    const cuzk_fc_proof *fp = cuzk_fc_find(CUZK_FC_SEAL, registered_proof);
    if (!fp)
        return cuzk_fail(CUZK_EINVAL, "registered proof %llu is not a RegisteredSealProof",
                         (unsigned long long)registered_proof);
    cuzk_err e;
    if ((e = cuzk_porep_config_of(fp, &c->config)) || (e = cuzk_porep_shape_of(fp, &c->shape)))
        return e;
    c->registered_proof = registered_proof;
    if (porep_id)
        memcpy(c->config.porep_id, porep_id, 32);
    if (api)
        c->config.api = api;
    return CUZK_OK;
}

cuzk_err cuzk_c1_new(uint64_t registered_proof, const uint8_t *porep_id, cuzk_fc_api api,
                     cuzk_c1 **out)
{
    *out = NULL;
    cuzk_c1 *c = calloc(1, sizeof *c);
    if (!c)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for a C1 output");
    cuzk_err e = c1_setup(c, registered_proof, porep_id, api);
    if (!e)
        e = c1_alloc(c);
    if (e)
        cuzk_c1_free(c);
    else
        *out = c;
    return e;
}

/* The 37 parent labels hashed for a challenge's label in layer l (1-based),
 * from its 14 parents' columns (graph.rs: DRG parents in layer l, expander
 * parents in layer l-1, repeated). */
static void expand_parents(const cuzk_fr *columns, size_t layers, unsigned l,
                           cuzk_fr out[HASHED_PARENTS])
{
    unsigned deg = l == 1 ? CUZK_POREP_DRG_DEGREE : CUZK_POREP_DEGREE;
    for (unsigned k = 0; k < HASHED_PARENTS; k++) {
        unsigned j = k % deg;
        unsigned row = j < CUZK_POREP_DRG_DEGREE ? l - 1 : l - 2;
        out[k] = columns[j * layers + row];
    }
}

/* A label from its parents (labeling_proof.rs create_label). */
cuzk_err cuzk_c1_label(const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                       const cuzk_fr parents[HASHED_PARENTS], cuzk_fr *out)
{
    uint8_t pre[64 + HASHED_PARENTS * NODE] = {0}, d[32];
    memcpy(pre, replica_id, 32);
    for (int i = 0; i < 4; i++)
        pre[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        pre[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    for (int k = 0; k < HASHED_PARENTS; k++)
        cuzk_fr_to_bytes_le(pre + 64 + NODE * k, &parents[k]);
    cuzk_sha256(pre, sizeof pre, d);
    d[31] &= 0x3f;
    return cuzk_fr_from_bytes_le(out, d);
}

cuzk_err cuzk_c1_column_hash(const cuzk_fr *rows, size_t layers, cuzk_fr *out)
{
    const cuzk_poseidon *p;
    cuzk_err e = cuzk_poseidon_merkle((unsigned)layers, &p);
    return e ? e : cuzk_poseidon_hash(p, rows, layers, out);
}

static cuzk_err words(const uint8_t *b, uint64_t n, cuzk_fr *out, const char *what)
{
    for (uint64_t i = 0; i < n; i++)
        if (cuzk_fr_from_bytes_le(&out[i], b + i * NODE))
            return cuzk_fail(CUZK_EINVAL, "%s word %llu is not a field element", what,
                             (unsigned long long)i);
    return CUZK_OK;
}

cuzk_err cuzk_c1_generate(uint64_t registered_proof, const cuzk_seal_params *p,
                          const cuzk_seal_result *r, const uint8_t *data, const uint8_t *labels,
                          const uint8_t seed[32], cuzk_c1 **out)
{
    *out = NULL;
    cuzk_c1 *c = calloc(1, sizeof *c);
    if (!c)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for a C1 output");
    cuzk_err e = c1_setup(c, registered_proof, p->porep_id, p->api);
    if (!e && c->config.sector_size != p->sector_size)
        e = cuzk_fail(CUZK_EINVAL, "registered proof %llu seals %llu-byte sectors, not %llu",
                      (unsigned long long)registered_proof,
                      (unsigned long long)c->config.sector_size,
                      (unsigned long long)p->sector_size);
    if (!e && p->layers && p->layers != c->shape.layers)
        e = cuzk_fail(CUZK_EINVAL, "the sector was sealed with %u layers, the circuit has %u",
                      p->layers, c->shape.layers);
    if (!e)
        e = c1_alloc(c);
    if (e) {
        cuzk_c1_free(c);
        return e;
    }
    uint64_t nodes = c->shape.nodes;
    size_t L = c->shape.layers;
    cuzk_c1_layout lo = cuzk_c1_layout_of(c);
    memcpy(c->comm_r, r->comm_r, 32);
    memcpy(c->comm_d, r->comm_d, 32);
    memcpy(c->replica_id, r->replica_id, 32);
    memcpy(c->seed, seed, 32);
    memcpy(c->ticket, p->ticket, 32);

    cuzk_fr *w = malloc(nodes * sizeof *w), *lab = malloc(nodes * L * sizeof *lab);
    cuzk_fr *cols = malloc(nodes * L * sizeof *cols), *hashes = malloc(nodes * sizeof *hashes);
    cuzk_fr *enc = malloc(nodes * sizeof *enc);
    const cuzk_poseidon *colp;
    cuzk_porep_graph g;
    cuzk_merkle_tree *tree_d = NULL, *tree_c = NULL, *tree_r = NULL;
    if (!w || !lab || !cols || !hashes || !enc) {
        e = cuzk_fail(CUZK_ENOMEM, "out of memory for the trees of a C1 output");
        goto out;
    }
    if ((e = cuzk_fr_from_bytes_le(&c->comm_c, r->comm_c)) ||
        (e = cuzk_fr_from_bytes_le(&c->comm_r_last, r->comm_r_last)) ||
        (e = words(data, nodes, w, "sector data")) ||
        (e = words(labels, nodes * L, lab, "label")) ||
        (e = cuzk_poseidon_merkle((unsigned)L, &colp)) ||
        (e = cuzk_porep_graph_init(&g, nodes, c->config.porep_id, c->config.api)))
        goto out;
    /* tree_c's leaves: node-major columns hashed; tree_r_last's: data +
     * last layer. */
    for (uint64_t v = 0; v < nodes; v++)
        for (size_t l = 0; l < L; l++)
            cols[v * L + l] = lab[l * nodes + v];
    if ((e = cuzk_poseidon_hash_many(colp, cols, nodes, hashes)))
        goto out;
    cuzk_fr_vec_add(enc, w, lab + (L - 1) * nodes, nodes);

    /* The three trees once each, then every challenge's paths from them. */
    cuzk_merkle_shape td = tree_d_shape(nodes);
    if ((e = cuzk_merkle_tree_new(&td, w, &tree_d)) ||
        (e = cuzk_merkle_tree_new(&c->shape.tree, hashes, &tree_c)) ||
        (e = cuzk_merkle_tree_new(&c->shape.tree, enc, &tree_r)))
        goto out;
    for (size_t idx = 0; idx < (size_t)c->config.partitions * c->config.challenges && !e; idx++) {
        cuzk_porep_challenge_values *v = &c->values[idx];
        cuzk_fr *pool = c->pool_ + idx * lo.per;
        uint32_t ch;
        if ((e = cuzk_porep_challenge_of(&c->config, c->replica_id, c->comm_r, seed, (uint32_t)idx,
                                         &ch)))
            break;
        v->challenge = ch;
        v->data_leaf = w[ch];
        if ((e = cuzk_merkle_tree_path(tree_d, ch, pool)) ||
            (e = cuzk_porep_parents(&g, ch, v->parents)))
            break;
        cuzk_fr *pc = pool + lo.nd, *ps = pc + CUZK_POREP_DEGREE * L;
        for (unsigned j = 0; j < CUZK_POREP_DEGREE && !e; j++) {
            memcpy(pc + j * L, cols + (size_t)v->parents[j] * L, L * sizeof *pc);
            e = cuzk_merkle_tree_path(tree_c, v->parents[j], ps + j * lo.ns);
        }
        if (e || (e = cuzk_merkle_tree_path(tree_r, ch, ps + CUZK_POREP_DEGREE * lo.ns)) ||
            (e = cuzk_merkle_tree_path(tree_c, ch, ps + (CUZK_POREP_DEGREE + 1) * lo.ns)))
            break;
        memcpy(c->labels + idx * L, cols + (size_t)ch * L, L * sizeof *cols);
    }
out:
    cuzk_merkle_tree_free(tree_d);
    cuzk_merkle_tree_free(tree_c);
    cuzk_merkle_tree_free(tree_r);
    free(w);
    free(lab);
    free(cols);
    free(hashes);
    free(enc);
    if (e)
        cuzk_c1_free(c);
    else
        *out = c;
    return e;
}

cuzk_err cuzk_c1_partition(const cuzk_c1 *c, unsigned k, cuzk_porep_values *out)
{
    if (k >= c->config.partitions)
        return cuzk_fail(CUZK_EINVAL, "partition %u of %u", k, c->config.partitions);
    memset(out, 0, sizeof *out);
    cuzk_fr_from_bytes_le(&out->replica_id, c->replica_id);
    cuzk_fr_from_bytes_le(&out->comm_d, c->comm_d);
    cuzk_fr_from_bytes_le(&out->comm_r, c->comm_r);
    out->comm_c = c->comm_c;
    out->comm_r_last = c->comm_r_last;
    out->challenges = c->values + (size_t)k * c->config.challenges;
    return CUZK_OK;
}

/* ---- JSON out ---- */

static json_t *j_bytes(const uint8_t b[32])
{
    json_t *a = json_array();
    for (int i = 0; i < 32; i++)
        json_array_append_new(a, json_integer(b[i]));
    return a;
}

static json_t *j_fr(const cuzk_fr *f)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, f);
    return j_bytes(b);
}

/* An InclusionPath of `levels` levels of one arity; *index loses the
 * digits it uses, *sib advances past its siblings. */
static json_t *j_path(const cuzk_fr **sib, unsigned arity, unsigned levels, uint64_t *index)
{
    json_t *path = json_array();
    for (unsigned h = 0; h < levels; h++) {
        json_t *el = json_object(), *hs = json_array();
        for (unsigned a = 0; a + 1 < arity; a++)
            json_array_append_new(hs, j_fr((*sib)++));
        json_object_set_new(el, "hashes", hs);
        json_object_set_new(el, "index", json_integer((json_int_t)(*index % arity)));
        *index /= arity;
        json_array_append_new(path, el);
    }
    json_t *o = json_object();
    json_object_set_new(o, "path", path);
    return o;
}

static json_t *j_merkle(const cuzk_merkle_shape *s, const cuzk_fr *leaf, const cuzk_fr *sib,
                        uint64_t index, const cuzk_fr *root)
{
    json_t *p = json_object();
    const char *kind = "Single";
    if (!s->sub_arity) {
        json_object_set_new(p, "root", j_fr(root));
        json_object_set_new(p, "leaf", j_fr(leaf));
        json_object_set_new(p, "path", j_path(&sib, s->base_arity, s->base_levels, &index));
    } else {
        kind = s->top_arity ? "Top" : "Sub";
        json_object_set_new(p, "base_proof", j_path(&sib, s->base_arity, s->base_levels, &index));
        json_object_set_new(p, "sub_proof", j_path(&sib, s->sub_arity, 1, &index));
        if (s->top_arity)
            json_object_set_new(p, "top_proof", j_path(&sib, s->top_arity, 1, &index));
        json_object_set_new(p, "root", j_fr(root));
        json_object_set_new(p, "leaf", j_fr(leaf));
    }
    json_t *data = json_object(), *m = json_object();
    json_object_set_new(data, kind, p);
    json_object_set_new(m, "data", data);
    return m;
}

static cuzk_err j_column(const cuzk_c1 *c, uint32_t node, const cuzk_fr *rows, const cuzk_fr *sib,
                         json_t **out)
{
    size_t L = c->shape.layers;
    cuzk_fr leaf;
    cuzk_err e = cuzk_c1_column_hash(rows, L, &leaf);
    if (e)
        return e;
    json_t *col = json_object(), *rs = json_array(), *cp = json_object();
    for (size_t l = 0; l < L; l++)
        json_array_append_new(rs, j_fr(&rows[l]));
    json_object_set_new(col, "index", json_integer(node));
    json_object_set_new(col, "rows", rs);
    json_object_set_new(col, "_h", json_null());
    json_object_set_new(cp, "column", col);
    json_object_set_new(cp, "inclusion_proof",
                        j_merkle(&c->shape.tree, &leaf, sib, node, &c->comm_c));
    *out = cp;
    return CUZK_OK;
}

static json_t *j_labeling(const cuzk_fr parents[HASHED_PARENTS], unsigned layer, uint64_t node)
{
    json_t *o = json_object(), *ps = json_array();
    for (int k = 0; k < HASHED_PARENTS; k++)
        json_array_append_new(ps, j_fr(&parents[k]));
    json_object_set_new(o, "parents", ps);
    json_object_set_new(o, "layer_index", json_integer(layer));
    json_object_set_new(o, "node", json_integer((json_int_t)node));
    return o;
}

static cuzk_err j_proof(const cuzk_c1 *c, size_t idx, json_t **out)
{
    const cuzk_porep_challenge_values *v = &c->values[idx];
    const cuzk_fr *own = c->labels + idx * c->shape.layers;
    cuzk_c1_layout lo = cuzk_c1_layout_of(c);
    size_t L = lo.layers;
    cuzk_merkle_shape td = tree_d_shape(c->shape.nodes);
    cuzk_fr comm_d, enc;
    cuzk_err e = cuzk_fr_from_bytes_le(&comm_d, c->comm_d);
    if (e)
        return cuzk_fail(CUZK_EINVAL, "comm_d is not a field element");
    blst_fr_add(&enc, &own[L - 1], &v->data_leaf);
    json_t *pr = json_object();
    json_object_set_new(pr, "comm_d_proofs",
                        j_merkle(&td, &v->data_leaf, v->comm_d_siblings, v->challenge, &comm_d));
    json_object_set_new(
        pr, "comm_r_last_proof",
        j_merkle(&c->shape.tree, &enc, v->comm_r_last_siblings, v->challenge, &c->comm_r_last));
    json_t *rcp = json_object(), *cx = NULL, *drg = json_array(), *exp = json_array();
    json_object_set_new(pr, "replica_column_proofs", rcp);
    if ((e = j_column(c, (uint32_t)v->challenge, own, v->comm_c_siblings, &cx)))
        goto fail;
    json_object_set_new(rcp, "c_x", cx);
    for (unsigned j = 0; j < CUZK_POREP_DEGREE; j++) {
        json_t *cp;
        if ((e = j_column(c, v->parents[j], v->columns + j * L, v->column_siblings + j * lo.ns,
                          &cp)))
            goto fail;
        json_array_append_new(j < CUZK_POREP_DRG_DEGREE ? drg : exp, cp);
    }
    json_object_set_new(rcp, "drg_parents", drg);
    json_object_set_new(rcp, "exp_parents", exp);
    drg = exp = NULL;
    json_t *lps = json_array();
    cuzk_fr par[HASHED_PARENTS];
    for (unsigned l = 1; l <= L; l++) {
        expand_parents(v->columns, L, l, par);
        json_array_append_new(lps, j_labeling(par, l, v->challenge));
    }
    json_object_set_new(pr, "labeling_proofs", lps);
    /* The encoding proof repeats the last layer's labeling proof. */
    json_object_set_new(pr, "encoding_proof", j_labeling(par, (unsigned)L, v->challenge));
    *out = pr;
    return CUZK_OK;
fail:
    json_decref(drg);
    json_decref(exp);
    json_decref(pr);
    return e;
}

cuzk_err cuzk_c1_to_json(const cuzk_c1 *c, char **json, size_t *len)
{
    *json = NULL;
    const char *name = cuzk_c1_proof_name(c->registered_proof);
    if (!name)
        return cuzk_fail(CUZK_EINVAL, "registered proof %llu has no name",
                         (unsigned long long)c->registered_proof);
    char vbuf[48];
    json_t *root = json_object(), *vp = json_object(), *parts = json_array();
    cuzk_err e = CUZK_OK;
    for (unsigned k = 0; k < c->config.partitions && !e; k++) {
        json_t *part = json_array();
        json_array_append_new(parts, part);
        for (unsigned i = 0; i < c->config.challenges && !e; i++) {
            json_t *pr;
            if (!(e = j_proof(c, (size_t)k * c->config.challenges + i, &pr)))
                json_array_append_new(part, pr);
        }
    }
    json_object_set_new(vp, variant_name(c->config.sector_size, vbuf), parts);
    json_object_set_new(root, "registered_proof", json_string(name));
    json_object_set_new(root, "vanilla_proofs", vp);
    json_object_set_new(root, "comm_r", j_bytes(c->comm_r));
    json_object_set_new(root, "comm_d", j_bytes(c->comm_d));
    json_object_set_new(root, "replica_id", j_bytes(c->replica_id));
    json_object_set_new(root, "seed", j_bytes(c->seed));
    json_object_set_new(root, "ticket", j_bytes(c->ticket));
    if (!e) {
        /* jansson keeps insertion order (2.8+), so the fields come out in
         * serde's declaration order. */
        *json = json_dumps(root, JSON_COMPACT);
        if (!*json)
            e = cuzk_fail(CUZK_ENOMEM, "out of memory writing a C1 output");
        else
            *len = strlen(*json);
    }
    json_decref(root);
    return e;
}

/* ---- JSON in ---- */

/* A path in the JSON for messages: "vanilla_proofs.StackedDrg2KiBV1[0][1]
 * .labeling_proofs[1]". */
typedef struct {
    char s[PATH_MAX_LEN];
} jpath;

/* Append text to a path, cutting what does not fit (paths of real C1
 * outputs are far shorter). */
static void append(jpath *q, const char *text)
{
    size_t n = strlen(q->s), m = strlen(text);
    if (m > sizeof q->s - 1 - n)
        m = sizeof q->s - 1 - n;
    memcpy(q->s + n, text, m);
    q->s[n + m] = 0;
}

static jpath at_key(const jpath *p, const char *key)
{
    jpath q = *p;
    if (q.s[0])
        append(&q, ".");
    append(&q, key);
    return q;
}

static jpath at_index(const jpath *p, size_t i)
{
    jpath q = *p;
    char b[24];
    cuzk_index_suffix(b, i);
    append(&q, b);
    return q;
}

static const char *type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_NULL: return "null";
    default: return "a boolean";
    }
}

/* An object with exactly these keys (serde writes all of them; anything
 * else is not a C1 output of this version). */
static cuzk_err want_keys(const jpath *p, const json_t *o, const char *const *keys, size_t n)
{
    if (!json_is_object(o))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %s, want an object", p->s[0] ? p->s : "(top)",
                         type_name(o));
    for (size_t i = 0; i < n; i++)
        if (!json_object_get(o, keys[i]))
            return cuzk_fail(CUZK_EFORMAT, "C1 %s: missing", at_key(p, keys[i]).s);
    if (json_object_size(o) != n) {
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)o, k, v)
        {
            size_t i;
            for (i = 0; i < n && strcmp(k, keys[i]); i++)
                ;
            if (i == n)
                return cuzk_fail(CUZK_EFORMAT, "C1 %s: unknown field", at_key(p, k).s);
        }
    }
    return CUZK_OK;
}

static cuzk_err want_array(const jpath *p, const json_t *a, size_t n, const char *what)
{
    if (!json_is_array(a))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %s, want an array", p->s, type_name(a));
    if (json_array_size(a) != n)
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %zu %s, want %zu", p->s, json_array_size(a), what,
                         n);
    return CUZK_OK;
}

static cuzk_err want_uint(const jpath *p, const json_t *j, uint64_t max, uint64_t *out)
{
    if (!json_is_integer(j))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %s, want an integer", p->s, type_name(j));
    json_int_t v = json_integer_value(j);
    if (v < 0 || (uint64_t)v > max)
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %lld is out of range 0..%llu", p->s, (long long)v,
                         (unsigned long long)max);
    *out = (uint64_t)v;
    return CUZK_OK;
}

static cuzk_err d_bytes(const jpath *p, const json_t *a, uint8_t out[32])
{
    cuzk_err e = want_array(p, a, 32, "bytes");
    for (size_t i = 0; i < 32 && !e; i++) {
        uint64_t b;
        jpath q = at_index(p, i);
        if (!(e = want_uint(&q, json_array_get(a, i), 255, &b)))
            out[i] = (uint8_t)b;
    }
    return e;
}

static cuzk_err d_fr(const jpath *p, const json_t *a, cuzk_fr *out)
{
    uint8_t b[32];
    cuzk_err e = d_bytes(p, a, b);
    if (!e && cuzk_fr_from_bytes_le(out, b))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: not a canonical field element", p->s);
    return e;
}

static cuzk_err mismatch(const jpath *p, const char *what)
{
    return cuzk_fail(CUZK_EVERIFY, "C1 %s: %s", p->s, what);
}

/* Decoding state: what is checked against what. */
typedef struct {
    cuzk_c1 *c;
    const cuzk_c1_expect *x;
    int check; /* value checks on */
    int have_roots;
    cuzk_fr comm_d;
} dctx;

/* One InclusionPath of `levels` levels of one arity into sib; its index
 * digits add to *index from *scale up. */
static cuzk_err d_path(const jpath *p, const json_t *o, unsigned arity, unsigned levels,
                       cuzk_fr **sib, uint64_t *index, uint64_t *scale)
{
    static const char *const keys[] = {"path"};
    cuzk_err e = want_keys(p, o, keys, 1);
    jpath pp = at_key(p, "path");
    json_t *a = json_object_get(o, "path");
    if (e || (e = want_array(&pp, a, levels, "levels")))
        return e;
    for (unsigned h = 0; h < levels; h++) {
        static const char *const ek[] = {"hashes", "index"};
        jpath ep = at_index(&pp, h), hp = at_key(&ep, "hashes"), ip = at_key(&ep, "index");
        json_t *el = json_array_get(a, h), *hs;
        uint64_t d;
        if ((e = want_keys(&ep, el, ek, 2)) ||
            (e = want_array(&hp, hs = json_object_get(el, "hashes"), arity - 1, "hashes")) ||
            (e = want_uint(&ip, json_object_get(el, "index"), arity - 1, &d)))
            return e;
        for (unsigned k = 0; k + 1 < arity; k++) {
            jpath kp = at_index(&hp, k);
            if ((e = d_fr(&kp, json_array_get(hs, k), (*sib)++)))
                return e;
        }
        *index += d * *scale;
        *scale *= arity;
    }
    return CUZK_OK;
}

/* A MerkleProof of shape s opening node `want` (any node when the value
 * checks are off): leaf, root and siblings out. */
static cuzk_err d_merkle(const dctx *d, const jpath *p, const json_t *m, const cuzk_merkle_shape *s,
                         uint64_t want, cuzk_fr *leaf, cuzk_fr *root, cuzk_fr *sib,
                         uint64_t *index_out)
{
    static const char *const mk[] = {"data"};
    static const char *const single[] = {"root", "leaf", "path"};
    static const char *const sub[] = {"base_proof", "sub_proof", "root", "leaf"};
    static const char *const top[] = {"base_proof", "sub_proof", "top_proof", "root", "leaf"};
    const char *kind = !s->sub_arity ? "Single" : s->top_arity ? "Top" : "Sub";
    jpath dp = at_key(p, "data"), kp = at_key(&dp, kind);
    cuzk_err e = want_keys(p, m, mk, 1);
    if (e)
        return e;
    json_t *data = json_object_get(m, "data");
    if (!json_is_object(data) || json_object_size(data) != 1 || !json_object_get(data, kind))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: want {\"%s\": ...} (the tree's shape)", dp.s, kind);
    json_t *o = json_object_get(data, kind);
    if (!s->sub_arity)
        e = want_keys(&kp, o, single, 3);
    else if (!s->top_arity)
        e = want_keys(&kp, o, sub, 4);
    else
        e = want_keys(&kp, o, top, 5);
    if (e)
        return e;
    jpath rp = at_key(&kp, "root"), lp = at_key(&kp, "leaf");
    if ((e = d_fr(&rp, json_object_get(o, "root"), root)) ||
        (e = d_fr(&lp, json_object_get(o, "leaf"), leaf)))
        return e;
    uint64_t index = 0, scale = 1;
    cuzk_fr *cur = sib;
    if (!s->sub_arity) {
        jpath pp = at_key(&kp, "path");
        e = d_path(&pp, json_object_get(o, "path"), s->base_arity, s->base_levels, &cur, &index,
                   &scale);
    } else {
        jpath bp = at_key(&kp, "base_proof"), sp = at_key(&kp, "sub_proof"),
              tp = at_key(&kp, "top_proof");
        e = d_path(&bp, json_object_get(o, "base_proof"), s->base_arity, s->base_levels, &cur,
                   &index, &scale);
        if (!e)
            e = d_path(&sp, json_object_get(o, "sub_proof"), s->sub_arity, 1, &cur, &index, &scale);
        if (!e && s->top_arity)
            e = d_path(&tp, json_object_get(o, "top_proof"), s->top_arity, 1, &cur, &index, &scale);
    }
    if (e)
        return e;
    *index_out = index;
    if (!d->check)
        return CUZK_OK;
    if (index != want) {
        char why[96];
        snprintf(why, sizeof why, "opens node %llu, want %llu", (unsigned long long)index,
                 (unsigned long long)want);
        return mismatch(p, why);
    }
    cuzk_fr got;
    if ((e = cuzk_merkle_root_from_path(s, leaf, sib, index, &got)))
        return e;
    if (!cuzk_fr_eq(&got, root))
        return mismatch(p, "the path does not hash to its root");
    return CUZK_OK;
}

/* A ColumnProof: the column's node (checked against want), rows and the
 * comm_c path; its root is comm_c (the first seen when value checks are
 * on, every one after must agree). */
static cuzk_err d_column(dctx *d, const jpath *p, const json_t *cp, uint64_t want, uint32_t *node,
                         cuzk_fr *rows, cuzk_fr *sib)
{
    static const char *const ck[] = {"column", "inclusion_proof"};
    static const char *const colk[] = {"index", "rows", "_h"};
    cuzk_c1 *c = d->c;
    size_t L = c->shape.layers;
    jpath colp = at_key(p, "column"), ip = at_key(&colp, "index"), rp = at_key(&colp, "rows"),
          hp = at_key(&colp, "_h"), pp = at_key(p, "inclusion_proof");
    cuzk_err e = want_keys(p, cp, ck, 2);
    json_t *col = json_object_get(cp, "column"), *rs;
    uint64_t idx;
    if (e || (e = want_keys(&colp, col, colk, 3)) ||
        (e = want_uint(&ip, json_object_get(col, "index"), c->shape.nodes - 1, &idx)) ||
        (e = want_array(&rp, rs = json_object_get(col, "rows"), L, "rows (layers)")))
        return e;
    if (!json_is_null(json_object_get(col, "_h")))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: want null", hp.s);
    for (size_t l = 0; l < L; l++) {
        jpath lp = at_index(&rp, l);
        if ((e = d_fr(&lp, json_array_get(rs, l), &rows[l])))
            return e;
    }
    *node = (uint32_t)idx;
    if (d->check && idx != want) {
        char why[80];
        snprintf(why, sizeof why, "the column of node %llu, want %llu", (unsigned long long)idx,
                 (unsigned long long)want);
        return mismatch(&ip, why);
    }
    cuzk_fr leaf, root, h;
    uint64_t opened;
    if ((e = d_merkle(d, &pp, json_object_get(cp, "inclusion_proof"), &c->shape.tree, idx, &leaf,
                      &root, sib, &opened)))
        return e;
    if (!d->check)
        return CUZK_OK;
    if ((e = cuzk_c1_column_hash(rows, L, &h)))
        return e;
    if (!cuzk_fr_eq(&h, &leaf))
        return mismatch(&pp, "the leaf is not the column's hash");
    if (!cuzk_fr_eq(&root, &c->comm_c))
        return mismatch(&pp, "the root is not comm_c (the root of the other columns)");
    return CUZK_OK;
}

/* A LabelingProof or EncodingProof: 37 parents, the layer and node. */
static cuzk_err d_labeling(const jpath *p, const json_t *o, cuzk_fr par[HASHED_PARENTS],
                           uint64_t *layer, uint64_t *node)
{
    static const char *const lk[] = {"parents", "layer_index", "node"};
    jpath pp = at_key(p, "parents"), lp = at_key(p, "layer_index"), np = at_key(p, "node");
    json_t *ps;
    cuzk_err e = want_keys(p, o, lk, 3);
    if (e || (e = want_array(&pp, ps = json_object_get(o, "parents"), HASHED_PARENTS, "parents")) ||
        (e = want_uint(&lp, json_object_get(o, "layer_index"), UINT32_MAX, layer)) ||
        (e = want_uint(&np, json_object_get(o, "node"), UINT64_MAX >> 1, node)))
        return e;
    for (int k = 0; k < HASHED_PARENTS; k++) {
        jpath kp = at_index(&pp, (size_t)k);
        if ((e = d_fr(&kp, json_array_get(ps, (size_t)k), &par[k])))
            return e;
    }
    return CUZK_OK;
}

/* Labeling proof (or the encoding proof) of layer l: the parents the
 * columns give, the layer, the challenge, and the label its c_x row. */
static cuzk_err check_labeling(const dctx *d, const jpath *p, const json_t *o, unsigned l,
                               const cuzk_porep_challenge_values *v, const cuzk_fr *own,
                               cuzk_fr *label)
{
    cuzk_fr par[HASHED_PARENTS], want[HASHED_PARENTS];
    uint64_t layer, node;
    cuzk_err e = d_labeling(p, o, par, &layer, &node);
    if (e || !d->check)
        return e;
    char why[128];
    if (layer != l) {
        snprintf(why, sizeof why, "layer_index %llu, want %u", (unsigned long long)layer, l);
        return mismatch(p, why);
    }
    if (node != v->challenge) {
        snprintf(why, sizeof why, "node %llu, want the challenge %llu", (unsigned long long)node,
                 (unsigned long long)v->challenge);
        return mismatch(p, why);
    }
    expand_parents(v->columns, d->c->shape.layers, l, want);
    for (int k = 0; k < HASHED_PARENTS; k++)
        if (!cuzk_fr_eq(&par[k], &want[k])) {
            jpath pp = at_key(p, "parents"), kp = at_index(&pp, (size_t)k);
            return mismatch(&kp, "not the label the parents' columns give");
        }
    if ((e = cuzk_c1_label(d->c->replica_id, l, node, par, label)))
        return e;
    if (!cuzk_fr_eq(label, &own[l - 1])) {
        snprintf(why, sizeof why, "the label it gives is not row %u of c_x", l - 1);
        return mismatch(p, why);
    }
    return CUZK_OK;
}

static cuzk_err d_proof(dctx *d, const jpath *p, const json_t *o, size_t idx, uint64_t want)
{
    static const char *const pk[] = {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs",
                                     "labeling_proofs", "encoding_proof"};
    static const char *const rk[] = {"c_x", "drg_parents", "exp_parents"};
    cuzk_c1 *c = d->c;
    cuzk_c1_layout lo = cuzk_c1_layout_of(c);
    size_t L = lo.layers;
    cuzk_porep_challenge_values *v = &c->values[idx];
    cuzk_fr *pool = c->pool_ + idx * lo.per, *own = c->labels + idx * L;
    cuzk_fr *cols = pool + lo.nd, *csib = cols + CUZK_POREP_DEGREE * L;
    cuzk_fr *rsib = csib + CUZK_POREP_DEGREE * lo.ns, *xsib = rsib + lo.ns;
    jpath dp = at_key(p, "comm_d_proofs"), rp = at_key(p, "comm_r_last_proof"),
          cp = at_key(p, "replica_column_proofs"), lp = at_key(p, "labeling_proofs"),
          ep = at_key(p, "encoding_proof");
    cuzk_err e = want_keys(p, o, pk, 5);
    if (e)
        return e;
    cuzk_merkle_shape td = tree_d_shape(c->shape.nodes);
    cuzk_fr root, rleaf;
    uint64_t opened;
    if ((e = d_merkle(d, &dp, json_object_get(o, "comm_d_proofs"), &td, want, &v->data_leaf, &root,
                      pool, &opened)))
        return e;
    v->challenge = opened;
    if (d->check && !cuzk_fr_eq(&root, &d->comm_d))
        return mismatch(&dp, "the root is not comm_d");
    if ((e = d_merkle(d, &rp, json_object_get(o, "comm_r_last_proof"), &c->shape.tree, want, &rleaf,
                      &root, rsib, &opened)))
        return e;
    /* The first proof gives comm_r_last and comm_c; every later one must
     * agree, and comm_r must be their hash (checked after all proofs). */
    json_t *rcp = json_object_get(o, "replica_column_proofs");
    if ((e = want_keys(&cp, rcp, rk, 3)))
        return e;
    if (!d->have_roots) {
        c->comm_r_last = root;
        json_t *cx = json_object_get(rcp, "c_x");
        json_t *cxd = json_is_object(cx) ? json_object_get(cx, "inclusion_proof") : NULL;
        json_t *data = json_is_object(cxd) ? json_object_get(cxd, "data") : NULL;
        json_t *k = json_is_object(data) ? json_object_iter_value(json_object_iter(data)) : NULL;
        jpath xp = at_key(&cp, "c_x.inclusion_proof.data.root");
        json_t *r = json_is_object(k) ? json_object_get(k, "root") : NULL;
        if (r && (e = d_fr(&xp, r, &c->comm_c)))
            return e;
        d->have_roots = 1;
    } else if (d->check && !cuzk_fr_eq(&root, &c->comm_r_last)) {
        return mismatch(&rp, "the root differs from the first proof's (comm_r_last)");
    }
    jpath xp = at_key(&cp, "c_x");
    uint32_t node;
    if ((e = d_column(d, &xp, json_object_get(rcp, "c_x"), want, &node, own, xsib)))
        return e;
    uint32_t par[CUZK_POREP_DEGREE] = {0};
    if (d->check) {
        cuzk_porep_graph g;
        if ((e = cuzk_porep_graph_init(&g, c->shape.nodes, c->config.porep_id, c->config.api)) ||
            (e = cuzk_porep_parents(&g, (uint32_t)want, par)))
            return e;
    }
    for (int half = 0; half < 2; half++) {
        const char *key = half ? "exp_parents" : "drg_parents";
        unsigned n = half ? CUZK_POREP_EXP_DEGREE : CUZK_POREP_DRG_DEGREE;
        unsigned base = half ? CUZK_POREP_DRG_DEGREE : 0;
        jpath hp = at_key(&cp, key);
        json_t *a = json_object_get(rcp, key);
        if ((e = want_array(&hp, a, n, "columns")))
            return e;
        for (unsigned j = 0; j < n; j++) {
            jpath jp = at_index(&hp, j);
            if ((e = d_column(d, &jp, json_array_get(a, j), par[base + j], &v->parents[base + j],
                              cols + (base + j) * L, csib + (base + j) * lo.ns)))
                return e;
        }
    }
    json_t *lps = json_object_get(o, "labeling_proofs");
    if ((e = want_array(&lp, lps, L, "labeling proofs (layers)")))
        return e;
    cuzk_fr label;
    for (unsigned l = 1; l <= L; l++) {
        jpath kp = at_index(&lp, l - 1);
        if ((e = check_labeling(d, &kp, json_array_get(lps, l - 1), l, v, own, &label)))
            return e;
    }
    if ((e = check_labeling(d, &ep, json_object_get(o, "encoding_proof"), (unsigned)L, v, own,
                            &label)))
        return e;
    if (d->check) {
        cuzk_fr enc;
        blst_fr_add(&enc, &label, &v->data_leaf);
        if (!cuzk_fr_eq(&enc, &rleaf))
            return mismatch(&rp, "the leaf is not the encoding (last label + data leaf)");
    }
    return CUZK_OK;
}

/* Decoding the challenges' proofs: proof idx is challenge idx % challenges
 * of partition idx / challenges. */
typedef struct {
    dctx *d;
    const jpath *parts_p;
    json_t *parts;
    atomic_size_t first_bad; /* lowest failing idx; the count when none */
} proofs_job;

static cuzk_err one_proof(proofs_job *j, size_t idx)
{
    const cuzk_c1 *c = j->d->c;
    unsigned k = (unsigned)(idx / c->config.challenges), i = (unsigned)(idx % c->config.challenges);
    jpath kp = at_index(j->parts_p, k), ip = at_index(&kp, i);
    uint32_t want;
    CUZK_TRY(cuzk_porep_challenge_of(&c->config, c->replica_id, c->comm_r, c->seed, (uint32_t)idx,
                                     &want));
    return d_proof(j->d, &ip, json_array_get(json_array_get(j->parts, k), i), idx, want);
}

static void proofs_range(void *ctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    proofs_job *j = ctx;
    for (size_t idx = lo + 1; idx < hi + 1; idx++) { /* proof 0 came first */
        if (idx > atomic_load(&j->first_bad))
            return;
        if (one_proof(j, idx) == CUZK_OK)
            continue;
        size_t cur = atomic_load(&j->first_bad);
        while (idx < cur && !atomic_compare_exchange_weak(&j->first_bad, &cur, idx))
            ;
        return;
    }
}

static cuzk_err decode(dctx *d, const json_t *root)
{
    static const char *const tk[] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                     "replica_id",       "seed",           "ticket"};
    cuzk_c1 *c = d->c;
    const cuzk_c1_expect *x = d->x;
    jpath top = {{0}}, pp = at_key(&top, "registered_proof"), vp = at_key(&top, "vanilla_proofs");
    cuzk_err e = want_keys(&top, root, tk, 7);
    if (e)
        return e;
    json_t *rp = json_object_get(root, "registered_proof");
    if (!json_is_string(rp))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %s, want a string", pp.s, type_name(rp));
    uint64_t number;
    for (number = 0; number < RUST_NAMES && strcmp(rust_names[number], json_string_value(rp));
         number++)
        ;
    if (number == RUST_NAMES)
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: \"%s\" is not a RegisteredSealProof", pp.s,
                         json_string_value(rp));
    if ((e = c1_setup(c, number, x ? x->porep_id : NULL, x ? x->api : (cuzk_fc_api)0)))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: %s: %s", pp.s, json_string_value(rp), cuzk_errmsg());
    static const char *const byte_keys[] = {"comm_r", "comm_d", "replica_id", "seed", "ticket"};
    uint8_t *dst[] = {c->comm_r, c->comm_d, c->replica_id, c->seed, c->ticket};
    for (int i = 0; i < 5; i++) {
        jpath bp = at_key(&top, byte_keys[i]);
        if ((e = d_bytes(&bp, json_object_get(root, byte_keys[i]), dst[i])))
            return e;
    }
    cuzk_fr f;
    for (int i = 0; i < 3; i++) /* comm_r, comm_d and replica_id are field elements */
        if (cuzk_fr_from_bytes_le(&f, dst[i])) {
            jpath bp = at_key(&top, byte_keys[i]);
            return cuzk_fail(CUZK_EFORMAT, "C1 %s: not a canonical field element", bp.s);
        }
    cuzk_fr_from_bytes_le(&d->comm_d, c->comm_d);
    if (d->check && x && x->prover_id) {
        uint8_t rid[32];
        cuzk_porep_replica_id(x->prover_id, x->sector_id, c->ticket, c->comm_d, c->config.porep_id,
                              rid);
        if (memcmp(rid, c->replica_id, 32))
            return cuzk_fail(CUZK_EVERIFY,
                             "C1 replica_id: not the one of prover, sector %llu, ticket, comm_d "
                             "and porep_id",
                             (unsigned long long)x->sector_id);
    }
    char vbuf[48];
    const char *variant = variant_name(c->config.sector_size, vbuf);
    json_t *vps = json_object_get(root, "vanilla_proofs");
    if (!json_is_object(vps) || json_object_size(vps) != 1)
        return cuzk_fail(CUZK_EFORMAT, "C1 %s: want an object of one variant", vp.s);
    const char *got = json_object_iter_key(json_object_iter(vps));
    if (strcmp(got, variant))
        return cuzk_fail(CUZK_EFORMAT, "C1 %s.%s: %s seals with the variant %s", vp.s, got,
                         rust_names[number], variant);
    jpath parts_p = at_key(&vp, variant);
    json_t *parts = json_object_get(vps, variant);
    if ((e = want_array(&parts_p, parts, c->config.partitions, "partitions")) || (e = c1_alloc(c)))
        return e;
    for (unsigned k = 0; k < c->config.partitions; k++) {
        jpath kp = at_index(&parts_p, k);
        if ((e = want_array(&kp, json_array_get(parts, k), c->config.challenges, "challenges")))
            return e;
    }
    /* The first proof sets comm_r_last and comm_c, which the others are
     * checked against; the others then decode on all threads. A failure
     * is reported as the first failing proof's, decoded again here (a
     * worker's message stays on its thread). */
    size_t n = (size_t)c->config.partitions * c->config.challenges;
    proofs_job j = {.d = d, .parts_p = &parts_p, .parts = parts};
    atomic_init(&j.first_bad, n);
    if ((e = one_proof(&j, 0)))
        return e;
    cuzk_parallel_for(n - 1, 1, proofs_range, &j);
    size_t bad = atomic_load(&j.first_bad);
    if (bad < n) {
        if ((e = one_proof(&j, bad)))
            return e;
        return cuzk_fail(CUZK_EINTERNAL, "C1: proof %zu failed on a thread only", bad);
    }
    if (d->check) {
        const cuzk_poseidon *p2;
        cuzk_fr in[2] = {c->comm_c, c->comm_r_last}, comm_r, want;
        cuzk_fr_from_bytes_le(&want, c->comm_r);
        if ((e = cuzk_poseidon_merkle(2, &p2)) || (e = cuzk_poseidon_hash(p2, in, 2, &comm_r)))
            return e;
        if (!cuzk_fr_eq(&comm_r, &want))
            return cuzk_fail(CUZK_EVERIFY,
                             "C1 comm_r: not the hash of comm_c and comm_r_last (the proofs' "
                             "roots)");
    }
    return CUZK_OK;
}

cuzk_err cuzk_c1_from_json(const char *json, size_t len, const cuzk_c1_expect *x, cuzk_c1 **out)
{
    *out = NULL;
    json_error_t je;
    json_t *root = json_loadb(json, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return cuzk_fail(CUZK_EFORMAT, "C1: not JSON: %s at line %d column %d", je.text, je.line,
                         je.column);
    dctx d = {0};
    d.c = calloc(1, sizeof *d.c);
    d.x = x;
    d.check = !(x && x->no_value_checks);
    cuzk_err e = d.c ? decode(&d, root) : cuzk_fail(CUZK_ENOMEM, "out of memory for a C1 output");
    json_decref(root);
    if (e)
        cuzk_c1_free(d.c);
    else
        *out = d.c;
    return e;
}
