/* The kernels of fixed.cu for one group, written once and included per
 * group with CRV (g1, g2) and CF (fp, fp2) defined, as curve_impl.cuh is.
 *
 *   _k_fixed_table  t[j 2^w + d] = d 2^(w j) B: one thread per entry, a
 *                   w-bit double-and-add from rows[j] = 2^(w j) B, then
 *                   its own inversion (a table is made once per base)
 *   _k_fixed_mul    one thread per `batch` scalars (i = tid + j T): each
 *                   scalar is ceil(255/w) mixed additions of table entries,
 *                   no doublings; the XYZZ results and the running product
 *                   of their ZZ ZZZ go to scratch, one inversion serves the
 *                   whole batch (Montgomery's trick), and a backward pass
 *                   writes the affine points. A zero scalar gives (0, 0). */

#define FX_CAT2(a, b) a##b
#define FX_CAT(a, b) FX_CAT2(a, b)
#define PN(x) FX_CAT(CRV, x)
#define F(x) FX_CAT(CF, x)
#define FE FX_CAT(CF, _t)
#define AFF FX_CAT(CRV, _aff_t)
#define XYZZ FX_CAT(CRV, _xyzz_t)

static __global__ void PN(_k_fixed_table)(AFF *t, const AFF *rows, unsigned w, size_t total)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i >= total)
        return;
    AFF b = rows[i >> w];
    uint32_t d = (uint32_t)(i & (((size_t)1 << w) - 1));
    XYZZ acc = PN(_inf)();
    for (int bit = (int)w - 1; bit >= 0; bit--) {
        acc = PN(_dbl)(acc);
        if ((d >> bit) & 1)
            acc = PN(_add_aff)(acc, b);
    }
    t[i] = PN(_to_aff)(acc);
}

static __global__ void PN(_k_fixed_mul)(AFF *out, XYZZ *acc_s, FE *pre_s, const fr_t *k, size_t n,
                                        const AFF *t, unsigned w, unsigned nwin, unsigned batch)
{
    size_t T = gridDim.x * (size_t)blockDim.x, tid = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    uint32_t mask = (uint32_t)(((uint64_t)1 << w) - 1);
    FE prod = F(_one)();
    unsigned used = 0;
    for (unsigned j = 0; j < batch; j++) {
        size_t i = tid + j * T;
        if (i >= n)
            break;
        fr_t s = fr_from_mont(k[i]);
        XYZZ a = PN(_inf)();
        for (unsigned win = 0; win < nwin; win++) {
            unsigned bit = win * w, l = bit >> 5, sh = bit & 31;
            uint64_t lo = s.l[l];
            if (l + 1 < 8)
                lo |= (uint64_t)s.l[l + 1] << 32;
            uint32_t dg = (uint32_t)(lo >> sh) & mask;
            if (dg)
                a = PN(_add_aff)(a, t[((size_t)win << w) | dg]);
        }
        acc_s[i] = a;
        pre_s[i] = prod;
        if (!PN(_is_inf)(a))
            prod = F(_mul_narrow)(prod, F(_mul_narrow)(a.ZZ, a.ZZZ));
        used = j + 1;
    }
    if (!used)
        return;
    FE inv = F(_inv)(prod);
    for (unsigned j = used; j-- > 0;) {
        size_t i = tid + j * T;
        XYZZ a = acc_s[i];
        AFF r;
        if (PN(_is_inf)(a)) {
            r.x = F(_zero)();
            r.y = F(_zero)();
        } else {
            FE zz3 = F(_mul_narrow)(a.ZZ, a.ZZZ);
            FE dinv = F(_mul_narrow)(inv, pre_s[i]); /* 1/(ZZ ZZZ) of this point */
            inv = F(_mul_narrow)(inv, zz3);
            r.x = F(_mul_narrow)(a.X, F(_mul_narrow)(dinv, a.ZZZ));
            r.y = F(_mul_narrow)(a.Y, F(_mul_narrow)(dinv, a.ZZ));
        }
        out[i] = r;
    }
}

#undef XYZZ
#undef AFF
#undef FE
#undef F
#undef PN
#undef FX_CAT
#undef FX_CAT2
