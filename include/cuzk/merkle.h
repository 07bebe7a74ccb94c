/* Poseidon Merkle trees as Filecoin builds them (tree_r_last, tree_c) and
 * rust-fil-proofs' inclusion-proof circuit (storage-proofs-core
 * src/gadgets/por.rs PoRCircuit), bit-exact.
 *
 * A tree has a base arity (2, 4 or 8) and base_levels levels, optionally a
 * sub layer (sub_arity base trees under one node) and a top layer (top_arity
 * sub trees). Leaves are laid out subtree after subtree, so the leaf index
 * written in base-arity digits (then the sub digit, then the top digit) is
 * the path; the index bits, least significant first level by level, pack to
 * the index itself. Every node is the hash of its children: the Poseidon
 * Merkle-tree hash (poseidon.h) for the arity of its layer, or the SHA-256
 * field hash (sha256.h) for SHA-256 trees.
 *
 * Circuit (PoRCircuit::synthesize): the leaf (allocated unless given as a
 * variable); per level from the leaf up: log2(arity) index bits
 * (AllocatedBit), arity - 1 sibling numbers, insert (gadgets.h), the hash;
 * then one public input packing all index bits; then the root (allocated
 * unless given), root == computed (a * 1 = b), and unless private the root
 * as a public input. An arity-8 level costs 3 + 22 + 505 = 530 constraints. */
#ifndef CUZK_MERKLE_H
#define CUZK_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "cuzk/cs.h"
#include "cuzk/gadgets.h"
#include "cuzk/vanilla.h"

typedef enum {
    CUZK_MERKLE_POSEIDON = 0, /* tree_r_last, tree_c */
    CUZK_MERKLE_SHA256 = 1,   /* tree_d (comm_d): sha256.h field hash */
} cuzk_merkle_hasher;

typedef struct {
    unsigned base_arity;  /* 2, 4 or 8 */
    unsigned base_levels; /* >= 1 */
    unsigned sub_arity;   /* 0 (none), 2, 4 or 8 */
    unsigned top_arity;   /* 0 (none), 2, 4 or 8; needs a sub layer */
    cuzk_merkle_hasher hasher;
} cuzk_merkle_shape;

/* EINVAL naming the bad field when the shape is unsupported or has more
 * than 2^40 leaves. */
cuzk_err cuzk_merkle_shape_check(const cuzk_merkle_shape *s);
uint64_t cuzk_merkle_leaf_count(const cuzk_merkle_shape *s);
/* Levels of a path (base levels + sub + top) and its sibling count. */
unsigned cuzk_merkle_path_levels(const cuzk_merkle_shape *s);
size_t cuzk_merkle_sibling_count(const cuzk_merkle_shape *s);

/* Build the whole tree over cuzk_merkle_leaf_count(s) leaves: its root and,
 * when siblings is non-NULL, the path of leaf `index` (siblings level by
 * level from the leaf up, arity - 1 each, in position order without the
 * node itself). Allocates one level at a time; multi-threaded. */
cuzk_err cuzk_merkle_build(const cuzk_merkle_shape *s, const cuzk_fr *leaves, uint64_t index,
                           cuzk_fr *root, cuzk_fr *siblings);
/* A whole tree kept for many paths: every level above the leaves (the
 * leaves stay the caller's and must outlive it). Multi-threaded build;
 * paths as cuzk_merkle_build gives them. */
typedef struct cuzk_merkle_tree cuzk_merkle_tree;
cuzk_err cuzk_merkle_tree_new(const cuzk_merkle_shape *s, const cuzk_fr *leaves,
                              cuzk_merkle_tree **out);
const cuzk_fr *cuzk_merkle_tree_root(const cuzk_merkle_tree *t);
cuzk_err cuzk_merkle_tree_path(const cuzk_merkle_tree *t, uint64_t index, cuzk_fr *siblings);
void cuzk_merkle_tree_free(cuzk_merkle_tree *t);

/* The root implied by a leaf, its path and its index. */
cuzk_err cuzk_merkle_root_from_path(const cuzk_merkle_shape *s, const cuzk_fr *leaf,
                                    const cuzk_fr *siblings, uint64_t index, cuzk_fr *root);

/* A vanilla inclusion proof's shape against the tree's: its form (Single,
 * Sub, Top), level counts and each level's arity. EINVAL with a message
 * ("has 10 levels (9 base, form 1); this sector size's tree has ...",
 * "level 3 has 1 siblings; ...") for the caller to prefix with the proof's
 * name (cuzk_fail_ctx). */
cuzk_err cuzk_merkle_path_check(const cuzk_merkle_shape *s, const cuzk_vanilla_merkle *m);

/* A circuit value that is either already allocated (Root::Var) or to be
 * allocated from its value (Root::Val). */
typedef struct {
    int allocated;
    cuzk_num num; /* num.var meaningful when allocated */
} cuzk_root;

/* PoRCircuit::synthesize. private_root != 0 keeps the root out of the public
 * inputs. EINVAL for a bad shape or an index beyond the leaf count. */
cuzk_err cuzk_por_gadget(cuzk_cs *cs, const cuzk_merkle_shape *s, const cuzk_root *leaf,
                         const cuzk_fr *siblings, uint64_t index, const cuzk_root *root,
                         int private_root);
/* The same, with the value of the root the path hashes to in *computed:
 * in witness mode (which evaluates no constraint) the caller can tell a
 * path that misses its root. */
cuzk_err cuzk_por_gadget_root(cuzk_cs *cs, const cuzk_merkle_shape *s, const cuzk_root *leaf,
                              const cuzk_fr *siblings, uint64_t index, const cuzk_root *root,
                              int private_root, cuzk_fr *computed);

#endif
