/* The CUDA backend against the CPU reference, on a GPU: the four NTTs at
 * sizes 2^1..2^22 (every plan shape of ntt.cu), H at several sizes, split
 * MSMs in G1 and G2 with and without density bitmaps and with scalars 0, 1,
 * r-1, small and random, bases reused from device memory and re-uploaded
 * when they change, both bucket accumulations (batch-affine and XYZZ) on
 * bases that repeat, cancel and lie at infinity, whole Groth16 proofs with fixed r, s
 * (bit-identical bytes, and they verify), the same proofs from a packed witness with a, b, c
 * computed by the device's SpMV (an unsatisfied witness named by the row the CPU names), the errors
 * for bad arguments, and a device out of memory (another allocation holds all but 64 MiB) reported
 * as ENOMEM with the handle still usable afterwards. Every result must equal the CPU's exactly.
 * Needs a GPU (ctest label "gpu"). */
#include "check.h"
#include "cuzk/backend.h"
#include "cuzk/curve.h"
#include "cuzk/gpu.h"
#include "cuzk/groth16.h"
#include "cuzk/wpack.h"
#include "cuzk/msm.h"
#include "cuzk/ntt.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"

#include <cuda_runtime.h>
#include <unistd.h>

static cuzk_gpu *gpu;

static void test_ntt(unsigned log_n)
{
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, log_n));
    size_t n = d.n;
    cuzk_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    void (*cpu[4])(const cuzk_ntt_domain *, cuzk_fr *) = {
        cuzk_ntt_forward, cuzk_ntt_inverse, cuzk_ntt_coset_forward, cuzk_ntt_coset_inverse};
    for (int k = 0; k < 4; k++) {
        cuzk_fr_vec_rng(x, n, 1000 + log_n * 4 + (unsigned)k);
        memcpy(y, x, n * sizeof *x);
        cpu[k](&d, x);
        CHECK_OK(cuzk_gpu_ntt(gpu, (cuzk_gpu_ntt_kind)k, log_n, y));
        int same = !memcmp(x, y, n * sizeof *x);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  NTT kind %d differs at 2^%u\n", k, log_n);
    }
    free(x);
    free(y);
    cuzk_ntt_domain_free(&d);
}

static void test_h(cuzk_backend *cpu, cuzk_backend *cuda, unsigned log_m, int snarkjs)
{
    size_t m = (size_t)1 << log_m;
    cuzk_fr *v[2][3];
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 3; i++) {
            v[s][i] = malloc(m * sizeof(cuzk_fr));
            cuzk_fr_vec_rng(v[s][i], m, 77 + log_m * 3 + (unsigned)i);
        }
    if (snarkjs) {
        CHECK(cuda->ops->compute_h_odd_coset != NULL);
        CHECK_OK(cpu->ops->compute_h_odd_coset(cpu, log_m, v[0][0], v[0][1], v[0][2]));
        CHECK_OK(cuda->ops->compute_h_odd_coset(cuda, log_m, v[1][0], v[1][1], v[1][2]));
    } else {
        CHECK_OK(cpu->ops->compute_h(cpu, log_m, v[0][0], v[0][1], v[0][2]));
        CHECK_OK(cuda->ops->compute_h(cuda, log_m, v[1][0], v[1][1], v[1][2]));
    }
    int same = !memcmp(v[0][0], v[1][0], m * sizeof(cuzk_fr));
    CHECK(same);
    if (!same)
        fprintf(stderr, "  H (%s basis) differs at 2^%u\n", snarkjs ? "snarkjs" : "bellperson",
                log_m);
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 3; i++)
            free(v[s][i]);
}

/* Scalar patterns: 0 mixed 0/1/random, 1 random, 2 all one, 3 all zero,
 * 4 edge values (r-1, 2, 3, 2^k, 1, 0) mixed with random. */
static void scalars(cuzk_fr *k, size_t n, int pattern, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cuzk_rng_u64(&g);
        cuzk_fr_rng(&k[i], &g);
        if (pattern == 0 && r % 3 == 0)
            cuzk_fr_zero(&k[i]);
        else if (pattern == 0 && r % 3 == 1)
            cuzk_fr_one(&k[i]);
        else if (pattern == 2)
            cuzk_fr_one(&k[i]);
        else if (pattern == 3)
            cuzk_fr_zero(&k[i]);
        else if (pattern == 4) {
            switch (r % 6) {
            case 0:
                cuzk_fr_one(&k[i]);
                cuzk_fr_neg(&k[i], &k[i]);
                break;
            case 1: cuzk_fr_from_u64(&k[i], 2 + (r >> 32) % 2); break;
            case 2: cuzk_fr_from_u64(&k[i], 1ULL << ((r >> 16) % 64)); break;
            case 3: cuzk_fr_one(&k[i]); break;
            case 4: cuzk_fr_zero(&k[i]); break;
            default: break;
            }
        }
    }
}

static uint64_t *density(size_t n, int with, uint64_t seed, size_t *nb)
{
    uint64_t *d = calloc((n + 63) / 64 + 1, 8);
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    *nb = 0;
    for (size_t i = 0; i < n; i++)
        if (!with || cuzk_rng_u64(&g) % 10 < 7) {
            d[i / 64] |= 1ULL << (i % 64);
            (*nb)++;
        }
    return d;
}

static void g1_points(blst_p1_affine *out, size_t n, uint64_t seed)
{
    cuzk_fr *k = malloc(n * sizeof *k);
    cuzk_g1_fixed t;
    cuzk_fr_vec_rng(k, n, seed);
    CHECK_OK(cuzk_g1_fixed_init(&t, blst_p1_generator(), 8));
    cuzk_g1_fixed_mul_batch(out, &t, k, n);
    cuzk_g1_fixed_free(&t);
    free(k);
}

static void g2_points(blst_p2_affine *out, size_t n, uint64_t seed)
{
    cuzk_fr *k = malloc(n * sizeof *k);
    cuzk_g2_fixed t;
    cuzk_fr_vec_rng(k, n, seed);
    CHECK_OK(cuzk_g2_fixed_init(&t, blst_p2_generator(), 6));
    cuzk_g2_fixed_mul_batch(out, &t, k, n);
    cuzk_g2_fixed_free(&t);
    free(k);
}

static int stats_equal(const cuzk_msm_stats *a, const cuzk_msm_stats *b)
{
    return a->n == b->n && a->zeros == b->zeros && a->ones == b->ones && a->others == b->others;
}

/* Moved density bits whose CPU sum differed from before the move. */
static int density_moves_seen;

