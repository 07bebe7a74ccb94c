/* The FallbackPoSt circuit (include/cuzk/post.h), as rust-fil-proofs'
 * storage-proofs-post fallback/circuit.rs synthesizes it, and the partition
 * a request asks for, built and checked from decoded vanilla proofs.
 *
 * Per circuit sector, in order: alloc comm_r_last, comm_c, comm_r;
 * inputize comm_r; Poseidon-2(comm_c, comm_r_last) (Merkle-tree constants,
 * arity 2); comm_r * 1 = hash; then per challenge PoRCircuit with the leaf
 * as a value, the path from the vanilla proof, and comm_r_last as the root
 * variable, private (merkle.h: index bits, siblings, insert, hash per level;
 * the packed index as a public input; computed root * 1 = comm_r_last).
 * 53,333 constraints per 32 GiB WindowPoSt sector (1 + 311 + 1 +
 * 10 x 5,302).
 *
 * The partition: WindowPoSt takes its request's sectors (at most the
 * partition's sector count), pads a short partition with its last sector,
 * and derives each sector's challenges from its position in the whole
 * request (partition_index * sectors + i); WinningPoSt takes its one
 * sector's 66 inclusion proofs, one per circuit sector. Every proof is
 * checked against its derived challenge and its root, and comm_r against
 * Poseidon(comm_c, comm_r_last), so that a bad request fails with the
 * sector named instead of as an unsatisfied constraint. */
#include "cuzk/gadgets.h"
#include "cuzk/pce.h"
#include "cuzk/poseidon.h"
#include "cuzk/post.h"
#include "cuzk/threads.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cuzk_post_partition_free(cuzk_post_partition *p)
{
    free(p->sectors);
    free(p->proof_ptrs);
    free(p->leaves);
    memset(p, 0, sizeof *p);
}

static cuzk_err check_path(const cuzk_merkle_shape *shape, const cuzk_vanilla_merkle *m, size_t vi,
                           uint64_t sector_id, size_t k)
{
    cuzk_err e = cuzk_merkle_path_check(shape, m);
    return e ? cuzk_fail_ctx(e, "vanilla_proofs[%zu] (sector %llu): inclusion proof %zu ", vi,
                             (unsigned long long)sector_id, k)
             : CUZK_OK;
}

static cuzk_err path_misses(size_t vi, uint64_t sector_id, size_t k)
{
    return cuzk_fail(CUZK_EINVAL,
                     "vanilla_proofs[%zu] (sector %llu): inclusion proof %zu does not hash to its "
                     "root (corrupt leaf or path)",
                     vi, (unsigned long long)sector_id, k);
}

/* One vanilla SectorProof's inclusion proofs [first, first + count) become
 * circuit sector `cs_index`'s challenges, checked. */
static cuzk_err fill_sector(const cuzk_fc_proof *fp, const cuzk_merkle_shape *shape,
                            const uint8_t randomness[32], const cuzk_post_sector_proof *v,
                            size_t vi, uint64_t sector_index, size_t first,
                            const cuzk_vanilla_merkle **ptrs, uint64_t *leaves,
                            cuzk_post_sector *out, int hash_paths)
{
    const cuzk_vanilla_sector *s = &v->sectors[0];
    out->sector_id = v->sector_id;
    out->comm_r = v->comm_r;
    out->comm_c = s->comm_c;
    out->comm_r_last = s->comm_r_last;
    out->proofs = ptrs;
    out->leaves = leaves;
    for (unsigned n = 0; n < fp->challenges; n++) {
        size_t k = first + n;
        const cuzk_vanilla_merkle *m = &s->inclusion_proofs[k];
        CUZK_TRY(check_path(shape, m, vi, v->sector_id, k));
        /* WinningPoSt's circuit sector i is challenge i of the one sector;
         * Window's sector i has challenges n at its own position. */
        uint64_t ci = fp->family == CUZK_FC_WINNING
                          ? k
                          : cuzk_post_challenge_index(fp->api, sector_index, fp->challenges, n);
        uint64_t want = cuzk_post_leaf_challenge(randomness, v->sector_id, ci, fp->sector_size);
        uint64_t got = cuzk_vanilla_merkle_leaf_index(m);
        if (got != want)
            return cuzk_fail(CUZK_EINVAL,
                             "vanilla_proofs[%zu] (sector %llu): inclusion proof %zu is for leaf "
                             "%llu, but challenge %llu with this randomness is leaf %llu (wrong "
                             "randomness, sector, partition or proof type?)",
                             vi, (unsigned long long)v->sector_id, k, (unsigned long long)got,
                             (unsigned long long)ci, (unsigned long long)want);
        if (!cuzk_fr_eq(&m->root, &s->comm_r_last))
            return cuzk_fail(CUZK_EINVAL,
                             "vanilla_proofs[%zu] (sector %llu): inclusion proof %zu's root is not "
                             "the sector proof's comm_r_last",
                             vi, (unsigned long long)v->sector_id, k);
        cuzk_fr root;
        if (hash_paths) {
            CUZK_TRY(cuzk_merkle_root_from_path(shape, &m->leaf, m->siblings, got, &root));
            if (!cuzk_fr_eq(&root, &m->root))
                return path_misses(vi, v->sector_id, k);
        }
        ptrs[n] = m;
        leaves[n] = got;
    }
    const cuzk_poseidon *p2;
    CUZK_TRY(cuzk_poseidon_merkle(2, &p2));
    cuzk_fr in[2] = {s->comm_c, s->comm_r_last}, h;
    CUZK_TRY(cuzk_poseidon_hash(p2, in, 2, &h));
    if (!cuzk_fr_eq(&h, &v->comm_r))
        return cuzk_fail(CUZK_EINVAL,
                         "vanilla_proofs[%zu] (sector %llu): comm_r is not Poseidon(comm_c, "
                         "comm_r_last)",
                         vi, (unsigned long long)v->sector_id);
    return CUZK_OK;
}

