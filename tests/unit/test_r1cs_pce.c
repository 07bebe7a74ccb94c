/* PCE: SpMV and transposed SpMV against a naive evaluation of the terms the
 * test itself handed to the builder (duplicates and zeros included), thread
 * count independence, the file round trip, and one precise error for every
 * way a file can be damaged. The corruption tests locate sections with the
 * layout documented in pce.h, so they also pin the format down. */
#include "check.h"
#include "cuzk/pce.h"
#include "cuzk/r1cs.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A random circuit and the terms that built it. */
typedef struct {
    cuzk_r1cs *cs;
    uint32_t n_inputs;
    uint64_t n_aux, n_rows; /* user rows, before the input constraints */
    cuzk_term *terms;       /* all LCs back to back */
    uint64_t *start;        /* LC (row*3 + k) is terms[start[i], start[i+1]) */
    cuzk_fr *w;
} random_circuit;

static uint32_t column_of(cuzk_var v, uint32_t n_inputs)
{
    return (v & CUZK_VAR_AUX_BIT) ? n_inputs + (v & ~CUZK_VAR_AUX_BIT) : v;
}

static void random_coeff(cuzk_fr *c, cuzk_rng *g)
{
    switch (cuzk_rng_u64(g) % 6) {
    case 0: cuzk_fr_zero(c); break;
    case 1:
        cuzk_fr_one(c);
        cuzk_fr_neg(c, c);
        break;
    case 2: cuzk_fr_from_u64(c, 1u << (cuzk_rng_u64(g) % 8)); break;
    case 3: cuzk_fr_rng(c, g); break;
    default: cuzk_fr_one(c); break;
    }
}

static void random_circuit_build(random_circuit *rc, uint64_t rows, uint64_t seed)
{
    cuzk_rng g;
    cuzk_rng_seed(&g, seed);
    memset(rc, 0, sizeof *rc);
    rc->n_rows = rows;
    CHECK_OK(cuzk_r1cs_new(&rc->cs, 0));
    rc->terms = malloc(rows * 3 * 8 * sizeof *rc->terms);
    rc->start = malloc((rows * 3 + 1) * sizeof *rc->start);
    rc->start[0] = 0;
    cuzk_var vars[8192];
    size_t n_vars = 1;
    vars[0] = CUZK_VAR_ONE;
    for (uint64_t r = 0; r < rows; r++) {
        /* new variables now and then, inputs among them */
        if (n_vars < 8192 && cuzk_rng_u64(&g) % 3 == 0) {
            cuzk_var v;
            if (cuzk_rng_u64(&g) % 16 == 0)
                CHECK_OK(cuzk_r1cs_alloc_input(rc->cs, NULL, &v));
            else
                CHECK_OK(cuzk_r1cs_alloc_aux(rc->cs, NULL, &v));
            vars[n_vars++] = v;
        }
        for (int k = 0; k < 3; k++) {
            uint64_t i = r * 3 + k, n = cuzk_rng_u64(&g) % (k == 1 ? 3 : 8);
            for (uint64_t j = 0; j < n; j++) {
                cuzk_term *t = &rc->terms[rc->start[i] + j];
                /* favour recent variables, and repeat some within an LC */
                size_t back = cuzk_rng_u64(&g) % (n_vars < 16 ? n_vars : 16);
                t->var = cuzk_rng_u64(&g) % 4 ? vars[n_vars - 1 - back]
                                              : vars[cuzk_rng_u64(&g) % n_vars];
                random_coeff(&t->coeff, &g);
            }
            rc->start[i + 1] = rc->start[i] + n;
        }
        const cuzk_term *t = rc->terms;
        const uint64_t *s = rc->start + r * 3;
        CHECK_OK(cuzk_r1cs_enforce(rc->cs, t + s[0], s[1] - s[0], t + s[1], s[2] - s[1], t + s[2],
                                   s[3] - s[2]));
    }
    CHECK_OK(cuzk_r1cs_finalize(rc->cs));
    rc->n_inputs = cuzk_r1cs_num_inputs(rc->cs);
    rc->n_aux = cuzk_r1cs_num_aux(rc->cs);
    rc->w = malloc((rc->n_inputs + rc->n_aux) * sizeof *rc->w);
    cuzk_fr_vec_rng(rc->w, rc->n_inputs + rc->n_aux, seed + 1);
    cuzk_fr_one(&rc->w[0]);
}

