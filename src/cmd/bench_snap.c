/* cuzk-bench snap: a Filecoin SnapDeals (EmptySectorUpdate) proof in memory,
 * by phase, and sustained through the engine.
 *
 *   cuzk-bench snap --update-proof N [--backend B] [--setup-backend B]
 *                   [--seed S] [--partitions K] [--jobs J]
 *                   [--synthesis-workers W] [--budget auto|NGiB] [--witness-only]
 *                   [--host-spmv]
 *
 * 1. The partition circuit's constraint system (recorded whole), its
 *    parameters by a setup into memory, and a synthetic update of the
 *    proof's sector size (gen.h cuzk_gen_snap) encoded as the bincode
 *    PartitionProofs Curio sends.
 * 2. One request by phase, partition after partition: decode and
 *    vanilla-verify, witness (challenges on all cores), SpMV, the backend's
 *    H and MSMs, verify (--witness-only: the witnesses alone).
 * 3. With --jobs J: J SNAP_DEALS_UPDATE requests sustained through the
 *    engine, as cuzk-bench porep does. */
#include "cmd/bench.h"
#include "cuzk/fc_circuit.h"
#include "cuzk/gen.h"
#include "cuzk/groth16.h"
#include "cuzk/mem.h"
#include "cuzk/snap.h"
#include "cuzk/threads.h"
#include "cuzk/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB (1024.0 * 1024.0 * 1024.0)

typedef struct {
    uint8_t **bytes;
    size_t *sizes, n, total;
} encoded;

static void encoded_free(encoded *x)
{
    for (size_t i = 0; i < x->n; i++)
        free(x->bytes[i]);
    free(x->bytes);
    free(x->sizes);
    memset(x, 0, sizeof *x);
}

/* Section 2. */
static cuzk_err by_phase(const cuzk_snap_update *u, const encoded *x, unsigned parts,
                         cuzk_backend *be, const cuzk_params *params, const cuzk_pce *pce)
{
    const cuzk_snap_config *c = &u->config;
    double t0 = cuzk_now(), sum_w = 0, sum_dev = 0;
    cuzk_err e = CUZK_OK;
    for (unsigned k = 0; k < parts && !e; k++) {
        double t1 = cuzk_now(), td = 0, tw = 0, tv = 0;
        cuzk_snap_partition_proof p;
        cuzk_snap_values v;
        cuzk_fr *w = NULL;
        size_t nw = 0;
        cuzk_proof proof;
        cuzk_prove_timings tm;
        memset(&tm, 0, sizeof tm);
        memset(&v, 0, sizeof v);
        if ((e = cuzk_snap_partition_proof_decode(x->bytes[k], x->sizes[k], "partition", &p)))
            break;
        if (!(e = cuzk_snap_verify(c, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new, &p)))
            e = cuzk_snap_values_of(c, k, &u->comm_r_old, &u->comm_d_new, &u->comm_r_new, &p, &v);
        td = cuzk_now() - t1;
        double t2 = cuzk_now();
        if (!e && !(e = cuzk_snap_witness(c, &v, &w, &nw))) {
            tw = cuzk_now() - t2;
            if (params)
                e = cuzk_groth16_prove(be, params, pce, w, NULL, NULL, &proof, &tm);
        }
        if (!e && params) {
            double t3 = cuzk_now();
            e = cuzk_groth16_verify(&params->vk, w + 1, pce->n_inputs - 1, &proof);
            tv = cuzk_now() - t3;
        }
        double dev = tm.dev_h_copy + tm.dev_h_kernel + tm.dev_msm_copy + tm.dev_msm_kernel;
        if (!e)
            printf("partition k=%u decode_verify_s=%.3f witness_s=%.3f spmv_s=%.3f h_s=%.3f "
                   "msm_s=%.3f device_s=%.3f verify_s=%.3f total_s=%.3f\n",
                   k, td, tw, tm.spmv, tm.h,
                   tm.msm_h + tm.msm_l + tm.msm_a + tm.msm_b_g1 + tm.msm_b_g2, dev, tv,
                   cuzk_now() - t1);
        fflush(stdout);
        sum_w += tw, sum_dev += dev;
        free(w);
        cuzk_snap_values_free(&v);
        cuzk_snap_partition_proof_free(&p);
    }
    if (!e)
        printf(
            "single partitions=%u proofs_verified=%u latency_s=%.2f witness_s_per_partition=%.3f "
            "device_s_per_partition=%.3f peak_rss_gib=%.1f\n",
            parts, params ? parts : 0, cuzk_now() - t0, sum_w / parts, sum_dev / parts,
            (double)cuzk_peak_rss() / GIB);
    return e;
}

