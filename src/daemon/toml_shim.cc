// A C shim around toml11 (Debian's libtoml11-dev, a maintained TOML 1.0
// parser that only has a C++ API): parse a file, flatten its tables into
// dotted keys with typed values and line numbers, and hand the list to C.
// This is the only C++ in cuzk; everything that interprets the keys is C
// (config.c). No exception crosses into C.
#include "daemon/toml_shim.h"

#include <toml.hpp>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace
{

char *dup(const std::string &s)
{
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p)
        std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

void flatten(const toml::value &v, const std::string &prefix, std::vector<cuzk_toml_item> &out)
{
    if (v.is_table()) {
        for (const auto &kv : v.as_table())
            flatten(kv.second, prefix.empty() ? kv.first : prefix + "." + kv.first, out);
        return;
    }
    cuzk_toml_item it;
    std::memset(&it, 0, sizeof it);
    it.key = dup(prefix);
    it.line = static_cast<unsigned>(v.location().line());
    if (v.is_boolean()) {
        it.type = CUZK_TOML_BOOL;
        it.b = v.as_boolean() ? 1 : 0;
    } else if (v.is_integer()) {
        it.type = CUZK_TOML_INT;
        it.i = static_cast<int64_t>(v.as_integer());
    } else if (v.is_floating()) {
        it.type = CUZK_TOML_FLOAT;
        it.f = v.as_floating();
    } else if (v.is_string()) {
        it.type = CUZK_TOML_STRING;
        it.s = dup(v.as_string().str);
    } else if (v.is_array()) {
        const auto &a = v.as_array();
        it.type = CUZK_TOML_ARRAY;
        it.n_items = a.size();
        it.items = static_cast<char **>(std::calloc(a.size() + 1, sizeof(char *)));
        it.item_is_int = static_cast<int *>(std::calloc(a.size() + 1, sizeof(int)));
        for (size_t i = 0; i < a.size(); i++) {
            if (a[i].is_string()) {
                it.items[i] = dup(a[i].as_string().str);
            } else if (a[i].is_integer()) {
                it.items[i] = dup(std::to_string(a[i].as_integer()));
                it.item_is_int[i] = 1;
            } else {
                it.type = CUZK_TOML_OTHER;
                it.items[i] = dup("");
            }
        }
    } else {
        it.type = CUZK_TOML_OTHER;
    }
    out.push_back(it);
}

} // namespace

extern "C" int cuzk_toml_parse_flat(const char *path, cuzk_toml_item **items, size_t *n, char *err,
                                    size_t errcap)
{
    *items = nullptr;
    *n = 0;
    try {
        const toml::value root = toml::parse(std::string(path));
        std::vector<cuzk_toml_item> flat;
        flatten(root, "", flat);
        auto *arr =
            static_cast<cuzk_toml_item *>(std::calloc(flat.size() + 1, sizeof(cuzk_toml_item)));
        if (!arr) {
            cuzk_toml_items_free(flat.data(), flat.size());
            std::snprintf(err, errcap, "%s: out of memory", path);
            return -1;
        }
        std::memcpy(arr, flat.data(), flat.size() * sizeof(cuzk_toml_item));
        *items = arr;
        *n = flat.size();
        return 0;
    } catch (const std::exception &e) {
        // toml11's messages span several lines (with a source excerpt); keep
        // them whole but on one line for the log.
        std::string m = e.what();
        for (auto &ch : m)
            if (ch == '\n')
                ch = ' ';
        std::snprintf(err, errcap, "%s", m.c_str());
        return -1;
    }
}

extern "C" void cuzk_toml_items_free(cuzk_toml_item *items, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        std::free(items[i].key);
        std::free(items[i].s);
        for (size_t k = 0; k < items[i].n_items; k++)
            std::free(items[i].items[k]);
        std::free(items[i].items);
        std::free(items[i].item_is_int);
    }
}