/* The sectors of a partition checked and filled on the thread pool (each
 * checks its paths against their roots: hundreds of thousands of Poseidon
 * hashes for a 32 GiB WindowPoSt partition). */
typedef struct {
    const cuzk_fc_proof *fp;
    const cuzk_merkle_shape *shape;
    const uint8_t *randomness;
    uint32_t partition_index;
    const cuzk_post_sector_proof *vanilla;
    cuzk_post_partition *out;
    cuzk_err *errs;
    char (*msgs)[320];
    int hash_paths;
} fill_job;

static void fill_range(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    fill_job *f = ctx;
    size_t nc = f->fp->challenges;
    for (size_t i = begin; i < end; i++) {
        int winning = f->fp->family == CUZK_FC_WINNING;
        size_t vi = winning ? 0 : i, first = winning ? i : 0;
        uint64_t sector_index = (uint64_t)f->partition_index * f->fp->sectors + i;
        f->errs[i] = fill_sector(f->fp, f->shape, f->randomness, &f->vanilla[vi], vi, sector_index,
                                 first, &f->out->proof_ptrs[i * nc], &f->out->leaves[i * nc],
                                 &f->out->sectors[i], f->hash_paths);
        if (f->errs[i])
            snprintf(f->msgs[i], sizeof f->msgs[i], "%s", cuzk_errmsg());
    }
}

static cuzk_err partition_build(const cuzk_fc_proof *fp, const uint8_t randomness[32],
                                uint32_t partition_index, const cuzk_post_sector_proof *vanilla,
                                size_t n_vanilla, cuzk_post_partition *out, int hash_paths)
{
    memset(out, 0, sizeof *out);
    if (fp->family != CUZK_FC_WINNING && fp->family != CUZK_FC_WINDOW)
        return cuzk_fail(CUZK_EINVAL, "%s is not a PoSt proof", fp->name);
    CUZK_TRY(cuzk_post_randomness_check(randomness));
    size_t want_max = fp->family == CUZK_FC_WINNING ? 1 : fp->sectors;
    if (n_vanilla < 1 || n_vanilla > want_max)
        return cuzk_fail(CUZK_EINVAL, "%s: %zu vanilla proofs; a partition takes 1..%zu sectors",
                         fp->name, n_vanilla, want_max);
    unsigned per = fp->family == CUZK_FC_WINNING ? fp->sectors : fp->challenges;
    for (size_t i = 0; i < n_vanilla; i++) {
        if (vanilla[i].n_sectors != 1)
            return cuzk_fail(CUZK_EINVAL,
                             "vanilla_proofs[%zu] (sector %llu): %zu sector proofs (1 expected)", i,
                             (unsigned long long)vanilla[i].sector_id, vanilla[i].n_sectors);
        if (vanilla[i].sectors[0].n_inclusion_proofs != per)
            return cuzk_fail(CUZK_EINVAL,
                             "vanilla_proofs[%zu] (sector %llu): %zu inclusion proofs; %s has %u "
                             "per sector",
                             i, (unsigned long long)vanilla[i].sector_id,
                             vanilla[i].sectors[0].n_inclusion_proofs, fp->name, per);
    }
    cuzk_merkle_shape shape;
    cuzk_post_tree_shape(fp, &shape);
    size_t ns = fp->sectors, nc = fp->challenges;
    out->proof = fp;
    out->n_sectors = ns;
    out->sectors = calloc(ns, sizeof *out->sectors);
    out->proof_ptrs = calloc(ns * nc, sizeof *out->proof_ptrs);
    out->leaves = calloc(ns * nc, sizeof *out->leaves);
    if (!out->sectors || !out->proof_ptrs || !out->leaves) {
        cuzk_post_partition_free(out);
        return cuzk_fail(CUZK_ENOMEM, "out of memory for a partition of %zu sectors", ns);
    }
    size_t filled = fp->family == CUZK_FC_WINNING ? ns : n_vanilla;
    fill_job fj = {fp, &shape, randomness, partition_index, vanilla, out, NULL, NULL, hash_paths};
    fj.errs = calloc(filled, sizeof *fj.errs);
    fj.msgs = calloc(filled, sizeof *fj.msgs);
    cuzk_err e = fj.errs && fj.msgs ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        cuzk_parallel_for(filled, 1, fill_range, &fj);
    /* The first sector that fails is the one named, whatever the threads. */
    for (size_t i = 0; i < filled && !e; i++)
        if (fj.errs[i])
            e = cuzk_fail(fj.errs[i], "%s", fj.msgs[i]);
    free(fj.errs);
    free(fj.msgs);
    /* A short WindowPoSt partition repeats its last sector. */
    for (size_t i = filled; i < ns && !e; i++)
        out->sectors[i] = out->sectors[filled - 1];
    if (e)
        cuzk_post_partition_free(out);
    return e;
}

