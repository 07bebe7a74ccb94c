/* The gRPC front end: cuzk.v1.ProvingEngine and grpc.health.v1.Health over
 * the gRPC C core API, with protobuf-c messages. No proving logic here: each
 * handler decodes a request, calls the job engine or the SRS manager, and
 * encodes the answer (DESIGN.md section 2, "rpc/").
 *
 * Threads: one completion-queue thread owns the server loop. Every method is
 * registered (the request payload arrives with the call) and always has one
 * call requested; when it arrives the next one is requested at once. Quick
 * methods are answered on the queue thread in a single batch (initial
 * metadata, message, status, close). Methods that wait (AwaitProof, Prove,
 * PreloadSRS, and EvictSRS, which waits for a load of its circuit to end)
 * get a thread of their own: the queue thread first starts a
 * RECV_CLOSE_ON_SERVER op, whose completion tells that the client went away
 * (the handler then stops waiting), and the handler thread sends the answer
 * when it has one. A call context is freed when its last batch completes
 * (reference counted). Health.Watch streams from its handler thread, one
 * message at a time. Unregistered methods are answered UNIMPLEMENTED.
 *
 * A unix socket is guarded by an flock'd "<socket>.lock" file: a second
 * daemon fails fast instead of stealing the socket (gRPC itself would unlink
 * and rebind it), and a socket file left by a killed daemon is replaced. */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include "cuzk/backend.h"
#include "cuzk/log.h"
#include "cuzk/mem.h"
#include "cuzk/util.h"

#include "cuzk/v1/proving.pb-c.h"
#include "grpc/health/v1/health.pb-c.h"

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>
#include <openssl/evp.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

enum {
    M_SUBMIT,
    M_AWAIT,
    M_PROVE,
    M_CANCEL,
    M_STATUS,
    M_METRICS,
    M_PRELOAD,
    M_EVICT,
    M_HEALTH_CHECK,
    M_HEALTH_WATCH,
    N_METHODS,
    M_UNKNOWN = N_METHODS
};

static const struct {
    const char *path;
    int waits; /* handled on a thread of its own */
} methods[N_METHODS] = {
    {"/cuzk.v1.ProvingEngine/SubmitProof", 0}, {"/cuzk.v1.ProvingEngine/AwaitProof", 1},
    {"/cuzk.v1.ProvingEngine/Prove", 1},       {"/cuzk.v1.ProvingEngine/CancelProof", 0},
    {"/cuzk.v1.ProvingEngine/GetStatus", 0},   {"/cuzk.v1.ProvingEngine/GetMetrics", 0},
    {"/cuzk.v1.ProvingEngine/PreloadSRS", 1},  {"/cuzk.v1.ProvingEngine/EvictSRS", 1},
    {"/grpc.health.v1.Health/Check", 0},       {"/grpc.health.v1.Health/Watch", 1},
};

/* Tags carry the event kind in the low bits of the (aligned) context. */
enum { TAG_NEW = 0, TAG_CLOSE = 1, TAG_DONE = 2, TAG_SENT = 3 };
#define TAG(ctx, kind) ((void *)((uintptr_t)(ctx) | (kind)))
static char shutdown_tag;

struct cuzk_rpc {
    cuzk_daemon *d;
    grpc_server *server;
    grpc_completion_queue *cq;
    void *mh[N_METHODS];
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t idle;
    int live_calls;      /* contexts bound to a call */
    int handler_threads; /* waiting handlers still running */
    int shutting_down, shutdown_seen;
    int lock_fd;
    char *sock_path;
    atomic_int tls_reload; /* read the TLS files at the next handshake */
    atomic_int tls_loaded; /* a TLS configuration is in use */
};

typedef struct {
    cuzk_rpc *rpc;
    int method;
    grpc_call *call;
    gpr_timespec deadline;
    grpc_metadata_array md;
    grpc_call_details details;
    grpc_byte_buffer *payload;
    grpc_byte_buffer *resp;
    grpc_status_code status;
    grpc_slice detail;
    int have_detail;
    int cancelled;
    volatile int client_gone;
    int refs;
    int sent_initial; /* initial metadata went out (streaming) */
    int sent;         /* the last streamed message completed; under rpc->lock */
} call_ctx;

static void request_call(cuzk_rpc *r, int method);

static void ctx_unref(call_ctx *c)
{
    cuzk_rpc *r = c->rpc;
    pthread_mutex_lock(&r->lock);
    int last = --c->refs == 0;
    if (last && c->call)
        r->live_calls--;
    pthread_cond_broadcast(&r->idle);
    pthread_mutex_unlock(&r->lock);
    if (!last)
        return;
    if (c->call)
        grpc_call_unref(c->call);
    grpc_metadata_array_destroy(&c->md);
    if (c->method == M_UNKNOWN)
        grpc_call_details_destroy(&c->details);
    if (c->payload)
        grpc_byte_buffer_destroy(c->payload);
    if (c->resp)
        grpc_byte_buffer_destroy(c->resp);
    if (c->have_detail)
        grpc_slice_unref(c->detail);
    free(c);
}

/* ---- replies ---- */

static void reply_msg(call_ctx *c, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = malloc(n ? n : 1);
    if (!buf) {
        c->status = GRPC_STATUS_RESOURCE_EXHAUSTED;
        return;
    }
    protobuf_c_message_pack(m, buf);
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)buf, n);
    free(buf);
    c->resp = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    c->status = GRPC_STATUS_OK;
}

