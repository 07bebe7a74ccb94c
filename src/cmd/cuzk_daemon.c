/* cuzk-daemon: the proving service (DESIGN.md sections 5 and 6).
 *
 *   cuzk-daemon [--config FILE] [--check-config] [flags]
 *
 * Start-up order is what operators need when something is wrong: the log
 * opens first (--log-file, else the config file's daemon.log_file, read
 * ahead of the rest of the file, so that even a config that does not parse
 * has its error in the log); then config, the checks of preflight.c
 * (folders, circuit files, preload ids), the pid file's lock (a second
 * daemon fails here, before it touches anything), backend, socket, HTTP
 * port, the pid file written, SRS preload with progress, and only then
 * "ready" (health SERVING, sd_notify READY=1). Every failure before ready
 * prints one line "cuzk-daemon: <what>: <why>" to stderr and the same line
 * to the log, and exits 2. --check-config runs every check a start would
 * (binding the addresses and letting go) and prints one line per failure.
 *
 * Signals: SIGTERM/SIGINT drain (no new jobs, running ones get
 * daemon.shutdown_grace_s to end, the rest are cancelled) and exit 0; SIGHUP
 * reopens the log file (rotation) and reads the TLS files again. */
#define _GNU_SOURCE
#include "cuzk/config.h"
#include "cuzk/log.h"
#include "cuzk/mem.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"
#include "daemon/daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef CUZK_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#else
static int sd_notify(int unset, const char *state)
{
    (void)unset;
    (void)state;
    return 0;
}
#endif

static volatile sig_atomic_t got_term, got_hup;
static int log_is_file;

static void on_signal(int sig)
{
    if (sig == SIGHUP)
        got_hup = 1;
    else
        got_term = 1;
}

/* The one line of a failed start: stderr, and the log when it is a file. */
static int fail_start(const char *what, cuzk_err e)
{
    (void)e;
    fprintf(stderr, "cuzk-daemon: %s: %s\n", what, cuzk_errmsg());
    if (log_is_file)
        CUZK_ERROR("cuzk-daemon: %s: %s", what, cuzk_errmsg());
    return 2;
}

static void report_failure(void *ctx, const char *what, cuzk_err e)
{
    (void)ctx;
    fail_start(what, e);
}

#define FAIL(what)                                                                                 \
    do {                                                                                           \
        rc = fail_start(what, e);                                                                  \
        goto out;                                                                                  \
    } while (0)

static void usage(FILE *f)
{
    fprintf(f, "usage: cuzk-daemon [--config FILE] [--check-config] [options]\n"
               "  --config FILE          TOML configuration (see cuzk.example.toml)\n"
               "  --check-config         validate the configuration and exit (0 = valid)\n"
               "  --listen ADDR          daemon.listen: unix:///path or host:port\n"
               "  --status-listen ADDR   daemon.status_listen: host:port of /status /metrics "
               "/healthz\n"
               "  --log-file FILE        daemon.log_file (opened before anything else)\n"
               "  --pid-file FILE        daemon.pid_file\n"
               "  --backend B            daemon.backend: cpu | cuda | cuda:N | auto\n"
               "  --param-cache DIR      srs.param_cache\n"
               "  --preload IDS          srs.preload: comma-separated circuit ids\n"
               "  --budget BYTES         memory.budget: auto | 64GiB | ...\n"
               "  --workers N            scheduler.workers\n"
               "  --threads N            synthesis.threads (0 = all CPUs)\n"
               "  --log-level L          logging.level: debug | info | warn | error\n"
               "  --log-format F         logging.format: text | json\n"
               "  --max-message-bytes B  daemon.max_message_bytes\n"
               "  --no-verify            verify_proofs = false\n"
               "  --set KEY=VALUE        any setting by its dotted name, e.g. TLS on a TCP\n"
               "                         listen: daemon.tls_cert=PEM daemon.tls_key=PEM\n"
               "                         [daemon.tls_client_ca=PEM] (client certificates)\n"
               "signals: SIGTERM drains and exits; SIGHUP reopens the log file and reads the\n"
               "TLS files again\n");
}

