/* Merkle inclusion: native trees and paths, the PoR circuit's constraint and
 * input counts against rust-fil-proofs, satisfiability and mode agreement
 * for every leaf of small trees, the public inputs (packed index, root), and
 * record -> PCE -> setup -> CPU prove -> verify for an arity-8 inclusion
 * circuit with a binary top layer. */
#include "check.h"
#include "cuzk/cs.h"
#include "cuzk/groth16.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "cuzk/threads.h"

#include <unistd.h>

typedef struct {
    cuzk_merkle_shape s;
    uint64_t leaves;
    uint64_t constraints, constraints_private;
} shape_case;

/* rust-fil-proofs storage-proofs-core tests/por_circuit.rs: test_por_circuit
 * with `leaves = 64 * base tree count`, root public, 3 inputs:
 * poseidon_base_2 1_887, poseidon_base_4 1_164, poseidon_base_8 1_063,
 * poseidon_sub_8_2 1_377, poseidon_top_8_4_2 1_764, poseidon_sub_8_8 1_593,
 * poseidon_top_8_8_2 1_907, poseidon_top_8_2_4 1_764; and
 * test_por_circuit_private_root (2 inputs): base_2 1_886, base_4 1_163,
 * base_8 1_062. The private counts of the sub/top shapes are the public
 * ones minus the root's input constraint (no reference number). SHA-256
 * trees, same file: sha256_base_2 272_295, sha256_base_4 216_258,
 * sha256_base_8 250_987. */
static const shape_case CASES[] = {
    {{2, 6, 0, 0, CUZK_MERKLE_POSEIDON}, 64, 1887, 1886},
    {{4, 3, 0, 0, CUZK_MERKLE_POSEIDON}, 64, 1164, 1163},
    {{8, 2, 0, 0, CUZK_MERKLE_POSEIDON}, 64, 1063, 1062},
    {{8, 2, 2, 0, CUZK_MERKLE_POSEIDON}, 128, 1377, 1376},
    {{8, 2, 4, 2, CUZK_MERKLE_POSEIDON}, 512, 1764, 1763},
    {{8, 2, 8, 0, CUZK_MERKLE_POSEIDON}, 512, 1593, 1592},
    {{8, 2, 8, 2, CUZK_MERKLE_POSEIDON}, 1024, 1907, 1906},
    {{8, 2, 2, 4, CUZK_MERKLE_POSEIDON}, 512, 1764, 1763},
    {{2, 6, 0, 0, CUZK_MERKLE_SHA256}, 64, 272295, 272294},
    {{4, 3, 0, 0, CUZK_MERKLE_SHA256}, 64, 216258, 216257},
    {{8, 2, 0, 0, CUZK_MERKLE_SHA256}, 64, 250987, 250986},
};

static cuzk_fr *random_leaves(uint64_t n, uint64_t seed)
{
    cuzk_fr *l = malloc((size_t)n * sizeof *l);
    cuzk_fr_vec_rng(l, (size_t)n, seed);
    return l;
}

/* Synthesize one inclusion proof in a mode; returns the cs (finished). */
static cuzk_cs *por_cs(cuzk_cs_mode mode, const cuzk_merkle_shape *s, const cuzk_fr *leaf,
                       const cuzk_fr *sib, uint64_t index, const cuzk_fr *root, int priv)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, mode));
    if (!cs)
        return NULL;
    cuzk_root l = {0, {0, *leaf}}, r = {0, {0, *root}};
    CHECK_OK(cuzk_por_gadget(cs, s, &l, sib, index, &r, priv));
    CHECK_OK(cuzk_cs_finish(cs));
    return cs;
}

