/* circom / snarkjs files: snarkjs's roots of unity against an independent
 * value, decimal conversion, .wtns round trips and refusals, the committed
 * snarkjs-made .zkey and circom .r1cs fixtures (counts, the r1cs and zkey
 * agreeing, every kind of damage: truncation at many lengths, corrupt
 * points, wrong sizes, another protocol, custom gates), a zkey written from a
 * cuzk setup proving and verifying, and the JSON files. The end-to-end
 * checks against snarkjs itself are in tests/interop. */
#include "check.h"
#include "cuzk/curve.h"
#include "cuzk/snark.h"
#include "cuzk/synth.h"
#include "snark/json.h"
#include "snark/snark_internal.h"

#include <libgen.h>
#include <unistd.h>

static char fixtures[1024];

static const char *fixture(const char *name)
{
    static char path[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/%s", fixtures, name);
    return path[k];
}

static const char *tmp_path(const char *name)
{
    static char path[4][1200];
    static int k;
    k = (k + 1) % 4;
    snprintf(path[k], sizeof path[k], "%s/snark-%s", check_tmpdir(), name);
    return path[k];
}

static uint8_t *slurp(const char *path, size_t *size)
{
    uint8_t *d = NULL;
    CHECK_OK(cuzk_read_file(path, &d, size));
    return d;
}

static void roots(void)
{
    /* ffjavascript's primitive 2^32-th root, 5^((r-1)/2^32) mod r, computed
     * independently with Python's pow(). */
    cuzk_fr w, want, t, one, minus_one;
    CHECK_OK(cuzk_fr_from_str(
        &want, "0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f"));
    CHECK_OK(cuzk_fr_root_of_unity_snarkjs(&w, 32));
    CHECK(cuzk_fr_eq(&w, &want));
    uint64_t j = cuzk_fr_snarkjs_root_exponent();
    CHECK(j & 1);
    cuzk_fr_one(&one);
    cuzk_fr_neg(&minus_one, &one);
    unsigned logs[] = {1, 2, 5, 9, 16, 27, 28, 32};
    for (size_t i = 0; i < sizeof logs / sizeof *logs; i++) {
        unsigned k = logs[i];
        cuzk_fr ours, theirs;
        CHECK_OK(cuzk_fr_root_of_unity(&ours, k));
        CHECK_OK(cuzk_fr_root_of_unity_snarkjs(&theirs, k));
        cuzk_fr_pow_u64(&t, &ours, j & (((uint64_t)1 << k) - 1));
        CHECK(cuzk_fr_eq(&t, &theirs));
        cuzk_fr_pow_u64(&t, &theirs, (uint64_t)1 << (k - 1));
        CHECK(cuzk_fr_eq(&t, &minus_one)); /* primitive */
    }
    CHECK_ERR(cuzk_fr_root_of_unity_snarkjs(&w, 33), CUZK_EINVAL, "no root of unity");
}

static void decimals(void)
{
    char buf[120];
    cuzk_fr x, y;
    cuzk_rng g;
    cuzk_rng_seed(&g, 5);
    for (int i = 0; i < 50; i++) {
        cuzk_fr_rng(&x, &g);
        snark_fr_to_dec(buf, &x);
        CHECK_OK(snark_fr_from_dec(&y, buf));
        CHECK(cuzk_fr_eq(&x, &y));
    }
    cuzk_fr_zero(&x);
    snark_fr_to_dec(buf, &x);
    CHECK(!strcmp(buf, "0"));
    cuzk_fr_from_u64(&x, 1000000000ull * 1000000000ull);
    snark_fr_to_dec(buf, &x);
    CHECK(!strcmp(buf, "1000000000000000000"));
    /* r - 1 is fine, r is not */
    CHECK_OK(snark_fr_from_dec(
        &x, "52435875175126190479447740508185965837690552500527637822603658699938581184512"));
    CHECK_ERR(
        snark_fr_from_dec(
            &x, "52435875175126190479447740508185965837690552500527637822603658699938581184513"),
        CUZK_EFORMAT, "not below r");
    blst_fp p;
    const char *q_minus_1 =
        "4002409555221667393417789825735904156556882819939007885332058136124031650490"
        "837864442687629129015664037894272559786";
    CHECK_OK(snark_fp_from_dec(&p, q_minus_1));
    snark_fp_to_dec(buf, &p);
    CHECK(!strcmp(buf, q_minus_1));
    CHECK_ERR(snark_fp_from_dec(&p,
                                "4002409555221667393417789825735904156556882819939007885332058136"
                                "124031650490837864442687629129015664037894272559787"),
              CUZK_EFORMAT, "not below q");
    CHECK_ERR(snark_fr_from_dec(&x, ""), CUZK_EFORMAT, "empty");
    CHECK_ERR(snark_fr_from_dec(&x, "12a"), CUZK_EFORMAT, "not a decimal");
    CHECK_ERR(snark_fr_from_dec(&x, "-1"), CUZK_EFORMAT, "not a decimal");
    CHECK_ERR(snark_fr_from_dec(&x, "1000000000000000000000000000000000000000000000000000000000000"
                                    "000000000000000000000000000000000000000000000000000000000000"
                                    "0000000000000000000000000000000000000000"),
              CUZK_EFORMAT, "too large");
}

static void wtns(void)
{
    cuzk_fr w[5], *back = NULL;
    size_t n = 0;
    cuzk_fr_one(&w[0]);
    for (int i = 1; i < 5; i++)
        cuzk_fr_from_u64(&w[i], 1000 + i);
    const char *p = tmp_path("w.wtns");
    CHECK_OK(cuzk_wtns_write(p, w, 5));
    CHECK_OK(cuzk_wtns_read(p, &back, &n));
    CHECK(n == 5 && back && !memcmp(back, w, sizeof w));
    free(back);

    size_t size;
    uint8_t *d = slurp(p, &size);
    if (!d)
        return;
    const char *q = tmp_path("bad.wtns");
    /* every truncation is refused */
    for (size_t len = 0; len < size; len++) {
        CHECK_OK(cuzk_write_file(q, d, len));
        cuzk_err e = cuzk_wtns_read(q, &back, &n);
        CHECK(e == CUZK_EFORMAT);
    }
    /* w[0] != 1 */
    uint8_t *c = malloc(size);
    memcpy(c, d, size);
    c[size - 5 * 32] = 2;
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "constant 1");
    /* a value >= r */
    memcpy(c, d, size);
    memset(c + size - 32, 0xff, 32);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "value 4");
    /* another field */
    memcpy(c, d, size);
    c[12 + 12 + 4] ^= 1;
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "not BLS12-381");
    /* a count that disagrees with the values */
    memcpy(c, d, size);
    cuzk_put_le32(c + 12 + 12 + 36, 6);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "6 values need");
    /* wrong magic */
    memcpy(c, d, size);
    c[0] = 'x';
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "not a wtns file");
    /* trailing bytes */
    uint8_t *longer = calloc(size + 3, 1);
    memcpy(longer, d, size);
    CHECK_OK(cuzk_write_file(q, longer, size + 3));
    CHECK_ERR(cuzk_wtns_read(q, &back, &n), CUZK_EFORMAT, "after the last section");
    free(longer);
    free(c);
    free(d);
    CHECK_ERR(cuzk_wtns_read(fixture("tiny_bn128.wtns"), &back, &n), CUZK_EUNSUPPORTED,
              "bn128 is not supported yet");
    CHECK_ERR(cuzk_wtns_read(tmp_path("missing.wtns"), &back, &n), CUZK_EIO, "");
}

