/* Sealing (include/cuzk/seal.h), each part against an oracle named where
 * it is used:
 *   - polka-storage's 2 KiB PoRep test (pallets/proofs/src/tests/porep.rs):
 *     comm_d 129c7562...4421 and comm_r 4afb35f8...3950, produced by
 *     `polka-storage-provider utils po-rep` (rust-fil-proofs 18.1
 *     seal_pre_commit_phase1/2) from examples/test-data-big.car (2,032
 *     bytes, one piece filling the sector; tests/fixtures/filecoin/
 *     polka-test-data-big.car) with prover id 0^32, sector 77, ticket
 *     12^32, porep_id 0^32 and API 1.2.0. comm_r depends on every label of
 *     both layers, tree_c, the encoding and tree_r_last, so one match
 *     checks them all bit for bit;
 *   - comm_d: also piece.h's commP of the same bytes (a separate streaming
 *     implementation: a one-piece sector's comm_d is its commP);
 *   - labels of single nodes: OpenSSL's SHA-256 over the preimage spelt out
 *     here from graph.rs (prefix, parents repeated to 37);
 *   - the encoding: replica - last layer = data in the field (decode). */
#include "check.h"
#include "cuzk/piece.h"
#include "cuzk/seal.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CUZK_SOURCE_DIR
#define CUZK_SOURCE_DIR "."
#endif
#define FIXTURES CUZK_SOURCE_DIR "/tests/fixtures/filecoin/"
#define SECTOR 2048
#define NODES (SECTOR / 32)

static void hex32(const char *hex, uint8_t out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v;
        CHECK(sscanf(hex + 2 * i, "%2x", &v) == 1);
        out[i] = (uint8_t)v;
    }
}

/* polka's sector: the 2,032-byte CAR file fr32-padded to 2 KiB. */
static int polka_sector(uint8_t raw[2032], uint8_t data[SECTOR])
{
    FILE *f = fopen(FIXTURES "polka-test-data-big.car", "rb");
    CHECK(f != NULL);
    if (!f)
        return -1;
    size_t n = fread(raw, 1, 2033, f);
    fclose(f);
    CHECK(n == 2032);
    if (n != 2032)
        return -1;
    cuzk_fr32_pad(raw, 2032 / CUZK_FR32_UNPADDED, data);
    return 0;
}

static void polka_params(cuzk_seal_params *p)
{
    memset(p, 0, sizeof *p);
    p->sector_size = SECTOR;
    p->api = CUZK_API_1_2_0;
    p->sector_id = 77;
    memset(p->ticket, 12, 32);
}

static void test_polka(void)
{
    static uint8_t raw[2032], data[SECTOR], replica[SECTOR], labels[2 * SECTOR];
    if (polka_sector(raw, data))
        return;
    cuzk_seal_params p;
    cuzk_seal_result r;
    uint8_t want_d[32], want_r[32], commp[32], tree_d[32];
    hex32("129c7562bb0c189544f5dccd365feaec2141eab458097a5ca8429c109d154421", want_d);
    hex32("4afb35f82a95a10187a913bc14520d9a1d173328265b301b5dcf440ef2583950", want_r);
    polka_params(&p);
    CHECK_OK(cuzk_seal(&p, data, replica, labels, &r));
    CHECK(!memcmp(r.comm_d, want_d, 32));
    CHECK(!memcmp(r.comm_r, want_r, 32));

    uint64_t padded;
    CHECK_OK(cuzk_commp_bytes(raw, sizeof raw, commp, &padded));
    CHECK(padded == SECTOR && !memcmp(commp, want_d, 32));
    CHECK_OK(cuzk_seal_tree_d(data, SECTOR, tree_d));
    CHECK(!memcmp(tree_d, want_d, 32));

    /* Decoding: replica - last layer gives the data back. */
    int dec_ok = 1;
    for (int v = 0; v < NODES; v++) {
        cuzk_fr a, k, d;
        CHECK_OK(cuzk_fr_from_bytes_le(&a, replica + 32 * v));
        CHECK_OK(cuzk_fr_from_bytes_le(&k, labels + SECTOR + 32 * v));
        cuzk_fr_vec_sub(&d, &a, &k, 1);
        uint8_t b[32];
        cuzk_fr_to_bytes_le(b, &d);
        dec_ok &= !memcmp(b, data + 32 * v, 32);
    }
    CHECK(dec_ok);

    /* Labels, spelt out: node 0 hashes its 64-byte prefix only; node 5 of
     * layer 1 its 6 DRG parents x6 + the first; node 9 of layer 2 its 6
     * DRG (layer 2) and 8 expander (layer 1) parents x2 + the first 9. */
    cuzk_porep_graph g;
    CHECK_OK(cuzk_porep_graph_init(&g, NODES, p.porep_id, p.api));
    uint8_t pre[64 + 37 * 32], h[32];
    memcpy(pre, r.replica_id, 32);
    memset(pre + 32, 0, 32);
    pre[35] = 1;
    SHA256(pre, 64, h);
    h[31] &= 0x3f;
    CHECK(!memcmp(h, labels, 32));

    uint32_t par[CUZK_POREP_DEGREE];
    CHECK_OK(cuzk_porep_parents(&g, 5, par));
    pre[43] = 5;
    for (int i = 0; i < 37; i++)
        memcpy(pre + 64 + 32 * i, labels + 32 * par[i < 36 ? i % 6 : 0], 32);
    SHA256(pre, sizeof pre, h);
    h[31] &= 0x3f;
    CHECK(!memcmp(h, labels + 5 * 32, 32));

    CHECK_OK(cuzk_porep_parents(&g, 9, par));
    pre[35] = 2;
    pre[43] = 9;
    for (int i = 0; i < 37; i++) {
        int j = i < 28 ? i % 14 : i - 28;
        const uint8_t *layer = j < 6 ? labels + SECTOR : labels;
        memcpy(pre + 64 + 32 * i, layer + 32 * par[j], 32);
    }
    SHA256(pre, sizeof pre, h);
    h[31] &= 0x3f;
    CHECK(!memcmp(h, labels + SECTOR + 9 * 32, 32));

    /* Each input matters: another ticket or sector, API 1.0.0's graph, or
     * the registry's own porep_id for 2 KiB V1.1 (not polka's zeros) gives
     * another comm_r with the same comm_d. */
    cuzk_seal_params q = p;
    q.ticket[0] ^= 1;
    CHECK_OK(cuzk_seal(&q, data, replica, NULL, &r));
    CHECK(!memcmp(r.comm_d, want_d, 32) && memcmp(r.comm_r, want_r, 32));
    q = p;
    q.sector_id = 78;
    CHECK_OK(cuzk_seal(&q, data, replica, NULL, &r));
    CHECK(memcmp(r.comm_r, want_r, 32));
    q = p;
    q.api = CUZK_API_1_0_0;
    CHECK_OK(cuzk_seal(&q, data, replica, NULL, &r));
    CHECK(memcmp(r.comm_r, want_r, 32));
    q = p;
    cuzk_porep_id(5, q.porep_id);
    CHECK_OK(cuzk_seal(&q, data, replica, NULL, &r));
    CHECK(memcmp(r.comm_r, want_r, 32));
    /* One changed data word changes comm_d and comm_r. */
    data[100] ^= 1;
    CHECK_OK(cuzk_seal(&p, data, replica, NULL, &r));
    CHECK(memcmp(r.comm_d, want_d, 32) && memcmp(r.comm_r, want_r, 32));
}

