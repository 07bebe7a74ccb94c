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
 *   - cuzk_porep_counts and cuzk_porep_record_pce (tiled) against full
 *     recordings of small shapes (the oracle of the formula and the tiling:
 *     the same counts, the same PCE image byte for byte);
 *   - a 2 KiB sector built natively from the documented definitions
 *     (test_satisfied_2k): the circuit is satisfied in check mode, its
 *     public inputs are porep.h's cuzk_porep_public_inputs, a wrong data
 *     leaf fails;
 *   - the 32 GiB partition's R1CS as measured from bellperson (curio
 *     extern/cuzk/cuzk-project.md "PCE Extraction"): 328 inputs, 130,169,893
 *     aux, 130,278,869 constraints (130,278,541 + 328 input constraints),
 *     non-zeros A 309,405,051 / B 130,327,340 / C 282,656,500, A aux density
 *     129,753,292, B input density 1, B aux density 33,112,281. */
#include "check.h"
#include "cuzk/filecoin.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/poseidon.h"
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
        /* the tiled PCE is the recorded one, byte for byte */
        cuzk_pce *tiled = NULL;
        CHECK_OK(cuzk_porep_record_pce(&s, &tiled));
        CHECK(tiled && tiled->image_size_ == p->image_size_ &&
              !memcmp(tiled->image_, p->image_, p->image_size_));
        cuzk_pce_free(tiled);
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

/* A whole 2 KiB sector (64 nodes, 2 layers) built natively from the
 * documented definitions: labels SHA-256(replica_id LE || layer u32 BE ||
 * node u64 BE || zeros to 64 bytes || 37 parent labels LE) with the top two
 * bits cleared, the parents of the graph (porep.h), layer l's DRG parents
 * in layer l and expander parents in layer l-1; comm_c over Poseidon-2 of
 * each node's column; comm_r_last over label_2 + data; comm_d the SHA-256
 * tree over the data; comm_r = Poseidon-2(comm_c, comm_r_last). The
 * circuit over a partition of it must be satisfied, its public inputs must
 * be porep.h's for the same public values, and a wrong data leaf must not
 * satisfy it. */
enum { N2K = 64, L2K = 2 };

