/* Point arithmetic of one short Weierstrass curve y^2 = x^3 + b (a = 0),
 * written once and included by curve.cuh for G1 (over Fp) and G2 (over
 * Fp2). The includer defines CRV (prefix: g1, g2) and CF (field prefix: fp,
 * fp2).
 *
 * Affine points use blst's layout and its convention that (0, 0) is the
 * point at infinity. Accumulators are XYZZ: x = X/ZZ, y = Y/ZZZ with
 * ZZ^3 = ZZZ^2; ZZ = 0 is infinity. Mixed addition costs 8M+2S, XYZZ+XYZZ
 * 12M+2S, doubling 6M+3S (formulas madd-2008-s, add-2008-s, dbl-2008-s-1 of
 * the Explicit-Formulas Database). Each addition checks the exceptional
 * cases (an operand at infinity, P = Q, P = -Q) so it is complete. */

#define CRV_CAT2(a, b) a##b
#define CRV_CAT(a, b) CRV_CAT2(a, b)
#define PN(x) CRV_CAT(CRV, x)
#define F(x) CRV_CAT(CF, x)
#define FE CRV_CAT(CF, _t)
#define AFF CRV_CAT(CRV, _aff_t)
#define XYZZ CRV_CAT(CRV, _xyzz_t)

typedef struct {
    FE x, y;
} AFF;

typedef struct {
    FE X, Y, ZZ, ZZZ;
} XYZZ;

static __device__ __forceinline__ int PN(_aff_is_inf)(AFF p)
{
    return F(_is_zero)(p.x) & F(_is_zero)(p.y);
}

static __device__ __forceinline__ AFF PN(_aff_neg)(AFF p)
{
    p.y = F(_neg)(p.y); /* (0, 0) stays (0, 0) */
    return p;
}

static __device__ __forceinline__ XYZZ PN(_inf)(void)
{
    XYZZ r;
    r.X = F(_one)();
    r.Y = F(_one)();
    r.ZZ = F(_zero)();
    r.ZZZ = F(_zero)();
    return r;
}

static __device__ __forceinline__ int PN(_is_inf)(XYZZ p)
{
    return F(_is_zero)(p.ZZ);
}

static __device__ __forceinline__ XYZZ PN(_from_aff)(AFF a)
{
    if (PN(_aff_is_inf)(a))
        return PN(_inf)();
    XYZZ r;
    r.X = a.x;
    r.Y = a.y;
    r.ZZ = F(_one)();
    r.ZZZ = F(_one)();
    return r;
}

static __device__ __forceinline__ XYZZ PN(_neg)(XYZZ p)
{
    p.Y = F(_neg)(p.Y);
    return p;
}

/* *p = 2 *p, inline, for kernels that keep one accumulator. */
static __device__ __forceinline__ void PN(_dbl_to)(XYZZ *p)
{
    if (PN(_is_inf)(*p))
        return;
    FE U = F(_dbl)(p->Y);
    FE V = F(_sqr)(U);
    FE W = F(_mul_narrow)(U, V);
    FE S = F(_mul_narrow)(p->X, V);
    FE M = F(_sqr)(p->X);
    M = F(_add)(F(_dbl)(M), M);
    p->ZZ = F(_mul_narrow)(V, p->ZZ);
    p->ZZZ = F(_mul_narrow)(W, p->ZZZ);
    FE Y = F(_mul_narrow)(W, p->Y);
    p->X = F(_sub)(F(_sqr)(M), F(_dbl)(S));
    p->Y = F(_sub)(F(_mul_narrow)(M, F(_sub)(S, p->X)), Y);
}

/* Doubling, full addition and the affine conversion are out of line: they
 * are off the hot path (exceptional cases, reductions), and inlining them
 * into every caller multiplies code size and compile time. */
static __device__ __noinline__ XYZZ PN(_dbl)(XYZZ p)
{
    PN(_dbl_to)(&p);
    return p;
}

