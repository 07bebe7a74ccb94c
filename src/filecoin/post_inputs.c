/* FallbackPoSt public data (include/cuzk/post.h): challenges, the challenge
 * index per API version, tree_r_last's shape, and a partition's public
 * inputs. SHA-256 is libcrypto's: these are not circuit hashes. */
#include "cuzk/post.h"

#include <openssl/sha.h>
#include <string.h>

uint64_t cuzk_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t sector_size)
{
    uint8_t pre[48], h[SHA256_DIGEST_LENGTH];
    memcpy(pre, randomness, 32);
    for (int i = 0; i < 8; i++) {
        pre[32 + i] = (uint8_t)(sector_id >> (8 * i));
        pre[40 + i] = (uint8_t)(challenge_index >> (8 * i));
    }
    SHA256(pre, sizeof pre, h);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | h[i];
    return v % (sector_size / 32);
}

cuzk_err cuzk_post_randomness_check(const uint8_t randomness[32])
{
    cuzk_fr r;
    if (cuzk_fr_from_bytes_le(&r, randomness) != CUZK_OK)
        return cuzk_fail(CUZK_EINVAL,
                         "randomness is not a canonical field element (byte 31 is "
                         "0x%02x; Curio clears its top two bits)",
                         randomness[31]);
    return CUZK_OK;
}

uint64_t cuzk_post_challenge_index(cuzk_fc_api api, uint64_t sector_index, unsigned challenges,
                                   unsigned n)
{
    return api == CUZK_API_1_2_0 ? n : sector_index * challenges + n;
}

void cuzk_post_tree_shape(const cuzk_fc_proof *p, cuzk_merkle_shape *out)
{
    memset(out, 0, sizeof *out);
    out->base_arity = 8;
    out->base_levels = p->base_levels;
    out->sub_arity = p->sub_arity;
    out->top_arity = p->top_arity;
    out->hasher = CUZK_MERKLE_POSEIDON;
}

size_t cuzk_post_public_input_count(const cuzk_fc_proof *p)
{
    return (size_t)p->sectors * (1 + p->challenges);
}

void cuzk_post_public_inputs(const cuzk_post_partition *p, cuzk_fr *out)
{
    size_t k = 0;
    for (size_t s = 0; s < p->n_sectors; s++) {
        const cuzk_post_sector *sec = &p->sectors[s];
        out[k++] = sec->comm_r;
        for (unsigned c = 0; c < p->proof->challenges; c++)
            cuzk_fr_from_u64(&out[k++], sec->leaves[c]);
    }
}
