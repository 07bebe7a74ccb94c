/* Groth16 parameter files (.params, .vk) and the 192-byte proof encoding.
 *
 * Reading: the parser walks the buffer with a cursor (data, size, offset) and
 * validates every u32 count against the bytes that remain *before* it
 * allocates, so a corrupt count gives a precise EFORMAT message instead of a
 * huge malloc or an over-read. The six VK elements are decoded one by one; the
 * big sections are decoded on the thread pool, since points decode
 * independently; cuzk_parallel_first() finds the lowest failing index. Error messages
 * are thread-local, so the caller re-decodes that one point to produce the
 * message on its own thread: the report is deterministic whatever the
 * scheduling. Any failure frees what was allocated and leaves *out zeroed.
 *
 * Checks follow bellperson: the six VK elements are fully checked (on curve,
 * subgroup) and may be infinity; ic points are fully checked and must not be
 * infinity; h, l, a, b_g1, b_g2 must not be infinity and are subgroup-checked
 * only with CUZK_PARAMS_CHECKED. Encoding and on-curve checks always apply.
 *
 * Writing: one streaming writer serves both setup (multi-GB files, points
 * arriving in pieces) and cuzk_params_write (a whole struct), so the two can
 * never disagree about the layout. Points are encoded on the thread pool in
 * batches into a scratch buffer and written with large fwrite calls. The
 * writer enforces the section order, the group of each section and the exact
 * count announced by _begin. The same writer can fill a cuzk_params in
 * memory instead (open_mem): one set of checks for both targets. */
#define _GNU_SOURCE
#include "cuzk/params.h"
#include "cuzk/curve.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum { SEC_IC, SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2, SEC_COUNT };

static const char *const section_names[SEC_COUNT] = {"ic", "h", "l", "a", "b_g1", "b_g2"};

/* Points per parallel chunk when decoding or encoding. */
#define POINT_GRAIN 256
/* Points encoded per fwrite batch by the writer. */
#define WRITE_BATCH ((size_t)1 << 15)

/* ---- groups, described once so section code is written once ---- */

typedef struct {
    size_t enc_bytes; /* bytes of one encoded point */
    size_t aff_bytes; /* sizeof the blst affine struct */
    cuzk_err (*decode)(void *out, const uint8_t *in, unsigned checks);
    void (*encode)(uint8_t *out, const void *p);
} group_desc;

static cuzk_err g1_decode_v(void *out, const uint8_t *in, unsigned checks)
{
    return cuzk_g1_decode(out, in, checks);
}
static cuzk_err g2_decode_v(void *out, const uint8_t *in, unsigned checks)
{
    return cuzk_g2_decode(out, in, checks);
}
static void g1_encode_v(uint8_t *out, const void *p)
{
    cuzk_g1_encode(out, p);
}
static void g2_encode_v(uint8_t *out, const void *p)
{
    cuzk_g2_encode(out, p);
}

static const group_desc group_g1 = {CUZK_G1_UNCOMPRESSED, sizeof(blst_p1_affine), g1_decode_v,
                                    g1_encode_v};
static const group_desc group_g2 = {CUZK_G2_UNCOMPRESSED, sizeof(blst_p2_affine), g2_decode_v,
                                    g2_encode_v};

/* A verifying key may also come with compressed points (bellperson's
 * VerifyingKey written compressed, as some chains' runtimes store it):
 * read only, never written. */
static cuzk_err g1c_decode_v(void *out, const uint8_t *in, unsigned checks)
{
    return cuzk_g1_decode_compressed(out, in, checks);
}
static cuzk_err g2c_decode_v(void *out, const uint8_t *in, unsigned checks)
{
    return cuzk_g2_decode_compressed(out, in, checks);
}
static const group_desc group_g1c = {48, sizeof(blst_p1_affine), g1c_decode_v, NULL};
static const group_desc group_g2c = {96, sizeof(blst_p2_affine), g2c_decode_v, NULL};

static uint32_t load_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static void store_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* ---- reading ---- */

typedef struct {
    const uint8_t *data;
    size_t size, off;
    const char *name;
    int drop_pages; /* CUZK_PARAMS_DROP_PAGES */
} cursor;

/* Bytes of a section decoded between two drops of its source pages. */
#define DROP_CHUNK_BYTES ((size_t)8 << 20)

