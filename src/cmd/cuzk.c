/* cuzk: the offline command-line tool.
 *
 *   cuzk synth   --constraints N [--public-inputs K] [--seed S] --out PREFIX
 *                  writes PREFIX.pce, PREFIX.wit (witness), PREFIX.public
 *   cuzk setup   --pce FILE | --constraints N [--public-inputs K] [--seed S]
 *                  --out PREFIX        writes PREFIX.params, PREFIX.vk (and PREFIX.pce)
 *                  [--backend cpu|cuda|cuda:N|auto] [--device N] [--threads N]
 *   cuzk prove   --params P --pce C (--witness W [--witness W2 ...] | --synthetic-seed S)
 *                  --out PROOF   (with --synthetic-seed also PROOF.public)
 *                  [--backend cpu|cuda|cuda:N|auto] [--threads N] [--fixed-rs]
 *                  [--no-verify]  (by default each proof is verified with the
 *                  params' verifying key; an invalid one exits 1, unwritten)
 *   cuzk verify  --vk V --public F --proof P
 *   cuzk inspect FILE...
 *   cuzk devices
 *   and for circom / snarkjs files (cmd_snark.c): prove --zkey, verify --vkey,
 *   setup --r1cs, convert; Filecoin PoSt (cmd_post.c): gen post, post check
 *   and the Filecoin proof-type registry (cmd_filecoin.c): filecoin list,
 *   params check; piece commitments and CIDs (cmd_piece.c): piece commp,
 *   piece cid, piece commd; sealing a sector on the CPU (cmd_seal.c): seal
 *
 * `cuzk --help` prints every usage line, `cuzk CMD ... --help` (or -h) those
 * of CMD (nested ones too: circuit stats --help), to stdout, exit 0, and
 * runs nothing.
 *
 * Every failure prints one line "cuzk: <what>: <why>" to stderr and exits
 * non-zero; `verify` exits 1 for an invalid proof and 2 for any other error.
 * Timings go to stdout as key=value lines. */
#define _GNU_SOURCE
#include "cmd/cmd.h"
#include "cuzk/fc_circuit.h"
#include "cuzk/curve.h"
#include "cuzk/gpu.h"
#include "cuzk/groth16.h"
#include "cuzk/log.h"
#include "cuzk/params.h"
#include "cuzk/pce.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/post.h"
#include "cuzk/r1cs.h"
#include "cuzk/synth.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WITNESSES 64

typedef struct {
    const char *pce, *params, *vk, *public_path, *proof, *out, *backend, *circuit, *pce_dir;
    const char *witness[MAX_WITNESSES];
    int n_witness;
    uint64_t constraints, seed, synthetic_seed;
    uint32_t n_public;
    int threads, fixed_rs, have_constraints, have_synthetic_seed, device, no_verify;
    const char *files[MAX_WITNESSES];
    int n_files;
} opts;

/* The signal that asked the running command to stop (cmd_progress_start). */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

