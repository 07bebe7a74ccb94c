/* The engine: proof jobs from submission to result (DESIGN.md section 2).
 *
 * A job is submitted, queued by priority (CRITICAL > HIGH > NORMAL > LOW,
 * FIFO within a level) and runs partition by partition through a pipeline:
 *
 *   admission   the job's next partition enters the pipeline only when the
 *               memory budget covers its working set (the circuit's profile:
 *               witness + a, b, c) and the pipeline has room (backpressure);
 *               otherwise it waits in its queue with nothing allocated.
 *               Admission is per partition, so a CRITICAL job overtakes the
 *               queued partitions of NORMAL jobs (running kernels are never
 *               interrupted).
 *   synthesis   CPU workers: the witness, then a, b, c = A.w, B.w, C.w by
 *               SpMV with every row checked;
 *   prove       prove workers, one set per GPU (or CPU workers on the CPU
 *               backend): H and the MSMs, the proof assembled; a partition
 *               goes to a healthy device, preferably one where its circuit
 *               already ran (its SRS is resident there);
 *   finalize    CPU: verification (verify_proofs) and the proof bytes.
 *
 * A job ends exactly once as COMPLETED, FAILED or CANCELLED. Its stages are
 * timed (queue, srs_load, synthesis, prove, verify, total) and the times
 * travel with the result, the job's log lines (`job=<id>` key=value) and the
 * metrics.
 *
 * Kinds: GENERIC_R1CS (a circuit id resolved by the SRS manager; one witness
 * image per partition in the request), SYNTHETIC (a built-in synthetic
 * circuit; its parameter files are generated into the parameter folder on
 * first use) and the four Filecoin kinds (PoRep C2, SnapDeals, WinningPoSt,
 * WindowPoSt), resolved through the registry of src/filecoin; a registered
 * proof it lists without a circuit (non-interactive PoRep) is refused with
 * the reason.
 *
 * Faults: a partition whose synthesis or proof fails fails its job (the
 * message names the partition); the job's other partitions stop at their
 * next stage boundary. A GPU that fails with a device error is marked
 * unhealthy and its partition is retried on another device; a GPU
 * out-of-memory halves that worker's batch and retries once before the job
 * fails. Cancellation removes a queued job at once; a running one stops at
 * its partitions' next stage boundary, where all their memory is freed, and
 * it ends when the last of them has. Finished jobs are kept for `retain` of
 * them (oldest dropped first) so AwaitProof can be repeated. All functions
 * are thread-safe. */
#ifndef CUZK_JOBS_H
#define CUZK_JOBS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cuzk/err.h"
#include "cuzk/mem.h"
#include "cuzk/srs.h"

/* Enum values are those of proving.proto. */
typedef enum {
    CUZK_KIND_UNSPECIFIED = 0,
    CUZK_KIND_POREP_SEAL_COMMIT = 1,
    CUZK_KIND_SNAP_DEALS_UPDATE = 2,
    CUZK_KIND_WINDOW_POST_PARTITION = 3,
    CUZK_KIND_WINNING_POST = 4,
    CUZK_KIND_GENERIC_R1CS = 16,
    CUZK_KIND_SYNTHETIC = 17,
} cuzk_proof_kind;

typedef enum {
    CUZK_PRIO_UNSPECIFIED = 0,
    CUZK_PRIO_LOW = 1,
    CUZK_PRIO_NORMAL = 2,
    CUZK_PRIO_HIGH = 3,
    CUZK_PRIO_CRITICAL = 4,
} cuzk_priority;

typedef enum {
    CUZK_JOB_UNKNOWN = 0,
    CUZK_JOB_COMPLETED = 1,
    CUZK_JOB_FAILED = 2,
    CUZK_JOB_CANCELLED = 3,
    CUZK_JOB_TIMEOUT = 4, /* await only: the job has not ended yet */
} cuzk_job_status;

#define CUZK_JOB_ID_MAX 40
#define CUZK_REQUEST_ID_MAX 128
#define CUZK_JOB_MAX_PARTITIONS 64

/* Kind name for logs and metrics ("porep_seal_commit", ...); "unknown" for
 * values outside the enum. */
