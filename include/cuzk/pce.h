/* The PCE ("pre-compiled constraint system"): the compiled, read-only form of
 * an R1CS that the prover uses, in memory and on disk.
 *
 * A, B and C are CSR matrices over global columns (inputs 0..n_inputs-1 with
 * ONE at 0, then aux at n_inputs + i); a non-zero stores its column (u32) and
 * the id (u32) of its coefficient in a deduplicated table. Rows are
 * canonical: columns strictly increasing, no zero coefficient. The A/B
 * density bitmaps tell the prover which columns have a base in the a/b_g1/b_g2
 * SRS queries (bellperson drops the points at infinity at setup).
 *
 * The file is the in-memory image: loading maps it and points the arrays into
 * the mapping, so start-up never parses elements one by one; it only runs
 * validation scans (multi-threaded) so that a corrupt file fails with a
 * precise error instead of crashing the prover later.
 *
 * File format, version 2, all integers little-endian (version 1 had 64-bit
 * row pointers; it is refused with a message saying to record the system
 * again):
 *
 *   offset size  field
 *        0    8  magic "CUZKPCE\0"
 *        8    4  u32 version = 2
 *       12    4  u32 field id = 1 (BLS12-381 scalar field Fr)
 *       16    4  u32 n_inputs (counts ONE, >= 1)
 *       20    4  u32 flags = 0
 *       24    8  u64 n_aux              (n_inputs + n_aux < 2^32)
 *       32    8  u64 n_constraints      (including the input constraints)
 *       40    8  u64 nnz_a              (each nnz < 2^32)
 *       48    8  u64 nnz_b
 *       56    8  u64 nnz_c
 *       64    4  u32 n_coeffs
 *       68    4  u32 log_domain         (smallest k with 2^k >= n_constraints)
 *       72    8  u64 body checksum      (cuzk_checksum64 of bytes [88, file end))
 *       80    8  u64 header checksum    (cuzk_checksum64 of bytes [0, 80))
 *       88       end of header; the body starts here
 *
 * Then the sections, in this order, each starting at the next multiple of 64
 * bytes from the start of the file (the first at 128); the gaps are zero
 * bytes and belong to the body (they are checksummed):
 *
 *   coeffs      n_coeffs x 32 bytes: blst_fr in Montgomery form (4 LE u64
 *               limbs, each < r, none zero), usable from the mapping as is
 *   A row_ptr   (n_constraints + 1) x u32: row r is [row_ptr[r], row_ptr[r+1])
 *   A col       nnz_a x u32: global column, strictly increasing within a row
 *   A coef      nnz_a x u32: coefficient id < n_coeffs
 *   B row_ptr, B col, B coef, C row_ptr, C col, C coef: as for A
 *   a_density   ceil((n_inputs + n_aux) / 64) x u64: bit j (word j/64, bit
 *               j%64) set iff column j has a non-zero in A; unused bits 0
 *   b_density   the same for B
 *
 * The file ends right after b_density: its size is exactly what the header
 * implies. cuzk_pce_load() checks, in order, each failure with its own
 * message naming the path: size >= 88, magic, version, field id, header
 * checksum, flags, counts (n_inputs >= 1, column count, log_domain), the exact
 * file size ("truncated: X bytes, header implies Y" / "Z trailing bytes"),
 * the body checksum (CUZK_ECHECKSUM; the others are CUZK_EFORMAT), the
 * coefficients, each matrix (row_ptr[0] == 0, monotone, row_ptr[n] == nnz,
 * every column < n_inputs + n_aux and strictly increasing in its row, every
 * coefficient id < n_coeffs; the first bad row is named) and that the
 * density bitmaps equal those of the matrices.
 *
 * Ownership: a cuzk_pce owns its arrays (one malloc'd image, or a read-only
 * mapping of the file); free it with cuzk_pce_free(). It is immutable once
 * built, so any number of threads may use it at once. */
#ifndef CUZK_PCE_H
#define CUZK_PCE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/r1cs.h"

#define CUZK_PCE_MAGIC "CUZKPCE"
#define CUZK_PCE_VERSION 2u
#define CUZK_PCE_FIELD_BLS12_381_FR 1u
#define CUZK_PCE_HEADER_SIZE 88u
#define CUZK_PCE_ALIGN 64u

typedef struct {
    const uint32_t *row_ptr; /* n_constraints + 1 (nnz < 2^32) */
    const uint32_t *col;
    const uint32_t *coef; /* ids into coeffs */
    uint64_t nnz;
} cuzk_csr;

