/* The PoRep (StackedDrg) circuit, each count against an oracle named where
 * it is checked:
 *   - the label gadget: rust-fil-proofs create_label.rs test_create_label
 *     (532,025 constraints with 9,728 allocated input bits and a constant
 *     node), its value against the native label (SHA-256 of the documented
 *     preimage with libcuzk's FIPS-tested SHA-256, top two bits cleared);
 *   - the comm_d tree node: storage-proofs-core util.rs
 *     hash_leaf_bits_circuit (45,387 constraints for 2 x 256 allocated
 *     bits);
 *   - whole circuits: storage-proofs-porep tests/stacked_circuit.rs (2
 *     layers, 1 challenge, nodes = 8 x base trees: 22 inputs; constraints
 *     1,206,212 / 1,199,620 / 1,296,576 / 1,346,982 for trees 2-0-0,
 *     8-0-0, 8-4-0, 8-4-2);
 *   - cuzk_porep_counts against full recordings of small shapes (the
 *     formula's oracle);
 *   - the 32 GiB partition's R1CS as measured from bellperson (curio
 *     extern/cuzk/cuzk-project.md "PCE Extraction"): 328 inputs, 130,169,893
 *     aux, 130,278,869 constraints (130,278,541 + 328 input constraints),
 *     non-zeros A 309,405,051 / B 130,327,340 / C 282,656,500, A aux density
 *     129,753,292, B input density 1, B aux density 33,112,281. */
#include "check.h"
#include "cuzk/filecoin.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/sha256.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_label(void)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 7);
    uint8_t pre[(2 + 37) * 32];
    memset(pre, 0, sizeof pre);
    for (size_t i = 0; i < sizeof pre; i++)
        if (i < 32 || i >= 64)
            pre[i] = (uint8_t)cuzk_rng_u64(&g);
    /* layer 3, node 22 (as the reference test), big-endian */
    uint32_t layer = 3;
    uint64_t node = 22;
    for (int i = 0; i < 4; i++)
        pre[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        pre[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    /* circuit bits are big-endian within each byte */
    cuzk_bool id[256], *parents = malloc(37 * 256 * sizeof *parents), nb[64];
    for (int i = 0; i < 256; i++)
        CHECK_OK(cuzk_bit_alloc(cs, (pre[i / 8] >> (7 - i % 8)) & 1, &id[i]));
    for (int i = 0; i < 37 * 256; i++)
        CHECK_OK(cuzk_bit_alloc(cs, (pre[64 + i / 8] >> (7 - i % 8)) & 1, &parents[i]));
    for (int i = 0; i < 64; i++)
        nb[i] = cuzk_bool_const((int)((node >> i) & 1));
    cuzk_num label;
    CHECK_OK(cuzk_porep_label_gadget(cs, id, parents, layer, nb, &label));
    CHECK(cuzk_cs_num_constraints(cs) == 532025);
    uint8_t d[32];
    cuzk_sha256(pre, sizeof pre, d);
    d[31] &= 0x3f;
    cuzk_fr want;
    CHECK_OK(cuzk_fr_from_bytes_le(&want, d));
    CHECK(cuzk_fr_eq(&want, &label.val));
    CHECK_OK(cuzk_cs_finish(cs));
    cuzk_cs_free(cs);
    free(parents);
}

static void test_tree_d_node(void)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
    cuzk_bool bits[512], out[256], rev[256];
    for (int i = 0; i < 512; i++)
        CHECK_OK(cuzk_bit_alloc(cs, i % 3 == 0, &bits[i]));
    CHECK_OK(cuzk_sha256_gadget(cs, bits, 512, out));
    for (int i = 0; i < 256; i++)
        rev[i] = out[i / 8 * 8 + 7 - i % 8];
    cuzk_num n;
    CHECK_OK(cuzk_pack_bits(cs, rev, 254, &n));
    CHECK(cuzk_cs_num_constraints(cs) == 45387);
    cuzk_cs_free(cs);
}