static void reply_err(call_ctx *c, grpc_status_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void reply_err(call_ctx *c, grpc_status_code code, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    c->status = code;
    if (c->have_detail)
        grpc_slice_unref(c->detail);
    c->detail = grpc_slice_from_copied_string(msg);
    c->have_detail = 1;
    CUZK_INFO("rpc method=%s status=%d error=\"%s\"",
              c->method < N_METHODS ? methods[c->method].path : "unknown", (int)code, msg);
}

static grpc_status_code code_of(cuzk_err e)
{
    switch (e) {
    case CUZK_EINVAL: return GRPC_STATUS_INVALID_ARGUMENT;
    case CUZK_ENOMEM: return GRPC_STATUS_RESOURCE_EXHAUSTED;
    case CUZK_EIO: return GRPC_STATUS_NOT_FOUND;
    case CUZK_EFORMAT:
    case CUZK_ECHECKSUM:
    case CUZK_ECURVE: return GRPC_STATUS_FAILED_PRECONDITION;
    case CUZK_EUNSUPPORTED: return GRPC_STATUS_UNAVAILABLE;
    case CUZK_ECANCELLED: return GRPC_STATUS_CANCELLED;
    default: return GRPC_STATUS_INTERNAL;
    }
}

static void reply_cuzk_err(call_ctx *c, cuzk_err e)
{
    reply_err(c, code_of(e), "%s", cuzk_errmsg());
}

/* Send the answer and, for quick calls, watch for the close in the same
 * batch. */
static void send_reply(call_ctx *c, int with_close)
{
    grpc_op ops[4];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!c->sent_initial)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    if (c->status == GRPC_STATUS_OK && c->resp) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n++].data.send_message.send_message = c->resp;
    }
    ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
    ops[n].data.send_status_from_server.status = c->status;
    ops[n++].data.send_status_from_server.status_details = c->have_detail ? &c->detail : NULL;
    if (with_close) {
        ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
        ops[n++].data.recv_close_on_server.cancelled = &c->cancelled;
    }
    grpc_call_error ce = grpc_call_start_batch(c->call, ops, n, TAG(c, TAG_DONE), NULL);
    if (ce != GRPC_CALL_OK) {
        CUZK_ERROR("rpc: start_batch failed (%d)", (int)ce);
        ctx_unref(c);
    }
}

/* ---- decoding ---- */

static void *decode(call_ctx *c, const ProtobufCMessageDescriptor *desc)
{
    if (!c->payload) {
        reply_err(c, GRPC_STATUS_INVALID_ARGUMENT, "no request message");
        return NULL;
    }
    size_t size = grpc_byte_buffer_length(c->payload);
    uint64_t cap = c->rpc->d->cfg->max_message_bytes;
    if (size > cap) {
        char *peer = grpc_call_get_peer(c->call);
        CUZK_WARN("rpc method=%s peer=%s refused: request of %zu bytes exceeds "
                  "daemon.max_message_bytes (%llu)",
                  methods[c->method].path, peer ? peer : "?", size, (unsigned long long)cap);
        gpr_free(peer);
        reply_err(c, GRPC_STATUS_RESOURCE_EXHAUSTED,
                  "request of %zu bytes exceeds the daemon's limit of %llu bytes "
                  "(daemon.max_message_bytes)",
                  size, (unsigned long long)cap);
        return NULL;
    }
    grpc_byte_buffer_reader rd;
    if (!grpc_byte_buffer_reader_init(&rd, c->payload)) {
        reply_err(c, GRPC_STATUS_INVALID_ARGUMENT, "unreadable request message");
        return NULL;
    }
    grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
    grpc_byte_buffer_reader_destroy(&rd);
    ProtobufCMessage *m =
        protobuf_c_message_unpack(desc, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
    size_t len = GRPC_SLICE_LENGTH(s);
    grpc_slice_unref(s);
    if (!m) {
        reply_err(c, GRPC_STATUS_INVALID_ARGUMENT, "request is not a valid %s message (%zu bytes)",
                  desc->name, len);
        return NULL;
    }
    /* protobuf-c ends a string at its first NUL: "ab\0/x" would arrive as
     * "ab". Such a string packs shorter than it came, so a request that
     * packs shorter is refused rather than read as something else. */
    if (protobuf_c_message_get_packed_size(m) < len) {
        protobuf_c_message_free_unpacked(m, NULL);
        reply_err(c, GRPC_STATUS_INVALID_ARGUMENT,
                  "%s: a string field contains a NUL byte (or a field is repeated)", desc->name);
        return NULL;
    }
    return m;
}

/* Milliseconds until the call's deadline, 0 when it has none. */
static uint64_t deadline_ms(const call_ctx *c)
{
    gpr_timespec dl = gpr_convert_clock_type(c->deadline, GPR_CLOCK_REALTIME);
    if (gpr_time_cmp(dl, gpr_inf_future(GPR_CLOCK_REALTIME)) == 0)
        return 0;
    int64_t ms = gpr_time_to_millis(gpr_time_sub(dl, gpr_now(GPR_CLOCK_REALTIME)));
    return ms > 1 ? (uint64_t)ms : 1;
}

/* ---- handlers ---- */

/* A protobuf-c output buffer that feeds a digest instead of memory. */
typedef struct {
    ProtobufCBuffer base;
    EVP_MD_CTX *h;
} digest_buffer;

static void digest_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    EVP_DigestUpdate(((digest_buffer *)b)->h, data, len);
}

/* SHA-256 of the request as it would be encoded without its request_id and
 * priority: every field that makes it this request (kind, circuit,
 * witnesses, vanilla proofs, sector, randomness, commitments, and fields
 * added later) and nothing that a retry may change. */
