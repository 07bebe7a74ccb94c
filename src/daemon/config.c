/* cuzk-daemon configuration (include/cuzk/config.h).
 *
 * One table, `keys`, lists every setting once: its dotted name and a setter
 * that takes the value as text. The TOML path (through the toml11 shim) and
 * the command-line path (cuzk_config_set) both end in those setters, so a
 * key behaves the same from either side and no key can be known to one and
 * not the other. TOML values are turned into text first (integers, booleans,
 * arrays as comma-separated lists); types the setter cannot read fail with
 * the key and line. Unknown keys are collected and reported together. */
#define _GNU_SOURCE
#include "cuzk/config.h"
#include "cuzk/log.h"
#include "daemon/toml_shim.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static cuzk_err set_str(char **dst, const char *v)
{
    char *s = strdup(v);
    if (!s)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    free(*dst);
    *dst = s;
    return CUZK_OK;
}

cuzk_err cuzk_parse_bytes(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || v < 0 || !isfinite(v))
        return cuzk_fail(CUZK_EINVAL, "\"%s\" is not a byte size (e.g. 64GiB, 512MiB, 1000000)", s);
    while (*end == ' ')
        end++;
    static const struct {
        const char *suffix;
        double mult;
    } units[] = {{"", 1},
                 {"B", 1},
                 {"KiB", 1024.0},
                 {"MiB", 1048576.0},
                 {"GiB", 1073741824.0},
                 {"TiB", 1099511627776.0},
                 {"KB", 1e3},
                 {"MB", 1e6},
                 {"GB", 1e9},
                 {"TB", 1e12},
                 {"K", 1024.0},
                 {"M", 1048576.0},
                 {"G", 1073741824.0},
                 {"T", 1099511627776.0}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(end, units[i].suffix)) {
            double b = v * units[i].mult;
            if (b >= 18446744073709551615.0)
                return cuzk_fail(CUZK_EINVAL, "\"%s\": byte size too large", s);
            *out = (uint64_t)b;
            return CUZK_OK;
        }
    return cuzk_fail(CUZK_EINVAL,
                     "\"%s\": unknown unit \"%s\" (B, KiB, MiB, GiB, TiB, KB, MB, "
                     "GB, TB)",
                     s, end);
}

static cuzk_err parse_u64(const char *key, const char *v, uint64_t lo, uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || v[0] == '-' || x < lo || x > hi)
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not an integer in [%llu, %llu]", key, v,
                         (unsigned long long)lo, (unsigned long long)hi);
    *out = x;
    return CUZK_OK;
}

static cuzk_err parse_bool(const char *key, const char *v, int *out)
{
    if (!strcmp(v, "true") || !strcmp(v, "1") || !strcmp(v, "yes"))
        *out = 1;
    else if (!strcmp(v, "false") || !strcmp(v, "0") || !strcmp(v, "no"))
        *out = 0;
    else
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not a boolean (true or false)", key, v);
    return CUZK_OK;
}

/* Comma-separated list into a fixed array of strings. */
static cuzk_err set_list(const char *key, const char *v, char **arr, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        free(arr[i]);
    *n = 0;
    char *copy = strdup(v), *save = NULL;
    if (!copy)
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    cuzk_err rc = CUZK_OK;
    for (char *t = strtok_r(copy, ",", &save); t && !rc; t = strtok_r(NULL, ",", &save)) {
        while (*t == ' ')
            t++;
        size_t l = strlen(t);
        while (l && t[l - 1] == ' ')
            t[--l] = 0;
        if (!l)
            continue;
        if (*n == CUZK_CONFIG_MAX_LIST)
            rc = cuzk_fail(CUZK_EINVAL, "%s: more than %d entries", key, CUZK_CONFIG_MAX_LIST);
        else if (!(arr[*n] = strdup(t)))
            rc = cuzk_fail(CUZK_ENOMEM, "out of memory");
        else
            (*n)++;
    }
    free(copy);
    return rc;
}

