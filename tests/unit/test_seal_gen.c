/* Synthetic PoSt sectors (gen.h), against independent checks:
 *   - the sparse root and paths against cuzk_merkle_build over the whole
 *     tree (every leaf written out) for Single, Sub and Top shapes;
 *   - every generated partition against cuzk_post_partition_build, which
 *     re-derives each challenge, re-hashes each path and comm_r: 2 KiB,
 *     8 MiB and 32 GiB, Window and Winning, API 1.0.0 and 1.2.0, partitions
 *     0 and 1, and the small circuits in check mode with the counts of
 *     test_circuits_post.c;
 *   - the parallel PoSt witness of 11 distinct generated sectors against
 *     the sequential check-mode assignment, on 1 and 2 threads;
 *   - the prover id against filecoin-ffi's example (1000 -> e8 07) and
 *     LEB128's definition. */
#include "check.h"
#include "cuzk/gen.h"
#include "cuzk/cs.h"
#include "cuzk/post.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sparse tree of (idx, vals) over shape s, against the whole tree. */
static void sparse_vs_full(const cuzk_merkle_shape *s, const uint64_t *idx, size_t n)
{
    uint64_t count = cuzk_merkle_leaf_count(s);
    size_t ns = cuzk_merkle_sibling_count(s);
    cuzk_fr *leaves = malloc(count * sizeof *leaves), *vals = malloc((n + 1) * sizeof *vals);
    cuzk_fr *sib = malloc((n + 1) * ns * sizeof *sib), *want = malloc(ns * sizeof *want);
    cuzk_fr fill, root, full_root;
    cuzk_fr_from_u64(&fill, 4242);
    for (uint64_t i = 0; i < count; i++)
        leaves[i] = fill;
    for (size_t k = 0; k < n; k++) {
        cuzk_fr_from_u64(&vals[k], 1000 + idx[k]); /* a repeated index: the same value */
        leaves[idx[k]] = vals[k];
    }
    CHECK_OK(cuzk_gen_sparse_root(s, &fill, idx, vals, n, &root, sib));
    for (size_t k = 0; k < n; k++) {
        CHECK_OK(cuzk_merkle_build(s, leaves, idx[k], &full_root, want));
        CHECK(cuzk_fr_eq(&root, &full_root));
        CHECK(!memcmp(sib + k * ns, want, ns * sizeof *want));
    }
    if (!n) {
        CHECK_OK(cuzk_merkle_build(s, leaves, 0, &full_root, NULL));
        CHECK(cuzk_fr_eq(&root, &full_root));
    }
    free(leaves);
    free(vals);
    free(sib);
    free(want);
}

static void test_sparse(void)
{
    cuzk_merkle_shape single = {8, 2, 0, 0, CUZK_MERKLE_POSEIDON}; /* 2 KiB */
    uint64_t a[] = {5, 63, 0, 5, 8, 9};
    sparse_vs_full(&single, a, 6);
    sparse_vs_full(&single, a, 0);
    /* Deeper trees, kept small: each path is a whole-tree build. */
    cuzk_merkle_shape deep = {8, 4, 0, 0, CUZK_MERKLE_POSEIDON};
    uint64_t b[] = {4095, 1, 2777, 2778, 2000};
    sparse_vs_full(&deep, b, 5);
    cuzk_merkle_shape sub = {8, 3, 8, 0, CUZK_MERKLE_POSEIDON}; /* 32 GiB's form */
    uint64_t c[] = {0, 4095, 512, 100, 3000};
    sparse_vs_full(&sub, c, 5);
    cuzk_merkle_shape top = {8, 1, 4, 2, CUZK_MERKLE_POSEIDON}; /* 64 GiB's form */
    uint64_t d[] = {63, 31, 32, 7};
    sparse_vs_full(&top, d, 4);
    /* Bad inputs. */
    cuzk_fr v[2], r;
    cuzk_fr_from_u64(&v[0], 1);
    cuzk_fr_from_u64(&v[1], 2);
    uint64_t beyond[] = {64}, twice[] = {3, 3};
    CHECK_ERR(cuzk_gen_sparse_root(&single, &v[0], beyond, v, 1, &r, NULL), CUZK_EINVAL,
              "leaf 0: index 64 beyond the tree's 64 leaves");
    CHECK_ERR(cuzk_gen_sparse_root(&single, &v[0], twice, v, 2, &r, NULL), CUZK_EINVAL,
              "leaf 3 is given two different values");
    cuzk_merkle_shape sha = {2, 3, 0, 0, CUZK_MERKLE_SHA256};
    CHECK_ERR(cuzk_gen_sparse_root(&sha, &v[0], twice, v, 1, &r, NULL), CUZK_EINVAL,
              "Poseidon trees only");
    cuzk_merkle_shape odd = {3, 3, 0, 0, CUZK_MERKLE_POSEIDON};
    CHECK_ERR(cuzk_gen_sparse_root(&odd, &v[0], twice, v, 1, &r, NULL), CUZK_EINVAL, "");
}

