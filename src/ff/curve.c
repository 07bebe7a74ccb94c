/* Point encodings with explicit checks, and fixed-base comb multiplication.
 *
 * blst's deserializers accept a compressed encoding inside a 96-byte buffer
 * (they dispatch on the 0x80 flag); bellperson's `from_uncompressed` does not,
 * so the flag is checked here before blst sees the bytes. */
#include "cuzk/curve.h"
#include "cuzk/threads.h"

#include <stdlib.h>
#include <string.h>

static cuzk_err map_blst(BLST_ERROR e, const char *what)
{
    switch (e) {
    case BLST_SUCCESS: return CUZK_OK;
    case BLST_BAD_ENCODING: return cuzk_fail(CUZK_EFORMAT, "%s: bad encoding", what);
    case BLST_POINT_NOT_ON_CURVE: return cuzk_fail(CUZK_ECURVE, "%s: point not on curve", what);
    case BLST_POINT_NOT_IN_GROUP: return cuzk_fail(CUZK_ECURVE, "%s: point not in subgroup", what);
    default: return cuzk_fail(CUZK_EFORMAT, "%s: decode error %d", what, (int)e);
    }
}

#define DEFINE_DECODE(fn, aff, nbytes, compressed, deser, infq, ingq, what)                        \
    cuzk_err fn(aff *out, const uint8_t in[nbytes], unsigned checks)                               \
    {                                                                                              \
        if (((in[0] & 0x80) != 0) != (compressed))                                                 \
            return cuzk_fail(CUZK_EFORMAT, "%s: compression flag is %s", what,                     \
                             (compressed) ? "clear in a compressed point"                          \
                                          : "set in an uncompressed point");                       \
        CUZK_TRY(map_blst(deser(out, in), what));                                                  \
        if (infq(out)) {                                                                           \
            if (checks & CUZK_PT_NO_INFINITY)                                                      \
                return cuzk_fail(CUZK_ECURVE, "%s: point at infinity", what);                      \
            return CUZK_OK;                                                                        \
        }                                                                                          \
        if ((checks & CUZK_PT_SUBGROUP) && !ingq(out))                                             \
            return cuzk_fail(CUZK_ECURVE, "%s: point not in subgroup", what);                      \
        return CUZK_OK;                                                                            \
    }

DEFINE_DECODE(cuzk_g1_decode, blst_p1_affine, 96, 0, blst_p1_deserialize, blst_p1_affine_is_inf,
              blst_p1_affine_in_g1, "G1 point")
DEFINE_DECODE(cuzk_g2_decode, blst_p2_affine, 192, 0, blst_p2_deserialize, blst_p2_affine_is_inf,
              blst_p2_affine_in_g2, "G2 point")
DEFINE_DECODE(cuzk_g1_decode_compressed, blst_p1_affine, 48, 1, blst_p1_uncompress,
              blst_p1_affine_is_inf, blst_p1_affine_in_g1, "compressed G1 point")
DEFINE_DECODE(cuzk_g2_decode_compressed, blst_p2_affine, 96, 1, blst_p2_uncompress,
              blst_p2_affine_is_inf, blst_p2_affine_in_g2, "compressed G2 point")

void cuzk_g1_encode(uint8_t out[96], const blst_p1_affine *p)
{
    blst_p1_affine_serialize(out, p);
}
void cuzk_g2_encode(uint8_t out[192], const blst_p2_affine *p)
{
    blst_p2_affine_serialize(out, p);
}
void cuzk_g1_encode_compressed(uint8_t out[48], const blst_p1_affine *p)
{
    blst_p1_affine_compress(out, p);
}
void cuzk_g2_encode_compressed(uint8_t out[96], const blst_p2_affine *p)
{
    blst_p2_affine_compress(out, p);
}

void cuzk_g1_mul(blst_p1 *out, const blst_p1 *p, const blst_fr *k)
{
    blst_scalar s;
    blst_scalar_from_fr(&s, k);
    blst_p1_mult(out, p, s.b, 255);
}

void cuzk_g2_mul(blst_p2 *out, const blst_p2 *p, const blst_fr *k)
{
    blst_scalar s;
    blst_scalar_from_fr(&s, k);
    blst_p2_mult(out, p, s.b, 255);
}

/* Comb table: t[j * 2^w + d] = d * 2^(w*j) * base, d in [0, 2^w). Entry d = 0
 * is the point at infinity (all-zero affine), which blst's mixed addition
 * treats as the identity. */
static unsigned window_digit(const blst_scalar *s, unsigned j, unsigned w)
{
    unsigned bit = j * w, v = 0;
    for (unsigned i = 0; i < w && bit + i < 256; i++)
        v |= (unsigned)((s->b[(bit + i) / 8] >> ((bit + i) % 8)) & 1) << i;
    return v;
}