/* stacked_circuit.rs: 2 layers, 1 challenge, 8 nodes per base tree. */
static void test_reference_shapes(void)
{
    static const struct {
        unsigned base, levels, sub, top;
        uint64_t nodes, constraints;
    } cases[] = {
        {2, 3, 0, 0, 8, 1206212},
        {8, 1, 0, 0, 8, 1199620},
        {8, 1, 4, 0, 32, 1296576},
        {8, 1, 4, 2, 64, 1346982},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cuzk_porep_shape s = {
            cases[i].nodes,
            2,
            1,
            {cases[i].base, cases[i].levels, cases[i].sub, cases[i].top, CUZK_MERKLE_POSEIDON}};
        cuzk_cs *cs;
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
        CHECK_OK(cuzk_porep_synthesize(cs, &s, NULL));
        if (cuzk_cs_num_constraints(cs) != cases[i].constraints || cuzk_cs_num_inputs(cs) != 22)
            fprintf(stderr, "shape %zu: %llu constraints, %u inputs\n", i,
                    (unsigned long long)cuzk_cs_num_constraints(cs), cuzk_cs_num_inputs(cs));
        CHECK(cuzk_cs_num_constraints(cs) == cases[i].constraints);
        CHECK(cuzk_cs_num_inputs(cs) == 22);
        cuzk_cs_free(cs);
    }
}

static void check_counts_eq(const cuzk_r1cs_counts *a, const cuzk_r1cs_counts *b)
{
    CHECK(a->inputs == b->inputs && a->aux == b->aux && a->constraints == b->constraints);
    CHECK(a->nnz_a == b->nnz_a && a->nnz_b == b->nnz_b && a->nnz_c == b->nnz_c);
    CHECK(a->a_input_density == b->a_input_density && a->a_aux_density == b->a_aux_density);
    CHECK(a->b_input_density == b->b_input_density && a->b_aux_density == b->b_aux_density);
}

/* The formula against recording every challenge: 2 KiB as registered (2
 * challenges) and with 3. */
static void test_counts_formula(void)
{
    cuzk_porep_shape s;
    CHECK_OK(cuzk_porep_shape_of(cuzk_fc_find(CUZK_FC_SEAL, 5), &s));
    CHECK(s.nodes == 64 && s.layers == 2 && s.challenges == 2 && s.tree.base_levels == 2);
    for (unsigned n = 2; n <= 3; n++) {
        s.challenges = n;
        cuzk_r1cs_counts f, r;
        CHECK_OK(cuzk_porep_counts(&s, &f));
        cuzk_cs *cs;
        cuzk_r1cs *r1 = NULL;
        cuzk_pce *p = NULL;
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
        CHECK_OK(cuzk_porep_synthesize(cs, &s, NULL));
        CHECK_OK(cuzk_cs_finish(cs));
        CHECK_OK(cuzk_cs_take_r1cs(cs, &r1));
        CHECK_OK(cuzk_pce_from_r1cs(&p, r1));
        cuzk_pce_counts(p, &r);
        check_counts_eq(&f, &r);
        CHECK(r.inputs == 4 + 18 * n);
        printf("2 KiB, %u challenges: constraints %llu (incl. %u input), aux %llu\n", n,
               (unsigned long long)r.constraints, r.inputs, (unsigned long long)r.aux);
        cuzk_pce_free(p);
        cuzk_r1cs_free(r1);
        cuzk_cs_free(cs);
    }
}

/* The 32 GiB partition against the R1CS measured from bellperson (its
 * ProvingAssignment over the blank circuit): inputs, aux, constraints with
 * the input constraints, non-zeros and densities. */
static void test_fingerprint_32g(void)
{
    cuzk_porep_shape s;
    CHECK_OK(cuzk_porep_shape_of(cuzk_fc_find(CUZK_FC_SEAL, 8), &s));
    CHECK(s.nodes == 1ull << 30 && s.layers == 11 && s.challenges == 18);
    cuzk_r1cs_counts c;
    CHECK_OK(cuzk_porep_counts(&s, &c));
    printf("32 GiB: inputs %u aux %llu constraints %llu nnz %llu/%llu/%llu "
           "A density %llu+%llu B density %llu+%llu\n",
           c.inputs, (unsigned long long)c.aux, (unsigned long long)c.constraints,
           (unsigned long long)c.nnz_a, (unsigned long long)c.nnz_b, (unsigned long long)c.nnz_c,
           (unsigned long long)c.a_input_density, (unsigned long long)c.a_aux_density,
           (unsigned long long)c.b_input_density, (unsigned long long)c.b_aux_density);
    /* A input density is not in the measurement: every input has its input
     * constraint in A, so it is the input count. */
    cuzk_r1cs_counts want = {328,       130169893, 130278869, 309405051, 130327340,
                             282656500, 328,       129753292, 1,         33112281};
    CHECK(c.constraints - c.inputs == 130278541);
    check_counts_eq(&c, &want);
}

int main(void)
{
    test_label();
    test_tree_d_node();
    test_reference_shapes();
    test_counts_formula();
    test_fingerprint_32g();
    return check_done("test_circuits_porep");
}
