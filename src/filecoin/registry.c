/* The Filecoin proof-type registry (include/cuzk/filecoin.h): one table.
 *
 * Facts, each from its source: the numbers and names from go-state-types
 * (abi/sector.go); API versions from rust-filecoin-proofs-api (registry.rs,
 * with Go's Window V1_1 as its V1_2); partitions, sectors and challenges per
 * partition from rust-fil-proofs (filecoin-proofs constants.rs and
 * parameters.rs; storage-proofs-update constants.rs); the tree shapes
 * (SectorShapeBase 8-0-0, Sub8 8-8-0, Top2 8-8-2); file names and digests
 * from rust-fil-proofs' parameters.json (v28). A file name's hash is the
 * SHA-256 of the circuit's public-parameter identifier, e.g.
 * "FallbackPoSt::PublicParams{sector_size: 2048, challenge_count: 10,
 * sector_count: 2}", so the API version is not part of it: Window V1 and
 * V1_1 prove with the same file. WinningPoSt's circuit has 66 sectors of one
 * challenge each (the one sector's 66 challenges). NI-PoRep's small sizes
 * are listed without their challenge count (0): cuzk does not prove them. */
#include "cuzk/filecoin.h"

#include <stdio.h>
#include <string.h>

static const cuzk_fc_proof table[] = {
    {CUZK_FC_SEAL, 0, "StackedDrg2KiBV1", 2048ull, CUZK_API_1_0_0, "", 1, 1, 2, 2, 0, 0, "porep-2k",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
     "434fb1338ecfaf0f59256f30dde4968f", "dc1ade9929ade1708238f155343044ac", 1},
    {CUZK_FC_SEAL, 1, "StackedDrg8MiBV1", 8388608ull, CUZK_API_1_0_0, "", 1, 1, 2, 6, 0, 0,
     "porep-8m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
     "09e612e4eeb7a0eb95679a88404f960c", "b687beb9adbd9dabe265a7e3620813e4", 1},
    {CUZK_FC_SEAL, 2, "StackedDrg512MiBV1", 536870912ull, CUZK_API_1_0_0, "", 1, 1, 2, 8, 0, 0,
     "porep-512m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
     "6c77597eb91ab936c1cef4cf19eba1b3", "065179da19fbe515507267677f02823e", 1},
    {CUZK_FC_SEAL, 3, "StackedDrg32GiBV1", 34359738368ull, CUZK_API_1_0_0, "", 10, 1, 18, 9, 8, 0,
     "porep-32g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
     "6a388072a518cf46ebd661f5cc46900a", "0c7b4aac1c40fdb7eb82bc355b41addf", 1},
    {CUZK_FC_SEAL, 4, "StackedDrg64GiBV1", 68719476736ull, CUZK_API_1_0_0, "", 10, 1, 18, 9, 8, 2,
     "porep-64g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
     "1801f8a6e1b00bceb00cc27314bb5ce3", "a89884252c04c298d0b3c81bfd884164", 1},
    {CUZK_FC_SEAL, 5, "StackedDrg2KiBV1_1", 2048ull, CUZK_API_1_1_0, "", 1, 1, 2, 2, 0, 0,
     "porep-2k",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
     "434fb1338ecfaf0f59256f30dde4968f", "dc1ade9929ade1708238f155343044ac", 1},
    {CUZK_FC_SEAL, 6, "StackedDrg8MiBV1_1", 8388608ull, CUZK_API_1_1_0, "", 1, 1, 2, 6, 0, 0,
     "porep-8m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
     "09e612e4eeb7a0eb95679a88404f960c", "b687beb9adbd9dabe265a7e3620813e4", 1},
    {CUZK_FC_SEAL, 7, "StackedDrg512MiBV1_1", 536870912ull, CUZK_API_1_1_0, "", 1, 1, 2, 8, 0, 0,
     "porep-512m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
     "6c77597eb91ab936c1cef4cf19eba1b3", "065179da19fbe515507267677f02823e", 1},
    {CUZK_FC_SEAL, 8, "StackedDrg32GiBV1_1", 34359738368ull, CUZK_API_1_1_0, "", 10, 1, 18, 9, 8, 0,
     "porep-32g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
     "6a388072a518cf46ebd661f5cc46900a", "0c7b4aac1c40fdb7eb82bc355b41addf", 1},
    {CUZK_FC_SEAL, 9, "StackedDrg64GiBV1_1", 68719476736ull, CUZK_API_1_1_0, "", 10, 1, 18, 9, 8, 2,
     "porep-64g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
     "1801f8a6e1b00bceb00cc27314bb5ce3", "a89884252c04c298d0b3c81bfd884164", 1},
    {CUZK_FC_SEAL, 10, "StackedDrg2KiBV1_1_Feat_SyntheticPoRep", 2048ull, CUZK_API_1_2_0,
     "synthetic-porep", 1, 1, 2, 2, 0, 0, "porep-2k",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
     "434fb1338ecfaf0f59256f30dde4968f", "dc1ade9929ade1708238f155343044ac", 1},
    {CUZK_FC_SEAL, 11, "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", 8388608ull, CUZK_API_1_2_0,
     "synthetic-porep", 1, 1, 2, 6, 0, 0, "porep-8m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
     "09e612e4eeb7a0eb95679a88404f960c", "b687beb9adbd9dabe265a7e3620813e4", 1},
    {CUZK_FC_SEAL, 12, "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", 536870912ull, CUZK_API_1_2_0,
     "synthetic-porep", 1, 1, 2, 8, 0, 0, "porep-512m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
     "6c77597eb91ab936c1cef4cf19eba1b3", "065179da19fbe515507267677f02823e", 1},
    {CUZK_FC_SEAL, 13, "StackedDrg32GiBV1_1_Feat_SyntheticPoRep", 34359738368ull, CUZK_API_1_2_0,
     "synthetic-porep", 10, 1, 18, 9, 8, 0, "porep-32g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
     "6a388072a518cf46ebd661f5cc46900a", "0c7b4aac1c40fdb7eb82bc355b41addf", 1},
    {CUZK_FC_SEAL, 14, "StackedDrg64GiBV1_1_Feat_SyntheticPoRep", 68719476736ull, CUZK_API_1_2_0,
     "synthetic-porep", 10, 1, 18, 9, 8, 2, "porep-64g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
     "1801f8a6e1b00bceb00cc27314bb5ce3", "a89884252c04c298d0b3c81bfd884164", 1},
    {CUZK_FC_SEAL, 15, "StackedDrg2KiBV1_2_Feat_NiPoRep", 2048ull, CUZK_API_1_2_0,
     "non-interactive-porep", 13, 1, 0, 2, 0, 0, "porep-2k",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f",
     "434fb1338ecfaf0f59256f30dde4968f", "dc1ade9929ade1708238f155343044ac", 0},
    {CUZK_FC_SEAL, 16, "StackedDrg8MiBV1_2_Feat_NiPoRep", 8388608ull, CUZK_API_1_2_0,
     "non-interactive-porep", 13, 1, 0, 6, 0, 0, "porep-8m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb",
     "09e612e4eeb7a0eb95679a88404f960c", "b687beb9adbd9dabe265a7e3620813e4", 0},
    {CUZK_FC_SEAL, 17, "StackedDrg512MiBV1_2_Feat_NiPoRep", 536870912ull, CUZK_API_1_2_0,
     "non-interactive-porep", 13, 1, 0, 8, 0, 0, "porep-512m",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472",
     "6c77597eb91ab936c1cef4cf19eba1b3", "065179da19fbe515507267677f02823e", 0},
    {CUZK_FC_SEAL, 18, "StackedDrg32GiBV1_2_Feat_NiPoRep", 34359738368ull, CUZK_API_1_2_0,
     "non-interactive-porep", 126, 1, 18, 9, 8, 0, "porep-32g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820",
     "6a388072a518cf46ebd661f5cc46900a", "0c7b4aac1c40fdb7eb82bc355b41addf", 0},
    {CUZK_FC_SEAL, 19, "StackedDrg64GiBV1_2_Feat_NiPoRep", 68719476736ull, CUZK_API_1_2_0,
     "non-interactive-porep", 126, 1, 18, 9, 8, 2, "porep-64g",
     "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2",
     "1801f8a6e1b00bceb00cc27314bb5ce3", "a89884252c04c298d0b3c81bfd884164", 0},
    {CUZK_FC_WINNING, 0, "StackedDrgWinning2KiBV1", 2048ull, CUZK_API_1_0_0, "", 1, 66, 1, 2, 0, 0,
     "post-winning-2k",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e",
     "82c88066be968bb550a05e30ff6c2413", "ffd79788d614d27919ae5bd2d94eacb6", 1},
    {CUZK_FC_WINNING, 1, "StackedDrgWinning8MiBV1", 8388608ull, CUZK_API_1_0_0, "", 1, 66, 1, 6, 0,
     0, "post-winning-8m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331",
     "700171ecf7334e3199437c930676af82", "79ebb55f56fda427743e35053edad8fc", 1},
    {CUZK_FC_WINNING, 2, "StackedDrgWinning512MiBV1", 536870912ull, CUZK_API_1_0_0, "", 1, 66, 1, 8,
     0, 0, "post-winning-512m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781",
     "827359440349fe8f5a016e7598993b79", "bd2cd62f65c1ab84f19ca27e97b7c731", 1},
    {CUZK_FC_WINNING, 3, "StackedDrgWinning32GiBV1", 34359738368ull, CUZK_API_1_0_0, "", 1, 66, 1,
     9, 8, 0, "post-winning-32g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e",
     "d84f79a16fe40e9e25a36e2107bb1ba0", "fc02943678dd119e69e7fab8420e8819", 1},
    {CUZK_FC_WINNING, 4, "StackedDrgWinning64GiBV1", 68719476736ull, CUZK_API_1_0_0, "", 1, 66, 1,
     9, 8, 2, "post-winning-64g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c",
     "2170a91ad5bae22ea61f2ea766630322", "6d3789148fb6466d07ee1e24d6292fd6", 1},
    {CUZK_FC_WINDOW, 5, "StackedDrgWindow2KiBV1", 2048ull, CUZK_API_1_0_0, "", 1, 2, 10, 2, 0, 0,
     "post-window-2k",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
     "7610b9f82bfc88405b7a832b651ce2f6", "0e0958009936b9d5e515ec97b8cb792d", 1},
    {CUZK_FC_WINDOW, 6, "StackedDrgWindow8MiBV1", 8388608ull, CUZK_API_1_0_0, "", 1, 2, 10, 6, 0, 0,
     "post-window-8m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
     "c49499bb76a0762884896f9683403f55", "34d4feeacd9abf788d69ef1bb4d8fd00", 1},
    {CUZK_FC_WINDOW, 7, "StackedDrgWindow512MiBV1", 536870912ull, CUZK_API_1_0_0, "", 1, 2, 10, 8,
     0, 0, "post-window-512m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
     "1a7d4a9c8a502a497ed92a54366af33f", "4dae975de4f011f101f5a2f86d1daaba", 1},
    {CUZK_FC_WINDOW, 8, "StackedDrgWindow32GiBV1", 34359738368ull, CUZK_API_1_0_0, "", 1, 2349, 10,
     9, 8, 0, "post-window-32g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
     "2cf49eb26f1fee94c85781a390ddb4c8", "0f8ec542485568fa3468c066e9fed82b", 1},
    {CUZK_FC_WINDOW, 9, "StackedDrgWindow64GiBV1", 68719476736ull, CUZK_API_1_0_0, "", 1, 2300, 10,
     9, 8, 2, "post-window-64g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
     "3810b7780ac0e299b22ae70f1f94c9bc", "59d2bf1857adc59a4f08fcf2afaa916b", 1},
    {CUZK_FC_WINDOW, 10, "StackedDrgWindow2KiBV1_1", 2048ull, CUZK_API_1_2_0, "", 1, 2, 10, 2, 0, 0,
     "post-window-2k",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0",
     "7610b9f82bfc88405b7a832b651ce2f6", "0e0958009936b9d5e515ec97b8cb792d", 1},
    {CUZK_FC_WINDOW, 11, "StackedDrgWindow8MiBV1_1", 8388608ull, CUZK_API_1_2_0, "", 1, 2, 10, 6, 0,
     0, "post-window-8m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9",
     "c49499bb76a0762884896f9683403f55", "34d4feeacd9abf788d69ef1bb4d8fd00", 1},
    {CUZK_FC_WINDOW, 12, "StackedDrgWindow512MiBV1_1", 536870912ull, CUZK_API_1_2_0, "", 1, 2, 10,
     8, 0, 0, "post-window-512m",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
     "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9",
     "1a7d4a9c8a502a497ed92a54366af33f", "4dae975de4f011f101f5a2f86d1daaba", 1},
    {CUZK_FC_WINDOW, 13, "StackedDrgWindow32GiBV1_1", 34359738368ull, CUZK_API_1_2_0, "", 1, 2349,
     10, 9, 8, 0, "post-window-32g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
     "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc",
     "2cf49eb26f1fee94c85781a390ddb4c8", "0f8ec542485568fa3468c066e9fed82b", 1},
    {CUZK_FC_WINDOW, 14, "StackedDrgWindow64GiBV1_1", 68719476736ull, CUZK_API_1_2_0, "", 1, 2300,
     10, 9, 8, 2, "post-window-64g",
     "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
     "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def",
     "3810b7780ac0e299b22ae70f1f94c9bc", "59d2bf1857adc59a4f08fcf2afaa916b", 1},
    {CUZK_FC_UPDATE, 0, "StackedDrg2KiBV1", 2048ull, CUZK_API_1_1_0, "", 1, 1, 10, 2, 0, 0,
     "snap-2k",
     "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
     "311f92a3e75036ced01b1c0025f1fa0c", "eadad9784969890d30f2749708c79771", 1},
    {CUZK_FC_UPDATE, 1, "StackedDrg8MiBV1", 8388608ull, CUZK_API_1_1_0, "", 4, 1, 10, 6, 0, 0,
     "snap-8m",
     "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
     "5aedd2cf3e5c0a15623d56a1b43110ad", "abd80269054d391a734febdac0d2e687", 1},
    {CUZK_FC_UPDATE, 2, "StackedDrg512MiBV1", 536870912ull, CUZK_API_1_1_0, "", 16, 1, 86, 8, 0, 0,
     "snap-512m",
     "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
     "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
     "c3ad7bb549470b82ad52ed070aebb4f4", "994c5b7d450ca9da348c910689f2dc7f", 1},
    {CUZK_FC_UPDATE, 3, "StackedDrg32GiBV1", 34359738368ull, CUZK_API_1_1_0, "", 16, 1, 86, 9, 8, 0,
     "snap-32g",
     "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
     "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
     "1b3cfd761a961543f9eb273e435a06a2", "3a6941983754737fde880d29c7094905", 1},
    {CUZK_FC_UPDATE, 4, "StackedDrg64GiBV1", 68719476736ull, CUZK_API_1_1_0, "", 16, 1, 86, 9, 8, 2,
     "snap-64g",
     "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
     "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
     "1a392e7b759fb18e036c7559b5ece816", "80e366df2f1011953c2d01c7b7c9ee8e", 1},
};