static void test_prover_id(void)
{
    uint8_t id[32], want[32] = {0xe8, 0x07};
    cuzk_gen_prover_id(1000, id);
    CHECK(!memcmp(id, want, 32));
    cuzk_gen_prover_id(0, id);
    memset(want, 0, 32);
    CHECK(!memcmp(id, want, 32));
    cuzk_gen_prover_id(128, id);
    want[0] = 0x80, want[1] = 0x01;
    CHECK(!memcmp(id, want, 32));
    cuzk_gen_prover_id(UINT64_MAX, id); /* 64 bits: nine 7-bit groups and a 1 */
    memset(want, 0xff, 9);
    want[9] = 0x01;
    CHECK(!memcmp(id, want, 32));
}

/* A partition of n generated sectors must build; its encoding must decode
 * to the same bytes. Returns the partition (caller frees both). */
static void gen_and_build(uint64_t number, uint32_t partition, size_t n, const uint8_t r[32],
                          cuzk_post_sector_proof *v, cuzk_post_partition *part)
{
    const cuzk_fc_proof *fp = cuzk_fc_post(number);
    CHECK_OK(cuzk_gen_post_partition(fp, r, 7, partition, 100, n, v));
    cuzk_err e = cuzk_post_partition_build(fp, r, partition, v, n, part);
    if (e)
        fprintf(stderr, "%s partition %u, %zu sectors: %s\n", fp->name, partition, n,
                cuzk_errmsg());
    CHECK(e == CUZK_OK);
    for (size_t i = 0; i < n; i++) {
        uint8_t *b, *b2;
        size_t nb, nb2;
        cuzk_post_sector_proof d;
        CHECK(v[i].sector_id == 100 + i);
        CHECK_OK(cuzk_post_sector_proof_encode(&v[i], &b, &nb));
        CHECK_OK(cuzk_post_sector_proof_decode(b, nb, "generated", &d));
        CHECK_OK(cuzk_post_sector_proof_encode(&d, &b2, &nb2));
        CHECK(nb == nb2 && !memcmp(b, b2, nb));
        cuzk_post_sector_proof_free(&d);
        free(b);
        free(b2);
    }
}

static void free_all(cuzk_post_sector_proof *v, size_t n, cuzk_post_partition *part)
{
    cuzk_post_partition_free(part);
    for (size_t i = 0; i < n; i++)
        cuzk_post_sector_proof_free(&v[i]);
}

/* The circuit of a built partition in check mode: satisfied, with count
 * constraints (before the input constraints). */
static void check_circuit(const cuzk_post_partition *part, uint64_t count)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_OK(cuzk_post_synthesize(cs, part->proof, part));
    CHECK(cuzk_cs_num_constraints(cs) == count);
    cuzk_cs_free(cs);
}

static void test_partitions(void)
{
    uint8_t r[32];
    for (int i = 0; i < 32; i++)
        r[i] = (uint8_t)(3 * i + 1);
    r[31] &= 0x3f;
    cuzk_post_sector_proof v[3];
    cuzk_post_partition part;
    /* Window: 2 KiB, 8 MiB, 32 GiB under API 1.0.0 (5, 6, 8) and 1.2.0
     * (10, 11, 13), partitions 0 and 1, full and short (padded). */
    static const uint64_t window[] = {5, 6, 8, 10, 11, 13};
    for (size_t w = 0; w < sizeof window / sizeof *window; w++)
        for (uint32_t k = 0; k < 2; k++)
            for (size_t n = 1; n <= 2; n++) {
                gen_and_build(window[w], k, n, r, v, &part);
                if (window[w] == 5 || window[w] == 10)
                    check_circuit(&part, 21866);
                free_all(v, n, &part);
            }
    /* A 32 GiB partition takes more than 2; 3 sectors at partition 1. */
    gen_and_build(8, 1, 3, r, v, &part);
    CHECK(part.n_sectors == 2349 && part.sectors[2348].sector_id == 102);
    free_all(v, 3, &part);
    /* Winning: 66 challenges of the one sector (2 KiB has 64 leaves: some
     * repeat). */
    static const uint64_t winning[] = {0, 1, 3};
    for (size_t w = 0; w < 3; w++) {
        gen_and_build(winning[w], 0, 1, r, v, &part);
        CHECK(v[0].sectors[0].n_inclusion_proofs == 66);
        if (winning[w] == 0)
            check_circuit(&part, 66 * (313 + 1062));
        free_all(v, 1, &part);
    }
}

