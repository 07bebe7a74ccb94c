/* Groth16 end to end on the CPU backend: setup -> prove -> verify on
 * synthetic circuits of several sizes and input counts; rejection of tampered
 * proofs, wrong public inputs and proofs for another key; reproducible proof
 * bytes for fixed r, s at 1 and 2 threads; clear errors for an unsatisfied
 * witness, parameters of another circuit and unconstrained variables. */
#include "check.h"
#include "cuzk/groth16.h"
#include "cuzk/mem.h"
#include "cuzk/ntt.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    cuzk_r1cs *cs;
    cuzk_pce *pce;
    cuzk_params params;
    cuzk_vk vk;
    const cuzk_fr *w;
} fixture;

static int fixture_make_basis(fixture *f, uint64_t n, uint32_t n_public, uint64_t seed,
                              const char *tag, cuzk_h_basis basis)
{
    memset(f, 0, sizeof *f);
    cuzk_synth_params sp = {n, n_public, seed};
    char pp[512], vp[512];
    snprintf(pp, sizeof pp, "%s/prove-%s.params", check_tmpdir(), tag);
    snprintf(vp, sizeof vp, "%s/prove-%s.vk", check_tmpdir(), tag);
    CHECK_OK(cuzk_synth_build(&sp, 1, &f->cs));
    if (!f->cs)
        return -1;
    CHECK_OK(cuzk_pce_from_r1cs(&f->pce, f->cs));
    if (!f->pce)
        return -1;
    f->w = cuzk_r1cs_assignment(f->cs);
    cuzk_err e = cuzk_groth16_setup_basis(f->pce, pp, vp, NULL, basis, NULL);
    CHECK_OK(e);
    if (e)
        return -1;
    CHECK_OK(cuzk_params_read(pp, &f->params, CUZK_PARAMS_CHECKED));
    CHECK_OK(cuzk_vk_read(vp, &f->vk));
    /* The .vk is the VK part of the .params. */
    CHECK(f->vk.n_ic == f->params.vk.n_ic &&
          !memcmp(f->vk.ic, f->params.vk.ic, f->vk.n_ic * sizeof *f->vk.ic) &&
          !memcmp(&f->vk.delta_g2, &f->params.vk.delta_g2, sizeof f->vk.delta_g2));
    unlink(pp);
    unlink(vp);
    return 0;
}

static int fixture_make(fixture *f, uint64_t n, uint32_t n_public, uint64_t seed, const char *tag)
{
    return fixture_make_basis(f, n, n_public, seed, tag, CUZK_H_BELLPERSON);
}

static void fixture_free(fixture *f)
{
    cuzk_params_free(&f->params);
    cuzk_vk_free(&f->vk);
    cuzk_pce_free(f->pce);
    cuzk_r1cs_free(f->cs);
}

