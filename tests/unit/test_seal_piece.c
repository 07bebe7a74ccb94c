/* Piece and data commitments (piece.h) against published known answers:
 *   - comm_d of empty sectors: rust-fil-proofs filecoin-proofs
 *     tests/pieces.rs test_compute_comm_d_empty (2 KiB and 128 bytes), and
 *     the CC sectors' unsealed CIDs of every sector size (2 KiB, 8 MiB,
 *     512 MiB, 32 GiB, 64 GiB) that Curio stores in sectors_cc_values
 *     (harmony/harmonydb/sql/20240611-snap-pipeline.sql), made by Lotus
 *     through go-commp-utils zerocomm;
 *   - commP of data of 0xCC and of zero bytes at sizes around each chunk
 *     and power-of-two boundary: go-fil-commp-hashhash testdata/0xCC.txt
 *     and zero.txt, which Lotus's ClientCalcCommP (filecoin-ffi) produced;
 *   - the sealed CID of tests/fixtures/filecoin/post-32g-window.json, a
 *     Curio request, against the comm_r of the same sector in
 *     post-32g-window.vproof (bytes 8..40);
 *   - comm_d of pieces against pieces.rs's layout rules (test_verify_simple_
 *     pieces' trees) and against commP of the same sector's bytes written
 *     out, alignment gaps included; fr32 pad / unpad round trips; bad
 *     CIDs, codecs, lengths and sizes refused with their reason. */
#include "check.h"
#include "cuzk/piece.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex32(const char *h, uint8_t out[32])
{
    for (int i = 0; i < 32; i++)
        out[i] = (uint8_t)(cuzk_hex_digit(h[2 * i]) << 4 | cuzk_hex_digit(h[2 * i + 1]));
}

static uint64_t rng_state = 0x9e3779b97f4a7c15u;
static uint8_t rnd(void)
{
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return (uint8_t)(rng_state >> 24);
}

static void test_empty_comm_d(void)
{
    /* pieces.rs test_compute_comm_d_empty */
    static const uint8_t want2k[32] = {252, 126, 146, 130, 150, 229, 22,  250, 173, 233, 134,
                                       178, 143, 146, 212, 74,  79,  36,  185, 53,  72,  82,
                                       35,  55,  106, 121, 144, 39,  188, 24,  248, 51};
    uint8_t got[32], want[32];
    CHECK_OK(cuzk_comm_d(2048, NULL, 0, got));
    CHECK(!memcmp(got, want2k, 32));
    hex32("3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333", want);
    CHECK_OK(cuzk_comm_d(128, NULL, 0, got));
    CHECK(!memcmp(got, want, 32));
    /* Curio's sectors_cc_values, seal proofs 0..4 */
    static const struct {
        uint64_t size;
        const char *cid;
    } cc[] = {
        {2048, "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"},
        {8 << 20, "baga6ea4seaqgl4u6lwmnerwdrm4iz7ag3mpwwaqtapc2fciabpooqmvjypweeha"},
        {512 << 20, "baga6ea4seaqdsvqopmj2soyhujb72jza76t4wpq5fzifvm3ctz47iyytkewnubq"},
        {32ull << 30, "baga6ea4seaqao7s73y24kcutaosvacpdjgfe5pw76ooefnyqw4ynr3d2y6x2mpq"},
        {64ull << 30, "baga6ea4seaqomqafu276g53zko4k23xzh4h4uecjwicbmvhsuqi7o4bhthhm4aq"},
    };
    for (size_t i = 0; i < sizeof cc / sizeof *cc; i++) {
        char cid[CUZK_CID_STR_MAX];
        cuzk_cid_kind k = CUZK_CID_SEALED;
        CHECK_OK(cuzk_comm_d(cc[i].size, NULL, 0, got));
        CHECK_OK(cuzk_cid_encode(CUZK_CID_UNSEALED, got, cid));
        CHECK(!strcmp(cid, cc[i].cid));
        CHECK_OK(cuzk_cid_decode(cc[i].cid, &k, want));
        CHECK(k == CUZK_CID_UNSEALED && !memcmp(got, want, 32));
        CHECK_OK(cuzk_piece_zero_comm(cc[i].size, want));
        CHECK(!memcmp(got, want, 32));
    }
    /* the 2 KiB one again, from the rust bytes */
    CHECK_OK(cuzk_cid_decode(cc[0].cid, &(cuzk_cid_kind){0}, got));
    CHECK(!memcmp(got, want2k, 32));
}