static cuzk_err payload_digest(Cuzk__V1__SubmitProofRequest *q, uint8_t out[32])
{
    digest_buffer b = {.base = {.append = digest_append}, .h = EVP_MD_CTX_new()};
    if (!b.h || EVP_DigestInit_ex(b.h, EVP_sha256(), NULL) != 1) {
        EVP_MD_CTX_free(b.h);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    char *id = q->request_id;
    Cuzk__V1__Priority prio = q->priority;
    q->request_id = (char *)"";
    q->priority = CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED;
    protobuf_c_message_pack_to_buffer(&q->base, &b.base);
    q->request_id = id;
    q->priority = prio;
    unsigned len = 0;
    EVP_DigestFinal_ex(b.h, out, &len);
    EVP_MD_CTX_free(b.h);
    return CUZK_OK;
}

static cuzk_err submit(cuzk_rpc *r, Cuzk__V1__SubmitProofRequest *q, char *job_id, uint32_t *pos)
{
    const uint8_t *wit[CUZK_JOB_MAX_PARTITIONS];
    size_t sizes[CUZK_JOB_MAX_PARTITIONS];
    if (q->n_witnesses > CUZK_JOB_MAX_PARTITIONS)
        return cuzk_fail(CUZK_EINVAL, "at most %d witnesses (got %zu)", CUZK_JOB_MAX_PARTITIONS,
                         q->n_witnesses);
    for (size_t i = 0; i < q->n_witnesses; i++) {
        wit[i] = q->witnesses[i].data;
        sizes[i] = q->witnesses[i].len;
    }
    /* PoSt: one vanilla proof per sector (up to 2349 of them); PoRep: the
     * one vanilla_proof (Curio's C1 envelope) in the same list; SnapDeals:
     * one PartitionProof per partition. */
    const uint8_t **van = NULL;
    size_t *van_sizes = NULL;
    const uint8_t *one = q->vanilla_proof.data;
    size_t one_len = q->vanilla_proof.len;
    if (!q->n_vanilla_proofs && one_len) {
        van = &one;
        van_sizes = &one_len;
    } else if (q->n_vanilla_proofs) {
        van = malloc(q->n_vanilla_proofs * sizeof *van);
        van_sizes = malloc(q->n_vanilla_proofs * sizeof *van_sizes);
        if (!van || !van_sizes) {
            free(van);
            free(van_sizes);
            return cuzk_fail(CUZK_ENOMEM, "out of memory");
        }
        for (size_t i = 0; i < q->n_vanilla_proofs; i++) {
            van[i] = q->vanilla_proofs[i].data;
            van_sizes[i] = q->vanilla_proofs[i].len;
        }
    }
    cuzk_job_request jr = {
        .request_id = q->request_id,
        .kind = (int)q->proof_kind,
        .priority = (int)q->priority,
        .circuit_id = q->circuit_id,
        .witnesses = wit,
        .witness_sizes = sizes,
        .n_witnesses = q->n_witnesses,
        .synthetic_constraints = q->synthetic_constraints,
        .synthetic_seed = q->synthetic_seed,
        .synthetic_public_inputs = q->synthetic_public_inputs,
        .synthetic_partitions = q->synthetic_partitions,
        .registered_proof = q->registered_proof,
        .sector_size = q->sector_size,
        .vanilla_proofs = van,
        .vanilla_sizes = van_sizes,
        .n_vanilla = q->n_vanilla_proofs ? q->n_vanilla_proofs
                     : one_len           ? 1
                                         : 0,
        .sector_number = q->sector_number,
        .randomness = q->randomness.data,
        .randomness_len = q->randomness.len,
        .miner_id = q->miner_id,
        .partition_index = q->partition_index,
        .comm_r_old = q->comm_r_old.data,
        .comm_r_old_len = q->comm_r_old.len,
        .comm_d_new = q->comm_d_new.data,
        .comm_d_new_len = q->comm_d_new.len,
        .comm_r_new = q->comm_r_new.data,
        .comm_r_new_len = q->comm_r_new.len,
    };
    uint8_t digest[32];
    cuzk_err e = CUZK_OK;
    if (q->request_id && q->request_id[0] && !(e = payload_digest(q, digest)))
        jr.payload_digest = digest;
    int existing;
    if (!e)
        e = cuzk_jobs_submit(r->d->jobs, &jr, job_id, pos, &existing);
    if (van != &one) {
        free(van);
        free(van_sizes);
    }
    return e;
}

static void handle_submit(call_ctx *c)
{
    Cuzk__V1__SubmitProofRequest *q = decode(c, &cuzk__v1__submit_proof_request__descriptor);
    if (!q)
        return;
    char job_id[CUZK_JOB_ID_MAX];
    uint32_t pos;
    cuzk_err e = submit(c->rpc, q, job_id, &pos);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e)
        return reply_cuzk_err(c, e);
    Cuzk__V1__SubmitProofResponse resp = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
    resp.job_id = job_id;
    resp.queue_position = pos;
    resp.assigned_gpu = (char *)c->rpc->d->backend;
    reply_msg(c, &resp.base);
}

/* Wait for a job and fill `resp` (its byte fields point into *res). */
static cuzk_err await_into(call_ctx *c, const char *job_id, uint64_t timeout_ms,
                           cuzk_job_result *res, Cuzk__V1__AwaitProofResponse *resp,
                           ProtobufCBinaryData *pubs)
{
    uint64_t dl = deadline_ms(c);
    if (dl && (timeout_ms == 0 || timeout_ms > dl))
        timeout_ms = dl;
    CUZK_TRY(cuzk_jobs_await(c->rpc->d->jobs, job_id, timeout_ms, &c->client_gone, res));
    resp->job_id = res->job_id;
    resp->status = (Cuzk__V1__AwaitProofResponse__Status)res->status;
    resp->proof.data = res->proof;
    resp->proof.len = res->proof_size;
    resp->error_message = res->error;
    resp->queue_wait_ms = res->queue_wait_ms;
    resp->srs_load_ms = res->srs_load_ms;
    resp->synthesis_ms = res->synthesis_ms;
    resp->gpu_compute_ms = res->prove_ms;
    resp->total_ms = res->total_ms;
    resp->verify_ms = res->verify_ms;
    resp->circuit_id = res->circuit_id;
    for (size_t p = 0; p < res->n_partitions && res->public_inputs; p++) {
        pubs[p].data = res->public_inputs + p * res->inputs_per_partition * 32;
        pubs[p].len = res->inputs_per_partition * 32;
    }
    resp->n_public_inputs = res->public_inputs ? res->n_partitions : 0;
    resp->public_inputs = pubs;
    return CUZK_OK;
}

static void handle_await(call_ctx *c)
{
    Cuzk__V1__AwaitProofRequest *q = decode(c, &cuzk__v1__await_proof_request__descriptor);
    if (!q)
        return;
    cuzk_job_result res;
    Cuzk__V1__AwaitProofResponse resp = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    ProtobufCBinaryData pubs[CUZK_JOB_MAX_PARTITIONS];
    cuzk_err e = await_into(c, q->job_id, q->timeout_ms, &res, &resp, pubs);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e == CUZK_EINVAL) /* the only call error of await: an unknown job */
        return reply_err(c, GRPC_STATUS_NOT_FOUND, "%s", cuzk_errmsg());
    if (e)
        return reply_cuzk_err(c, e);
    reply_msg(c, &resp.base);
    cuzk_job_result_free(&res);
}

