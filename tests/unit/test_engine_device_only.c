/* srs.device_only on a GPU too small for it. The oracle is what was
 * measured: a 32 GiB PoRep's parameters (2^27 domain; 2^27 - 1 H points,
 * 130,169,893 L, 129,753,620 A, 33,112,282 B points in G1 and G2, cuzk's
 * density counts) kept for good on an 80 GB GPU (81,559 MiB) left every
 * partition failing for want of memory, while on a 141 GB one (143,771 MiB)
 * the engine proved with them at 13.6 s a proof. WinningPoSt 32 GiB (a 2^19
 * domain) fits any such GPU. The engine keeps the host copy where the rule
 * says no, so that the proofs run instead of failing. */
#include "check.h"
#include "cuzk/groth16.h"
#include "engine/engine.h"

#include <string.h>

static cuzk_params counts(size_t h, size_t l, size_t a, size_t b)
{
    cuzk_params p;
    memset(&p, 0, sizeof p);
    p.n_h = h;
    p.n_l = l;
    p.n_a = a;
    p.n_b_g1 = b;
    p.n_b_g2 = b;
    return p;
}

int main(void)
{
    const uint64_t mib = 1 << 20;
    cuzk_params porep = counts(((size_t)1 << 27) - 1, 130169893, 129753620, 33112282);
    uint64_t need = 0;
    CHECK(!engine_device_only_fits(&porep, 27, 81559 * mib, &need));
    /* the bases (96 bytes a G1 point, 192 a G2 one) plus ten 2^27 vectors */
    uint64_t g1 = ((uint64_t)1 << 27) - 1 + 130169893ull + 129753620ull + 33112282ull;
    uint64_t want = g1 * 96 + 33112282ull * 192 + 10ull * 32 * ((uint64_t)1 << 27);
    CHECK(need == want);
    printf("32 GiB PoRep: %.1f GiB needed for srs.device_only\n", (double)need / (1 << 30));
    CHECK(engine_device_only_fits(&porep, 27, 143771 * mib, &need));
    CHECK(engine_device_only_fits(&porep, 27, want, NULL));
    CHECK(!engine_device_only_fits(&porep, 27, want - 1, NULL));
    /* WinningPoSt 32 GiB: 370,723 constraints on a 2^19 domain */
    cuzk_params winning = counts(((size_t)1 << 19) - 1, 370000, 370000, 120000);
    CHECK(engine_device_only_fits(&winning, 19, 81559 * mib, &need));
    CHECK(need < 1ull << 30);
    return check_done("test_engine_device_only");
}
