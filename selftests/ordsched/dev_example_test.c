// SPDX-License-Identifier: GPL-2.0
/*
 * The userspace programs against the real device: ordsched-pgzip output
 * must round-trip through the standard gunzip for inputs of every shape
 * (empty, under a chunk, whole chunks, many small chunks on 8 threads),
 * and ordschedctl's selftest, demo and stats must work. The programs are
 * looked up in PATH (the guest installs them in /usr/bin); without them
 * the tests skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev_util.h"
#include "kselftest_harness.h"

#define DIR "/tmp/dev_example_test"

static int have(const char *prog)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
	return system(cmd) == 0;
}

static int sh(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;
	int st;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * The shell command @cmd exits 1 and says @msg (a grep pattern) on
 * standard error, which is shown when it does not.
 */
static int fails_saying(const char *msg, const char *cmd)
{
	if (sh("%s 2>" DIR "/err", cmd) == 1 &&
	    !sh("grep -q '%s' " DIR "/err", msg))
		return 1;
	sh("sed 's/^/#   /' " DIR "/err >&2");
	return 0;
}

/* Text that compresses well followed by random bytes that do not. */
static void make_input(struct __test_metadata *_metadata, long text_lines,
		       long random_kib)
{
	ASSERT_EQ(0, sh("mkdir -p " DIR " && : > " DIR "/in"));
	if (text_lines)
		ASSERT_EQ(0, sh("seq 1 %ld >> " DIR "/in", text_lines));
	if (random_kib)
		ASSERT_EQ(0, sh("dd if=/dev/urandom bs=1024 count=%ld 2>/dev/null >> "
				DIR "/in", random_kib));
}

static void round_trip(struct __test_metadata *_metadata, const char *args)
{
	if (!have("ordsched-pgzip") || !have("gunzip"))
		SKIP(return, "ordsched-pgzip or gunzip not in PATH");
	ASSERT_EQ(0, sh("ordsched-pgzip %s " DIR "/in " DIR "/in.gz", args));
	ASSERT_EQ(0, sh("gunzip -c " DIR "/in.gz > " DIR "/out"));
	EXPECT_EQ(0, sh("cmp " DIR "/in " DIR "/out"));
	/*
	 * Standard output works as well as a file: its own status, not
	 * only what comes out of the pipe (an empty input's archive and no
	 * output at all both gunzip to nothing).
	 */
	ASSERT_EQ(0, sh("ordsched-pgzip %s " DIR "/in > " DIR "/stdout.gz", args));
	ASSERT_EQ(0, sh("gunzip -c " DIR "/stdout.gz | cmp - " DIR "/in"));
	EXPECT_EQ(0, sh("cmp -s " DIR "/in.gz " DIR "/stdout.gz"));
	sh("rm -rf " DIR);
}

TEST(pgzip_empty_file)
{
	make_input(_metadata, 0, 0);
	round_trip(_metadata, "-j 4");
}

TEST(pgzip_under_one_chunk)
{
	make_input(_metadata, 1000, 1);
	round_trip(_metadata, "-j 4 -b 256");
}

TEST(pgzip_whole_chunks)
{
	/* 64 KiB of random bytes: exactly 16 chunks of 4 KiB. */
	make_input(_metadata, 0, 64);
	round_trip(_metadata, "-j 3 -b 4");
}

TEST(pgzip_many_chunks_8_threads)
{
	make_input(_metadata, 200000, 256);
	round_trip(_metadata, "-j 8 -b 8 -l 1");
}

TEST(pgzip_one_thread)
{
	make_input(_metadata, 50000, 32);
	round_trip(_metadata, "-j 1 -b 16 -l 9");
}

/*
 * An OUTPUT whose name is as long as a name may be (255 bytes): the
 * temporary file beside it must not need a longer one, as gzip's does not.
 */
