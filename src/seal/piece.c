/* Piece and data commitments: fr32 padding, commP, comm_d and their CIDs
 * (piece.h).
 *
 * Hashing: a commP costs one 64-byte SHA-256 per padded 64 bytes of
 * piece, two blocks through cuzk_sha256 (libcrypto's compression function:
 * the CPU's SHA extensions where present). libcrypto's EVP interface with a
 * reused context measured 168 ns per node on a SHA-NI x86-64 host, its
 * one-shot SHA256() 329 ns (it fetches the digest on every call, under a
 * library-wide lock), two compressions 86 ns. */
#include "cuzk/piece.h"
#include "cuzk/fr.h"
#include "cuzk/sha256.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fr32 ---------------------------------------------------------------- */

/* Word k (0..3) of a chunk holds input bits 254k .. 254k + 253: it starts
 * at byte 254k / 8 with a shift of 254k % 8 (0, 6, 4, 2 bits). */
void cuzk_fr32_pad(const uint8_t *in, size_t n_chunks, uint8_t *out)
{
    for (size_t c = 0; c < n_chunks; c++, in += CUZK_FR32_UNPADDED, out += CUZK_FR32_PADDED) {
        uint8_t buf[CUZK_FR32_PADDED]; /* one spare zero byte: the shifts read past 127 */
        memcpy(buf, in, CUZK_FR32_UNPADDED);
        buf[CUZK_FR32_UNPADDED] = 0;
        for (unsigned k = 0; k < 4; k++) {
            unsigned b = 254 * k / 8, s = 254 * k % 8;
            uint8_t *w = out + 32 * k;
            for (unsigned i = 0; i < 32; i++)
                w[i] = s ? (uint8_t)(buf[b + i] >> s | buf[b + i + 1] << (8 - s)) : buf[b + i];
            w[31] &= 0x3f;
        }
    }
}

void cuzk_fr32_unpad(const uint8_t *in, size_t n_chunks, uint8_t *out)
{
    for (size_t c = 0; c < n_chunks; c++, in += CUZK_FR32_PADDED, out += CUZK_FR32_UNPADDED) {
        uint8_t buf[CUZK_FR32_PADDED] = {0};
        for (unsigned k = 0; k < 4; k++) {
            unsigned b = 254 * k / 8, s = 254 * k % 8;
            const uint8_t *w = in + 32 * k;
            for (unsigned i = 0; i < 32; i++) {
                uint8_t v = i == 31 ? w[i] & 0x3f : w[i];
                buf[b + i] |= (uint8_t)(v << s);
                if (s)
                    buf[b + i + 1] |= (uint8_t)(v >> (8 - s));
            }
        }
        memcpy(out, buf, CUZK_FR32_UNPADDED);
    }
}

/* ---- hashing ------------------------------------------------------------- */

void cuzk_piece_hash(const uint8_t left[32], const uint8_t right[32], uint8_t out[32])
{
    uint8_t buf[64];
    memcpy(buf, left, 32);
    memcpy(buf + 32, right, 32);
    cuzk_sha256(buf, sizeof buf, out);
    out[31] &= 0x3f;
}

/* Levels of the zero table: level h is an all-zero subtree of 32 * 2^h
 * bytes, up to CUZK_PIECE_MAX_PADDED = 2^50 = 32 * 2^45. */
#define ZERO_LEVELS 46
static uint8_t zero_comm[ZERO_LEVELS][32];
static pthread_once_t zero_once = PTHREAD_ONCE_INIT;

static void zero_init(void)
{
    memset(zero_comm[0], 0, 32); /* fr32 padding of zeros is zeros */
    for (unsigned h = 1; h < ZERO_LEVELS; h++)
        cuzk_piece_hash(zero_comm[h - 1], zero_comm[h - 1], zero_comm[h]);
}

static const uint8_t *zero_at(unsigned level)
{
    pthread_once(&zero_once, zero_init);
    return zero_comm[level];
}

static int is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

static unsigned log2u(uint64_t x)
{
    return 63u - (unsigned)__builtin_clzll(x);
}

