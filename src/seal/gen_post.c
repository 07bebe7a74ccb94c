/* Synthetic PoSt sectors (include/cuzk/gen.h): a sparse tree_r_last, its
 * root and the paths of the challenged leaves, and the vanilla proofs.
 *
 * The sparse tree keeps, level by level from the leaves up, the sorted
 * distinct nodes on the challenged paths with their values; every other
 * node of a level is that level's default (the root of an all-fill
 * subtree of its height). A level's parents are hashed once each, from
 * their on-path children and the default for the rest. */
#include "cuzk/gen.h"
#include "cuzk/poseidon.h"
#include "cuzk/post.h"
#include "cuzk/sha256.h"
#include "cuzk/util.h"
#include "seal/gen_priv.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t idx;
    cuzk_fr val;
} node;

static int node_cmp(const void *a, const void *b)
{
    uint64_t x = ((const node *)a)->idx, y = ((const node *)b)->idx;
    return x < y ? -1 : x > y;
}

/* The value of node idx of a level (n sorted nodes), else its default. */
static const cuzk_fr *level_value(const node *lv, size_t n, uint64_t idx, const cuzk_fr *def)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lv[mid].idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && lv[lo].idx == idx ? &lv[lo].val : def;
}

static unsigned level_arity(const cuzk_merkle_shape *s, unsigned l)
{
    return l < s->base_levels ? s->base_arity : l == s->base_levels ? s->sub_arity : s->top_arity;
}

/* Level l + 1 from level l (n sorted distinct nodes): one hash per parent. */
static cuzk_err hash_level(const cuzk_poseidon *p, unsigned arity, const node *lv, size_t n,
                           const cuzk_fr *def, node *up, size_t *n_up)
{
    cuzk_fr in[8];
    size_t k = 0, i = 0;
    while (i < n) {
        uint64_t parent = lv[i].idx / arity;
        for (unsigned j = 0; j < arity; j++)
            in[j] = *def;
        for (; i < n && lv[i].idx / arity == parent; i++)
            in[lv[i].idx % arity] = lv[i].val;
        up[k].idx = parent;
        CUZK_TRY(cuzk_poseidon_hash(p, in, arity, &up[k].val));
        k++;
    }
    *n_up = k;
    return CUZK_OK;
}

cuzk_err cuzk_gen_sparse_root(const cuzk_merkle_shape *s, const cuzk_fr *fill, const uint64_t *idx,
                              const cuzk_fr *vals, size_t n, cuzk_fr *root, cuzk_fr *siblings)
{
    CUZK_TRY(cuzk_merkle_shape_check(s));
    if (s->hasher != CUZK_MERKLE_POSEIDON)
        return cuzk_fail(CUZK_EINVAL, "sparse trees are Poseidon trees only");
    uint64_t leaves = cuzk_merkle_leaf_count(s);
    for (size_t k = 0; k < n; k++)
        if (idx[k] >= leaves)
            return cuzk_fail(CUZK_EINVAL, "leaf %zu: index %llu beyond the tree's %llu leaves", k,
                             (unsigned long long)idx[k], (unsigned long long)leaves);
    unsigned levels = cuzk_merkle_path_levels(s);
    /* Level l's nodes at lv + l * n (at most n each), counts in cnt. */
    node *lv = malloc((levels + 1) * (n ? n : 1) * sizeof *lv);
    size_t *cnt = calloc(levels + 1, sizeof *cnt);
    cuzk_fr *def = malloc((levels + 1) * sizeof *def);
    cuzk_err e = lv && cnt && def ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e) {
        for (size_t k = 0; k < n; k++)
            lv[k].idx = idx[k], lv[k].val = vals[k];
        qsort(lv, n, sizeof *lv, node_cmp);
        for (size_t k = 0; k < n; k++) {
            if (k && lv[k].idx == lv[cnt[0] - 1].idx) {
                if (!cuzk_fr_eq(&lv[k].val, &lv[cnt[0] - 1].val))
                    e = cuzk_fail(CUZK_EINVAL, "leaf %llu is given two different values",
                                  (unsigned long long)lv[k].idx);
                continue;
            }
            lv[cnt[0]++] = lv[k];
        }
        def[0] = *fill;
    }
    for (unsigned l = 0; l < levels && !e; l++) {
        unsigned a = level_arity(s, l);
        const cuzk_poseidon *p;
        cuzk_fr in[8];
        if ((e = cuzk_poseidon_merkle(a, &p)))
            break;
        for (unsigned j = 0; j < a; j++)
            in[j] = def[l];
        if (!(e = cuzk_poseidon_hash(p, in, a, &def[l + 1])))
            e = hash_level(p, a, lv + (size_t)l * n, cnt[l], &def[l], lv + (size_t)(l + 1) * n,
                           &cnt[l + 1]);
    }
    if (!e)
        *root = cnt[levels] ? lv[(size_t)levels * n].val : def[levels];
    /* Each path: at every level the other children of its parent. */
    for (size_t k = 0; k < n && siblings && !e; k++) {
        cuzk_fr *out = siblings + k * cuzk_merkle_sibling_count(s);
        uint64_t at = idx[k];
        for (unsigned l = 0; l < levels; l++) {
            unsigned a = level_arity(s, l);
            uint64_t first = at / a * a;
            for (unsigned j = 0; j < a; j++)
                if (first + j != at)
                    *out++ = *level_value(lv + (size_t)l * n, cnt[l], first + j, &def[l]);
            at /= a;
        }
    }
    free(lv);
    free(cnt);
    free(def);
    return e;
}

