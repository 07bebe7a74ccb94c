/* cuzk circuit stats: synthesize one gadget or circuit of the circuits library
 * (record mode, random witness from a seed) and print its size, so that
 * counts can be compared with the reference implementations' tests.
 *
 *   cuzk circuit stats poseidon [--arity A] [--constant-length]
 *   cuzk circuit stats sha256-compression      (512 allocated bits, IV)
 *   cuzk circuit stats sha256 [--bytes N]      (N allocated bytes, default 64)
 *   cuzk circuit stats por [--base A] [--levels L] [--sub A] [--top A]
 *                          [--private] [--sha256]  (Merkle inclusion; Poseidon
 *                          tree unless --sha256)
 *   cuzk circuit stats --registered-proof N | --post-proof N | --update-proof N
 *       a Filecoin circuit by its registry number (RegisteredSealProof,
 *       RegisteredPoStProof, RegisteredUpdateProof): "name value" lines,
 *       circuit and proof, then inputs (ONE included), aux, constraints
 *       (with bellperson's input constraints), nnz_a, nnz_b, nnz_c,
 *       a_aux_density, b_input_density and b_aux_density. PoSt circuits are
 *       counted from one and two recorded sectors (linear in their number:
 *       seconds for 2,349), SnapDeals from recordings of 1, 2 and 10
 *       challenges (snap.h cuzk_snap_counts).
 *   cuzk circuit stats [porep] --seal-proof N
 *       the partition circuit of RegisteredSealProof N (porep_circuit.h):
 *       the top and one challenge recorded, the other challenges counted
 *       by cuzk_porep_counts; adds nnz_a/b/c and the A/B densities (columns
 *       with a non-zero, inputs and aux apart), bellperson's figures for the
 *       prover's R1CS. A few seconds and about 1 GB at 32 GiB.
 *   common: [--seed S]
 *
 *   cuzk circuit record (--registered-proof N | --post-proof N | --update-proof N)
 *                       --out FILE
 *       a Filecoin circuit's constraint system (PCE) as the daemon records
 *       and caches it (<param dir>/<v28 name>.pce): recording ahead of the
 *       first job, and its size; prints constraints, non-zeros, bytes and
 *       the times.
 *
 *   cuzk circuit synth <circuit> [the options of stats] --out PREFIX
 *       the same circuit, written as PREFIX.pce, PREFIX.wit and
 *       PREFIX.public for `cuzk setup / prove / verify`.
 *
 *   cuzk circuit bench native-poseidon [--arity A] [--count N] [--threads T]
 *       N native Merkle-tree hashes on T threads (default: all): hashes/s
 *       and hashes/s per thread.
 *   cuzk circuit bench poseidon|sha256-compression --mode witness|record|check
 *       [--count N] [--arity A]
 *       N independent single-gadget circuits (inputs allocated, then one
 *       Poseidon or one SHA-256 compression from the IV), synthesized one
 *       after the other on one thread: witness mode reuses one cs (reset),
 *       record mode builds a fresh R1CS per circuit. Prints seconds and
 *       microseconds per gadget.
 *
 * Output, key=value lines: circuit, constraints (the synthesis constraints,
 * as bellperson's TestConstraintSystem counts them), input_constraints
 * (bellperson's one per input, ONE included), inputs (counting ONE), aux,
 * coeffs (distinct non-zero coefficients), and for gadgets on allocated
 * inputs gadget_constraints / gadget_aux (the cost of the gadget alone). */
#include "cmd/cmd.h"
#include "cuzk/cs.h"
#include "cuzk/fc_circuit.h"
#include "cuzk/merkle.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/post.h"
#include "cuzk/snap.h"
#include "cuzk/poseidon.h"
#include "cuzk/sha256.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    unsigned arity, base, levels, sub, top, bytes, count, threads, seal;
    unsigned registered, post, update; /* UINT32_MAX: not given */
    int constant, priv, sha;
    uint64_t seed;
    const char *mode, *out;
} stats_opts;

/* The defaults: Poseidon arity, a base-8 tree of 2 levels, 64 bytes, the
 * count of a bench, seed 1, no proof number. */
