/* The constraint system's three modes and the bit gadgets up to SHA-256:
 * native SHA-256 against FIPS 180-4 vectors; the SHA-256 circuit against the
 * native hash and bellperson's constraint counts; every gadget's witness
 * satisfies its recorded R1CS, and record / witness / check modes produce
 * identical assignments; bad inputs fail with precise errors. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/gadgets.h"
#include "cuzk/sha256.h"

static void hex32(const char *hex, uint8_t out[32])
{
    for (int i = 0; i < 32; i++)
        sscanf(hex + 2 * i, "%2hhx", &out[i]);
}

/* FIPS 180-4 (and its example documents) SHA-256 vectors. */
static void native_vectors(void)
{
    static const struct {
        const char *msg, *digest;
    } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopq"
         "rlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t want[32], got[32];
        hex32(v[i].digest, want);
        cuzk_sha256((const uint8_t *)v[i].msg, strlen(v[i].msg), got);
        CHECK(!memcmp(want, got, 32));
    }
    /* one million 'a' */
    size_t n = 1000000;
    uint8_t *a = malloc(n), want[32], got[32];
    memset(a, 'a', n);
    hex32("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0", want);
    cuzk_sha256(a, n, got);
    CHECK(!memcmp(want, got, 32));
    free(a);
}

/* Allocate the bits of bytes (big-endian within a byte, bellperson's order). */
static cuzk_err alloc_bytes(cuzk_cs *cs, const uint8_t *b, size_t n, cuzk_bool *bits)
{
    for (size_t i = 0; i < n; i++)
        for (int j = 0; j < 8; j++)
            CUZK_TRY(cuzk_bit_alloc(cs, (b[i] >> (7 - j)) & 1, &bits[8 * i + j]));
    return CUZK_OK;
}

static void bits_to_bytes(const cuzk_bool *bits, size_t nbytes, uint8_t *out)
{
    for (size_t i = 0; i < nbytes; i++) {
        out[i] = 0;
        for (int j = 0; j < 8; j++)
            out[i] = (uint8_t)(out[i] << 1 | bits[8 * i + j].value);
    }
}

/* sha256 of msg in a cs of the given mode; digest and counts out. */
static cuzk_err sha_circuit(cuzk_cs *cs, const uint8_t *msg, size_t n, uint8_t digest[32])
{
    cuzk_bool *bits = malloc((8 * n + 1) * sizeof *bits), out[256];
    cuzk_err e = alloc_bytes(cs, msg, n, bits);
    if (!e)
        e = cuzk_sha256_gadget(cs, bits, 8 * n, out);
    free(bits);
    if (!e)
        bits_to_bytes(out, 32, digest);
    return e;
}

/* Same circuit in all modes: equal counts and assignments, satisfied R1CS. */
static void modes_agree(const uint8_t *msg, size_t n)
{
    cuzk_cs *cs[3];
    uint8_t d[3][32], want[32];
    cuzk_sha256(msg, n, want);
    for (int m = 0; m < 3; m++) {
        CHECK_OK(cuzk_cs_new(&cs[m], (cuzk_cs_mode)m));
        CHECK_OK(sha_circuit(cs[m], msg, n, d[m]));
        CHECK(!memcmp(d[m], want, 32));
        CHECK_OK(cuzk_cs_finish(cs[m]));
    }
    for (int m = 1; m < 3; m++) {
        CHECK(cuzk_cs_num_constraints(cs[m]) == cuzk_cs_num_constraints(cs[0]));
        CHECK(cuzk_cs_num_aux(cs[m]) == cuzk_cs_num_aux(cs[0]));
        CHECK(cuzk_cs_num_inputs(cs[m]) == cuzk_cs_num_inputs(cs[0]));
        CHECK(!cuzk_cs_num_aux(cs[0]) || !memcmp(cuzk_cs_aux(cs[m]), cuzk_cs_aux(cs[0]),
                                                 cuzk_cs_num_aux(cs[0]) * sizeof(cuzk_fr)));
    }
    const cuzk_r1cs *r = cuzk_cs_r1cs(cs[0]);
    CHECK(cuzk_r1cs_num_constraints(r) == cuzk_cs_num_constraints(cs[0]));
    cuzk_fr *w;
    size_t nw;
    CHECK_OK(cuzk_cs_assignment(cs[0], &w, &nw));
    CHECK(nw == cuzk_r1cs_num_inputs(r) + cuzk_r1cs_num_aux(r));
    CHECK_OK(cuzk_r1cs_check(r, w, NULL));
    /* A changed aux value breaks some row (an empty message has none). */
    if (nw > 1) {
        uint64_t bad;
        cuzk_fr one;
        cuzk_fr_one(&one);
        blst_fr_add(&w[nw / 2], &w[nw / 2], &one);
        CHECK_ERR(cuzk_r1cs_check(r, w, &bad), CUZK_EINVAL, "");
    }
    free(w);
    for (int m = 0; m < 3; m++)
        cuzk_cs_free(cs[m]);
}

