/* Backend selection by name. "auto" prefers CUDA when this build has it and a
 * GPU is visible, else the CPU; "cuda" is refused with a clear message when
 * it is not available rather than silently running on the CPU. A device is
 * named either as "cuda:N" or through cuzk_backend_open_on's ordinal, so
 * every place that takes a backend name (CLI flags, the daemon's config)
 * can also pick the GPU. */
#include "backend_internal.h"
#include "cuzk/gpu.h"

#include <stdlib.h>
#include <string.h>

#define MAX_ORDINAL 1023

cuzk_err cuzk_backend_open_on(const char *name, int ordinal, cuzk_backend **out)
{
    *out = NULL;
    if (ordinal < 0 || ordinal > MAX_ORDINAL)
        return cuzk_fail(CUZK_EINVAL, "GPU ordinal %d outside 0..%d", ordinal, MAX_ORDINAL);
    if (!name || !strcmp(name, "cpu"))
        return cuzk_backend_cpu_open(out);
    if (!strcmp(name, "auto")) {
#ifdef CUZK_HAVE_CUDA
        if (cuzk_gpu_count() > ordinal && cuzk_backend_cuda_open(ordinal, out) == CUZK_OK)
            return CUZK_OK;
#endif
        return cuzk_backend_cpu_open(out);
    }
    if (!strcmp(name, "cuda"))
        return cuzk_backend_cuda_open(ordinal, out);
    return cuzk_fail(CUZK_EINVAL, "unknown backend \"%s\" (expected cpu, cuda, cuda:N or auto)",
                     name);
}

cuzk_err cuzk_backend_open(const char *name, cuzk_backend **out)
{
    *out = NULL;
    if (name && !strncmp(name, "cuda:", 5)) {
        const char *d = name + 5;
        char *end;
        long v = strtol(d, &end, 10);
        if (*d < '0' || *d > '9' || *end || v > MAX_ORDINAL)
            return cuzk_fail(CUZK_EINVAL,
                             "backend \"%s\": expected cuda:N with N a GPU ordinal 0..%d", name,
                             MAX_ORDINAL);
        return cuzk_backend_open_on("cuda", (int)v, out);
    }
    return cuzk_backend_open_on(name, 0, out);
}

void cuzk_backend_close(cuzk_backend *be)
{
    if (be)
        be->ops->close(be);
}

const char *cuzk_backend_name(const cuzk_backend *be)
{
    return be->ops->name;
}

size_t cuzk_backend_pinned_bytes(void)
{
#ifdef CUZK_HAVE_CUDA
    return cuzk_gpu_pinned_bytes();
#else
    return 0;
#endif
}

cuzk_err cuzk_backend_host_alloc(size_t bytes, void **out, int *pinned)
{
    *pinned = 0;
#ifdef CUZK_HAVE_CUDA
    if (cuzk_gpu_count() > 0 && cuzk_gpu_host_alloc(out, bytes) == CUZK_OK) {
        *pinned = 1;
        return CUZK_OK;
    }
#endif
    *out = malloc(bytes ? bytes : 1);
    if (!*out)
        return cuzk_fail(CUZK_ENOMEM, "out of memory allocating %zu bytes", bytes);
    return CUZK_OK;
}

void cuzk_backend_host_free(void *p, int pinned)
{
#ifdef CUZK_HAVE_CUDA
    if (pinned) {
        cuzk_gpu_host_free(p);
        return;
    }
#endif
    (void)pinned;
    free(p);
}

int cuzk_backend_gpus(void)
{
#ifdef CUZK_HAVE_CUDA
    return cuzk_gpu_count();
#else
    return 0;
#endif
}

cuzk_err cuzk_backend_device_mem(int ordinal, size_t *free_bytes, size_t *total_bytes)
{
    *free_bytes = *total_bytes = 0;
#ifdef CUZK_HAVE_CUDA
    return cuzk_gpu_device_mem(ordinal, free_bytes, total_bytes);
#else
    (void)ordinal;
    return cuzk_fail(CUZK_EUNSUPPORTED, "this build has no CUDA support");
#endif
}

int cuzk_backend_device_spmv(const cuzk_backend *be)
{
    return be->ops->compute_h_pce != NULL;
}

void cuzk_backend_packed_drop(cuzk_backend *be)
{
    if (be->ops->packed_drop)
        be->ops->packed_drop(be);
}

void cuzk_backend_trim(cuzk_backend *be)
{
    if (be->ops->trim)
        be->ops->trim(be);
}

int cuzk_backend_device(const cuzk_backend *be)
{
    return be->ops->device ? be->ops->device(be) : -1;
}

uint64_t cuzk_backend_host_scratch(const cuzk_backend *be, unsigned log_m, size_t n_vars)
{
    if (cuzk_backend_device(be) >= 0)
        return 0;
    size_t m = (size_t)1 << log_m, g1_n = m > n_vars ? m : n_vars; /* H, or A and B_G1 */
    uint64_t s = cuzk_msm_scratch_bytes(g1_n, 0), s2 = cuzk_msm_scratch_bytes(n_vars, 1);
    uint64_t h = (uint64_t)m * sizeof(cuzk_fr);
    s = s > s2 ? s : s2;
    return s > h ? s : h;
}