/* Drop the pages of a read-only file mapping that [p, p + n) begins in
 * and covers whole, from the process (the page cache keeps them; a read
 * faults them in again, so dropping is never wrong, only slower). */
static void drop_pages(const uint8_t *p, size_t n)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t b = (uintptr_t)p / page * page, e = ((uintptr_t)p + n) / page * page;
    if (e > b)
        madvise((void *)b, e - b, MADV_DONTNEED);
}

static size_t cursor_left(const cursor *c)
{
    return c->size - c->off;
}

/* One VK element at the cursor. */
static cuzk_err read_fixed(cursor *c, const char *what, const group_desc *g, void *out)
{
    if (cursor_left(c) < g->enc_bytes)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: truncated: %s needs %zu bytes at offset %zu but only %zu remain",
                         c->name, what, g->enc_bytes, c->off, cursor_left(c));
    cuzk_err e = g->decode(out, c->data + c->off, CUZK_PT_SUBGROUP);
    if (e != CUZK_OK)
        return cuzk_fail_ctx(e, "%s: %s at offset %zu: ", c->name, what, c->off);
    c->off += g->enc_bytes;
    return CUZK_OK;
}

/* A u32 BE count and a check that its points fit in what remains. */
static cuzk_err read_count(cursor *c, const char *section, const group_desc *g, size_t *count)
{
    if (cursor_left(c) < 4)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: truncated: %s count needs 4 bytes at offset %zu but only %zu remain",
                         c->name, section, c->off, cursor_left(c));
    uint32_t n = load_be32(c->data + c->off);
    size_t at = c->off + 4;
    uint64_t need = (uint64_t)n * g->enc_bytes;
    if (need > c->size - at)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: %s count %" PRIu32 " needs %" PRIu64
                         " bytes at offset %zu but only %zu remain (truncated file or bad count)",
                         c->name, section, n, need, at, c->size - at);
    c->off = at;
    *count = n;
    return CUZK_OK;
}

typedef struct {
    const group_desc *g;
    const uint8_t *src;
    uint8_t *dst;
    unsigned checks;
} decode_job;

/* Decodes point i; non-zero when it fails its checks. */
static int decode_bad(void *vctx, uint64_t i)
{
    decode_job *j = vctx;
    return j->g->decode(j->dst + i * j->g->aff_bytes, j->src + i * j->g->enc_bytes, j->checks) !=
           CUZK_OK;
}

/* A count and its points; *out is malloc'd (NULL for an empty section). */
static cuzk_err read_section(cursor *c, const char *section, const group_desc *g, unsigned checks,
                             void **out, size_t *n_out)
{
    size_t n = 0;
    CUZK_TRY(read_count(c, section, g, &n));
    if (n == 0) {
        *out = NULL;
        *n_out = 0;
        return CUZK_OK;
    }
    uint8_t *dst = cuzk_alloc_huge(n * g->aff_bytes);
    if (!dst)
        return cuzk_fail(CUZK_ENOMEM, "%s: %s: cannot allocate %zu points", c->name, section, n);
    decode_job j = {.g = g, .src = c->data + c->off, .dst = dst, .checks = checks};
    uint64_t first = UINT64_MAX;
    /* With CUZK_PARAMS_DROP_PAGES the section goes in chunks whose source
     * pages are dropped once decoded, so the mapping never holds more than
     * a chunk of the file next to the parsed copy. */
    size_t chunk = c->drop_pages ? DROP_CHUNK_BYTES / g->enc_bytes : n;
    for (size_t at = 0; at < n && first == UINT64_MAX; at += chunk) {
        size_t len = n - at < chunk ? n - at : chunk;
        decode_job cj = j;
        cj.src += at * g->enc_bytes;
        cj.dst += at * g->aff_bytes;
        uint64_t f = cuzk_parallel_first(len, POINT_GRAIN, decode_bad, &cj);
        if (f != UINT64_MAX)
            first = at + f;
        else if (c->drop_pages)
            drop_pages(c->data + c->off + at * g->enc_bytes, len * g->enc_bytes);
    }
    if (first != UINT64_MAX) {
        size_t bad = (size_t)first;
        size_t off = c->off + bad * g->enc_bytes;
        cuzk_err e = g->decode(dst + bad * g->aff_bytes, c->data + off, checks);
        free(dst);
        if (e == CUZK_OK)
            return cuzk_fail(CUZK_EINTERNAL,
                             "%s: %s point %zu at offset %zu: decode not repeatable", c->name,
                             section, bad, off);
        return cuzk_fail_ctx(e, "%s: %s point %zu at offset %zu: ", c->name, section, bad, off);
    }
    c->off += n * g->enc_bytes;
    *out = dst;
    *n_out = n;
    return CUZK_OK;
}