enum { KIND_FILL = 0, KIND_LEAF = 1, KIND_COMM_C = 2 };

void cuzk_gen_derive(const char tag[16], const uint64_t *words, size_t n, uint8_t out[32])
{
    uint8_t pre[16 + 6 * 8];
    memcpy(pre, tag, 16);
    for (size_t i = 0; i < n && i < 6; i++)
        cuzk_put_le64(pre + 16 + 8 * i, words[i]);
    cuzk_sha256(pre, 16 + 8 * (n < 6 ? n : 6), out);
    out[31] &= 0x3f; /* below 2^254 < r: canonical */
}

/* A seed-derived canonical field element (gen.h). */
static void derive(uint64_t seed, uint64_t sector_id, uint64_t kind, uint64_t index, cuzk_fr *out)
{
    uint64_t w[4] = {seed, sector_id, kind, index};
    uint8_t h[32];
    cuzk_gen_derive("cuzk gen post v1", w, 4, h);
    cuzk_fr_from_bytes_le(out, h);
}

static int is_post(const cuzk_fc_proof *proof)
{
    return proof->family == CUZK_FC_WINNING || proof->family == CUZK_FC_WINDOW;
}

static cuzk_err check_request(const cuzk_fc_proof *proof, const uint8_t randomness[32])
{
    if (!is_post(proof))
        return cuzk_fail(CUZK_EINVAL, "%s is not a PoSt proof", proof->name);
    return cuzk_post_randomness_check(randomness);
}

/* The inclusion proof of leaf `leaf` (its value, root and siblings given)
 * in the form of the tree. */
static cuzk_err fill_merkle(const cuzk_merkle_shape *s, uint64_t leaf, const cuzk_fr *value,
                            const cuzk_fr *root, const cuzk_fr *siblings, cuzk_vanilla_merkle *m)
{
    size_t ns = cuzk_merkle_sibling_count(s);
    memset(m, 0, sizeof *m);
    m->siblings = malloc(ns * sizeof *m->siblings);
    if (!m->siblings)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    memcpy(m->siblings, siblings, ns * sizeof *m->siblings);
    m->form = s->top_arity ? CUZK_MERKLE_TOP : s->sub_arity ? CUZK_MERKLE_SUB : CUZK_MERKLE_SINGLE;
    m->leaf = *value;
    m->root = *root;
    m->n_levels = cuzk_merkle_path_levels(s);
    m->n_base = s->base_levels;
    for (unsigned l = 0; l < m->n_levels; l++) {
        unsigned a = level_arity(s, l);
        m->arity[l] = (uint8_t)a;
        m->index[l] = (uint32_t)(leaf % a);
        leaf /= a;
    }
    return CUZK_OK;
}

/* The sector's proof from its challenged leaves (n of them, repeats
 * allowed). */