static void test_msm_g1(size_t n, int with_density, int pattern)
{
    size_t nb;
    uint64_t *d = density(n, with_density, n * 7 + (unsigned)pattern, &nb);
    blst_p1_affine *bases = malloc((nb + 1) * sizeof *bases);
    cuzk_fr *k = malloc(n * sizeof *k);
    g1_points(bases, nb, n + 11);
    if (nb > 2)
        memset(&bases[nb / 2], 0, sizeof *bases); /* a base at infinity */
    scalars(k, n, pattern, n * 13 + (unsigned)pattern);
    blst_p1 want, got;
    cuzk_msm_stats sw, sg;
    CHECK_OK(cuzk_msm_g1(&want, bases, nb, k, with_density ? d : NULL, n, &sw));
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, nb, k, with_density ? d : NULL, n, &sg));
    int same = blst_p1_is_equal(&want, &got) && stats_equal(&sw, &sg);
    CHECK(same);
    if (!same)
        fprintf(stderr, "  G1 MSM n=%zu density=%d pattern=%d differs\n", n, with_density, pattern);
    /* The same bases again (resident), other scalars; then a changed base. */
    scalars(k, n, 1, n * 17);
    CHECK_OK(cuzk_msm_g1(&want, bases, nb, k, with_density ? d : NULL, n, NULL));
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, nb, k, with_density ? d : NULL, n, NULL));
    CHECK(blst_p1_is_equal(&want, &got));
    if (nb > 1) {
        bases[0] = bases[nb - 1];
        CHECK_OK(cuzk_msm_g1(&want, bases, nb, k, with_density ? d : NULL, n, NULL));
        CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, nb, k, with_density ? d : NULL, n, NULL));
        CHECK(blst_p1_is_equal(&want, &got));
    }
    /* The same density buffer with one set bit moved (same count, same
     * address and size): the device's kept bitmap must not be reused. */
    size_t set = n, clear = n;
    for (size_t i = 0; with_density && i < n && (set == n || clear == n); i++) {
        int b = (int)((d[i / 64] >> (i % 64)) & 1);
        if (b && set == n)
            set = i;
        if (!b && clear == n)
            clear = i;
    }
    if (set < n && clear < n) {
        blst_p1 before = want;
        d[set / 64] &= ~(1ULL << (set % 64));
        d[clear / 64] |= 1ULL << (clear % 64);
        CHECK_OK(cuzk_msm_g1(&want, bases, nb, k, d, n, NULL));
        CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, nb, k, d, n, NULL));
        if (!blst_p1_is_equal(&want, &before))
            density_moves_seen++; /* the stale bitmap would have given `before` */
        same = blst_p1_is_equal(&want, &got);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  G1 MSM n=%zu: a changed density gave the old sum\n", n);
    }
    free(d);
    free(bases);
    free(k);
}

/* The device keeps a density bitmap's count with its copy: the same words
 * asked for over more bits (70 then 80 of the same two words) count again,
 * and a wrong number of bases is refused on a kept bitmap as on a new one.
 * Oracle: the CPU MSM over the same bitmap. */
static void test_density_count_kept(void)
{
    uint64_t d[2] = {~0ULL, 0xffffULL}; /* 64 + 16 set bits */
    blst_p1_affine bases[80];
    cuzk_fr k[80];
    g1_points(bases, 80, 71);
    cuzk_fr_vec_rng(k, 80, 72);
    blst_p1 want, got;
    size_t ns[3] = {70, 80, 70};
    for (int i = 0; i < 3; i++) {
        CHECK_OK(cuzk_msm_g1(&want, bases, ns[i], k, d, ns[i], NULL));
        CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, ns[i], k, d, ns[i], NULL));
        CHECK(blst_p1_is_equal(&want, &got));
    }
    CHECK_ERR(cuzk_gpu_msm_g1(gpu, &got, bases, 69, k, d, 70, NULL), CUZK_EINVAL,
              "69 bases for 70");
    CHECK_ERR(cuzk_gpu_msm_g1(gpu, &got, bases, 70, k, d, 80, NULL), CUZK_EINVAL,
              "70 bases for 80");
}

static void test_msm_g2(size_t n, int with_density, int pattern)
{
    size_t nb;
    uint64_t *d = density(n, with_density, n * 5 + (unsigned)pattern, &nb);
    blst_p2_affine *bases = malloc((nb + 1) * sizeof *bases);
    cuzk_fr *k = malloc(n * sizeof *k);
    g2_points(bases, nb, n + 3);
    scalars(k, n, pattern, n * 19 + (unsigned)pattern);
    blst_p2 want, got;
    cuzk_msm_stats sw, sg;
    CHECK_OK(cuzk_msm_g2(&want, bases, nb, k, with_density ? d : NULL, n, &sw));
    CHECK_OK(cuzk_gpu_msm_g2(gpu, &got, bases, nb, k, with_density ? d : NULL, n, &sg));
    int same = blst_p2_is_equal(&want, &got) && stats_equal(&sw, &sg);
    CHECK(same);
    if (!same)
        fprintf(stderr, "  G2 MSM n=%zu density=%d pattern=%d differs\n", n, with_density, pattern);
    free(d);
    free(bases);
    free(k);
}

/* Bases from a few points, negated and at infinity, with scalars from a
 * few values: buckets then hold equal points (tangent additions),
 * opposite points (sums at infinity) and infinity itself at every level
 * of the batch-affine accumulation as well as in the XYZZ one. */
static void test_msm_exceptional(size_t n, int g2)
{
    cuzk_fr *k = malloc(n * sizeof *k);
    static const uint64_t vals[] = {2, 1, 3, 5, 1, 7, 1u << 20};
    for (size_t i = 0; i < n; i++) {
        cuzk_fr_from_u64(&k[i], vals[(i / 3) % 7]);
        if (i % 11 == 0)
            cuzk_fr_neg(&k[i], &k[i]);
    }
    size_t es = g2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
    blst_p1_affine q1[3];
    blst_p2_affine q2[3];
    g1_points(q1, 3, 77);
    g2_points(q2, 3, 77);
    unsigned char *b = malloc(n * es);
    for (size_t i = 0; i < n; i++) {
        void *bi = b + i * es;
        memcpy(bi, g2 ? (const void *)&q2[i % 3] : (const void *)&q1[i % 3], es);
        if (i % 5 == 0 && g2)
            blst_fp2_cneg(&((blst_p2_affine *)bi)->y, &((blst_p2_affine *)bi)->y, 1);
        else if (i % 5 == 0)
            blst_fp_cneg(&((blst_p1_affine *)bi)->y, &((blst_p1_affine *)bi)->y, 1);
        if (i % 13 == 0)
            memset(bi, 0, es);
    }
    int same;
    if (g2) {
        blst_p2 want, got;
        CHECK_OK(cuzk_msm_g2(&want, (blst_p2_affine *)b, n, k, NULL, n, NULL));
        CHECK_OK(cuzk_gpu_msm_g2(gpu, &got, (blst_p2_affine *)b, n, k, NULL, n, NULL));
        same = blst_p2_is_equal(&want, &got);
    } else {
        blst_p1 want, got;
        CHECK_OK(cuzk_msm_g1(&want, (blst_p1_affine *)b, n, k, NULL, n, NULL));
        CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, (blst_p1_affine *)b, n, k, NULL, n, NULL));
        same = blst_p1_is_equal(&want, &got);
    }
    free(b);
    CHECK(same);
    if (!same)
        fprintf(stderr, "  %s MSM of repeated points n=%zu (%s) differs\n", g2 ? "G2" : "G1", n,
                getenv("CUZK_GPU_MSM_ACC"));
    free(k);
}

/* Window plans: from 7 to 22 bits (CUZK_GPU_MSM_WINDOW), the 256 bits
 * split evenly (the default: some windows one bit narrower) and uniform
 * (the top window short), and the bucket reduction's segment offsets in
 * runs (the default) and by double-and-add (CUZK_GPU_MSM_RUNS=0). */
