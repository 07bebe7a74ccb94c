/* bincode of rust-fil-proofs' vanilla proofs (include/cuzk/vanilla.h).
 *
 * A reader walks the buffer with a cursor and a "where" path that grows and
 * shrinks as it descends (sectors[0].inclusion_proofs[3]...), so that every
 * failure names the field and the byte offset. Lengths are checked against
 * what remains, times the smallest encoding of one element, before any
 * allocation: a length field claiming gigabytes fails at once. The writer
 * mirrors the reader field by field. */
#define _GNU_SOURCE
#include "cuzk/vanilla.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size, off;
    char where[512];
} reader;

static cuzk_err rfail(const reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static cuzk_err rfail(const reader *r, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cuzk_fail(CUZK_EFORMAT, "%s: %s", r->where, msg);
}

/* Descend into a field: append ".name" or "[i]"; returns the old length. */
static size_t enter(reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t enter(reader *r, const char *fmt, ...)
{
    size_t at = strlen(r->where);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->where + at, sizeof r->where - at, fmt, ap);
    va_end(ap);
    return at;
}

static void leave(reader *r, size_t at)
{
    r->where[at] = 0;
}

/* enter(r, "%s%s", a, b) without the printf machinery: paths are entered
 * for every level of every path (hundreds of thousands per WindowPoSt
 * request). Text that does not fit is left out. */
static size_t enter_text(reader *r, const char *a, const char *b)
{
    size_t at = strlen(r->where), na = strlen(a), nb = strlen(b);
    if (at + na + nb < sizeof r->where) {
        memcpy(r->where + at, a, na);
        memcpy(r->where + at + na, b, nb + 1);
    }
    return at;
}

static size_t enter_s(reader *r, const char *name)
{
    return enter_text(r, ".", name);
}

static size_t enter_i(reader *r, const char *prefix, size_t i)
{
    char b[24];
    cuzk_index_suffix(b, i);
    return enter_text(r, prefix, b);
}

static cuzk_err read_bytes(reader *r, size_t n, const uint8_t **out)
{
    if (r->size - r->off < n)
        return rfail(r, "truncated: %zu bytes needed at byte %zu, %zu remain", n, r->off,
                     r->size - r->off);
    *out = r->data + r->off;
    r->off += n;
    return CUZK_OK;
}

static cuzk_err read_u64(reader *r, uint64_t *v)
{
    const uint8_t *p = NULL;
    CUZK_TRY(read_bytes(r, 8, &p));
    *v = cuzk_get_le64(p);
    return CUZK_OK;
}

static cuzk_err read_u32(reader *r, uint32_t *v)
{
    const uint8_t *p = NULL;
    CUZK_TRY(read_bytes(r, 4, &p));
    *v = cuzk_get_le32(p);
    return CUZK_OK;
}

/* A length whose elements take at least min_bytes each. */
static cuzk_err read_len(reader *r, size_t min_bytes, size_t limit, size_t *n)
{
    size_t at = r->off;
    uint64_t v;
    CUZK_TRY(read_u64(r, &v));
    uint64_t left = r->size - r->off;
    if (v > limit)
        return rfail(r, "length %llu at byte %zu: at most %zu expected", (unsigned long long)v, at,
                     limit);
    if (min_bytes && v > left / min_bytes)
        return rfail(r, "length %llu at byte %zu needs at least %llu bytes, %llu remain",
                     (unsigned long long)v, at, (unsigned long long)v * min_bytes,
                     (unsigned long long)left);
    *n = (size_t)v;
    return CUZK_OK;
}

/* A field element, field[idx] when idx >= 0; the path names the field only
 * when something is wrong (naming each of the ~1.8 M elements of a 32 GiB
 * WindowPoSt request was most of its decoding time). */
static cuzk_err read_fr_at(reader *r, const char *field, long idx, cuzk_fr *out)
{
    size_t at = r->off;
    if (r->size - r->off >= 32 && cuzk_fr_from_bytes_le(out, r->data + r->off) == CUZK_OK) {
        r->off += 32;
        return CUZK_OK;
    }
    const uint8_t *p = NULL;
    size_t w = enter_s(r, field);
    if (idx >= 0)
        enter_i(r, "", (size_t)idx);
    cuzk_err e = read_bytes(r, 32, &p);
    if (!e)
        e = rfail(r, "not a canonical field element (byte %zu)", at);
    leave(r, w);
    return e;
}

static cuzk_err read_fr(reader *r, const char *field, cuzk_fr *out)
{
    return read_fr_at(r, field, -1, out);
}

/* Siblings are collected in a growing array while the levels are read. */
typedef struct {
    cuzk_fr *v;
    size_t n, cap;
} fr_vec;

static cuzk_err fr_vec_push(fr_vec *s, const cuzk_fr *x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        cuzk_fr *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return cuzk_fail(CUZK_ENOMEM, "out of memory");
        s->v = v, s->cap = cap;
    }
    s->v[s->n++] = *x;
    return CUZK_OK;
}

