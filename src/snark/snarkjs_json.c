/* snarkjs's JSON files: proof.json, public.json, verification_key.json.
 *
 * Field elements are decimal strings (numbers are accepted too). Points are
 * arrays of coordinates with a third, projective coordinate that snarkjs
 * always writes as 1 (or 0 for the point at infinity): G1 [x, y, z], G2
 * [[x0, x1], [y0, y1], [z0, z1]]. Points read are checked to be on the curve
 * and in the subgroup. Output follows snarkjs's layout byte for byte: one
 * space of indentation per level, keys in snarkjs's order, no newline at the
 * end. */
#include "json.h"
#include "snark_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- writing ---- */

static void w_g1(FILE *f, const char *ind, const blst_p1_affine *p)
{
    char x[120], y[120];
    if (blst_p1_affine_is_inf(p)) {
        fprintf(f, "[\n%s \"0\",\n%s \"1\",\n%s \"0\"\n%s]", ind, ind, ind, ind);
        return;
    }
    snark_fp_to_dec(x, &p->x);
    snark_fp_to_dec(y, &p->y);
    fprintf(f, "[\n%s \"%s\",\n%s \"%s\",\n%s \"1\"\n%s]", ind, x, ind, y, ind, ind);
}

static void w_fp2(FILE *f, const char *ind, const blst_fp2 *a)
{
    char c0[120], c1[120];
    snark_fp_to_dec(c0, &a->fp[0]);
    snark_fp_to_dec(c1, &a->fp[1]);
    fprintf(f, "[\n%s \"%s\",\n%s \"%s\"\n%s]", ind, c0, ind, c1, ind);
}

static void w_g2(FILE *f, const char *ind, const blst_p2_affine *p)
{
    char in2[16];
    snprintf(in2, sizeof in2, "%s ", ind);
    if (blst_p2_affine_is_inf(p)) {
        fprintf(f,
                "[\n%s[\n%s \"0\",\n%s \"0\"\n%s],\n%s[\n%s \"1\",\n%s \"0\"\n%s],\n%s[\n%s "
                "\"0\",\n%s \"0\"\n%s]\n%s]",
                in2, in2, in2, in2, in2, in2, in2, in2, in2, in2, in2, in2, ind);
        return;
    }
    fprintf(f, "[\n%s", in2);
    w_fp2(f, in2, &p->x);
    fprintf(f, ",\n%s", in2);
    w_fp2(f, in2, &p->y);
    fprintf(f, ",\n%s[\n%s \"1\",\n%s \"0\"\n%s]\n%s]", in2, in2, in2, in2, ind);
}

static cuzk_err finish(FILE *f, const char *path)
{
    int bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return cuzk_fail(CUZK_EIO, "writing %s failed", path);
    return CUZK_OK;
}

cuzk_err cuzk_snarkjs_proof_write(const char *path, const cuzk_proof *p)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot create %s", path);
    fprintf(f, "{\n \"pi_a\": ");
    w_g1(f, " ", &p->a);
    fprintf(f, ",\n \"pi_b\": ");
    w_g2(f, " ", &p->b);
    fprintf(f, ",\n \"pi_c\": ");
    w_g1(f, " ", &p->c);
    fprintf(f, ",\n \"protocol\": \"groth16\",\n \"curve\": \"bls12381\"\n}");
    return finish(f, path);
}

cuzk_err cuzk_snarkjs_public_write(const char *path, const cuzk_fr *x, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot create %s", path);
    if (n == 0)
        fprintf(f, "[]");
    for (size_t i = 0; i < n; i++) {
        char d[80];
        snark_fr_to_dec(d, &x[i]);
        fprintf(f, "%s\n \"%s\"", i ? "," : "[", d);
    }
    if (n)
        fprintf(f, "\n]");
    return finish(f, path);
}

/* ---- reading ---- */

static const char *scalar_text(const json_value *v)
{
    if (v && (v->type == JSON_STRING || v->type == JSON_NUMBER))
        return v->text;
    return NULL;
}

