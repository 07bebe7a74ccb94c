/* The CUDA side of cuzk as seen from C. Declared always; defined only when
 * the build has CUDA (CUZK_HAVE_CUDA). Callers check cuzk_gpu_available(). */
#ifndef CUZK_GPU_H
#define CUZK_GPU_H

#include <stddef.h>

#include "cuzk/err.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of CUDA devices visible (0 when none or no driver). */
int cuzk_gpu_count(void);
/* One line describing device `ordinal`: name, compute capability, memory. */
cuzk_err cuzk_gpu_describe(int ordinal, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