static void test_msm_windows(void)
{
    const char *cs[] = {"7", "9", "12", "14", "16", "19", "20", "22"};
    setenv("CUZK_GPU_MSM_ACC", "affine", 1);
    for (size_t i = 0; i < sizeof cs / sizeof *cs; i++) {
        setenv("CUZK_GPU_MSM_WINDOW", cs[i], 1);
        for (int u = 0; u < 3; u++) {
            if (u == 1)
                setenv("CUZK_GPU_MSM_WINDOWS", "uniform", 1);
            if (u == 2)
                setenv("CUZK_GPU_MSM_RUNS", "0", 1);
            test_msm_g1(65543, u == 1, i % 2 ? 1 : 4); /* random; edge scalars (r - 1, ...) */
            test_msm_exceptional(30011, 0);
            test_msm_g2(20011, u == 2, i % 2 ? 4 : 1);
            unsetenv("CUZK_GPU_MSM_WINDOWS");
            unsetenv("CUZK_GPU_MSM_RUNS");
        }
    }
    /* the widest windows in XYZZ too */
    setenv("CUZK_GPU_MSM_ACC", "xyzz", 1);
    test_msm_g1(65543, 0, 4);
    test_msm_g2(20011, 1, 1);
    unsetenv("CUZK_GPU_MSM_WINDOW");
    unsetenv("CUZK_GPU_MSM_ACC");
    printf("msm: window plans (7..22 bits; even and uniform splits; offsets in runs and by "
           "double-and-add; XYZZ at 22) compared\n");
}

/* Both accumulations (CUZK_GPU_MSM_ACC, and CUZK_GPU_MSM_ONES for the sum
 * of the entries with scalar 1) on the cases above and on random MSMs; the
 * batch-affine one also with windows in chunks (a 1 GiB scratch cap cuts
 * a 2^22 MSM into chunks of one window), their reductions beside the next
 * chunk's levels or not, and with the ones cut into pieces of 2^12. */
static void test_msm_accumulations(void)
{
    const char *acc[] = {"affine", "xyzz", "affine"};
    for (int a = 0; a < 3; a++) {
        setenv("CUZK_GPU_MSM_ACC", acc[a], 1);
        setenv("CUZK_GPU_MSM_ONES", acc[a], 1);
        /* the batch-affine levels to the end, then with their tail in XYZZ
         * (which takes these small MSMs from the first level) */
        setenv("CUZK_GPU_MSM_BA_TAIL", a ? "1" : "0", 1);
        size_t ns[] = {2, 7, 1000, 65543, 300007};
        for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
            test_msm_exceptional(ns[i], 0);
            test_msm_exceptional(ns[i] / 4 + 2, 1);
            for (int pat = 0; pat < 5; pat += 2)
                test_msm_g1(ns[i], pat & 1, pat);
            test_msm_g2(ns[i] / 4 + 2, 1, 4);
        }
    }
    unsetenv("CUZK_GPU_MSM_BA_TAIL");
    setenv("CUZK_GPU_MSM_ACC", "affine", 1);
    setenv("CUZK_GPU_MSM_SCRATCH_GIB", "1", 1);
    test_msm_g1((size_t)1 << 22, 0, 4);
    test_msm_g2((size_t)1 << 20, 0, 1);
    /* each chunk's reduction after its levels on one stream, not beside
     * the next chunk's (the default, two sets of bucket sums in turn) */
    setenv("CUZK_GPU_MSM_REDUCE_BESIDE", "0", 1);
    test_msm_g2((size_t)1 << 20, 0, 1);
    unsetenv("CUZK_GPU_MSM_REDUCE_BESIDE");
    unsetenv("CUZK_GPU_MSM_SCRATCH_GIB");
    setenv("CUZK_GPU_MSM_ONES_PIECE", "12", 1);
    test_msm_exceptional(65543, 0);
    test_msm_exceptional(30011, 1);
    test_msm_g1(300007, 1, 2);
    test_msm_g2(70001, 0, 0);
    unsetenv("CUZK_GPU_MSM_ONES_PIECE");
    /* the levels' product tree deep (fan-in 2 up to a top of 64) and flat
     * (fan-in 64, a top of 2^20: no tree), the ones in groups of 2^4 and
     * 2^16 entries */
    const char *tree[][3] = {{"2", "64", "4"}, {"64", "1048576", "16"}};
    for (int t = 0; t < 2; t++) {
        setenv("CUZK_GPU_MSM_BA_G", tree[t][0], 1);
        setenv("CUZK_GPU_MSM_BA_TOP", tree[t][1], 1);
        setenv("CUZK_GPU_MSM_ONES_GROUP", tree[t][2], 1);
        test_msm_exceptional(65543, t);
        test_msm_g1(300007, 1, t ? 0 : 2); /* all ones, then a third */
        test_msm_g2(70001, t, 0);
    }
    unsetenv("CUZK_GPU_MSM_BA_G");
    unsetenv("CUZK_GPU_MSM_BA_TOP");
    unsetenv("CUZK_GPU_MSM_ONES_GROUP");
    /* the ones' XYZZ tail from 1 point a group (levels to the end) and from
     * 256 (one thread adds a whole group); then the ones in XYZZ with 1 and
     * 256 listed bases a thread */
    const char *ones_var[][2] = {{"CUZK_GPU_MSM_ONES_TAIL", "1"},
                                 {"CUZK_GPU_MSM_ONES_TAIL", "256"},
                                 {"CUZK_GPU_MSM_ONES_CHUNK", "1"},
                                 {"CUZK_GPU_MSM_ONES_CHUNK", "256"}};
    for (int v = 0; v < 4; v++) {
        setenv("CUZK_GPU_MSM_ONES", v < 2 ? "affine" : "xyzz", 1);
        setenv(ones_var[v][0], ones_var[v][1], 1);
        test_msm_exceptional(65543, v & 1);
        test_msm_g1(300007, 1, 2);
        test_msm_g2(70001, v & 1, 0);
        unsetenv(ones_var[v][0]);
    }
    unsetenv("CUZK_GPU_MSM_ONES");
    unsetenv("CUZK_GPU_MSM_ACC");
    /* the window chunks on two streams (one by default) */
    setenv("CUZK_GPU_MSM_STREAMS", "2", 1);
    test_msm_exceptional(65543, 0);
    test_msm_g1(300007, 1, 4);
    test_msm_g2(70001, 1, 0);
    setenv("CUZK_GPU_MSM_SCRATCH_GIB", "1", 1); /* many chunks per worker */
    test_msm_g1((size_t)1 << 22, 0, 0);
    unsetenv("CUZK_GPU_MSM_SCRATCH_GIB");
    unsetenv("CUZK_GPU_MSM_STREAMS");
    /* the significant entries summed in parts (an 80 GB GPU's plan for a
     * 2^27 MSM whose batch-affine arrays fit only for a half): 2 and 3
     * parts (uneven), batch-affine at 2^22 in two parts of 2^21, with and
     * without a density bitmap, G2 too */
    const char *parts[] = {"2", "3"};
    for (int q = 0; q < 2; q++) {
        setenv("CUZK_GPU_MSM_PARTS", parts[q], 1);
        test_msm_exceptional(65543, q);
        test_msm_g1(300007, 1, 2);
        test_msm_g1(1000, 0, 4);
        test_msm_g2(70001, q, 0);
    }
    setenv("CUZK_GPU_MSM_PARTS", "2", 1);
    setenv("CUZK_GPU_MSM_ACC", "affine", 1);
    test_msm_g1((size_t)1 << 22, 0, 4);
    test_msm_g2((size_t)1 << 20, 1, 1);
    unsetenv("CUZK_GPU_MSM_ACC");
    unsetenv("CUZK_GPU_MSM_PARTS");
    /* the bucket reductions in segments of 32 (2^15 threads or more a
     * chunk), 16 and 2 buckets; these small MSMs take 8 by default */
    const char *segs[] = {"32", "16", "2"};
    for (int q = 0; q < 3; q++) {
        setenv("CUZK_GPU_MSM_SEG", segs[q], 1);
        for (int a = 0; a < 2; a++) {
            setenv("CUZK_GPU_MSM_ACC", a ? "xyzz" : "affine", 1);
            test_msm_exceptional(65543, a);
            test_msm_g1(300007, 1, 2);
            test_msm_g2(70001, a, 0);
        }
    }
    unsetenv("CUZK_GPU_MSM_ACC");
    unsetenv("CUZK_GPU_MSM_SEG");
    printf(
        "msm: batch-affine and XYZZ accumulation compared (repeated, opposite and infinite "
        "points; windows in chunks, reduced beside the next or not; ones in pieces and groups of "
        "2^4..2^16, tails of 1 and 256, XYZZ chunks of 1 and 256; product trees deep and flat; "
        "one stream or two; entries in 2 and 3 parts; segments of 2..32 buckets)\n");
}

