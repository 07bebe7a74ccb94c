/* The SRS manager (include/cuzk/srs.h).
 *
 * One mutex guards a linked list of entries (a daemon serves a handful of
 * circuits, so lists beat hash tables here) and one condition variable wakes
 * whoever waits for a load to end. Loads run outside the lock: the entry is
 * marked `loading` and its expected size is reserved against the budget
 * first, so two loads can never jointly overshoot it, and a second acquirer
 * of the same id waits for the first load instead of starting its own.
 *
 * A load maps the .params file and reads every page once, in chunks, logging
 * progress (bytes, rate, ETA) at most every two seconds: for a 44 GiB SRS on
 * a cold page cache this is the long part and the part an operator wants to
 * watch. Parsing then runs from the mapping on the thread pool, and the
 * mapping is closed (a HOT circuit is resident once, as its parsed copy).
 * Demotion from HOT to WARM frees the parsed copy and maps the file again,
 * whose pages the kernel likely still caches (and may reclaim under
 * pressure), so a reload skips the disk. */
#include "cuzk/srs.h"
#include "cuzk/log.h"
#include "cuzk/util.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PATH_MAX_LEN 4096
#define READ_CHUNK ((size_t)8 << 20)
#define PROGRESS_EVERY_S 2.0

typedef struct srs_entry {
    struct srs_entry *next;
    char id[CUZK_SRS_ID_MAX + 1];
    char *params_path, *vk_path, *pce_path; /* NULL: resolve in the folder */
    cuzk_srs_tier tier;
    int loading;
    uint64_t size_bytes; /* HOT: actual; loading: the reservation */
    uint32_t refs;
    double last_used;
    cuzk_mapfile map; /* WARM and HOT */
    cuzk_params params;
    cuzk_vk vk;
    int have_vk;
    cuzk_pce *pce;
    int in_memory;     /* adopted from memory (cuzk_srs_adopt): HOT for good */
    int host_released; /* its query arrays live on devices only: HOT for good */
    cuzk_srs_circuit view;
} srs_entry;

struct cuzk_srs_manager {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    char *dir;
    srs_entry *entries;
    cuzk_srs_totals t;
};

cuzk_err cuzk_srs_check_id(const char *id)
{
    size_t n = id ? strlen(id) : 0;
    if (n == 0 || n > CUZK_SRS_ID_MAX)
        return cuzk_fail(CUZK_EINVAL, "circuit id must be 1..%d characters (got %zu)",
                         CUZK_SRS_ID_MAX, n);
    if (id[0] == '.')
        return cuzk_fail(CUZK_EINVAL, "circuit id \"%s\" must not start with '.'", id);
    for (size_t i = 0; i < n; i++) {
        char c = id[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '.' || c == '_' || c == '-'))
            return cuzk_fail(CUZK_EINVAL,
                             "circuit id \"%.*s\" has a character outside [A-Za-z0-9._-] at %zu",
                             (int)n, id, i);
    }
    return CUZK_OK;
}

cuzk_err cuzk_srs_manager_new(const char *param_dir, uint64_t budget_bytes, cuzk_srs_manager **out)
{
    *out = NULL;
    cuzk_srs_manager *m = calloc(1, sizeof *m);
    if (!m || !(m->dir = strdup(param_dir ? param_dir : "."))) {
        free(m);
        return cuzk_fail(CUZK_ENOMEM, "srs: out of memory");
    }
    pthread_mutex_init(&m->lock, NULL);
    pthread_cond_init(&m->changed, NULL);
    m->t.budget_bytes = budget_bytes;
    *out = m;
    return CUZK_OK;
}

static void drop_hot(srs_entry *e)
{
    cuzk_params_free(&e->params);
    if (e->have_vk)
        cuzk_vk_free(&e->vk);
    e->have_vk = 0;
    cuzk_pce_free(e->pce);
    e->pce = NULL;
}

static void free_entry(srs_entry *e)
{
    drop_hot(e);
    cuzk_mapfile_close(&e->map);
    free(e->params_path);
    free(e->vk_path);
    free(e->pce_path);
    free(e);
}

