/* Groth16 parameter files in bellperson's layout, the verifying key, and the
 * 192-byte proof encoding (DESIGN.md section 4).
 *
 * .params: VK (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1, delta_g2), then
 * u32 BE count + G1 points for each of ic, h, l, a, b_g1, then u32 BE count +
 * G2 points for b_g2. All points uncompressed (96 / 192 bytes). No header, no
 * padding. .vk: the VK part plus the ic vector.
 *
 * Reading applies bellperson's checks: every point on the curve with a
 * canonical encoding; with CUZK_PARAMS_CHECKED also in the subgroup; points of
 * ic, h, l, a, b_g1 and b_g2 must not be the point at infinity (bellperson's
 * "point at infinity" error), the six VK elements may be. Errors name the
 * section and the index of the offending point. */
#ifndef CUZK_PARAMS_H
#define CUZK_PARAMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <blst.h>

#include "cuzk/err.h"

typedef struct {
    blst_p1_affine alpha_g1, beta_g1, delta_g1;
    blst_p2_affine beta_g2, gamma_g2, delta_g2;
    size_t n_ic;
    blst_p1_affine *ic; /* owned (malloc) */
} cuzk_vk;

/* A whole parameter set in memory. Every array is owned by the struct and
 * released by cuzk_params_free(). */
typedef struct {
    cuzk_vk vk;
    size_t n_h, n_l, n_a, n_b_g1, n_b_g2;
    blst_p1_affine *h, *l, *a, *b_g1;
    blst_p2_affine *b_g2;
    /* The query arrays' host pages were given back (cuzk_params_release_host):
     * the points live on the devices that keep them only. */
    int host_released;
} cuzk_params;

/* Give the host memory of the five query arrays (h, l, a, b_g1, b_g2) back
 * to the system once the devices that will prove with them keep them
 * (groth16.h cuzk_groth16_params_to_device): their whole pages are dropped
 * and made inaccessible while the addresses stay reserved, so the arrays
 * keep their identity (devices find their copies by address) and a stray
 * host read faults at once instead of reading wrong points. The VK and the
 * counts stay. Returns the bytes given back (0 when released already).
 * cuzk_params_free frees as usual. */
uint64_t cuzk_params_release_host(cuzk_params *p);

enum {
    CUZK_PARAMS_CHECKED = 1, /* subgroup checks on every point (slow for big files) */
    /* cuzk_params_parse: the buffer is a read-only file mapping (cuzk_mapfile);
     * the pages of each decoded chunk are dropped from the process as it goes,
     * so parsing holds the parsed copy and a few MiB of the file, not both
     * copies (the kernel's page cache keeps the file). _read sets it. */
    CUZK_PARAMS_DROP_PAGES = 2,
};

/* Byte sizes of the VK block at the start of .params/.vk. */
#define CUZK_VK_FIXED_BYTES (3 * 96 + 3 * 192)

/* Readers. Every count is checked against the bytes that remain before
 * anything is allocated, and bytes after the last section are rejected.
 * Errors: CUZK_EFORMAT for truncation, a count that does not fit, trailing
 * bytes or a bad encoding; CUZK_ECURVE for a point off the curve, outside the
 * subgroup or at infinity where forbidden; CUZK_EIO if the file cannot be
 * mapped. Messages name the file, the section, the point index and the byte
 * offset. The big sections are decoded on the thread pool; the lowest failing
 * index is the one reported. On failure *out is left zeroed (nothing to free).
 * The _read variants mmap the file and block until parsing is done. */
cuzk_err cuzk_params_read(const char *path, cuzk_params *out, unsigned flags);
/* Parse from a memory buffer (e.g. an mmap'd file); `name` is used in errors. */
cuzk_err cuzk_params_parse(const uint8_t *data, size_t size, const char *name, cuzk_params *out,
                           unsigned flags);
/* The checks a start-up can afford on a multi-GiB file: the VK and ic fully
 * (points decoded, subgroup checked), then every section count against the
 * file size and nothing after the last section. The big sections' points
 * are not read. Same errors as cuzk_params_read. */
cuzk_err cuzk_params_check_file(const char *path);
/* Writes the whole struct through the streaming writer below (same bytes). */
cuzk_err cuzk_params_write(const char *path, const cuzk_params *p);
/* Frees the arrays and zeroes the struct; safe on a zeroed struct. */
void cuzk_params_free(cuzk_params *p);

