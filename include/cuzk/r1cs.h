/* Rank-1 constraint systems in memory, and witness files.
 *
 * A cuzk_r1cs is the builder a circuit synthesizes into: it allocates
 * variables, appends constraints (A.w) * (B.w) = (C.w) and optionally records
 * the assignment w. It must hold Filecoin-sized circuits (~2^27 constraints),
 * so it never stores a 32-byte field element per term: coefficients are
 * deduplicated on the fly into a table (a hash map from value to a u32 id;
 * real circuits use a handful of distinct values: +-1, powers of two, round
 * constants) and a term costs 8 bytes (u32 variable + u32 coefficient id) in
 * growable CSR arrays, one per matrix. Within one linear combination, terms
 * on the same variable are merged (coefficients added), zero coefficients are
 * dropped and the terms are stored sorted by column, so every row is
 * canonical.
 *
 * Variables: index 0 is the constant ONE (an input, allocated by
 * cuzk_r1cs_new with value 1), then the public inputs, then the aux
 * variables. A handle (cuzk_var) is the input index i, or CUZK_VAR_AUX_BIT | i
 * for aux i. Inputs and aux may be allocated in any interleaving; the global
 * column of aux i is n_inputs + i where n_inputs is the final input count
 * (it always counts ONE, as bellperson's ic length does).
 *
 * cuzk_r1cs_finalize() appends bellperson's input constraints (A = x_i,
 * B = C = 0 for every input, ONE included, in order) and freezes the system;
 * only a finalized system compiles to a PCE (pce.h).
 *
 * Ownership: the builder owns everything it returns pointers to; free it with
 * cuzk_r1cs_free(). Not thread-safe: one builder is used by one thread. */
#ifndef CUZK_R1CS_H
#define CUZK_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"

typedef uint32_t cuzk_var;
#define CUZK_VAR_ONE 0u
#define CUZK_VAR_AUX_BIT 0x80000000u

typedef struct {
    cuzk_var var;
    cuzk_fr coeff;
} cuzk_term;

typedef struct cuzk_r1cs cuzk_r1cs;

/* A new, empty system holding only ONE. with_values != 0 records the
 * assignment (alloc calls must then pass values). */
cuzk_err cuzk_r1cs_new(cuzk_r1cs **out, int with_values);
void cuzk_r1cs_free(cuzk_r1cs *cs);

/* Allocate a public input / an aux variable. The value is required with
 * values and ignored (may be NULL) without. EINVAL after finalize or when
 * the variable count would exceed what a PCE can index (2^32 - 1 columns,
 * 2^31 - 1 inputs or aux). */
cuzk_err cuzk_r1cs_alloc_input(cuzk_r1cs *cs, const cuzk_fr *value, cuzk_var *out);
cuzk_err cuzk_r1cs_alloc_aux(cuzk_r1cs *cs, const cuzk_fr *value, cuzk_var *out);

/* Append the constraint (sum a) * (sum b) = (sum c). Terms may repeat a
 * variable (merged) and carry zero coefficients (dropped); a term list may be
 * empty (NULL with n = 0). EINVAL for a variable not allocated yet, with
 * nothing appended. */
cuzk_err cuzk_r1cs_enforce(cuzk_r1cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b,
                           size_t nb, const cuzk_term *c, size_t nc);

/* Append bellperson's input constraints: for each input i = 0..n_inputs-1 in
 * order, A = x_i, B = 0, C = 0. After this, alloc/enforce (and a second
 * finalize) fail with EINVAL. */
cuzk_err cuzk_r1cs_finalize(cuzk_r1cs *cs);
int cuzk_r1cs_is_finalized(const cuzk_r1cs *cs);

uint32_t cuzk_r1cs_num_inputs(const cuzk_r1cs *cs); /* counts ONE */
uint64_t cuzk_r1cs_num_aux(const cuzk_r1cs *cs);
uint64_t cuzk_r1cs_num_constraints(const cuzk_r1cs *cs);
/* Distinct non-zero coefficients seen so far (the size of the table). */
uint32_t cuzk_r1cs_num_coeffs(const cuzk_r1cs *cs);

/* The full assignment w = (1, inputs..., aux...) of n_inputs + n_aux
 * elements, owned by cs; NULL without values. Valid until the next alloc
 * call (stable once finalized). */
const cuzk_fr *cuzk_r1cs_assignment(const cuzk_r1cs *cs);

/* Check (A.w) * (B.w) == C.w for every row so far, w in column order
 * (n_inputs + n_aux elements). On failure: EINVAL naming the first failing
 * row, also stored in *bad_row when bad_row is non-NULL. Multi-threaded. */
cuzk_err cuzk_r1cs_check(const cuzk_r1cs *cs, const cuzk_fr *w, uint64_t *bad_row);

/* Witness files: a full assignment w = (1, inputs..., aux...).
 *
 * Format (little-endian): magic "CUZKWIT\0" (8 bytes), u32 version (1),
 * u32 n_inputs (counts ONE, >= 1), u64 n_aux, u64 checksum64 of the body;
 * then the body: n_inputs + n_aux canonical 32-byte little-endian scalars
 * (cuzk_fr_to_bytes_le). The file size is exactly 32 + 32 * (n_inputs +
 * n_aux). */
#define CUZK_WITNESS_MAGIC "CUZKWIT"
#define CUZK_WITNESS_VERSION 1u
#define CUZK_WITNESS_HEADER_SIZE 32u

/* Write w (n_inputs + n_aux elements) to path, through a temporary file
 * renamed into place. Streams: needs no buffer of the file's size. */
cuzk_err cuzk_witness_write(const char *path, const cuzk_fr *w, uint32_t n_inputs, uint64_t n_aux);

/* Read a witness file into a malloc'd array (*w, caller frees). Rejects
 * (EFORMAT) bad magic, unsupported version, n_inputs == 0, a size that
 * differs from what the header implies, a non-canonical scalar (its index is
 * in the message) and w[0] != 1; ECHECKSUM when the body checksum differs. */
cuzk_err cuzk_witness_read(const char *path, cuzk_fr **w, uint32_t *n_inputs, uint64_t *n_aux);

/* The same checks on a witness image in memory (e.g. received over the
 * network); `name` stands for the path in error messages. */
cuzk_err cuzk_witness_parse(const uint8_t *data, size_t size, const char *name, cuzk_fr **w,
                            uint32_t *n_inputs, uint64_t *n_aux);

/* A buffer offered to a witness synthesis (a prover's pool): used when it
 * holds the witness, so that the gigabytes of a large assignment are not
 * page-faulted (and zeroed by the kernel) again for every partition. */
typedef struct {
    cuzk_fr *buf;
    size_t cap; /* elements */
} cuzk_wbuf;

/* The assignment of n elements for a witness synthesis: offer's buffer
 * when offered (offer and offer->buf non-NULL) and large enough, else a new
 * allocation (cuzk_alloc_huge: it is written once by every thread); NULL
 * when out of memory. Give it back with
 * cuzk_witness_buffer_drop on failure; on success the caller owns what it
 * returned either way (free() for a new one). */
cuzk_fr *cuzk_witness_buffer(const cuzk_wbuf *offer, size_t n);
/* Frees w unless it is the offered buffer. */
void cuzk_witness_buffer_drop(const cuzk_wbuf *offer, cuzk_fr *w);

#endif