/* p + q with q affine. */
static __device__ __forceinline__ XYZZ PN(_add_aff)(XYZZ p, AFF q)
{
    if (PN(_aff_is_inf)(q))
        return p;
    if (PN(_is_inf)(p))
        return PN(_from_aff)(q);
    FE U2 = F(_mul_narrow)(q.x, p.ZZ);
    FE S2 = F(_mul_narrow)(q.y, p.ZZZ);
    FE P = F(_sub)(U2, p.X);
    FE R = F(_sub)(S2, p.Y);
    if (F(_is_zero)(P)) {
        if (F(_is_zero)(R))
            return PN(_dbl)(PN(_from_aff)(q));
        return PN(_inf)();
    }
    FE PP = F(_sqr)(P);
    FE PPP = F(_mul_narrow)(P, PP);
    FE Q = F(_mul_narrow)(p.X, PP);
    XYZZ r;
    r.X = F(_sub)(F(_sub)(F(_sqr)(R), PPP), F(_dbl)(Q));
    r.Y = F(_sub)(F(_mul_narrow)(R, F(_sub)(Q, r.X)), F(_mul_narrow)(p.Y, PPP));
    r.ZZ = F(_mul_narrow)(p.ZZ, PP);
    r.ZZZ = F(_mul_narrow)(p.ZZZ, PPP);
    return r;
}

/* *acc += *q, inline, for kernels that keep one accumulator and read the
 * other operand from memory: q's coordinates are read where they are first
 * used and each of acc's dies as soon as it has been multiplied, so the
 * two points are never whole in registers at once (a G2 point is 96
 * registers; a by-value addition spills). */
static __device__ __forceinline__ void PN(_add_to)(XYZZ *acc, const XYZZ *q)
{
    FE qZZ = q->ZZ;
    if (F(_is_zero)(qZZ))
        return;
    if (PN(_is_inf)(*acc)) {
        *acc = *q;
        return;
    }
    FE U1 = F(_mul_narrow)(acc->X, qZZ);
    FE U2 = F(_mul_narrow)(q->X, acc->ZZ);
    FE zz = F(_mul_narrow)(acc->ZZ, qZZ);
    FE qZZZ = q->ZZZ;
    FE S1 = F(_mul_narrow)(acc->Y, qZZZ);
    FE S2 = F(_mul_narrow)(q->Y, acc->ZZZ);
    FE zzz = F(_mul_narrow)(acc->ZZZ, qZZZ);
    FE P = F(_sub)(U2, U1);
    FE R = F(_sub)(S2, S1);
    if (F(_is_zero)(P)) {
        *acc = F(_is_zero)(R) ? PN(_dbl)(*q) : PN(_inf)();
        return;
    }
    FE PP = F(_sqr)(P);
    FE PPP = F(_mul_narrow)(P, PP);
    FE Q = F(_mul_narrow)(U1, PP);
    acc->ZZ = F(_mul_narrow)(zz, PP);
    acc->ZZZ = F(_mul_narrow)(zzz, PPP);
    acc->X = F(_sub)(F(_sub)(F(_sqr)(R), PPP), F(_dbl)(Q));
    acc->Y = F(_sub)(F(_mul_narrow)(R, F(_sub)(Q, acc->X)), F(_mul_narrow)(S1, PPP));
}

/* p + q, out of line as PN(_dbl) is. */
static __device__ __noinline__ XYZZ PN(_add)(XYZZ p, XYZZ q)
{
    PN(_add_to)(&p, &q);
    return p;
}

/* *o += k *p (k >= 1) by double-and-add, both in memory (the reductions
 * keep their other accumulators there while it runs). */
static __device__ __forceinline__ void PN(_add_mul_to)(XYZZ *o, const XYZZ *p, size_t k)
{
    XYZZ M = PN(_inf)();
    for (int bit = 63 - __clzll((long long)k); bit >= 0; bit--) {
        PN(_dbl_to)(&M);
        if ((k >> bit) & 1)
            PN(_add_to)(&M, p);
    }
    PN(_add_to)(&M, o);
    *o = M;
}

/* Affine form by one field inversion (Fermat); infinity gives (0, 0). */
static __device__ __noinline__ AFF PN(_to_aff)(XYZZ p)
{
    AFF r;
    if (PN(_is_inf)(p)) {
        r.x = F(_zero)();
        r.y = F(_zero)();
        return r;
    }
    /* One inversion for both: t = 1/(ZZ ZZZ), 1/ZZ = t ZZZ, 1/ZZZ = t ZZ. */
    FE t = F(_inv)(F(_mul_narrow)(p.ZZ, p.ZZZ));
    FE izz = F(_mul_narrow)(t, p.ZZZ);
    FE izzz = F(_mul_narrow)(t, p.ZZ);
    r.x = F(_mul_narrow)(p.X, izz);
    r.y = F(_mul_narrow)(p.Y, izzz);
    return r;
}

#undef XYZZ
#undef AFF
#undef FE
#undef F
#undef PN
#undef CRV_CAT
#undef CRV_CAT2