cuzk_err cuzk_piece_zero_comm(uint64_t padded_size, uint8_t out[32])
{
    if (!is_pow2(padded_size) || padded_size < 32 || padded_size > CUZK_PIECE_MAX_PADDED)
        return cuzk_fail(CUZK_EINVAL,
                         "zero piece of %llu bytes: want a power of two from 32 to 2^50",
                         (unsigned long long)padded_size);
    memcpy(out, zero_at(log2u(padded_size) - 5), 32);
    return CUZK_OK;
}

uint64_t cuzk_piece_padded_size(uint64_t n)
{
    if (n == 0 || n > CUZK_PIECE_MAX_PADDED / CUZK_FR32_PADDED * CUZK_FR32_UNPADDED)
        return 0;
    uint64_t padded = (n + CUZK_FR32_UNPADDED - 1) / CUZK_FR32_UNPADDED * CUZK_FR32_PADDED;
    uint64_t p = CUZK_PIECE_MIN_PADDED;
    while (p < padded)
        p <<= 1;
    return p;
}

/* ---- commP stream -------------------------------------------------------- */

struct cuzk_commp {
    uint64_t bytes;  /* unpadded bytes written */
    uint64_t leaves; /* 32-byte leaves hashed so far */
    size_t fill;     /* bytes in chunk */
    int failed;
    uint8_t chunk[CUZK_FR32_UNPADDED];
    /* pending[h]: a left node of level h waiting for its right sibling,
     * present when bit h of leaves is set (the tree is built as a binary
     * counter). */
    uint8_t pending[ZERO_LEVELS][32];
};

cuzk_err cuzk_commp_new(cuzk_commp **out)
{
    *out = calloc(1, sizeof **out);
    return *out ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "commP: out of memory");
}

void cuzk_commp_free(cuzk_commp *c)
{
    free(c);
}

/* Add one leaf at the right end of the tree. */
static cuzk_err add_leaf(cuzk_commp *c, const uint8_t leaf[32])
{
    uint8_t node[32];
    memcpy(node, leaf, 32);
    unsigned h = 0;
    for (uint64_t n = c->leaves; n & 1; n >>= 1, h++)
        cuzk_piece_hash(c->pending[h], node, node);
    memcpy(c->pending[h], node, 32);
    c->leaves++;
    return CUZK_OK;
}

static cuzk_err add_chunk(cuzk_commp *c, const uint8_t *chunk)
{
    uint8_t padded[CUZK_FR32_PADDED];
    cuzk_fr32_pad(chunk, 1, padded);
    for (unsigned k = 0; k < 4; k++)
        CUZK_TRY(add_leaf(c, padded + 32 * k));
    return CUZK_OK;
}

static const uint64_t max_unpadded = CUZK_PIECE_MAX_PADDED / CUZK_FR32_PADDED * CUZK_FR32_UNPADDED;

cuzk_err cuzk_commp_write(cuzk_commp *c, const void *data, size_t n)
{
    if (c->failed)
        return cuzk_fail(CUZK_EINVAL, "commP: stream already failed");
    if (n > max_unpadded - c->bytes) {
        c->failed = 1;
        return cuzk_fail(CUZK_EINVAL, "commP: piece larger than %llu bytes",
                         (unsigned long long)max_unpadded);
    }
    const uint8_t *p = data;
    c->bytes += n;
    cuzk_err e = CUZK_OK;
    if (c->fill) {
        size_t take = CUZK_FR32_UNPADDED - c->fill < n ? CUZK_FR32_UNPADDED - c->fill : n;
        memcpy(c->chunk + c->fill, p, take);
        c->fill += take, p += take, n -= take;
        if (c->fill == CUZK_FR32_UNPADDED) {
            e = add_chunk(c, c->chunk);
            c->fill = 0;
        }
    }
    for (; e == CUZK_OK && n >= CUZK_FR32_UNPADDED; p += CUZK_FR32_UNPADDED)
        e = add_chunk(c, p), n -= CUZK_FR32_UNPADDED;
    if (e != CUZK_OK) {
        c->failed = 1;
        return e;
    }
    memcpy(c->chunk + c->fill, p, n);
    c->fill += n;
    return CUZK_OK;
}

