/* cuzk-bench as the daemon's client (gRPC C core + protobuf-c):
 *
 *   cuzk-bench wait-ready [--timeout S]          until Health.Check says SERVING
 *   cuzk-bench single  JOB-SPEC [--out PROOF] [--public-out FILE]
 *   cuzk-bench batch   JOB-SPEC -n N [-j J]       N jobs, J at a time; throughput
 *                 [--prove [--retries R]]: each job by the Prove RPC (what a load
 *                 balancer needs), again on UNAVAILABLE up to R times
 *   cuzk-bench submit  JOB-SPEC                   prints the job id
 *   cuzk-bench await   JOB-ID [--timeout-ms T]
 *   cuzk-bench cancel  JOB-ID
 *   cuzk-bench status | metrics       status --addr A --addr B ...: one row per daemon
 *   cuzk-bench preload ID | evict ID
 *   cuzk-bench stress  JOB-SPEC --duration S [-j J] [--rate R] [--mixed]
 *                 jobs of all four priorities (and with --mixed, every fifth
 *                 one a SnapDeals job with a junk partition proof, which must
 *                 fail cleanly, naming vanilla_proofs[0]) for S
 *                 seconds, at most R per second; latency per priority
 *   cuzk-bench memmon  --pid PID [--interval-ms I] [--duration S] [--out CSV]
 *                 samples the daemon's RSS (/proc) and its pinned, device and
 *                 SRS bytes (GetStatus) into a CSV timeline; prints the peaks
 *
 *   JOB-SPEC: --kind synthetic|r1cs|porep|snap|window-post|winning-post
 *             synthetic: --constraints N [--public-inputs K] [--seed S] [--partitions P]
 *             r1cs:      --circuit ID --witness FILE [--witness FILE ...]
 *             window-post / winning-post: --registered-proof N [--sector-size S]
 *                        --randomness HEX (--vanilla FILE ... | --vanilla-dir DIR)
 *                        [--miner-id M] [--partition-index K]
 *                        (one bincode vanilla proof per sector; --vanilla-dir takes
 *                        DIR/sector-<id>.vproof in sector order)
 *             porep:     --registered-proof N [--sector-size S] --vanilla FILE
 *                        --sector-number N --miner-id M   (FILE: Curio's C1 envelope)
 *             snap:      --registered-proof N [--sector-size S] --vanilla FILE...
 *                        --comm-r-old HEX --comm-d-new HEX --comm-r-new HEX
 *                        (one bincode PartitionProof per partition, in order; HEX
 *                        the 32 bytes as stored, as gen snap's request.json)
 *             [--priority low|normal|high|critical] [--request-id ID]
 *   common:   --addr ADDR (default $CUZK_ADDR, else unix:///run/curio/cuzk.sock)
 *             --json (machine-readable output), --rpc-timeout S (default none)
 *             --tls-ca PEM (TLS: the CA of the daemon's certificate)
 *             [--tls-cert PEM --tls-key PEM] (a client certificate, for mTLS)
 *             [--tls-server-name NAME] (the name to check the certificate for)
 *
 * Each call is one unary RPC on a pluck completion queue: one batch with
 * every op, then pluck its tag. Exit status: 0 success; 1 a job that did not
 * complete (FAILED, CANCELLED, TIMEOUT) or not ready in time; 2 usage or RPC
 * errors, printed as one line "cuzk-bench: <what>: <status>: <details>". */
#define _GNU_SOURCE
#include "cuzk/jobs.h"
#include "cuzk/progress.h"
#include "cuzk/util.h"

#include "cuzk/v1/proving.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <unistd.h>

#define MAX_WIT CUZK_JOB_MAX_PARTITIONS

typedef struct {
    const char *addr, *out, *public_out, *circuit, *request_id, *job_id;
    const char *tls_ca, *tls_cert, *tls_key, *tls_server_name; /* PEM files; TLS when tls_ca */
    const char *addrs[64]; /* every --addr given (status: one row each) */
    int n_addrs;
    int prove_rpc, retries; /* batch: the Prove RPC, retried on UNAVAILABLE */
    const char *witness[MAX_WIT];
    int n_witness, json, n, j;
    int kind, priority;
    uint64_t constraints, seed, timeout_ms;
    uint32_t public_inputs, partitions;
    double timeout_s, rpc_timeout_s, duration_s, rate;
    int mixed, pid, interval_ms;
    /* PoSt */
    const char **vanilla;
    size_t n_vanilla;
    const char *vanilla_dir, *randomness;
    const char *comm_r_old, *comm_d_new, *comm_r_new; /* SnapDeals, hex */
    uint64_t registered_proof, sector_size, miner_id, sector_number;
    uint32_t partition_index;
} copts;

typedef struct {
    grpc_channel *ch;
    double rpc_timeout_s;
} client;

typedef struct {
    grpc_status_code status;
    char details[1024];
} rpc_status;

/* A PEM file as a string; NULL with a message on stderr. */
static char *read_pem(const char *path, const char *opt)
{
    uint8_t *d = NULL;
    size_t n;
    if (cuzk_read_file(path, &d, &n) == CUZK_OK)
        return (char *)d;
    fprintf(stderr, "cuzk-bench: %s: %s\n", opt, cuzk_errmsg());
    return NULL;
}

/* The channel's credentials: TLS when --tls-ca names the CA that signed the
 * daemon's certificate (with --tls-cert/--tls-key a client certificate
 * too), plaintext otherwise. NULL with a message on stderr. */
static grpc_channel_credentials *client_credentials(const copts *o)
{
    if ((o->tls_cert || o->tls_key) && !(o->tls_cert && o->tls_key && o->tls_ca)) {
        fprintf(stderr, "cuzk-bench: --tls-cert and --tls-key go together, with --tls-ca\n");
        return NULL;
    }
    if (!o->tls_ca)
        return grpc_insecure_credentials_create();
    char *ca = read_pem(o->tls_ca, "--tls-ca"), *cert = NULL, *key = NULL;
    grpc_channel_credentials *cr = NULL;
    if (ca && (!o->tls_cert || ((cert = read_pem(o->tls_cert, "--tls-cert")) &&
                                (key = read_pem(o->tls_key, "--tls-key"))))) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        cr = grpc_ssl_credentials_create(ca, cert ? &pair : NULL, NULL, NULL);
    }
    free(ca);
    free(cert);
    free(key);
    return cr;
}

/* Of gRPC's own lines, the one saying why a TLS handshake failed (the
 * call's status only says UNAVAILABLE); the rest repeat what the status
 * says. */
static void client_log(gpr_log_func_args *a)
{
    if (strstr(a->message, "Handshake failed"))
        fprintf(stderr, "cuzk-bench: tls: %s\n", a->message);
}

static int client_open(client *c, const copts *o, const char *addr)
{
    gpr_set_log_function(client_log);
    grpc_init();
    grpc_channel_credentials *cr = client_credentials(o);
    if (!cr) {
        grpc_shutdown();
        return -1;
    }
    /* Short reconnect backoff: wait-ready polls a daemon that is starting,
     * and gRPC's default (1 s after a refused connection) would hide when
     * it became ready. */
    grpc_arg arg[5] = {
        {GRPC_ARG_INTEGER, GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH, {.integer = -1}},
        {GRPC_ARG_INTEGER, GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, {.integer = 20}},
        {GRPC_ARG_INTEGER, GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, {.integer = 20}},
        {GRPC_ARG_INTEGER, GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, {.integer = 200}},
        {GRPC_ARG_STRING,
         GRPC_SSL_TARGET_NAME_OVERRIDE_ARG,
         {.string = (char *)o->tls_server_name}},
    };
    grpc_channel_args args = {o->tls_server_name ? 5 : 4, arg};
    c->ch = grpc_channel_create(addr, cr, &args);
    grpc_channel_credentials_release(cr);
    c->rpc_timeout_s = o->rpc_timeout_s;
    return c->ch ? 0 : -1;
}