static void shapes(void)
{
    for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
        const shape_case *k = &CASES[c];
        CHECK(cuzk_merkle_leaf_count(&k->s) == k->leaves);
        cuzk_fr *leaves = random_leaves(k->leaves, 10 + c), root, root2;
        size_t ns = cuzk_merkle_sibling_count(&k->s);
        cuzk_fr *sib = malloc(ns * sizeof *sib);
        /* A handful of leaves per shape (all of them for the first). */
        uint64_t step = c == 0                              ? 1
                        : k->s.hasher == CUZK_MERKLE_SHA256 ? k->leaves
                                                            : k->leaves / 5 + 1;
        /* The kept tree gives cuzk_merkle_build's root and paths. */
        cuzk_merkle_tree *tree = NULL;
        cuzk_fr *sib2 = malloc(ns * sizeof *sib2);
        CHECK_OK(cuzk_merkle_tree_new(&k->s, leaves, &tree));
        if (!tree)
            return;
        CHECK_ERR(cuzk_merkle_tree_path(tree, k->leaves, sib2), CUZK_EINVAL, "the tree has");
        for (uint64_t i = 0; i < k->leaves; i += step) {
            CHECK_OK(cuzk_merkle_build(&k->s, leaves, i, &root, sib));
            CHECK_OK(cuzk_merkle_root_from_path(&k->s, &leaves[i], sib, i, &root2));
            CHECK(cuzk_fr_eq(&root, &root2));
            CHECK(cuzk_fr_eq(&root, cuzk_merkle_tree_root(tree)));
            CHECK_OK(cuzk_merkle_tree_path(tree, i, sib2));
            CHECK(!memcmp(sib, sib2, ns * sizeof *sib));
            for (int priv = 0; priv < 2; priv++) {
                cuzk_cs *cs[3];
                for (int m = 0; m < 3; m++)
                    cs[m] = por_cs((cuzk_cs_mode)m, &k->s, &leaves[i], sib, i, &root, priv);
                if (!cs[0] || !cs[1] || !cs[2])
                    return;
                uint32_t n_in = cuzk_cs_num_inputs(cs[0]);
                /* cs counts include the input constraints after finish */
                uint64_t own = cuzk_cs_num_constraints(cs[0]) - n_in;
                CHECK(n_in == (priv ? 2u : 3u));
                CHECK(own == (priv ? k->constraints_private : k->constraints));
                cuzk_fr idx;
                cuzk_fr_from_u64(&idx, i);
                CHECK(cuzk_fr_eq(&cuzk_cs_inputs(cs[0])[1], &idx));
                if (!priv)
                    CHECK(cuzk_fr_eq(&cuzk_cs_inputs(cs[0])[2], &root));
                for (int m = 1; m < 3; m++) {
                    CHECK(cuzk_cs_num_constraints(cs[m]) == cuzk_cs_num_constraints(cs[0]));
                    CHECK(!memcmp(cuzk_cs_aux(cs[m]), cuzk_cs_aux(cs[0]),
                                  cuzk_cs_num_aux(cs[0]) * sizeof(cuzk_fr)));
                    CHECK(!memcmp(cuzk_cs_inputs(cs[m]), cuzk_cs_inputs(cs[0]),
                                  n_in * sizeof(cuzk_fr)));
                }
                cuzk_fr *w;
                size_t nw;
                CHECK_OK(cuzk_cs_assignment(cs[0], &w, &nw));
                CHECK_OK(cuzk_r1cs_check(cuzk_cs_r1cs(cs[0]), w, NULL));
                free(w);
                for (int m = 0; m < 3; m++)
                    cuzk_cs_free(cs[m]);
            }
        }
        cuzk_merkle_tree_free(tree);
        free(sib2);
        /* A wrong sibling: the check mode names the root equality. */
        CHECK_OK(cuzk_merkle_build(&k->s, leaves, 0, &root, sib));
        cuzk_fr one;
        cuzk_fr_one(&one);
        blst_fr_add(&sib[ns - 1], &sib[ns - 1], &one);
        cuzk_cs *cs;
        CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
        cuzk_root l = {0, {0, leaves[0]}}, r = {0, {0, root}};
        CHECK_ERR(cuzk_por_gadget(cs, &k->s, &l, sib, 0, &r, 0), CUZK_EINVAL,
                  "(equal) is not satisfied");
        cuzk_cs_free(cs);
        free(sib);
        free(leaves);
    }
}