static stats_opts default_opts(unsigned arity, unsigned count)
{
    stats_opts o = {.arity = arity,
                    .base = 8,
                    .levels = 2,
                    .bytes = 64,
                    .count = count,
                    .seal = UINT32_MAX,
                    .registered = UINT32_MAX,
                    .post = UINT32_MAX,
                    .update = UINT32_MAX,
                    .seed = 1};
    return o;
}

static int usage_fail(const char *msg, const char *arg)
{
    fprintf(stderr, "cuzk: circuit: %s%s\n", msg, arg ? arg : "");
    return 2;
}

static int parse_uint(const char *s, unsigned long max, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || s[0] == '-' || v > max)
        return -1;
    *out = (unsigned)v;
    return 0;
}

static int parse_opts(int argc, char **argv, stats_opts *o)
{
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned *dst = !strcmp(a, "--arity")              ? &o->arity
                        : !strcmp(a, "--base")             ? &o->base
                        : !strcmp(a, "--levels")           ? &o->levels
                        : !strcmp(a, "--sub")              ? &o->sub
                        : !strcmp(a, "--top")              ? &o->top
                        : !strcmp(a, "--bytes")            ? &o->bytes
                        : !strcmp(a, "--count")            ? &o->count
                        : !strcmp(a, "--threads")          ? &o->threads
                        : !strcmp(a, "--seal-proof")       ? &o->seal
                        : !strcmp(a, "--registered-proof") ? &o->registered
                        : !strcmp(a, "--post-proof")       ? &o->post
                        : !strcmp(a, "--update-proof")     ? &o->update
                                                           : NULL;
        if (dst) {
            if (!v || parse_uint(v, 100000000, dst))
                return usage_fail("bad or missing value for ", a);
            i++;
        } else if (!strcmp(a, "--seed")) {
            unsigned s;
            if (!v || parse_uint(v, 0xffffffffu, &s))
                return usage_fail("bad or missing value for ", a);
            o->seed = s;
            i++;
        } else if (!strcmp(a, "--mode") || !strcmp(a, "--out")) {
            if (!v)
                return usage_fail("missing value for ", a);
            *(a[2] == 'm' ? &o->mode : &o->out) = argv[++i];
        } else if (!strcmp(a, "--constant-length")) {
            o->constant = 1;
        } else if (!strcmp(a, "--private")) {
            o->priv = 1;
        } else if (!strcmp(a, "--sha256")) {
            o->sha = 1;
        } else {
            return usage_fail("unknown option ", a);
        }
    }
    return 0;
}

static cuzk_err stats_poseidon(cuzk_cs *cs, const stats_opts *o, cuzk_rng *g)
{
    cuzk_poseidon *p;
    CUZK_TRY(cuzk_poseidon_new(&p, o->arity,
                               o->constant ? CUZK_POSEIDON_CONSTANT_LENGTH : CUZK_POSEIDON_MERKLE,
                               o->constant ? o->arity : 0));
    cuzk_num in[CUZK_POSEIDON_MAX_ARITY], out;
    cuzk_err e = CUZK_OK;
    for (unsigned i = 0; i < o->arity && !e; i++) {
        cuzk_fr v;
        cuzk_fr_rng(&v, g);
        e = cuzk_num_alloc(cs, &v, &in[i]);
    }
    if (!e)
        e = cuzk_poseidon_gadget(cs, p, in, o->arity, &out);
    cuzk_poseidon_free(p);
    return e;
}

static cuzk_err alloc_bits(cuzk_cs *cs, cuzk_bool *bits, size_t n, cuzk_rng *g)
{
    for (size_t i = 0; i < n; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, (int)(cuzk_rng_u64(g) & 1), &bits[i]));
    return CUZK_OK;
}

static cuzk_err stats_sha(cuzk_cs *cs, const stats_opts *o, cuzk_rng *g, int compression)
{
    size_t n = compression ? 512 : (size_t)o->bytes * 8;
    cuzk_bool *bits = malloc((n + 1) * sizeof *bits), out[256];
    if (!bits)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    cuzk_err e = alloc_bits(cs, bits, n, g);
    if (!e && compression) {
        cuzk_u32 iv[8], st[8];
        for (int i = 0; i < 8; i++)
            iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
        e = cuzk_sha256_compress_gadget(cs, bits, iv, st);
    } else if (!e) {
        e = cuzk_sha256_gadget(cs, bits, n, out);
    }
    free(bits);
    return e;
}