typedef struct cuzk_pce {
    uint32_t n_inputs;             /* including ONE */
    uint64_t n_aux, n_constraints; /* constraints include the input constraints */
    unsigned log_domain;           /* smallest log2(m) with m >= n_constraints */
    cuzk_csr a, b, c;
    const cuzk_fr *coeffs;
    uint32_t n_coeffs;
    /* Bitmaps over the n_inputs + n_aux columns: bit set iff the column has
     * a non-zero in A (resp. B). */
    const uint64_t *a_density, *b_density;
    /* Popcounts of the bitmaps split at n_inputs. */
    uint64_t a_input_count, a_aux_count, b_input_count, b_aux_count;
    uint64_t checksum; /* the body checksum of the file format */

    /* private: the file image (header + body) the arrays point into, and
     * whether it is a mapping (munmap) or malloc'd (free). */
    const uint8_t *image_;
    size_t image_size_;
    int image_mapped_;
} cuzk_pce;

/* Compile a finalized system (EINVAL otherwise). Copies: cs stays usable and
 * may be freed before the PCE. Multi-threaded. */
cuzk_err cuzk_pce_from_r1cs(cuzk_pce **out, const cuzk_r1cs *cs);

/* Write the file image to path, through a temporary file in the same folder
 * renamed into place (a reader never sees a partial file). */
cuzk_err cuzk_pce_write(const cuzk_pce *p, const char *path);

/* Map and validate a file (see the format above). Blocks for the validation
 * scans, which read the whole file once. */
cuzk_err cuzk_pce_load(cuzk_pce **out, const char *path);

void cuzk_pce_free(cuzk_pce *p);

/* The image (header and body, the file's bytes) every array of p points
 * into: a copy of it elsewhere, a device's memory say, holds each array at
 * the same offset from its start. */
static inline const uint8_t *cuzk_pce_image(const cuzk_pce *p, size_t *size)
{
    *size = p->image_size_;
    return p->image_;
}

/* The constraint system of `copies` identical parts, from the one of a
 * single part t (which ends with its input constraints, as every finished
 * system does): part k's inputs and aux follow part k-1's, ONE is shared,
 * the input constraints of all inputs come last. The image is the one
 * recording all parts would give, byte for byte, in seconds instead of
 * minutes for FallbackPoSt's 2,349 sectors. EINVAL when t does not end
 * with its input constraints or the result has too many columns. */
cuzk_err cuzk_pce_tile(const cuzk_pce *t, uint64_t copies, cuzk_pce **out);
/* The same for a circuit of a fixed prefix then `copies` identical parts
 * that may use the prefix's variables (PoRep: the top, then challenges
 * using replica_id's bits, comm_d, comm_c and comm_r_last). t is the
 * system of the prefix and one part: its first prefix_inputs inputs (ONE
 * included), prefix_aux aux and prefix_rows constraints are the prefix's.
 * Prefix columns keep their place (the prefix's aux first among the aux);
 * part k's inputs and aux follow part k-1's. cuzk_pce_tile is the prefix
 * of ONE alone. The image is the one recording everything would give.
 * EINVAL as cuzk_pce_tile, or for a prefix larger than t. */
cuzk_err cuzk_pce_tile_prefix(const cuzk_pce *t, uint32_t prefix_inputs, uint64_t prefix_aux,
                              uint64_t prefix_rows, uint64_t copies, cuzk_pce **out);

/* The header checks of cuzk_pce_load only (magic, version, field, header
 * checksum, counts, the size they imply against the file's size), reading
 * 88 bytes: for start-up checks on multi-GiB files. */
cuzk_err cuzk_pce_check_header(const char *path);

/* a = A.w, b = B.w, c = C.w, each n_constraints long; w has n_inputs + n_aux
 * elements. Multi-threaded; the result does not depend on the thread count.
 * Outputs must not alias w. */
cuzk_err cuzk_pce_spmv(const cuzk_pce *p, const cuzk_fr *w, cuzk_fr *a, cuzk_fr *b, cuzk_fr *c);

/* Transposed products for setup: u = A^T.x, v = B^T.x, t = C^T.x, with x of
 * n_constraints entries and outputs of n_inputs + n_aux. Multi-threaded and
 * deterministic. Allocates a transpose of one matrix at a time
 * (8 bytes per non-zero + 8 per column); needs n_constraints < 2^32. */
cuzk_err cuzk_pce_spmv_t(const cuzk_pce *p, const cuzk_fr *x, cuzk_fr *u, cuzk_fr *v, cuzk_fr *t);

#endif