void cuzk_srs_manager_free(cuzk_srs_manager *m)
{
    if (!m)
        return;
    for (srs_entry *e = m->entries, *nx; e; e = nx) {
        nx = e->next;
        free_entry(e);
    }
    pthread_mutex_destroy(&m->lock);
    pthread_cond_destroy(&m->changed);
    free(m->dir);
    free(m);
}

static srs_entry *find(cuzk_srs_manager *m, const char *id)
{
    for (srs_entry *e = m->entries; e; e = e->next)
        if (!strcmp(e->id, id))
            return e;
    return NULL;
}

/* Find or create (COLD) the entry of a valid id; called with the lock held. */
static cuzk_err find_or_add(cuzk_srs_manager *m, const char *id, srs_entry **out)
{
    CUZK_TRY(cuzk_srs_check_id(id));
    srs_entry *e = find(m, id);
    if (!e) {
        if (!(e = calloc(1, sizeof *e)))
            return cuzk_fail(CUZK_ENOMEM, "srs: out of memory");
        snprintf(e->id, sizeof e->id, "%s", id);
        e->tier = CUZK_SRS_COLD;
        e->next = m->entries;
        m->entries = e;
    }
    *out = e;
    return CUZK_OK;
}

/* An entry a failed load created for an id nobody registered (a preload or
 * a job naming a circuit that does not exist) leaves no trace in status:
 * it goes again. Lock held. */
static void entry_path(const cuzk_srs_manager *m, const srs_entry *e, const char *registered,
                       const char *ext, char out[PATH_MAX_LEN]);

static void forget_if_unknown(cuzk_srs_manager *m, srs_entry *e)
{
    char pp[PATH_MAX_LEN];
    entry_path(m, e, NULL, ".params", pp);
    if (e->tier != CUZK_SRS_COLD || e->loading || e->refs || e->in_memory || e->params_path ||
        e->pce_path || access(pp, F_OK) == 0)
        return;
    for (srs_entry **link = &m->entries; *link; link = &(*link)->next)
        if (*link == e) {
            *link = e->next;
            free_entry(e);
            return;
        }
}

/* The path of one of the entry's files: registered, or <dir>/<id><ext>. */
static void entry_path(const cuzk_srs_manager *m, const srs_entry *e, const char *registered,
                       const char *ext, char out[PATH_MAX_LEN])
{
    if (registered)
        snprintf(out, PATH_MAX_LEN, "%s", registered);
    else
        snprintf(out, PATH_MAX_LEN, "%s/%s%s", m->dir, e->id, ext);
}

static int file_size(const char *path, uint64_t *size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    *size = (uint64_t)st.st_size;
    return 0;
}