static void test_tables(void)
{
    unsigned l = 0;
    cuzk_merkle_shape s;
    CHECK_OK(cuzk_seal_layers(2048, &l));
    CHECK(l == 2);
    CHECK_OK(cuzk_seal_layers(32ull << 30, &l));
    CHECK(l == 11);
    CHECK_ERR(cuzk_seal_layers(4096 * 3, &l), CUZK_EINVAL, "12288");
    /* rust-fil-proofs SectorShape2KiB: LCTree<U8, U0, U0> over 64 leaves;
     * SectorShape32GiB: U8, U8, U0 (8 trees of 2^27 leaves). */
    CHECK_OK(cuzk_seal_tree_shape(2048, &s));
    CHECK(s.base_arity == 8 && s.base_levels == 2 && !s.sub_arity && !s.top_arity);
    CHECK_OK(cuzk_seal_tree_shape(32ull << 30, &s));
    CHECK(s.base_levels == 9 && s.sub_arity == 8 && !s.top_arity);
    CHECK_ERR(cuzk_seal_tree_shape(12345, &s), CUZK_EINVAL, "12345");
}

static void test_errors(void)
{
    static uint8_t data[SECTOR], replica[SECTOR];
    uint8_t c[32];
    cuzk_seal_params p;
    cuzk_seal_result r;
    polka_params(&p);
    data[32 * 7 + 31] = 0x40;
    CHECK_ERR(cuzk_seal(&p, data, replica, NULL, &r), CUZK_EINVAL, "word 7");
    CHECK_ERR(cuzk_seal_tree_d(data, SECTOR, c), CUZK_EINVAL, "fr32");
    CHECK_ERR(cuzk_seal_tree_d(data, 96, c), CUZK_EINVAL, "96");
    data[32 * 7 + 31] = 0;
    p.sector_size = 4096 * 3;
    CHECK_ERR(cuzk_seal(&p, data, replica, NULL, &r), CUZK_EINVAL, "12288");
    p.sector_size = SECTOR;
    p.api = (cuzk_fc_api)7;
    CHECK_ERR(cuzk_seal(&p, data, replica, NULL, &r), CUZK_EINVAL, "");
    /* An all-zero sector: comm_d is the empty sector's (piece.h). */
    uint8_t zero[32];
    CHECK_OK(cuzk_seal_tree_d(data, SECTOR, c));
    CHECK_OK(cuzk_piece_zero_comm(SECTOR, zero));
    CHECK(!memcmp(c, zero, 32));
}

int main(void)
{
    test_polka();
    test_tables();
    test_errors();
    return check_done("test_seal_sdr");
}