/* Leaf and root given as variables (Root::Var): nothing allocated for them. */
static void var_roots(void)
{
    cuzk_merkle_shape s = {8, 1, 0, 0, CUZK_MERKLE_POSEIDON};
    cuzk_fr *leaves = random_leaves(8, 3), root, sib[7];
    CHECK_OK(cuzk_merkle_build(&s, leaves, 5, &root, sib));
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    cuzk_root l = {1, {0, leaves[5]}}, r = {1, {0, root}};
    CHECK_OK(cuzk_num_alloc(cs, &leaves[5], &l.num));
    CHECK_OK(cuzk_num_alloc(cs, &root, &r.num));
    uint64_t aux0 = cuzk_cs_num_aux(cs);
    CHECK_OK(cuzk_por_gadget(cs, &s, &l, sib, 5, &r, 1));
    /* 3 bits + 7 siblings + nor + and + 20 picks + 505 Poseidon + none */
    CHECK(cuzk_cs_num_aux(cs) - aux0 == 3 + 7 + 22 + 505);
    CHECK(cuzk_cs_num_constraints(cs) == 530 + 1 + 1);
    cuzk_cs_free(cs);
    free(leaves);
}

static void bad_inputs(void)
{
    cuzk_merkle_shape bad[] = {
        {3, 2, 0, 0, CUZK_MERKLE_POSEIDON},  {8, 0, 0, 0, CUZK_MERKLE_POSEIDON},
        {8, 2, 5, 0, CUZK_MERKLE_POSEIDON},  {8, 2, 0, 2, CUZK_MERKLE_POSEIDON},
        {2, 41, 0, 0, CUZK_MERKLE_POSEIDON}, {8, 2, 2, 16, CUZK_MERKLE_POSEIDON},
        {8, 2, 0, 0, (cuzk_merkle_hasher)5}};
    const char *msg[] = {"base arity 3",   "0 base levels", "sub arity 5",     "needs a sub layer",
                         "41 base levels", "top arity 16",  "unknown hasher 5"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK_ERR(cuzk_merkle_shape_check(&bad[i]), CUZK_EINVAL, msg[i]);
    cuzk_merkle_shape s = {8, 1, 0, 0, CUZK_MERKLE_POSEIDON};
    cuzk_fr leaves[8] = {{{0}}}, root, sib[7];
    CHECK_ERR(cuzk_merkle_build(&s, leaves, 8, &root, sib), CUZK_EINVAL,
              "leaf index 8, the tree has 8 leaves");
    CHECK_ERR(cuzk_merkle_root_from_path(&s, leaves, sib, 9, &root), CUZK_EINVAL, "leaf index 9");
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_WITNESS));
    cuzk_root l = {0, {0, leaves[0]}};
    CHECK_ERR(cuzk_por_gadget(cs, &s, &l, sib, 8, &l, 0), CUZK_EINVAL, "por: leaf index 8");
    cuzk_num n4[4], out[8];
    cuzk_bool cbits[3] = {cuzk_bool_const(1), cuzk_bool_const(0), cuzk_bool_const(0)};
    CHECK_ERR(cuzk_insert(cs, &n4[0], cbits, 3, n4, out), CUZK_EINVAL,
              "bits must be allocated and unnegated");
    CHECK_ERR(cuzk_insert(cs, &n4[0], cbits, 7, n4, out), CUZK_EINVAL, "7 index bits");
    cuzk_cs_free(cs);
}