#define DEFINE_FIXED(P, FIX, PT, AFF, ADD, ADDAFF, DBL, TOAFF, BATCHAFF)                           \
    cuzk_err P##_fixed_init(FIX *f, const PT *base, unsigned wbits)                                \
    {                                                                                              \
        if (wbits < 2 || wbits > 16)                                                               \
            return cuzk_fail(CUZK_EINVAL, "fixed-base window %u out of range", wbits);             \
        f->wbits = wbits;                                                                          \
        f->nwin = (255 + wbits - 1) / wbits;                                                       \
        size_t per = (size_t)1 << wbits, total = per * f->nwin;                                    \
        f->t = calloc(total, sizeof(AFF));                                                         \
        PT *proj = malloc(total * sizeof(PT));                                                     \
        if (!f->t || !proj) {                                                                      \
            free(f->t);                                                                            \
            free(proj);                                                                            \
            f->t = NULL;                                                                           \
            return cuzk_fail(CUZK_ENOMEM, "fixed-base table (%zu points): out of memory", total);  \
        }                                                                                          \
        PT b = *base;                                                                              \
        for (unsigned j = 0; j < f->nwin; j++) {                                                   \
            PT *row = proj + (size_t)j * per;                                                      \
            memset(&row[0], 0, sizeof(PT));                                                        \
            row[1] = b;                                                                            \
            for (size_t d = 2; d < per; d++)                                                       \
                ADD(&row[d], &row[d - 1], &b);                                                     \
            for (unsigned i = 0; i < wbits; i++)                                                   \
                DBL(&b, &b);                                                                       \
        }                                                                                          \
        /* blst's batch conversion needs no infinity in a run: convert each                        \
         * row from d = 1 and keep entry 0 as the all-zero infinity. */                            \
        for (unsigned j = 0; j < f->nwin; j++) {                                                   \
            const PT *ptrs[2] = {proj + (size_t)j * per + 1, NULL};                                \
            BATCHAFF(f->t + (size_t)j * per + 1, ptrs, per - 1);                                   \
        }                                                                                          \
        free(proj);                                                                                \
        return CUZK_OK;                                                                            \
    }                                                                                              \
    void P##_fixed_free(FIX *f)                                                                    \
    {                                                                                              \
        free(f->t);                                                                                \
        f->t = NULL;                                                                               \
    }                                                                                              \
    typedef struct {                                                                               \
        AFF *out;                                                                                  \
        const FIX *f;                                                                              \
        const blst_fr *k;                                                                          \
    } P##_fixed_ctx;                                                                               \
    static void P##_fixed_range(void *vctx, size_t lo, size_t hi, unsigned w)                      \
    {                                                                                              \
        (void)w;                                                                                   \
        P##_fixed_ctx *c = vctx;                                                                   \
        enum { BATCH = 256 };                                                                      \
        PT acc[BATCH];                                                                             \
        const PT *ptrs[2] = {acc, NULL};                                                           \
        size_t per = (size_t)1 << c->f->wbits;                                                     \
        for (size_t b0 = lo; b0 < hi; b0 += BATCH) {                                               \
            size_t nb = hi - b0 < BATCH ? hi - b0 : BATCH;                                         \
            for (size_t i = 0; i < nb; i++) {                                                      \
                blst_scalar s;                                                                     \
                blst_scalar_from_fr(&s, &c->k[b0 + i]);                                            \
                memset(&acc[i], 0, sizeof(PT));                                                    \
                for (unsigned j = 0; j < c->f->nwin; j++) {                                        \
                    unsigned d = window_digit(&s, j, c->f->wbits);                                 \
                    if (d)                                                                         \
                        ADDAFF(&acc[i], &acc[i], &c->f->t[(size_t)j * per + d]);                   \
                }                                                                                  \
            }                                                                                      \
            /* Batch conversion cannot take infinity: convert it singly. */                        \
            int has_inf = 0;                                                                       \
            for (size_t i = 0; i < nb; i++)                                                        \
                has_inf |= P##_is_inf_(&acc[i]);                                                   \
            if (!has_inf) {                                                                        \
                BATCHAFF(c->out + b0, ptrs, nb);                                                   \
            } else {                                                                               \
                for (size_t i = 0; i < nb; i++)                                                    \
                    TOAFF(&c->out[b0 + i], &acc[i]);                                               \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
    void P##_fixed_mul_batch(AFF *out, const FIX *f, const blst_fr *k, size_t n)                   \
    {                                                                                              \
        P##_fixed_ctx c = {out, f, k};                                                             \
        cuzk_parallel_for(n, 256, P##_fixed_range, &c);                                            \
    }

static int cuzk_g1_is_inf_(const blst_p1 *p)
{
    return blst_p1_is_inf(p);
}
static int cuzk_g2_is_inf_(const blst_p2 *p)
{
    return blst_p2_is_inf(p);
}

DEFINE_FIXED(cuzk_g1, cuzk_g1_fixed, blst_p1, blst_p1_affine, blst_p1_add_or_double,
             blst_p1_add_or_double_affine, blst_p1_double, blst_p1_to_affine, blst_p1s_to_affine)
DEFINE_FIXED(cuzk_g2, cuzk_g2_fixed, blst_p2, blst_p2_affine, blst_p2_add_or_double,
             blst_p2_add_or_double_affine, blst_p2_double, blst_p2_to_affine, blst_p2s_to_affine)
