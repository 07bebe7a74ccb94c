/* The envelopes Curio puts around vanilla proofs on the wire.
 *
 * PoRep C2 (POREP_SEAL_COMMIT): vanilla_proof is the JSON object
 *   {"SectorNum": N, "Phase1Out": "<base64 of the SealCommitPhase1Output
 *    JSON>", "SectorSize": S}
 * (Curio lib/ffi/cuzk_funcs.go: Go's encoding/json writes the C1 bytes as
 * standard base64). */
#ifndef CUZK_CURIO_H
#define CUZK_CURIO_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"

typedef struct {
    int64_t sector_num;
    uint64_t sector_size;
    uint8_t *c1; /* the SealCommitPhase1Output JSON, malloc'd */
    size_t c1_len;
} cuzk_curio_c1;

/* Decode the envelope. EFORMAT naming the field: not JSON, not an object,
 * a field missing or of the wrong type, Phase1Out not base64. */
cuzk_err cuzk_curio_c1_decode(const uint8_t *data, size_t size, cuzk_curio_c1 *out);
/* The envelope of c1 (for tests and tools); *out malloc'd, NUL-terminated. */
cuzk_err cuzk_curio_c1_encode(int64_t sector_num, uint64_t sector_size, const uint8_t *c1,
                              size_t c1_len, char **out);
void cuzk_curio_c1_free(cuzk_curio_c1 *c);

#endif
