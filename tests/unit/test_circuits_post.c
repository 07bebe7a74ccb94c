/* FallbackPoSt: challenges, public inputs, the partition and the circuit,
 * each against an oracle named where it is used:
 *   - challenge derivation against values computed independently with
 *     Python's hashlib over the documented preimage (SHA-256 of randomness
 *     || sector id u64 LE || challenge index u64 LE, first 8 bytes LE, mod
 *     nodes);
 *   - a real 32 GiB WindowPoSt vanilla proof (Curio's golden file): its
 *     paths hash to its comm_r_last with our Poseidon arity-8 tree, comm_r is
 *     Poseidon(comm_c, comm_r_last), its leaves are our derived challenges,
 *     and our circuit is satisfied by it in check mode;
 *   - polka-storage's 2 KiB WindowPoSt proof and verifying key (a random
 *     setup of rust-fil-proofs' circuit): our public inputs make it verify,
 *     and a changed randomness or sector number makes it fail;
 *   - constraint and input counts against the published ones (rust-fil-proofs
 *     constants.rs: Window 32 GiB 125,279,217 constraints; Winning 370,590;
 *     inputs incl. ONE: Window 32 GiB 25,840, small sizes 23, Winning 133). */
#include "check.h"
#include "polka_vk.h"
#include "cuzk/filecoin.h"
#include "cuzk/groth16.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"
#include "cuzk/poseidon.h"
#include "cuzk/post.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUZK_SOURCE_DIR
#define CUZK_SOURCE_DIR "."
#endif
#define FIXTURES CUZK_SOURCE_DIR "/tests/fixtures/filecoin/"

static void test_challenges(void)
{
    uint8_t r1[32], r0[32], r5[32];
    memset(r1, 1, 32);
    memset(r0, 0, 32);
    memset(r5, 5, 32);
    static const uint64_t want77[10] = {62, 13, 30, 16, 21, 30, 30, 34, 28, 40};
    for (unsigned n = 0; n < 10; n++)
        CHECK(cuzk_post_leaf_challenge(r1, 77, n, 2048) == want77[n]);
    static const uint64_t want1[10] = {707914199, 439148358,  967788220, 548708700,  1061661429,
                                       6202012,   1055504637, 389535735, 1000069704, 600088878};
    for (unsigned n = 0; n < 10; n++)
        CHECK(cuzk_post_leaf_challenge(r0, 1, n, 34359738368ull) == want1[n]);
    /* API 1.0.0 indexes challenges by the sector's position; 1.2.0 does not. */
    CHECK(cuzk_post_challenge_index(CUZK_API_1_0_0, 3, 10, 2) == 32);
    CHECK(cuzk_post_challenge_index(CUZK_API_1_2_0, 3, 10, 2) == 2);
    static const uint64_t want9[3] = {36, 17, 48};
    for (unsigned n = 0; n < 3; n++)
        CHECK(cuzk_post_leaf_challenge(r5, 9, cuzk_post_challenge_index(CUZK_API_1_0_0, 3, 10, n),
                                       2048) == want9[n]);
}

static void load_golden(cuzk_post_sector_proof *p)
{
    uint8_t *data;
    size_t n;
    CHECK_OK(cuzk_read_file(FIXTURES "post-32g-window.vproof", &data, &n));
    CHECK(n == 24960);
    CHECK_OK(cuzk_post_sector_proof_decode(data, n, "golden", p));
    free(data);
}