/* bellperson src/gadgets/sha256.rs test_full_block: 512 allocated input
 * bits, constant IV: num_constraints - 512 == 25840; test_full_hash:
 * sha256 of the same 512 bits: num_constraints - 512 == 44874. */
static void reference_counts(void)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 5);
    uint8_t msg[64];
    for (int i = 0; i < 64; i++)
        msg[i] = (uint8_t)cuzk_rng_u64(&g);
    for (int full = 0; full < 2; full++) {
        cuzk_cs *cs;
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
        cuzk_bool bits[512], out[256];
        CHECK_OK(alloc_bytes(cs, msg, 64, bits));
        uint8_t want[32], got[32];
        if (full) {
            CHECK_OK(cuzk_sha256_gadget(cs, bits, 512, out));
            CHECK(cuzk_cs_num_constraints(cs) - 512 == 44874);
            cuzk_sha256(msg, 64, want);
        } else {
            cuzk_u32 iv[8], st[8];
            for (int i = 0; i < 8; i++)
                iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
            CHECK_OK(cuzk_sha256_compress_gadget(cs, bits, iv, st));
            CHECK(cuzk_cs_num_constraints(cs) - 512 == 25840);
            uint32_t s[8];
            memcpy(s, CUZK_SHA256_IV, sizeof s);
            cuzk_sha256_compress(s, msg);
            for (int i = 0; i < 8; i++) {
                cuzk_u32_to_bits_be(&st[i], out + 32 * i);
                for (int j = 0; j < 4; j++)
                    want[4 * i + j] = (uint8_t)(s[i] >> (24 - 8 * j));
            }
        }
        bits_to_bytes(out, 32, got);
        CHECK(!memcmp(got, want, 32));
        cuzk_cs_free(cs);
    }
    /* bellperson test_blank_hash: the compression of a constant block costs
     * nothing and gives SHA-256("") */
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
    cuzk_bool bits[512], out[256];
    for (int i = 0; i < 512; i++)
        bits[i] = cuzk_bool_const(i == 0);
    cuzk_u32 iv[8], st[8];
    for (int i = 0; i < 8; i++)
        iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
    CHECK_OK(cuzk_sha256_compress_gadget(cs, bits, iv, st));
    CHECK(cuzk_cs_num_constraints(cs) == 0 && cuzk_cs_num_aux(cs) == 0);
    for (int i = 0; i < 8; i++)
        cuzk_u32_to_bits_be(&st[i], out + 32 * i);
    uint8_t got[32], want[32];
    bits_to_bytes(out, 32, got);
    cuzk_sha256(NULL, 0, want);
    CHECK(!memcmp(got, want, 32));
    cuzk_cs_free(cs);
}