const char *cuzk_kind_name(int kind);
const char *cuzk_priority_name(int prio);
/* Whether a value is one of the kinds above (UNSPECIFIED excluded). */
int cuzk_kind_valid(int kind);

typedef struct {
    const char *request_id; /* may be NULL or "" */
    int kind;               /* cuzk_proof_kind */
    int priority;           /* cuzk_priority; UNSPECIFIED = NORMAL */
    const char *circuit_id; /* GENERIC_R1CS */
    /* GENERIC_R1CS: witness images (cuzk .wit format), one per partition;
     * copied by submit. */
    const uint8_t *const *witnesses;
    const size_t *witness_sizes;
    size_t n_witnesses;
    /* SYNTHETIC */
    uint64_t synthetic_constraints, synthetic_seed;
    uint32_t synthetic_public_inputs, synthetic_partitions;
    /* Filecoin kinds (WINNING_POST, WINDOW_POST_PARTITION,
     * POREP_SEAL_COMMIT, SNAP_DEALS_UPDATE): the registered
     * proof number (the chain's), the sector size (0: take the registered
     * proof's); PoSt: one bincode FallbackPoStSectorProof per sector
     * (copied by submit), the 32-byte randomness and, for WindowPoSt, the
     * partition index; PoRep: one vanilla proof, Curio's C1 envelope
     * (curio.h), and the sector number and miner id it is for. */
    uint64_t registered_proof, sector_size, sector_number;
    const uint8_t *const *vanilla_proofs;
    const size_t *vanilla_sizes;
    size_t n_vanilla;
    const uint8_t *randomness;
    size_t randomness_len;
    uint64_t miner_id;
    uint32_t partition_index;
    /* SNAP_DEALS_UPDATE: one bincode PartitionProof per partition in
     * vanilla_proofs, and the update's commitments (32 bytes each, as
     * stored: little-endian field elements). */
    const uint8_t *comm_r_old, *comm_d_new, *comm_r_new;
    size_t comm_r_old_len, comm_d_new_len, comm_r_new_len;
    /* SHA-256 of everything that makes the request what it is (not its
     * request_id or priority), for a request_id's second submission to be
     * told apart from a retry. NULL: the engine hashes the fields above; a
     * front end whose requests carry more (the gRPC one: vanilla proofs,
     * sector, commitments) passes its own. */
    const uint8_t *payload_digest;
} cuzk_job_request;

/* A finished (or timed-out) job as AwaitProof reports it; owned by the
 * caller after cuzk_jobs_await, released with cuzk_job_result_free. */
typedef struct {
    char job_id[CUZK_JOB_ID_MAX];
    cuzk_job_status status;
    uint8_t *proof; /* 192 bytes per partition */
    size_t proof_size;
    uint8_t *public_inputs; /* per partition: inputs_per_partition x 32 bytes LE */
    size_t n_partitions, inputs_per_partition;
    char error[1024];
    char circuit_id[CUZK_SRS_ID_MAX + 1];
    uint64_t queue_wait_ms, srs_load_ms, synthesis_ms, prove_ms, verify_ms, total_ms;
} cuzk_job_result;

void cuzk_job_result_free(cuzk_job_result *r);

/* Test hooks: where the engine calls them, and what it tells. */
typedef enum {
    CUZK_HOOK_SYNTHESIS, /* a synthesis worker starts a partition */
    CUZK_HOOK_ALLOC,     /* ... and is about to allocate its working set */
    CUZK_HOOK_PROVE,     /* a prove worker starts a partition */
    CUZK_HOOK_FINALIZE,  /* a finalizer starts a partition */
    CUZK_HOOK_END,       /* a job ended (status set); the return is ignored */
    CUZK_HOOK_PREPARE,   /* a job's circuit was acquired (its SRS resident) */
    CUZK_HOOK_PIN,       /* srs_device_only: a prove worker is about to keep a
                          * circuit's parameters on its device (no job: job_id
                          * NULL, circuit_id set); a failure is that device
                          * declining, as one too small for them does */
} cuzk_hook_point;

typedef struct {
    cuzk_hook_point point;
    const char *job_id;
    int kind, priority;
    uint32_t partition;
    int device;             /* PROVE, PIN: the GPU ordinal, -1 on the CPU backend */
    cuzk_job_status status; /* END */
    const char *circuit_id; /* the job's circuit (empty before it is known); PIN: the circuit */
} cuzk_hook_event;

