/* SnapDeals' public side (include/cuzk/snap.h): sizes, phi and rho, the
 * challenges and the vanilla verification of a partition proof, as
 * storage-proofs-update's constants.rs, challenges.rs and vanilla.rs
 * define them. */
#include "cuzk/snap.h"
#include "cuzk/filecoin.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

#include <stdlib.h>
#include <string.h>

#define KIB(n) ((uint64_t)(n) << 10)
#define MIB(n) ((uint64_t)(n) << 20)

cuzk_err cuzk_snap_config_of(uint64_t sector_size, cuzk_snap_config *out)
{
    memset(out, 0, sizeof *out);
    size_t n;
    const cuzk_fc_proof *all = cuzk_fc_proofs(&n), *fp = NULL;
    for (size_t i = 0; i < n && !fp; i++)
        if (all[i].family == CUZK_FC_UPDATE && all[i].sector_size == sector_size)
            fp = &all[i];
    if (!fp)
        return cuzk_fail(CUZK_EINVAL,
                         "sector size %llu: SnapDeals sectors are 2 KiB, 8 MiB, 512 MiB, 32 GiB "
                         "or 64 GiB",
                         (unsigned long long)sector_size);
    out->sector_size = sector_size;
    out->nodes = sector_size / 32;
    out->node_bits = (unsigned)__builtin_ctzll(out->nodes);
    /* constants.rs, by bytes: 8 KiB = 256 nodes, 32 KiB, 16 MiB. */
    out->partitions = sector_size <= KIB(8)    ? 1
                      : sector_size <= KIB(32) ? 2
                      : sector_size <= MIB(16) ? 4
                                               : 16;
    out->partition_bits = (unsigned)__builtin_ctz(out->partitions);
    out->challenges = sector_size <= MIB(16) ? 10 : 86;
    out->h = sector_size <= KIB(32) ? 1 : 10; /* hs[3] */
    out->apex_leaves = sector_size <= KIB(8) ? 8 : 128;
    out->apex_bits = (unsigned)__builtin_ctz(out->apex_leaves);
    out->tree_r =
        (cuzk_merkle_shape){8, fp->base_levels, fp->sub_arity, fp->top_arity, CUZK_MERKLE_POSEIDON};
    if (fp->partitions != out->partitions || fp->challenges != out->challenges)
        return cuzk_fail(CUZK_EINTERNAL, "%s: the registry says %u partitions of %u challenges",
                         fp->name, fp->partitions, fp->challenges);
    return cuzk_merkle_shape_check(&out->tree_r);
}

static cuzk_err gen_hash(const cuzk_fr *a, const cuzk_fr *b, cuzk_fr *out)
{
    const cuzk_poseidon *p;
    CUZK_TRY(cuzk_poseidon_gen_randomness(&p));
    cuzk_fr in[2] = {*a, *b};
    return cuzk_poseidon_hash(p, in, 2, out);
}

cuzk_err cuzk_snap_phi(const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_old, cuzk_fr *phi)
{
    return gen_hash(comm_d_new, comm_r_old, phi);
}

cuzk_err cuzk_snap_rho(const cuzk_fr *phi, uint32_t high, cuzk_fr *rho)
{
    cuzk_fr h;
    cuzk_fr_from_u64(&h, high);
    return gen_hash(phi, &h, rho);
}

cuzk_err cuzk_snap_comm_r(const cuzk_fr *comm_c, const cuzk_fr *root, cuzk_fr *comm_r)
{
    const cuzk_poseidon *p;
    CUZK_TRY(cuzk_poseidon_merkle(2, &p));
    cuzk_fr in[2] = {*comm_c, *root};
    return cuzk_poseidon_hash(p, in, 2, comm_r);
}