static void random_circuit_free(random_circuit *rc)
{
    cuzk_r1cs_free(rc->cs);
    free(rc->terms);
    free(rc->start);
    free(rc->w);
}

/* out[k][row] = naive LC k of every row, including the input constraints. */
static void naive_spmv(const random_circuit *rc, cuzk_fr *out[3])
{
    for (uint64_t r = 0; r < rc->n_rows; r++)
        for (int k = 0; k < 3; k++) {
            cuzk_fr acc, x;
            cuzk_fr_zero(&acc);
            for (uint64_t j = rc->start[r * 3 + k]; j < rc->start[r * 3 + k + 1]; j++) {
                blst_fr_mul(&x, &rc->terms[j].coeff,
                            &rc->w[column_of(rc->terms[j].var, rc->n_inputs)]);
                blst_fr_add(&acc, &acc, &x);
            }
            out[k][r] = acc;
        }
    for (uint32_t i = 0; i < rc->n_inputs; i++) {
        out[0][rc->n_rows + i] = rc->w[i];
        cuzk_fr_zero(&out[1][rc->n_rows + i]);
        cuzk_fr_zero(&out[2][rc->n_rows + i]);
    }
}

static void naive_spmv_t(const random_circuit *rc, const cuzk_fr *x, cuzk_fr *out[3])
{
    uint64_t n_cols = rc->n_inputs + rc->n_aux;
    for (int k = 0; k < 3; k++)
        for (uint64_t j = 0; j < n_cols; j++)
            cuzk_fr_zero(&out[k][j]);
    for (uint64_t r = 0; r < rc->n_rows; r++)
        for (int k = 0; k < 3; k++)
            for (uint64_t j = rc->start[r * 3 + k]; j < rc->start[r * 3 + k + 1]; j++) {
                cuzk_fr p;
                uint32_t c = column_of(rc->terms[j].var, rc->n_inputs);
                blst_fr_mul(&p, &rc->terms[j].coeff, &x[r]);
                blst_fr_add(&out[k][c], &out[k][c], &p);
            }
    for (uint32_t i = 0; i < rc->n_inputs; i++)
        blst_fr_add(&out[0][i], &out[0][i], &x[rc->n_rows + i]);
}

static int fr_vec_eq(const cuzk_fr *a, const cuzk_fr *b, uint64_t n)
{
    return memcmp(a, b, n * sizeof *a) == 0;
}

static cuzk_fr *fr_alloc(uint64_t n)
{
    return malloc((n ? n : 1) * sizeof(cuzk_fr));
}