static cuzk_err get_fp(blst_fp *out, const json_value *v, const char *what)
{
    const char *t = scalar_text(v);
    if (!t)
        return cuzk_fail(CUZK_EFORMAT, "%s: expected a decimal string", what);
    cuzk_err e = snark_fp_from_dec(out, t);
    return e ? cuzk_fail_ctx(e, "%s: ", what) : CUZK_OK;
}

static int is_text(const json_value *v, const char *s)
{
    const char *t = scalar_text(v);
    return t && !strcmp(t, s);
}

static cuzk_err get_g1(blst_p1_affine *out, const json_value *v, const char *what)
{
    if (!v || v->type != JSON_ARRAY || v->n != 3)
        return cuzk_fail(CUZK_EFORMAT, "%s: expected a G1 point [x, y, z]", what);
    if (is_text(&v->items[2], "0")) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (!is_text(&v->items[2], "1"))
        return cuzk_fail(CUZK_EFORMAT, "%s: only affine points (z = 1) are supported", what);
    CUZK_TRY(get_fp(&out->x, &v->items[0], what));
    CUZK_TRY(get_fp(&out->y, &v->items[1], what));
    if (!blst_p1_affine_on_curve(out))
        return cuzk_fail(CUZK_ECURVE, "%s: point is not on the curve", what);
    if (!blst_p1_affine_in_g1(out))
        return cuzk_fail(CUZK_ECURVE, "%s: point is not in the subgroup", what);
    return CUZK_OK;
}

static cuzk_err get_fp2(blst_fp2 *out, const json_value *v, const char *what)
{
    if (!v || v->type != JSON_ARRAY || v->n != 2)
        return cuzk_fail(CUZK_EFORMAT, "%s: expected an Fp2 element [c0, c1]", what);
    CUZK_TRY(get_fp(&out->fp[0], &v->items[0], what));
    return get_fp(&out->fp[1], &v->items[1], what);
}

static cuzk_err get_g2(blst_p2_affine *out, const json_value *v, const char *what)
{
    if (!v || v->type != JSON_ARRAY || v->n != 3 || v->items[2].type != JSON_ARRAY ||
        v->items[2].n != 2)
        return cuzk_fail(CUZK_EFORMAT, "%s: expected a G2 point [[x0, x1], [y0, y1], [z0, z1]]",
                         what);
    const json_value *z = &v->items[2];
    if (is_text(&z->items[0], "0") && is_text(&z->items[1], "0")) {
        memset(out, 0, sizeof *out);
        return CUZK_OK;
    }
    if (!is_text(&z->items[0], "1") || !is_text(&z->items[1], "0"))
        return cuzk_fail(CUZK_EFORMAT, "%s: only affine points (z = [1, 0]) are supported", what);
    CUZK_TRY(get_fp2(&out->x, &v->items[0], what));
    CUZK_TRY(get_fp2(&out->y, &v->items[1], what));
    if (!blst_p2_affine_on_curve(out))
        return cuzk_fail(CUZK_ECURVE, "%s: point is not on the curve", what);
    if (!blst_p2_affine_in_g2(out))
        return cuzk_fail(CUZK_ECURVE, "%s: point is not in the subgroup", what);
    return CUZK_OK;
}

/* protocol and curve, when present, must be groth16 / bls12381. */
static cuzk_err check_kind(const json_value *root, const char *path)
{
    const json_value *proto = json_get(root, "protocol"), *curve = json_get(root, "curve");
    if (proto && !is_text(proto, "groth16"))
        return cuzk_fail(CUZK_EUNSUPPORTED, "%s: protocol \"%s\" is not supported (groth16 only)",
                         path, scalar_text(proto) ? scalar_text(proto) : "?");
    if (curve && !is_text(curve, "bls12381"))
        return cuzk_fail(CUZK_EUNSUPPORTED, "%s: curve %s is not supported yet (bls12381 only)",
                         path, scalar_text(curve) ? scalar_text(curve) : "?");
    return CUZK_OK;
}

#define WHAT(buf, path, key) (snprintf(buf, sizeof buf, "%s: %s", path, key), buf)