static void handle_prove(call_ctx *c)
{
    Cuzk__V1__ProveRequest *q = decode(c, &cuzk__v1__prove_request__descriptor);
    if (!q)
        return;
    char job_id[CUZK_JOB_ID_MAX];
    uint32_t pos;
    cuzk_err e = q->submit ? submit(c->rpc, q->submit, job_id, &pos)
                           : cuzk_fail(CUZK_EINVAL, "ProveRequest.submit is missing");
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e)
        return reply_cuzk_err(c, e);
    cuzk_job_result res;
    Cuzk__V1__AwaitProofResponse result = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    ProtobufCBinaryData pubs[CUZK_JOB_MAX_PARTITIONS];
    if ((e = await_into(c, job_id, 0, &res, &result, pubs)) != CUZK_OK)
        return reply_cuzk_err(c, e);
    Cuzk__V1__ProveResponse resp = CUZK__V1__PROVE_RESPONSE__INIT;
    resp.result = &result;
    reply_msg(c, &resp.base);
    cuzk_job_result_free(&res);
}

static void handle_cancel(call_ctx *c)
{
    Cuzk__V1__CancelProofRequest *q = decode(c, &cuzk__v1__cancel_proof_request__descriptor);
    if (!q)
        return;
    int was_running;
    cuzk_err e = cuzk_jobs_cancel(c->rpc->d->jobs, q->job_id, &was_running);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e)
        return reply_err(c, GRPC_STATUS_NOT_FOUND, "%s", cuzk_errmsg());
    Cuzk__V1__CancelProofResponse resp = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
    resp.was_running = was_running;
    reply_msg(c, &resp.base);
}

static void handle_status(call_ctx *c)
{
    Cuzk__V1__GetStatusRequest *q = decode(c, &cuzk__v1__get_status_request__descriptor);
    if (!q)
        return;
    protobuf_c_message_free_unpacked(&q->base, NULL);
    cuzk_daemon *d = c->rpc->d;
    cuzk_jobs_status js;
    cuzk_srs_info *srs = NULL;
    size_t n_srs = 0;
    cuzk_srs_totals tot;
    cuzk_err e = cuzk_jobs_status_get(d->jobs, &js);
    if (e)
        return reply_cuzk_err(c, e);
    if ((e = cuzk_srs_snapshot(d->srs, &srs, &n_srs, &tot)) != CUZK_OK) {
        cuzk_jobs_status_free(&js);
        return reply_cuzk_err(c, e);
    }
    Cuzk__V1__GetStatusResponse resp = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    Cuzk__V1__SRSStatus *ss = calloc(n_srs + 1, sizeof *ss);
    Cuzk__V1__SRSStatus **ssp = calloc(n_srs + 1, sizeof *ssp);
    Cuzk__V1__QueueStatus qs[CUZK_JOBS_N_KINDS], *qsp[CUZK_JOBS_N_KINDS];
    Cuzk__V1__JobStatus *jst = calloc(js.n_jobs + 1, sizeof *jst);
    Cuzk__V1__JobStatus **jsp = calloc(js.n_jobs + 1, sizeof *jsp);
    char **pstages = calloc((js.n_jobs + 1) * CUZK_JOB_MAX_PARTITIONS, sizeof *pstages);
    if (!ss || !ssp || !jst || !jsp || !pstages) {
        reply_err(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < n_srs; i++) {
        cuzk__v1__srsstatus__init(&ss[i]);
        ss[i].circuit_id = srs[i].id;
        ss[i].tier = (Cuzk__V1__SRSStatus__Tier)srs[i].tier;
        ss[i].size_bytes = srs[i].size_bytes;
        ss[i].ref_count = srs[i].ref_count;
        ssp[i] = &ss[i];
    }
    size_t nq = 0;
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        if (!cuzk_kind_valid(js.kinds[k].kind))
            continue;
        cuzk__v1__queue_status__init(&qs[nq]);
        qs[nq].proof_kind = (Cuzk__V1__ProofKind)js.kinds[k].kind;
        qs[nq].pending = js.kinds[k].pending;
        qs[nq].in_progress = js.kinds[k].in_progress;
        qsp[nq] = &qs[nq];
        nq++;
    }
    for (size_t i = 0; i < js.n_jobs; i++) {
        cuzk__v1__job_status__init(&jst[i]);
        jst[i].job_id = js.jobs[i].job_id;
        jst[i].proof_kind = (Cuzk__V1__ProofKind)js.jobs[i].kind;
        jst[i].priority = (Cuzk__V1__Priority)js.jobs[i].priority;
        jst[i].stage = (char *)js.jobs[i].stage;
        jst[i].partitions = js.jobs[i].partitions;
        jst[i].partitions_done = js.jobs[i].partitions_done;
        jst[i].circuit_id = js.jobs[i].circuit_id;
        jst[i].n_partition_stages = js.jobs[i].partitions;
        jst[i].partition_stages = pstages + i * CUZK_JOB_MAX_PARTITIONS;
        for (uint32_t p = 0; p < js.jobs[i].partitions; p++)
            pstages[i * CUZK_JOB_MAX_PARTITIONS + p] =
                (char *)cuzk_part_stage_name(js.jobs[i].part_stage[p]);
        jsp[i] = &jst[i];
    }
    cuzk_daemon_gpu gpus[CUZK_DAEMON_MAX_GPUS];
    Cuzk__V1__GPUStatus gs[CUZK_DAEMON_MAX_GPUS], *gsp[CUZK_DAEMON_MAX_GPUS];
    size_t n_gpus = cuzk_daemon_gpus(gpus, CUZK_DAEMON_MAX_GPUS);
    for (size_t i = 0; i < n_gpus; i++) {
        cuzk__v1__gpustatus__init(&gs[i]);
        gs[i].ordinal = (uint32_t)gpus[i].ordinal;
        gs[i].name = gpus[i].name;
        gs[i].vram_total_bytes = gpus[i].vram_total_bytes;
        gs[i].vram_free_bytes = gpus[i].vram_free_bytes;
        for (size_t d = 0; d < js.n_devices; d++)
            if (js.devices[d].ordinal == gpus[i].ordinal) {
                gs[i].current_job_id = js.devices[d].current_job;
                gs[i].current_proof_kind = (Cuzk__V1__ProofKind)js.devices[d].current_kind;
                gs[i].healthy = js.devices[d].healthy;
                gs[i].error = js.devices[d].error;
                gs[i].partitions_proved = js.devices[d].partitions;
                gs[i].busy_seconds = js.devices[d].busy_s;
            }
        gsp[i] = &gs[i];
    }
    resp.n_gpus = n_gpus;
    resp.gpus = gsp;
    resp.n_loaded_srs = n_srs;
    resp.loaded_srs = ssp;
    resp.n_queues = nq;
    resp.queues = qsp;
    resp.n_jobs = js.n_jobs;
    resp.jobs = jsp;
    resp.total_proofs_completed = js.completed;
    resp.total_proofs_failed = js.failed;
    resp.total_proofs_cancelled = js.cancelled;
    resp.uptime_seconds = (uint64_t)(cuzk_now() - d->t_start);
    resp.pinned_memory_bytes = cuzk_backend_pinned_bytes();
    resp.pinned_memory_limit_bytes = d->cfg->pinned_budget_bytes;
    resp.memory_budget_bytes = tot.budget_bytes;
    resp.memory_used_bytes = tot.used_bytes;
    resp.rss_bytes = cuzk_mem_rss();
    resp.ready = atomic_load(&d->ready) && !atomic_load(&d->draining);
    resp.backend = (char *)d->backend;
    resp.node_name = d->cfg->node_name;
    reply_msg(c, &resp.base);
out:
    free(ss);
    free(ssp);
    free(jst);
    free(jsp);
    free(pstages);
    free(srs);
    cuzk_jobs_status_free(&js);
}