static void test_spmv(void)
{
    random_circuit rc;
    random_circuit_build(&rc, 6000, 11);
    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, rc.cs));
    uint64_t m = p->n_constraints, n_cols = p->n_inputs + p->n_aux;
    CHECK(m == rc.n_rows + rc.n_inputs);
    CHECK(rc.n_inputs > 10 && rc.n_aux > 1000);
    cuzk_fr *want[3], *got1[3], *got2[3];
    for (int k = 0; k < 3; k++) {
        want[k] = fr_alloc(m);
        got1[k] = fr_alloc(m);
        got2[k] = fr_alloc(m);
    }
    naive_spmv(&rc, want);
    cuzk_threads_set(1);
    CHECK_OK(cuzk_pce_spmv(p, rc.w, got1[0], got1[1], got1[2]));
    cuzk_threads_set(2);
    CHECK_OK(cuzk_pce_spmv(p, rc.w, got2[0], got2[1], got2[2]));
    for (int k = 0; k < 3; k++) {
        CHECK(fr_vec_eq(got1[k], want[k], m));
        CHECK(fr_vec_eq(got2[k], want[k], m));
    }

    /* Transposed: x over rows -> per column. */
    cuzk_fr *x = fr_alloc(m), *tw[3], *t1[3], *t2[3];
    cuzk_fr_vec_rng(x, m, 99);
    for (int k = 0; k < 3; k++) {
        tw[k] = fr_alloc(n_cols);
        t1[k] = fr_alloc(n_cols);
        t2[k] = fr_alloc(n_cols);
    }
    naive_spmv_t(&rc, x, tw);
    cuzk_threads_set(1);
    CHECK_OK(cuzk_pce_spmv_t(p, x, t1[0], t1[1], t1[2]));
    cuzk_threads_set(2);
    CHECK_OK(cuzk_pce_spmv_t(p, x, t2[0], t2[1], t2[2]));
    for (int k = 0; k < 3; k++) {
        CHECK(fr_vec_eq(t1[k], tw[k], n_cols));
        CHECK(fr_vec_eq(t2[k], tw[k], n_cols));
    }
    CHECK_ERR(cuzk_pce_spmv(p, NULL, got1[0], got1[1], got1[2]), CUZK_EINVAL, "NULL");

    /* Densities agree with the column sets of the matrices. */
    uint8_t *in_a = calloc(n_cols, 1), *in_b = calloc(n_cols, 1);
    for (uint64_t k = 0; k < p->a.nnz; k++)
        in_a[p->a.col[k]] = 1;
    for (uint64_t k = 0; k < p->b.nnz; k++)
        in_b[p->b.col[k]] = 1;
    int dens_ok = 1;
    uint64_t cnt_a = 0, cnt_b = 0;
    for (uint64_t j = 0; j < n_cols; j++) {
        dens_ok &= in_a[j] == ((p->a_density[j / 64] >> (j % 64)) & 1);
        dens_ok &= in_b[j] == ((p->b_density[j / 64] >> (j % 64)) & 1);
        cnt_a += in_a[j];
        cnt_b += in_b[j];
    }
    free(in_a);
    free(in_b);
    CHECK(dens_ok);
    CHECK(cnt_a == p->a_input_count + p->a_aux_count);
    CHECK(cnt_b == p->b_input_count + p->b_aux_count);
    CHECK(p->a_input_count == p->n_inputs);

    for (int k = 0; k < 3; k++) {
        free(want[k]);
        free(got1[k]);
        free(got2[k]);
        free(tw[k]);
        free(t1[k]);
        free(t2[k]);
    }
    free(x);
    cuzk_pce_free(p);
    random_circuit_free(&rc);
}

/* ---- files ---- */

static void path_in_tmp(char *out, size_t n, const char *name)
{
    snprintf(out, n, "%s/test_r1cs_pce_%ld_%s", check_tmpdir(), (long)getpid(), name);
}

static int pce_equal(const cuzk_pce *x, const cuzk_pce *y)
{
    if (x->n_inputs != y->n_inputs || x->n_aux != y->n_aux ||
        x->n_constraints != y->n_constraints || x->log_domain != y->log_domain ||
        x->n_coeffs != y->n_coeffs || x->checksum != y->checksum ||
        x->a_input_count != y->a_input_count || x->a_aux_count != y->a_aux_count ||
        x->b_input_count != y->b_input_count || x->b_aux_count != y->b_aux_count)
        return 0;
    const cuzk_csr *mx[3] = {&x->a, &x->b, &x->c}, *my[3] = {&y->a, &y->b, &y->c};
    for (int k = 0; k < 3; k++) {
        if (mx[k]->nnz != my[k]->nnz ||
            memcmp(mx[k]->row_ptr, my[k]->row_ptr, (x->n_constraints + 1) * 4) ||
            memcmp(mx[k]->col, my[k]->col, mx[k]->nnz * 4) ||
            memcmp(mx[k]->coef, my[k]->coef, mx[k]->nnz * 4))
            return 0;
    }
    uint64_t words = (x->n_inputs + x->n_aux + 63) / 64;
    return memcmp(x->coeffs, y->coeffs, x->n_coeffs * sizeof(cuzk_fr)) == 0 &&
           memcmp(x->a_density, y->a_density, words * 8) == 0 &&
           memcmp(x->b_density, y->b_density, words * 8) == 0;
}

/* Section offsets as documented in pce.h. */
typedef struct {
    uint64_t coeffs, row_ptr[3], col[3], coef[3], a_density, b_density, end;
} doc_layout;

static uint64_t up64(uint64_t x)
{
    return (x + 63) & ~(uint64_t)63;
}

