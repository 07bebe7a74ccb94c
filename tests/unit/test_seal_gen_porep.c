/* Synthetic PoRep sectors (gen.h cuzk_gen_porep), against independent
 * checks:
 *   - comm_d is the published comm_d of an empty sector of each size
 *     (Filecoin's unsealed CIDs of committed-capacity sectors, as in
 *     test_seal_piece.c: go-fil-commp-hashhash / Lotus);
 *   - the JSON decodes with every value re-derived and checked (c1.h:
 *     challenges from replica_id and seed, the graph's parents, every path
 *     re-hashed to its root, labels re-hashed from the columns, comm_r);
 *   - the StackedDrg circuit (whose public inputs match polka-storage's
 *     verifying key and whose counts match the published fingerprint,
 *     test_circuits_porep.c) is satisfied in check mode: every partition
 *     at 2 KiB, 8 MiB and 512 MiB under API 1.0.0 and 1.1.0, with public
 *     inputs equal to porep.h's from the public values alone; one
 *     challenge of the 32 GiB (Sub paths) and 64 GiB (Top paths) sectors;
 *   - a changed data leaf or label is not satisfied;
 *   - cuzk_porep_witness (challenges in parallel) gives the assignment of
 *     the sequential witness-mode synthesis, byte for byte;
 *   - the same parameters give the same bytes; seed, miner and sector
 *     change what they must; unknown and synthetic proofs are refused. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/gen.h"
#include "cuzk/piece.h"
#include "cuzk/porep.h"

#include <stdlib.h>
#include <string.h>

static const struct {
    uint64_t number;
    const char *comm_d_cid;
} empty[] = {
    {0, "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"},
    {5, "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"},
    {6, "baga6ea4seaqgl4u6lwmnerwdrm4iz7ag3mpwwaqtapc2fciabpooqmvjypweeha"},
    {2, "baga6ea4seaqdsvqopmj2soyhujb72jza76t4wpq5fzifvm3ctz47iyytkewnubq"},
    {8, "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"},
    {9, "baga6ea4seaqomqafu276g53zko4k23xzh4h4uecjwicbmvhsuqi7o4bhthhm4aq"},
};

static cuzk_c1 *generate(uint64_t number, uint64_t seed, uint64_t miner, uint64_t sector)
{
    cuzk_gen_porep_params p = {
        .registered_proof = number, .seed = seed, .miner_id = miner, .sector_number = sector};
    cuzk_c1 *c = NULL;
    CHECK_OK(cuzk_gen_porep(&p, &c));
    return c;
}

/* The JSON and its decoding with every value checked. */
static char *round_trip(const cuzk_c1 *c, uint64_t miner, uint64_t sector, size_t *len)
{
    char *json = NULL;
    uint8_t prover[32];
    cuzk_gen_prover_id(miner, prover);
    cuzk_c1_expect x = {.prover_id = prover, .sector_id = sector};
    cuzk_c1 *back = NULL;
    CHECK_OK(cuzk_c1_to_json(c, &json, len));
    CHECK_OK(cuzk_c1_from_json(json, *len, &x, &back));
    if (back) {
        CHECK(!memcmp(back->comm_r, c->comm_r, 32) && !memcmp(back->seed, c->seed, 32));
        CHECK(back->values[0].challenge == c->values[0].challenge);
    }
    cuzk_c1_free(back);
    return json;
}

/* Synthesize partition k (or its first `only` challenges) in check mode. */
static cuzk_err synth(const cuzk_c1 *c, unsigned k, unsigned only, cuzk_cs **out)
{
    cuzk_porep_shape s = c->shape;
    cuzk_porep_values v;
    if (only)
        s.challenges = only;
    CHECK_OK(cuzk_c1_partition(c, k, &v));
    CHECK_OK(cuzk_cs_new(out, CUZK_CS_CHECK));
    return cuzk_porep_synthesize(*out, &s, &v);
}

static void test_empty_comm_d(void)
{
    for (size_t i = 0; i < sizeof empty / sizeof *empty; i++) {
        cuzk_c1 *c = generate(empty[i].number, 1, 1000, 1);
        uint8_t want[32];
        cuzk_cid_kind kind;
        CHECK_OK(cuzk_cid_decode(empty[i].comm_d_cid, &kind, want));
        CHECK(c && !memcmp(c->comm_d, want, 32));
        cuzk_c1_free(c);
    }
}

