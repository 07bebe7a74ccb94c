/* cuzk subcommands for circom / snarkjs files (snark.h):
 *
 *   cuzk prove   --zkey K --wtns W [-o DIR] [--backend B] [--threads N] [--fixed-rs]
 *                  writes DIR/proof.json and DIR/public.json (DIR defaults to .)
 *   cuzk verify  --vkey verification_key.json --public public.json --proof proof.json
 *                  exit 0 valid, 1 invalid, 2 error
 *   cuzk setup   --r1cs R --zkey OUT.zkey [--out PREFIX] [--backend B] [--threads N]
 *                  a single-party setup in snarkjs's format (PREFIX.params/.vk/.pce too);
 *                  B (cpu|cuda|cuda:N|auto) runs the fixed-base multiplications
 *   cuzk convert --zkey K --r1cs R --out PREFIX      zkey -> PREFIX.params, .vk, .pce
 *   cuzk convert --params P --pce C --zkey OUT       params (odd-coset H) -> zkey
 *   cuzk convert --wtns W --witness OUT.wit (--r1cs R | --zkey K)   witness -> .wit
 *
 * cuzk.c hands prove/verify/setup over when their arguments name snarkjs
 * files (--zkey, --vkey, --r1cs); convert is registered as a subcommand. */
#include "cmd/cmd.h"
#include "cuzk/groth16.h"
#include "cuzk/snark.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    const char *zkey, *wtns, *out_dir, *vkey, *public_path, *proof, *r1cs, *out, *params, *pce,
        *witness, *backend;
    int fixed_rs, threads;
} sopts;

#define fail cmd_fail

static int parse(int argc, char **argv, sopts *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "cpu";
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        static const struct {
            const char *name;
            size_t off;
        } str_opts[] = {
            {"--zkey", offsetof(sopts, zkey)},          {"--wtns", offsetof(sopts, wtns)},
            {"-o", offsetof(sopts, out_dir)},           {"--vkey", offsetof(sopts, vkey)},
            {"--public", offsetof(sopts, public_path)}, {"--proof", offsetof(sopts, proof)},
            {"--r1cs", offsetof(sopts, r1cs)},          {"--out", offsetof(sopts, out)},
            {"--params", offsetof(sopts, params)},      {"--pce", offsetof(sopts, pce)},
            {"--witness", offsetof(sopts, witness)},    {"--backend", offsetof(sopts, backend)},
        };
        int matched = 0;
        for (size_t k = 0; k < sizeof str_opts / sizeof *str_opts; k++)
            if (!strcmp(a, str_opts[k].name)) {
                if (!v)
                    return fprintf(stderr, "cuzk: %s needs a value\n", a), -1;
                *(const char **)((char *)o + str_opts[k].off) = v;
                i++;
                matched = 1;
                break;
            }
        if (matched)
            continue;
        if (!strcmp(a, "--fixed-rs")) {
            o->fixed_rs = 1;
        } else if (!strcmp(a, "--threads") && v) {
            char *end;
            long n = strtol(v, &end, 10);
            if (*end || n < 1 || n > 4096)
                return fprintf(stderr, "cuzk: --threads: bad number \"%s\"\n", v), -1;
            o->threads = (int)n;
            i++;
        } else {
            return fprintf(stderr, "cuzk: unknown or incomplete option %s\n", a), -1;
        }
    }
    if (o->threads)
        cuzk_threads_set((unsigned)o->threads);
    return 0;
}

