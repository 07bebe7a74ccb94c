/* Witness files: round trip (small and past one write chunk), the documented
 * layout, and each malformed input: bad magic, version, n_inputs = 0,
 * truncation, trailing bytes, checksum, a non-canonical scalar, w[0] != 1. */
#include "check.h"
#include "cuzk/r1cs.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path_good[512], path_bad[512];

static void reseal(uint8_t *d, size_t size)
{
    cuzk_put_le64(d + 24, cuzk_checksum64(d + 32, size - 32));
}

static void expect_bad(const uint8_t *d, size_t size, cuzk_err code, const char *needle, int line)
{
    CHECK_OK(cuzk_write_file(path_bad, d, size));
    cuzk_fr *w = (cuzk_fr *)1;
    uint32_t ni;
    uint64_t na;
    cuzk_err e = cuzk_witness_read(path_bad, &w, &ni, &na);
    if (e == code && strstr(cuzk_errmsg(), needle) && strstr(cuzk_errmsg(), path_bad) && !w) {
        check_passed++;
    } else {
        check_failed++;
        fprintf(stderr, "line %d: want %s containing \"%s\", got %s: %s\n", line,
                cuzk_err_name(code), needle, cuzk_err_name(e), cuzk_errmsg());
    }
    if (e == CUZK_OK)
        free(w);
}
#define EXPECT_BAD(d, size, code, needle) expect_bad(d, size, code, needle, __LINE__)

static void round_trip(uint32_t n_inputs, uint64_t n_aux, uint64_t seed)
{
    uint64_t n = n_inputs + n_aux;
    cuzk_fr *w = malloc(n * sizeof *w), *r;
    cuzk_fr_vec_rng(w, n, seed);
    cuzk_fr_one(&w[0]);
    CHECK_OK(cuzk_witness_write(path_good, w, n_inputs, n_aux));
    uint32_t ni = 0;
    uint64_t na = 0;
    CHECK_OK(cuzk_witness_read(path_good, &r, &ni, &na));
    CHECK(ni == n_inputs && na == n_aux);
    CHECK(memcmp(w, r, n * sizeof *w) == 0);
    /* layout: header then canonical little-endian scalars */
    uint8_t *d;
    size_t size;
    CHECK_OK(cuzk_read_file(path_good, &d, &size));
    CHECK(size == 32 + 32 * n);
    uint8_t le[32];
    cuzk_fr_to_bytes_le(le, &w[n - 1]);
    CHECK(memcmp(d + 32 + 32 * (n - 1), le, 32) == 0);
    uint32_t v;
    memcpy(&v, d + 12, 4);
    CHECK(memcmp(d, "CUZKWIT\0", 8) == 0 && v == n_inputs);
    free(d);
    free(r);
    free(w);
}

static void test_bad_inputs(void)
{
    enum { NI = 2, NA = 50 };
    cuzk_fr w[NI + NA];
    cuzk_fr_vec_rng(w, NI + NA, 3);
    cuzk_fr_one(&w[0]);
    CHECK_OK(cuzk_witness_write(path_good, w, NI, NA));
    uint8_t *img;
    size_t size;
    CHECK_OK(cuzk_read_file(path_good, &img, &size));
    uint8_t *d = malloc(size + 1);
#define FRESH() memcpy(d, img, size)
    FRESH();
    EXPECT_BAD(d, 20, CUZK_EFORMAT, "truncated: 20 bytes, the header alone needs 32");
    char want[128];
    snprintf(want, sizeof want, "truncated: %zu bytes, header implies %zu", size - 32, size);
    EXPECT_BAD(d, size - 32, CUZK_EFORMAT, want);
    d[size] = 7;
    EXPECT_BAD(d, size + 1, CUZK_EFORMAT, "1 trailing bytes");
    d[1] = 'X';
    EXPECT_BAD(d, size, CUZK_EFORMAT, "bad magic");
    FRESH();
    cuzk_put_le32(d + 8, 2);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "unsupported version 2");
    FRESH();
    cuzk_put_le32(d + 12, 0);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "n_inputs is 0");
    FRESH();
    cuzk_put_le64(d + 16, UINT64_MAX);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "impossible size");
    FRESH();
    d[32 + 32 * 7 + 3] ^= 4;
    EXPECT_BAD(d, size, CUZK_ECHECKSUM, "checksum mismatch");
    FRESH();
    memset(d + 32 + 32 * 9, 0xff, 32); /* element 9 >= r */
    memset(d + 32 + 32 * 30, 0xff, 32);
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "element 9 is not a canonical scalar");
    FRESH();
    memset(d + 32, 0, 32); /* w[0] = 0 */
    reseal(d, size);
    EXPECT_BAD(d, size, CUZK_EFORMAT, "w[0] is not 1");
#undef FRESH
    /* the writer does not judge: w[0] = 2 is written, and refused on read */
    cuzk_fr_from_u64(&w[0], 2);
    CHECK_OK(cuzk_witness_write(path_bad, w, NI, NA));
    cuzk_fr *r;
    uint32_t ni;
    uint64_t na;
    CHECK_ERR(cuzk_witness_read(path_bad, &r, &ni, &na), CUZK_EFORMAT, "w[0] is not 1");
    CHECK_ERR(cuzk_witness_read("/nonexistent/w.wit", &r, &ni, &na), CUZK_EIO,
              "/nonexistent/w.wit");
    CHECK_ERR(cuzk_witness_write("/nonexistent/w.wit", w, NI, NA), CUZK_EIO, "/nonexistent");
    CHECK_ERR(cuzk_witness_write(path_bad, w, 0, NA), CUZK_EINVAL, "ONE");
    free(d);
    free(img);
}

int main(void)
{
    snprintf(path_good, sizeof path_good, "%s/test_r1cs_witness_%ld.wit", check_tmpdir(),
             (long)getpid());
    snprintf(path_bad, sizeof path_bad, "%s/test_r1cs_witness_%ld_bad.wit", check_tmpdir(),
             (long)getpid());
    round_trip(1, 0, 1);
    round_trip(3, 1000, 2);
    round_trip(101, 200000, 3); /* several write chunks, several checksum blocks */
    cuzk_threads_set(1);
    round_trip(5, 70000, 4);
    cuzk_threads_set(2);
    test_bad_inputs();
    remove(path_good);
    remove(path_bad);
    cuzk_threads_shutdown();
    return check_done("test_r1cs_witness");
}
