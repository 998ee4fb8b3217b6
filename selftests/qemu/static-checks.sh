#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Static checks of the kernel sources, one result line per check:
#   checkpatch.pl --strict on every kernel source file,
#   kernel-doc on every exported function (in the public headers, and
#   quiet),
#   sparse (C=2) over the whole module build against the stock headers.
# Prints "ok NAME" / "not ok NAME" lines with the findings below failures,
# exits non-zero if any check failed.
#
# usage: static-checks.sh BUILD_DIR KDIR
set -uo pipefail

# Without -e, a failed ${1:?} in $(...) would leave build empty and go on.
if [ $# -ne 2 ] || [ -z "$1" ] || [ ! -d "$2" ]; then
	echo "usage: static-checks.sh BUILD_DIR KDIR (an existing kernel build tree)" >&2
	exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
build=$(mkdir -p "$1" && cd "$1" && pwd) || exit 2
kdir=${2:?usage: static-checks.sh BUILD_DIR KDIR}
src=$("$here/kernel-source.sh" "$build") || exit 1
failed=0

report() { # report NAME FINDINGS
	if [ -z "$2" ]; then
		echo "ok $1"
	else
		echo "not ok $1"
		sed 's/^/#   /' <<<"$2"
		failed=1
	fi
}

mapfile -t files < <(cd "$top" && git ls-files --cached --others \
	--exclude-standard 'module/*.[ch]' 'uapi/*.h' 'selftests/qemu/faulty/*.[ch]' |
	sort -u | while read -r f; do [ -f "$f" ] && echo "$f"; done)
# git refuses a checkout another user owns ("dubious ownership"): no file
# would be checked, and nothing would say so.
if [ ${#files[@]} -lt 10 ]; then
	echo "not ok static-checks.files # git ls-files listed ${#files[@]} sources"
	exit 1
fi

# checkpatch, a process a file and a CPU each: its findings in a scratch
# folder, then reported in order.
found=$(mktemp -d)
trap 'rm -rf "$found"' EXIT
printf '%s\0' "${files[@]}" | (cd "$top" && xargs -0 -P "$(nproc)" -I{} \
	sh -c '"$0" --no-tree --strict --quiet --show-types -f "$1" \
		> "$2/$(printf %s "$1" | tr / _)" 2>&1' \
	"$src/scripts/checkpatch.pl" {} "$found")
for f in "${files[@]}"; do
	report "checkpatch.$f" "$(cat "$found/${f//\//_}")"
done

# Every exported function has a kernel-doc comment in the public headers,
# where a client reads its contract, and kernel-doc has nothing to say
# about any file.
for f in "${files[@]}"; do
	out=$(cd "$top" && "$src/scripts/kernel-doc" -none "$f" 2>&1)
	for sym in $(sed -n 's/^EXPORT_SYMBOL[A-Z_]*(\([a-z0-9_]*\));/\1/p' "$top/$f"); do
		grep -rq "^ \* $sym() - " "$top/module/include" ||
			out+="${out:+$'\n'}$f: $sym is exported without kernel-doc in module/include"
	done
	report "kernel-doc.$f" "$out"
done

# sparse over a copy of the module sources (the tree may hold a user's
# own build against another kernel).
tree=$build/sparse
rm -rf "$tree" && mkdir -p "$tree"
tar -C "$top" --exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' \
	--exclude='*.mod' --exclude='*.mod.c' -cf - Kbuild module uapi |
	tar -C "$tree" -xf -
out=$(make -s -C "$kdir" M="$tree" C=2 W=1 modules 2>&1 |
	grep -v '^Skipping BTF generation')
report sparse "$out"

exit $failed