static doc_layout doc_layout_of(const cuzk_pce *p)
{
    doc_layout l;
    uint64_t at = 88, nnz[3] = {p->a.nnz, p->b.nnz, p->c.nnz};
    l.coeffs = up64(at);
    at = l.coeffs + 32ull * p->n_coeffs;
    for (int k = 0; k < 3; k++) {
        l.row_ptr[k] = up64(at);
        at = l.row_ptr[k] + 4 * (p->n_constraints + 1);
        l.col[k] = up64(at);
        at = l.col[k] + 4 * nnz[k];
        l.coef[k] = up64(at);
        at = l.coef[k] + 4 * nnz[k];
    }
    uint64_t words = (p->n_inputs + p->n_aux + 63) / 64;
    l.a_density = up64(at);
    l.b_density = up64(l.a_density + 8 * words);
    l.end = l.b_density + 8 * words;
    return l;
}

/* Recompute both checksums so that a structural change gets past them. */
static void reseal(uint8_t *img, size_t size)
{
    cuzk_put_le64(img + 72, cuzk_checksum64(img + 88, size - 88));
    cuzk_put_le64(img + 80, cuzk_checksum64(img, 80));
}

/* Write a damaged copy of img and expect load to fail with code and needle. */
static void expect_bad(const uint8_t *img, size_t size, const char *path, cuzk_err code,
                       const char *needle, int line)
{
    CHECK_OK(cuzk_write_file(path, img, size));
    cuzk_pce *p = (cuzk_pce *)1;
    cuzk_err e = cuzk_pce_load(&p, path);
    if (e == code && strstr(cuzk_errmsg(), needle) && strstr(cuzk_errmsg(), path) && !p) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "line %d: want %s containing \"%s\", got %s: %s\n", line,
                cuzk_err_name(code), needle, cuzk_err_name(e), cuzk_errmsg());
    }
    if (e == CUZK_OK)
        cuzk_pce_free(p);
}
#define EXPECT_BAD(img, size, code, needle) expect_bad(img, size, bad, code, needle, __LINE__)

