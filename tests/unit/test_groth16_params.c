/* .params / .vk / proof files: write -> read identity, the streaming writer
 * against cuzk_params_write, writer misuse, and the reader's answer to every
 * kind of bad input (truncation, bad counts, trailing bytes, points off the
 * curve, outside the subgroup, at infinity, with a wrong compression flag),
 * each with its code and a message that names the section, index and offset.
 * Test data are random multiples of the generators; the non-subgroup points
 * are built by hand on E (y^2 = x^3 + 4) and E' (y^2 = x^3 + 4(1 + u)). */
#include "check.h"
#include "cuzk/curve.h"
#include "cuzk/fr.h"
#include "cuzk/params.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { S_IC, S_H, S_L, S_A, S_BG1, S_BG2 };

#define TMP_NAME_CAP 512

static char *tmp_name(char out[TMP_NAME_CAP], const char *name)
{
    snprintf(out, TMP_NAME_CAP, "%s/cuzk_params_%d_%s", check_tmpdir(), (int)getpid(), name);
    return out;
}

static int file_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

/* ---- test data ---- */

static void rand_g1(cuzk_rng *g, blst_p1_affine *out)
{
    cuzk_fr k;
    blst_p1 p;
    cuzk_fr_rng(&k, g);
    cuzk_g1_mul(&p, blst_p1_generator(), &k);
    blst_p1_to_affine(out, &p);
}

static void rand_g2(cuzk_rng *g, blst_p2_affine *out)
{
    cuzk_fr k;
    blst_p2 p;
    cuzk_fr_rng(&k, g);
    cuzk_g2_mul(&p, blst_p2_generator(), &k);
    blst_p2_to_affine(out, &p);
}

static blst_p1_affine *rand_g1s(cuzk_rng *g, size_t n)
{
    if (!n)
        return NULL;
    blst_p1_affine *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        rand_g1(g, &v[i]);
    return v;
}

static blst_p2_affine *rand_g2s(cuzk_rng *g, size_t n)
{
    if (!n)
        return NULL;
    blst_p2_affine *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        rand_g2(g, &v[i]);
    return v;
}

/* A parameter set with section sizes n[ic, h, l, a, b_g1, b_g2]. */
static void make_params(cuzk_params *p, const size_t n[6], uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    memset(p, 0, sizeof *p);
    rand_g1(&g, &p->vk.alpha_g1);
    rand_g1(&g, &p->vk.beta_g1);
    rand_g2(&g, &p->vk.beta_g2);
    rand_g2(&g, &p->vk.gamma_g2);
    rand_g1(&g, &p->vk.delta_g1);
    rand_g2(&g, &p->vk.delta_g2);
    p->vk.n_ic = n[S_IC];
    p->vk.ic = rand_g1s(&g, n[S_IC]);
    p->n_h = n[S_H];
    p->h = rand_g1s(&g, n[S_H]);
    p->n_l = n[S_L];
    p->l = rand_g1s(&g, n[S_L]);
    p->n_a = n[S_A];
    p->a = rand_g1s(&g, n[S_A]);
    p->n_b_g1 = n[S_BG1];
    p->b_g1 = rand_g1s(&g, n[S_BG1]);
    p->n_b_g2 = n[S_BG2];
    p->b_g2 = rand_g2s(&g, n[S_BG2]);
}

static int g1s_eq(const blst_p1_affine *a, const blst_p1_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!blst_p1_affine_is_equal(&a[i], &b[i]))
            return 0;
    return 1;
}

static int g2s_eq(const blst_p2_affine *a, const blst_p2_affine *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!blst_p2_affine_is_equal(&a[i], &b[i]))
            return 0;
    return 1;
}

static int vk_eq(const cuzk_vk *a, const cuzk_vk *b)
{
    return g1s_eq(&a->alpha_g1, &b->alpha_g1, 1) && g1s_eq(&a->beta_g1, &b->beta_g1, 1) &&
           g1s_eq(&a->delta_g1, &b->delta_g1, 1) && g2s_eq(&a->beta_g2, &b->beta_g2, 1) &&
           g2s_eq(&a->gamma_g2, &b->gamma_g2, 1) && g2s_eq(&a->delta_g2, &b->delta_g2, 1) &&
           a->n_ic == b->n_ic && g1s_eq(a->ic, b->ic, a->n_ic);
}

static int params_eq(const cuzk_params *a, const cuzk_params *b)
{
    return vk_eq(&a->vk, &b->vk) && a->n_h == b->n_h && a->n_l == b->n_l && a->n_a == b->n_a &&
           a->n_b_g1 == b->n_b_g1 && a->n_b_g2 == b->n_b_g2 && g1s_eq(a->h, b->h, a->n_h) &&
           g1s_eq(a->l, b->l, a->n_l) && g1s_eq(a->a, b->a, a->n_a) &&
           g1s_eq(a->b_g1, b->b_g1, a->n_b_g1) && g2s_eq(a->b_g2, b->b_g2, a->n_b_g2);
}

static int is_zero(const void *p, size_t n)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        if (b[i])
            return 0;
    return 1;
}

/* Byte offsets in a .params with section sizes n. */
static size_t count_off(const size_t n[6], int sec)
{
    size_t off = CUZK_VK_FIXED_BYTES;
    for (int i = 0; i < sec; i++)
        off += 4 + n[i] * 96;
    return off;
}

static size_t point_off(const size_t n[6], int sec, size_t idx)
{
    return count_off(n, sec) + 4 + idx * (sec == S_BG2 ? 192 : 96);
}

static size_t file_size_for(const size_t n[6])
{
    return point_off(n, S_BG2, n[S_BG2]);
}

/* Offsets of the VK elements. */
enum {
    OFF_ALPHA_G1 = 0,
    OFF_BETA_G1 = 96,
    OFF_BETA_G2 = 192,
    OFF_GAMMA_G2 = 384,
    OFF_DELTA_G1 = 576,
    OFF_DELTA_G2 = 672
};

/* Parse a copy of exactly `size` bytes so that ASan sees any over-read, and
 * check that *out is zeroed on failure. */