/* The VK block and ic. */
static cuzk_err read_vk_in(cursor *c, cuzk_vk *vk, const group_desc *g1, const group_desc *g2)
{
    CUZK_TRY(read_fixed(c, "alpha_g1", g1, &vk->alpha_g1));
    CUZK_TRY(read_fixed(c, "beta_g1", g1, &vk->beta_g1));
    CUZK_TRY(read_fixed(c, "beta_g2", g2, &vk->beta_g2));
    CUZK_TRY(read_fixed(c, "gamma_g2", g2, &vk->gamma_g2));
    CUZK_TRY(read_fixed(c, "delta_g1", g1, &vk->delta_g1));
    CUZK_TRY(read_fixed(c, "delta_g2", g2, &vk->delta_g2));
    void *ic;
    CUZK_TRY(read_section(c, section_names[SEC_IC], g1, CUZK_PT_SUBGROUP | CUZK_PT_NO_INFINITY, &ic,
                          &vk->n_ic));
    vk->ic = ic;
    return CUZK_OK;
}

static cuzk_err read_vk(cursor *c, cuzk_vk *vk)
{
    return read_vk_in(c, vk, &group_g1, &group_g2);
}

static cuzk_err check_end(const cursor *c, const char *last)
{
    if (c->off != c->size)
        return cuzk_fail(CUZK_EFORMAT, "%s: %zu trailing bytes after %s at offset %zu", c->name,
                         c->size - c->off, last, c->off);
    return CUZK_OK;
}

/* bellperson writes m - 1 h points and the snarkjs basis m: an empty h
 * section fits no domain, and would otherwise surface later as a prover
 * error about sizes. (Whether the count fits the circuit is the prover's
 * check: the file alone does not know its domain.) */
static cuzk_err check_h_count(const char *name, size_t n_h)
{
    if (n_h == 0)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: h count 0: the h section needs 2^k - 1 points (bellperson) or "
                         "2^k (snarkjs basis)",
                         name);
    return CUZK_OK;
}

static cuzk_err parse_params_body(cursor *c, cuzk_params *out, unsigned flags)
{
    CUZK_TRY(read_vk(c, &out->vk));
    unsigned checks = CUZK_PT_NO_INFINITY | ((flags & CUZK_PARAMS_CHECKED) ? CUZK_PT_SUBGROUP : 0);
    void *p;
    CUZK_TRY(read_section(c, section_names[SEC_H], &group_g1, checks, &p, &out->n_h));
    out->h = p;
    CUZK_TRY(check_h_count(c->name, out->n_h));
    CUZK_TRY(read_section(c, section_names[SEC_L], &group_g1, checks, &p, &out->n_l));
    out->l = p;
    CUZK_TRY(read_section(c, section_names[SEC_A], &group_g1, checks, &p, &out->n_a));
    out->a = p;
    CUZK_TRY(read_section(c, section_names[SEC_B_G1], &group_g1, checks, &p, &out->n_b_g1));
    out->b_g1 = p;
    CUZK_TRY(read_section(c, section_names[SEC_B_G2], &group_g2, checks, &p, &out->n_b_g2));
    out->b_g2 = p;
    return check_end(c, section_names[SEC_B_G2]);
}

cuzk_err cuzk_params_parse(const uint8_t *data, size_t size, const char *name, cuzk_params *out,
                           unsigned flags)
{
    if (!out)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_parse: out is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_parse: data is NULL");
    cursor c = {data, size, 0, name ? name : "<params>", !!(flags & CUZK_PARAMS_DROP_PAGES)};
    cuzk_err e = parse_params_body(&c, out, flags);
    if (e != CUZK_OK)
        cuzk_params_free(out);
    return e;
}