const cuzk_fc_proof *cuzk_fc_proofs(size_t *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

const cuzk_fc_proof *cuzk_fc_find(cuzk_fc_family family, uint64_t number)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].family == family && table[i].number == number)
            return &table[i];
    return NULL;
}

const cuzk_fc_proof *cuzk_fc_post(uint64_t number)
{
    const cuzk_fc_proof *p = cuzk_fc_find(CUZK_FC_WINNING, number);
    return p ? p : cuzk_fc_find(CUZK_FC_WINDOW, number);
}

const cuzk_fc_proof *cuzk_fc_by_circuit(const char *id)
{
    for (size_t i = 0; id && i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i].circuit_id, id))
            return &table[i];
    return NULL;
}

const char *cuzk_fc_size_name(uint64_t sector_size, char buf[24])
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    uint64_t v = sector_size;
    while (u < 4 && v >= 1024 && v % 1024 == 0)
        v /= 1024, u++;
    snprintf(buf, 24, "%llu%s", (unsigned long long)v, units[u]);
    return buf;
}

const char *cuzk_fc_family_name(cuzk_fc_family f)
{
    switch (f) {
    case CUZK_FC_SEAL: return "seal";
    case CUZK_FC_WINNING: return "winning-post";
    case CUZK_FC_WINDOW: return "window-post";
    case CUZK_FC_UPDATE: return "update";
    }
    return "unknown";
}

