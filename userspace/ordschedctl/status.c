// SPDX-License-Identifier: GPL-2.0
/* ordschedctl status: every live domain, as debugfs shows it. */
#include <dirent.h>
#include <errno.h>

#include "ctl.h"

#define DOMAINS_DIR "/sys/kernel/debug/ordsched/domain"

static void print_file(const char *dir, const char *name)
{
	char path[512], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/stats", dir, name);
	f = fopen(path, "r");
	if (!f) {
		printf("%s: %s\n", name, strerror(errno));
		return;
	}
	printf("%s:\n", name);
	while (fgets(line, sizeof(line), f))
		printf("  %s", line);
	fclose(f);
}

int cmd_status(int argc, char **argv)
{
	struct dirent *d;
	int n = 0;
	DIR *dir;

	if (argc > 1) {
		fprintf(stderr, "%s: status takes no argument ('%s')\n", prog,
			argv[1]);
		return 2;
	}
	dir = opendir(DOMAINS_DIR);
	if (!dir) {
		fail(DOMAINS_DIR, -errno);
		fprintf(stderr, "%s: status needs debugfs mounted and root; "
			"see also '%s stats PID FD'\n", prog, prog);
		return 1;
	}
	/* Entries are "<comm of the opener>.<domain id>". */
	while ((d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		print_file(DOMAINS_DIR, d->d_name);
		n++;
	}
	closedir(dir);
	printf("%d domain%s\n", n, n == 1 ? "" : "s");
	return 0;
}
