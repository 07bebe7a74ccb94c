/* What jobs.c (the jobs, their queues and the public calls) and pipeline.c
 * (the worker threads of the three stages) share inside the engine.
 *
 * One mutex, `lock`, guards every field below that is not marked
 * otherwise; one condition variable, `changed`, is broadcast on every
 * change of state, and workers, awaiters and drain each re-check their own
 * predicate. At the daemon's scale (hundreds of jobs, a few dozen threads)
 * that keeps the protocol simple enough to be obviously right.
 *
 * Ownership: a job owns its partitions; a partition owns its buffers
 * (witness, a/b/c, public inputs) and its memory reservation from the
 * moment it is admitted until part_end(), which every path out of every
 * stage goes through. A job ends (finish) only when none of its partitions
 * is in flight, so an ended job holds no working memory. */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include "cuzk/groth16.h"
#include "cuzk/post.h"
#include "cuzk/jobs.h"
#include "cuzk/mem.h"

#include <pthread.h>
#include <stdatomic.h>

enum { ST_QUEUED, ST_RUNNING, ST_DONE };
enum { PREP_NONE, PREP_RUNNING, PREP_READY };
enum { WIT_NONE, WIT_BUILDING, WIT_READY }; /* a synthetic job's shared witness */
#define N_PRIO 4
#define N_STAGES 6
#define N_BUCKETS 16
#define N_RECENT 4 /* circuits a device remembers having proved (SRS affinity) */

typedef struct job job;

typedef struct part {
    job *jb;
    uint32_t index;
    int stage;         /* cuzk_part_stage */
    struct part *next; /* in the ready, redo or final queue */
    uint64_t seq;      /* admission order */
    cuzk_fr *w;        /* the witness when the partition owns it */
    size_t w_bytes;
    cuzk_fr *abc; /* a, b, c: 3 x m */
    size_t abc_bytes;
    int abc_pinned;   /* page-locked (cuzk_backend_host_alloc) */
    cuzk_fr *w_offer; /* a pooled buffer for the witness, taken at admission */
    size_t w_offer_bytes;
    cuzk_wpack *wp; /* the packed witness, when the device computes a, b, c */
    size_t wp_bytes;
    int host_spmv;        /* a, b, c on the host after all (the device had no room) */
    cuzk_fr *pub;         /* public inputs (ONE excluded), kept for verification */
    uint64_t reserved;    /* bytes reserved at admission */
    int attempts, device; /* prove attempts so far; device of the last one */
    int oom_retried;      /* one retry after a device out-of-memory */
    int builds_witness;   /* it builds its synthetic job's shared witness */
    int lookahead;        /* admitted ahead of a full pipeline (pipeline.c) */
    int express;          /* a CRITICAL partition admitted past a full pipeline */
    cuzk_proof proof;
} part;

struct job {
    job *next_all, *next_q;
    char id[CUZK_JOB_ID_MAX];
    char request_id[CUZK_REQUEST_ID_MAX + 1];
    uint8_t digest[32]; /* of the request's payload, with a request_id */
    int kind, prio;     /* prio: 0..3 = LOW..CRITICAL */
    char circuit_id[CUZK_SRS_ID_MAX + 1];
    uint8_t **wit;
    size_t *wit_size;
    size_t n_wit;
    uint64_t input_bytes; /* sum of wit_size */
    uint64_t syn_n, syn_seed;
    uint32_t syn_public;
    /* Filecoin kinds: the registry entry and the request's public data; the
     * vanilla proofs (in wit) decoded and their partition built by
     * prepare. */
    const cuzk_fc_proof *fc;
    uint8_t randomness[32];
    uint32_t partition_index;
    cuzk_post_sector_proof *vanilla;
    size_t n_vanilla;
    cuzk_post_partition post;
    /* PoRep: the request's sector, and its C1 output decoded by prepare. */
    uint64_t sector_number, miner_id;
    struct cuzk_c1 *c1;
    /* SnapDeals: the commitments, and the partition proofs decoded and
     * checked by prepare (snap.h). */
    cuzk_fr snap_comm[3]; /* comm_r_old, comm_d_new, comm_r_new */
    struct cuzk_snap_partition_proof *snap;
    size_t n_snap;
    int state;
    int queued;        /* in its priority queue (partitions left to admit) */
    atomic_int cancel; /* never goes back to 0 */
    int failed;        /* a partition failed; res.error says why */
    int prep;          /* PREP_*: SRS acquired and profile known when READY */
    cuzk_srs_circuit *circ;
    uint64_t part_bytes, job_bytes; /* the working-set profile */
    size_t abc_bytes;               /* its a, b, c part */
    int packed;                     /* partitions go to the device packed (no host a, b, c) */
    size_t w_pool_bytes; /* a partition's witness, when its buffers are pooled (Filecoin kinds) */
    int wit_state;       /* WIT_* (SYNTHETIC) */
    cuzk_fr *syn_w;      /* the shared witness (SYNTHETIC) */
    size_t syn_w_bytes;
    uint64_t job_reserved;
    part *parts;
    uint32_t partitions, next_admit, inflight, partitions_done;
    unsigned waiters;
    double t_submit, t_start, t_end;
    cuzk_job_result res;
};

/* A prove device: a GPU, or the CPU backend (ordinal -1). */
typedef struct {
    int ordinal;
    int healthy;
    unsigned workers, idle;
    uint64_t partitions;
    double busy_s, device_s;
    char error[256];
    const job *current;
    char recent[N_RECENT][CUZK_SRS_ID_MAX + 1];
    unsigned n_recent;
} device;