static cuzk_err parse_copy(const uint8_t *data, size_t size, unsigned flags)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    cuzk_params p;
    memset(&p, 0xA5, sizeof p);
    cuzk_err e = cuzk_params_parse(copy, size, "t.params", &p, flags);
    if (e != CUZK_OK)
        CHECK(is_zero(&p, sizeof p));
    cuzk_params_free(&p);
    free(copy);
    return e;
}

static cuzk_err parse_vk_copy(const uint8_t *data, size_t size)
{
    uint8_t *copy = malloc(size ? size : 1);
    memcpy(copy, data, size);
    cuzk_vk vk;
    memset(&vk, 0xA5, sizeof vk);
    cuzk_err e = cuzk_vk_parse(copy, size, "t.vk", &vk);
    if (e != CUZK_OK)
        CHECK(is_zero(&vk, sizeof vk));
    cuzk_vk_free(&vk);
    free(copy);
    return e;
}

/* Encodes p into a malloc'd buffer through a file. */
static uint8_t *params_bytes(const cuzk_params *p, size_t *size)
{
    char path[TMP_NAME_CAP];
    tmp_name(path, "enc.params");
    uint8_t *data = NULL;
    *size = 0;
    CHECK_OK(cuzk_params_write(path, p));
    CHECK_OK(cuzk_read_file(path, &data, size));
    remove(path);
    return data;
}

/* ---- points that are on the curve but not in the subgroup ---- */

static void fp_from_u64(blst_fp *r, uint64_t v)
{
    uint64_t l[6] = {v, 0, 0, 0, 0, 0};
    blst_fp_from_uint64(r, l);
}

/* A point of E(Fp) outside G1 (x small), as struct and as big-endian x || y. */
static void non_g1_point(blst_p1_affine *pt, uint8_t enc[96])
{
    blst_fp four, x, rhs, y;
    fp_from_u64(&four, 4);
    for (uint64_t k = 1;; k++) {
        fp_from_u64(&x, k);
        blst_fp_sqr(&rhs, &x);
        blst_fp_mul(&rhs, &rhs, &x);
        blst_fp_add(&rhs, &rhs, &four);
        if (!blst_fp_sqrt(&y, &rhs))
            continue;
        pt->x = x;
        pt->y = y;
        if (blst_p1_affine_on_curve(pt) && !blst_p1_affine_in_g1(pt))
            break;
    }
    blst_bendian_from_fp(enc, &pt->x);
    blst_bendian_from_fp(enc + 48, &pt->y);
}

/* An x in Fp with x^3 + 4 a non-square: no point of E has it. */
static void x_off_curve(uint8_t be[48])
{
    blst_fp four, x, rhs, y;
    fp_from_u64(&four, 4);
    for (uint64_t k = 1;; k++) {
        fp_from_u64(&x, k);
        blst_fp_sqr(&rhs, &x);
        blst_fp_mul(&rhs, &rhs, &x);
        blst_fp_add(&rhs, &rhs, &four);
        if (!blst_fp_sqrt(&y, &rhs))
            break;
    }
    blst_bendian_from_fp(be, &x);
}

/* An x in Fp2 with x^3 + 4(1 + u) a non-square, encoded c1 || c0. */
static void x2_off_curve(uint8_t be[96])
{
    blst_fp2 b, x, rhs, y;
    fp_from_u64(&b.fp[0], 4);
    fp_from_u64(&b.fp[1], 4);
    for (uint64_t k = 1;; k++) {
        fp_from_u64(&x.fp[0], k);
        fp_from_u64(&x.fp[1], 1);
        blst_fp2_sqr(&rhs, &x);
        blst_fp2_mul(&rhs, &rhs, &x);
        blst_fp2_add(&rhs, &rhs, &b);
        if (!blst_fp2_sqrt(&y, &rhs))
            break;
    }
    blst_bendian_from_fp(be, &x.fp[1]);
    blst_bendian_from_fp(be + 48, &x.fp[0]);
}

/* A point of E'(Fp2) outside G2; encoded x.c1 || x.c0 || y.c1 || y.c0. */
static void non_g2_point(blst_p2_affine *out, uint8_t enc[192])
{
    blst_fp2 b, x, rhs, y;
    fp_from_u64(&b.fp[0], 4);
    fp_from_u64(&b.fp[1], 4);
    blst_p2_affine pt;
    for (uint64_t k = 1;; k++) {
        fp_from_u64(&x.fp[0], k);
        fp_from_u64(&x.fp[1], 1);
        blst_fp2_sqr(&rhs, &x);
        blst_fp2_mul(&rhs, &rhs, &x);
        blst_fp2_add(&rhs, &rhs, &b);
        if (!blst_fp2_sqrt(&y, &rhs))
            continue;
        pt.x = x;
        pt.y = y;
        if (blst_p2_affine_on_curve(&pt) && !blst_p2_affine_in_g2(&pt))
            break;
    }
    blst_bendian_from_fp(enc, &pt.x.fp[1]);
    blst_bendian_from_fp(enc + 48, &pt.x.fp[0]);
    blst_bendian_from_fp(enc + 96, &pt.y.fp[1]);
    blst_bendian_from_fp(enc + 144, &pt.y.fp[0]);
    *out = pt;
}

static void put_infinity(uint8_t *at, size_t len)
{
    memset(at, 0, len);
    at[0] = 0x40;
}

/* ---- tests ---- */

static const size_t SMALL[6] = {3, 7, 5, 0, 4, 4}; /* a is empty */
static const size_t ALL[6] = {3, 4, 4, 4, 4, 3};   /* every section non-empty */