/* Offset of the data of section `type` in a container image. */
static size_t section_at(const uint8_t *d, size_t size, uint32_t type, size_t *len)
{
    size_t off = 12;
    uint32_t n = cuzk_get_le32(d + 8);
    for (uint32_t i = 0; i < n && off + 12 <= size; i++) {
        uint32_t t = cuzk_get_le32(d + off);
        uint64_t l = cuzk_get_le64(d + off + 4);
        if (t == type) {
            *len = (size_t)l;
            return off + 12;
        }
        off += 12 + (size_t)l;
    }
    return 0;
}

static void zkey_fixture(void)
{
    cuzk_zkey *z = NULL;
    const char *path = fixture("many_public.zkey");
    CHECK_OK(cuzk_zkey_read(path, &z));
    if (!z)
        return;
    CHECK(z->n_public == 42);
    CHECK(z->params.vk.n_ic == 43);
    CHECK(z->params.n_h == ((size_t)1 << z->log_m));
    /* the constraint file compiles to the same A and B */
    cuzk_circom_r1cs *r = NULL;
    CHECK_OK(cuzk_circom_r1cs_read(fixture("many_public.r1cs"), &r));
    if (r) {
        CHECK(cuzk_circom_r1cs_n_public(r) == 42);
        CHECK(r->n_pub_in == 40 && r->n_pub_out == 2 && r->n_prv_in == 1);
        CHECK(r->n_wires == z->n_vars);
        cuzk_pce *pce = NULL;
        CHECK_OK(cuzk_pce_from_r1cs(&pce, r->cs));
        if (pce) {
            CHECK_OK(cuzk_zkey_check_pce(z, pce));
            CHECK(pce->n_constraints == 240 + 43); /* circom's count + input constraints */
            cuzk_pce_free(pce);
        }
        cuzk_circom_r1cs_free(r);
    }
    /* a key of another circuit is told apart */
    cuzk_circom_r1cs *other = NULL;
    CHECK_OK(cuzk_circom_r1cs_read(fixture("range_check.r1cs"), &other));
    if (other) {
        cuzk_pce *pce = NULL;
        CHECK_OK(cuzk_pce_from_r1cs(&pce, other->cs));
        if (pce)
            CHECK_ERR(cuzk_zkey_check_pce(z, pce), CUZK_EINVAL, "is not the zkey's");
        cuzk_pce_free(pce);
        cuzk_circom_r1cs_free(other);
    }
    cuzk_fr w[3];
    cuzk_proof pr;
    cuzk_backend *be;
    CHECK_OK(cuzk_backend_open("cpu", &be));
    CHECK_ERR(cuzk_zkey_prove(be, z, w, 3, NULL, NULL, &pr, NULL), CUZK_EINVAL, "another circuit");
    cuzk_backend_close(be);
    cuzk_zkey_free(z);

    size_t size, len;
    uint8_t *d = slurp(path, &size);
    if (!d)
        return;
    const char *q = tmp_path("bad.zkey");
    cuzk_zkey *bad = NULL;
    /* truncation at ~300 lengths spread over the file, and near each end */
    for (size_t cut = 0; cut < size; cut += cut < 64 ? 1 : size / 300 + 1) {
        CHECK_OK(cuzk_write_file(q, d, cut));
        CHECK(cuzk_zkey_read(q, &bad) == CUZK_EFORMAT);
        CHECK(bad == NULL);
    }
    CHECK_OK(cuzk_write_file(q, d, size - 1));
    CHECK_ERR(cuzk_zkey_read(q, &bad), CUZK_EFORMAT, "truncated");

    uint8_t *c = malloc(size);
    /* a point of the A section moved off the curve */
    size_t a = section_at(d, size, 5, &len);
    CHECK(a && len % 96 == 0);
    memcpy(c, d, size);
    size_t at = 0;
    for (size_t i = 0; i < len / 96; i++) /* first finite point */
        if (c[a + 96 * i] | c[a + 96 * i + 1]) {
            at = i;
            break;
        }
    c[a + 96 * at + 50] ^= 0x01;
    CHECK_OK(cuzk_write_file(q, c, size));
    char needle[64];
    snprintf(needle, sizeof needle, "A point %zu", at);
    CHECK_ERR(cuzk_zkey_read(q, &bad), CUZK_ECURVE, needle);
    /* a coordinate >= q in H */
    size_t h = section_at(d, size, 9, &len);
    memcpy(c, d, size);
    memset(c + h + 96 * 3, 0xff, 48);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_zkey_read(q, &bad), CUZK_EFORMAT, "H point 3");
    /* a coefficient naming a signal that does not exist */
    size_t cf = section_at(d, size, 4, &len);
    memcpy(c, d, size);
    cuzk_put_le32(c + cf + 4 + 8, 100000);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_zkey_read(q, &bad), CUZK_EFORMAT, "coefficient 0");
    /* PLONK */
    size_t pr_at = section_at(d, size, 1, &len);
    memcpy(c, d, size);
    cuzk_put_le32(c + pr_at, 2);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_zkey_read(q, &bad), CUZK_EUNSUPPORTED, "PLONK");
    free(c);
    free(d);
    CHECK_ERR(cuzk_zkey_read(fixture("tiny_bn128.zkey"), &bad), CUZK_EUNSUPPORTED,
              "bn128 is not supported yet");
    CHECK_ERR(cuzk_zkey_read(fixture("many_public.r1cs"), &bad), CUZK_EFORMAT, "not a zkey file");
}