/* go-fil-commp-hashhash testdata: SIZE bytes of one value -> padded size, CID */
static const struct {
    uint64_t n, padded;
    const char *cid;
} cc_pieces[] = {
    {96, 128, "baga6ea4seaqhwcjhi4krhl3ht6dewnwevkpxbepxy7p7onwgz65t52typbsysby"},
    {126, 128, "baga6ea4seaqapbh46gdnszvb7fcinevsy5bzg3b4higkh7groptswf6zas6jamy"},
    {127, 128, "baga6ea4seaqmfldjtozgne6adk7eve2vdxte7vzlivae7nzsbrawobo546zkijq"},
    {192, 256, "baga6ea4seaqkx7m2s6r4zahtlbwrs5ryvemkclwfp7nijopdd5swpdnxzjf7wkq"},
    {253, 256, "baga6ea4seaql6ldbyafhiecr36xba5tufreyo4km2ts3lfknhl2zogp3aztxijy"},
    {254, 256, "baga6ea4seaqkixbzz75uys2pcjbrbdilgjhmum72qm4xphrwav2iyel5oat4aka"},
    {255, 512, "baga6ea4seaqg7celu5y2iwbi2ra5koygvotxtzr5lj6vzvxi6gfub6mpa6niwpi"},
    {256, 512, "baga6ea4seaqi7c3dnwkqysqh4lpkz5jaxz2d2f5bvo3ttu2hnfmdewhcoji56na"},
    {384, 512, "baga6ea4seaqhexlmnzbarsbdbdahs7e36dkq5vkdwsrttehoakrif5wiqme36lq"},
    {507, 512, "baga6ea4seaqenvh5mcy5cjqwsbubbpczprkk2onwvfjd2743zkqh6ofuzkatwey"},
    {508, 512, "baga6ea4seaqb6ckbupixkhwp7thgb52f4en222boppajkqk7gaomkpof3lh4cei"},
    {509, 1024, "baga6ea4seaqdzbeaexq6gpbqh2tlnbz5mm5neap2kejsketkogzd6x2dx7dzkii"},
    {512, 1024, "baga6ea4seaqojaa522sjqms2wipasjbxnjgytunsgp52tgrfcofj73f7q7ou6hy"},
    {768, 1024, "baga6ea4seaqb6xvxaybzp6vslujjiwvgt23ckrwt7y53eddy5qmc6csnc37lwpi"},
    {1015, 1024, "baga6ea4seaqmgiyjcutwgo6glks2mogixs6mb4sbehto6uzienucfx23wbtkica"},
    {1016, 1024, "baga6ea4seaqjxgfdkdu37aryhg7bqqiwizj5f6ugasftgeocabwnj4cxkgisaoq"},
    {1017, 2048, "baga6ea4seaqf3n5ob5qonkwnxfcbjzftsagbnrjfzualqvzhcylz46b7sgz6wmi"},
    {1024, 2048, "baga6ea4seaqdlpnhgsndrgjeu4p46hahlsr4lybg6du4d56ooppdpxhcofxeuoi"},
};
static const struct {
    uint64_t padded;
    const char *cid;
} zero_pieces[] = {
    {128, "baga6ea4seaqdomn3tgwgrh3g532zopskstnbrd2n3sxfqbze7rxt7vqn7veigmy"},
    {256, "baga6ea4seaqgiktap34inmaex4wbs6cghlq5i2j2yd2bb2zndn5ep7ralzphkdy"},
    {512, "baga6ea4seaqfpirydiugkk7up5v666wkm6n6jlw6lby2wxht5mwaqekerdfykjq"},
    {1024, "baga6ea4seaqb66wjlfkrbye6uqoemcyxmqylwmrm235uclwfpsyx3ge2imidoly"},
    {2048, "baga6ea4seaqpy7usqklokfx2vxuynmupslkeutzexe2uqurdg5vhtebhxqmpqmy"},
};

