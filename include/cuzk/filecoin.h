/* The Filecoin proof-type registry: every registered proof number Curio or
 * lotus can send (RegisteredSealProof 0..19, RegisteredPoStProof 0..14,
 * RegisteredUpdateProof 0..4) with its sector size, circuit shape,
 * challenge-index API version, our circuit id, and the v28 parameter files
 * of Filecoin's parameters.json (name and digest) its circuit proves with.
 *
 * The numbers are the chain's (go-state-types abi). Go's
 * StackedDrgWindow<size>V1_1 is rust-filecoin-proofs-api's
 * StackedDrgWindow<size>V1_2 (challenge-index API 1.2.0); the circuit, and so
 * the parameter file, is the same as V1's.
 *
 * The table is data (src/filecoin/registry.c); nothing here allocates.
 * cuzk_fc_file_digest (src/filecoin/param_digest.c) computes the digest of
 * a parameter file the way parameters.json states it. */
#ifndef CUZK_FILECOIN_H
#define CUZK_FILECOIN_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/progress.h"

typedef enum {
    CUZK_FC_SEAL = 0,    /* RegisteredSealProof: PoRep (C2) */
    CUZK_FC_WINNING = 1, /* RegisteredPoStProof 0..4 */
    CUZK_FC_WINDOW = 2,  /* RegisteredPoStProof 5..14 */
    CUZK_FC_UPDATE = 3,  /* RegisteredUpdateProof: SnapDeals */
} cuzk_fc_family;

/* Challenge-index API versions (rust-fil-proofs ApiVersion). */
typedef enum {
    CUZK_API_1_0_0 = 100,
    CUZK_API_1_1_0 = 110,
    CUZK_API_1_2_0 = 120,
} cuzk_fc_api;

typedef struct {
    cuzk_fc_family family;
    uint64_t number;      /* the registered proof number in its enum */
    const char *name;     /* Go's name, e.g. "StackedDrgWindow32GiBV1_1" */
    uint64_t sector_size; /* bytes */
    cuzk_fc_api api;      /* challenge-index API version */
    const char *feature;  /* "" or "synthetic-porep", "non-interactive-porep" */
    /* The circuit: partitions of a whole proof (PoSt: 1 per request), and
     * per partition its sectors and challenges as the circuit sees them
     * (Winning: 66 one-challenge sectors; PoRep and SnapDeals: 1 sector). */
    unsigned partitions, sectors, challenges;
    /* tree_r_last: base arity 8, base_levels levels, sub and top arity (0:
     * none). */
    unsigned base_levels, sub_arity, top_arity;
    const char *circuit_id; /* ours, e.g. "post-window-32g" */
    /* v28 file name without extension, and parameters.json's digests of the
     * .params and .vk files (first 16 bytes of BLAKE2b-512, hex). */
    const char *param_name, *params_digest, *vk_digest;
    int supported; /* cuzk proves it (else: listed, refused with a reason) */
} cuzk_fc_proof;

/* Every entry, in family then number order. */
const cuzk_fc_proof *cuzk_fc_proofs(size_t *n);
/* The entry of (family, number); NULL when none. For PoSt numbers use
 * cuzk_fc_post to get Winning vs Window from the number. */
const cuzk_fc_proof *cuzk_fc_find(cuzk_fc_family family, uint64_t number);
/* RegisteredPoStProof number -> its Winning or Window entry. */
const cuzk_fc_proof *cuzk_fc_post(uint64_t number);
/* The entry whose circuit_id is id (the first, for ids shared by several
 * numbers). */
const cuzk_fc_proof *cuzk_fc_by_circuit(const char *id);

/* The entry a request names: its family (from the request's proof kind),
 * registered proof number and, when non-zero, its sector size. EINVAL
 * naming both when they contradict (a 2 KiB proof with a 32 GiB sector
 * size), when the number is unknown, or when the proof kind cannot take
 * that number (a Winning number on a WindowPoSt request). */
cuzk_err cuzk_fc_resolve(cuzk_fc_family family, uint64_t registered_proof, uint64_t sector_size,
                         const cuzk_fc_proof **out);

/* "2KiB", "8MiB", "512MiB", "32GiB", "64GiB" (else the byte count). buf
 * must hold 24 bytes. */
const char *cuzk_fc_size_name(uint64_t sector_size, char buf[24]);
const char *cuzk_fc_family_name(cuzk_fc_family f);
/* "1.0.0", "1.1.0", "1.2.0" */
const char *cuzk_fc_api_name(cuzk_fc_api api);

/* parameters.json's digest of a file: the first 16 bytes of BLAKE2b-512 of
 * its content (params_digest and vk_digest above are these bytes in hex).
 * The file is read in 8 MiB pieces; after each, progress (may be NULL) is
 * told the bytes read and the file's size, and stops the work by returning
 * non-zero (ECANCELLED). EIO naming the path and the system's reason when
 * the file cannot be opened or read (a folder, say). */
#define CUZK_FC_DIGEST_BYTES 16
cuzk_err cuzk_fc_file_digest(const char *path, cuzk_progress_fn progress, void *ctx,
                             uint8_t out[CUZK_FC_DIGEST_BYTES]);

#endif