cuzk_err cuzk_snarkjs_proof_read(const char *path, cuzk_proof *p)
{
    json_value root;
    CUZK_TRY(json_read_file(path, &root));
    char w[600];
    cuzk_err e = CUZK_OK;
    if (root.type != JSON_OBJECT)
        e = cuzk_fail(CUZK_EFORMAT, "%s: a proof is a JSON object", path);
    if (!e)
        e = check_kind(&root, path);
    if (!e)
        e = get_g1(&p->a, json_get(&root, "pi_a"), WHAT(w, path, "pi_a"));
    if (!e)
        e = get_g2(&p->b, json_get(&root, "pi_b"), WHAT(w, path, "pi_b"));
    if (!e)
        e = get_g1(&p->c, json_get(&root, "pi_c"), WHAT(w, path, "pi_c"));
    json_free(&root);
    return e;
}

cuzk_err cuzk_snarkjs_public_read(const char *path, cuzk_fr **out, size_t *n)
{
    json_value root;
    CUZK_TRY(json_read_file(path, &root));
    cuzk_err e = CUZK_OK;
    cuzk_fr *x = NULL;
    if (root.type != JSON_ARRAY) {
        e = cuzk_fail(CUZK_EFORMAT, "%s: public signals are a JSON array", path);
        goto out;
    }
    x = malloc((root.n ? root.n : 1) * sizeof *x);
    if (!x) {
        e = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    for (size_t i = 0; i < root.n; i++) {
        const char *t = scalar_text(&root.items[i]);
        if (!t) {
            e = cuzk_fail(CUZK_EFORMAT, "%s: signal %zu is not a decimal string", path, i);
            goto out;
        }
        if ((e = snark_fr_from_dec(&x[i], t))) {
            cuzk_fail_ctx(e, "%s: signal %zu: ", path, i);
            goto out;
        }
    }
    *out = x;
    *n = root.n;
    x = NULL;
out:
    free(x);
    json_free(&root);
    return e;
}

cuzk_err cuzk_snarkjs_vkey_read(const char *path, cuzk_vk *vk)
{
    memset(vk, 0, sizeof *vk);
    json_value root;
    CUZK_TRY(json_read_file(path, &root));
    char w[600];
    cuzk_err e = CUZK_OK;
    const json_value *ic = json_get(&root, "IC"), *np = json_get(&root, "nPublic");
    if (root.type != JSON_OBJECT) {
        e = cuzk_fail(CUZK_EFORMAT, "%s: a verification key is a JSON object", path);
        goto out;
    }
    if ((e = check_kind(&root, path)))
        goto out;
    if (!ic || ic->type != JSON_ARRAY || ic->n == 0) {
        e = cuzk_fail(CUZK_EFORMAT, "%s: IC is missing or empty", path);
        goto out;
    }
    if (np && (!scalar_text(np) || strtoull(scalar_text(np), NULL, 10) + 1 != ic->n)) {
        e = cuzk_fail(CUZK_EFORMAT, "%s: nPublic does not match the %zu IC points", path, ic->n);
        goto out;
    }
    if ((e = get_g1(&vk->alpha_g1, json_get(&root, "vk_alpha_1"), WHAT(w, path, "vk_alpha_1"))) ||
        (e = get_g2(&vk->beta_g2, json_get(&root, "vk_beta_2"), WHAT(w, path, "vk_beta_2"))) ||
        (e = get_g2(&vk->gamma_g2, json_get(&root, "vk_gamma_2"), WHAT(w, path, "vk_gamma_2"))) ||
        (e = get_g2(&vk->delta_g2, json_get(&root, "vk_delta_2"), WHAT(w, path, "vk_delta_2"))))
        goto out;
    vk->ic = malloc(ic->n * sizeof *vk->ic);
    if (!vk->ic) {
        e = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
        goto out;
    }
    vk->n_ic = ic->n;
    for (size_t i = 0; i < ic->n; i++) {
        char what[600];
        snprintf(what, sizeof what, "%s: IC[%zu]", path, i);
        if ((e = get_g1(&vk->ic[i], &ic->items[i], what)))
            goto out;
    }
out:
    if (e)
        cuzk_vk_free(vk);
    json_free(&root);
    return e;
}