/* A whole proof on both backends with fixed r, s: identical bytes. */
static void test_prove(cuzk_backend *cpu, cuzk_backend *cuda, uint64_t n)
{
    cuzk_synth_params sp = {n, 3, 99 + n};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    char pp[512], vp[512];
    snprintf(pp, sizeof pp, "%s/gpu-prove-%llu.params", check_tmpdir(), (unsigned long long)n);
    snprintf(vp, sizeof vp, "%s/gpu-prove-%llu.vk", check_tmpdir(), (unsigned long long)n);
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    CHECK_OK(cuzk_groth16_setup_basis(pce, pp, vp, NULL, CUZK_H_BELLPERSON, NULL));
    CHECK_OK(cuzk_params_read(pp, &params, 0));
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    cuzk_fr r, s;
    cuzk_fr_from_u64(&r, 12345 + n);
    cuzk_fr_from_u64(&s, 67890 + n);
    cuzk_proof p1, p2;
    uint8_t e1[CUZK_PROOF_BYTES], e2[CUZK_PROOF_BYTES];
    cuzk_prove_timings t1, t2;
    CHECK_OK(cuzk_groth16_prove(cpu, &params, pce, w, &r, &s, &p1, &t1));
    CHECK_OK(cuzk_groth16_prove(cuda, &params, pce, w, &r, &s, &p2, &t2));
    cuzk_proof_encode(e1, &p1);
    cuzk_proof_encode(e2, &p2);
    CHECK(!memcmp(e1, e2, sizeof e1));
    CHECK_OK(cuzk_groth16_verify(&params.vk, w + 1, 3, &p2));
    /* Device time is reported for the GPU's phases, never for the CPU's. */
    CHECK(t1.dev_h_kernel == 0 && t1.dev_msm_kernel == 0 && t1.dev_msm_copy == 0);
    CHECK(t2.dev_h_kernel > 0 && t2.dev_h_copy > 0 && t2.dev_msm_kernel > 0);
    CHECK(t2.dev_msm_copy > 0); /* the witness upload at least */
    /* The batch prover (witness uploaded once per proof, SpMV overlapped)
     * gives the same bytes on the GPU too. */
    const cuzk_fr *ws[3] = {w, w, w};
    cuzk_fr rs[3] = {r, r, r}, ss[3] = {s, s, s};
    cuzk_proof pb[3];
    size_t done = 0;
    CHECK_OK(cuzk_groth16_prove_batch(cuda, &params, pce, ws, 3, rs, ss, pb, NULL, &done));
    CHECK(done == 3);
    for (int i = 0; i < 3; i++)
        CHECK(!memcmp(&pb[i], &p2, sizeof p2));
    /* Every base set given back before the proof: before each witness MSM
     * the prover starts the next set's upload ahead (the device has room
     * here), and the MSMs take those copies; the same bytes. */
    cuzk_groth16_device_forget(cuda);
    cuzk_proof pah;
    CHECK_OK(cuzk_groth16_prove(cuda, &params, pce, w, &r, &s, &pah, NULL));
    CHECK(!memcmp(&pah, &p2, sizeof p2));
    /* From the packed witness: the device computes a, b, c itself from the
     * constraint system it keeps (uploaded by the first call, found again
     * by the second); the same bytes. */
    CHECK(cuzk_backend_device_spmv(cuda));
    CHECK(!cuzk_backend_device_spmv(cpu));
    size_t nv = pce->n_inputs + pce->n_aux;
    cuzk_wpack *wp = NULL;
    CHECK_OK(cuzk_wpack_build(w, nv, &wp));
    for (int rep = 0; rep < 4 && wp; rep++) {
        cuzk_proof pp4;
        cuzk_prove_timings t4;
        if (rep == 2) /* every variable read as a field element, 0/1 ones too */
            setenv("CUZK_GPU_SPMV_BITS", "0", 1);
        if (rep == 3) /* the SpMV timed (the host waits for it): the same a, b, c */
            setenv("CUZK_GPU_SPMV_PROFILE", "1", 1);
        CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp, &r, &s, &pp4, &t4));
        unsetenv("CUZK_GPU_SPMV_BITS");
        unsetenv("CUZK_GPU_SPMV_PROFILE");
        CHECK(!memcmp(&pp4, &p2, sizeof p2));
        CHECK(t4.spmv == 0 && t4.dev_h_kernel > 0 && t4.dev_msm_kernel > 0);
    }
    /* Uploaded ahead: each proof is told the next one's packed witness (a
     * second pack of the same w: another host array), whose proof then
     * starts on the copy made meanwhile; the same bytes. A copy made for a
     * witness that is not proved next is dropped, by the next proof or by
     * cuzk_backend_packed_drop, and never stands in for another. */
    cuzk_wpack *wp2 = NULL;
    CHECK_OK(cuzk_wpack_build(w, nv, &wp2));
    if (wp && wp2) {
        const cuzk_wpack *seq[5] = {wp, wp2, wp, wp2, wp};
        for (int i = 0; i < 5; i++) {
            cuzk_proof pa;
            CHECK_OK(cuzk_groth16_prove_packed_next(
                cuda, &params, pce, w, seq[i], i + 1 < 5 ? seq[i + 1] : NULL, &r, &s, &pa, NULL));
            CHECK(!memcmp(&pa, &p2, sizeof p2));
        }
        cuzk_proof pa;
        /* made for wp2, then wp proved: dropped */
        CHECK_OK(cuzk_groth16_prove_packed_next(cuda, &params, pce, w, wp, wp2, &r, &s, &pa, NULL));
        CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp, &r, &s, &pa, NULL));
        CHECK(!memcmp(&pa, &p2, sizeof p2));
        /* made for wp2, abandoned by the caller, then wp2 proved */
        CHECK_OK(cuzk_groth16_prove_packed_next(cuda, &params, pce, w, wp, wp2, &r, &s, &pa, NULL));
        cuzk_backend_packed_drop(cuda);
        cuzk_backend_packed_drop(cuda); /* nothing left: no-op */
        CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp2, &r, &s, &pa, NULL));
        CHECK(!memcmp(&pa, &p2, sizeof p2));
    }
    /* An unsatisfied witness: the device names the row the CPU names. */
    cuzk_fr *bad = malloc(nv * sizeof *bad);
    memcpy(bad, w, nv * sizeof *bad);
    cuzk_fr_from_u64(&bad[nv / 2], 987654321);
    cuzk_wpack *bad_wp = NULL;
    CHECK_OK(cuzk_wpack_build(bad, nv, &bad_wp));
    cuzk_proof pbad;
    char cpu_msg[256];
    CHECK_ERR(cuzk_groth16_prove(cpu, &params, pce, bad, &r, &s, &pbad, NULL), CUZK_EINVAL,
              "does not satisfy constraint");
    snprintf(cpu_msg, sizeof cpu_msg, "%s", cuzk_errmsg());
    CHECK_ERR(cuzk_groth16_prove_packed(cuda, &params, pce, bad, bad_wp, &r, &s, &pbad, NULL),
              CUZK_EINVAL, cpu_msg);
    /* and the handle goes on proving right afterwards */
    CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp, &r, &s, &pbad, NULL));
    CHECK(!memcmp(&pbad, &p2, sizeof p2));
    if (wp2) {
        /* the satisfied wp2 uploaded ahead, then the unsatisfied one proved:
         * wp2's copy is not used for it */
        CHECK_OK(
            cuzk_groth16_prove_packed_next(cuda, &params, pce, w, wp, wp2, &r, &s, &pbad, NULL));
        CHECK_ERR(cuzk_groth16_prove_packed(cuda, &params, pce, bad, bad_wp, &r, &s, &pbad, NULL),
                  CUZK_EINVAL, cpu_msg);
        /* the unsatisfied one uploaded ahead and proved from that copy:
         * the same row named; that failing proof still uploads the wp2 it
         * was told of, and wp2's proof, from that copy, is right */
        CHECK_OK(
            cuzk_groth16_prove_packed_next(cuda, &params, pce, w, wp, bad_wp, &r, &s, &pbad, NULL));
        CHECK_ERR(cuzk_groth16_prove_packed_next(cuda, &params, pce, bad, bad_wp, wp2, &r, &s,
                                                 &pbad, NULL),
                  CUZK_EINVAL, cpu_msg);
        CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp2, &r, &s, &pbad, NULL));
        CHECK(!memcmp(&pbad, &p2, sizeof p2));
        cuzk_wpack_free(wp2);
        wp2 = NULL;
    }
    /* ... and a 0/1 variable flipped, which the device reads as its bit */
    cuzk_fr zero, one;
    memset(&zero, 0, sizeof zero);
    cuzk_fr_from_u64(&one, 1);
    memcpy(bad, w, nv * sizeof *bad);
    size_t flip = nv;
    for (size_t j = nv / 3; j < nv && flip == nv; j++)
        if (!memcmp(&w[j], &zero, sizeof zero) || !memcmp(&w[j], &one, sizeof one))
            flip = j;
    CHECK(flip < nv);
    if (flip < nv) {
        bad[flip] = memcmp(&w[flip], &zero, sizeof zero) ? zero : one;
        cuzk_wpack_free(bad_wp);
        bad_wp = NULL;
        CHECK_OK(cuzk_wpack_build(bad, nv, &bad_wp));
        CHECK_ERR(cuzk_groth16_prove(cpu, &params, pce, bad, &r, &s, &pbad, NULL), CUZK_EINVAL,
                  "does not satisfy constraint");
        snprintf(cpu_msg, sizeof cpu_msg, "%s", cuzk_errmsg());
        CHECK_ERR(cuzk_groth16_prove_packed(cuda, &params, pce, bad, bad_wp, &r, &s, &pbad, NULL),
                  CUZK_EINVAL, cpu_msg);
    }
    free(bad);
    cuzk_wpack_free(bad_wp);
    /* Parameters kept on the device with their host copy released: the
     * same proof bytes, and the CPU backend refuses them. Another backend
     * handle (its own resident sets) does not keep them either. */
    cuzk_backend *other;
    CHECK_OK(cuzk_backend_open("cuda", &other));
    CHECK(!cuzk_groth16_params_on_device(cuda, &params));
    CHECK_OK(cuzk_groth16_params_to_device(cuda, &params));
    CHECK(cuzk_groth16_params_on_device(cuda, &params));
    CHECK(!cuzk_groth16_params_on_device(other, &params));
    CHECK(cuzk_params_release_host(&params) > 0);
    cuzk_proof p3;
    CHECK_OK(cuzk_groth16_prove(cuda, &params, pce, w, &r, &s, &p3, NULL));
    CHECK(!memcmp(&p3, &p2, sizeof p2));
    memset(&p3, 0, sizeof p3);
    CHECK_OK(cuzk_groth16_prove_packed(cuda, &params, pce, w, wp, &r, &s, &p3, NULL));
    CHECK(!memcmp(&p3, &p2, sizeof p2));
    cuzk_wpack_free(wp);
    CHECK_ERR(cuzk_groth16_prove(other, &params, pce, w, &r, &s, &p3, NULL), CUZK_EINVAL,
              "host copy was released");
    CHECK_ERR(cuzk_groth16_prove(cpu, &params, pce, w, &r, &s, &p3, NULL), CUZK_EINVAL,
              "host copy was released");
    cuzk_backend_close(other);
    cuzk_groth16_device_forget(cuda); /* before the arrays it keeps are freed */
    CHECK(!cuzk_groth16_params_on_device(cuda, &params));
    printf("prove n=%llu: cpu and cuda proofs %s\n", (unsigned long long)n,
           memcmp(e1, e2, sizeof e1) ? "DIFFER" : "identical");
    unlink(pp);
    unlink(vp);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
}

