#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks of what a user installs, one "ok NAME" / "not ok NAME" line each
# (findings indented below a failure); exits non-zero if any failed:
#
#   kdir        make's default KDIR: the running kernel's tree, else the
#               newest non-RT headers by version order (fake /usr/src trees)
#   32bit       a 32-bit kernel is refused at build time, with the reason
#   install     make install into a staging root installs exactly the
#               README's list, a program links (shared and static) and
#               runs against the installed library, and a dependent
#               module builds against the installed headers and
#               Module.symvers
#   uninstall   make uninstall leaves no file behind
#   deb         make deb builds the four packages; lintian finds no error
#   deb_no_git  make deb in a tree that is no git clone, with build
#               outputs in it: the DKMS package holds the clone's files
#   debs        the four unpack together (no file in two), only
#               ordsched-dkms has DKMS's source folder, Depends and
#               scripts, and a program builds with pkg-config's flags
#               against the unpacked -dev and runs on its library
#   dkms        DKMS builds the module from ordsched-dkms's source tree
#   version     dkms.conf and debian/changelog say the same version, and
#               the library the version of its newest symbol node
#
# Nothing is installed on the host but tools: DKMS runs with private trees,
# the staging root is a temporary folder.
#
# With more kernel build trees, install, uninstall and dkms run again for
# each (their results named NAME.RELEASE).
#
# usage: check.sh BUILD_DIR KDIR [KDIR...]
set -uo pipefail

# Without -e, a failed ${1:?} in $(...) would leave build empty and go on.
usage() {
	echo "usage: check.sh BUILD_DIR KDIR [KDIR...] (existing kernel build trees)" >&2
	exit 2
}
if [ $# -lt 2 ] || [ -z "$1" ]; then
	usage
fi
for d in "${@:2}"; do
	[ -d "$d" ] || usage
done

top=$(cd "$(dirname "$0")/../.." && pwd)
build=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
# use_kdir KDIR: build against KDIR, whose release kver is UTS_RELEASE, as
# the Makefile's KVER: not include/config/kernel.release, which Debian 12's
# 6.1 headers say is 6.1.192 for 6.1.0-57-amd64.
use_kdir() {
	kdir=$(cd "$1" && pwd)
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$kdir/include/generated/utsrelease.h")
	if [ -z "$kver" ]; then
		echo "check.sh: $kdir has no release" >&2
		exit 2
	fi
}
use_kdir "$2"
work=$build/packaging
failed=0

pkgs=(dpkg-dev debhelper dh-dkms dkms lintian fakeroot python3 zlib1g-dev pkgconf)
missing=()
for p in "${pkgs[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'ok installed'* ]] ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ] && [ "$(id -u)" = 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" > /dev/null 2>&1
fi

check() { # check NAME COMMAND...: one result for a command that must succeed
	local name=$1 log=$work/$1.log
	shift
	if "$@" > "$log" 2>&1; then
		echo "ok packaging.$name"
	else
		echo "not ok packaging.$name"
		sed 's/^/#   /' "$log" | tail -n 40
		failed=1
	fi
}

# A copy of the tree to build in: make install writes build outputs.
copy_tree() { # copy_tree DEST
	rm -rf "$1" && mkdir -p "$1"
	(cd "$top" && git ls-files --cached --others --exclude-standard -z |
		xargs -0 tar -cf - --ignore-failed-read 2>/dev/null) | tar -C "$1" -xf -
}

rm -rf "$work" && mkdir -p "$work"

check_kdir() {
	local root=$work/fakeroot got
	mkdir -p "$root/usr/src"
	for d in 6.1.0-9-amd64 6.1.0-56-amd64 6.1.0-56-rt-amd64 6.1.0-56-common \
		6.12.9+deb12-amd64 6.12.117+deb12-rt-amd64; do
		mkdir -p "$root/usr/src/linux-headers-$d"
		case $d in *-common) ;; *) touch "$root/usr/src/linux-headers-$d/.config" ;; esac
	done
	got=$(make -s -C "$top" ROOT="$root" kdir)
	echo "no running kernel tree: $got"
	[ "$got" = "$root/usr/src/linux-headers-6.12.9+deb12-amd64" ] || return 1
	mkdir -p "$root/lib/modules/$(uname -r)/build"
	touch "$root/lib/modules/$(uname -r)/build/Makefile"
	got=$(make -s -C "$top" ROOT="$root" kdir)
	echo "with a running kernel tree: $got"
	[ "$got" = "$root/lib/modules/$(uname -r)/build" ]
}