static const struct {
    const char *flag, *key;
} flag_keys[] = {
    {"--listen", "daemon.listen"},
    {"--status-listen", "daemon.status_listen"},
    {"--log-file", "daemon.log_file"},
    {"--pid-file", "daemon.pid_file"},
    {"--backend", "daemon.backend"},
    {"--param-cache", "srs.param_cache"},
    {"--preload", "srs.preload"},
    {"--budget", "memory.budget"},
    {"--workers", "scheduler.workers"},
    {"--threads", "synthesis.threads"},
    {"--log-level", "logging.level"},
    {"--log-format", "logging.format"},
    {"--max-message-bytes", "daemon.max_message_bytes"},
};

typedef struct {
    const char *config_path;
    int check_only;
    const char *keys[128], *values[128];
    char *owned[128];
    int n;
} cli;

static int parse_cli(int argc, char **argv, cli *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            exit(0);
        }
        if (!strcmp(a, "--check-config")) {
            o->check_only = 1;
            continue;
        }
        if (!strcmp(a, "--no-verify")) {
            o->keys[o->n] = "verify_proofs", o->values[o->n++] = "false";
            continue;
        }
        if (o->n >= 120) {
            fprintf(stderr, "cuzk-daemon: too many options\n");
            return -1;
        }
        int takes_value = !strcmp(a, "--config") || !strcmp(a, "--set");
        for (size_t k = 0; k < sizeof flag_keys / sizeof flag_keys[0]; k++)
            takes_value |= !strcmp(a, flag_keys[k].flag);
        if (!takes_value) {
            fprintf(stderr, "cuzk-daemon: unknown option %s\n", a);
            usage(stderr);
            return -1;
        }
        if (!v) {
            fprintf(stderr, "cuzk-daemon: %s needs a value\n", a);
            return -1;
        }
        if (!strcmp(a, "--config")) {
            o->config_path = v, i++;
            continue;
        }
        if (!strcmp(a, "--set")) {
            const char *eq = strchr(v, '=');
            if (!eq) {
                fprintf(stderr, "cuzk-daemon: --set needs KEY=VALUE (got \"%s\")\n", v);
                return -1;
            }
            o->owned[o->n] = strndup(v, (size_t)(eq - v));
            o->keys[o->n] = o->owned[o->n];
            o->values[o->n++] = eq + 1;
            i++;
            continue;
        }
        for (size_t k = 0; k < sizeof flag_keys / sizeof flag_keys[0]; k++)
            if (!strcmp(a, flag_keys[k].flag))
                o->keys[o->n] = flag_keys[k].key, o->values[o->n++] = v;
        i++;
    }
    return 0;
}

static void cli_free(cli *o)
{
    for (int i = 0; i < o->n; i++)
        free(o->owned[i]);
}

/* The pid file is locked (flock) for the daemon's life: a second daemon
 * or a failed start finds it locked and leaves it alone, and the pid is
 * written into the locked file (not renamed over it, which would drop the
 * lock) only after the last start-up check has passed. */
static int pid_fd = -1;

static cuzk_err lock_pid_file(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "cannot open pid file %s: %s", path, cuzk_strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        char buf[32] = "";
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = 0;
        buf[strcspn(buf, "\n")] = 0;
        close(fd);
        return cuzk_fail(CUZK_EIO, "pid file %s is held by a running cuzk-daemon (pid %s)", path,
                         buf[0] ? buf : "?");
    }
    pid_fd = fd;
    return CUZK_OK;
}

static cuzk_err write_pid_file(const char *path)
{
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(pid_fd, 0) != 0 || pwrite(pid_fd, buf, (size_t)n, 0) != n)
        return cuzk_fail(CUZK_EIO, "cannot write pid file %s: %s", path, cuzk_strerror(errno));
    return CUZK_OK;
}

/* The pid file goes with the lock: nobody else can own it. */
static void remove_pid_file(const char *path)
{
    if (pid_fd < 0)
        return;
    unlink(path);
    close(pid_fd);
    pid_fd = -1;
}

/* Where the log goes, known before the config is read: the last
 * --log-file / --set daemon.log_file, else the config file's. */
static char *early_log_path(const cli *o)
{
    const char *flag = NULL;
    for (int i = 0; i < o->n; i++)
        if (!strcmp(o->keys[i], "daemon.log_file"))
            flag = o->values[i];
    char *path = NULL;
    if (flag)
        path = *flag ? strdup(flag) : NULL;
    else if (o->config_path)
        cuzk_config_peek_log_file(o->config_path, &path);
    return path;
}