static void test_errors(void)
{
    cuzk_gpu *g2;
    CHECK_ERR(cuzk_gpu_open(99, &g2), CUZK_EUNSUPPORTED, "no such CUDA device");
    cuzk_fr x[4];
    CHECK_ERR(cuzk_gpu_ntt(gpu, CUZK_GPU_NTT_FORWARD, 0, x), CUZK_EINVAL, "outside 1..28");
    CHECK_ERR(cuzk_gpu_ntt(gpu, CUZK_GPU_NTT_FORWARD, 29, x), CUZK_EINVAL, "outside 1..28");
    CHECK_ERR(cuzk_gpu_ntt(gpu, (cuzk_gpu_ntt_kind)9, 2, x), CUZK_EINVAL, "unknown transform");
    CHECK_ERR(cuzk_gpu_compute_h(gpu, 40, x, x, x), CUZK_EINVAL, "outside 1..28");
    blst_p1_affine b[4];
    blst_p1 out;
    memset(b, 0, sizeof b);
    memset(x, 0, sizeof x);
    CHECK_ERR(cuzk_gpu_msm_g1(gpu, &out, b, 3, x, NULL, 4, NULL), CUZK_EINVAL, "3 bases for 4");
    uint64_t dens = 0x5;
    CHECK_ERR(cuzk_gpu_msm_g1(gpu, &out, b, 3, x, &dens, 4, NULL), CUZK_EINVAL, "3 bases for 2");
    /* Empty MSM: infinity. */
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &out, b, 0, x, NULL, 0, NULL));
    CHECK(blst_p1_is_inf(&out));
}

/* compute_h_resident leaves the host a untouched and its h on the device
 * only: the H MSM over another array is refused rather than run over stale
 * host data. (The matching H MSM is checked by the whole proofs below.) */
