/* GPU fixed-base multiplication and `setup --backend cuda` against the CPU,
 * on a GPU (ctest label "gpu"):
 *   - cuzk_gpu_fixed_mul_g1/g2 on scalars 0, 1, 2, r-1, r-2, powers of two
 *     and random values, for the generators and for a random base, equal the
 *     CPU comb's points byte for byte (0 gives the all-zero infinity);
 *   - the submit/collect pipeline over several small chunks, and its misuse
 *     (a third chunk in flight, collect with nothing submitted, a chunk too
 *     large, mul while chunks are in flight) as EINVAL;
 *   - bad arguments (NULL handle, base at infinity) as EINVAL and a chunk
 *     that cannot fit on the device as ENOMEM, the handle usable afterwards;
 *   - whole parameter files from cuzk_groth16_setup_ex with backend "cuda"
 *     and "auto" equal the CPU's for fixed secrets (both H bases).
 * CUZK_FIXED_BENCH=1 also prints the time of 2^22 G1 and 2^21 G2 points
 * (information for tuning; nothing is asserted about it). */
#include "check.h"
#include "cuzk/curve.h"
#include "cuzk/gpu.h"
#include "cuzk/groth16.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/util.h"

#include <unistd.h>

static cuzk_gpu *gpu;

static void edge_scalars(cuzk_fr *k, size_t n, uint64_t seed)
{
    cuzk_fr_vec_rng(k, n, seed);
    for (size_t i = 0; i < n; i++) {
        switch (i % 11) {
        case 0: cuzk_fr_zero(&k[i]); break;
        case 1: cuzk_fr_one(&k[i]); break;
        case 2: cuzk_fr_from_u64(&k[i], 2); break;
        case 3: /* r - 1 */
            cuzk_fr_one(&k[i]);
            cuzk_fr_neg(&k[i], &k[i]);
            break;
        case 4: /* r - 2 */
            cuzk_fr_from_u64(&k[i], 2);
            cuzk_fr_neg(&k[i], &k[i]);
            break;
        case 5: cuzk_fr_from_u64(&k[i], 1ULL << (i % 64)); break;
        case 6: cuzk_fr_from_u64(&k[i], 65535 + (i % 3)); break; /* window edges */
        default: break;
        }
    }
}

static void test_g1(const blst_p1 *base, size_t n, uint64_t seed)
{
    cuzk_fr *k = malloc(n * sizeof *k);
    blst_p1_affine *cpu = malloc(n * sizeof *cpu), *dev = malloc(n * sizeof *dev);
    edge_scalars(k, n, seed);
    cuzk_g1_fixed t;
    CHECK_OK(cuzk_g1_fixed_init(&t, base, 8));
    cuzk_g1_fixed_mul_batch(cpu, &t, k, n);
    cuzk_g1_fixed_free(&t);
    memset(dev, 0xa5, n * sizeof *dev);
    CHECK_OK(cuzk_gpu_fixed_mul_g1(gpu, dev, base, k, n));
    int same = !memcmp(cpu, dev, n * sizeof *cpu);
    CHECK(same);
    if (!same)
        for (size_t i = 0; i < n; i++)
            if (memcmp(&cpu[i], &dev[i], sizeof *cpu)) {
                fprintf(stderr, "  G1 fixed-base differs first at %zu of %zu\n", i, n);
                break;
            }
    static const uint8_t zero[sizeof(blst_p1_affine)];
    CHECK(!memcmp(&dev[0], zero, sizeof zero)); /* k = 0: infinity */
    free(k);
    free(cpu);
    free(dev);
}