const char *cuzk_fc_api_name(cuzk_fc_api api)
{
    return api == CUZK_API_1_0_0 ? "1.0.0" : api == CUZK_API_1_1_0 ? "1.1.0" : "1.2.0";
}

/* The enum a family's numbers belong to, for messages. */
static const char *enum_name(cuzk_fc_family f)
{
    return f == CUZK_FC_SEAL     ? "RegisteredSealProof"
           : f == CUZK_FC_UPDATE ? "RegisteredUpdateProof"
                                 : "RegisteredPoStProof";
}

cuzk_err cuzk_fc_resolve(cuzk_fc_family family, uint64_t registered_proof, uint64_t sector_size,
                         const cuzk_fc_proof **out)
{
    *out = NULL;
    const cuzk_fc_proof *p = family == CUZK_FC_WINNING || family == CUZK_FC_WINDOW
                                 ? cuzk_fc_post(registered_proof)
                                 : cuzk_fc_find(family, registered_proof);
    if (!p)
        return cuzk_fail(CUZK_EINVAL, "registered_proof %llu is not a known %s",
                         (unsigned long long)registered_proof, enum_name(family));
    if (p->family != family)
        return cuzk_fail(CUZK_EINVAL, "registered_proof %llu is %s, not a %s proof",
                         (unsigned long long)registered_proof, p->name,
                         cuzk_fc_family_name(family));
    if (sector_size && sector_size != p->sector_size) {
        char a[24], b[24];
        return cuzk_fail(CUZK_EINVAL,
                         "registered_proof %llu (%s) is for %s sectors, the request says "
                         "sector_size %llu (%s)",
                         (unsigned long long)registered_proof, p->name,
                         cuzk_fc_size_name(p->sector_size, a), (unsigned long long)sector_size,
                         cuzk_fc_size_name(sector_size, b));
    }
    *out = p;
    return CUZK_OK;
}
