/* PoRep public data (include/cuzk/porep.h): replica id, interactive and
 * synthetic challenges, the stacked graph's parents, a partition's public
 * inputs. SHA-256, BLAKE2b and ChaCha20 are libcrypto's (these are not
 * circuit hashes); the ChaCha8 keystream BucketGraph draws from is here, as
 * rand_chacha's ChaCha8Rng produces it. */
#include "cuzk/porep.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <string.h>

void cuzk_porep_id(uint64_t number, uint8_t out[32])
{
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++)
        out[i] = (uint8_t)(number >> (8 * i));
    /* bytes 8..15: the nonce, 0 for every registered proof */
}

void cuzk_porep_replica_id(const uint8_t prover_id[32], uint64_t sector_id,
                           const uint8_t ticket[32], const uint8_t comm_d[32],
                           const uint8_t porep_id[32], uint8_t out[32])
{
    uint8_t pre[32 + 8 + 32 + 32 + 32];
    memcpy(pre, prover_id, 32);
    for (int i = 0; i < 8; i++) /* big-endian, unlike every other integer here */
        pre[32 + i] = (uint8_t)(sector_id >> (8 * (7 - i)));
    memcpy(pre + 40, ticket, 32);
    memcpy(pre + 72, comm_d, 32);
    memcpy(pre + 104, porep_id, 32);
    SHA256(pre, sizeof pre, out);
    out[31] &= 0x3f; /* fr32's bytes_into_fr_repr_safe: below 2^254 < r */
}

/* A little-endian integer of len bytes mod (nodes - 1), plus 1: node 0 is
 * never challenged. nodes - 1 < 2^32 keeps r * 256 in 64 bits. */
static uint32_t le_to_challenge(const uint8_t *h, size_t len, uint64_t nodes)
{
    uint64_t m = nodes - 1, r = 0;
    for (size_t i = len; i-- > 0;)
        r = (r << 8 | h[i]) % m;
    return (uint32_t)(r + 1);
}

uint32_t cuzk_porep_challenge(const uint8_t replica_id[32], const uint8_t seed[32], uint32_t index,
                              uint64_t nodes)
{
    uint8_t pre[68], h[SHA256_DIGEST_LENGTH];
    memcpy(pre, replica_id, 32);
    memcpy(pre + 32, seed, 32);
    for (int i = 0; i < 4; i++)
        pre[64 + i] = (uint8_t)(index >> (8 * i));
    SHA256(pre, sizeof pre, h);
    return le_to_challenge(h, sizeof h, nodes);
}

/* ---- Synthetic PoRep's challenges (stacked/vanilla/challenges.rs) ----
 * A synthetic sector proves a fixed set of min(nodes, 2^18) synthetic
 * challenges, the keystream of ChaCha20 under a key of (replica_id, comm_r):
 * challenge i is 32 bytes at offset 32 i, a little-endian integer mod
 * (nodes - 1), plus 1. The interactive seed then selects which of them the
 * circuit checks: porep challenge j is the synthetic challenge whose index
 * is the u32 LE at offset 4 j of a second ChaCha20 keystream, under a key
 * of (replica_id, seed), mod the set's size. Both keys are 32-byte keyed
 * BLAKE2b digests, the key a domain tag; ChaCha20 is the IETF variant
 * (96-bit nonce "synth-porep\0", 32-bit block counter from 0). */

#define SYNTH_DEFAULT_COUNT ((uint64_t)1 << 18)

/* BLAKE2b-256 keyed by tag, of a || b: libcrypto's BLAKE2BMAC. */
static int blake2b_mac32(const char *tag, const uint8_t a[32], const uint8_t b[32], uint8_t out[32])
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
    size_t size = 32, len = 0;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size),
                           OSSL_PARAM_construct_end()};
    int ok = ctx && EVP_MAC_init(ctx, (const unsigned char *)tag, strlen(tag), params) == 1 &&
             EVP_MAC_update(ctx, a, 32) == 1 && EVP_MAC_update(ctx, b, 32) == 1 &&
             EVP_MAC_final(ctx, out, &len, 32) == 1 && len == 32;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

