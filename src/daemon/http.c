/* The HTTP side port (libmicrohttpd, one internal polling thread):
 *   GET /status   JSON (status.c)
 *   GET /metrics  Prometheus text (status.c)
 *   GET /healthz  200 "ok" when ready, 503 "not ready" / "draining" otherwise
 * Anything else is 404, any other method 405. It only reads daemon state, so
 * it needs no locking of its own. The address is "host:port" (IPv4), e.g.
 * "127.0.0.1:9821"; binding it is a start-up failure like the gRPC socket. */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include "cuzk/log.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cuzk_http {
    struct MHD_Daemon *mhd;
    cuzk_daemon *d;
};

static enum MHD_Result send_text(struct MHD_Connection *conn, unsigned code, const char *type,
                                 const char *body, size_t len)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type", type);
    enum MHD_Result ok = MHD_queue_response(conn, code, r);
    MHD_destroy_response(r);
    return ok;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_size, void **req_cls)
{
    (void)version;
    (void)upload;
    (void)upload_size;
    (void)req_cls;
    cuzk_http *h = cls;
    if (strcmp(method, "GET") && strcmp(method, "HEAD"))
        return send_text(conn, 405, "text/plain", "method not allowed\n", 19);
    if (!strcmp(url, "/healthz")) {
        int ready = atomic_load(&h->d->ready), draining = atomic_load(&h->d->draining);
        const char *msg = draining ? "draining\n" : ready ? "ok\n" : "not ready\n";
        return send_text(conn, ready && !draining ? 200 : 503, "text/plain", msg, strlen(msg));
    }
    if (strcmp(url, "/status") && strcmp(url, "/metrics"))
        return send_text(conn, 404, "text/plain", "not found (try /status, /metrics, /healthz)\n",
                         44);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return send_text(conn, 500, "text/plain", "out of memory\n", 14);
    int is_status = !strcmp(url, "/status");
    if (is_status)
        cuzk_daemon_status_json(h->d, f);
    else
        cuzk_daemon_metrics(h->d, f);
    fclose(f);
    enum MHD_Result ok = send_text(
        conn, 200, is_status ? "application/json" : "text/plain; version=0.0.4", text, len);
    free(text);
    return ok;
}

/* libmicrohttpd's own messages go to our log at debug level. */
static void mhd_log(void *cls, const char *fmt, va_list ap)
{
    (void)cls;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    msg[strcspn(msg, "\n")] = 0;
    CUZK_DEBUG("http: %s", msg);
}

cuzk_err cuzk_http_start(cuzk_daemon *d, const char *listen, cuzk_http **out)
{
    *out = NULL;
    struct sockaddr_storage sa;
    socklen_t sa_len;
    CUZK_TRY(cuzk_daemon_parse_tcp(listen, "daemon.status_listen", &sa, &sa_len));
    CUZK_TRY(cuzk_daemon_check_tcp_free(listen, "daemon.status_listen"));
    uint16_t port = ntohs(sa.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&sa)->sin6_port
                                                   : ((struct sockaddr_in *)&sa)->sin_port);
    cuzk_http *h = calloc(1, sizeof *h);
    if (!h)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    h->d = d;
    h->mhd = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG |
                                  (sa.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
                              port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                              (struct sockaddr *)&sa, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                              MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
    if (!h->mhd) {
        free(h);
        return cuzk_fail(CUZK_EIO, "cannot listen on %s for HTTP (address in use?)", listen);
    }
    CUZK_INFO("status on http://%s (/status /metrics /healthz)", listen);
    *out = h;
    return CUZK_OK;
}

void cuzk_http_stop(cuzk_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->mhd);
    free(h);
}
