/* SnapDeals updates (gen.h cuzk_gen_snap, seal.h cuzk_seal_update), checked
 * by the vanilla verification of snap.h, whose challenges match
 * rust-fil-proofs' known answers (test_circuits_snap.c), and by
 * independent recomputation:
 *   - a 2 KiB and an 8 MiB sector sealed (seal.h; the 2 KiB seal matches
 *     polka-storage's comm_r in test_seal_sdr.c) and updated with random
 *     data: every word of the new replica is key + data * rho of its
 *     block, recomputed here from phi; comm_d_new is the SHA-256 tree of
 *     the data (cuzk_seal_tree_d); every partition verifies;
 *   - synthetic updates at every registry size verify, partition by
 *     partition, and a changed leaf, apex leaf, comm_c, commitment or
 *     partition index does not;
 *   - cuzk_snap_witness (challenges in parallel) equals the sequential
 *     witness-mode assignment byte for byte;
 *   - PartitionProof bincode: decode(encode(p)) encodes to the same bytes;
 *     every truncation and a trailing byte fail naming the field. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/gen.h"
#include "cuzk/seal.h"
#include "cuzk/snap.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>

static void verify_all(const cuzk_snap_update *u)
{
    for (unsigned k = 0; k < u->config.partitions; k++)
        CHECK_OK(cuzk_snap_verify(&u->config, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new,
                                  &u->partitions[k]));
}

static void test_bincode(const cuzk_snap_partition_proof *p)
{
    uint8_t *b = NULL, *b2 = NULL;
    size_t n = 0, n2 = 0;
    cuzk_snap_partition_proof q;
    CHECK_OK(cuzk_snap_partition_proof_encode(p, &b, &n));
    CHECK_OK(cuzk_snap_partition_proof_decode(b, n, "p", &q));
    CHECK_OK(cuzk_snap_partition_proof_encode(&q, &b2, &n2));
    CHECK(n == n2 && b && b2 && !memcmp(b, b2, n));
    cuzk_snap_partition_proof_free(&q);
    /* Every truncation fails; so does a trailing byte. */
    int all = 1;
    for (size_t cut = 0; cut < n; cut += 1 + n / 97) {
        cuzk_err e = cuzk_snap_partition_proof_decode(b, cut, "p", &q);
        all &= e == CUZK_EFORMAT && q.challenges == NULL && q.apex_leafs == NULL;
    }
    CHECK(all);
    uint8_t *longer = malloc(n + 1);
    memcpy(longer, b, n);
    longer[n] = 0;
    CHECK_ERR(cuzk_snap_partition_proof_decode(longer, n + 1, "p", &q), CUZK_EFORMAT,
              "trailing bytes");
    /* A non-canonical comm_c. */
    longer[31] = 0xff;
    CHECK_ERR(cuzk_snap_partition_proof_decode(longer, n, "vanilla_proofs[2]", &q), CUZK_EFORMAT,
              "vanilla_proofs[2].comm_c: not a canonical field element");
    free(longer);
    free(b);
    free(b2);
}

static void test_synthetic(void)
{
    static const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        cuzk_snap_update u;
        CHECK_OK(cuzk_gen_snap(sizes[i], 3, &u));
        if (!u.partitions)
            continue;
        verify_all(&u);
        test_bincode(&u.partitions[u.config.partitions - 1]);
        cuzk_snap_partition_proof *p = &u.partitions[0];
        const cuzk_snap_config *c = &u.config;
        /* A partition's proof is not another's. */
        if (c->partitions > 1)
            CHECK_ERR(cuzk_snap_verify(c, 1, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p),
                      CUZK_EVERIFY, "not challenge");
        cuzk_fr keep = p->challenges[3].r_new.leaf, one;
        cuzk_fr_from_u64(&one, 1);
        blst_fr_add(&p->challenges[3].r_new.leaf, &keep, &one);
        CHECK(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p) ==
              CUZK_EVERIFY);
        p->challenges[3].r_new.leaf = keep;
        keep = p->apex_leafs[5];
        blst_fr_add(&p->apex_leafs[5], &keep, &one);
        CHECK(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p) ==
              CUZK_EVERIFY);
        p->apex_leafs[5] = keep;
        keep = p->comm_c;
        blst_fr_add(&p->comm_c, &keep, &one);
        CHECK_ERR(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p),
                  CUZK_EVERIFY, "comm_r_old");
        p->comm_c = keep;
        cuzk_fr other;
        blst_fr_add(&other, &u.comm_d_new, &one);
        CHECK(cuzk_snap_verify(c, 0, &u.comm_r_old, &other, &u.comm_r_new, p) == CUZK_EVERIFY);
        p->challenges[0].d_new.n_levels--;
        CHECK_ERR(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p),
                  CUZK_EINVAL, "challenge_proofs[0].proof_d_new has");
        p->challenges[0].d_new.n_levels++;
        p->n_apex_leafs--;
        CHECK_ERR(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p),
                  CUZK_EINVAL, "apex_leafs");
        p->n_apex_leafs++;
        CHECK_OK(cuzk_snap_verify(c, 0, &u.comm_r_old, &u.comm_d_new, &u.comm_r_new, p));
        /* Another seed, another update. */
        cuzk_snap_update v;
        CHECK_OK(cuzk_gen_snap(sizes[i], 4, &v));
        CHECK(!cuzk_fr_eq(&u.comm_r_new, &v.comm_r_new));
        cuzk_snap_update_free(&v);
        cuzk_snap_update_free(&u);
    }
    cuzk_snap_update u;
    CHECK_ERR(cuzk_gen_snap(4096, 1, &u), CUZK_EINVAL, "SnapDeals sectors are");
}