static void test_g2(const blst_p2 *base, size_t n, uint64_t seed)
{
    cuzk_fr *k = malloc(n * sizeof *k);
    blst_p2_affine *cpu = malloc(n * sizeof *cpu), *dev = malloc(n * sizeof *dev);
    edge_scalars(k, n, seed);
    cuzk_g2_fixed t;
    CHECK_OK(cuzk_g2_fixed_init(&t, base, 6));
    cuzk_g2_fixed_mul_batch(cpu, &t, k, n);
    cuzk_g2_fixed_free(&t);
    memset(dev, 0xa5, n * sizeof *dev);
    CHECK_OK(cuzk_gpu_fixed_mul_g2(gpu, dev, base, k, n));
    int same = !memcmp(cpu, dev, n * sizeof *cpu);
    CHECK(same);
    if (!same)
        fprintf(stderr, "  G2 fixed-base differs (n = %zu)\n", n);
    static const uint8_t zero[sizeof(blst_p2_affine)];
    CHECK(!memcmp(&dev[0], zero, sizeof zero));
    free(k);
    free(cpu);
    free(dev);
}

/* Chunks of 1000 through submit/collect, two in flight, against the CPU. */
static void test_pipeline(void)
{
    size_t n = 4500, c = 1000;
    cuzk_fr *k = malloc(n * sizeof *k);
    blst_p1_affine *cpu = malloc(n * sizeof *cpu), *dev = malloc(n * sizeof *dev);
    edge_scalars(k, n, 99);
    cuzk_g1_fixed t;
    CHECK_OK(cuzk_g1_fixed_init(&t, blst_p1_generator(), 8));
    cuzk_g1_fixed_mul_batch(cpu, &t, k, n);
    cuzk_g1_fixed_free(&t);
    cuzk_gpu_fixed *f = NULL;
    CHECK_OK(cuzk_gpu_fixed_open_g1(gpu, blst_p1_generator(), c, &f));
    if (!f)
        goto done;
    CHECK(cuzk_gpu_fixed_chunk(f) == c);
    const void *pts;
    size_t m;
    CHECK_ERR(cuzk_gpu_fixed_collect(f, &pts, &m), CUZK_EINVAL, "no chunk was submitted");
    CHECK_ERR(cuzk_gpu_fixed_submit(f, k, c + 1), CUZK_EINVAL, "exceed the chunk of 1000");
    CHECK_ERR(cuzk_gpu_fixed_submit(f, NULL, 5), CUZK_EINVAL, "scalars are NULL");
    size_t nch = (n + c - 1) / c;
    CHECK_OK(cuzk_gpu_fixed_submit(f, k, c));
    for (size_t i = 0; i < nch; i++) {
        if (i + 1 < nch) {
            size_t lo = (i + 1) * c;
            CHECK_OK(cuzk_gpu_fixed_submit(f, k + lo, n - lo < c ? n - lo : c));
        }
        if (i == 0) {
            CHECK_ERR(cuzk_gpu_fixed_submit(f, k, 1), CUZK_EINVAL, "two chunks are in flight");
            CHECK_ERR(cuzk_gpu_fixed_mul(f, dev, k, 1), CUZK_EINVAL, "still in flight");
        }
        CHECK_OK(cuzk_gpu_fixed_collect(f, &pts, &m));
        CHECK(m == (n - i * c < c ? n - i * c : c));
        if (pts && m <= c)
            memcpy(dev + i * c, pts, m * sizeof *dev);
    }
    CHECK(!memcmp(cpu, dev, n * sizeof *cpu));
    /* An empty chunk, then mul of all n through the same table. */
    CHECK_OK(cuzk_gpu_fixed_submit(f, NULL, 0));
    CHECK_OK(cuzk_gpu_fixed_collect(f, &pts, &m));
    CHECK(m == 0);
    memset(dev, 0, n * sizeof *dev);
    CHECK_OK(cuzk_gpu_fixed_mul(f, dev, k, n));
    CHECK(!memcmp(cpu, dev, n * sizeof *cpu));
    cuzk_gpu_fixed_free(f);
done:
    free(k);
    free(cpu);
    free(dev);
}

