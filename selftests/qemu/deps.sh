#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build and the guest tests need, from Debian's
# packages only, and unpack the stock kernel image matching the installed
# headers into the build folder. Idempotent: a second run installs nothing
# and downloads nothing. Prints KDIR=... and KVER=... on success.
#
# usage: deps.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: deps.sh BUILD_DIR}
mkdir -p "$build"

pkgs=(
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev dwarves kmod
	cpio xz-utils gzip busybox-static qemu-system-x86 linux-headers-amd64
	linux-source-6.1 sparse perl python3 gnuplot-nox zlib1g-dev
)

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	[ "$(id -u)" = 0 ] || {
		echo "deps: need root to install: ${missing[*]}" >&2
		exit 1
	}
	echo "deps: installing ${missing[*]}" >&2
	apt-get update -qq >&2
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends "${missing[@]}" >&2
fi

# The ABI the headers metapackage points at, e.g. 6.1.0-56-amd64.
kver=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 |
	grep -o 'linux-headers-[0-9][^ ,]*-amd64' | head -n1 |
	sed 's/^linux-headers-//')
[ -n "$kver" ] || { echo "deps: cannot tell the headers' ABI" >&2; exit 1; }
kdir=/usr/src/linux-headers-$kver
[ -f "$kdir/Makefile" ] || { echo "deps: $kdir missing" >&2; exit 1; }

stock=$build/stock
if [ ! -f "$stock/vmlinuz-$kver" ]; then
	rm -rf "$stock/pkg" && mkdir -p "$stock/pkg"
	(
		cd "$stock/pkg"
		# Debian ships the image unsigned or signed under two names.
		apt-get download "linux-image-$kver-unsigned" >&2 2>/dev/null ||
			apt-get download "linux-image-$kver" >&2
	)
	dpkg -x "$stock"/pkg/*.deb "$stock/pkg/root"
	cp "$stock/pkg/root/boot/vmlinuz-$kver" "$stock/vmlinuz-$kver"
	rm -rf "$stock/pkg"
fi

echo "KVER=$kver"
echo "KDIR=$kdir"