/* basis: the H query of the parameters; the prover follows its length. */
static void round_trip(cuzk_backend *be, uint64_t n, uint32_t n_public, cuzk_h_basis basis)
{
    fixture f;
    char tag[64];
    snprintf(tag, sizeof tag, "%llu-%u-%d", (unsigned long long)n, n_public, (int)basis);
    if (fixture_make_basis(&f, n, n_public, 42 + n + n_public, tag, basis)) {
        fixture_free(&f);
        return;
    }
    cuzk_proof proof;
    cuzk_prove_timings tm;
    size_t m = (size_t)1 << f.pce->log_domain;
    CHECK(f.params.n_h == (basis == CUZK_H_SNARKJS ? m : m - 1));
    CHECK_OK(cuzk_groth16_prove(be, &f.params, f.pce, f.w, NULL, NULL, &proof, &tm));
    const cuzk_fr *x = f.w + 1;
    CHECK_OK(cuzk_groth16_verify(&f.vk, x, n_public, &proof));
    /* The split MSMs saw mostly bits. */
    CHECK(tm.st_l.ones + tm.st_l.zeros > tm.st_l.others);

    /* Encoding round trip, then a tampered byte. */
    uint8_t enc[CUZK_PROOF_BYTES];
    cuzk_proof back;
    cuzk_proof_encode(enc, &proof);
    CHECK_OK(cuzk_proof_decode(&back, enc));
    CHECK_OK(cuzk_groth16_verify(&f.vk, x, n_public, &back));
    /* Swapping in a different valid point (A doubled) must fail to verify. */
    blst_p1 p;
    blst_p1_from_affine(&p, &proof.a);
    blst_p1_double(&p, &p);
    back = proof;
    blst_p1_to_affine(&back.a, &p);
    CHECK_ERR(cuzk_groth16_verify(&f.vk, x, n_public, &back), CUZK_EVERIFY, "does not verify");
    back = proof;
    blst_p1_from_affine(&p, &proof.c);
    blst_p1_add_or_double_affine(&p, &p, blst_p1_affine_generator());
    blst_p1_to_affine(&back.c, &p);
    CHECK_ERR(cuzk_groth16_verify(&f.vk, x, n_public, &back), CUZK_EVERIFY, "does not verify");
    if (n_public > 0) {
        cuzk_fr *bad = malloc(n_public * sizeof *bad);
        memcpy(bad, x, n_public * sizeof *bad);
        cuzk_fr one;
        cuzk_fr_one(&one);
        blst_fr_add(&bad[n_public - 1], &bad[n_public - 1], &one);
        CHECK_ERR(cuzk_groth16_verify(&f.vk, bad, n_public, &proof), CUZK_EVERIFY,
                  "does not verify");
        free(bad);
    }
    CHECK_ERR(cuzk_groth16_verify(&f.vk, x, n_public + 1, &proof), CUZK_EINVAL, "public inputs");
    fixture_free(&f);
}

static void another_vk_and_determinism(cuzk_backend *be)
{
    fixture f1, f2;
    if (fixture_make(&f1, 1024, 3, 7, "k1") || fixture_make(&f2, 1024, 3, 7, "k2")) {
        fixture_free(&f1);
        fixture_free(&f2);
        return;
    }
    cuzk_fr r, s;
    cuzk_fr_from_u64(&r, 11);
    cuzk_fr_from_u64(&s, 13);
    cuzk_proof p1, p2, p3;
    cuzk_threads_set(1);
    CHECK_OK(cuzk_groth16_prove(be, &f1.params, f1.pce, f1.w, &r, &s, &p1, NULL));
    cuzk_threads_set(2);
    CHECK_OK(cuzk_groth16_prove(be, &f1.params, f1.pce, f1.w, &r, &s, &p2, NULL));
    uint8_t e1[CUZK_PROOF_BYTES], e2[CUZK_PROOF_BYTES], e3[CUZK_PROOF_BYTES];
    cuzk_proof_encode(e1, &p1);
    cuzk_proof_encode(e2, &p2);
    CHECK(!memcmp(e1, e2, sizeof e1));
    /* Fresh randomness gives a different, still valid proof. */
    CHECK_OK(cuzk_groth16_prove(be, &f1.params, f1.pce, f1.w, NULL, NULL, &p3, NULL));
    cuzk_proof_encode(e3, &p3);
    CHECK(memcmp(e1, e3, sizeof e1) != 0);
    CHECK_OK(cuzk_groth16_verify(&f1.vk, f1.w + 1, 3, &p1));
    CHECK_OK(cuzk_groth16_verify(&f1.vk, f1.w + 1, 3, &p3));
    /* Same circuit, independent setup: the proof is bound to its key. */
    CHECK_ERR(cuzk_groth16_verify(&f2.vk, f1.w + 1, 3, &p1), CUZK_EVERIFY, "does not verify");

    /* An unsatisfied witness is refused before any MSM. */
    size_t nv = f1.pce->n_inputs + f1.pce->n_aux;
    cuzk_fr *bad = malloc(nv * sizeof *bad);
    memcpy(bad, f1.w, nv * sizeof *bad);
    cuzk_fr two;
    cuzk_fr_from_u64(&two, 2);
    blst_fr_add(&bad[nv - 1], &bad[nv - 1], &two);
    CHECK_ERR(cuzk_groth16_prove(be, &f1.params, f1.pce, bad, &r, &s, &p3, NULL), CUZK_EINVAL,
              "does not satisfy constraint");
    free(bad);
    fixture_free(&f1);
    fixture_free(&f2);
}

