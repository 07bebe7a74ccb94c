/* Which resident base set gives way when a proof's buffer does not fit the
 * device (msm.cu gpu_resident_shed): the policy alone, over plain numbers,
 * so that it is tested without a GPU (tests/unit/test_msm_shed.c). Plain
 * C, included by msm.cu and by that test.
 *
 * Each set is in a class: 2, another circuit's (no proof used it since the
 * previous proof began); 1, this proof used it already (next needed in the
 * next proof); 0, this proof has not used it yet; -1, it may not give way
 * (pinned, in use, being uploaded). The order: the highest class first; in
 * class 2 the least recently used first; in 1 and 0 the most recently used
 * first, which is the set needed last, since a circuit's MSMs use its sets
 * in the same order every proof.
 *
 * With `cover`, of the first two sets in that order (the two needed last,
 * of one class) the smaller goes when it alone covers the shortfall: on an
 * 80 GB GPU proving 2^27 partitions the expanded witness (3,973 MiB) took
 * the place of B_G2 (7,450 MiB) every partition, re-uploaded right before
 * its MSM (0.215 s a partition), while B_G1 (3,725 MiB) might have done,
 * and a set that small can go up again ahead of its MSM. */
#ifndef CUZK_GPU_SHED_H
#define CUZK_GPU_SHED_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t bytes;
    uint64_t last_use; /* the use clock at its last use */
    int cls;           /* 2, 1, 0, or -1 (stays) */
} gpu_shed_cand;

/* Whether x gives way before y. */
static inline int gpu_shed_before(const gpu_shed_cand *x, const gpu_shed_cand *y)
{
    if (x->cls != y->cls)
        return x->cls > y->cls;
    return x->cls == 2 ? x->last_use < y->last_use : x->last_use > y->last_use;
}

/* The index of the set that gives way, or -1 when none may. shortfall:
 * the bytes the allocation lacks (0: not known, the order alone decides). */
static inline int gpu_shed_pick(const gpu_shed_cand *c, int n, size_t shortfall, int cover)
{
    int first = -1, second = -1;
    for (int i = 0; i < n; i++) {
        if (c[i].cls < 0)
            continue;
        if (first < 0 || gpu_shed_before(&c[i], &c[first])) {
            second = first;
            first = i;
        } else if (second < 0 || gpu_shed_before(&c[i], &c[second])) {
            second = i;
        }
    }
    if (cover && shortfall && second >= 0 && c[second].cls == c[first].cls &&
        c[second].bytes < c[first].bytes && c[second].bytes >= shortfall)
        return second;
    return first;
}

#endif
