/* PCE images (pce.h): compile a builder into one 64-byte-aligned image laid
 * out exactly as the file, write it, and map + validate it back.
 *
 * One layout function computes every section offset from the counts; the
 * compiler fills a malloc'd image with it and the loader checks a mapping
 * against it, so the two can never disagree. The validation scans run on
 * the thread pool and only find the FIRST bad element (cuzk_parallel_first);
 * the message is then built by re-examining that one element serially, which
 * keeps the hot loops free of formatting and the message deterministic. */
#define _GNU_SOURCE
#include "r1cs_internal.h"

#include "cuzk/pce.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the PCE image is little-endian and mapped as is"
#endif

static const char *const MATRIX_NAME[3] = {"A", "B", "C"};
static const uint8_t PCE_MAGIC[8] = {'C', 'U', 'Z', 'K', 'P', 'C', 'E', 0};

/* ---- header ---- */

typedef struct {
    uint32_t version, field, n_inputs, flags;
    uint64_t n_aux, n_constraints, nnz[3];
    uint32_t n_coeffs, log_domain;
    uint64_t body_checksum, header_checksum;
} pce_header;

static void header_encode(uint8_t *out, const pce_header *h)
{
    memcpy(out, PCE_MAGIC, 8);
    cuzk_put_le32(out + 8, h->version);
    cuzk_put_le32(out + 12, h->field);
    cuzk_put_le32(out + 16, h->n_inputs);
    cuzk_put_le32(out + 20, h->flags);
    cuzk_put_le64(out + 24, h->n_aux);
    cuzk_put_le64(out + 32, h->n_constraints);
    for (int k = 0; k < 3; k++)
        cuzk_put_le64(out + 40 + 8 * k, h->nnz[k]);
    cuzk_put_le32(out + 64, h->n_coeffs);
    cuzk_put_le32(out + 68, h->log_domain);
    cuzk_put_le64(out + 72, h->body_checksum);
    cuzk_put_le64(out + 80, cuzk_checksum64(out, 80));
}

static void header_decode(pce_header *h, const uint8_t *in)
{
    h->version = cuzk_get_le32(in + 8);
    h->field = cuzk_get_le32(in + 12);
    h->n_inputs = cuzk_get_le32(in + 16);
    h->flags = cuzk_get_le32(in + 20);
    h->n_aux = cuzk_get_le64(in + 24);
    h->n_constraints = cuzk_get_le64(in + 32);
    for (int k = 0; k < 3; k++)
        h->nnz[k] = cuzk_get_le64(in + 40 + 8 * k);
    h->n_coeffs = cuzk_get_le32(in + 64);
    h->log_domain = cuzk_get_le32(in + 68);
    h->body_checksum = cuzk_get_le64(in + 72);
    h->header_checksum = cuzk_get_le64(in + 80);
}

static unsigned log_domain_of(uint64_t n)
{
    unsigned k = 0;
    while (k < 64 && ((uint64_t)1 << k) < n)
        k++;
    return k;
}

/* ---- layout ---- */

typedef struct {
    uint64_t coeffs, row_ptr[3], col[3], coef[3], a_density, b_density, end;
} pce_layout;

/* Place a section of n elements of `elem` bytes at the next aligned offset
 * after *at; returns 0 on overflow. */
static int place(uint64_t *at, uint64_t *start, uint64_t n, uint64_t elem)
{
    uint64_t s, len, e;
    if (__builtin_add_overflow(*at, CUZK_PCE_ALIGN - 1, &s))
        return 0;
    s &= ~(uint64_t)(CUZK_PCE_ALIGN - 1);
    if (__builtin_mul_overflow(n, elem, &len) || __builtin_add_overflow(s, len, &e))
        return 0;
    *start = s;
    *at = e;
    return 1;
}

static uint64_t density_words(uint64_t n_cols)
{
    return (n_cols + 63) / 64;
}

static int layout_compute(pce_layout *l, const pce_header *h)
{
    uint64_t at = CUZK_PCE_HEADER_SIZE, rows = h->n_constraints + 1;
    uint64_t words = density_words((uint64_t)h->n_inputs + h->n_aux);
    if (rows == 0 || !place(&at, &l->coeffs, h->n_coeffs, sizeof(cuzk_fr)))
        return 0;
    for (int k = 0; k < 3; k++)
        if (!place(&at, &l->row_ptr[k], rows, 4) || !place(&at, &l->col[k], h->nnz[k], 4) ||
            !place(&at, &l->coef[k], h->nnz[k], 4))
            return 0;
    if (!place(&at, &l->a_density, words, 8) || !place(&at, &l->b_density, words, 8))
        return 0;
    l->end = at;
    return at <= SIZE_MAX;
}

