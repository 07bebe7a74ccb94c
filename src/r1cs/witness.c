/* Witness files (format in r1cs.h): a full assignment as canonical scalars.
 *
 * The writer streams: it converts a bounded chunk at a time on the thread
 * pool, so a 2^27-element witness (4 GiB) needs no second 4 GiB buffer. The
 * body checksum is only known at the end, so the header goes out with a
 * placeholder, the written body is mapped back to checksum it, and the
 * checksum is patched in before the temporary file is renamed into place.
 * The reader maps the file, validates the header and size, checksums, and
 * converts in parallel, reporting the first non-canonical index. */
#define _GNU_SOURCE
#include "cuzk/r1cs.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK_ELEMS ((size_t)1 << 16) /* 2 MiB of output per write */

static const uint8_t WIT_MAGIC[8] = {'C', 'U', 'Z', 'K', 'W', 'I', 'T', 0};

static cuzk_err write_all(int fd, const void *buf, size_t n, const char *path)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return cuzk_fail(CUZK_EIO, "witness: writing %s failed: %s", path,
                             cuzk_strerror(errno));
        p += k;
        n -= (size_t)k;
    }
    return CUZK_OK;
}

typedef struct {
    uint8_t *out;
    const cuzk_fr *w;
} encode_ctx;

static void encode_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    encode_ctx *c = vctx;
    for (size_t i = lo; i < hi; i++)
        cuzk_fr_to_bytes_le(c->out + 32 * i, &c->w[i]);
}

/* Header and body into an open file; the checksum is patched afterwards. */
static cuzk_err write_content(int fd, const char *tmp, const cuzk_fr *w, uint32_t n_inputs,
                              uint64_t n_aux, uint8_t *buf)
{
    uint8_t hdr[CUZK_WITNESS_HEADER_SIZE] = {0};
    memcpy(hdr, WIT_MAGIC, 8);
    cuzk_put_le32(hdr + 8, CUZK_WITNESS_VERSION);
    cuzk_put_le32(hdr + 12, n_inputs);
    cuzk_put_le64(hdr + 16, n_aux);
    CUZK_TRY(write_all(fd, hdr, sizeof hdr, tmp));
    uint64_t n = (uint64_t)n_inputs + n_aux;
    for (uint64_t at = 0; at < n; at += CHUNK_ELEMS) {
        size_t len = n - at < CHUNK_ELEMS ? (size_t)(n - at) : CHUNK_ELEMS;
        encode_ctx c = {buf, w + at};
        cuzk_parallel_for(len, 4096, encode_range, &c);
        CUZK_TRY(write_all(fd, buf, 32 * len, tmp));
    }
    cuzk_mapfile map;
    CUZK_TRY(cuzk_mapfile_open(&map, tmp));
    uint64_t ck =
        cuzk_checksum64(map.data + CUZK_WITNESS_HEADER_SIZE, map.size - CUZK_WITNESS_HEADER_SIZE);
    cuzk_mapfile_close(&map);
    uint8_t ckb[8];
    cuzk_put_le64(ckb, ck);
    if (pwrite(fd, ckb, 8, 24) != 8)
        return cuzk_fail(CUZK_EIO, "witness: writing %s failed: %s", tmp, cuzk_strerror(errno));
    return CUZK_OK;
}

cuzk_err cuzk_witness_write(const char *path, const cuzk_fr *w, uint32_t n_inputs, uint64_t n_aux)
{
    if (n_inputs == 0 || !w)
        return cuzk_fail(CUZK_EINVAL, "witness: nothing to write to %s (n_inputs must count ONE)",
                         path);
    char tmp[4096];
    if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return cuzk_fail(CUZK_EINVAL, "witness: path too long: %s", path);
    uint8_t *buf = malloc(32 * CHUNK_ELEMS);
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "witness: out of memory");
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        free(buf);
        return cuzk_fail(CUZK_EIO, "witness: cannot create %s: %s", tmp, cuzk_strerror(errno));
    }
    cuzk_err e = write_content(fd, tmp, w, n_inputs, n_aux, buf);
    free(buf);
    if (close(fd) != 0 && !e)
        e = cuzk_fail(CUZK_EIO, "witness: closing %s failed: %s", tmp, cuzk_strerror(errno));
    if (!e && rename(tmp, path) != 0)
        e = cuzk_fail(CUZK_EIO, "witness: cannot rename %s to %s: %s", tmp, path,
                      cuzk_strerror(errno));
    if (e)
        unlink(tmp);
    return e;
}

typedef struct {
    const uint8_t *in;
    cuzk_fr *w;
} decode_ctx;