/* .vk: the six VK elements, the ic count and ic; nothing may follow. The
 * points are uncompressed (as bellperson writes .vk files) or, read only,
 * all compressed (byte 0's flag 0x80 tells which). */
cuzk_err cuzk_vk_read(const char *path, cuzk_vk *out);
cuzk_err cuzk_vk_parse(const uint8_t *data, size_t size, const char *name, cuzk_vk *out);
cuzk_err cuzk_vk_write(const char *path, const cuzk_vk *vk);
void cuzk_vk_free(cuzk_vk *vk);

/* Streaming writer for setup: the file is written section by section in
 * the order vk, ic, h, l, a, b_g1, b_g2; each section is begun with its count
 * and then filled by one or more append calls whose total must equal it.
 * Writes go straight to `path` (buffered; points are encoded on the thread
 * pool in batches). Misuse (a section begun before the previous one is full,
 * too many points, G1 points for b_g2 or G2 points for the others, appends
 * before any begin) returns CUZK_EINVAL and leaves the writer as it was, so
 * the caller may go on or abort. After an I/O error, abort. */
typedef struct {
    FILE *f;
    char *path;
    int section;      /* index of the section being filled, -1 before ic */
    size_t remaining; /* points still owed to the current section */
    cuzk_params *mem; /* the in-memory target (open_mem), else NULL */
} cuzk_params_writer;

/* Creates `path` and writes the six fixed VK elements; vk->ic is not written
 * here: ic is the first section begun. On failure the writer is released. */
cuzk_err cuzk_params_writer_open(cuzk_params_writer *w, const char *path, const cuzk_vk *vk);
/* The same writer filling `dst` in memory instead of a file (the points as
 * cuzk_params_read would return them for that file, without the encoding
 * round trip): for parameter sets used in the same process, e.g. a
 * full-size benchmark that cannot afford the file. dst is complete after
 * _close; _abort (or a failed _close) frees what was filled and zeroes it. */
cuzk_err cuzk_params_writer_open_mem(cuzk_params_writer *w, cuzk_params *dst, const cuzk_vk *vk);
/* Begin the next section (ic, h, l, a, b_g1, then b_g2) with `count` points. */
cuzk_err cuzk_params_writer_begin(cuzk_params_writer *w, size_t count);
cuzk_err cuzk_params_writer_g1(cuzk_params_writer *w, const blst_p1_affine *pts, size_t n);
cuzk_err cuzk_params_writer_g2(cuzk_params_writer *w, const blst_p2_affine *pts, size_t n);
/* Checks that all six sections were written in full, then flushes, fsyncs
 * and closes. The writer is released in every case; on failure (EINVAL for
 * missing sections or points, EIO for a failed flush) the partial file is
 * removed as by _abort. */
cuzk_err cuzk_params_writer_close(cuzk_params_writer *w);
/* Abandon a partial file: closes and removes it. A no-op on a released
 * (closed, aborted or zeroed) writer. */
void cuzk_params_writer_abort(cuzk_params_writer *w);

/* A Groth16 proof; encoded as A (G1 compressed, 48) || B (G2 compressed, 96)
 * || C (G1 compressed, 48). */
typedef struct {
    blst_p1_affine a;
    blst_p2_affine b;
    blst_p1_affine c;
} cuzk_proof;

#define CUZK_PROOF_BYTES 192

void cuzk_proof_encode(uint8_t out[CUZK_PROOF_BYTES], const cuzk_proof *p);
/* Decodes with on-curve and subgroup checks (infinity is allowed, as in
 * bellperson's Proof::read). */
cuzk_err cuzk_proof_decode(cuzk_proof *p, const uint8_t in[CUZK_PROOF_BYTES]);

/* A multi-partition proof file is the concatenation of 192-byte proofs;
 * n must be >= 1 (EINVAL otherwise: the reader rejects an empty file). */
cuzk_err cuzk_proofs_write(const char *path, const cuzk_proof *p, size_t n);
/* Reads a file whose size must be a non-zero multiple of 192 (EFORMAT
 * otherwise); *out is malloc'd (caller frees). A bad proof fails with the
 * code of cuzk_proof_decode and a message naming its partition index. On
 * failure *out is NULL and *n is 0. */
cuzk_err cuzk_proofs_read(const char *path, cuzk_proof **out, size_t *n);

#endif
