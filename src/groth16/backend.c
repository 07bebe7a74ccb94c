/* Backend selection by name. "auto" prefers CUDA when this build has it and a
 * GPU is visible, else the CPU; "cuda" is refused with a clear message when
 * it is not available rather than silently running on the CPU. */
#include "backend_internal.h"
#include "cuzk/gpu.h"

#include <string.h>

cuzk_err cuzk_backend_open(const char *name, cuzk_backend **out)
{
    *out = NULL;
    if (!name || !strcmp(name, "cpu"))
        return cuzk_backend_cpu_open(out);
    if (!strcmp(name, "auto")) {
#ifdef CUZK_HAVE_CUDA
        if (cuzk_gpu_count() > 0 && cuzk_backend_cuda_open(out) == CUZK_OK)
            return CUZK_OK;
#endif
        return cuzk_backend_cpu_open(out);
    }
    if (!strcmp(name, "cuda"))
        return cuzk_backend_cuda_open(out);
    return cuzk_fail(CUZK_EINVAL, "unknown backend \"%s\" (expected cpu, cuda or auto)", name);
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