static void client_close(client *c)
{
    grpc_channel_destroy(c->ch);
    grpc_shutdown();
}

/* One unary call: request message in, response message out (caller frees
 * with protobuf_c_message_free_unpacked). wait_for_ready: queue the call
 * until the channel connects instead of failing at once. */
static int call_unary(client *c, const char *method, const ProtobufCMessage *req,
                      const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp,
                      double timeout_s, int wait_for_ready, rpc_status *st)
{
    *resp = NULL;
    memset(st, 0, sizeof *st);
    gpr_timespec dl =
        timeout_s > 0
            ? gpr_time_add(gpr_now(GPR_CLOCK_REALTIME),
                           gpr_time_from_millis((int64_t)(timeout_s * 1000), GPR_TIMESPAN))
            : gpr_inf_future(GPR_CLOCK_REALTIME);
    /* A queue per call: batch threads call concurrently, and a pluck queue
     * allows only a few concurrent pluckers. */
    grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
    grpc_slice m = grpc_slice_from_static_string(method);
    grpc_call *call =
        grpc_channel_create_call(c->ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq, m, NULL, dl, NULL);
    size_t n = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        grpc_call_unref(call);
        grpc_completion_queue_shutdown(cq);
        grpc_completion_queue_destroy(cq);
        st->status = GRPC_STATUS_RESOURCE_EXHAUSTED;
        snprintf(st->details, sizeof st->details, "out of memory");
        return -1;
    }
    protobuf_c_message_pack(req, buf);
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)buf, n);
    free(buf);
    grpc_byte_buffer *send = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    grpc_byte_buffer *recv = NULL;
    grpc_metadata_array init_md, trail_md;
    grpc_metadata_array_init(&init_md);
    grpc_metadata_array_init(&trail_md);
    grpc_slice details = grpc_empty_slice();
    grpc_status_code status = GRPC_STATUS_UNKNOWN;
    grpc_op ops[6];
    memset(ops, 0, sizeof ops);
    ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[0].flags = wait_for_ready ? GRPC_INITIAL_METADATA_WAIT_FOR_READY : 0;
    ops[1].op = GRPC_OP_SEND_MESSAGE;
    ops[1].data.send_message.send_message = send;
    ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[3].data.recv_initial_metadata.recv_initial_metadata = &init_md;
    ops[4].op = GRPC_OP_RECV_MESSAGE;
    ops[4].data.recv_message.recv_message = &recv;
    ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    ops[5].data.recv_status_on_client.trailing_metadata = &trail_md;
    ops[5].data.recv_status_on_client.status = &status;
    ops[5].data.recv_status_on_client.status_details = &details;
    int tag;
    grpc_call_error ce = grpc_call_start_batch(call, ops, 6, &tag, NULL);
    if (ce == GRPC_CALL_OK)
        grpc_completion_queue_pluck(cq, &tag, gpr_inf_future(GPR_CLOCK_REALTIME), NULL);
    st->status = ce == GRPC_CALL_OK ? status : GRPC_STATUS_INTERNAL;
    snprintf(st->details, sizeof st->details, "%.*s", (int)GRPC_SLICE_LENGTH(details),
             (const char *)GRPC_SLICE_START_PTR(details));
    if (st->status == GRPC_STATUS_OK && recv) {
        grpc_byte_buffer_reader rd;
        grpc_byte_buffer_reader_init(&rd, recv);
        grpc_slice all = grpc_byte_buffer_reader_readall(&rd);
        grpc_byte_buffer_reader_destroy(&rd);
        *resp = protobuf_c_message_unpack(resp_desc, NULL, GRPC_SLICE_LENGTH(all),
                                          GRPC_SLICE_START_PTR(all));
        grpc_slice_unref(all);
        if (!*resp) {
            st->status = GRPC_STATUS_INTERNAL;
            snprintf(st->details, sizeof st->details, "undecodable %s", resp_desc->name);
        }
    } else if (st->status == GRPC_STATUS_OK) {
        st->status = GRPC_STATUS_INTERNAL;
        snprintf(st->details, sizeof st->details, "no response message");
    }
    grpc_slice_unref(details);
    grpc_metadata_array_destroy(&init_md);
    grpc_metadata_array_destroy(&trail_md);
    grpc_byte_buffer_destroy(send);
    if (recv)
        grpc_byte_buffer_destroy(recv);
    grpc_call_unref(call);
    grpc_completion_queue_shutdown(cq);
    while (grpc_completion_queue_pluck(cq, NULL, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
           GRPC_QUEUE_SHUTDOWN)
        ;
    grpc_completion_queue_destroy(cq);
    return st->status == GRPC_STATUS_OK ? 0 : -1;
}

static const char *status_name(grpc_status_code s)
{
    static const char *const names[] = {"OK",
                                        "CANCELLED",
                                        "UNKNOWN",
                                        "INVALID_ARGUMENT",
                                        "DEADLINE_EXCEEDED",
                                        "NOT_FOUND",
                                        "ALREADY_EXISTS",
                                        "PERMISSION_DENIED",
                                        "RESOURCE_EXHAUSTED",
                                        "FAILED_PRECONDITION",
                                        "ABORTED",
                                        "OUT_OF_RANGE",
                                        "UNIMPLEMENTED",
                                        "INTERNAL",
                                        "UNAVAILABLE",
                                        "DATA_LOSS",
                                        "UNAUTHENTICATED"};
    return (unsigned)s < sizeof names / sizeof names[0] ? names[s] : "?";
}

static int rpc_fail(const char *what, const rpc_status *st)
{
    fprintf(stderr, "cuzk-bench: %s: %s: %s\n", what, status_name(st->status), st->details);
    return 2;
}

/* A call of cuzk.v1.ProvingEngine/<method> with the --rpc-timeout; on
 * failure prints the one-line error (named `what`) and returns 2. */
static int engine_call(client *c, const copts *o, const char *method, const ProtobufCMessage *req,
                       const ProtobufCMessageDescriptor *resp_desc, ProtobufCMessage **resp,
                       const char *what)
{
    char path[128];
    rpc_status st;
    snprintf(path, sizeof path, "/cuzk.v1.ProvingEngine/%s", method);
    if (call_unary(c, path, req, resp_desc, resp, o->rpc_timeout_s, 0, &st))
        return rpc_fail(what, &st);
    return 0;
}

/* ---- options ---- */

static int parse_kind(const char *s)
{
    static const struct {
        const char *name;
        int kind;
    } k[] = {{"synthetic", CUZK_KIND_SYNTHETIC},
             {"r1cs", CUZK_KIND_GENERIC_R1CS},
             {"porep", CUZK_KIND_POREP_SEAL_COMMIT},
             {"snap", CUZK_KIND_SNAP_DEALS_UPDATE},
             {"window-post", CUZK_KIND_WINDOW_POST_PARTITION},
             {"winning-post", CUZK_KIND_WINNING_POST}};
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
        if (!strcmp(s, k[i].name))
            return k[i].kind;
    char *end;
    long v = strtol(s, &end, 10); /* a raw enum value, for tests of unknown kinds */
    return *s && !*end ? (int)v : -1;
}

static int parse_prio(const char *s)
{
    static const char *const names[] = {"unspecified", "low", "normal", "high", "critical"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(s, names[i]))
            return i;
    return -1;
}

