/* cuzk-daemon configuration: defaults, every key from TOML, overrides as the
 * command line sets them, byte sizes, and precise errors for unknown keys
 * (all of them, with lines), bad values, wrong types, syntax errors and a
 * missing file. */
#include "check.h"
#include "cuzk/config.h"
#include "cuzk/log.h"

#include <unistd.h>

static char path[512];

static void write_toml(const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_defaults(void)
{
    {
        cuzk_config d;
        CHECK_OK(cuzk_config_defaults(&d));
        CHECK(!d.synthetic_enabled && !strcmp(d.synthetic_param_dir, "/var/tmp/cuzk-synthetic") &&
              d.synthetic_max_bytes == (uint64_t)16 << 30 && !strcmp(d.pce_dir, ""));
        cuzk_config_free(&d);
    }
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    cuzk_config c;
    CHECK_OK(cuzk_config_defaults(&c));
    CHECK(!strcmp(c.listen, "unix:///run/curio/cuzk.sock"));
    CHECK(!strcmp(c.param_cache, "/var/tmp/filecoin-proof-parameters"));
    CHECK(c.verify_proofs == 1 && c.budget_auto == 1 && c.workers == 1);
    CHECK(c.synthesis_workers == 2 && c.finalizers == 1 && c.pipeline_depth == 0 &&
          c.max_batch_size == 1 && c.max_batch_wait_ms == 0 && c.srs_device_only == 0);
    CHECK(c.host_spmv == 0); /* gpus.spmv = "device" */
    CHECK(c.max_message_bytes == (uint64_t)128 << 20);
    CHECK(!strcmp(c.backend, "cpu") && !c.status_listen[0] && !c.log_file[0]);
    /* TLS off, plain TCP beyond loopback refused, the node named by the host */
    CHECK(!c.tls_cert[0] && !c.tls_key[0] && !c.tls_client_ca[0] && !c.allow_insecure_tcp);
    char host[256] = "";
    CHECK(gethostname(host, sizeof host - 1) == 0 && !strcmp(c.node_name, host));
    cuzk_config_free(&c);
    setenv("FIL_PROOFS_PARAMETER_CACHE", "/srv/params", 1);
    CHECK_OK(cuzk_config_defaults(&c));
    CHECK(!strcmp(c.param_cache, "/srv/params"));
    cuzk_config_free(&c);
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
}

static void test_full_file(void)
{
    write_toml("verify_proofs = false\n"
               "[daemon]\n"
               "listen = \"127.0.0.1:9820\"\n"
               "status_listen = \"127.0.0.1:9821\"\n"
               "log_file = \"/var/log/cuzk.log\"\n"
               "pid_file = \"/run/cuzk.pid\"\n"
               "backend = \"auto\"\n"
               "max_message_bytes = \"64MiB\"\n"
               "shutdown_grace_s = 12.5\n"
               "[memory]\n"
               "budget = \"96GiB\"\n"
               "pinned_budget = \"8GiB\"\n"
               "[gpus]\n"
               "devices = [0, 2]\n"
               "spmv = \"host\"\n"
               "[synthesis]\n"
               "threads = 48\n"
               "workers = 3\n"
               "[srs]\n"
               "param_cache = \"/data/params\"\n"
               "preload = [\"v28-a\", \"v28-b\"]\n"
               "device_only = true\n"
               "[scheduler]\n"
               "workers = 2\n"
               "finalizers = 2\n"
               "pipeline_depth = 5\n"
               "max_batch_size = 4\n"
               "max_batch_wait_ms = 250\n"
               "max_queued = 10\n"
               "max_queued_bytes = \"1MiB\"\n"
               "retain = 20\n"
               "max_synthetic_constraints = 1048576\n"
               "[logging]\n"
               "level = \"debug\"\n"
               "format = \"json\"\n"
               "[circuits.\"my.circuit\"]\n"
               "params = \"/p/x.params\"\n"
               "vk = \"/p/x.vk\"\n"
               "pce = \"/p/x.pce\"\n");
    cuzk_config c;
    CHECK_OK(cuzk_config_defaults(&c));
    CHECK_OK(cuzk_config_load_file(&c, path));
    CHECK(c.verify_proofs == 0);
    CHECK(!strcmp(c.listen, "127.0.0.1:9820") && !strcmp(c.status_listen, "127.0.0.1:9821"));
    CHECK(!strcmp(c.log_file, "/var/log/cuzk.log") && !strcmp(c.pid_file, "/run/cuzk.pid"));
    CHECK(!strcmp(c.backend, "auto") && c.max_message_bytes == (uint64_t)64 << 20);
    CHECK(c.shutdown_grace_s == 12.5);
    CHECK(!c.budget_auto && c.budget_bytes == (uint64_t)96 << 30);
    CHECK(c.pinned_budget_bytes == (uint64_t)8 << 30);
    CHECK(c.n_gpu_devices == 2 && c.gpu_devices[0] == 0 && c.gpu_devices[1] == 2);
    CHECK(c.host_spmv == 1);
    CHECK(c.synthesis_threads == 48 && !strcmp(c.param_cache, "/data/params"));
    CHECK(c.n_preload == 2 && !strcmp(c.preload[0], "v28-a") && !strcmp(c.preload[1], "v28-b"));
    CHECK(c.workers == 2 && c.max_queued == 10 && c.retain == 20 && c.max_synthetic == 1048576);
    CHECK(c.max_queued_bytes == 1048576);
    CHECK(c.synthesis_workers == 3 && c.finalizers == 2 && c.pipeline_depth == 5 &&
          c.max_batch_size == 4 && c.max_batch_wait_ms == 250 && c.srs_device_only == 1);
    CHECK(c.log_level == CUZK_LOG_DEBUG && c.log_json == 1);
    CHECK(c.n_circuits == 1 && !strcmp(c.circuits[0].id, "my.circuit") &&
          !strcmp(c.circuits[0].params, "/p/x.params") && !strcmp(c.circuits[0].vk, "/p/x.vk") &&
          !strcmp(c.circuits[0].pce, "/p/x.pce"));
    /* Flags override the file. */
    CHECK_OK(cuzk_config_set(&c, "daemon.listen", "unix:///tmp/s.sock"));
    CHECK_OK(cuzk_config_set(&c, "memory.budget", "auto"));
    CHECK_OK(cuzk_config_set(&c, "srs.preload", " a , b,c "));
    CHECK(!strcmp(c.listen, "unix:///tmp/s.sock") && c.budget_auto);
    CHECK(c.n_preload == 3 && !strcmp(c.preload[0], "a") && !strcmp(c.preload[2], "c"));
    CHECK_OK(cuzk_config_set(&c, "srs.preload", ""));
    CHECK(c.n_preload == 0);
    /* daemon.backend cuda:N pins every worker to GPU N; N is an ordinal. */
    CHECK_OK(cuzk_config_set(&c, "daemon.backend", "cuda:3"));
    CHECK(!strcmp(c.backend, "cuda:3"));
    CHECK_ERR(cuzk_config_set(&c, "daemon.backend", "cuda:x"), CUZK_EINVAL, "cuda:N");
    CHECK_ERR(cuzk_config_set(&c, "daemon.backend", "cuda:"), CUZK_EINVAL, "cuda:N");
    CHECK_ERR(cuzk_config_set(&c, "daemon.backend", "cuda:99999"), CUZK_EINVAL, "cuda:N");
    /* [synthetic]: off by default, its own folder, a cap. */
    CHECK_OK(cuzk_config_set(&c, "synthetic.enabled", "true"));
    CHECK_OK(cuzk_config_set(&c, "synthetic.param_dir", "/s"));
    CHECK_OK(cuzk_config_set(&c, "synthetic.max_bytes", "2GiB"));
    CHECK(c.synthetic_enabled && !strcmp(c.synthetic_param_dir, "/s") &&
          c.synthetic_max_bytes == (uint64_t)2 << 30);
    CHECK_ERR(cuzk_config_set(&c, "synthetic.max_bytes", "0"), CUZK_EINVAL, "> 0");
    CHECK_ERR(cuzk_config_set(&c, "synthetic.param_dir", ""), CUZK_EINVAL, "must not be empty");
    cuzk_config_free(&c);
}

static void expect_file_error(const char *toml, cuzk_err code, const char *needle)
{
    write_toml(toml);
    cuzk_config c;
    CHECK_OK(cuzk_config_defaults(&c));
    CHECK_ERR(cuzk_config_load_file(&c, path), code, needle);
    cuzk_config_free(&c);
}

static void test_file_errors(void)
{
    expect_file_error("[daemon]\nlisten = \"x:1\"\nlisten_typo = 1\n[gpu]\ndevices = [0]\n",
                      CUZK_EINVAL,
                      "unknown keys: daemon.listen_typo (line 3), gpu.devices (line 5)");
    expect_file_error("verbose = true\n", CUZK_EINVAL, "unknown key: verbose (line 1)");
    expect_file_error("[memory]\nbudget = \"lots\"\n", CUZK_EINVAL,
                      "line 2: memory.budget: \"lots\" is not a byte size");
    expect_file_error("[memory]\nbudget = \"12 parsecs\"\n", CUZK_EINVAL,
                      "unknown unit \"parsecs\"");
    expect_file_error("[logging]\nlevel = \"loud\"\n", CUZK_EINVAL,
                      "logging.level: \"loud\" is not one of debug, info, warn, error");
    expect_file_error("[logging]\nformat = \"xml\"\n", CUZK_EINVAL, "is not one of text, json");
    expect_file_error("[scheduler]\nworkers = 0\n", CUZK_EINVAL,
                      "scheduler.workers: \"0\" is not an integer in [1, 256]");
    expect_file_error("[synthesis]\nworkers = 0\n", CUZK_EINVAL,
                      "synthesis.workers: \"0\" is not an integer in [1, 256]");
    expect_file_error("[scheduler]\nmax_batch_size = 65\n", CUZK_EINVAL,
                      "scheduler.max_batch_size: \"65\" is not an integer in [1, 64]");
    expect_file_error("[scheduler]\nfinalizers = 0\n", CUZK_EINVAL, "[1, 64]");
    expect_file_error("[scheduler]\npipeline_depth = -1\n", CUZK_EINVAL, "pipeline_depth");
    expect_file_error("[srs]\ndevice_only = 2\n", CUZK_EINVAL, "is not a boolean");
    expect_file_error("[gpus]\nspmv = \"gpu\"\n", CUZK_EINVAL,
                      "gpus.spmv: \"gpu\" is not one of device, host");
    expect_file_error("[daemon]\nbackend = \"gpu\"\n", CUZK_EINVAL,
                      "\"gpu\" is not one of cpu, cuda, cuda:N (N a GPU ordinal), auto");
    expect_file_error("[daemon]\nlisten = \"\"\n", CUZK_EINVAL, "daemon.listen must not be empty");
    expect_file_error("[daemon]\nlisten = [\"a\"]\n", CUZK_EINVAL,
                      "daemon.listen takes one value, not an array");
    expect_file_error("verify_proofs = \"maybe\"\n", CUZK_EINVAL, "is not a boolean");
    expect_file_error("[gpus]\ndevices = [0, \"x\"]\n", CUZK_EINVAL,
                      "gpus.devices: \"x\" is not an integer");
    expect_file_error("[daemon]\nmax_message_bytes = 10\n", CUZK_EINVAL, "[4KiB, 2GiB)");
    expect_file_error("[circuits.c1]\nparams = \"a\"\nzk = \"b\"\n", CUZK_EINVAL,
                      "unknown circuit field \"zk\"");
    expect_file_error("[daemon\nlisten = 1\n", CUZK_EFORMAT, path);
    expect_file_error("[srs]\npreload = [[\"a\"]]\n", CUZK_EINVAL, "unsupported value type");
    cuzk_config c;
    CHECK_OK(cuzk_config_defaults(&c));
    CHECK_ERR(cuzk_config_load_file(&c, "/nonexistent/cuzk.toml"), CUZK_EIO,
              "cannot read config /nonexistent/cuzk.toml");
    CHECK_ERR(cuzk_config_set(&c, "daemon.nope", "1"), CUZK_EINVAL,
              "unknown setting \"daemon.nope\"");
    cuzk_config_free(&c);
}

static void test_bytes(void)
{
    uint64_t b;
    CHECK_OK(cuzk_parse_bytes("1000", &b));
    CHECK(b == 1000);
    CHECK_OK(cuzk_parse_bytes("1.5GiB", &b));
    CHECK(b == (uint64_t)3 << 29);
    CHECK_OK(cuzk_parse_bytes("2 MB", &b));
    CHECK(b == 2000000);
    CHECK_OK(cuzk_parse_bytes("64gib", &b));
    CHECK(b == (uint64_t)64 << 30);
    CHECK_ERR(cuzk_parse_bytes("-1", &b), CUZK_EINVAL, "not a byte size");
    CHECK_ERR(cuzk_parse_bytes("GiB", &b), CUZK_EINVAL, "not a byte size");
    CHECK_ERR(cuzk_parse_bytes("99999999999TiB", &b), CUZK_EINVAL, "too large");
}

int main(void)
{
    snprintf(path, sizeof path, "%s/test_config_%ld.toml", check_tmpdir(), (long)getpid());
    test_defaults();
    test_full_file();
    test_file_errors();
    test_bytes();
    unlink(path);
    return check_done("test_config");
}
