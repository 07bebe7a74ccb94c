/* Poseidon: round numbers, Grain constants, native known answers, the
 * optimized path against the textbook permutation, the batch hasher, and the
 * circuit's constraint counts, values, satisfiability and mode agreement.
 * Each expected value names the reference test it comes from. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/poseidon.h"
#include "cuzk/threads.h"

/* neptune's scalar_from_u64s: little-endian u64 limbs of the canonical value. */
static void from_u64s(cuzk_fr *r, uint64_t l0, uint64_t l1, uint64_t l2, uint64_t l3)
{
    uint8_t b[32];
    uint64_t l[4] = {l0, l1, l2, l3};
    for (int i = 0; i < 32; i++)
        b[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
    CHECK_OK(cuzk_fr_from_bytes_le(r, b));
}

/* neptune src/round_numbers.rs test_round_numbers_against_known_values
 * (t = arity + 1 -> RP; RF = 8 for all). */
static void round_numbers(void)
{
    static const unsigned t_rp[][2] = {{2, 55},  {3, 55},  {4, 56},  {5, 56},  {8, 57},  {9, 57},
                                       {12, 57}, {15, 57}, {16, 59}, {17, 59}, {25, 59}, {37, 60}};
    for (size_t i = 0; i < sizeof t_rp / sizeof t_rp[0]; i++) {
        unsigned rf, rp;
        CHECK_OK(cuzk_poseidon_round_numbers(t_rp[i][0] - 1, &rf, &rp));
        CHECK(rf == 8);
        CHECK(rp == t_rp[i][1]);
    }
    unsigned rf, rp;
    CHECK_ERR(cuzk_poseidon_round_numbers(0, &rf, &rp), CUZK_EINVAL, "arity 0");
    CHECK_ERR(cuzk_poseidon_round_numbers(37, &rf, &rp), CUZK_EINVAL, "arity 37");
}

/* neptune parameters/round_constants-1-1-255-9-8-57-73EDA...001.txt (the
 * Poseidon authors' sage script output neptune's test_round_constants
 * compares against): the first and last of the 585 constants for t = 9. */
static void grain_constants(void)
{
    cuzk_fr rc[585], want;
    cuzk_poseidon_grain_constants(9, 8, 57, rc);
    CHECK_OK(cuzk_fr_from_str(
        &want, "0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9"));
    CHECK(cuzk_fr_eq(&rc[0], &want));
    CHECK_OK(cuzk_fr_from_str(
        &want, "0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39"));
    CHECK(cuzk_fr_eq(&rc[1], &want));
}

/* neptune src/poseidon.rs test hash_values (Strength::Standard): Merkle-tree
 * constants, preimage 0, 1, ..., arity - 1. And the same test's constant-
 * length expectations (length 4, preimage 0..3), for the arities where the
 * test asserts simple hash == sponge digest (arity >= 4). */
static void known_answers(void)
{
    static const struct {
        unsigned arity;
        uint64_t l[4];
    } merkle[] =
        {
            {2, {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b}},
            {4, {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a}},
            {8, {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55}},
            {11, {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28}},
            {16, {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a}},
            {24, {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15}},
            {36, {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f}},
        },
      constant4[] = {
          {4, {0x8935b00a07909d45, 0x4984de08542c9977, 0x39443980077d7593, 0x3a21a6ae86754a29}},
          {8, {0x370a94532f818897, 0x203e3c7c4a85c1f9, 0xcad8b9f8aeb1578f, 0x5c6de4b69de9d792}},
          {11, {0xe9b0cb7d6496f73b, 0x7d2807d793af9582, 0xef841b6bf51a5a39, 0x02550c3a2113c7ca}},
          {16, {0x6a1e563d359c1bdd, 0x6b4493d5d40be9d3, 0x275a6eb04a0ecb37, 0x30ec6fa0fec08504}},
      };
    cuzk_fr in[36], got, plain, want;
    for (unsigned i = 0; i < 36; i++)
        cuzk_fr_from_u64(&in[i], i);
    for (size_t i = 0; i < sizeof merkle / sizeof merkle[0]; i++) {
        const cuzk_poseidon *p;
        CHECK_OK(cuzk_poseidon_merkle(merkle[i].arity, &p));
        from_u64s(&want, merkle[i].l[0], merkle[i].l[1], merkle[i].l[2], merkle[i].l[3]);
        CHECK_OK(cuzk_poseidon_hash(p, in, merkle[i].arity, &got));
        CHECK(cuzk_fr_eq(&got, &want));
        CHECK_OK(cuzk_poseidon_hash_plain(p, in, merkle[i].arity, &plain));
        CHECK(cuzk_fr_eq(&plain, &want));
    }
    for (size_t i = 0; i < sizeof constant4 / sizeof constant4[0]; i++) {
        cuzk_poseidon *p;
        CHECK_OK(cuzk_poseidon_new(&p, constant4[i].arity, CUZK_POSEIDON_CONSTANT_LENGTH, 4));
        if (!p)
            continue;
        from_u64s(&want, constant4[i].l[0], constant4[i].l[1], constant4[i].l[2],
                  constant4[i].l[3]);
        CHECK(cuzk_poseidon_input_count(p) == 4);
        CHECK_OK(cuzk_poseidon_hash(p, in, 4, &got));
        CHECK(cuzk_fr_eq(&got, &want));
        CHECK_OK(cuzk_poseidon_hash_plain(p, in, 4, &plain));
        CHECK(cuzk_fr_eq(&plain, &want));
        cuzk_poseidon_free(p);
    }
}

/* Random preimages: optimized == plain for every arity and type; the batch
 * hasher equals one-by-one hashing at 1 and 2 threads. */
static void optimized_vs_plain(void)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 3);
    cuzk_fr in[36], a, b;
    for (unsigned arity = 1; arity <= 36; arity += (arity < 12 ? 1 : 5)) {
        const cuzk_poseidon *p;
        CHECK_OK(cuzk_poseidon_merkle(arity, &p));
        for (unsigned i = 0; i < arity; i++)
            cuzk_fr_rng(&in[i], &g);
        CHECK_OK(cuzk_poseidon_hash(p, in, arity, &a));
        CHECK_OK(cuzk_poseidon_hash_plain(p, in, arity, &b));
        CHECK(cuzk_fr_eq(&a, &b));
    }
    cuzk_poseidon *c;
    CHECK_OK(cuzk_poseidon_new(&c, 8, CUZK_POSEIDON_CUSTOM, 1));
    cuzk_fr tag;
    cuzk_fr_from_u64(&tag, 1ull << 40);
    CHECK(cuzk_fr_eq(cuzk_poseidon_domain_tag(c), &tag));
    CHECK_OK(cuzk_poseidon_hash(c, in, 8, &a));
    CHECK_OK(cuzk_poseidon_hash_plain(c, in, 8, &b));
    CHECK(cuzk_fr_eq(&a, &b));
    cuzk_poseidon_free(c);

    const cuzk_poseidon *p8;
    CHECK_OK(cuzk_poseidon_merkle(8, &p8));
    size_t count = 1000;
    cuzk_fr *many = malloc(count * 8 * sizeof *many), *out = malloc(count * sizeof *out);
    cuzk_fr_vec_rng(many, count * 8, 11);
    for (unsigned threads = 1; threads <= 2; threads++) {
        cuzk_threads_set(threads);
        CHECK_OK(cuzk_poseidon_hash_many(p8, many, count, out));
        int same = 1;
        for (size_t i = 0; i < count; i += 37) {
            CHECK_OK(cuzk_poseidon_hash(p8, many + 8 * i, 8, &a));
            same &= cuzk_fr_eq(&a, &out[i]);
        }
        CHECK(same);
    }
    free(many);
    free(out);
}