static cuzk_err stats_por(cuzk_cs *cs, const stats_opts *o, cuzk_rng *g)
{
    cuzk_merkle_shape s = {o->base, o->levels, o->sub, o->top,
                           o->sha ? CUZK_MERKLE_SHA256 : CUZK_MERKLE_POSEIDON};
    CUZK_TRY(cuzk_merkle_shape_check(&s));
    size_t ns = cuzk_merkle_sibling_count(&s);
    cuzk_fr *sib = malloc(ns * sizeof *sib);
    if (!sib)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (size_t i = 0; i < ns; i++)
        cuzk_fr_rng(&sib[i], g);
    uint64_t index = cuzk_rng_u64(g) % cuzk_merkle_leaf_count(&s);
    cuzk_root leaf = {0, {0, {{0}}}}, root = {0, {0, {{0}}}};
    cuzk_fr_rng(&leaf.num.val, g);
    cuzk_err e = cuzk_merkle_root_from_path(&s, &leaf.num.val, sib, index, &root.num.val);
    if (!e)
        e = cuzk_por_gadget(cs, &s, &leaf, sib, index, &root, o->priv);
    free(sib);
    return e;
}

/* The PoRep partition circuit of a registry entry, by its counts. */
static int stats_porep(const stats_opts *o)
{
    const cuzk_fc_proof *fp = o->seal == UINT32_MAX ? NULL : cuzk_fc_find(CUZK_FC_SEAL, o->seal);
    if (o->seal == UINT32_MAX)
        return usage_fail("porep needs --seal-proof N (a RegisteredSealProof number)", NULL);
    if (!fp) {
        fprintf(stderr,
                "cuzk: circuit: --seal-proof %u: not a RegisteredSealProof number (see "
                "cuzk filecoin list)\n",
                o->seal);
        return 2;
    }
    cuzk_porep_shape s;
    cuzk_r1cs_counts c;
    cuzk_err e = cuzk_porep_shape_of(fp, &s);
    if (!e)
        e = cuzk_porep_counts(&s, &c);
    if (e) {
        fprintf(stderr, "cuzk: circuit: porep: %s\n", cuzk_errmsg());
        return 2;
    }
    printf("circuit=%s\nproof=%s\nnodes=%llu\nlayers=%u\nchallenges=%u\nconstraints=%llu\n"
           "input_constraints=%u\ninputs=%u\naux=%llu\nnnz_a=%llu\nnnz_b=%llu\nnnz_c=%llu\n"
           "a_input_density=%llu\na_aux_density=%llu\nb_input_density=%llu\n"
           "b_aux_density=%llu\n",
           fp->circuit_id, fp->name, (unsigned long long)s.nodes, s.layers, s.challenges,
           (unsigned long long)(c.constraints - c.inputs), c.inputs, c.inputs,
           (unsigned long long)c.aux, (unsigned long long)c.nnz_a, (unsigned long long)c.nnz_b,
           (unsigned long long)c.nnz_c, (unsigned long long)c.a_input_density,
           (unsigned long long)c.a_aux_density, (unsigned long long)c.b_input_density,
           (unsigned long long)c.b_aux_density);
    return 0;
}

/* The counts of a PoSt circuit: one and two circuit sectors recorded
 * (cuzk_post_record_pce tiles them), and every count extrapolated to the
 * proof's sectors: sectors are identical parts sharing only ONE, so each
 * count is linear in their number. */