int main(int argc, char **argv)
{
    cli o;
    if (parse_cli(argc, argv, &o)) {
        cli_free(&o);
        return 2;
    }
    /* The log first, before the config is parsed, so that every failure
     * after this line reaches it. */
    char *log_path = o.check_only ? NULL : early_log_path(&o);
    if (log_path) {
        if (cuzk_log_open(log_path) != CUZK_OK) {
            fprintf(stderr, "cuzk-daemon: log: %s\n", cuzk_errmsg());
            free(log_path);
            cli_free(&o);
            return 2;
        }
        log_is_file = 1;
        fprintf(stderr, "cuzk-daemon: logging to %s\n", log_path);
        free(log_path);
    }

    int rc = 2;
    cuzk_daemon d;
    memset(&d, 0, sizeof d);
    cuzk_rpc *rpc = NULL;
    cuzk_http *http = NULL;
    cuzk_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cuzk_err e = cuzk_config_defaults(&cfg);
    if (e)
        FAIL("config");
    if (o.config_path && (e = cuzk_config_load_file(&cfg, o.config_path)) != CUZK_OK)
        FAIL("config");
    for (int i = 0; i < o.n && !e; i++)
        if ((e = cuzk_config_set(&cfg, o.keys[i], o.values[i])) != CUZK_OK)
            cuzk_fail_ctx(e, "command line: ");
    if (e)
        FAIL("config");
    /* Level and format as soon as they are known: later failures use them. */
    cuzk_log_set_level((cuzk_log_level)cfg.log_level);
    cuzk_log_set_json(cfg.log_json);
    if (o.check_only) {
        if (cuzk_daemon_preflight(&cfg, 1, report_failure, NULL) > 0)
            goto out;
        printf("config ok: listen=%s param_cache=%s backend=%s workers=%u verify_proofs=%s "
               "synthetic=%s\n",
               cfg.listen, cfg.param_cache, cfg.backend, cfg.workers,
               cfg.verify_proofs ? "true" : "false", cfg.synthetic_enabled ? "on" : "off");
        rc = 0;
        goto out;
    }
    if (!log_is_file && cfg.log_file[0]) {
        if ((e = cuzk_log_open(cfg.log_file)) != CUZK_OK)
            FAIL("log");
        log_is_file = 1;
    }
    if (cuzk_daemon_preflight(&cfg, 0, report_failure, NULL) > 0)
        goto out;
    if (cfg.pid_file[0] && (e = lock_pid_file(cfg.pid_file)) != CUZK_OK)
        FAIL("pid file");
    if (cfg.synthetic_enabled &&
        ((e = cuzk_make_dirs(cfg.synthetic_param_dir)) != CUZK_OK ||
         (e = cuzk_daemon_check_dir(cfg.synthetic_param_dir, "synthetic.param_dir")) != CUZK_OK))
        FAIL("config");
    /* Temporary files of a setup that a SIGKILL or a crash interrupted. */
    if (cfg.synthetic_enabled && cuzk_tmp_clean_stale(cfg.synthetic_param_dir, NULL) != CUZK_OK)
        CUZK_WARN("%s", cuzk_errmsg());
    if (access(cfg.param_cache, W_OK) == 0 &&
        cuzk_tmp_clean_stale(cfg.param_cache, NULL) != CUZK_OK)
        CUZK_WARN("%s", cuzk_errmsg());
    CUZK_INFO("cuzk-daemon starting pid=%ld node=%s config=%s listen=%s param_cache=%s backend=%s",
              (long)getpid(), cfg.node_name, o.config_path ? o.config_path : "-", cfg.listen,
              cfg.param_cache, cfg.backend);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (cfg.synthesis_threads)
        cuzk_threads_set(cfg.synthesis_threads);
    uint64_t budget = cfg.budget_bytes;
    if (cfg.budget_auto)
        budget = cuzk_mem_available() / 10 * 9;
    CUZK_INFO("memory budget=%llu bytes (%s) threads=%u", (unsigned long long)budget,
              cfg.budget_auto ? "auto: 90% of MemAvailable" : "memory.budget",
              cuzk_threads_count());

    d.cfg = &cfg;
    d.t_start = cuzk_now();
    if ((e = cuzk_srs_manager_new(cfg.param_cache, budget, &d.srs)) != CUZK_OK)
        FAIL("srs");
    for (size_t i = 0; i < cfg.n_circuits && !e; i++)
        e = cuzk_srs_register(d.srs, cfg.circuits[i].id, cfg.circuits[i].params, cfg.circuits[i].vk,
                              cfg.circuits[i].pce);
    if (e)
        FAIL("config");
    cuzk_jobs_config jc = {
        .workers = cfg.workers,
        .backend = cfg.backend,
        .gpu_devices = cfg.gpu_devices,
        .n_gpu_devices = cfg.n_gpu_devices,
        .verify_proofs = cfg.verify_proofs,
        .param_dir = cfg.synthetic_param_dir,
        .filecoin_dir = cfg.param_cache,
        .pce_dir = cfg.pce_dir[0] ? cfg.pce_dir : cfg.param_cache,
        .synthetic_disabled = !cfg.synthetic_enabled,
        .synthetic_max_bytes = cfg.synthetic_max_bytes,
        .retain = cfg.retain,
        .max_queued = cfg.max_queued,
        .max_queued_bytes = cfg.max_queued_bytes,
        .max_synthetic = cfg.max_synthetic,
        .synthesis_workers = cfg.synthesis_workers,
        .finalizers = cfg.finalizers,
        .pipeline_depth = cfg.pipeline_depth,
        .max_batch_size = cfg.max_batch_size,
        .max_batch_wait_ms = cfg.max_batch_wait_ms,
        .memory_budget = budget,
        .srs_device_only = cfg.srs_device_only,
        .host_spmv = cfg.host_spmv,
    };
    if ((e = cuzk_jobs_new(&jc, d.srs, &d.jobs)) != CUZK_OK)
        FAIL("backend");
    d.backend = cuzk_jobs_backend(d.jobs);
    if ((e = cuzk_rpc_start(&d, &rpc)) != CUZK_OK)
        FAIL("listen");
    if (cfg.status_listen[0] && (e = cuzk_http_start(&d, cfg.status_listen, &http)) != CUZK_OK)
        FAIL("status_listen");
    if (cfg.pid_file[0] && (e = write_pid_file(cfg.pid_file)) != CUZK_OK)
        FAIL("pid file");

    double t = cuzk_now();
    for (size_t i = 0; i < cfg.n_preload && !got_term; i++) {
        int already;
        sd_notify(0, "STATUS=loading SRS");
        CUZK_INFO("preload circuit=%s (%zu of %zu)", cfg.preload[i], i + 1, cfg.n_preload);
        if ((e = cuzk_daemon_preload(&d, cfg.preload[i], &already, NULL)) != CUZK_OK)
            FAIL("preload");
    }
    atomic_store(&d.preload_ms, (long)((cuzk_now() - t) * 1000));
    atomic_store(&d.ready, 1);
    sd_notify(0, "READY=1\nSTATUS=ready");
    CUZK_INFO("ready startup_ms=%.0f preload_ms=%ld", (cuzk_now() - d.t_start) * 1000,
              (long)atomic_load(&d.preload_ms));

    while (!got_term) {
        struct timespec ts = {0, 100000000L};
        nanosleep(&ts, NULL);
        if (got_hup) {
            got_hup = 0;
            if (log_is_file && cuzk_log_open(cfg.log_file[0] ? cfg.log_file : NULL) == CUZK_OK)
                CUZK_INFO("log reopened (SIGHUP)");
            if (cuzk_daemon_tls_on(&cfg)) {
                cuzk_rpc_tls_reload(rpc);
                CUZK_INFO("tls: the certificate, key and client CA are read again at the next "
                          "connection (SIGHUP)");
            }
        }
    }
    atomic_store(&d.draining, 1);
    sd_notify(0, "STOPPING=1");
    CUZK_INFO("draining: SIGTERM received; grace %.0f s for running jobs", cfg.shutdown_grace_s);
    cuzk_jobs_drain(d.jobs, cfg.shutdown_grace_s);
    rc = 0;
out:
    /* Also the path of a failed start, so that nothing is left behind. */
    cuzk_rpc_stop(rpc, 2.0);
    cuzk_http_stop(http);
    cuzk_jobs_free(d.jobs);
    cuzk_srs_manager_free(d.srs);
    if (cfg.pid_file)
        remove_pid_file(cfg.pid_file);
    if (rc == 0 && !o.check_only)
        CUZK_INFO("stopped");
    cuzk_config_free(&cfg);
    cli_free(&o);
    cuzk_threads_shutdown();
    return rc;
}