/* One gadget over random allocated inputs in every mode: constraints (the
 * gadget's own, inputs' allocation costs none), value, satisfiability,
 * identical assignments. */
static void gadget_case(const cuzk_poseidon *p, uint64_t want_constraints)
{
    unsigned n = cuzk_poseidon_arity(p);
    cuzk_fr vals[36], native;
    cuzk_fr_vec_rng(vals, n, 100 + n);
    CHECK_OK(cuzk_poseidon_hash(p, vals, n, &native));
    cuzk_cs *cs[3];
    for (int m = 0; m < 3; m++) {
        CHECK_OK(cuzk_cs_new(&cs[m], (cuzk_cs_mode)m));
        cuzk_num in[36], out;
        for (unsigned i = 0; i < n; i++)
            CHECK_OK(cuzk_num_alloc(cs[m], &vals[i], &in[i]));
        CHECK_OK(cuzk_poseidon_gadget(cs[m], p, in, n, &out));
        CHECK(cuzk_cs_num_constraints(cs[m]) == want_constraints);
        CHECK(cuzk_cs_num_aux(cs[m]) == n + want_constraints);
        CHECK(cuzk_fr_eq(&out.val, &native));
        CHECK_OK(cuzk_cs_finish(cs[m]));
    }
    for (int m = 1; m < 3; m++)
        CHECK(!memcmp(cuzk_cs_aux(cs[m]), cuzk_cs_aux(cs[0]),
                      cuzk_cs_num_aux(cs[0]) * sizeof(cuzk_fr)));
    cuzk_fr *w;
    size_t nw;
    CHECK_OK(cuzk_cs_assignment(cs[0], &w, &nw));
    CHECK_OK(cuzk_r1cs_check(cuzk_cs_r1cs(cs[0]), w, NULL));
    /* Changing the output breaks the last row. */
    uint64_t bad = 0;
    cuzk_fr one;
    cuzk_fr_one(&one);
    blst_fr_add(&w[nw - 1], &w[nw - 1], &one);
    CHECK_ERR(cuzk_r1cs_check(cuzk_cs_r1cs(cs[0]), w, &bad), CUZK_EINVAL, "");
    CHECK(bad == want_constraints - 1);
    free(w);
    for (int m = 0; m < 3; m++)
        cuzk_cs_free(cs[m]);
}