static void test_roundtrip(void)
{
    cuzk_params p, q;
    make_params(&p, SMALL, 1);
    char path[TMP_NAME_CAP];
    tmp_name(path, "rt.params");
    CHECK_OK(cuzk_params_write(path, &p));
    uint8_t *data;
    size_t size;
    CHECK_OK(cuzk_read_file(path, &data, &size));
    CHECK(size == file_size_for(SMALL));
    /* Layout spot checks: counts big-endian where DESIGN.md puts them. */
    size_t ic_at = count_off(SMALL, S_IC), a_at = count_off(SMALL, S_A);
    CHECK(ic_at == CUZK_VK_FIXED_BYTES && memcmp(data + ic_at, "\0\0\0\3", 4) == 0);
    CHECK(memcmp(data + a_at, "\0\0\0\0", 4) == 0);
    CHECK(memcmp(data + count_off(SMALL, S_BG2), "\0\0\0\4", 4) == 0);
    uint8_t enc[192];
    cuzk_g2_encode(enc, &p.b_g2[3]);
    CHECK(memcmp(data + point_off(SMALL, S_BG2, 3), enc, 192) == 0);
    cuzk_g1_encode(enc, &p.vk.alpha_g1);
    CHECK(memcmp(data, enc, 96) == 0);

    CHECK_OK(cuzk_params_read(path, &q, 0));
    CHECK(params_eq(&p, &q));
    CHECK(q.n_a == 0 && q.a == NULL);
    cuzk_params_free(&q);
    CHECK(is_zero(&q, sizeof q));
    CHECK_OK(cuzk_params_read(path, &q, CUZK_PARAMS_CHECKED));
    CHECK(params_eq(&p, &q));
    cuzk_params_free(&q);
    CHECK_OK(cuzk_params_parse(data, size, "mem", &q, CUZK_PARAMS_CHECKED));
    CHECK(params_eq(&p, &q));
    cuzk_params_free(&q);

    /* .vk = the VK part of .params. */
    char vpath[TMP_NAME_CAP];
    tmp_name(vpath, "rt.vk");
    CHECK_OK(cuzk_vk_write(vpath, &p.vk));
    uint8_t *vdata;
    size_t vsize;
    CHECK_OK(cuzk_read_file(vpath, &vdata, &vsize));
    CHECK(vsize == count_off(SMALL, S_H));
    CHECK(memcmp(vdata, data, vsize) == 0);
    cuzk_vk vk;
    CHECK_OK(cuzk_vk_read(vpath, &vk));
    CHECK(vk_eq(&vk, &p.vk));
    cuzk_vk_free(&vk);
    /* A .params is not a .vk: the sections after ic are trailing bytes. */
    char needle[128];
    snprintf(needle, sizeof needle, "%zu trailing bytes after ic at offset %zu", size - vsize,
             vsize);
    CHECK_ERR(cuzk_vk_read(path, &vk), CUZK_EFORMAT, needle);
    CHECK(is_zero(&vk, sizeof vk));
    /* An empty ic is representable. */
    cuzk_vk empty = p.vk;
    empty.n_ic = 0;
    empty.ic = NULL;
    CHECK_OK(cuzk_vk_write(vpath, &empty));
    CHECK_OK(cuzk_vk_read(vpath, &vk));
    CHECK(vk_eq(&vk, &empty) && vk.ic == NULL);
    cuzk_vk_free(&vk);

    /* Missing files. */
    char missing[TMP_NAME_CAP];
    CHECK_ERR(cuzk_params_read(tmp_name(missing, "missing.params"), &q, 0), CUZK_EIO, "missing");
    CHECK(is_zero(&q, sizeof q));
    CHECK_ERR(cuzk_vk_read(tmp_name(missing, "missing.vk"), &vk), CUZK_EIO, "missing");
    /* An empty file. */
    CHECK_OK(cuzk_write_file(vpath, "", 0));
    CHECK_ERR(cuzk_vk_read(vpath, &vk), CUZK_EFORMAT,
              "truncated: alpha_g1 needs 96 bytes at offset 0 but only 0 remain");
    remove(vpath);
    remove(path);
    free(vdata);
    free(data);
    cuzk_params_free(&p);
}