/* Every Boolean operation on every kind pair: value right, R1CS satisfied. */
static void boolean_table(void)
{
    for (int mode = 0; mode < 3; mode += 2) {
        cuzk_cs *cs;
        CHECK_OK(cuzk_cs_new(&cs, (cuzk_cs_mode)mode));
        cuzk_bool in[6];
        int k = 0;
        for (int v = 0; v < 2; v++) {
            in[k++] = cuzk_bool_const(v);
            CHECK_OK(cuzk_bit_alloc(cs, v, &in[k]));
            k++;
            cuzk_bool t;
            CHECK_OK(cuzk_bit_alloc(cs, !v, &t));
            in[k++] = cuzk_bool_not(t);
        }
        for (int i = 0; i < 6; i++)
            for (int j = 0; j < 6; j++) {
                cuzk_bool x, y;
                CHECK_OK(cuzk_bool_xor(cs, in[i], in[j], &x));
                CHECK(x.value == (in[i].value ^ in[j].value));
                CHECK_OK(cuzk_bool_and(cs, in[i], in[j], &y));
                CHECK(y.value == (in[i].value & in[j].value));
                for (int l = 0; l < 6; l++) {
                    cuzk_bool c, m;
                    int a = in[i].value, b = in[j].value, cc = in[l].value;
                    CHECK_OK(cuzk_bool_sha256_ch(cs, in[i], in[j], in[l], &c));
                    CHECK(c.value == ((a & b) ^ ((a ^ 1) & cc)));
                    CHECK_OK(cuzk_bool_sha256_maj(cs, in[i], in[j], in[l], &m));
                    CHECK(m.value == ((a & b) ^ (a & cc) ^ (b & cc)));
                }
                if (in[i].value == in[j].value)
                    CHECK_OK(cuzk_bool_enforce_equal(cs, in[i], in[j]));
            }
        /* Constant folding allocates nothing. */
        uint64_t before = cuzk_cs_num_aux(cs);
        cuzk_bool r;
        CHECK_OK(cuzk_bool_xor(cs, in[0], in[3], &r));
        CHECK_OK(cuzk_bool_sha256_ch(cs, in[0], in[1], in[4], &r));
        CHECK(cuzk_cs_num_aux(cs) == before);
        CHECK_ERR(cuzk_bool_enforce_equal(cs, in[0], in[3]), CUZK_EINVAL, "constants 0 and 1");
        if (mode == CUZK_CS_RECORD) {
            CHECK_OK(cuzk_cs_finish(cs));
            cuzk_fr *w;
            size_t n;
            CHECK_OK(cuzk_cs_assignment(cs, &w, &n));
            CHECK_OK(cuzk_r1cs_check(cuzk_cs_r1cs(cs), w, NULL));
            free(w);
        }
        cuzk_cs_free(cs);
    }
}

/* UInt32 addmany across MultiEq boundaries, against native arithmetic. */
static void addmany_chain(void)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    cuzk_multieq m;
    cuzk_multieq_init(&m);
    cuzk_rng g;
    cuzk_rng_seed(&g, 9);
    cuzk_u32 acc;
    CHECK_OK(cuzk_u32_alloc(cs, 7, &acc));
    uint32_t want = 7;
    for (int i = 0; i < 40; i++) {
        uint32_t v = (uint32_t)cuzk_rng_u64(&g);
        cuzk_u32 ops[3];
        ops[0] = acc;
        CHECK_OK(cuzk_u32_alloc(cs, v, &ops[1]));
        ops[2] = cuzk_u32_const(v ^ 0x5a5a5a5a);
        ops[1] = cuzk_u32_rotr(&ops[1], (unsigned)i);
        cuzk_u32 x;
        CHECK_OK(cuzk_u32_xor(cs, &ops[1], &acc, &x));
        ops[0] = x;
        CHECK_OK(cuzk_u32_addmany(cs, &m, ops, 3, &acc));
        uint32_t r = (v >> (i % 32)) | (i % 32 ? v << (32 - i % 32) : 0);
        want = (r ^ want) + r + (v ^ 0x5a5a5a5a);
        CHECK(acc.value == want);
    }
    /* 10 operands: 36 result bits (bellperson's maximum) */
    cuzk_u32 ten[10];
    uint32_t sum = 0;
    for (int i = 0; i < 10; i++) {
        uint32_t v = 0xffffffffu - (uint32_t)i;
        CHECK_OK(cuzk_u32_alloc(cs, v, &ten[i]));
        sum += v;
    }
    uint64_t aux0 = cuzk_cs_num_aux(cs);
    CHECK_OK(cuzk_u32_addmany(cs, &m, ten, 10, &acc));
    CHECK(acc.value == sum);
    CHECK(cuzk_cs_num_aux(cs) - aux0 == 36);
    CHECK_OK(cuzk_multieq_flush(cs, &m));
    CHECK_ERR(cuzk_u32_addmany(cs, &m, ten, 11, &acc), CUZK_EINVAL, "11 operands");
    cuzk_u32 bad[1] = {acc};
    CHECK_ERR(cuzk_u32_addmany(cs, &m, bad, 1, &acc), CUZK_EINVAL, "1 operands");
    cuzk_multieq_free(&m);
    cuzk_cs_free(cs);
}

