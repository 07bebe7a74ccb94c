/* cuzk_alloc_huge: small requests (0 included) are plain blocks, large ones
 * are 2 MiB aligned; every byte of either is usable and free() takes them.
 * Whether the kernel backs a large block with huge pages depends on the
 * machine (transparent huge pages) and is not checked here. */
#include "check.h"
#include "cuzk/util.h"

#include <stdint.h>

static void fill_check(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i += 4093)
        p[i] = (unsigned char)(i * 31 + seed);
    p[n - 1] = (unsigned char)seed;
    int same = 1;
    for (size_t i = 0; i + 1 < n; i += 4093)
        same &= p[i] == (unsigned char)(i * 31 + seed);
    CHECK(same && p[n - 1] == (unsigned char)seed);
}

int main(void)
{
    const size_t huge = (size_t)2 << 20;
    size_t sizes[] = {0, 1, 4096, huge - 1, huge, huge + 3, 5 * huge + 12345};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        size_t n = sizes[k];
        unsigned char *p = cuzk_alloc_huge(n);
        CHECK(p != NULL);
        if (!p)
            continue;
        if (n >= huge)
            CHECK(((uintptr_t)p & (huge - 1)) == 0);
        fill_check(p, n ? n : 1, (unsigned)k + 1);
        free(p);
    }
    /* two live large blocks do not overlap */
    unsigned char *a = cuzk_alloc_huge(3 * huge), *b = cuzk_alloc_huge(3 * huge);
    CHECK(a && b && (a + 3 * huge <= b || b + 3 * huge <= a));
    if (a && b) {
        memset(a, 0xa5, 3 * huge);
        memset(b, 0x5a, 3 * huge);
        CHECK(a[0] == 0xa5 && a[3 * huge - 1] == 0xa5 && b[0] == 0x5a && b[3 * huge - 1] == 0x5a);
    }
    free(a);
    free(b);
    return check_done("core_alloc");
}