cuzk_err cuzk_srs_register(cuzk_srs_manager *m, const char *id, const char *params_path,
                           const char *vk_path, const char *pce_path)
{
    if (!params_path || !pce_path)
        return cuzk_fail(CUZK_EINVAL, "circuit %s: params and pce paths are required",
                         id ? id : "(null)");
    pthread_mutex_lock(&m->lock);
    srs_entry *e;
    cuzk_err rc = find_or_add(m, id, &e);
    if (!rc && (e->tier != CUZK_SRS_COLD || e->loading))
        rc = cuzk_fail(CUZK_EINVAL, "circuit %s is loaded: evict it before registering it again",
                       id);
    if (!rc) {
        char *p = strdup(params_path), *v = vk_path ? strdup(vk_path) : NULL, *c = strdup(pce_path);
        if (!p || !c || (vk_path && !v)) {
            free(p);
            free(v);
            free(c);
            rc = cuzk_fail(CUZK_ENOMEM, "srs: out of memory");
        } else {
            free(e->params_path);
            free(e->vk_path);
            free(e->pce_path);
            e->params_path = p, e->vk_path = v, e->pce_path = c;
        }
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

int cuzk_srs_known(cuzk_srs_manager *m, const char *id)
{
    if (cuzk_srs_check_id(id))
        return 0;
    char pp[PATH_MAX_LEN], cp[PATH_MAX_LEN];
    uint64_t sz;
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, id);
    /* Resident (adopted, loaded, or kept on the devices only): known even
     * when its files have gone since. */
    if (e && (e->in_memory || e->host_released || (e->tier == CUZK_SRS_HOT && !e->loading))) {
        pthread_mutex_unlock(&m->lock);
        return 1;
    }
    srs_entry tmp;
    if (!e) {
        memset(&tmp, 0, sizeof tmp);
        snprintf(tmp.id, sizeof tmp.id, "%s", id);
        e = &tmp;
    }
    entry_path(m, e, e->params_path, ".params", pp);
    entry_path(m, e, e->pce_path, ".pce", cp);
    pthread_mutex_unlock(&m->lock);
    return file_size(pp, &sz) == 0 && file_size(cp, &sz) == 0;
}

static uint64_t hot_bytes(const srs_entry *e)
{
    const cuzk_params *p = &e->params;
    uint64_t g1 = p->vk.n_ic + p->n_h + p->n_l + p->n_a + p->n_b_g1;
    return g1 * sizeof(blst_p1_affine) + p->n_b_g2 * sizeof(blst_p2_affine) +
           (e->pce ? e->pce->image_size_ : 0);
}

/* Demote unreferenced HOT entries, least recently used first, until `need`
 * more bytes fit the budget. Lock held. Returns 0 when they fit. */
static int make_room(cuzk_srs_manager *m, uint64_t need)
{
    if (!m->t.budget_bytes)
        return 0;
    while (m->t.used_bytes + need > m->t.budget_bytes) {
        srs_entry *lru = NULL;
        for (srs_entry *e = m->entries; e; e = e->next)
            if (e->tier == CUZK_SRS_HOT && !e->loading && e->refs == 0 && !e->in_memory &&
                !e->host_released && (!lru || e->last_used < lru->last_used))
                lru = e;
        if (!lru)
            return -1;
        CUZK_INFO("srs evict circuit=%s bytes=%llu reason=budget tier=warm", lru->id,
                  (unsigned long long)lru->size_bytes);
        drop_hot(lru);
        m->t.used_bytes -= lru->size_bytes;
        m->t.evictions++;
        /* WARM: mapped again (cheap: the pages read by the load are likely
         * still cached), so a reload parses without waiting for the disk. */
        char pp[PATH_MAX_LEN];
        entry_path(m, lru, lru->params_path, ".params", pp);
        lru->tier = cuzk_mapfile_open(&lru->map, pp) == CUZK_OK ? CUZK_SRS_WARM : CUZK_SRS_COLD;
    }
    return 0;
}

/* A heartbeat in the log while the parser runs (it has no progress of its
 * own, and a 44 GiB SRS takes minutes): elapsed time and the ETA from the
 * parse rate observed on the previous load, if any. */
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t done_cv;
    int done;
    const char *id;
    double t0, eta_total;
} parse_ticker;

static void *ticker_main(void *arg)
{
    parse_ticker *tk = arg;
    pthread_mutex_lock(&tk->lock);
    while (!tk->done) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += (time_t)PROGRESS_EVERY_S;
        if (pthread_cond_timedwait(&tk->done_cv, &tk->lock, &ts) == 0 || tk->done)
            break;
        double el = cuzk_now() - tk->t0;
        if (tk->eta_total > 0)
            CUZK_INFO("srs parsing circuit=%s elapsed_s=%.0f eta_s=%.0f", tk->id, el,
                      tk->eta_total > el ? tk->eta_total - el : 0.0);
        else
            CUZK_INFO("srs parsing circuit=%s elapsed_s=%.0f", tk->id, el);
    }
    pthread_mutex_unlock(&tk->lock);
    return NULL;
}

/* Parse rate of the last completed parse (bytes/s), for the ETA. */
static _Atomic double last_parse_rate;

