#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the tools the build and the guest tests need, from Debian's
# packages only (no kernel, no headers: kernel-fetch.sh unpacks those into
# the build folder), then fetch the default kernel, Debian's stock 6.1.
# Idempotent: a second run installs nothing and downloads nothing. Prints
# KDIR=..., KVER=... and IMAGE=... of the default kernel on success.
#
# usage: deps.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: deps.sh BUILD_DIR}
mkdir -p "$build"

pkgs=(
	make gcc libc6-dev bc bison flex libelf-dev libssl-dev dwarves kmod
	cpio xz-utils gzip busybox-static qemu-system-x86 linux-source-6.12
	sparse perl python3 gnuplot-nox zlib1g-dev valgrind
)

missing=()
for p in "${pkgs[@]}"; do
	[[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == *'ok installed'* ]] ||
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

here=$(cd "$(dirname "$0")" && pwd)
"$here/kernel-fetch.sh" "$build" 6.1