static cuzk_err post_counts(const cuzk_fc_proof *fp, cuzk_r1cs_counts *out)
{
    cuzk_r1cs_counts c[2];
    for (unsigned k = 0; k < 2; k++) {
        cuzk_fc_proof part = *fp;
        cuzk_pce *pce = NULL;
        part.sectors = k + 1;
        CUZK_TRY(cuzk_post_record_pce(&part, NULL, NULL, &pce));
        cuzk_pce_counts(pce, &c[k]);
        cuzk_pce_free(pce);
    }
    uint64_t n = fp->sectors - 1;
#define EXTRAPOLATE(f) out->f = c[0].f + n * (c[1].f - c[0].f)
    EXTRAPOLATE(inputs);
    EXTRAPOLATE(aux);
    EXTRAPOLATE(constraints);
    EXTRAPOLATE(nnz_a);
    EXTRAPOLATE(nnz_b);
    EXTRAPOLATE(nnz_c);
    EXTRAPOLATE(a_input_density);
    EXTRAPOLATE(a_aux_density);
    EXTRAPOLATE(b_input_density);
    EXTRAPOLATE(b_aux_density);
#undef EXTRAPOLATE
    return CUZK_OK;
}

/* stats --registered-proof N | --post-proof N | --update-proof N: a
 * Filecoin circuit's figures as bellperson's prover sees them, one
 * "name value" line each (constraints with the input constraints). */
static int stats_filecoin(const stats_opts *o)
{
    cuzk_fc_family fam = o->registered != UINT32_MAX ? CUZK_FC_SEAL
                         : o->post != UINT32_MAX     ? CUZK_FC_WINNING
                                                     : CUZK_FC_UPDATE;
    unsigned num = fam == CUZK_FC_SEAL      ? o->registered
                   : fam == CUZK_FC_WINNING ? o->post
                                            : o->update;
    const char *opt = fam == CUZK_FC_SEAL      ? "--registered-proof"
                      : fam == CUZK_FC_WINNING ? "--post-proof"
                                               : "--update-proof";
    const cuzk_fc_proof *fp = fam == CUZK_FC_WINNING ? cuzk_fc_post(num) : cuzk_fc_find(fam, num);
    if (!fp) {
        fprintf(stderr, "cuzk: circuit: %s %u: not a %s number (see cuzk filecoin list)\n", opt,
                num,
                fam == CUZK_FC_SEAL      ? "RegisteredSealProof"
                : fam == CUZK_FC_WINNING ? "RegisteredPoStProof"
                                         : "RegisteredUpdateProof");
        return 2;
    }
    cuzk_r1cs_counts c;
    cuzk_porep_shape s;
    cuzk_err e = CUZK_OK;
    if (fam == CUZK_FC_SEAL) {
        if (!(e = cuzk_porep_shape_of(fp, &s)))
            e = cuzk_porep_counts(&s, &c);
    } else if (fam == CUZK_FC_WINNING) {
        e = post_counts(fp, &c);
    } else {
        cuzk_snap_config sc;
        if (!(e = cuzk_snap_config_of(fp->sector_size, &sc)))
            e = cuzk_snap_counts(&sc, &c);
    }
    if (e) {
        fprintf(stderr, "cuzk: circuit: %s %u: %s\n", opt, num, cuzk_errmsg());
        return 2;
    }
    printf("circuit %s\nproof %s\ninputs %u\naux %llu\nconstraints %llu\nnnz_a %llu\n"
           "nnz_b %llu\nnnz_c %llu\na_aux_density %llu\nb_input_density %llu\n"
           "b_aux_density %llu\n",
           fp->circuit_id, fp->name, c.inputs, (unsigned long long)c.aux,
           (unsigned long long)c.constraints, (unsigned long long)c.nnz_a,
           (unsigned long long)c.nnz_b, (unsigned long long)c.nnz_c,
           (unsigned long long)c.a_aux_density, (unsigned long long)c.b_input_density,
           (unsigned long long)c.b_aux_density);
    return 0;
}

static const char *with_ext(char *buf, size_t len, const char *prefix, const char *ext)
{
    snprintf(buf, len, "%s%s", prefix, ext);
    return buf;
}

/* PREFIX.pce, PREFIX.wit and PREFIX.public (the format `cuzk verify`
 * reads: a comment line, then one 0x-hex field element per line). */