/* Point the public arrays of p into image. */
static void bind(cuzk_pce *p, const pce_header *h, const pce_layout *l, const uint8_t *image)
{
    p->n_inputs = h->n_inputs;
    p->n_aux = h->n_aux;
    p->n_constraints = h->n_constraints;
    p->log_domain = h->log_domain;
    p->n_coeffs = h->n_coeffs;
    p->checksum = h->body_checksum;
    p->coeffs = (const cuzk_fr *)(image + l->coeffs);
    cuzk_csr *m[3] = {&p->a, &p->b, &p->c};
    for (int k = 0; k < 3; k++) {
        m[k]->row_ptr = (const uint32_t *)(image + l->row_ptr[k]);
        m[k]->col = (const uint32_t *)(image + l->col[k]);
        m[k]->coef = (const uint32_t *)(image + l->coef[k]);
        m[k]->nnz = h->nnz[k];
    }
    p->a_density = (const uint64_t *)(image + l->a_density);
    p->b_density = (const uint64_t *)(image + l->b_density);
}

/* Popcount of bits [lo, hi) of a bitmap. */
static uint64_t popcount_range(const uint64_t *bits, uint64_t lo, uint64_t hi)
{
    uint64_t n = 0;
    for (uint64_t i = lo; i < hi;) {
        uint64_t w = bits[i / 64] >> (i % 64);
        uint64_t take = 64 - i % 64;
        if (take > hi - i)
            take = hi - i;
        if (take < 64)
            w &= ((uint64_t)1 << take) - 1;
        n += (uint64_t)__builtin_popcountll(w);
        i += take;
    }
    return n;
}

static void count_density(cuzk_pce *p)
{
    uint64_t ni = p->n_inputs, nc = ni + p->n_aux;
    p->a_input_count = popcount_range(p->a_density, 0, ni);
    p->a_aux_count = popcount_range(p->a_density, ni, nc);
    p->b_input_count = popcount_range(p->b_density, 0, ni);
    p->b_aux_count = popcount_range(p->b_density, ni, nc);
}

/* Set the bit of every column of cols[lo, hi) in a shared bitmap. Reading
 * first keeps popular columns (ONE) from turning into contended writes. */
static void mark_columns(uint64_t *bits, const uint32_t *cols, uint64_t lo, uint64_t hi)
{
    for (uint64_t k = lo; k < hi; k++) {
        uint64_t *w = &bits[cols[k] / 64], bit = (uint64_t)1 << (cols[k] % 64);
        if (!(__atomic_load_n(w, __ATOMIC_RELAXED) & bit))
            __atomic_fetch_or(w, bit, __ATOMIC_RELAXED);
    }
}

/* ---- compile ---- */

typedef struct {
    const cuzk_r1cs *cs;
    uint32_t *col[3];
    uint64_t *density[2];
} compile_ctx;

#define COMPILE_GRAIN 65536

static void compile_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    compile_ctx *c = vctx;
    uint32_t ni = c->cs->n_inputs;
    for (int k = 0; k < 3; k++) {
        const r1cs_matrix *m = &c->cs->m[k];
        uint64_t b = (uint64_t)lo * COMPILE_GRAIN, e = (uint64_t)hi * COMPILE_GRAIN;
        if (e > m->nnz)
            e = m->nnz;
        for (uint64_t i = b; i < e; i++)
            c->col[k][i] = r1cs_var_column(m->var[i], ni);
        if (k < 2 && b < e)
            mark_columns(c->density[k], c->col[k], b, e);
    }
}

typedef struct {
    uint64_t start, len;
} span;

/* Zero the alignment gap in front of each section (the body is checksummed,
 * so padding must be deterministic). */
static void zero_gaps(uint8_t *img, const pce_layout *l, const pce_header *h)
{
    uint64_t words = density_words((uint64_t)h->n_inputs + h->n_aux), rows = h->n_constraints + 1;
    span s[12];
    int n = 0;
    s[n++] = (span){l->coeffs, (uint64_t)h->n_coeffs * sizeof(cuzk_fr)};
    for (int k = 0; k < 3; k++) {
        s[n++] = (span){l->row_ptr[k], rows * 4};
        s[n++] = (span){l->col[k], h->nnz[k] * 4};
        s[n++] = (span){l->coef[k], h->nnz[k] * 4};
    }
    s[n++] = (span){l->a_density, words * 8};
    s[n++] = (span){l->b_density, words * 8};
    uint64_t at = CUZK_PCE_HEADER_SIZE;
    for (int i = 0; i < n; i++) {
        memset(img + at, 0, (size_t)(s[i].start - at));
        at = s[i].start + s[i].len;
    }
}