static void test_commp(void)
{
    uint8_t buf[2048], comm[32];
    memset(buf, 0xcc, sizeof buf);
    for (size_t i = 0; i < sizeof cc_pieces / sizeof *cc_pieces; i++) {
        uint64_t padded = 0;
        char cid[CUZK_CID_STR_MAX];
        CHECK_OK(cuzk_commp_bytes(buf, cc_pieces[i].n, comm, &padded));
        CHECK(padded == cc_pieces[i].padded);
        CHECK(cuzk_piece_padded_size(cc_pieces[i].n) == cc_pieces[i].padded);
        CHECK_OK(cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid));
        if (strcmp(cid, cc_pieces[i].cid))
            fprintf(stderr, "0xCC x %llu: %s, want %s\n", (unsigned long long)cc_pieces[i].n, cid,
                    cc_pieces[i].cid);
        CHECK(!strcmp(cid, cc_pieces[i].cid));
        /* the same stream fed in odd pieces */
        cuzk_commp *c;
        uint8_t comm2[32];
        CHECK_OK(cuzk_commp_new(&c));
        for (uint64_t off = 0, step = 1; off < cc_pieces[i].n; off += step, step = step * 3 + 1)
            CHECK_OK(cuzk_commp_write(c, buf + off,
                                      step < cc_pieces[i].n - off ? step : cc_pieces[i].n - off));
        CHECK_OK(cuzk_commp_finish(c, comm2, &padded));
        cuzk_commp_free(c);
        CHECK(!memcmp(comm, comm2, 32));
    }
    memset(buf, 0, sizeof buf);
    for (size_t i = 0; i < sizeof zero_pieces / sizeof *zero_pieces; i++) {
        uint64_t padded = 0, n = zero_pieces[i].padded / 128 * 127;
        char cid[CUZK_CID_STR_MAX];
        CHECK_OK(cuzk_commp_bytes(buf, n, comm, &padded));
        CHECK(padded == zero_pieces[i].padded);
        CHECK_OK(cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid));
        CHECK(!strcmp(cid, zero_pieces[i].cid));
        CHECK_OK(cuzk_piece_zero_comm(padded, comm));
        CHECK_OK(cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid));
        CHECK(!strcmp(cid, zero_pieces[i].cid));
    }
    /* a file: the same answer as in memory */
    char path[512];
    snprintf(path, sizeof path, "%s/test_seal_piece.bin", check_tmpdir());
    FILE *f = fopen(path, "wb");
    memset(buf, 0xcc, sizeof buf);
    CHECK(f && fwrite(buf, 1, 768, f) == 768 && fclose(f) == 0);
    uint64_t padded = 0;
    char cid[CUZK_CID_STR_MAX];
    CHECK_OK(cuzk_commp_file(path, comm, &padded));
    CHECK_OK(cuzk_cid_encode(CUZK_CID_UNSEALED, comm, cid));
    CHECK(padded == 1024 && !strcmp(cid, cc_pieces[13].cid));
    remove(path);
    CHECK_ERR(cuzk_commp_file(path, comm, &padded), CUZK_EIO, "No such file");
    CHECK_ERR(cuzk_commp_bytes(buf, 0, comm, &padded), CUZK_EINVAL, "empty piece");
}

static void test_fr32(void)
{
    enum { CHUNKS = 9 };
    uint8_t in[CHUNKS * 127], pad[CHUNKS * 128], back[CHUNKS * 127];
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < sizeof in; i++)
            in[i] = round == 0 ? 0xff : rnd();
        cuzk_fr32_pad(in, CHUNKS, pad);
        int top_clear = 1;
        for (size_t w = 0; w < CHUNKS * 4; w++)
            top_clear &= !(pad[32 * w + 31] & 0xc0);
        CHECK(top_clear);
        cuzk_fr32_unpad(pad, CHUNKS, back);
        CHECK(!memcmp(in, back, sizeof in));
    }
    /* All ones: every word is 254 ones (fr32.rs's bit layout). */
    memset(in, 0xff, 127);
    cuzk_fr32_pad(in, 1, pad);
    int ok = 1;
    for (int i = 0; i < 128; i++)
        ok &= pad[i] == (i % 32 == 31 ? 0x3f : 0xff);
    CHECK(ok);
    /* One bit at input bit 254 lands at word 1 bit 0; at bit 1015 at word 3
     * bit 253. */
    memset(in, 0, 127);
    in[31] = 0x40;
    in[126] = 0x80;
    cuzk_fr32_pad(in, 1, pad);
    CHECK(pad[32] == 1 && pad[127] == 0x20);
    int others = 0;
    for (int i = 0; i < 128; i++)
        others |= i != 32 && i != 127 && pad[i];
    CHECK(!others);
}

