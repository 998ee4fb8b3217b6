#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack /usr/src/linux-source-6.12.tar.xz (Debian's newest LTS source) once
# into BUILD_DIR/src and print the tree's path. It gives the debug kernel,
# checkpatch.pl, kernel-doc and the kselftest headers. Re-extracted only
# when the package version changes.
#
# usage: kernel-source.sh BUILD_DIR
set -euo pipefail

build=${1:?usage: kernel-source.sh BUILD_DIR}
series=6.12
tarball=/usr/src/linux-source-$series.tar.xz
tree=$build/src/linux-source-$series
version=$(dpkg-query -W -f='${Version}' "linux-source-$series")

mkdir -p "$build/src"
exec 9> "$build/src/.lock"
flock 9
if [ "$(cat "$tree/.ordsched-version" 2>/dev/null)" != "$version" ]; then
	echo "kernel-source: unpacking linux-source-$series $version" >&2
	rm -rf "$tree"
	tar -C "$build/src" -xf "$tarball"
	echo "$version" > "$tree/.ordsched-version"
fi
echo "$tree"