/* A new image for header h: laid out, its gaps zeroed, the coefficient
 * table copied; *p allocated to own it (finished by image_seal). */
static cuzk_err image_new(const pce_header *h, const cuzk_fr *coeffs, pce_layout *l, cuzk_pce **p,
                          uint8_t **b)
{
    if (!layout_compute(l, h))
        return cuzk_fail(CUZK_EINVAL, "pce: the constraint system is too large for an image");
    for (int k = 0; k < 3; k++)
        if (h->nnz[k] > UINT32_MAX)
            return cuzk_fail(CUZK_EINVAL,
                             "pce: matrix %c has %llu non-zeros; a PCE holds fewer than 2^32 per "
                             "matrix",
                             "ABC"[k], (unsigned long long)h->nnz[k]);
    void *img = NULL;
    size_t size = (size_t)l->end;
    *p = calloc(1, sizeof **p);
    if (!*p || posix_memalign(&img, CUZK_PCE_ALIGN,
                              (size + CUZK_PCE_ALIGN - 1) & ~(size_t)(CUZK_PCE_ALIGN - 1)) != 0) {
        free(*p);
        return cuzk_fail(CUZK_ENOMEM, "pce: out of memory for a %zu-byte image", size);
    }
    *b = img;
    zero_gaps(*b, l, h);
    memcpy(*b + l->coeffs, coeffs, (size_t)h->n_coeffs * sizeof(cuzk_fr));
    return CUZK_OK;
}

/* Checksum and header written, p bound to its finished image. */
static void image_seal(cuzk_pce *p, uint8_t *b, pce_header *h, const pce_layout *l)
{
    size_t size = (size_t)l->end;
    h->body_checksum = cuzk_checksum64(b + CUZK_PCE_HEADER_SIZE, size - CUZK_PCE_HEADER_SIZE);
    header_encode(b, h);
    bind(p, h, l, b);
    count_density(p);
    p->image_ = b;
    p->image_size_ = size;
    p->image_mapped_ = 0;
}

cuzk_err cuzk_pce_from_r1cs(cuzk_pce **out, const cuzk_r1cs *cs)
{
    *out = NULL;
    if (!cs->finalized)
        return cuzk_fail(CUZK_EINVAL, "pce: the constraint system is not finalized");
    pce_header h = {.version = CUZK_PCE_VERSION,
                    .field = CUZK_PCE_FIELD_BLS12_381_FR,
                    .n_inputs = cs->n_inputs,
                    .n_aux = cs->n_aux,
                    .n_constraints = cs->n_constraints,
                    .nnz = {cs->m[0].nnz, cs->m[1].nnz, cs->m[2].nnz},
                    .n_coeffs = cs->n_coeffs,
                    .log_domain = log_domain_of(cs->n_constraints)};
    pce_layout l;
    cuzk_pce *p;
    uint8_t *b;
    CUZK_TRY(image_new(&h, cs->coeffs, &l, &p, &b));
    uint64_t words = density_words((uint64_t)h.n_inputs + h.n_aux);
    memset(b + l.a_density, 0, words * 8);
    memset(b + l.b_density, 0, words * 8);
    compile_ctx c = {cs, {0}, {(uint64_t *)(b + l.a_density), (uint64_t *)(b + l.b_density)}};
    uint64_t most = 0;
    for (int k = 0; k < 3; k++) {
        uint32_t *rp = (uint32_t *)(b + l.row_ptr[k]);
        for (uint64_t r = 0; r <= h.n_constraints; r++)
            rp[r] = (uint32_t)cs->m[k].row_ptr[r]; /* nnz < 2^32: image_new checked */
        memcpy(b + l.coef[k], cs->m[k].coef, (size_t)h.nnz[k] * 4);
        c.col[k] = (uint32_t *)(b + l.col[k]);
        if (h.nnz[k] > most)
            most = h.nnz[k];
    }
    cuzk_parallel_for((size_t)((most + COMPILE_GRAIN - 1) / COMPILE_GRAIN), 1, compile_range, &c);
    image_seal(p, b, &h, &l);
    *out = p;
    return CUZK_OK;
}