static void mismatched_params(cuzk_backend *be)
{
    fixture small, big;
    if (fixture_make(&small, 512, 1, 3, "s") || fixture_make(&big, 1024, 1, 3, "b")) {
        fixture_free(&small);
        fixture_free(&big);
        return;
    }
    cuzk_proof p;
    CHECK_ERR(cuzk_groth16_prove(be, &small.params, big.pce, big.w, NULL, NULL, &p, NULL),
              CUZK_EINVAL, "parameters do not match the circuit");
    /* Counts taken from the PCE (its popcounts) against one query short. */
    cuzk_params q = small.params;
    q.n_a--;
    CHECK_ERR(cuzk_groth16_prove(be, &q, small.pce, small.w, NULL, NULL, &p, NULL), CUZK_EINVAL,
              "a has");
    q = small.params;
    q.n_b_g2++;
    CHECK_ERR(cuzk_groth16_prove(be, &q, small.pce, small.w, NULL, NULL, &p, NULL), CUZK_EINVAL,
              "b_g2 has");
    /* A shape without counts (as zkey files give): the bitmaps are counted. */
    cuzk_groth16_shape sh = cuzk_groth16_shape_of(small.pce);
    CHECK(sh.a_count == small.params.n_a && sh.b_count == small.params.n_b_g1);
    sh.a_count = sh.b_count = 0;
    size_t m = (size_t)1 << sh.log_m;
    cuzk_fr *abc = calloc(3 * m, sizeof *abc);
    CHECK_ERR(cuzk_groth16_prove_abc(be, &q, &sh, small.w, abc, abc + m, abc + 2 * m, NULL, NULL,
                                     &p, NULL),
              CUZK_EINVAL, "b_g2 has");
    free(abc);
    fixture_free(&small);
    fixture_free(&big);
}

static void unconstrained_variable(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 1));
    cuzk_fr v;
    cuzk_fr_from_u64(&v, 3);
    cuzk_var x, y, unused;
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v, &x));
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &v, &unused));
    cuzk_fr nine;
    cuzk_fr_from_u64(&nine, 9);
    CHECK_OK(cuzk_r1cs_alloc_aux(cs, &nine, &y));
    cuzk_fr one;
    cuzk_fr_one(&one);
    cuzk_term ta = {x, one}, tc = {y, one};
    CHECK_OK(cuzk_r1cs_enforce(cs, &ta, 1, &ta, 1, &tc, 1));
    CHECK_OK(cuzk_r1cs_finalize(cs));
    cuzk_pce *pce;
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    char pp[512];
    snprintf(pp, sizeof pp, "%s/unconstrained.params", check_tmpdir());
    CHECK_ERR(cuzk_groth16_setup(pce, pp, NULL, NULL, NULL), CUZK_EINVAL,
              "aux variable 1 appears in no constraint");
    CHECK(access(pp, F_OK) != 0); /* nothing left behind */
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
}

/* prove_batch: the same bytes as one proof at a time for the same r, s;
 * a bad witness in the middle stops the batch there with its index. */