check_32bit() {
	local tree=$work/tree32 out
	copy_tree "$tree"
	out=$(make -C "$kdir" M="$tree" CONFIG_64BIT= modules 2>&1)
	echo "$out" | tail -n 5
	grep -q 'ordsched needs a 64-bit kernel' <<<"$out" && [ ! -e "$tree/ordsched.ko" ]
}

# The README's list, with PREFIX and KVER filled in, as glob patterns.
readme_list() { # readme_list PREFIX
	sed -n '/<!-- install-list/,/<!-- end install-list/p' "$top/README.md" |
		grep '^/\|^PREFIX' | sed -e "s|^PREFIX|$1|" -e "s|KVER|$kver|g"
}

check_install() {
	local tree=$work/tree stage=$work/stage prefix=/usr/local pat f n fn v ver at got want
	copy_tree "$tree"
	rm -rf "$stage"
	make -s -C "$tree" KDIR="$kdir" DESTDIR="$stage" install || return 1
	(cd "$stage" && find . -type f -o -type l | sed 's|^\.||' | sort) > "$work/installed"
	readme_list "$prefix" > "$work/listed"
	[ -s "$work/listed" ] || { echo "README has no install list"; return 1; }
	# Every installed file matches a line; every line matches a file.
	n=0
	while read -r f; do
		while read -r pat; do
			# shellcheck disable=SC2053
			[[ $f == $pat ]] && continue 2
		done < "$work/listed"
		echo "installed, not in README: $f"
		n=1
	done < "$work/installed"
	while read -r pat; do
		grep -qx -- "$(sed 's/\./\\./g; s/\*/[^\/]*/g' <<<"$pat")" "$work/installed" ||
			{ echo "in README, not installed: $pat"; n=1; }
	done < "$work/listed"
	[ $n = 0 ] || return 1
	# Where modprobe looks for the release the module says it is for.
	f=$(modinfo -F vermagic "$stage/lib/modules/$kver/updates/ordsched.ko") || return 1
	[ "${f%% *}" = "$kver" ] ||
		{ echo "installed under $kver, built for ${f%% *}"; return 1; }
	# A man page per library function.
	for f in $(sed -n 's/^\(ordsched_[a-z_]*\);$/\1/p; s/^[ \t]*\(ordsched_[a-z_]*\);$/\1/p' \
			"$top/userspace/lib/libordsched.map"); do
		[ -f "$stage$prefix/share/man/man3/$f.3" ] ||
			{ echo "no man page for $f"; n=1; }
	done
	for f in "$stage$prefix"/share/man/man*/*; do
		LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 > /dev/null |
			sed "s|^|$f: |" | grep . && n=1
	done
	# Installed, the uapi headers are <linux/...>: no page may send a
	# reader to the source tree's uapi/ folder.
	grep -l 'uapi/' "$stage$prefix"/share/man/man*/* && n=1
	# The headers metapackages the guest runner follows for each kernel
	# line are the ones README tells a DKMS user to install.
	for f in $(sed -n 's/^[0-9.rt-]*) meta=\([a-z0-9.-]*\) ;;$/\1/p' \
			"$top/selftests/qemu/kernel-fetch.sh"); do
		grep -q "\`$f\`" "$top/README.md" ||
			{ echo "README does not name $f"; n=1; }
	done
	# A static link takes every global name of the archive: only the
	# library's own prefix, or a program's os_load() would clash.
	f=$(nm -g --defined-only "$stage$prefix/lib/libordsched.a" |
		awk 'NF == 3 && $3 !~ /^ordsched_/ { print $3 }')
	[ -z "$f" ] || { echo "libordsched.a defines:" $f; n=1; }
	# Each version of a call binds its own code: 1.0's open and
	# from_fd make no ring domain, and a program linked against 1.0
	# must get those (a swapped .symver would pass every other check);
	# 1.1's, which builds of 46ee4c2-f1661a1 had, open with the ring.
	f=$(ls "$stage$prefix"/lib/libordsched.so.*.*.*)
	for fn in ordsched_open ordsched_from_fd; do
		for v in 1.0:@ 1.1:@ 1.2:@@; do
			ver=${v%:*} at=${v#*:}
			got=$(nm -D --with-symbol-versions "$f" |
				awk -v s="$fn${at}LIBORDSCHED_$ver" '$3 == s { print $1 }')
			want=$(nm "$f" | awk -v s="${fn}_${ver//./_}" '$3 == s { print $1 }')
			if [ -z "$got" ] || [ "$got" != "$want" ]; then
				echo "$fn${at}LIBORDSCHED_$ver at '$got', ${fn}_${ver//./_} at '$want'"
				n=1
			fi
		done
	done
	[ $n = 0 ] || return 1
	installed_client "$stage$prefix" || return 1
	linked_client "$stage$prefix/include" "$stage$prefix/lib" || return 1
	dependent_module "$stage$prefix/src/ordsched"
}

# A program of a user's, built against the installed headers alone: the
# names libordsched.h tells it to use must be there.
installed_client() { # installed_client PREFIX
	printf '%s\n' '#include <libordsched.h>' \
		'int main(void) { return !(ORDSCHED_FEAT_RING && ORDSCHED_NO_DEADLINE); }' |
		cc -std=c11 -Wall -Werror -I "$1/include" -fsyntax-only -x c - ||
		{ echo "a client does not compile against $1/include"; return 1; }
}

# A program of a user's, linked against the installed library, shared
# (with pkg-config's flags when a .pc folder and its sysroot are given)
# and static, then run: ordsched_open() must answer as the header says
# where no module is loaded (-ENOENT), and the shared build must load
# LIBDIR's library.
linked_client() { # linked_client INCLUDEDIR LIBDIR [PCDIR SYSROOT]
	local dir=$work/linked flags libs
	rm -rf "$dir" && mkdir -p "$dir"
	cat > "$dir/client.c" <<-'EOF'
	#define _POSIX_C_SOURCE 200809L
	#include <errno.h>
	#include <stdio.h>
	#include <unistd.h>
	#include <libordsched.h>
	int main(void)
	{
		struct ordsched *os;
		int ret = ordsched_open(&os);

		if (!ret) {
			ordsched_close(os);
			return 0;
		}
		printf("ordsched_open: %d\n", ret);
		return access("/dev/ordsched", F_OK) ? ret != -ENOENT : 0;
	}
	EOF
	flags="-I$1 -L$2 -lordsched"
	if [ -n "${3:-}" ]; then
		flags=$(PKG_CONFIG_PATH=$3 PKG_CONFIG_SYSROOT_DIR=$4 \
			pkg-config --cflags --libs libordsched) || return 1
		echo "pkg-config: $flags"
	fi
	# shellcheck disable=SC2086 # the flags are words
	cc -std=c11 -Wall -Werror -o "$dir/shared" "$dir/client.c" $flags ||
		return 1
	# Not "ldd | grep -q" under pipefail: grep's early exit can kill
	# ldd with SIGPIPE and fail the pipeline on a match.
	libs=$(LD_LIBRARY_PATH=$2 ldd "$dir/shared") || return 1
	grep -q "libordsched.so.1 => $2/" <<<"$libs" ||
		{ echo "the program does not load $2's library:"; echo "$libs"; return 1; }
	LD_LIBRARY_PATH=$2 "$dir/shared" || { echo "shared: exit $?"; return 1; }
	cc -std=c11 -Wall -Werror -o "$dir/static" "$dir/client.c" -I"$1" \
		"$2/libordsched.a" -lpthread || return 1
	"$dir/static" || { echo "static: exit $?"; return 1; }
	# The archive inside a shared object of the user's (a plugin, a
	# language binding), which a program then loads: the archive's
	# symbol versions once made that link fail. Linked as libordsched.3
	# says, its calls stay the plugin's own.
	sed 's/int main(void)/int plugin_main(void)/' "$dir/client.c" > "$dir/plugin.c"
	cc -std=c11 -Wall -Werror -fPIC -shared -o "$dir/libplugin.so" \
		"$dir/plugin.c" -I"$1" "$2/libordsched.a" -lpthread \
		-Wl,--exclude-libs,libordsched.a || return 1
	f=$(nm -D --defined-only "$dir/libplugin.so" | grep ordsched_)
	[ -z "$f" ] || { echo "the plugin exports:"; echo "$f"; return 1; }
	printf '%s\n' 'int plugin_main(void);' \
		'int main(void) { return plugin_main(); }' > "$dir/host.c"
	cc -std=c11 -Wall -Werror -o "$dir/host" "$dir/host.c" -L"$dir" \
		-lplugin -Wl,-rpath,"$dir" || return 1
	"$dir/host" || { echo "plugin: exit $?"; return 1; }
}

# A module of a user's, built against the installed headers and symbols.
dependent_module() { # dependent_module KSRCDIR
	local dir=$work/client sym
	sym=$(awk '$3 == "ordsched" || $3 ~ /ordsched\.ko$|\/ordsched$/ { print $2; exit }' \
		"$1/$kver/Module.symvers")
	[ -n "$sym" ] || { echo "no ordsched symbol in the installed Module.symvers"; return 1; }
	rm -rf "$dir" && mkdir -p "$dir"
	cat > "$dir/client.c" <<-EOF
	// SPDX-License-Identifier: GPL-2.0
	#include <linux/module.h>
	#include <ordsched.h>
	ORDSCHED_IMPORT_NS();
	static int __init client_init(void)
	{
		pr_info("%p\n", (void *)&$sym);
		return 0;
	}
	module_init(client_init);
	MODULE_LICENSE("GPL");
	EOF
	cat > "$dir/Kbuild" <<-EOF
	ccflags-y += -I$1/include
	KBUILD_EXTRA_SYMBOLS := $1/\$(KERNELRELEASE)/Module.symvers
	obj-m := client.o
	EOF
	make -C "$kdir" M="$dir" modules > "$dir/log" 2>&1 || { cat "$dir/log"; return 1; }
	cat "$dir/log"
	! grep -q 'undefined!' "$dir/log" &&
		grep -qx ordsched <<<"$(modinfo -F depends "$dir/client.ko")"
}

check_uninstall() {
	local stage=$work/stage left
	make -s -C "$work/tree" KDIR="$kdir" DESTDIR="$stage" uninstall || return 1
	left=$(cd "$stage" && find . -type f -o -type l)
	[ -z "$left" ] || { echo "left behind:"; echo "$left"; return 1; }
}

# A live uninstall (no DESTDIR, the system's MODDIR) for a kernel whose
# modules are gone, as README tells to give KVER then: it must succeed,
# so depmod must not run for that kernel (it failed, and the userspace
# part stayed). Nothing is installed there (PREFIX is a scratch folder,
# and no /lib/modules/KVER exists): it must not fail on what is gone.
check_uninstall_gone_kernel() {
	local gone=0.0.0-ordsched-gone
	[ ! -e "/lib/modules/$gone" ] || { echo "/lib/modules/$gone exists"; return 1; }
	make -s -C "$work/tree" KVER=$gone PREFIX="$work/gone/usr" uninstall
}

check_deb() {
	local p
	make -s -C "$top" deb > /dev/null 2> "$work/deb.build" ||
		{ tail -n 30 "$work/deb.build"; return 1; }
	for p in ordsched-dkms libordsched1 libordsched-dev ordsched-tools; do
		ls "$top"/build/deb/"$p"_*.deb || return 1
	done
	lintian --fail-on error --tag-display-limit 0 "$top"/build/deb/*.changes 2>&1 |
		grep -v 'running with root privileges'
	return "${PIPESTATUS[0]}"
}

# make deb in a tree that is no git clone, with build outputs lying in it:
# the same packages, and the DKMS one holds the same files as the clone's.
check_deb_no_git() {
	local tree=$work/nogit p left
	copy_tree "$tree"
	mkdir -p "$tree/build" "$tree/userspace/out"
	touch "$tree/build/stray" "$tree/userspace/out/stray" \
		"$tree/module/stray.o" "$tree/module/stray.ko"
	make -s -C "$tree" deb > /dev/null 2> "$work/nogit.build" ||
		{ tail -n 30 "$work/nogit.build"; return 1; }
	for p in ordsched-dkms libordsched1 libordsched-dev ordsched-tools; do
		ls "$tree"/build/deb/"$p"_*.deb || return 1
	done
	# No build output reached the copy the packages were built from.
	left=$(find "$tree/build/deb/src" -name 'stray*')
	[ -z "$left" ] || { echo "copied: $left"; return 1; }
	ls "$top"/build/deb/ordsched-dkms_*.deb > /dev/null ||
		{ echo "no package of the clone's to compare with"; return 1; }
	dpkg-deb -c "$top"/build/deb/ordsched-dkms_*.deb | awk '{print $NF}' |
		sort > "$work/dkms.git"
	dpkg-deb -c "$tree"/build/deb/ordsched-dkms_*.deb | awk '{print $NF}' |
		sort > "$work/dkms.nogit"
	diff "$work/dkms.git" "$work/dkms.nogit"
}

check_debs() {
	local root=$work/dpkgroot p f n=0
	for p in libordsched1 libordsched-dev ordsched-tools; do
		f=$(ls "$top"/build/deb/"$p"_*.deb) || return 1
		grep -q dkms <<<"$(dpkg-deb -f "$f" Depends)" &&
			{ echo "$p depends on dkms"; n=1; }
		grep -q ' \./usr/src/' <<<"$(dpkg-deb -c "$f")" &&
			{ echo "$p ships /usr/src"; n=1; }
		dpkg-deb -e "$f" "$work/ctl-$p" &&
			grep -qs dkms "$work/ctl-$p"/{pre,post}{inst,rm} &&
			{ echo "$p runs dkms"; n=1; }
	done
	# As the README installs them: all at once, into an empty root.
	rm -rf "$root" && mkdir -p "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/updates"
	touch "$root/var/lib/dpkg/status"
	dpkg --root="$root" --force-depends --unpack "$top"/build/deb/*.deb || n=1
	[ $n = 0 ] || return 1
	# A program built and run against what libordsched-dev and
	# libordsched1 put there, as pkg-config gives it.
	f=$root/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	linked_client "$root/usr/include" "$f" "$f/pkgconfig" "$root"
}

check_dkms() {
	local d=$work/dkms version
	version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
	rm -rf "$d" && mkdir -p "$d"/{root,src,tree}
	dpkg -x "$top"/build/deb/ordsched-dkms_*_all.deb "$d/root" || return 1
	cp -r "$d/root/usr/src/ordsched-$version" "$d/src/" || return 1
	dkms add "ordsched/$version" --sourcetree "$d/src" --dkmstree "$d/tree" &&
		dkms build "ordsched/$version" --sourcetree "$d/src" \
			--dkmstree "$d/tree" -k "$kver" --kernelsourcedir "$kdir" ||
		{ cat "$d/tree/ordsched/$version/build/make.log" 2>/dev/null; return 1; }
	[ "$(modinfo -F version "$d/tree/ordsched/$version/$kver"/*/module/ordsched.ko)" = "$version" ] ||
		{ echo "the module does not say version $version"; return 1; }
	modinfo -F vermagic "$d/tree/ordsched/$version/$kver"/*/module/ordsched.ko |
		grep "^$kver "
}

# No symbol version a committed symbols file listed may go: a program
# linked against it would fail to start (f1661a1 dropped two, which an
# edit of the file in the same commit hid from dpkg-gensymbols).
check_symbols_kept() {
	local c sym n=0
	git -C "$top" rev-parse --git-dir > /dev/null 2>&1 ||
		{ echo "not a git checkout: nothing to compare with"; return 0; }
	for c in $(git -C "$top" log --format=%h -- debian/libordsched1.symbols); do
		for sym in $(git -C "$top" show "$c:debian/libordsched1.symbols" 2>/dev/null |
				awk '/^ [^ ]*@[^ ]* / { print $1 }'); do
			grep -q "^ $sym " "$top/debian/libordsched1.symbols" ||
				{ echo "$sym (listed at $c) is gone"; n=1; }
		done
	done
	return $n
}

check_version() {
	local conf deb map lib mod
	conf=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
	deb=$(dpkg-parsechangelog -l "$top/debian/changelog" -S Version)
	echo "dkms.conf $conf, debian/changelog $deb"
	# The library's version (pkg-config, file name, man pages) is its
	# newest symbol version node's, so --atleast-version finds the calls.
	map=$(sed -n 's/^LIBORDSCHED_\([0-9.]*\) {.*/\1/p' "$top/userspace/lib/libordsched.map" | tail -n 1)
	lib=$(sed -n 's/^LIB_VERSION := //p' "$top/userspace/Makefile")
	echo "libordsched.map $map, LIB_VERSION $lib"
	# DKMS replaces an installed module only by a newer version: the
	# module says its own, the packages'.
	mod=$(sed -n 's/^MODULE_VERSION("\(.*\)");$/\1/p' "$top/module/main.c")
	echo "MODULE_VERSION $mod"
	[ -n "$conf" ] && [ "$conf" = "$deb" ] && [ "$mod" = "$conf" ] &&
		[ -n "$map" ] && [ "$lib" = "$map.0" ]
}

check kdir check_kdir
check 32bit check_32bit
check install check_install
check uninstall check_uninstall
check uninstall_gone_kernel check_uninstall_gone_kernel
check deb check_deb
check deb_no_git check_deb_no_git
check debs check_debs
check dkms check_dkms
check version check_version
check symbols_kept check_symbols_kept
for d in "${@:3}"; do
	use_kdir "$d"
	check "install.$kver" check_install
	check "uninstall.$kver" check_uninstall
	check "dkms.$kver" check_dkms
done
exit $failed