static cuzk_err parse_with_ticker(srs_entry *e, const char *pp)
{
    parse_ticker tk = {.id = e->id, .t0 = cuzk_now()};
    double rate = last_parse_rate;
    tk.eta_total = rate > 0 ? (double)e->map.size / rate : 0;
    pthread_mutex_init(&tk.lock, NULL);
    pthread_cond_init(&tk.done_cv, NULL);
    pthread_t th;
    int have_thread = pthread_create(&th, NULL, ticker_main, &tk) == 0;
    cuzk_err rc =
        cuzk_params_parse(e->map.data, e->map.size, pp, &e->params, CUZK_PARAMS_DROP_PAGES);
    pthread_mutex_lock(&tk.lock);
    tk.done = 1;
    pthread_cond_signal(&tk.done_cv);
    pthread_mutex_unlock(&tk.lock);
    if (have_thread)
        pthread_join(th, NULL);
    pthread_mutex_destroy(&tk.lock);
    pthread_cond_destroy(&tk.done_cv);
    double el = cuzk_now() - tk.t0;
    if (!rc && el > 0)
        last_parse_rate = (double)e->map.size / el;
    return rc;
}

/* Read every page of the mapping once, logging progress: the file comes
 * into the page cache, and each chunk's pages leave the process again, so
 * the RSS does not hold the file next to the parsed copy that follows. */
static void read_pages(const char *id, const cuzk_mapfile *map)
{
    double t0 = cuzk_now(), last = t0;
    volatile uint8_t sink = 0;
    for (size_t at = 0; at < map->size; at += READ_CHUNK) {
        size_t end = at + READ_CHUNK < map->size ? at + READ_CHUNK : map->size;
        for (size_t i = at; i < end; i += 4096)
            sink ^= map->data[i];
        madvise((void *)(uintptr_t)(map->data + at), end - at, MADV_DONTNEED);
        double now = cuzk_now();
        if (now - last >= PROGRESS_EVERY_S && end < map->size) {
            double rate = (double)end / (now - t0);
            CUZK_INFO("srs loading circuit=%s bytes=%zu/%zu rate_mb_s=%.1f eta_s=%.1f", id, end,
                      map->size, rate / 1e6, (double)(map->size - end) / rate);
            last = now;
        }
    }
    (void)sink;
}

/* The reading runs on a thread of its own, ahead of the parser: the disk
 * and the decoding (all cores) overlap, and a load takes the longer of
 * the two instead of their sum. */
typedef struct {
    const char *id;
    const cuzk_mapfile *map;
} reader_arg;

static void *reader_main(void *arg)
{
    reader_arg *r = arg;
    read_pages(r->id, r->map);
    return NULL;
}

/* The load itself, without the lock: the entry is marked loading, so no one
 * else touches its files or memory. */