int cmd_fail(const char *what, cuzk_err e)
{
    if (e == CUZK_ECANCELLED && stop_signal) {
        fprintf(stderr, "cuzk: %s: interrupted by %s; its temporary files were removed\n", what,
                stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        return 128 + stop_signal;
    }
    fprintf(stderr, "cuzk: %s: %s\n", what, cuzk_errmsg());
    return 2;
}

#define die cmd_fail

void cmd_catch_stop_signals(void)
{
    static int installed;
    if (installed)
        return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESETHAND; /* a second signal is not caught: it kills */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    installed = 1;
}

cuzk_err cmd_progress_start(const char *label, const char *unit, cuzk_progress **out)
{
    cmd_catch_stop_signals();
    CUZK_TRY(cuzk_progress_open(out, label, 0, unit, stderr, CUZK_PROGRESS_AUTO));
    cuzk_progress_watch(*out, &stop_signal);
    return CUZK_OK;
}

cuzk_err cmd_output_check(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return cuzk_fail(CUZK_EIO, "output %s is a folder; a file is expected there", path);
    char *copy = strdup(path);
    if (!copy)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    const char *dir = dirname(copy);
    cuzk_err e = CUZK_OK;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        e = cuzk_fail(CUZK_EIO, "output %s: the folder %s does not exist", path, dir);
    else if (access(dir, W_OK | X_OK) != 0)
        e = cuzk_fail(CUZK_EIO, "output %s: the folder %s is not writable: %s", path, dir,
                      cuzk_strerror(errno));
    free(copy);
    return e;
}

/* Usage lines of the commands parsed here, by command (a command may have
 * several forms); those of cuzk_subcommands follow them. */
static const struct {
    const char *name, *text;
} usages[] = {
    {"synth", "  cuzk synth   --constraints N [--public-inputs K] [--seed S] --out PREFIX\n"},
    {"setup",
     "  cuzk setup   (--pce FILE | --constraints N [--public-inputs K] [--seed S]) "
     "--out PREFIX\n"
     "               [--backend cpu|cuda|cuda:N|auto] [--device N] [--threads N]\n"
     "  cuzk setup   --circuit ID --out DIR [--pce-dir DIR2]   test parameters of a\n"
     "               Filecoin circuit (ID from `cuzk filecoin list`; DIR/<v28 name>.params,\n"
     "               .vk, and .pce there or in DIR2, the daemon's srs.pce_dir)\n"},
    {"prove", "  cuzk prove   --params P --pce C (--witness W [--witness W2 ...] | "
              "--synthetic-seed S)\n"
              "               --out PROOF\n"
              "               [--backend cpu|cuda|cuda:N|auto] [--threads N] [--fixed-rs] "
              "[--no-verify]\n"},
    {"verify", "  cuzk verify  --vk V --public F --proof P\n"},
    {"prove",
     "  cuzk prove   --zkey K --wtns W [-o DIR] [--backend B] [--threads N] [--fixed-rs]\n"},
    {"verify", "  cuzk verify  --vkey verification_key.json --public public.json --proof "
               "proof.json\n"},
    {"setup", "  cuzk setup   --r1cs R --zkey OUT [--out PREFIX] [--backend B] [--threads N]\n"},
    {"inspect", "  cuzk inspect FILE...\n"},
    {"devices", "  cuzk devices\n"},
};

/* The usage of every command (name NULL) or of one, to f. 0 when name is
 * no command. */
static int print_usage(FILE *f, const char *name)
{
    int found = 0;
    fprintf(f, "usage:\n");
    for (size_t i = 0; i < sizeof usages / sizeof *usages; i++)
        if (!name || !strcmp(name, usages[i].name))
            fprintf(f, "%s", usages[i].text), found = 1;
    for (const cuzk_subcommand *c = cuzk_subcommands; c->name; c++)
        if (!name || !strcmp(name, c->name))
            fprintf(f, "%s", c->usage), found = 1;
    if (!name)
        fprintf(f, "  cuzk COMMAND --help   the usage of one command\n");
    return found;
}

static int usage(const char *msg)
{
    if (msg)
        fprintf(stderr, "cuzk: %s\n", msg);
    print_usage(stderr, NULL);
    return 2;
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 0);
    if (!*s || *end || s[0] == '-')
        return -1;
    *out = v;
    return 0;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    memset(o, 0, sizeof *o);
    o->backend = "cpu";
    o->seed = 1;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define OPT(name) (!strcmp(a, name) && (v || (fprintf(stderr, "cuzk: %s needs a value\n", a), 0)))
        uint64_t x;
        if (OPT("--pce"))
            o->pce = v, i++;
        else if (OPT("--circuit"))
            o->circuit = v, i++;
        else if (OPT("--pce-dir"))
            o->pce_dir = v, i++;
        else if (OPT("--params"))
            o->params = v, i++;
        else if (OPT("--vk"))
            o->vk = v, i++;
        else if (OPT("--public"))
            o->public_path = v, i++;
        else if (OPT("--proof"))
            o->proof = v, i++;
        else if (OPT("--out") || OPT("-o"))
            o->out = v, i++;
        else if (OPT("--backend"))
            o->backend = v, i++;
        else if (OPT("--witness")) {
            if (o->n_witness == MAX_WITNESSES)
                return fprintf(stderr, "cuzk: at most %d witnesses\n", MAX_WITNESSES), -1;
            o->witness[o->n_witness++] = v, i++;
        } else if (OPT("--constraints") || OPT("--seed") || OPT("--threads") ||
                   OPT("--synthetic-seed") || OPT("--public-inputs") || OPT("--device")) {
            if (parse_u64(v, &x))
                return fprintf(stderr, "cuzk: %s: bad number \"%s\"\n", a, v), -1;
            if (!strcmp(a, "--constraints"))
                o->constraints = x, o->have_constraints = 1;
            else if (!strcmp(a, "--seed"))
                o->seed = x;
            else if (!strcmp(a, "--synthetic-seed"))
                o->synthetic_seed = x, o->have_synthetic_seed = 1;
            else if (!strcmp(a, "--threads"))
                o->threads = (int)x;
            else if (!strcmp(a, "--device")) {
                if (x > 1023)
                    return fprintf(stderr, "cuzk: --device %s: GPU ordinal outside 0..1023\n", v),
                           -1;
                o->device = (int)x;
            } else
                o->n_public = (uint32_t)x;
            i++;
        } else if (!strcmp(a, "--fixed-rs"))
            o->fixed_rs = 1;
        else if (!strcmp(a, "--no-verify"))
            o->no_verify = 1;
        else if (a[0] == '-')
            return fprintf(stderr, "cuzk: unknown or incomplete option %s\n", a), -1;
        else if (o->n_files < MAX_WITNESSES)
            o->files[o->n_files++] = a;
#undef OPT
    }
    if (o->threads > 0)
        cuzk_threads_set((unsigned)o->threads);
    return 0;
}

cuzk_err cmd_output_pair(const char *base, const char *s1, const char *s2, char **a, char **b)
{
    *a = cmd_path_with(base, s1);
    *b = cmd_path_with(base, s2);
    cuzk_err e = *a && *b ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e && !(e = cmd_output_check(*a)))
        e = cmd_output_check(*b);
    if (e) {
        free(*a);
        free(*b);
        *a = *b = NULL;
    }
    return e;
}

char *cmd_path_with(const char *prefix, const char *ext)
{
    size_t n = strlen(prefix) + strlen(ext) + 1;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s%s", prefix, ext);
    return p;
}

/* Public inputs as text: one field element per line (decimal or 0x-hex);
 * blank lines and lines starting with '#' are ignored. */