static void native_label(const uint8_t rid[32], uint32_t layer, uint64_t node,
                         const cuzk_fr *const parents[37], cuzk_fr *out)
{
    uint8_t pre[(2 + 37) * 32] = {0}, d[32];
    memcpy(pre, rid, 32);
    for (int i = 0; i < 4; i++)
        pre[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        pre[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    for (int k = 0; k < 37; k++)
        cuzk_fr_to_bytes_le(pre + 64 + 32 * k, parents[k]);
    cuzk_sha256(pre, sizeof pre, d);
    d[31] &= 0x3f;
    CHECK_OK(cuzk_fr_from_bytes_le(out, d));
}

static void test_satisfied_2k(void)
{
    const cuzk_fc_proof *fp = cuzk_fc_find(CUZK_FC_SEAL, 5);
    cuzk_porep_shape s;
    cuzk_porep_config cfg;
    CHECK_OK(cuzk_porep_shape_of(fp, &s));
    CHECK_OK(cuzk_porep_config_of(fp, &cfg));
    cuzk_porep_public pub;
    memset(&pub, 0, sizeof pub);
    pub.sector_id = 4242;
    for (int i = 0; i < 32; i++)
        pub.prover_id[i] = (uint8_t)i, pub.ticket[i] = (uint8_t)(3 * i),
        pub.seed[i] = (uint8_t)(7 * i + 1);
    cuzk_rng g;
    cuzk_rng_seed(&g, 11);
    cuzk_fr data[N2K], labels[L2K][N2K], hashes[N2K], encoded[N2K];
    for (int i = 0; i < N2K; i++)
        cuzk_fr_rng(&data[i], &g);
    cuzk_merkle_shape td = {2, 6, 0, 0, CUZK_MERKLE_SHA256};
    cuzk_porep_values pv;
    memset(&pv, 0, sizeof pv);
    CHECK_OK(cuzk_merkle_build(&td, data, 0, &pv.comm_d, NULL));
    cuzk_fr_to_bytes_le(pub.comm_d, &pv.comm_d);
    uint8_t rid[32];
    cuzk_porep_replica_id(pub.prover_id, pub.sector_id, pub.ticket, pub.comm_d, cfg.porep_id, rid);
    CHECK_OK(cuzk_fr_from_bytes_le(&pv.replica_id, rid));
    cuzk_porep_graph gr;
    CHECK_OK(cuzk_porep_graph_init(&gr, N2K, cfg.porep_id, cfg.api));
    static uint32_t par[N2K][CUZK_POREP_DEGREE];
    for (uint32_t v2 = 0; v2 < N2K; v2++)
        CHECK_OK(cuzk_porep_parents(&gr, v2, par[v2]));
    /* Node 0 is never challenged; its labels only need to exist. */
    for (unsigned l = 1; l <= L2K; l++) {
        cuzk_fr_from_u64(&labels[l - 1][0], l);
        for (uint32_t v2 = 1; v2 < N2K; v2++) {
            const cuzk_fr *ps[14], *exp37[37];
            unsigned np = 0;
            for (int j = 0; j < CUZK_POREP_DRG_DEGREE; j++) {
                CHECK(par[v2][j] < v2);
                ps[np++] = &labels[l - 1][par[v2][j]];
            }
            if (l > 1)
                for (int j = CUZK_POREP_DRG_DEGREE; j < CUZK_POREP_DEGREE; j++)
                    ps[np++] = &labels[l - 2][par[v2][j]];
            for (unsigned k = 0; k < 37; k++)
                exp37[k] = ps[k % np];
            native_label(rid, l, v2, exp37, &labels[l - 1][v2]);
        }
    }
    const cuzk_poseidon *p2;
    CHECK_OK(cuzk_poseidon_merkle(2, &p2));
    for (int i = 0; i < N2K; i++) {
        cuzk_fr col[2] = {labels[0][i], labels[1][i]};
        CHECK_OK(cuzk_poseidon_hash(p2, col, 2, &hashes[i]));
        blst_fr_add(&encoded[i], &labels[1][i], &data[i]);
    }
    CHECK_OK(cuzk_merkle_build(&s.tree, hashes, 0, &pv.comm_c, NULL));
    CHECK_OK(cuzk_merkle_build(&s.tree, encoded, 0, &pv.comm_r_last, NULL));
    cuzk_fr cc[2] = {pv.comm_c, pv.comm_r_last};
    CHECK_OK(cuzk_poseidon_hash(p2, cc, 2, &pv.comm_r));
    cuzk_fr_to_bytes_le(pub.comm_r, &pv.comm_r);

    size_t ns = cuzk_merkle_sibling_count(&s.tree);
    static cuzk_fr dsib[2][6], csib[2][CUZK_POREP_DEGREE][16], rsib[2][16], xsib[2][16];
    static cuzk_fr cols[2][CUZK_POREP_DEGREE][L2K];
    cuzk_porep_challenge_values ch[2];
    CHECK(ns <= 16 && s.challenges == 2);
    for (unsigned i = 0; i < 2; i++) {
        cuzk_fr root;
        uint32_t c = cuzk_porep_challenge(rid, pub.seed, i, N2K);
        memset(&ch[i], 0, sizeof ch[i]);
        ch[i].challenge = c;
        ch[i].data_leaf = data[c];
        CHECK_OK(cuzk_merkle_build(&td, data, c, &root, dsib[i]));
        memcpy(ch[i].parents, par[c], sizeof par[c]);
        for (int j = 0; j < CUZK_POREP_DEGREE; j++) {
            cols[i][j][0] = labels[0][par[c][j]];
            cols[i][j][1] = labels[1][par[c][j]];
            CHECK_OK(cuzk_merkle_build(&s.tree, hashes, par[c][j], &root, csib[i][j]));
            /* the paths are laid out parent after parent */
            memmove(&csib[i][0][0] + j * ns, csib[i][j], ns * sizeof(cuzk_fr));
        }
        CHECK_OK(cuzk_merkle_build(&s.tree, encoded, c, &root, rsib[i]));
        CHECK_OK(cuzk_merkle_build(&s.tree, hashes, c, &root, xsib[i]));
        ch[i].comm_d_siblings = dsib[i];
        ch[i].columns = &cols[i][0][0];
        ch[i].column_siblings = &csib[i][0][0];
        ch[i].comm_r_last_siblings = rsib[i];
        ch[i].comm_c_siblings = xsib[i];
    }
    pv.challenges = ch;
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_OK(cuzk_porep_synthesize(cs, &s, &pv));
    CHECK(cuzk_cs_num_inputs(cs) == 40);
    cuzk_fr want[39];
    CHECK_OK(cuzk_porep_public_inputs(&cfg, &pub, 0, want));
    CHECK(!memcmp(want, cuzk_cs_inputs(cs) + 1, sizeof want));
    cuzk_cs_free(cs);

    cuzk_fr_from_u64(&ch[1].data_leaf, 5);
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_ERR(cuzk_porep_synthesize(cs, &s, &pv), CUZK_EINVAL, "not satisfied");
    cuzk_cs_free(cs);
}

int main(void)
{
    test_label();
    test_tree_d_node();
    test_reference_shapes();
    test_counts_formula();
    test_satisfied_2k();
    test_fingerprint_32g();
    return check_done("test_circuits_porep");
}