cuzk_err cuzk_post_partition_build(const cuzk_fc_proof *fp, const uint8_t randomness[32],
                                   uint32_t partition_index, const cuzk_post_sector_proof *vanilla,
                                   size_t n_vanilla, cuzk_post_partition *out)
{
    return partition_build(fp, randomness, partition_index, vanilla, n_vanilla, out, 1);
}

cuzk_err cuzk_post_partition_build_unhashed(const cuzk_fc_proof *fp, const uint8_t randomness[32],
                                            uint32_t partition_index,
                                            const cuzk_post_sector_proof *vanilla, size_t n_vanilla,
                                            cuzk_post_partition *out)
{
    return partition_build(fp, randomness, partition_index, vanilla, n_vanilla, out, 0);
}

/* Placeholder values for the circuit's shape (record mode without a
 * request): zero leaves and siblings, index 0. */
static cuzk_err blank_sector(const cuzk_merkle_shape *shape, unsigned challenges,
                             cuzk_vanilla_merkle *m, const cuzk_vanilla_merkle **ptrs,
                             uint64_t *leaves, cuzk_post_sector *out)
{
    memset(m, 0, sizeof *m);
    m->n_levels = cuzk_merkle_path_levels(shape);
    m->siblings = calloc(cuzk_merkle_sibling_count(shape), sizeof *m->siblings);
    if (!m->siblings)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    memset(out, 0, sizeof *out);
    for (unsigned n = 0; n < challenges; n++)
        ptrs[n] = m, leaves[n] = 0;
    out->proofs = ptrs;
    out->leaves = leaves;
    return CUZK_OK;
}

/* *miss (may be NULL): the first challenge whose path does not hash to
 * comm_r_last's value, or -1 (meaningful with real values: witness mode). */
static cuzk_err synth_sector(cuzk_cs *cs, const cuzk_merkle_shape *shape, unsigned challenges,
                             const cuzk_poseidon *p2, const cuzk_post_sector *s, int *miss)
{
    if (miss)
        *miss = -1;
    cuzk_num comm_r_last, comm_c, comm_r, h;
    CUZK_TRY(cuzk_num_alloc(cs, &s->comm_r_last, &comm_r_last));
    CUZK_TRY(cuzk_num_alloc(cs, &s->comm_c, &comm_c));
    CUZK_TRY(cuzk_num_alloc(cs, &s->comm_r, &comm_r));
    CUZK_TRY(cuzk_num_inputize(cs, &comm_r));
    cuzk_num in[2] = {comm_c, comm_r_last};
    CUZK_TRY(cuzk_poseidon_gadget(cs, p2, in, 2, &h));
    CUZK_TRY(cuzk_num_equal(cs, &comm_r, &h));
    cuzk_root root = {.allocated = 1, .num = comm_r_last};
    for (unsigned n = 0; n < challenges; n++) {
        const cuzk_vanilla_merkle *m = s->proofs[n];
        cuzk_root leaf = {.allocated = 0};
        leaf.num.val = m->leaf;
        cuzk_fr got;
        CUZK_TRY(cuzk_por_gadget_root(cs, shape, &leaf, m->siblings, s->leaves[n], &root, 1, &got));
        if (miss && *miss < 0 && !cuzk_fr_eq(&got, &s->comm_r_last))
            *miss = (int)n;
    }
    return CUZK_OK;
}