static void test_h_resident(void)
{
    const unsigned lg = 10;
    size_t m = (size_t)1 << lg;
    cuzk_fr *v = malloc(4 * m * sizeof *v), *keep = v + 3 * m;
    cuzk_fr_vec_rng(v, 3 * m, 4242);
    memcpy(keep, v, m * sizeof *v);
    CHECK_OK(cuzk_gpu_compute_h_resident(gpu, lg, v, v + m, v + 2 * m, NULL, 0));
    CHECK(!memcmp(keep, v, m * sizeof *v));
    blst_p1 out;
    blst_p1_affine base;
    blst_p1_to_affine(&base, blst_p1_generator());
    CHECK_ERR(cuzk_gpu_msm_g1_h(gpu, &out, &base, 1, keep, 1), CUZK_EINVAL, "device only");
    /* after compute_h (h downloaded), another array is simply uploaded */
    CHECK_OK(cuzk_gpu_compute_h(gpu, lg, v, v + m, v + 2 * m));
    CHECK_OK(cuzk_gpu_msm_g1_h(gpu, &out, &base, 1, keep, 1));
    blst_p1 want;
    CHECK_OK(cuzk_msm_g1(&want, &base, 1, keep, NULL, 1, NULL));
    CHECK(blst_p1_is_equal(&out, &want));
    free(v);
}

/* All of the device's free memory but about `keep` bytes, held by one
 * allocation; NULL when none could be made. Fragmentation: each try asks a
 * little less. */
static void *device_hog(size_t keep)
{
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return NULL;
    void *hog = NULL;
    while (free_b > 2 * keep && cudaMalloc(&hog, free_b - keep) != cudaSuccess) {
        cudaGetLastError();
        hog = NULL;
        free_b -= keep;
    }
    return hog;
}

/* Blocks kept between proofs count as free memory and go back when an
 * allocation runs short: after two H computations at 2^22 (the first's
 * vectors kept and taken again by the second, b and c's 256 MiB kept
 * after it) and an MSM (its scratch, the arena, idle after it), a hog of
 * all but 64 MiB of the device, then a 2^22 NTT (128 MiB of data) runs on
 * the memory the kept blocks gave back, and the arena stays (only when
 * kept blocks do not suffice does an allocation take it). Oracles: the
 * CPU NTT and MSM. */
static void test_kept_blocks(void)
{
    size_t n = (size_t)1 << 22, bytes = n * sizeof(cuzk_fr);
    cuzk_fr *v[3], *x = malloc(bytes), *y = malloc(bytes);
    for (int i = 0; i < 3; i++) {
        v[i] = malloc(bytes);
        cuzk_fr_vec_rng(v[i], n, 40 + (unsigned)i);
    }
    CHECK_OK(cuzk_gpu_compute_h(gpu, 22, v[0], v[1], v[2]));
    CHECK_OK(cuzk_gpu_compute_h(gpu, 22, v[0], v[1], v[2]));
    test_msm_g1(4096, 0, 0);
    size_t raw_free = 0, total_b = 0, told_free = 0, told_total = 0;
    CHECK(cudaMemGetInfo(&raw_free, &total_b) == cudaSuccess);
    CHECK_OK(cuzk_gpu_device_mem(0, &told_free, &told_total));
    CHECK(told_free >= raw_free + 2 * bytes); /* b and c's block counted free */
    cuzk_gpu_mem m0, m1;
    CHECK_OK(cuzk_gpu_mem_info(gpu, &m0));
    CHECK(m0.kept_bytes >= 2 * bytes && m0.arena_bytes > 0);
    CHECK(m0.free_bytes >= raw_free + m0.kept_bytes + m0.arena_bytes);
    void *hog = device_hog((size_t)64 << 20);
    CHECK(hog != NULL);
    cuzk_fr_vec_rng(x, n, 44);
    memcpy(y, x, bytes);
    CHECK_OK(cuzk_gpu_ntt(gpu, CUZK_GPU_NTT_FORWARD, 22, y));
    CHECK_OK(cuzk_gpu_mem_info(gpu, &m1));
    cudaFree(hog);
    CHECK(m1.kept_bytes < m0.kept_bytes);
    CHECK(m1.arena_bytes == m0.arena_bytes);
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, 22));
    cuzk_ntt_forward(&d, x);
    CHECK(!memcmp(x, y, bytes));
    cuzk_ntt_domain_free(&d);
    /* cuzk_gpu_trim gives them back at once */
    CHECK_OK(cuzk_gpu_compute_h(gpu, 22, v[0], v[1], v[2]));
    CHECK_OK(cuzk_gpu_compute_h(gpu, 22, v[0], v[1], v[2]));
    size_t before = 0, after = 0;
    CHECK(cudaMemGetInfo(&before, &total_b) == cudaSuccess);
    cuzk_gpu_trim(gpu);
    CHECK(cudaMemGetInfo(&after, &total_b) == cudaSuccess);
    CHECK(after >= before + 2 * bytes);
    for (int i = 0; i < 3; i++)
        free(v[i]);
    free(x);
    free(y);
    printf("kept blocks: counted free, given back under a full device and by trim\n");
}

/* Base sets kept resident from earlier MSMs give way to a proof's buffers:
 * with 2^22 G1 bases resident (384 MiB) and all but ~64 MiB of the rest of
 * the device held, H at 2^21 (a, b and c: 192 MiB) runs on the memory the
 * set gives back, and once the memory is free the MSM uploads its bases
 * again. Without this an 80 GB GPU that had kept a 32 GiB WindowPoSt's base
 * sets could not start the next proof. Oracles: the CPU's MSM, and H
 * computed before the device was full (compared with the CPU's in test_h). */
static void test_resident_shed(void)
{
    const unsigned lg = 21;
    size_t n = (size_t)1 << 22, m = (size_t)1 << lg, hbytes = 3 * m * sizeof(cuzk_fr);
    blst_p1_affine *bases = malloc(n * sizeof *bases);
    cuzk_fr *k = malloc(n * sizeof *k), *v = malloc(4 * m * sizeof *v), *h = v + 3 * m;
    g1_points(bases, n, 77);
    cuzk_fr_vec_rng(k, n, 78);
    cuzk_fr_vec_rng(v, 3 * m, 79);
    memcpy(h, v, m * sizeof *h);
    cuzk_gpu_msm_forget(gpu);
    CHECK_OK(cuzk_gpu_compute_h(gpu, lg, h, v + m, v + 2 * m)); /* its tables made */
    blst_p1 want, got;
    CHECK_OK(cuzk_msm_g1(&want, bases, n, k, NULL, n, NULL));
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p1_is_equal(&want, &got));
    cuzk_gpu_mem m0, m1;
    cuzk_gpu_trim(gpu);
    CHECK_OK(cuzk_gpu_mem_info(gpu, &m0));
    CHECK(m0.resident_bytes >= n * sizeof *bases);
    size_t free_b = 0, total_b = 0;
    void *hog = device_hog((size_t)64 << 20);
    CHECK(hog != NULL);
    if (!hog)
        return;
    CHECK(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess);
    CHECK(free_b < hbytes); /* H does not fit beside the bases */
    CHECK_OK(cuzk_gpu_compute_h(gpu, lg, v, v + m, v + 2 * m));
    CHECK(!memcmp(v, h, m * sizeof *h));
    CHECK_OK(cuzk_gpu_mem_info(gpu, &m1));
    CHECK(m1.resident_bytes + n * sizeof *bases <= m0.resident_bytes);
    cudaFree(hog);
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p1_is_equal(&want, &got));
    CHECK_OK(cuzk_gpu_mem_info(gpu, &m1));
    CHECK(m1.resident_bytes >= n * sizeof *bases);
    free(bases);
    free(k);
    free(v);
    printf("resident bases: given back for H under a full device, uploaded again after\n");
}

/* The GPU's MSM of bases[0..n) with k equals want (the CPU's). */
static void msm_on_gpu(const blst_p1_affine *bases, size_t n, const cuzk_fr *k, const blst_p1 *want)
{
    blst_p1 got;
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p1_is_equal(want, &got));
}

