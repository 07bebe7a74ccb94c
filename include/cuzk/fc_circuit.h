/* The circuit of a Filecoin registry entry (filecoin.h), whatever its
 * family: what the daemon records and caches, `cuzk setup --circuit` and
 * `cuzk circuit record` write (src/circuits/fc_circuit.c). */
#ifndef CUZK_FC_CIRCUIT_H
#define CUZK_FC_CIRCUIT_H

#include "cuzk/err.h"
#include "cuzk/filecoin.h"
#include "cuzk/progress.h"

struct cuzk_pce;
/* The entry's partition circuit compiled to a PCE (*out owned by the
 * caller): PoRep its top and one challenge recorded, the rest tiled; PoSt
 * one sector recorded and tiled (progress, which may be NULL, counts
 * sectors); SnapDeals recorded whole (81 M constraints at 32 GiB: about
 * 5 GB while it runs). EINVAL for an entry without a circuit shape. */
cuzk_err cuzk_fc_record_pce(const cuzk_fc_proof *fp, cuzk_progress_fn progress, void *ctx,
                            struct cuzk_pce **out);

#endif