static void r1cs_fixture(void)
{
    const char *path = fixture("range_check.r1cs");
    size_t size, len;
    uint8_t *d = slurp(path, &size);
    if (!d)
        return;
    const char *q = tmp_path("bad.r1cs");
    cuzk_circom_r1cs *r = NULL;
    for (size_t cut = 0; cut < size; cut += cut < 64 ? 1 : size / 200 + 1) {
        CHECK_OK(cuzk_write_file(q, d, cut));
        CHECK(cuzk_circom_r1cs_read(q, &r) == CUZK_EFORMAT);
        CHECK(r == NULL);
    }
    uint8_t *c = malloc(size + 64);
    /* a wire index out of range in the first term of constraint 0 */
    size_t cs = section_at(d, size, 2, &len);
    memcpy(c, d, size);
    cuzk_put_le32(c + cs + 4, 0x7fffffff);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_circom_r1cs_read(q, &r), CUZK_EFORMAT, "constraint 0 (A) uses wire");
    /* a custom-gates section (PLONK) appended */
    memcpy(c, d, size);
    cuzk_put_le32(c + 8, cuzk_get_le32(d + 8) + 1);
    bin_put_section_header(c + size, 4, 4);
    cuzk_put_le32(c + size + 12, 0);
    CHECK_OK(cuzk_write_file(q, c, size + 16));
    CHECK_ERR(cuzk_circom_r1cs_read(q, &r), CUZK_EUNSUPPORTED, "custom gates");
    /* a wire mapped to a label that does not exist */
    size_t map = section_at(d, size, 3, &len);
    memcpy(c, d, size);
    cuzk_put_le64(c + map + 8, ~(uint64_t)0 >> 1);
    CHECK_OK(cuzk_write_file(q, c, size));
    CHECK_ERR(cuzk_circom_r1cs_read(q, &r), CUZK_EFORMAT, "wire 1 maps to label");
    free(c);
    free(d);
    CHECK_ERR(cuzk_circom_r1cs_read(fixture("tiny_bn128.r1cs"), &r), CUZK_EUNSUPPORTED,
              "bn128 is not supported yet");
}