TEST(pgzip_longest_output_name)
{
	char name[256];

	if (!have("ordsched-pgzip") || !have("gunzip"))
		SKIP(return, "ordsched-pgzip or gunzip not in PATH");
	sh("rm -rf " DIR);
	make_input(_metadata, 1000, 1);
	memset(name, 'a', 252);
	strcpy(name + 252, ".gz");
	ASSERT_EQ(0, sh("ordsched-pgzip -j 2 " DIR "/in " DIR "/%s", name));
	EXPECT_EQ(0, sh("gunzip -c " DIR "/%s | cmp - " DIR "/in", name));
	/* Nothing else left beside it. */
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 2"));
	sh("rm -rf " DIR);
}

TEST(pgzip_bad_arguments)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	EXPECT_EQ(2, sh("ordsched-pgzip 2>/dev/null"));
	EXPECT_EQ(2, sh("ordsched-pgzip -l 0 /dev/null 2>/dev/null"));
	EXPECT_EQ(1, sh("ordsched-pgzip /nonexistent 2>/dev/null"));
	/* p1: numbers are checked whole, not clamped or cut short. */
	EXPECT_EQ(2, sh("ordsched-pgzip -j abc /etc/hostname 2>/dev/null"));
	EXPECT_EQ(2, sh("ordsched-pgzip -l 6zz /etc/hostname 2>/dev/null"));
	EXPECT_EQ(2, sh("ordsched-pgzip -b 1k /etc/hostname 2>/dev/null"));
	EXPECT_EQ(2, sh("ordsched-pgzip -j 0 /etc/hostname 2>/dev/null"));
	EXPECT_EQ(2, sh("ordsched-pgzip -j 65 /etc/hostname 2>/dev/null"));
	/*
	 * p1 "2 on a bad option or operand (an empty file name among
	 * them)": an empty OUTPUT ("$OUT" unset) compressed the whole input
	 * into the current folder, then failed at the rename with a message
	 * naming nothing.
	 */
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR));
	EXPECT_EQ(2, sh("cd " DIR " && ordsched-pgzip /etc/hostname '' 2> err"));
	EXPECT_EQ(0, sh("grep -q 'an empty OUTPUT name' " DIR "/err"));
	EXPECT_EQ(2, sh("cd " DIR " && ordsched-pgzip '' out 2> err"));
	EXPECT_EQ(0, sh("grep -q 'an empty INPUT name' " DIR "/err"));
	EXPECT_EQ(0, sh("test \"$(ls -A " DIR ")\" = err"));
	sh("rm -rf " DIR);
}

/*
 * p1: "INPUT must be a regular file ..., other than OUTPUT. OUTPUT ... on
 * any error it is left as it was, and the temporary file is removed."
 * The input as its own output once truncated it to nothing; a pipe gave
 * an empty archive and exit 0.
 */