static cuzk_err build_sector(const cuzk_fc_proof *proof, uint64_t seed, uint64_t sector_id,
                             const uint64_t *leaves, size_t n, cuzk_post_sector_proof *out)
{
    cuzk_merkle_shape s;
    cuzk_post_tree_shape(proof, &s);
    size_t ns = cuzk_merkle_sibling_count(&s);
    cuzk_fr *vals = malloc(n * sizeof *vals), *sib = malloc(n * ns * sizeof *sib), fill, root;
    cuzk_vanilla_sector *sec = calloc(1, sizeof *sec);
    cuzk_vanilla_merkle *m = calloc(n, sizeof *m);
    if (!vals || !sib || !sec || !m) {
        free(vals);
        free(sib);
        free(sec);
        free(m);
        return cuzk_fail(CUZK_ENOMEM, "out of memory for a sector of %zu challenges", n);
    }
    /* Owned by out from here: its free walks every (calloc'd) proof. */
    out->sector_id = sector_id;
    out->sectors = sec;
    out->n_sectors = 1;
    sec->inclusion_proofs = m;
    sec->n_inclusion_proofs = n;
    derive(seed, sector_id, KIND_FILL, 0, &fill);
    for (size_t k = 0; k < n; k++)
        derive(seed, sector_id, KIND_LEAF, leaves[k], &vals[k]);
    cuzk_err e = cuzk_gen_sparse_root(&s, &fill, leaves, vals, n, &root, sib);
    for (size_t k = 0; k < n && !e; k++)
        e = fill_merkle(&s, leaves[k], &vals[k], &root, sib + k * ns, &m[k]);
    if (!e) {
        const cuzk_poseidon *p2;
        sec->comm_r_last = root;
        derive(seed, sector_id, KIND_COMM_C, 0, &sec->comm_c);
        cuzk_fr in[2] = {sec->comm_c, root};
        if (!(e = cuzk_poseidon_merkle(2, &p2)))
            e = cuzk_poseidon_hash(p2, in, 2, &out->comm_r);
    }
    free(vals);
    free(sib);
    if (e)
        cuzk_post_sector_proof_free(out);
    return e;
}

cuzk_err cuzk_gen_post_sector(const cuzk_fc_proof *proof, const uint8_t randomness[32],
                              uint64_t seed, uint64_t sector_id, uint64_t sector_index,
                              cuzk_post_sector_proof *out)
{
    memset(out, 0, sizeof *out);
    CUZK_TRY(check_request(proof, randomness));
    /* Winning: the one sector's 66 challenges (the circuit's 66 sectors of
     * one challenge each); Window: 10 at the sector's position. */
    int winning = proof->family == CUZK_FC_WINNING;
    size_t n = winning ? proof->sectors : proof->challenges;
    uint64_t leaves[256];
    if (n > sizeof leaves / sizeof *leaves)
        return cuzk_fail(CUZK_EINTERNAL, "%s: %zu challenges per sector", proof->name, n);
    for (size_t k = 0; k < n; k++) {
        uint64_t ci = winning ? k
                              : cuzk_post_challenge_index(proof->api, sector_index,
                                                          proof->challenges, (unsigned)k);
        leaves[k] = cuzk_post_leaf_challenge(randomness, sector_id, ci, proof->sector_size);
    }
    return build_sector(proof, seed, sector_id, leaves, n, out);
}

cuzk_err cuzk_gen_post_partition(const cuzk_fc_proof *proof, const uint8_t randomness[32],
                                 uint64_t seed, uint32_t partition_index, uint64_t first_sector_id,
                                 size_t n, cuzk_post_sector_proof *out)
{
    CUZK_TRY(check_request(proof, randomness));
    size_t max = proof->family == CUZK_FC_WINNING ? 1 : proof->sectors;
    if (n < 1 || n > max)
        return cuzk_fail(CUZK_EINVAL, "%s: %zu sectors; a partition holds 1..%zu", proof->name, n,
                         max);
    if (proof->family == CUZK_FC_WINNING && partition_index != 0)
        return cuzk_fail(CUZK_EINVAL, "%s: WinningPoSt has one partition (index 0), not %u",
                         proof->name, partition_index);
    if (first_sector_id > UINT64_MAX - (n - 1))
        return cuzk_fail(CUZK_EINVAL, "sector ids from %llu: %zu sectors overflow 64 bits",
                         (unsigned long long)first_sector_id, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t index = (uint64_t)partition_index * proof->sectors + i;
        cuzk_err e =
            cuzk_gen_post_sector(proof, randomness, seed, first_sector_id + i, index, &out[i]);
        if (e) {
            cuzk_fail_ctx(e, "sector %llu: ", (unsigned long long)(first_sector_id + i));
            while (i--)
                cuzk_post_sector_proof_free(&out[i]);
            return e;
        }
    }
    return CUZK_OK;
}

void cuzk_gen_prover_id(uint64_t miner_id, uint8_t out[32])
{
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = miner_id & 0x7f;
        miner_id >>= 7;
        out[i++] = (uint8_t)(b | (miner_id ? 0x80 : 0));
    } while (miner_id);
}
