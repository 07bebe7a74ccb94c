/* SHA-256 natively and as bellperson's circuit (sha256.h).
 *
 * The gadget mirrors bellperson src/gadgets/sha256.rs step by step: message
 * schedule with 4-operand addmany, then 64 rounds where the new a and e are
 * kept "deferred" (their operand lists) and only added up at the start of
 * the next round, inside the one MultiEq of the compression. Operand order
 * inside each deferred list follows the reference because it fixes the order
 * of terms only, but the position of each addmany call fixes the variable
 * numbering, so the call sequence is kept exactly: new_e, S1 xors, ch,
 * new_a, S0 xors, maj; final h0 (deferred a + IV0), h1..h3, h4 (deferred e +
 * IV4), h5..h7. */
#include "cuzk/sha256.h"

#define OPENSSL_SUPPRESS_DEPRECATED /* SHA256_Transform: see cuzk_sha256_compress */
#include <openssl/sha.h>
#include <string.h>

const uint32_t CUZK_SHA256_IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* One block through libcrypto's compression function, which uses the
 * CPU's SHA extensions where it has them (43 ns a block against 213 ns for
 * portable C on a SHA-NI x86-64 host). SHA256_Transform is deprecated as
 * an API in OpenSSL 3 but is the library's block function itself. */
void cuzk_sha256_compress(uint32_t st[8], const uint8_t block[64])
{
    SHA256_CTX c;
    memcpy(c.h, st, sizeof c.h);
    SHA256_Transform(&c, block);
    memcpy(st, c.h, sizeof c.h);
}

void cuzk_sha256(const uint8_t *data, size_t len, uint8_t out[32])
{
    uint32_t st[8];
    memcpy(st, CUZK_SHA256_IV, sizeof st);
    size_t off = 0;
    for (; len - off >= 64; off += 64)
        cuzk_sha256_compress(st, data + off);
    uint8_t tail[128] = {0};
    size_t rest = len - off;
    if (rest)
        memcpy(tail, data + off, rest);
    tail[rest] = 0x80;
    size_t tlen = rest + 1 + 8 <= 64 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        tail[tlen - 1 - i] = (uint8_t)(bits >> (8 * i));
    for (size_t o = 0; o < tlen; o += 64)
        cuzk_sha256_compress(st, tail + o);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (uint8_t)(st[i] >> 24);
        out[4 * i + 1] = (uint8_t)(st[i] >> 16);
        out[4 * i + 2] = (uint8_t)(st[i] >> 8);
        out[4 * i + 3] = (uint8_t)st[i];
    }
}

/* ---- the gadget ---- */

/* bellperson's Maybe: a concrete UInt32 or a deferred addmany operand list. */
typedef struct {
    int deferred;
    size_t n;
    cuzk_u32 v[8];
} maybe;

static cuzk_err maybe_compute(cuzk_cs *cs, cuzk_multieq *m, maybe *x, const cuzk_u32 *other,
                              cuzk_u32 *out)
{
    if (!x->deferred) {
        *out = x->v[0];
        return CUZK_OK;
    }
    if (other)
        x->v[x->n++] = *other;
    return cuzk_u32_addmany(cs, m, x->v, x->n, out);
}

/* x rotr r1 ^ x rotr r2 ^ (x rotr/shr r3), as the reference chains it. */
static cuzk_err sigma(cuzk_cs *cs, const cuzk_u32 *x, unsigned r1, unsigned r2, unsigned r3,
                      int shift, cuzk_u32 *out)
{
    cuzk_u32 s = cuzk_u32_rotr(x, r1), t = cuzk_u32_rotr(x, r2);
    CUZK_TRY(cuzk_u32_xor(cs, &s, &t, &s));
    t = shift ? cuzk_u32_shr(x, r3) : cuzk_u32_rotr(x, r3);
    return cuzk_u32_xor(cs, &s, &t, out);
}

