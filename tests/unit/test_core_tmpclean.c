/* cuzk_tmp_clean_stale: a temporary file whose writer is dead is removed,
 * one of a live process (ours) is kept, and other names are left alone. */
#include "check.h"
#include "cuzk/util.h"

#include <errno.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void touch(const char *dir, const char *name)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    CHECK(f != NULL);
    if (f)
        fclose(f);
}

static int exists(const char *dir, const char *name)
{
    char p[1024];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return stat(p, &st) == 0;
}

int main(void)
{
    char dir[512];
    snprintf(dir, sizeof dir, "%s/tmpclean-%d", check_tmpdir(), (int)getpid());
    mkdir(check_tmpdir(), 0755);
    CHECK(mkdir(dir, 0755) == 0);

    /* A dead pid: a child that has exited and been reaped. */
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child > 0);
    CHECK(waitpid(child, NULL, 0) == child);
    CHECK(kill(child, 0) != 0 && errno == ESRCH);

    char dead_dash[64], dead_dot[64], live[64];
    snprintf(dead_dash, sizeof dead_dash, "c.params.tmp-%d", (int)child);
    snprintf(dead_dot, sizeof dead_dot, "c.pce.tmp.%d", (int)child);
    snprintf(live, sizeof live, "c.vk.tmp-%d", (int)getpid());
    const char *others[] = {"c.params", "c.tmp-", "c.tmp-12x", "c.tmp-0", "tmp-1", "c.params.tmp"};
    touch(dir, dead_dash);
    touch(dir, dead_dot);
    touch(dir, live);
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        touch(dir, others[i]);

    size_t removed = 99;
    CHECK_OK(cuzk_tmp_clean_stale(dir, &removed));
    CHECK(removed == 2);
    CHECK(!exists(dir, dead_dash));
    CHECK(!exists(dir, dead_dot));
    CHECK(exists(dir, live));
    for (size_t i = 0; i < sizeof others / sizeof *others; i++)
        CHECK(exists(dir, others[i]));
    /* Nothing left to remove the second time. */
    CHECK_OK(cuzk_tmp_clean_stale(dir, &removed));
    CHECK(removed == 0);
    CHECK_ERR(cuzk_tmp_clean_stale("/nonexistent-cuzk-folder", NULL), CUZK_EIO, "cannot read");

    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, live);
    unlink(p);
    for (size_t i = 0; i < sizeof others / sizeof *others; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, others[i]);
        unlink(p);
    }
    CHECK(rmdir(dir) == 0);
    return check_done("test_core_tmpclean");
}