/* The parallel witness of distinct sectors (generated, so that a sector or
 * input written at another sector's place would show) equals the
 * sequential check-mode assignment, on 1 and 2 threads: chunks of one and
 * of several sectors. */
static void test_witness_placement(void)
{
    uint8_t r[32] = {0};
    r[0] = 9;
    enum { NS = 11 };
    cuzk_fc_proof fp = *cuzk_fc_post(13);
    fp.sectors = NS;
    cuzk_post_sector_proof v[NS];
    cuzk_post_partition part;
    CHECK_OK(cuzk_gen_post_partition(&fp, r, 5, 0, 40, NS, v));
    CHECK_OK(cuzk_post_partition_build(&fp, r, 0, v, NS, &part));
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_OK(cuzk_post_synthesize(cs, &fp, &part));
    CHECK_OK(cuzk_cs_finish(cs));
    cuzk_fr *w0 = NULL;
    size_t n0 = 0;
    CHECK_OK(cuzk_cs_assignment(cs, &w0, &n0));
    CHECK(n0 == 1 + NS * 11 + cuzk_cs_num_aux(cs));
    for (unsigned t = 1; t <= 2; t++) {
        cuzk_threads_set(t);
        cuzk_fr *w1 = NULL;
        size_t n1 = 0;
        CHECK_OK(cuzk_post_witness(&part, &w1, &n1));
        CHECK(w0 && w1 && n1 == n0 && !memcmp(w0, w1, n0 * sizeof *w0));
        free(w1);
    }
    free(w0);
    cuzk_cs_free(cs);
    free_all(v, NS, &part);
}

/* A WinningPoSt path that misses its root: the full build names it, and so
 * does the witness after a build that does not hash the paths (circuit
 * sector i is the sector's challenge i there). */
static void test_winning_miss(void)
{
    uint8_t r[32] = {0};
    r[0] = 3;
    const cuzk_fc_proof *fp = cuzk_fc_post(0);
    cuzk_post_sector_proof v[1];
    cuzk_post_partition part;
    CHECK_OK(cuzk_gen_post_partition(fp, r, 2, 0, 77, 1, v));
    cuzk_fr_from_u64(&v[0].sectors[0].inclusion_proofs[5].siblings[0], 4242);
    const char *want = "vanilla_proofs[0] (sector 77): inclusion proof 5 does not hash to its root";
    CHECK_ERR(cuzk_post_partition_build(fp, r, 0, v, 1, &part), CUZK_EINVAL, want);
    CHECK_OK(cuzk_post_partition_build_unhashed(fp, r, 0, v, 1, &part));
    cuzk_fr *w = NULL;
    size_t n = 0;
    CHECK_ERR(cuzk_post_witness(&part, &w, &n), CUZK_EINVAL, want);
    free_all(v, 1, &part);
}

static void test_challenge_positions(void)
{
    uint8_t r[32] = {9, 8, 7};
    const cuzk_fc_proof *v1 = cuzk_fc_post(6), *v12 = cuzk_fc_post(11);
    cuzk_post_sector_proof v[2];
    cuzk_post_partition part;
    /* API 1.0.0: partition 1's sectors are challenged elsewhere than
     * partition 0's; under 1.2.0 the position does not matter. */
    CHECK_OK(cuzk_gen_post_partition(v1, r, 1, 1, 5, 2, v));
    CHECK_ERR(cuzk_post_partition_build(v1, r, 0, v, 2, &part), CUZK_EINVAL,
              "vanilla_proofs[0] (sector 5): inclusion proof 0 is for leaf");
    free_all(v, 2, &part);
    CHECK_OK(cuzk_gen_post_partition(v12, r, 1, 1, 5, 2, v));
    CHECK_OK(cuzk_post_partition_build(v12, r, 0, v, 2, &part));
    free_all(v, 2, &part);
    /* The same arguments give the same bytes; another seed another sector
     * (leaves, comm_c, comm_r), at the same challenges. */
    cuzk_post_sector_proof a, b, c;
    CHECK_OK(cuzk_gen_post_sector(v12, r, 1, 5, 0, &a));
    CHECK_OK(cuzk_gen_post_sector(v12, r, 1, 5, 0, &b));
    CHECK_OK(cuzk_gen_post_sector(v12, r, 2, 5, 0, &c));
    uint8_t *ea, *eb, *ec;
    size_t na, nb, nc;
    CHECK_OK(cuzk_post_sector_proof_encode(&a, &ea, &na));
    CHECK_OK(cuzk_post_sector_proof_encode(&b, &eb, &nb));
    CHECK_OK(cuzk_post_sector_proof_encode(&c, &ec, &nc));
    CHECK(na == nb && !memcmp(ea, eb, na) && na == nc);
    CHECK(!cuzk_fr_eq(&a.comm_r, &c.comm_r) &&
          !cuzk_fr_eq(&a.sectors[0].comm_c, &c.sectors[0].comm_c));
    for (size_t k = 0; k < 10; k++) {
        const cuzk_vanilla_merkle *ma = &a.sectors[0].inclusion_proofs[k];
        const cuzk_vanilla_merkle *mc = &c.sectors[0].inclusion_proofs[k];
        CHECK(cuzk_vanilla_merkle_leaf_index(ma) == cuzk_vanilla_merkle_leaf_index(mc));
        CHECK(!cuzk_fr_eq(&ma->leaf, &mc->leaf));
    }
    free(ea);
    free(eb);
    free(ec);
    cuzk_post_sector_proof_free(&a);
    cuzk_post_sector_proof_free(&b);
    cuzk_post_sector_proof_free(&c);
}

