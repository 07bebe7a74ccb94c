/* The pieces of a running cuzk-daemon, shared by its front ends (gRPC in
 * rpc.c, HTTP in http.c) and its main (src/cmd/cuzk_daemon.c).
 *
 * main owns everything here: it fills the struct, starts the front ends,
 * and tears them down in reverse order. The front ends only read it, except
 * `ready` and `draining`, which main sets and everyone reads atomically. */
#ifndef CUZK_DAEMON_INTERNAL_H
#define CUZK_DAEMON_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include "cuzk/config.h"
#include "cuzk/jobs.h"
#include "cuzk/srs.h"

typedef struct {
    const cuzk_config *cfg;
    cuzk_srs_manager *srs;
    cuzk_jobs *jobs;
    double t_start;         /* cuzk_now() at start */
    const char *backend;    /* name of the backend the workers use */
    atomic_int ready;       /* preload done: health SERVING */
    atomic_int draining;    /* SIGTERM received */
    atomic_long preload_ms; /* time the start-up preload took */
} cuzk_daemon;

/* The CUDA devices this build sees (none without CUDA): ordinal and a
 * one-line description (name, compute capability, memory). */
#define CUZK_DAEMON_MAX_GPUS 16
typedef struct {
    int ordinal;
    char name[256];
    uint64_t vram_total_bytes, vram_free_bytes; /* 0 when unknown */
} cuzk_daemon_gpu;
size_t cuzk_daemon_gpus(cuzk_daemon_gpu *out, size_t cap);

/* Start-up checks (preflight.c). report(ctx, what, e) is called for each
 * failure, its message in cuzk_errmsg(); `what` names the stage ("config",
 * "listen", ...). all = 0: the checks a start makes before binding
 * anything, stopping at the first failure; all = 1 (--check-config): every
 * check, the binding ones too (tried and let go). Returns the failures. */
typedef void (*cuzk_preflight_report)(void *ctx, const char *what, cuzk_err e);
int cuzk_daemon_preflight(const cuzk_config *cfg, int all, cuzk_preflight_report report, void *ctx);
/* EIO naming key unless path is an existing folder. */
cuzk_err cuzk_daemon_check_dir(const char *path, const char *key);
/* "host:port" (IPv4, [IPv6] or a name; "" or ":port" = every address). */
cuzk_err cuzk_daemon_parse_tcp(const char *addr, const char *key, struct sockaddr_storage *sa,
                               socklen_t *len);
/* EIO naming key and the errno unless addr can be bound now (tried, then
 * let go). */
cuzk_err cuzk_daemon_check_tcp_free(const char *addr, const char *key);
/* TLS material as gRPC takes it: NUL-terminated PEM texts (ca_pem NULL
 * without daemon.tls_client_ca). cuzk_daemon_tls_read reads the three
 * files and checks that they parse and that the key is the certificate's. */
typedef struct {
    char *cert_pem, *key_pem, *ca_pem;
} cuzk_daemon_tls;
cuzk_err cuzk_daemon_tls_read(const cuzk_config *cfg, cuzk_daemon_tls *out);
void cuzk_daemon_tls_free(cuzk_daemon_tls *t);
/* gRPC speaks TLS: a certificate is set and listen is TCP. */
int cuzk_daemon_tls_on(const cuzk_config *cfg);
/* "unix:///p", "unix:/p", "unix:p" -> "/p" or "p"; NULL for TCP. */
const char *cuzk_daemon_unix_path(const char *listen);

/* Load circuit id's parameters (srs.preload at start, PreloadSRS): a
 * Filecoin circuit id ("snap-32g") names its v28 files, registered first
 * (its constraint system built if missing). */
cuzk_err cuzk_daemon_preload(cuzk_daemon *d, const char *id, int *already, double *load_s);

/* /status as JSON, and the whole /metrics text (engine, SRS, process). */
void cuzk_daemon_status_json(cuzk_daemon *d, FILE *out);
void cuzk_daemon_metrics(cuzk_daemon *d, FILE *out);

/* gRPC front end: binds cfg->listen (unix socket or TCP), serves
 * cuzk.v1.ProvingEngine and grpc.health.v1.Health on its own thread. */
typedef struct cuzk_rpc cuzk_rpc;
cuzk_err cuzk_rpc_start(cuzk_daemon *d, cuzk_rpc **out);
/* Read the TLS files again at the next handshake (SIGHUP); no-op without
 * TLS. */
void cuzk_rpc_tls_reload(cuzk_rpc *r);
/* Stop accepting calls, cancel what is left after grace_s, join. */
void cuzk_rpc_stop(cuzk_rpc *r, double grace_s);

/* HTTP side port (libmicrohttpd): /status, /metrics, /healthz. */
typedef struct cuzk_http cuzk_http;
cuzk_err cuzk_http_start(cuzk_daemon *d, const char *listen, cuzk_http **out);
void cuzk_http_stop(cuzk_http *h);

#endif