static void handle_metrics(call_ctx *c)
{
    Cuzk__V1__GetMetricsRequest *q = decode(c, &cuzk__v1__get_metrics_request__descriptor);
    if (!q)
        return;
    protobuf_c_message_free_unpacked(&q->base, NULL);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return reply_err(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    cuzk_daemon_metrics(c->rpc->d, f);
    fclose(f);
    Cuzk__V1__GetMetricsResponse resp = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    resp.prometheus_text = text;
    reply_msg(c, &resp.base);
    free(text);
}

cuzk_err cuzk_daemon_preload(cuzk_daemon *d, const char *id, int *already, double *load_s)
{
    int filecoin;
    CUZK_TRY(cuzk_jobs_filecoin_circuit(d->jobs, id, &filecoin));
    CUZK_TRY(cuzk_srs_preload(d->srs, id, already, load_s));
    cuzk_jobs_srs_loaded(d->jobs, id); /* srs.device_only: to the GPUs now */
    return CUZK_OK;
}

static void handle_preload(call_ctx *c)
{
    Cuzk__V1__PreloadSrsRequest *q = decode(c, &cuzk__v1__preload_srs_request__descriptor);
    if (!q)
        return;
    int already = 0;
    double load_s = 0;
    cuzk_err e = cuzk_daemon_preload(c->rpc->d, q->circuit_id, &already, &load_s);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e)
        return reply_cuzk_err(c, e);
    Cuzk__V1__PreloadSrsResponse resp = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    resp.already_loaded = already;
    resp.load_time_ms = (uint64_t)(load_s * 1000.0 + 0.5);
    reply_msg(c, &resp.base);
}

static void handle_evict(call_ctx *c)
{
    Cuzk__V1__EvictSrsRequest *q = decode(c, &cuzk__v1__evict_srs_request__descriptor);
    if (!q)
        return;
    int was;
    uint64_t freed;
    uint32_t in_use;
    cuzk_err e = cuzk_srs_evict(c->rpc->d->srs, q->circuit_id, &was, &freed, &in_use);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (e)
        return reply_err(c, in_use ? GRPC_STATUS_FAILED_PRECONDITION : code_of(e), "%s",
                         cuzk_errmsg());
    Cuzk__V1__EvictSrsResponse resp = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
    resp.was_loaded = was;
    resp.freed_bytes = freed;
    reply_msg(c, &resp.base);
}

static void handle_health(call_ctx *c)
{
    Grpc__Health__V1__HealthCheckRequest *q =
        decode(c, &grpc__health__v1__health_check_request__descriptor);
    if (!q)
        return;
    int known = !q->service[0] || !strcmp(q->service, "cuzk.v1.ProvingEngine");
    char svc[256];
    snprintf(svc, sizeof svc, "%s", q->service);
    protobuf_c_message_free_unpacked(&q->base, NULL);
    if (!known)
        return reply_err(c, GRPC_STATUS_NOT_FOUND, "unknown service \"%s\"", svc);
    cuzk_daemon *d = c->rpc->d;
    Grpc__Health__V1__HealthCheckResponse resp = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
    resp.status = atomic_load(&d->ready) && !atomic_load(&d->draining)
                      ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                      : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
    reply_msg(c, &resp.base);
}

/* One message of a server stream: sent from the handler thread, which
 * waits for its completion (reported by the queue thread as TAG_SENT). */
static int stream_send(call_ctx *c, const ProtobufCMessage *m)
{
    cuzk_rpc *r = c->rpc;
    reply_msg(c, m);
    if (!c->resp)
        return -1;
    grpc_op ops[2];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!c->sent_initial)
        ops[n++].op = GRPC_OP_SEND_INITIAL_METADATA;
    c->sent_initial = 1;
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n++].data.send_message.send_message = c->resp;
    pthread_mutex_lock(&r->lock);
    c->refs++;
    c->sent = 0;
    pthread_mutex_unlock(&r->lock);
    if (grpc_call_start_batch(c->call, ops, n, TAG(c, TAG_SENT), NULL) != GRPC_CALL_OK) {
        ctx_unref(c);
        return -1;
    }
    pthread_mutex_lock(&r->lock);
    while (!c->sent)
        pthread_cond_wait(&r->idle, &r->lock);
    pthread_mutex_unlock(&r->lock);
    grpc_byte_buffer_destroy(c->resp);
    c->resp = NULL;
    return 0;
}

/* Health.Watch: the current status at once, then every change, until the
 * client goes away or the server stops. An unknown service is reported as
 * SERVICE_UNKNOWN (the protocol's answer for Watch), not as an error. */