TEST(pgzip_refusals_leave_files_alone)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	ASSERT_EQ(0, sh("mkdir -p " DIR " && rm -f " DIR "/* && seq 1 5000 > " DIR
			"/in && cp " DIR "/in " DIR "/keep && echo old > " DIR "/out"));
	EXPECT_EQ(1, sh("ordsched-pgzip " DIR "/in " DIR "/in 2>/dev/null"));
	EXPECT_EQ(0, sh("cmp -s " DIR "/in " DIR "/keep"));
	EXPECT_EQ(1, sh("ordsched-pgzip " DIR "/in >> " DIR "/in 2>/dev/null"));
	EXPECT_EQ(0, sh("cmp -s " DIR "/in " DIR "/keep"));
	EXPECT_EQ(1, sh("seq 1 10 | ordsched-pgzip /dev/stdin " DIR "/out 2>/dev/null"));
	EXPECT_EQ(1, sh("ordsched-pgzip " DIR " " DIR "/out 2>/dev/null"));
	EXPECT_EQ(0, sh("test \"$(cat " DIR "/out)\" = old"));
	/*
	 * p1: "one that holds more than its size says ... is an error": a
	 * file of /proc, size 0, gave an empty archive and exit 0.
	 */
	EXPECT_TRUE(fails_saying("more data than its size",
				 "ordsched-pgzip /proc/self/status " DIR "/out"));
	EXPECT_EQ(0, sh("test \"$(cat " DIR "/out)\" = old"));
	/* "a link to no file is refused": it was replaced by the archive. */
	ASSERT_EQ(0, sh("ln -s nowhere.gz " DIR "/lnk"));
	EXPECT_TRUE(fails_saying("a symbolic link to no file",
				 "ordsched-pgzip " DIR "/in " DIR "/lnk"));
	EXPECT_EQ(0, sh("test -L " DIR "/lnk && test ! -e " DIR "/nowhere.gz"));
	ASSERT_EQ(0, sh("rm " DIR "/lnk " DIR "/err"));
	/* Success replaces OUTPUT, and leaves no temporary file behind. */
	EXPECT_EQ(0, sh("ordsched-pgzip " DIR "/in " DIR "/out"));
	EXPECT_EQ(0, sh("gunzip -c < " DIR "/out | cmp -s - " DIR "/keep"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 3"));
}

/*
 * Bad usage names what is wrong before the usage (exit 2), and a missing
 * device says that the module may not be loaded: both used to print the
 * bare usage, or a bare "No such file or directory".
 */
TEST(pgzip_says_what_is_wrong)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR " && seq 1 50 > " DIR "/in"));
	EXPECT_EQ(2, sh("ordsched-pgzip 2>" DIR "/err"));
	EXPECT_EQ(0, sh("grep -q '^ordsched-pgzip: missing INPUT$' " DIR "/err"));
	EXPECT_EQ(0, sh("grep -q '^usage: ' " DIR "/err"));
	EXPECT_EQ(2, sh("ordsched-pgzip " DIR "/in " DIR "/out extra 2>" DIR "/err"));
	EXPECT_EQ(0, sh("grep -q \"extra operand 'extra'\" " DIR "/err"));
	EXPECT_NE(0, sh("test -e " DIR "/out"));
	if (!geteuid() && have("unshare")) {
		/* A private /dev without the node: as if the module were not loaded. */
		EXPECT_TRUE(fails_saying("is the module loaded",
					 "unshare -m sh -c 'mount --make-rprivate / && "
					 "mount -t tmpfs none /dev && exec ordsched-pgzip "
					 DIR "/in " DIR "/out'"));
		EXPECT_NE(0, sh("test -e " DIR "/out"));
	}
	sh("rm -rf " DIR);
}

/*
 * The page: "Standard output is refused, before any chunk is compressed,
 * when it is a terminal." It used to get the gzip bytes, exit 0.
 */
TEST(pgzip_refuses_a_terminal)
{
	char buf[64], cmd[256];
	int master, slave;

	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	master = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
	if (master < 0)
		SKIP(return, "posix_openpt: %s", strerror(errno));
	ASSERT_EQ(0, grantpt(master));
	ASSERT_EQ(0, unlockpt(master));
	/* Held open here, so that the master reads EAGAIN, not EIO. */
	slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	ASSERT_LE(0, slave);
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR " && seq 1 50 > " DIR "/in"));
	snprintf(cmd, sizeof(cmd), "exec >%s; ordsched-pgzip " DIR "/in",
		 ptsname(master));
	EXPECT_TRUE(fails_saying("standard output: a terminal", cmd));
	EXPECT_EQ(-1, read(master, buf, sizeof(buf)));
	EXPECT_EQ(EAGAIN, errno);
	close(slave);
	close(master);
	sh("rm -rf " DIR);
}

/*
 * The page: "OUTPUT is a regular file, or a name not yet taken: a
 * directory, a device or any other file is refused before any chunk is
 * compressed"; -h prints the usage on standard output and exits 0. A
 * directory was refused only after compressing, and a device (as root)
 * was replaced by a regular file; with standard output closed, the input
 * took its descriptor and was called "standard output".
 */
