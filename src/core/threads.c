/* A small persistent thread pool.
 *
 * One job at a time: the caller publishes (fn, ctx, n, chunk) under the lock,
 * bumps a generation counter and joins the work itself. Chunks are claimed
 * with an atomic counter, so uneven chunks balance themselves. Workers sleep
 * on a condition variable between jobs. A thread-local flag makes nested calls
 * run inline instead of deadlocking on the single job slot. An urgent caller
 * that finds the slot taken runs its job on threads started for that call. */
#include "cuzk/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_wake = PTHREAD_COND_INITIALIZER;
static pthread_cond_t pool_done = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t pool_call_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t *workers;
static unsigned n_workers; /* threads besides the caller */
static unsigned n_threads; /* 0 = not yet decided */
static unsigned long generation;
static unsigned long spawn_generation; /* generation when the workers were started */
static int stopping;

static cuzk_range_fn job_fn;
static void *job_ctx;
static size_t job_n, job_chunk, job_nchunks;
static atomic_size_t job_next;
static unsigned job_active; /* workers still inside the current job */

static _Thread_local int in_pool_job;
static _Thread_local int urgent;

void cuzk_threads_urgent(int on)
{
    urgent = on != 0;
}

static unsigned default_threads(void)
{
    const char *env = getenv("CUZK_THREADS");
    if (env && atoi(env) > 0)
        return (unsigned)atoi(env);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

unsigned cuzk_threads_count(void)
{
    pthread_mutex_lock(&pool_lock);
    if (!n_threads)
        n_threads = default_threads();
    unsigned n = n_threads;
    pthread_mutex_unlock(&pool_lock);
    return n;
}

static void run_chunks(unsigned worker)
{
    for (;;) {
        size_t c = atomic_fetch_add(&job_next, 1);
        if (c >= job_nchunks)
            break;
        size_t b = c * job_chunk, e = b + job_chunk;
        if (e > job_n)
            e = job_n;
        job_fn(job_ctx, b, e, worker);
    }
}

static void *worker_main(void *arg)
{
    unsigned id = (unsigned)(size_t)arg;
    in_pool_job = 1;
    pthread_mutex_lock(&pool_lock);
    /* Jobs before this worker existed are not its own: starting from 0 made
     * a restarted pool's new worker run (and count itself out of) a job it
     * was never counted in, so the caller could return early or wait
     * forever. */
    unsigned long seen = spawn_generation;
    for (;;) {
        while (generation == seen && !stopping)
            pthread_cond_wait(&pool_wake, &pool_lock);
        if (stopping)
            break;
        seen = generation;
        pthread_mutex_unlock(&pool_lock);
        run_chunks(id);
        pthread_mutex_lock(&pool_lock);
        if (--job_active == 0)
            pthread_cond_signal(&pool_done);
    }
    pthread_mutex_unlock(&pool_lock);
    return NULL;
}

static void stop_workers(void)
{
    pthread_mutex_lock(&pool_lock);
    stopping = 1;
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_lock);
    for (unsigned i = 0; i < n_workers; i++)
        pthread_join(workers[i], NULL);
    free(workers);
    workers = NULL;
    n_workers = 0;
    stopping = 0;
}

static void start_workers(unsigned want)
{
    workers = calloc(want, sizeof *workers);
    if (!workers)
        return; /* degrade to serial */
    pthread_mutex_lock(&pool_lock);
    spawn_generation = generation;
    pthread_mutex_unlock(&pool_lock);
    for (unsigned i = 0; i < want; i++) {
        if (pthread_create(&workers[i], NULL, worker_main, (void *)(size_t)(i + 1)) != 0)
            break;
        n_workers++;
    }
}

void cuzk_threads_set(unsigned n)
{
    if (n < 1)
        n = 1;
    pthread_mutex_lock(&pool_call_lock);
    stop_workers();
    pthread_mutex_lock(&pool_lock);
    n_threads = n;
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&pool_call_lock);
}

void cuzk_threads_shutdown(void)
{
    pthread_mutex_lock(&pool_call_lock);
    stop_workers();
    pthread_mutex_unlock(&pool_call_lock);
}

/* A job run beside the pool's: its own chunk counter and threads. */
typedef struct {
    cuzk_range_fn fn;
    void *ctx;
    size_t n, chunk, nchunks;
    atomic_size_t next;
} side_job;