/* Which set gives way (src/gpu/shed.h): of the two sets needed last, the
 * smaller when it covers what the allocation lacks (the default), or with
 * CUZK_GPU_SHED_COVER=0 the one needed last. Set A (2^21 points, 192 MiB)
 * is used, then set B (2^22, 384 MiB), and the device is filled to all but
 * ~64 MiB; the witness scalars (128 MiB) then lack ~64-128 MiB. With the
 * setting 0, B (used last, so needed last) goes; by default A, which covers
 * it. Oracles: the bytes that left the device, and the CPU's MSMs over both
 * sets afterwards (the one given back goes up again). */
static void test_shed_cover(void)
{
    size_t na = (size_t)1 << 21, nb = (size_t)1 << 22, ns = (size_t)1 << 22;
    size_t el = sizeof(blst_p1_affine);
    blst_p1_affine *a = malloc(na * el), *b = malloc(nb * el);
    cuzk_fr *k = malloc(nb * sizeof *k), *w = malloc(ns * sizeof *w);
    g1_points(a, na, 101);
    g1_points(b, nb, 102);
    cuzk_fr_vec_rng(k, nb, 103);
    cuzk_fr_vec_rng(w, ns, 104);
    blst_p1 want_a, want_b;
    CHECK_OK(cuzk_msm_g1(&want_a, a, na, k, NULL, na, NULL));
    CHECK_OK(cuzk_msm_g1(&want_b, b, nb, k, NULL, nb, NULL));
    for (int cover = 0; cover < 2; cover++) {
        if (cover)
            unsetenv("CUZK_GPU_SHED_COVER"); /* the default */
        else
            setenv("CUZK_GPU_SHED_COVER", "0", 1);
        cuzk_gpu_scalars_clear(gpu);
        cuzk_gpu_msm_forget(gpu);
        msm_on_gpu(a, na, k, &want_a);
        msm_on_gpu(b, nb, k, &want_b);
        cuzk_gpu_trim(gpu);
        cuzk_gpu_mem m0, m1;
        CHECK_OK(cuzk_gpu_mem_info(gpu, &m0));
        size_t free_b = 0, total_b = 0;
        void *hog = device_hog((size_t)64 << 20);
        CHECK(hog != NULL);
        if (!hog)
            break;
        CHECK(cudaMemGetInfo(&free_b, &total_b) == cudaSuccess);
        CHECK(free_b < ns * sizeof *w); /* the scalars do not fit beside both sets */
        CHECK_OK(cuzk_gpu_scalars_set(gpu, w, ns));
        CHECK_OK(cuzk_gpu_mem_info(gpu, &m1));
        size_t gone = m0.resident_bytes - m1.resident_bytes;
        printf("shed cover=%d: %zu MiB gave way (A %zu, B %zu)\n", cover, gone >> 20,
               (na * el) >> 20, (nb * el) >> 20);
        CHECK(gone == (cover ? na : nb) * el);
        cuzk_gpu_scalars_clear(gpu);
        cudaFree(hog);
        msm_on_gpu(a, na, k, &want_a);
        msm_on_gpu(b, nb, k, &want_b);
    }
    unsetenv("CUZK_GPU_SHED_COVER");
    free(a);
    free(b);
    free(k);
    free(w);
}

/* A base set uploaded ahead of its MSM (cuzk_gpu_bases_ahead), as the
 * prover asks before each witness MSM for the next set the device lacks.
 * Oracle: the CPU's MSM. The MSM uses the copy made ahead, not a second
 * upload: a point outside the sample that identifies the set is changed on
 * the host after the copy, and the MSM still equals the CPU's over the old
 * points. */
static void test_bases_ahead(void)
{
    size_t n = (size_t)1 << 20, m = (size_t)1 << 16, el = sizeof(blst_p1_affine);
    blst_p1_affine *bases = malloc(n * el), *other = malloc(m * el);
    cuzk_fr *k = malloc(n * sizeof *k);
    g1_points(bases, n, 91);
    g1_points(other, m, 92);
    cuzk_fr_vec_rng(k, n, 93);
    blst_p1 want, got;
    CHECK_OK(cuzk_msm_g1(&want, bases, n, k, NULL, n, NULL));
    cuzk_gpu_trim(gpu);
    cuzk_gpu_msm_forget(gpu);
    cuzk_gpu_mem mi;
    CHECK(cuzk_gpu_bases_ahead(gpu, bases, 0, el, 1000) == 0); /* nothing to move */
    CHECK(cuzk_gpu_bases_ahead(gpu, bases, n, el, 1000) == 1);
    CHECK(cuzk_gpu_bases_ahead(gpu, other, m, el, 1000) == -1); /* one at a time */
    int st = 1;
    for (int i = 0; i < 20000 && st == 1; i++) { /* up within 20 s */
        st = cuzk_gpu_bases_ahead(gpu, bases, n, el, 1000);
        if (st == 1)
            usleep(1000);
    }
    CHECK(st == 0); /* finished: an ordinary resident set now */
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == n * el);
    blst_p1_affine keep = bases[1];
    bases[1] = bases[2]; /* index 1 is not sampled: the device copy still holds the old one */
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p1_is_equal(&want, &got));
    bases[1] = keep;
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == n * el);
    /* Turned off: nothing starts. */
    setenv("CUZK_GPU_BASES_AHEAD", "0", 1);
    CHECK(cuzk_gpu_bases_ahead(gpu, other, m, el, 1000) == -1);
    unsetenv("CUZK_GPU_BASES_AHEAD");
    /* No room beside the next MSM's buffers: nothing starts and nothing is
     * given back for it. */
    cuzk_gpu_trim(gpu);
    void *hog = device_hog((size_t)64 << 20);
    CHECK(hog != NULL);
    CHECK(cuzk_gpu_bases_ahead(gpu, other, m, el, 1000) == -1);
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == n * el);
    cudaFree(hog);
    /* Forgotten while under way: the upload is waited for, nothing kept. */
    cuzk_gpu_msm_forget(gpu);
    CHECK(cuzk_gpu_bases_ahead(gpu, bases, n, el, 1000) == 1);
    cuzk_gpu_msm_forget(gpu);
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == 0);
    /* Under way when its MSM comes: the MSM waits for it, and is right. */
    CHECK(cuzk_gpu_bases_ahead(gpu, bases, n, el, 1000) == 1);
    CHECK_OK(cuzk_gpu_msm_g1(gpu, &got, bases, n, k, NULL, n, NULL));
    CHECK(blst_p1_is_equal(&want, &got));
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == n * el);
    cuzk_gpu_msm_forget(gpu);
    free(bases);
    free(other);
    free(k);
    printf("bases ahead: used by their MSM, one at a time, never into memory held\n");
}