cuzk_err cuzk_snap_challenges(const cuzk_snap_config *c, const cuzk_fr *comm_r_new, unsigned k,
                              uint32_t *out)
{
    if (k >= c->partitions)
        return cuzk_fail(CUZK_EINVAL, "partition %u: a %llu-byte sector has %u", k,
                         (unsigned long long)c->sector_size, c->partitions);
    unsigned r = c->node_bits - c->partition_bits, per = 254 / r;
    uint64_t digest_index = (uint64_t)k * ((c->challenges + per - 1) / per);
    uint8_t bits[32];
    for (unsigned i = 0, j = 0; i < c->challenges; i++, j++) {
        if (j == per)
            j = 0, digest_index++;
        if (j == 0) {
            cuzk_fr idx, d;
            cuzk_fr_from_u64(&idx, digest_index);
            CUZK_TRY(gen_hash(comm_r_new, &idx, &d));
            cuzk_fr_to_bytes_le(bits, &d);
        }
        uint32_t v = 0;
        for (unsigned b = 0; b < r; b++) {
            unsigned at = j * r + b;
            v |= (uint32_t)((bits[at / 8] >> (at % 8)) & 1) << b;
        }
        out[i] = v | (uint32_t)k << r;
    }
    return CUZK_OK;
}

/* Position, root and hashes of one opening. */
static cuzk_err check_path(const cuzk_merkle_shape *s, const cuzk_vanilla_merkle *m, size_t j,
                           const char *what, uint32_t c, const cuzk_fr *root)
{
    cuzk_fr got;
    if (cuzk_vanilla_merkle_leaf_index(m) != c)
        return cuzk_fail(CUZK_EVERIFY, "challenge_proofs[%zu].%s opens leaf %llu, not challenge %u",
                         j, what, (unsigned long long)cuzk_vanilla_merkle_leaf_index(m), c);
    if (!cuzk_fr_eq(&m->root, root))
        return cuzk_fail(CUZK_EVERIFY, "challenge_proofs[%zu].%s: its root is not the tree's", j,
                         what);
    CUZK_TRY(cuzk_merkle_root_from_path(s, &m->leaf, m->siblings, c, &got));
    if (!cuzk_fr_eq(&got, root))
        return cuzk_fail(CUZK_EVERIFY,
                         "challenge_proofs[%zu].%s: the path of challenge %u does not hash to "
                         "its root",
                         j, what, c);
    return CUZK_OK;
}