static void handle_watch(call_ctx *c)
{
    Grpc__Health__V1__HealthCheckRequest *q =
        decode(c, &grpc__health__v1__health_check_request__descriptor);
    if (!q)
        return;
    int known = !q->service[0] || !strcmp(q->service, "cuzk.v1.ProvingEngine");
    protobuf_c_message_free_unpacked(&q->base, NULL);
    cuzk_rpc *r = c->rpc;
    cuzk_daemon *d = r->d;
    int last = -1;
    for (;;) {
        int cur = !known ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN
                  : atomic_load(&d->ready) && !atomic_load(&d->draining)
                      ? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
                      : GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
        if (cur != last) {
            Grpc__Health__V1__HealthCheckResponse resp =
                GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
            resp.status = (Grpc__Health__V1__HealthCheckResponse__ServingStatus)cur;
            if (stream_send(c, &resp.base) != 0)
                break;
            last = cur;
        }
        pthread_mutex_lock(&r->lock);
        int stop = c->client_gone || r->shutting_down;
        if (!stop) {
            struct timespec ts;
            cuzk_deadline_in_ms(200, &ts);
            pthread_cond_timedwait(&r->idle, &r->lock, &ts);
        }
        pthread_mutex_unlock(&r->lock);
        if (stop)
            break;
    }
    c->status = GRPC_STATUS_OK;
}

static void dispatch(call_ctx *c)
{
    switch (c->method) {
    case M_SUBMIT: handle_submit(c); break;
    case M_AWAIT: handle_await(c); break;
    case M_PROVE: handle_prove(c); break;
    case M_CANCEL: handle_cancel(c); break;
    case M_STATUS: handle_status(c); break;
    case M_METRICS: handle_metrics(c); break;
    case M_PRELOAD: handle_preload(c); break;
    case M_EVICT: handle_evict(c); break;
    case M_HEALTH_CHECK: handle_health(c); break;
    case M_HEALTH_WATCH: handle_watch(c); break;
    default:
        reply_err(c, GRPC_STATUS_UNIMPLEMENTED, "method %.*s is not implemented",
                  (int)GRPC_SLICE_LENGTH(c->details.method),
                  (const char *)GRPC_SLICE_START_PTR(c->details.method));
    }
}

static void *waiting_handler(void *arg)
{
    call_ctx *c = arg;
    cuzk_rpc *r = c->rpc;
    dispatch(c);
    send_reply(c, 0);
    pthread_mutex_lock(&r->lock);
    r->handler_threads--;
    pthread_cond_broadcast(&r->idle);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

static void on_new_call(call_ctx *c)
{
    cuzk_rpc *r = c->rpc;
    pthread_mutex_lock(&r->lock);
    r->live_calls++;
    int again = !r->shutting_down;
    pthread_mutex_unlock(&r->lock);
    if (again)
        request_call(r, c->method);
    if (c->method == M_UNKNOWN || !methods[c->method].waits) {
        c->refs = 1;
        dispatch(c);
        send_reply(c, 1);
        return;
    }
    /* Two completions to come: the close watch and the reply. */
    c->refs = 2;
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &c->cancelled;
    if (grpc_call_start_batch(c->call, &op, 1, TAG(c, TAG_CLOSE), NULL) != GRPC_CALL_OK)
        ctx_unref(c);
    pthread_mutex_lock(&r->lock);
    r->handler_threads++;
    pthread_mutex_unlock(&r->lock);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, waiting_handler, c) != 0) {
        pthread_mutex_lock(&r->lock);
        r->handler_threads--;
        pthread_mutex_unlock(&r->lock);
        reply_err(c, GRPC_STATUS_RESOURCE_EXHAUSTED, "cannot start a handler thread");
        send_reply(c, 0);
    }
    pthread_attr_destroy(&at);
}

static void request_call(cuzk_rpc *r, int method)
{
    call_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        CUZK_ERROR("rpc: out of memory requesting a call");
        return;
    }
    c->rpc = r;
    c->method = method;
    c->refs = 1;
    grpc_metadata_array_init(&c->md);
    grpc_call_error ce;
    if (method == M_UNKNOWN) {
        grpc_call_details_init(&c->details);
        ce = grpc_server_request_call(r->server, &c->call, &c->details, &c->md, r->cq, r->cq,
                                      TAG(c, TAG_NEW));
    } else {
        ce =
            grpc_server_request_registered_call(r->server, r->mh[method], &c->call, &c->deadline,
                                                &c->md, &c->payload, r->cq, r->cq, TAG(c, TAG_NEW));
    }
    if (ce != GRPC_CALL_OK) {
        CUZK_ERROR("rpc: cannot request a call (%d)", (int)ce);
        ctx_unref(c);
    }
}

static void *cq_thread(void *arg)
{
    cuzk_rpc *r = arg;
    for (;;) {
        grpc_event ev = grpc_completion_queue_next(
            r->cq,
            gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(100, GPR_TIMESPAN)),
            NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN)
            break;
        if (ev.type == GRPC_QUEUE_TIMEOUT)
            continue;
        if (ev.tag == &shutdown_tag) {
            pthread_mutex_lock(&r->lock);
            r->shutdown_seen = 1;
            pthread_cond_broadcast(&r->idle);
            pthread_mutex_unlock(&r->lock);
            continue;
        }
        call_ctx *c = (call_ctx *)((uintptr_t)ev.tag & ~(uintptr_t)3);
        int kind = (int)((uintptr_t)ev.tag & 3);
        if (kind == TAG_NEW) {
            if (ev.success)
                on_new_call(c);
            else
                ctx_unref(c); /* the server is shutting down */
        } else if (kind == TAG_CLOSE) {
            pthread_mutex_lock(&r->lock);
            c->client_gone = c->cancelled || !ev.success;
            pthread_cond_broadcast(&r->idle); /* a Watch waits there */
            pthread_mutex_unlock(&r->lock);
            if (c->client_gone)
                cuzk_jobs_wake(r->d->jobs);
            ctx_unref(c);
        } else if (kind == TAG_SENT) {
            pthread_mutex_lock(&r->lock);
            c->sent = 1;
            pthread_cond_broadcast(&r->idle);
            pthread_mutex_unlock(&r->lock);
            ctx_unref(c);
        } else {
            ctx_unref(c);
        }
    }
    return NULL;
}