/* InclusionPath: its levels appended to p (arity, index, siblings). */
static cuzk_err read_path(reader *r, const char *field, cuzk_vanilla_merkle *p, fr_vec *sib)
{
    size_t w = enter_s(r, field);
    size_t n;
    /* A level is at least its hashes length and index (16 bytes). */
    cuzk_err e = read_len(r, 16, CUZK_VANILLA_MAX_LEVELS - p->n_levels, &n);
    for (size_t l = 0; l < n && !e; l++) {
        size_t w2 = enter_i(r, ".path", l);
        size_t k;
        size_t w3 = enter_s(r, "hashes");
        e = read_len(r, 32, 15, &k); /* arity 16 at most */
        if (!e && k == 0)
            e = rfail(r, "no siblings (a level has at least one)");
        leave(r, w3);
        for (size_t i = 0; i < k && !e; i++) {
            cuzk_fr x;
            e = read_fr_at(r, "hashes", (long)i, &x);
            if (!e)
                e = fr_vec_push(sib, &x);
        }
        uint64_t idx = 0;
        size_t at = r->off;
        if (!e)
            e = read_u64(r, &idx);
        if (!e && idx > k)
            e = rfail(r, "index %llu at byte %zu: a level of %zu siblings has positions 0..%zu",
                      (unsigned long long)idx, at, k, k);
        if (!e) {
            p->arity[p->n_levels] = (uint8_t)(k + 1);
            p->index[p->n_levels] = (uint32_t)idx;
            p->n_levels++;
        }
        leave(r, w2);
    }
    leave(r, w);
    return e;
}

static cuzk_err read_merkle(reader *r, cuzk_vanilla_merkle *p)
{
    memset(p, 0, sizeof *p);
    size_t at = r->off;
    uint32_t variant;
    CUZK_TRY(read_u32(r, &variant));
    if (variant > CUZK_MERKLE_TOP)
        return rfail(r, "ProofData variant %u at byte %zu (0 Single, 1 Sub, 2 Top)", variant, at);
    p->form = (cuzk_merkle_form)variant;
    fr_vec sib = {0};
    cuzk_err e = CUZK_OK;
    if (p->form == CUZK_MERKLE_SINGLE) {
        e = read_fr(r, "root", &p->root);
        if (!e)
            e = read_fr(r, "leaf", &p->leaf);
        if (!e)
            e = read_path(r, "path", p, &sib);
        p->n_base = p->n_levels;
    } else {
        e = read_path(r, "base_proof", p, &sib);
        p->n_base = p->n_levels;
        unsigned before = p->n_levels;
        if (!e)
            e = read_path(r, "sub_proof", p, &sib);
        if (!e && p->n_levels != before + 1)
            e = rfail(r, "sub_proof has %u levels (1 expected)", p->n_levels - before);
        before = p->n_levels;
        if (!e && p->form == CUZK_MERKLE_TOP)
            e = read_path(r, "top_proof", p, &sib);
        if (!e && p->form == CUZK_MERKLE_TOP && p->n_levels != before + 1)
            e = rfail(r, "top_proof has %u levels (1 expected)", p->n_levels - before);
        if (!e)
            e = read_fr(r, "root", &p->root);
        if (!e)
            e = read_fr(r, "leaf", &p->leaf);
    }
    if (e) {
        free(sib.v);
        p->siblings = NULL;
        return e;
    }
    p->siblings = sib.v;
    return CUZK_OK;
}

static void sector_free(cuzk_vanilla_sector *s)
{
    for (size_t i = 0; i < s->n_inclusion_proofs; i++)
        free(s->inclusion_proofs[i].siblings);
    free(s->inclusion_proofs);
    s->inclusion_proofs = NULL;
    s->n_inclusion_proofs = 0;
}