cuzk_err cuzk_commp_finish(cuzk_commp *c, uint8_t comm[32], uint64_t *padded_size)
{
    if (c->failed)
        return cuzk_fail(CUZK_EINVAL, "commP: stream already failed");
    c->failed = 1; /* finish once */
    uint64_t size = cuzk_piece_padded_size(c->bytes);
    if (!size)
        return cuzk_fail(CUZK_EINVAL, "commP: empty piece");
    if (c->fill) {
        memset(c->chunk + c->fill, 0, CUZK_FR32_UNPADDED - c->fill);
        CUZK_TRY(add_chunk(c, c->chunk));
    }
    /* Close the tree to size / 32 leaves: from the bottom, each pending
     * left node meets the zero subtree (or the carry from below) on its
     * right. */
    unsigned top = log2u(size / 32);
    uint8_t carry[32];
    int have = 0;
    for (unsigned h = 0; h < top; h++) {
        int pend = (int)(c->leaves >> h & 1);
        if (pend)
            cuzk_piece_hash(c->pending[h], have ? carry : zero_at(h), carry);
        else if (have)
            cuzk_piece_hash(carry, zero_at(h), carry);
        have |= pend;
    }
    memcpy(comm, have ? carry : c->pending[top], 32);
    *padded_size = size;
    return CUZK_OK;
}

cuzk_err cuzk_commp_bytes(const void *data, size_t n, uint8_t comm[32], uint64_t *padded_size)
{
    cuzk_commp *c;
    CUZK_TRY(cuzk_commp_new(&c));
    cuzk_err e = cuzk_commp_write(c, data, n);
    if (e == CUZK_OK)
        e = cuzk_commp_finish(c, comm, padded_size);
    cuzk_commp_free(c);
    return e;
}

cuzk_err cuzk_commp_file(const char *path, uint8_t comm[32], uint64_t *padded_size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_fail(CUZK_EIO, "%s: %s", path, cuzk_strerror(errno));
    enum { BUF = 127 << 13 }; /* ~1 MiB of whole chunks */
    uint8_t *buf = malloc(BUF);
    cuzk_commp *c = NULL;
    cuzk_err e = buf ? cuzk_commp_new(&c) : cuzk_fail(CUZK_ENOMEM, "commP: out of memory");
    while (e == CUZK_OK) {
        size_t got = fread(buf, 1, BUF, f);
        if (got)
            e = cuzk_commp_write(c, buf, got);
        if (got < BUF) {
            if (ferror(f))
                e = cuzk_fail(CUZK_EIO, "%s: read failed", path);
            break;
        }
    }
    if (e == CUZK_OK) {
        e = cuzk_commp_finish(c, comm, padded_size);
        if (e != CUZK_OK)
            cuzk_fail_ctx(e, "%s: ", path);
    }
    cuzk_commp_free(c);
    free(buf);
    fclose(f);
    return e;
}

/* ---- comm_d -------------------------------------------------------------- */

/* The stack of compute_comm_d: subtree roots, left to right. Equal
 * neighbours are joined at once, and a subtree is pushed only onto one at
 * least as large, so sizes strictly decrease upwards: one per level at
 * most. */
typedef struct {
    struct {
        uint8_t comm[32];
        uint64_t size;
    } st[ZERO_LEVELS + 1];
    size_t depth;
    uint64_t used; /* bytes the stack covers */
} piece_stack;

static void stack_push(piece_stack *s, const uint8_t comm[32], uint64_t size)
{
    memcpy(s->st[s->depth].comm, comm, 32);
    s->st[s->depth++].size = size;
    s->used += size;
    while (s->depth > 1 && s->st[s->depth - 1].size == s->st[s->depth - 2].size) {
        s->depth--;
        cuzk_piece_hash(s->st[s->depth - 1].comm, s->st[s->depth].comm, s->st[s->depth - 1].comm);
        s->st[s->depth - 1].size *= 2;
    }
}

/* A zero piece of the top's size: the alignment gap before a larger piece,
 * and the fill after the last one. used is a multiple of the top's size and
 * less than the sector's, so this never overflows the sector. */
static void stack_pad(piece_stack *s)
{
    uint64_t zs = s->st[s->depth - 1].size;
    stack_push(s, zero_at(log2u(zs) - 5), zs);
}