cuzk_err cuzk_vk_parse(const uint8_t *data, size_t size, const char *name, cuzk_vk *out)
{
    if (!out)
        return cuzk_fail(CUZK_EINVAL, "cuzk_vk_parse: out is NULL");
    memset(out, 0, sizeof *out);
    if (!data && size)
        return cuzk_fail(CUZK_EINVAL, "cuzk_vk_parse: data is NULL");
    cursor c = {data, size, 0, name ? name : "<vk>", 0};
    /* Byte 0's compression flag (0x80) tells the two layouts apart: an
     * uncompressed alpha_g1 never has it. */
    cuzk_err e =
        size && (data[0] & 0x80) ? read_vk_in(&c, out, &group_g1c, &group_g2c) : read_vk(&c, out);
    if (!e)
        e = check_end(&c, "ic");
    if (e != CUZK_OK)
        cuzk_vk_free(out);
    return e;
}

cuzk_err cuzk_params_read(const char *path, cuzk_params *out, unsigned flags)
{
    if (!out)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_read: out is NULL");
    memset(out, 0, sizeof *out);
    cuzk_mapfile m;
    CUZK_TRY(cuzk_mapfile_open(&m, path));
    cuzk_err e = cuzk_params_parse(m.data, m.size, path, out, flags | CUZK_PARAMS_DROP_PAGES);
    cuzk_mapfile_close(&m);
    return e;
}

cuzk_err cuzk_params_check_file(const char *path)
{
    cuzk_mapfile m;
    CUZK_TRY(cuzk_mapfile_open(&m, path));
    cursor c = {.data = m.data, .size = m.size, .name = path};
    cuzk_vk vk;
    memset(&vk, 0, sizeof vk);
    cuzk_err e = read_vk(&c, &vk);
    cuzk_vk_free(&vk);
    static const int rest[] = {SEC_H, SEC_L, SEC_A, SEC_B_G1, SEC_B_G2};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0] && !e; i++) {
        const group_desc *g = rest[i] == SEC_B_G2 ? &group_g2 : &group_g1;
        size_t n = 0;
        e = read_count(&c, section_names[rest[i]], g, &n);
        if (!e && rest[i] == SEC_H)
            e = check_h_count(path, n);
        c.off += n * g->enc_bytes; /* read_count checked that they fit */
    }
    if (!e)
        e = check_end(&c, section_names[SEC_B_G2]);
    cuzk_mapfile_close(&m);
    return e;
}

cuzk_err cuzk_vk_read(const char *path, cuzk_vk *out)
{
    if (!out)
        return cuzk_fail(CUZK_EINVAL, "cuzk_vk_read: out is NULL");
    memset(out, 0, sizeof *out);
    cuzk_mapfile m;
    CUZK_TRY(cuzk_mapfile_open(&m, path));
    cuzk_err e = cuzk_vk_parse(m.data, m.size, path, out);
    cuzk_mapfile_close(&m);
    return e;
}

