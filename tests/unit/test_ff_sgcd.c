/* The GPU's Fp inversion by division steps (src/gpu/fp_sgcd.h, compiled
 * here for the host) against blst's inverse: 0, 1, p - 1, powers of two,
 * values just below p and below 2^k, and random values below p. The
 * modulus is BLS12-381's published p, checked against blst's -1 + 1. */
#include "check.h"
#include "gpu/fp_sgcd.h"

#include <blst.h>

static const char P_HEX[] = "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eab"
                            "fffeb153ffffb9feffffffffaaab";

static void from_hex(uint32_t w[12], const char *h)
{
    memset(w, 0, 12 * sizeof *w);
    size_t n = strlen(h);
    for (size_t i = 0; i < n; i++) {
        char c = h[n - 1 - i];
        uint32_t v = c <= '9' ? (uint32_t)(c - '0') : (uint32_t)(c - 'a' + 10);
        w[i / 8] |= v << (4 * (i % 8));
    }
}

static uint32_t P[12];

static int check_one(const uint32_t x[12])
{
    uint32_t got[12], want[12];
    sgcd_inverse(got, x, P);
    blst_fp a;
    blst_fp_from_uint32(&a, x);
    blst_fp_inverse(&a, &a); /* blst: 0 -> 0 */
    blst_uint32_from_fp(want, &a);
    int ok = !memcmp(got, want, sizeof got);
    CHECK(ok);
    if (!ok) {
        fprintf(stderr, "  inverse differs for x =");
        for (int i = 11; i >= 0; i--)
            fprintf(stderr, " %08x", x[i]);
        fprintf(stderr, "\n");
    }
    return ok;
}

static uint64_t rng_state = 0x243f6a8885a308d3ull;
static uint32_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state >> 16);
}

/* x = y - s for small s (y - s >= 0 assumed). */
static void sub_small(uint32_t x[12], const uint32_t y[12], uint32_t s)
{
    uint64_t b = s;
    for (int i = 0; i < 12; i++) {
        uint64_t d = (uint64_t)y[i] - b;
        x[i] = (uint32_t)d;
        b = (d >> 63) & 1;
    }
}

int main(void)
{
    from_hex(P, P_HEX);
    {
        /* blst's p - 1 is -1 */
        blst_fp one, m1;
        uint32_t w[12], pm1[12];
        uint32_t o[12] = {1};
        blst_fp_from_uint32(&one, o);
        blst_fp_cneg(&m1, &one, 1);
        blst_uint32_from_fp(w, &m1);
        sub_small(pm1, P, 1);
        CHECK(!memcmp(w, pm1, sizeof w));
    }
    uint32_t x[12];
    int fails = 0;
    /* 0 -> 0, 1, 2, 3, p - 1, p - 2, p - 3 */
    memset(x, 0, sizeof x);
    fails += !check_one(x);
    for (uint32_t s = 1; s <= 3; s++) {
        memset(x, 0, sizeof x);
        x[0] = s;
        fails += !check_one(x);
        sub_small(x, P, s);
        fails += !check_one(x);
    }
    /* powers of two and 2^k - 1 below p */
    for (int k = 0; k < 381; k++) {
        memset(x, 0, sizeof x);
        x[k / 32] = 1u << (k % 32);
        fails += !check_one(x);
        sub_small(x, x, 1);
        fails += !check_one(x);
    }
    /* random: below 2^380, below p with p's top word, and sparse */
    for (int it = 0; it < 20000 && fails < 10; it++) {
        for (int i = 0; i < 12; i++)
            x[i] = rnd();
        switch (it % 3) {
        case 0: x[11] &= 0x0fffffff; break;
        case 1: x[11] %= P[11]; break;
        default:
            for (int i = 0; i < 12; i++)
                x[i] &= rnd() & rnd() & rnd();
            x[11] &= 0x0fffffff;
        }
        fails += !check_one(x);
    }
    return check_done("test_ff_sgcd");
}
