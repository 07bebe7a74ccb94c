/* SnapDeals' public side (snap.h) and PartitionProof bincode (vanilla.h):
 *   - the challenges against rust-fil-proofs' own known answers
 *     (storage-proofs-update src/challenges.rs
 *     test_challenges_against_hardcoded: comm_r_new drawn by blstrs'
 *     Scalar::random from XorShiftRng::from_seed(TEST_SEED), the first five
 *     challenges of partitions 0, 1, 14, 15 at 2 KiB, 8 MiB, 512 MiB,
 *     32 GiB and 64 GiB). They pin the gen-randomness Poseidon constants,
 *     the digest indexing and the bit slicing at once;
 *   - every challenge of a partition in its slice of the sector
 *     (test_challenge_bucketing);
 *   - the sizes of constants.rs;
 *   - the EmptySectorUpdate circuit's constraint count against
 *     storage-proofs-update tests/circuit.rs: 2 KiB 1,705,039 and 32 GiB
 *     81,049,499 (5 public inputs with ONE); its satisfaction on updates is
 *     in test_seal_snap;
 *   - bincode: encode then decode gives the same bytes; truncated, trailing
 *     and corrupted encodings fail naming the field. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/gadgets.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/snap.h"

#include <stdlib.h>
#include <string.h>

/* rand_xorshift 0.3's XorShiftRng and rand_core's next_u64 (two u32s, low
 * first). */
typedef struct {
    uint32_t x, y, z, w;
} xorshift;

static void xs_seed(xorshift *g, const uint8_t s[16])
{
    uint32_t v[4];
    for (int i = 0; i < 4; i++)
        v[i] = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 | (uint32_t)s[4 * i + 2] << 16 |
               (uint32_t)s[4 * i + 3] << 24;
    g->x = v[0], g->y = v[1], g->z = v[2], g->w = v[3];
}

static uint32_t xs_u32(xorshift *g)
{
    uint32_t t = g->x ^ (g->x << 11);
    g->x = g->y, g->y = g->z, g->z = g->w;
    g->w = g->w ^ (g->w >> 19) ^ (t ^ (t >> 8));
    return g->w;
}

static uint64_t xs_u64(xorshift *g)
{
    uint64_t lo = xs_u32(g), hi = xs_u32(g);
    return hi << 32 | lo;
}

/* blstrs' Scalar::random: four u64 limbs, the top bit cleared, retried
 * until below r. */
static void fr_random(xorshift *g, cuzk_fr *out)
{
    for (;;) {
        uint8_t b[32];
        for (int i = 0; i < 4; i++) {
            uint64_t l = xs_u64(g);
            if (i == 3)
                l &= 0x7fffffffffffffffull;
            for (int j = 0; j < 8; j++)
                b[8 * i + j] = (uint8_t)(l >> (8 * j));
        }
        if (cuzk_fr_from_bytes_le(out, b) == CUZK_OK)
            return;
    }
}

static void test_known_challenges(void)
{
    static const uint8_t test_seed[16] = {0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
                                          0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5};
    static const struct {
        uint64_t size;
        unsigned k;
        uint32_t want[5];
    } v[] = {
        {2048, 0, {53, 51, 56, 3, 0}},
        {8ull << 20, 0, {36085, 32783, 44060, 10950, 3731}},
        {8ull << 20, 1, {78878, 130797, 112892, 93994, 78379}},
        {512ull << 20, 0, {1019125, 116736, 706220, 59698, 799498}},
        {512ull << 20, 1, {2092548, 1213276, 1185483, 1164598, 1095197}},
        {512ull << 20, 14, {15212432, 15665918, 15015423, 15012912, 15495223}},
        {512ull << 20, 15, {16388544, 15794686, 16637142, 16319148, 16328348}},
        {32ull << 30, 0, {1019125, 27985696, 15282860, 11586600, 44651330}},
        {32ull << 30, 1, {109168525, 127316247, 80331041, 97065716, 72310052}},
        {32ull << 30, 14, {990420169, 955146989, 968005601, 976863263, 944650706}},
        {32ull << 30, 15, {1038629497, 1053983614, 1030421316, 1027373887, 1068685433}},
        {64ull << 30, 0, {1019125, 13992848, 3820715, 18225541, 57316660}},
        {64ull << 30, 1, {243386253, 197875851, 204632136, 171516766, 247789010}},
        {64ull << 30, 14, {1997053129, 1920414070, 2003609080, 1900492803, 1963254685}},
        {64ull << 30, 15, {2045262457, 2036941247, 2136653521, 2091356007, 2147167623}},
    };
    xorshift g;
    xs_seed(&g, test_seed);
    cuzk_fr comm_r_new;
    fr_random(&g, &comm_r_new);
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        cuzk_snap_config c;
        uint32_t ch[CUZK_SNAP_MAX_CHALLENGES];
        CHECK_OK(cuzk_snap_config_of(v[i].size, &c));
        CHECK_OK(cuzk_snap_challenges(&c, &comm_r_new, v[i].k, ch));
        int same = !memcmp(ch, v[i].want, sizeof v[i].want);
        if (!same)
            fprintf(stderr, "size %llu k %u: %u %u %u %u %u\n", (unsigned long long)v[i].size,
                    v[i].k, ch[0], ch[1], ch[2], ch[3], ch[4]);
        CHECK(same);
    }
}