int cmd_snark_prove(int argc, char **argv)
{
    sopts o;
    if (parse(argc, argv, &o))
        return 2;
    if (!o.zkey || !o.wtns) {
        fprintf(stderr, "cuzk: prove needs --zkey and --wtns (and optionally -o DIR)\n");
        return 2;
    }
    const char *dir = o.out_dir ? o.out_dir : ".";
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "cuzk: prove: output folder %s does not exist\n", dir);
        return 2;
    }
    /* Both outputs writable before the proving work. */
    char *pp, *pub;
    cuzk_err e = cmd_output_pair(dir, "/proof.json", "/public.json", &pp, &pub);
    if (e)
        return fail("prove", e);
    double t0 = cuzk_now();
    cuzk_zkey *z = NULL;
    cuzk_fr *w = NULL;
    size_t n = 0;
    cuzk_backend *be = NULL;
    int rc = 2;
    if ((e = cuzk_zkey_read(o.zkey, &z))) {
        fail("prove", e);
        goto out;
    }
    double t_load = cuzk_now() - t0;
    if ((e = cuzk_wtns_read(o.wtns, &w, &n))) {
        fail("prove", e);
        goto out;
    }
    if ((e = cuzk_backend_open(o.backend, &be))) {
        fail("prove", e);
        goto out;
    }
    cuzk_fr r, s;
    cuzk_fr_from_u64(&r, 1234567);
    cuzk_fr_from_u64(&s, 7654321);
    cuzk_proof proof;
    cuzk_prove_timings tm;
    if ((e = cuzk_zkey_prove(be, z, w, n, o.fixed_rs ? &r : NULL, o.fixed_rs ? &s : NULL, &proof,
                             &tm))) {
        fail("prove", e);
        goto out;
    }
    if (!(e = cuzk_snarkjs_proof_write(pp, &proof)))
        e = cuzk_snarkjs_public_write(pub, w + 1, z->n_public);
    if (e) {
        fail("prove", e);
        goto out;
    }
    printf("backend=%s constraints_domain=2^%u signals=%u public=%u\n", cuzk_backend_name(be),
           z->log_m, z->n_vars, z->n_public);
    printf("load_s=%.3f spmv_s=%.3f h_s=%.3f msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f "
           "msm_b_g1_s=%.3f msm_b_g2_s=%.3f prove_s=%.3f total_s=%.3f\n",
           t_load, tm.spmv, tm.h, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2, tm.total,
           cuzk_now() - t0);
    rc = 0;
out:
    cuzk_backend_close(be);
    cuzk_zkey_free(z);
    free(w);
    free(pp);
    free(pub);
    return rc;
}

int cmd_snark_verify(int argc, char **argv)
{
    sopts o;
    if (parse(argc, argv, &o))
        return 2;
    if (!o.vkey || !o.public_path || !o.proof) {
        fprintf(stderr, "cuzk: verify needs --vkey, --public and --proof\n");
        return 2;
    }
    cuzk_vk vk;
    cuzk_fr *x = NULL;
    size_t n = 0;
    cuzk_proof proof;
    cuzk_err e;
    if ((e = cuzk_snarkjs_vkey_read(o.vkey, &vk)))
        return fail("verify", e);
    int rc = 2;
    if ((e = cuzk_snarkjs_public_read(o.public_path, &x, &n)) ||
        (e = cuzk_snarkjs_proof_read(o.proof, &proof))) {
        fail("verify", e);
        goto out;
    }
    e = cuzk_groth16_verify(&vk, x, n, &proof);
    if (e == CUZK_OK) {
        printf("valid\n");
        rc = 0;
    } else if (e == CUZK_EVERIFY) {
        printf("invalid: %s\n", cuzk_errmsg());
        rc = 1;
    } else {
        fail("verify", e);
    }
out:
    free(x);
    cuzk_vk_free(&vk);
    return rc;
}

static cuzk_err pce_from_circom(const char *path, cuzk_pce **pce, uint32_t *n_public)
{
    cuzk_circom_r1cs *r;
    CUZK_TRY(cuzk_circom_r1cs_read(path, &r));
    if (n_public)
        *n_public = cuzk_circom_r1cs_n_public(r);
    cuzk_err e = cuzk_pce_from_r1cs(pce, r->cs);
    cuzk_circom_r1cs_free(r);
    return e;
}

/* params (odd-coset H) + pce -> zkey, with progress on stderr and stopped
 * (its temporary file removed) by SIGINT / SIGTERM. */
static cuzk_err params_to_zkey(const char *params, const cuzk_pce *pce, const char *zkey)
{
    cuzk_params p;
    cuzk_progress *pr;
    CUZK_TRY(cmd_output_check(zkey));
    CUZK_TRY(cuzk_params_read(params, &p, 0));
    cuzk_err e = cmd_progress_start("zkey", "points", &pr);
    if (!e)
        e = cuzk_zkey_write_progress(zkey, &p, pce, cuzk_progress_callback, pr);
    cuzk_progress_finish(pr);
    cuzk_params_free(&p);
    return e;
}