void cuzk_vk_free(cuzk_vk *vk)
{
    if (!vk)
        return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

/* The whole pages inside [ptr, ptr + bytes): the ones release_host may
 * drop without touching the allocator's own bytes around the array. */
static int inner_pages(const void *ptr, size_t bytes, uintptr_t *start, size_t *len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t b = ((uintptr_t)ptr + page - 1) / page * page;
    uintptr_t e = ((uintptr_t)ptr + bytes) / page * page;
    if (!ptr || e <= b)
        return 0;
    *start = b;
    *len = e - b;
    return 1;
}

static void query_pages(const cuzk_params *p, void *ptr[5], size_t bytes[5])
{
    void *a[5] = {p->h, p->l, p->a, p->b_g1, p->b_g2};
    size_t n[5] = {p->n_h, p->n_l, p->n_a, p->n_b_g1, p->n_b_g2};
    for (int i = 0; i < 5; i++) {
        ptr[i] = a[i];
        bytes[i] = n[i] * (i < 4 ? sizeof(blst_p1_affine) : sizeof(blst_p2_affine));
    }
}

uint64_t cuzk_params_release_host(cuzk_params *p)
{
    if (p->host_released)
        return 0;
    void *ptr[5];
    size_t bytes[5];
    uint64_t total = 0;
    query_pages(p, ptr, bytes);
    for (int i = 0; i < 5; i++) {
        uintptr_t s;
        size_t len;
        if (!inner_pages(ptr[i], bytes[i], &s, &len))
            continue;
        madvise((void *)s, len, MADV_DONTNEED);
        mprotect((void *)s, len, PROT_NONE);
        total += len;
    }
    p->host_released = 1;
    return total;
}

void cuzk_params_free(cuzk_params *p)
{
    if (!p)
        return;
    if (p->host_released) { /* the allocator may write into the arrays it frees */
        void *ptr[5];
        size_t bytes[5];
        query_pages(p, ptr, bytes);
        for (int i = 0; i < 5; i++) {
            uintptr_t s;
            size_t len;
            if (inner_pages(ptr[i], bytes[i], &s, &len))
                mprotect((void *)s, len, PROT_READ | PROT_WRITE);
        }
    }
    cuzk_vk_free(&p->vk);
    free(p->h);
    free(p->l);
    free(p->a);
    free(p->b_g1);
    free(p->b_g2);
    memset(p, 0, sizeof *p);
}

/* ---- writing ---- */

static void encode_vk_fixed(uint8_t out[CUZK_VK_FIXED_BYTES], const cuzk_vk *vk)
{
    cuzk_g1_encode(out, &vk->alpha_g1);
    cuzk_g1_encode(out + 96, &vk->beta_g1);
    cuzk_g2_encode(out + 192, &vk->beta_g2);
    cuzk_g2_encode(out + 384, &vk->gamma_g2);
    cuzk_g1_encode(out + 576, &vk->delta_g1);
    cuzk_g2_encode(out + 672, &vk->delta_g2);
}

typedef struct {
    const group_desc *g;
    const uint8_t *src; /* affine points */
    uint8_t *dst;       /* encodings */
} encode_job;

static void encode_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    encode_job *j = vctx;
    for (size_t i = begin; i < end; i++)
        j->g->encode(j->dst + i * j->g->enc_bytes, j->src + i * j->g->aff_bytes);
}

typedef struct {
    uint8_t *dst;
    const uint8_t *src;
} copy_job;

static void copy_range(void *vctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    copy_job *j = vctx;
    memcpy(j->dst + begin, j->src + begin, end - begin);
}

static cuzk_err writer_bytes(cuzk_params_writer *w, const void *buf, size_t n)
{
    if (n && fwrite(buf, 1, n, w->f) != n)
        return cuzk_fail(CUZK_EIO, "writing %s: %s", w->path, cuzk_strerror(errno));
    return CUZK_OK;
}

cuzk_err cuzk_params_writer_open(cuzk_params_writer *w, const char *path, const cuzk_vk *vk)
{
    if (!w || !path || !vk)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_writer_open: NULL argument");
    memset(w, 0, sizeof *w);
    w->section = -1;
    w->path = strdup(path);
    if (!w->path)
        return cuzk_fail(CUZK_ENOMEM, "cuzk_params_writer_open %s: out of memory", path);
    w->f = fopen(path, "wb");
    if (!w->f) {
        cuzk_err e = cuzk_fail(CUZK_EIO, "cannot create %s: %s", path, cuzk_strerror(errno));
        free(w->path);
        memset(w, 0, sizeof *w);
        return e;
    }
    uint8_t fixed[CUZK_VK_FIXED_BYTES];
    encode_vk_fixed(fixed, vk);
    cuzk_err e = writer_bytes(w, fixed, sizeof fixed);
    if (e != CUZK_OK)
        cuzk_params_writer_abort(w);
    return e;
}

#define WRITER_OPEN(w) ((w) && ((w)->f || (w)->mem))

cuzk_err cuzk_params_writer_open_mem(cuzk_params_writer *w, cuzk_params *dst, const cuzk_vk *vk)
{
    if (!w || !dst || !vk)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_writer_open_mem: NULL argument");
    memset(w, 0, sizeof *w);
    memset(dst, 0, sizeof *dst);
    w->section = -1;
    w->path = strdup("parameters in memory");
    if (!w->path)
        return cuzk_fail(CUZK_ENOMEM, "cuzk_params_writer_open_mem: out of memory");
    dst->vk = *vk;
    dst->vk.ic = NULL;
    dst->vk.n_ic = 0;
    w->mem = dst;
    return CUZK_OK;
}