static cuzk_err load_entry(cuzk_srs_manager *m, srs_entry *e)
{
    char pp[PATH_MAX_LEN], vp[PATH_MAX_LEN], cp[PATH_MAX_LEN];
    entry_path(m, e, e->params_path, ".params", pp);
    entry_path(m, e, e->vk_path, ".vk", vp);
    entry_path(m, e, e->pce_path, ".pce", cp);
    uint64_t sz;
    if (file_size(pp, &sz) != 0)
        return cuzk_fail(CUZK_EIO, "circuit %s: parameters not found: %s: %s", e->id, pp,
                         cuzk_strerror(errno ? errno : ENOENT));
    if (file_size(cp, &sz) != 0)
        return cuzk_fail(CUZK_EIO, "circuit %s: constraint system not found: %s: %s", e->id, cp,
                         cuzk_strerror(errno ? errno : ENOENT));
    double t = cuzk_now();
    pthread_t reader;
    reader_arg ra = {e->id, &e->map};
    int have_reader = 0;
    if (!e->map.data) {
        CUZK_TRY(cuzk_mapfile_open(&e->map, pp));
        if (!(have_reader = pthread_create(&reader, NULL, reader_main, &ra) == 0))
            read_pages(e->id, &e->map);
    }
    CUZK_INFO("srs parsing circuit=%s bytes=%zu%s", e->id, e->map.size,
              have_reader ? " (reading alongside)" : "");
    cuzk_err rc = parse_with_ticker(e, pp);
    double t_parse = cuzk_now() - t;
    if (have_reader)
        pthread_join(reader, NULL);
    t = cuzk_now();
    if (!rc)
        rc = cuzk_pce_load(&e->pce, cp);
    if (!rc)
        CUZK_INFO("srs parsed circuit=%s parse_s=%.3f pce_load_s=%.3f", e->id, t_parse,
                  cuzk_now() - t);
    if (!rc && e->params.vk.n_ic != e->pce->n_inputs)
        rc = cuzk_fail(CUZK_EFORMAT, "circuit %s: %s has %zu ic points but %s has %u inputs", e->id,
                       pp, e->params.vk.n_ic, cp, e->pce->n_inputs);
    int have_vk = !e->vk_path ? file_size(vp, &sz) == 0 : 1;
    if (!rc && have_vk) {
        rc = cuzk_vk_read(vp, &e->vk);
        if (!rc) {
            e->have_vk = 1;
            if (e->vk.n_ic != e->params.vk.n_ic ||
                !blst_p1_affine_is_equal(&e->vk.delta_g1, &e->params.vk.delta_g1) ||
                !blst_p1_affine_is_equal(&e->vk.alpha_g1, &e->params.vk.alpha_g1))
                rc = cuzk_fail(CUZK_EFORMAT,
                               "circuit %s: %s is not the verifying key of %s (it was made by "
                               "another setup)",
                               e->id, vp, pp);
        }
    }
    /* The parsed copy is what proves; the mapping's pages would only count
     * a second time in the RSS. The kernel keeps them cached as it sees fit. */
    cuzk_mapfile_close(&e->map);
    if (rc)
        drop_hot(e);
    return rc;
}

static void fill_view(srs_entry *e)
{
    e->view.id = e->id;
    e->view.params = &e->params;
    e->view.vk = e->have_vk ? &e->vk : &e->params.vk;
    e->view.pce = e->pce;
}

/* Make e HOT; lock held on entry and exit (released while loading). */
static cuzk_err ensure_hot(cuzk_srs_manager *m, srs_entry *e, int *already, double *load_s)
{
    double t0 = cuzk_now();
    while (e->loading)
        pthread_cond_wait(&m->changed, &m->lock);
    *already = e->tier == CUZK_SRS_HOT;
    if (e->tier == CUZK_SRS_HOT) {
        if (load_s)
            *load_s = cuzk_now() - t0;
        return CUZK_OK;
    }
    char pp[PATH_MAX_LEN], cp[PATH_MAX_LEN];
    entry_path(m, e, e->params_path, ".params", pp);
    entry_path(m, e, e->pce_path, ".pce", cp);
    uint64_t ps = 0, cs = 0;
    if (file_size(pp, &ps) != 0)
        return cuzk_fail(CUZK_EIO, "circuit %s: parameters not found: %s (parameter folder %s)",
                         e->id, pp, m->dir);
    if (file_size(cp, &cs) != 0)
        return cuzk_fail(CUZK_EIO,
                         "circuit %s: constraint system not found: %s (parameter folder %s)", e->id,
                         cp, m->dir);
    uint64_t need = ps + cs;
    if (make_room(m, need) != 0) {
        uint64_t pinned = 0;
        for (srs_entry *x = m->entries; x; x = x->next)
            if ((x->tier == CUZK_SRS_HOT && x->refs) || x->loading)
                pinned += x->size_bytes;
        return cuzk_fail(CUZK_ENOMEM,
                         "circuit %s needs %llu bytes; SRS budget is %llu bytes with %llu in "
                         "use by running jobs or loads",
                         e->id, (unsigned long long)need, (unsigned long long)m->t.budget_bytes,
                         (unsigned long long)pinned);
    }
    e->loading = 1;
    e->size_bytes = need;
    m->t.used_bytes += need;
    CUZK_INFO("srs load circuit=%s params=%s bytes=%llu", e->id, pp, (unsigned long long)ps);
    pthread_mutex_unlock(&m->lock);
    double tl = cuzk_now();
    cuzk_err rc = load_entry(m, e);
    tl = cuzk_now() - tl;
    pthread_mutex_lock(&m->lock);
    m->t.used_bytes -= need;
    e->loading = 0;
    if (rc) {
        m->t.load_failures++;
        e->tier = CUZK_SRS_COLD;
        e->size_bytes = need;
        CUZK_ERROR("srs load failed circuit=%s error=\"%s\"", e->id, cuzk_errmsg());
    } else {
        e->size_bytes = hot_bytes(e);
        m->t.used_bytes += e->size_bytes;
        e->tier = CUZK_SRS_HOT;
        fill_view(e);
        m->t.loads++;
        m->t.bytes_loaded += ps;
        m->t.load_seconds += tl;
        CUZK_INFO("srs ready circuit=%s bytes=%llu load_s=%.3f rate_mb_s=%.1f", e->id,
                  (unsigned long long)e->size_bytes, tl, tl > 0 ? (double)ps / tl / 1e6 : 0.0);
    }
    pthread_cond_broadcast(&m->changed);
    if (load_s)
        *load_s = cuzk_now() - t0;
    return rc;
}