int cmd_snark_setup(int argc, char **argv)
{
    sopts o;
    if (parse(argc, argv, &o))
        return 2;
    if (!o.r1cs || !o.zkey) {
        fprintf(stderr, "cuzk: setup needs --r1cs and --zkey (and optionally --out PREFIX)\n");
        return 2;
    }
    cmd_catch_stop_signals();
    cuzk_pce *pce = NULL;
    char *pp = NULL, *vp = NULL, *cp = NULL;
    cuzk_setup_options so = {.basis = CUZK_H_SNARKJS, .backend = o.backend};
    cuzk_err e = cuzk_groth16_setup_check(&so);
    int rc = 2;
    double t0 = cuzk_now();
    if (e || (e = pce_from_circom(o.r1cs, &pce, NULL))) {
        fail("setup", e);
        goto out;
    }
    if (o.out) {
        pp = cmd_path_with(o.out, ".params");
        vp = cmd_path_with(o.out, ".vk");
        cp = cmd_path_with(o.out, ".pce");
    } else {
        pp = cmd_path_with(o.zkey, ".params.tmp");
    }
    if (!pp || (o.out && (!vp || !cp))) {
        fprintf(stderr, "cuzk: setup: out of memory\n");
        goto out;
    }
    cuzk_setup_timings tm;
    cuzk_progress *pr = NULL;
    if (!(e = cmd_output_check(o.zkey)) && !(e = cmd_output_check(pp)) &&
        !(e = cmd_progress_start("setup", "points", &pr))) {
        so.progress = cuzk_progress_callback;
        so.progress_ctx = pr;
        e = cuzk_groth16_setup_ex(pce, pp, vp, NULL, &so, &tm);
    }
    cuzk_progress_finish(pr);
    if (e || (e = params_to_zkey(pp, pce, o.zkey)) || (cp && (e = cuzk_pce_write(pce, cp)))) {
        fail("setup", e);
        goto out;
    }
    printf("setup backend=%s setup_s=%.3f total_s=%.3f constraints=%llu domain=2^%u\n", tm.backend,
           tm.total, cuzk_now() - t0, (unsigned long long)pce->n_constraints, pce->log_domain);
    rc = 0;
out:
    if (!o.out && pp)
        unlink(pp);
    cuzk_pce_free(pce);
    free(pp);
    free(vp);
    free(cp);
    return rc;
}

static int convert_zkey_to_params(const sopts *o)
{
    cuzk_zkey *z = NULL;
    cuzk_pce *pce = NULL;
    char *pp = cmd_path_with(o->out, ".params"), *vp = cmd_path_with(o->out, ".vk"),
         *cp = cmd_path_with(o->out, ".pce");
    cuzk_err e;
    int rc = 2;
    if (!pp || !vp || !cp) {
        fprintf(stderr, "cuzk: convert: out of memory\n");
        goto out;
    }
    if ((e = cuzk_zkey_read(o->zkey, &z)) || (e = pce_from_circom(o->r1cs, &pce, NULL)) ||
        (e = cuzk_zkey_check_pce(z, pce))) {
        fail("convert", e);
        goto out;
    }
    if (z->params.n_l != cuzk_bitmap_count(z->l_density, z->shape.n_aux) ||
        cuzk_bitmap_count(z->l_density, z->shape.n_aux) != z->shape.n_aux) {
        fprintf(stderr, "cuzk: convert: the zkey has private signals in no constraint (C point at "
                        "infinity), which .params cannot hold\n");
        goto out;
    }
    for (size_t i = 0; i < z->params.vk.n_ic; i++)
        if (blst_p1_affine_is_inf(&z->params.vk.ic[i])) {
            fprintf(stderr,
                    "cuzk: convert: public signal %zu is in no constraint (IC point at "
                    "infinity), which .params cannot hold\n",
                    i);
            goto out;
        }
    if ((e = cuzk_params_write(pp, &z->params)) || (e = cuzk_vk_write(vp, &z->params.vk)) ||
        (e = cuzk_pce_write(pce, cp))) {
        fail("convert", e);
        goto out;
    }
    printf("wrote %s %s %s\n", pp, vp, cp);
    rc = 0;
out:
    cuzk_zkey_free(z);
    cuzk_pce_free(pce);
    free(pp);
    free(vp);
    free(cp);
    return rc;
}