/* n bytes of the ChaCha20 keystream of key from byte offset off. */
static int chacha20_stream(const uint8_t key[32], uint64_t off, uint8_t *out, size_t n)
{
    static const uint8_t nonce[12] = "synth-porep";
    uint8_t iv[16], zero[64 + 32] = {0}, buf[64 + 32];
    uint64_t block = off / 64;
    size_t skip = (size_t)(off % 64), len = 0;
    if (n > 32 || block > UINT32_MAX)
        return 0;
    /* libcrypto's IV: the block counter (32-bit little-endian), then the nonce */
    for (int i = 0; i < 4; i++)
        iv[i] = (uint8_t)(block >> (8 * i));
    memcpy(iv + 4, nonce, sizeof nonce);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    int ok = ctx && EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) == 1 &&
             EVP_EncryptUpdate(ctx, buf, &outl, zero, (int)(skip + n)) == 1;
    len = (size_t)outl;
    EVP_CIPHER_CTX_free(ctx);
    if (ok && len == skip + n)
        memcpy(out, buf + skip, n);
    return ok && len == skip + n;
}

/* n bytes at offset off of the keystream keyed by tag over (a, b). */
static cuzk_err synth_stream(const char *tag, const uint8_t a[32], const uint8_t b[32],
                             uint64_t off, uint8_t *out, size_t n, const char *what, uint64_t idx)
{
    uint8_t key[32];
    if (!blake2b_mac32(tag, a, b, key) || !chacha20_stream(key, off, out, n))
        return cuzk_fail(CUZK_EINTERNAL,
                         "synthetic PoRep %s %llu: libcrypto's BLAKE2b MAC or ChaCha20 failed",
                         what, (unsigned long long)idx);
    return CUZK_OK;
}

cuzk_err cuzk_porep_synth_challenge(const uint8_t replica_id[32], const uint8_t comm_r[32],
                                    uint64_t nodes, uint64_t i, uint32_t *out)
{
    uint8_t r[32];
    if (nodes < 2 || nodes > ((uint64_t)1 << 32))
        return cuzk_fail(CUZK_EINVAL, "synthetic PoRep challenge of a %llu-node sector",
                         (unsigned long long)nodes);
    CUZK_TRY(synth_stream("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r, i * 32,
                          r, sizeof r, "challenge", i));
    *out = le_to_challenge(r, sizeof r, nodes);
    return CUZK_OK;
}

cuzk_err cuzk_porep_synth_index(const uint8_t replica_id[32], const uint8_t seed[32],
                                uint64_t num_synth, uint64_t j, uint64_t *out)
{
    uint8_t r[4];
    if (!num_synth)
        return cuzk_fail(CUZK_EINVAL, "synthetic PoRep: an empty synthetic challenge set");
    CUZK_TRY(synth_stream("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed, j * 4, r,
                          sizeof r, "challenge index", j));
    uint32_t v = (uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16 | (uint32_t)r[3] << 24;
    *out = v % num_synth;
    return CUZK_OK;
}

cuzk_err cuzk_porep_challenge_of(const cuzk_porep_config *c, const uint8_t replica_id[32],
                                 const uint8_t comm_r[32], const uint8_t seed[32], uint32_t index,
                                 uint32_t *out)
{
    uint64_t nodes = c->sector_size / 32;
    if (!c->synthetic) {
        *out = cuzk_porep_challenge(replica_id, seed, index, nodes);
        return CUZK_OK;
    }
    uint64_t count = nodes < SYNTH_DEFAULT_COUNT ? nodes : SYNTH_DEFAULT_COUNT, s;
    CUZK_TRY(cuzk_porep_synth_index(replica_id, seed, count, index, &s));
    return cuzk_porep_synth_challenge(replica_id, comm_r, nodes, s, out);
}

/* SHA-256(tag || porep_id): the graph's two seeds. */
static void domain_seed(const char *tag, const uint8_t porep_id[32], uint8_t out[32])
{
    uint8_t pre[64];
    size_t n = strlen(tag); /* the two tags are 16 and 17 bytes */
    memcpy(pre, tag, n);
    memcpy(pre + n, porep_id, 32);
    SHA256(pre, n + 32, out);
}

cuzk_err cuzk_porep_graph_init(cuzk_porep_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                               cuzk_fc_api api)
{
    if (nodes < 2 || nodes > (1ull << 31))
        return cuzk_fail(CUZK_EINVAL, "PoRep graph of %llu nodes (2 .. 2^31)",
                         (unsigned long long)nodes);
    if (api != CUZK_API_1_0_0 && api != CUZK_API_1_1_0 && api != CUZK_API_1_2_0)
        return cuzk_fail(CUZK_EINVAL, "PoRep graph: unknown API version %d", (int)api);
    memset(g, 0, sizeof *g);
    g->nodes = nodes;
    g->api = api;
    uint8_t s[32];
    domain_seed("Filecoin_DRSample", porep_id, s);
    memcpy(g->drg_seed, s, sizeof g->drg_seed);
    domain_seed("Filecoin_Feistel", porep_id, s);
    for (int k = 0; k < 4; k++) {
        g->feistel_keys[k] = 0;
        for (int i = 7; i >= 0; i--)
            g->feistel_keys[k] = g->feistel_keys[k] << 8 | s[8 * k + i];
    }
    /* The Feistel network works on the smallest even bit count (at least 2)
     * whose power of 4 reaches 8 * nodes: half of it per side. */
    uint64_t n = nodes * CUZK_POREP_EXP_DEGREE, pow4 = 4;
    unsigned log4 = 1;
    while (pow4 < n) {
        pow4 *= 4;
        log4++;
    }
    g->half_bits = log4;
    g->right_mask = (1ull << log4) - 1;
    g->left_mask = g->right_mask << log4;
    return CUZK_OK;
}

/* ---- BucketGraph: DRG parents drawn from ChaCha8 ---- */

#define ROTL32(x, n) ((x) << (n) | (x) >> (32 - (n)))
#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        a += b;                                                                                    \
        d ^= a;                                                                                    \
        d = ROTL32(d, 16);                                                                         \
        c += d;                                                                                    \
        b ^= c;                                                                                    \
        b = ROTL32(b, 12);                                                                         \
        a += b;                                                                                    \
        d ^= a;                                                                                    \
        d = ROTL32(d, 8);                                                                          \
        c += d;                                                                                    \
        b ^= c;                                                                                    \
        b = ROTL32(b, 7);                                                                          \
    } while (0)