/* Called with no engine lock held; may call the engine (cancel a job). A
 * return other than CUZK_OK injects that failure at that point (message:
 * the current cuzk_errmsg()); a PROVE failure other than EINVAL and ENOMEM
 * counts as a device error. */
typedef cuzk_err (*cuzk_jobs_hook)(void *ctx, const cuzk_hook_event *ev);

typedef struct {
    unsigned workers;       /* prove workers per GPU (or CPU prove workers), >= 1 */
    const char *backend;    /* "cpu", "cuda", "cuda:N", "auto" */
    const int *gpu_devices; /* GPU ordinals to use (none: all visible); */
    size_t n_gpu_devices;   /* a "cuda:N" backend uses GPU N only */
    int verify_proofs;      /* verify each proof before returning it */
    const char *param_dir;  /* where synthetic circuits' files are generated */
    /* Filecoin's parameter folder (v28 .params/.vk names) and where the
     * constraint systems (.pce) of Filecoin circuits are cached, built on
     * first use (NULL: the parameter folder). */
    const char *filecoin_dir, *pce_dir;
    size_t retain;             /* finished jobs kept for await (>= 1) */
    size_t max_queued;         /* submissions beyond this fail with ENOMEM */
    uint64_t max_queued_bytes; /* and beyond this many bytes of queued inputs */
    uint64_t max_synthetic;    /* largest synthetic circuit accepted */
    /* SYNTHETIC jobs refused at submission (the daemon's default: test
     * circuits are opt-in there, [synthetic] enabled). */
    int synthetic_disabled;
    /* Cap on the bytes of synthetic circuits' files in param_dir (0 = none):
     * a job whose circuit would go past it fails before generating. */
    uint64_t synthetic_max_bytes;
    /* The pipeline (0 = default). */
    unsigned synthesis_workers; /* CPU synthesis workers (default 2) */
    unsigned finalizers;        /* CPU finalizers (default 1) */
    unsigned pipeline_depth;    /* partitions admitted and not yet proving, at most
                                   (default 2 per prove worker) */
    unsigned max_batch_size;    /* partitions of one circuit a prove worker takes in a
                                   row (default 1) */
    unsigned max_batch_wait_ms; /* how long it waits for a batch to fill (default 0) */
    /* While the pipeline is full, prepare the next synthetic job and build
     * its shared witness (seconds of single-threaded work at full size), so
     * the prove workers do not wait for it when its turn comes. One job
     * ahead at most; it counts as running from then on. */
    int lookahead;
    /* Host memory budget (bytes, 0 = unlimited) for the resident SRS (the
     * SRS manager's bytes) plus what the work admitted allocates: each
     * partition's witness, a, b, c and the prover's host scratch
     * (cuzk_backend_host_scratch), and the generation of a synthetic
     * circuit's files. With it the process's sampled RSS stays within
     * memory_budget + CUZK_MEM_MARGIN (mem.h). cuzk_jobs_new tunes the C
     * allocator so that freed buffers leave the RSS at once
     * (cuzk_mem_tune_allocator). Not counted: the GENERIC_R1CS witness
     * images held for queued and running jobs (bounded by max_queued_bytes
     * for queued ones). */
    uint64_t memory_budget;
    unsigned mem_sample_ms; /* RSS sampling interval (default 50) */
    /* GPU backends: once every prove worker keeps a circuit's parameters on
     * its device (pinned there after a preload, cuzk_jobs_srs_loaded, or
     * with the circuit's first job), release their host copy
     * (srs.h cuzk_srs_release_host): the SRS then costs device memory only.
     * Needs one prove worker per GPU (each worker keeps its own copy). The
     * CPU backend logs at start that it keeps parameters on the host. */
    int srs_device_only;
    /* GPU backends compute a, b, c themselves (cuzk_backend_device_spmv):
     * the synthesis workers then pack the witness (wpack.h) instead of
     * running the SpMV, and no host a, b, c exist. 1: the host SpMV
     * anyway (the CPU backend always uses it). */
    int host_spmv;
    /* Tests only (0 in production): pack the witness as for a GPU backend
     * even when the backend runs the SpMV on the host (the CPU backend then
     * proves from the witness), so that the packed path (pack, prove,
     * release by the finalizer) runs without a GPU. */
    int test_pack_witness;
    /* Tests only (0 in production): with srs_device_only, ask the prove
     * workers to keep parameters on their device even on the CPU backend
     * (which declines, as a GPU too small for them does), so that the path
     * of a declined slot runs without a GPU. */
    int test_pin_on_cpu;
    cuzk_jobs_hook hook; /* tests only; NULL in production */
    void *hook_ctx;
} cuzk_jobs_config;