static void test_files(void)
{
    random_circuit rc;
    random_circuit_build(&rc, 3000, 5);
    cuzk_pce *p, *q;
    CHECK_OK(cuzk_pce_from_r1cs(&p, rc.cs));
    char good[512], bad[512];
    path_in_tmp(good, sizeof good, "good.pce");
    path_in_tmp(bad, sizeof bad, "bad.pce");
    CHECK_OK(cuzk_pce_write(p, good));
    CHECK_OK(cuzk_pce_load(&q, good));
    CHECK(pce_equal(p, q));
    uint64_t m = p->n_constraints;
    cuzk_fr *v1[3], *v2[3];
    for (int k = 0; k < 3; k++) {
        v1[k] = fr_alloc(m);
        v2[k] = fr_alloc(m);
    }
    CHECK_OK(cuzk_pce_spmv(p, rc.w, v1[0], v1[1], v1[2]));
    CHECK_OK(cuzk_pce_spmv(q, rc.w, v2[0], v2[1], v2[2]));
    for (int k = 0; k < 3; k++) {
        CHECK(fr_vec_eq(v1[k], v2[k], m));
        free(v1[k]);
        free(v2[k]);
    }
    /* A loaded PCE writes the same bytes again. */
    char again[512];
    path_in_tmp(again, sizeof again, "again.pce");
    CHECK_OK(cuzk_pce_write(q, again));
    uint8_t *img, *img2;
    size_t size, size2;
    CHECK_OK(cuzk_read_file(good, &img, &size));
    CHECK_OK(cuzk_read_file(again, &img2, &size2));
    CHECK(size == size2 && memcmp(img, img2, size) == 0);
    free(img2);
    remove(again);

    /* The documented layout. */
    doc_layout l = doc_layout_of(p);
    CHECK(size == l.end);
    CHECK(memcmp(img, "CUZKPCE\0", 8) == 0);
    CHECK(memcmp(img + l.coeffs, p->coeffs, 32) == 0);
    CHECK(memcmp(img + l.col[1], p->b.col, p->b.nnz * 4) == 0);
    CHECK(memcmp(img + l.b_density, p->b_density, 8) == 0);
    uint64_t hck;
    memcpy(&hck, img + 80, 8);
    CHECK(hck == cuzk_checksum64(img, 80));
    CHECK(p->checksum == cuzk_checksum64(img + 88, size - 88));

    uint8_t *d = malloc(size + 1);
#define FRESH() memcpy(d, img, size)
    /* size */
    FRESH();
    EXPECT_BAD(d, 40, CUZK_EFORMAT, "truncated: 40 bytes, the header alone needs 88");
    char want[128];
    snprintf(want, sizeof want, "truncated: %zu bytes, header implies %zu", size - 1, size);
    EXPECT_BAD(d, size - 1, CUZK_EFORMAT, want);
    d[size] = 0;
    snprintf(want, sizeof want, "%zu bytes, header implies %zu (1 trailing bytes)", size + 1, size);
    EXPECT_BAD(d, size + 1, CUZK_EFORMAT, want);
    EXPECT_BAD(d, 0, CUZK_EFORMAT, "truncated: 0 bytes");
    /* header fields */
    d[0] = 'X';
    EXPECT_BAD(d, size, CUZK_EFORMAT, "bad magic");
    FRESH();
    cuzk_put_le32(d + 8, 7);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "unsupported version 7");
    FRESH();
    cuzk_put_le32(d + 8, 1); /* the format before 32-bit row pointers */
    EXPECT_BAD(d, size, CUZK_EFORMAT, "version 1 (64-bit row pointers)");
    FRESH();
    cuzk_put_le64(d + 48, 1ull << 32); /* nnz_b beyond a u32 row pointer */
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "nnz of B is 4294967296");
    FRESH();
    cuzk_put_le32(d + 12, 2);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "unsupported field id 2");
    FRESH();
    d[30] ^= 0x10; /* inside n_aux */
    EXPECT_BAD(d, size, CUZK_ECHECKSUM, "header checksum mismatch");
    FRESH();
    cuzk_put_le32(d + 20, 1);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "unsupported flags 0x1");
    FRESH();
    cuzk_put_le32(d + 68, p->log_domain + 1);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "log_domain");
    FRESH();
    cuzk_put_le64(d + 40, p->a.nnz + 1000); /* more A entries than the file holds */
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "truncated");
    /* body */
    FRESH();
    d[l.col[0] + 4 * (p->a.nnz / 2)] ^= 1;
    EXPECT_BAD(d, size, CUZK_ECHECKSUM, "body checksum mismatch");
    FRESH();
    d[size - 1] ^= 0x80;
    EXPECT_BAD(d, size, CUZK_ECHECKSUM, "body checksum mismatch");
    /* structure behind valid checksums */
    uint64_t row = 100, at = p->a.row_ptr[row];
    while (p->a.row_ptr[row + 1] == at) /* a row with an entry */
        at = p->a.row_ptr[++row];
    uint32_t n_cols = p->n_inputs + (uint32_t)p->n_aux;
    FRESH();
    cuzk_put_le32(d + l.col[0] + 4 * at, n_cols + 99);
    reseal(d, size);
    snprintf(want, sizeof want, "column %u out of range in row %llu of A", n_cols + 99,
             (unsigned long long)row);
    EXPECT_BAD(d, size, CUZK_EFORMAT, want);
    FRESH();
    cuzk_put_le32(d + l.coef[0] + 4 * at, p->n_coeffs);
    reseal(d, size);
    snprintf(want, sizeof want, "coefficient id %u out of range in row %llu of A", p->n_coeffs,
             (unsigned long long)row);
    EXPECT_BAD(d, size, CUZK_EFORMAT, want);
    FRESH();
    cuzk_put_le32(d + l.row_ptr[2] + 4 * 50, p->c.row_ptr[50] + 1000000);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "row 49 of C ends at");
    FRESH();
    CHECK(p->b.row_ptr[49] > 0);
    cuzk_put_le32(d + l.row_ptr[1] + 4 * 50, 0); /* row 49 now ends before it starts */
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "row_ptr of B decreases at row 49");
    FRESH();
    cuzk_put_le32(d + l.row_ptr[1] + 4 * m, (uint32_t)p->b.nnz - 1);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "not nnz");
    FRESH();
    memset(d + l.coeffs, 0, 32);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "coefficient 0 is zero");
    FRESH();
    memset(d + l.coeffs + 32, 0xff, 32);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "coefficient 1 is not a reduced field element");
    /* swap two entries of a row with several: order violated */
    uint64_t r2 = 0;
    while (p->a.row_ptr[r2 + 1] - p->a.row_ptr[r2] < 2)
        r2++;
    FRESH();
    uint64_t k0 = p->a.row_ptr[r2];
    cuzk_put_le32(d + l.col[0] + 4 * k0, p->a.col[k0 + 1]);
    cuzk_put_le32(d + l.col[0] + 4 * (k0 + 1), p->a.col[k0]);
    reseal(d, size);
    snprintf(want, sizeof want, "columns not strictly increasing in row %llu of A",
             (unsigned long long)r2);
    EXPECT_BAD(d, size, CUZK_EFORMAT, want);
    /* density bits: a column missing from B, an extra one, one past the end */
    uint64_t j = 0;
    while ((p->b_density[j / 64] >> (j % 64) & 1) == 0)
        j++;
    FRESH();
    d[l.b_density + j / 8] ^= (uint8_t)(1u << (j % 8));
    reseal(d, size);
    snprintf(want, sizeof want, "b_density bit %llu is clear but column %llu is used in B",
             (unsigned long long)j, (unsigned long long)j);
    EXPECT_BAD(d, size, CUZK_EFORMAT, want);
    j = 0;
    while ((p->a_density[j / 64] >> (j % 64) & 1) == 1)
        j++;
    if (j < n_cols) {
        FRESH();
        d[l.a_density + j / 8] ^= (uint8_t)(1u << (j % 8));
        reseal(d, size);
        snprintf(want, sizeof want, "a_density bit %llu is set but column %llu is empty in A",
                 (unsigned long long)j, (unsigned long long)j);
        EXPECT_BAD(d, size, CUZK_EFORMAT, want);
    }
    if (n_cols % 64) {
        FRESH();
        d[l.b_density + 8 * (n_cols / 64) + 7] |= 0x80;
        reseal(d, size);
        EXPECT_BAD(d, size, CUZK_EFORMAT, "past the last column");
    }
    /* the untouched copy still loads */
    FRESH();
    CHECK_OK(cuzk_write_file(bad, d, size));
    cuzk_pce *r;
    CHECK_OK(cuzk_pce_load(&r, bad));
    cuzk_pce_free(r);
    CHECK_ERR(cuzk_pce_load(&r, "/nonexistent/x.pce"), CUZK_EIO, "/nonexistent/x.pce");