static void test_sizes_and_buckets(void)
{
    static const struct {
        uint64_t size;
        unsigned partitions, challenges, h, apex;
    } s[] = {{2048, 1, 10, 1, 8},
             {8ull << 20, 4, 10, 10, 128},
             {512ull << 20, 16, 86, 10, 128},
             {32ull << 30, 16, 86, 10, 128},
             {64ull << 30, 16, 86, 10, 128}};
    cuzk_fr r;
    cuzk_fr_from_u64(&r, 1234567);
    for (size_t i = 0; i < sizeof s / sizeof *s; i++) {
        cuzk_snap_config c;
        CHECK_OK(cuzk_snap_config_of(s[i].size, &c));
        CHECK(c.partitions == s[i].partitions && c.challenges == s[i].challenges && c.h == s[i].h &&
              c.apex_leaves == s[i].apex);
        for (unsigned k = 0; k < c.partitions; k++) {
            uint32_t ch[CUZK_SNAP_MAX_CHALLENGES];
            CHECK_OK(cuzk_snap_challenges(&c, &r, k, ch));
            uint64_t per = c.nodes / c.partitions;
            int inside = 1;
            for (unsigned j = 0; j < c.challenges; j++)
                inside &= ch[j] / per == k;
            CHECK(inside);
        }
        uint32_t ch[CUZK_SNAP_MAX_CHALLENGES];
        CHECK_ERR(cuzk_snap_challenges(&c, &r, c.partitions, ch), CUZK_EINVAL, "partition");
    }
    cuzk_snap_config c;
    CHECK_ERR(cuzk_snap_config_of(4096, &c), CUZK_EINVAL, "SnapDeals sectors are");
}

/* The blank circuit's size, witness mode (no recording): the published
 * counts of storage-proofs-update tests/circuit.rs. */
static void test_counts(void)
{
    static const struct {
        uint64_t size, constraints;
    } want[] = {{2048, 1705039}, {32ull << 30, 81049499}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        cuzk_snap_config c;
        cuzk_cs *cs;
        CHECK_OK(cuzk_snap_config_of(want[i].size, &c));
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
        CHECK_OK(cuzk_snap_synthesize(cs, &c, NULL));
        if (cuzk_cs_num_constraints(cs) != want[i].constraints)
            fprintf(stderr, "size %llu: %llu constraints, want %llu (inputs %u, aux %llu)\n",
                    (unsigned long long)want[i].size,
                    (unsigned long long)cuzk_cs_num_constraints(cs),
                    (unsigned long long)want[i].constraints, cuzk_cs_num_inputs(cs),
                    (unsigned long long)cuzk_cs_num_aux(cs));
        CHECK(cuzk_cs_num_constraints(cs) == want[i].constraints);
        CHECK(cuzk_cs_num_inputs(cs) == 5);
        cuzk_cs_free(cs);
    }
}

/* cuzk_snap_counts against a whole recording at 2 KiB (the digest term,
 * which needs several digests, is checked by the 32 GiB count of
 * `cuzk circuit stats --update-proof 3` in tests/cli/test_hash.sh). */
static void test_counts_extrapolated(void)
{
    static const uint64_t sizes[] = {2048};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        cuzk_snap_config c;
        cuzk_r1cs_counts got, want;
        cuzk_cs *cs;
        cuzk_r1cs *r;
        cuzk_pce *p;
        CHECK_OK(cuzk_snap_config_of(sizes[i], &c));
        CHECK_OK(cuzk_snap_counts(&c, &got));
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
        CHECK_OK(cuzk_snap_synthesize(cs, &c, NULL));
        CHECK_OK(cuzk_cs_finish(cs));
        CHECK_OK(cuzk_cs_take_r1cs(cs, &r));
        CHECK_OK(cuzk_pce_from_r1cs(&p, r));
        cuzk_pce_counts(p, &want);
        CHECK(got.inputs == want.inputs && got.aux == want.aux &&
              got.constraints == want.constraints && got.nnz_a == want.nnz_a &&
              got.nnz_b == want.nnz_b && got.nnz_c == want.nnz_c &&
              got.a_input_density == want.a_input_density &&
              got.a_aux_density == want.a_aux_density &&
              got.b_input_density == want.b_input_density &&
              got.b_aux_density == want.b_aux_density);
        cuzk_pce_free(p);
        cuzk_r1cs_free(r);
        cuzk_cs_free(cs);
    }
}

/* select over 128 leaves (7 bits, the apex leaf of a challenge): the
 * leaf of the index the bits spell, satisfied in check mode; 9 bits are
 * refused. */
static void test_select_128(void)
{
    cuzk_cs *cs;
    cuzk_num leaves[128], out;
    cuzk_bool bits[9];
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    for (int i = 0; i < 128; i++) {
        cuzk_fr v;
        cuzk_fr_from_u64(&v, 1000 + (uint64_t)i);
        CHECK_OK(cuzk_num_alloc(cs, &v, &leaves[i]));
    }
    const unsigned idx = 77; /* 1001101 */
    for (int b = 0; b < 9; b++)
        CHECK_OK(cuzk_bit_alloc(cs, (idx >> b) & 1, &bits[b]));
    CHECK_OK(cuzk_select(cs, leaves, bits, 7, &out));
    CHECK(cuzk_fr_eq(&out.val, &leaves[idx].val));
    CHECK_ERR(cuzk_select(cs, leaves, bits, 9, &out), CUZK_EINVAL, "at most 8");
    cuzk_cs_free(cs);
}

int main(void)
{
    test_select_128();
    test_counts();
    test_counts_extrapolated();
    test_known_challenges();
    test_sizes_and_buckets();
    return check_done("test_circuits_snap");
}