cuzk_err cmd_public_write(const char *path, const cuzk_fr *x, size_t n)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot create %s", path);
    fprintf(f, "# %zu public input(s), one field element per line\n", n);
    for (size_t i = 0; i < n; i++) {
        char hex[67];
        cuzk_fr_to_hex(hex, &x[i]);
        fprintf(f, "%s\n", hex);
    }
    if (fclose(f) != 0)
        return cuzk_fail(CUZK_EIO, "writing %s failed", path);
    return CUZK_OK;
}

static cuzk_err public_read(const char *path, cuzk_fr **out, size_t *n)
{
    uint8_t *data;
    size_t size;
    CUZK_TRY(cuzk_read_file(path, &data, &size));
    size_t cap = 16, cnt = 0, line_no = 0;
    cuzk_fr *x = malloc(cap * sizeof *x);
    char *text = malloc(size + 1);
    if (!x || !text) {
        free(x);
        free(text);
        free(data);
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
    }
    memcpy(text, data, size);
    text[size] = 0;
    free(data);
    cuzk_err rc = CUZK_OK;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        while (*line == ' ' || *line == '\t')
            line++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\r' || line[len - 1] == ' ' || line[len - 1] == '\t'))
            line[--len] = 0;
        if (!len || line[0] == '#')
            continue;
        if (cnt == cap) {
            cuzk_fr *nx = realloc(x, 2 * cap * sizeof *x);
            if (!nx) {
                rc = cuzk_fail(CUZK_ENOMEM, "%s: out of memory", path);
                break;
            }
            x = nx;
            cap *= 2;
        }
        if ((rc = cuzk_fr_from_str(&x[cnt], line)) != CUZK_OK) {
            cuzk_fail_ctx(rc, "%s line %zu: ", path, line_no);
            break;
        }
        cnt++;
    }
    free(text);
    if (rc) {
        free(x);
        return rc;
    }
    *out = x;
    *n = cnt;
    return CUZK_OK;
}

static cuzk_err synth_to_pce(const opts *o, int with_values, cuzk_r1cs **cs, cuzk_pce **pce)
{
    cuzk_synth_params sp = {o->constraints, o->n_public, o->seed};
    CUZK_TRY(cuzk_synth_build(&sp, with_values, cs));
    cuzk_err e = cuzk_pce_from_r1cs(pce, *cs);
    if (e) {
        cuzk_r1cs_free(*cs);
        *cs = NULL;
    }
    return e;
}

static int cmd_synth(opts *o)
{
    if (!o->have_constraints || !o->out)
        return usage("synth needs --constraints and --out");
    double t = cuzk_now();
    cuzk_r1cs *cs;
    cuzk_pce *pce;
    cuzk_err e = synth_to_pce(o, 1, &cs, &pce);
    if (e)
        return die("synth", e);
    double t_synth = cuzk_now() - t;
    char *pp = cmd_path_with(o->out, ".pce"), *wp = cmd_path_with(o->out, ".wit"),
         *xp = cmd_path_with(o->out, ".public");
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    if (!pp || !wp || !xp)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    if (!e)
        e = cuzk_pce_write(pce, pp);
    if (!e)
        e = cuzk_witness_write(wp, w, pce->n_inputs, pce->n_aux);
    if (!e)
        e = cmd_public_write(xp, w + 1, pce->n_inputs - 1);
    if (!e)
        printf("synth constraints=%llu inputs=%u aux=%llu domain=2^%u time_s=%.3f\n"
               "wrote %s %s %s\n",
               (unsigned long long)pce->n_constraints, pce->n_inputs,
               (unsigned long long)pce->n_aux, pce->log_domain, t_synth, pp, wp, xp);
    free(pp);
    free(wp);
    free(xp);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    return e ? die("synth", e) : 0;
}

/* --circuit: a Filecoin circuit's test parameters, under its v28 name in a
 * folder the operator names, never Filecoin's parameter folder: our toxic
 * waste is random, so these are not Filecoin's parameters and must not be
 * mistaken for them. */
static cuzk_err filecoin_setup_prefix(const opts *o, const cuzk_fc_proof **fp, char **prefix)
{
    *prefix = NULL;
    if (!(*fp = cuzk_fc_by_circuit(o->circuit)))
        return cuzk_fail(CUZK_EINVAL,
                         "--circuit %s: not a circuit id of the registry (see cuzk "
                         "filecoin list)",
                         o->circuit);
    char real[4096], fil[4096];
    const char *env = getenv("FIL_PROOFS_PARAMETER_CACHE");
    const char *cands[2] = {env && *env ? env : NULL, "/var/tmp/filecoin-proof-parameters"};
    for (int i = 0; i < 2 && realpath(o->out, real); i++)
        if (cands[i] && realpath(cands[i], fil) && !strcmp(real, fil))
            return cuzk_fail(CUZK_EINVAL,
                             "--out %s is Filecoin's parameter folder: test parameters from a "
                             "random setup must not stand next to Filecoin's; name another folder",
                             o->out);
    struct stat st;
    if (stat(o->out, &st) != 0 || !S_ISDIR(st.st_mode))
        return cuzk_fail(CUZK_EINVAL, "--out %s: with --circuit, --out names an existing folder",
                         o->out);
    if (o->pce_dir && (stat(o->pce_dir, &st) != 0 || !S_ISDIR(st.st_mode)))
        return cuzk_fail(CUZK_EINVAL, "--pce-dir %s: not an existing folder", o->pce_dir);
    if (asprintf(prefix, "%s/%s", o->out, (*fp)->param_name) < 0)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    return CUZK_OK;
}