/* neptune src/circuit.rs test_poseidon_hash (Standard): arity 2 -> 311,
 * 4 -> 377, 8 -> 505, 16 -> 761, 24 -> 1009, 36 -> 1385; rust-fil-proofs
 * storage-proofs-porep src/stacked/circuit/hash.rs
 * test_hash_single_column_circuit: arity 11 -> 598 (and test_hash2_circuit:
 * arity 2 -> 311). */
static void gadget_counts(void)
{
    static const uint64_t want[][2] = {{2, 311},  {4, 377},   {8, 505},  {11, 598},
                                       {16, 761}, {24, 1009}, {36, 1385}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const cuzk_poseidon *p;
        CHECK_OK(cuzk_poseidon_merkle((unsigned)want[i][0], &p));
        gadget_case(p, want[i][1]);
    }
    cuzk_poseidon *c;
    /* SnapDeals' POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2, Custom(1) tag;
     * the tag only changes a constant, not the count. */
    CHECK_OK(cuzk_poseidon_new(&c, 2, CUZK_POSEIDON_CUSTOM, 1));
    gadget_case(c, 311);
    cuzk_poseidon_free(c);
    CHECK_OK(cuzk_poseidon_new(&c, 4, CUZK_POSEIDON_CONSTANT_LENGTH, 4));
    gadget_case(c, 377);
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    cuzk_num in[4], out;
    for (int i = 0; i < 4; i++)
        CHECK_OK(cuzk_num_alloc(cs, cuzk_cs_one(), &in[i]));
    CHECK_ERR(cuzk_poseidon_gadget(cs, c, in, 3, &out), CUZK_EINVAL, "3 inputs for arity 4");
    cuzk_poseidon_free(c);
    CHECK_OK(cuzk_poseidon_new(&c, 4, CUZK_POSEIDON_CONSTANT_LENGTH, 2));
    CHECK_ERR(cuzk_poseidon_gadget(cs, c, in, 2, &out), CUZK_EINVAL, "exactly arity inputs");
    cuzk_poseidon_free(c);
    cuzk_cs_free(cs);
}

