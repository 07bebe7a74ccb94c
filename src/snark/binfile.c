/* iden3's binary container (the shape of .r1cs, .wtns and .zkey files):
 * "magic" u32 version, u32 n_sections, then n_sections x (u32 type, u64 size,
 * size bytes). Sections may come in any order; readers ask for one by type.
 * Everything is checked against the file size before any section is used. */
#include "snark_internal.h"

#include <string.h>

cuzk_err binfile_open(binfile *b, const char *path, const char magic[4], uint32_t max_version)
{
    memset(b, 0, sizeof *b);
    b->name = path;
    CUZK_TRY(cuzk_mapfile_open(&b->map, path));
    const uint8_t *d = b->map.data;
    size_t size = b->map.size;
    cuzk_err rc = CUZK_OK;
    if (size < 12) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: truncated: %zu bytes, a %.4s file starts with 12", path,
                       size, magic);
        goto fail;
    }
    if (memcmp(d, magic, 4)) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: not a %.4s file (magic \"%.4s\")", path, magic,
                       (const char *)d);
        goto fail;
    }
    b->version = cuzk_get_le32(d + 4);
    if (b->version == 0 || b->version > max_version) {
        rc = cuzk_fail(CUZK_EUNSUPPORTED, "%s: %.4s version %u not supported (at most %u)", path,
                       magic, b->version, max_version);
        goto fail;
    }
    uint32_t n = cuzk_get_le32(d + 8);
    if (n > BIN_MAX_SECTIONS) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: %u sections (at most %d)", path, n, BIN_MAX_SECTIONS);
        goto fail;
    }
    size_t off = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (size - off < 12) {
            rc = cuzk_fail(CUZK_EFORMAT,
                           "%s: truncated in the header of section %u of %u (offset %zu)", path,
                           i + 1, n, off);
            goto fail;
        }
        uint32_t type = cuzk_get_le32(d + off);
        uint64_t len = cuzk_get_le64(d + off + 4);
        off += 12;
        if (len > size - off) {
            rc = cuzk_fail(CUZK_EFORMAT,
                           "%s: truncated: section %u (type %u) declares %llu bytes at offset %zu, "
                           "the file has %zu",
                           path, i + 1, type, (unsigned long long)len, off, size - off);
            goto fail;
        }
        b->sec[i] = (bin_section){type, off, (size_t)len};
        off += (size_t)len;
    }
    b->n_sec = n;
    if (off != size) {
        rc = cuzk_fail(CUZK_EFORMAT, "%s: %zu bytes after the last section", path, size - off);
        goto fail;
    }
    return CUZK_OK;
fail:
    cuzk_mapfile_close(&b->map);
    memset(&b->map, 0, sizeof b->map);
    return rc;
}

void binfile_close(binfile *b)
{
    cuzk_mapfile_close(&b->map);
    memset(b, 0, sizeof *b);
}

int binfile_has(const binfile *b, uint32_t type)
{
    for (size_t i = 0; i < b->n_sec; i++)
        if (b->sec[i].type == type)
            return 1;
    return 0;
}

cuzk_err binfile_section(const binfile *b, uint32_t type, const char *what, const uint8_t **p,
                         size_t *size)
{
    const bin_section *found = NULL;
    for (size_t i = 0; i < b->n_sec; i++) {
        if (b->sec[i].type != type)
            continue;
        if (found)
            return cuzk_fail(CUZK_EFORMAT, "%s: section %u (%s) appears twice", b->name, type,
                             what);
        found = &b->sec[i];
    }
    if (!found)
        return cuzk_fail(CUZK_EFORMAT, "%s: section %u (%s) is missing", b->name, type, what);
    *p = b->map.data + found->off;
    *size = found->size;
    return CUZK_OK;
}

void bin_put_header(uint8_t out[12], const char magic[4], uint32_t version, uint32_t n_sections)
{
    memcpy(out, magic, 4);
    cuzk_put_le32(out + 4, version);
    cuzk_put_le32(out + 8, n_sections);
}

void bin_put_section_header(uint8_t out[12], uint32_t type, uint64_t size)
{
    cuzk_put_le32(out, type);
    cuzk_put_le64(out + 4, size);
}
