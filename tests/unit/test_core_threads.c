/* The thread pool: every item of every parallel_for is done exactly once and
 * no chunk is still running when the call returns, also when the pool is
 * restarted with another thread count between calls (new workers must not
 * take part in, or count themselves out of, a job published before they
 * existed). parallel_first finds the lowest failing index at any count. An
 * urgent caller finds the pool held by a job that cannot finish yet and still
 * completes its own job, on threads of its own, every item once. */
#include "check.h"
#include "cuzk/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
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

/* A job whose chunks wait until `release` is set: it holds the pool. */
static atomic_int release, holding;

static void hold_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)vctx, (void)lo, (void)hi, (void)worker;
    atomic_store(&holding, 1);
    while (!atomic_load(&release))
        usleep(1000);
}

static void *hold_main(void *arg)
{
    (void)arg;
    cuzk_parallel_for(64, 1, hold_range, NULL);
    return NULL;
}

typedef struct {
    ctx_t c;
    size_t n;
    atomic_int done;
} urgent_t;

/* add_range, but a chunk first waits (up to 10 s) until a second thread
 * has entered the job: on threads, not inline, whatever the scheduler does. */
static atomic_uint seen_workers; /* bit per worker index */

static void add_range_together(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    atomic_fetch_or(&seen_workers, 1u << (worker & 31));
    for (int i = 0; i < 10000 && __builtin_popcount(atomic_load(&seen_workers)) < 2; i++)
        usleep(1000);
    add_range(vctx, lo, hi, worker);
}

static void *urgent_main(void *arg)
{
    urgent_t *u = arg;
    cuzk_threads_urgent(1);
    cuzk_parallel_for(u->n, 16, add_range_together, &u->c);
    cuzk_threads_urgent(0);
    atomic_store(&u->done, 1);
    return NULL;
}

static void case_urgent(void)
{
    cuzk_threads_set(4);
    atomic_store(&release, 0);
    atomic_store(&holding, 0);
    atomic_store(&seen_workers, 0);
    pthread_t h, u;
    CHECK(pthread_create(&h, NULL, hold_main, NULL) == 0);
    while (!atomic_load(&holding))
        usleep(1000);
    urgent_t ur;
    atomic_init(&ur.c.sum, 0);
    atomic_init(&ur.c.inside, 0);
    atomic_init(&ur.c.max_workers, 0);
    atomic_init(&ur.done, 0);
    ur.n = 100000;
    CHECK(pthread_create(&u, NULL, urgent_main, &ur) == 0);
    /* Up to 20 s for the urgent job while the pool stays held. */
    for (int i = 0; i < 20000 && !atomic_load(&ur.done); i++)
        usleep(1000);
    int finished = atomic_load(&ur.done);
    CHECK(finished); /* it did not wait for the held pool */
    atomic_store(&release, 1);
    pthread_join(h, NULL);
    pthread_join(u, NULL);
    CHECK(atomic_load(&ur.c.sum) == (unsigned long long)ur.n * (ur.n - 1) / 2);
    CHECK(atomic_load(&ur.c.inside) == 0);
    CHECK(atomic_load(&ur.c.max_workers) <= cuzk_threads_count());
    CHECK(__builtin_popcount(atomic_load(&seen_workers)) > 1); /* on threads, not inline */
    /* Not urgent any more: the pool serves it as before. */
    ctx_t c;
    atomic_init(&c.sum, 0);
    atomic_init(&c.inside, 0);
    atomic_init(&c.max_workers, 0);
    cuzk_parallel_for(5000, 16, add_range, &c);
    CHECK(atomic_load(&c.sum) == 5000ull * 4999 / 2);
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
    case_urgent();
    cuzk_threads_shutdown();
    return check_done("test_core_threads");
}