static cuzk_err write_files(cuzk_cs *cs, const char *prefix)
{
    size_t len = strlen(prefix) + 8, nw = 0;
    uint32_t n_in = cuzk_cs_num_inputs(cs);
    char *path = malloc(len);
    cuzk_r1cs *r1cs = NULL;
    cuzk_pce *pce = NULL;
    cuzk_fr *w = NULL;
    cuzk_err e = path ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_cs_take_r1cs(cs, &r1cs);
    if (!e)
        e = cuzk_pce_from_r1cs(&pce, r1cs);
    if (!e)
        e = cuzk_pce_write(pce, with_ext(path, len, prefix, ".pce"));
    if (!e)
        e = cuzk_cs_assignment(cs, &w, &nw);
    if (!e)
        e = cuzk_witness_write(with_ext(path, len, prefix, ".wit"), w, n_in, nw - n_in);
    if (!e)
        e = cmd_public_write(with_ext(path, len, prefix, ".public"), w + 1, n_in - 1);
    if (!e)
        printf("wrote %s.pce %s.wit %s.public\n", prefix, prefix, prefix);
    free(w);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(r1cs);
    free(path);
    return e;
}

/* stats (write = 0) or synth (write = 1: --out PREFIX required). */
static int stats_main(int argc, char **argv, int write)
{
    if (argc < 1)
        return usage_fail("needs a circuit: poseidon, sha256-compression, sha256, por, porep",
                          NULL);
    /* `stats --seal-proof N` names the PoRep circuit by its option alone;
     * --registered-proof, --post-proof and --update-proof a Filecoin
     * circuit by its registry number. */
    int named = argv[0][0] != '-';
    const char *what = named ? argv[0] : "porep";
    stats_opts o = default_opts(2, 1);
    if (parse_opts(argc - named, argv + named, &o))
        return 2;
    int by_number =
        (o.registered != UINT32_MAX) + (o.post != UINT32_MAX) + (o.update != UINT32_MAX);
    if (by_number > 1 || (by_number && (named || o.seal != UINT32_MAX)))
        return usage_fail("one of --registered-proof, --post-proof, --update-proof, alone", NULL);
    if (by_number) {
        if (write)
            return usage_fail("synth takes a gadget or circuit name, not a proof number", NULL);
        return stats_filecoin(&o);
    }
    if (!strcmp(what, "porep")) {
        if (write)
            return usage_fail("synth porep: the PoRep circuit has no witness here yet", NULL);
        return stats_porep(&o);
    }
    if (write && !o.out)
        return usage_fail("synth needs --out PREFIX", NULL);
    cuzk_cs *cs;
    cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_RECORD);
    if (e)
        return usage_fail(cuzk_errmsg(), NULL);
    cuzk_rng g;
    cuzk_rng_seed(&g, o.seed);
    uint64_t pre_c = 0, pre_a = 0;
    int gadget = 1;
    if (!strcmp(what, "poseidon")) {
        pre_a = o.arity;
        e = stats_poseidon(cs, &o, &g);
    } else if (!strcmp(what, "sha256-compression") || !strcmp(what, "sha256")) {
        int comp = !strcmp(what, "sha256-compression");
        pre_c = pre_a = comp ? 512 : (uint64_t)o.bytes * 8;
        e = stats_sha(cs, &o, &g, comp);
    } else if (!strcmp(what, "por")) {
        gadget = 0;
        e = stats_por(cs, &o, &g);
    } else {
        cuzk_cs_free(cs);
        return usage_fail("unknown circuit ", what);
    }
    uint64_t c = e ? 0 : cuzk_cs_num_constraints(cs), aux = e ? 0 : cuzk_cs_num_aux(cs);
    if (!e)
        e = cuzk_cs_finish(cs);
    if (e) {
        fprintf(stderr, "cuzk: circuit: %s: %s\n", what, cuzk_errmsg());
        cuzk_cs_free(cs);
        return 2;
    }
    uint32_t inputs = cuzk_cs_num_inputs(cs);
    printf("circuit=%s\nconstraints=%llu\ninput_constraints=%u\ninputs=%u\naux=%llu\n"
           "coeffs=%u\n",
           what, (unsigned long long)c, inputs, inputs, (unsigned long long)aux,
           cuzk_r1cs_num_coeffs(cuzk_cs_r1cs(cs)));
    if (gadget)
        printf("gadget_constraints=%llu\ngadget_aux=%llu\n", (unsigned long long)(c - pre_c),
               (unsigned long long)(aux - pre_a));
    if (write && (e = write_files(cs, o.out)))
        fprintf(stderr, "cuzk: circuit: synth %s: %s\n", what, cuzk_errmsg());
    cuzk_cs_free(cs);
    return e ? 2 : 0;
}