#define SETTER(name) static cuzk_err name(cuzk_config *c, const char *k, const char *v)

SETTER(s_verify)
{
    return parse_bool(k, v, &c->verify_proofs);
}
SETTER(s_device_only)
{
    return parse_bool(k, v, &c->srs_device_only);
}
SETTER(s_spmv)
{
    if (strcmp(v, "device") && strcmp(v, "host"))
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not one of device, host", k, v);
    c->host_spmv = !strcmp(v, "host");
    return CUZK_OK;
}
SETTER(s_listen)
{
    if (!*v)
        return cuzk_fail(CUZK_EINVAL, "%s must not be empty", k);
    return set_str(&c->listen, v);
}
SETTER(s_status_listen)
{
    (void)k;
    return set_str(&c->status_listen, v);
}
SETTER(s_tls_cert)
{
    (void)k;
    return set_str(&c->tls_cert, v);
}
SETTER(s_tls_key)
{
    (void)k;
    return set_str(&c->tls_key, v);
}
SETTER(s_tls_client_ca)
{
    (void)k;
    return set_str(&c->tls_client_ca, v);
}
SETTER(s_node_name)
{
    if (!*v)
        return cuzk_fail(CUZK_EINVAL, "%s must not be empty", k);
    for (const char *p = v; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return cuzk_fail(CUZK_EINVAL, "%s: control characters are not allowed", k);
    return set_str(&c->node_name, v);
}
SETTER(s_insecure_tcp)
{
    return parse_bool(k, v, &c->allow_insecure_tcp);
}
SETTER(s_log_file)
{
    (void)k;
    return set_str(&c->log_file, v);
}
SETTER(s_pid_file)
{
    (void)k;
    return set_str(&c->pid_file, v);
}
SETTER(s_backend)
{
    int ordinal_ok = 0;
    if (!strncmp(v, "cuda:", 5)) {
        uint64_t ord;
        ordinal_ok = v[5] >= '0' && v[5] <= '9' && parse_u64(k, v + 5, 0, 1023, &ord) == CUZK_OK;
    }
    if (strcmp(v, "cpu") && strcmp(v, "cuda") && strcmp(v, "auto") && !ordinal_ok)
        return cuzk_fail(CUZK_EINVAL,
                         "%s: \"%s\" is not one of cpu, cuda, cuda:N (N a GPU ordinal), auto", k,
                         v);
    return set_str(&c->backend, v);
}
SETTER(s_max_msg)
{
    uint64_t b;
    if (cuzk_parse_bytes(v, &b) || b < 4096 || b > INT32_MAX)
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" must be a byte size in [4KiB, 2GiB)", k, v);
    c->max_message_bytes = b;
    return CUZK_OK;
}
SETTER(s_grace)
{
    char *end;
    double g = strtod(v, &end);
    if (!*v || *end || !(g >= 0 && g <= 86400))
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not a number of seconds in [0, 86400]", k, v);
    c->shutdown_grace_s = g;
    return CUZK_OK;
}
SETTER(s_budget)
{
    if (!strcmp(v, "auto")) {
        c->budget_auto = 1;
        return CUZK_OK;
    }
    if (cuzk_parse_bytes(v, &c->budget_bytes))
        return cuzk_fail_ctx(CUZK_EINVAL, "%s: ", k);
    c->budget_auto = 0;
    return CUZK_OK;
}
SETTER(s_pinned)
{
    if (cuzk_parse_bytes(v, &c->pinned_budget_bytes))
        return cuzk_fail_ctx(CUZK_EINVAL, "%s: ", k);
    return CUZK_OK;
}
SETTER(s_devices)
{
    char *tmp[CUZK_CONFIG_MAX_LIST];
    size_t n = 0;
    CUZK_TRY(set_list(k, v, tmp, &n));
    cuzk_err rc = CUZK_OK;
    for (size_t i = 0; i < n; i++) {
        uint64_t d = 0;
        if (!rc)
            rc = parse_u64(k, tmp[i], 0, 1023, &d);
        c->gpu_devices[i] = (int)d;
        free(tmp[i]);
    }
    c->n_gpu_devices = rc ? 0 : n;
    return rc;
}
SETTER(s_threads)
{
    uint64_t x;
    CUZK_TRY(parse_u64(k, v, 0, 4096, &x));
    c->synthesis_threads = (unsigned)x;
    return CUZK_OK;
}
SETTER(s_param_cache)
{
    if (!*v)
        return cuzk_fail(CUZK_EINVAL, "%s must not be empty", k);
    return set_str(&c->param_cache, v);
}
SETTER(s_pce_dir)
{
    (void)k;
    return set_str(&c->pce_dir, v);
}
SETTER(s_preload)
{
    return set_list(k, v, c->preload, &c->n_preload);
}
SETTER(s_workers)
{
    uint64_t x;
    CUZK_TRY(parse_u64(k, v, 1, 256, &x));
    c->workers = (unsigned)x;
    return CUZK_OK;
}
/* A small unsigned setting in [lo, hi]. */
static cuzk_err set_unsigned(const char *k, const char *v, uint64_t lo, uint64_t hi, unsigned *out)
{
    uint64_t x;
    CUZK_TRY(parse_u64(k, v, lo, hi, &x));
    *out = (unsigned)x;
    return CUZK_OK;
}
SETTER(s_synth_workers)
{
    return set_unsigned(k, v, 1, 256, &c->synthesis_workers);
}
SETTER(s_finalizers)
{
    return set_unsigned(k, v, 1, 64, &c->finalizers);
}
SETTER(s_depth)
{
    return set_unsigned(k, v, 0, 4096, &c->pipeline_depth);
}
SETTER(s_batch)
{
    return set_unsigned(k, v, 1, 64, &c->max_batch_size);
}
SETTER(s_batch_wait)
{
    return set_unsigned(k, v, 0, 600000, &c->max_batch_wait_ms);
}
SETTER(s_max_queued)
{
    return parse_u64(k, v, 1, 1000000, &c->max_queued);
}
SETTER(s_max_queued_bytes)
{
    if (cuzk_parse_bytes(v, &c->max_queued_bytes) || c->max_queued_bytes == 0)
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" must be a byte size > 0", k, v);
    return CUZK_OK;
}
SETTER(s_retain)
{
    return parse_u64(k, v, 1, 1000000, &c->retain);
}
SETTER(s_max_synth)
{
    return parse_u64(k, v, 16, (uint64_t)1 << 31, &c->max_synthetic);
}
SETTER(s_syn_enabled)
{
    return parse_bool(k, v, &c->synthetic_enabled);
}
SETTER(s_syn_dir)
{
    if (!*v)
        return cuzk_fail(CUZK_EINVAL, "%s must not be empty", k);
    return set_str(&c->synthetic_param_dir, v);
}
SETTER(s_syn_max)
{
    if (cuzk_parse_bytes(v, &c->synthetic_max_bytes) || c->synthetic_max_bytes == 0)
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" must be a byte size > 0", k, v);
    return CUZK_OK;
}
SETTER(s_level)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    for (int i = 0; i < 4; i++)
        if (!strcmp(v, names[i])) {
            c->log_level = i;
            return CUZK_OK;
        }
    return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not one of debug, info, warn, error", k, v);
}
SETTER(s_format)
{
    if (strcmp(v, "text") && strcmp(v, "json"))
        return cuzk_fail(CUZK_EINVAL, "%s: \"%s\" is not one of text, json", k, v);
    c->log_json = !strcmp(v, "json");
    return CUZK_OK;
}

