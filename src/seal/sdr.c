/* Sealing on the CPU: SDR labels, tree_d, tree_c, encoding, tree_r_last
 * and the commitments (include/cuzk/seal.h says what each is and where
 * rust-fil-proofs defines it). */
#include "cuzk/seal.h"
#include "cuzk/threads.h"
#include "cuzk/piece.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NODE 32
/* Parent labels hashed per node, in every layer (graph.rs: 6 x 6 + 1 in
 * layer 1, 14 + 14 + 9 after). */
#define HASHED_PARENTS 37
#define MAX_LAYERS 16
/* tree_d sizes cuzk_merkle_build handles: up to 2^40 leaves, far beyond a
 * sector; 64 bytes is the smallest tree with a hash in it. */
#define TREE_D_MIN 64
#define TREE_D_MAX (UINT64_C(1) << 45)

cuzk_err cuzk_seal_layers(uint64_t sector_size, unsigned *layers)
{
    /* filecoin-proofs constants.rs LAYERS: every size below 32 GiB that
     * it lists has 2 layers, the two production sizes 11. */
    static const uint64_t two[] = {2048,       4096,        16384,        32768,
                                   8ull << 20, 16ull << 20, 512ull << 20, 1ull << 30};
    for (size_t i = 0; i < sizeof two / sizeof two[0]; i++)
        if (sector_size == two[i]) {
            *layers = 2;
            return CUZK_OK;
        }
    if (sector_size == 32ull << 30 || sector_size == 64ull << 30) {
        *layers = 11;
        return CUZK_OK;
    }
    return cuzk_fail(CUZK_EINVAL, "no SDR layer count for a sector of %llu bytes",
                     (unsigned long long)sector_size);
}

cuzk_err cuzk_seal_tree_shape(uint64_t sector_size, cuzk_merkle_shape *out)
{
    size_t n;
    const cuzk_fc_proof *all = cuzk_fc_proofs(&n);
    for (size_t i = 0; i < n; i++)
        if (all[i].family == CUZK_FC_SEAL && all[i].sector_size == sector_size) {
            memset(out, 0, sizeof *out);
            out->base_arity = 8;
            out->base_levels = all[i].base_levels;
            out->sub_arity = all[i].sub_arity;
            out->top_arity = all[i].top_arity;
            out->hasher = CUZK_MERKLE_POSEIDON;
            return CUZK_OK;
        }
    return cuzk_fail(CUZK_EINVAL, "no RegisteredSealProof has sectors of %llu bytes",
                     (unsigned long long)sector_size);
}

/* Parents of nodes [first, first + n), computed on all threads (they do
 * not depend on labels): node first + i's at out + i * CUZK_POREP_DEGREE. */
typedef struct {
    const cuzk_porep_graph *g;
    uint64_t first;
    uint32_t *out;
    atomic_int err;
} parents_job;

static void parents_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    parents_job *j = ctx;
    for (size_t i = begin; i < end; i++) {
        uint64_t v = j->first + i;
        if (v == 0) /* node 0 hashes no parents */
            continue;
        cuzk_err e = cuzk_porep_parents(j->g, (uint32_t)v, j->out + i * CUZK_POREP_DEGREE);
        if (e)
            atomic_store(&j->err, (int)e);
    }
}

#define PARENT_CHUNK ((uint64_t)1 << 16)

/* One layer's labels. cur: this layer (nodes below v already labelled);
 * prev: the layer before, NULL for layer 1. Labelling is sequential (each
 * node hashes lower ones of its layer); the parents of the next chunk of
 * nodes come from all threads first. buf holds the 64-byte prefix and the
 * 37 parent labels of one node. */
