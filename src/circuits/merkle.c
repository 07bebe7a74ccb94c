/* Poseidon Merkle trees natively and the PoR circuit (merkle.h).
 *
 * A shape is flattened into a list of layer arities, leaf to root
 * ([base] * base_levels, sub, top); because leaves are stored subtree after
 * subtree, every layer hashes consecutive groups of `arity` nodes, and the
 * digit of the index at a layer is (index / product of lower arities) mod
 * arity. Nodes are Poseidon or SHA-256 field hashes (the shape's hasher).
 * The circuit follows por.rs: the index bits of each level are
 * allocated just before that level's siblings, and all of them are packed
 * into one public input after the root has been computed. */
#include "cuzk/merkle.h"

#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

#define MAX_LEVELS 64

static int arity_ok(unsigned a)
{
    return a == 2 || a == 4 || a == 8;
}

static unsigned log2u(unsigned a)
{
    return a == 2 ? 1 : a == 4 ? 2 : 3;
}

cuzk_err cuzk_merkle_shape_check(const cuzk_merkle_shape *s)
{
    if (!arity_ok(s->base_arity))
        return cuzk_fail(CUZK_EINVAL, "merkle: base arity %u, need 2, 4 or 8", s->base_arity);
    if (s->sub_arity && !arity_ok(s->sub_arity))
        return cuzk_fail(CUZK_EINVAL, "merkle: sub arity %u, need 0, 2, 4 or 8", s->sub_arity);
    if (s->top_arity && !arity_ok(s->top_arity))
        return cuzk_fail(CUZK_EINVAL, "merkle: top arity %u, need 0, 2, 4 or 8", s->top_arity);
    if (s->top_arity && !s->sub_arity)
        return cuzk_fail(CUZK_EINVAL, "merkle: a top layer needs a sub layer");
    if (s->hasher != CUZK_MERKLE_POSEIDON && s->hasher != CUZK_MERKLE_SHA256)
        return cuzk_fail(CUZK_EINVAL, "merkle: unknown hasher %d", (int)s->hasher);
    if (s->base_levels < 1 || s->base_levels > 40)
        return cuzk_fail(CUZK_EINVAL, "merkle: %u base levels, need 1..40", s->base_levels);
    unsigned bits = s->base_levels * log2u(s->base_arity) +
                    (s->sub_arity ? log2u(s->sub_arity) : 0) +
                    (s->top_arity ? log2u(s->top_arity) : 0);
    if (bits > 40)
        return cuzk_fail(CUZK_EINVAL, "merkle: %u index bits, at most 40 supported", bits);
    return CUZK_OK;
}

/* Layer arities, leaf to root; returns the count. */
static unsigned layers(const cuzk_merkle_shape *s, unsigned *ar)
{
    unsigned n = 0;
    for (unsigned i = 0; i < s->base_levels; i++)
        ar[n++] = s->base_arity;
    if (s->sub_arity)
        ar[n++] = s->sub_arity;
    if (s->top_arity)
        ar[n++] = s->top_arity;
    return n;
}

uint64_t cuzk_merkle_leaf_count(const cuzk_merkle_shape *s)
{
    unsigned ar[MAX_LEVELS], n = layers(s, ar);
    uint64_t c = 1;
    for (unsigned i = 0; i < n; i++)
        c *= ar[i];
    return c;
}

unsigned cuzk_merkle_path_levels(const cuzk_merkle_shape *s)
{
    unsigned ar[MAX_LEVELS];
    return layers(s, ar);
}

size_t cuzk_merkle_sibling_count(const cuzk_merkle_shape *s)
{
    unsigned ar[MAX_LEVELS], n = layers(s, ar);
    size_t c = 0;
    for (unsigned i = 0; i < n; i++)
        c += ar[i] - 1;
    return c;
}

/* One node: p is the layer's Poseidon constants, or NULL for SHA-256. */
static cuzk_err node_hash(const cuzk_poseidon *p, const cuzk_fr *in, unsigned arity, cuzk_fr *out)
{
    return p ? cuzk_poseidon_hash(p, in, arity, out) : cuzk_sha256_fr_hash(in, arity, out);
}

static cuzk_err layer_hasher(const cuzk_merkle_shape *s, unsigned arity, const cuzk_poseidon **p)
{
    *p = NULL;
    return s->hasher == CUZK_MERKLE_POSEIDON ? cuzk_poseidon_merkle(arity, p) : CUZK_OK;
}

typedef struct {
    const cuzk_poseidon *p;
    unsigned arity;
    const cuzk_fr *in;
    cuzk_fr *out;
} level_ctx;

static void level_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    level_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) /* arity and count checked by the caller */
        node_hash(c->p, c->in + i * c->arity, c->arity, &c->out[i]);
}

/* One level of n / arity nodes above cur, on all threads; NULL when out of
 * memory. */
