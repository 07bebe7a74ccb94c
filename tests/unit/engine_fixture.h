/* Shared set-up of the engine tests: a scratch parameter folder holding one
 * GENERIC_R1CS circuit ("gen": a synthetic circuit written as .pce, .params
 * and .vk files) and witness images for it, plus request builders and a
 * proof checker that verifies a job's result against the circuit's VK. */
#ifndef CUZK_TEST_ENGINE_FIXTURE_H
#define CUZK_TEST_ENGINE_FIXTURE_H

#include "check.h"
#include "cuzk/backend.h"
#include "cuzk/groth16.h"
#include "cuzk/jobs.h"
#include "cuzk/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    char dir[512];
    uint8_t *wit; /* a valid witness image of "gen" */
    size_t wit_size;
    uint8_t *bad_wit; /* the same with one aux value changed: unsatisfied */
    cuzk_srs_manager *srs;
} fixture;

#define GEN_CONSTRAINTS 512
#define GEN_PUBLIC 2

static inline uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

static inline int fixture_open(fixture *fx, const char *name)
{
    memset(fx, 0, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "%s/%s_%ld", check_tmpdir(), name, (long)getpid());
    char cmd[1200], path[1024], p2[1024], p3[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", fx->dir, fx->dir);
    if (system(cmd) != 0)
        return 0;
    cuzk_synth_params sp = {GEN_CONSTRAINTS, GEN_PUBLIC, 77};
    cuzk_r1cs *cs = NULL;
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_synth_build(&sp, 1, &cs));
    CHECK_OK(cuzk_pce_from_r1cs(&pce, cs));
    snprintf(path, sizeof path, "%s/gen.pce", fx->dir);
    snprintf(p2, sizeof p2, "%s/gen.params", fx->dir);
    snprintf(p3, sizeof p3, "%s/gen.vk", fx->dir);
    CHECK_OK(cuzk_pce_write(pce, path));
    CHECK_OK(cuzk_groth16_setup(pce, p2, p3, NULL, NULL));
    const cuzk_fr *w = cuzk_r1cs_assignment(cs);
    snprintf(path, sizeof path, "%s/gen.wit", fx->dir);
    CHECK_OK(cuzk_witness_write(path, w, cuzk_r1cs_num_inputs(cs), cuzk_r1cs_num_aux(cs)));
    fx->wit = read_all(path, &fx->wit_size);
    /* An unsatisfied witness: the last aux value plus one. */
    cuzk_fr *bad = malloc((cuzk_r1cs_num_inputs(cs) + cuzk_r1cs_num_aux(cs)) * sizeof *bad);
    size_t nv = cuzk_r1cs_num_inputs(cs) + cuzk_r1cs_num_aux(cs);
    memcpy(bad, w, nv * sizeof *bad);
    cuzk_fr one;
    cuzk_fr_one(&one);
    blst_fr_add(&bad[nv - 1], &bad[nv - 1], &one);
    snprintf(path, sizeof path, "%s/bad.wit", fx->dir);
    CHECK_OK(cuzk_witness_write(path, bad, cuzk_r1cs_num_inputs(cs), cuzk_r1cs_num_aux(cs)));
    size_t bs;
    fx->bad_wit = read_all(path, &bs);
    free(bad);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(cs);
    CHECK_OK(cuzk_srs_manager_new(fx->dir, 0, &fx->srs));
    return fx->wit && fx->bad_wit && bs == fx->wit_size;
}

static inline void fixture_close(fixture *fx)
{
    cuzk_srs_manager_free(fx->srs);
    free(fx->wit);
    free(fx->bad_wit);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", fx->dir);
}

/* An engine on the CPU backend over the parameter folder dir: one prove
 * worker, two synthesis workers, proofs verified, small queue limits. */
static inline cuzk_jobs_config cpu_engine_cfg_in(const char *dir)
{
    cuzk_jobs_config cfg = {.workers = 1,
                            .backend = "cpu",
                            .verify_proofs = 1,
                            .param_dir = dir,
                            .retain = 16,
                            .max_queued = 16,
                            .max_queued_bytes = 1 << 20,
                            .max_synthetic = 1 << 16,
                            .synthesis_workers = 2};
    return cfg;
}

/* The same over the fixture's folder. */
static inline cuzk_jobs_config cpu_engine_cfg(const fixture *fx)
{
    return cpu_engine_cfg_in(fx->dir);
}

static inline cuzk_job_request synth_req(uint64_t n, uint32_t pub, uint64_t seed, uint32_t parts,
                                         int prio)
{
    cuzk_job_request r;
    memset(&r, 0, sizeof r);
    r.kind = CUZK_KIND_SYNTHETIC;
    r.priority = prio;
    r.synthetic_constraints = n;
    r.synthetic_public_inputs = pub;
    r.synthetic_seed = seed;
    r.synthetic_partitions = parts;
    return r;
}

/* A GENERIC_R1CS request for "gen" with `parts` copies of one witness. */
static inline cuzk_job_request gen_req(const uint8_t *const *wits, const size_t *sizes,
                                       size_t parts, int prio)
{
    cuzk_job_request r;
    memset(&r, 0, sizeof r);
    r.kind = CUZK_KIND_GENERIC_R1CS;
    r.priority = prio;
    r.circuit_id = "gen";
    r.witnesses = wits;
    r.witness_sizes = sizes;
    r.n_witnesses = parts;
    return r;
}

/* The CPU prover's host scratch for a proof of that circuit: part of a
 * partition's working set under a memory budget. */
static inline uint64_t prover_scratch(const cuzk_pce *pce)
{
    cuzk_backend *be = NULL;
    if (cuzk_backend_open("cpu", &be) != CUZK_OK)
        return 0;
    uint64_t s = cuzk_backend_host_scratch(be, pce->log_domain, pce->n_inputs + pce->n_aux);
    cuzk_backend_close(be);
    return s;
}

/* 1 when every partition proof of a COMPLETED result verifies with the
 * circuit's .vk against the public inputs the result returns. */
static inline int result_verifies(const char *dir, const cuzk_job_result *res)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.vk", dir, res->circuit_id);
    cuzk_vk vk;
    if (cuzk_vk_read(path, &vk) != CUZK_OK)
        return 0;
    int ok = res->n_partitions > 0 && res->proof_size == res->n_partitions * CUZK_PROOF_BYTES;
    size_t per = res->inputs_per_partition;
    cuzk_fr *in = malloc((per + 1) * sizeof *in);
    for (size_t p = 0; ok && p < res->n_partitions; p++) {
        cuzk_proof pr;
        ok = cuzk_proof_decode(&pr, res->proof + p * CUZK_PROOF_BYTES) == CUZK_OK;
        for (size_t i = 0; ok && i < per; i++)
            ok = cuzk_fr_from_bytes_le(&in[i], res->public_inputs + (p * per + i) * 32) == CUZK_OK;
        ok = ok && cuzk_groth16_verify(&vk, in, per, &pr) == CUZK_OK;
    }
    free(in);
    cuzk_vk_free(&vk);
    return ok;
}

#endif
