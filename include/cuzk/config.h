/* cuzk-daemon configuration: defaults, a TOML file, command-line overrides.
 *
 * Keys (TOML tables and their keys; every other key is reported as unknown,
 * never silently ignored):
 *
 *   verify_proofs = true                      verify each proof before returning it
 *   [daemon]  listen = "unix:///run/curio/cuzk.sock"   gRPC; or "host:port" for TCP
 *             status_listen = ""             HTTP /status /metrics /healthz ("" = off),
 *                                            "host:port"
 *             log_file = ""                  "" = stderr
 *             pid_file = ""
 *             backend = "cpu"                cpu | cuda | cuda:N | auto
 *             max_message_bytes = 134217728  largest gRPC message accepted
 *             shutdown_grace_s = 30          SIGTERM: time for running jobs to end
 *             tls_cert = "", tls_key = ""    PEM server certificate chain and key: gRPC
 *                                            over TLS on a TCP listen address
 *             tls_client_ca = ""             PEM CA(s): clients must present a
 *                                            certificate they signed (mTLS); the three
 *                                            files are read again on SIGHUP
 *             node_name = <host name>        this daemon's name in GetStatus and /status
 *             allow_insecure_tcp = false     allow listen / status_listen on an address
 *                                            other than loopback without TLS
 *   [memory]  budget = "auto"                host memory for resident SRS plus partition
 *                                            working sets: "auto" (90% of MemAvailable at
 *                                            start), bytes, or "64GiB" / "512MiB" / "0" (none)
 *             pinned_budget = "0"            pinned host bytes (CUDA backend)
 *   [gpus]    devices = []                   CUDA ordinals to use (empty = all)
 *             spmv = "device"                where a, b, c are computed for CUDA
 *                                            provers: "device" (the GPU, from a packed
 *                                            witness) or "host" (the synthesis workers)
 *   [synthesis] threads = 0                  CPU threads (0 = all online CPUs)
 *               workers = 2                  partitions synthesized at once
 *   [srs]     param_cache = $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters
 *             preload = []                   circuit ids loaded before ready
 *             pce_dir = ""                   where Filecoin circuits' constraint systems
 *                                            are cached ("" = param_cache)
 *             device_only = false            CUDA: once every GPU keeps a circuit's
 *                                            parameters (preloaded ones: at once),
 *                                            release their host copy
 *   [scheduler] workers = 1                  prove workers per GPU (CPU backend: in all)
 *               finalizers = 1               CPU threads verifying and encoding proofs
 *               pipeline_depth = 0           partitions synthesized ahead of the prove
 *                                            workers, at most (0 = 2 per prove worker)
 *               max_batch_size = 1           partitions of one circuit a prove worker
 *                                            takes in a row
 *               max_batch_wait_ms = 0        how long it waits to fill such a batch
 *               max_queued = 1024            queued jobs beyond this are refused
 *               max_queued_bytes = "4GiB"    and so are jobs beyond this many bytes of
 *                                            queued request inputs (witnesses)
 *               retain = 1024                finished jobs kept for AwaitProof
 *               max_synthetic_constraints = 16777216
 *   [synthetic] enabled = false              accept SYNTHETIC jobs (test circuits)
 *               param_dir = "/var/tmp/cuzk-synthetic"  where their generated files go
 *               max_bytes = "16GiB"          cap on the files in param_dir
 *   [logging] level = "info"                 debug | info | warn | error
 *             format = "text"                text | json
 *   [circuits.<id>] params = "...", vk = "...", pce = "..."   register a circuit
 *
 * The file is parsed with toml11 (a C++ library; see src/daemon/toml_shim.cc)
 * into a flat list of typed keys that the C side validates. */
#ifndef CUZK_CONFIG_H
#define CUZK_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

#define CUZK_CONFIG_MAX_LIST 64

typedef struct {
    char *id, *params, *vk, *pce;
} cuzk_config_circuit;

typedef struct {
    int verify_proofs;
    char *listen, *status_listen, *log_file, *pid_file, *backend;
    char *tls_cert, *tls_key, *tls_client_ca; /* "" = none */
    char *node_name;                          /* this daemon's name in a fleet's status */
    int allow_insecure_tcp;
    uint64_t max_message_bytes;
    double shutdown_grace_s;
    int budget_auto;
    uint64_t budget_bytes, pinned_budget_bytes;
    int gpu_devices[CUZK_CONFIG_MAX_LIST];
    size_t n_gpu_devices;
    unsigned synthesis_threads;
    char *param_cache, *pce_dir;
    char *preload[CUZK_CONFIG_MAX_LIST];
    size_t n_preload;
    int srs_device_only;
    int host_spmv; /* gpus.spmv = "host" */
    unsigned workers, synthesis_workers, finalizers, pipeline_depth;
    unsigned max_batch_size, max_batch_wait_ms;
    uint64_t max_queued, max_queued_bytes, retain, max_synthetic;
    int synthetic_enabled;
    char *synthetic_param_dir;
    uint64_t synthetic_max_bytes;
    int log_level; /* cuzk_log_level */
    int log_json;
    cuzk_config_circuit circuits[CUZK_CONFIG_MAX_LIST];
    size_t n_circuits;
} cuzk_config;

/* Defaults (param_cache from $FIL_PROOFS_PARAMETER_CACHE when set). */
cuzk_err cuzk_config_defaults(cuzk_config *c);

/* Apply a TOML file over c. Errors (EIO unreadable, EFORMAT syntax, EINVAL a
 * bad value or an unknown key) name the file, line and key. All unknown keys
 * are listed in the message, not just the first. */
cuzk_err cuzk_config_load_file(cuzk_config *c, const char *path);

/* Apply one setting by its dotted name ("daemon.listen", "memory.budget",
 * "srs.preload" (comma-separated list), ...) from a string, as a command-line
 * flag does. EINVAL names the key and the value. */
cuzk_err cuzk_config_set(cuzk_config *c, const char *key, const char *value);

/* "64GiB", "512MiB", "1000", "1.5GB": bytes. EINVAL otherwise. */
cuzk_err cuzk_parse_bytes(const char *s, uint64_t *out);

void cuzk_config_free(cuzk_config *c);

/* daemon.log_file as the file at `path` sets it, for opening the log before
 * the configuration is read in full, so that even a file that fails to
 * parse has its error logged where the operator looks. Reads the TOML when
 * it parses, else scans the [daemon] table line by line. *out: malloc'd
 * path, or NULL when the file sets none (or cannot be read). */
void cuzk_config_peek_log_file(const char *path, char **out);

#endif
