// SPDX-License-Identifier: GPL-2.0
/*
 * ordschedctl: look at and try out /dev/ordsched.
 *
 *	ordschedctl status		every domain, from debugfs
 *	ordschedctl stats PID FD	the domain behind a process's descriptor
 *	ordschedctl selftest		check the device and the library
 *	ordschedctl demo [-t N] [-n N]	threads doing work and printing in order
 */
#include <stdlib.h>

#include "ctl.h"

const char *prog = "ordschedctl";

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *args;
	const char *help;
} commands[] = {
	{ "status", cmd_status, "",
	  "list every ordering domain and its counters (debugfs, root)" },
	{ "stats", cmd_stats, "PID FD",
	  "counters and status page of the domain behind descriptor FD of PID" },
	{ "selftest", cmd_selftest, "",
	  "check that /dev/ordsched and libordsched keep order" },
	{ "demo", cmd_demo, "[-t THREADS] [-n ITEMS]",
	  "threads do work of random length and print the results in order" },
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "usage: %s COMMAND [ARGS]\n\ncommands:\n", prog);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %-24s %s\n", commands[i].name,
			commands[i].args, commands[i].help);
	fprintf(f, "  %-9s %-24s %s\n", "help", "", "this text");
}

int fail(const char *what, int err)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, strerror(-err));
	if (err == -ENOENT)
		fprintf(stderr, "%s: is the ordsched module loaded?\n", prog);
	return 1;
}

void print_stats(const struct ordsched_stats *st)
{
	printf("domain     %u\nhandles    %u\ntail       %llu\nhead       %llu\n",
	       st->domain_id, st->handles, (unsigned long long)st->tail,
	       (unsigned long long)st->head);
	printf("taken      %llu\ncompleted  %llu\ntrashed    %llu\nreleased   %llu\n",
	       (unsigned long long)st->taken,
	       (unsigned long long)st->completed,
	       (unsigned long long)st->trashed,
	       (unsigned long long)st->released);
	printf("waits      %llu\nwakeups    %llu\ntimeouts   %llu\ninterrupts %llu\nfull       %llu\n",
	       (unsigned long long)st->waits, (unsigned long long)st->wakeups,
	       (unsigned long long)st->timeouts,
	       (unsigned long long)st->interrupts,
	       (unsigned long long)st->full);
	printf("held       %llu (this handle)\n", (unsigned long long)st->held);
	printf("handle_taken %llu (this handle)\n",
	       (unsigned long long)st->handle_taken);
	printf("deferred   %llu\n", (unsigned long long)st->deferred);
}

/* A command's status, or 1 if what it printed did not all get out. */
static int flushed(int ret)
{
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "%s: standard output: %s\n", prog,
			strerror(errno));
		return ret ? ret : 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		if (argc > 2) {
			fprintf(stderr, "%s: %s takes no argument ('%s')\n",
				prog, argv[1], argv[2]);
			return 2;
		}
		usage(stdout);
		return flushed(0);
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return flushed(commands[i].run(argc - 1, argv + 1));
	fprintf(stderr, "%s: unknown command '%s'\n", prog, argv[1]);
	usage(stderr);
	return 2;
}