/* Where setup writes a Filecoin circuit's constraint system: next to its
 * parameters, or in the daemon's srs.pce_dir when that is another folder
 * (another disk: a 32 GiB WindowPoSt's parameters alone take 52 GB);
 * checked before the work, as the parameters' path is. */
static cuzk_err setup_pce_path(const opts *o, const cuzk_fc_proof *fp, char **out)
{
    if (!o->pce_dir)
        *out = cmd_path_with(o->out, ".pce");
    else if (asprintf(out, "%s/%s.pce", o->pce_dir, fp->param_name) < 0)
        *out = NULL;
    return *out ? cmd_output_check(*out) : cuzk_fail(CUZK_ENOMEM, "out of memory");
}

static int cmd_setup(opts *o)
{
    if (!o->out || (!o->pce && !o->have_constraints && !o->circuit))
        return usage("setup needs --out and either --pce, --constraints or --circuit");
    if (o->pce_dir && !o->circuit)
        return usage("setup: --pce-dir goes with --circuit");
    char *fc_prefix = NULL;
    const cuzk_fc_proof *fp = NULL;
    if (o->circuit) {
        cuzk_err e = filecoin_setup_prefix(o, &fp, &fc_prefix);
        if (e)
            return die("setup", e);
        o->out = fc_prefix;
    }
    cmd_catch_stop_signals(); /* from the start: synthesis and the PCE come first */
    cuzk_pce *pce = NULL;
    cuzk_r1cs *cs = NULL;
    char *pce_out = NULL;
    cuzk_setup_options so = {
        .basis = CUZK_H_BELLPERSON, .backend = o->backend, .device = o->device};
    char *pp, *vp;
    cuzk_err e = cuzk_groth16_setup_check(&so);
    if (e || (e = cmd_output_pair(o->out, ".params", ".vk", &pp, &vp)))
        return die("setup", e);
    if (fp) {
        if (!(e = setup_pce_path(o, fp, &pce_out))) {
            fprintf(stderr, "setup: recording the constraint system of %s (%s)\n", fp->circuit_id,
                    fp->name);
            cuzk_progress *rp = NULL;
            int post = fp->family == CUZK_FC_WINNING || fp->family == CUZK_FC_WINDOW;
            if (post && !(e = cmd_progress_start("recording", "sectors", &rp)))
                cuzk_progress_set_total(rp, fp->sectors);
            if (!e)
                e = cuzk_fc_record_pce(fp, rp ? cuzk_progress_callback : NULL, rp, &pce);
            cuzk_progress_finish(rp);
            if (!e)
                e = cuzk_pce_write(pce, pce_out);
        }
    } else if (o->pce) {
        e = cuzk_pce_load(&pce, o->pce);
    } else {
        e = synth_to_pce(o, 0, &cs, &pce);
        cuzk_r1cs_free(cs);
        if (!e && !(pce_out = cmd_path_with(o->out, ".pce")))
            e = cuzk_fail(CUZK_ENOMEM, "out of memory");
        if (!e)
            e = cuzk_pce_write(pce, pce_out);
    }
    cuzk_progress *pr = NULL;
    if (!e && !(e = cmd_progress_start("setup", "points", &pr))) {
        so.progress = cuzk_progress_callback;
        so.progress_ctx = pr;
    }
    if (e) {
        free(pp);
        free(vp);
        free(pce_out);
        free(fc_prefix);
        cuzk_pce_free(pce);
        return die("setup", e);
    }
    cuzk_setup_timings tm;
    e = cuzk_groth16_setup_ex(pce, pp, vp, NULL, &so, &tm);
    cuzk_progress_finish(pr);
    if (!e)
        printf("setup backend=%s constraints=%llu inputs=%u aux=%llu domain=2^%u threads=%u\n"
               "setup lagrange_s=%.3f qap_s=%.3f vk_ic_s=%.3f h_s=%.3f l_s=%.3f a_s=%.3f "
               "b_g1_s=%.3f b_g2_s=%.3f total_s=%.3f peak_rss_mib=%.1f\n"
               "wrote %s %s%s%s\n",
               tm.backend, (unsigned long long)pce->n_constraints, pce->n_inputs,
               (unsigned long long)pce->n_aux, pce->log_domain, cuzk_threads_count(), tm.lagrange,
               tm.qap, tm.vk, tm.h, tm.l, tm.a, tm.b_g1, tm.b_g2, tm.total,
               cuzk_peak_rss() / 1048576.0, pp, vp, pce_out ? " " : "", pce_out ? pce_out : "");
    if (!e && fp)
        printf("these are test parameters of %s from a random setup, not Filecoin's\n",
               fp->circuit_id);
    free(pp);
    free(vp);
    free(pce_out);
    free(fc_prefix);
    cuzk_pce_free(pce);
    return e ? die("setup", e) : 0;
}

/* The witness of partition i: read from --witness, or (with
 * --synthetic-seed) synthesized again, which is only accepted when the
 * synthesized circuit is the one in the PCE. *cs owns w in that case. */