static cuzk_err read_sector(reader *r, cuzk_vanilla_sector *s)
{
    size_t n;
    size_t w = enter(r, ".inclusion_proofs");
    /* A MerkleProof takes at least its variant, two elements and a path
     * length: 76 bytes. */
    cuzk_err e = read_len(r, 76, (size_t)1 << 20, &n);
    leave(r, w);
    if (e)
        return e;
    if (!(s->inclusion_proofs = calloc(n ? n : 1, sizeof *s->inclusion_proofs)))
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !e; i++) {
        size_t w2 = enter_i(r, ".inclusion_proofs", i);
        e = read_merkle(r, &s->inclusion_proofs[i]);
        if (!e)
            s->n_inclusion_proofs++;
        leave(r, w2);
    }
    if (!e)
        e = read_fr(r, "comm_c", &s->comm_c);
    if (!e)
        e = read_fr(r, "comm_r_last", &s->comm_r_last);
    return e;
}

void cuzk_post_sector_proof_free(cuzk_post_sector_proof *p)
{
    for (size_t i = 0; i < p->n_sectors; i++)
        sector_free(&p->sectors[i]);
    free(p->sectors);
    memset(p, 0, sizeof *p);
}

cuzk_err cuzk_post_sector_proof_decode(const uint8_t *data, size_t size, const char *name,
                                       cuzk_post_sector_proof *out)
{
    memset(out, 0, sizeof *out);
    reader r = {.data = data, .size = data ? size : 0};
    snprintf(r.where, sizeof r.where, "%s", name ? name : "vanilla proof");
    cuzk_err e = read_u64(&r, &out->sector_id);
    if (!e)
        e = read_fr(&r, "comm_r", &out->comm_r);
    size_t n = 0;
    if (!e) {
        size_t w = enter(&r, ".sectors");
        e = read_len(&r, 72, (size_t)1 << 16, &n);
        leave(&r, w);
    }
    if (!e && !(out->sectors = calloc(n ? n : 1, sizeof *out->sectors)))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !e; i++) {
        size_t w = enter(&r, ".sectors[%zu]", i);
        e = read_sector(&r, &out->sectors[i]);
        out->n_sectors++; /* a partly read sector is freed with the rest */
        leave(&r, w);
    }
    if (!e && r.off != r.size)
        e = rfail(&r, "%zu trailing bytes after the proof (byte %zu)", r.size - r.off, r.off);
    if (e)
        cuzk_post_sector_proof_free(out);
    return e;
}

typedef struct {
    const uint8_t *const *data;
    const size_t *sizes;
    const char *prefix;
    cuzk_post_sector_proof *out;
} post_batch;

static cuzk_err post_batch_one(post_batch *b, uint64_t i)
{
    char name[64];
    snprintf(name, sizeof name, "%s[%llu]", b->prefix, (unsigned long long)i);
    return cuzk_post_sector_proof_decode(b->data[i], b->sizes[i], name, &b->out[i]);
}

static int post_batch_bad(void *ctx, uint64_t i)
{
    return post_batch_one(ctx, i) != CUZK_OK;
}

cuzk_err cuzk_post_sector_proofs_decode(const uint8_t *const *data, const size_t *sizes, size_t n,
                                        const char *prefix, cuzk_post_sector_proof *out)
{
    post_batch b = {data, sizes, prefix ? prefix : "vanilla_proofs", out};
    uint64_t bad = cuzk_parallel_first(n, 16, post_batch_bad, &b);
    if (bad == UINT64_MAX)
        return CUZK_OK;
    for (size_t i = 0; i < n; i++)
        cuzk_post_sector_proof_free(&out[i]);
    /* the failing item again on this thread, for its message */
    cuzk_err e = post_batch_one(&b, bad);
    cuzk_post_sector_proof_free(&out[bad]);
    return e ? e
             : cuzk_fail(CUZK_EINTERNAL, "%s[%llu]: failed once, then decoded", b.prefix,
                         (unsigned long long)bad);
}