typedef struct {
    cuzk_jobs *j;
    int dev;          /* index into devices */
    cuzk_backend *be; /* owned */
    unsigned batch_max;
    int trim; /* the engine went idle: give back what be keeps for reuse */
    pthread_t thread;
    int started;
} prover;

typedef struct {
    cuzk_jobs *j;
    pthread_t thread;
    int started;
    int critical_only; /* a synthesis worker kept for CRITICAL jobs */
} cpu_worker;

/* An a, b, c buffer kept for the next partition of the same size, with its
 * reservation (page-locking 12 GiB, or faulting it in, costs seconds). */
#define N_POOL 64
typedef struct {
    cuzk_fr *p;
    size_t bytes;
    int pinned;
    int witness; /* a witness buffer (malloc'd), not a, b, c */
} pooled;

/* srs_device_only: a circuit whose parameters go to every prove worker's
 * device before any of its partitions is admitted, and whose host copy is
 * released then. The slot holds an SRS reference of its own. */
#define N_PINNED 32
typedef struct {
    cuzk_srs_circuit *circ; /* NULL: free slot */
    uint64_t workers;       /* bit i: prover i keeps them on its device */
    uint64_t busy;          /* bit i: prover i is uploading them */
    int released, failed;
} pinned_srs;

typedef struct {
    uint64_t count[N_BUCKETS + 1];
    double sum;
} histogram;

struct cuzk_jobs {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    pthread_mutex_t gen_lock; /* one synthetic parameter generation at a time */
    cuzk_jobs_config cfg;
    char *param_dir, *backend, *filecoin_dir, *pce_dir;
    cuzk_srs_manager *srs;
    cuzk_mem *mem;
    job *all;
    job *qhead[N_PRIO], *qtail[N_PRIO]; /* jobs with partitions left to admit */
    part *ready;                        /* by priority, then admission order */
    part *redo;                         /* to synthesize again (a/b/c were consumed) */
    part *final_head, *final_tail;
    size_t n_queued, n_running, n_done;
    uint64_t queued_bytes; /* witness bytes held by queued jobs */
    uint32_t n_prep, n_synth, n_ready, n_prove, n_final, n_lookahead, n_express;
    uint64_t next_id, next_seq;
    int draining, stopping;
    uint64_t outcome[CUZK_JOBS_N_KINDS][3]; /* completed, failed, cancelled */
    histogram hist[N_STAGES];
    device devices[CUZK_JOBS_MAX_DEVICES];
    size_t n_devices;
    prover *provers;
    size_t n_provers;
    pinned_srs pinned[N_PINNED];
    pooled pool[N_POOL];
    size_t n_pool, pool_max;
    int pin_abc;                /* a, b, c in page-locked memory (GPU devices) */
    int device_spmv;            /* every prove worker computes a, b, c itself (jobs.h host_spmv) */
    uint64_t w_reused;          /* witnesses written into pooled buffers (atomic) */
    uint64_t ahead, ahead_back; /* partitions taken ahead, and given back (lock) */
    cpu_worker *synths, *finals;
    unsigned n_synths; /* synthesis_workers, plus the one kept for CRITICAL jobs */
};

/* jobs.c: bookkeeping, lock held. */
void engine_unqueue(cuzk_jobs *j, job *jb); /* out of its priority queue */
void engine_part_end(cuzk_jobs *j, part *p, int stage);
void engine_fail_job(cuzk_jobs *j, job *jb, const char *why);
void engine_maybe_finish(cuzk_jobs *j, job *jb);
int engine_job_stopped(const job *jb);
cuzk_err engine_hook(cuzk_jobs *j, cuzk_hook_point pt, const job *jb, uint32_t partition,
                     int device);
cuzk_err engine_hook_pin(cuzk_jobs *j, const char *circuit_id, int device);
uint64_t engine_to_ms(double s);

/* pipeline.c: the workers. */
cuzk_err engine_workers_start(cuzk_jobs *j);
void engine_workers_stop(cuzk_jobs *j);  /* joins them */
void engine_workers_free(cuzk_jobs *j);  /* closes the backends */
uint64_t engine_srs_bytes(cuzk_jobs *j); /* resident SRS (lock not needed) */
/* a, b, c buffers, lock held: back to the pool (its reservation with it) or
 * freed; and every pooled buffer freed. */
void engine_abc_put(cuzk_jobs *j, part *p);
/* The packed witness freed and uncounted, lock held. */
void engine_wpack_drop(cuzk_jobs *j, part *p);
/* The partition's witness and any unused witness buffer offered to it:
 * back to the pool (with their reservation) or freed, lock held. */
void engine_w_put(cuzk_jobs *j, part *p);
void engine_pool_drain(cuzk_jobs *j);
/* Whether parameters p may stay for good on a GPU of total_bytes
 * (srs.device_only) and still leave room for proofs on a domain of 2^log_m:
 * 1, or 0 with *need (the bytes both would take) set. */
int engine_device_only_fits(const cuzk_params *p, unsigned log_m, uint64_t total_bytes,
                            uint64_t *need);
/* srs_device_only slots, lock held: give back their SRS references. */
void engine_pins_free(cuzk_jobs *j);

/* A Filecoin circuit's parameters found (v28 name in filecoin_dir), its
 * constraint system recorded and cached when missing, and both registered
 * with the SRS manager under the registry's circuit id; `who` prefixes the
 * log lines ("job=..."). pipeline.c; cuzk_jobs_filecoin_circuit is its
 * public face. */
cuzk_err engine_filecoin_circuit(cuzk_jobs *j, const cuzk_fc_proof *fp, const char *who);

#endif
