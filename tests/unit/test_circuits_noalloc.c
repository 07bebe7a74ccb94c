/* Witness-only synthesis allocates nothing once warm: after one synthesis
 * of a shape, cuzk_cs_reset() and a second synthesis of the same shape (SHA-256
 * compression, Poseidon arity 8 and 11, a Merkle inclusion proof over a
 * Poseidon and a SHA-256 tree) make no malloc/calloc/realloc call.
 *
 * Counting works by interposing the allocator in this executable; under
 * AddressSanitizer (which owns the allocator) the count is not taken and
 * only the syntheses run. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

#include <stdatomic.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif
#if defined(__SANITIZE_ADDRESS__) || __has_feature(address_sanitizer)
#define COUNTING 0
static long allocations(void)
{
    return 0;
}
#else
#define COUNTING 1
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);
static atomic_long g_allocs;
void *malloc(size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n)
{
    atomic_fetch_add(&g_allocs, 1);
    return __libc_realloc(p, n);
}
static long allocations(void)
{
    return atomic_load(&g_allocs);
}
#endif

typedef cuzk_err (*synth_fn)(cuzk_cs *cs, const void *arg);

static cuzk_err sha_one(cuzk_cs *cs, const void *arg)
{
    (void)arg;
    cuzk_bool bits[512];
    cuzk_u32 iv[8], st[8];
    for (int i = 0; i < 512; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (i * 7) & 1, &bits[i]));
    for (int i = 0; i < 8; i++)
        iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
    return cuzk_sha256_compress_gadget(cs, bits, iv, st);
}

static cuzk_err poseidon_one(cuzk_cs *cs, const void *arg)
{
    const cuzk_poseidon *p = arg;
    cuzk_num in[11], out;
    for (unsigned i = 0; i < cuzk_poseidon_arity(p); i++) {
        cuzk_fr v;
        cuzk_fr_from_u64(&v, 1000 + i);
        CUZK_TRY(cuzk_num_alloc(cs, &v, &in[i]));
    }
    return cuzk_poseidon_gadget(cs, p, in, cuzk_poseidon_arity(p), &out);
}

typedef struct {
    cuzk_merkle_shape s;
    cuzk_fr leaf, root, sib[32];
    uint64_t index;
} por_arg;

static cuzk_err por_one(cuzk_cs *cs, const void *arg)
{
    const por_arg *a = arg;
    cuzk_root l = {0, {0, a->leaf}}, r = {0, {0, a->root}};
    return cuzk_por_gadget(cs, &a->s, &l, a->sib, a->index, &r, 0);
}

static void warm_then_count(const char *name, synth_fn fn, const void *arg)
{
    cuzk_cs *cs;
    long cold = allocations();
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    CHECK_OK(fn(cs, arg));
    /* the counter sees the cold run's allocations (the cs and its values) */
    CHECK(!COUNTING || allocations() > cold);
    CHECK_OK(cuzk_cs_finish(cs));
    uint64_t n1 = cuzk_cs_num_aux(cs);
    CHECK_OK(cuzk_cs_reset(cs));
    long before = allocations();
    CHECK_OK(fn(cs, arg));
    CHECK_OK(cuzk_cs_finish(cs));
    long made = allocations() - before;
    if (made)
        fprintf(stderr, "%s: %ld allocations in a warm witness synthesis\n", name, made);
    CHECK(made == 0);
    CHECK(cuzk_cs_num_aux(cs) == n1 && n1 > 0);
    cuzk_cs_free(cs);
}

int main(void)
{
    const cuzk_poseidon *p8, *p11;
    CHECK_OK(cuzk_poseidon_merkle(8, &p8));
    CHECK_OK(cuzk_poseidon_merkle(11, &p11));
    warm_then_count("sha256 compression", sha_one, NULL);
    warm_then_count("poseidon 8", poseidon_one, p8);
    warm_then_count("poseidon 11", poseidon_one, p11);
    for (int h = 0; h < 2; h++) {
        static por_arg a;
        a.s = (cuzk_merkle_shape){8, 2, 2, 0, CUZK_MERKLE_POSEIDON};
        if (h)
            a.s = (cuzk_merkle_shape){2, 3, 0, 0, CUZK_MERKLE_SHA256};
        a.index = 5;
        cuzk_fr_from_u64(&a.leaf, 42);
        for (int i = 0; i < 32; i++)
            cuzk_fr_from_u64(&a.sib[i], 7 + (uint64_t)i);
        CHECK_OK(cuzk_merkle_root_from_path(&a.s, &a.leaf, a.sib, a.index, &a.root));
        warm_then_count(h ? "por sha256" : "por poseidon", por_one, &a);
    }
    printf("allocation counting %s\n", COUNTING ? "on" : "off (sanitizer build)");
    return check_done("test_circuits_noalloc");
}