void cuzk_pce_free(cuzk_pce *p)
{
    if (!p)
        return;
    if (p->image_mapped_) {
        cuzk_mapfile m = {p->image_, p->image_size_};
        cuzk_mapfile_close(&m);
    } else {
        free((void *)p->image_);
    }
    free(p);
}

/* ---- tile ---- */

/* A circuit made of identical parts (FallbackPoSt's sectors, PoRep's
 * challenges) is its first part's constraint system repeated with its
 * inputs and aux renumbered: part k's inputs follow part k-1's, its aux
 * likewise, and ONE stays column 0. Renumbering is monotone (ONE < inputs
 * < aux in both), so rows stay canonical, and the coefficient table is the
 * part's (every coefficient first appears in part 0). The input
 * constraints (A = x_i, one per input) come last, as bellperson appends
 * them. */

typedef struct {
    const cuzk_pce *t;
    uint32_t ni_t, ni, ni_p; /* inputs of the template, the result, the prefix */
    uint64_t na_p, rows_p, rows_part, copies;
    uint8_t *img;
    const pce_layout *l;
} tile_ctx;

/* Whether a template column belongs to the prefix (ONE included). */
static int tile_in_prefix(const tile_ctx *c, uint32_t col)
{
    return col < c->ni_p || (col >= c->ni_t && col - c->ni_t < c->na_p);
}

/* Template column -> column of copy k (prefix columns: the one copy). */
static uint32_t tile_col(const tile_ctx *c, uint32_t col, uint64_t k)
{
    uint64_t pi = c->ni_t - c->ni_p, pa = c->t->n_aux - c->na_p;
    if (col < c->ni_p)
        return col;
    if (col < c->ni_t)
        return (uint32_t)(c->ni_p + pi * k + (col - c->ni_p));
    if (col - c->ni_t < c->na_p)
        return (uint32_t)(c->ni + (col - c->ni_t));
    return (uint32_t)(c->ni + c->na_p + pa * k + (col - c->ni_t - c->na_p));
}

/* Copies [lo, hi) of the part's rows; the prefix rows go with copy 0. */
static void tile_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    tile_ctx *c = vctx;
    const cuzk_csr *m[3] = {&c->t->a, &c->t->b, &c->t->c};
    for (int x = 0; x < 3; x++) {
        uint64_t pre = m[x]->row_ptr[c->rows_p];
        uint64_t body = m[x]->row_ptr[c->rows_p + c->rows_part] - pre;
        uint32_t *rp = (uint32_t *)(c->img + c->l->row_ptr[x]);
        uint32_t *col = (uint32_t *)(c->img + c->l->col[x]);
        uint32_t *coef = (uint32_t *)(c->img + c->l->coef[x]);
        if (lo == 0) {
            for (uint64_t r = 0; r < c->rows_p; r++)
                rp[r] = m[x]->row_ptr[r];
            for (uint64_t i = 0; i < pre; i++) {
                col[i] = tile_col(c, m[x]->col[i], 0);
                coef[i] = m[x]->coef[i];
            }
        }
        for (uint64_t k = lo; k < hi; k++) {
            uint64_t r0 = c->rows_p + k * c->rows_part, i0 = pre + k * body;
            for (uint64_t r = 0; r < c->rows_part; r++)
                rp[r0 + r] = (uint32_t)(i0 + m[x]->row_ptr[c->rows_p + r] - pre);
            for (uint64_t i = 0; i < body; i++) {
                col[i0 + i] = tile_col(c, m[x]->col[pre + i], k);
                coef[i0 + i] = m[x]->coef[pre + i];
            }
        }
    }
}

cuzk_err cuzk_pce_tile(const cuzk_pce *t, uint64_t copies, cuzk_pce **out)
{
    return cuzk_pce_tile_prefix(t, 1, 0, 0, copies, out);
}