static cuzk_fr *level_up(const cuzk_poseidon *p, unsigned arity, const cuzk_fr *cur, uint64_t n)
{
    cuzk_fr *next = malloc((size_t)(n / arity) * sizeof *next);
    if (next) {
        level_ctx c = {p, arity, cur, next};
        cuzk_parallel_for((size_t)(n / arity), 256, level_range, &c);
    }
    return next;
}

/* The siblings of node `index` at a level of `arity`: the others of its
 * group, in position order. */
static cuzk_fr *group_siblings(const cuzk_fr *level, unsigned arity, uint64_t index, cuzk_fr *out)
{
    uint64_t group = index / arity * arity;
    for (uint64_t j = group; j < group + arity; j++)
        if (j != index)
            *out++ = level[j];
    return out;
}

cuzk_err cuzk_merkle_build(const cuzk_merkle_shape *s, const cuzk_fr *leaves, uint64_t index,
                           cuzk_fr *root, cuzk_fr *siblings)
{
    CUZK_TRY(cuzk_merkle_shape_check(s));
    uint64_t n = cuzk_merkle_leaf_count(s);
    if (index >= n)
        return cuzk_fail(CUZK_EINVAL, "merkle: leaf index %llu, the tree has %llu leaves",
                         (unsigned long long)index, (unsigned long long)n);
    unsigned ar[MAX_LEVELS], nl = layers(s, ar);
    const cuzk_fr *cur = leaves;
    cuzk_fr *owned = NULL;
    for (unsigned l = 0; l < nl; l++) {
        const cuzk_poseidon *p;
        cuzk_err e = layer_hasher(s, ar[l], &p);
        cuzk_fr *next = e ? NULL : level_up(p, ar[l], cur, n);
        if (!next) {
            free(owned);
            return e ? e : cuzk_fail(CUZK_ENOMEM, "merkle: out of memory for a level");
        }
        if (siblings)
            siblings = group_siblings(cur, ar[l], index, siblings);
        free(owned);
        cur = owned = next;
        n /= ar[l];
        index /= ar[l];
    }
    *root = cur[0];
    free(owned);
    return CUZK_OK;
}

struct cuzk_merkle_tree {
    unsigned n_levels, arity[MAX_LEVELS];
    uint64_t leaves;
    const cuzk_fr *level[MAX_LEVELS + 1]; /* [0] the caller's leaves, [n_levels] the root */
};

void cuzk_merkle_tree_free(cuzk_merkle_tree *t)
{
    if (!t)
        return;
    for (unsigned l = 1; l <= t->n_levels; l++)
        free((void *)t->level[l]);
    free(t);
}

cuzk_err cuzk_merkle_tree_new(const cuzk_merkle_shape *s, const cuzk_fr *leaves,
                              cuzk_merkle_tree **out)
{
    *out = NULL;
    CUZK_TRY(cuzk_merkle_shape_check(s));
    cuzk_merkle_tree *t = calloc(1, sizeof *t);
    if (!t)
        return cuzk_fail(CUZK_ENOMEM, "merkle: out of memory for a tree");
    t->n_levels = layers(s, t->arity);
    t->leaves = cuzk_merkle_leaf_count(s);
    t->level[0] = leaves;
    uint64_t n = t->leaves;
    for (unsigned l = 0; l < t->n_levels; l++) {
        const cuzk_poseidon *p;
        cuzk_err e = layer_hasher(s, t->arity[l], &p);
        cuzk_fr *next = e ? NULL : level_up(p, t->arity[l], t->level[l], n);
        if (!next) {
            cuzk_merkle_tree_free(t);
            return e ? e : cuzk_fail(CUZK_ENOMEM, "merkle: out of memory for a level");
        }
        t->level[l + 1] = next;
        n /= t->arity[l];
    }
    *out = t;
    return CUZK_OK;
}

const cuzk_fr *cuzk_merkle_tree_root(const cuzk_merkle_tree *t)
{
    return t->level[t->n_levels];
}

cuzk_err cuzk_merkle_tree_path(const cuzk_merkle_tree *t, uint64_t index, cuzk_fr *siblings)
{
    if (index >= t->leaves)
        return cuzk_fail(CUZK_EINVAL, "merkle: leaf index %llu, the tree has %llu leaves",
                         (unsigned long long)index, (unsigned long long)t->leaves);
    for (unsigned l = 0; l < t->n_levels; l++) {
        siblings = group_siblings(t->level[l], t->arity[l], index, siblings);
        index /= t->arity[l];
    }
    return CUZK_OK;
}