static int parse_copts(int argc, char **argv, copts *o)
{
    memset(o, 0, sizeof *o);
    o->addr = getenv("CUZK_ADDR") ? getenv("CUZK_ADDR") : "unix:///run/curio/cuzk.sock";
    o->kind = CUZK_KIND_SYNTHETIC;
    o->constraints = 1024;
    o->seed = 1;
    o->n = 1;
    o->j = 1;
    o->timeout_s = 60;
    o->duration_s = 10;
    o->interval_ms = 200;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json") || !strcmp(a, "--mixed")) {
            *(a[2] == 'j' ? &o->json : &o->mixed) = 1;
            continue;
        }
        if (!strcmp(a, "--prove")) {
            o->prove_rpc = 1;
            continue;
        }
        if (a[0] != '-') {
            o->job_id = a; /* positional: job id or circuit id */
            continue;
        }
        if (!v) {
            fprintf(stderr, "cuzk-bench: %s needs a value\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "--addr")) {
            if (o->n_addrs == (int)(sizeof o->addrs / sizeof *o->addrs)) {
                fprintf(stderr, "cuzk-bench: at most %zu --addr\n",
                        sizeof o->addrs / sizeof *o->addrs);
                return -1;
            }
            o->addr = o->addrs[o->n_addrs++] = v;
        } else if (!strcmp(a, "--retries"))
            o->retries = atoi(v);
        else if (!strcmp(a, "--tls-ca"))
            o->tls_ca = v;
        else if (!strcmp(a, "--tls-cert"))
            o->tls_cert = v;
        else if (!strcmp(a, "--tls-key"))
            o->tls_key = v;
        else if (!strcmp(a, "--tls-server-name"))
            o->tls_server_name = v;
        else if (!strcmp(a, "--out"))
            o->out = v;
        else if (!strcmp(a, "--public-out"))
            o->public_out = v;
        else if (!strcmp(a, "--circuit"))
            o->circuit = v;
        else if (!strcmp(a, "--request-id"))
            o->request_id = v;
        else if (!strcmp(a, "--witness")) {
            if (o->n_witness == MAX_WIT) {
                fprintf(stderr, "cuzk-bench: at most %d witnesses\n", MAX_WIT);
                return -1;
            }
            o->witness[o->n_witness++] = v;
        } else if (!strcmp(a, "--kind")) {
            if ((o->kind = parse_kind(v)) < 0) {
                fprintf(stderr, "cuzk-bench: unknown kind \"%s\"\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--priority")) {
            if ((o->priority = parse_prio(v)) < 0) {
                fprintf(stderr, "cuzk-bench: unknown priority \"%s\"\n", v);
                return -1;
            }
        } else if (!strcmp(a, "--timeout"))
            o->timeout_s = atof(v);
        else if (!strcmp(a, "--rpc-timeout"))
            o->rpc_timeout_s = atof(v);
        else if (!strcmp(a, "--timeout-ms"))
            o->timeout_ms = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--constraints"))
            o->constraints = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed"))
            o->seed = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--vanilla")) {
            const char **nv = realloc(o->vanilla, (o->n_vanilla + 1) * sizeof *nv);
            if (!nv)
                return -1;
            o->vanilla = nv;
            o->vanilla[o->n_vanilla++] = v;
        } else if (!strcmp(a, "--vanilla-dir"))
            o->vanilla_dir = v;
        else if (!strcmp(a, "--randomness"))
            o->randomness = v;
        else if (!strcmp(a, "--comm-r-old"))
            o->comm_r_old = v;
        else if (!strcmp(a, "--comm-d-new"))
            o->comm_d_new = v;
        else if (!strcmp(a, "--comm-r-new"))
            o->comm_r_new = v;
        else if (!strcmp(a, "--registered-proof"))
            o->registered_proof = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--sector-size"))
            o->sector_size = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--sector-number"))
            o->sector_number = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--miner-id"))
            o->miner_id = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--partition-index"))
            o->partition_index = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--public-inputs"))
            o->public_inputs = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--partitions"))
            o->partitions = (uint32_t)strtoul(v, NULL, 0);
        else if (!strcmp(a, "--duration"))
            o->duration_s = atof(v);
        else if (!strcmp(a, "--rate"))
            o->rate = atof(v);
        else if (!strcmp(a, "--pid"))
            o->pid = atoi(v);
        else if (!strcmp(a, "--interval-ms"))
            o->interval_ms = atoi(v);
        else if (!strcmp(a, "-n"))
            o->n = atoi(v);
        else if (!strcmp(a, "-j"))
            o->j = atoi(v);
        else {
            fprintf(stderr, "cuzk-bench: unknown option %s\n", a);
            return -1;
        }
    }
    if (o->n < 1 || o->j < 1 || o->interval_ms < 1 || o->duration_s <= 0 || o->rate < 0) {
        fprintf(stderr, "cuzk-bench: -n, -j and --interval-ms must be >= 1, --duration > 0, "
                        "--rate >= 0\n");
        return -1;
    }
    return 0;
}

/* The SubmitProofRequest of a job spec; witness files are read into *bufs
 * (freed by the caller). */
typedef struct {
    Cuzk__V1__SubmitProofRequest req;
    ProtobufCBinaryData wit[MAX_WIT];
    uint8_t *bufs[MAX_WIT];
    int n;
    ProtobufCBinaryData *van; /* PoSt vanilla proofs, their data malloc'd */
    size_t n_van;
    uint8_t randomness[32];
    uint8_t comm[3][32]; /* SnapDeals: comm_r_old, comm_d_new, comm_r_new */
} job_spec;