/* Keystream block `counter` of ChaCha with 8 rounds, the 32-byte key and
 * stream 0: rand_chacha's ChaCha8Rng::from_seed(key) (64-bit block counter
 * in words 12-13, stream id in 14-15). */
static void chacha8_block(const uint8_t key[32], uint64_t counter, uint32_t out[16])
{
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++)
        in[4 + i] = (uint32_t)key[4 * i] | (uint32_t)key[4 * i + 1] << 8 |
                    (uint32_t)key[4 * i + 2] << 16 | (uint32_t)key[4 * i + 3] << 24;
    in[12] = (uint32_t)counter;
    in[13] = (uint32_t)(counter >> 32);
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (int r = 0; r < 8; r += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + in[i];
}

/* The RNG of one node: rand's gen::<u64>() takes two consecutive keystream
 * words, the first as the low half. 5 parents draw 10 u64 = 20 words, so
 * two blocks always suffice. */
typedef struct {
    uint32_t words[32];
    unsigned next;
} drg_rng;

static uint64_t drg_rng_u64(drg_rng *r)
{
    uint64_t v = (uint64_t)r->words[r->next] | (uint64_t)r->words[r->next + 1] << 32;
    r->next += 2;
    return v;
}

static void drg_parents(const cuzk_porep_graph *g, uint32_t node, uint32_t *p)
{
    if (node < 2) { /* node 0 has no parents, node 1 only node 0 */
        memset(p, 0, CUZK_POREP_DRG_DEGREE * sizeof *p);
        return;
    }
    uint8_t key[32];
    memcpy(key, g->drg_seed, 28);
    for (int i = 0; i < 4; i++)
        key[28 + i] = (uint8_t)(node >> (8 * i));
    drg_rng rng = {.next = 0};
    chacha8_block(key, 0, rng.words);
    chacha8_block(key, 1, rng.words + 16);

    const uint64_t m_prime = CUZK_POREP_DRG_DEGREE - 1;
    const uint64_t meta = (uint64_t)node * m_prime;
    /* ceil(log2(meta)) as rust-fil-proofs computes it in f64: meta < 2^35
     * is exact in f64, and log2 of a non-power of two sits at least
     * 2^-35 above the integer below (far more than its ulp), so the float
     * ceiling is the bit length of meta - 1. */
    uint64_t n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    /* API 1.0.0: the predecessor is the last parent; later: the first. */
    unsigned pred = g->api == CUZK_API_1_0_0 ? (unsigned)m_prime : 0;
    uint32_t *other = g->api == CUZK_API_1_0_0 ? p : p + 1;
    for (unsigned i = 0; i < m_prime; i++) {
        uint64_t bucket = drg_rng_u64(&rng) % n_buckets + 1;
        uint64_t largest = meta < (1ull << bucket) ? meta : 1ull << bucket;
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t distance = smallest + drg_rng_u64(&rng) % (largest - smallest + 1);
        uint32_t mapped = (uint32_t)((meta - distance) / m_prime);
        other[i] = mapped == node ? node - 1 : mapped;
    }
    p[pred] = node - 1;
}