static int bench_native(const stats_opts *o)
{
    const cuzk_poseidon *p;
    if (cuzk_poseidon_merkle(o->arity, &p))
        return usage_fail(cuzk_errmsg(), NULL);
    if (o->threads)
        cuzk_threads_set(o->threads);
    size_t n = o->count, a = o->arity;
    cuzk_fr *in = malloc(n * a * sizeof *in), *out = malloc(n * sizeof *out);
    if (!in || !out) {
        free(in);
        free(out);
        return usage_fail("out of memory", NULL);
    }
    cuzk_fr_vec_rng(in, n * a, o->seed);
    double t0 = cuzk_now();
    cuzk_poseidon_hash_many(p, in, n, out);
    double dt = cuzk_now() - t0;
    unsigned th = cuzk_threads_count();
    char hex[67];
    cuzk_fr_to_hex(hex, &out[n - 1]);
    printf("bench=native-poseidon\narity=%u\ncount=%zu\nthreads=%u\nseconds=%.3f\n"
           "hashes_per_s=%.0f\nhashes_per_s_per_thread=%.0f\nlast=%s\n",
           o->arity, n, th, dt, n / dt, n / dt / th, hex);
    free(in);
    free(out);
    return 0;
}

/* One bench circuit: inputs allocated, then the gadget. */
static cuzk_err bench_one(cuzk_cs *cs, const cuzk_poseidon *p, const cuzk_fr *vals,
                          const cuzk_bool *bits_v, cuzk_u32 *iv)
{
    if (p) {
        cuzk_num in[CUZK_POSEIDON_MAX_ARITY], out;
        unsigned a = cuzk_poseidon_arity(p);
        for (unsigned i = 0; i < a; i++)
            CUZK_TRY(cuzk_num_alloc(cs, &vals[i], &in[i]));
        return cuzk_poseidon_gadget(cs, p, in, a, &out);
    }
    cuzk_bool bits[512];
    cuzk_u32 st[8];
    for (int i = 0; i < 512; i++)
        CUZK_TRY(cuzk_bit_alloc(cs, bits_v[i].value, &bits[i]));
    return cuzk_sha256_compress_gadget(cs, bits, iv, st);
}

static int bench_synth(const char *what, const stats_opts *o)
{
    cuzk_cs_mode mode;
    if (!o->mode || !strcmp(o->mode, "witness"))
        mode = CUZK_CS_WITNESS;
    else if (!strcmp(o->mode, "record"))
        mode = CUZK_CS_RECORD;
    else if (!strcmp(o->mode, "check"))
        mode = CUZK_CS_CHECK;
    else
        return usage_fail("--mode must be witness, record or check, not ", o->mode);
    const cuzk_poseidon *p = NULL;
    if (!strcmp(what, "poseidon") && cuzk_poseidon_merkle(o->arity, &p))
        return usage_fail(cuzk_errmsg(), NULL);
    cuzk_rng g;
    cuzk_rng_seed(&g, o->seed);
    cuzk_fr vals[CUZK_POSEIDON_MAX_ARITY];
    cuzk_bool bits[512];
    cuzk_u32 iv[8];
    for (int i = 0; i < CUZK_POSEIDON_MAX_ARITY; i++)
        cuzk_fr_rng(&vals[i], &g);
    for (int i = 0; i < 512; i++)
        bits[i] = cuzk_bool_const((int)(cuzk_rng_u64(&g) & 1));
    for (int i = 0; i < 8; i++)
        iv[i] = cuzk_u32_const(CUZK_SHA256_IV[i]);
    cuzk_cs *cs = NULL;
    cuzk_err e = CUZK_OK;
    uint64_t constraints = 0, aux = 0;
    double t0 = cuzk_now();
    for (unsigned k = 0; k < o->count && !e; k++) {
        if (!cs || mode == CUZK_CS_RECORD) {
            cuzk_cs_free(cs);
            e = cuzk_cs_new(&cs, mode);
        } else {
            e = cuzk_cs_reset(cs);
        }
        if (!e)
            e = bench_one(cs, p, vals, bits, iv);
        if (!e)
            e = cuzk_cs_finish(cs);
        if (!e) {
            constraints = cuzk_cs_num_constraints(cs);
            aux = cuzk_cs_num_aux(cs);
        }
    }
    double dt = cuzk_now() - t0;
    cuzk_cs_free(cs);
    if (e) {
        fprintf(stderr, "cuzk: circuit: bench %s: %s\n", what, cuzk_errmsg());
        return 2;
    }
    printf("bench=%s\nmode=%s\ncount=%u\nconstraints_per_circuit=%llu\naux_per_circuit=%llu\n"
           "seconds=%.3f\nus_per_gadget=%.1f\n",
           what, o->mode ? o->mode : "witness", o->count, (unsigned long long)constraints,
           (unsigned long long)aux, dt, dt * 1e6 / o->count);
    return 0;
}