/* The first and last partitions of an update in the SnapDeals circuit,
 * check mode (an 8 MiB partition is 11 M constraints): satisfied, with the
 * public inputs snap.h derives; then a changed leaf and a wrong comm_r_new
 * are not. */
static void circuit_check(const cuzk_snap_update *u)
{
    const cuzk_snap_config *c = &u->config;
    for (unsigned k = 0; k<c->partitions; k += c->partitions> 1 ? c->partitions - 1 : 1) {
        cuzk_snap_values v;
        cuzk_cs *cs;
        cuzk_fr want[4];
        CHECK_OK(cuzk_snap_values_of(c, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new,
                                     &u->partitions[k], &v));
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
        cuzk_err e = cuzk_snap_synthesize(cs, c, &v);
        if (e)
            fprintf(stderr, "partition %u: %s\n", k, cuzk_errmsg());
        CHECK(e == CUZK_OK);
        CHECK(cuzk_cs_num_inputs(cs) == 5);
        CHECK_OK(
            cuzk_snap_public_inputs(c, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new, want));
        CHECK(!memcmp(want, cuzk_cs_inputs(cs) + 1, sizeof want));
        cuzk_cs_free(cs);
        /* The parallel witness (a base, windows) is the sequential one. */
        cuzk_fr *w1 = NULL, *w2 = NULL;
        size_t n1 = 0, n2 = 0;
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
        CHECK_OK(cuzk_snap_synthesize(cs, c, &v));
        CHECK_OK(cuzk_cs_finish(cs));
        CHECK_OK(cuzk_cs_assignment(cs, &w1, &n1));
        CHECK_OK(cuzk_snap_witness(c, &v, &w2, &n2));
        CHECK(n1 && n1 == n2 && w1 && w2 && !memcmp(w1, w2, n1 * sizeof *w1));
        free(w1);
        free(w2);
        cuzk_cs_free(cs);
        if (k == 0) {
            cuzk_fr one;
            cuzk_fr_from_u64(&one, 1);
            blst_fr_add(&v.challenges[1].leaf_d_new, &v.challenges[1].leaf_d_new, &one);
            CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
            CHECK_ERR(cuzk_snap_synthesize(cs, c, &v), CUZK_EINVAL, "not satisfied");
            cuzk_cs_free(cs);
            blst_fr_sub(&v.challenges[1].leaf_d_new, &v.challenges[1].leaf_d_new, &one);
            blst_fr_add(&v.comm_r_new, &v.comm_r_new, &one);
            CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
            CHECK_ERR(cuzk_snap_synthesize(cs, c, &v), CUZK_EINVAL, "not satisfied");
            cuzk_cs_free(cs);
        }
        cuzk_snap_values_free(&v);
    }
}