#undef FRESH
    free(d);
    free(img);
    remove(good);
    remove(bad);
    cuzk_pce_free(p);
    cuzk_pce_free(q);
    random_circuit_free(&rc);
}

/* The smallest system: only ONE and its input constraint. */
static void test_tiny(void)
{
    cuzk_r1cs *cs;
    CHECK_OK(cuzk_r1cs_new(&cs, 1));
    CHECK_OK(cuzk_r1cs_finalize(cs));
    cuzk_pce *p, *q;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cs));
    CHECK(p->n_constraints == 1 && p->log_domain == 0 && p->b.nnz == 0 && p->c.nnz == 0);
    char path[512];
    path_in_tmp(path, sizeof path, "tiny.pce");
    CHECK_OK(cuzk_pce_write(p, path));
    CHECK_OK(cuzk_pce_load(&q, path));
    CHECK(pce_equal(p, q));
    cuzk_fr a, b, c;
    CHECK_OK(cuzk_pce_spmv(q, cuzk_r1cs_assignment(cs), &a, &b, &c));
    CHECK(cuzk_fr_is_one(&a) && cuzk_fr_is_zero(&b) && cuzk_fr_is_zero(&c));
    remove(path);
    cuzk_pce_free(p);
    cuzk_pce_free(q);
    cuzk_r1cs_free(cs);
}

int main(void)
{
    test_spmv();
    test_files();
    test_tiny();
    cuzk_threads_shutdown();
    return check_done("test_r1cs_pce");
}