static cuzk_err partition_witness(const opts *o, int i, const cuzk_pce *pce, cuzk_fr **w,
                                  cuzk_r1cs **cs)
{
    *w = NULL;
    *cs = NULL;
    if (!o->have_synthetic_seed) {
        uint32_t ni;
        uint64_t na;
        CUZK_TRY(cuzk_witness_read(o->witness[i], w, &ni, &na));
        if (ni != pce->n_inputs || na != pce->n_aux) {
            free(*w);
            *w = NULL;
            return cuzk_fail(CUZK_EINVAL,
                             "%s: witness has %u inputs and %llu aux, the circuit has %u and %llu",
                             o->witness[i], ni, (unsigned long long)na, pce->n_inputs,
                             (unsigned long long)pce->n_aux);
        }
        return CUZK_OK;
    }
    cuzk_synth_params sp = {pce->n_constraints, pce->n_inputs - 1, o->synthetic_seed};
    cuzk_pce *mine = NULL;
    CUZK_TRY(cuzk_synth_build(&sp, 1, cs));
    cuzk_err e = cuzk_pce_from_r1cs(&mine, *cs);
    if (!e && mine->checksum != pce->checksum)
        e = cuzk_fail(CUZK_EINVAL,
                      "the synthetic circuit of seed %llu is not the circuit in %s (other seed?)",
                      (unsigned long long)o->synthetic_seed, o->pce);
    cuzk_pce_free(mine);
    if (e) {
        cuzk_r1cs_free(*cs);
        *cs = NULL;
        return e;
    }
    *w = (cuzk_fr *)cuzk_r1cs_assignment(*cs);
    return CUZK_OK;
}

static int cmd_prove(opts *o)
{
    if (!o->params || !o->pce || !o->out || (o->n_witness > 0) == o->have_synthetic_seed)
        return usage("prove needs --params, --pce, --out and either --witness or "
                     "--synthetic-seed");
    int parts = o->have_synthetic_seed ? 1 : o->n_witness;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    cuzk_backend *be = NULL;
    cuzk_proof *proofs = calloc((size_t)parts, sizeof *proofs);
    char *xp = cmd_path_with(o->out, ".public");
    cuzk_err e = proofs && xp ? CUZK_OK : cuzk_fail(CUZK_ENOMEM, "out of memory");
    /* Outputs first: a proof that cannot be written is not worth making. */
    if (!e)
        e = cmd_output_check(o->out);
    if (!e && o->have_synthetic_seed)
        e = cmd_output_check(xp);
    double t0 = cuzk_now();
    if (!e)
        e = cuzk_pce_load(&pce, o->pce);
    double t_pce = cuzk_now() - t0;
    t0 = cuzk_now();
    if (!e)
        e = cuzk_params_read(o->params, &params, 0);
    double t_params = cuzk_now() - t0;
    if (!e)
        e = cuzk_backend_open(o->backend, &be);
    if (e) {
        free(proofs);
        free(xp);
        cuzk_pce_free(pce);
        cuzk_params_free(&params);
        return die("prove", e);
    }
    printf("prove backend=%s threads=%u constraints=%llu domain=2^%u load_pce_s=%.3f "
           "load_params_s=%.3f\n",
           cuzk_backend_name(be), cuzk_threads_count(), (unsigned long long)pce->n_constraints,
           pce->log_domain, t_pce, t_params);
    for (int i = 0; i < parts && !e; i++) {
        cuzk_fr *w;
        cuzk_r1cs *cs;
        double tw = cuzk_now();
        e = partition_witness(o, i, pce, &w, &cs);
        tw = cuzk_now() - tw;
        if (!e && cs)
            e = cmd_public_write(xp, w + 1, pce->n_inputs - 1);
        cuzk_fr r, s;
        if (o->fixed_rs) { /* reproducible proofs for tests only */
            cuzk_fr_from_u64(&r, 0x1234567 + (uint64_t)i);
            cuzk_fr_from_u64(&s, 0x7654321 + (uint64_t)i);
        }
        cuzk_prove_timings tm;
        if (!e)
            e = cuzk_groth16_prove(be, &params, pce, w, o->fixed_rs ? &r : NULL,
                                   o->fixed_rs ? &s : NULL, &proofs[i], &tm);
        /* The witness passed every constraint, so a proof that fails here
         * comes from a key whose proving part is not of its verifying key's
         * setup: say so rather than write a proof nobody accepts. */
        double tv = cuzk_now();
        if (!e && !o->no_verify &&
            cuzk_groth16_verify(&params.vk, w + 1, pce->n_inputs - 1, &proofs[i]) != CUZK_OK)
            e = cuzk_fail(CUZK_EVERIFY,
                          "the proof does not verify with the verifying key in %s: its proving "
                          "key is not of the same setup (mixed or corrupted parameters); no "
                          "proof written (--no-verify skips this check)",
                          o->params);
        tv = o->no_verify ? 0 : cuzk_now() - tv;
        if (!e)
            printf("prove partition=%d load_witness_s=%.3f spmv_s=%.3f h_ntt_s=%.3f "
                   "msm_h_s=%.3f msm_l_s=%.3f msm_a_s=%.3f msm_b_g1_s=%.3f msm_b_g2_s=%.3f "
                   "total_s=%.3f l_ones=%llu l_zeros=%llu l_other=%llu verified=%s "
                   "verify_s=%.3f\n",
                   i, tw, tm.spmv, tm.h, tm.msm_h, tm.msm_l, tm.msm_a, tm.msm_b_g1, tm.msm_b_g2,
                   tm.total, (unsigned long long)tm.st_l.ones, (unsigned long long)tm.st_l.zeros,
                   (unsigned long long)tm.st_l.others, o->no_verify ? "no" : "yes", tv);
        else
            cuzk_fail_ctx(e, "partition %d: ", i);
        if (cs)
            cuzk_r1cs_free(cs); /* owns w */
        else
            free(w);
    }
    if (!e)
        e = cuzk_proofs_write(o->out, proofs, (size_t)parts);
    if (!e)
        printf("prove peak_rss_mib=%.1f wrote %s (%d x %d bytes)\n", cuzk_peak_rss() / 1048576.0,
               o->out, parts, CUZK_PROOF_BYTES);
    cuzk_backend_close(be);
    free(proofs);
    free(xp);
    cuzk_pce_free(pce);
    cuzk_params_free(&params);
    if (e == CUZK_EVERIFY) { /* an invalid proof: 1, as verify exits for one */
        die("prove", e);
        return 1;
    }
    return e ? die("prove", e) : 0;
}