static void batch(cuzk_backend *be)
{
    fixture f;
    if (fixture_make(&f, 2048, 3, 77, "batch")) {
        fixture_free(&f);
        return;
    }
    size_t nv = f.pce->n_inputs + f.pce->n_aux;
    cuzk_fr *bad = malloc(nv * sizeof *bad);
    memcpy(bad, f.w, nv * sizeof *bad);
    blst_fr_add(&bad[nv - 1], &bad[nv - 1], &bad[0]); /* breaks its constraint */
    enum { N = 5 };
    cuzk_fr r[N], s[N];
    for (int i = 0; i < N; i++) {
        cuzk_fr_from_u64(&r[i], 1000 + (uint64_t)i);
        cuzk_fr_from_u64(&s[i], 2000 + (uint64_t)i);
    }
    const cuzk_fr *w[N] = {f.w, f.w, f.w, f.w, f.w};
    cuzk_proof got[N], want;
    cuzk_prove_timings tm[N];
    size_t done = 99;
    CHECK_OK(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, N, r, s, got, tm, &done));
    CHECK(done == N);
    for (int i = 0; i < N; i++) {
        CHECK_OK(cuzk_groth16_prove(be, &f.params, f.pce, f.w, &r[i], &s[i], &want, NULL));
        CHECK(!memcmp(&got[i], &want, sizeof want));
        CHECK_OK(cuzk_groth16_verify(&f.vk, f.w + 1, 3, &got[i]));
        CHECK(tm[i].spmv > 0 && tm[i].total > 0);
    }
    CHECK(memcmp(&got[0], &got[1], sizeof got[0]) != 0); /* r, s differ */
    /* One proof, and random r, s. */
    CHECK_OK(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, 1, NULL, NULL, got, NULL, NULL));
    CHECK_OK(cuzk_groth16_verify(&f.vk, f.w + 1, 3, &got[0]));
    w[2] = bad;
    CHECK_ERR(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, N, r, s, got, tm, &done),
              CUZK_EINVAL, "proof 2 of the batch: witness does not satisfy constraint");
    CHECK(done == 2);
    CHECK_OK(cuzk_groth16_verify(&f.vk, f.w + 1, 3, &got[1]));
    w[0] = bad;
    CHECK_ERR(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, 1, r, s, got, NULL, &done),
              CUZK_EINVAL, "proof 0 of the batch");
    CHECK(done == 0);
    w[0] = NULL;
    CHECK_ERR(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, N, r, s, got, NULL, &done),
              CUZK_EINVAL, "witness 0 is NULL");
    CHECK_OK(cuzk_groth16_prove_batch(be, &f.params, f.pce, w, 0, r, s, got, NULL, &done));
    CHECK(done == 0);
    free(bad);
    fixture_free(&f);
}

/* Parameters whose host copy was released: the CPU backend cannot keep
 * them on a device (EUNSUPPORTED) and refuses to prove with them (EINVAL,
 * no read of the released pages); the pages are given back (the RSS drops)
 * and a stray read faults; the struct frees as usual. */
static void released_host_copy(cuzk_backend *be)
{
    fixture f;
    if (fixture_make(&f, 1 << 15, 1, 21, "released") != 0)
        return;
    CHECK_ERR(cuzk_groth16_params_to_device(be, &f.params), CUZK_EUNSUPPORTED,
              "cannot keep parameters on a device");
    CHECK(!cuzk_groth16_params_on_device(be, &f.params));
    /* Touch every page so the release has something to give back. */
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < f.params.n_h * sizeof *f.params.h; i += 4096)
        sum += ((const uint8_t *)f.params.h)[i];
    (void)sum;
    uint64_t rss0 = cuzk_mem_rss();
    uint64_t freed = cuzk_params_release_host(&f.params);
    uint64_t rss1 = cuzk_mem_rss();
    uint64_t g1 = (f.params.n_h + f.params.n_l + f.params.n_a + f.params.n_b_g1) * 96;
    uint64_t all = g1 + f.params.n_b_g2 * 192;
    CHECK(f.params.host_released == 1 && freed > all - 5 * 8192 && freed <= all);
    CHECK(rss1 + freed / 2 < rss0); /* at least half of it left the RSS */
    CHECK(cuzk_params_release_host(&f.params) == 0);
    cuzk_proof pr;
    CHECK_ERR(cuzk_groth16_prove(be, &f.params, f.pce, f.w, NULL, NULL, &pr, NULL), CUZK_EINVAL,
              "host copy was released");
    pid_t child = fork();
    if (child == 0) {             /* a stray read of a released point must fault */
        signal(SIGSEGV, SIG_DFL); /* not a sanitizer's handler */
        volatile uint8_t x = ((const uint8_t *)f.params.h)[f.params.n_h * 48];
        (void)x;
        _exit(0);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    fixture_free(&f);
}

