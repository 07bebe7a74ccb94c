/* The SRS manager: which circuits' proving keys are resident, and where.
 *
 * A circuit id names three files: its Groth16 parameters (.params, the SRS
 * proper), its verifying key (.vk, optional) and its pre-compiled constraint
 * system (.pce). Ids are registered explicitly (configuration) or resolved in
 * the parameter folder as <dir>/<id>.params, <dir>/<id>.vk, <dir>/<id>.pce.
 * An id is 1..200 characters of [A-Za-z0-9._-], not starting with '.', so it
 * can never name a path outside the folder.
 *
 * Tiers (values as in the gRPC SRSStatus.Tier enum):
 *   COLD  known, nothing in memory;
 *   WARM  demoted from HOT: the .params file is mapped again and its pages
 *         are likely still in the page cache (a reload skips the disk);
 *   HOT   parsed into host memory (cuzk_params + PCE), ready to prove with.
 * A byte budget bounds the HOT tier (parsed params + PCE image). Making room
 * demotes the least recently used HOT circuits that no job references to
 * WARM; a circuit with references is never demoted. When the budget cannot
 * be met, loading fails with ENOMEM and says why, instead of overcommitting.
 *
 * Loading reads the file with progress in the log (bytes, rate, ETA) and
 * then parses it with bellperson's checks (params.h). Concurrent acquirers of
 * one id share a single load. All calls are thread-safe; those that load
 * block until the load ends. */
#ifndef CUZK_SRS_H
#define CUZK_SRS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"

typedef enum { CUZK_SRS_HOT = 0, CUZK_SRS_WARM = 1, CUZK_SRS_COLD = 2 } cuzk_srs_tier;

#define CUZK_SRS_ID_MAX 200

typedef struct cuzk_srs_manager cuzk_srs_manager;

/* A resident circuit, returned by acquire. Read-only and valid until the
 * matching cuzk_srs_release(); any number of threads may prove with it. */
typedef struct {
    const char *id;
    const cuzk_params *params;
    const cuzk_vk *vk; /* the .vk file when present, else the params' VK */
    const cuzk_pce *pce;
} cuzk_srs_circuit;

/* One line of a snapshot. */
typedef struct {
    char id[CUZK_SRS_ID_MAX + 1];
    cuzk_srs_tier tier;
    int loading;         /* a load is in progress */
    uint64_t size_bytes; /* resident bytes when HOT, else the expected ones */
    uint32_t ref_count;
    double last_used; /* cuzk_now() of the last acquire, 0 if never */
} cuzk_srs_info;

typedef struct {
    uint64_t budget_bytes, used_bytes; /* HOT bytes, loads in flight included */
    uint64_t loads, load_failures, evictions;
    uint64_t bytes_loaded;
    double load_seconds;
} cuzk_srs_totals;

/* param_dir: the folder ids are resolved in (not opened here). budget_bytes:
 * the HOT budget, 0 = unlimited. Owned by the caller; free with
 * cuzk_srs_manager_free() once no circuit is acquired. */
cuzk_err cuzk_srs_manager_new(const char *param_dir, uint64_t budget_bytes, cuzk_srs_manager **out);
void cuzk_srs_manager_free(cuzk_srs_manager *m);

/* EINVAL (naming the id) unless the id has the form above. */
cuzk_err cuzk_srs_check_id(const char *id);

/* Register explicit paths for an id (vk may be NULL); replaces a previous
 * registration while the id is COLD, EINVAL otherwise. */
cuzk_err cuzk_srs_register(cuzk_srs_manager *m, const char *id, const char *params_path,
                           const char *vk_path, const char *pce_path);

/* Adopt a circuit that exists in memory only (generated parameters, a
 * benchmark): *params is moved into the manager (zeroed in the caller) and
 * pce is owned by it from now on, both freed with the manager. It is HOT at
 * once and stays so: never demoted, and cuzk_srs_evict refuses it (there
 * are no files to reload it from). Its bytes count in used_bytes. EINVAL
 * when the id is loaded already. */
cuzk_err cuzk_srs_adopt(cuzk_srs_manager *m, const char *id, cuzk_params *params, cuzk_pce *pce);

/* Release the host copy of an acquired circuit's query arrays once every
 * device that proves with it keeps them (params.h cuzk_params_release_host;
 * the caller guarantees that). The circuit stays HOT for good: never
 * demoted nor evicted, as its host copy cannot be had back. Its freed bytes
 * leave used_bytes. Returns them (0 when released already). */
uint64_t cuzk_srs_release_host(cuzk_srs_manager *m, const cuzk_srs_circuit *c);

/* Whether the id's .params and .pce exist (registered or in the folder). */
int cuzk_srs_known(cuzk_srs_manager *m, const char *id);

/* Make the circuit HOT (loading it if needed) and take a reference.
 * *load_s (may be NULL) is the time this call spent waiting for a load.
 * Errors: EINVAL bad id; EIO missing file (message names it and the folder);
 * EFORMAT/ECURVE/ECHECKSUM a corrupt file (the parser's message); ENOMEM
 * when the budget cannot hold it. */
cuzk_err cuzk_srs_acquire(cuzk_srs_manager *m, const char *id, cuzk_srs_circuit **out,
                          double *load_s);
void cuzk_srs_release(cuzk_srs_manager *m, cuzk_srs_circuit *c);

/* Make the circuit HOT without keeping a reference. *already is 1 when it
 * was HOT before the call. */
cuzk_err cuzk_srs_preload(cuzk_srs_manager *m, const char *id, int *already, double *load_s);

/* Drop the circuit to COLD, freeing its memory. *was_loaded: it was HOT or
 * WARM; *freed: the bytes released. A circuit referenced by jobs is not
 * evicted: EINVAL with *in_use set to its reference count (0 otherwise). */
cuzk_err cuzk_srs_evict(cuzk_srs_manager *m, const char *id, int *was_loaded, uint64_t *freed,
                        uint32_t *in_use);

/* A copy of every known entry (malloc'd, caller frees) and the totals. */
cuzk_err cuzk_srs_snapshot(cuzk_srs_manager *m, cuzk_srs_info **list, size_t *n,
                           cuzk_srs_totals *totals);

#endif