static const struct {
    const char *key;
    cuzk_err (*set)(cuzk_config *, const char *, const char *);
    int is_list; /* a TOML array (or a comma-separated string) */
} keys[] = {
    {"verify_proofs", s_verify, 0},
    {"daemon.listen", s_listen, 0},
    {"daemon.status_listen", s_status_listen, 0},
    {"daemon.log_file", s_log_file, 0},
    {"daemon.pid_file", s_pid_file, 0},
    {"daemon.backend", s_backend, 0},
    {"daemon.max_message_bytes", s_max_msg, 0},
    {"daemon.shutdown_grace_s", s_grace, 0},
    {"daemon.tls_cert", s_tls_cert, 0},
    {"daemon.tls_key", s_tls_key, 0},
    {"daemon.tls_client_ca", s_tls_client_ca, 0},
    {"daemon.allow_insecure_tcp", s_insecure_tcp, 0},
    {"daemon.node_name", s_node_name, 0},
    {"memory.budget", s_budget, 0},
    {"memory.pinned_budget", s_pinned, 0},
    {"gpus.devices", s_devices, 1},
    {"gpus.spmv", s_spmv, 0},
    {"synthesis.threads", s_threads, 0},
    {"synthesis.workers", s_synth_workers, 0},
    {"srs.param_cache", s_param_cache, 0},
    {"srs.preload", s_preload, 1},
    {"srs.pce_dir", s_pce_dir, 0},
    {"srs.device_only", s_device_only, 0},
    {"scheduler.workers", s_workers, 0},
    {"scheduler.max_queued", s_max_queued, 0},
    {"scheduler.max_queued_bytes", s_max_queued_bytes, 0},
    {"scheduler.retain", s_retain, 0},
    {"scheduler.max_synthetic_constraints", s_max_synth, 0},
    {"scheduler.finalizers", s_finalizers, 0},
    {"scheduler.pipeline_depth", s_depth, 0},
    {"scheduler.max_batch_size", s_batch, 0},
    {"scheduler.max_batch_wait_ms", s_batch_wait, 0},
    {"synthetic.enabled", s_syn_enabled, 0},
    {"synthetic.param_dir", s_syn_dir, 0},
    {"synthetic.max_bytes", s_syn_max, 0},
    {"logging.level", s_level, 0},
    {"logging.format", s_format, 0},
};