cuzk_err cuzk_pce_tile_prefix(const cuzk_pce *t, uint32_t prefix_inputs, uint64_t prefix_aux,
                              uint64_t prefix_rows, uint64_t copies, cuzk_pce **out)
{
    *out = NULL;
    uint32_t ni_t = t->n_inputs;
    if (copies < 1 || t->n_constraints < ni_t)
        return cuzk_fail(CUZK_EINVAL, "pce tile: %llu copies of %llu constraints",
                         (unsigned long long)copies, (unsigned long long)t->n_constraints);
    /* The template ends with its input constraints: A = {x_i}, B = C = 0. */
    uint64_t rows_t = t->n_constraints - ni_t, ones_id = 0;
    if (prefix_inputs < 1 || prefix_inputs > ni_t || prefix_aux > t->n_aux || prefix_rows > rows_t)
        return cuzk_fail(CUZK_EINVAL,
                         "pce tile: a prefix of %u inputs, %llu aux and %llu rows in a template "
                         "of %u, %llu and %llu",
                         prefix_inputs, (unsigned long long)prefix_aux,
                         (unsigned long long)prefix_rows, ni_t, (unsigned long long)t->n_aux,
                         (unsigned long long)rows_t);
    for (uint32_t i = 0; i < ni_t; i++) {
        uint64_t r = rows_t + i, a0 = t->a.row_ptr[r];
        if (t->a.row_ptr[r + 1] != a0 + 1 || t->a.col[a0] != i ||
            t->b.row_ptr[r + 1] != t->b.row_ptr[r] || t->c.row_ptr[r + 1] != t->c.row_ptr[r] ||
            (i && t->a.coef[a0] != ones_id))
            return cuzk_fail(CUZK_EINVAL,
                             "pce tile: row %llu is not the input constraint of input %u",
                             (unsigned long long)r, i);
        ones_id = t->a.coef[a0];
    }
    uint64_t pi = ni_t - prefix_inputs, pa = t->n_aux - prefix_aux;
    uint64_t ni = prefix_inputs + pi * copies, na = prefix_aux + pa * copies;
    if (ni + na >= 0xffffffffull)
        return cuzk_fail(CUZK_EINVAL, "pce tile: %llu copies need %llu columns (u32 columns)",
                         (unsigned long long)copies, (unsigned long long)(ni + na));
    uint64_t rows_part = rows_t - prefix_rows;
    pce_header h = {.version = CUZK_PCE_VERSION,
                    .field = CUZK_PCE_FIELD_BLS12_381_FR,
                    .n_inputs = (uint32_t)ni,
                    .n_aux = na,
                    .n_constraints = prefix_rows + rows_part * copies + ni,
                    .n_coeffs = t->n_coeffs};
    h.log_domain = log_domain_of(h.n_constraints);
    const cuzk_csr *m[3] = {&t->a, &t->b, &t->c};
    uint64_t body_all[3];
    for (int x = 0; x < 3; x++) {
        uint64_t pre = m[x]->row_ptr[prefix_rows];
        body_all[x] = pre + (m[x]->row_ptr[rows_t] - pre) * copies;
        h.nnz[x] = body_all[x] + (x == 0 ? ni : 0);
    }
    pce_layout l;
    cuzk_pce *p;
    uint8_t *b;
    CUZK_TRY(image_new(&h, t->coeffs, &l, &p, &b));
    tile_ctx c = {t, ni_t, (uint32_t)ni, prefix_inputs, prefix_aux, prefix_rows, rows_part, copies,
                  b, &l};
    cuzk_parallel_for((size_t)copies, 1, tile_range, &c);
    /* The input constraints, and the end of each row_ptr. */
    uint64_t rows_body = prefix_rows + rows_part * copies;
    for (int x = 0; x < 3; x++) {
        uint32_t *rp = (uint32_t *)(b + l.row_ptr[x]);
        for (uint64_t i = 0; i <= ni; i++)
            rp[rows_body + i] = (uint32_t)(body_all[x] + (x == 0 ? i : 0));
    }
    uint32_t *acol = (uint32_t *)(b + l.col[0]), *acoef = (uint32_t *)(b + l.coef[0]);
    for (uint64_t i = 0; i < ni; i++) {
        acol[body_all[0] + i] = (uint32_t)i;
        acoef[body_all[0] + i] = (uint32_t)ones_id;
    }
    /* Densities: the template's, copied per part with the renumbering. */
    uint64_t words = density_words(ni + na);
    uint64_t *dens[2] = {(uint64_t *)(b + l.a_density), (uint64_t *)(b + l.b_density)};
    const uint64_t *tden[2] = {t->a_density, t->b_density};
    for (int x = 0; x < 2; x++) {
        memset(dens[x], 0, words * 8);
        for (uint32_t col = 0; col < ni_t + t->n_aux; col++)
            if (tden[x][col / 64] >> (col % 64) & 1)
                for (uint64_t k = 0; k < (tile_in_prefix(&c, col) ? 1 : copies); k++) {
                    uint32_t g = tile_col(&c, col, k);
                    dens[x][g / 64] |= (uint64_t)1 << (g % 64);
                }
    }
    image_seal(p, b, &h, &l);
    *out = p;
    return CUZK_OK;
}