/* The generic insert (arity 16, via select) places the element right. */
static void generic_insert(void)
{
    cuzk_cs *cs;
    CHECK_OK(cuzk_cs_new(&cs, CUZK_CS_CHECK));
    cuzk_num el[15], x, out[16];
    for (int i = 0; i < 15; i++) {
        cuzk_fr v;
        cuzk_fr_from_u64(&v, 100 + (uint64_t)i);
        CHECK_OK(cuzk_num_alloc(cs, &v, &el[i]));
    }
    cuzk_fr xv;
    cuzk_fr_from_u64(&xv, 7);
    CHECK_OK(cuzk_num_alloc(cs, &xv, &x));
    for (unsigned pos = 0; pos < 16; pos += 5) {
        cuzk_bool bits[4];
        for (int i = 0; i < 4; i++)
            CHECK_OK(cuzk_bit_alloc(cs, (pos >> i) & 1, &bits[i]));
        uint64_t before = cuzk_cs_num_constraints(cs);
        CHECK_OK(cuzk_insert(cs, &x, bits, 4, el, out));
        /* insertion.rs: size * (size - 1) picks for the general case */
        CHECK(cuzk_cs_num_constraints(cs) - before == 16 * 15);
        for (unsigned j = 0; j < 16; j++) {
            cuzk_fr want;
            cuzk_fr_from_u64(&want, j == pos ? 7 : 100 + (j < pos ? j : j - 1));
            CHECK(cuzk_fr_eq(&out[j].val, &want));
        }
    }
    cuzk_cs_free(cs);
}

/* Record -> PCE -> setup -> prove (CPU) -> verify; a wrong root fails. */
static void prove_verify(void)
{
    cuzk_merkle_shape s = {8, 2, 2, 0, CUZK_MERKLE_POSEIDON};
    uint64_t n = cuzk_merkle_leaf_count(&s), index = 77;
    cuzk_fr *leaves = random_leaves(n, 21), root, sib[7 + 7 + 1];
    CHECK_OK(cuzk_merkle_build(&s, leaves, index, &root, sib));
    cuzk_cs *rec = por_cs(CUZK_CS_RECORD, &s, &leaves[index], sib, index, &root, 0);
    cuzk_cs *wit = por_cs(CUZK_CS_WITNESS, &s, &leaves[index], sib, index, &root, 0);
    if (!rec || !wit)
        return;
    cuzk_r1cs *r1cs;
    CHECK_OK(cuzk_cs_take_r1cs(rec, &r1cs));
    cuzk_pce *pce = NULL;
    CHECK_OK(cuzk_pce_from_r1cs(&pce, r1cs));
    char pp[512], vp[512];
    snprintf(pp, sizeof pp, "%s/merkle-%d.params", check_tmpdir(), (int)getpid());
    snprintf(vp, sizeof vp, "%s/merkle-%d.vk", check_tmpdir(), (int)getpid());
    CHECK_OK(cuzk_groth16_setup(pce, pp, vp, NULL, NULL));
    cuzk_params params;
    cuzk_vk vk;
    memset(&params, 0, sizeof params);
    memset(&vk, 0, sizeof vk);
    CHECK_OK(cuzk_params_read(pp, &params, CUZK_PARAMS_CHECKED));
    CHECK_OK(cuzk_vk_read(vp, &vk));
    cuzk_backend *be;
    CHECK_OK(cuzk_backend_open("cpu", &be));
    cuzk_fr *w;
    size_t nw;
    CHECK_OK(cuzk_cs_assignment(wit, &w, &nw));
    cuzk_proof proof;
    CHECK_OK(cuzk_groth16_prove(be, &params, pce, w, NULL, NULL, &proof, NULL));
    cuzk_fr x[2];
    cuzk_fr_from_u64(&x[0], index);
    x[1] = root;
    CHECK_OK(cuzk_groth16_verify(&vk, x, 2, &proof));
    cuzk_fr_from_u64(&x[0], index + 1);
    CHECK_ERR(cuzk_groth16_verify(&vk, x, 2, &proof), CUZK_EVERIFY, "does not verify");
    free(w);
    cuzk_backend_close(be);
    cuzk_params_free(&params);
    cuzk_vk_free(&vk);
    unlink(pp);
    unlink(vp);
    cuzk_pce_free(pce);
    cuzk_r1cs_free(r1cs);
    cuzk_cs_free(rec);
    cuzk_cs_free(wit);
    free(leaves);
}