/* ---- unix socket guard ---- */

static cuzk_err guard_unix_socket(cuzk_rpc *r, const char *path)
{
    struct sockaddr_un sa;
    if (strlen(path) >= sizeof sa.sun_path)
        return cuzk_fail(CUZK_EINVAL, "socket path too long (max %zu bytes): %s",
                         sizeof sa.sun_path - 1, path);
    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s.lock", path);
    r->lock_fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (r->lock_fd < 0)
        return cuzk_fail(CUZK_EIO, "cannot create %s: %s", lock_path, cuzk_strerror(errno));
    if (flock(r->lock_fd, LOCK_EX | LOCK_NB) != 0)
        return cuzk_fail(CUZK_EIO,
                         "%s is in use by another cuzk-daemon (it holds %s); stop it first or "
                         "choose another daemon.listen",
                         path, lock_path);
    struct stat st;
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode))
            return cuzk_fail(CUZK_EIO, "%s exists and is not a socket; not replacing it", path);
        int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        memset(&sa, 0, sizeof sa);
        sa.sun_family = AF_UNIX;
        memcpy(sa.sun_path, path, strlen(path));
        int alive = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
        if (fd >= 0)
            close(fd);
        if (alive)
            return cuzk_fail(CUZK_EIO, "%s: another server is listening on this socket", path);
        CUZK_WARN("replacing stale socket %s (left by a daemon that did not exit cleanly)", path);
        if (unlink(path) != 0)
            return cuzk_fail(CUZK_EIO, "cannot remove stale socket %s: %s", path,
                             cuzk_strerror(errno));
    }
    return CUZK_OK;
}

const char *cuzk_daemon_unix_path(const char *listen)
{
    if (strncmp(listen, "unix:", 5) != 0)
        return NULL;
    const char *p = listen + 5;
    if (!strncmp(p, "//", 2))
        p += 2;
    return p;
}

static void rpc_free(cuzk_rpc *r)
{
    if (r->server)
        grpc_server_destroy(r->server);
    if (r->cq)
        grpc_completion_queue_destroy(r->cq);
    if (r->lock_fd >= 0)
        close(r->lock_fd);
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->idle);
    free(r->sock_path);
    free(r);
    grpc_shutdown();
}

/* gRPC's own log lines (a failed bind, transport noise) go to our log at
 * debug level; what an operator needs from them, we say in our own line. */
/* gRPC's lines go to our log at debug level, except a refused TLS
 * handshake (a client without a certificate, with one we do not trust or
 * that has expired, or speaking plaintext), which an operator should see
 * with the peer and the reason. gRPC's C core gives the reason but not the
 * peer of a connection that never became a call; with TLS on, its "tcp"
 * tracer is enabled, whose "READ <endpoint> (peer=...)" line comes on the
 * thread that then runs the handshake on what was read, so the last peer
 * read on this thread is the refused one. */
#define TLS_FAIL "Handshake failed with fatal error "
static _Thread_local char last_peer[96];

static void grpc_log_to_ours(gpr_log_func_args *a)
{
    const char *p;
    if (!strncmp(a->message, "READ ", 5) && (p = strstr(a->message, "(peer="))) {
        size_t n = strcspn(p + 6, ")");
        snprintf(last_peer, sizeof last_peer, "%.*s", (int)n, p + 6);
        return;
    }
    if (!strncmp(a->message, TLS_FAIL, strlen(TLS_FAIL)))
        CUZK_WARN("tls: a connection was refused in its TLS handshake: peer=%s reason=%s",
                  last_peer[0] ? last_peer : "unknown", a->message + strlen(TLS_FAIL));
    else if (!strncmp(a->message, "assertion failed", 16)) /* gRPC aborts next */
        CUZK_ERROR("grpc: %s (%s:%d)", a->message, a->file, a->line);
    else
        CUZK_DEBUG("grpc: %s (%s:%d)", a->message, a->file, a->line);
}

/* gRPC asks for the TLS configuration at every handshake: a new one the
 * first time and after SIGHUP (cuzk_rpc_tls_reload), the one in use
 * otherwise; a reload that fails keeps it. */
static grpc_ssl_certificate_config_reload_status tls_fetch(void *ud,
                                                           grpc_ssl_server_certificate_config **out)
{
    cuzk_rpc *r = ud;
    if (!atomic_exchange(&r->tls_reload, 0))
        return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED;
    const cuzk_config *cfg = r->d->cfg;
    cuzk_daemon_tls t;
    if (cuzk_daemon_tls_read(cfg, &t)) {
        CUZK_ERROR("tls: %s; %s", cuzk_errmsg(),
                   r->tls_loaded ? "the certificate in use stays" : "no TLS configuration");
        return r->tls_loaded ? GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_UNCHANGED
                             : GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_FAIL;
    }
    grpc_ssl_pem_key_cert_pair pair = {t.key_pem, t.cert_pem};
    /* gRPC's certificate fetcher insists on root certificates even when no
     * client certificate is asked for: then the server's own chain stands
     * in, unused. */
    *out = grpc_ssl_server_certificate_config_create(t.ca_pem ? t.ca_pem : t.cert_pem, &pair,
                                                     1); /* copies */
    cuzk_daemon_tls_free(&t);
    CUZK_INFO("tls: %s cert=%s client_ca=%s", r->tls_loaded ? "reloaded" : "loaded", cfg->tls_cert,
              cfg->tls_client_ca[0] ? cfg->tls_client_ca : "(none: no client certificates asked)");
    r->tls_loaded = 1;
    return GRPC_SSL_CERTIFICATE_CONFIG_RELOAD_NEW;
}

void cuzk_rpc_tls_reload(cuzk_rpc *r)
{
    if (r && r->tls_loaded)
        atomic_store(&r->tls_reload, 1);
}