/* circuits.<id>.<field>: the id may itself contain dots. */
static cuzk_err set_circuit(cuzk_config *c, const char *key, const char *v)
{
    const char *id = key + strlen("circuits.");
    const char *dot = strrchr(id, '.');
    if (!dot || dot == id)
        return cuzk_fail(CUZK_EINVAL, "%s: expected circuits.<id>.params|vk|pce", key);
    const char *field = dot + 1;
    if (strcmp(field, "params") && strcmp(field, "vk") && strcmp(field, "pce"))
        return cuzk_fail(CUZK_EINVAL, "%s: unknown circuit field \"%s\" (params, vk, pce)", key,
                         field);
    size_t idlen = (size_t)(dot - id);
    cuzk_config_circuit *cc = NULL;
    for (size_t i = 0; i < c->n_circuits; i++)
        if (strlen(c->circuits[i].id) == idlen && !strncmp(c->circuits[i].id, id, idlen))
            cc = &c->circuits[i];
    if (!cc) {
        if (c->n_circuits == CUZK_CONFIG_MAX_LIST)
            return cuzk_fail(CUZK_EINVAL, "more than %d circuits", CUZK_CONFIG_MAX_LIST);
        cc = &c->circuits[c->n_circuits];
        if (!(cc->id = strndup(id, idlen)))
            return cuzk_fail(CUZK_ENOMEM, "out of memory");
        c->n_circuits++;
    }
    char **dst = !strcmp(field, "params") ? &cc->params : !strcmp(field, "vk") ? &cc->vk : &cc->pce;
    return set_str(dst, v);
}