/* The packed-witness prover: on a backend without a device SpMV it is the
 * host prover (same bytes for the same r, s); a witness of another size
 * and an unsatisfied one are refused as by cuzk_groth16_prove. */
static void packed(cuzk_backend *be)
{
    fixture f;
    if (fixture_make(&f, 2048, 2, 17, "packed")) {
        fixture_free(&f);
        return;
    }
    CHECK(!cuzk_backend_device_spmv(be));
    size_t n = f.pce->n_inputs + f.pce->n_aux;
    cuzk_wpack *wp = NULL, *short_wp = NULL;
    CHECK_OK(cuzk_wpack_build(f.w, n, &wp));
    CHECK_OK(cuzk_wpack_build(f.w, n - 1, &short_wp));
    cuzk_fr r, s;
    cuzk_fr_from_u64(&r, 5);
    cuzk_fr_from_u64(&s, 6);
    cuzk_proof p1, p2;
    CHECK_OK(cuzk_groth16_prove(be, &f.params, f.pce, f.w, &r, &s, &p1, NULL));
    CHECK_OK(cuzk_groth16_prove_packed(be, &f.params, f.pce, f.w, wp, &r, &s, &p2, NULL));
    CHECK(!memcmp(&p1, &p2, sizeof p1));
    CHECK_OK(cuzk_groth16_verify(&f.vk, f.w + 1, 2, &p2));
    CHECK_ERR(cuzk_groth16_prove_packed(be, &f.params, f.pce, f.w, short_wp, &r, &s, &p2, NULL),
              CUZK_EINVAL, "packed witness of");
    CHECK_ERR(cuzk_groth16_prove_packed(be, &f.params, f.pce, f.w, NULL, &r, &s, &p2, NULL),
              CUZK_EINVAL, "packed witness of");
    cuzk_fr *bad = malloc(n * sizeof *bad);
    memcpy(bad, f.w, n * sizeof *bad);
    cuzk_fr_from_u64(&bad[n - 7], 123456789);
    cuzk_wpack *bad_wp = NULL;
    CHECK_OK(cuzk_wpack_build(bad, n, &bad_wp));
    CHECK_ERR(cuzk_groth16_prove_packed(be, &f.params, f.pce, bad, bad_wp, &r, &s, &p2, NULL),
              CUZK_EINVAL, "does not satisfy constraint");
    free(bad);
    cuzk_wpack_free(bad_wp);
    cuzk_wpack_free(wp);
    cuzk_wpack_free(short_wp);
    fixture_free(&f);
}

/* The backend's H against bellperson's sequence of seven transforms,
 * written out here with the NTT API (inverse and coset forward of a, b and
 * c, a b - c, divided by Z, coset inverse), on random vectors that satisfy
 * nothing: the backend skips c's coset forward and must still give the
 * same m coefficients. */