static void test_writer(void)
{
    cuzk_params p;
    make_params(&p, SMALL, 2);
    size_t ref_size;
    uint8_t *ref = params_bytes(&p, &ref_size);

    /* Streaming in uneven pieces gives the same bytes. */
    char path[TMP_NAME_CAP];
    tmp_name(path, "stream.params");
    cuzk_params_writer w;
    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    CHECK_OK(cuzk_params_writer_begin(&w, p.vk.n_ic));
    CHECK_OK(cuzk_params_writer_g1(&w, p.vk.ic, 1));
    CHECK_OK(cuzk_params_writer_g1(&w, p.vk.ic + 1, 0));
    CHECK_OK(cuzk_params_writer_g1(&w, p.vk.ic + 1, 2));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_h));
    for (size_t i = 0; i < p.n_h; i++)
        CHECK_OK(cuzk_params_writer_g1(&w, &p.h[i], 1));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_l));
    CHECK_OK(cuzk_params_writer_g1(&w, p.l, p.n_l));
    CHECK_OK(cuzk_params_writer_begin(&w, 0)); /* a */
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_b_g1));
    CHECK_OK(cuzk_params_writer_g1(&w, p.b_g1, 3));
    CHECK_OK(cuzk_params_writer_g1(&w, p.b_g1 + 3, 1));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_b_g2));
    CHECK_OK(cuzk_params_writer_g2(&w, p.b_g2, 2));
    CHECK_OK(cuzk_params_writer_g2(&w, p.b_g2 + 2, 2));
    CHECK_OK(cuzk_params_writer_close(&w));
    CHECK(is_zero(&w, sizeof w));
    cuzk_params_writer_abort(&w); /* no-op after close */
    uint8_t *got;
    size_t got_size;
    CHECK_OK(cuzk_read_file(path, &got, &got_size));
    CHECK(got_size == ref_size && memcmp(got, ref, ref_size) == 0);
    free(got);

    /* Misuse: each error leaves the writer usable. */
    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 1), CUZK_EINVAL, "before any section was begun");
    CHECK_OK(cuzk_params_writer_begin(&w, 2)); /* ic */
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 3), CUZK_EINVAL,
              "3 points appended to section ic, which has room for only 2 more");
    CHECK_ERR(cuzk_params_writer_g2(&w, p.b_g2, 1), CUZK_EINVAL,
              "G2 points appended to section ic, which holds G1 points");
    CHECK_OK(cuzk_params_writer_g1(&w, p.h, 1));
    CHECK_ERR(cuzk_params_writer_begin(&w, 0), CUZK_EINVAL,
              "section ic still needs 1 points before the next begins");
    CHECK_OK(cuzk_params_writer_g1(&w, p.h, 1));
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 1), CUZK_EINVAL, "room for only 0 more");
    CHECK_OK(cuzk_params_writer_begin(&w, 0)); /* h */
    CHECK_ERR(cuzk_params_writer_close(&w), CUZK_EINVAL, "sections missing (l .. b_g2");
    CHECK(!file_exists(path));
    CHECK(is_zero(&w, sizeof w));
    CHECK_ERR(cuzk_params_writer_begin(&w, 1), CUZK_EINVAL, "not open");
    CHECK_ERR(cuzk_params_writer_close(&w), CUZK_EINVAL, "not open");

    /* Close right after open: every section is missing. */
    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    CHECK_ERR(cuzk_params_writer_close(&w), CUZK_EINVAL, "(ic .. b_g2 never begun)");
    CHECK(!file_exists(path));

    /* G1 into b_g2, short b_g2 at close, a seventh section. */
    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    for (int s = 0; s < 5; s++)
        CHECK_OK(cuzk_params_writer_begin(&w, 0));
    CHECK_ERR(cuzk_params_writer_g2(&w, p.b_g2, 1), CUZK_EINVAL,
              "G2 points appended to section b_g1");
    CHECK_OK(cuzk_params_writer_begin(&w, 2)); /* b_g2 */
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 1), CUZK_EINVAL,
              "G1 points appended to section b_g2, which holds G2 points");
    CHECK_OK(cuzk_params_writer_g2(&w, p.b_g2, 1));
    CHECK_ERR(cuzk_params_writer_close(&w), CUZK_EINVAL, "b_g2 still needing 1 points");
    CHECK(!file_exists(path));

    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    for (int s = 0; s < 6; s++)
        CHECK_OK(cuzk_params_writer_begin(&w, 0));
    CHECK_ERR(cuzk_params_writer_begin(&w, 0), CUZK_EINVAL, "all six sections");
    CHECK_OK(cuzk_params_writer_close(&w));
    CHECK_OK(cuzk_read_file(path, &got, &got_size));
    CHECK(got_size == CUZK_VK_FIXED_BYTES + 6 * 4);
    free(got);
    /* Empty sections are written as such, but no domain has an empty h:
     * the reader names that section (the check of cuzk_params_check_file
     * too), instead of a prover failing later on a size mismatch. */
    cuzk_params q;
    CHECK_ERR(cuzk_params_read(path, &q, CUZK_PARAMS_CHECKED), CUZK_EFORMAT,
              "h count 0: the h section needs 2^k - 1 points");
    CHECK_ERR(cuzk_params_check_file(path), CUZK_EFORMAT, "h count 0");

    /* Count too large for the u32 field; abort removes a partial file. */
    CHECK_OK(cuzk_params_writer_open(&w, path, &p.vk));
    CHECK_ERR(cuzk_params_writer_begin(&w, (size_t)UINT32_MAX + 1), CUZK_EINVAL,
              "ic count 4294967296 does not fit");
    CHECK_OK(cuzk_params_writer_begin(&w, 1));
    CHECK(file_exists(path));
    cuzk_params_writer_abort(&w);
    CHECK(!file_exists(path));
    CHECK(is_zero(&w, sizeof w));
    cuzk_params_writer_abort(&w);

    /* A folder that does not exist. */
    CHECK_ERR(cuzk_params_writer_open(&w, "/nonexistent-dir/x.params", &p.vk), CUZK_EIO,
              "cannot create /nonexistent-dir/x.params");
    CHECK(is_zero(&w, sizeof w));
    CHECK_ERR(cuzk_params_write("/nonexistent-dir/x.params", &p), CUZK_EIO, "cannot create");

    /* In memory: the same pieces give a struct that writes the same bytes. */
    cuzk_params m;
    CHECK_OK(cuzk_params_writer_open_mem(&w, &m, &p.vk));
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 1), CUZK_EINVAL, "before any section was begun");
    CHECK_OK(cuzk_params_writer_begin(&w, p.vk.n_ic));
    CHECK_OK(cuzk_params_writer_g1(&w, p.vk.ic, 1));
    CHECK_OK(cuzk_params_writer_g1(&w, p.vk.ic + 1, 2));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_h));
    for (size_t i = 0; i < p.n_h; i++)
        CHECK_OK(cuzk_params_writer_g1(&w, &p.h[i], 1));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_l));
    CHECK_ERR(cuzk_params_writer_g1(&w, p.l, p.n_l + 1), CUZK_EINVAL, "room for only");
    CHECK_OK(cuzk_params_writer_g1(&w, p.l, p.n_l));
    CHECK_OK(cuzk_params_writer_begin(&w, 0)); /* a */
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_b_g1));
    CHECK_OK(cuzk_params_writer_g1(&w, p.b_g1, p.n_b_g1));
    CHECK_OK(cuzk_params_writer_begin(&w, p.n_b_g2));
    CHECK_ERR(cuzk_params_writer_g1(&w, p.h, 1), CUZK_EINVAL, "which holds G2 points");
    CHECK_OK(cuzk_params_writer_g2(&w, p.b_g2, 1));
    CHECK_OK(cuzk_params_writer_g2(&w, p.b_g2 + 1, p.n_b_g2 - 1));
    CHECK_OK(cuzk_params_writer_close(&w));
    CHECK(is_zero(&w, sizeof w));
    CHECK(m.n_h == p.n_h && m.n_l == p.n_l && m.n_a == 0 && m.n_b_g2 == p.n_b_g2);
    CHECK(memcmp(m.b_g2, p.b_g2, p.n_b_g2 * sizeof *p.b_g2) == 0);
    char mpath[TMP_NAME_CAP];
    CHECK_OK(cuzk_params_write(tmp_name(mpath, "mem.params"), &m));
    CHECK_OK(cuzk_read_file(mpath, &got, &got_size));
    CHECK(got_size == ref_size && memcmp(got, ref, ref_size) == 0);
    free(got);
    remove(mpath);
    cuzk_params_free(&m);
    /* An incomplete set is freed and zeroed, by close or by abort. */
    CHECK_OK(cuzk_params_writer_open_mem(&w, &m, &p.vk));
    CHECK_OK(cuzk_params_writer_begin(&w, 2));
    CHECK_OK(cuzk_params_writer_g1(&w, p.h, 2));
    CHECK_ERR(cuzk_params_writer_close(&w), CUZK_EINVAL, "parameters in memory: closed with");
    CHECK(is_zero(&m, sizeof m) && is_zero(&w, sizeof w));
    CHECK_OK(cuzk_params_writer_open_mem(&w, &m, &p.vk));
    CHECK_OK(cuzk_params_writer_begin(&w, 3));
    cuzk_params_writer_abort(&w);
    CHECK(is_zero(&m, sizeof m) && is_zero(&w, sizeof w));
    CHECK_ERR(cuzk_params_writer_open_mem(&w, NULL, &p.vk), CUZK_EINVAL, "NULL argument");

    free(ref);
    cuzk_params_free(&p);
}