static int bench_main(int argc, char **argv)
{
    if (argc < 1)
        return usage_fail("bench needs native-poseidon, poseidon or sha256-compression", NULL);
    stats_opts o = default_opts(8, 1000);
    if (parse_opts(argc - 1, argv + 1, &o))
        return 2;
    if (!o.count)
        return usage_fail("--count must be at least 1", NULL);
    if (!strcmp(argv[0], "native-poseidon"))
        return bench_native(&o);
    if (!strcmp(argv[0], "poseidon") || !strcmp(argv[0], "sha256-compression"))
        return bench_synth(argv[0], &o);
    return usage_fail("unknown bench ", argv[0]);
}

/* record: a Filecoin circuit's constraint system as the daemon caches it. */
static int record_main(int argc, char **argv)
{
    stats_opts o = default_opts(2, 1);
    if (parse_opts(argc, argv, &o))
        return 2;
    if (!o.out)
        return usage_fail("record needs --out FILE", NULL);
    int given = (o.registered != UINT32_MAX) + (o.post != UINT32_MAX) + (o.update != UINT32_MAX);
    const cuzk_fc_proof *fp = o.registered != UINT32_MAX ? cuzk_fc_find(CUZK_FC_SEAL, o.registered)
                              : o.post != UINT32_MAX     ? cuzk_fc_post(o.post)
                              : o.update != UINT32_MAX   ? cuzk_fc_find(CUZK_FC_UPDATE, o.update)
                                                         : NULL;
    if (!fp || given != 1)
        return usage_fail("record needs one of --registered-proof N (a seal proof), "
                          "--post-proof N or --update-proof N (see cuzk filecoin list)",
                          NULL);
    double t = cuzk_now();
    cuzk_pce *pce = NULL;
    cuzk_err e = cmd_output_check(o.out);
    if (!e)
        e = cuzk_fc_record_pce(fp, NULL, NULL, &pce);
    double t1 = cuzk_now();
    if (!e)
        e = cuzk_pce_write(pce, o.out);
    if (!e)
        printf("record: %s (%s) constraints=%llu nnz=%llu bytes=%zu record_s=%.2f write_s=%.2f "
               "file=%s\n",
               fp->circuit_id, fp->name, (unsigned long long)pce->n_constraints,
               (unsigned long long)(pce->a.nnz + pce->b.nnz + pce->c.nnz), pce->image_size_, t1 - t,
               cuzk_now() - t1, o.out);
    cuzk_pce_free(pce);
    if (e) {
        fprintf(stderr, "cuzk: circuit: record: %s\n", cuzk_errmsg());
        return 2;
    }
    return 0;
}

int cmd_circuit_main(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "stats"))
        return stats_main(argc - 1, argv + 1, 0);
    if (argc >= 1 && !strcmp(argv[0], "synth"))
        return stats_main(argc - 1, argv + 1, 1);
    if (argc >= 1 && !strcmp(argv[0], "bench"))
        return bench_main(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "record"))
        return record_main(argc - 1, argv + 1);
    return usage_fail("usage: cuzk circuit stats|synth|bench|record ... [options]", NULL);
}
