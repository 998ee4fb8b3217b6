# SPDX-License-Identifier: GPL-2.0
#
# make              build the modules and the userspace programs
# make modules      build the modules against $(KDIR)
# make userspace    build libordsched, ordschedctl, the examples, man pages
# make install      install ordsched.ko (then depmod), its headers and
#                   Module.symvers for dependent modules, and the userspace
# make uninstall    remove what make install installed
# make deb          Debian packages (dpkg-buildpackage) into build/deb
# make check        run every test in a QEMU guest, on every kernel of the matrix
# make run          the main job: the module doing ordered work in a guest
# make bench        benchmarks against padata, workqueues, locks (build/bench)
# make checkpatch   checkpatch.pl --strict over the kernel sources
# make clean
# make kdir         print the kernel build tree KDIR defaults to
#
# KDIR defaults to the running kernel's build tree when it exists, else to
# the newest non-RT Debian headers under $(ROOT)/usr/src by version order.
# Install paths honour DESTDIR, PREFIX and MODDIR (default /lib/modules).

ROOT ?=
RUNNING_KDIR := $(ROOT)/lib/modules/$(shell uname -r)/build
# Headers trees have a .config (the -common trees do not); -rt last.
NEWEST_KDIR = $(patsubst %/.config,%,$(lastword $(shell printf '%s\n' \
	$(wildcard $(ROOT)/usr/src/linux-headers-*/.config) | \
	grep -v -- '-rt-' | sort -V)))
KDIR ?= $(if $(wildcard $(RUNNING_KDIR)/Makefile),$(RUNNING_KDIR),$(NEWEST_KDIR))
PREFIX ?= /usr/local
DESTDIR ?=
MODDIR ?= /lib/modules
V ?= 0

# The kernel release KDIR builds for: the module's vermagic, uname -r on
# that kernel, where modprobe looks, and kbuild's $(KERNELRELEASE), which
# dependent modules use to find ordsched's Module.symvers. Not
# include/config/kernel.release: Debian 12's 6.1 headers say 6.1.192 there
# for 6.1.0-57-amd64 (their .kernelvariables override KERNELRELEASE).
KVER = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h 2>/dev/null)
KSRCDIR ?= $(PREFIX)/src/ordsched

export PREFIX DESTDIR V

all: modules userspace

kdir:
	@echo $(KDIR)

check-kdir:
	@test -n "$(KVER)" || { echo "no kernel build tree at KDIR='$(KDIR)':" \
		"install the headers of your kernel or set KDIR (or, to" \
		"uninstall, KVER)" >&2; exit 1; }

modules: check-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

# The product alone: the test, benchmark and example modules stay here.
ordsched.ko: check-kdir
	$(MAKE) -C $(KDIR) M=$(CURDIR) ORDSCHED_ONLY=y modules

userspace:
	$(MAKE) -C userspace

selftests:
	$(MAKE) -C selftests/ordsched

install: install-module install-kdev
	$(MAKE) -C userspace install

# depmod only for a live install into the system's modules: a staged one
# (DESTDIR) is for a package, whose installation runs depmod, and depmod
# does not index another MODDIR. Nor for a kernel whose own modules are
# gone (uninstalling for a removed kernel): it would fail, or fill the
# folder that dpkg left with indexes that no package owns.
live_depmod = $(if $(DESTDIR)$(filter-out /lib/modules /usr/lib/modules,$(MODDIR)),,\
	if [ -d $(MODDIR)/$(KVER)/kernel ]; then depmod -a $(KVER); fi)

install-module: ordsched.ko
	install -D -m 0644 ordsched.ko \
		$(DESTDIR)$(MODDIR)/$(KVER)/updates/ordsched.ko
	$(live_depmod)

# Module.symvers comes out of the module's build: after it, also under -j.
install-kdev: ordsched.ko
	install -d $(DESTDIR)$(KSRCDIR)/include/ordsched \
		$(DESTDIR)$(KSRCDIR)/$(KVER)
	install -m 0644 module/include/ordsched.h $(DESTDIR)$(KSRCDIR)/include
	install -m 0644 module/include/ordsched/*.h \
		$(DESTDIR)$(KSRCDIR)/include/ordsched
	install -m 0644 Module.symvers $(DESTDIR)$(KSRCDIR)/$(KVER)/Module.symvers

# For one kernel (KVER, or KDIR's; give KVER once its headers are gone).
# The headers serve every kernel installed for: the last one takes them.
uninstall: check-kdir
	rm -f $(DESTDIR)$(MODDIR)/$(KVER)/updates/ordsched.ko
	rmdir $(DESTDIR)$(MODDIR)/$(KVER)/updates 2> /dev/null || true
	rmdir $(DESTDIR)$(MODDIR)/$(KVER) 2> /dev/null || true
	rm -f $(DESTDIR)$(KSRCDIR)/$(KVER)/Module.symvers
	-rmdir $(DESTDIR)$(KSRCDIR)/$(KVER)
	if ! ls $(DESTDIR)$(KSRCDIR)/*/Module.symvers > /dev/null 2>&1; then \
		rm -rf $(DESTDIR)$(KSRCDIR)/include; \
		rmdir $(DESTDIR)$(KSRCDIR) 2> /dev/null || true; \
	fi
	$(live_depmod)
	$(MAKE) -C userspace uninstall

deb:
	selftests/packaging/build-deb.sh build/deb

check:
	selftests/qemu/run.sh check

run:
	selftests/qemu/run.sh run

bench:
	selftests/qemu/run.sh -k 6.1 bench

checkpatch:
	selftests/qemu/static-checks.sh build $(KDIR)

clean:
	$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C userspace clean
	$(MAKE) -C selftests/ordsched clean

.PHONY: all kdir check-kdir modules ordsched.ko userspace selftests install \
	install-module install-kdev uninstall deb check run bench checkpatch \
	clean
