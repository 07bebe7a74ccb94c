/* cuzk hash: the native hashes of the circuits library, for checking values
 * against other implementations by hand or from scripts.
 *
 *   cuzk hash poseidon --arity A [--constant-length] [--le-bytes] X1 ... Xn
 *       Merkle-tree hash (n = A) by default; --constant-length hashes n <= A
 *       elements with the constant-length domain tag n * 2^64. Elements are
 *       decimal or 0x-prefixed big-endian hex; the digest is printed as one
 *       line of 0x-prefixed big-endian hex. With --le-bytes, inputs and output
 *       are 64-hex-digit little-endian byte strings (Filecoin's stored tree
 *       nodes), without 0x.
 *   cuzk hash sha256 HEX
 *       SHA-256 of the bytes (an empty argument is the empty message);
 *       prints 64 hex digits.
 *
 * Failures print one line "cuzk: hash: <why>" and exit 2. */
#include "cmd/cmd.h"
#include "cuzk/util.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "cuzk: hash: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n");
    return 2;
}

/* Hex text (optional 0x) to bytes; -1 for odd length or a bad digit. */
static long parse_hex(const char *s, uint8_t *out, size_t cap)
{
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    size_t n = strlen(s);
    if (n % 2 || n / 2 > cap)
        return -1;
    for (size_t i = 0; i < n / 2; i++) {
        int h = cuzk_hex_digit(s[2 * i]), l = cuzk_hex_digit(s[2 * i + 1]);
        if (h < 0 || l < 0)
            return -1;
        out[i] = (uint8_t)(h << 4 | l);
    }
    return (long)(n / 2);
}

static void print_hex(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

static int hash_sha256(int argc, char **argv)
{
    if (argc != 1)
        return fail("%s", "sha256 takes one hex argument");
    size_t cap = strlen(argv[0]) / 2 + 1;
    uint8_t *msg = malloc(cap), d[32];
    long n = msg ? parse_hex(argv[0], msg, cap) : -1;
    if (n < 0) {
        free(msg);
        return fail("sha256: '%s' is not an even number of hex digits", argv[0]);
    }
    cuzk_sha256(msg, (size_t)n, d);
    free(msg);
    print_hex(d, 32);
    return 0;
}

static int hash_poseidon(int argc, char **argv)
{
    unsigned arity = 0;
    int constant = 0, le = 0, n = 0;
    cuzk_fr in[CUZK_POSEIDON_MAX_ARITY];
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--arity")) {
            char *end;
            if (i + 1 >= argc)
                return fail("%s", "--arity needs a value");
            unsigned long v = strtoul(argv[++i], &end, 10);
            if (*end || !*argv[i] || v < 1 || v > CUZK_POSEIDON_MAX_ARITY)
                return fail("--arity '%s': need 1..36", argv[i]);
            arity = (unsigned)v;
        } else if (!strcmp(a, "--constant-length")) {
            constant = 1;
        } else if (!strcmp(a, "--le-bytes")) {
            le = 1;
        } else if (a[0] == '-' && a[1] == '-') {
            return fail("unknown option %s", a);
        } else if (n >= CUZK_POSEIDON_MAX_ARITY) {
            return fail("%s", "too many elements (at most 36)");
        } else if (le) {
            uint8_t b[32];
            if (strlen(a) != 64 || parse_hex(a, b, 32) != 32)
                return fail("'%s': --le-bytes elements are 64 hex digits", a);
            if (cuzk_fr_from_bytes_le(&in[n++], b))
                return fail("'%s': not a canonical field element (>= r)", a);
        } else if (cuzk_fr_from_str(&in[n++], a)) {
            fprintf(stderr, "cuzk: hash: '%s': %s\n", a, cuzk_errmsg());
            return 2;
        }
    }
    if (!arity)
        return fail("%s", "poseidon needs --arity");
    if (n == 0)
        return fail("%s", "poseidon needs elements to hash");
    cuzk_poseidon *p;
    cuzk_err e = cuzk_poseidon_new(&p, arity,
                                   constant ? CUZK_POSEIDON_CONSTANT_LENGTH : CUZK_POSEIDON_MERKLE,
                                   constant ? (uint64_t)n : 0);
    cuzk_fr out;
    if (!e)
        e = cuzk_poseidon_hash(p, in, (size_t)n, &out);
    cuzk_poseidon_free(p);
    if (e) {
        fprintf(stderr, "cuzk: hash: poseidon: %s\n", cuzk_errmsg());
        return 2;
    }
    if (le) {
        uint8_t b[32];
        cuzk_fr_to_bytes_le(b, &out);
        print_hex(b, 32);
    } else {
        char hex[67];
        cuzk_fr_to_hex(hex, &out);
        printf("%s\n", hex);
    }
    return 0;
}

int cmd_hash_main(int argc, char **argv)
{
    if (argc < 1)
        return fail("%s", "which hash? poseidon or sha256");
    if (!strcmp(argv[0], "poseidon"))
        return hash_poseidon(argc - 1, argv + 1);
    if (!strcmp(argv[0], "sha256"))
        return hash_sha256(argc - 1, argv + 1);
    return fail("unknown hash '%s' (poseidon or sha256)", argv[0]);
}