static void test_golden(void)
{
    cuzk_post_sector_proof v;
    load_golden(&v);
    CHECK(v.sector_id == 1 && v.n_sectors == 1 && v.sectors[0].n_inclusion_proofs == 10);
    const cuzk_fc_proof *fp = cuzk_fc_post(8); /* StackedDrgWindow32GiBV1 */
    CHECK(fp && fp->family == CUZK_FC_WINDOW && fp->api == CUZK_API_1_0_0);
    cuzk_merkle_shape shape;
    cuzk_post_tree_shape(fp, &shape);
    uint8_t zero[32] = {0};
    for (size_t k = 0; k < 10; k++) {
        const cuzk_vanilla_merkle *m = &v.sectors[0].inclusion_proofs[k];
        CHECK(m->form == CUZK_MERKLE_SUB && m->n_base == 9 && m->n_levels == 10);
        uint64_t leaf = cuzk_vanilla_merkle_leaf_index(m);
        CHECK(leaf == cuzk_post_leaf_challenge(zero, 1, k, fp->sector_size));
        cuzk_fr root;
        CHECK_OK(cuzk_merkle_root_from_path(&shape, &m->leaf, m->siblings, leaf, &root));
        CHECK(cuzk_fr_eq(&root, &v.sectors[0].comm_r_last));
    }
    /* The partition of the one sector: every check passes on real data. */
    cuzk_post_partition part;
    CHECK_OK(cuzk_post_partition_build(fp, zero, 0, &v, 1, &part));
    CHECK(part.n_sectors == 2349 && part.sectors[2348].sector_id == 1);
    /* The circuit in check mode over a one-sector copy of the shape: real
     * values satisfy every constraint; 53,333 constraints a sector, and the
     * published 125,279,217 = 2349 x 53,333. */
    cuzk_fc_proof one = *fp;
    one.sectors = 1;
    cuzk_post_partition p1 = part;
    p1.proof = &one;
    p1.n_sectors = 1;
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_OK(cuzk_post_synthesize(cs, &one, &p1));
    CHECK(cuzk_cs_num_constraints(cs) == 53333);
    CHECK(cuzk_cs_num_inputs(cs) == 12);
    CHECK(2349ull * 53333 == 125279217ull);
    CHECK((size_t)cuzk_cs_num_inputs(cs) - 1 == cuzk_post_public_input_count(&one));
    cuzk_fr pub[11];
    cuzk_post_public_inputs(&p1, pub);
    CHECK(!memcmp(pub, cuzk_cs_inputs(cs) + 1, sizeof pub));
    /* The parallel witness-only path gives the same assignment as the
     * sequential check-mode synthesis, here over 3 sectors (the padding of
     * a short partition repeats the one real sector). */
    CHECK_OK(cuzk_cs_finish(cs));
    cuzk_cs_free(cs);
    cuzk_fc_proof three_s = *fp;
    three_s.sectors = 3;
    cuzk_post_partition p3 = part;
    p3.proof = &three_s;
    p3.n_sectors = 3;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_OK(cuzk_post_synthesize(cs, &three_s, &p3));
    CHECK_OK(cuzk_cs_finish(cs));
    cuzk_fr *w0, *w1;
    size_t n0, n1;
    CHECK_OK(cuzk_cs_assignment(cs, &w0, &n0));
    CHECK_OK(cuzk_post_witness(&p3, &w1, &n1));
    CHECK(n0 == n1 && n0 == 1 + 33 + cuzk_cs_num_aux(cs) && !memcmp(w0, w1, n0 * sizeof *w0));
    free(w0);
    free(w1);
    cuzk_cs_free(cs);
    /* A flipped sibling: the partition names the proof; the circuit, made to
     * run anyway, fails in check mode. */
    cuzk_fr keep = v.sectors[0].inclusion_proofs[4].siblings[3];
    cuzk_fr_from_u64(&v.sectors[0].inclusion_proofs[4].siblings[3], 12345);
    cuzk_post_partition bad;
    CHECK_ERR(cuzk_post_partition_build(fp, zero, 0, &v, 1, &bad), CUZK_EINVAL,
              "vanilla_proofs[0] (sector 1): inclusion proof 4 does not hash to its root");
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_ERR(cuzk_post_synthesize(cs, &one, &p1), CUZK_EINVAL, "is not satisfied");
    cuzk_cs_free(cs);
    /* Built without hashing the paths, the witness (which hashes them)
     * names the same proof. */
    cuzk_fc_proof three_b = *fp;
    three_b.sectors = 3;
    CHECK_OK(cuzk_post_partition_build_unhashed(&three_b, zero, 0, &v, 1, &bad));
    cuzk_fr *wb = NULL;
    size_t nb = 0;
    CHECK_ERR(cuzk_post_witness(&bad, &wb, &nb), CUZK_EINVAL,
              "vanilla_proofs[0] (sector 1): inclusion proof 4 does not hash to its root");
    CHECK(wb == NULL && nb == 0);
    cuzk_post_partition_free(&bad);
    v.sectors[0].inclusion_proofs[4].siblings[3] = keep;
    /* and with every path right, the unhashed build's witness is the one of
     * the full build */
    CHECK_OK(cuzk_post_partition_build_unhashed(&three_b, zero, 0, &v, 1, &bad));
    CHECK_OK(cuzk_post_witness(&bad, &wb, &nb));
    CHECK_OK(cuzk_post_witness(&p3, &w1, &n1));
    CHECK(wb && w1 && nb == n1 && !memcmp(wb, w1, nb * sizeof *wb));
    free(wb);
    free(w1);
    cuzk_post_partition_free(&bad);
    /* Wrong randomness, wrong partition (API 1.0.0 moves the challenges),
     * a comm_r that is not Poseidon(comm_c, comm_r_last), a non-canonical
     * randomness, too many sectors. */
    uint8_t r1[32];
    memset(r1, 1, 32);
    CHECK_ERR(cuzk_post_partition_build(fp, r1, 0, &v, 1, &bad), CUZK_EINVAL,
              "inclusion proof 0 is for leaf 707914199, but challenge 0");
    CHECK_ERR(cuzk_post_partition_build(fp, zero, 1, &v, 1, &bad), CUZK_EINVAL,
              "challenge 23490 with this randomness");
    cuzk_fr keep_r = v.comm_r;
    cuzk_fr_from_u64(&v.comm_r, 7);
    CHECK_ERR(cuzk_post_partition_build(fp, zero, 0, &v, 1, &bad), CUZK_EINVAL,
              "comm_r is not Poseidon(comm_c, comm_r_last)");
    v.comm_r = keep_r;
    uint8_t big[32];
    memset(big, 0xff, 32);
    CHECK_ERR(cuzk_post_partition_build(fp, big, 0, &v, 1, &bad), CUZK_EINVAL,
              "randomness is not a canonical field element");
    cuzk_post_sector_proof three[3] = {v, v, v};
    cuzk_fc_proof two = *fp;
    two.sectors = 2;
    CHECK_ERR(cuzk_post_partition_build(&two, zero, 0, three, 3, &bad), CUZK_EINVAL,
              "3 vanilla proofs; a partition takes 1..2 sectors");
    /* The same sector under the 2 KiB proof type: paths of the wrong shape. */
    CHECK_ERR(cuzk_post_partition_build(cuzk_fc_post(5), zero, 0, &v, 1, &bad), CUZK_EINVAL,
              "inclusion proof 0 has 10 levels (9 base, form 1); this sector size's tree has 2");
    /* A Winning type wants 66 inclusion proofs. */
    CHECK_ERR(cuzk_post_partition_build(cuzk_fc_post(3), zero, 0, &v, 1, &bad), CUZK_EINVAL,
              "10 inclusion proofs; StackedDrgWinning32GiBV1 has 66 per sector");
    cuzk_post_partition_free(&part);
    cuzk_post_sector_proof_free(&v);
}