static void test_truncation(void)
{
    cuzk_params p;
    make_params(&p, ALL, 3);
    size_t size;
    uint8_t *data = params_bytes(&p, &size);
    CHECK(size == file_size_for(ALL));
    char needle[200];

    CHECK_ERR(parse_copy(data, 0, 0), CUZK_EFORMAT,
              "t.params: truncated: alpha_g1 needs 96 bytes at offset 0 but only 0 remain");
    CHECK_ERR(parse_copy(data, 50, 0), CUZK_EFORMAT,
              "truncated: alpha_g1 needs 96 bytes at offset 0 but only 50 remain");
    CHECK_ERR(parse_copy(data, 500, 0), CUZK_EFORMAT,
              "truncated: gamma_g2 needs 192 bytes at offset 384 but only 116 remain");
    CHECK_ERR(parse_copy(data, CUZK_VK_FIXED_BYTES - 1, 0), CUZK_EFORMAT,
              "truncated: delta_g2 needs 192 bytes at offset 672 but only 191 remain");
    /* Inside a count. */
    CHECK_ERR(parse_copy(data, CUZK_VK_FIXED_BYTES, 0), CUZK_EFORMAT,
              "truncated: ic count needs 4 bytes at offset 864 but only 0 remain");
    CHECK_ERR(parse_copy(data, CUZK_VK_FIXED_BYTES + 2, 0), CUZK_EFORMAT,
              "truncated: ic count needs 4 bytes at offset 864 but only 2 remain");
    size_t at = count_off(ALL, S_BG1) + 3;
    snprintf(needle, sizeof needle, "b_g1 count needs 4 bytes at offset %zu but only 3 remain",
             at - 3);
    CHECK_ERR(parse_copy(data, at, 0), CUZK_EFORMAT, needle);
    /* Inside a point: the count no longer fits. */
    at = point_off(ALL, S_IC, 1) + 10;
    snprintf(needle, sizeof needle,
             "t.params: ic count 3 needs 288 bytes at offset 868 but only %zu remain", at - 868);
    CHECK_ERR(parse_copy(data, at, 0), CUZK_EFORMAT, needle);
    at = point_off(ALL, S_BG2, 2) + 191;
    snprintf(needle, sizeof needle,
             "b_g2 count 3 needs 576 bytes at offset %zu but only %zu remain",
             point_off(ALL, S_BG2, 0), at - point_off(ALL, S_BG2, 0));
    CHECK_ERR(parse_copy(data, at, CUZK_PARAMS_CHECKED), CUZK_EFORMAT, needle);
    /* One byte short of the whole file. */
    CHECK_ERR(parse_copy(data, size - 1, 0), CUZK_EFORMAT, "b_g2 count 3 needs 576 bytes");
    /* The whole file parses. */
    CHECK_OK(parse_copy(data, size, CUZK_PARAMS_CHECKED));

    /* .vk truncations. */
    size_t vk_size = count_off(ALL, S_H);
    CHECK_OK(parse_vk_copy(data, vk_size));
    CHECK_ERR(parse_vk_copy(data, 200), CUZK_EFORMAT,
              "t.vk: truncated: beta_g2 needs 192 bytes at offset 192 but only 8 remain");
    CHECK_ERR(parse_vk_copy(data, vk_size - 1), CUZK_EFORMAT,
              "t.vk: ic count 3 needs 288 bytes at offset 868 but only 287 remain");
    CHECK_ERR(parse_vk_copy(data, vk_size + 1), CUZK_EFORMAT,
              "t.vk: 1 trailing bytes after ic at offset");

    free(data);
    cuzk_params_free(&p);
}

static void test_counts_and_trailing(void)
{
    cuzk_params p;
    make_params(&p, ALL, 4);
    size_t size;
    uint8_t *data = params_bytes(&p, &size);
    uint8_t *bad = malloc(size + 7);
    char needle[200];

    /* ic count 1000. */
    memcpy(bad, data, size);
    memcpy(bad + CUZK_VK_FIXED_BYTES, "\0\0\x03\xe8", 4);
    snprintf(needle, sizeof needle,
             "t.params: ic count 1000 needs 96000 bytes at offset 868 but only %zu remain",
             size - 868);
    CHECK_ERR(parse_copy(bad, size, 0), CUZK_EFORMAT, needle);
    /* h count 0xffffffff: never a huge allocation. */
    memcpy(bad, data, size);
    size_t h_at = count_off(ALL, S_H);
    memcpy(bad + h_at, "\xff\xff\xff\xff", 4);
    snprintf(needle, sizeof needle,
             "h count 4294967295 needs 412316860320 bytes at offset %zu but only %zu remain",
             h_at + 4, size - h_at - 4);
    CHECK_ERR(parse_copy(bad, size, 0), CUZK_EFORMAT, needle);
    /* b_g2 count one too large. */
    memcpy(bad, data, size);
    size_t b2_at = count_off(ALL, S_BG2);
    bad[b2_at + 3] = 4;
    snprintf(needle, sizeof needle,
             "b_g2 count 4 needs 768 bytes at offset %zu but only 576 remain", b2_at + 4);
    CHECK_ERR(parse_copy(bad, size, 0), CUZK_EFORMAT, needle);
    /* A count one too small leaves trailing bytes... */
    memcpy(bad, data, size);
    bad[b2_at + 3] = 2;
    snprintf(needle, sizeof needle, "t.params: 192 trailing bytes after b_g2 at offset %zu",
             size - 192);
    CHECK_ERR(parse_copy(bad, size, 0), CUZK_EFORMAT, needle);
    /* ...or shifts the sections so that a count reads garbage. */
    memcpy(bad, data, size);
    bad[h_at + 3] = 3;
    CHECK(parse_copy(bad, size, 0) != CUZK_OK);

    /* Trailing bytes after b_g2. */
    memcpy(bad, data, size);
    memset(bad + size, 0, 7);
    snprintf(needle, sizeof needle, "t.params: 7 trailing bytes after b_g2 at offset %zu", size);
    CHECK_ERR(parse_copy(bad, size + 7, 0), CUZK_EFORMAT, needle);
    CHECK_ERR(parse_copy(bad, size + 1, CUZK_PARAMS_CHECKED), CUZK_EFORMAT, "1 trailing bytes");

    free(bad);
    free(data);
    cuzk_params_free(&p);
}

