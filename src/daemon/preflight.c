/* The checks of a daemon start that can be made without starting anything,
 * shared by the start itself and by --check-config (daemon.h).
 *
 * A start runs the checks that nothing later repeats (folders, circuit
 * files, preload ids) and stops at the first failure; the binding ones
 * (sockets, pid file, log) it makes for real as it goes. --check-config runs
 * every check, binding ones included (it binds and lets go, tries the locks
 * and lets go), and reports each failure on its own line, so that "config
 * ok" means a start would get past all of them. */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include "cuzk/backend.h"
#include "cuzk/filecoin.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"
#include "cuzk/util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <netdb.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The folder a file would be created in: it exists and we may write it. */
static cuzk_err check_parent_writable(const char *file, const char *key)
{
    char *copy = strdup(file);
    if (!copy)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    const char *dir = dirname(copy);
    struct stat st;
    cuzk_err e = CUZK_OK;
    if (stat(dir, &st) != 0)
        e = cuzk_fail(CUZK_EIO, "%s %s: folder %s: %s", key, file, dir, cuzk_strerror(errno));
    else if (!S_ISDIR(st.st_mode))
        e = cuzk_fail(CUZK_EIO, "%s %s: %s is not a folder", key, file, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        e = cuzk_fail(CUZK_EIO, "%s %s: folder %s is not writable: %s", key, file, dir,
                      cuzk_strerror(errno));
    else if (access(file, F_OK) == 0 && access(file, W_OK) != 0)
        e = cuzk_fail(CUZK_EIO, "%s %s is not writable: %s", key, file, cuzk_strerror(errno));
    free(copy);
    return e;
}

cuzk_err cuzk_daemon_check_dir(const char *path, const char *key)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return cuzk_fail(CUZK_EIO, "%s folder %s: %s", key, path, cuzk_strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return cuzk_fail(CUZK_EIO, "%s: %s is not a folder", key, path);
    return CUZK_OK;
}

/* The synthetic folder: there, or creatable (the start makes it). */
static cuzk_err check_synthetic_dir(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return check_parent_writable(path, "synthetic.param_dir");
    if (!S_ISDIR(st.st_mode))
        return cuzk_fail(CUZK_EIO, "synthetic.param_dir: %s is not a folder", path);
    if (access(path, W_OK | X_OK) != 0)
        return cuzk_fail(CUZK_EIO, "synthetic.param_dir: folder %s is not writable: %s", path,
                         cuzk_strerror(errno));
    return CUZK_OK;
}

/* Whether another process holds an flock on path (a live daemon's lock). */
static int lock_is_held(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    int held = flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    close(fd); /* drops our lock, if we got it */
    return held;
}

cuzk_err cuzk_daemon_parse_tcp(const char *addr, const char *key, struct sockaddr_storage *sa,
                               socklen_t *len)
{
    const char *colon = strrchr(addr, ':');
    char host[256];
    if (!colon || (size_t)(colon - addr) >= sizeof host)
        return cuzk_fail(CUZK_EINVAL, "%s \"%s\": expected host:port or unix:///path", key, addr);
    memcpy(host, addr, (size_t)(colon - addr));
    host[colon - addr] = 0;
    /* "[::1]:9000" */
    char *h = host;
    size_t hl = strlen(h);
    if (hl >= 2 && h[0] == '[' && h[hl - 1] == ']')
        h[hl - 1] = 0, h++;
    char *end;
    long port = strtol(colon + 1, &end, 10);
    if (!colon[1] || *end || port < 0 || port > 65535)
        return cuzk_fail(CUZK_EINVAL, "%s \"%s\": port \"%s\" is not a number in 0..65535", key,
                         addr, colon + 1);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    int g = getaddrinfo(*h ? h : NULL, colon + 1, &hints, &res);
    if (g != 0 || !res) {
        if (res)
            freeaddrinfo(res);
        return cuzk_fail(CUZK_EINVAL, "%s \"%s\": cannot resolve host \"%s\": %s", key, addr, h,
                         gai_strerror(g));
    }
    memcpy(sa, res->ai_addr, res->ai_addrlen);
    *len = res->ai_addrlen;
    freeaddrinfo(res);
    return CUZK_OK;
}

/* Bind the address and let it go: the port is free for us now. */
cuzk_err cuzk_daemon_check_tcp_free(const char *addr, const char *key)
{
    struct sockaddr_storage sa;
    socklen_t len;
    CUZK_TRY(cuzk_daemon_parse_tcp(addr, key, &sa, &len));
    int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "%s \"%s\": socket: %s", key, addr, cuzk_strerror(errno));
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    cuzk_err e = CUZK_OK;
    if (bind(fd, (struct sockaddr *)&sa, len) != 0)
        e = cuzk_fail(CUZK_EIO, "%s \"%s\": cannot listen there: %s", key, addr,
                      cuzk_strerror(errno));
    close(fd);
    return e;
}