static cuzk_err label_layer(const cuzk_porep_graph *g, const uint8_t replica_id[32], unsigned layer,
                            const uint8_t *prev, uint8_t *cur, uint32_t *par_buf)
{
    uint8_t buf[64 + HASHED_PARENTS * NODE];
    memcpy(buf, replica_id, 32);
    memset(buf + 32, 0, 32);
    for (unsigned i = 0; i < 4; i++)
        buf[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (uint64_t first = 0; first < g->nodes; first += PARENT_CHUNK) {
        uint64_t n = g->nodes - first < PARENT_CHUNK ? g->nodes - first : PARENT_CHUNK;
        parents_job pj = {.g = g, .first = first, .out = par_buf};
        atomic_init(&pj.err, 0);
        cuzk_parallel_for((size_t)n, 256, parents_range, &pj);
        if (atomic_load(&pj.err))
            return cuzk_fail((cuzk_err)atomic_load(&pj.err), "SDR parents of nodes %llu..: %s",
                             (unsigned long long)first, cuzk_errmsg());
        for (uint64_t v = first; v < first + n; v++) {
            for (unsigned i = 0; i < 8; i++)
                buf[36 + i] = (uint8_t)(v >> (56 - 8 * i));
            size_t len = 64;
            if (v > 0) {
                const uint32_t *par = par_buf + (v - first) * CUZK_POREP_DEGREE;
                /* The parents in the order the hash takes them, before the
                 * repetition: DRG from this layer, then (after layer 1) the
                 * expanders from the previous one. */
                unsigned deg = prev ? CUZK_POREP_DEGREE : CUZK_POREP_DRG_DEGREE;
                uint8_t *p = buf + 64;
                for (unsigned i = 0; i < deg; i++) {
                    const uint8_t *src = i < CUZK_POREP_DRG_DEGREE ? cur : prev;
                    memcpy(p + (size_t)i * NODE, src + (size_t)par[i] * NODE, NODE);
                }
                /* Repeat the first deg labels cyclically up to 37: layer 1
                 * 6,6,6,6,6,6,1; later layers 14,14,9. */
                for (unsigned i = deg; i < HASHED_PARENTS; i++)
                    memcpy(p + (size_t)i * NODE, p + (size_t)(i % deg) * NODE, NODE);
                len += HASHED_PARENTS * NODE;
            }
            uint8_t *out = cur + v * NODE;
            cuzk_sha256(buf, len, out);
            out[31] &= 0x3f;
        }
    }
    return CUZK_OK;
}

cuzk_err cuzk_sdr_labels(const cuzk_porep_graph *g, const uint8_t replica_id[32], unsigned layers,
                         uint8_t *labels)
{
    if (layers < 1 || layers > MAX_LAYERS)
        return cuzk_fail(CUZK_EINVAL, "SDR layers %u: want 1..%d", layers, MAX_LAYERS);
    size_t layer_bytes = (size_t)g->nodes * NODE;
    uint32_t *par = malloc(PARENT_CHUNK * CUZK_POREP_DEGREE * sizeof *par);
    if (!par)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    cuzk_err e = CUZK_OK;
    for (unsigned l = 1; l <= layers && !e; l++) {
        uint8_t *cur = labels + (size_t)(l - 1) * layer_bytes;
        e = label_layer(g, replica_id, l, l > 1 ? cur - layer_bytes : NULL, cur, par);
    }
    free(par);
    return e;
}

/* n 32-byte words to field elements; EINVAL naming the word that is not
 * one (what names the buffer). */
static cuzk_err words_to_fr(const uint8_t *b, size_t n, cuzk_fr *out, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (cuzk_fr_from_bytes_le(&out[i], b + i * NODE) != CUZK_OK)
            return cuzk_fail(CUZK_EINVAL, "%s: word %zu is not a field element", what, i);
    return CUZK_OK;
}

/* Like words_to_fr, but only fr32-padded words (top two bits clear): the
 * form sector data takes, and the only one tree_d's SHA-256 nodes agree
 * with as field elements. */
static cuzk_err data_to_fr(const uint8_t *b, size_t n, cuzk_fr *out)
{
    for (size_t i = 0; i < n; i++)
        if (b[i * NODE + 31] & 0xc0)
            return cuzk_fail(CUZK_EINVAL,
                             "sector data word %zu has its top two bits set: not fr32-padded", i);
    return words_to_fr(b, n, out, "sector data");
}

static unsigned log2_u64(uint64_t x)
{
    unsigned k = 0;
    while (x > 1) {
        x >>= 1;
        k++;
    }
    return k;
}

/* tree_d over already converted words. */
static cuzk_err tree_d_root(const cuzk_fr *words, uint64_t n, uint8_t comm_d[32])
{
    cuzk_merkle_shape s = {
        .base_arity = 2, .base_levels = log2_u64(n), .hasher = CUZK_MERKLE_SHA256};
    cuzk_fr root;
    cuzk_err e = cuzk_merkle_build(&s, words, 0, &root, NULL);
    if (!e)
        cuzk_fr_to_bytes_le(comm_d, &root);
    return e;
}

static int size_ok(uint64_t size)
{
    return size >= TREE_D_MIN && size <= TREE_D_MAX && !(size & (size - 1));
}

cuzk_err cuzk_seal_tree_d(const uint8_t *data, uint64_t size, uint8_t comm_d[32])
{
    if (!size_ok(size))
        return cuzk_fail(CUZK_EINVAL, "tree_d of %llu bytes: want a power of two, 64 .. 2^45",
                         (unsigned long long)size);
    uint64_t n = size / NODE;
    cuzk_fr *w = malloc(n * sizeof *w);
    if (!w)
        return cuzk_fail(CUZK_ENOMEM, "out of memory for tree_d of %llu bytes",
                         (unsigned long long)size);
    cuzk_err e = data_to_fr(data, n, w);
    if (!e)
        e = tree_d_root(w, n, comm_d);
    free(w);
    return e;
}

/* comm_c: the column hashes of every node, then their tree. */
static cuzk_err tree_c_root(const cuzk_merkle_shape *s, const uint8_t *labels, uint64_t nodes,
                            unsigned layers, cuzk_fr *root)
{
    const cuzk_poseidon *col;
    cuzk_err e = cuzk_poseidon_merkle(layers, &col);
    if (e)
        return e;
    cuzk_fr *cols = malloc(nodes * layers * sizeof *cols), *hashes = malloc(nodes * sizeof *hashes);
    if (!cols || !hashes) {
        free(cols);
        free(hashes);
        return cuzk_fail(CUZK_ENOMEM, "out of memory for tree_c of %llu nodes",
                         (unsigned long long)nodes);
    }
    /* Node-major: node v's column is layers consecutive elements. */
    for (uint64_t v = 0; v < nodes && !e; v++)
        for (unsigned l = 0; l < layers && !e; l++)
            e = words_to_fr(labels + ((size_t)l * nodes + v) * NODE, 1, &cols[v * layers + l],
                            "label");
    if (!e)
        e = cuzk_poseidon_hash_many(col, cols, nodes, hashes);
    if (!e)
        e = cuzk_merkle_build(s, hashes, 0, root, NULL);
    free(cols);
    free(hashes);
    return e;
}

cuzk_err cuzk_seal(const cuzk_seal_params *p, const uint8_t *data, uint8_t *replica,
                   uint8_t *labels, cuzk_seal_result *out)
{
    unsigned layers = p->layers;
    cuzk_merkle_shape shape;
    cuzk_err e = cuzk_seal_tree_shape(p->sector_size, &shape);
    if (e)
        return e;
    if (!layers && (e = cuzk_seal_layers(p->sector_size, &layers)))
        return e;
    if (layers > MAX_LAYERS)
        return cuzk_fail(CUZK_EINVAL, "SDR layers %u: want 1..%d", layers, MAX_LAYERS);
    uint64_t nodes = p->sector_size / NODE;
    if (cuzk_merkle_leaf_count(&shape) != nodes)
        return cuzk_fail(CUZK_EINVAL, "tree shape of %llu leaves for a sector of %llu nodes",
                         (unsigned long long)cuzk_merkle_leaf_count(&shape),
                         (unsigned long long)nodes);
    cuzk_porep_graph g;
    if ((e = cuzk_porep_graph_init(&g, nodes, p->porep_id, p->api)))
        return e;

    uint8_t *own = NULL;
    cuzk_fr *w = malloc(nodes * sizeof *w), *key = malloc(nodes * sizeof *key);
    if (!labels)
        labels = own = malloc((size_t)layers * p->sector_size);
    if (!w || !key || !labels) {
        e = cuzk_fail(CUZK_ENOMEM, "out of memory sealing a sector of %llu bytes",
                      (unsigned long long)p->sector_size);
        goto out;
    }
    memset(out, 0, sizeof *out);
    if ((e = data_to_fr(data, nodes, w)) || (e = tree_d_root(w, nodes, out->comm_d)))
        goto out;
    cuzk_porep_replica_id(p->prover_id, p->sector_id, p->ticket, out->comm_d, p->porep_id,
                          out->replica_id);
    if ((e = cuzk_sdr_labels(&g, out->replica_id, layers, labels)))
        goto out;

    cuzk_fr comm_c, comm_r_last, comm_r;
    if ((e = tree_c_root(&shape, labels, nodes, layers, &comm_c)))
        goto out;
    /* The key is the last layer; replica = data + key in the field. */
    const uint8_t *last = labels + (size_t)(layers - 1) * p->sector_size;
    if ((e = words_to_fr(last, nodes, key, "label")))
        goto out;
    cuzk_fr_vec_add(w, w, key, nodes);
    for (uint64_t v = 0; v < nodes; v++)
        cuzk_fr_to_bytes_le(replica + v * NODE, &w[v]);
    if ((e = cuzk_merkle_build(&shape, w, 0, &comm_r_last, NULL)))
        goto out;

    const cuzk_poseidon *p2;
    cuzk_fr in[2] = {comm_c, comm_r_last};
    if ((e = cuzk_poseidon_merkle(2, &p2)) || (e = cuzk_poseidon_hash(p2, in, 2, &comm_r)))
        goto out;
    cuzk_fr_to_bytes_le(out->comm_c, &comm_c);
    cuzk_fr_to_bytes_le(out->comm_r_last, &comm_r_last);
    cuzk_fr_to_bytes_le(out->comm_r, &comm_r);
out:
    free(w);
    free(key);
    free(own);
    return e;
}
