#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages (ordsched-dkms, libordsched1, libordsched-dev,
# ordsched-tools) from a copy of the tree, so the clone stays clean, and
# leave the .deb files in OUT_DIR.
#
# usage: build-deb.sh OUT_DIR
set -euo pipefail

top=$(cd "$(dirname "$0")/../.." && pwd -P)
out=$(mkdir -p "${1:?usage: build-deb.sh OUT_DIR}" && cd "$1" && pwd)
tree=$out/src/ordsched

# The tree's own files, without build outputs: git's list in a clone; in
# a tree that is no clone (a release tarball, say), every file but those
# .gitignore names. tar reads its file patterns itself; the anchored ones
# ("/build/") and those of folders ("name/") it would not match, so they
# become excludes here.
source_tar() {
	local pat
	local -a ex=()

	if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" = "$top" ]; then
		(cd "$top" && git ls-files --cached --others --exclude-standard -z |
			xargs -0 tar -cf - --ignore-failed-read 2>/dev/null)
		return
	fi
	while read -r pat; do
		case $pat in
		/*) ex+=("--exclude=.${pat%/}") ;;
		*/) ex+=("--exclude=${pat%/}") ;;
		esac
	done < <(grep -v '^#' "$top/.gitignore")
	tar -C "$top" -cf - --exclude-vcs --exclude-vcs-ignores "${ex[@]}" .
}

rm -rf "$out/src" "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo
mkdir -p "$tree"
source_tar | tar -C "$tree" -xf -
(cd "$tree" && dpkg-buildpackage -us -uc -b >&2)
mv "$out"/src/*.deb "$out"/src/*.changes "$out"/src/*.buildinfo "$out/"
ls "$out"/*.deb