typedef struct cuzk_jobs cuzk_jobs;

/* A SYNTHETIC circuit's id: "synthetic-n<constraints>-p<public>-s<seed>". */
void cuzk_synthetic_id(const cuzk_job_request *req, char id[CUZK_SRS_ID_MAX + 1]);
/* Its files (<id>.pce, .params, .vk in dir), made as the engine makes them
 * on first use: the circuit built and set up with fresh toxic waste. */
cuzk_err cuzk_synthetic_generate(const cuzk_job_request *req, const char *dir);

/* Starts the workers (each prove worker opens its backend: EUNSUPPORTED
 * when it is not available). srs is borrowed and must outlive the engine. */
cuzk_err cuzk_jobs_new(const cuzk_jobs_config *cfg, cuzk_srs_manager *srs, cuzk_jobs **out);
/* The name of the backend the workers opened ("cpu", "cuda"). */
const char *cuzk_jobs_backend(const cuzk_jobs *j);
/* Cancels what is left, joins the workers, frees everything. */
void cuzk_jobs_free(cuzk_jobs *j);

/* Queue a job. Errors concern the call itself: EINVAL for an unknown kind,
 * a bad circuit id, missing or superfluous inputs, too many partitions;
 * ENOMEM when the queue is full (jobs or bytes of inputs waiting); EUNSUPPORTED while draining. A
 * request_id already known (its newest job) returns that job (*existing = 1) when the payload
 * digest is the same and the job is queued, running or completed; a different payload fails with
 * EINVAL naming the id and that job while it is queued or running. Once that job has failed or
 * been cancelled, or has completed for another payload, the submission is a new job under the
 * same id (a retry, or the same sector proved again with new data). Everything about the content
 * (witness bytes, files, Filecoin kinds) fails the job instead. */
cuzk_err cuzk_jobs_submit(cuzk_jobs *j, const cuzk_job_request *req, char job_id[CUZK_JOB_ID_MAX],
                          uint32_t *queue_position, int *existing);

/* When circuit_id is a Filecoin circuit of the registry ("post-window-32g"):
 * its v28 parameters found in filecoin_dir, its constraint system built if
 * missing, both registered with the SRS manager under that id, so that it
 * can be preloaded (*is_filecoin = 1). Other ids: nothing (*is_filecoin =
 * 0). EIO when the parameters are missing, EUNSUPPORTED for circuits cuzk
 * does not prove yet. Blocks while the constraint system is built. */
cuzk_err cuzk_jobs_filecoin_circuit(cuzk_jobs *j, const char *circuit_id, int *is_filecoin);
/* A circuit was preloaded into the SRS manager: with srs_device_only the
 * idle prove workers move its parameters to their devices now (and the
 * last one releases the host copy) instead of when its first job comes.
 * Does not wait for them. Nothing otherwise. */
void cuzk_jobs_srs_loaded(cuzk_jobs *j, const char *circuit_id);

/* Wait until the job ends or timeout_ms passes (0 = no limit), or *abort
 * becomes non-zero (a client that went away; may be NULL; wake waiters with
 * cuzk_jobs_wake). On timeout or abort the result has status TIMEOUT. EINVAL
 * for an unknown job id. */
cuzk_err cuzk_jobs_await(cuzk_jobs *j, const char *job_id, uint64_t timeout_ms,
                         const volatile int *abort, cuzk_job_result *out);
void cuzk_jobs_wake(cuzk_jobs *j);

/* Cancel a job: a queued one ends CANCELLED now, a running one at its next
 * boundary (*was_running = 1). Cancelling a finished job changes nothing.
 * EINVAL for an unknown job id. */
