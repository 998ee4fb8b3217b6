#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch one of Debian's kernels for building and booting, without installing
# anything on the host: the headers (with their -common tree and kbuild) and
# the image are apt-get downloaded and unpacked with dpkg -x into
# BUILD_DIR/kernels/<abi>. Which ABI is asked of the metapackage, so a
# security update moves the kernel along. Idempotent: a kernel already
# unpacked is reused. Prints KVER=..., KDIR=... and IMAGE=....
#
# usage: kernel-fetch.sh BUILD_DIR 6.1|6.1-rt|6.12|6.12-rt
set -euo pipefail

build=$(mkdir -p "${1:?usage: kernel-fetch.sh BUILD_DIR KERNEL}" && cd "$1" && pwd)
case ${2:?usage: kernel-fetch.sh BUILD_DIR KERNEL} in
6.1) meta=linux-headers-amd64 ;;
6.1-rt) meta=linux-headers-rt-amd64 ;;
6.12) meta=linux-headers-6.12-amd64 ;;
6.12-rt) meta=linux-headers-6.12-rt-amd64 ;;
*) echo "kernel-fetch: unknown kernel '$2'" >&2; exit 2 ;;
esac

# depends PACKAGE: the packages it depends on, one a line.
depends() {
	apt-cache depends "$1" | sed -n 's/^ *|\{0,1\}Depends: \([^<> ]*\)$/\1/p'
}

headers=$(depends "$meta" | grep -m1 '^linux-headers-') ||
	{ echo "kernel-fetch: $meta names no headers (apt-get update?)" >&2; exit 1; }
abi=${headers#linux-headers-}
# The metapackages follow the host's release: elsewhere (or pinned to
# backports) "6.1" could name a 6.12 kernel, and every result would be
# labelled 6.1. Refuse an ABI that is not the series and flavour asked.
series=${2%-rt}
rt=no
[[ $abi == *-rt-* ]] && rt=yes
if [[ $abi != "$series".* ]] || [ "$rt" != "$([[ $2 == *-rt ]] && echo yes || echo no)" ]; then
	echo "kernel-fetch: $meta names $abi, not a $2 kernel" >&2
	exit 1
fi
root=$build/kernels/$abi
kdir=$root/usr/src/$headers
image=$root/boot/vmlinuz-$abi

# One fetch at a time per build folder; a second caller reuses the result.
mkdir -p "$build/kernels"
exec 9> "$build/kernels/.lock"
flock 9
if [ ! -f "$root/.ordsched-complete" ]; then
	echo "kernel-fetch: downloading $abi" >&2
	rm -rf "$root" && mkdir -p "$root/pkg"
	mapfile -t pkgs < <(depends "$headers" | grep -E '^linux-(headers|kbuild)-')
	pkgs+=("$headers")
	# Debian ships the image unsigned or signed under two names.
	if apt-cache show "linux-image-$abi-unsigned" > /dev/null 2>&1; then
		pkgs+=("linux-image-$abi-unsigned")
	else
		pkgs+=("linux-image-$abi")
	fi
	(cd "$root/pkg" && apt-get download -qq "${pkgs[@]}" >&2 2>/dev/null) || {
		echo "kernel-fetch: apt-get download ${pkgs[*]} failed" >&2
		exit 1
	}
	for deb in "$root"/pkg/linux-{headers,kbuild}-*.deb; do
		dpkg -x "$deb" "$root"
	done
	# Of the image only the kernel itself: the guest loads no module
	# but ours.
	dpkg-deb --fsys-tarfile "$root"/pkg/linux-image-*.deb |
		tar -C "$root" -x --wildcards './boot/vmlinuz-*'
	rm -rf "$root/pkg"
	# The headers' Makefile includes the -common tree by its installed
	# path: point it at the unpacked copy.
	sed -i "s|^include /usr/src/|include $root/usr/src/|" "$kdir/Makefile"
	[ -f "$image" ] && [ -f "$kdir/Module.symvers" ] ||
		{ echo "kernel-fetch: $abi unpacked incomplete" >&2; exit 1; }
	touch "$root/.ordsched-complete"
fi

echo "KVER=$abi"
echo "KDIR=$kdir"
echo "IMAGE=$image"