/* ---- write ---- */

cuzk_err cuzk_pce_write(const cuzk_pce *p, const char *path)
{
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cuzk_fail(CUZK_EINVAL, "pce: path too long: %s", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "pce: cannot create %s: %s", tmp, cuzk_strerror(errno));
    const uint8_t *at = p->image_;
    size_t left = p->image_size_;
    while (left) {
        ssize_t n = write(fd, at, left > ((size_t)1 << 30) ? (size_t)1 << 30 : left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(tmp);
            return cuzk_fail(CUZK_EIO, "pce: writing %s failed: %s", tmp, cuzk_strerror(e));
        }
        at += n;
        left -= (size_t)n;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return cuzk_fail(CUZK_EIO, "pce: closing %s failed: %s", tmp, cuzk_strerror(e));
    }
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return cuzk_fail(CUZK_EIO, "pce: cannot rename %s to %s: %s", tmp, path, cuzk_strerror(e));
    }
    return CUZK_OK;
}

/* ---- load and validate ---- */

static int coeff_bad(void *ctx, uint64_t i)
{
    const cuzk_fr *v = &((const cuzk_fr *)ctx)[i];
    if (cuzk_fr_is_zero(v))
        return 1;
    for (int j = 3; j >= 0; j--) {
        if (v->l[j] != CUZK_FR_MODULUS[j])
            return v->l[j] > CUZK_FR_MODULUS[j];
    }
    return 1; /* equal to r */
}

typedef struct {
    const cuzk_pce *p;
    const cuzk_csr *m;
    uint64_t *density; /* NULL for C */
} rows_ctx;

/* 0 when row r is well formed; otherwise a reason code for describe_row. */
enum { ROW_OK, ROW_PTR_DECREASES, ROW_PTR_PAST_NNZ, ROW_COL_RANGE, ROW_COL_ORDER, ROW_COEF };

static int row_problem(const cuzk_pce *p, const cuzk_csr *m, uint64_t r, uint64_t *at)
{
    uint64_t lo = m->row_ptr[r], hi = m->row_ptr[r + 1];
    uint64_t n_cols = (uint64_t)p->n_inputs + p->n_aux;
    if (hi < lo)
        return ROW_PTR_DECREASES;
    if (hi > m->nnz)
        return ROW_PTR_PAST_NNZ;
    for (uint64_t k = lo; k < hi; k++) {
        *at = k;
        if (m->col[k] >= n_cols)
            return ROW_COL_RANGE;
        if (k > lo && m->col[k] <= m->col[k - 1])
            return ROW_COL_ORDER;
        if (m->coef[k] >= p->n_coeffs)
            return ROW_COEF;
    }
    return ROW_OK;
}

static int row_bad(void *vctx, uint64_t r)
{
    rows_ctx *c = vctx;
    uint64_t at;
    if (row_problem(c->p, c->m, r, &at) != ROW_OK)
        return 1;
    if (c->density)
        mark_columns(c->density, c->m->col, c->m->row_ptr[r], c->m->row_ptr[r + 1]);
    return 0;
}

static cuzk_err describe_row(const char *path, const cuzk_pce *p, const cuzk_csr *m, int k,
                             uint64_t r)
{
    uint64_t at = 0;
    const char *name = MATRIX_NAME[k];
    unsigned long long row = (unsigned long long)r;
    switch (row_problem(p, m, r, &at)) {
    case ROW_PTR_DECREASES:
        return cuzk_fail(CUZK_EFORMAT, "%s: row_ptr of %s decreases at row %llu (%llu then %llu)",
                         path, name, row, (unsigned long long)m->row_ptr[r],
                         (unsigned long long)m->row_ptr[r + 1]);
    case ROW_PTR_PAST_NNZ:
        return cuzk_fail(CUZK_EFORMAT, "%s: row %llu of %s ends at %llu, past nnz %llu", path, row,
                         name, (unsigned long long)m->row_ptr[r + 1], (unsigned long long)m->nnz);
    case ROW_COL_RANGE:
        return cuzk_fail(
            CUZK_EFORMAT, "%s: column %u out of range in row %llu of %s (%llu columns)", path,
            m->col[at], row, name, (unsigned long long)((uint64_t)p->n_inputs + p->n_aux));
    case ROW_COL_ORDER:
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: columns not strictly increasing in row %llu of %s (%u after %u)",
                         path, row, name, m->col[at], m->col[at - 1]);
    case ROW_COEF:
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: coefficient id %u out of range in row %llu of %s (%u coefficients)",
                         path, m->coef[at], row, name, p->n_coeffs);
    }
    return cuzk_fail(CUZK_EINTERNAL, "%s: row %llu of %s reported bad but is not", path, row, name);
}