static cuzk_err check_listen(const char *listen)
{
    const char *up = cuzk_daemon_unix_path(listen);
    if (!up)
        return cuzk_daemon_check_tcp_free(listen, "daemon.listen");
    struct sockaddr_un sun;
    if (!*up)
        return cuzk_fail(CUZK_EINVAL, "daemon.listen \"%s\": empty socket path", listen);
    if (strlen(up) >= sizeof sun.sun_path)
        return cuzk_fail(CUZK_EINVAL, "daemon.listen: socket path too long (max %zu bytes): %s",
                         sizeof sun.sun_path - 1, up);
    CUZK_TRY(check_parent_writable(up, "daemon.listen"));
    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s.lock", up);
    if (lock_is_held(lock_path))
        return cuzk_fail(CUZK_EIO,
                         "daemon.listen %s is in use by another cuzk-daemon (it holds %s)", up,
                         lock_path);
    struct stat st;
    if (lstat(up, &st) == 0 && !S_ISSOCK(st.st_mode))
        return cuzk_fail(CUZK_EIO, "daemon.listen %s exists and is not a socket", up);
    return CUZK_OK;
}

/* Loopback: 127.0.0.0/8, ::1 and IPv4-mapped 127.x. */
static int is_loopback(const struct sockaddr_storage *sa)
{
    if (sa->ss_family == AF_INET)
        return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
    if (sa->ss_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
    }
    return 0;
}

int cuzk_daemon_tls_on(const cuzk_config *cfg)
{
    return cfg->tls_cert[0] && !cuzk_daemon_unix_path(cfg->listen);
}

/* EINVAL "KEY "ADDR" is reachable beyond this host and WHY" unless the
 * TCP address is a loopback one. */
static cuzk_err loopback_only(const char *addr, const char *key, const char *why)
{
    struct sockaddr_storage sa;
    socklen_t len;
    CUZK_TRY(cuzk_daemon_parse_tcp(addr, key, &sa, &len));
    if (is_loopback(&sa))
        return CUZK_OK;
    return cuzk_fail(CUZK_EINVAL, "%s \"%s\" is reachable beyond this host and %s", key, addr, why);
}

/* Plain TCP on an address others can reach needs allow_insecure_tcp. */
static cuzk_err check_transport(const cuzk_config *cfg)
{
    if (!cfg->tls_cert[0] != !cfg->tls_key[0])
        return cuzk_fail(CUZK_EINVAL,
                         "daemon.tls_cert and daemon.tls_key go together (%s is "
                         "set, %s is not)",
                         cfg->tls_cert[0] ? "tls_cert" : "tls_key",
                         cfg->tls_cert[0] ? "tls_key" : "tls_cert");
    if (cfg->tls_client_ca[0] && !cfg->tls_cert[0])
        return cuzk_fail(CUZK_EINVAL,
                         "daemon.tls_client_ca needs daemon.tls_cert and daemon.tls_key");
    if (!cuzk_daemon_unix_path(cfg->listen) && !cfg->tls_cert[0] && !cfg->allow_insecure_tcp)
        CUZK_TRY(loopback_only(cfg->listen, "daemon.listen",
                               "has no TLS: set daemon.tls_cert and daemon.tls_key (and "
                               "tls_client_ca), or daemon.allow_insecure_tcp = true"));
    if (cfg->status_listen[0] && !cfg->allow_insecure_tcp)
        CUZK_TRY(loopback_only(cfg->status_listen, "daemon.status_listen",
                               "is plain HTTP: bind it to a loopback address (127.0.0.1:PORT), "
                               "or set daemon.allow_insecure_tcp = true"));
    return CUZK_OK;
}

/* The first certificate of a PEM text; NULL when there is none. */
static X509 *pem_cert(const char *pem)
{
    BIO *b = BIO_new_mem_buf(pem, -1);
    X509 *x = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
    BIO_free(b);
    return x;
}