/* Counts of whole circuits in witness mode, from the blank shape. */
static void expect_counts(uint64_t number, uint64_t constraints, uint32_t inputs)
{
    const cuzk_fc_proof *fp = cuzk_fc_post(number);
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    CHECK_OK(cuzk_post_synthesize(cs, fp, NULL));
    if (cuzk_cs_num_constraints(cs) != constraints || cuzk_cs_num_inputs(cs) != inputs)
        fprintf(stderr, "%s: %llu constraints, %u inputs (want %llu, %u)\n", fp->name,
                (unsigned long long)cuzk_cs_num_constraints(cs), cuzk_cs_num_inputs(cs),
                (unsigned long long)constraints, inputs);
    CHECK(cuzk_cs_num_constraints(cs) == constraints && cuzk_cs_num_inputs(cs) == inputs);
    CHECK((size_t)inputs - 1 == cuzk_post_public_input_count(fp));
    cuzk_cs_free(cs);
}

static void test_counts(void)
{
    /* Winning 32 GiB: 370,590 / 133 (rust-fil-proofs); 66 x (313 + 5,302). */
    expect_counts(3, 370590, 133);
    /* 2 KiB: tree 8-0-0 of 2 levels: a challenge is 2 x 530 + 2; a sector
     * 313 + 10 x 1,062; inputs 23 (Window), 133 (Winning). */
    expect_counts(5, 2 * (313 + 10 * 1062), 23);
    expect_counts(10, 2 * (313 + 10 * 1062), 23);
    expect_counts(0, 66 * (313 + 1062), 133);
    /* 8 MiB: 6 levels. */
    expect_counts(6, 2 * (313 + 10 * (6 * 530 + 2)), 23);
    /* The tiled constraint system (one sector recorded, repeated) is the one
     * recording every sector gives, byte for byte: 2 KiB Window (2 sectors),
     * Winning (66) and a 3-sector 32 GiB shape. */
    const cuzk_fc_proof *tiled[3] = {cuzk_fc_post(5), cuzk_fc_post(0), cuzk_fc_post(8)};
    for (int i = 0; i < 3; i++) {
        cuzk_fc_proof fp = *tiled[i];
        if (fp.sectors > 66)
            fp.sectors = 3;
        cuzk_pce *a = NULL, *b = NULL;
        cuzk_cs *rcs;
        cuzk_r1cs *r1cs = NULL;
        CHECK_OK(cuzk_cs_new(&rcs, CUZK_CS_RECORD));
        CHECK_OK(cuzk_post_synthesize(rcs, &fp, NULL));
        CHECK_OK(cuzk_cs_finish(rcs));
        CHECK_OK(cuzk_cs_take_r1cs(rcs, &r1cs));
        cuzk_cs_free(rcs);
        CHECK_OK(cuzk_pce_from_r1cs(&a, r1cs));
        cuzk_r1cs_free(r1cs);
        CHECK_OK(cuzk_post_record_pce(&fp, NULL, NULL, &b));
        CHECK(a && b && a->image_size_ == b->image_size_ && a->checksum == b->checksum &&
              !memcmp(a->image_, b->image_, a->image_size_));
        CHECK(b->a_input_count == a->a_input_count && b->b_aux_count == a->b_aux_count);
        /* A template whose rows do not end with its input constraints. */
        cuzk_pce cut = *a, *none = NULL;
        cut.n_constraints -= 1;
        CHECK_ERR(cuzk_pce_tile(&cut, 2, &none), CUZK_EINVAL, "is not the input constraint");
        CHECK_ERR(cuzk_pce_tile(a, 0, &none), CUZK_EINVAL, "0 copies");
        CHECK(none == NULL);
        cuzk_pce_free(a);
        cuzk_pce_free(b);
    }
    /* Record mode makes the same circuit as witness mode. */
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
    CHECK_OK(cuzk_post_synthesize(cs, cuzk_fc_post(5), NULL));
    CHECK(cuzk_cs_num_constraints(cs) == 21866 && cuzk_cs_num_inputs(cs) == 23);
    cuzk_cs_free(cs);
}