static int cmd_verify(opts *o)
{
    if (!o->vk || !o->public_path || !o->proof)
        return usage("verify needs --vk, --public and --proof");
    cuzk_vk vk;
    memset(&vk, 0, sizeof vk);
    cuzk_proof *proofs = NULL;
    cuzk_fr *x = NULL;
    size_t np = 0, nx = 0;
    cuzk_err e = cuzk_vk_read(o->vk, &vk);
    if (!e)
        e = cuzk_proofs_read(o->proof, &proofs, &np);
    if (!e)
        e = public_read(o->public_path, &x, &nx);
    size_t per = vk.n_ic ? vk.n_ic - 1 : 0;
    if (!e && nx != per * np)
        e = cuzk_fail(CUZK_EINVAL,
                      "%s has %zu public inputs; %zu partition(s) x %zu inputs expected",
                      o->public_path, nx, np, per);
    int invalid = 0;
    for (size_t i = 0; i < np && !e; i++) {
        cuzk_err v = cuzk_groth16_verify(&vk, x + i * per, per, &proofs[i]);
        if (v == CUZK_EVERIFY) {
            printf("partition %zu: INVALID\n", i);
            invalid = 1;
        } else if (v) {
            e = v;
        }
    }
    cuzk_vk_free(&vk);
    free(proofs);
    free(x);
    if (e)
        return die("verify", e);
    printf("%s (%zu partition(s))\n", invalid ? "proof is INVALID" : "proof is valid", np);
    return invalid ? 1 : 0;
}

static void print_g1(const char *name, const blst_p1_affine *p, size_t n)
{
    uint8_t c[48];
    printf("  %-8s %zu point(s)", name, n);
    if (n) {
        cuzk_g1_encode_compressed(c, p);
        printf(", first ");
        for (int i = 0; i < 48; i++)
            printf("%02x", c[i]);
    }
    printf("\n");
}

static void print_g2(const char *name, const blst_p2_affine *p, size_t n)
{
    uint8_t c[96];
    printf("  %-8s %zu point(s)", name, n);
    if (n) {
        cuzk_g2_encode_compressed(c, p);
        printf(", first ");
        for (int i = 0; i < 24; i++)
            printf("%02x", c[i]);
        printf("...");
    }
    printf("\n");
}

static void print_vk(const cuzk_vk *vk)
{
    print_g1("alpha_g1", &vk->alpha_g1, 1);
    print_g1("beta_g1", &vk->beta_g1, 1);
    print_g2("beta_g2", &vk->beta_g2, 1);
    print_g2("gamma_g2", &vk->gamma_g2, 1);
    print_g1("delta_g1", &vk->delta_g1, 1);
    print_g2("delta_g2", &vk->delta_g2, 1);
    print_g1("ic", vk->ic, vk->n_ic);
}