/* Modify one point of a copy of `data` and check the parser's answer in
 * both modes. want_* = CUZK_OK means accepted. */
typedef struct {
    const uint8_t *data;
    size_t size;
    uint8_t *scratch;
} corrupt_ctx;

static void expect_at(corrupt_ctx *c, size_t off, const uint8_t *enc, size_t len,
                      cuzk_err want_plain, cuzk_err want_checked, const char *where,
                      const char *what, int line)
{
    memcpy(c->scratch, c->data, c->size);
    memcpy(c->scratch + off, enc, len);
    char needle[200];
    snprintf(needle, sizeof needle, "%s at offset %zu: ", where, off);
    const unsigned modes[2] = {0, CUZK_PARAMS_CHECKED};
    const cuzk_err want[2] = {want_plain, want_checked};
    for (int m = 0; m < 2; m++) {
        cuzk_err e = parse_copy(c->scratch, c->size, modes[m]);
        int ok = e == want[m] &&
                 (e == CUZK_OK || (strstr(cuzk_errmsg(), needle) && strstr(cuzk_errmsg(), what)));
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  line %d mode %u: want %s with \"%s\" and \"%s\", got %s: %s\n", line,
                    modes[m], cuzk_err_name(want[m]), needle, what, cuzk_err_name(e),
                    cuzk_errmsg());
    }
}

#define EXPECT_AT(off, enc, len, plain, checked, where, what)                                      \
    expect_at(&cc, (off), (enc), (len), (plain), (checked), (where), (what), __LINE__)

static void test_bad_points(void)
{
    cuzk_params p;
    make_params(&p, ALL, 5);
    size_t size;
    uint8_t *data = params_bytes(&p, &size);
    corrupt_ctx cc = {data, size, malloc(size)};
    const cuzk_err OK = CUZK_OK, EC = CUZK_ECURVE, EF = CUZK_EFORMAT;

    /* Off the curve: bump the last byte of y. */
    static const struct {
        int sec;
        size_t idx;
        const char *where;
    } sites[] = {{S_IC, 1, "ic point 1"}, {S_H, 2, "h point 2"},      {S_L, 0, "l point 0"},
                 {S_A, 3, "a point 3"},   {S_BG1, 1, "b_g1 point 1"}, {S_BG2, 2, "b_g2 point 2"}};
    for (size_t s = 0; s < sizeof sites / sizeof sites[0]; s++) {
        size_t off = point_off(ALL, sites[s].sec, sites[s].idx);
        size_t len = sites[s].sec == S_BG2 ? 192 : 96;
        uint8_t pt[192];
        memcpy(pt, data + off, len);
        pt[len - 1] ^= 1;
        EXPECT_AT(off, pt, len, EC, EC, sites[s].where, "not on curve");
        /* Infinity is forbidden in every section, checked or not. */
        put_infinity(pt, len);
        EXPECT_AT(off, pt, len, EC, EC, sites[s].where, "point at infinity");
        /* A compressed flag inside an uncompressed point. */
        memcpy(pt, data + off, len);
        pt[0] |= 0x80;
        EXPECT_AT(off, pt, len, EF, EF, sites[s].where, "compression flag is set");
    }
    static const struct {
        size_t off, len;
        const char *name;
    } vk_sites[] = {{OFF_ALPHA_G1, 96, "alpha_g1"}, {OFF_BETA_G1, 96, "beta_g1"},
                    {OFF_BETA_G2, 192, "beta_g2"},  {OFF_GAMMA_G2, 192, "gamma_g2"},
                    {OFF_DELTA_G1, 96, "delta_g1"}, {OFF_DELTA_G2, 192, "delta_g2"}};
    for (size_t s = 0; s < sizeof vk_sites / sizeof vk_sites[0]; s++) {
        uint8_t pt[192];
        size_t off = vk_sites[s].off, len = vk_sites[s].len;
        memcpy(pt, data + off, len);
        pt[len - 1] ^= 1;
        EXPECT_AT(off, pt, len, EC, EC, vk_sites[s].name, "not on curve");
        memcpy(pt, data + off, len);
        pt[0] |= 0x80;
        EXPECT_AT(off, pt, len, EF, EF, vk_sites[s].name, "compression flag is set");
        /* The VK elements may be the identity. */
        put_infinity(pt, len);
        EXPECT_AT(off, pt, len, OK, OK, vk_sites[s].name, "");
    }
    /* A decoded identity alpha_g1 is the identity. */
    memcpy(cc.scratch, data, size);
    put_infinity(cc.scratch, 96);
    cuzk_params q;
    CHECK_OK(cuzk_params_parse(cc.scratch, size, "t.params", &q, CUZK_PARAMS_CHECKED));
    CHECK(blst_p1_affine_is_inf(&q.vk.alpha_g1));
    CHECK(g1s_eq(q.h, p.h, p.n_h));
    cuzk_params_free(&q);

    /* Outside the subgroup: always rejected in the VK and ic, only in checked
     * mode in h, l, a, b_g1, b_g2. */
    blst_p1_affine ng1;
    uint8_t ng1_enc[96], ng2_enc[192];
    non_g1_point(&ng1, ng1_enc);
    blst_p2_affine ng2;
    non_g2_point(&ng2, ng2_enc);
    uint8_t via_blst2[192];
    blst_p2_affine_serialize(via_blst2, &ng2);
    CHECK(memcmp(via_blst2, ng2_enc, 192) == 0);
    uint8_t via_blst[96];
    blst_p1_affine_serialize(via_blst, &ng1);
    CHECK(memcmp(via_blst, ng1_enc, 96) == 0);
    const char *sub = "not in subgroup";
    EXPECT_AT(OFF_ALPHA_G1, ng1_enc, 96, EC, EC, "alpha_g1", sub);
    EXPECT_AT(OFF_BETA_G1, ng1_enc, 96, EC, EC, "beta_g1", sub);
    EXPECT_AT(OFF_DELTA_G1, ng1_enc, 96, EC, EC, "delta_g1", sub);
    EXPECT_AT(OFF_BETA_G2, ng2_enc, 192, EC, EC, "beta_g2", sub);
    EXPECT_AT(OFF_GAMMA_G2, ng2_enc, 192, EC, EC, "gamma_g2", sub);
    EXPECT_AT(OFF_DELTA_G2, ng2_enc, 192, EC, EC, "delta_g2", sub);
    EXPECT_AT(point_off(ALL, S_IC, 2), ng1_enc, 96, EC, EC, "ic point 2", sub);
    EXPECT_AT(point_off(ALL, S_H, 0), ng1_enc, 96, OK, EC, "h point 0", sub);
    EXPECT_AT(point_off(ALL, S_L, 3), ng1_enc, 96, OK, EC, "l point 3", sub);
    EXPECT_AT(point_off(ALL, S_A, 1), ng1_enc, 96, OK, EC, "a point 1", sub);
    EXPECT_AT(point_off(ALL, S_BG1, 2), ng1_enc, 96, OK, EC, "b_g1 point 2", sub);
    EXPECT_AT(point_off(ALL, S_BG2, 1), ng2_enc, 192, OK, EC, "b_g2 point 1", sub);

    /* A coordinate >= p is a bad encoding (x = all ones below the flags). */
    uint8_t big[96];
    memcpy(big, data + point_off(ALL, S_L, 1), 96);
    memset(big, 0xff, 48);
    big[0] = 0x1f;
    EXPECT_AT(point_off(ALL, S_L, 1), big, 96, EF, EF, "l point 1", "bad encoding");

    /* The same checks through .vk. */
    size_t vk_size = count_off(ALL, S_H);
    memcpy(cc.scratch, data, vk_size);
    memcpy(cc.scratch + point_off(ALL, S_IC, 0), ng1_enc, 96);
    char needle[128];
    snprintf(needle, sizeof needle, "t.vk: ic point 0 at offset %zu: ", point_off(ALL, S_IC, 0));
    CHECK_ERR(parse_vk_copy(cc.scratch, vk_size), CUZK_ECURVE, needle);
    CHECK(strstr(cuzk_errmsg(), sub) != NULL);
    memcpy(cc.scratch, data, vk_size);
    put_infinity(cc.scratch + point_off(ALL, S_IC, 2), 96);
    CHECK_ERR(parse_vk_copy(cc.scratch, vk_size), CUZK_ECURVE, "point at infinity");
    memcpy(cc.scratch, data, vk_size);
    put_infinity(cc.scratch + OFF_GAMMA_G2, 192);
    CHECK_OK(parse_vk_copy(cc.scratch, vk_size));

    free(cc.scratch);
    free(data);
    cuzk_params_free(&p);
}