/* A cuzk setup in snarkjs's convention, written as a zkey, read back and
 * proven with; the witness check and the public inputs. */
static void own_zkey(void)
{
    cuzk_synth_params sp = {3000, 5, 77};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    if (!cs)
        return;
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    const char *pp = tmp_path("own.params"), *zp = tmp_path("own.zkey");
    cuzk_params params;
    memset(&params, 0, sizeof params);
    CHECK_OK(cuzk_groth16_setup_basis(pce, pp, NULL, NULL, CUZK_H_SNARKJS, NULL));
    CHECK_OK(cuzk_params_read(pp, &params, 0));
    /* Stopped by its progress callback at the start or at the end: no
     * file, no temporary file. */
    char ztmp[600];
    snprintf(ztmp, sizeof ztmp, "%s.tmp-%d", zp, (int)getpid());
    unlink(zp);
    for (int stop_at = 1; stop_at <= 2; stop_at++) {
        check_progress cp = {0};
        cp.stop_at = stop_at;
        CHECK_ERR(cuzk_zkey_write_progress(zp, &params, pce, check_progress_fn, &cp),
                  CUZK_ECANCELLED, "cancelled");
        CHECK(access(zp, F_OK) != 0 && access(ztmp, F_OK) != 0);
    }
    check_progress cp = {0};
    CHECK_OK(cuzk_zkey_write_progress(zp, &params, pce, check_progress_fn, &cp));
    CHECK(cp.calls == 2 && cp.first == 0 && cp.last == cp.total && !cp.backwards);
    cuzk_zkey *z = NULL;
    CHECK_OK(cuzk_zkey_read(zp, &z));
    if (!z) {
        cuzk_params_free(&params);
        cuzk_pce_free(pce);
        cuzk_r1cs_free(cs);
        return;
    }
    CHECK_OK(cuzk_zkey_check_pce(z, pce));
    CHECK(z->params.n_a == params.n_a && z->params.n_b_g2 == params.n_b_g2 &&
          !memcmp(z->params.h, params.h, params.n_h * sizeof *params.h) &&
          !memcmp(z->params.b_g2, params.b_g2, params.n_b_g2 * sizeof *params.b_g2));
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    size_t nv = pce->n_inputs + pce->n_aux;
    cuzk_backend *be;
    CHECK_OK(cuzk_backend_open("cpu", &be));
    cuzk_proof p1, p2;
    cuzk_fr r, s;
    cuzk_fr_from_u64(&r, 11);
    cuzk_fr_from_u64(&s, 13);
    CHECK_OK(cuzk_zkey_prove(be, z, w, nv, &r, &s, &p1, NULL));
    CHECK_OK(cuzk_groth16_verify(&z->params.vk, w + 1, sp.n_public, &p1));
    /* the PCE prover on the same parameters gives the same bytes */
    CHECK_OK(cuzk_groth16_prove(be, &params, pce, w, &r, &s, &p2, NULL));
    CHECK(!memcmp(&p1, &p2, sizeof p1));
    /* an unsatisfied witness */
    cuzk_fr *bad = malloc(nv * sizeof *bad);
    memcpy(bad, w, nv * sizeof *bad);
    cuzk_fr one;
    cuzk_fr_one(&one);
    blst_fr_add(&bad[nv - 1], &bad[nv - 1], &one);
    CHECK_ERR(cuzk_zkey_prove(be, z, bad, nv, NULL, NULL, &p1, NULL), CUZK_EINVAL,
              "does not satisfy");
    free(bad);
    /* A point on the curve but outside the subgroup: the key loads (only the
     * verifying key is subgroup-checked up front) and proving names it. */
    blst_p1_affine off;
    blst_fp x, rhs, four;
    uint64_t four_l[6] = {4, 0, 0, 0, 0, 0};
    blst_fp_from_uint64(&four, four_l);
    for (uint64_t t = 1;; t++) {
        uint64_t l[6] = {t + 1000, 0, 0, 0, 0, 0};
        blst_fp_from_uint64(&x, l);
        blst_fp_sqr(&rhs, &x);
        blst_fp_mul(&rhs, &rhs, &x);
        blst_fp_add(&rhs, &rhs, &four);
        if (blst_fp_sqrt(&off.y, &rhs)) {
            off.x = x;
            break;
        }
    }
    CHECK(blst_p1_affine_on_curve(&off) && !blst_p1_affine_in_g1(&off));
    size_t zsize, alen;
    uint8_t *zimg = slurp(zp, &zsize);
    size_t a_at = zimg ? section_at(zimg, zsize, 5, &alen) : 0;
    CHECK(a_at != 0);
    if (a_at) {
        snark_g1_to_lem(zimg + a_at, &off); /* signal 0 (ONE) is in A */
        const char *bp = tmp_path("off.zkey");
        CHECK_OK(cuzk_write_file(bp, zimg, zsize));
        cuzk_zkey *zb = NULL;
        CHECK_OK(cuzk_zkey_read(bp, &zb));
        if (zb) {
            CHECK_ERR(cuzk_zkey_check_subgroups(zb), CUZK_ECURVE, "A point 0");
            CHECK_ERR(cuzk_zkey_prove(be, zb, w, nv, NULL, NULL, &p1, NULL), CUZK_ECURVE,
                      "not in the subgroup");
            cuzk_zkey_free(zb);
        }
        unlink(bp);
    }
    free(zimg);
    CHECK_OK(cuzk_zkey_check_subgroups(z));
    /* bellperson-basis parameters cannot become a zkey */
    cuzk_params bp;
    memset(&bp, 0, sizeof bp);
    CHECK_OK(cuzk_groth16_setup(pce, pp, NULL, NULL, NULL));
    CHECK_OK(cuzk_params_read(pp, &bp, 0));
    CHECK_ERR(cuzk_zkey_write(zp, &bp, pce), CUZK_EINVAL, "odd-coset basis");
    cuzk_params_free(&bp);
    cuzk_backend_close(be);
    cuzk_zkey_free(z);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    unlink(pp);
    unlink(zp);
}