/* rust-fil-proofs filecoin-hashers src/poseidon.rs hash_md over arity-36
 * Merkle constants (PoseidonMDArity = U36): fold acc = H(acc, next 35). */
static cuzk_err hash_md_circuit(cuzk_cs *cs, const cuzk_num *el, size_t n, cuzk_num *out)
{
    const cuzk_poseidon *p;
    CUZK_TRY(cuzk_poseidon_merkle(36, &p));
    cuzk_num acc = el[0], pre[36];
    cuzk_fr zero;
    cuzk_fr_zero(&zero);
    for (size_t off = 1; off < n; off += 35) {
        size_t k = n - off < 35 ? n - off : 35;
        pre[0] = acc;
        for (size_t i = 0; i < k; i++)
            pre[i + 1] = el[off + i];
        for (size_t i = k + 1; i < 36; i++) /* terminal padding: fresh zeros */
            CUZK_TRY(cuzk_num_alloc(cs, &zero, &pre[i]));
        CUZK_TRY(cuzk_poseidon_gadget(cs, p, pre, 36, &acc));
    }
    *out = acc;
    return CUZK_OK;
}

/* filecoin-hashers src/poseidon.rs test_hash_md (71 ones ->
 * 0x59f42220e09ff6f7_5fd9623643ed9622_c26f6d625f4e8195_351c54133b332c90) and
 * test_hash_md_circuit (2,770 constraints). */
static void hash_md(void)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    cuzk_num el[71], out;
    for (int i = 0; i < 71; i++)
        CHECK_OK(cuzk_num_alloc(cs, cuzk_cs_one(), &el[i]));
    CHECK_OK(hash_md_circuit(cs, el, 71, &out));
    CHECK(cuzk_cs_num_constraints(cs) == 2770);
    cuzk_fr want;
    from_u64s(&want, 0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622,
              0x59f42220e09ff6f7);
    CHECK(cuzk_fr_eq(&out.val, &want));
    cuzk_cs_free(cs);
}

static void bad_inputs(void)
{
    cuzk_poseidon *p;
    CHECK_ERR(cuzk_poseidon_new(&p, 0, CUZK_POSEIDON_MERKLE, 0), CUZK_EINVAL, "arity 0");
    CHECK_ERR(cuzk_poseidon_new(&p, 8, CUZK_POSEIDON_CONSTANT_LENGTH, 0), CUZK_EINVAL,
              "constant length 0, need 1..8");
    CHECK_ERR(cuzk_poseidon_new(&p, 8, CUZK_POSEIDON_CONSTANT_LENGTH, 9), CUZK_EINVAL,
              "constant length 9");
    CHECK_ERR(cuzk_poseidon_new(&p, 8, CUZK_POSEIDON_CUSTOM, 257), CUZK_EINVAL,
              "custom domain id 257");
    CHECK_ERR(cuzk_poseidon_new(&p, 8, (cuzk_poseidon_type)9, 0), CUZK_EINVAL, "unknown hash");
    const cuzk_poseidon *m;
    CHECK_ERR(cuzk_poseidon_merkle(40, &m), CUZK_EINVAL, "arity 40");
    CHECK_OK(cuzk_poseidon_merkle(2, &m));
    cuzk_fr in[3], out;
    CHECK_ERR(cuzk_poseidon_hash(m, in, 3, &out), CUZK_EINVAL, "3 inputs, arity 2 hash takes 2");
}

int main(void)
{
    round_numbers();
    grain_constants();
    known_answers();
    optimized_vs_plain();
    gadget_counts();
    hash_md();
    bad_inputs();
    cuzk_threads_shutdown();
    return check_done("test_circuits_poseidon");
}
