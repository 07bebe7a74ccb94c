/* The aux window and the base of a witness-mode system (cs.h
 * cuzk_cs_set_aux_window, cuzk_cs_set_base). The window:
 * values after it land in the caller's buffer and read back from there,
 * the window's end is enforced, and the operations that assume one owned
 * array refuse a windowed system. The PoRep witness built with windows is
 * compared byte for byte with sequential synthesis in test_seal_gen_porep. */
#include "check.h"
#include "cuzk/cs.h"

int main(void)
{
    cuzk_cs *cs;
    cuzk_fr v[6], buf[2];
    cuzk_var x[6];
    for (int i = 0; i < 6; i++)
        cuzk_fr_from_u64(&v[i], 100 + (uint64_t)i);
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    for (int i = 0; i < 3; i++)
        CHECK_OK(cuzk_cs_alloc(cs, &v[i], &x[i]));
    CHECK_OK(cuzk_cs_set_aux_window(cs, buf, 2));
    CHECK_ERR(cuzk_cs_set_aux_window(cs, buf, 2), CUZK_EINVAL, "set already");
    CHECK_OK(cuzk_cs_alloc(cs, &v[3], &x[3]));
    CHECK_OK(cuzk_cs_alloc(cs, &v[4], &x[4]));
    CHECK_ERR(cuzk_cs_alloc(cs, &v[5], &x[5]), CUZK_EINVAL, "past the aux window");
    CHECK(cuzk_cs_num_aux(cs) == 5);
    CHECK(cuzk_fr_eq(&buf[0], &v[3]) && cuzk_fr_eq(&buf[1], &v[4]));
    for (int i = 0; i < 5; i++)
        CHECK(cuzk_cs_value(cs, x[i]) && cuzk_fr_eq(cuzk_cs_value(cs, x[i]), &v[i]));
    CHECK(cuzk_cs_value(cs, x[4] + 1) == NULL);
    CHECK(cuzk_fr_eq(&cuzk_cs_aux(cs)[2], &v[2]));
    cuzk_fr *w = NULL;
    size_t n = 0;
    CHECK_ERR(cuzk_cs_assignment(cs, &w, &n), CUZK_EINVAL, "aux window");
    cuzk_cs *other;
    CHECK_OK(cuzk_cs_new(&other, CUZK_CS_WITNESS));
    CHECK_ERR(cuzk_cs_extend(other, cs), CUZK_EINVAL, "aux window");
    /* After a reset the system owns all its values again. */
    CHECK_OK(cuzk_cs_reset(cs));
    for (int i = 0; i < 6; i++)
        CHECK_OK(cuzk_cs_alloc(cs, &v[i], &x[i]));
    CHECK(cuzk_cs_num_aux(cs) == 6 && cuzk_fr_eq(&cuzk_cs_aux(cs)[5], &v[5]));
    CHECK(cuzk_fr_eq(&buf[0], &v[3])); /* the old window is left alone */
    CHECK_OK(cuzk_cs_assignment(cs, &w, &n));
    CHECK(n == 7 && cuzk_fr_eq(&w[6], &v[5]));
    free(w);
    cuzk_cs_free(cs);
    cuzk_cs_free(other);
    /* A base: the values of another system, read in place. */
    cuzk_cs *base;
    cuzk_var bx[3], y;
    CHECK_OK(cuzk_cs_new(&base, CUZK_CS_WITNESS));
    CHECK_OK(cuzk_cs_alloc_input(base, &v[0], &bx[0]));
    for (int i = 1; i < 3; i++)
        CHECK_OK(cuzk_cs_alloc(base, &v[i], &bx[i]));
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    CHECK_OK(cuzk_cs_set_base(cs, cuzk_cs_inputs(base), cuzk_cs_num_inputs(base), cuzk_cs_aux(base),
                              cuzk_cs_num_aux(base)));
    CHECK(cuzk_cs_num_inputs(cs) == 2 && cuzk_cs_num_aux(cs) == 2);
    for (int i = 0; i < 3; i++)
        CHECK(cuzk_cs_value(cs, bx[i]) && cuzk_fr_eq(cuzk_cs_value(cs, bx[i]), &v[i]));
    CHECK_OK(cuzk_cs_alloc(cs, &v[5], &y));
    CHECK(y == (CUZK_VAR_AUX_BIT | 2) && cuzk_fr_eq(cuzk_cs_value(cs, y), &v[5]));
    CHECK(cuzk_fr_eq(&cuzk_cs_aux(cs)[0], &v[5])); /* its own aux start after the base */
    CHECK_OK(cuzk_cs_set_aux_window(cs, buf, 1));
    CHECK_OK(cuzk_cs_alloc(cs, &v[4], &y));
    CHECK(cuzk_fr_eq(&buf[0], &v[4]) && cuzk_fr_eq(cuzk_cs_value(cs, y), &v[4]));
    CHECK_ERR(cuzk_cs_assignment(cs, &w, &n), CUZK_EINVAL, "base");
    CHECK_ERR(cuzk_cs_set_base(cs, cuzk_cs_inputs(base), 1, NULL, 0), CUZK_EINVAL, "empty");
    CHECK_OK(cuzk_cs_reset(cs));
    CHECK(cuzk_cs_num_aux(cs) == 0);
    CHECK_OK(cuzk_cs_alloc(cs, &v[1], &y));
    CHECK(y == CUZK_VAR_AUX_BIT && cuzk_fr_eq(&cuzk_cs_aux(cs)[0], &v[1]));
    cuzk_cs_free(cs);
    cuzk_cs_free(base);
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    CHECK_ERR(cuzk_cs_set_aux_window(cs, buf, 2), CUZK_EINVAL, "witness mode only");
    CHECK_ERR(cuzk_cs_set_base(cs, buf, 1, buf, 1), CUZK_EINVAL, "witness mode only");
    cuzk_cs_free(cs);
    return check_done("test_circuits_cswindow");
}