cuzk_err cuzk_srs_adopt(cuzk_srs_manager *m, const char *id, cuzk_params *params, cuzk_pce *pce)
{
    if (!params || !pce)
        return cuzk_fail(CUZK_EINVAL, "circuit %s: params and pce are required", id ? id : "");
    pthread_mutex_lock(&m->lock);
    srs_entry *e;
    cuzk_err rc = find_or_add(m, id, &e);
    if (!rc && (e->tier != CUZK_SRS_COLD || e->loading))
        rc = cuzk_fail(CUZK_EINVAL, "circuit %s is loaded: evict it before adopting another", id);
    if (!rc) {
        e->params = *params;
        memset(params, 0, sizeof *params);
        e->pce = pce;
        e->in_memory = 1;
        e->size_bytes = hot_bytes(e);
        if (m->t.budget_bytes && m->t.used_bytes + e->size_bytes > m->t.budget_bytes)
            CUZK_WARN("srs adopt circuit=%s bytes=%llu exceeds the budget (%llu of %llu used)", id,
                      (unsigned long long)e->size_bytes, (unsigned long long)m->t.used_bytes,
                      (unsigned long long)m->t.budget_bytes);
        m->t.used_bytes += e->size_bytes;
        e->tier = CUZK_SRS_HOT;
        e->last_used = cuzk_now();
        fill_view(e);
        CUZK_INFO("srs adopted circuit=%s bytes=%llu (in memory)", id,
                  (unsigned long long)e->size_bytes);
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

uint64_t cuzk_srs_release_host(cuzk_srs_manager *m, const cuzk_srs_circuit *c)
{
    pthread_mutex_lock(&m->lock);
    srs_entry *e = c ? find(m, c->id) : NULL;
    uint64_t freed = 0;
    if (e && e->tier == CUZK_SRS_HOT && !e->host_released) {
        freed = cuzk_params_release_host(&e->params);
        e->host_released = 1;
        e->size_bytes -= freed < e->size_bytes ? freed : e->size_bytes;
        m->t.used_bytes -= freed < m->t.used_bytes ? freed : m->t.used_bytes;
        CUZK_INFO("srs host_released circuit=%s freed=%llu bytes=%llu", e->id,
                  (unsigned long long)freed, (unsigned long long)e->size_bytes);
    }
    pthread_mutex_unlock(&m->lock);
    return freed;
}

cuzk_err cuzk_srs_acquire(cuzk_srs_manager *m, const char *id, cuzk_srs_circuit **out,
                          double *load_s)
{
    *out = NULL;
    int already;
    pthread_mutex_lock(&m->lock);
    srs_entry *e = NULL;
    cuzk_err rc = find_or_add(m, id, &e);
    if (!rc)
        rc = ensure_hot(m, e, &already, load_s);
    if (!rc) {
        e->refs++;
        e->last_used = cuzk_now();
        *out = &e->view;
    } else if (e) {
        forget_if_unknown(m, e);
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

void cuzk_srs_release(cuzk_srs_manager *m, cuzk_srs_circuit *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, c->id);
    if (e && e->refs)
        e->refs--;
    pthread_cond_broadcast(&m->changed);
    pthread_mutex_unlock(&m->lock);
}

cuzk_err cuzk_srs_preload(cuzk_srs_manager *m, const char *id, int *already, double *load_s)
{
    pthread_mutex_lock(&m->lock);
    srs_entry *e = NULL;
    cuzk_err rc = find_or_add(m, id, &e);
    if (!rc)
        rc = ensure_hot(m, e, already, load_s);
    if (!rc)
        e->last_used = cuzk_now();
    else if (e)
        forget_if_unknown(m, e);
    pthread_mutex_unlock(&m->lock);
    return rc;
}

cuzk_err cuzk_srs_evict(cuzk_srs_manager *m, const char *id, int *was_loaded, uint64_t *freed,
                        uint32_t *in_use)
{
    *was_loaded = 0;
    *freed = 0;
    *in_use = 0;
    CUZK_TRY(cuzk_srs_check_id(id));
    pthread_mutex_lock(&m->lock);
    srs_entry *e = find(m, id);
    while (e && e->loading)
        pthread_cond_wait(&m->changed, &m->lock);
    cuzk_err rc = CUZK_OK;
    if (e && e->refs) {
        *in_use = e->refs;
        rc = cuzk_fail(CUZK_EINVAL, "circuit %s is in use by %u job(s); not evicted", id, e->refs);
    } else if (e && e->in_memory) {
        rc = cuzk_fail(CUZK_EINVAL,
                       "circuit %s exists in memory only (no files to reload it "
                       "from); not evicted",
                       id);
    } else if (e && e->host_released) {
        rc = cuzk_fail(CUZK_EINVAL,
                       "circuit %s is kept on the GPUs with its host copy released; "
                       "not evicted",
                       id);
    } else if (e && e->tier != CUZK_SRS_COLD) {
        *was_loaded = 1;
        if (e->tier == CUZK_SRS_HOT) {
            *freed = e->size_bytes;
            m->t.used_bytes -= e->size_bytes;
        }
        *freed += e->map.size;
        drop_hot(e);
        cuzk_mapfile_close(&e->map);
        e->tier = CUZK_SRS_COLD;
        m->t.evictions++;
        CUZK_INFO("srs evict circuit=%s bytes=%llu reason=request tier=cold", id,
                  (unsigned long long)*freed);
    }
    pthread_mutex_unlock(&m->lock);
    return rc;
}

cuzk_err cuzk_srs_snapshot(cuzk_srs_manager *m, cuzk_srs_info **list, size_t *n,
                           cuzk_srs_totals *totals)
{
    *list = NULL;
    *n = 0;
    pthread_mutex_lock(&m->lock);
    size_t cnt = 0;
    for (srs_entry *e = m->entries; e; e = e->next)
        cnt++;
    cuzk_srs_info *l = calloc(cnt ? cnt : 1, sizeof *l);
    if (!l) {
        pthread_mutex_unlock(&m->lock);
        return cuzk_fail(CUZK_ENOMEM, "srs: out of memory");
    }
    size_t i = 0;
    for (srs_entry *e = m->entries; e; e = e->next, i++) {
        memcpy(l[i].id, e->id, sizeof l[i].id);
        l[i].tier = e->tier;
        l[i].loading = e->loading;
        l[i].size_bytes = e->size_bytes;
        l[i].ref_count = e->refs;
        l[i].last_used = e->last_used;
    }
    if (totals)
        *totals = m->t;
    pthread_mutex_unlock(&m->lock);
    *list = l;
    *n = cnt;
    return CUZK_OK;
}
