/* Which resident base set gives way on a full device (src/gpu/shed.h), the
 * policy without a GPU. The oracle is the situation measured on an H100
 * 80GB proving 10-partition 2^27 jobs (log lines `bases_given_back`): a
 * circuit's five sets, used in the order H, L, A, B_G1, B_G2 every proof,
 * of 12,288, 11,9xx, 11,9xx, 3,725 and 7,450 MiB; at the next proof's H the
 * expanded witness (3,973 MiB) did not fit and B_G2 gave way, and was
 * uploaded again before its MSM. The default order gives back the set
 * needed last (B_G2); with `cover`, B_G1 when it alone covers what is
 * missing. Other circuits' sets go first, least recently used first; sets
 * that may not give way never do. */
#include "check.h"
#include "gpu/shed.h"

#define MIB ((size_t)1 << 20)

enum { H, L, A, B_G1, B_G2, N };

/* The five sets of the circuit as the next proof begins: each last used in
 * the previous proof, in MSM order (clock 11..15), none this proof yet. */
static void porep_sets(gpu_shed_cand c[N])
{
    const size_t mib[N] = {12288, 11917, 11878, 3725, 7450};
    for (int i = 0; i < N; i++) {
        c[i].bytes = mib[i] * MIB;
        c[i].last_use = 11 + (uint64_t)i;
        c[i].cls = 0;
    }
}

int main(void)
{
    gpu_shed_cand c[N + 2];
    porep_sets(c);
    /* the set needed last goes, whatever is missing */
    CHECK(gpu_shed_pick(c, N, 3973 * MIB, 0) == B_G2);
    CHECK(gpu_shed_pick(c, N, 0, 0) == B_G2);
    /* cover: B_G1 when it alone makes up for what is missing */
    CHECK(gpu_shed_pick(c, N, 3000 * MIB, 1) == B_G1);
    CHECK(gpu_shed_pick(c, N, 3725 * MIB, 1) == B_G1);
    CHECK(gpu_shed_pick(c, N, 3726 * MIB, 1) == B_G2);
    CHECK(gpu_shed_pick(c, N, 0, 1) == B_G2); /* not known: the order decides */
    /* never a set needed sooner than the two needed last, however small */
    c[A].bytes = 100 * MIB;
    CHECK(gpu_shed_pick(c, N, 50 * MIB, 1) == B_G1);
    porep_sets(c);
    /* B_G2 in use (its MSM runs): B_G1 is needed last among the rest */
    c[B_G2].cls = -1;
    CHECK(gpu_shed_pick(c, N, 3973 * MIB, 0) == B_G1);
    CHECK(gpu_shed_pick(c, N, 3000 * MIB, 1) == B_G1); /* A is larger */
    /* the smaller of the two only when it is the smaller */
    porep_sets(c);
    c[B_G1].bytes = 9000 * MIB;
    CHECK(gpu_shed_pick(c, N, 3000 * MIB, 1) == B_G2);
    /* during the proof: sets it used already (class 1) go before those it
     * has yet to use, the most recently used of them first */
    porep_sets(c);
    c[H].cls = c[L].cls = 1;
    c[H].last_use = 16;
    c[L].last_use = 17;
    CHECK(gpu_shed_pick(c, N, 3973 * MIB, 0) == L);
    CHECK(gpu_shed_pick(c, N, 3973 * MIB, 1) == L); /* H is the larger */
    CHECK(gpu_shed_pick(c, N, 11000 * MIB, 1) == L);
    /* cover stays within one class: with L the only set of class 1, B_G2
     * (class 0, smaller) does not replace it */
    c[H].cls = 0;
    c[H].last_use = 11;
    c[L].bytes = 20000 * MIB;
    CHECK(gpu_shed_pick(c, N, 3000 * MIB, 1) == L);
    /* another circuit's sets first (class 2), least recently used first */
    porep_sets(c);
    c[N] = (gpu_shed_cand){500 * MIB, 3, 2};
    c[N + 1] = (gpu_shed_cand){400 * MIB, 2, 2};
    CHECK(gpu_shed_pick(c, N + 2, 3973 * MIB, 0) == N + 1);
    CHECK(gpu_shed_pick(c, N + 2, 450 * MIB, 1) == N + 1);
    CHECK(gpu_shed_pick(c, N + 2, 300 * MIB, 1) == N + 1); /* the LRU is also the smaller */
    c[N + 1].bytes = 600 * MIB;
    CHECK(gpu_shed_pick(c, N + 2, 450 * MIB, 1) == N);
    CHECK(gpu_shed_pick(c, N + 2, 550 * MIB, 1) == N + 1);
    /* nothing may give way */
    for (int i = 0; i < N + 2; i++)
        c[i].cls = -1;
    CHECK(gpu_shed_pick(c, N + 2, 1, 0) == -1);
    CHECK(gpu_shed_pick(c, N + 2, 1, 1) == -1);
    CHECK(gpu_shed_pick(c, 0, 1, 1) == -1);
    /* one candidate: it goes, covering or not */
    c[B_G1].cls = 0;
    CHECK(gpu_shed_pick(c, N + 2, (size_t)1 << 40, 1) == B_G1);
    return check_done("test_msm_shed");
}
