# SPDX-License-Identifier: GPL-2.0
#
# make              build the modules and the userspace programs
# make modules      build the modules against $(KDIR)
# make userspace    build libordsched, ordschedctl and the examples
# make install      install the modules (and run depmod) and the userspace
# make check        run every test in a QEMU guest, on every kernel of the matrix
# make run          the main job: the module doing ordered work in a guest
# make bench        benchmarks against padata, workqueues, locks (build/bench)
# make checkpatch   checkpatch.pl --strict over the kernel sources
# make clean
#
# KDIR defaults to the newest Debian 6.1 headers under /usr/src (what the
# dependency step installs), then to the running kernel's build tree.

KDIR ?= $(or $(lastword $(sort $(wildcard /usr/src/linux-headers-6.1.*-amd64))),/lib/modules/$(shell uname -r)/build)
PREFIX ?= /usr/local
DESTDIR ?=
V ?= 0

export PREFIX DESTDIR V

all: modules userspace

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

modules_install: modules
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules_install

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests/ordsched

install: modules_install
	$(MAKE) -C userspace install

check:
	selftests/qemu/run.sh check

run:
	selftests/qemu/run.sh run

bench:
	selftests/qemu/run.sh -k 6.1 bench

checkpatch:
	selftests/qemu/checkpatch.sh

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests/ordsched clean

.PHONY: all modules modules_install userspace selftests install check run bench checkpatch clean