void cuzk_snap_partition_proof_free(cuzk_snap_partition_proof *p)
{
    for (size_t i = 0; i < p->n_challenges; i++) {
        free(p->challenges[i].r_old.siblings);
        free(p->challenges[i].d_new.siblings);
        free(p->challenges[i].r_new.siblings);
    }
    free(p->challenges);
    free(p->apex_leafs);
    memset(p, 0, sizeof *p);
}

cuzk_err cuzk_snap_partition_proof_decode(const uint8_t *data, size_t size, const char *name,
                                          cuzk_snap_partition_proof *out)
{
    memset(out, 0, sizeof *out);
    reader r = {.data = data, .size = data ? size : 0};
    snprintf(r.where, sizeof r.where, "%s", name ? name : "partition proof");
    cuzk_err e = read_fr(&r, "comm_c", &out->comm_c);
    size_t n = 0;
    if (!e) {
        size_t w = enter(&r, ".apex_leafs");
        e = read_len(&r, 32, (size_t)1 << 16, &n);
        leave(&r, w);
    }
    if (!e && !(out->apex_leafs = calloc(n ? n : 1, sizeof *out->apex_leafs)))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !e; i++) {
        char field[48];
        snprintf(field, sizeof field, "apex_leafs[%zu]", i);
        if (!(e = read_fr(&r, field, &out->apex_leafs[i])))
            out->n_apex_leafs++;
    }
    if (!e) {
        size_t w = enter(&r, ".challenge_proofs");
        /* three MerkleProofs of at least 76 bytes each */
        e = read_len(&r, 3 * 76, (size_t)1 << 16, &n);
        leave(&r, w);
    }
    if (!e && !(out->challenges = calloc(n ? n : 1, sizeof *out->challenges)))
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && !e; i++) {
        cuzk_snap_challenge_proof *c = &out->challenges[i];
        out->n_challenges++; /* freed with the rest if partly read */
        size_t w = enter(&r, ".challenge_proofs[%zu]", i);
        size_t w2 = enter(&r, ".proof_r_old");
        e = read_merkle(&r, &c->r_old);
        leave(&r, w2);
        if (!e) {
            w2 = enter(&r, ".proof_d_new");
            e = read_merkle(&r, &c->d_new);
            leave(&r, w2);
        }
        if (!e) {
            w2 = enter(&r, ".proof_r_new");
            e = read_merkle(&r, &c->r_new);
            leave(&r, w2);
        }
        leave(&r, w);
    }
    if (!e && r.off != r.size)
        e = rfail(&r, "%zu trailing bytes after the proof (byte %zu)", r.size - r.off, r.off);
    if (e)
        cuzk_snap_partition_proof_free(out);
    return e;
}

uint64_t cuzk_vanilla_merkle_leaf_index(const cuzk_vanilla_merkle *p)
{
    uint64_t idx = 0, scale = 1;
    for (unsigned l = 0; l < p->n_levels; l++) {
        idx += p->index[l] * scale;
        scale *= p->arity[l];
    }
    return idx;
}

size_t cuzk_vanilla_merkle_sibling_offset(const cuzk_vanilla_merkle *p, unsigned l)
{
    size_t off = 0;
    for (unsigned i = 0; i < l && i < p->n_levels; i++)
        off += p->arity[i] - 1u;
    return off;
}

/* ---- writing ---- */

typedef struct {
    uint8_t *b;
    size_t n, cap;
    int oom;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->oom)
        return;
    if (w->n + n > w->cap) {
        size_t cap = w->cap ? w->cap : 256;
        while (cap < w->n + n)
            cap *= 2;
        uint8_t *b = realloc(w->b, cap);
        if (!b) {
            w->oom = 1;
            return;
        }
        w->b = b, w->cap = cap;
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put_u64(writer *w, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    put(w, b, 8);
}

static void put_fr(writer *w, const cuzk_fr *x)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    put(w, b, 32);
}

static void put_path(writer *w, const cuzk_vanilla_merkle *p, unsigned from, unsigned to)
{
    put_u64(w, to - from);
    for (unsigned l = from; l < to; l++) {
        size_t off = cuzk_vanilla_merkle_sibling_offset(p, l);
        put_u64(w, p->arity[l] - 1u);
        for (unsigned i = 0; i + 1 < p->arity[l]; i++)
            put_fr(w, &p->siblings[off + i]);
        put_u64(w, p->index[l]);
    }
}

