/* Fr: known answers from the blstrs/ff constants, field laws on random
 * elements, encodings, batch inversion and vector helpers. */
#include "check.h"
#include "cuzk/fr.h"
#include "cuzk/threads.h"

static void test_root_of_unity(void)
{
    /* ROOT_OF_UNITY of blstrs Scalar (big-endian hex), a published constant. */
    cuzk_fr w, want;
    CHECK_OK(cuzk_fr_root_of_unity(&w, 32));
    CHECK_OK(cuzk_fr_from_str(
        &want, "0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
    CHECK(cuzk_fr_eq(&w, &want));
    /* Order exactly 2^k for several k. */
    for (unsigned k = 0; k <= 32; k += 4) {
        cuzk_fr x, one;
        cuzk_fr_one(&one);
        CHECK_OK(cuzk_fr_root_of_unity(&x, k));
        for (unsigned i = 0; i < k; i++) {
            CHECK(k == 0 || !cuzk_fr_eq(&x, &one));
            blst_fr_sqr(&x, &x);
        }
        CHECK(cuzk_fr_eq(&x, &one));
    }
    CHECK_ERR(cuzk_fr_root_of_unity(&w, 33), CUZK_EINVAL, "2^33");
}

static void test_encoding(void)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 1);
    for (int i = 0; i < 100; i++) {
        cuzk_fr a, b;
        uint8_t buf[32];
        char hex[67];
        cuzk_fr_rng(&a, &g);
        cuzk_fr_to_bytes_le(buf, &a);
        CHECK_OK(cuzk_fr_from_bytes_le(&b, buf));
        CHECK(cuzk_fr_eq(&a, &b));
        cuzk_fr_to_hex(hex, &a);
        CHECK_OK(cuzk_fr_from_str(&b, hex));
        CHECK(cuzk_fr_eq(&a, &b));
    }
    /* r itself and all-ones are not canonical. */
    uint8_t r[32];
    for (int i = 0; i < 4; i++)
        for (int b = 0; b < 8; b++)
            r[8 * i + b] = (uint8_t)(CUZK_FR_MODULUS[i] >> (8 * b));
    cuzk_fr x;
    CHECK_ERR(cuzk_fr_from_bytes_le(&x, r), CUZK_EFORMAT, "canonical");
    r[0] -= 1; /* r - 1 is fine and equals -1 */
    CHECK_OK(cuzk_fr_from_bytes_le(&x, r));
    cuzk_fr m1;
    cuzk_fr_one(&m1);
    cuzk_fr_neg(&m1, &m1);
    CHECK(cuzk_fr_eq(&x, &m1));
    CHECK_OK(cuzk_fr_from_str(&x, "12345678901234567890"));
    uint64_t l[4];
    cuzk_fr_to_u64s(l, &x);
    CHECK(l[0] == 12345678901234567890ULL && l[1] == 0);
    CHECK_ERR(cuzk_fr_from_str(&x, "12z"), CUZK_EINVAL, "bad digit");
    CHECK_ERR(
        cuzk_fr_from_str(&x, "0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001"),
        CUZK_EINVAL, ">= r");
    CHECK_ERR(cuzk_fr_from_str(&x, ""), CUZK_EINVAL, "empty");
}

static void test_vectors(void)
{
    size_t n = 10007;
    cuzk_fr *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
    cuzk_fr_vec_rng(a, n, 7);
    cuzk_fr_vec_rng(b, n, 8);
    cuzk_fr_zero(&a[5]);
    cuzk_fr_vec_mul(c, a, b, n);
    for (size_t i = 0; i < n; i += 97) {
        cuzk_fr t;
        blst_fr_mul(&t, &a[i], &b[i]);
        CHECK(cuzk_fr_eq(&t, &c[i]));
    }
    memcpy(c, a, n * sizeof *a);
    CHECK_OK(cuzk_fr_vec_inv(c, n));
    CHECK(cuzk_fr_is_zero(&c[5]));
    int all = 1;
    for (size_t i = 0; i < n; i++) {
        if (i == 5)
            continue;
        cuzk_fr t;
        blst_fr_mul(&t, &a[i], &c[i]);
        all &= cuzk_fr_is_one(&t);
    }
    CHECK(all);
    /* powers_mul: r[i] = a[i] * s^i * k */
    cuzk_fr s, k, p;
    cuzk_fr_from_u64(&s, 5);
    cuzk_fr_from_u64(&k, 3);
    cuzk_fr_vec_powers_mul(c, a, &s, &k, n);
    cuzk_fr_pow_u64(&p, &s, 9999);
    blst_fr_mul(&p, &p, &k);
    blst_fr_mul(&p, &p, &a[9999]);
    CHECK(cuzk_fr_eq(&p, &c[9999]));
    /* The seeded vector is identical for 1 and 2 threads. */
    cuzk_threads_set(1);
    cuzk_fr_vec_rng(c, n, 7);
    CHECK(memcmp(a + 6, c + 6, (n - 6) * sizeof *a) == 0);
    cuzk_threads_set(2);
    cuzk_fr *e = malloc(3 * sizeof *e);
    cuzk_fr_random(&e[0]);
    cuzk_fr_random(&e[1]);
    CHECK(!cuzk_fr_eq(&e[0], &e[1]));
    free(e);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    test_root_of_unity();
    test_encoding();
    test_vectors();
    return check_done("test_ff_fr");
}