static void test_errors(void)
{
    cuzk_gpu_fixed *f = (cuzk_gpu_fixed *)1;
    blst_p1 inf1;
    blst_p2 inf2;
    memset(&inf1, 0, sizeof inf1);
    memset(&inf2, 0, sizeof inf2);
    cuzk_fr k;
    blst_p1_affine o1;
    blst_p2_affine o2;
    cuzk_fr_one(&k);
    CHECK_ERR(cuzk_gpu_fixed_open_g1(NULL, blst_p1_generator(), 0, &f), CUZK_EINVAL,
              "GPU handle is NULL");
    CHECK(f == NULL);
    CHECK_ERR(cuzk_gpu_fixed_open_g1(gpu, NULL, 0, &f), CUZK_EINVAL, "base is NULL");
    CHECK_ERR(cuzk_gpu_fixed_open_g1(gpu, &inf1, 0, &f), CUZK_EINVAL, "point at infinity");
    CHECK_ERR(cuzk_gpu_fixed_open_g2(gpu, &inf2, 0, &f), CUZK_EINVAL, "point at infinity");
    CHECK_ERR(cuzk_gpu_fixed_open_g1(gpu, blst_p1_generator(), ((size_t)1 << 30) + 1, &f),
              CUZK_EINVAL, "exceeds 2^30");
    CHECK_ERR(cuzk_gpu_fixed_mul_g1(gpu, NULL, blst_p1_generator(), &k, 1), CUZK_EINVAL,
              "out is NULL");
    CHECK_ERR(cuzk_gpu_fixed_mul_g2(gpu, &o2, blst_p2_generator(), NULL, 1), CUZK_EINVAL,
              "k is NULL");
    CHECK_OK(cuzk_gpu_fixed_mul_g1(gpu, &o1, blst_p1_generator(), NULL, 0));
    CHECK_ERR(cuzk_gpu_fixed_submit(NULL, &k, 1), CUZK_EINVAL, "table is NULL");
    CHECK_ERR(cuzk_gpu_fixed_collect(NULL, NULL, NULL), CUZK_EINVAL, "NULL argument");
    CHECK_ERR(cuzk_gpu_fixed_mul(NULL, &o1, &k, 1), CUZK_EINVAL, "table is NULL");
    CHECK(cuzk_gpu_fixed_chunk(NULL) == 0);
    cuzk_gpu_fixed_free(NULL);
    /* 2^30 scalars of G2 need ~700 GiB of device memory. */
    CHECK_ERR(cuzk_gpu_fixed_open_g2(gpu, blst_p2_generator(), (size_t)1 << 30, &f), CUZK_ENOMEM,
              "fixed-base");
    CHECK(f == NULL);
    /* ... and the handle still works. */
    CHECK_OK(cuzk_gpu_fixed_mul_g1(gpu, &o1, blst_p1_generator(), &k, 1));
    CHECK(!memcmp(&o1, blst_p1_affine_generator(), sizeof o1));
}

static uint8_t *slurp(const char *path, size_t *n)
{
    uint8_t *b = NULL;
    *n = 0;
    return cuzk_read_file(path, &b, n) == CUZK_OK ? b : NULL;
}

static void test_setup(uint64_t constraints, cuzk_h_basis basis)
{
    cuzk_synth_params sp = {constraints, 2, 7};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    if (!pce)
        return;
    cuzk_setup_secrets s;
    cuzk_fr_from_u64(&s.tau, 987654321);
    cuzk_fr_from_u64(&s.alpha, 3);
    cuzk_fr_from_u64(&s.beta, 5);
    cuzk_fr_from_u64(&s.gamma, 7);
    cuzk_fr_from_u64(&s.delta, 9);
    char p[3][512], v[3][512];
    const char *names[3] = {"cpu", "cuda", "auto"};
    uint8_t *bytes[3] = {0}, *vks[3] = {0};
    size_t len[3] = {0}, vlen[3] = {0};
    for (int i = 0; i < 3; i++) {
        snprintf(p[i], sizeof p[i], "%s/fixed-%s.params", check_tmpdir(), names[i]);
        snprintf(v[i], sizeof v[i], "%s/fixed-%s.vk", check_tmpdir(), names[i]);
        cuzk_setup_options o = {.basis = basis, .backend = names[i]};
        cuzk_setup_timings tm;
        CHECK_OK(cuzk_groth16_setup_ex(pce, p[i], v[i], &s, &o, &tm));
        CHECK(tm.backend && !strcmp(tm.backend, i ? "cuda" : "cpu"));
        printf("setup %s 2^%u basis=%d: h=%.3f l=%.3f a=%.3f b_g1=%.3f b_g2=%.3f total=%.3f s\n",
               names[i], pce->log_domain, (int)basis, tm.h, tm.l, tm.a, tm.b_g1, tm.b_g2, tm.total);
        bytes[i] = slurp(p[i], &len[i]);
        vks[i] = slurp(v[i], &vlen[i]);
        unlink(p[i]);
        unlink(v[i]);
    }
    for (int i = 1; i < 3; i++) {
        int same = bytes[0] && bytes[i] && len[0] == len[i] && !memcmp(bytes[0], bytes[i], len[0]);
        CHECK(same);
        CHECK(vks[0] && vks[i] && vlen[0] == vlen[i] && !memcmp(vks[0], vks[i], vlen[0]));
        if (!same)
            fprintf(stderr, "  params from %s differ from the CPU's (%zu constraints)\n", names[i],
                    (size_t)constraints);
    }
    CHECK(len[0] > 1000);
    for (int i = 0; i < 3; i++) {
        free(bytes[i]);
        free(vks[i]);
    }
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
}