static void h_against_seven_transforms(cuzk_backend *be)
{
    const unsigned logs[] = {1, 2, 5, 10, 13};
    for (size_t t = 0; t < sizeof logs / sizeof *logs; t++) {
        unsigned lg = logs[t];
        size_t m = (size_t)1 << lg;
        cuzk_fr *v = malloc(6 * m * sizeof *v), *w = v + 3 * m;
        CHECK(v != NULL);
        if (!v)
            return;
        cuzk_fr_vec_rng(v, 3 * m, 900 + lg);
        memcpy(w, v, 3 * m * sizeof *v);
        cuzk_ntt_domain d;
        CHECK_OK(cuzk_ntt_domain_init(&d, lg));
        for (int i = 0; i < 3; i++) {
            cuzk_ntt_inverse(&d, w + i * m);
            cuzk_ntt_coset_forward(&d, w + i * m);
        }
        cuzk_fr z;
        cuzk_fr_vec_mul(w, w, w + m, m);
        cuzk_fr_vec_sub(w, w, w + 2 * m, m);
        cuzk_ntt_coset_z_inv(&d, &z);
        cuzk_fr_vec_scale(w, w, &z, m);
        cuzk_ntt_coset_inverse(&d, w);
        cuzk_ntt_domain_free(&d);
        CHECK_OK(be->ops->compute_h(be, lg, v, v + m, v + 2 * m));
        int same = !memcmp(v, w, m * sizeof *v);
        CHECK(same);
        if (!same)
            fprintf(stderr, "  H differs from the seven-transform form at 2^%u\n", lg);
        free(v);
    }
}

int main(void)
{
    cuzk_backend *be;
    cuzk_backend *none;
    CHECK_ERR(cuzk_backend_open("tpu", &none), CUZK_EINVAL, "unknown backend");
    CHECK(none == NULL);
    /* Device names: cuda:N with N an ordinal, nothing else. */
    const char *bad_dev[] = {"cuda:", "cuda:x", "cuda:-1", "cuda:1x", "cuda:99999", "cuda: 1"};
    for (size_t i = 0; i < sizeof bad_dev / sizeof *bad_dev; i++)
        CHECK_ERR(cuzk_backend_open(bad_dev[i], &none), CUZK_EINVAL, "expected cuda:N");
    CHECK_ERR(cuzk_backend_open("cpu:0", &none), CUZK_EINVAL, "unknown backend");
    CHECK_ERR(cuzk_backend_open_on("cuda", -1, &none), CUZK_EINVAL, "GPU ordinal -1");
    CHECK(none == NULL);
    if (cuzk_backend_gpus() == 0) { /* CPU-only build or machine: refused, never the CPU */
        CHECK_ERR(cuzk_backend_open("cuda:0", &none), CUZK_EUNSUPPORTED, "cuda");
        CHECK_ERR(cuzk_backend_open_on("cuda", 3, &none), CUZK_EUNSUPPORTED, "cuda");
        CHECK(none == NULL);
        CHECK_OK(cuzk_backend_open_on("auto", 2, &be)); /* auto falls back */
        CHECK(!strcmp(cuzk_backend_name(be), "cpu"));
        cuzk_backend_close(be);
    }
    CHECK_OK(cuzk_backend_open("cpu", &be));
    CHECK(cuzk_backend_device(be) == -1);
    h_against_seven_transforms(be);
    round_trip(be, 16, 0, CUZK_H_BELLPERSON);
    round_trip(be, 256, 1, CUZK_H_BELLPERSON);
    round_trip(be, 1024, 0, CUZK_H_BELLPERSON);
    round_trip(be, 2048, 1, CUZK_H_BELLPERSON);
    round_trip(be, 4096, 100, CUZK_H_BELLPERSON);
    round_trip(be, 16, 0, CUZK_H_SNARKJS);
    round_trip(be, 1024, 3, CUZK_H_SNARKJS);
    round_trip(be, 4096, 100, CUZK_H_SNARKJS);
    another_vk_and_determinism(be);
    mismatched_params(be);
    unconstrained_variable();
    batch(be);
    released_host_copy(be);
    packed(be);
    cuzk_backend_close(be);
    return check_done("test_groth16_prove");
}
