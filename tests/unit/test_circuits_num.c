/* AllocatedNum, packing and UInt64 gadgets: exact row counts and shapes of
 * bellpepper-core num.rs / bellperson multipack.rs / storage-proofs-core
 * uint64.rs (FILECOIN-CIRCUITS section 1), values, satisfiability of the
 * recorded R1CS for random inputs, and the orientation of single rows read
 * back from the compiled PCE. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/gadgets.h"
#include "cuzk/pce.h"

/* The (column, coefficient) pairs of one row of a PCE matrix. */
static size_t row_terms(const cuzk_pce *p, const cuzk_csr *m, uint64_t row, uint32_t *col,
                        cuzk_fr *coef, size_t cap)
{
    size_t n = 0;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1] && n < cap; k++, n++) {
        col[n] = m->col[k];
        coef[n] = p->coeffs[m->coef[k]];
    }
    return n;
}

static void gadgets_record(void)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_RECORD));
    cuzk_rng g;
    cuzk_rng_seed(&g, 1);
    cuzk_fr xv, yv;
    cuzk_fr_rng(&xv, &g);
    cuzk_fr_rng(&yv, &g);
    cuzk_num x, y, sq, prod, sum, packed;
    CHECK_OK(cuzk_num_alloc(cs, &xv, &x));     /* aux 0 */
    CHECK_OK(cuzk_num_alloc(cs, &yv, &y));     /* aux 1 */
    CHECK_OK(cuzk_num_square(cs, &x, &sq));    /* row 0 */
    CHECK_OK(cuzk_num_mul(cs, &x, &y, &prod)); /* row 1 */
    CHECK_OK(cuzk_num_add(cs, &x, &y, &sum));  /* row 2 */
    CHECK_OK(cuzk_num_inputize(cs, &prod));    /* row 3, input 1 */
    cuzk_bool bits[255];
    CHECK_OK(cuzk_num_to_bits_le(cs, &x, bits)); /* rows 4..258, 259 unpacking */
    CHECK(cuzk_cs_num_constraints(cs) == 4 + 255 + 1);
    CHECK_OK(cuzk_pack_bits(cs, bits, 255, &packed)); /* row 260: first 254 bits */
    uint64_t limbs[4];
    cuzk_fr_to_u64s(limbs, &xv);
    limbs[3] &= ~(1ull << 62 | 1ull << 63); /* bit 254 (and 255) dropped */
    cuzk_fr want;
    blst_fr_from_uint64(&want, limbs);
    CHECK(cuzk_fr_eq(&packed.val, &want));
    cuzk_bool u64[64];
    CHECK_OK(cuzk_u64_alloc(cs, 0x8000000000000001ull, u64)); /* rows 261..324 */
    CHECK_OK(cuzk_pack_into_inputs(cs, u64, 64));             /* row 325, input 2 */
    CHECK_OK(cuzk_pack_into_inputs(cs, bits, 255));           /* rows 326, 327: 254 + 1 */
    CHECK(cuzk_cs_num_constraints(cs) == 328);
    CHECK(cuzk_cs_num_inputs(cs) == 5);
    cuzk_fr e;
    blst_fr_mul(&e, &xv, &yv);
    CHECK(cuzk_fr_eq(&cuzk_cs_inputs(cs)[1], &e));
    cuzk_fr_from_u64(&e, 0x8000000000000001ull);
    CHECK(cuzk_fr_eq(&cuzk_cs_inputs(cs)[2], &e));
    CHECK(cuzk_fr_eq(&cuzk_cs_inputs(cs)[3], &want));
    CHECK_OK(cuzk_num_equal(cs, &x, &x)); /* row 328 */
    CHECK_OK(cuzk_cs_finish(cs));
    cuzk_fr *w;
    size_t nw;
    CHECK_OK(cuzk_cs_assignment(cs, &w, &nw));
    CHECK_OK(cuzk_r1cs_check(cuzk_cs_r1cs(cs), w, NULL));
    free(w);

    /* Orientation, read back from the PCE: inputs come first in columns
     * (ONE, 4 inputs), so aux i is column 5 + i. */
    cuzk_pce *p;
    CHECK_OK(cuzk_pce_from_r1cs(&p, cuzk_cs_r1cs(cs)));
    uint32_t col[300];
    cuzk_fr coef[300];
    const uint32_t X = 5, Y = 6, PROD = 8, SUM = 9;
    /* row 1: x * y = prod */
    CHECK(row_terms(p, &p->a, 1, col, coef, 300) == 1 && col[0] == X);
    CHECK(row_terms(p, &p->b, 1, col, coef, 300) == 1 && col[0] == Y);
    CHECK(row_terms(p, &p->c, 1, col, coef, 300) == 1 && col[0] == PROD);
    /* row 2: (x + y) * 1 = sum */
    CHECK(row_terms(p, &p->a, 2, col, coef, 300) == 2 && col[0] == X && col[1] == Y);
    CHECK(row_terms(p, &p->b, 2, col, coef, 300) == 1 && col[0] == 0);
    CHECK(row_terms(p, &p->c, 2, col, coef, 300) == 1 && col[0] == SUM);
    /* row 3: input * 1 = prod */
    CHECK(row_terms(p, &p->a, 3, col, coef, 300) == 1 && col[0] == 1);
    CHECK(row_terms(p, &p->b, 3, col, coef, 300) == 1 && col[0] == 0);
    CHECK(row_terms(p, &p->c, 3, col, coef, 300) == 1 && col[0] == PROD);
    /* row 4: booleanity (1 - b) * b = 0 */
    size_t na = row_terms(p, &p->a, 4, col, coef, 300);
    CHECK(na == 2 && col[0] == 0 && cuzk_fr_is_one(&coef[0]) && col[1] == SUM + 1);
    CHECK(row_terms(p, &p->b, 4, col, coef, 300) == 1 && col[0] == SUM + 1);
    CHECK(row_terms(p, &p->c, 4, col, coef, 300) == 0);
    /* row 259: unpacking 0 * 0 = sum 2^i b_i - x (A and B empty) */
    CHECK(row_terms(p, &p->a, 259, col, coef, 300) == 0);
    CHECK(row_terms(p, &p->b, 259, col, coef, 300) == 0);
    CHECK(row_terms(p, &p->c, 259, col, coef, 300) == 256);
    /* row 260: packing (sum) * 1 = packed, 254 terms */
    CHECK(row_terms(p, &p->a, 260, col, coef, 300) == 254);
    CHECK(row_terms(p, &p->b, 260, col, coef, 300) == 1 && col[0] == 0);
    /* the input constraints close the matrix: A = input i, B = C = 0 */
    uint64_t last = p->n_constraints - 1;
    CHECK(row_terms(p, &p->a, last, col, coef, 300) == 1 && col[0] == 4);
    CHECK(row_terms(p, &p->b, last, col, coef, 300) == 0);
    cuzk_pce_free(p);
    cuzk_cs_free(cs);
}

int main(void)
{
    gadgets_record();
    return check_done("test_circuits_num");
}
