/* cuzk filecoin / cuzk params: the proof-type registry (filecoin.h) for
 * people and scripts, and a check of the parameter files it names.
 *
 *   cuzk filecoin list [--json]
 *       One line per registered proof: family, number, Go name, sector
 *       size, challenge API version, partitions, sectors and challenges per
 *       partition, tree_r_last shape (8-8-0: base, sub, top arity), our
 *       circuit id, whether cuzk proves it, the v28 parameter file base
 *       name. --json: one JSON array of objects with those fields (and the
 *       two digests), numbers as numbers.
 *
 *   cuzk params check [--dir D] [ID ...]
 *       D: $FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters
 *       (where Filecoin's tools keep them). ID: a circuit id (post-window-32g),
 *       a v28 file base name (both files), or a file name with .params or .vk
 *       (that file); none: every file of the registry. Per file, on stdout:
 *         ok  PATH
 *         missing  PATH
 *         corrupt  PATH: digest X, parameters.json says Y (not Filecoin's parameters?)
 *         unreadable  PATH: WHY
 *       then "checked N files in D: A ok, B missing, C corrupt[, E unreadable]"
 *       (D as given, so PATH is D/NAME).
 *       Large files report progress on stderr (progress.h). Exit 0 when
 *       every file is ok, 1 when some are missing or corrupt, 2 for usage
 *       errors, a missing folder and unreadable files (nothing can be said
 *       of them), 128 + signal when interrupted.
 *
 * A corrupt file is often not damaged at all: one made by `cuzk setup` for
 * the same circuit has the right name and shape but other parameters, so the
 * line says so. */
#include "cmd/cmd.h"
#include "cuzk/filecoin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DEFAULT_PARAM_DIR "/var/tmp/filecoin-proof-parameters"

static int usage_fail(const char *cmd, const char *msg, const char *arg)
{
    fprintf(stderr, "cuzk: %s: %s%s\n", cmd, msg, arg ? arg : "");
    return 2;
}

/* cuzk filecoin list ------------------------------------------------------ */

/* One row of the text table; the header goes through the same format. */
static void list_row(const char *const col[12])
{
    printf("%-12s %6s  %-40s %-6s %-5s %10s %7s %10s  %-5s %-17s %-9s %s\n", col[0], col[1], col[2],
           col[3], col[4], col[5], col[6], col[7], col[8], col[9], col[10], col[11]);
}

/* The registry's strings are letters, digits, '_', '-' and '.'
 * (test_filecoin_registry checks it), so they go into JSON unescaped. */
static void list_json(const cuzk_fc_proof *p, const char *tree, int last)
{
    printf("  {\"family\": \"%s\", \"number\": %llu, \"name\": \"%s\", \"sector_size\": %llu, "
           "\"api_version\": \"%s\", \"feature\": \"%s\", \"partitions\": %u, \"sectors\": %u, "
           "\"challenges\": %u, \"tree\": \"%s\", \"circuit_id\": \"%s\", \"supported\": %s, "
           "\"param_name\": \"%s\", \"params_digest\": \"%s\", \"vk_digest\": \"%s\"}%s\n",
           cuzk_fc_family_name(p->family), (unsigned long long)p->number, p->name,
           (unsigned long long)p->sector_size, cuzk_fc_api_name(p->api), p->feature, p->partitions,
           p->sectors, p->challenges, tree, p->circuit_id, p->supported ? "true" : "false",
           p->param_name, p->params_digest, p->vk_digest, last ? "" : ",");
}

static int filecoin_list(int argc, char **argv)
{
    int json = 0;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--json"))
            return usage_fail("filecoin", "list: unknown argument ", argv[i]);
        json = 1;
    }
    size_t n;
    const cuzk_fc_proof *t = cuzk_fc_proofs(&n);
    static const char *const header[12] = {"family", "number",     "name",      "size",
                                           "api",    "partitions", "sectors",   "challenges",
                                           "tree",   "circuit",    "supported", "params"};
    if (json)
        printf("[\n");
    else
        list_row(header);
    for (size_t i = 0; i < n; i++) {
        const cuzk_fc_proof *p = &t[i];
        char num[24], size[24], parts[16], secs[16], chal[16], tree[16];
        snprintf(tree, sizeof tree, "8-%u-%u", p->sub_arity, p->top_arity);
        if (json) {
            list_json(p, tree, i + 1 == n);
            continue;
        }
        snprintf(num, sizeof num, "%llu", (unsigned long long)p->number);
        snprintf(parts, sizeof parts, "%u", p->partitions);
        snprintf(secs, sizeof secs, "%u", p->sectors);
        snprintf(chal, sizeof chal, "%u", p->challenges);
        const char *const row[12] = {cuzk_fc_family_name(p->family),
                                     num,
                                     p->name,
                                     cuzk_fc_size_name(p->sector_size, size),
                                     cuzk_fc_api_name(p->api),
                                     parts,
                                     secs,
                                     chal,
                                     tree,
                                     p->circuit_id,
                                     p->supported ? "yes" : "no",
                                     p->param_name};
        list_row(row);
    }
    if (json)
        printf("]\n");
    return 0;
}

int cmd_filecoin_main(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "list"))
        return usage_fail("filecoin", "which command? list [--json]", NULL);
    return filecoin_list(argc - 1, argv + 1);
}

/* cuzk params check ------------------------------------------------------- */

enum { WANT_PARAMS = 1, WANT_VK = 2 };
static const char *const exts[2] = {".params", ".vk"};

typedef struct {
    const cuzk_fc_proof *p; /* the first entry with this file */
    unsigned want;          /* WANT_PARAMS | WANT_VK */
} selected;

typedef struct {
    selected sel[64];
    size_t n;
    unsigned ok, missing, corrupt, unreadable;
} check_state;

