/* Packed witnesses (wpack.h): every element comes back from the packed
 * form; the bit arrays, offsets and dense count agree with an independent
 * element-by-element count; only the Montgomery forms of 0 and 1 are
 * small (a canonical 1, the raw limb 1, is another value); sizes around the
 * word boundaries, all-bits and no-bits witnesses, thread counts 1 and 2
 * give the same bytes; a witness mostly not bits is borrowed whole (every
 * element dense, no copy); more than 2^32 - 1 elements is refused. */
#include "check.h"
#include "cuzk/threads.h"
#include "cuzk/wpack.h"

/* pattern 0: random mix of 0, 1 and other values (mostly bits); 1: all
 * 0/1; 2: no 0/1; 3: a tenth 0/1, the rest other values (borrowed). */
static void witness(cuzk_fr *w, uint64_t n, int pattern, uint64_t seed)
{
    cuzk_fr_vec_rng(w, n, seed);
    cuzk_fr one;
    cuzk_fr_one(&one);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        unsigned r = (unsigned)(x % 10);
        if (pattern == 2 || (pattern == 3 && r != 0))
            continue;
        if (pattern == 1 || r < 8) {
            if (x >> 32 & 1)
                w[i] = one;
            else
                memset(&w[i], 0, sizeof w[i]);
        } else if (r == 8) {
            memset(&w[i], 0, sizeof w[i]); /* the raw limb 1: canonical 1, not R */
            w[i].l[0] = 1;
        }
    }
}

static void round_trip(uint64_t n, int pattern)
{
    cuzk_fr *w = malloc((n ? n : 1) * sizeof *w), *back = malloc((n ? n : 1) * sizeof *back);
    witness(w, n, pattern, 77 + n + (uint64_t)pattern);
    cuzk_wpack *p = NULL;
    CHECK_OK(cuzk_wpack_build(w, n, &p));
    if (!p) {
        free(w);
        free(back);
        return;
    }
    cuzk_fr one, zero;
    cuzk_fr_one(&one);
    memset(&zero, 0, sizeof zero);
    uint64_t dense = 0, bad_bits = 0, bad_before = 0;
    /* mostly not bits: every element dense, the witness borrowed (judged on
     * a sample: either form is right; on the large witnesses it is the one
     * the pattern calls for) */
    int borrow = p->dense_borrowed;
    if (n >= 1000)
        CHECK(borrow == (pattern >= 2));
    if (borrow) {
        CHECK(p->dense == w && p->n_dense == n);
        for (uint64_t k = 0; k < p->words; k++)
            if (p->small[k] || p->ones[k] || p->before[k] != k * 64)
                bad_bits++;
        CHECK(bad_bits == 0);
    }
    for (uint64_t i = 0; i < n && !borrow; i++) {
        int is0 = !memcmp(&w[i], &zero, sizeof zero), is1 = !memcmp(&w[i], &one, sizeof one);
        int small = (int)(p->small[i / 64] >> (i % 64) & 1),
            ones = (int)(p->ones[i / 64] >> (i % 64) & 1);
        if (i % 64 == 0 && p->before[i / 64] != dense)
            bad_before++;
        if (small != (is0 || is1) || ones != is1)
            bad_bits++;
        if (!is0 && !is1 && memcmp(&p->dense[dense++], &w[i], sizeof w[i]))
            bad_bits++;
    }
    CHECK(bad_bits == 0 && bad_before == 0);
    if (borrow)
        dense = n;
    CHECK(p->n == n && p->n_dense == dense && p->words == (n + 63) / 64);
    CHECK(cuzk_wpack_bytes(p) == p->words * 20 + dense * sizeof(cuzk_fr));
    if (pattern == 1)
        CHECK(dense == 0);
    if (pattern == 2)
        CHECK(dense == n);
    memset(back, 0xa5, (n ? n : 1) * sizeof *back);
    cuzk_wpack_expand(p, back);
    CHECK(!memcmp(back, w, n * sizeof *w));
    /* the unused bits of the last word are clear */
    if (n % 64)
        CHECK((p->small[n / 64] >> (n % 64)) == 0 && (p->ones[n / 64] >> (n % 64)) == 0);
    cuzk_wpack_free(p);
    free(w);
    free(back);
}

int main(void)
{
    uint64_t ns[] = {0, 1, 2, 63, 64, 65, 127, 128, 1000, 4096 * 64 + 5, 1000003};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int pat = 0; pat < 4; pat++)
            round_trip(ns[i], pat);
    /* the same packed bytes on one thread as on two */
    uint64_t n = 300001;
    cuzk_fr *w = malloc(n * sizeof *w);
    witness(w, n, 0, 5);
    cuzk_wpack *p1 = NULL, *p2 = NULL;
    cuzk_threads_set(1);
    CHECK_OK(cuzk_wpack_build(w, n, &p1));
    cuzk_threads_set(2);
    CHECK_OK(cuzk_wpack_build(w, n, &p2));
    CHECK(p1 && p2 && p1->n_dense == p2->n_dense && !memcmp(p1->meta, p2->meta, p1->meta_bytes) &&
          !memcmp(p1->dense, p2->dense, p1->n_dense * sizeof(cuzk_fr)));
    cuzk_wpack_free(p1);
    cuzk_wpack_free(p2);
    free(w);
    cuzk_wpack *big = NULL;
    CHECK_ERR(cuzk_wpack_build(NULL, (uint64_t)1 << 32, &big), CUZK_EINVAL, "at most 2^32 - 1");
    CHECK(big == NULL);
    CHECK_ERR(cuzk_wpack_build(NULL, 5, &big), CUZK_EINVAL, "NULL witness");
    cuzk_wpack_free(NULL);
    return check_done("test_r1cs_wpack");
}
