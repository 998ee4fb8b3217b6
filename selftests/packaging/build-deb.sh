#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (ordsched-dkms, libordsched1, libordsched-dev,
# ordsched-tools) from a copy of the tree, so the clone stays clean, and
# leave the .deb files in OUT_DIR.
#
# usage: build-deb.sh OUT_DIR
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd)
out=$(mkdir -p "${1:?usage: build-deb.sh OUT_DIR}" && cd "$1" && pwd)
tree=$out/src/ordsched

rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$tree"
(cd "$top" && git ls-files --cached --others --exclude-standard -z |
	xargs -0 tar -cf - --ignore-failed-read 2>/dev/null) | tar -C "$tree" -xf -
(cd "$tree" && dpkg-buildpackage -us -uc -b >&2)
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
ls "$out"/*.deb
