/* SnapDeals updates (gen.h cuzk_gen_snap, seal.h cuzk_seal_update): the
 * new replica, its commitments and every partition's vanilla proof.
 *
 * Both go through one tree form: a tree whose leaves are constant on
 * aligned blocks of 2^block_bits leaves, held as one table per level. A
 * node that spans at most a block has the value of its block's class (one
 * entry per block); a node that spans more is kept itself. block_bits = 0
 * is a whole tree (every node kept), block_bits = node_bits a constant one
 * (one entry per level). A sparse update's trees are of this form: the old
 * replica constant, the new data constant, so the new replica (old + data
 * * rho of the node's h high bits) is constant on the 2^h blocks that share
 * a rho; a 32 GiB update's three trees cost a few thousand hashes.
 *
 * A sparse update (cuzk_gen_snap) is test data like gen porep's: the sector
 * key is not the replica of any sealed sector, and comm_c is a derived
 * value; everything the vanilla verification and the circuit check of an
 * update holds (paths, roots, comm_r_old and comm_r_new, the encoding, the
 * apex tree), and that is all it is for. */
#include "cuzk/gen.h"
#include "cuzk/poseidon.h"
#include "cuzk/seal.h"
#include "cuzk/sha256.h"
#include "cuzk/snap.h"
#include "cuzk/util.h"
#include "seal/gen_priv.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64

typedef struct {
    cuzk_merkle_shape s;
    unsigned levels, block_bits;
    unsigned arity[MAX_LEVELS];
    uint64_t span[MAX_LEVELS + 1];
    cuzk_fr *vals[MAX_LEVELS + 1];
} tree;

static void tree_free(tree *t)
{
    for (unsigned l = 0; l <= t->levels; l++)
        free(t->vals[l]);
    memset(t, 0, sizeof *t);
}

static const cuzk_fr *tree_value(const tree *t, unsigned l, uint64_t idx)
{
    if (t->span[l] <= (1ull << t->block_bits))
        return &t->vals[l][(idx * t->span[l]) >> t->block_bits];
    return &t->vals[l][idx];
}

static cuzk_err node_hash(const tree *t, unsigned a, const cuzk_fr *in, size_t n, cuzk_fr *out)
{
    if (t->s.hasher == CUZK_MERKLE_SHA256) {
        for (size_t i = 0; i < n; i++)
            CUZK_TRY(cuzk_sha256_fr_hash(in + i * a, a, out + i));
        return CUZK_OK;
    }
    const cuzk_poseidon *p;
    CUZK_TRY(cuzk_poseidon_merkle(a, &p));
    return cuzk_poseidon_hash_many(p, in, n, out);
}

/* The tree of shape s over leaves constant on blocks of 2^block_bits:
 * classes[b] for block b (moved into the tree on success, freed on
 * failure). */
static cuzk_err tree_build(tree *t, const cuzk_merkle_shape *s, unsigned block_bits,
                           cuzk_fr *classes)
{
    memset(t, 0, sizeof *t);
    t->s = *s;
    t->levels = cuzk_merkle_path_levels(s);
    t->block_bits = block_bits;
    t->vals[0] = classes;
    t->span[0] = 1;
    uint64_t leaves = cuzk_merkle_leaf_count(s), block = 1ull << block_bits;
    for (unsigned l = 0; l < t->levels; l++) {
        t->arity[l] = l < s->base_levels    ? s->base_arity
                      : l == s->base_levels ? s->sub_arity
                                            : s->top_arity;
        t->span[l + 1] = t->span[l] * t->arity[l];
    }
    cuzk_err e = CUZK_OK;
    for (unsigned l = 1; l <= t->levels && !e; l++) {
        unsigned a = t->arity[l - 1];
        uint64_t n = t->span[l] <= block ? leaves >> block_bits : leaves / t->span[l];
        cuzk_fr *in = malloc(n * a * sizeof *in);
        t->vals[l] = malloc(n * sizeof *t->vals[l]);
        if (!in || !t->vals[l])
            e = cuzk_fail(CUZK_ENOMEM, "out of memory for a tree level of %llu nodes",
                          (unsigned long long)n);
        for (uint64_t j = 0; j < n && !e; j++)
            for (unsigned i = 0; i < a; i++)
                in[j * a + i] = t->span[l] <= block
                                    ? *tree_value(t, l - 1, (j << block_bits) / t->span[l - 1])
                                    : *tree_value(t, l - 1, j * a + i);
        if (!e)
            e = node_hash(t, a, in, n, t->vals[l]);
        free(in);
    }
    if (e)
        tree_free(t);
    return e;
}

