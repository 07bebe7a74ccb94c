/* What the daemon tells about itself: the /status JSON document and the
 * /metrics (and GetMetrics) Prometheus text, from the job engine, the SRS
 * manager and /proc. One place renders each, so the HTTP port and the gRPC
 * API can never disagree. */
#define _GNU_SOURCE
#include "daemon/daemon.h"

#include "cuzk/backend.h"
#include "cuzk/gpu.h"
#include "cuzk/mem.h"
#include "cuzk/util.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t cuzk_daemon_gpus(cuzk_daemon_gpu *out, size_t cap)
{
    size_t n = 0;
#ifdef CUZK_HAVE_CUDA
    int count = cuzk_gpu_count();
    for (int i = 0; i < count && n < cap; i++) {
        out[n].ordinal = i;
        if (cuzk_gpu_describe(i, out[n].name, sizeof out[n].name) != CUZK_OK)
            snprintf(out[n].name, sizeof out[n].name, "CUDA device %d", i);
        size_t free_b = 0, total_b = 0;
        cuzk_gpu_device_mem(i, &free_b, &total_b);
        out[n].vram_total_bytes = total_b;
        out[n].vram_free_bytes = free_b;
        n++;
    }
#else
    (void)out;
    (void)cap;
#endif
    return n;
}

