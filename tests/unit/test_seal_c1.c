/* C1 outputs (include/cuzk/c1.h), each part against an oracle named where
 * it is used:
 *   - polka-storage's 2 KiB PoRep proof (pallets/proofs/src/tests/porep.rs,
 *     proven by rust-fil-proofs from its C1 of the same sector, seed 13^32)
 *     and its verifying key: the public inputs the circuit computes from our
 *     C1 make it verify, so the challenges, the packed leaf indexes and the
 *     commitments are rust-fil-proofs' own;
 *   - the circuit (CUZK_CS_CHECK, itself checked against rust-fil-proofs'
 *     counts in test_circuits_porep): every partition's values from the
 *     decoded JSON satisfy it, and its inputs are porep.h's;
 *   - the JSON's layout: spelt out here from the serde derives of
 *     rust-filecoin-proofs-api seal.rs and storage-proofs-porep / -core
 *     (field names and order, the variant names, "_h": null);
 *   - the round trip: the decoded values equal the generated ones;
 *   - every malformation class named in c1.h: the error code and the JSON
 *     path in its message. */
#include "check.h"
#include "polka_vk.h"
#include "cuzk/c1.h"
#include "cuzk/piece.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUZK_SOURCE_DIR
#define CUZK_SOURCE_DIR "."
#endif
#define FIXTURES CUZK_SOURCE_DIR "/tests/fixtures/filecoin/"
#define SECTOR 2048

static uint8_t data[SECTOR], replica[SECTOR], labels[2 * SECTOR];
static cuzk_seal_params sp;
static cuzk_seal_result sr;
static const uint8_t zero32[32];
static uint8_t seed[32];

/* polka's sealed sector (test_seal_sdr.c checks its comm_d and comm_r). */
static int polka_seal(void)
{
    uint8_t raw[2032];
    FILE *f = fopen(FIXTURES "polka-test-data-big.car", "rb");
    CHECK(f != NULL);
    if (!f)
        return -1;
    size_t n = fread(raw, 1, sizeof raw, f);
    fclose(f);
    CHECK(n == sizeof raw);
    cuzk_fr32_pad(raw, 2032 / CUZK_FR32_UNPADDED, data);
    memset(&sp, 0, sizeof sp);
    sp.sector_size = SECTOR;
    sp.api = CUZK_API_1_2_0;
    sp.sector_id = 77;
    memset(sp.ticket, 12, 32);
    memset(seed, 13, 32);
    CHECK_OK(cuzk_seal(&sp, data, replica, labels, &sr));
    return 0;
}

static cuzk_c1_expect polka_expect(void)
{
    cuzk_c1_expect x = {zero32, 77, zero32, CUZK_API_1_2_0, 0};
    return x;
}

static int values_equal(const cuzk_c1 *a, const cuzk_c1 *b)
{
    size_t n = (size_t)a->config.partitions * a->config.challenges;
    size_t L = a->shape.layers, ns = cuzk_merkle_sibling_count(&a->shape.tree), nd = 6;
    int ok = a->registered_proof == b->registered_proof &&
             n == (size_t)b->config.partitions * b->config.challenges;
    ok &= !memcmp(a->comm_r, b->comm_r, 32) && !memcmp(a->comm_d, b->comm_d, 32) &&
          !memcmp(a->replica_id, b->replica_id, 32) && !memcmp(a->seed, b->seed, 32) &&
          !memcmp(a->ticket, b->ticket, 32);
    ok &= cuzk_fr_eq(&a->comm_c, &b->comm_c) && cuzk_fr_eq(&a->comm_r_last, &b->comm_r_last);
    for (size_t i = 0; ok && i < n; i++) {
        const cuzk_porep_challenge_values *x = &a->values[i], *y = &b->values[i];
        ok &= x->challenge == y->challenge && cuzk_fr_eq(&x->data_leaf, &y->data_leaf) &&
              !memcmp(x->parents, y->parents, sizeof x->parents);
        ok &= !memcmp(x->comm_d_siblings, y->comm_d_siblings, nd * sizeof(cuzk_fr));
        ok &= !memcmp(x->columns, y->columns, CUZK_POREP_DEGREE * L * sizeof(cuzk_fr));
        ok &= !memcmp(x->column_siblings, y->column_siblings,
                      CUZK_POREP_DEGREE * ns * sizeof(cuzk_fr));
        ok &= !memcmp(x->comm_r_last_siblings, y->comm_r_last_siblings, ns * sizeof(cuzk_fr));
        ok &= !memcmp(x->comm_c_siblings, y->comm_c_siblings, ns * sizeof(cuzk_fr));
        ok &= !memcmp(a->labels + i * L, b->labels + i * L, L * sizeof(cuzk_fr));
    }
    return ok;
}