/* Many points: the parallel decoder reports the lowest failing index. */
static void test_parallel_first_error(void)
{
    const size_t N = 3000;
    size_t n[6] = {1, 0, 0, 0, 0, 0};
    cuzk_params p;
    make_params(&p, n, 6);
    /* h[i] = h0 + i*G: cheap distinct points. */
    n[S_H] = N;
    p.h = malloc(N * sizeof *p.h);
    p.n_h = N;
    cuzk_rng g;
    cuzk_rng_seed(&g, 66);
    blst_p1 acc;
    rand_g1(&g, &p.h[0]);
    blst_p1_from_affine(&acc, &p.h[0]);
    for (size_t i = 1; i < N; i++) {
        blst_p1_add_or_double(&acc, &acc, blst_p1_generator());
        blst_p1_to_affine(&p.h[i], &acc);
    }
    size_t size;
    uint8_t *data = params_bytes(&p, &size);
    cuzk_params q;
    CHECK_OK(cuzk_params_parse(data, size, "big", &q, CUZK_PARAMS_CHECKED));
    CHECK(params_eq(&p, &q));
    cuzk_params_free(&q);

    blst_p1_affine ng1;
    uint8_t ng1_enc[96];
    non_g1_point(&ng1, ng1_enc);
    data[point_off(n, S_H, 2999) + 95] ^= 1;
    data[point_off(n, S_H, 1700) + 95] ^= 1;
    memcpy(data + point_off(n, S_H, 900), ng1_enc, 96);
    put_infinity(data + point_off(n, S_H, 2500), 96);
    char needle[128];
    for (int rep = 0; rep < 3; rep++) {
        snprintf(needle, sizeof needle,
                 "big: h point 900 at offset %zu: G1 point: point not in subgroup",
                 point_off(n, S_H, 900));
        CHECK_ERR(cuzk_params_parse(data, size, "big", &q, CUZK_PARAMS_CHECKED), CUZK_ECURVE,
                  needle);
        snprintf(needle, sizeof needle,
                 "big: h point 1700 at offset %zu: G1 point: point not on curve",
                 point_off(n, S_H, 1700));
        CHECK_ERR(cuzk_params_parse(data, size, "big", &q, 0), CUZK_ECURVE, needle);
        CHECK(is_zero(&q, sizeof q));
    }
    /* The last point of one chunk fails after the first of the next has: the
     * lower index still wins. */
    data[point_off(n, S_H, 511) + 95] ^= 1;
    data[point_off(n, S_H, 512) + 95] ^= 1;
    for (int rep = 0; rep < 5; rep++) {
        snprintf(needle, sizeof needle, "big: h point 511 at offset %zu: G1 point: point not on",
                 point_off(n, S_H, 511));
        CHECK_ERR(cuzk_params_parse(data, size, "big", &q, 0), CUZK_ECURVE, needle);
    }
    free(data);
    cuzk_params_free(&p);
}