cuzk_err cuzk_config_set(cuzk_config *c, const char *key, const char *value)
{
    if (!strncmp(key, "circuits.", 9))
        return set_circuit(c, key, value);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(keys[i].key, key))
            return keys[i].set(c, key, value);
    return cuzk_fail(CUZK_EINVAL, "unknown setting \"%s\"", key);
}

cuzk_err cuzk_config_defaults(cuzk_config *c)
{
    memset(c, 0, sizeof *c);
    const char *cache = getenv("FIL_PROOFS_PARAMETER_CACHE");
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        strcpy(host, "localhost");
    c->verify_proofs = 1;
    c->max_message_bytes = (uint64_t)128 << 20; /* ~50 MB vanilla proofs, twice over */
    c->shutdown_grace_s = 30;
    c->budget_auto = 1;
    c->workers = 1;
    c->synthesis_workers = 2;
    c->finalizers = 1;
    c->max_batch_size = 1;
    c->max_queued = 1024;
    c->max_queued_bytes = (uint64_t)4 << 30;
    c->retain = 1024;
    c->max_synthetic = (uint64_t)1 << 24;
    c->synthetic_max_bytes = (uint64_t)16 << 30;
    c->log_level = CUZK_LOG_INFO;
    if (set_str(&c->listen, "unix:///run/curio/cuzk.sock") || set_str(&c->status_listen, "") ||
        set_str(&c->log_file, "") || set_str(&c->pid_file, "") || set_str(&c->backend, "cpu") ||
        set_str(&c->tls_cert, "") || set_str(&c->tls_key, "") || set_str(&c->tls_client_ca, "") ||
        set_str(&c->node_name, host) ||
        set_str(&c->synthetic_param_dir, "/var/tmp/cuzk-synthetic") || set_str(&c->pce_dir, "") ||
        set_str(&c->param_cache, cache && *cache ? cache : "/var/tmp/filecoin-proof-parameters")) {
        cuzk_config_free(c);
        return cuzk_fail(CUZK_ENOMEM, "out of memory");
    }
    return CUZK_OK;
}

/* A TOML value as the text a setter reads. */
static char *item_text(const cuzk_toml_item *it)
{
    char *s = NULL;
    switch (it->type) {
    case CUZK_TOML_BOOL: return strdup(it->b ? "true" : "false");
    case CUZK_TOML_INT:
        if (asprintf(&s, "%lld", (long long)it->i) < 0)
            return NULL;
        return s;
    case CUZK_TOML_FLOAT:
        if (asprintf(&s, "%.17g", it->f) < 0)
            return NULL;
        return s;
    case CUZK_TOML_STRING: return strdup(it->s);
    case CUZK_TOML_ARRAY: {
        size_t len = 1;
        for (size_t i = 0; i < it->n_items; i++)
            len += strlen(it->items[i]) + 1;
        if (!(s = calloc(1, len)))
            return NULL;
        for (size_t i = 0; i < it->n_items; i++) {
            if (strchr(it->items[i], ',')) {
                free(s);
                return NULL;
            }
            if (i)
                strcat(s, ",");
            strcat(s, it->items[i]);
        }
        return s;
    }
    default: return NULL;
    }
}

static int by_line(const void *a, const void *b)
{
    const cuzk_toml_item *x = a, *y = b;
    return x->line < y->line ? -1 : x->line > y->line;
}