static char *polka_json;
static size_t polka_len;

static void test_polka(void)
{
    cuzk_c1 *c = NULL, *d = NULL;
    CHECK_OK(cuzk_c1_generate(5, &sp, &sr, data, labels, seed, &c));
    if (!c)
        return;
    CHECK(c->config.partitions == 1 && c->config.challenges == 2);
    /* porep.h's challenges of polka's replica (test_filecoin_porep). */
    CHECK(c->values[0].challenge == 37 && c->values[1].challenge == 29);
    CHECK_OK(cuzk_c1_to_json(c, &polka_json, &polka_len));
    if (!polka_json)
        return;
    /* serde's layout: the top fields in declaration order, the 2 KiB
     * variant, tree_d's Single proof with its root first. */
    static const char head[] =
        "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":"
        "[[{\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[18,156,117,98,";
    CHECK(!strncmp(polka_json, head, sizeof head - 1));
    CHECK(strstr(polka_json, "]]},\"comm_r\":[74,251,53,248,") != NULL);
    CHECK(strstr(polka_json, "\"seed\":[13,13,") && strstr(polka_json, "\"ticket\":[12,12,"));
    CHECK(strstr(polka_json, "\"_h\":null},\"inclusion_proof\":{\"data\":{\"Single\":{\"root\":"));
    CHECK(strstr(polka_json, "\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":37,"));
    CHECK(strstr(polka_json, "],\"layer_index\":2,\"node\":29}],\"encoding_proof\":{\"parents\":"));
    CHECK(strstr(polka_json, "\"path\":{\"path\":[{\"hashes\":[["));
    CHECK(!strchr(polka_json, ' ') && !strchr(polka_json, '\n'));

    cuzk_c1_expect x = polka_expect();
    CHECK_OK(cuzk_c1_from_json(polka_json, polka_len, &x, &d));
    CHECK(d && values_equal(c, d));

    /* Every partition satisfies the circuit; its inputs are porep.h's and
     * verify polka's proof. */
    cuzk_porep_public pub;
    memset(&pub, 0, sizeof pub);
    pub.sector_id = 77;
    memcpy(pub.ticket, d->ticket, 32);
    memcpy(pub.seed, d->seed, 32);
    memcpy(pub.comm_d, d->comm_d, 32);
    memcpy(pub.comm_r, d->comm_r, 32);
    cuzk_vk vk;
    load_polka_vk(FIXTURES "polka-porep-2k.vk", 40, &vk);
    cuzk_proof proof;
    load_polka_proof(FIXTURES "polka-porep-2k.proof", &proof);
    for (unsigned k = 0; d && k < d->config.partitions; k++) {
        cuzk_porep_values v;
        cuzk_cs *cs;
        cuzk_fr want[39];
        CHECK_OK(cuzk_c1_partition(d, k, &v));
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
        CHECK_OK(cuzk_porep_synthesize(cs, &d->shape, &v));
        CHECK(cuzk_cs_num_inputs(cs) == 40);
        CHECK_OK(cuzk_porep_public_inputs(&d->config, &pub, k, want));
        CHECK(!memcmp(want, cuzk_cs_inputs(cs) + 1, sizeof want));
        CHECK_OK(cuzk_groth16_verify(&vk, cuzk_cs_inputs(cs) + 1, 39, &proof));
        cuzk_cs_free(cs);
    }
    cuzk_porep_values v;
    CHECK_ERR(cuzk_c1_partition(d, 1, &v), CUZK_EINVAL, "partition 1 of 1");
    cuzk_vk_free(&vk);

    /* Structure-only decoding of a wrong data leaf: the circuit fails. */
    json_t *j = json_loadb(polka_json, polka_len, 0, NULL);
    json_t *leaf = json_object_get(
        json_object_get(
            json_object_get(
                json_object_get(
                    json_array_get(
                        json_array_get(json_object_get(json_object_get(j, "vanilla_proofs"),
                                                       "StackedDrg2KiBV1"),
                                       0),
                        1),
                    "comm_d_proofs"),
                "data"),
            "Single"),
        "leaf");
    json_array_set_new(leaf, 0, json_integer(json_integer_value(json_array_get(leaf, 0)) ^ 1));
    char *s = json_dumps(j, JSON_COMPACT);
    cuzk_c1 *e = NULL;
    x.no_value_checks = 1;
    CHECK_OK(cuzk_c1_from_json(s, strlen(s), &x, &e));
    if (e) {
        cuzk_cs *cs;
        CHECK_OK(cuzk_c1_partition(e, 0, &v));
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
        CHECK_ERR(cuzk_porep_synthesize(cs, &e->shape, &v), CUZK_EINVAL, "not satisfied");
        cuzk_cs_free(cs);
    }
    cuzk_c1_free(e);
    e = NULL;
    x.no_value_checks = 0;
    CHECK_ERR(cuzk_c1_from_json(s, strlen(s), &x, &e), CUZK_EVERIFY,
              "vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs: the path does not hash");
    free(s);
    json_decref(j);
    cuzk_c1_free(e);
    cuzk_c1_free(c);
    cuzk_c1_free(d);
}

/* The node at a '/'-separated path of keys and indexes. */
static json_t *at(json_t *j, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *t = strtok(buf, "/"); t && j; t = strtok(NULL, "/"))
        j = json_is_array(j) ? json_array_get(j, strtoul(t, NULL, 10)) : json_object_get(j, t);
    CHECK(j != NULL);
    return j;
}

#define P0 "vanilla_proofs/StackedDrg2KiBV1/0/0/"
#define P1 "vanilla_proofs/StackedDrg2KiBV1/0/1/"

typedef enum { SET, DEL, APPEND_COPY, XOR_BYTE } op_kind;

/* Apply one change to polka's C1 and decode: want code and a message
 * containing needle. key: the member (object) or index (array) under
 * path. */
static void bad(const char *path, const char *key, op_kind op, json_t *val, int nocheck_prover,
                cuzk_err code, const char *needle)
{
    json_t *j = json_loadb(polka_json, polka_len, 0, NULL);
    json_t *p = at(j, path);
    if (p) {
        int arr = json_is_array(p);
        size_t i = arr ? strtoul(key, NULL, 10) : 0;
        switch (op) {
        case SET: arr ? json_array_set(p, i, val) : json_object_set(p, key, val); break;
        case DEL: arr ? json_array_remove(p, i) : json_object_del(p, key); break;
        case APPEND_COPY: json_array_append_new(p, json_deep_copy(json_array_get(p, i))); break;
        case XOR_BYTE: {
            json_t *b = arr ? json_array_get(p, i) : json_object_get(p, key);
            json_array_set_new(b, 0, json_integer(json_integer_value(json_array_get(b, 0)) ^ 1));
            break;
        }
        }
    }
    json_decref(val);
    char *s = json_dumps(j, JSON_COMPACT);
    cuzk_c1_expect x = polka_expect();
    if (nocheck_prover)
        x.prover_id = NULL;
    cuzk_c1 *c = NULL;
    CHECK_ERR(cuzk_c1_from_json(s, strlen(s), &x, &c), code, needle);
    CHECK(c == NULL);
    free(s);
    json_decref(j);
}

static json_t *big_domain(void)
{
    json_t *a = json_array();
    for (int i = 0; i < 32; i++)
        json_array_append_new(a, json_integer(255));
    return a;
}

static void test_malformed(void)
{
    if (!polka_json)
        return;
    cuzk_c1 *c = NULL;
    CHECK_ERR(cuzk_c1_from_json("{\"registered", 12, NULL, &c), CUZK_EFORMAT, "not JSON");
    /* registered proof */
    bad("", "registered_proof", SET, json_string("StackedDrg2KiBV2"), 0, CUZK_EFORMAT,
        "C1 registered_proof: \"StackedDrg2KiBV2\" is not a RegisteredSealProof");
    bad("", "registered_proof", SET, json_integer(5), 0, CUZK_EFORMAT,
        "registered_proof: an integer, want a string");
    bad("", "registered_proof", SET, json_string("StackedDrg8MiBV1_1"), 0, CUZK_EFORMAT,
        "vanilla_proofs.StackedDrg2KiBV1: StackedDrg8MiBV1_1 seals with the variant "
        "StackedDrg8MiBV1");
    /* an interactive C1 relabelled synthetic: its openings are not the
     * synthetic challenges */
    bad("", "registered_proof", SET, json_string("StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), 0,
        CUZK_EVERIFY,
        "C1 vanilla_proofs.StackedDrg2KiBV1[0][0].comm_d_proofs: opens node 37, want");
    bad("", "registered_proof", SET, json_string("StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"), 0,
        CUZK_EFORMAT, "registered_proof: StackedDrg2KiBV1_2_Feat_NonInteractivePoRep");
    /* fields */
    bad("", "seed", DEL, NULL, 0, CUZK_EFORMAT, "C1 seed: missing");
    bad("", "extra", SET, json_null(), 0, CUZK_EFORMAT, "C1 extra: unknown field");
    bad(P0 "replica_column_proofs/c_x/column", "_h", SET, json_integer(0), 0, CUZK_EFORMAT,
        "[0][0].replica_column_proofs.c_x.column._h: want null");
    /* partition and challenge counts */
    bad("vanilla_proofs/StackedDrg2KiBV1", "0", APPEND_COPY, NULL, 0, CUZK_EFORMAT,
        "vanilla_proofs.StackedDrg2KiBV1: 2 partitions, want 1");
    bad("vanilla_proofs/StackedDrg2KiBV1/0", "1", DEL, NULL, 0, CUZK_EFORMAT,
        "vanilla_proofs.StackedDrg2KiBV1[0]: 1 challenges, want 2");
    /* path lengths and hash counts */
    bad(P0 "comm_d_proofs/data/Single/path/path", "5", DEL, NULL, 0, CUZK_EFORMAT,
        "[0][0].comm_d_proofs.data.Single.path.path: 5 levels, want 6");
    bad(P1 "comm_r_last_proof/data/Single/path/path/1/hashes", "6", DEL, NULL, 0, CUZK_EFORMAT,
        "[0][1].comm_r_last_proof.data.Single.path.path[1].hashes: 6 hashes, want 7");
    bad(P1 "comm_r_last_proof/data/Single/path/path/1", "index", SET, json_integer(8), 0,
        CUZK_EFORMAT, "path[1].index: 8 is out of range 0..7");
    bad(P1 "comm_r_last_proof/data", "Single", DEL, NULL, 0, CUZK_EFORMAT,
        "[0][1].comm_r_last_proof.data: want {\"Single\": ...}");
    /* label counts, rows, parents */
    bad(P0 "labeling_proofs", "1", DEL, NULL, 0, CUZK_EFORMAT,
        "[0][0].labeling_proofs: 1 labeling proofs (layers), want 2");
    bad(P0 "replica_column_proofs/exp_parents/3/column/rows", "0", DEL, NULL, 0, CUZK_EFORMAT,
        "exp_parents[3].column.rows: 1 rows (layers), want 2");
    bad(P0 "replica_column_proofs/drg_parents", "5", DEL, NULL, 0, CUZK_EFORMAT,
        "replica_column_proofs.drg_parents: 5 columns, want 6");
    bad(P1 "labeling_proofs/1/parents", "36", DEL, NULL, 0, CUZK_EFORMAT,
        "[0][1].labeling_proofs[1].parents: 36 parents, want 37");
    /* bytes and field elements */
    bad(P1 "labeling_proofs/0/parents", "4", SET, big_domain(), 0, CUZK_EFORMAT,
        "[0][1].labeling_proofs[0].parents[4]: not a canonical field element");
    bad(P1 "encoding_proof/parents/2", "31", SET, json_integer(256), 0, CUZK_EFORMAT,
        "[0][1].encoding_proof.parents[2][31]: 256 is out of range 0..255");
    bad("", "comm_r", SET, big_domain(), 0, CUZK_EFORMAT, "C1 comm_r: not a canonical");
    /* values against the public data */
    bad("", "comm_r", XOR_BYTE, NULL, 0, CUZK_EVERIFY, "C1 comm_r: not the hash of comm_c");
    bad("", "comm_d", XOR_BYTE, NULL, 1, CUZK_EVERIFY,
        "[0][0].comm_d_proofs: the root is not comm_d");
    bad("", "comm_d", XOR_BYTE, NULL, 0, CUZK_EVERIFY, "C1 replica_id: not the one");
    bad("", "seed", XOR_BYTE, NULL, 0, CUZK_EVERIFY, "[0][0].comm_d_proofs: opens node 37, want");
    bad(P0 "comm_r_last_proof/data/Single/path/path/0/hashes", "2", XOR_BYTE, NULL, 0, CUZK_EVERIFY,
        "[0][0].comm_r_last_proof: the path does not hash to its root");
    bad(P1 "comm_r_last_proof/data/Single", "root", XOR_BYTE, NULL, 0, CUZK_EVERIFY,
        "[0][1].comm_r_last_proof: the path does not hash");
    bad(P0 "replica_column_proofs/exp_parents/2/column", "index", SET, json_integer(3), 0,
        CUZK_EVERIFY, "exp_parents[2].column.index: the column of node 3, want");
    bad(P0 "replica_column_proofs/drg_parents/1/column/rows", "0", XOR_BYTE, NULL, 0, CUZK_EVERIFY,
        "drg_parents[1].inclusion_proof: the leaf is not the column's hash");
    bad(P1 "labeling_proofs/1", "layer_index", SET, json_integer(1), 0, CUZK_EVERIFY,
        "[0][1].labeling_proofs[1]: layer_index 1, want 2");
    bad(P1 "encoding_proof", "node", SET, json_integer(30), 0, CUZK_EVERIFY,
        "[0][1].encoding_proof: node 30, want the challenge 29");
    bad(P1 "labeling_proofs/0/parents", "7", XOR_BYTE, NULL, 0, CUZK_EVERIFY,
        "[0][1].labeling_proofs[0].parents[7]: not the label the parents' columns give");
    /* the wrong prover */
    cuzk_c1_expect x = polka_expect();
    uint8_t other[32] = {1};
    x.prover_id = other;
    CHECK_ERR(cuzk_c1_from_json(polka_json, polka_len, &x, &c), CUZK_EVERIFY,
              "replica_id: not the one of prover, sector 77");
    /* the registry's own porep_id for proof 5: another graph */
    x = polka_expect();
    x.porep_id = NULL;
    CHECK_ERR(cuzk_c1_from_json(polka_json, polka_len, &x, &c), CUZK_EVERIFY, "replica_id");
    x.prover_id = NULL;
    /* (the first DRG parent is the predecessor in both graphs) */
    CHECK_ERR(cuzk_c1_from_json(polka_json, polka_len, &x, &c), CUZK_EVERIFY,
              "drg_parents[1].column.index: the column of node");
}

static void test_generate_errors(void)
{
    cuzk_c1 *c = NULL;
    CHECK_ERR(cuzk_c1_generate(3, &sp, &sr, data, labels, seed, &c), CUZK_EINVAL,
              "seals 34359738368-byte sectors, not 2048");
    CHECK_ERR(cuzk_c1_generate(15, &sp, &sr, data, labels, seed, &c), CUZK_EUNSUPPORTED,
              "non-interactive-porep");
    CHECK_ERR(cuzk_c1_generate(99, &sp, &sr, data, labels, seed, &c), CUZK_EINVAL,
              "registered proof 99");
    CHECK(c == NULL);
    CHECK(!strcmp(cuzk_c1_proof_name(15), "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"));
    CHECK(!strcmp(cuzk_c1_proof_name(0), "StackedDrg2KiBV1") && !cuzk_c1_proof_name(20));
}

int main(void)
{
    if (polka_seal() == 0) {
        test_polka();
        test_malformed();
        test_generate_errors();
    }
    free(polka_json);
    return check_done("test_seal_c1");
}
