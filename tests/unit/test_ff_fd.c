/* The 768-bit product with its partial products in doubles
 * (src/gpu/fp_fd.h, compiled here for the host, where fma() rounds as the
 * device's fused multiply-add does) against the schoolbook product in
 * 64-bit integers, and through blst: for a, b below p, the Montgomery
 * reduction of the product (written out here word by word) must equal
 * blst_fp_mul. Inputs: 0, 1, 2^384 - 1 (every digit and every column at
 * its largest), single bits, runs of ones, p - 1, and random values. */
#include "check.h"
#include "gpu/fp_fd.h"

#include <blst.h>

static uint64_t rng_state = 0x13198a2e03707344ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

static void school(uint32_t t[24], const uint32_t a[12], const uint32_t b[12])
{
    memset(t, 0, 24 * sizeof *t);
    for (int i = 0; i < 12; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 12; j++) {
            uint64_t s = (uint64_t)a[i] * b[j] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = s >> 32;
        }
        t[i + 12] = (uint32_t)c;
    }
}

static int check_pair(const uint32_t a[12], const uint32_t b[12])
{
    uint32_t got[24], want[24];
    fd_mul_wide(got, a, b);
    school(want, a, b);
    int ok = !memcmp(got, want, sizeof got);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "  product differs for a =");
        for (int i = 11; i >= 0; i--)
            fprintf(stderr, " %08x", a[i]);
        fprintf(stderr, ", b =");
        for (int i = 11; i >= 0; i--)
            fprintf(stderr, " %08x", b[i]);
        fprintf(stderr, "\n");
    }
    return ok;
}

/* Montgomery reduction t R^-1 mod p (R = 2^384), t < p R, word by word. */
static void redc(uint32_t r[12], const uint32_t t_in[24], const uint32_t p[12], uint32_t pinv)
{
    uint32_t t[25];
    memcpy(t, t_in, 24 * sizeof *t);
    t[24] = 0;
    for (int i = 0; i < 12; i++) {
        uint32_t m = t[i] * pinv;
        uint64_t c = 0;
        for (int j = 0; j < 12; j++) {
            uint64_t s = (uint64_t)m * p[j] + t[i + j] + c;
            t[i + j] = (uint32_t)s;
            c = s >> 32;
        }
        for (int k = i + 12; c && k < 25; k++) {
            uint64_t s = (uint64_t)t[k] + c;
            t[k] = (uint32_t)s;
            c = s >> 32;
        }
    }
    /* t[12..24] < 2p: subtract p once if needed */
    uint32_t d[12];
    int64_t bw = 0;
    for (int j = 0; j < 12; j++) {
        int64_t s = (int64_t)t[12 + j] - p[j] + bw;
        d[j] = (uint32_t)s;
        bw = s >> 32;
    }
    int ge = t[24] || bw == 0;
    memcpy(r, ge ? d : t + 12, 12 * sizeof *r);
}

int main(void)
{
    /* p from blst: the encoding of -1 plus one */
    blst_fp m1, one;
    uint32_t p[12], o[12] = {1};
    blst_fp_from_uint32(&one, o);
    blst_fp_cneg(&m1, &one, 1); /* p - 1 in Montgomery form... */
    uint32_t pm1[12];
    blst_uint32_from_fp(pm1, &m1); /* ... and as an integer: p - 1 */
    memcpy(p, pm1, sizeof p);
    p[0] += 1; /* p - 1 is even: no carry */
    CHECK(p[11] == 0x1a0111ea && p[0] == 0xffffaaab);
    uint32_t pinv = 1; /* -p^-1 mod 2^32 by Newton's iteration */
    for (int i = 0; i < 5; i++)
        pinv *= 2 - p[0] * pinv;
    pinv = 0u - pinv;
    CHECK((uint32_t)(p[0] * pinv) == 0xffffffffu);

    uint32_t z[12] = {0}, ones[12], a[12], b[12];
    memset(ones, 0xff, sizeof ones);
    check_pair(z, z);
    check_pair(o, o);
    check_pair(ones, ones);
    check_pair(ones, o);
    check_pair(pm1, pm1);
    check_pair(pm1, ones);
    for (int i = 0; i < 384; i++) { /* single bits and runs of ones */
        memset(a, 0, sizeof a);
        a[i / 32] = 1u << (i % 32);
        check_pair(a, ones);
        for (int j = 0; j < 12; j++)
            b[j] = j < i / 32 ? 0xffffffffu : j == i / 32 ? (1u << (i % 32)) - 1 : 0;
        check_pair(b, ones);
        check_pair(a, b);
    }
    int bad = 0;
    for (int r = 0; r < 20000 && bad < 5; r++) {
        for (int j = 0; j < 12; j++) {
            a[j] = rnd();
            b[j] = rnd();
        }
        if (r % 4 == 1) /* sparse digits */
            for (int j = 0; j < 12; j++)
                a[j] &= 0xff00ff00u;
        bad += !check_pair(a, b);
    }
    /* below p: the reduced product equals blst's Montgomery product */
    for (int r = 0; r < 5000 && bad < 5; r++) {
        for (int j = 0; j < 12; j++) {
            a[j] = rnd();
            b[j] = rnd();
        }
        a[11] &= 0x0fffffffu; /* below p */
        b[11] = r % 2 ? pm1[11] - 1 : b[11] & 0x0fffffffu;
        uint32_t t[24], got[12], want[12];
        fd_mul_wide(t, a, b);
        redc(got, t, p, pinv);
        blst_fp x, y; /* a blst_fp is its Montgomery form's limbs, little-endian */
        memcpy(&x, a, sizeof x);
        memcpy(&y, b, sizeof y);
        blst_fp_mul(&x, &x, &y); /* a b R^-1 mod p, fully reduced */
        memcpy(want, &x, sizeof want);
        int ok = !memcmp(got, want, sizeof want);
        CHECK(ok);
        bad += !ok;
    }
    return check_done("ff_fd");
}