static grpc_server_credentials *server_credentials(cuzk_rpc *r)
{
    if (!cuzk_daemon_tls_on(r->d->cfg))
        return grpc_insecure_server_credentials_create();
    /* Refused handshakes and the tcp tracer's lines are logged at gRPC's
     * info level (grpc_log_to_ours keeps the rest at our debug level); not
     * its debug level, where the tracer would dump every byte read. */
    gpr_set_log_verbosity(GPR_LOG_SEVERITY_INFO);
    grpc_tracer_set_enabled("tcp", 1);
    atomic_store(&r->tls_reload, 1);
    grpc_ssl_server_credentials_options *o =
        grpc_ssl_server_credentials_create_options_using_config_fetcher(
            r->d->cfg->tls_client_ca[0] ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                                        : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            tls_fetch, r);
    return o ? grpc_ssl_server_credentials_create_with_options(o) : NULL;
}

cuzk_err cuzk_rpc_start(cuzk_daemon *d, cuzk_rpc **out)
{
    *out = NULL;
    cuzk_rpc *r = calloc(1, sizeof *r);
    if (!r)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    gpr_set_log_function(grpc_log_to_ours);
    grpc_init(); /* paired with grpc_shutdown in rpc_free */
    r->d = d;
    r->lock_fd = -1;
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->idle, NULL);
    const char *listen = d->cfg->listen;
    const char *up = cuzk_daemon_unix_path(listen);
    cuzk_err rc = CUZK_OK;
    if (up && !*up)
        rc = cuzk_fail(CUZK_EINVAL, "daemon.listen \"%s\": empty socket path", listen);
    if (!rc && up)
        rc = guard_unix_socket(r, up);
    if (!rc && !up)
        rc = cuzk_daemon_check_tcp_free(listen, "daemon.listen");
    if (!rc && up && !(r->sock_path = strdup(up)))
        rc = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (rc) {
        rpc_free(r);
        return rc;
    }
    grpc_arg args[3];
    args[0].type = GRPC_ARG_INTEGER;
    args[0].key = GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH;
    /* gRPC's own limit sits above ours, so that a request over
     * daemon.max_message_bytes reaches decode(), which refuses it and logs
     * the peer (gRPC would drop it without a word); only requests beyond
     * twice the limit (at least 64 MiB more) are refused by gRPC itself. */
    uint64_t hard = d->cfg->max_message_bytes * 2;
    if (hard < d->cfg->max_message_bytes + ((uint64_t)64 << 20))
        hard = d->cfg->max_message_bytes + ((uint64_t)64 << 20);
    args[0].value.integer = hard > INT32_MAX ? INT32_MAX : (int)hard;
    args[1].type = GRPC_ARG_INTEGER;
    args[1].key = GRPC_ARG_MAX_SEND_MESSAGE_LENGTH;
    args[1].value.integer = -1;
    /* gRPC sets SO_REUSEPORT by default: a second daemon would then share
     * the TCP port silently instead of failing. */
    args[2].type = GRPC_ARG_INTEGER;
    args[2].key = GRPC_ARG_ALLOW_REUSEPORT;
    args[2].value.integer = 0;
    grpc_channel_args ca = {3, args};
    r->server = grpc_server_create(&ca, NULL);
    r->cq = grpc_completion_queue_create_for_next(NULL);
    grpc_server_register_completion_queue(r->server, r->cq, NULL);
    for (int m = 0; m < N_METHODS; m++)
        r->mh[m] = grpc_server_register_method(r->server, methods[m].path, NULL,
                                               GRPC_SRM_PAYLOAD_READ_INITIAL_BYTE_BUFFER, 0);
    char addr[4200];
    snprintf(addr, sizeof addr, up ? "unix:%s" : "%s", up ? up : listen);
    grpc_server_credentials *creds = server_credentials(r);
    int port = creds ? grpc_server_add_http2_port(r->server, addr, creds) : 0;
    if (creds)
        grpc_server_credentials_release(creds);
    if (port != 0 && cuzk_daemon_tls_on(d->cfg) && !r->tls_loaded) { /* fetched when bound */
        rpc_free(r);
        return cuzk_fail(CUZK_EINVAL,
                         "daemon.listen %s: gRPC did not take the TLS configuration (the log "
                         "says why)",
                         listen);
    }
    if (port == 0) {
        rpc_free(r);
        return cuzk_fail(CUZK_EIO,
                         "cannot listen on %s (address in use, bad address, or no permission)",
                         listen);
    }
    grpc_server_start(r->server);
    for (int m = 0; m <= N_METHODS; m++)
        request_call(r, m);
    if (pthread_create(&r->thread, NULL, cq_thread, r) != 0) {
        grpc_server_shutdown_and_notify(r->server, r->cq, &shutdown_tag);
        grpc_server_cancel_all_calls(r->server);
        grpc_completion_queue_shutdown(r->cq);
        while (grpc_completion_queue_next(r->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN)
            ;
        rpc_free(r);
        return cuzk_fail(CUZK_EINTERNAL, "cannot start the gRPC thread");
    }
    CUZK_INFO("listening on %s (gRPC cuzk.v1.ProvingEngine, grpc.health.v1.Health%s)", listen,
              cuzk_daemon_tls_on(d->cfg)
                  ? (d->cfg->tls_client_ca[0] ? "; TLS, client certificates required" : "; TLS")
                  : "");
    *out = r;
    return CUZK_OK;
}

void cuzk_rpc_stop(cuzk_rpc *r, double grace_s)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->lock);
    r->shutting_down = 1;
    pthread_mutex_unlock(&r->lock);
    grpc_server_shutdown_and_notify(r->server, r->cq, &shutdown_tag);
    double end = cuzk_now() + grace_s;
    int cancelled = 0;
    pthread_mutex_lock(&r->lock);
    while (!r->shutdown_seen || r->live_calls > 0 || r->handler_threads > 0) {
        if (!cancelled && cuzk_now() >= end) {
            pthread_mutex_unlock(&r->lock);
            grpc_server_cancel_all_calls(r->server);
            cuzk_jobs_wake(r->d->jobs);
            cancelled = 1;
            pthread_mutex_lock(&r->lock);
        }
        struct timespec ts;
        cuzk_deadline_in_ms(50, &ts);
        pthread_cond_timedwait(&r->idle, &r->lock, &ts);
    }
    pthread_mutex_unlock(&r->lock);
    grpc_completion_queue_shutdown(r->cq);
    pthread_join(r->thread, NULL);
    if (r->sock_path)
        unlink(r->sock_path);
    rpc_free(r);
}