static cuzk_err check_matrix(const char *path, const cuzk_pce *p, int k, uint64_t *density)
{
    const cuzk_csr *m = k == 0 ? &p->a : k == 1 ? &p->b : &p->c;
    uint64_t n = p->n_constraints;
    if (m->row_ptr[0] != 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: row_ptr[0] of %s is %llu, not 0", path, MATRIX_NAME[k],
                         (unsigned long long)m->row_ptr[0]);
    if (m->row_ptr[n] != m->nnz)
        return cuzk_fail(CUZK_EFORMAT, "%s: row_ptr[%llu] of %s is %llu, not nnz %llu", path,
                         (unsigned long long)n, MATRIX_NAME[k], (unsigned long long)m->row_ptr[n],
                         (unsigned long long)m->nnz);
    rows_ctx c = {p, m, density};
    uint64_t r = cuzk_parallel_first(n, 4096, row_bad, &c);
    return r == UINT64_MAX ? CUZK_OK : describe_row(path, p, m, k, r);
}

static cuzk_err check_density(const char *path, const cuzk_pce *p, int k, const uint64_t *want)
{
    const uint64_t *got = k == 0 ? p->a_density : p->b_density;
    const char *name = k == 0 ? "a_density" : "b_density";
    uint64_t n_cols = (uint64_t)p->n_inputs + p->n_aux, words = density_words(n_cols);
    if (memcmp(got, want, (size_t)words * 8) == 0)
        return CUZK_OK;
    uint64_t i = 0;
    while (got[i] == want[i])
        i++;
    uint64_t bit = i * 64 + (uint64_t)__builtin_ctzll(got[i] ^ want[i]);
    unsigned long long j = (unsigned long long)bit;
    if (bit >= n_cols)
        return cuzk_fail(CUZK_EFORMAT, "%s: %s bit %llu is set past the last column (%llu)", path,
                         name, j, (unsigned long long)n_cols);
    if ((got[i] >> (bit % 64)) & 1)
        return cuzk_fail(CUZK_EFORMAT, "%s: %s bit %llu is set but column %llu is empty in %s",
                         path, name, j, j, MATRIX_NAME[k]);
    return cuzk_fail(CUZK_EFORMAT, "%s: %s bit %llu is clear but column %llu is used in %s", path,
                     name, j, j, MATRIX_NAME[k]);
}

/* Everything after the exact size check: body checksum, then structure. */
static cuzk_err validate_body(const char *path, cuzk_pce *p, const pce_header *h,
                              const uint8_t *img, size_t size)
{
    uint64_t ck = cuzk_checksum64(img + CUZK_PCE_HEADER_SIZE, size - CUZK_PCE_HEADER_SIZE);
    if (ck != h->body_checksum)
        return cuzk_fail(CUZK_ECHECKSUM,
                         "%s: body checksum mismatch (header says 0x%016llx, content is "
                         "0x%016llx): the file is corrupt",
                         path, (unsigned long long)h->body_checksum, (unsigned long long)ck);
    uint64_t i = cuzk_parallel_first(p->n_coeffs, 4096, coeff_bad, (void *)p->coeffs);
    if (i != UINT64_MAX)
        return cuzk_fail(CUZK_EFORMAT, "%s: coefficient %llu is %s", path, (unsigned long long)i,
                         cuzk_fr_is_zero(&p->coeffs[i]) ? "zero" : "not a reduced field element");
    uint64_t words = density_words((uint64_t)p->n_inputs + p->n_aux);
    uint64_t *dens[2] = {calloc((size_t)words + 1, 8), calloc((size_t)words + 1, 8)};
    cuzk_err e = CUZK_OK;
    if (!dens[0] || !dens[1])
        e = cuzk_fail(CUZK_ENOMEM, "%s: out of memory validating densities", path);
    for (int k = 0; k < 3 && !e; k++)
        e = check_matrix(path, p, k, k < 2 ? dens[k] : NULL);
    for (int k = 0; k < 2 && !e; k++)
        e = check_density(path, p, k, dens[k]);
    free(dens[0]);
    free(dens[1]);
    return e;
}

