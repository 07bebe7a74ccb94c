/* Backend selection by name. "auto" prefers CUDA when this build has it and a
 * GPU is visible; the CUDA proving operations land with the CUDA backend, so
 * until then a request for "cuda" is refused with a clear message rather
 * than silently running on the CPU. */
#include "backend_internal.h"
#include "cuzk/gpu.h"

#include <string.h>

cuzk_err cuzk_backend_open(const char *name, cuzk_backend **out)
{
    *out = NULL;
    if (!name || !strcmp(name, "cpu") || !strcmp(name, "auto"))
        return cuzk_backend_cpu_open(out);
    if (!strcmp(name, "cuda")) {
#ifdef CUZK_HAVE_CUDA
        if (cuzk_gpu_count() == 0)
            return cuzk_fail(CUZK_EUNSUPPORTED, "backend cuda: no CUDA device is visible");
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "backend cuda: GPU proving operations are not in this version yet; "
                         "use --backend cpu");
#else
        return cuzk_fail(CUZK_EUNSUPPORTED,
                         "backend cuda: this build has no CUDA support (nvcc was not found)");
#endif
    }
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