cuzk_err cuzk_config_load_file(cuzk_config *c, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cuzk_fail(CUZK_EIO, "cannot read config %s: %s", path, cuzk_strerror(errno));
    fclose(f);
    cuzk_toml_item *items;
    size_t n;
    char err[2048];
    if (cuzk_toml_parse_flat(path, &items, &n, err, sizeof err) != 0)
        return cuzk_fail(CUZK_EFORMAT, "config %s: %s", path, err);
    /* toml11 keeps tables in hash maps: restore the file's order, so errors
     * and the list of unknown keys come out in reading order. */
    qsort(items, n, sizeof *items, by_line);
    cuzk_err rc = CUZK_OK;
    char unknown[1024] = "";
    size_t n_unknown = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const cuzk_toml_item *it = &items[i];
        int known = !strncmp(it->key, "circuits.", 9), is_list = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !known; k++)
            if ((known = !strcmp(keys[k].key, it->key)))
                is_list = keys[k].is_list;
        if (!known) {
            size_t l = strlen(unknown);
            snprintf(unknown + l, sizeof unknown - l, "%s%s (line %u)", n_unknown ? ", " : "",
                     it->key, it->line);
            n_unknown++;
            continue;
        }
        if (it->type == CUZK_TOML_ARRAY && !is_list) {
            rc = cuzk_fail(CUZK_EINVAL, "config %s line %u: %s takes one value, not an array", path,
                           it->line, it->key);
            break;
        }
        char *text = item_text(it);
        if (!text) {
            rc = cuzk_fail(CUZK_EINVAL, "config %s line %u: %s: unsupported value type", path,
                           it->line, it->key);
            break;
        }
        rc = cuzk_config_set(c, it->key, text);
        if (rc)
            cuzk_fail_ctx(rc, "config %s line %u: ", path, it->line);
        free(text);
    }
    cuzk_toml_items_free(items, n);
    free(items);
    if (!rc && n_unknown)
        rc = cuzk_fail(CUZK_EINVAL, "config %s: unknown key%s: %s", path, n_unknown > 1 ? "s" : "",
                       unknown);
    return rc;
}

void cuzk_config_free(cuzk_config *c)
{
    free(c->listen);
    free(c->status_listen);
    free(c->tls_cert);
    free(c->tls_key);
    free(c->tls_client_ca);
    free(c->node_name);
    free(c->log_file);
    free(c->pid_file);
    free(c->backend);
    free(c->param_cache);
    free(c->synthetic_param_dir);
    free(c->pce_dir);
    for (size_t i = 0; i < c->n_preload; i++)
        free(c->preload[i]);
    for (size_t i = 0; i < c->n_circuits; i++) {
        free(c->circuits[i].id);
        free(c->circuits[i].params);
        free(c->circuits[i].vk);
        free(c->circuits[i].pce);
    }
    memset(c, 0, sizeof *c);
}

/* The value of `log_file = "..."` on one line, or NULL. */
static char *scan_log_file_line(const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (strncmp(line, "log_file", 8))
        return NULL;
    line += 8;
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line++ != '=')
        return NULL;
    while (*line == ' ' || *line == '\t')
        line++;
    char q = *line;
    if (q != '"' && q != '\'')
        return NULL;
    const char *end = strchr(line + 1, q);
    return end ? strndup(line + 1, (size_t)(end - line - 1)) : NULL;
}

void cuzk_config_peek_log_file(const char *path, char **out)
{
    *out = NULL;
    cuzk_toml_item *items;
    size_t n;
    char err[256];
    if (cuzk_toml_parse_flat(path, &items, &n, err, sizeof err) == 0) {
        for (size_t i = 0; i < n && !*out; i++)
            if (!strcmp(items[i].key, "daemon.log_file") && items[i].type == CUZK_TOML_STRING &&
                items[i].s[0])
                *out = strdup(items[i].s);
        cuzk_toml_items_free(items, n);
        free(items);
        return;
    }
    /* A file that does not parse: the log_file line of its [daemon] table,
     * if that line itself is readable. */
    FILE *f = fopen(path, "r");
    char line[4096];
    int in_daemon = 0;
    while (f && !*out && fgets(line, sizeof line, f)) {
        const char *p = line;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p == '[') {
            in_daemon = !strncmp(p, "[daemon]", 8);
            continue;
        }
        char *v = in_daemon ? scan_log_file_line(p) : NULL;
        if (v && *v)
            *out = v;
        else
            free(v);
    }
    if (f)
        fclose(f);
}