TEST(pgzip_help_closed_stdout_and_special_outputs)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR "/dir && seq 1 5000 > "
			DIR "/in && mkfifo " DIR "/fifo"));
	EXPECT_EQ(0, sh("ordsched-pgzip -h 2>/dev/null | grep -q '^usage: ordsched-pgzip'"));
	/* Usage that did not get out is a failure, as for ordschedctl. */
	EXPECT_EQ(1, sh("ordsched-pgzip -h > /dev/full 2>/dev/null"));
	EXPECT_TRUE(fails_saying("dir: Is a directory",
				 "ordsched-pgzip " DIR "/in " DIR "/dir"));
	/* Nobody reads the FIFO: opened, it would block (hence the timeout). */
	EXPECT_TRUE(fails_saying("fifo: not a regular file",
				 "timeout 20 ordsched-pgzip " DIR "/in " DIR "/fifo"));
	EXPECT_EQ(0, sh("test -p " DIR "/fifo"));
	if (!geteuid()) {
		ASSERT_EQ(0, sh("mknod " DIR "/null c 1 3"));
		EXPECT_EQ(1, sh("ordsched-pgzip " DIR "/in " DIR "/null 2>/dev/null"));
		EXPECT_EQ(0, sh("test -c " DIR "/null"));
	}
	/* Nothing but what the test made: no temporary file anywhere. */
	EXPECT_EQ(0, sh("test -z \"$(ls -A " DIR "/dir)\""));
	EXPECT_NE(0, sh("ls -A " DIR " | grep -q '[.]'"));
	EXPECT_TRUE(fails_saying("standard output: Bad file descriptor",
				 "ordsched-pgzip " DIR "/in >&-"));
	sh("rm -rf " DIR);
}

/*
 * p1 "on any error it is left as it was, and the temporary file is
 * removed", for an error mid-run: the disk fills up (a 256 KiB tmpfs)
 * while 8 threads have chunks in flight. The tool must exit 1 with the
 * reason, leave OUTPUT as it was and nothing else, and not hang on the
 * chunks after the failed one. Standard output that fills up is 1 too.
 */
TEST(pgzip_disk_full_midrun)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	if (geteuid())
		SKIP(return, "mounting a tmpfs needs root");
	ASSERT_EQ(0, sh("mkdir -p " DIR "/full && rm -f " DIR "/full/* && "
			"dd if=/dev/urandom of=" DIR "/rnd bs=1024 count=4096 2>/dev/null"));
	ASSERT_EQ(0, sh("mount -t tmpfs -o size=256k ordsched_full " DIR "/full"));
	ASSERT_EQ(0, sh("echo old > " DIR "/full/out"));
	EXPECT_TRUE(fails_saying("No space left on device",
				 "ordsched-pgzip -j 8 -b 16 " DIR "/rnd " DIR "/full/out"));
	/* p1 EXIT STATUS "naming ... the file, input or output, that failed". */
	EXPECT_EQ(0, sh("grep -q '" DIR "/full/out: writing chunk' " DIR "/err"));
	EXPECT_EQ(0, sh("test \"$(cat " DIR "/full/out)\" = old"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR "/full | wc -l) = 1"));
	EXPECT_EQ(0, sh("umount " DIR "/full"));
	EXPECT_TRUE(fails_saying("^ordsched-pgzip: standard output: writing chunk 0: No space left on device",
				 "ordsched-pgzip -j 8 -b 16 " DIR "/rnd > /dev/full"));
}

/*
 * p1 "An existing OUTPUT keeps its permissions ...; when it is a symbolic
 * link, the file it points to is replaced and the link stays". It used to
 * come out 0666 & ~umask (a 0600 file readable by all) and the link
 * replaced by a plain file.
 */