/* A JSON string; ids and stage names are plain ASCII, but escape anyway. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(f, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(f, "\\u%04x", ch);
        else
            fputc(ch, f);
    }
    fputc('"', f);
}

static const char *tier_name(cuzk_srs_tier t)
{
    return t == CUZK_SRS_HOT ? "hot" : t == CUZK_SRS_WARM ? "warm" : "cold";
}

void cuzk_daemon_status_json(cuzk_daemon *d, FILE *f)
{
    cuzk_jobs_status js;
    cuzk_srs_info *srs = NULL;
    size_t n_srs = 0;
    cuzk_srs_totals tot;
    memset(&tot, 0, sizeof tot);
    if (cuzk_jobs_status_get(d->jobs, &js) != CUZK_OK) {
        fprintf(f, "{\"error\":\"out of memory\"}\n");
        return;
    }
    if (cuzk_srs_snapshot(d->srs, &srs, &n_srs, &tot) != CUZK_OK)
        n_srs = 0;
    fprintf(f, "{\"ready\":%s,\"draining\":%s,\"uptime_seconds\":%.0f,\"backend\":",
            atomic_load(&d->ready) ? "true" : "false", atomic_load(&d->draining) ? "true" : "false",
            cuzk_now() - d->t_start);
    json_str(f, d->backend);
    fprintf(f, ",\"node_name\":");
    json_str(f, d->cfg->node_name);
    fprintf(f,
            ",\"rss_bytes\":%llu,\"memory\":{\"budget_bytes\":%llu,\"used_bytes\":%llu,"
            "\"pinned_bytes\":%llu,\"pinned_budget_bytes\":%llu}",
            (unsigned long long)cuzk_mem_rss(), (unsigned long long)tot.budget_bytes,
            (unsigned long long)tot.used_bytes, (unsigned long long)cuzk_backend_pinned_bytes(),
            (unsigned long long)d->cfg->pinned_budget_bytes);
    fprintf(f,
            ",\"engine\":{\"memory_budget_bytes\":%llu,\"reserved_bytes\":%llu,"
            "\"reserved_peak_bytes\":%llu,\"allocated_bytes\":%llu,\"allocated_peak_bytes\":%llu,"
            "\"srs_bytes\":%llu,\"pooled_bytes\":%llu,\"rss_peak_bytes\":%llu,\"admitted\":%llu,"
            "\"admissions_refused\":%llu,\"taken_ahead\":%llu,\"ahead_given_back\":%llu,"
            "\"partitions\":{\"synthesis\":%u,\"ready\":%u,"
            "\"prove\":%u,\"finalize\":%u},\"devices\":[",
            (unsigned long long)js.mem.budget, (unsigned long long)js.mem.reserved,
            (unsigned long long)js.mem.peak_reserved, (unsigned long long)js.mem.allocated,
            (unsigned long long)js.mem.peak_allocated, (unsigned long long)js.srs_bytes,
            (unsigned long long)js.pooled_bytes, (unsigned long long)js.mem.peak_rss,
            (unsigned long long)js.mem.admissions, (unsigned long long)js.mem.refusals,
            (unsigned long long)js.taken_ahead, (unsigned long long)js.ahead_given_back,
            js.synthesizing, js.ready, js.proving, js.finalizing);
    for (size_t i = 0; i < js.n_devices; i++) {
        const cuzk_jobs_device *dv = &js.devices[i];
        fprintf(f,
                "%s{\"ordinal\":%d,\"healthy\":%s,\"workers\":%u,\"partitions\":%llu,"
                "\"busy_seconds\":%.3f,\"current_job\":",
                i ? "," : "", dv->ordinal, dv->healthy ? "true" : "false", dv->workers,
                (unsigned long long)dv->partitions, dv->busy_s);
        json_str(f, dv->current_job);
        fprintf(f, ",\"error\":");
        json_str(f, dv->error);
        fputc('}', f);
    }
    fprintf(f, "]}");
    fprintf(f, ",\"totals\":{\"completed\":%llu,\"failed\":%llu,\"cancelled\":%llu}",
            (unsigned long long)js.completed, (unsigned long long)js.failed,
            (unsigned long long)js.cancelled);
    fprintf(f, ",\"queues\":[");
    int first = 1;
    for (int k = 0; k < CUZK_JOBS_N_KINDS; k++) {
        if (!cuzk_kind_valid(js.kinds[k].kind))
            continue;
        fprintf(f, "%s{\"kind\":\"%s\",\"pending\":%u,\"in_progress\":%u}", first ? "" : ",",
                cuzk_kind_name(js.kinds[k].kind), js.kinds[k].pending, js.kinds[k].in_progress);
        first = 0;
    }
    fprintf(f, "],\"jobs\":[");
    for (size_t i = 0; i < js.n_jobs; i++) {
        const cuzk_job_info *ji = &js.jobs[i];
        fprintf(f, "%s{\"job_id\":", i ? "," : "");
        json_str(f, ji->job_id);
        fprintf(f,
                ",\"kind\":\"%s\",\"priority\":\"%s\",\"stage\":\"%s\",\"partitions\":%u,"
                "\"partitions_done\":%u,\"circuit_id\":",
                cuzk_kind_name(ji->kind), cuzk_priority_name(ji->priority), ji->stage,
                ji->partitions, ji->partitions_done);
        json_str(f, ji->circuit_id);
        fprintf(f, ",\"partition_stages\":[");
        for (uint32_t p = 0; p < ji->partitions; p++)
            fprintf(f, "%s\"%s\"", p ? "," : "", cuzk_part_stage_name(ji->part_stage[p]));
        fprintf(f, "],\"partition_devices\":[");
        for (uint32_t p = 0; p < ji->partitions; p++)
            fprintf(f, "%s%d", p ? "," : "", ji->part_device[p]);
        fprintf(f, "]}");
    }
    fprintf(f, "],\"srs\":[");
    for (size_t i = 0; i < n_srs; i++) {
        fprintf(f, "%s{\"circuit_id\":", i ? "," : "");
        json_str(f, srs[i].id);
        fprintf(f, ",\"tier\":\"%s\",\"loading\":%s,\"size_bytes\":%llu,\"ref_count\":%u}",
                tier_name(srs[i].tier), srs[i].loading ? "true" : "false",
                (unsigned long long)srs[i].size_bytes, srs[i].ref_count);
    }
    cuzk_daemon_gpu gpus[CUZK_DAEMON_MAX_GPUS];
    size_t n_gpus = cuzk_daemon_gpus(gpus, CUZK_DAEMON_MAX_GPUS);
    fprintf(f, "],\"gpus\":[");
    for (size_t i = 0; i < n_gpus; i++) {
        fprintf(f, "%s{\"ordinal\":%d,\"name\":", i ? "," : "", gpus[i].ordinal);
        json_str(f, gpus[i].name);
        fprintf(f, ",\"vram_total_bytes\":%llu,\"vram_free_bytes\":%llu}",
                (unsigned long long)gpus[i].vram_total_bytes,
                (unsigned long long)gpus[i].vram_free_bytes);
    }
    fprintf(f, "]}\n");
    free(srs);
    cuzk_jobs_status_free(&js);
}

void cuzk_daemon_metrics(cuzk_daemon *d, FILE *f)
{
    cuzk_jobs_metrics(d->jobs, f);
    cuzk_daemon_gpu gpus[CUZK_DAEMON_MAX_GPUS];
    size_t n_gpus = cuzk_daemon_gpus(gpus, CUZK_DAEMON_MAX_GPUS);
    fprintf(f, "# HELP cuzk_device_bytes Device memory in use on each GPU (all processes) and "
               "its size.\n"
               "# TYPE cuzk_device_bytes gauge\n"
               "# TYPE cuzk_device_total_bytes gauge\n");
    for (size_t i = 0; i < n_gpus; i++)
        fprintf(f, "cuzk_device_bytes{gpu=\"%d\"} %llu\ncuzk_device_total_bytes{gpu=\"%d\"} %llu\n",
                gpus[i].ordinal,
                (unsigned long long)(gpus[i].vram_total_bytes - gpus[i].vram_free_bytes),
                gpus[i].ordinal, (unsigned long long)gpus[i].vram_total_bytes);
    cuzk_srs_info *srs = NULL;
    size_t n = 0;
    cuzk_srs_totals t;
    memset(&t, 0, sizeof t);
    if (cuzk_srs_snapshot(d->srs, &srs, &n, &t) != CUZK_OK)
        n = 0;
    fprintf(f, "# HELP cuzk_srs_bytes Bytes of each known circuit's SRS by tier (hot = resident).\n"
               "# TYPE cuzk_srs_bytes gauge\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "cuzk_srs_bytes{circuit=\"%s\",tier=\"%s\"} %llu\n", srs[i].id,
                tier_name(srs[i].tier), (unsigned long long)srs[i].size_bytes);
    fprintf(f, "# HELP cuzk_srs_refs Jobs holding each circuit's SRS.\n"
               "# TYPE cuzk_srs_refs gauge\n");
    for (size_t i = 0; i < n; i++)
        fprintf(f, "cuzk_srs_refs{circuit=\"%s\"} %u\n", srs[i].id, srs[i].ref_count);
    free(srs);
    fprintf(f,
            "# HELP cuzk_srs_loads_total SRS loads, failed loads and evictions.\n"
            "# TYPE cuzk_srs_loads_total counter\n"
            "cuzk_srs_loads_total{result=\"ok\"} %llu\n"
            "cuzk_srs_loads_total{result=\"failed\"} %llu\n"
            "# TYPE cuzk_srs_evictions_total counter\n"
            "cuzk_srs_evictions_total %llu\n"
            "# HELP cuzk_srs_loaded_bytes_total Bytes of parameter files read by loads.\n"
            "# TYPE cuzk_srs_loaded_bytes_total counter\n"
            "cuzk_srs_loaded_bytes_total %llu\n"
            "# TYPE cuzk_srs_load_seconds_total counter\n"
            "cuzk_srs_load_seconds_total %.6f\n"
            "# HELP cuzk_memory_budget_bytes SRS memory budget (0 = none) and its use.\n"
            "# TYPE cuzk_memory_budget_bytes gauge\n"
            "cuzk_memory_budget_bytes %llu\n"
            "# TYPE cuzk_memory_used_bytes gauge\n"
            "cuzk_memory_used_bytes %llu\n"
            "# HELP cuzk_rss_bytes Resident set size of the daemon.\n"
            "# TYPE cuzk_rss_bytes gauge\n"
            "cuzk_rss_bytes %llu\n"
            "# HELP cuzk_pinned_bytes Pinned host memory (CUDA backend).\n"
            "# TYPE cuzk_pinned_bytes gauge\n"
            "cuzk_pinned_bytes %llu\n"
            "# TYPE cuzk_ready gauge\n"
            "cuzk_ready %d\n"
            "# TYPE cuzk_uptime_seconds gauge\n"
            "cuzk_uptime_seconds %.0f\n",
            (unsigned long long)t.loads, (unsigned long long)t.load_failures,
            (unsigned long long)t.evictions, (unsigned long long)t.bytes_loaded, t.load_seconds,
            (unsigned long long)t.budget_bytes, (unsigned long long)t.used_bytes,
            (unsigned long long)cuzk_mem_rss(), (unsigned long long)cuzk_backend_pinned_bytes(),
            atomic_load(&d->ready) && !atomic_load(&d->draining), cuzk_now() - d->t_start);
}