static cuzk_err compress(cuzk_cs *cs, cuzk_multieq *m, const cuzk_bool in[512],
                         const cuzk_u32 cur[8], cuzk_u32 out[8])
{
    cuzk_u32 w[64];
    for (int i = 0; i < 16; i++)
        w[i] = cuzk_u32_from_bits_be(in + 32 * i);
    for (int i = 16; i < 64; i++) {
        cuzk_u32 ops[4];
        ops[0] = w[i - 16];
        CUZK_TRY(sigma(cs, &w[i - 15], 7, 18, 3, 1, &ops[1]));
        ops[2] = w[i - 7];
        CUZK_TRY(sigma(cs, &w[i - 2], 17, 19, 10, 1, &ops[3]));
        CUZK_TRY(cuzk_u32_addmany(cs, m, ops, 4, &w[i]));
    }
    maybe a = {0, 1, {cur[0]}}, e = {0, 1, {cur[4]}};
    cuzk_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64; i++) {
        cuzk_u32 new_e, new_a, s1, ch, s0, maj;
        CUZK_TRY(maybe_compute(cs, m, &e, NULL, &new_e));
        CUZK_TRY(sigma(cs, &new_e, 6, 11, 25, 0, &s1));
        CUZK_TRY(cuzk_u32_sha256_ch(cs, &new_e, &f, &g, &ch));
        CUZK_TRY(maybe_compute(cs, m, &a, NULL, &new_a));
        CUZK_TRY(sigma(cs, &new_a, 2, 13, 22, 0, &s0));
        CUZK_TRY(cuzk_u32_sha256_maj(cs, &new_a, &b, &c, &maj));
        /* temp1 = [h, S1, ch, K[i], w[i]]; e = temp1 ++ [d];
         * a = temp1 ++ [S0, maj] */
        e = (maybe){1, 6, {h, s1, ch, cuzk_u32_const(K[i]), w[i], d}};
        a = (maybe){1, 7, {h, s1, ch, cuzk_u32_const(K[i]), w[i], s0, maj}};
        h = g;
        g = f;
        f = new_e;
        d = c;
        c = b;
        b = new_a;
    }
    CUZK_TRY(maybe_compute(cs, m, &a, &cur[0], &out[0]));
    const cuzk_u32 *rest[3] = {&b, &c, &d};
    for (int j = 0; j < 3; j++) {
        cuzk_u32 ops[2] = {cur[1 + j], *rest[j]};
        CUZK_TRY(cuzk_u32_addmany(cs, m, ops, 2, &out[1 + j]));
    }
    CUZK_TRY(maybe_compute(cs, m, &e, &cur[4], &out[4]));
    const cuzk_u32 *rest2[3] = {&f, &g, &h};
    for (int j = 0; j < 3; j++) {
        cuzk_u32 ops[2] = {cur[5 + j], *rest2[j]};
        CUZK_TRY(cuzk_u32_addmany(cs, m, ops, 2, &out[5 + j]));
    }
    return CUZK_OK;
}

cuzk_err cuzk_sha256_compress_gadget(cuzk_cs *cs, const cuzk_bool in[512], const cuzk_u32 state[8],
                                     cuzk_u32 out[8])
{
    cuzk_multieq m;
    cuzk_multieq_init(&m);
    cuzk_u32 r[8];
    cuzk_err e = compress(cs, &m, in, state, r);
    if (!e) /* the reference's MultiEq drop at the end of the compression */
        e = cuzk_multieq_flush(cs, &m);
    cuzk_multieq_free(&m);
    if (!e)
        memcpy(out, r, sizeof r);
    return e;
}

cuzk_err cuzk_sha256_gadget(cuzk_cs *cs, const cuzk_bool *bits, size_t n_bits, cuzk_bool out[256])
{
    if (n_bits % 8)
        return cuzk_fail(CUZK_EINVAL, "sha256 gadget: %zu input bits, not a whole number of bytes",
                         n_bits);
    size_t padded = (n_bits + 1 + 64 + 511) / 512 * 512;
    cuzk_u32 st[8];
    for (int i = 0; i < 8; i++)
        st[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
    cuzk_bool block[512];
    for (size_t off = 0; off < padded; off += 512) {
        for (size_t i = 0; i < 512; i++) {
            size_t p = off + i;
            if (p < n_bits)
                block[i] = bits[p];
            else if (p == n_bits)
                block[i] = cuzk_bool_const(1);
            else if (p < padded - 64)
                block[i] = cuzk_bool_const(0);
            else
                block[i] = cuzk_bool_const((int)(((uint64_t)n_bits >> (padded - 1 - p)) & 1));
        }
        CUZK_TRY(cuzk_sha256_compress_gadget(cs, block, st, st));
    }
    for (int i = 0; i < 8; i++)
        cuzk_u32_to_bits_be(&st[i], out + 32 * i);
    return CUZK_OK;
}

cuzk_err cuzk_sha256_fr_hash(const cuzk_fr *in, size_t n, cuzk_fr *out)
{
    if (n < 1 || n > 8)
        return cuzk_fail(CUZK_EINVAL, "sha256 field hash: %zu elements, need 1..8", n);
    uint8_t msg[32 * 8], d[32];
    for (size_t i = 0; i < n; i++)
        cuzk_fr_to_bytes_le(msg + 32 * i, &in[i]);
    cuzk_sha256(msg, 32 * n, d);
    d[31] &= 0x3f;
    return cuzk_fr_from_bytes_le(out, d); /* < 2^254 < r: cannot fail */
}

cuzk_err cuzk_sha256_fr_gadget(cuzk_cs *cs, const cuzk_num *in, size_t n, cuzk_num *out)
{
    if (n < 1 || n > 8)
        return cuzk_fail(CUZK_EINVAL, "sha256 field hash: %zu elements, need 1..8", n);
    cuzk_bool pre[8 * 256], le[255], digest[256], trimmed[254];
    for (size_t i = 0; i < n; i++) {
        CUZK_TRY(cuzk_num_to_bits_le(cs, &in[i], le));
        for (int bit = 0; bit < 256; bit++) {
            int src = (bit / 8) * 8 + (7 - bit % 8); /* reverse within the byte */
            pre[256 * i + bit] = src < 255 ? le[src] : cuzk_bool_const(0);
        }
    }
    CUZK_TRY(cuzk_sha256_gadget(cs, pre, 256 * n, digest));
    for (int bit = 0; bit < 254; bit++)
        trimmed[bit] = digest[(bit / 8) * 8 + (7 - bit % 8)];
    return cuzk_pack_bits(cs, trimmed, 254, out);
}