static void json_files(void)
{
    cuzk_vk vk;
    CHECK_OK(cuzk_snarkjs_vkey_read(fixture("many_public.vkey.json"), &vk));
    CHECK(vk.n_ic == 43);
    /* the key in the JSON is the zkey's */
    cuzk_zkey *z = NULL;
    CHECK_OK(cuzk_zkey_read(fixture("many_public.zkey"), &z));
    if (z) {
        CHECK(!memcmp(&vk.alpha_g1, &z->params.vk.alpha_g1, sizeof vk.alpha_g1));
        CHECK(!memcmp(&vk.delta_g2, &z->params.vk.delta_g2, sizeof vk.delta_g2));
        CHECK(!memcmp(vk.ic, z->params.vk.ic, 43 * sizeof *vk.ic));
        cuzk_zkey_free(z);
    }
    cuzk_vk_free(&vk);

    cuzk_proof p, back;
    blst_p1 t;
    cuzk_fr k;
    cuzk_fr_from_u64(&k, 12345);
    cuzk_g1_mul(&t, blst_p1_generator(), &k);
    blst_p1_to_affine(&p.a, &t);
    cuzk_fr_from_u64(&k, 777);
    cuzk_g1_mul(&t, blst_p1_generator(), &k);
    blst_p1_to_affine(&p.c, &t);
    blst_p2 t2;
    cuzk_g2_mul(&t2, blst_p2_generator(), &k);
    blst_p2_to_affine(&p.b, &t2);
    const char *pj = tmp_path("proof.json");
    CHECK_OK(cuzk_snarkjs_proof_write(pj, &p));
    CHECK_OK(cuzk_snarkjs_proof_read(pj, &back));
    CHECK(!memcmp(&p, &back, sizeof p));

    cuzk_fr x[3], *xb = NULL;
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        cuzk_fr_from_u64(&x[i], (uint64_t)i * 1000003);
    const char *pub = tmp_path("public.json");
    CHECK_OK(cuzk_snarkjs_public_write(pub, x, 3));
    CHECK_OK(cuzk_snarkjs_public_read(pub, &xb, &n));
    CHECK(n == 3 && xb && !memcmp(x, xb, sizeof x));
    free(xb);
    size_t sz;
    uint8_t *text = slurp(pub, &sz);
    CHECK(text && sz == 32 && !memcmp(text, "[\n \"0\",\n \"1000003\",\n \"2000006\"\n]", sz));
    free(text);

    const char *bad = tmp_path("bad.json");
    static const struct {
        const char *text, *needle;
        cuzk_err code;
    } cases[] = {
        {"", "unexpected end", CUZK_EFORMAT},
        {"{\"pi_a\": [1, 2", "expected ',' or ']'", CUZK_EFORMAT},
        {"{\"pi_a\" 1}", "expected ':'", CUZK_EFORMAT},
        {"[1] x", "text after the value", CUZK_EFORMAT},
        {"{\"a\": \"\\q\"}", "bad escape", CUZK_EFORMAT},
        {"{\"a\": \"abc}", "unterminated string", CUZK_EFORMAT},
        {"[]", "a proof is a JSON object", CUZK_EFORMAT},
        {"{}", "pi_a: expected a G1 point", CUZK_EFORMAT},
        {"{\"pi_a\": [\"1\", \"2\", \"1\"]}", "pi_a: point is not on the curve", CUZK_ECURVE},
        {"{\"pi_a\": [\"1\", \"x\", \"1\"]}", "not a decimal integer", CUZK_EFORMAT},
        {"{\"pi_a\": [\"1\", \"2\", \"5\"]}", "only affine points", CUZK_EFORMAT},
        {"{\"protocol\": \"plonk\"}", "protocol \"plonk\" is not supported", CUZK_EUNSUPPORTED},
        {"{\"curve\": \"bn128\"}", "curve bn128 is not supported yet", CUZK_EUNSUPPORTED},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        CHECK_OK(cuzk_write_file(bad, cases[i].text, strlen(cases[i].text)));
        CHECK_ERR(cuzk_snarkjs_proof_read(bad, &back), cases[i].code, cases[i].needle);
    }
    /* deep nesting is refused, not a stack overflow */
    char deep[300];
    memset(deep, '[', sizeof deep);
    CHECK_OK(cuzk_write_file(bad, deep, sizeof deep));
    CHECK_ERR(cuzk_snarkjs_public_read(bad, &xb, &n), CUZK_EFORMAT, "nested too deeply");
    CHECK_OK(cuzk_write_file(bad, "[\"1\", 2, \"x\"]", 13));
    CHECK_ERR(cuzk_snarkjs_public_read(bad, &xb, &n), CUZK_EFORMAT, "signal 2");
    CHECK_OK(cuzk_write_file(bad, "{\"IC\": []}", 10));
    CHECK_ERR(cuzk_snarkjs_vkey_read(bad, &vk), CUZK_EFORMAT, "IC is missing or empty");
    /* a G2 point off the curve in a verification key */
    json_value v;
    CHECK_OK(json_read_file(fixture("many_public.vkey.json"), &v));
    json_free(&v);
    uint8_t *vkt = slurp(fixture("range_check.vkey.json"), &sz);
    if (vkt) {
        char *s = malloc(sz + 1);
        memcpy(s, vkt, sz);
        s[sz] = 0;
        char *at = strstr(s, "\"vk_gamma_2\"");
        char *digit = at ? strpbrk(at + 14, "123456789") : NULL;
        if (digit) {
            *digit = *digit == '1' ? '2' : '1';
            CHECK_OK(cuzk_write_file(bad, s, sz));
            cuzk_err e = cuzk_snarkjs_vkey_read(bad, &vk);
            CHECK(e == CUZK_ECURVE || e == CUZK_EFORMAT);
            CHECK(strstr(cuzk_errmsg(), "vk_gamma_2") != NULL);
        }
        CHECK(digit != NULL);
        free(s);
        free(vkt);
    }
}

int main(void)
{
    char here[1024];
    snprintf(here, sizeof here, "%s", __FILE__);
    snprintf(fixtures, sizeof fixtures, "%s/../interop/fixtures", dirname(here));
    roots();
    decimals();
    wtns();
    zkey_fixture();
    r1cs_fixture();
    own_zkey();
    json_files();
    return check_done("test_snark");
}
