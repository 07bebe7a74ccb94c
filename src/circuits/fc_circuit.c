/* The constraint system of any registry entry (include/cuzk/fc_circuit.h):
 * PoRep recorded for its top and one challenge and tiled, PoSt for one
 * sector and tiled, SnapDeals recorded whole. */
#include "cuzk/fc_circuit.h"
#include "cuzk/cs.h"
#include "cuzk/porep_circuit.h"
#include "cuzk/post.h"
#include "cuzk/snap.h"

cuzk_err cuzk_fc_record_pce(const cuzk_fc_proof *fp, cuzk_progress_fn progress, void *ctx,
                            struct cuzk_pce **out)
{
    *out = NULL;
    if (fp->family == CUZK_FC_SEAL) {
        cuzk_porep_shape shape;
        CUZK_TRY(cuzk_porep_shape_of(fp, &shape));
        return cuzk_porep_record_pce(&shape, out);
    }
    if (fp->family == CUZK_FC_WINNING || fp->family == CUZK_FC_WINDOW)
        return cuzk_post_record_pce(fp, progress, ctx, out);
    cuzk_snap_config c;
    CUZK_TRY(cuzk_snap_config_of(fp->sector_size, &c));
    cuzk_cs *cs = NULL;
    cuzk_err e = cuzk_cs_new(&cs, CUZK_CS_RECORD);
    if (!e)
        e = cuzk_snap_synthesize(cs, &c, NULL);
    if (!e)
        e = cuzk_cs_compile(cs, out);
    cuzk_cs_free(cs);
    return e;
}
