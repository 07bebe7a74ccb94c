/* A small JSON reader for the files snarkjs exchanges (proof, public
 * signals, verification key: kilobytes, read once). It builds a tree of
 * values; strings are unescaped (\uXXXX to UTF-8) and numbers are kept as
 * their text. Depth is limited, and errors give the byte offset. */
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *s;
    size_t n, i;
    const char *name;
} parser;

static cuzk_err perr(parser *p, const char *what)
{
    return cuzk_fail(CUZK_EFORMAT, "%s: invalid JSON at byte %zu: %s", p->name, p->i, what);
}

static void skip_ws(parser *p)
{
    while (p->i < p->n &&
           (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static cuzk_err parse_value(parser *p, json_value *v, int depth);

static cuzk_err parse_string(parser *p, char **out)
{
    p->i++; /* opening quote */
    char *buf = malloc(p->n - p->i + 1);
    size_t len = 0;
    if (!buf)
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", p->name);
    while (p->i < p->n && p->s[p->i] != '"') {
        unsigned char c = (unsigned char)p->s[p->i++];
        if (c < 0x20) {
            free(buf);
            return perr(p, "control character in a string");
        }
        if (c != '\\') {
            buf[len++] = (char)c;
            continue;
        }
        if (p->i >= p->n)
            break;
        char e = p->s[p->i++];
        const char *map = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *at = strchr(map, e);
        if (e && at) {
            buf[len++] = to[at - map];
        } else if (e == 'u' && p->n - p->i >= 4) {
            unsigned cp = 0;
            for (int k = 0; k < 4; k++) {
                int h = cuzk_hex_digit(p->s[p->i + k]);
                if (h < 0) {
                    free(buf);
                    return perr(p, "bad \\u escape");
                }
                cp = cp << 4 | (unsigned)h;
            }
            p->i += 4;
            if (cp < 0x80) {
                buf[len++] = (char)cp;
            } else if (cp < 0x800) {
                buf[len++] = (char)(0xc0 | cp >> 6);
                buf[len++] = (char)(0x80 | (cp & 0x3f));
            } else {
                buf[len++] = (char)(0xe0 | cp >> 12);
                buf[len++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                buf[len++] = (char)(0x80 | (cp & 0x3f));
            }
        } else {
            free(buf);
            return perr(p, "bad escape in a string");
        }
    }
    if (p->i >= p->n) {
        free(buf);
        return perr(p, "unterminated string");
    }
    p->i++;
    buf[len] = 0;
    *out = buf;
    return CUZK_OK;
}

static cuzk_err push(parser *p, json_value *v, json_value *item, char *key, size_t *cap)
{
    if (v->n == *cap) {
        size_t nc = *cap ? 2 * *cap : 4;
        json_value *ni = realloc(v->items, nc * sizeof *ni);
        if (!ni)
            return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", p->name);
        v->items = ni;
        if (v->type == JSON_OBJECT) {
            char **nk = realloc(v->keys, nc * sizeof *nk);
            if (!nk)
                return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", p->name);
            v->keys = nk;
        }
        *cap = nc;
    }
    v->items[v->n] = *item;
    if (v->type == JSON_OBJECT)
        v->keys[v->n] = key;
    v->n++;
    return CUZK_OK;
}

static cuzk_err parse_container(parser *p, json_value *v, int depth)
{
    int obj = p->s[p->i] == '{';
    char close = obj ? '}' : ']';
    v->type = obj ? JSON_OBJECT : JSON_ARRAY;
    p->i++;
    size_t cap = 0;
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == close) {
        p->i++;
        return CUZK_OK;
    }
    for (;;) {
        char *key = NULL;
        skip_ws(p);
        if (obj) {
            if (p->i >= p->n || p->s[p->i] != '"')
                return perr(p, "expected a key");
            CUZK_TRY(parse_string(p, &key));
            skip_ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') {
                free(key);
                return perr(p, "expected ':'");
            }
            p->i++;
        }
        json_value item;
        cuzk_err e = parse_value(p, &item, depth + 1);
        if (!e && (e = push(p, v, &item, key, &cap)))
            json_free(&item);
        if (e) {
            free(key);
            return e;
        }
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == close) {
            p->i++;
            return CUZK_OK;
        }
        return perr(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static cuzk_err parse_value(parser *p, json_value *v, int depth)
{
    memset(v, 0, sizeof *v);
    if (depth > MAX_DEPTH)
        return perr(p, "nested too deeply");
    skip_ws(p);
    if (p->i >= p->n)
        return perr(p, "unexpected end");
    char c = p->s[p->i];
    if (c == '{' || c == '[') {
        cuzk_err e = parse_container(p, v, depth);
        if (e)
            json_free(v);
        return e;
    }
    if (c == '"') {
        v->type = JSON_STRING;
        return parse_string(p, &v->text);
    }
    static const struct {
        const char *word;
        json_type t;
    } words[] = {{"true", JSON_TRUE}, {"false", JSON_FALSE}, {"null", JSON_NULL}};
    for (size_t k = 0; k < 3; k++) {
        size_t len = strlen(words[k].word);
        if (p->n - p->i >= len && !memcmp(p->s + p->i, words[k].word, len)) {
            p->i += len;
            v->type = words[k].t;
            return CUZK_OK;
        }
    }
    size_t start = p->i;
    if (p->s[p->i] == '-')
        p->i++;
    while (p->i < p->n && strchr("0123456789.eE+-", p->s[p->i]) && p->s[p->i])
        p->i++;
    if (p->i == start || (p->i == start + 1 && p->s[start] == '-'))
        return perr(p, "unexpected character");
    v->type = JSON_NUMBER;
    v->text = malloc(p->i - start + 1);
    if (!v->text)
        return cuzk_fail(CUZK_ENOMEM, "%s: out of memory", p->name);
    memcpy(v->text, p->s + start, p->i - start);
    v->text[p->i - start] = 0;
    return CUZK_OK;
}

cuzk_err json_parse(const char *text, size_t n, const char *name, json_value *out)
{
    parser p = {text, n, 0, name};
    CUZK_TRY(parse_value(&p, out, 0));
    skip_ws(&p);
    if (p.i != n) {
        json_free(out);
        return perr(&p, "text after the value");
    }
    return CUZK_OK;
}

cuzk_err json_read_file(const char *path, json_value *out)
{
    uint8_t *data;
    size_t size;
    CUZK_TRY(cuzk_read_file(path, &data, &size));
    cuzk_err e = json_parse((const char *)data, size, path, out);
    free(data);
    return e;
}

void json_free(json_value *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        json_free(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
    memset(v, 0, sizeof *v);
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return &obj->items[i];
    return NULL;
}