/* Sizes a whole tree could never be built for (a 32 GiB sector has 2^30
 * leaves): generated sparse. Times are printed, not asserted. */
static void test_large(void)
{
    uint8_t r[32] = {1};
    const cuzk_fc_proof *fp = cuzk_fc_post(13); /* 32 GiB Window, 2^30 leaves */
    cuzk_post_sector_proof v;
    CHECK_OK(cuzk_gen_post_sector(fp, r, 1, 1, 0, &v)); /* Poseidon constants built */
    cuzk_post_sector_proof_free(&v);
    double t = cuzk_now();
    CHECK_OK(cuzk_gen_post_sector(fp, r, 1, 2, 0, &v));
    t = cuzk_now() - t;
    printf("32 GiB WindowPoSt sector generated in %.6f s\n", t);
    cuzk_post_sector_proof_free(&v);
    fp = cuzk_fc_post(4); /* 64 GiB Winning: the Top form, 66 paths */
    t = cuzk_now();
    CHECK_OK(cuzk_gen_post_sector(fp, r, 1, 2, 0, &v));
    t = cuzk_now() - t;
    printf("64 GiB WinningPoSt sector generated in %.6f s\n", t);
    CHECK(v.sectors[0].inclusion_proofs[0].form == CUZK_MERKLE_TOP);
    cuzk_post_partition part;
    CHECK_OK(cuzk_post_partition_build(fp, r, 0, &v, 1, &part));
    free_all(&v, 1, &part);
}

static void test_bad_inputs(void)
{
    uint8_t r[32] = {0}, big[32];
    memset(big, 0xff, 32);
    cuzk_post_sector_proof v[3];
    const cuzk_fc_proof *win2k = cuzk_fc_post(10), *winning = cuzk_fc_post(3);
    CHECK_ERR(cuzk_gen_post_sector(cuzk_fc_find(CUZK_FC_SEAL, 3), r, 1, 1, 0, v), CUZK_EINVAL,
              "StackedDrg32GiBV1 is not a PoSt proof");
    CHECK_ERR(cuzk_gen_post_sector(win2k, big, 1, 1, 0, v), CUZK_EINVAL,
              "randomness is not a canonical field element (byte 31 is 0xff");
    CHECK_ERR(cuzk_gen_post_partition(win2k, big, 1, 0, 1, 1, v), CUZK_EINVAL,
              "randomness is not a canonical");
    CHECK_ERR(cuzk_gen_post_partition(win2k, r, 1, 0, 1, 0, v), CUZK_EINVAL,
              "StackedDrgWindow2KiBV1_1: 0 sectors; a partition holds 1..2");
    CHECK_ERR(cuzk_gen_post_partition(win2k, r, 1, 0, 1, 3, v), CUZK_EINVAL,
              "3 sectors; a partition holds 1..2");
    CHECK_ERR(cuzk_gen_post_partition(winning, r, 1, 0, 1, 2, v), CUZK_EINVAL,
              "2 sectors; a partition holds 1..1");
    CHECK_ERR(cuzk_gen_post_partition(winning, r, 1, 1, 1, 1, v), CUZK_EINVAL,
              "WinningPoSt has one partition (index 0), not 1");
    CHECK_ERR(cuzk_gen_post_partition(win2k, r, 1, 0, UINT64_MAX, 2, v), CUZK_EINVAL,
              "overflow 64 bits");
}

int main(void)
{
    test_sparse();
    test_prover_id();
    test_partitions();
    test_witness_placement();
    test_winning_miss();
    test_challenge_positions();
    test_large();
    test_bad_inputs();
    return check_done("test_seal_gen");
}
