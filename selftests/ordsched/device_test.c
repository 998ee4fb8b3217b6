// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/ordsched node: it exists with the documented mode, opens and
 * closes, refuses what it does not know, and pins the module while open.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <linux/ordsched.h>

#include "kselftest_harness.h"

#define DEV_PATH "/dev/" ORDSCHED_DEVICE_NAME
#define MISC_MAJOR 10

TEST(node_is_world_rw_misc_chardev)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV_PATH, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0666U, st.st_mode & 07777);
	EXPECT_EQ((unsigned int)MISC_MAJOR, major(st.st_rdev));
}

TEST(open_close)
{
	int fd1, fd2;

	fd1 = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd1);
	fd2 = open(DEV_PATH, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, close(fd2));
	EXPECT_EQ(0, close(fd1));
}

TEST(not_seekable)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

TEST(unknown_ioctl_is_enotty)
{
	int fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd);
	/* Our type, a number no command uses. */
	EXPECT_EQ(-1, ioctl(fd, _IOWR(ORDSCHED_IOC_MAGIC, 0xff, __u64), 0));
	EXPECT_EQ(ENOTTY, errno);
	/* Another driver's type. */
	EXPECT_EQ(-1, ioctl(fd, _IO('T', 1), 0));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
}

static int delete_module(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK);
}

static int load_module(const char *path, const char *params)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	return ret;
}

/*
 * The parameters the module was loaded with, to load it again with them:
 * the harness may have given some (on 6.12, delay_max_wheels=1), which
 * the tests after this one must keep.
 */
static void loaded_params(char *buf, size_t size)
{
	FILE *f = fopen("/sys/module/ordsched/parameters/delay_max_wheels", "r");
	unsigned int wheels;

	buf[0] = 0;
	if (!f)
		return;
	if (fscanf(f, "%u", &wheels) == 1)
		snprintf(buf, size, "delay_max_wheels=%u", wheels);
	fclose(f);
}

/*
 * An open descriptor holds a reference on the module: rmmod fails while it
 * is open and succeeds once it is closed. The module is loaded again from
 * $ORDSCHED_MODDIR so later tests find it.
 */
TEST(open_fd_pins_module)
{
	const char *dir = getenv("ORDSCHED_MODDIR");
	char path[4096], params[64], again[64];
	int fd;

	if (!dir)
		SKIP(return, "ORDSCHED_MODDIR not set: will not unload the module");
	snprintf(path, sizeof(path), "%s/ordsched.ko", dir);
	loaded_params(params, sizeof(params));

	fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, delete_module("ordsched"));
	EXPECT_EQ(EWOULDBLOCK, errno);
	EXPECT_EQ(0, access(DEV_PATH, F_OK));
	EXPECT_EQ(0, close(fd));

	ASSERT_EQ(0, delete_module("ordsched"));
	EXPECT_EQ(-1, access(DEV_PATH, F_OK));
	ASSERT_EQ(0, load_module(path, params));
	EXPECT_EQ(0, access(DEV_PATH, F_OK));
	loaded_params(again, sizeof(again));
	EXPECT_STREQ(params, again);
}

/*
 * delay_max_wheels takes 1-64, as its description says: a value outside
 * fails the load with EINVAL (it was clamped quietly), one too large for
 * an unsigned int with ERANGE; the bounds load.
 * The module is loaded again as it was.
 */
TEST(wheels_parameter_range)
{
	static const struct {
		const char *params;
		int err;
	} refused[] = {
		{ "delay_max_wheels=0", EINVAL },
		{ "delay_max_wheels=65", EINVAL },
		{ "delay_max_wheels=-1", EINVAL },
		{ "delay_max_wheels=", EINVAL },
		/* Not a 32-bit number at all: kstrtouint()'s answer. */
		{ "delay_max_wheels=4294967297", ERANGE },
	};
	static const char *const taken[] = {
		"delay_max_wheels=1", "delay_max_wheels=64",
	};
	const char *dir = getenv("ORDSCHED_MODDIR");
	char path[4096], params[64], again[64];
	unsigned int i;

	if (!dir)
		SKIP(return, "ORDSCHED_MODDIR not set: will not unload the module");
	snprintf(path, sizeof(path), "%s/ordsched.ko", dir);
	loaded_params(params, sizeof(params));
	ASSERT_EQ(0, delete_module("ordsched"));
	for (i = 0; i < sizeof(refused) / sizeof(*refused); i++) {
		EXPECT_EQ(-1, load_module(path, refused[i].params))
			TH_LOG("%s loaded", refused[i].params);
		EXPECT_EQ(refused[i].err, errno)
			TH_LOG("%s: %s", refused[i].params, strerror(errno));
		EXPECT_EQ(-1, access(DEV_PATH, F_OK));
	}
	for (i = 0; i < sizeof(taken) / sizeof(*taken); i++) {
		EXPECT_EQ(0, load_module(path, taken[i]))
			TH_LOG("%s: %s", taken[i], strerror(errno));
		EXPECT_EQ(0, access(DEV_PATH, F_OK));
		EXPECT_EQ(0, delete_module("ordsched"));
	}
	ASSERT_EQ(0, load_module(path, params));
	EXPECT_EQ(0, access(DEV_PATH, F_OK));
	loaded_params(again, sizeof(again));
	EXPECT_STREQ(params, again);
}

#define DEBUGFS "/sys/kernel/debug/ordsched"

/* Is the block header "<comm>.<id>:" of domain @id in "domains"? */
static int listed(unsigned int id)
{
	char line[256], *dot;
	FILE *f = fopen(DEBUGFS "/domains", "r");
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		dot = strrchr(line, '.');
		if (line[0] != ' ' && dot && strtoul(dot + 1, NULL, 10) == id)
			n++;
	}
	fclose(f);
	return n;
}

/*
 * Opens leave no debugfs entry of their own: live domains are listed in
 * one file, each once under an id no other live domain has, and leave
 * it when closed.
 */
TEST(debugfs_lists_domains_in_one_file)
{
	struct ordsched_stats st;
	unsigned int ids[8];
	struct stat sb;
	int fd[8], i, j;

	if (access(DEBUGFS, R_OK))
		SKIP(return, "debugfs not mounted");
	/* Before: one directory an open, under "domain". */
	EXPECT_NE(0, stat(DEBUGFS "/domain", &sb));
	for (i = 0; i < 8; i++) {
		fd[i] = open(DEV_PATH, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd[i]);
		memset(&st, 0, sizeof(st));
		ASSERT_EQ(0, ioctl(fd[i], ORDSCHED_IOC_STATS, &st));
		ids[i] = st.domain_id;
		for (j = 0; j < i; j++)
			EXPECT_NE(ids[j], ids[i]);
	}
	for (i = 0; i < 8; i++)
		EXPECT_EQ(1, listed(ids[i]));
	for (i = 0; i < 8; i++)
		close(fd[i]);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, listed(ids[i]));
}

TEST_HARNESS_MAIN