TEST(pgzip_replace_keeps_mode_and_link)
{
	if (!have("ordsched-pgzip") || !have("gunzip"))
		SKIP(return, "ordsched-pgzip or gunzip not in PATH");
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR " && seq 1 5000 > " DIR
			"/in && echo old > " DIR "/real && chmod 640 " DIR
			"/real && ln -s real " DIR "/lnk"));
	EXPECT_EQ(0, sh("ordsched-pgzip " DIR "/in " DIR "/lnk"));
	EXPECT_EQ(0, sh("test -L " DIR "/lnk"));
	EXPECT_EQ(0, sh("test $(stat -c %%a " DIR "/real) = 640"));
	EXPECT_EQ(0, sh("gunzip -c < " DIR "/real | cmp -s - " DIR "/in"));
	/* A new OUTPUT: open(2)'s 0666 & ~umask. */
	EXPECT_EQ(0, sh("umask 027 && ordsched-pgzip " DIR "/in " DIR "/new"));
	EXPECT_EQ(0, sh("test $(stat -c %%a " DIR "/new) = 640"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 4"));
	sh("rm -rf " DIR);
}

/*
 * The same in a folder whose absolute name is longer than PATH_MAX (25
 * levels of 200 characters), where realpath() fails: OUTPUT used to be
 * found by it, and was then taken for a new file (0644 over a 0600 one)
 * or, as a symbolic link, for one to no file (refused).
 */
#define DEEP_LEVELS	25

TEST(pgzip_replace_in_deep_folder)
{
	char name[201];
	int depth;

	if (!have("ordsched-pgzip") || !have("gunzip"))
		SKIP(return, "ordsched-pgzip or gunzip not in PATH");
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR));
	ASSERT_EQ(0, chdir(DIR));
	memset(name, 'd', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	for (depth = 0; depth < DEEP_LEVELS; depth++)
		if (mkdir(name, 0755) || chdir(name))
			break;
	EXPECT_EQ(DEEP_LEVELS, depth);
	EXPECT_EQ(0, sh("seq 1 5000 > in && echo old > out && chmod 600 out && ln -s out lnk"));
	EXPECT_EQ(0, sh("umask 022 && ordsched-pgzip in out"));
	EXPECT_EQ(0, sh("test $(stat -c %%a out) = 600"));
	EXPECT_EQ(0, sh("echo old > out && chmod 600 out"));
	EXPECT_EQ(0, sh("umask 022 && ordsched-pgzip in lnk"));
	EXPECT_EQ(0, sh("test -L lnk && test $(stat -c %%a out) = 600"));
	EXPECT_EQ(0, sh("gunzip -c < out | cmp -s - in"));
	EXPECT_EQ(0, sh("test $(ls -A | wc -l) = 3"));
	/* Out the way in: rm -r may not reach that deep by absolute names. */
	sh("rm -f in out lnk");
	for (; depth > 0; depth--)
		if (chdir("..") || rmdir(name))
			break;
	sh("rm -rf " DIR);
}

/*
 * p1 "when killed by SIGINT, SIGTERM, SIGHUP or SIGQUIT, it is left as it
 * was and the temporary file is removed"; a file size limit is an error
 * like a full disk (EFBIG, not death by SIGXFSZ). Both used to leave
 * its temporary file behind. The kill comes as soon as the temporary file
 * exists, long before 16 MiB of random bytes are compressed at level 9
 * on one thread.
 */