static void cs_errors(void)
{
    cuzk_cs *cs;
    CHECK_ERR(cuzk_cs_new(&cs, (cuzk_cs_mode)7), CUZK_EINVAL, "unknown mode 7");
    /* check mode names the first unsatisfied constraint */
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    cuzk_fr three;
    cuzk_fr_from_u64(&three, 3);
    cuzk_var x;
    CHECK_OK(cuzk_cs_alloc(cs, &three, &x));
    cuzk_term t = {x, *cuzk_cs_one()};
    CHECK_OK(cuzk_cs_enforce(cs, &t, 1, NULL, 0, NULL, 0, "zero product"));
    CHECK_ERR(cuzk_cs_enforce(cs, &t, 1, &t, 1, &t, 1, "x squared is x"), CUZK_EINVAL,
              "constraint 1 (x squared is x) is not satisfied");
    cuzk_term u = {CUZK_VAR_AUX_BIT | 5, *cuzk_cs_one()};
    CHECK_ERR(cuzk_cs_enforce(cs, &t, 1, &u, 1, NULL, 0, "late"), CUZK_EINVAL,
              "B term 0 uses variable aux 5, not allocated");
    CHECK_ERR(cuzk_cs_skip(cs, 1), CUZK_EINVAL, "witness mode only");
    cuzk_r1cs *r;
    CHECK_ERR(cuzk_cs_take_r1cs(cs, &r), CUZK_EINVAL, "only record mode");
    CHECK_ERR(cuzk_cs_alloc(cs, NULL, &x), CUZK_EINVAL, "without a value");
    CHECK_OK(cuzk_cs_finish(cs));
    CHECK_ERR(cuzk_cs_alloc(cs, &three, &x), CUZK_EINVAL, "alloc after finish");
    CHECK_ERR(cuzk_cs_finish(cs), CUZK_EINVAL, "finish after finish");
    CHECK_OK(cuzk_cs_reset(cs));
    CHECK(cuzk_cs_num_aux(cs) == 0 && cuzk_cs_num_constraints(cs) == 0);
    CHECK_OK(cuzk_cs_alloc(cs, &three, &x));
    cuzk_cs_free(cs);

    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
    CHECK_ERR(cuzk_cs_reset(cs), CUZK_EINVAL, "witness and check modes only");
    CHECK_ERR(cuzk_cs_enforce(cs, &u, 1, NULL, 0, NULL, 0, "late"), CUZK_EINVAL, "");
    cuzk_bool bits[512];
    CHECK_ERR(cuzk_sha256_gadget(cs, bits, 7, bits), CUZK_EINVAL, "7 input bits");
    CHECK_OK(cuzk_cs_take_r1cs(cs, &r));
    cuzk_r1cs *r2;
    CHECK_ERR(cuzk_cs_take_r1cs(cs, &r2), CUZK_EINVAL, "already taken");
    CHECK_ERR(cuzk_cs_alloc(cs, &three, &x), CUZK_EINVAL, "builder was taken");
    cuzk_r1cs_free(r);
    cuzk_cs_free(cs);

    /* witness mode: reset and resynthesize gives the same values */
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    uint8_t msg[3] = {'a', 'b', 'c'}, d1[32], d2[32];
    CHECK_OK(sha_circuit(cs, msg, 3, d1));
    uint64_t n1 = cuzk_cs_num_constraints(cs), a1 = cuzk_cs_num_aux(cs);
    CHECK_OK(cuzk_cs_reset(cs));
    CHECK_OK(sha_circuit(cs, msg, 3, d2));
    CHECK(n1 == cuzk_cs_num_constraints(cs) && a1 == cuzk_cs_num_aux(cs));
    CHECK(!memcmp(d1, d2, 32));
    cuzk_cs_free(cs);
}

int main(void)
{
    native_vectors();
    boolean_table();
    addmany_chain();
    reference_counts();
    cuzk_rng g;
    cuzk_rng_seed(&g, 77);
    static const size_t lens[] = {0, 1, 3, 55, 56, 64, 100, 119, 120};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        uint8_t msg[128];
        for (size_t j = 0; j < lens[i]; j++)
            msg[j] = (uint8_t)cuzk_rng_u64(&g);
        modes_agree(msg, lens[i]);
    }
    cs_errors();
    return check_done("test_circuits_sha256");
}