/* In memory: the array of section `sec` of the target and its count. */
static void **mem_section(cuzk_params *p, int sec, size_t **count)
{
    switch (sec) {
    case SEC_IC: *count = &p->vk.n_ic; return (void **)&p->vk.ic;
    case SEC_H: *count = &p->n_h; return (void **)&p->h;
    case SEC_L: *count = &p->n_l; return (void **)&p->l;
    case SEC_A: *count = &p->n_a; return (void **)&p->a;
    case SEC_B_G1: *count = &p->n_b_g1; return (void **)&p->b_g1;
    default: *count = &p->n_b_g2; return (void **)&p->b_g2;
    }
}

cuzk_err cuzk_params_writer_begin(cuzk_params_writer *w, size_t count)
{
    if (!WRITER_OPEN(w))
        return cuzk_fail(CUZK_EINVAL, "params writer: not open");
    if (w->section >= 0 && w->remaining)
        return cuzk_fail(CUZK_EINVAL,
                         "%s: section %s still needs %zu points before the next begins", w->path,
                         section_names[w->section], w->remaining);
    if (w->section + 1 >= SEC_COUNT)
        return cuzk_fail(CUZK_EINVAL, "%s: all six sections (ic .. b_g2) were already begun",
                         w->path);
    const char *next = section_names[w->section + 1];
    if (count > UINT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "%s: section %s count %zu does not fit the u32 count field",
                         w->path, next, count);
    if (w->mem) {
        size_t *cnt,
            each = w->section + 1 == SEC_B_G2 ? sizeof(blst_p2_affine) : sizeof(blst_p1_affine);
        void **arr = mem_section(w->mem, w->section + 1, &cnt);
        if (!(*arr = cuzk_alloc_huge(count * each)))
            return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate section %s (%zu points)", w->path,
                             next, count);
        *cnt = count;
    } else {
        uint8_t be[4];
        store_be32(be, (uint32_t)count);
        CUZK_TRY(writer_bytes(w, be, 4));
    }
    w->section++;
    w->remaining = count;
    return CUZK_OK;
}

static cuzk_err writer_points(cuzk_params_writer *w, const group_desc *g, const void *pts, size_t n)
{
    int is_g2 = g == &group_g2;
    if (!WRITER_OPEN(w))
        return cuzk_fail(CUZK_EINVAL, "params writer: not open");
    if (w->section < 0)
        return cuzk_fail(CUZK_EINVAL, "%s: %s points appended before any section was begun",
                         w->path, is_g2 ? "G2" : "G1");
    const char *sec = section_names[w->section];
    if (is_g2 != (w->section == SEC_B_G2))
        return cuzk_fail(CUZK_EINVAL, "%s: %s points appended to section %s, which holds %s points",
                         w->path, is_g2 ? "G2" : "G1", sec, is_g2 ? "G1" : "G2");
    if (n > w->remaining)
        return cuzk_fail(CUZK_EINVAL,
                         "%s: %zu points appended to section %s, which has room for only %zu more",
                         w->path, n, sec, w->remaining);
    if (n == 0)
        return CUZK_OK;
    if (!pts)
        return cuzk_fail(CUZK_EINVAL, "%s: section %s: points are NULL", w->path, sec);
    if (w->mem) {
        size_t *cnt;
        uint8_t *arr = *mem_section(w->mem, w->section, &cnt);
        /* On the pool: the pages are fresh, and faulting them in on one
         * thread ran at ~1 GB/s (15 s for L at 2^27). */
        copy_job cj = {arr + (*cnt - w->remaining) * g->aff_bytes, pts};
        cuzk_parallel_for(n * g->aff_bytes, (size_t)1 << 20, copy_range, &cj);
        w->remaining -= n;
        return CUZK_OK;
    }
    size_t batch = n < WRITE_BATCH ? n : WRITE_BATCH;
    uint8_t *buf = malloc(batch * g->enc_bytes);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate the encoding buffer", w->path);
    const uint8_t *src = pts;
    cuzk_err e = CUZK_OK;
    for (size_t done = 0; done < n && e == CUZK_OK;) {
        size_t k = n - done < batch ? n - done : batch;
        encode_job j = {g, src + done * g->aff_bytes, buf};
        cuzk_parallel_for(k, POINT_GRAIN, encode_range, &j);
        e = writer_bytes(w, buf, k * g->enc_bytes);
        done += k;
    }
    free(buf);
    if (e == CUZK_OK)
        w->remaining -= n;
    return e;
}

