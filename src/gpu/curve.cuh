/* G1 and G2 of BLS12-381 on the device: affine points in blst's layout
 * (g1_aff_t = blst_p1_affine, g2_aff_t = blst_p2_affine) and XYZZ
 * accumulators, from one implementation (curve_impl.cuh) included per group.
 * b never appears: the a = 0 formulas used do not need it. */
#ifndef CUZK_GPU_CURVE_CUH
#define CUZK_GPU_CURVE_CUH

#include "field.cuh"

#define CRV g1
#define CF fp
#include "curve_impl.cuh"
#undef CRV
#undef CF

#define CRV g2
#define CF fp2
#include "curve_impl.cuh"
#undef CRV
#undef CF

#endif
