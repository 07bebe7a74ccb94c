/* The thread pool: every item of every parallel_for is done exactly once and
 * no chunk is still running when the call returns, also when the pool is
 * restarted with another thread count between calls (new workers must not
 * take part in, or count themselves out of, a job published before they
 * existed). parallel_first finds the lowest failing index at any count. */
#include "check.h"
#include "cuzk/threads.h"

#include <stdatomic.h>
#include <unistd.h>

typedef struct {
    atomic_ullong sum;
    atomic_uint inside; /* chunks running now */
    atomic_uint max_workers;
} ctx_t;

static void add_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    ctx_t *c = vctx;
    atomic_fetch_add(&c->inside, 1);
    unsigned long long s = 0;
    for (size_t i = lo; i < hi; i++)
        s += i;
    atomic_fetch_add(&c->sum, s);
    unsigned m = atomic_load(&c->max_workers);
    while (worker + 1 > m && !atomic_compare_exchange_weak(&c->max_workers, &m, worker + 1))
        ;
    atomic_fetch_sub(&c->inside, 1);
}

static int bad_from(void *vctx, uint64_t i)
{
    return i >= *(const uint64_t *)vctx;
}

int main(void)
{
    alarm(300); /* a lost wake-up deadlocks the pool: fail instead of hanging */
    int wrong = 0, late = 0;
    /* Restarts by the thousand: the race needs a new worker to start just
     * as the first job after the restart is published. */
    for (unsigned it = 0; it < 20000; it++) {
        cuzk_threads_set(1 + it % 4);
        for (int rep = 0; rep < 3; rep++) {
            ctx_t c;
            atomic_init(&c.sum, 0);
            atomic_init(&c.inside, 0);
            atomic_init(&c.max_workers, 0);
            size_t n = 5000 + it;
            cuzk_parallel_for(n, 16, add_range, &c);
            late += atomic_load(&c.inside) != 0;
            wrong += atomic_load(&c.sum) != (unsigned long long)n * (n - 1) / 2;
            wrong += atomic_load(&c.max_workers) > cuzk_threads_count();
        }
    }
    CHECK(wrong == 0);
    CHECK(late == 0);
    for (unsigned t = 1; t <= 4; t++) {
        cuzk_threads_set(t);
        uint64_t from = 777;
        CHECK(cuzk_parallel_first(10000, 8, bad_from, &from) == 777);
        from = 20000;
        CHECK(cuzk_parallel_first(10000, 8, bad_from, &from) == UINT64_MAX);
    }
    cuzk_threads_shutdown();
    return check_done("test_core_threads");
}