static void bench(void)
{
    size_t n1 = (size_t)1 << 22, n2 = (size_t)1 << 21;
    cuzk_fr *k = malloc(n1 * sizeof *k);
    void *out = malloc(n1 * sizeof(blst_p1_affine));
    cuzk_fr_vec_rng(k, n1, 5);
    cuzk_gpu_fixed *f;
    CHECK_OK(cuzk_gpu_fixed_open_g1(gpu, blst_p1_generator(), 0, &f));
    double t = cuzk_now();
    CHECK_OK(cuzk_gpu_fixed_mul(f, out, k, n1));
    printf("bench fixed G1 2^22: %.3f s (batch=%s wbits=%s)\n", cuzk_now() - t,
           getenv("CUZK_GPU_FIXED_BATCH") ? getenv("CUZK_GPU_FIXED_BATCH") : "16",
           getenv("CUZK_GPU_FIXED_WBITS") ? getenv("CUZK_GPU_FIXED_WBITS") : "16");
    cuzk_gpu_fixed_free(f);
    CHECK_OK(cuzk_gpu_fixed_open_g2(gpu, blst_p2_generator(), 0, &f));
    t = cuzk_now();
    CHECK_OK(cuzk_gpu_fixed_mul(f, out, k, n2));
    printf("bench fixed G2 2^21: %.3f s\n", cuzk_now() - t);
    cuzk_gpu_fixed_free(f);
    free(k);
    free(out);
}

int main(void)
{
    if (cuzk_gpu_count() == 0) {
        fprintf(stderr, "test_gpu_fixed: no CUDA device\n");
        return 2;
    }
    CHECK_OK(cuzk_gpu_open(0, &gpu));
    if (!gpu)
        return check_done("test_gpu_fixed");
    if (getenv("CUZK_FIXED_BENCH")) {
        bench();
        cuzk_gpu_close(gpu);
        return check_done("test_gpu_fixed");
    }
    test_errors();
    size_t sizes[] = {1, 2, 7, 1000, 40000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
        test_g1(blst_p1_generator(), sizes[i], 10 + i);
        test_g2(blst_p2_generator(), sizes[i] < 20000 ? sizes[i] : 20000, 20 + i);
    }
    /* A base other than the generator. */
    blst_p1 b1;
    blst_p2 b2;
    cuzk_fr x;
    cuzk_fr_from_u64(&x, 0x123456789abcdefULL);
    cuzk_g1_mul(&b1, blst_p1_generator(), &x);
    cuzk_g2_mul(&b2, blst_p2_generator(), &x);
    test_g1(&b1, 5000, 31);
    test_g2(&b2, 3000, 32);
    test_pipeline();
    test_setup(3000, CUZK_H_BELLPERSON);
    test_setup(3000, CUZK_H_SNARKJS);
    test_setup(70000, CUZK_H_BELLPERSON);
    cuzk_gpu_close(gpu);
    return check_done("test_gpu_fixed");
}
