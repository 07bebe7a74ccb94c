/* GPU discovery for the CUDA build: how many devices, and a one-line
 * description of each (name, compute capability, memory). The CUDA backend
 * (NTT, MSM) builds on this file's conventions: extern "C" entry points that
 * return cuzk_err, CUDA errors turned into messages. */
#include <cuda_runtime.h>
#include <stdio.h>

#include "cuzk/gpu.h"

extern "C" int cuzk_gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" cuzk_err cuzk_gpu_describe(int ordinal, char *buf, size_t cap)
{
    cudaDeviceProp p;
    cudaError_t e = cudaGetDeviceProperties(&p, ordinal);
    if (e != cudaSuccess)
        return cuzk_fail(CUZK_EINVAL, "GPU %d: %s", ordinal, cudaGetErrorString(e));
    size_t free_b = 0, total_b = 0;
    if (cudaSetDevice(ordinal) == cudaSuccess)
        cudaMemGetInfo(&free_b, &total_b);
    snprintf(buf, cap, "gpu=%d name=\"%s\" sm=%d%d sms=%d mem_total=%zu mem_free=%zu", ordinal,
             p.name, p.major, p.minor, p.multiProcessorCount, (size_t)p.totalGlobalMem, free_b);
    return CUZK_OK;
}
