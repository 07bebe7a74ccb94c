/* Constructors of the backends, for backend.c's selection logic only. */
#ifndef CUZK_BACKEND_INTERNAL_H
#define CUZK_BACKEND_INTERNAL_H

#include "cuzk/backend.h"

cuzk_err cuzk_backend_cpu_open(cuzk_backend **out);
/* CUDA device `ordinal`. EUNSUPPORTED without CUDA in the build, without a
 * visible GPU or without that device. */
cuzk_err cuzk_backend_cuda_open(int ordinal, cuzk_backend **out);

#endif
