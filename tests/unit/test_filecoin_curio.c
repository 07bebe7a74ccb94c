/* Curio's C1 envelope (curio.h) against the bytes Go's encoding/json
 * writes for Curio's c1OutputWrapper (a struct of SectorNum int64,
 * Phase1Out []byte, SectorSize uint64, in that order: []byte as standard
 * base64 with padding), computed independently (Python's base64 module)
 * and written out here literally; a round trip; and every malformed
 * envelope with the field named. */
#include "check.h"
#include "cuzk/curio.h"

#include <stdlib.h>
#include <string.h>

static void expect_bad(const char *json, const char *needle)
{
    cuzk_curio_c1 c;
    CHECK_ERR(cuzk_curio_c1_decode((const uint8_t *)json, strlen(json), &c), CUZK_EFORMAT, needle);
    CHECK(c.c1 == NULL && c.c1_len == 0);
}

int main(void)
{
    /* Go: json.Marshal(c1OutputWrapper{5, []byte(`{"a":1}`), 2048}) */
    const char *go = "{\"SectorNum\":5,\"Phase1Out\":\"eyJhIjoxfQ==\",\"SectorSize\":2048}";
    cuzk_curio_c1 c;
    CHECK_OK(cuzk_curio_c1_decode((const uint8_t *)go, strlen(go), &c));
    CHECK(c.sector_num == 5 && c.sector_size == 2048 && c.c1_len == 7 &&
          !memcmp(c.c1, "{\"a\":1}", 7));
    cuzk_curio_c1_free(&c);
    /* One padding character: "xy" is "eHk=". */
    const char *one = "{\"SectorNum\":1,\"Phase1Out\":\"eHk=\",\"SectorSize\":1}";
    CHECK_OK(cuzk_curio_c1_decode((const uint8_t *)one, strlen(one), &c));
    CHECK(c.c1_len == 2 && !memcmp(c.c1, "xy", 2));
    cuzk_curio_c1_free(&c);
    /* Our encoding is Go's, byte for byte. */
    char *enc;
    CHECK_OK(cuzk_curio_c1_encode(5, 2048, (const uint8_t *)"{\"a\":1}", 7, &enc));
    CHECK(enc && !strcmp(enc, go));
    free(enc);
    expect_bad("{\"SectorNum\":5,", "vanilla_proof: not JSON");
    expect_bad("[1,2]", "a JSON object {SectorNum, Phase1Out, SectorSize} expected");
    expect_bad("{\"Phase1Out\":\"eHk=\",\"SectorSize\":1}", "vanilla_proof.SectorNum: missing");
    expect_bad("{\"SectorNum\":\"5\",\"Phase1Out\":\"eHk=\",\"SectorSize\":1}",
               "SectorNum: missing or not an integer");
    expect_bad("{\"SectorNum\":5,\"Phase1Out\":\"eHk=\"}", "vanilla_proof.SectorSize: missing");
    expect_bad("{\"SectorNum\":5,\"Phase1Out\":\"eHk=\",\"SectorSize\":0}",
               "SectorSize: missing or not a positive integer");
    expect_bad("{\"SectorNum\":5,\"SectorSize\":1}", "vanilla_proof.Phase1Out: missing");
    expect_bad("{\"SectorNum\":5,\"Phase1Out\":7,\"SectorSize\":1}", "Phase1Out: missing or not");
    expect_bad("{\"SectorNum\":5,\"Phase1Out\":\"eHk\",\"SectorSize\":1}", "not a multiple of 4");
    expect_bad("{\"SectorNum\":5,\"Phase1Out\":\"e!k=\",\"SectorSize\":1}",
               "vanilla_proof.Phase1Out: not base64");
    return check_done("test_filecoin_curio");
}
