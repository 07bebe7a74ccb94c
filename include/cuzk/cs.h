/* The constraint-system API that circuits and gadgets synthesize into, with
 * bellperson's semantics, in three modes.
 *
 * A circuit is a C function that takes a cuzk_cs and calls alloc /
 * alloc_input / enforce in a fixed order. Variables are numbered exactly as
 * bellperson numbers them: Input(0) is ONE (allocated by cuzk_cs_new), then
 * inputs and aux in their own sequences in call order; a handle is the r1cs.h
 * cuzk_var (input index, or CUZK_VAR_AUX_BIT | aux index). Every alloc
 * carries its value: gadgets always compute values, so the three modes yield
 * the same witness by construction.
 *
 *   CUZK_CS_RECORD   builds the R1CS (r1cs.h) as well: run once per circuit
 *                    shape, then compile it to a PCE.
 *   CUZK_CS_WITNESS  keeps only the values; enforce does nothing but count.
 *                    After cuzk_cs_reset() the buffers are reused, so
 *                    synthesizing the same shape again allocates nothing.
 *   CUZK_CS_CHECK    keeps the values and evaluates every constraint as it
 *                    is enforced; the first unsatisfied one fails with
 *                    EINVAL naming its index and annotation.
 *
 * Gadgets ask cuzk_cs_wants_lc() before building large linear combinations:
 * in witness mode they skip that work and call cuzk_cs_skip() to keep the
 * constraint count.
 *
 * cuzk_cs_finish() appends bellperson's input constraints (one per input,
 * ONE included) in every mode, so counts agree across modes; constraint
 * counts "of a gadget" as the reference tests state them exclude these (see
 * cuzk_cs_num_constraints).
 *
 * Ownership: the cs owns its values and (record mode) its builder until
 * cuzk_cs_take_r1cs(). Not thread-safe: one cs per thread. */
#ifndef CUZK_CS_H
#define CUZK_CS_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/err.h"
#include "cuzk/fr.h"
#include "cuzk/r1cs.h"

typedef enum {
    CUZK_CS_RECORD = 0,
    CUZK_CS_WITNESS = 1,
    CUZK_CS_CHECK = 2,
} cuzk_cs_mode;

typedef struct cuzk_cs cuzk_cs;

/* A growable linear combination for gadgets that build long ones (packing,
 * MultiEq, Poseidon). The caller owns t; free with cuzk_lc_free. Terms may
 * repeat variables; the builder merges them. */
typedef struct {
    cuzk_term *t;
    size_t n, cap;
} cuzk_lc;

void cuzk_lc_clear(cuzk_lc *lc);
void cuzk_lc_free(cuzk_lc *lc);
/* Append coeff * var. ENOMEM when growing fails. */
cuzk_err cuzk_lc_add(cuzk_lc *lc, cuzk_var var, const cuzk_fr *coeff);
/* lc += coeff * other (coeff NULL means 1). */
cuzk_err cuzk_lc_add_lc(cuzk_lc *lc, const cuzk_lc *other, const cuzk_fr *coeff);

cuzk_err cuzk_cs_new(cuzk_cs **out, cuzk_cs_mode mode);
void cuzk_cs_free(cuzk_cs *cs);
cuzk_cs_mode cuzk_cs_get_mode(const cuzk_cs *cs);

/* Forget all variables and constraints (back to only ONE), keeping buffer
 * capacity. Witness and check modes only (EINVAL in record mode: a builder
 * cannot shrink). */
cuzk_err cuzk_cs_reset(cuzk_cs *cs);

/* Non-zero when enforce uses its linear combinations (record and check). */
int cuzk_cs_wants_lc(const cuzk_cs *cs);

/* Allocate an aux / input variable with its value (required). EINVAL after
 * finish or past 2^31 - 1 variables of a kind. */
cuzk_err cuzk_cs_alloc(cuzk_cs *cs, const cuzk_fr *value, cuzk_var *out);
cuzk_err cuzk_cs_alloc_input(cuzk_cs *cs, const cuzk_fr *value, cuzk_var *out);

/* Enforce (sum a) * (sum b) = (sum c). `what` names the constraint in check
 * mode's error message (a static string; may be NULL). EINVAL for a variable
 * not allocated yet (record and check modes), for an unsatisfied constraint
 * (check mode), or after finish. */
cuzk_err cuzk_cs_enforce(cuzk_cs *cs, const cuzk_term *a, size_t na, const cuzk_term *b, size_t nb,
                         const cuzk_term *c, size_t nc, const char *what);