/* Seal a sector of random data, then update it with other random data. */
static void test_sealed(uint64_t size, uint64_t number)
{
    cuzk_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.sector_size = size;
    const cuzk_fc_proof *fp = cuzk_fc_find(CUZK_FC_SEAL, number);
    cuzk_porep_config pc;
    CHECK_OK(cuzk_porep_config_of(fp, &pc));
    memcpy(sp.porep_id, pc.porep_id, 32);
    sp.api = pc.api;
    sp.sector_id = 5;
    for (int i = 0; i < 32; i++)
        sp.prover_id[i] = (uint8_t)i, sp.ticket[i] = (uint8_t)(i * 7);
    sp.ticket[31] &= 0x3f;
    uint8_t *data = malloc(size), *key = malloc(size), *fresh = malloc(size), *rep = malloc(size);
    cuzk_rng g;
    cuzk_rng_seed(&g, 77);
    for (uint64_t w = 0; w < size / 32; w++) {
        cuzk_fr x, y;
        cuzk_fr_rng(&x, &g);
        cuzk_fr_rng(&y, &g);
        cuzk_fr_to_bytes_le(data + 32 * w, &x);
        cuzk_fr_to_bytes_le(fresh + 32 * w, &y);
        data[32 * w + 31] &= 0x3f;
        fresh[32 * w + 31] &= 0x3f;
    }
    cuzk_seal_result r;
    CHECK_OK(cuzk_seal(&sp, data, key, NULL, &r));
    cuzk_snap_update u;
    CHECK_OK(cuzk_seal_update(size, r.comm_c, r.comm_r_last, key, fresh, rep, &u));
    verify_all(&u);
    /* Independently: comm_d_new, comm_r_old, and every word's encoding. */
    uint8_t d[32];
    cuzk_fr x, phi, cr_old, cc, crl;
    CHECK_OK(cuzk_seal_tree_d(fresh, size, d));
    CHECK_OK(cuzk_fr_from_bytes_le(&x, d));
    CHECK(cuzk_fr_eq(&x, &u.comm_d_new));
    CHECK_OK(cuzk_fr_from_bytes_le(&cr_old, r.comm_r));
    CHECK(cuzk_fr_eq(&cr_old, &u.comm_r_old));
    CHECK_OK(cuzk_snap_phi(&u.comm_d_new, &u.comm_r_old, &phi));
    int ok = 1;
    size_t blocks = (size_t)1 << u.config.h;
    cuzk_fr *rhos = malloc(blocks * sizeof *rhos);
    for (size_t b = 0; b < blocks; b++)
        ok &= cuzk_snap_rho(&phi, (uint32_t)b, &rhos[b]) == CUZK_OK;
    for (uint64_t w = 0; w < size / 32; w++) {
        cuzk_fr k, dn, rn, want;
        cuzk_fr_from_bytes_le(&k, key + 32 * w);
        cuzk_fr_from_bytes_le(&dn, fresh + 32 * w);
        cuzk_fr_from_bytes_le(&rn, rep + 32 * w);
        blst_fr_mul(&want, &dn, &rhos[w >> (u.config.node_bits - u.config.h)]);
        blst_fr_add(&want, &want, &k);
        ok &= cuzk_fr_eq(&want, &rn);
    }
    CHECK(ok);
    free(rhos);
    test_bincode(&u.partitions[0]);
    circuit_check(&u);
    cuzk_snap_update_free(&u);
    /* A sector key that is not the sealed one. */
    CHECK_OK(cuzk_fr_from_bytes_le(&cc, r.comm_c));
    CHECK_OK(cuzk_fr_from_bytes_le(&crl, r.comm_r_last));
    key[64] ^= 1;
    CHECK_ERR(cuzk_seal_update(size, r.comm_c, r.comm_r_last, key, fresh, rep, &u), CUZK_EVERIFY,
              "comm_r_last");
    key[64] ^= 1;
    fresh[32 * 9 + 31] |= 0x40;
    CHECK_ERR(cuzk_seal_update(size, r.comm_c, r.comm_r_last, key, fresh, rep, &u), CUZK_EINVAL,
              "data word 9");
    free(data);
    free(key);
    free(fresh);
    free(rep);
}

static void test_circuit(void)
{
    cuzk_snap_update u;
    CHECK_OK(cuzk_gen_snap(2048, 5, &u));
    circuit_check(&u);
    cuzk_snap_update_free(&u);
    CHECK_OK(cuzk_gen_snap(8ull << 20, 5, &u));
    circuit_check(&u);
    cuzk_snap_update_free(&u);
}

int main(void)
{
    test_synthetic();
    test_sealed(2048, 5);
    test_sealed(8ull << 20, 6);
    test_circuit();
    return check_done("test_seal_snap");
}
