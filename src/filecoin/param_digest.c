/* parameters.json's digest of a parameter file (include/cuzk/filecoin.h):
 * BLAKE2b-512 of the whole file, truncated to its first 16 bytes (the 32 hex
 * digits parameters.json gives for each file).
 *
 * The hash is libcrypto's (EVP_blake2b512), not ours: a digest that has to
 * agree with another program's is best computed by a widely used
 * implementation. The file is read in 8 MiB pieces, with
 * POSIX_FADV_SEQUENTIAL: the parameters of 32 GiB PoRep run to tens of GiB,
 * and large reads let the kernel read ahead at disk speed. Pages are left in
 * the cache (no DONTNEED): a daemon that checks a file usually loads it
 * next. */
#define _GNU_SOURCE
#include "cuzk/filecoin.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PIECE (8u << 20)

/* Read the whole of fd into h, telling progress after every piece. */
static cuzk_err digest_fd(int fd, const char *path, uint64_t size, EVP_MD_CTX *h, uint8_t *buf,
                          cuzk_progress_fn progress, void *ctx)
{
    uint64_t done = 0;
    for (;;) {
        ssize_t n = read(fd, buf, PIECE);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return cuzk_fail(CUZK_EIO, "%s: read at byte %llu: %s", path, (unsigned long long)done,
                             cuzk_strerror(errno));
        if (n == 0)
            return CUZK_OK;
        if (EVP_DigestUpdate(h, buf, (size_t)n) != 1)
            return cuzk_fail(CUZK_EINTERNAL, "%s: BLAKE2b update failed", path);
        done += (uint64_t)n;
        /* A file that grows while it is read: the total follows. */
        if (progress && progress(ctx, done, done > size ? done : size))
            return cuzk_fail(CUZK_ECANCELLED, "%s: digest stopped at byte %llu of %llu", path,
                             (unsigned long long)done, (unsigned long long)size);
    }
}

cuzk_err cuzk_fc_file_digest(const char *path, cuzk_progress_fn progress, void *ctx,
                             uint8_t out[CUZK_FC_DIGEST_BYTES])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_fail(CUZK_EIO, "%s: %s", path, cuzk_strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        cuzk_err e = cuzk_fail(CUZK_EIO, "%s: %s", path, cuzk_strerror(errno));
        close(fd);
        return e;
    }
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    uint8_t *buf = malloc(PIECE);
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    cuzk_err e = CUZK_OK;
    if (!buf || !h)
        e = cuzk_fail(CUZK_ENOMEM, "%s: out of memory for the digest", path);
    else if (EVP_DigestInit_ex(h, EVP_blake2b512(), NULL) != 1)
        e = cuzk_fail(CUZK_EINTERNAL, "%s: libcrypto has no BLAKE2b-512", path);
    else
        e = digest_fd(fd, path, (uint64_t)st.st_size, h, buf, progress, ctx);
    uint8_t full[EVP_MAX_MD_SIZE];
    unsigned len = 0;
    if (!e && (EVP_DigestFinal_ex(h, full, &len) != 1 || len < CUZK_FC_DIGEST_BYTES))
        e = cuzk_fail(CUZK_EINTERNAL, "%s: BLAKE2b final failed", path);
    if (!e)
        memcpy(out, full, CUZK_FC_DIGEST_BYTES);
    EVP_MD_CTX_free(h);
    free(buf);
    close(fd);
    return e;
}