static cuzk_err post_synthesize(cuzk_cs *cs, const cuzk_fc_proof *fp, const cuzk_post_partition *p,
                                cuzk_progress_fn progress, void *ctx);

cuzk_err cuzk_post_synthesize(cuzk_cs *cs, const cuzk_fc_proof *fp, const cuzk_post_partition *p)
{
    return post_synthesize(cs, fp, p, NULL, NULL);
}

/* Sectors are the unit of progress; a non-zero return stops. */
static cuzk_err post_synthesize(cuzk_cs *cs, const cuzk_fc_proof *fp, const cuzk_post_partition *p,
                                cuzk_progress_fn progress, void *ctx)
{
    if (fp->family != CUZK_FC_WINNING && fp->family != CUZK_FC_WINDOW)
        return cuzk_fail(CUZK_EINVAL, "%s is not a PoSt proof", fp->name);
    if (p && (p->proof != fp || p->n_sectors != fp->sectors))
        return cuzk_fail(CUZK_EINVAL, "partition of %zu sectors built for another proof type",
                         p->n_sectors);
    cuzk_merkle_shape shape;
    cuzk_post_tree_shape(fp, &shape);
    const cuzk_poseidon *p2;
    CUZK_TRY(cuzk_poseidon_merkle(2, &p2));
    if (p) {
        for (size_t i = 0; i < p->n_sectors; i++)
            CUZK_TRY(synth_sector(cs, &shape, fp->challenges, p2, &p->sectors[i], NULL));
        return CUZK_OK;
    }
    /* The shape alone: every sector the same blank one. */
    cuzk_vanilla_merkle m = {0};
    const cuzk_vanilla_merkle **ptrs = calloc(fp->challenges, sizeof *ptrs);
    uint64_t *leaves = calloc(fp->challenges, sizeof *leaves);
    cuzk_post_sector s;
    cuzk_err e = ptrs && leaves ? blank_sector(&shape, fp->challenges, &m, ptrs, leaves, &s)
                                : cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (unsigned i = 0; i < fp->sectors && !e; i++) {
        e = synth_sector(cs, &shape, fp->challenges, p2, &s, NULL);
        if (!e && progress && progress(ctx, i + 1, fp->sectors))
            e = cuzk_fail(CUZK_ECANCELLED, "recording %s: stopped", fp->circuit_id);
    }
    free(m.siblings);
    free(ptrs);
    free(leaves);
    return e;
}

/* Parallel witness: chunks of sectors on the thread pool, each in a system
 * of its own. Every sector allocates the same inputs and aux whatever its
 * values, so chunk c's aux go straight into the assignment at a fixed
 * offset (an aux window, cs.h) and only its few inputs are copied: the same
 * assignment as one sequential synthesis, written once. */
typedef struct {
    const cuzk_fc_proof *fp;
    const cuzk_post_partition *p;
    const cuzk_merkle_shape *shape;
    const cuzk_poseidon *p2;
    size_t per_chunk;
    uint64_t ip, ap, n_in; /* inputs (without ONE) and aux per sector; inputs in w */
    cuzk_fr *w;
    cuzk_err *errs;
    char (*msgs)[256];
} witness_job;

static void witness_chunk(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    witness_job *j = ctx;
    for (size_t c = begin; c < end; c++) {
        size_t first = c * j->per_chunk, last = first + j->per_chunk;
        if (last > j->p->n_sectors)
            last = j->p->n_sectors;
        cuzk_cs *cs = NULL;
        cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_WITNESS);
        if (!e)
            e = cuzk_cs_set_aux_window(cs, j->w + j->n_in + first * j->ap, (last - first) * j->ap);
        for (size_t i = first; i < last && !e; i++) {
            int miss;
            e = synth_sector(cs, j->shape, j->fp->challenges, j->p2, &j->p->sectors[i], &miss);
            /* Window's circuit sector i is vanilla proof i (the padding
             * repeats the last, named first); Winning's is challenge i of
             * the one sector */
            if (!e && miss >= 0)
                e = j->fp->family == CUZK_FC_WINNING
                        ? path_misses(0, j->p->sectors[i].sector_id, i)
                        : path_misses(i, j->p->sectors[i].sector_id, (size_t)miss);
        }
        if (!e && (cuzk_cs_num_inputs(cs) != 1 + (last - first) * j->ip ||
                   cuzk_cs_num_aux(cs) != (last - first) * j->ap))
            e = cuzk_fail(CUZK_EINTERNAL, "sectors %zu..%zu: %u inputs and %llu aux", first,
                          last - 1, cuzk_cs_num_inputs(cs),
                          (unsigned long long)cuzk_cs_num_aux(cs));
        if (!e)
            memcpy(j->w + 1 + first * j->ip, cuzk_cs_inputs(cs) + 1,
                   (last - first) * j->ip * sizeof *j->w);
        cuzk_cs_free(cs);
        j->errs[c] = e;
        if (e)
            snprintf(j->msgs[c], sizeof j->msgs[c], "%s", cuzk_errmsg());
    }
}