cuzk_err cuzk_daemon_tls_read(const cuzk_config *cfg, cuzk_daemon_tls *out)
{
    memset(out, 0, sizeof *out);
    const char *files[3] = {cfg->tls_cert, cfg->tls_key, cfg->tls_client_ca};
    const char *keys[3] = {"daemon.tls_cert", "daemon.tls_key", "daemon.tls_client_ca"};
    char **dst[3] = {&out->cert_pem, &out->key_pem, &out->ca_pem};
    cuzk_err e = CUZK_OK;
    for (int i = 0; i < 3 && !e; i++) {
        if (!files[i][0])
            continue;
        uint8_t *text;
        size_t n;
        if ((e = cuzk_read_file(files[i], &text, &n))) /* NUL-terminated */
            cuzk_fail_ctx(e, "%s: ", keys[i]);
        else
            *dst[i] = (char *)text;
    }
    /* What gRPC would find wrong only at the first handshake: parse the
     * certificates and the key, and match the key to the certificate. */
    X509 *cert = NULL;
    EVP_PKEY *key = NULL;
    if (!e && out->cert_pem && !(cert = pem_cert(out->cert_pem)))
        e = cuzk_fail(CUZK_EFORMAT, "daemon.tls_cert %s: no PEM certificate in it", cfg->tls_cert);
    if (!e && out->key_pem) {
        BIO *b = BIO_new_mem_buf(out->key_pem, -1);
        key = b ? PEM_read_bio_PrivateKey(b, NULL, NULL, NULL) : NULL;
        BIO_free(b);
        if (!key)
            e = cuzk_fail(CUZK_EFORMAT,
                          "daemon.tls_key %s: no PEM private key in it (or it is encrypted)",
                          cfg->tls_key);
        else if (cert && X509_check_private_key(cert, key) != 1)
            e = cuzk_fail(CUZK_EINVAL, "daemon.tls_key %s is not the key of daemon.tls_cert %s",
                          cfg->tls_key, cfg->tls_cert);
    }
    X509 *ca = NULL;
    if (!e && out->ca_pem && !(ca = pem_cert(out->ca_pem)))
        e = cuzk_fail(CUZK_EFORMAT, "daemon.tls_client_ca %s: no PEM certificate in it",
                      cfg->tls_client_ca);
    X509_free(ca);
    X509_free(cert);
    EVP_PKEY_free(key);
    ERR_clear_error();
    if (e)
        cuzk_daemon_tls_free(out);
    return e;
}

void cuzk_daemon_tls_free(cuzk_daemon_tls *t)
{
    free(t->cert_pem);
    free(t->key_pem);
    free(t->ca_pem);
    memset(t, 0, sizeof *t);
}

static cuzk_err check_tls_files(const cuzk_config *cfg)
{
    cuzk_daemon_tls t;
    CUZK_TRY(cuzk_daemon_tls_read(cfg, &t));
    cuzk_daemon_tls_free(&t);
    return CUZK_OK;
}

static cuzk_err check_pid_file(const char *path)
{
    CUZK_TRY(check_parent_writable(path, "daemon.pid_file"));
    if (lock_is_held(path))
        return cuzk_fail(CUZK_EIO, "daemon.pid_file %s is held by a running cuzk-daemon", path);
    return CUZK_OK;
}

static const cuzk_config_circuit *find_circuit(const cuzk_config *cfg, const char *id)
{
    for (size_t i = 0; i < cfg->n_circuits; i++)
        if (!strcmp(cfg->circuits[i].id, id))
            return &cfg->circuits[i];
    return NULL;
}

static cuzk_err check_file(const char *path)
{
    if (access(path, R_OK) != 0)
        return cuzk_fail(CUZK_EIO, "%s: %s", path, cuzk_strerror(errno));
    return CUZK_OK;
}

/* A circuit's files: present, and their headers what the loader wants. */
static cuzk_err check_circuit_files(const char *id, const char *params, const char *vk,
                                    const char *pce, const char *what)
{
    cuzk_err e = check_file(params);
    if (!e)
        e = check_file(pce);
    if (!e && vk)
        e = check_file(vk);
    if (!e)
        e = cuzk_pce_check_header(pce);
    if (!e)
        e = cuzk_params_check_file(params);
    if (!e && vk) {
        cuzk_vk v;
        e = cuzk_vk_read(vk, &v);
        if (!e)
            cuzk_vk_free(&v);
    }
    if (e)
        cuzk_fail_ctx(e, "%s %s: ", what, id);
    return e;
}

static cuzk_err check_circuit(const cuzk_config *cfg, size_t i)
{
    const cuzk_config_circuit *c = &cfg->circuits[i];
    char what[300];
    snprintf(what, sizeof what, "circuits.%s", c->id);
    CUZK_TRY(cuzk_srs_check_id(c->id));
    if (!c->params || !c->pce)
        return cuzk_fail(CUZK_EINVAL, "%s needs params and pce", what);
    return check_circuit_files(c->id, c->params, c->vk, c->pce, "circuit");
}