static void test_oom(void)
{
    /* what the handle keeps for reuse goes back first (base sets too: they
     * would give way to the MSM below) */
    cuzk_gpu_trim(gpu);
    cuzk_gpu_msm_forget(gpu);
    void *hog = device_hog((size_t)64 << 20);
    CHECK(hog != NULL);
    if (!hog)
        return;
    size_t n = (size_t)1 << 22;
    cuzk_fr *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    cuzk_fr_vec_rng(x, n, 3);
    memcpy(y, x, n * sizeof *x);
    CHECK_ERR(cuzk_gpu_ntt(gpu, CUZK_GPU_NTT_FORWARD, 22, y), CUZK_ENOMEM, "GPU out of memory");
    blst_p1_affine *bases = calloc(n, sizeof *bases);
    blst_p1 out;
    CHECK_ERR(cuzk_gpu_msm_g1(gpu, &out, bases, n, x, NULL, n, NULL), CUZK_ENOMEM,
              "GPU out of memory: MSM bases");
    free(bases);
    /* A small G2 MSM still runs, and right, though no G2 kernel has run in
     * this process yet: its reductions' local memory (up to 1.8 KB a
     * thread, 352 MiB of an H100 80GB) was reserved when the handle opened;
     * grown at their first launch, as CUDA does by default, it needs memory
     * that is not free here ("out of memory" at the launch). */
    test_msm_g2(1000, 0, 0);
    cudaFree(hog);
    /* Usable again, and right. */
    cuzk_ntt_domain d;
    CHECK_OK(cuzk_ntt_domain_init(&d, 22));
    memcpy(y, x, n * sizeof *x);
    cuzk_ntt_forward(&d, x);
    CHECK_OK(cuzk_gpu_ntt(gpu, CUZK_GPU_NTT_FORWARD, 22, y));
    CHECK(!memcmp(x, y, n * sizeof *x));
    cuzk_ntt_domain_free(&d);
    free(x);
    free(y);
    printf("out of memory: ENOMEM reported, handle usable afterwards\n");
}

int main(void)
{
    if (cuzk_gpu_count() == 0) {
        fprintf(stderr, "test_gpu_backend: no CUDA device\n");
        return 2;
    }
    char desc[256];
    CHECK_OK(cuzk_gpu_describe(0, desc, sizeof desc));
    printf("%s\n", desc);
    /* blocks kept between proofs (off by default) in every check below,
     * and one proof without */
    setenv("CUZK_GPU_KEEP_BLOCKS", "1", 1);
    /* Opening reserves the MSM kernels' local memory: the stack limit rises
     * above CUDA's default 1 KiB (the G2 bucket reduction's frame) and the
     * device's free memory falls by about that times its threads. */
    size_t free0 = 0, free1 = 0, total = 0, stack = 0;
    CHECK(cudaSetDevice(0) == cudaSuccess && cudaFree(NULL) == cudaSuccess);
    CHECK(cudaMemGetInfo(&free0, &total) == cudaSuccess);
    CHECK_OK(cuzk_gpu_open(0, &gpu));
    if (!gpu)
        return check_done("test_gpu_backend");
    CHECK(cudaMemGetInfo(&free1, &total) == cudaSuccess);
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess);
    CHECK(stack > 1024);
    printf("open: stack limit %zu bytes a thread, %.1f MiB of the device taken\n", stack,
           ((double)free0 - (double)free1) / (1 << 20));
    test_errors();
    test_h_resident();
    test_kept_blocks();
    test_resident_shed();
    test_shed_cover();
    test_bases_ahead();
    test_oom();
    for (unsigned lg = 1; lg <= 22; lg++)
        test_ntt(lg);
    printf("ntt: 4 kinds x 2^1..2^22 compared\n");
    cuzk_backend *cpu, *cuda;
    CHECK_OK(cuzk_backend_open("cpu", &cpu));
    CHECK_OK(cuzk_backend_open("cuda", &cuda));
    CHECK(!strcmp(cuzk_backend_name(cuda), "cuda"));
    CHECK(cuzk_backend_device(cuda) == 0);
    {
        char nm[32];
        cuzk_backend *none;
        snprintf(nm, sizeof nm, "cuda:%d", cuzk_gpu_count());
        CHECK_ERR(cuzk_backend_open(nm, &none), CUZK_EUNSUPPORTED, "no such GPU");
        cuzk_backend *last;
        snprintf(nm, sizeof nm, "cuda:%d", cuzk_gpu_count() - 1);
        CHECK_OK(cuzk_backend_open(nm, &last));
        CHECK(cuzk_backend_device(last) == cuzk_gpu_count() - 1);
        cuzk_backend_close(last);
    }
    unsigned hs[] = {1, 2, 5, 10, 11, 14, 18, 21};
    for (size_t i = 0; i < sizeof hs / sizeof *hs; i++)
        for (int sj = 0; sj < 2; sj++)
            test_h(cpu, cuda, hs[i], sj);
    printf("compute_h and compute_h_odd_coset compared\n");
    size_t ns[] = {1, 2, 3, 31, 64, 100, 1000, 4097, 65543, 300007};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++)
        for (int dn = 0; dn < 2; dn++)
            for (int pat = 0; pat < 5; pat++)
                test_msm_g1(ns[i], dn, pat);
    CHECK(density_moves_seen > 0); /* the moved-bit checks could tell a stale bitmap */
    printf("msm g1 compared (%d moved density bits changed the sum)\n", density_moves_seen);
    cuzk_gpu_mem mi;
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.total_bytes > 0 && mi.free_bytes <= mi.total_bytes);
    CHECK(mi.resident_bytes >= 300007 * sizeof(blst_p1_affine)); /* the last bases stay */
    CHECK(mi.resident_bytes < mi.total_bytes - mi.free_bytes);
    /* the 300007-point uploads went through the two pinned staging buffers,
     * which the process-wide count includes */
    CHECK(mi.pinned_host_bytes > 0 && cuzk_gpu_pinned_bytes() >= mi.pinned_host_bytes);
    cuzk_gpu_msm_forget(gpu);
    CHECK_OK(cuzk_gpu_mem_info(gpu, &mi));
    CHECK(mi.resident_bytes == 0);
    test_density_count_kept();
    size_t n2[] = {1, 2, 17, 500, 5003, 40009};
    for (size_t i = 0; i < sizeof n2 / sizeof *n2; i++)
        for (int dn = 0; dn < 2; dn++)
            for (int pat = 0; pat < 5; pat += 2)
                test_msm_g2(n2[i], dn, pat);
    printf("msm g2 compared\n");
    test_msm_accumulations();
    test_msm_windows();
    test_prove(cpu, cuda, 1000);
    test_prove(cpu, cuda, 40000);
    /* proofs with their vectors kept between them (blocks from 1 MiB:
     * these proofs are small): one of 50000 constraints, then one of 40000
     * on the same 2^16 domain whose blocks hold the first's values past its
     * rows; then with no block kept */
    setenv("CUZK_GPU_KEEP_MIN_MIB", "1", 1);
    test_prove(cpu, cuda, 50000);
    test_prove(cpu, cuda, 40000);
    setenv("CUZK_GPU_KEEP_BLOCKS", "0", 1);
    test_prove(cpu, cuda, 40000);
    setenv("CUZK_GPU_KEEP_BLOCKS", "1", 1);
    unsetenv("CUZK_GPU_KEEP_MIN_MIB");
    /* proofs this small take the XYZZ accumulation; the same with the
     * batch-affine one forced */
    setenv("CUZK_GPU_MSM_ACC", "affine", 1);
    setenv("CUZK_GPU_MSM_ONES", "affine", 1);
    setenv("CUZK_GPU_MSM_BA_TAIL", "0", 1); /* every level affine */
    test_prove(cpu, cuda, 40000);
    unsetenv("CUZK_GPU_MSM_BA_TAIL");
    unsetenv("CUZK_GPU_MSM_ONES");
    unsetenv("CUZK_GPU_MSM_ACC");
    cuzk_backend_close(cpu);
    cuzk_backend_close(cuda);
    cuzk_gpu_close(gpu);
    return check_done("test_gpu_backend");
}