/* ---- Expander parents: a Feistel permutation ---- */

/* libcrypto's BLAKE2b-512, fetched once. Initialising a context with the
 * built-in EVP_blake2b512() fetches it again on every digest under a
 * library-wide lock: 456 ns a digest on one thread, and no gain from a
 * second thread (927 ns each); fetched once, 211 ns and 221 ns. */
static EVP_MD *blake2b_md;
static pthread_once_t blake2b_once = PTHREAD_ONCE_INIT;

static void blake2b_fetch(void)
{
    blake2b_md = EVP_MD_fetch(NULL, "BLAKE2B-512", NULL);
}

/* Round function: BLAKE2b-512 of right and key as u64 big-endian, its first
 * 8 bytes big-endian, masked to a half. ctx is reused across rounds: a fresh
 * context per digest costs three times the digest itself. */
static int feistel_round(EVP_MD_CTX *ctx, uint64_t right, uint64_t key, uint64_t mask,
                         uint64_t *out)
{
    uint8_t in[16], h[EVP_MAX_MD_SIZE];
    for (int i = 0; i < 8; i++) {
        in[i] = (uint8_t)(right >> (56 - 8 * i));
        in[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    unsigned len = 0;
    if (EVP_DigestInit_ex2(ctx, blake2b_md, NULL) != 1 ||
        EVP_DigestUpdate(ctx, in, sizeof in) != 1 || EVP_DigestFinal_ex(ctx, h, &len) != 1 ||
        len < 8)
        return 0;
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    *out = v & mask;
    return 1;
}

static int feistel_encode(EVP_MD_CTX *ctx, const cuzk_porep_graph *g, uint64_t index, uint64_t *out)
{
    uint64_t left = (index & g->left_mask) >> g->half_bits, right = index & g->right_mask;
    for (int r = 0; r < 3; r++) {
        uint64_t f;
        if (!feistel_round(ctx, right, g->feistel_keys[r], g->right_mask, &f))
            return 0;
        uint64_t l = right;
        right = left ^ f;
        left = l;
    }
    *out = left << g->half_bits | right;
    return 1;
}

static cuzk_err exp_parents(const cuzk_porep_graph *g, uint32_t node, uint32_t *p)
{
    pthread_once(&blake2b_once, blake2b_fetch);
    if (!blake2b_md)
        return cuzk_fail(CUZK_EINTERNAL, "expander parents: libcrypto has no BLAKE2b-512");
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    if (!ctx)
        return cuzk_fail(CUZK_ENOMEM, "expander parents of node %u: no digest context", node);
    const uint64_t n = g->nodes * CUZK_POREP_EXP_DEGREE;
    int ok = 1;
    for (unsigned i = 0; ok && i < CUZK_POREP_EXP_DEGREE; i++) {
        /* cycle-walk: re-encode until the value falls inside [0, n) */
        uint64_t u;
        ok = feistel_encode(ctx, g, (uint64_t)node * CUZK_POREP_EXP_DEGREE + i, &u);
        while (ok && u >= n)
            ok = feistel_encode(ctx, g, u, &u);
        /* API 1.0.0 cut the index to 32 bits first: 64 GiB graphs then
         * never reach their upper half. */
        p[i] = g->api == CUZK_API_1_0_0 ? (uint32_t)u / CUZK_POREP_EXP_DEGREE
                                        : (uint32_t)(u / CUZK_POREP_EXP_DEGREE);
    }
    EVP_MD_CTX_free(ctx);
    if (!ok)
        return cuzk_fail(CUZK_EINTERNAL,
                         "expander parents of node %u: libcrypto's BLAKE2b-512 failed", node);
    return CUZK_OK;
}

cuzk_err cuzk_porep_parents(const cuzk_porep_graph *g, uint32_t node,
                            uint32_t out[CUZK_POREP_DEGREE])
{
    if (node >= g->nodes)
        return cuzk_fail(CUZK_EINVAL, "node %u of a %llu-node PoRep graph", node,
                         (unsigned long long)g->nodes);
    drg_parents(g, node, out);
    return exp_parents(g, node, out + CUZK_POREP_DRG_DEGREE);
}

/* ---- Configuration and public inputs ---- */

cuzk_err cuzk_porep_config_of(const cuzk_fc_proof *p, cuzk_porep_config *out)
{
    if (p->family != CUZK_FC_SEAL)
        return cuzk_fail(CUZK_EINVAL, "%s is not a seal proof", p->name);
    int synthetic = !strcmp(p->feature, "synthetic-porep");
    if (p->feature[0] && !synthetic)
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "%s: %s (its challenges and its aggregated proofs) is not implemented",
                         p->name, p->feature);
    memset(out, 0, sizeof *out);
    out->synthetic = synthetic;
    out->sector_size = p->sector_size;
    out->partitions = p->partitions;
    out->challenges = p->challenges;
    out->api = p->api;
    cuzk_porep_id(p->number, out->porep_id);
    return CUZK_OK;
}

size_t cuzk_porep_public_input_count(const cuzk_porep_config *c)
{
    return 3 + (size_t)c->challenges * CUZK_POREP_INPUTS_PER_CHALLENGE;
}

cuzk_err cuzk_porep_public_inputs(const cuzk_porep_config *c, const cuzk_porep_public *pub,
                                  unsigned k, cuzk_fr *out)
{
    uint64_t ss = c->sector_size;
    if (ss < 64 || ss > (64ull << 30) || (ss & (ss - 1)))
        return cuzk_fail(CUZK_EINVAL, "PoRep sector size %llu (a power of two, 64 .. 64 GiB)",
                         (unsigned long long)ss);
    if (k >= c->partitions)
        return cuzk_fail(CUZK_EINVAL, "PoRep partition %u of %u", k, c->partitions);
    /* k is a u8 in the challenge derivation: more partitions would wrap */
    if (c->partitions > 256 || (uint64_t)c->challenges * c->partitions > UINT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "PoRep with %u partitions of %u challenges", c->partitions,
                         c->challenges);
    size_t o = 0;
    uint8_t rid[32];
    cuzk_porep_replica_id(pub->prover_id, pub->sector_id, pub->ticket, pub->comm_d, c->porep_id,
                          rid);
    CUZK_TRY(cuzk_fr_from_bytes_le(&out[o++], rid));
    if (cuzk_fr_from_bytes_le(&out[o++], pub->comm_d) != CUZK_OK)
        return cuzk_fail(CUZK_EINVAL, "comm_d is not a canonical field element (byte 31 is 0x%02x)",
                         pub->comm_d[31]);
    if (cuzk_fr_from_bytes_le(&out[o++], pub->comm_r) != CUZK_OK)
        return cuzk_fail(CUZK_EINVAL, "comm_r is not a canonical field element (byte 31 is 0x%02x)",
                         pub->comm_r[31]);
    cuzk_porep_graph g;
    CUZK_TRY(cuzk_porep_graph_init(&g, ss / 32, c->porep_id, c->api));
    for (unsigned i = 0; i < c->challenges; i++) {
        uint32_t ch, par[CUZK_POREP_DEGREE];
        CUZK_TRY(
            cuzk_porep_challenge_of(c, rid, pub->comm_r, pub->seed, c->challenges * k + i, &ch));
        CUZK_TRY(cuzk_porep_parents(&g, ch, par));
        cuzk_fr_from_u64(&out[o++], ch); /* comm_d leaf */
        for (unsigned j = 0; j < CUZK_POREP_DEGREE; j++)
            cuzk_fr_from_u64(&out[o++], par[j]); /* comm_c leaves of the parents */
        cuzk_fr_from_u64(&out[o++], ch);         /* the challenge itself */
        cuzk_fr_from_u64(&out[o++], ch);         /* comm_r_last leaf */
        cuzk_fr_from_u64(&out[o++], ch);         /* comm_c leaf */
    }
    return CUZK_OK;
}