int bench_snap(int argc, char **argv)
{
    const cuzk_fc_proof *fp;
    bench_fc_opts fo;
    cuzk_backend *be = NULL;
    int rc = bench_fc_start(argc, argv, "snap", CUZK_FC_UPDATE, "--update-proof", &fp, &fo, &be);
    if (rc)
        return rc;
    int witness_only = bench_flag(argc, argv, "--witness-only");
    cuzk_err e;
    cuzk_pce *pce = NULL;
    cuzk_params params;
    memset(&params, 0, sizeof params);
    cuzk_snap_update u;
    memset(&u, 0, sizeof u);
    encoded x = {0};
    double t = cuzk_now();
    if (!witness_only) {
        if ((e = cuzk_fc_record_pce(fp, NULL, NULL, &pce))) {
            rc = bench_die("snap: constraint system", e);
            goto out;
        }
        if ((e = bench_setup_memory(pce, cuzk_now() - t, fo.setup_backend, be, &params))) {
            rc = bench_die("snap: setup", e);
            goto out;
        }
    }
    t = cuzk_now();
    if ((e = cuzk_gen_snap(fp->sector_size, fo.seed, &u))) {
        rc = bench_die("snap: update", e);
        goto out;
    }
    x.bytes = calloc(u.config.partitions, sizeof *x.bytes);
    x.sizes = calloc(u.config.partitions, sizeof *x.sizes);
    if (!x.bytes || !x.sizes)
        e = cuzk_fail(CUZK_ENOMEM, "out of memory");
    for (unsigned k = 0; k < u.config.partitions && !e; k++, x.n++) {
        e = cuzk_snap_partition_proof_encode(&u.partitions[k], &x.bytes[k], &x.sizes[k]);
        x.total += e ? 0 : x.sizes[k];
    }
    if (e) {
        rc = bench_die("snap: update", e);
        goto out;
    }
    printf("update partitions=%u vanilla_bytes=%zu gen_s=%.2f\n", u.config.partitions, x.total,
           cuzk_now() - t);
    fflush(stdout);
    if ((e = by_phase(&u, &x, fo.partitions, be, witness_only ? NULL : &params, pce))) {
        rc = bench_die("snap: single", e);
        goto out;
    }
    cuzk_backend_close(be); /* the engine opens its own */
    be = NULL;
    uint8_t com[3][32];
    cuzk_fr_to_bytes_le(com[0], &u.comm_r_old);
    cuzk_fr_to_bytes_le(com[1], &u.comm_d_new);
    cuzk_fr_to_bytes_le(com[2], &u.comm_r_new);
    cuzk_job_request q = {.kind = CUZK_KIND_SNAP_DEALS_UPDATE,
                          .registered_proof = fp->number,
                          .vanilla_proofs = (const uint8_t *const *)x.bytes,
                          .vanilla_sizes = x.sizes,
                          .n_vanilla = x.n,
                          .comm_r_old = com[0],
                          .comm_d_new = com[1],
                          .comm_r_new = com[2],
                          .comm_r_old_len = 32,
                          .comm_d_new_len = 32,
                          .comm_r_new_len = 32};
    if (fo.jobs && !witness_only && (e = bench_sustained(fp, &q, x.total, &fo, &params, &pce)))
        rc = bench_die("snap: sustained", e);
out:
    encoded_free(&x);
    cuzk_snap_update_free(&u);
    cuzk_params_free(&params);
    cuzk_pce_free(pce);
    cuzk_backend_close(be);
    return rc;
}
