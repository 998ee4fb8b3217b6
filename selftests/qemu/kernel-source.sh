#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack /usr/src/linux-source-6.1.tar.xz once into BUILD_DIR/src and print
# the tree's path. Re-extracted only when the package version changes.
#
# usage: kernel-source.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: kernel-source.sh BUILD_DIR}
tarball=/usr/src/linux-source-6.1.tar.xz
tree=$build/src/linux-source-6.1
version=$(dpkg-query -W -f='${Version}' linux-source-6.1)

if [ "$(cat "$tree/.ordsched-version" 2>/dev/null)" != "$version" ]; then
	echo "kernel-source: unpacking linux-source-6.1 $version" >&2
	rm -rf "$build/src" && mkdir -p "$build/src"
	tar -C "$build/src" -xf "$tarball"
	echo "$version" > "$tree/.ordsched-version"
fi
echo "$tree"