static int convert_wtns(const sopts *o)
{
    cuzk_fr *w = NULL;
    size_t n;
    uint32_t n_public = 0;
    cuzk_err e;
    if (o->zkey) {
        cuzk_zkey *z;
        if ((e = cuzk_zkey_read(o->zkey, &z)))
            return fail("convert", e);
        n_public = z->n_public;
        cuzk_zkey_free(z);
    } else {
        cuzk_circom_r1cs *r;
        if ((e = cuzk_circom_r1cs_read(o->r1cs, &r)))
            return fail("convert", e);
        n_public = cuzk_circom_r1cs_n_public(r);
        cuzk_circom_r1cs_free(r);
    }
    if ((e = cuzk_wtns_read(o->wtns, &w, &n)))
        return fail("convert", e);
    int rc = 0;
    if (n < (size_t)n_public + 1) {
        fprintf(stderr, "cuzk: convert: %s has %zu values, fewer than the %u public signals + 1\n",
                o->wtns, n, n_public);
        rc = 2;
    } else if ((e = cuzk_witness_write(o->witness, w, n_public + 1, n - n_public - 1))) {
        rc = fail("convert", e);
    } else {
        printf("wrote %s (%u inputs, %zu aux)\n", o->witness, n_public + 1, n - n_public - 1);
    }
    free(w);
    return rc;
}

int cmd_convert_main(int argc, char **argv)
{
    sopts o;
    if (parse(argc, argv, &o))
        return 2;
    if (o.zkey && o.r1cs && o.out && !o.wtns)
        return convert_zkey_to_params(&o);
    if (o.params && o.pce && o.zkey) {
        cuzk_pce *pce;
        cuzk_err e = cuzk_pce_load(&pce, o.pce);
        if (!e) {
            e = params_to_zkey(o.params, pce, o.zkey);
            cuzk_pce_free(pce);
        }
        if (e)
            return fail("convert", e);
        printf("wrote %s\n", o.zkey);
        return 0;
    }
    if (o.wtns && o.witness && (o.r1cs || o.zkey))
        return convert_wtns(&o);
    fprintf(stderr, "cuzk: convert needs one of:\n"
                    "  --zkey K --r1cs R --out PREFIX\n"
                    "  --params P --pce C --zkey OUT\n"
                    "  --wtns W --witness OUT (--r1cs R | --zkey K)\n");
    return 2;
}

int cmd_snark_inspect(const char *path)
{
    char magic[5] = {0};
    FILE *f = fopen(path, "rb");
    if (!f || fread(magic, 1, 4, f) != 4) {
        if (f)
            fclose(f);
        fprintf(stderr, "cuzk: inspect: cannot read %s\n", path);
        return 2;
    }
    fclose(f);
    cuzk_err e;
    if (!strcmp(magic, "zkey")) {
        cuzk_zkey *z;
        if ((e = cuzk_zkey_read(path, &z)))
            return fail("inspect", e);
        const cuzk_params *p = &z->params;
        size_t m = (size_t)1 << z->log_m;
        printf("  type     snarkjs Groth16 zkey (bls12381)\n"
               "  signals  %u (%u public, ONE excluded)\n  domain   2^%u\n"
               "  A/B      %llu / %llu coefficients\n"
               "  points   ic %zu, h %zu (odd-coset basis), C %zu, A %zu, B1 %zu, B2 %zu "
               "(points at infinity left out)\n",
               z->n_vars, z->n_public, z->log_m, (unsigned long long)z->a_row[m],
               (unsigned long long)z->b_row[m], p->vk.n_ic, p->n_h, p->n_l, p->n_a, p->n_b_g1,
               p->n_b_g2);
        cuzk_zkey_free(z);
    } else if (!strcmp(magic, "r1cs")) {
        cuzk_circom_r1cs *r;
        if ((e = cuzk_circom_r1cs_read(path, &r)))
            return fail("inspect", e);
        printf("  type     circom constraint system (bls12381)\n"
               "  wires    %u (outputs %u, public inputs %u, private inputs %u)\n"
               "  labels   %llu\n  constraints %u (+ %u input constraints)\n",
               r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in, (unsigned long long)r->n_labels,
               r->n_constraints, cuzk_circom_r1cs_n_public(r) + 1);
        cuzk_circom_r1cs_free(r);
    } else {
        cuzk_fr *w;
        size_t n;
        if ((e = cuzk_wtns_read(path, &w, &n)))
            return fail("inspect", e);
        printf("  type     snarkjs witness (bls12381)\n  values   %zu\n", n);
        free(w);
    }
    return 0;
}