cuzk_err cuzk_merkle_root_from_path(const cuzk_merkle_shape *s, const cuzk_fr *leaf,
                                    const cuzk_fr *siblings, uint64_t index, cuzk_fr *root)
{
    CUZK_TRY(cuzk_merkle_shape_check(s));
    uint64_t n = cuzk_merkle_leaf_count(s);
    if (index >= n)
        return cuzk_fail(CUZK_EINVAL, "merkle: leaf index %llu, the tree has %llu leaves",
                         (unsigned long long)index, (unsigned long long)n);
    unsigned ar[MAX_LEVELS], nl = layers(s, ar);
    cuzk_fr cur = *leaf;
    for (unsigned l = 0; l < nl; l++) {
        const cuzk_poseidon *p;
        CUZK_TRY(layer_hasher(s, ar[l], &p));
        unsigned pos = (unsigned)(index % ar[l]);
        cuzk_fr in[8];
        for (unsigned j = 0, k = 0; j < ar[l]; j++)
            in[j] = j == pos ? cur : siblings[k++];
        siblings += ar[l] - 1;
        CUZK_TRY(node_hash(p, in, ar[l], &cur));
        index /= ar[l];
    }
    *root = cur;
    return CUZK_OK;
}

static cuzk_err root_num(cuzk_cs *cs, const cuzk_root *r, cuzk_num *out)
{
    if (r->allocated) {
        *out = r->num;
        return CUZK_OK;
    }
    return cuzk_num_alloc(cs, &r->num.val, out);
}

cuzk_err cuzk_por_gadget(cuzk_cs *cs, const cuzk_merkle_shape *s, const cuzk_root *leaf,
                         const cuzk_fr *siblings, uint64_t index, const cuzk_root *root,
                         int private_root)
{
    cuzk_fr computed;
    return cuzk_por_gadget_root(cs, s, leaf, siblings, index, root, private_root, &computed);
}

cuzk_err cuzk_por_gadget_root(cuzk_cs *cs, const cuzk_merkle_shape *s, const cuzk_root *leaf,
                              const cuzk_fr *siblings, uint64_t index, const cuzk_root *root,
                              int private_root, cuzk_fr *computed)
{
    CUZK_TRY(cuzk_merkle_shape_check(s));
    uint64_t n = cuzk_merkle_leaf_count(s);
    if (index >= n)
        return cuzk_fail(CUZK_EINVAL, "por: leaf index %llu, the tree has %llu leaves",
                         (unsigned long long)index, (unsigned long long)n);
    unsigned ar[MAX_LEVELS], nl = layers(s, ar), n_bits = 0;
    cuzk_bool bits[64];
    cuzk_num cur;
    CUZK_TRY(root_num(cs, leaf, &cur));
    for (unsigned l = 0; l < nl; l++) {
        const cuzk_poseidon *p;
        CUZK_TRY(layer_hasher(s, ar[l], &p));
        unsigned nb = log2u(ar[l]), pos = (unsigned)(index % ar[l]);
        for (unsigned i = 0; i < nb; i++)
            CUZK_TRY(cuzk_bit_alloc(cs, (pos >> i) & 1, &bits[n_bits + i]));
        cuzk_num sib[7], ins[8];
        for (unsigned j = 0; j + 1 < ar[l]; j++)
            CUZK_TRY(cuzk_num_alloc(cs, &siblings[j], &sib[j]));
        siblings += ar[l] - 1;
        CUZK_TRY(cuzk_insert(cs, &cur, bits + n_bits, nb, sib, ins));
        if (p)
            CUZK_TRY(cuzk_poseidon_gadget(cs, p, ins, ar[l], &cur));
        else
            CUZK_TRY(cuzk_sha256_fr_gadget(cs, ins, ar[l], &cur));
        n_bits += nb;
        index /= ar[l];
    }
    CUZK_TRY(cuzk_pack_into_inputs(cs, bits, n_bits));
    *computed = cur.val;
    cuzk_num rt;
    CUZK_TRY(root_num(cs, root, &rt));
    CUZK_TRY(cuzk_num_equal(cs, &cur, &rt));
    if (!private_root)
        CUZK_TRY(cuzk_num_inputize(cs, &rt));
    return CUZK_OK;
}

cuzk_err cuzk_merkle_path_check(const cuzk_merkle_shape *s, const cuzk_vanilla_merkle *m)
{
    unsigned levels = cuzk_merkle_path_levels(s);
    cuzk_merkle_form form = s->top_arity   ? CUZK_MERKLE_TOP
                            : s->sub_arity ? CUZK_MERKLE_SUB
                                           : CUZK_MERKLE_SINGLE;
    if (m->form != form || m->n_levels != levels || m->n_base != s->base_levels)
        return cuzk_fail(CUZK_EINVAL,
                         "has %u levels (%u base, form %d); this sector size's tree has %u (%u "
                         "base, form %d)",
                         m->n_levels, m->n_base, (int)m->form, levels, s->base_levels, (int)form);
    for (unsigned l = 0; l < levels; l++) {
        unsigned a = l < s->base_levels    ? s->base_arity
                     : l == s->base_levels ? s->sub_arity
                                           : s->top_arity;
        if (m->arity[l] != a)
            return cuzk_fail(CUZK_EINVAL, "level %u has %u siblings; the tree's arity there is %u",
                             l, m->arity[l] - 1u, a);
    }
    return CUZK_OK;
}