/* 64 hex digits into 32 bytes; -1 (message printed) otherwise. */
static int hex32(const char *what, const char *h, uint8_t out[32])
{
    if (!h || strlen(h) != 64) {
        fprintf(stderr, "cuzk-bench: %s needs 64 hex digits\n", what);
        return -1;
    }
    for (int i = 0; i < 32; i++) {
        int hi = cuzk_hex_digit(h[2 * i]), lo = cuzk_hex_digit(h[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            fprintf(stderr, "cuzk-bench: %s: not hex: %s\n", what, h);
            return -1;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* The sector id in a "sector-<id>.vproof" name, or -1. */
static long long vproof_id(const char *name)
{
    unsigned long long id;
    int end = 0;
    if (sscanf(name, "sector-%llu.vproof%n", &id, &end) != 1 || name[end])
        return -1;
    return (long long)id;
}

static int by_sector_id(const void *a, const void *b)
{
    long long x = vproof_id(*(char *const *)a), y = vproof_id(*(char *const *)b);
    return x < y ? -1 : x > y;
}

/* Read one vanilla proof file into the spec. */
static int add_vanilla(job_spec *js, const char *path)
{
    ProtobufCBinaryData *v = realloc(js->van, (js->n_van + 1) * sizeof *v);
    if (!v)
        return -1;
    js->van = v;
    size_t n;
    uint8_t *buf;
    if (cuzk_read_file(path, &buf, &n) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench: %s\n", cuzk_errmsg());
        return -1;
    }
    js->van[js->n_van].data = buf;
    js->van[js->n_van++].len = n;
    return 0;
}

/* The PoSt part of a spec: vanilla proofs (files, or a folder's
 * sector-<id>.vproof in id order) and the 32-byte randomness. */
static int spec_post(const copts *o, job_spec *js)
{
    for (size_t i = 0; i < o->n_vanilla; i++)
        if (add_vanilla(js, o->vanilla[i]))
            return -1;
    if (o->vanilla_dir) {
        DIR *d = opendir(o->vanilla_dir);
        if (!d) {
            fprintf(stderr, "cuzk-bench: --vanilla-dir %s: %s\n", o->vanilla_dir,
                    cuzk_strerror(errno));
            return -1;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *de;
        int rc = 0;
        while (!rc && (de = readdir(d)))
            if (vproof_id(de->d_name) >= 0) {
                char **nn = realloc(names, (n + 1) * sizeof *nn);
                if (!nn || !(nn[n] = strdup(de->d_name)))
                    rc = -1;
                names = nn ? nn : names;
                n += !rc;
            }
        closedir(d);
        if (!rc)
            qsort(names, n, sizeof *names, by_sector_id);
        for (size_t i = 0; i < n; i++) {
            char path[4200];
            snprintf(path, sizeof path, "%s/%s", o->vanilla_dir, names[i]);
            if (!rc)
                rc = add_vanilla(js, path);
            free(names[i]);
        }
        free(names);
        if (rc)
            return -1;
    }
    if (hex32("PoSt jobs: --randomness", o->randomness, js->randomness))
        return -1;
    js->req.n_vanilla_proofs = js->n_van;
    js->req.vanilla_proofs = js->van;
    js->req.randomness.data = js->randomness;
    js->req.randomness.len = 32;
    js->req.registered_proof = o->registered_proof;
    js->req.sector_size = o->sector_size;
    js->req.miner_id = o->miner_id;
    js->req.partition_index = o->partition_index;
    return 0;
}

static int spec_build(const copts *o, job_spec *js)
{
    memset(js, 0, sizeof *js);
    cuzk__v1__submit_proof_request__init(&js->req);
    js->req.proof_kind = (Cuzk__V1__ProofKind)o->kind;
    js->req.priority = (Cuzk__V1__Priority)o->priority;
    js->req.request_id = (char *)(o->request_id ? o->request_id : "");
    js->req.circuit_id = (char *)(o->circuit ? o->circuit : "");
    js->req.synthetic_constraints = o->kind == CUZK_KIND_SYNTHETIC ? o->constraints : 0;
    js->req.synthetic_public_inputs = o->public_inputs;
    js->req.synthetic_seed = o->seed;
    js->req.synthetic_partitions = o->partitions;
    for (int i = 0; i < o->n_witness; i++) {
        size_t n;
        if (cuzk_read_file(o->witness[i], &js->bufs[i], &n) != CUZK_OK) {
            fprintf(stderr, "cuzk-bench: cannot read witness %s\n", o->witness[i]);
            return -1;
        }
        js->wit[i].data = js->bufs[i];
        js->wit[i].len = n;
        js->n++;
    }
    js->req.n_witnesses = (size_t)js->n;
    js->req.witnesses = js->wit;
    if (o->kind == CUZK_KIND_WINNING_POST || o->kind == CUZK_KIND_WINDOW_POST_PARTITION)
        return spec_post(o, js);
    if (o->kind == CUZK_KIND_SNAP_DEALS_UPDATE) {
        /* One PartitionProof per partition, in order, and the commitments. */
        for (size_t i = 0; i < o->n_vanilla; i++)
            if (add_vanilla(js, o->vanilla[i]))
                return -1;
        if (hex32("--comm-r-old", o->comm_r_old, js->comm[0]) ||
            hex32("--comm-d-new", o->comm_d_new, js->comm[1]) ||
            hex32("--comm-r-new", o->comm_r_new, js->comm[2]))
            return -1;
        js->req.n_vanilla_proofs = js->n_van;
        js->req.vanilla_proofs = js->van;
        js->req.comm_r_old = (ProtobufCBinaryData){32, js->comm[0]};
        js->req.comm_d_new = (ProtobufCBinaryData){32, js->comm[1]};
        js->req.comm_r_new = (ProtobufCBinaryData){32, js->comm[2]};
        js->req.registered_proof = o->registered_proof;
        js->req.sector_size = o->sector_size;
        js->req.sector_number = o->sector_number;
        js->req.miner_id = o->miner_id;
        return 0;
    }
    if (o->kind == CUZK_KIND_POREP_SEAL_COMMIT && o->n_vanilla) {
        /* The C1 envelope goes as vanilla_proof, as Curio sends it. */
        if (o->n_vanilla != 1 || add_vanilla(js, o->vanilla[0]))
            return -1;
        js->req.vanilla_proof = js->van[0];
        js->req.registered_proof = o->registered_proof;
        js->req.sector_size = o->sector_size;
        js->req.sector_number = o->sector_number;
        js->req.miner_id = o->miner_id;
    }
    return 0;
}

static void spec_free(job_spec *js)
{
    for (int i = 0; i < js->n; i++)
        free(js->bufs[i]);
    for (size_t i = 0; i < js->n_van; i++)
        free(js->van[i].data);
    free(js->van);
    js->van = NULL;
    js->n_van = 0;
}

static const char *job_status_name(int s)
{
    static const char *const names[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && s <= 4 ? names[s] : "?";
}

/* key (a literal) and s as a JSON string, escaped; sep is printed first. */
static void json_str(const char *sep, const char *key, const char *s)
{
    printf("%s\"%s\":\"", sep, key);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++)
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    putchar('"');
}

static void print_result(const copts *o, const Cuzk__V1__AwaitProofResponse *r)
{
    if (o->json) {
        json_str("{", "job_id", r->job_id);
        printf(",\"status\":\"%s\",\"proof_bytes\":%zu,\"queue_wait_ms\":%llu,"
               "\"srs_load_ms\":%llu,\"synthesis_ms\":%llu,\"gpu_compute_ms\":%llu,"
               "\"verify_ms\":%llu,\"total_ms\":%llu",
               job_status_name(r->status), r->proof.len, (unsigned long long)r->queue_wait_ms,
               (unsigned long long)r->srs_load_ms, (unsigned long long)r->synthesis_ms,
               (unsigned long long)r->gpu_compute_ms, (unsigned long long)r->verify_ms,
               (unsigned long long)r->total_ms);
        json_str(",", "circuit_id", r->circuit_id);
        json_str(",", "error", r->error_message);
        printf("}\n");
        return;
    }
    printf("job=%s status=%s proof_bytes=%zu queue_ms=%llu srs_load_ms=%llu synthesis_ms=%llu "
           "prove_ms=%llu verify_ms=%llu total_ms=%llu circuit=%s\n",
           r->job_id, job_status_name(r->status), r->proof.len,
           (unsigned long long)r->queue_wait_ms, (unsigned long long)r->srs_load_ms,
           (unsigned long long)r->synthesis_ms, (unsigned long long)r->gpu_compute_ms,
           (unsigned long long)r->verify_ms, (unsigned long long)r->total_ms, r->circuit_id);
    if (r->error_message[0])
        printf("error: %s\n", r->error_message);
}

/* Public inputs in the text format `cuzk verify --public` reads. */
static int write_public(const char *path, const Cuzk__V1__AwaitProofResponse *r)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "# public inputs of %s, partition after partition\n", r->job_id);
    for (size_t p = 0; p < r->n_public_inputs; p++)
        for (size_t i = 0; i + 32 <= r->public_inputs[p].len; i += 32) {
            fprintf(f, "0x");
            for (int b = 31; b >= 0; b--) /* little-endian bytes -> big-endian hex */
                fprintf(f, "%02x", r->public_inputs[p].data[i + (size_t)b]);
            fprintf(f, "\n");
        }
    return fclose(f) == 0 ? 0 : -1;
}

/* ---- commands ---- */

static int cmd_wait_ready(client *c, const copts *o)
{
    double t0 = cuzk_now(), last = 0;
    Grpc__Health__V1__HealthCheckRequest req = GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
    for (;;) {
        ProtobufCMessage *resp;
        rpc_status st;
        double left = o->timeout_s - (cuzk_now() - t0);
        int ok = call_unary(c, "/grpc.health.v1.Health/Check", &req.base,
                            &grpc__health__v1__health_check_response__descriptor, &resp,
                            left > 1 ? 1 : (left > 0.05 ? left : 0.05), 1, &st) == 0;
        int serving = ok && ((Grpc__Health__V1__HealthCheckResponse *)resp)->status ==
                                GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING;
        if (resp)
            protobuf_c_message_free_unpacked(resp, NULL);
        double el = cuzk_now() - t0;
        if (serving) {
            printf("ready after %.3f s\n", el);
            return 0;
        }
        if (el >= o->timeout_s) {
            fprintf(stderr, "cuzk-bench: wait-ready: %s not ready after %.1f s (%s)\n", o->addr, el,
                    ok ? "NOT_SERVING: loading" : st.details);
            return 1;
        }
        if (el - last >= 2) {
            fprintf(stderr, "waiting for %s: %s (%.0f s)\n", o->addr,
                    ok ? "not serving yet (loading SRS)" : "not reachable yet", el);
            last = el;
        }
        usleep(ok ? 100000 : 50000);
    }
}

static int submit_spec(client *c, const copts *o, job_spec *js, char *job_id, size_t cap)
{
    ProtobufCMessage *resp;
    if (engine_call(c, o, "SubmitProof", &js->req.base,
                    &cuzk__v1__submit_proof_response__descriptor, &resp, "submit"))
        return 2;
    Cuzk__V1__SubmitProofResponse *r = (Cuzk__V1__SubmitProofResponse *)resp;
    snprintf(job_id, cap, "%s", r->job_id);
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

static int await_job(client *c, const copts *o, const char *job_id,
                     Cuzk__V1__AwaitProofResponse **out)
{
    Cuzk__V1__AwaitProofRequest req = CUZK__V1__AWAIT_PROOF_REQUEST__INIT;
    req.job_id = (char *)job_id;
    req.timeout_ms = o->timeout_ms;
    ProtobufCMessage *resp;
    if (engine_call(c, o, "AwaitProof", &req.base, &cuzk__v1__await_proof_response__descriptor,
                    &resp, "await"))
        return 2;
    *out = (Cuzk__V1__AwaitProofResponse *)resp;
    return 0;
}

static int finish_single(const copts *o, Cuzk__V1__AwaitProofResponse *r)
{
    print_result(o, r);
    int rc = r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED ? 0 : 1;
    if (!rc && o->out && cuzk_write_file(o->out, r->proof.data, r->proof.len) != CUZK_OK) {
        fprintf(stderr, "cuzk-bench: cannot write %s\n", o->out);
        rc = 2;
    }
    if (!rc && o->public_out && write_public(o->public_out, r) != 0) {
        fprintf(stderr, "cuzk-bench: cannot write %s\n", o->public_out);
        rc = 2;
    }
    protobuf_c_message_free_unpacked(&r->base, NULL);
    return rc;
}

static int cmd_single(client *c, const copts *o, int submit_only)
{
    job_spec js;
    if (spec_build(o, &js)) {
        spec_free(&js);
        return 2;
    }
    char job_id[128];
    int rc = submit_spec(c, o, &js, job_id, sizeof job_id);
    spec_free(&js);
    if (rc)
        return rc;
    if (submit_only) {
        printf("%s\n", job_id);
        return 0;
    }
    Cuzk__V1__AwaitProofResponse *r;
    if ((rc = await_job(c, o, job_id, &r)) != 0)
        return rc;
    return finish_single(o, r);
}

static int cmd_await(client *c, const copts *o)
{
    if (!o->job_id) {
        fprintf(stderr, "cuzk-bench: await needs a job id\n");
        return 2;
    }
    Cuzk__V1__AwaitProofResponse *r;
    int rc = await_job(c, o, o->job_id, &r);
    return rc ? rc : finish_single(o, r);
}

typedef struct {
    client *c;
    const copts *o;
    job_spec *js;
    pthread_mutex_t lock;
    int next, done, completed, failed, rpc_errors;
    int unavailable, retried_ok; /* --prove: UNAVAILABLE answers, jobs done after one */
    double *totals;              /* seconds per job, client-side */
    uint64_t sum_queue, sum_synth, sum_prove, sum_srs;
    cuzk_progress *progress; /* jobs done, on stderr (NULL with --json) */
} batch_state;

/* One job by the Prove RPC (submit and await in one call, so that a load
 * balancer keeps both on one daemon), tried again on UNAVAILABLE (a daemon
 * gone, or none reachable) up to --retries times. 0 with *out (free *held);
 * 2 after printing the RPC error. */
static int prove_job(batch_state *b, Cuzk__V1__AwaitProofResponse **out, ProtobufCMessage **held,
                     int *unavailable)
{
    Cuzk__V1__ProveRequest req = CUZK__V1__PROVE_REQUEST__INIT;
    req.submit = &b->js->req;
    rpc_status st;
    *unavailable = 0;
    for (int attempt = 0;; attempt++) {
        if (!call_unary(b->c, "/cuzk.v1.ProvingEngine/Prove", &req.base,
                        &cuzk__v1__prove_response__descriptor, held, b->o->rpc_timeout_s, 0, &st)) {
            Cuzk__V1__ProveResponse *r = (Cuzk__V1__ProveResponse *)*held;
            if (r->result) {
                *out = r->result;
                return 0;
            }
            protobuf_c_message_free_unpacked(*held, NULL);
            *held = NULL;
            fprintf(stderr, "cuzk-bench: prove: an answer without a result\n");
            return 2;
        }
        if (st.status != GRPC_STATUS_UNAVAILABLE || attempt >= b->o->retries)
            return rpc_fail("prove", &st);
        (*unavailable)++;
    }
}

static void *batch_worker(void *arg)
{
    batch_state *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        int i = b->next < b->o->n ? b->next++ : -1;
        pthread_mutex_unlock(&b->lock);
        if (i < 0)
            return NULL;
        double t = cuzk_now();
        char job_id[128];
        Cuzk__V1__AwaitProofResponse *r = NULL;
        ProtobufCMessage *held = NULL; /* what r lives in */
        int rc, unavailable = 0;
        if (b->o->prove_rpc) {
            rc = prove_job(b, &r, &held, &unavailable);
        } else {
            rc = submit_spec(b->c, b->o, b->js, job_id, sizeof job_id);
            if (!rc && !(rc = await_job(b->c, b->o, job_id, &r)))
                held = &r->base;
        }
        pthread_mutex_lock(&b->lock);
        b->totals[i] = cuzk_now() - t;
        b->done++;
        b->unavailable += unavailable;
        if (rc)
            b->rpc_errors++;
        else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
            b->completed++;
            b->retried_ok += unavailable > 0;
            b->sum_queue += r->queue_wait_ms;
            b->sum_srs += r->srs_load_ms;
            b->sum_synth += r->synthesis_ms;
            b->sum_prove += r->gpu_compute_ms;
        } else {
            b->failed++;
            fprintf(stderr, "cuzk-bench: %s %s: %s\n", r->job_id, job_status_name(r->status),
                    r->error_message);
        }
        cuzk_progress_update(b->progress, (uint64_t)b->done);
        pthread_mutex_unlock(&b->lock);
        if (held)
            protobuf_c_message_free_unpacked(held, NULL);
    }
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Run fn(arg) on j threads and wait for all; 0, or -1 when none started. */
static int run_threads(int j, void *(*fn)(void *), void *arg)
{
    pthread_t *th = calloc((size_t)j, sizeof *th);
    int started = 0;
    for (int i = 0; th && i < j; i++)
        if (pthread_create(&th[started], NULL, fn, arg) == 0)
            started++;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    return started ? 0 : -1;
}

/* Nearest-rank percentile of a sorted array (0 when empty). */
static double percentile(const double *sorted, int n, double q)
{
    if (n <= 0)
        return 0;
    int i = (int)ceil(q * n) - 1;
    return sorted[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static int cmd_batch(client *c, const copts *o)
{
    job_spec js;
    if (spec_build(o, &js)) {
        spec_free(&js);
        return 2;
    }
    batch_state b;
    memset(&b, 0, sizeof b);
    b.c = c, b.o = o, b.js = &js;
    pthread_mutex_init(&b.lock, NULL);
    b.totals = calloc((size_t)o->n, sizeof *b.totals);
    double t0 = cuzk_now();
    if (!b.totals ||
        cuzk_progress_open(&b.progress, "batch", (uint64_t)o->n, "proofs", stderr,
                           o->json ? CUZK_PROGRESS_OFF : CUZK_PROGRESS_AUTO) ||
        run_threads(o->j, batch_worker, &b)) {
        fprintf(stderr, "cuzk-bench: out of memory or threads\n");
        cuzk_progress_finish(b.progress);
        free(b.totals);
        spec_free(&js);
        return 2;
    }
    double wall = cuzk_now() - t0;
    cuzk_progress_finish(b.progress);
    qsort(b.totals, (size_t)o->n, sizeof *b.totals, cmp_d);
    double p50 = percentile(b.totals, o->n, 0.5), p95 = percentile(b.totals, o->n, 0.95);
    int k = b.completed ? b.completed : 1;
    if (o->json)
        printf("{\"jobs\":%d,\"concurrency\":%d,\"completed\":%d,\"failed\":%d,\"rpc_errors\":%d,"
               "\"wall_s\":%.3f,\"proofs_per_s\":%.3f,\"latency_p50_s\":%.3f,"
               "\"latency_p95_s\":%.3f,\"mean_queue_ms\":%.1f,\"mean_srs_load_ms\":%.1f,"
               "\"mean_synthesis_ms\":%.1f,\"mean_prove_ms\":%.1f,\"unavailable\":%d,"
               "\"retried_ok\":%d}\n",
               o->n, o->j, b.completed, b.failed, b.rpc_errors, wall, b.completed / wall, p50, p95,
               (double)b.sum_queue / k, (double)b.sum_srs / k, (double)b.sum_synth / k,
               (double)b.sum_prove / k, b.unavailable, b.retried_ok);
    else
        printf("batch jobs=%d concurrency=%d completed=%d failed=%d rpc_errors=%d wall_s=%.3f "
               "proofs_per_s=%.3f latency_p50_s=%.3f latency_p95_s=%.3f mean_queue_ms=%.1f "
               "mean_srs_load_ms=%.1f mean_synthesis_ms=%.1f mean_prove_ms=%.1f unavailable=%d "
               "retried_ok=%d\n",
               o->n, o->j, b.completed, b.failed, b.rpc_errors, wall, b.completed / wall, p50, p95,
               (double)b.sum_queue / k, (double)b.sum_srs / k, (double)b.sum_synth / k,
               (double)b.sum_prove / k, b.unavailable, b.retried_ok);
    free(b.totals);
    pthread_mutex_destroy(&b.lock);
    spec_free(&js);
    return b.completed == o->n ? 0 : 1;
}

static int cmd_cancel(client *c, const copts *o)
{
    if (!o->job_id) {
        fprintf(stderr, "cuzk-bench: cancel needs a job id\n");
        return 2;
    }
    Cuzk__V1__CancelProofRequest req = CUZK__V1__CANCEL_PROOF_REQUEST__INIT;
    req.job_id = (char *)o->job_id;
    ProtobufCMessage *resp;
    if (engine_call(c, o, "CancelProof", &req.base, &cuzk__v1__cancel_proof_response__descriptor,
                    &resp, "cancel"))
        return 2;
    printf("cancelled %s was_running=%s\n", o->job_id,
           ((Cuzk__V1__CancelProofResponse *)resp)->was_running ? "true" : "false");
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

static int cmd_srs(client *c, const copts *o, int evict)
{
    if (!o->job_id) {
        fprintf(stderr, "cuzk-bench: %s needs a circuit id\n", evict ? "evict" : "preload");
        return 2;
    }
    ProtobufCMessage *resp;
    if (evict) {
        Cuzk__V1__EvictSrsRequest req = CUZK__V1__EVICT_SRS_REQUEST__INIT;
        req.circuit_id = (char *)o->job_id;
        if (engine_call(c, o, "EvictSRS", &req.base, &cuzk__v1__evict_srs_response__descriptor,
                        &resp, "evict"))
            return 2;
        Cuzk__V1__EvictSrsResponse *r = (Cuzk__V1__EvictSrsResponse *)resp;
        printf("evict circuit=%s was_loaded=%s freed_bytes=%llu\n", o->job_id,
               r->was_loaded ? "true" : "false", (unsigned long long)r->freed_bytes);
    } else {
        Cuzk__V1__PreloadSrsRequest req = CUZK__V1__PRELOAD_SRS_REQUEST__INIT;
        req.circuit_id = (char *)o->job_id;
        if (engine_call(c, o, "PreloadSRS", &req.base, &cuzk__v1__preload_srs_response__descriptor,
                        &resp, "preload"))
            return 2;
        Cuzk__V1__PreloadSrsResponse *r = (Cuzk__V1__PreloadSrsResponse *)resp;
        printf("preload circuit=%s already_loaded=%s load_time_ms=%llu\n", o->job_id,
               r->already_loaded ? "true" : "false", (unsigned long long)r->load_time_ms);
    }
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

/* GetStatus as one JSON object: the totals, then arrays of queues, SRS and
 * jobs with the fields of the text form. */
static const char *const tiers[] = {"hot", "warm", "cold"};

/* One daemon's status as a JSON object (no newline). */
static void status_json(const Cuzk__V1__GetStatusResponse *r)
{
    printf("{\"ready\":%s", r->ready ? "true" : "false");
    json_str(",", "backend", r->backend);
    json_str(",", "node_name", r->node_name);
    printf(",\"uptime_s\":%llu,\"completed\":%llu,\"failed\":%llu,\"cancelled\":%llu,"
           "\"rss_bytes\":%llu,\"budget_bytes\":%llu,\"used_bytes\":%llu,"
           "\"pinned_bytes\":%llu,\"queues\":[",
           (unsigned long long)r->uptime_seconds, (unsigned long long)r->total_proofs_completed,
           (unsigned long long)r->total_proofs_failed,
           (unsigned long long)r->total_proofs_cancelled, (unsigned long long)r->rss_bytes,
           (unsigned long long)r->memory_budget_bytes, (unsigned long long)r->memory_used_bytes,
           (unsigned long long)r->pinned_memory_bytes);
    for (size_t i = 0; i < r->n_queues; i++)
        printf("%s{\"kind\":\"%s\",\"pending\":%u,\"in_progress\":%u}", i ? "," : "",
               cuzk_kind_name((int)r->queues[i]->proof_kind), r->queues[i]->pending,
               r->queues[i]->in_progress);
    printf("],\"srs\":[");
    for (size_t i = 0; i < r->n_loaded_srs; i++) {
        json_str(i ? ",{" : "{", "circuit", r->loaded_srs[i]->circuit_id);
        printf(",\"tier\":\"%s\",\"size_bytes\":%llu,\"refs\":%u}",
               (unsigned)r->loaded_srs[i]->tier < 3 ? tiers[r->loaded_srs[i]->tier] : "?",
               (unsigned long long)r->loaded_srs[i]->size_bytes, r->loaded_srs[i]->ref_count);
    }
    printf("],\"jobs\":[");
    for (size_t i = 0; i < r->n_jobs; i++) {
        json_str(i ? ",{" : "{", "id", r->jobs[i]->job_id);
        printf(",\"kind\":\"%s\"", cuzk_kind_name((int)r->jobs[i]->proof_kind));
        json_str(",", "stage", r->jobs[i]->stage);
        printf(",\"partitions_done\":%u,\"partitions\":%u}", r->jobs[i]->partitions_done,
               r->jobs[i]->partitions);
    }
    printf("]}");
}

static int cmd_status(client *c, const copts *o)
{
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *resp;
    if (engine_call(c, o, "GetStatus", &req.base, &cuzk__v1__get_status_response__descriptor, &resp,
                    "status"))
        return 2;
    Cuzk__V1__GetStatusResponse *r = (Cuzk__V1__GetStatusResponse *)resp;
    if (o->json) {
        status_json(r);
        printf("\n");
        protobuf_c_message_free_unpacked(resp, NULL);
        return 0;
    }
    printf("ready=%s backend=%s node=%s uptime_s=%llu completed=%llu failed=%llu cancelled=%llu "
           "rss_bytes=%llu budget_bytes=%llu used_bytes=%llu\n",
           r->ready ? "true" : "false", r->backend, r->node_name,
           (unsigned long long)r->uptime_seconds, (unsigned long long)r->total_proofs_completed,
           (unsigned long long)r->total_proofs_failed,
           (unsigned long long)r->total_proofs_cancelled, (unsigned long long)r->rss_bytes,
           (unsigned long long)r->memory_budget_bytes, (unsigned long long)r->memory_used_bytes);
    for (size_t i = 0; i < r->n_queues; i++)
        printf("queue kind=%s pending=%u in_progress=%u\n",
               cuzk_kind_name((int)r->queues[i]->proof_kind), r->queues[i]->pending,
               r->queues[i]->in_progress);
    for (size_t i = 0; i < r->n_loaded_srs; i++)
        printf("srs circuit=%s tier=%s size_bytes=%llu refs=%u\n", r->loaded_srs[i]->circuit_id,
               (unsigned)r->loaded_srs[i]->tier < 3 ? tiers[r->loaded_srs[i]->tier] : "?",
               (unsigned long long)r->loaded_srs[i]->size_bytes, r->loaded_srs[i]->ref_count);
    for (size_t i = 0; i < r->n_jobs; i++)
        printf("job id=%s kind=%s stage=%s partitions=%u/%u\n", r->jobs[i]->job_id,
               cuzk_kind_name((int)r->jobs[i]->proof_kind), r->jobs[i]->stage,
               r->jobs[i]->partitions_done, r->jobs[i]->partitions);
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

/* GetStatus of one daemon; NULL (the reason in why) when it does not
 * answer. */
static Cuzk__V1__GetStatusResponse *status_of(const copts *o, const char *addr, char *why,
                                              size_t cap)
{
    client c;
    if (client_open(&c, o, addr)) {
        snprintf(why, cap, "cannot create a channel");
        return NULL;
    }
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    ProtobufCMessage *resp = NULL;
    rpc_status st;
    if (call_unary(&c, "/cuzk.v1.ProvingEngine/GetStatus", &req.base,
                   &cuzk__v1__get_status_response__descriptor, &resp, o->rpc_timeout_s, 0, &st))
        snprintf(why, cap, "%s: %s", status_name(st.status), st.details);
    client_close(&c);
    return (Cuzk__V1__GetStatusResponse *)resp;
}

/* `status --addr A --addr B ...`: one row per daemon (or one JSON object
 * each, in a list); exit 1 when one does not answer. */
static int cmd_status_fleet(const copts *o)
{
    copts oo = *o;
    if (oo.rpc_timeout_s <= 0)
        oo.rpc_timeout_s = 10; /* one dead daemon must not hang the table */
    int bad = 0;
    if (o->json)
        printf("[");
    else
        printf("%-20s %-32s %-5s %-8s %9s %7s %6s %9s %6s %8s %s\n", "NODE", "ADDR", "READY",
               "BACKEND", "UPTIME_S", "RUNNING", "QUEUED", "COMPLETED", "FAILED", "RSS_GIB", "SRS");
    for (int i = 0; i < o->n_addrs; i++) {
        char why[1200] = "";
        Cuzk__V1__GetStatusResponse *r = status_of(&oo, o->addrs[i], why, sizeof why);
        if (o->json) {
            json_str(i ? ",{" : "{", "addr", o->addrs[i]);
            if (!r) {
                json_str(",", "error", why);
                printf("}");
            } else {
                printf(",\"status\":");
                status_json(r);
                printf("}");
            }
        } else if (!r) {
            printf("%-20s %-32s unreachable: %s\n", "-", o->addrs[i], why);
        } else {
            unsigned run = 0, queued = 0;
            for (size_t q = 0; q < r->n_queues; q++)
                run += r->queues[q]->in_progress, queued += r->queues[q]->pending;
            char srs[512] = "";
            for (size_t s = 0; s < r->n_loaded_srs; s++)
                snprintf(srs + strlen(srs), sizeof srs - strlen(srs), "%s%s", s ? "," : "",
                         r->loaded_srs[s]->circuit_id);
            printf("%-20s %-32s %-5s %-8s %9llu %7u %6u %9llu %6llu %8.1f %s\n", r->node_name,
                   o->addrs[i], r->ready ? "yes" : "no", r->backend,
                   (unsigned long long)r->uptime_seconds, run, queued,
                   (unsigned long long)r->total_proofs_completed,
                   (unsigned long long)r->total_proofs_failed,
                   (double)r->rss_bytes / (1024.0 * 1024 * 1024), srs[0] ? srs : "-");
        }
        if (r)
            protobuf_c_message_free_unpacked(&r->base, NULL);
        else
            bad = 1;
    }
    if (o->json)
        printf("]\n");
    return bad;
}

static int cmd_metrics(client *c, const copts *o)
{
    Cuzk__V1__GetMetricsRequest req = CUZK__V1__GET_METRICS_REQUEST__INIT;
    ProtobufCMessage *resp;
    if (engine_call(c, o, "GetMetrics", &req.base, &cuzk__v1__get_metrics_response__descriptor,
                    &resp, "metrics"))
        return 2;
    fputs(((Cuzk__V1__GetMetricsResponse *)resp)->prometheus_text, stdout);
    protobuf_c_message_free_unpacked(resp, NULL);
    return 0;
}

/* ---- stress ---- */

#define STRESS_MAX_JOBS 100000

typedef struct {
    client *c;
    const copts *o;
    job_spec *js;
    pthread_mutex_t lock;
    double t0;
    int next;
    int completed, failed_expected, failed, cancelled, rpc_errors;
    double *lat[5]; /* seconds, by priority 1..4 */
    int n_lat[5];
} stress_state;

static void *stress_worker(void *arg)
{
    stress_state *st = arg;
    const copts *o = st->o;
    for (;;) {
        pthread_mutex_lock(&st->lock);
        int i = st->next < STRESS_MAX_JOBS ? st->next++ : -1;
        pthread_mutex_unlock(&st->lock);
        if (i < 0)
            return NULL;
        if (o->rate > 0) { /* job i is due at t0 + i / rate */
            double wait = st->t0 + i / o->rate - cuzk_now();
            if (wait > 0)
                usleep((useconds_t)(wait * 1e6));
        }
        if (cuzk_now() - st->t0 >= o->duration_s)
            return NULL;
        int prio = 1 + i % 4, filecoin = o->mixed && i % 5 == 4;
        Cuzk__V1__SubmitProofRequest req = st->js->req; /* shallow: shared inputs */
        req.priority = (Cuzk__V1__Priority)prio;
        static uint8_t junk[2] = {1, 2}, zero[32];
        static ProtobufCBinaryData junk_proof = {sizeof junk, junk};
        if (filecoin) { /* a SnapDeals job whose partition proof is not one */
            req.proof_kind = CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE;
            req.n_witnesses = 0;
            req.n_vanilla_proofs = 1;
            req.vanilla_proofs = &junk_proof;
            req.comm_r_old = req.comm_d_new = req.comm_r_new = (ProtobufCBinaryData){32, zero};
        }
        job_spec one = *st->js;
        one.req = req;
        double t = cuzk_now();
        char job_id[128];
        Cuzk__V1__AwaitProofResponse *r = NULL;
        int rc = submit_spec(st->c, o, &one, job_id, sizeof job_id);
        if (!rc)
            rc = await_job(st->c, o, job_id, &r);
        t = cuzk_now() - t;
        pthread_mutex_lock(&st->lock);
        if (rc) {
            st->rpc_errors++;
        } else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED && !filecoin) {
            st->completed++;
            st->lat[prio][st->n_lat[prio]++] = t;
        } else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__FAILED && filecoin &&
                   strstr(r->error_message, "vanilla_proofs[0]")) {
            st->failed_expected++;
        } else if (r->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED) {
            st->cancelled++;
        } else {
            st->failed++;
            fprintf(stderr, "cuzk-bench: %s %s: %s\n", r->job_id, job_status_name(r->status),
                    r->error_message);
        }
        pthread_mutex_unlock(&st->lock);
        if (r)
            protobuf_c_message_free_unpacked(&r->base, NULL);
    }
}

static int cmd_stress(client *c, const copts *o)
{
    job_spec js;
    if (spec_build(o, &js)) {
        spec_free(&js);
        return 2;
    }
    stress_state st;
    memset(&st, 0, sizeof st);
    st.c = c, st.o = o, st.js = &js;
    pthread_mutex_init(&st.lock, NULL);
    int ok = 1;
    for (int p = 1; p <= 4; p++)
        ok &= (st.lat[p] = calloc(STRESS_MAX_JOBS, sizeof(double))) != NULL;
    st.t0 = cuzk_now();
    if (!ok || run_threads(o->j, stress_worker, &st)) {
        fprintf(stderr, "cuzk-bench: out of memory or threads\n");
        for (int p = 1; p <= 4; p++)
            free(st.lat[p]);
        spec_free(&js);
        return 2;
    }
    double wall = cuzk_now() - st.t0;
    static const char *const names[] = {"", "low", "normal", "high", "critical"};
    printf(o->json ? "{\"wall_s\":%.3f,\"completed\":%d,\"failed_expected\":%d,\"failed\":%d,"
                     "\"cancelled\":%d,\"rpc_errors\":%d,\"proofs_per_s\":%.3f"
                   : "stress wall_s=%.3f completed=%d failed_expected=%d failed=%d cancelled=%d "
                     "rpc_errors=%d proofs_per_s=%.3f",
           wall, st.completed, st.failed_expected, st.failed, st.cancelled, st.rpc_errors,
           st.completed / wall);
    for (int p = 1; p <= 4; p++) {
        int n = st.n_lat[p];
        qsort(st.lat[p], (size_t)n, sizeof(double), cmp_d);
        double p50 = percentile(st.lat[p], n, 0.5), p95 = percentile(st.lat[p], n, 0.95);
        if (o->json)
            printf(",\"%s\":{\"n\":%d,\"p50_s\":%.3f,\"p95_s\":%.3f}", names[p], n, p50, p95);
        else
            printf("\n  priority=%s n=%d latency_p50_s=%.3f latency_p95_s=%.3f", names[p], n, p50,
                   p95);
        free(st.lat[p]);
    }
    printf("%s\n", o->json ? "}" : "");
    pthread_mutex_destroy(&st.lock);
    spec_free(&js);
    return st.failed || st.rpc_errors || st.cancelled ? 1 : 0;
}

/* ---- memmon ---- */

static uint64_t proc_rss(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    unsigned long long kb = 0;
    int found = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %llu kB", &kb) == 1) {
            found = 1;
            break;
        }
    if (f)
        fclose(f);
    return found ? (uint64_t)kb * 1024 : UINT64_MAX;
}

static int cmd_memmon(client *c, const copts *o)
{
    if (o->pid <= 0) {
        fprintf(stderr, "cuzk-bench: memmon needs --pid PID (the daemon's)\n");
        return 2;
    }
    FILE *csv = o->out ? fopen(o->out, "w") : stdout;
    if (!csv) {
        fprintf(stderr, "cuzk-bench: cannot create %s\n", o->out);
        return 2;
    }
    fprintf(csv, "t_s,rss_bytes,pinned_bytes,device_bytes,srs_bytes\n");
    uint64_t peak[4] = {0, 0, 0, 0};
    int samples = 0;
    double t0 = cuzk_now();
    Cuzk__V1__GetStatusRequest req = CUZK__V1__GET_STATUS_REQUEST__INIT;
    while (cuzk_now() - t0 < o->duration_s) {
        double t = cuzk_now();
        uint64_t v[4] = {proc_rss(o->pid), 0, 0, 0};
        if (v[0] == UINT64_MAX)
            break; /* the daemon is gone */
        ProtobufCMessage *resp;
        rpc_status rs;
        if (call_unary(c, "/cuzk.v1.ProvingEngine/GetStatus", &req.base,
                       &cuzk__v1__get_status_response__descriptor, &resp, 1.0, 0, &rs) == 0) {
            Cuzk__V1__GetStatusResponse *r = (Cuzk__V1__GetStatusResponse *)resp;
            v[1] = r->pinned_memory_bytes;
            for (size_t g = 0; g < r->n_gpus; g++)
                v[2] += r->gpus[g]->vram_total_bytes - r->gpus[g]->vram_free_bytes;
            v[3] = r->memory_used_bytes;
            protobuf_c_message_free_unpacked(resp, NULL);
        }
        fprintf(csv, "%.3f,%llu,%llu,%llu,%llu\n", t - t0, (unsigned long long)v[0],
                (unsigned long long)v[1], (unsigned long long)v[2], (unsigned long long)v[3]);
        fflush(csv);
        for (int k = 0; k < 4; k++)
            peak[k] = v[k] > peak[k] ? v[k] : peak[k];
        samples++;
        double left = o->interval_ms / 1000.0 - (cuzk_now() - t);
        if (left > 0)
            usleep((useconds_t)(left * 1e6));
    }
    if (o->out)
        fclose(csv);
    fprintf(o->out ? stdout : stderr,
            o->json ? "{\"samples\":%d,\"peak_rss_bytes\":%llu,\"peak_pinned_bytes\":%llu,"
                      "\"peak_device_bytes\":%llu,\"peak_srs_bytes\":%llu}\n"
                    : "memmon samples=%d peak_rss_bytes=%llu peak_pinned_bytes=%llu "
                      "peak_device_bytes=%llu peak_srs_bytes=%llu\n",
            samples, (unsigned long long)peak[0], (unsigned long long)peak[1],
            (unsigned long long)peak[2], (unsigned long long)peak[3]);
    return samples ? 0 : 1;
}

/* Returns -1 when argv[1] is not a client command (cuzk_bench.c goes on). */
int cuzk_bench_client(int argc, char **argv)
{
    static const char *const cmds[] = {"wait-ready", "single", "batch",  "submit",
                                       "await",      "cancel", "status", "metrics",
                                       "preload",    "evict",  "stress", "memmon"};
    int which = -1;
    for (int i = 0; i < (int)(sizeof cmds / sizeof cmds[0]); i++)
        if (argc >= 2 && !strcmp(argv[1], cmds[i]))
            which = i;
    if (which < 0)
        return -1;
    copts o;
    if (parse_copts(argc - 2, argv + 2, &o)) {
        free(o.vanilla);
        return 2;
    }
    if (o.n_addrs > 1 && which != 6) {
        fprintf(stderr, "cuzk-bench: %s takes one --addr (status takes several)\n", cmds[which]);
        free(o.vanilla);
        return 2;
    }
    if (o.n_addrs > 1) {
        int rc = cmd_status_fleet(&o);
        free(o.vanilla);
        return rc;
    }
    client c;
    if (client_open(&c, &o, o.addr)) {
        fprintf(stderr, "cuzk-bench: cannot create a channel to %s\n", o.addr);
        free(o.vanilla);
        return 2;
    }
    int rc;
    switch (which) {
    case 0: rc = cmd_wait_ready(&c, &o); break;
    case 1: rc = cmd_single(&c, &o, 0); break;
    case 2: rc = cmd_batch(&c, &o); break;
    case 3: rc = cmd_single(&c, &o, 1); break;
    case 4: rc = cmd_await(&c, &o); break;
    case 5: rc = cmd_cancel(&c, &o); break;
    case 6: rc = cmd_status(&c, &o); break;
    case 7: rc = cmd_metrics(&c, &o); break;
    case 8: rc = cmd_srs(&c, &o, 0); break;
    case 9: rc = cmd_srs(&c, &o, 1); break;
    case 10: rc = cmd_stress(&c, &o); break;
    default: rc = cmd_memmon(&c, &o); break;
    }
    client_close(&c);
    free(o.vanilla);
    return rc;
}