static void test_comm_d_pieces(void)
{
    /* pieces.rs test_verify_simple_pieces: a..d of 128 bytes, e = H(a,b),
     * f = H(c,d), g = H(e,f) in a 512-byte sector, in every grouping. */
    cuzk_piece_info a, b, c, d, e, f, g;
    for (int i = 0; i < 32; i++)
        a.comm[i] = rnd(), b.comm[i] = rnd(), c.comm[i] = rnd(), d.comm[i] = rnd();
    a.comm[31] &= 0x3f, b.comm[31] &= 0x3f, c.comm[31] &= 0x3f, d.comm[31] &= 0x3f;
    a.padded_size = b.padded_size = c.padded_size = d.padded_size = 128;
    cuzk_piece_hash(a.comm, b.comm, e.comm);
    cuzk_piece_hash(c.comm, d.comm, f.comm);
    cuzk_piece_hash(e.comm, f.comm, g.comm);
    e.padded_size = f.padded_size = 256;
    g.padded_size = 512;
    uint8_t got[32];
    cuzk_piece_info s1[] = {a, b, c, d}, s2[] = {e, c, d}, s3[] = {e, f}, s4[] = {a, b, f};
    CHECK_OK(cuzk_comm_d(512, s1, 4, got));
    CHECK(!memcmp(got, g.comm, 32));
    CHECK_OK(cuzk_comm_d(512, s2, 3, got));
    CHECK(!memcmp(got, g.comm, 32));
    CHECK_OK(cuzk_comm_d(512, s3, 2, got));
    CHECK(!memcmp(got, g.comm, 32));
    CHECK_OK(cuzk_comm_d(512, s4, 3, got));
    CHECK(!memcmp(got, g.comm, 32));
    CHECK_OK(cuzk_comm_d(512, &g, 1, got));
    CHECK(!memcmp(got, g.comm, 32));
    /* Alignment: a then f puts f at 256 with a zero piece between: H(H(a, 0), f). */
    uint8_t z[32], h[32], want[32];
    cuzk_piece_info s5[] = {a, f};
    CHECK_OK(cuzk_piece_zero_comm(128, z));
    cuzk_piece_hash(a.comm, z, h);
    cuzk_piece_hash(h, f.comm, want);
    CHECK_OK(cuzk_comm_d(512, s5, 2, got));
    CHECK(!memcmp(got, want, 32));

    /* A 4 KiB sector of real pieces against commP of its bytes written out
     * (the sector's unpadded layout, alignment gaps as zeros): 0xCC x 127
     * at 0, 0x5A x 508 at padded 512 (gap 384), 0xCC x 100 at 1024, the rest
     * zero. */
    static uint8_t sector[4096 / 128 * 127];
    uint8_t p1[127], p2[508], p3[100];
    memset(p1, 0xcc, sizeof p1), memset(p2, 0x5a, sizeof p2), memset(p3, 0xcc, sizeof p3);
    memset(sector, 0, sizeof sector);
    memcpy(sector, p1, sizeof p1);
    memcpy(sector + 4 * 127, p2, sizeof p2);
    memcpy(sector + 8 * 127, p3, sizeof p3);
    cuzk_piece_info ps[3];
    CHECK_OK(cuzk_commp_bytes(p1, sizeof p1, ps[0].comm, &ps[0].padded_size));
    CHECK_OK(cuzk_commp_bytes(p2, sizeof p2, ps[1].comm, &ps[1].padded_size));
    CHECK_OK(cuzk_commp_bytes(p3, sizeof p3, ps[2].comm, &ps[2].padded_size));
    uint64_t padded = 0;
    CHECK_OK(cuzk_commp_bytes(sector, sizeof sector, want, &padded));
    CHECK_OK(cuzk_comm_d(4096, ps, 3, got));
    CHECK(padded == 4096 && !memcmp(got, want, 32));

    /* refused */
    cuzk_piece_info bad = a;
    bad.padded_size = 192;
    CHECK_ERR(cuzk_comm_d(512, &bad, 1, got), CUZK_EINVAL, "piece 0: padded size 192");
    bad.padded_size = 64;
    CHECK_ERR(cuzk_comm_d(512, &bad, 1, got), CUZK_EINVAL, "not a power of two >= 128");
    CHECK_ERR(cuzk_comm_d(1000, NULL, 0, got), CUZK_EINVAL, "sector size 1000");
    CHECK_ERR(cuzk_comm_d(256, &g, 1, got), CUZK_EINVAL, "does not fit");
    /* 128 + gap 128 + 256, then 128 more: 640 > 512 once aligned */
    cuzk_piece_info s6[] = {a, e, b};
    CHECK_ERR(cuzk_comm_d(512, s6, 3, got), CUZK_EINVAL, "piece 2 (128 bytes) does not fit");
}