/* Add p's file(s) to the selection, once per file name. */
static void select_file(check_state *s, const cuzk_fc_proof *p, unsigned want)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->sel[i].p->param_name, p->param_name)) {
            s->sel[i].want |= want;
            return;
        }
    if (s->n < sizeof s->sel / sizeof s->sel[0])
        s->sel[s->n++] = (selected){p, want};
}

/* An ID of the command line: a circuit id, a file base name, or a file
 * name with its extension. 0 when it is none of these. */
static int select_id(check_state *s, const char *id)
{
    const cuzk_fc_proof *p = cuzk_fc_by_circuit(id);
    if (p) {
        select_file(s, p, WANT_PARAMS | WANT_VK);
        return 1;
    }
    size_t n, len = strlen(id);
    const cuzk_fc_proof *t = cuzk_fc_proofs(&n);
    for (size_t i = 0; i < n; i++) {
        size_t base = strlen(t[i].param_name);
        if (len < base || strncmp(id, t[i].param_name, base))
            continue;
        for (unsigned e = 0; e < 2; e++)
            if (!strcmp(id + base, exts[e])) {
                select_file(s, &t[i], 1u << e);
                return 1;
            }
        if (len == base) {
            select_file(s, &t[i], WANT_PARAMS | WANT_VK);
            return 1;
        }
    }
    return 0;
}

/* Progress in MiB (rounded up, so that the last report is the total): the
 * byte counts of multi-GiB files are unreadable in a progress line. */
static int mib_progress(void *ctx, uint64_t done, uint64_t total)
{
    const uint64_t mib = 1u << 20;
    return cuzk_progress_callback(ctx, (done + mib - 1) / mib, (total + mib - 1) / mib);
}

/* Check one file and print its line. ECANCELLED when a signal stopped it
 * (the caller exits); every other outcome is counted in s. */
static cuzk_err check_file(check_state *s, const char *path, const char *label,
                           const char *want_hex)
{
    struct stat st;
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR)) {
        printf("missing  %s\n", path);
        s->missing++;
        return CUZK_OK;
    }
    cuzk_progress *pr;
    uint8_t d[CUZK_FC_DIGEST_BYTES];
    cuzk_err e = cmd_progress_start(label, "MiB", &pr);
    if (!e) {
        e = cuzk_fc_file_digest(path, mib_progress, pr, d);
        cuzk_progress_finish(pr);
    }
    if (e == CUZK_ECANCELLED)
        return e;
    if (e) {
        printf("unreadable  %s: %s\n", path, cuzk_errmsg());
        s->unreadable++;
        return CUZK_OK;
    }
    char hex[2 * CUZK_FC_DIGEST_BYTES + 1];
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    if (!strcmp(hex, want_hex)) {
        printf("ok  %s\n", path);
        s->ok++;
    } else {
        printf("corrupt  %s: digest %s, parameters.json says %s (not Filecoin's parameters?)\n",
               path, hex, want_hex);
        s->corrupt++;
    }
    fflush(stdout);
    return CUZK_OK;
}

static int params_check(int argc, char **argv)
{
    const char *dir = getenv("FIL_PROOFS_PARAMETER_CACHE");
    if (!dir || !*dir)
        dir = DEFAULT_PARAM_DIR;
    check_state s = {.n = 0};
    int any_id = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--dir")) {
            if (i + 1 >= argc || !*argv[i + 1])
                return usage_fail("params", "--dir needs a folder", NULL);
            dir = argv[++i];
        } else if (argv[i][0] == '-') {
            return usage_fail("params", "check: unknown option ", argv[i]);
        } else if (!select_id(&s, argv[i])) {
            fprintf(stderr,
                    "cuzk: params: '%s' is neither a circuit id nor a v28 parameter file name "
                    "(cuzk filecoin list shows both)\n",
                    argv[i]);
            return 2;
        } else {
            any_id = 1;
        }
    }
    if (!any_id) {
        size_t n;
        const cuzk_fc_proof *t = cuzk_fc_proofs(&n);
        for (size_t i = 0; i < n; i++)
            select_file(&s, &t[i], WANT_PARAMS | WANT_VK);
    }
    struct stat st;
    int rc = stat(dir, &st);
    if (rc != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "cuzk: params: the parameter folder %s: %s (--dir or "
                "FIL_PROOFS_PARAMETER_CACHE names another)\n",
                dir, rc ? cuzk_strerror(errno) : "not a folder");
        return 2;
    }
    for (size_t i = 0; i < s.n; i++)
        for (unsigned e = 0; e < 2; e++) {
            if (!(s.sel[i].want & (1u << e)))
                continue;
            const cuzk_fc_proof *p = s.sel[i].p;
            char path[4096], label[64];
            if (snprintf(path, sizeof path, "%s/%s%s", dir, p->param_name, exts[e]) >=
                (int)sizeof path)
                return usage_fail("params", "--dir is too long: ", dir);
            snprintf(label, sizeof label, "%s%s", p->circuit_id, exts[e]);
            cuzk_err err = check_file(&s, path, label, e ? p->vk_digest : p->params_digest);
            if (err)
                return cmd_fail("params", err);
        }
    unsigned total = s.ok + s.missing + s.corrupt + s.unreadable;
    printf("checked %u file%s in %s: %u ok, %u missing, %u corrupt", total, total == 1 ? "" : "s",
           dir, s.ok, s.missing, s.corrupt);
    if (s.unreadable)
        printf(", %u unreadable", s.unreadable);
    printf("\n");
    return s.unreadable ? 2 : s.missing || s.corrupt ? 1 : 0;
}

int cmd_params_main(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "check"))
        return usage_fail("params", "which command? check [--dir D] [ID ...]", NULL);
    return params_check(argc - 1, argv + 1);
}