static cuzk_err check_preload(const cuzk_config *cfg, size_t i)
{
    const char *id = cfg->preload[i];
    if (cuzk_srs_check_id(id))
        return cuzk_fail_ctx(CUZK_EINVAL, "srs.preload: ");
    if (find_circuit(cfg, id))
        return CUZK_OK; /* its files are checked with [circuits] */
    char params[4200], pce[4200];
    const cuzk_fc_proof *fp = cuzk_fc_by_circuit(id);
    if (fp) { /* a Filecoin circuit: its v28 parameters (the PCE is built if missing) */
        if (!fp->supported)
            return cuzk_fail(CUZK_EUNSUPPORTED, "srs.preload %s (%s): circuit not available yet",
                             id, fp->name);
        snprintf(params, sizeof params, "%s/%s.params", cfg->param_cache, fp->param_name);
        if (access(params, R_OK) != 0)
            return cuzk_fail(CUZK_EIO,
                             "srs.preload %s: %s: %s (Filecoin's v28 parameters belong in "
                             "srs.param_cache; `cuzk setup --circuit %s` makes test parameters)",
                             id, params, cuzk_strerror(errno), id);
        cuzk_err e = cuzk_params_check_file(params);
        return e ? cuzk_fail_ctx(e, "srs.preload %s: ", id) : CUZK_OK;
    }
    snprintf(params, sizeof params, "%s/%s.params", cfg->param_cache, id);
    snprintf(pce, sizeof pce, "%s/%s.pce", cfg->param_cache, id);
    if (access(params, F_OK) != 0 || access(pce, F_OK) != 0)
        return cuzk_fail(CUZK_EIO,
                         "srs.preload %s: no [circuits.%s] entry and no %s.params + %s.pce in %s",
                         id, id, id, id, cfg->param_cache);
    return check_circuit_files(id, params, NULL, pce, "srs.preload");
}

static cuzk_err check_backend(const cuzk_config *cfg)
{
    cuzk_backend *be = NULL;
    cuzk_err e = cuzk_backend_open(cfg->backend, &be);
    if (e)
        return cuzk_fail_ctx(e, "daemon.backend %s: ", cfg->backend);
    cuzk_backend_close(be);
    int gpus = cuzk_backend_gpus();
    for (size_t i = 0; i < cfg->n_gpu_devices && strcmp(cfg->backend, "cpu"); i++)
        if (cfg->gpu_devices[i] >= gpus)
            return cuzk_fail(CUZK_EINVAL, "gpus.devices: GPU %d does not exist (%d visible)",
                             cfg->gpu_devices[i], gpus > 0 ? gpus : 0);
    return CUZK_OK;
}

int cuzk_daemon_preflight(const cuzk_config *cfg, int all, cuzk_preflight_report report, void *ctx)
{
    int failures = 0;
#define CHECK(what, expr)                                                                          \
    do {                                                                                           \
        cuzk_err e_ = (expr);                                                                      \
        if (e_) {                                                                                  \
            failures++;                                                                            \
            report(ctx, what, e_);                                                                 \
            if (!all)                                                                              \
                return failures;                                                                   \
        }                                                                                          \
    } while (0)
    if (all && cfg->log_file[0])
        CHECK("log", check_parent_writable(cfg->log_file, "daemon.log_file"));
    if (all && cfg->pid_file[0])
        CHECK("pid file", check_pid_file(cfg->pid_file));
    CHECK("config", check_transport(cfg));
    if (cfg->tls_cert[0])
        CHECK("tls", check_tls_files(cfg));
    if (all)
        CHECK("listen", check_listen(cfg->listen));
    if (all && cfg->status_listen[0])
        CHECK("status_listen",
              cuzk_daemon_check_tcp_free(cfg->status_listen, "daemon.status_listen"));
    CHECK("config", cuzk_daemon_check_dir(cfg->param_cache, "srs.param_cache: parameter"));
    if (cfg->synthetic_enabled)
        CHECK("config", check_synthetic_dir(cfg->synthetic_param_dir));
    for (size_t i = 0; i < cfg->n_circuits; i++)
        CHECK("config", check_circuit(cfg, i));
    for (size_t i = 0; i < cfg->n_preload; i++)
        CHECK("config", check_preload(cfg, i));
    if (all)
        CHECK("backend", check_backend(cfg));
#undef CHECK
    return failures;
}