/* The same with cuzk_lc operands (NULL = empty). */
cuzk_err cuzk_cs_enforce_lc(cuzk_cs *cs, const cuzk_lc *a, const cuzk_lc *b, const cuzk_lc *c,
                            const char *what);
/* bellperson's ConstraintSystem::extend for parallel witness generation:
 * append src's inputs (without its ONE) and aux values and count its
 * constraints, so that synthesizing independent parts into separate
 * systems (one per thread) and extending them in order gives the same
 * assignment as synthesizing them one after the other into dst. Witness
 * and check modes only; src must not be finished (EINVAL otherwise). src's
 * handles are not valid in dst. */
cuzk_err cuzk_cs_extend(cuzk_cs *dst, const cuzk_cs *src);

/* Count n constraints without their content: for gadgets in witness mode
 * only (EINVAL in the other modes). */
cuzk_err cuzk_cs_skip(cuzk_cs *cs, uint64_t n);

/* Append the input constraints and freeze. Record mode finalizes the
 * builder. A second call fails with EINVAL. */
cuzk_err cuzk_cs_finish(cuzk_cs *cs);

/* Counts so far. Constraints exclude the input constraints until finish. */
uint32_t cuzk_cs_num_inputs(const cuzk_cs *cs); /* counts ONE */
uint64_t cuzk_cs_num_aux(const cuzk_cs *cs);
uint64_t cuzk_cs_num_constraints(const cuzk_cs *cs);

/* The value of a variable (NULL for a handle not allocated). */
const cuzk_fr *cuzk_cs_value(const cuzk_cs *cs, cuzk_var v);
/* Values in allocation order; valid until the next alloc. */
const cuzk_fr *cuzk_cs_inputs(const cuzk_cs *cs); /* n_inputs, [0] = 1 */
const cuzk_fr *cuzk_cs_aux(const cuzk_cs *cs);    /* n_aux (after a base, before a window: below) */

/* Witness mode: the aux variables allocated from now on are stored in the
 * caller's buf (at most cap of them; one more is EINVAL), not in the
 * system's own array, so that parallel parts of one circuit write their
 * values straight into place in one assignment. cuzk_cs_value reads them
 * there; cuzk_cs_aux covers only those before the window; extend and
 * assignment refuse a system with a window; reset drops it. EINVAL in
 * other modes or when a window is set already. */
cuzk_err cuzk_cs_set_aux_window(cuzk_cs *cs, cuzk_fr *buf, uint64_t cap);

/* Witness mode, on an empty (new or reset) system: start it as if the n_in
 * inputs (ONE first) and n_aux aux of another system had been allocated,
 * reading those aux from the caller's aux (not copied; it must outlive the
 * system's use) and copying the inputs, so that parallel parts of a
 * circuit share one synthesized prefix. cuzk_cs_aux then covers only the
 * aux allocated after the base; extend and assignment refuse such a
 * system; reset drops the base. EINVAL otherwise. */
cuzk_err cuzk_cs_set_base(cuzk_cs *cs, const cuzk_fr *in, uint32_t n_in, const cuzk_fr *aux,
                          uint64_t n_aux);

/* The full assignment w = (1, inputs..., aux...) as a malloc'd array (caller
 * frees) of n_inputs + n_aux elements. */
cuzk_err cuzk_cs_assignment(const cuzk_cs *cs, cuzk_fr **w, size_t *n);

/* Record mode: the builder, still owned by cs (NULL in other modes). */
const cuzk_r1cs *cuzk_cs_r1cs(const cuzk_cs *cs);
/* Record mode: hand the builder over (caller frees it); cs keeps only values
 * and accepts nothing more. EINVAL in other modes or when already taken. */
cuzk_err cuzk_cs_take_r1cs(cuzk_cs *cs, cuzk_r1cs **out);
/* Record mode: finish, take the builder and compile it to a PCE (pce.h;
 * *out owned by the caller); cs is spent (free it). */
struct cuzk_pce;
cuzk_err cuzk_cs_compile(cuzk_cs *cs, struct cuzk_pce **out);

/* Constants gadgets use everywhere, computed once (thread-safe): 2^i for
 * i < 256, 1 and -1. */
const cuzk_fr *cuzk_cs_pow2(unsigned i);
const cuzk_fr *cuzk_cs_one(void);
const cuzk_fr *cuzk_cs_minus_one(void);

#endif