cuzk_err cuzk_post_witness(const cuzk_post_partition *p, cuzk_fr **w, size_t *n)
{
    return cuzk_post_witness_into(p, NULL, w, n);
}

cuzk_err cuzk_post_witness_into(const cuzk_post_partition *p, const cuzk_wbuf *offer, cuzk_fr **w,
                                size_t *n)
{
    *w = NULL;
    *n = 0;
    const cuzk_fc_proof *fp = p->proof;
    if (!p->n_sectors)
        return cuzk_fail(CUZK_EINVAL, "witness of a partition without sectors");
    cuzk_merkle_shape shape;
    cuzk_post_tree_shape(fp, &shape);
    witness_job job = {.fp = fp, .p = p, .shape = &shape};
    CUZK_TRY(cuzk_poseidon_merkle(2, &job.p2));
    /* A sector's counts, from the first one (any values give the same). */
    cuzk_cs *one = NULL;
    CUZK_TRY(cuzk_cs_new(&one, CUZK_CS_WITNESS));
    cuzk_err e = synth_sector(one, &shape, fp->challenges, job.p2, &p->sectors[0], NULL);
    job.ip = cuzk_cs_num_inputs(one) - 1;
    job.ap = cuzk_cs_num_aux(one);
    cuzk_cs_free(one);
    if (e)
        return e;
    size_t chunks = 4 * (size_t)cuzk_threads_count();
    if (chunks > p->n_sectors)
        chunks = p->n_sectors;
    job.per_chunk = (p->n_sectors + chunks - 1) / chunks;
    chunks = (p->n_sectors + job.per_chunk - 1) / job.per_chunk;
    job.n_in = 1 + p->n_sectors * job.ip;
    size_t total = job.n_in + p->n_sectors * job.ap;
    job.errs = calloc(chunks, sizeof *job.errs);
    job.msgs = calloc(chunks, sizeof *job.msgs);
    job.w = cuzk_witness_buffer(offer, total);
    e = job.errs && job.msgs && job.w
            ? CUZK_OK
            : cuzk_fail(CUZK_ENOMEM, "out of memory for a witness of %zu variables", total);
    if (!e) {
        cuzk_fr_one(&job.w[0]);
        cuzk_parallel_for(chunks, 1, witness_chunk, &job);
    }
    for (size_t c = 0; c < chunks && !e; c++)
        if (job.errs[c])
            e = cuzk_fail(job.errs[c], "%s", job.msgs[c]);
    if (e) {
        cuzk_witness_buffer_drop(offer, job.w);
    } else {
        *w = job.w;
        *n = total;
    }
    free(job.errs);
    free(job.msgs);
    return e;
}

cuzk_err cuzk_post_record_pce(const cuzk_fc_proof *fp, cuzk_progress_fn progress, void *ctx,
                              cuzk_pce **out)
{
    *out = NULL;
    /* One sector recorded, then tiled: sectors differ only in their
     * variables' numbers (pce.h cuzk_pce_tile). */
    cuzk_fc_proof one = *fp;
    one.sectors = 1;
    cuzk_cs *cs = NULL;
    cuzk_pce *t = NULL;
    cuzk_err rc = cuzk_cs_new(&cs, CUZK_CS_RECORD);
    if (!rc)
        rc = post_synthesize(cs, &one, NULL, NULL, NULL);
    if (!rc)
        rc = cuzk_cs_compile(cs, &t);
    cuzk_cs_free(cs);
    if (!rc && progress && progress(ctx, 1, fp->sectors))
        rc = cuzk_fail(CUZK_ECANCELLED, "recording %s: stopped", fp->circuit_id);
    if (!rc && fp->sectors == 1) {
        *out = t;
        return CUZK_OK;
    }
    if (!rc)
        rc = cuzk_pce_tile(t, fp->sectors, out);
    cuzk_pce_free(t);
    if (!rc && progress)
        progress(ctx, fp->sectors, fp->sectors);
    return rc;
}