cuzk_err cuzk_params_writer_g1(cuzk_params_writer *w, const blst_p1_affine *pts, size_t n)
{
    return writer_points(w, &group_g1, pts, n);
}

cuzk_err cuzk_params_writer_g2(cuzk_params_writer *w, const blst_p2_affine *pts, size_t n)
{
    return writer_points(w, &group_g2, pts, n);
}

cuzk_err cuzk_params_writer_close(cuzk_params_writer *w)
{
    if (!WRITER_OPEN(w))
        return cuzk_fail(CUZK_EINVAL, "params writer: not open");
    cuzk_err e = CUZK_OK;
    if (w->section < SEC_B_G2) {
        const char *first = section_names[w->section + 1];
        e = cuzk_fail(CUZK_EINVAL, "%s: closed with sections missing (%s .. b_g2 never begun)",
                      w->path, first);
    } else if (w->remaining) {
        e = cuzk_fail(CUZK_EINVAL, "%s: closed with section b_g2 still needing %zu points", w->path,
                      w->remaining);
    }
    if (e != CUZK_OK) {
        cuzk_params_writer_abort(w);
        return e;
    }
    if (w->mem) {
        free(w->path);
        memset(w, 0, sizeof *w);
        return CUZK_OK;
    }
    /* fsync so that setup's rename publishes a complete file; EINVAL means a
     * special file (a pipe, /dev/null) that cannot be synced. */
    int err = 0;
    if (fflush(w->f) != 0 || (fsync(fileno(w->f)) != 0 && errno != EINVAL))
        err = errno;
    if (fclose(w->f) != 0 && !err)
        err = errno;
    w->f = NULL;
    if (err) {
        e = cuzk_fail(CUZK_EIO, "writing %s: %s", w->path, cuzk_strerror(err));
        cuzk_params_writer_abort(w);
        return e;
    }
    free(w->path);
    memset(w, 0, sizeof *w);
    return CUZK_OK;
}

void cuzk_params_writer_abort(cuzk_params_writer *w)
{
    if (!w)
        return;
    if (w->f)
        fclose(w->f);
    if (w->mem)
        cuzk_params_free(w->mem);
    else if (w->path)
        remove(w->path);
    free(w->path);
    memset(w, 0, sizeof *w);
}

cuzk_err cuzk_params_write(const char *path, const cuzk_params *p)
{
    if (!p)
        return cuzk_fail(CUZK_EINVAL, "cuzk_params_write: params are NULL");
    const struct {
        const group_desc *g;
        const void *pts;
        size_t n;
    } sec[SEC_COUNT] = {
        {&group_g1, p->vk.ic, p->vk.n_ic}, {&group_g1, p->h, p->n_h},
        {&group_g1, p->l, p->n_l},         {&group_g1, p->a, p->n_a},
        {&group_g1, p->b_g1, p->n_b_g1},   {&group_g2, p->b_g2, p->n_b_g2},
    };
    cuzk_params_writer w;
    CUZK_TRY(cuzk_params_writer_open(&w, path, &p->vk));
    for (int i = 0; i < SEC_COUNT; i++) {
        cuzk_err e = cuzk_params_writer_begin(&w, sec[i].n);
        if (e == CUZK_OK)
            e = writer_points(&w, sec[i].g, sec[i].pts, sec[i].n);
        if (e != CUZK_OK) {
            cuzk_params_writer_abort(&w);
            return e;
        }
    }
    return cuzk_params_writer_close(&w);
}

