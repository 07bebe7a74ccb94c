/* GPU discovery and the cuzk_gpu handle: how many devices, a one-line
 * description of each, opening a device (stream + events), CUDA errors
 * turned into cuzk_err messages, and the event timing every operation
 * reports. The operations themselves live in ntt.cu and msm.cu. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu_internal.h"

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

cuzk_err gpu_fail(cudaError_t e, const char *what)
{
    cudaGetLastError(); /* clear a non-sticky error so the handle stays usable */
    if (e == cudaErrorMemoryAllocation)
        return cuzk_fail(CUZK_ENOMEM, "GPU out of memory: %s", what);
    return cuzk_fail(CUZK_EINTERNAL, "GPU: %s: %s", what, cudaGetErrorString(e));
}

cuzk_err gpu_alloc(void **p, size_t bytes, const char *what)
{
    *p = NULL;
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 1);
    if (e == cudaSuccess)
        return CUZK_OK;
    cudaGetLastError();
    *p = NULL;
    size_t free_b = 0, total_b = 0;
    cudaMemGetInfo(&free_b, &total_b);
    if (e == cudaErrorMemoryAllocation)
        return cuzk_fail(CUZK_ENOMEM,
                         "GPU out of memory: %s needs %.1f MiB, %.1f MiB free of %.1f MiB", what,
                         bytes / 1048576.0, free_b / 1048576.0, total_b / 1048576.0);
    return cuzk_fail(CUZK_EINTERNAL, "GPU: allocating %s: %s", what, cudaGetErrorString(e));
}

extern "C" cuzk_err cuzk_gpu_open(int ordinal, cuzk_gpu **out)
{
    *out = NULL;
    if (ordinal < 0 || ordinal >= cuzk_gpu_count())
        return cuzk_fail(CUZK_EUNSUPPORTED, "GPU %d: no such CUDA device (%d visible)", ordinal,
                         cuzk_gpu_count());
    GPU_TRY(cudaSetDevice(ordinal), "select device");
    cuzk_gpu *g = (cuzk_gpu *)calloc(1, sizeof *g);
    if (!g)
        return cuzk_fail(CUZK_ENOMEM, "GPU handle: out of host memory");
    g->ordinal = ordinal;
    cudaError_t e = cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking);
    for (int i = 0; e == cudaSuccess && i < 4; i++)
        e = cudaEventCreate(&g->ev[i]);
    if (e != cudaSuccess) {
        cuzk_gpu_close(g);
        return gpu_fail(e, "create stream and events");
    }
    *out = g;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_close(cuzk_gpu *g)
{
    if (!g)
        return;
    cudaSetDevice(g->ordinal);
    cuzk_gpu_msm_forget(g);
    gpu_ntt_free(g);
    for (int i = 0; i < 4; i++)
        if (g->ev[i])
            cudaEventDestroy(g->ev[i]);
    if (g->stream)
        cudaStreamDestroy(g->stream);
    free(g);
}

void gpu_times_begin(cuzk_gpu *g)
{
    cudaEventRecord(g->ev[0], g->stream);
    cudaEventRecord(g->ev[1], g->stream);
    cudaEventRecord(g->ev[2], g->stream);
}

void gpu_times_mark(cuzk_gpu *g, int phase)
{
    cudaEventRecord(g->ev[phase], g->stream);
    if (phase == 1)
        cudaEventRecord(g->ev[2], g->stream);
}

cuzk_err gpu_times_end(cuzk_gpu *g)
{
    cudaEventRecord(g->ev[3], g->stream);
    GPU_TRY(cudaEventSynchronize(g->ev[3]), "device work");
    GPU_TRY(cudaGetLastError(), "kernel launch");
    float a = 0, b = 0, c = 0;
    cudaEventElapsedTime(&a, g->ev[0], g->ev[1]);
    cudaEventElapsedTime(&b, g->ev[1], g->ev[2]);
    cudaEventElapsedTime(&c, g->ev[2], g->ev[3]);
    g->last.h2d_ms = a;
    g->last.kernel_ms = b;
    g->last.d2h_ms = c;
    return CUZK_OK;
}

extern "C" void cuzk_gpu_last_times(const cuzk_gpu *g, cuzk_gpu_times *t)
{
    *t = g->last;
}