static void test_small_satisfied(void)
{
    static const uint64_t numbers[] = {0, 5, 6, 2, 7};
    for (size_t n = 0; n < sizeof numbers / sizeof *numbers; n++) {
        const uint64_t miner = 1000 + n, sector = 77;
        cuzk_c1 *c = generate(numbers[n], 3, miner, sector);
        size_t len;
        free(round_trip(c, miner, sector, &len));
        cuzk_porep_public pub;
        memset(&pub, 0, sizeof pub);
        cuzk_gen_prover_id(miner, pub.prover_id);
        pub.sector_id = sector;
        memcpy(pub.ticket, c->ticket, 32);
        memcpy(pub.seed, c->seed, 32);
        memcpy(pub.comm_d, c->comm_d, 32);
        memcpy(pub.comm_r, c->comm_r, 32);
        size_t ni = cuzk_porep_public_input_count(&c->config);
        cuzk_fr *want = calloc(ni, sizeof *want);
        for (unsigned k = 0; k < c->config.partitions; k++) {
            cuzk_cs *cs;
            CHECK_OK(synth(c, k, 0, &cs));
            CHECK(cuzk_cs_num_inputs(cs) == 40);
            CHECK_OK(cuzk_porep_public_inputs(&c->config, &pub, k, want));
            CHECK(ni == 39 && !memcmp(want, cuzk_cs_inputs(cs) + 1, ni * sizeof *want));
            cuzk_cs_free(cs);
        }
        free(want);
        /* The parallel witness is the sequential one. */
        cuzk_porep_values pv;
        cuzk_cs *ws;
        cuzk_fr *w1 = NULL, *w2 = NULL;
        size_t n1 = 0, n2 = 0;
        CHECK_OK(cuzk_c1_partition(c, 0, &pv));
        CHECK_OK(cuzk_cs_new(&ws, CUZK_CS_WITNESS));
        CHECK_OK(cuzk_porep_synthesize(ws, &c->shape, &pv));
        CHECK_OK(cuzk_cs_finish(ws));
        CHECK_OK(cuzk_cs_assignment(ws, &w1, &n1));
        CHECK_OK(cuzk_porep_witness(&c->shape, &pv, &w2, &n2));
        CHECK(n1 && n1 == n2 && w1 && w2 && !memcmp(w1, w2, n1 * sizeof *w1));
        cuzk_cs_free(ws);
        free(w1);
        free(w2);
        /* What the circuit checks can fail: a data leaf, then a parent's label. */
        cuzk_porep_challenge_values *v = &c->values[c->config.challenges - 1];
        cuzk_fr keep = v->data_leaf;
        cuzk_cs *cs;
        cuzk_fr_from_u64(&v->data_leaf, 5);
        CHECK_ERR(synth(c, 0, 0, &cs), CUZK_EINVAL, "not satisfied");
        cuzk_cs_free(cs);
        v->data_leaf = keep;
        cuzk_fr *col = (cuzk_fr *)v->columns;
        cuzk_fr_from_u64(&col[3], 9);
        CHECK_ERR(synth(c, 0, 0, &cs), CUZK_EINVAL, "not satisfied");
        cuzk_cs_free(cs);
        cuzk_c1_free(c);
    }
}

/* 32 GiB (8-8-0: Sub paths) and 64 GiB (8-8-2: Top paths): the whole C1
 * checked by decoding, and one challenge of the last partition in the
 * circuit (7.2 M constraints; a partition is 18 of them). */
static void test_full_size(void)
{
    static const uint64_t numbers[] = {8, 9};
    for (size_t n = 0; n < 2; n++) {
        cuzk_c1 *c = generate(numbers[n], 1, 1000, 1);
        CHECK(c->config.partitions == 10 && c->config.challenges == 18 && c->shape.layers == 11);
        size_t len;
        free(round_trip(c, 1000, 1, &len));
        cuzk_cs *cs;
        CHECK_OK(synth(c, c->config.partitions - 1, 1, &cs));
        cuzk_cs_free(cs);
        cuzk_c1_free(c);
    }
}

static void test_deterministic(void)
{
    cuzk_c1 *a = generate(6, 7, 1000, 1), *b = generate(6, 7, 1000, 1);
    cuzk_c1 *s = generate(6, 8, 1000, 1), *m = generate(6, 7, 1001, 1),
            *n = generate(6, 7, 1000, 2);
    size_t la, lb, ls;
    char *ja = round_trip(a, 1000, 1, &la), *jb = round_trip(b, 1000, 1, &lb);
    char *js = round_trip(s, 1000, 1, &ls);
    CHECK(la == lb && !memcmp(ja, jb, la));
    CHECK(memcmp(a->ticket, s->ticket, 32) && memcmp(a->seed, s->seed, 32) &&
          memcmp(a->comm_r, s->comm_r, 32));
    CHECK(!memcmp(a->comm_d, m->comm_d, 32) && memcmp(a->replica_id, m->replica_id, 32) &&
          memcmp(a->replica_id, n->replica_id, 32) && memcmp(m->replica_id, n->replica_id, 32));
    /* A C1 of another miner does not pass as this miner's. */
    uint8_t prover[32];
    cuzk_gen_prover_id(1000, prover);
    char *jm;
    size_t lm;
    cuzk_c1 *back = NULL;
    cuzk_c1_expect x = {.prover_id = prover, .sector_id = 1};
    CHECK_OK(cuzk_c1_to_json(m, &jm, &lm));
    CHECK_ERR(cuzk_c1_from_json(jm, lm, &x, &back), CUZK_EVERIFY, "replica_id");
    CHECK(back == NULL);
    free(ja), free(jb), free(js), free(jm);
    cuzk_c1_free(a), cuzk_c1_free(b), cuzk_c1_free(s), cuzk_c1_free(m), cuzk_c1_free(n);
}

static void test_refused(void)
{
    cuzk_c1 *c = (cuzk_c1 *)1;
    cuzk_gen_porep_params p = {.registered_proof = 99, .seed = 1, .miner_id = 1000};
    CHECK_ERR(cuzk_gen_porep(&p, &c), CUZK_EINVAL, "not a RegisteredSealProof");
    CHECK(c == NULL);
    p.registered_proof = 13; /* 32 GiB synthetic PoRep */
    CHECK(cuzk_gen_porep(&p, &c) == CUZK_EUNSUPPORTED && c == NULL);
    p.registered_proof = 18; /* 32 GiB NI-PoRep */
    CHECK(cuzk_gen_porep(&p, &c) == CUZK_EUNSUPPORTED && c == NULL);
}

int main(void)
{
    test_empty_comm_d();
    test_small_satisfied();
    test_full_size();
    test_deterministic();
    test_refused();
    return check_done("test_seal_gen_porep");
}