static int inspect_one(const char *path)
{
    cuzk_mapfile m;
    cuzk_err e = cuzk_mapfile_open(&m, path);
    if (e)
        return die("inspect", e);
    uint64_t ck = cuzk_checksum64(m.data, m.size);
    printf("%s: %zu bytes, checksum64 %016llx\n", path, m.size, (unsigned long long)ck);
    if (m.size >= 8 && !memcmp(m.data, "CUZKPCE", 8)) {
        cuzk_mapfile_close(&m);
        cuzk_pce *p;
        if ((e = cuzk_pce_load(&p, path)))
            return die("inspect", e);
        printf("  type     pce (pre-compiled constraint system)\n"
               "  inputs   %u (including ONE)\n  aux      %llu\n  constraints %llu "
               "(domain 2^%u)\n  nnz      A %llu, B %llu, C %llu\n  coeffs   %u distinct\n"
               "  density  A %llu inputs + %llu aux, B %llu inputs + %llu aux\n",
               p->n_inputs, (unsigned long long)p->n_aux, (unsigned long long)p->n_constraints,
               p->log_domain, (unsigned long long)p->a.nnz, (unsigned long long)p->b.nnz,
               (unsigned long long)p->c.nnz, p->n_coeffs, (unsigned long long)p->a_input_count,
               (unsigned long long)p->a_aux_count, (unsigned long long)p->b_input_count,
               (unsigned long long)p->b_aux_count);
        cuzk_pce_free(p);
        return 0;
    }
    if (m.size >= 4 &&
        (!memcmp(m.data, "zkey", 4) || !memcmp(m.data, "r1cs", 4) || !memcmp(m.data, "wtns", 4))) {
        cuzk_mapfile_close(&m);
        return cmd_snark_inspect(path);
    }
    if (m.size >= 8 && !memcmp(m.data, "CUZKWIT", 8)) {
        cuzk_mapfile_close(&m);
        cuzk_fr *w;
        uint32_t ni;
        uint64_t na;
        if ((e = cuzk_witness_read(path, &w, &ni, &na)))
            return die("inspect", e);
        printf("  type     witness\n  inputs   %u (including ONE)\n  aux      %llu\n", ni,
               (unsigned long long)na);
        for (uint32_t i = 1; i < ni && i < 4; i++) {
            char hex[67];
            cuzk_fr_to_hex(hex, &w[i]);
            printf("  input %u  %s\n", i, hex);
        }
        free(w);
        return 0;
    }
    /* A .vk parses exactly; otherwise try .params, then a proof file. */
    cuzk_vk vk;
    cuzk_params p;
    cuzk_err ev = cuzk_vk_parse(m.data, m.size, path, &vk);
    if (!ev) {
        printf("  type     verifying key\n");
        print_vk(&vk);
        cuzk_vk_free(&vk);
        cuzk_mapfile_close(&m);
        return 0;
    }
    cuzk_err ep = cuzk_params_parse(m.data, m.size, path, &p, 0);
    if (!ep) {
        printf("  type     groth16 parameters (bellperson layout)\n");
        print_vk(&p.vk);
        print_g1("h", p.h, p.n_h);
        print_g1("l", p.l, p.n_l);
        print_g1("a", p.a, p.n_a);
        print_g1("b_g1", p.b_g1, p.n_b_g1);
        print_g2("b_g2", p.b_g2, p.n_b_g2);
        cuzk_params_free(&p);
        cuzk_mapfile_close(&m);
        return 0;
    }
    size_t sz = m.size;
    cuzk_mapfile_close(&m);
    if (sz && sz % CUZK_PROOF_BYTES == 0) {
        cuzk_proof *pr;
        size_t n;
        if ((e = cuzk_proofs_read(path, &pr, &n)))
            return die("inspect", e);
        printf("  type     groth16 proof, %zu partition(s)\n", n);
        for (size_t i = 0; i < n && i < 4; i++) {
            printf("  partition %zu:\n", i);
            print_g1("A", &pr[i].a, 1);
            print_g2("B", &pr[i].b, 1);
            print_g1("C", &pr[i].c, 1);
        }
        free(pr);
        return 0;
    }
    fprintf(stderr, "cuzk: inspect: %s: not a pce, witness, vk, params or proof file\n", path);
    return 2;
}

static int cmd_inspect(opts *o)
{
    if (!o->n_files)
        return usage("inspect needs at least one file");
    int rc = 0;
    for (int i = 0; i < o->n_files; i++)
        rc |= inspect_one(o->files[i]);
    return rc;
}

static int cmd_devices(void)
{
#ifdef CUZK_HAVE_CUDA
    int n = cuzk_gpu_count();
    printf("%d CUDA device(s)\n", n);
    for (int i = 0; i < n; i++) {
        char buf[256];
        if (cuzk_gpu_describe(i, buf, sizeof buf) == CUZK_OK)
            printf("  %s\n", buf);
    }
#else
    printf("built without CUDA: CPU backend only\n");
#endif
    return 0;
}