static void test_proofs(void)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, 7);
    cuzk_proof pr[3];
    for (int i = 0; i < 3; i++) {
        rand_g1(&g, &pr[i].a);
        rand_g2(&g, &pr[i].b);
        rand_g1(&g, &pr[i].c);
    }
    uint8_t enc[CUZK_PROOF_BYTES], want[48];
    cuzk_proof d;
    cuzk_proof_encode(enc, &pr[0]);
    blst_p1_affine_compress(want, &pr[0].c);
    CHECK(memcmp(enc + 144, want, 48) == 0 && (enc[0] & 0x80) && (enc[48] & 0x80));
    CHECK_OK(cuzk_proof_decode(&d, enc));
    CHECK(g1s_eq(&d.a, &pr[0].a, 1) && g2s_eq(&d.b, &pr[0].b, 1) && g1s_eq(&d.c, &pr[0].c, 1));
    /* Infinity is allowed in a proof. */
    cuzk_proof inf;
    memset(&inf, 0, sizeof inf);
    cuzk_proof_encode(enc, &inf);
    CHECK(enc[0] == 0xc0 && enc[48] == 0xc0 && enc[144] == 0xc0);
    CHECK_OK(cuzk_proof_decode(&d, enc));
    CHECK(blst_p1_affine_is_inf(&d.a) && blst_p1_affine_is_inf(&d.c));

    /* Bad proofs. */
    cuzk_proof_encode(enc, &pr[1]);
    enc[0] &= 0x7f;
    CHECK_ERR(cuzk_proof_decode(&d, enc), CUZK_EFORMAT, "proof A (byte 0): compressed G1 point");
    cuzk_proof_encode(enc, &pr[1]);
    x_off_curve(enc + 144);
    enc[144] |= 0x80;
    CHECK_ERR(cuzk_proof_decode(&d, enc), CUZK_ECURVE, "proof C (byte 144)");
    CHECK(strstr(cuzk_errmsg(), "not on curve") != NULL);
    blst_p1_affine ng1;
    uint8_t ng1_enc[96];
    non_g1_point(&ng1, ng1_enc);
    cuzk_proof_encode(enc, &pr[1]);
    blst_p1_affine_compress(enc, &ng1);
    CHECK_ERR(cuzk_proof_decode(&d, enc), CUZK_ECURVE, "proof A (byte 0)");
    CHECK(strstr(cuzk_errmsg(), "not in subgroup") != NULL);
    blst_p2_affine ng2;
    uint8_t ng2_enc[192];
    non_g2_point(&ng2, ng2_enc);
    cuzk_proof_encode(enc, &pr[1]);
    blst_p2_affine_compress(enc + 48, &ng2);
    CHECK_ERR(cuzk_proof_decode(&d, enc), CUZK_ECURVE,
              "proof B (byte 48): compressed G2 point: point not in subgroup");

    /* Files. */
    char path[TMP_NAME_CAP];
    tmp_name(path, "proof.bin");
    CHECK_OK(cuzk_proofs_write(path, pr, 3));
    uint8_t *raw;
    size_t raw_size;
    CHECK_OK(cuzk_read_file(path, &raw, &raw_size));
    CHECK(raw_size == 3 * CUZK_PROOF_BYTES);
    cuzk_proof_encode(enc, &pr[2]);
    CHECK(memcmp(raw + 2 * CUZK_PROOF_BYTES, enc, CUZK_PROOF_BYTES) == 0);
    cuzk_proof *got = NULL;
    size_t n = 0;
    CHECK_OK(cuzk_proofs_read(path, &got, &n));
    CHECK(n == 3);
    for (size_t i = 0; got && i < n && i < 3; i++)
        CHECK(g1s_eq(&got[i].a, &pr[i].a, 1) && g2s_eq(&got[i].b, &pr[i].b, 1) &&
              g1s_eq(&got[i].c, &pr[i].c, 1));
    free(got);

    const size_t bad_sizes[] = {191, 0, 385, 193};
    for (size_t s = 0; s < sizeof bad_sizes / sizeof bad_sizes[0]; s++) {
        uint8_t *buf = calloc(1, 400);
        memcpy(buf, raw, bad_sizes[s] < raw_size ? bad_sizes[s] : raw_size);
        CHECK_OK(cuzk_write_file(path, buf, bad_sizes[s]));
        char needle[128];
        snprintf(needle, sizeof needle,
                 "size %zu bytes is not a non-zero multiple of the 192-byte proof size",
                 bad_sizes[s]);
        got = (cuzk_proof *)1;
        n = 7;
        CHECK_ERR(cuzk_proofs_read(path, &got, &n), CUZK_EFORMAT, needle);
        CHECK(got == NULL && n == 0);
        free(buf);
    }

    /* A corrupted point names its partition. */
    uint8_t *bad = malloc(raw_size);
    memcpy(bad, raw, raw_size);
    x2_off_curve(bad + CUZK_PROOF_BYTES + 48); /* partition 1, B: no point of E' */
    bad[CUZK_PROOF_BYTES + 48] |= 0x80;
    CHECK_OK(cuzk_write_file(path, bad, raw_size));
    CHECK_ERR(cuzk_proofs_read(path, &got, &n), CUZK_ECURVE, "partition 1 (offset 192): proof B");
    CHECK(got == NULL && n == 0);
    memcpy(bad, raw, raw_size);
    blst_p1_affine_compress(bad + 2 * CUZK_PROOF_BYTES + 144, &ng1);
    CHECK_OK(cuzk_write_file(path, bad, raw_size));
    CHECK_ERR(cuzk_proofs_read(path, &got, &n), CUZK_ECURVE,
              "partition 2 (offset 384): proof C (byte 144): compressed G1 point: point not in "
              "subgroup");
    memcpy(bad, raw, raw_size);
    bad[0] &= 0x7f;
    CHECK_OK(cuzk_write_file(path, bad, raw_size));
    CHECK_ERR(cuzk_proofs_read(path, &got, &n), CUZK_EFORMAT, "partition 0 (offset 0): proof A");
    free(bad);

    CHECK_ERR(cuzk_proofs_write(path, pr, 0), CUZK_EINVAL, "at least one proof");
    char missing[TMP_NAME_CAP];
    CHECK_ERR(cuzk_proofs_read(tmp_name(missing, "missing.proof"), &got, &n), CUZK_EIO, "missing");
    remove(path);
    free(raw);
}

int main(void)
{
    /* More threads than chunks on small machines too, so the parallel
     * decoder really runs in parallel. */
    cuzk_threads_set(4);
    test_roundtrip();
    test_writer();
    test_truncation();
    test_counts_and_trailing();
    test_bad_points();
    test_parallel_first_error();
    test_proofs();
    cuzk_threads_shutdown();
    return check_done("test_groth16_params");
}