/* The 2 KiB WindowPoSt public inputs of one sector, from the registry entry
 * and our derivation: comm_r, 10 challenges, the partition padded. */
static void polka_inputs(uint64_t sector, uint8_t rbyte, cuzk_fr out[22])
{
    const cuzk_fc_proof *fp = cuzk_fc_post(10); /* Window 2 KiB V1_1 = API 1.2.0 */
    CHECK(fp && fp->api == CUZK_API_1_2_0 && fp->sectors == 2 && fp->challenges == 10);
    static const uint8_t comm_r[32] = {0x4a, 0xfb, 0x35, 0xf8, 0x2a, 0x95, 0xa1, 0x01,
                                       0x87, 0xa9, 0x13, 0xbc, 0x14, 0x52, 0x0d, 0x9a,
                                       0x1d, 0x17, 0x33, 0x28, 0x26, 0x5b, 0x30, 0x1b,
                                       0x5d, 0xcf, 0x44, 0x0e, 0xf2, 0x58, 0x39, 0x50};
    uint8_t r[32];
    memset(r, rbyte, 32);
    /* A partition of one real sector; its leaves are what a prover's
     * inclusion proofs would have to be for. */
    cuzk_post_sector s[2];
    uint64_t leaves[10];
    memset(s, 0, sizeof s);
    CHECK_OK(cuzk_fr_from_bytes_le(&s[0].comm_r, comm_r));
    for (unsigned n = 0; n < 10; n++)
        leaves[n] = cuzk_post_leaf_challenge(
            r, sector, cuzk_post_challenge_index(fp->api, 0, fp->challenges, n), fp->sector_size);
    s[0].leaves = leaves;
    s[1] = s[0];
    cuzk_post_partition p = {.proof = fp, .sectors = s, .n_sectors = 2};
    cuzk_post_public_inputs(&p, out);
}

static void test_polka(void)
{
    cuzk_vk vk;
    load_polka_vk(FIXTURES "polka-window-2k.vk", 23, &vk);
    cuzk_proof proof;
    load_polka_proof(FIXTURES "polka-window-2k.proof", &proof);
    cuzk_fr in[22];
    polka_inputs(77, 1, in);
    CHECK_OK(cuzk_groth16_verify(&vk, in, 22, &proof));
    polka_inputs(77, 2, in);
    CHECK_ERR(cuzk_groth16_verify(&vk, in, 22, &proof), CUZK_EVERIFY, "");
    polka_inputs(78, 1, in);
    CHECK_ERR(cuzk_groth16_verify(&vk, in, 22, &proof), CUZK_EVERIFY, "");
    cuzk_vk_free(&vk);
}

int main(void)
{
    test_challenges();
    test_golden();
    test_counts();
    test_polka();
    return check_done("test_circuits_post");
}