static void test_cids(void)
{
    /* The Curio request's sealed CID and the same sector's comm_r in its
     * vanilla proof file (bytes 8..40). */
    char path[512];
    snprintf(path, sizeof path, "%s/tests/fixtures/filecoin/post-32g-window.vproof",
             CUZK_SOURCE_DIR);
    uint8_t head[40], comm[32];
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(head, 1, 40, f) == 40);
    if (f)
        fclose(f);
    const char *sealed = "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl";
    cuzk_cid_kind k = CUZK_CID_UNSEALED;
    CHECK_OK(cuzk_cid_decode(sealed, &k, comm));
    CHECK(k == CUZK_CID_SEALED && !memcmp(comm, head + 8, 32));
    char cid[CUZK_CID_STR_MAX];
    CHECK_OK(cuzk_cid_encode(CUZK_CID_SEALED, head + 8, cid));
    CHECK(!strcmp(cid, sealed));

    /* refused, each with its reason */
    const char *unsealed = zero_pieces[0].cid;
    char s[128];
    CHECK_ERR(cuzk_cid_decode("", &k, comm), CUZK_EFORMAT, "empty CID");
    CHECK_ERR(cuzk_cid_decode("Bafy", &k, comm), CUZK_EFORMAT, "multibase prefix 'B'");
    CHECK_ERR(cuzk_cid_decode("QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG", &k, comm),
              CUZK_EFORMAT, "multibase prefix 'Q'");
    snprintf(s, sizeof s, "%s", unsealed);
    s[10] = '1';
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "character 10 '1' is not base32");
    s[10] = 'A';
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "is not base32");
    /* truncated: drop the last 8 characters (5 bytes) -> 27 digest bytes */
    snprintf(s, sizeof s, "%.*s", (int)strlen(unsealed) - 8, unsealed);
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "27 digest bytes");
    snprintf(s, sizeof s, "%.*s", (int)strlen(unsealed) - 1, unsealed);
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "not canonical base32");
    CHECK_ERR(cuzk_cid_decode("ba", &k, comm), CUZK_EFORMAT, "not canonical base32");
    CHECK_ERR(cuzk_cid_decode("bae", &k, comm), CUZK_EFORMAT, "truncated in its codec");
    /* a dag-pb CIDv1 (codec 0x70, sha2-256): the wrong codec */
    CHECK_ERR(
        cuzk_cid_decode("bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi", &k, comm),
        CUZK_EFORMAT, "codec 0x70 with multihash 0x12");
    /* fil-commitment-unsealed with the sealed multihash: bytes built by hand */
    uint8_t z[32] = {0};
    CHECK_OK(cuzk_cid_encode(CUZK_CID_SEALED, z, cid));
    CHECK_OK(cuzk_cid_decode(cid, &k, comm));
    CHECK(k == CUZK_CID_SEALED && !memcmp(comm, z, 32));
    /* "bagboea4b5abc..." -> "baga6ea4b5abc...": unsealed codec, sealed hash */
    snprintf(s, sizeof s, "%s", cid);
    memcpy(s + 1, "aga6ea4", 7);
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "codec 0xf101 with multihash 0xb401");
    /* too long: 200 'a's */
    char lng[202];
    lng[0] = 'b';
    memset(lng + 1, 'a', 200);
    lng[201] = 0;
    CHECK_ERR(cuzk_cid_decode(lng, &k, comm), CUZK_EFORMAT, "too long");
    /* encode refuses what no commitment can be: commP and comm_d are
     * trimmed to 254 bits; comm_r is below r (0x73ed...), so 0x74 in byte
     * 31 is out */
    uint8_t top[32] = {0};
    top[31] = 0x40;
    CHECK_ERR(cuzk_cid_encode(CUZK_CID_UNSEALED, top, cid), CUZK_EINVAL, "top two bits");
    CHECK_OK(cuzk_cid_encode(CUZK_CID_SEALED, top, cid));
    top[31] = 0x74;
    CHECK_ERR(cuzk_cid_encode(CUZK_CID_SEALED, top, cid), CUZK_EINVAL, "not below the modulus");
    /* and decode: the sealed CID is 320 bits, 64 characters after 'b', so
     * "77" at its end makes byte 31 0xff; the unsealed is 312 bits and 3
     * zero bits, so "77y" at its end does */
    snprintf(s, sizeof s, "%s", sealed);
    memcpy(s + strlen(s) - 2, "77", 2);
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "not below the modulus");
    snprintf(s, sizeof s, "%s", unsealed);
    memcpy(s + strlen(s) - 3, "77y", 3);
    CHECK_ERR(cuzk_cid_decode(s, &k, comm), CUZK_EFORMAT, "top two bits are set");
}

int main(void)
{
    test_fr32();
    test_empty_comm_d();
    test_commp();
    test_comm_d_pieces();
    test_cids();
    return check_done("test_seal_piece");
}