cuzk_err cuzk_comm_d(uint64_t sector_size, const cuzk_piece_info *pieces, size_t n, uint8_t out[32])
{
    if (!is_pow2(sector_size) || sector_size < CUZK_PIECE_MIN_PADDED ||
        sector_size > CUZK_PIECE_MAX_PADDED)
        return cuzk_fail(CUZK_EINVAL, "sector size %llu: want a power of two from 128 to 2^50",
                         (unsigned long long)sector_size);
    piece_stack s = {.depth = 0};
    for (size_t i = 0; i < n; i++) {
        uint64_t sz = pieces[i].padded_size;
        if (!is_pow2(sz) || sz < CUZK_PIECE_MIN_PADDED)
            return cuzk_fail(CUZK_EINVAL,
                             "piece %zu: padded size %llu is not a power of two >= 128", i,
                             (unsigned long long)sz);
        while (s.depth && s.st[s.depth - 1].size < sz)
            stack_pad(&s);
        if (sz > sector_size - s.used)
            return cuzk_fail(CUZK_EINVAL,
                             "piece %zu (%llu bytes) does not fit in the %llu-byte sector after "
                             "%llu bytes of pieces and alignment",
                             i, (unsigned long long)sz, (unsigned long long)sector_size,
                             (unsigned long long)s.used);
        stack_push(&s, pieces[i].comm, sz);
    }
    if (!s.depth)
        return cuzk_piece_zero_comm(sector_size, out);
    while (s.depth > 1 || s.st[0].size < sector_size)
        stack_pad(&s);
    memcpy(out, s.st[0].comm, 32);
    return CUZK_OK;
}

/* ---- CIDs ---------------------------------------------------------------- */

/* The multiformats varint and RFC 4648 base32 are written here: Debian
 * packages no C multiformats library, and both are a few lines. */

#define CODEC_UNSEALED 0xf101     /* fil-commitment-unsealed */
#define CODEC_SEALED 0xf102       /* fil-commitment-sealed */
#define MH_SHA256_TRUNC254 0x1012 /* sha2-256-trunc254-padded */
#define MH_POSEIDON_FC1 0xb401    /* poseidon-bls12_381-a2-fc1 */
#define CID_BYTES_MAX 48

static const char b32_alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";

static size_t varint_put(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    for (; v >= 0x80; v >>= 7)
        p[n++] = (uint8_t)(v | 0x80);
    p[n++] = (uint8_t)v;
    return n;
}

/* Unsigned LEB128 as multiformats restricts it: at most 9 bytes, minimal
 * (no trailing zero group). */
static cuzk_err varint_get(const uint8_t *p, size_t len, size_t *off, const char *what, uint64_t *v)
{
    uint64_t x = 0;
    for (unsigned i = 0; i < 9; i++) {
        if (*off >= len)
            return cuzk_fail(CUZK_EFORMAT, "CID truncated in its %s", what);
        uint8_t b = p[(*off)++];
        x |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            if (i && !b)
                return cuzk_fail(CUZK_EFORMAT, "CID %s is not a minimal varint", what);
            *v = x;
            return CUZK_OK;
        }
    }
    return cuzk_fail(CUZK_EFORMAT, "CID %s varint is longer than 9 bytes", what);
}

/* What a commitment of each kind can be: commP and comm_d are SHA-256
 * digests trimmed to 254 bits; comm_r is a Poseidon output, any canonical
 * element of Fr (below r, 255 bits). code naming the fault. */
static cuzk_err comm_check(cuzk_err code, cuzk_cid_kind kind, const uint8_t comm[32])
{
    if (kind == CUZK_CID_UNSEALED && (comm[31] & 0xc0))
        return cuzk_fail(code,
                         "unsealed commitment byte 31 is 0x%02x: its top two bits are set, so it "
                         "is not a trimmed SHA-256 digest",
                         comm[31]);
    cuzk_fr x;
    if (kind == CUZK_CID_SEALED && cuzk_fr_from_bytes_le(&x, comm) != CUZK_OK)
        return cuzk_fail(code, "sealed commitment is not below the modulus r: no field element");
    return CUZK_OK;
}