/* Subcommands with their own argument parsing, in src/cmd/cmd_*.c. */
const cuzk_subcommand cuzk_subcommands[] = {
    {"convert", cmd_convert_main,
     "  cuzk convert (--zkey K --r1cs R --out PREFIX | --params P --pce C --zkey OUT |\n"
     "                --wtns W --witness OUT (--r1cs R | --zkey K))\n"},
    {"hash", cmd_hash_main,
     "  cuzk hash poseidon --arity A [--constant-length] [--le-bytes] X1 ... Xn\n"
     "  cuzk hash sha256 HEX\n"},
    {"circuit", cmd_circuit_main,
     "  cuzk circuit stats poseidon [--arity A] [--constant-length] [--seed S]\n"
     "  cuzk circuit stats sha256-compression | sha256 [--bytes N] [--seed S]\n"
     "  cuzk circuit stats por [--base A] [--levels L] [--sub A] [--top A] [--private] "
     "[--sha256]\n"
     "  cuzk circuit stats [porep] --seal-proof N   (a seal proof's partition circuit)\n"
     "  cuzk circuit stats --registered-proof N | --post-proof N | --update-proof N\n"
     "               (a Filecoin circuit's figures, \"name value\" lines)\n"
     "  cuzk circuit synth CIRCUIT [the options of stats] --out PREFIX\n"
     "  cuzk circuit record (--registered-proof N | --post-proof N | --update-proof N)\n"
     "               --out FILE   (a Filecoin circuit's PCE, as the daemon caches it)\n"
     "  cuzk circuit bench native-poseidon [--arity A] [--count N] [--threads T]\n"
     "  cuzk circuit bench poseidon|sha256-compression --mode witness|record|check "
     "[--count N] [--arity A]\n"},
    {"filecoin", cmd_filecoin_main, "  cuzk filecoin list [--json]\n"},
    {"params", cmd_params_main,
     "  cuzk params check [--dir D] [ID ...]   (ID: a circuit id or a v28 file name; "
     "none: all)\n"},
    {"gen", cmd_gen_main,
     "  cuzk gen porep --sector-size S [--registered-proof N] [--seed N] [--miner-id M]\n"
     "               [--sector-number N] --out FILE   (a C1 output JSON, sparse sector)\n"
     "  cuzk gen snap --sector-size S [--seed N] --out DIR   (a SnapDeals update)\n"
     "  cuzk gen post --proof-type window|winning --sector-size S --randomness HEX "
     "[--sectors N]\n"
     "               [--seed N] [--partition-index K] [--first-sector ID] [--miner-id M]\n"
     "               [--api-version 1.0.0|1.2.0 | --registered-proof N] --out DIR\n"},
    {"post", cmd_post_main,
     "  cuzk post check (--registered-proof N | --proof-type window|winning --sector-size S\n"
     "               [--api-version V]) --randomness HEX (--prover-id HEX | --miner-id M)\n"
     "               [--partition-index K] [--sectors-in-circuit N] FILE...\n"},
    {"snap", cmd_snap_main,
     "  cuzk snap check --sector-size S --comm-r-old HEX --comm-r-new HEX --comm-d-new HEX\n"
     "               [--partition K] [--no-value-checks] FILE...   (PartitionProofs, circuit)\n"},
    {"piece", cmd_piece_main,
     "  cuzk piece commp FILE\n"
     "  cuzk piece cid HEX --sealed|--unsealed\n"
     "  cuzk piece cid CID\n"
     "  cuzk piece commd --sector-size S [CID:PADDED_SIZE ...]\n"},
    {"seal", cmd_seal_main,
     "  cuzk seal --registered-proof N [--sector-size S] [--porep-id HEX]\n"
     "            [--api-version 1.0.0|1.1.0|1.2.0] --prover-id HEX --sector-number N\n"
     "            --ticket HEX [--padded] DATA --out DIR\n"
     "  cuzk seal c1 --dir DIR --seed HEX --out FILE   (C1 output JSON of a sealed DIR)\n"
     "  cuzk seal update --dir DIR [--padded] DATA --out DIR2   (a SnapDeals update of it)\n"},
    {"c1", cmd_c1_main,
     "  cuzk c1 <the options and DATA of seal> --seed HEX --out FILE   (C1 output JSON)\n"},
    {"porep", cmd_porep_main,
     "  cuzk porep check (--c1 FILE | FILE) --sector-number N (--miner-id M | --prover-id HEX)\n"
     "             [--partition K] [--porep-id HEX] [--api-version V] [--no-value-checks]\n"
     "  cuzk porep parents --registered-proof N [--porep-id HEX] [--api-version V] NODE...\n"
     "  cuzk porep inputs --c1 FILE --sector-number S (--miner-id M | --prover-id HEX)\n"
     "             [--partition K] [--porep-id HEX] [--api-version V]\n"},
    {NULL, NULL, NULL},
};

int main(int argc, char **argv)
{
    if (argc < 2)
        return usage(NULL);
    const char *cmd = argv[1];
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        print_usage(stdout, NULL);
        return 0;
    }
    /* `cuzk CMD [...] --help`, nested ones too (circuit stats --help): the
     * usage on stdout, and nothing run. */
    for (int i = 2; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            if (print_usage(stdout, cmd))
                return 0;
            fprintf(stderr, "cuzk: unknown command \"%s\"\n", cmd);
            return usage(NULL);
        }
    for (const cuzk_subcommand *c = cuzk_subcommands; c->name; c++)
        if (!strcmp(cmd, c->name))
            return c->main(argc - 2, argv + 2);
    /* snarkjs files: prove --zkey, verify --vkey, setup --r1cs */
    static const struct {
        const char *cmd, *flag;
        int (*fn)(int, char **);
    } snark[] = {{"prove", "--zkey", cmd_snark_prove},
                 {"verify", "--vkey", cmd_snark_verify},
                 {"setup", "--r1cs", cmd_snark_setup}};
    for (size_t k = 0; k < sizeof snark / sizeof *snark; k++)
        for (int i = 2; i < argc && !strcmp(cmd, snark[k].cmd); i++)
            if (!strcmp(argv[i], snark[k].flag))
                return snark[k].fn(argc - 2, argv + 2);
    opts o;
    if (parse_opts(argc - 2, argv + 2, &o))
        return 2;
    if (!strcmp(cmd, "synth"))
        return cmd_synth(&o);
    if (!strcmp(cmd, "setup"))
        return cmd_setup(&o);
    if (!strcmp(cmd, "prove"))
        return cmd_prove(&o);
    if (!strcmp(cmd, "verify"))
        return cmd_verify(&o);
    if (!strcmp(cmd, "inspect"))
        return cmd_inspect(&o);
    if (!strcmp(cmd, "devices"))
        return cmd_devices();
    fprintf(stderr, "cuzk: unknown command \"%s\"\n", cmd);
    return usage(NULL);
}