static void put_merkle(writer *w, const cuzk_vanilla_merkle *p)
{
    uint8_t v[4] = {(uint8_t)p->form, 0, 0, 0};
    put(w, v, 4);
    if (p->form == CUZK_MERKLE_SINGLE) {
        put_fr(w, &p->root);
        put_fr(w, &p->leaf);
        put_path(w, p, 0, p->n_levels);
        return;
    }
    put_path(w, p, 0, p->n_base);
    put_path(w, p, p->n_base, p->n_base + 1);
    if (p->form == CUZK_MERKLE_TOP)
        put_path(w, p, p->n_base + 1, p->n_base + 2);
    put_fr(w, &p->root);
    put_fr(w, &p->leaf);
}

cuzk_err cuzk_post_sector_proof_encode(const cuzk_post_sector_proof *p, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    writer w = {0};
    put_u64(&w, p->sector_id);
    put_fr(&w, &p->comm_r);
    put_u64(&w, p->n_sectors);
    for (size_t s = 0; s < p->n_sectors; s++) {
        const cuzk_vanilla_sector *sp = &p->sectors[s];
        for (size_t i = 0; i < sp->n_inclusion_proofs; i++) {
            const cuzk_vanilla_merkle *m = &sp->inclusion_proofs[i];
            unsigned need = m->form == CUZK_MERKLE_SINGLE ? 0 : m->form == CUZK_MERKLE_SUB ? 1 : 2;
            if (m->n_levels < m->n_base || m->n_levels - m->n_base != need) {
                free(w.b);
                return cuzk_fail(CUZK_EINVAL,
                                 "sectors[%zu].inclusion_proofs[%zu]: %u levels above the base "
                                 "do not match its form %d",
                                 s, i, m->n_levels - m->n_base, (int)m->form);
            }
        }
        put_u64(&w, sp->n_inclusion_proofs);
        for (size_t i = 0; i < sp->n_inclusion_proofs; i++)
            put_merkle(&w, &sp->inclusion_proofs[i]);
        put_fr(&w, &sp->comm_c);
        put_fr(&w, &sp->comm_r_last);
    }
    if (w.oom) {
        free(w.b);
        return cuzk_fail(CUZK_ENOMEM, "out of memory encoding a vanilla proof");
    }
    *out = w.b;
    *size = w.n;
    return CUZK_OK;
}

/* A MerkleProof's levels above the base must match its form. */
static cuzk_err form_check(const cuzk_vanilla_merkle *m, const char *what, size_t i)
{
    unsigned need = m->form == CUZK_MERKLE_SINGLE ? 0 : m->form == CUZK_MERKLE_SUB ? 1 : 2;
    if (m->n_levels < m->n_base || m->n_levels - m->n_base != need)
        return cuzk_fail(CUZK_EINVAL, "%s[%zu]: %u levels above the base do not match its form %d",
                         what, i, m->n_levels - m->n_base, (int)m->form);
    return CUZK_OK;
}

cuzk_err cuzk_snap_partition_proof_encode(const cuzk_snap_partition_proof *p, uint8_t **out,
                                          size_t *size)
{
    *out = NULL;
    *size = 0;
    for (size_t i = 0; i < p->n_challenges; i++) {
        CUZK_TRY(form_check(&p->challenges[i].r_old, "challenge_proofs.proof_r_old", i));
        CUZK_TRY(form_check(&p->challenges[i].d_new, "challenge_proofs.proof_d_new", i));
        CUZK_TRY(form_check(&p->challenges[i].r_new, "challenge_proofs.proof_r_new", i));
    }
    writer w = {0};
    put_fr(&w, &p->comm_c);
    put_u64(&w, p->n_apex_leafs);
    for (size_t i = 0; i < p->n_apex_leafs; i++)
        put_fr(&w, &p->apex_leafs[i]);
    put_u64(&w, p->n_challenges);
    for (size_t i = 0; i < p->n_challenges; i++) {
        put_merkle(&w, &p->challenges[i].r_old);
        put_merkle(&w, &p->challenges[i].d_new);
        put_merkle(&w, &p->challenges[i].r_new);
    }
    if (w.oom) {
        free(w.b);
        return cuzk_fail(CUZK_ENOMEM, "out of memory encoding a partition proof");
    }
    *out = w.b;
    *size = w.n;
    return CUZK_OK;
}