TEST(pgzip_killed_or_limited_leaves_nothing)
{
	if (!have("ordsched-pgzip"))
		SKIP(return, "ordsched-pgzip not in PATH");
	ASSERT_EQ(0, sh("rm -rf " DIR " && mkdir -p " DIR " && echo old > " DIR
			"/out && dd if=/dev/urandom of=" DIR
			"/rnd bs=1024 count=16384 2>/dev/null"));
	EXPECT_EQ(143, sh("ordsched-pgzip -j 1 -l 9 " DIR "/rnd " DIR "/out & p=$!; "
			  "n=0; until ls " DIR "/.ordsched-pgzip.* >/dev/null 2>&1 || [ $n -ge 1000 ]; "
			  "do sleep 0.01; n=$((n + 1)); done; kill -TERM $p; wait $p"));
	EXPECT_EQ(0, sh("test \"$(cat " DIR "/out)\" = old"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 2"));
	EXPECT_EQ(1, sh("ulimit -f 200 && ordsched-pgzip -b 64 " DIR "/rnd " DIR
			"/out 2> " DIR "/err"));
	EXPECT_EQ(0, sh("grep -q '" DIR "/out: writing chunk .*: File too large' " DIR
			"/err"));
	EXPECT_EQ(0, sh("test \"$(cat " DIR "/out)\" = old"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 3"));
	sh("rm -rf " DIR);
}

/* Whether system call @nr renames a file. */
static int is_rename(long nr)
{
#ifdef SYS_rename
	if (nr == SYS_rename)
		return 1;
#endif
#ifdef SYS_renameat2
	if (nr == SYS_renameat2)
		return 1;
#endif
	return nr == SYS_renameat;
}

/*
 * Run ordsched-pgzip @in @out traced, send it SIGTERM as its rename()
 * returns, and give its wait status: the window between putting OUTPUT
 * in place and exiting, which a signal sent by hand hits by chance only.
 */
static int pgzip_term_at_rename(const char *in, const char *out, int *sent)
{
	struct __ptrace_syscall_info si;
	int st, sig = 0, renaming = 0;
	pid_t pid;

	*sent = 0;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execlp("ordsched-pgzip", "ordsched-pgzip", "-j", "2", in, out,
		       (char *)NULL);
		_exit(127);
	}
	/* Stopped after the exec. */
	if (waitpid(pid, &st, __WALL) != pid || !WIFSTOPPED(st))
		return -1;
	ptrace(PTRACE_SETOPTIONS, pid, NULL,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL);
	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)sig))
			return -1;
		sig = 0;
		if (waitpid(pid, &st, __WALL) != pid)
			return -1;
		if (WIFEXITED(st) || WIFSIGNALED(st))
			return st;
		if (WSTOPSIG(st) != (SIGTRAP | 0x80)) {
			/* A signal for it: deliver it. */
			sig = WSTOPSIG(st);
			continue;
		}
		if (ptrace(PTRACE_GET_SYSCALL_INFO, pid,
			   (void *)sizeof(si), &si) <= 0)
			return -1;
		if (si.op == PTRACE_SYSCALL_INFO_ENTRY)
			renaming = is_rename(si.entry.nr);
		if (si.op == PTRACE_SYSCALL_INFO_EXIT && renaming &&
		    !si.exit.rval && !*sent) {
			kill(pid, SIGTERM);
			*sent = 1;
		}
	}
}

/*
 * p1 "when killed by SIGINT, SIGTERM, SIGHUP or SIGQUIT, it is left as it
 * was ... Such a signal that comes while the temporary file is being
 * renamed, or after, is too late to stop the run: it completes and exits
 * 0". SIGTERM as rename() returned made it die of the signal (143) with
 * OUTPUT already replaced: a caller that trusts the status restores a
 * file that was fine.
 */
TEST(pgzip_signal_after_rename_completes)
{
	int st, sent;

	if (!have("ordsched-pgzip") || !have("gunzip"))
		SKIP(return, "ordsched-pgzip or gunzip not in PATH");
	sh("rm -rf " DIR);
	make_input(_metadata, 20000, 64);
	ASSERT_EQ(0, sh("echo old > " DIR "/in.gz"));
	st = pgzip_term_at_rename(DIR "/in", DIR "/in.gz", &sent);
	ASSERT_NE(-1, st);
	EXPECT_TRUE(sent);
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		TH_LOG("wait status %#x", st);
	}
	EXPECT_EQ(0, sh("gunzip -c " DIR "/in.gz | cmp -s - " DIR "/in"));
	EXPECT_EQ(0, sh("test $(ls -A " DIR " | wc -l) = 2"));
	sh("rm -rf " DIR);
}

/*
 * The selftest takes 0.2-0.5 s in an idle 2-vCPU guest, but 20 s and more
 * on a PREEMPT_RT guest whose host is busy (measured with two CPU hogs on
 * the host, with and without waking ahead): more than the harness's
 * default 30 s for the whole test, whose limit is for hangs only.
 */
FIXTURE(slow) {};
FIXTURE_SETUP(slow) {}
FIXTURE_TEARDOWN(slow) {}