cuzk_err cuzk_cid_encode(cuzk_cid_kind kind, const uint8_t comm[32], char out[CUZK_CID_STR_MAX])
{
    if (kind != CUZK_CID_UNSEALED && kind != CUZK_CID_SEALED)
        return cuzk_fail(CUZK_EINVAL, "CID kind %d is neither sealed nor unsealed", (int)kind);
    CUZK_TRY(comm_check(CUZK_EINVAL, kind, comm));
    uint8_t b[CID_BYTES_MAX];
    size_t n = varint_put(b, 1);
    n += varint_put(b + n, kind == CUZK_CID_SEALED ? CODEC_SEALED : CODEC_UNSEALED);
    n += varint_put(b + n, kind == CUZK_CID_SEALED ? MH_POSEIDON_FC1 : MH_SHA256_TRUNC254);
    n += varint_put(b + n, 32);
    memcpy(b + n, comm, 32);
    n += 32;
    size_t o = 0;
    out[o++] = 'b';
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 0; i < n; i++) {
        acc = acc << 8 | b[i];
        for (bits += 8; bits >= 5; bits -= 5)
            out[o++] = b32_alphabet[acc >> (bits - 5) & 31];
    }
    if (bits)
        out[o++] = b32_alphabet[acc << (5 - bits) & 31];
    out[o] = 0;
    return CUZK_OK;
}

cuzk_err cuzk_cid_decode(const char *s, cuzk_cid_kind *kind, uint8_t comm[32])
{
    size_t len = strlen(s);
    if (!len)
        return cuzk_fail(CUZK_EFORMAT, "empty CID");
    if (s[0] != 'b')
        return cuzk_fail(CUZK_EFORMAT,
                         "CID \"%.80s\": multibase prefix '%c' is not 'b' (base32, lower case)", s,
                         s[0]);
    if ((len - 1) * 5 / 8 > CID_BYTES_MAX)
        return cuzk_fail(CUZK_EFORMAT,
                         "CID \"%.80s...\": %zu characters, too long for a "
                         "commitment CID",
                         s, len);
    uint8_t b[CID_BYTES_MAX];
    size_t n = 0;
    uint32_t acc = 0;
    unsigned bits = 0;
    for (size_t i = 1; i < len; i++) {
        const char *d = s[i] ? strchr(b32_alphabet, s[i]) : NULL;
        if (!d)
            return cuzk_fail(CUZK_EFORMAT, "CID \"%.80s\": character %zu '%c' is not base32", s, i,
                             s[i]);
        acc = (acc << 5 | (uint32_t)(d - b32_alphabet)) & 0xfff; /* <= 12 bits live */
        bits += 5;
        if (bits >= 8) {
            bits -= 8;
            b[n++] = (uint8_t)(acc >> bits);
        }
    }
    /* Unpadded base32 ends with fewer than 5 left-over bits, all zero. */
    if (bits >= 5 || (acc & ((1u << bits) - 1)))
        return cuzk_fail(CUZK_EFORMAT,
                         "CID \"%.80s\": not canonical base32 (its length or "
                         "last character is wrong)",
                         s);
    size_t off = 0;
    uint64_t version, codec, mh, dlen;
    CUZK_TRY(varint_get(b, n, &off, "version", &version));
    if (version != 1)
        return cuzk_fail(CUZK_EFORMAT, "CID version %llu, want 1", (unsigned long long)version);
    CUZK_TRY(varint_get(b, n, &off, "codec", &codec));
    CUZK_TRY(varint_get(b, n, &off, "multihash code", &mh));
    cuzk_cid_kind k;
    if (codec == CODEC_UNSEALED && mh == MH_SHA256_TRUNC254)
        k = CUZK_CID_UNSEALED;
    else if (codec == CODEC_SEALED && mh == MH_POSEIDON_FC1)
        k = CUZK_CID_SEALED;
    else
        return cuzk_fail(CUZK_EFORMAT,
                         "CID codec 0x%llx with multihash 0x%llx: want fil-commitment-unsealed "
                         "(0xf101) with sha2-256-trunc254-padded (0x1012) or "
                         "fil-commitment-sealed (0xf102) with poseidon-bls12_381-a2-fc1 (0xb401)",
                         (unsigned long long)codec, (unsigned long long)mh);
    CUZK_TRY(varint_get(b, n, &off, "digest length", &dlen));
    if (dlen != 32)
        return cuzk_fail(CUZK_EFORMAT, "CID digest length %llu, want 32", (unsigned long long)dlen);
    if (n - off != 32)
        return cuzk_fail(CUZK_EFORMAT, "CID has %zu digest bytes, want 32", n - off);
    CUZK_TRY(comm_check(CUZK_EFORMAT, k, b + off));
    memcpy(comm, b + off, 32);
    *kind = k;
    return CUZK_OK;
}