cuzk_err cuzk_jobs_cancel(cuzk_jobs *j, const char *job_id, int *was_running);

/* Stop accepting jobs and end the queued ones at once (CANCELLED, "daemon
 * shutting down": nothing starts after this); wait up to grace_s for the
 * running jobs to end, then cancel them at their next partition boundary
 * and wait for the workers to stop. */
void cuzk_jobs_drain(cuzk_jobs *j, double grace_s);

/* Stages of a partition, as status reports them. */
typedef enum {
    CUZK_PART_QUEUED,    /* not admitted yet */
    CUZK_PART_SYNTHESIS, /* witness and SpMV */
    CUZK_PART_READY,     /* synthesized, waiting for a prove worker */
    CUZK_PART_PROVE,     /* on a GPU (or the CPU backend) */
    CUZK_PART_FINALIZE,  /* verification, encoding */
    CUZK_PART_DONE,
    CUZK_PART_FAILED,
    CUZK_PART_CANCELLED,
} cuzk_part_stage;
const char *cuzk_part_stage_name(int stage);

/* Status for GetStatus and /status. */
typedef struct {
    char job_id[CUZK_JOB_ID_MAX];
    int kind, priority;
    const char *stage; /* static string: queued, srs_load, synthesis, prove, verify */
    uint32_t partitions, partitions_done;
    char circuit_id[CUZK_SRS_ID_MAX + 1];
    uint8_t part_stage[CUZK_JOB_MAX_PARTITIONS]; /* cuzk_part_stage of each partition */
    int8_t part_device[CUZK_JOB_MAX_PARTITIONS]; /* GPU that proves or proved it, -1 */
} cuzk_job_info;

#define CUZK_JOBS_MAX_DEVICES 16
/* One prove device (a GPU, or the CPU backend as ordinal -1). */
typedef struct {
    int ordinal;
    int healthy;
    unsigned workers;
    char current_job[CUZK_JOB_ID_MAX]; /* "" when idle */
    int current_kind;
    uint64_t partitions; /* proved here */
    double busy_s;       /* time its workers spent proving */
    double device_s;     /* device time of those proofs (copies and kernels, from
                            device events; 0 on the CPU backend) */
    char error[256];     /* why it was marked unhealthy */
} cuzk_jobs_device;

#define CUZK_JOBS_N_KINDS 7 /* the kinds above, in enum order */

typedef struct {
    int kind;
    uint32_t pending, in_progress;
    uint64_t completed, failed, cancelled;
} cuzk_kind_stats;

typedef struct {
    cuzk_job_info *jobs; /* queued and running, malloc'd */
    size_t n_jobs;
    cuzk_kind_stats kinds[CUZK_JOBS_N_KINDS];
    uint64_t completed, failed, cancelled;
    int draining;
    cuzk_jobs_device devices[CUZK_JOBS_MAX_DEVICES];
    size_t n_devices;
    uint32_t synthesizing, ready, proving, finalizing; /* partitions per stage */
    cuzk_mem_stats mem; /* working sets; mem.budget is the whole budget */
    uint64_t srs_bytes; /* resident SRS counted against the budget */
    /* a, b, c and witness buffers kept for reuse (reserved and allocated, in mem); given
     * back when the engine is idle or admission needs the room */
    uint64_t pooled_bytes;
    /* partitions whose witness was written into a pooled buffer (no fresh
     * gigabytes faulted in for it) */
    uint64_t witness_buffers_reused;
    /* partitions a prove worker took ahead, while proving the one before,
     * so that their packed witness went up to the device meanwhile; and of
     * those, the ones it gave back (a partition of higher priority came
     * first, or the job stopped) */
    uint64_t taken_ahead, ahead_given_back;
} cuzk_jobs_status;

cuzk_err cuzk_jobs_status_get(cuzk_jobs *j, cuzk_jobs_status *out);
void cuzk_jobs_status_free(cuzk_jobs_status *s);

/* Prometheus text of the engine (job counters by kind and outcome, stage
 * duration histograms, queue depths), written to out. */
void cuzk_jobs_metrics(cuzk_jobs *j, FILE *out);

#endif