TEST_F_TIMEOUT(slow, ordschedctl_selftest, 240)
{
	if (!have("ordschedctl"))
		SKIP(return, "ordschedctl not in PATH");
	/* Its report, as TAP comments, when a check fails. */
	EXPECT_EQ(0, sh("ordschedctl selftest > /tmp/ordschedctl-selftest.out 2>&1 || "
			"{ sed 's/^/# /' /tmp/ordschedctl-selftest.out; exit 1; }"));
	EXPECT_EQ(0, sh("ordschedctl demo -t 3 -n 10 > /dev/null"));
	EXPECT_EQ(0, sh("ordschedctl --help > /dev/null"));
	EXPECT_EQ(2, sh("ordschedctl no-such-command 2>/dev/null"));
	/* c8 "1 on failure": output that did not get out is one. */
	EXPECT_EQ(1, sh("ordschedctl help > /dev/full 2>/dev/null"));
	/* c8 demo "-t THREADS, 1 to 64" "-n ITEMS": bad usage is 2. */
	EXPECT_EQ(2, sh("ordschedctl demo -n 5x 2>/dev/null"));
	EXPECT_EQ(2, sh("ordschedctl demo -n -1 2>/dev/null"));
	EXPECT_EQ(2, sh("ordschedctl demo -t 4294967297 2>/dev/null"));
	EXPECT_EQ(2, sh("ordschedctl demo extra 2>/dev/null"));
	EXPECT_EQ(2, sh("ordschedctl demo -n 2147483648 2>/dev/null"));
	/* The message names what is wrong, then the usage follows. */
	EXPECT_EQ(0, sh("ordschedctl demo -n 5x 2>&1 >/dev/null | "
			"grep -q '^ordschedctl: demo: -n 5x: not a number'"));
	EXPECT_EQ(0, sh("ordschedctl demo -t 65 2>&1 >/dev/null | "
			"grep -q '^ordschedctl: demo: -t 65: not a number from 1 to 64$'"));
	EXPECT_EQ(0, sh("ordschedctl demo -x 2>&1 >/dev/null | "
			"grep -q '^ordschedctl: demo: -x: no such option$'"));
	EXPECT_EQ(0, sh("ordschedctl demo -t 2>&1 >/dev/null | "
			"grep -q '^ordschedctl: demo: -t needs a number$'"));
	EXPECT_EQ(0, sh("ordschedctl demo extra 2>&1 >/dev/null | "
			"grep -q \"^ordschedctl: demo: extra operand 'extra'$\""));
	EXPECT_EQ(2, sh("ordschedctl help extra 2>/dev/null"));
	/* A PID or descriptor a cast would wrap onto another one. */
	EXPECT_EQ(2, sh("ordschedctl stats %lld 0 2>/dev/null",
			(long long)getpid() + (1LL << 32)));
}

/* "stats PID FD" looks at our own handle, through pidfd_getfd(). */
TEST(ordschedctl_stats_of_a_descriptor)
{
	int fd = dev_open();

	if (!have("ordschedctl"))
		SKIP(return, "ordschedctl not in PATH");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, 3, NULL));
	EXPECT_EQ(0, sh("ordschedctl stats %d %d | grep -q '^held *3 '",
			getpid(), fd));
	/* Every counter of struct ordsched_stats, these two were missing. */
	EXPECT_EQ(0, sh("ordschedctl stats %d %d | grep -q '^handle_taken *3 '",
			getpid(), fd));
	EXPECT_EQ(0, sh("ordschedctl stats %d %d | grep -q '^deferred *0$'",
			getpid(), fd));
	EXPECT_EQ(1, sh("ordschedctl stats %d 0 2>/dev/null", getpid()));
	/* Usage errors, not a failed pidfd_open(): there is no process 0. */
	EXPECT_EQ(2, sh("ordschedctl stats 0 %d 2>/dev/null", fd));
	EXPECT_EQ(2, sh("ordschedctl stats %d -1 2>/dev/null", getpid()));
	close(fd);
}

/* "status" lists the domains debugfs shows, ours with its tickets. */
TEST(ordschedctl_status)
{
	struct ordsched_stats st;
	int fd = dev_open();

	if (!have("ordschedctl"))
		SKIP(return, "ordschedctl not in PATH");
	if (access("/sys/kernel/debug/ordsched/domains", R_OK))
		SKIP(return, "debugfs not mounted");
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, dev_take(fd, 5, NULL));
	ASSERT_EQ(0, dev_stats(fd, &st));
	EXPECT_EQ(0, sh("ordschedctl status | grep -A3 '\\.%u:$' | grep -q '^  head 5$'",
			st.domain_id));
	close(fd);
}

TEST_HARNESS_MAIN