/* The opening of leaf idx in the tree's form. */
static cuzk_err tree_open(const tree *t, uint64_t idx, cuzk_vanilla_merkle *m)
{
    memset(m, 0, sizeof *m);
    size_t ns = cuzk_merkle_sibling_count(&t->s);
    if (!(m->siblings = malloc(ns * sizeof *m->siblings)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    m->form = t->s.top_arity   ? CUZK_MERKLE_TOP
              : t->s.sub_arity ? CUZK_MERKLE_SUB
                               : CUZK_MERKLE_SINGLE;
    m->leaf = *tree_value(t, 0, idx);
    m->root = *tree_value(t, t->levels, 0);
    m->n_levels = t->levels;
    m->n_base = t->s.base_levels;
    cuzk_fr *out = m->siblings;
    for (unsigned l = 0; l < t->levels; l++) {
        unsigned a = t->arity[l];
        uint64_t first = idx / a * a;
        m->arity[l] = (uint8_t)a;
        m->index[l] = (uint32_t)(idx % a);
        for (unsigned j = 0; j < a; j++)
            if (first + j != idx)
                *out++ = *tree_value(t, l, first + j);
        idx /= a;
    }
    return CUZK_OK;
}

/* Partition k's proof from the three trees. */
static cuzk_err partition(const cuzk_snap_update *u, unsigned k, const tree *r_old,
                          const tree *d_new, const tree *r_new, cuzk_snap_partition_proof *p)
{
    const cuzk_snap_config *c = &u->config;
    unsigned apex_height = c->node_bits - c->partition_bits - c->apex_bits;
    uint32_t ch[CUZK_SNAP_MAX_CHALLENGES];
    memset(p, 0, sizeof *p);
    p->comm_c = u->comm_c;
    CUZK_TRY(cuzk_snap_challenges(c, &u->comm_r_new, k, ch));
    p->apex_leafs = malloc(c->apex_leaves * sizeof *p->apex_leafs);
    p->challenges = calloc(c->challenges, sizeof *p->challenges);
    if (!p->apex_leafs || !p->challenges) {
        cuzk_snap_partition_proof_free(p);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    p->n_apex_leafs = c->apex_leaves;
    for (unsigned i = 0; i < c->apex_leaves; i++)
        p->apex_leafs[i] = *tree_value(d_new, apex_height, (uint64_t)k * c->apex_leaves + i);
    cuzk_err e = CUZK_OK;
    for (unsigned j = 0; j < c->challenges && !e; j++, p->n_challenges++)
        if (!(e = tree_open(r_old, ch[j], &p->challenges[j].r_old)) &&
            !(e = tree_open(d_new, ch[j], &p->challenges[j].d_new)))
            e = tree_open(r_new, ch[j], &p->challenges[j].r_new);
    if (e)
        cuzk_snap_partition_proof_free(p);
    return e;
}

/* The update from the three trees (comm_c set): commitments, then every
 * partition, each checked by the vanilla verification. */
static cuzk_err finish(cuzk_snap_update *u, const tree *r_old, const tree *d_new, const tree *r_new)
{
    const cuzk_snap_config *c = &u->config;
    CUZK_TRY(cuzk_snap_comm_r(&u->comm_c, tree_value(r_old, r_old->levels, 0), &u->comm_r_old));
    u->comm_d_new = *tree_value(d_new, d_new->levels, 0);
    CUZK_TRY(cuzk_snap_comm_r(&u->comm_c, tree_value(r_new, r_new->levels, 0), &u->comm_r_new));
    if (!(u->partitions = calloc(c->partitions, sizeof *u->partitions)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (unsigned k = 0; k < c->partitions; k++) {
        CUZK_TRY(partition(u, k, r_old, d_new, r_new, &u->partitions[k]));
        cuzk_err e = cuzk_snap_verify(c, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new,
                                      &u->partitions[k]);
        if (e)
            return cuzk_fail_ctx(e, "partition %u does not verify: ", k);
    }
    return CUZK_OK;
}

static cuzk_merkle_shape tree_d_shape(const cuzk_snap_config *c)
{
    cuzk_merkle_shape s = {2, c->node_bits, 0, 0, CUZK_MERKLE_SHA256};
    return s;
}

/* The rho of every block of 2^(node_bits - h) nodes. */
static cuzk_err rhos(const cuzk_snap_config *c, const cuzk_fr *phi, cuzk_fr **out)
{
    size_t n = (size_t)1 << c->h;
    if (!(*out = malloc(n * sizeof **out)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t b = 0; b < n; b++)
        CUZK_TRY(cuzk_snap_rho(phi, (uint32_t)b, &(*out)[b]));
    return CUZK_OK;
}

/* The new replica over the old one and the new data (its leaves constant
 * on blocks of 2^block_bits; written to replica when non-NULL), its tree,
 * and the update (comm_c set). */
static cuzk_err encode(cuzk_snap_update *u, const tree *r_old, const tree *d_new,
                       unsigned block_bits, uint8_t *replica)
{
    const cuzk_snap_config *c = &u->config;
    uint64_t n = c->nodes >> block_bits;
    cuzk_fr comm_r_old, phi, *rho = NULL, *enc = malloc(n * sizeof *enc);
    tree r_new = {0};
    cuzk_err e = enc ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e && !(e = cuzk_snap_comm_r(&u->comm_c, tree_value(r_old, r_old->levels, 0), &comm_r_old)))
        e = cuzk_snap_phi(tree_value(d_new, d_new->levels, 0), &comm_r_old, &phi);
    if (!e)
        e = rhos(c, &phi, &rho);
    for (uint64_t b = 0; b < n && !e; b++) {
        uint64_t v = b << block_bits;
        blst_fr_mul(&enc[b], tree_value(d_new, 0, v), &rho[v >> (c->node_bits - c->h)]);
        blst_fr_add(&enc[b], &enc[b], tree_value(r_old, 0, v));
        if (replica)
            cuzk_fr_to_bytes_le(replica + 32 * v, &enc[b]);
    }
    if (!e) {
        e = tree_build(&r_new, &c->tree_r, block_bits, enc);
        enc = NULL;
    }
    if (!e)
        e = finish(u, r_old, d_new, &r_new);
    free(rho);
    free(enc);
    tree_free(&r_new);
    return e;
}

enum { KIND_FILL = 1, KIND_DATA = 2, KIND_COMM_C = 3 };

static void derive(uint64_t seed, uint64_t kind, cuzk_fr *out)
{
    uint64_t w[2] = {seed, kind};
    uint8_t h[32];
    cuzk_gen_derive("cuzk gen snap v1", w, 2, h);
    cuzk_fr_from_bytes_le(out, h);
}

cuzk_err cuzk_gen_snap(uint64_t sector_size, uint64_t seed, cuzk_snap_update *out)
{
    memset(out, 0, sizeof *out);
    CUZK_TRY(cuzk_snap_config_of(sector_size, &out->config));
    const cuzk_snap_config *c = &out->config;
    cuzk_merkle_shape td = tree_d_shape(c);
    tree r_old = {0}, d_new = {0};
    cuzk_fr *fill = malloc(sizeof *fill), *data = malloc(sizeof *data);
    cuzk_err e = fill && data ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e) {
        derive(seed, KIND_FILL, fill);
        derive(seed, KIND_DATA, data);
        derive(seed, KIND_COMM_C, &out->comm_c);
        e = tree_build(&r_old, &c->tree_r, c->node_bits, fill);
        fill = NULL;
    }
    if (!e) {
        e = tree_build(&d_new, &td, c->node_bits, data);
        data = NULL;
    }
    if (!e)
        e = encode(out, &r_old, &d_new, c->node_bits - c->h, NULL);
    free(fill);
    free(data);
    tree_free(&r_old);
    tree_free(&d_new);
    if (e)
        cuzk_snap_update_free(out);
    return e;
}

cuzk_err cuzk_seal_update(uint64_t sector_size, const uint8_t comm_c[32],
                          const uint8_t comm_r_last_old[32], const uint8_t *sector_key,
                          const uint8_t *data, uint8_t *replica, cuzk_snap_update *out)
{
    memset(out, 0, sizeof *out);
    CUZK_TRY(cuzk_snap_config_of(sector_size, &out->config));
    const cuzk_snap_config *c = &out->config;
    cuzk_merkle_shape td = tree_d_shape(c);
    uint64_t n = c->nodes;
    tree r_old = {0}, d_new = {0};
    cuzk_fr *key = malloc(n * sizeof *key), *words = malloc(n * sizeof *words), root_old;
    cuzk_err e = key && words ? CUZK_OK
                              : cuzk_fail(CUZK_ENOMEM, "out of memory for a %llu-byte update",
                                          (unsigned long long)sector_size);
    if (!e && cuzk_fr_from_bytes_le(&out->comm_c, comm_c))
        e = cuzk_fail(CUZK_EINVAL, "comm_c is not a field element");
    if (!e && cuzk_fr_from_bytes_le(&root_old, comm_r_last_old))
        e = cuzk_fail(CUZK_EINVAL, "comm_r_last is not a field element");
    for (uint64_t v = 0; v < n && !e; v++) {
        if (cuzk_fr_from_bytes_le(&key[v], sector_key + 32 * v))
            e = cuzk_fail(CUZK_EINVAL, "sector key word %llu is not a field element",
                          (unsigned long long)v);
        else if (data[32 * v + 31] & 0xc0)
            e = cuzk_fail(CUZK_EINVAL, "data word %llu is not fr32-padded (top bits set)",
                          (unsigned long long)v);
        else
            cuzk_fr_from_bytes_le(&words[v], data + 32 * v);
    }
    if (!e) {
        e = tree_build(&r_old, &c->tree_r, 0, key);
        key = NULL;
    }
    if (!e && !cuzk_fr_eq(tree_value(&r_old, r_old.levels, 0), &root_old))
        e = cuzk_fail(CUZK_EVERIFY, "the sector key's tree_r_last root is not comm_r_last");
    if (!e) {
        e = tree_build(&d_new, &td, 0, words);
        words = NULL;
    }
    if (!e)
        e = encode(out, &r_old, &d_new, 0, replica);
    free(key);
    free(words);
    tree_free(&r_old);
    tree_free(&d_new);
    if (e)
        cuzk_snap_update_free(out);
    return e;
}