/* Decodes element i; non-zero when it is not canonical. */
static int decode_bad(void *vctx, uint64_t i)
{
    decode_ctx *c = vctx;
    return cuzk_fr_from_bytes_le(&c->w[i], c->in + 32 * i) != CUZK_OK;
}

static cuzk_err read_mapped(const char *path, const uint8_t *d, size_t size, cuzk_fr **w,
                            uint32_t *n_inputs, uint64_t *n_aux)
{
    if (size < CUZK_WITNESS_HEADER_SIZE)
        return cuzk_fail(CUZK_EFORMAT, "%s: truncated: %zu bytes, the header alone needs %u", path,
                         size, CUZK_WITNESS_HEADER_SIZE);
    if (memcmp(d, WIT_MAGIC, 8) != 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: bad magic (not a cuzk witness file)", path);
    uint32_t version = cuzk_get_le32(d + 8), ni = cuzk_get_le32(d + 12);
    uint64_t na = cuzk_get_le64(d + 16), stored = cuzk_get_le64(d + 24);
    if (version != CUZK_WITNESS_VERSION)
        return cuzk_fail(CUZK_EFORMAT, "%s: unsupported version %u (this build reads %u)", path,
                         version, CUZK_WITNESS_VERSION);
    if (ni == 0)
        return cuzk_fail(CUZK_EFORMAT, "%s: n_inputs is 0 (ONE is missing)", path);
    uint64_t n, body, want;
    if (__builtin_add_overflow((uint64_t)ni, na, &n) || __builtin_mul_overflow(n, 32, &body) ||
        __builtin_add_overflow(body, CUZK_WITNESS_HEADER_SIZE, &want) || want > SIZE_MAX)
        return cuzk_fail(CUZK_EFORMAT, "%s: header counts imply an impossible size", path);
    if (size < want)
        return cuzk_fail(CUZK_EFORMAT, "%s: truncated: %zu bytes, header implies %llu", path, size,
                         (unsigned long long)want);
    if (size > want)
        return cuzk_fail(CUZK_EFORMAT,
                         "%s: size mismatch: %zu bytes, header implies %llu (%llu trailing bytes)",
                         path, size, (unsigned long long)want, (unsigned long long)(size - want));
    uint64_t ck = cuzk_checksum64(d + CUZK_WITNESS_HEADER_SIZE, (size_t)body);
    if (ck != stored)
        return cuzk_fail(CUZK_ECHECKSUM,
                         "%s: body checksum mismatch (header says 0x%016llx, content is "
                         "0x%016llx): the file is corrupt",
                         path, (unsigned long long)stored, (unsigned long long)ck);
    cuzk_fr *out = malloc((size_t)n * sizeof *out);
    if (!out)
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory for %llu elements", path,
                         (unsigned long long)n);
    decode_ctx c = {d + CUZK_WITNESS_HEADER_SIZE, out};
    uint64_t bad = cuzk_parallel_first(n, 4096, decode_bad, &c);
    if (bad != UINT64_MAX) {
        free(out);
        return cuzk_fail(CUZK_EFORMAT, "%s: element %llu is not a canonical scalar (>= r)", path,
                         (unsigned long long)bad);
    }
    if (!cuzk_fr_is_one(&out[0])) {
        free(out);
        return cuzk_fail(CUZK_EFORMAT, "%s: w[0] is not 1 (element 0 must be ONE)", path);
    }
    *w = out;
    *n_inputs = ni;
    *n_aux = na;
    return CUZK_OK;
}

cuzk_err cuzk_witness_read(const char *path, cuzk_fr **w, uint32_t *n_inputs, uint64_t *n_aux)
{
    *w = NULL;
    cuzk_mapfile map;
    CUZK_TRY(cuzk_mapfile_open(&map, path));
    cuzk_err e = read_mapped(path, map.data, map.size, w, n_inputs, n_aux);
    cuzk_mapfile_close(&map);
    return e;
}

cuzk_err cuzk_witness_parse(const uint8_t *data, size_t size, const char *name, cuzk_fr **w,
                            uint32_t *n_inputs, uint64_t *n_aux)
{
    *w = NULL;
    return read_mapped(name, data, size, w, n_inputs, n_aux);
}

cuzk_fr *cuzk_witness_buffer(const cuzk_wbuf *offer, size_t n)
{
    if (offer && offer->buf && offer->cap >= n)
        return offer->buf;
    return cuzk_alloc_huge((n ? n : 1) * sizeof(cuzk_fr));
}

void cuzk_witness_buffer_drop(const cuzk_wbuf *offer, cuzk_fr *w)
{
    if (!offer || w != offer->buf)
        free(w);
}