typedef struct {
    side_job *job;
    unsigned worker;
} side_arg;

static void side_chunks(side_job *s, unsigned worker)
{
    for (;;) {
        size_t c = atomic_fetch_add(&s->next, 1);
        if (c >= s->nchunks)
            break;
        size_t b = c * s->chunk, e = b + s->chunk;
        if (e > s->n)
            e = s->n;
        s->fn(s->ctx, b, e, worker);
    }
}

static void *side_main(void *arg)
{
    side_arg *a = arg;
    in_pool_job = 1;
    side_chunks(a->job, a->worker);
    return NULL;
}

/* Run fn over [0, n) on nt threads (the caller and nt - 1 started here);
 * threads that cannot be started leave their chunks to the others. */
static void run_beside(size_t n, size_t grain, unsigned nt, cuzk_range_fn fn, void *ctx)
{
    enum { MAX_SIDE = 256 };
    if (nt > MAX_SIDE)
        nt = MAX_SIDE;
    side_job s = {fn, ctx, n, 0, 0, 0};
    s.chunk = n / ((size_t)nt * 4);
    if (s.chunk < grain)
        s.chunk = grain;
    s.nchunks = (n + s.chunk - 1) / s.chunk;
    atomic_store(&s.next, 0);
    pthread_t tid[MAX_SIDE];
    side_arg args[MAX_SIDE];
    unsigned started = 0;
    for (unsigned i = 1; i < nt && i < s.nchunks; i++) {
        args[started] = (side_arg){&s, i};
        if (pthread_create(&tid[started], NULL, side_main, &args[started]) != 0)
            break;
        started++;
    }
    in_pool_job = 1;
    side_chunks(&s, 0);
    in_pool_job = 0;
    for (unsigned i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
}

void cuzk_parallel_for(size_t n, size_t grain, cuzk_range_fn fn, void *ctx)
{
    if (n == 0)
        return;
    if (grain == 0)
        grain = 1;
    unsigned nt = cuzk_threads_count();
    if (in_pool_job || nt == 1 || n <= grain) {
        fn(ctx, 0, n, 0);
        return;
    }
    if (urgent) {
        if (pthread_mutex_trylock(&pool_call_lock) != 0) {
            run_beside(n, grain, nt, fn, ctx);
            return;
        }
    } else {
        pthread_mutex_lock(&pool_call_lock);
    }
    if (n_workers + 1 != nt) {
        stop_workers();
        start_workers(nt - 1);
    }
    if (n_workers == 0) {
        pthread_mutex_unlock(&pool_call_lock);
        fn(ctx, 0, n, 0);
        return;
    }
    /* About 4 chunks per thread balances uneven work without much overhead. */
    size_t chunk = n / ((size_t)(n_workers + 1) * 4);
    if (chunk < grain)
        chunk = grain;
    pthread_mutex_lock(&pool_lock);
    job_fn = fn;
    job_ctx = ctx;
    job_n = n;
    job_chunk = chunk;
    job_nchunks = (n + chunk - 1) / chunk;
    atomic_store(&job_next, 0);
    job_active = n_workers;
    generation++;
    pthread_cond_broadcast(&pool_wake);
    pthread_mutex_unlock(&pool_lock);

    in_pool_job = 1;
    run_chunks(0);
    in_pool_job = 0;

    pthread_mutex_lock(&pool_lock);
    while (job_active)
        pthread_cond_wait(&pool_done, &pool_lock);
    pthread_mutex_unlock(&pool_lock);
    pthread_mutex_unlock(&pool_call_lock);
}

typedef struct {
    cuzk_index_pred bad;
    void *ctx;
    atomic_uint_fast64_t first;
} first_ctx;

static void first_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    first_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++) {
        if (i >= atomic_load_explicit(&c->first, memory_order_relaxed))
            return; /* an earlier failure is already known */
        if (c->bad(c->ctx, i)) {
            uint_fast64_t cur = atomic_load(&c->first);
            while (i < cur && !atomic_compare_exchange_weak(&c->first, &cur, i))
                ;
            return;
        }
    }
}

uint64_t cuzk_parallel_first(uint64_t n, size_t grain, cuzk_index_pred bad, void *ctx)
{
    first_ctx c = {bad, ctx, UINT64_MAX};
    cuzk_parallel_for((size_t)n, grain, first_range, &c);
    return (uint64_t)atomic_load(&c.first);
}