static cuzk_err validate_header(const char *path, pce_header *h, pce_layout *l, const uint8_t *img,
                                size_t size)
{
    if (size < CUZK_PCE_HEADER_SIZE)
        return cuzk_fail(CUZK_EFORMAT, "%s: truncated: %zu bytes, the header alone needs %u", path,
                         size, CUZK_PCE_HEADER_SIZE);
    if (memcmp(img, PCE_MAGIC, 8) != 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: bad magic (not a cuzk PCE file)", path);
    header_decode(h, img);
    if (h->version == 1)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: version 1 (64-bit row pointers); this build reads version %u: "
                         "record the constraint system again (cuzk setup / circuit synth; the "
                         "daemon re-records its Filecoin circuits itself)",
                         path, CUZK_PCE_VERSION);
    if (h->version != CUZK_PCE_VERSION)
        return cuzk_fail(CUZK_EFORMAT, "%s: unsupported version %u (this build reads %u)", path,
                         h->version, CUZK_PCE_VERSION);
    if (h->field != CUZK_PCE_FIELD_BLS12_381_FR)
        return cuzk_fail(CUZK_EFORMAT, "%s: unsupported field id %u (1 = BLS12-381 Fr)", path,
                         h->field);
    uint64_t hc = cuzk_checksum64(img, 80);
    if (hc != h->header_checksum)
        return cuzk_fail(CUZK_ECHECKSUM,
                         "%s: header checksum mismatch (stored 0x%016llx, computed 0x%016llx): "
                         "the header is corrupt",
                         path, (unsigned long long)h->header_checksum, (unsigned long long)hc);
    if (h->flags != 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: unsupported flags 0x%x", path, h->flags);
    if (h->n_inputs == 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: n_inputs is 0 (ONE is missing)", path);
    if ((uint64_t)h->n_inputs + h->n_aux >= 0xffffffffull)
        return cuzk_fail(CUZK_EFORMAT, "%s: %u inputs + %llu aux do not fit u32 columns", path,
                         h->n_inputs, (unsigned long long)h->n_aux);
    for (int k = 0; k < 3; k++)
        if (h->nnz[k] > UINT32_MAX)
            return cuzk_fail(CUZK_EFORMAT, "%s: nnz of %c is %llu, a PCE holds fewer than 2^32",
                             path, "ABC"[k], (unsigned long long)h->nnz[k]);
    if (h->log_domain != log_domain_of(h->n_constraints))
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: log_domain %u does not match %llu constraints "
                         "(expected %u)",
                         path, h->log_domain, (unsigned long long)h->n_constraints,
                         log_domain_of(h->n_constraints));
    if (!layout_compute(l, h))
        return cuzk_fail(CUZK_EFORMAT, "%s: header counts imply an impossible size", path);
    if (size < l->end)
        return cuzk_fail(CUZK_EFORMAT, "%s: truncated: %zu bytes, header implies %llu", path, size,
                         (unsigned long long)l->end);
    if (size > l->end)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: size mismatch: %zu bytes, header implies %llu (%llu trailing "
                         "bytes)",
                         path, size, (unsigned long long)l->end,
                         (unsigned long long)(size - l->end));
    return CUZK_OK;
}

cuzk_err cuzk_pce_check_header(const char *path)
{
    uint8_t img[CUZK_PCE_HEADER_SIZE];
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "cannot open %s: %s", path, cuzk_strerror(errno));
    ssize_t got = fstat(fd, &st) == 0 ? pread(fd, img, sizeof img, 0) : -1;
    int err = errno;
    close(fd);
    if (got < 0)
        return cuzk_fail(CUZK_EIO, "cannot read %s: %s", path, cuzk_strerror(err));
    pce_header h;
    pce_layout l;
    return validate_header(path, &h, &l, img,
                           (size_t)got < sizeof img ? (size_t)got : (size_t)st.st_size);
}

cuzk_err cuzk_pce_load(cuzk_pce **out, const char *path)
{
    *out = NULL;
    cuzk_mapfile map;
    CUZK_TRY(cuzk_mapfile_open(&map, path));
    pce_header h;
    pce_layout l;
    cuzk_err e = validate_header(path, &h, &l, map.data, map.size);
    cuzk_pce *p = NULL;
    if (!e && !(p = calloc(1, sizeof *p)))
        e = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
    if (!e) {
        bind(p, &h, &l, map.data);
        e = validate_body(path, p, &h, map.data, map.size);
    }
    if (e) {
        free(p);
        cuzk_mapfile_close(&map);
        return e;
    }
    count_density(p);
    p->image_ = map.data;
    p->image_size_ = map.size;
    p->image_mapped_ = 1;
    *out = p;
    return CUZK_OK;
}