cuzk_err cuzk_snap_verify(const cuzk_snap_config *c, unsigned k, const cuzk_fr *comm_r_old,
                          const cuzk_fr *comm_d_new, const cuzk_fr *comm_r_new,
                          const cuzk_snap_partition_proof *p)
{
    if (k >= c->partitions)
        return cuzk_fail(CUZK_EINVAL, "partition %u: a %llu-byte sector has %u", k,
                         (unsigned long long)c->sector_size, c->partitions);
    if (p->n_apex_leafs != c->apex_leaves)
        return cuzk_fail(CUZK_EINVAL, "apex_leafs: %zu, a %llu-byte sector's partition has %u",
                         p->n_apex_leafs, (unsigned long long)c->sector_size, c->apex_leaves);
    if (p->n_challenges != c->challenges)
        return cuzk_fail(CUZK_EINVAL,
                         "challenge_proofs: %zu, a %llu-byte sector's partition has %u",
                         p->n_challenges, (unsigned long long)c->sector_size, c->challenges);
    cuzk_merkle_shape td = {2, c->node_bits, 0, 0, CUZK_MERKLE_SHA256};
    for (size_t j = 0; j < p->n_challenges; j++) {
        const cuzk_vanilla_merkle *m[3] = {&p->challenges[j].r_old, &p->challenges[j].d_new,
                                           &p->challenges[j].r_new};
        static const char *const name[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
        for (int i = 0; i < 3; i++) {
            cuzk_err e = cuzk_merkle_path_check(i == 1 ? &td : &c->tree_r, m[i]);
            if (e)
                return cuzk_fail_ctx(e, "challenge_proofs[%zu].%s ", j, name[i]);
        }
    }
    const cuzk_fr *root_old = &p->challenges[0].r_old.root,
                  *root_new = &p->challenges[0].r_new.root;
    cuzk_fr calc, phi;
    CUZK_TRY(cuzk_snap_comm_r(&p->comm_c, root_old, &calc));
    if (!cuzk_fr_eq(&calc, comm_r_old))
        return cuzk_fail(CUZK_EVERIFY, "comm_r_old is not Poseidon(comm_c, tree_r_old's root)");
    CUZK_TRY(cuzk_snap_comm_r(&p->comm_c, root_new, &calc));
    if (!cuzk_fr_eq(&calc, comm_r_new))
        return cuzk_fail(CUZK_EVERIFY, "comm_r_new is not Poseidon(comm_c, tree_r_new's root)");
    CUZK_TRY(cuzk_snap_phi(comm_d_new, comm_r_old, &phi));
    uint32_t ch[CUZK_SNAP_MAX_CHALLENGES];
    CUZK_TRY(cuzk_snap_challenges(c, comm_r_new, k, ch));
    /* The apex tree: rows[0] the leaves, each row above half the one below. */
    cuzk_fr *rows = malloc(2 * c->apex_leaves * sizeof *rows);
    if (!rows)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    size_t row_at[32];
    memcpy(rows, p->apex_leafs, c->apex_leaves * sizeof *rows);
    row_at[0] = 0;
    cuzk_err e = CUZK_OK;
    for (unsigned i = 0, w = c->apex_leaves; i < c->apex_bits && !e; i++, w /= 2) {
        row_at[i + 1] = row_at[i] + w;
        for (unsigned x = 0; x < w / 2 && !e; x++)
            e = cuzk_sha256_fr_hash(rows + row_at[i] + 2 * x, 2, rows + row_at[i + 1] + x);
    }
    unsigned apex_height = c->node_bits - c->partition_bits - c->apex_bits;
    for (size_t j = 0; j < p->n_challenges && !e; j++) {
        const cuzk_snap_challenge_proof *q = &p->challenges[j];
        if ((e = check_path(&c->tree_r, &q->r_old, j, "proof_r_old", ch[j], root_old)) ||
            (e = check_path(&td, &q->d_new, j, "proof_d_new", ch[j], comm_d_new)) ||
            (e = check_path(&c->tree_r, &q->r_new, j, "proof_r_new", ch[j], root_new)))
            break;
        cuzk_fr rho, want;
        if ((e = cuzk_snap_rho(&phi, ch[j] >> (c->node_bits - c->h), &rho)))
            break;
        blst_fr_mul(&want, &q->d_new.leaf, &rho);
        blst_fr_add(&want, &want, &q->r_old.leaf);
        if (!cuzk_fr_eq(&want, &q->r_new.leaf)) {
            e = cuzk_fail(CUZK_EVERIFY,
                          "challenge_proofs[%zu]: leaf_r_new is not leaf_r_old + leaf_d_new * "
                          "rho (challenge %u)",
                          j, ch[j]);
            break;
        }
        /* The tree_d path through the apex: level apex_height + i's sibling
         * is in the apex tree's row i. */
        for (unsigned i = 0; i < c->apex_bits && !e; i++) {
            uint64_t sib = ((uint64_t)ch[j] >> (apex_height + i)) ^ 1;
            uint64_t first = ((uint64_t)k * c->apex_leaves) >> i;
            if (!cuzk_fr_eq(&q->d_new.siblings[apex_height + i], &rows[row_at[i] + (sib - first)]))
                e = cuzk_fail(CUZK_EVERIFY,
                              "challenge_proofs[%zu].proof_d_new: level %u is not the apex tree's "
                              "node (challenge %u)",
                              j, apex_height + i, ch[j]);
        }
    }
    free(rows);
    return e;
}

void cuzk_snap_update_free(cuzk_snap_update *u)
{
    for (unsigned k = 0; u->partitions && k < u->config.partitions; k++)
        cuzk_snap_partition_proof_free(&u->partitions[k]);
    free(u->partitions);
    memset(u, 0, sizeof *u);
}
