/* bincode vanilla proofs (vanilla.h) against encodings built by hand here,
 * byte by byte from the layout of rust-fil-proofs' structures (u64 LE
 * lengths and integers, u32 LE enum variants, 32-byte field elements), not
 * with the encoder under test: decode, the fields read back, re-encode to
 * the same bytes; and every malformed class: each truncation, a bad
 * variant, lengths claiming gigabytes, a non-canonical element, an index
 * beyond its level, trailing bytes; and many proofs decoded at once on the
 * CPU pool, failing as the one-by-one loop fails. */
#include "check.h"
#include "cuzk/threads.h"
#include "cuzk/vanilla.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t b[1 << 16];
    size_t n;
} buf;

static void u64le(buf *w, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

static void u32le(buf *w, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        w->b[w->n++] = (uint8_t)(v >> (8 * i));
}

/* A canonical element: small integer tag in the first byte. */
static void elem(buf *w, uint8_t tag)
{
    memset(w->b + w->n, 0, 32);
    w->b[w->n] = tag;
    w->b[w->n + 1] = 0xa5;
    w->n += 32;
}

/* One level of an InclusionPath: 7 siblings tagged tag..tag+6, index. */
static void level8(buf *w, uint8_t tag, uint64_t index)
{
    u64le(w, 7);
    for (int i = 0; i < 7; i++)
        elem(w, (uint8_t)(tag + i));
    u64le(w, index);
}

/* sector 77; comm_r 1; one SectorProof with two inclusion proofs: a Single
 * of two arity-8 levels (indices 3, 5) and a Sub of one base level (index
 * 6) plus a sub level of arity 2 (index 1); comm_c 2, comm_r_last 3. */
static void build(buf *w)
{
    w->n = 0;
    u64le(w, 77);
    elem(w, 1);
    u64le(w, 1); /* sectors */
    u64le(w, 2); /* inclusion proofs */
    u32le(w, 0); /* Single */
    elem(w, 10); /* root */
    elem(w, 11); /* leaf */
    u64le(w, 2); /* path */
    level8(w, 20, 3);
    level8(w, 30, 5);
    u32le(w, 1); /* Sub */
    u64le(w, 1); /* base_proof */
    level8(w, 40, 6);
    u64le(w, 1); /* sub_proof: arity 2 */
    u64le(w, 1);
    elem(w, 50);
    u64le(w, 1);
    elem(w, 12); /* root */
    elem(w, 13); /* leaf */
    elem(w, 2);  /* comm_c */
    elem(w, 3);  /* comm_r_last */
}

static int fr_tag(const cuzk_fr *x, uint8_t tag)
{
    uint8_t b[32];
    cuzk_fr_to_bytes_le(b, x);
    return b[0] == tag && b[1] == 0xa5;
}

static void test_roundtrip(void)
{
    static buf w;
    build(&w);
    cuzk_post_sector_proof p;
    CHECK_OK(cuzk_post_sector_proof_decode(w.b, w.n, "vp", &p));
    CHECK(p.sector_id == 77 && fr_tag(&p.comm_r, 1) && p.n_sectors == 1);
    const cuzk_vanilla_sector *s = &p.sectors[0];
    CHECK(s->n_inclusion_proofs == 2 && fr_tag(&s->comm_c, 2) && fr_tag(&s->comm_r_last, 3));
    const cuzk_vanilla_merkle *a = &s->inclusion_proofs[0], *b = &s->inclusion_proofs[1];
    CHECK(a->form == CUZK_MERKLE_SINGLE && a->n_levels == 2 && a->n_base == 2);
    CHECK(a->arity[0] == 8 && a->arity[1] == 8 && a->index[0] == 3 && a->index[1] == 5);
    CHECK(fr_tag(&a->root, 10) && fr_tag(&a->leaf, 11));
    CHECK(fr_tag(&a->siblings[0], 20) && fr_tag(&a->siblings[6], 26) &&
          fr_tag(&a->siblings[7], 30) && fr_tag(&a->siblings[13], 36));
    CHECK(cuzk_vanilla_merkle_leaf_index(a) == 3 + 5 * 8);
    CHECK(b->form == CUZK_MERKLE_SUB && b->n_levels == 2 && b->n_base == 1);
    CHECK(b->arity[0] == 8 && b->arity[1] == 2 && b->index[0] == 6 && b->index[1] == 1);
    CHECK(fr_tag(&b->siblings[7], 50) && fr_tag(&b->root, 12) && fr_tag(&b->leaf, 13));
    CHECK(cuzk_vanilla_merkle_leaf_index(b) == 6 + 1 * 8);
    CHECK(cuzk_vanilla_merkle_sibling_offset(b, 1) == 7);
    uint8_t *enc;
    size_t n;
    CHECK_OK(cuzk_post_sector_proof_encode(&p, &enc, &n));
    CHECK(n == w.n && !memcmp(enc, w.b, n));
    free(enc);
    cuzk_post_sector_proof_free(&p);
}

static void expect_bad(const buf *w, const char *needle)
{
    cuzk_post_sector_proof p;
    CHECK_ERR(cuzk_post_sector_proof_decode(w->b, w->n, "vanilla_proofs[4]", &p), CUZK_EFORMAT,
              needle);
    CHECK(p.sectors == NULL && p.n_sectors == 0);
}

static void test_malformed(void)
{
    static buf w, t;
    build(&w);
    /* Every truncation fails cleanly, naming a field. */
    for (size_t cut = 0; cut < w.n; cut++) {
        t = w;
        t.n = cut;
        expect_bad(&t, "vanilla_proofs[4]");
    }
    t = w;
    t.n = 9;
    expect_bad(&t, "vanilla_proofs[4].comm_r: truncated: 32 bytes needed at byte 8, 1 remain");
    /* A bad ProofData variant (byte 56 starts the first MerkleProof). */
    t = w;
    t.b[56] = 7;
    expect_bad(&t, "inclusion_proofs[0]: ProofData variant 7 at byte 56");
    /* Lengths claiming gigabytes: the sector list and a path. */
    t = w;
    memset(t.b + 40, 0xff, 8);
    expect_bad(&t, "vanilla_proofs[4].sectors: length 18446744073709551615 at byte 40");
    t = w;
    t.b[48] = 0;
    t.b[52] = 1; /* 2^32 inclusion proofs */
    expect_bad(&t, "inclusion_proofs: length 4294967296 at byte 48");
    /* Non-canonical element: comm_r = 0xff..ff. */
    t = w;
    memset(t.b + 8, 0xff, 32);
    expect_bad(&t, "vanilla_proofs[4].comm_r: not a canonical field element (byte 8)");
    /* An index beyond its level: the first level's index is 9 (of 0..7). */
    t = w;
    size_t idx_at = 56 + 4 + 32 + 32 + 8 + 8 + 7 * 32;
    CHECK(t.b[idx_at] == 3);
    t.b[idx_at] = 9;
    expect_bad(&t, "path[0]: index 9");
    /* A level without siblings. */
    t = w;
    memset(t.b + 56 + 4 + 64 + 8, 0, 8);
    expect_bad(&t, "hashes: no siblings");
    /* Trailing bytes. */
    t = w;
    t.b[t.n++] = 0;
    expect_bad(&t, "1 trailing bytes after the proof");
    /* A Sub proof whose sub path has two levels. */
    t.n = 0;
    u64le(&t, 1);
    elem(&t, 1);
    u64le(&t, 1);
    u64le(&t, 1);
    u32le(&t, 1);
    u64le(&t, 1);
    level8(&t, 40, 0);
    u64le(&t, 2);
    level8(&t, 40, 0);
    level8(&t, 40, 0);
    elem(&t, 12);
    elem(&t, 13);
    elem(&t, 2);
    elem(&t, 3);
    expect_bad(&t, "sub_proof has 2 levels (1 expected)");
}

/* Many proofs at once on the pool: each equals its one-by-one decoding;
 * with items 7 and 23 broken (a non-canonical element, a truncation) the
 * error is item 7's, with the message the one-by-one decoding gives, at 1
 * and 2 threads, and nothing is left to free. */
static void test_batch(void)
{
    enum { N = 40 };
    static buf w[N];
    const uint8_t *data[N];
    size_t sizes[N];
    for (int i = 0; i < N; i++) {
        build(&w[i]);
        w[i].b[0] = (uint8_t)i; /* sector id 77 -> i */
        data[i] = w[i].b;
        sizes[i] = w[i].n;
    }
    cuzk_post_sector_proof out[N], one;
    memset(out, 0, sizeof out);
    CHECK_OK(cuzk_post_sector_proofs_decode(data, sizes, N, "vanilla_proofs", out));
    for (int i = 0; i < N; i++) {
        CHECK(out[i].sector_id == (uint64_t)i && out[i].n_sectors == 1 &&
              out[i].sectors[0].n_inclusion_proofs == 2);
        uint8_t *enc;
        size_t n;
        CHECK_OK(cuzk_post_sector_proof_encode(&out[i], &enc, &n));
        CHECK(n == w[i].n && !memcmp(enc, w[i].b, n));
        free(enc);
        cuzk_post_sector_proof_free(&out[i]);
    }
    memset(w[7].b + 8, 0xff, 32); /* comm_r >= r */
    sizes[23] -= 5;
    char want[512];
    CHECK_ERR(cuzk_post_sector_proof_decode(data[7], sizes[7], "vanilla_proofs[7]", &one),
              CUZK_EFORMAT, "vanilla_proofs[7]");
    snprintf(want, sizeof want, "%s", cuzk_errmsg());
    unsigned threads = cuzk_threads_count();
    for (unsigned t = 1; t <= 2; t++) {
        cuzk_threads_set(t);
        memset(out, 0, sizeof out);
        CHECK_ERR(cuzk_post_sector_proofs_decode(data, sizes, N, "vanilla_proofs", out),
                  CUZK_EFORMAT, want);
        int clean = 1;
        for (int i = 0; i < N; i++)
            clean &= out[i].sectors == NULL && out[i].n_sectors == 0;
        CHECK(clean);
    }
    cuzk_threads_set(threads);
}

int main(void)
{
    test_roundtrip();
    test_malformed();
    test_batch();
    return check_done("test_filecoin_vanilla");
}
