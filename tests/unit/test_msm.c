/* MSM against a naive sum of scalar multiplications, for G1 and G2, with and
 * without a density bitmap, with scalars mixing 0, 1 and random values, and
 * the same result at 1 and 2 threads. */
#include "check.h"
#include "cuzk/msm.h"
#include "cuzk/threads.h"

static void g1_points(blst_p1_affine *out, size_t n, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr k;
        blst_scalar s;
        blst_p1 p;
        cuzk_fr_rng(&k, &g);
        blst_scalar_from_fr(&s, &k);
        blst_p1_mult(&p, blst_p1_generator(), s.b, 255);
        blst_p1_to_affine(&out[i], &p);
    }
}

static void g2_points(blst_p2_affine *out, size_t n, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        cuzk_fr k;
        blst_scalar s;
        blst_p2 p;
        cuzk_fr_rng(&k, &g);
        blst_scalar_from_fr(&s, &k);
        blst_p2_mult(&p, blst_p2_generator(), s.b, 255);
        blst_p2_to_affine(&out[i], &p);
    }
}

/* Scalars: a third zero, a third one, a third random. */
static void mixed_scalars(cuzk_fr *k, size_t n, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cuzk_rng_u64(&g) % 3;
        if (r == 0)
            cuzk_fr_zero(&k[i]);
        else if (r == 1)
            cuzk_fr_one(&k[i]);
        else
            cuzk_fr_rng(&k[i], &g);
    }
}

static void test_g1(size_t n, int with_density)
{
    uint64_t *dens = calloc((n + 63) / 64 + 1, 8);
    cuzk_rng g;
    cuzk_rng_seed(&g, n);
    size_t nb = 0;
    for (size_t i = 0; i < n; i++)
        if (!with_density || cuzk_rng_u64(&g) % 4 != 0) {
            dens[i / 64] |= 1ULL << (i % 64);
            nb++;
        }
    blst_p1_affine *bases = malloc((nb + 1) * sizeof *bases);
    cuzk_fr *k = malloc((n + 1) * sizeof *k);
    g1_points(bases, nb, 100 + n);
    mixed_scalars(k, n, 200 + n);
    blst_p1 want, got, got1;
    memset(&want, 0, sizeof want);
    for (size_t i = 0, b = 0; i < n; i++) {
        if (!((dens[i / 64] >> (i % 64)) & 1))
            continue;
        blst_p1 t;
        blst_scalar s;
        blst_scalar_from_fr(&s, &k[i]);
        blst_p1_from_affine(&t, &bases[b++]);
        blst_p1_mult(&t, &t, s.b, 255);
        blst_p1_add_or_double(&want, &want, &t);
    }
    cuzk_msm_stats st;
    CHECK_OK(cuzk_msm_g1(&got, bases, nb, k, with_density ? dens : NULL, n, &st));
    CHECK(blst_p1_is_equal(&want, &got));
    CHECK(st.n == nb && st.zeros + st.ones + st.others == nb);
    CHECK(n < 30 || (st.zeros > 0 && st.ones > 0 && st.others > 0));
    cuzk_threads_set(1);
    CHECK_OK(cuzk_msm_g1(&got1, bases, nb, k, with_density ? dens : NULL, n, NULL));
    cuzk_threads_set(2);
    CHECK(blst_p1_is_equal(&got1, &got));
    /* A base count that disagrees with the density is refused. */
    CHECK_ERR(cuzk_msm_g1(&got, bases, nb + 1, k, with_density ? dens : NULL, n, NULL), CUZK_EINVAL,
              "density mismatch");
    free(dens);
    free(bases);
    free(k);
}

static void test_g2(size_t n)
{
    blst_p2_affine *bases = malloc(n * sizeof *bases);
    cuzk_fr *k = malloc(n * sizeof *k);
    g2_points(bases, n, 300 + n);
    mixed_scalars(k, n, 400 + n);
    blst_p2 want, got;
    memset(&want, 0, sizeof want);
    for (size_t i = 0; i < n; i++) {
        blst_p2 t;
        blst_scalar s;
        blst_scalar_from_fr(&s, &k[i]);
        blst_p2_from_affine(&t, &bases[i]);
        blst_p2_mult(&t, &t, s.b, 255);
        blst_p2_add_or_double(&want, &want, &t);
    }
    CHECK_OK(cuzk_msm_g2(&got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p2_is_equal(&want, &got));
    free(bases);
    free(k);
}

static void test_all_zero_and_empty(void)
{
    blst_p1_affine b[8];
    cuzk_fr k[8];
    g1_points(b, 8, 5);
    for (int i = 0; i < 8; i++)
        cuzk_fr_zero(&k[i]);
    blst_p1 out;
    CHECK_OK(cuzk_msm_g1(&out, b, 8, k, NULL, 8, NULL));
    CHECK(blst_p1_is_inf(&out));
    CHECK_OK(cuzk_msm_g1(&out, b, 0, k, NULL, 0, NULL));
    CHECK(blst_p1_is_inf(&out));
    /* A base used twice with scalar 1 (doubling inside the batch addition). */
    blst_p1_affine same[3] = {b[0], b[0], b[0]};
    cuzk_fr ones[3];
    for (int i = 0; i < 3; i++)
        cuzk_fr_one(&ones[i]);
    blst_p1 want;
    blst_p1_from_affine(&want, &b[0]);
    cuzk_fr three;
    cuzk_fr_from_u64(&three, 3);
    blst_scalar s;
    blst_scalar_from_fr(&s, &three);
    blst_p1_mult(&want, &want, s.b, 255);
    CHECK_OK(cuzk_msm_g1(&out, same, 3, ones, NULL, 3, NULL));
    CHECK(blst_p1_is_equal(&want, &out));
}

int main(void)
{
    size_t sizes[] = {1, 2, 3, 5, 64, 100, 1000, 5000, 9000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_g1(sizes[i], 0);
        test_g1(sizes[i], 1);
    }
    test_g2(1);
    test_g2(7);
    test_g2(700);
    test_all_zero_and_empty();
    return check_done("test_msm");
}