/* Parallel witness generation: two inclusion proofs synthesized in separate
 * witness-mode systems on two threads and extended in order equal the two
 * synthesized one after the other (bellperson's extend). */
typedef struct {
    const cuzk_merkle_shape *s;
    const cuzk_fr *leaves, *root;
    const cuzk_fr *sib;
    uint64_t index;
    cuzk_cs *cs;
    cuzk_err e;
} part;

static void part_range(void *vctx, size_t lo, size_t hi, unsigned worker)
{
    (void)worker;
    part *p = vctx;
    for (size_t i = lo; i < hi; i++) {
        cuzk_root l = {0, {0, p[i].leaves[p[i].index]}}, r = {0, {0, *p[i].root}};
        p[i].e = cuzk_cs_new(&p[i].cs, CUZK_CS_WITNESS);
        if (!p[i].e)
            p[i].e = cuzk_por_gadget(p[i].cs, p[i].s, &l, p[i].sib, p[i].index, &r, 0);
    }
}

static void extend_parallel(void)
{
    cuzk_merkle_shape s = {8, 2, 0, 0, CUZK_MERKLE_POSEIDON};
    cuzk_fr *leaves = random_leaves(64, 44), root, sib[2][14];
    uint64_t idx[2] = {3, 60};
    for (int k = 0; k < 2; k++)
        CHECK_OK(cuzk_merkle_build(&s, leaves, idx[k], &root, sib[k]));
    part parts[2];
    for (int k = 0; k < 2; k++)
        parts[k] = (part){&s, leaves, &root, sib[k], idx[k], NULL, CUZK_OK};
    cuzk_threads_set(2);
    cuzk_parallel_for(2, 1, part_range, parts);
    cuzk_cs *seq, *par;
    CHECK_OK(cuzk_cs_new(&seq, CUZK_CS_CHECK));
    CHECK_OK(cuzk_cs_new(&par, CUZK_CS_CHECK));
    for (int k = 0; k < 2; k++) {
        CHECK_OK(parts[k].e);
        cuzk_root l = {0, {0, leaves[idx[k]]}}, r = {0, {0, root}};
        CHECK_OK(cuzk_por_gadget(seq, &s, &l, sib[k], idx[k], &r, 0));
        CHECK_OK(cuzk_cs_extend(par, parts[k].cs));
    }
    CHECK_OK(cuzk_cs_finish(seq));
    CHECK_OK(cuzk_cs_finish(par));
    cuzk_fr *w1, *w2;
    size_t n1, n2;
    CHECK_OK(cuzk_cs_assignment(seq, &w1, &n1));
    CHECK_OK(cuzk_cs_assignment(par, &w2, &n2));
    CHECK(n1 == n2 && !memcmp(w1, w2, n1 * sizeof *w1));
    CHECK(cuzk_cs_num_inputs(par) == 5); /* ONE + 2 x (index, root) */
    CHECK(cuzk_cs_num_constraints(seq) == cuzk_cs_num_constraints(par));
    free(w1);
    free(w2);
    /* bad uses */
    cuzk_cs *rec;
    CHECK_OK(cuzk_cs_new(&rec, CUZK_CS_RECORD));
    CHECK_ERR(cuzk_cs_extend(rec, parts[0].cs), CUZK_EINVAL, "witness and check modes only");
    CHECK_ERR(cuzk_cs_extend(parts[1].cs, par), CUZK_EINVAL, "finished system");
    CHECK_ERR(cuzk_cs_extend(par, parts[0].cs), CUZK_EINVAL, "extend after finish");
    cuzk_cs_free(rec);
    cuzk_cs_free(seq);
    cuzk_cs_free(par);
    for (int k = 0; k < 2; k++)
        cuzk_cs_free(parts[k].cs);
    free(leaves);
}

int main(void)
{
    extend_parallel();
    shapes();
    var_roots();
    bad_inputs();
    generic_insert();
    prove_verify();
    cuzk_threads_shutdown();
    return check_done("test_circuits_merkle");
}
