// SPDX-License-Identifier: GPL-2.0
/* ordschedctl status: every live domain, as debugfs shows it. */
#include <errno.h>

#include "ctl.h"

/* One block a domain: "<comm of the opener>.<domain id>:", then counters. */
#define DOMAINS_FILE "/sys/kernel/debug/ordsched/domains"

int cmd_status(int argc, char **argv)
{
	char line[256];
	size_t len;
	int n = 0, ret;
	FILE *f;

	if (argc > 1) {
		fprintf(stderr, "%s: status takes no argument ('%s')\n", prog,
			argv[1]);
		return 2;
	}
	f = fopen(DOMAINS_FILE, "r");
	if (!f) {
		fail(DOMAINS_FILE, -errno);
		fprintf(stderr, "%s: status needs debugfs mounted and root; "
			"see also '%s stats PID FD'\n", prog, prog);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		fputs(line, stdout);
		len = strlen(line);
		if (line[0] != ' ' && len > 1 && line[len - 2] == ':')
			n++;
	}
	/* A read error is not the end of the list: no count then. */
	if (ferror(f)) {
		ret = -errno;
		fclose(f);
		return fail(DOMAINS_FILE, ret ? ret : -EIO);
	}
	fclose(f);
	printf("%d domain%s\n", n, n == 1 ? "" : "s");
	return 0;
}