cuzk_err cuzk_vk_write(const char *path, const cuzk_vk *vk)
{
    if (!vk)
        return cuzk_fail(CUZK_EINVAL, "cuzk_vk_write: vk is NULL");
    if (vk->n_ic > UINT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "%s: ic count %zu does not fit the u32 count field", path,
                         vk->n_ic);
    if (vk->n_ic && !vk->ic)
        return cuzk_fail(CUZK_EINVAL, "%s: ic points are NULL", path);
    size_t size = CUZK_VK_FIXED_BYTES + 4 + vk->n_ic * CUZK_G1_UNCOMPRESSED;
    uint8_t *buf = malloc(size);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate %zu bytes", path, size);
    encode_vk_fixed(buf, vk);
    store_be32(buf + CUZK_VK_FIXED_BYTES, (uint32_t)vk->n_ic);
    for (size_t i = 0; i < vk->n_ic; i++)
        cuzk_g1_encode(buf + CUZK_VK_FIXED_BYTES + 4 + i * CUZK_G1_UNCOMPRESSED, &vk->ic[i]);
    cuzk_err e = cuzk_write_file(path, buf, size);
    free(buf);
    return e;
}

/* ---- proofs ---- */

void cuzk_proof_encode(uint8_t out[CUZK_PROOF_BYTES], const cuzk_proof *p)
{
    cuzk_g1_encode_compressed(out, &p->a);
    cuzk_g2_encode_compressed(out + CUZK_G1_COMPRESSED, &p->b);
    cuzk_g1_encode_compressed(out + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED, &p->c);
}

cuzk_err cuzk_proof_decode(cuzk_proof *p, const uint8_t in[CUZK_PROOF_BYTES])
{
    cuzk_err e = cuzk_g1_decode_compressed(&p->a, in, CUZK_PT_SUBGROUP);
    if (e != CUZK_OK)
        return cuzk_fail_ctx(e, "proof A (byte 0): ");
    e = cuzk_g2_decode_compressed(&p->b, in + CUZK_G1_COMPRESSED, CUZK_PT_SUBGROUP);
    if (e != CUZK_OK)
        return cuzk_fail_ctx(e, "proof B (byte %d): ", CUZK_G1_COMPRESSED);
    e = cuzk_g1_decode_compressed(&p->c, in + CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED,
                                  CUZK_PT_SUBGROUP);
    if (e != CUZK_OK)
        return cuzk_fail_ctx(e, "proof C (byte %d): ", CUZK_G1_COMPRESSED + CUZK_G2_COMPRESSED);
    return CUZK_OK;
}

cuzk_err cuzk_proofs_write(const char *path, const cuzk_proof *p, size_t n)
{
    if (n == 0 || !p)
        return cuzk_fail(CUZK_EINVAL, "%s: a proof file needs at least one proof", path);
    uint8_t *buf = malloc(n * CUZK_PROOF_BYTES);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate %zu proofs", path, n);
    for (size_t i = 0; i < n; i++)
        cuzk_proof_encode(buf + i * CUZK_PROOF_BYTES, &p[i]);
    cuzk_err e = cuzk_write_file(path, buf, n * CUZK_PROOF_BYTES);
    free(buf);
    return e;
}

cuzk_err cuzk_proofs_read(const char *path, cuzk_proof **out, size_t *n)
{
    if (!out || !n)
        return cuzk_fail(CUZK_EINVAL, "cuzk_proofs_read: NULL output");
    *out = NULL;
    *n = 0;
    uint8_t *data;
    size_t size;
    CUZK_TRY(cuzk_read_file(path, &data, &size));
    if (size == 0 || size % CUZK_PROOF_BYTES) {
        free(data);
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: size %zu bytes is not a non-zero multiple of the %d-byte proof size",
                         path, size, CUZK_PROOF_BYTES);
    }
    size_t count = size / CUZK_PROOF_BYTES;
    cuzk_proof *proofs = malloc(count * sizeof *proofs);
    if (!proofs) {
        free(data);
        return cuzk_fail(CUZK_ENOMEM, "%s: cannot allocate %zu proofs", path, count);
    }
    for (size_t i = 0; i < count; i++) {
        cuzk_err e = cuzk_proof_decode(&proofs[i], data + i * CUZK_PROOF_BYTES);
        if (e != CUZK_OK) {
            free(proofs);
            free(data);
            return cuzk_fail_ctx(e, "%s: partition %zu (offset %zu): ", path, i,
                                 i * CUZK_PROOF_BYTES);
        }
    }
    free(data);
    *out = proofs;
    *n = count;
    return CUZK_OK;
}
