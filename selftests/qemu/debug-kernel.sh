#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the debug kernel from linux-source-6.12 tinyconfig plus debug.config
# (KASAN, lockdep, kmemleak, UBSAN, debug objects, ...). The result is cached
# under BUILD_DIR/debug and reused while the source package and the config
# fragment are unchanged. Each configuration builds in its own folder,
# BUILD_DIR/debug/<hash>, so a rebuild never pulls a kernel from under a
# run that is still using the previous one. Prints KDIR=..., IMAGE=... and
# KVER=... on success.
#
# usage: debug-kernel.sh BUILD_DIR [rt]
#   rt: merge debug-rt.config too (PREEMPT_RT)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=$(mkdir -p "${1:?usage: debug-kernel.sh BUILD_DIR}" && cd "$1" && pwd)
src=$("$here/kernel-source.sh" "$build")
jobs=$(($(nproc) + 1))
fragments=("$here/debug.config")
[ "${2:-}" = rt ] && fragments+=("$here/debug-rt.config")

key=$( { cat "$src/.ordsched-version"; cat "${fragments[@]}"; } | sha256sum | cut -c1-16)
out=$build/debug/$key

# One build at a time: a second run waits here, then reuses the result.
mkdir -p "$build/debug"
exec 9> "$build/debug/.lock"
flock 9
if [ "$(cat "$out/.ordsched-key" 2>/dev/null)" != "$key" ]; then
	echo "debug-kernel: building (config $key), a few minutes" >&2
	rm -rf "$out" && mkdir -p "$out"
	make -s -C "$src" O="$out" ARCH=x86_64 tinyconfig >&2
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" \
		"$out/.config" "${fragments[@]}" >/dev/null
	make -s -C "$src" O="$out" ARCH=x86_64 olddefconfig >&2
	# Every option the fragments ask for (the last word on each) must have
	# survived olddefconfig.
	while IFS='=' read -r opt val; do
		case "$val" in
		n) ! grep -q "^$opt=" "$out/.config" ;;
		*) grep -qx "$opt=$val" "$out/.config" ;;
		esac || { echo "debug-kernel: $opt=$val not applied" >&2; exit 1; }
	done < <(cat "${fragments[@]}" | grep -E '^CONFIG_' |
		awk -F= '!($1 in v) { k[n++] = $1 } { v[$1] = $2 }
			END { for (i = 0; i < n; i++) print k[i] "=" v[k[i]] }')
	make -s -C "$out" ARCH=x86_64 -j"$jobs" bzImage modules >&2
	echo "$key" > "$out/.ordsched-key"
else
	echo "debug-kernel: reusing $out (config $key)" >&2
fi

echo "KDIR=$out"
echo "IMAGE=$out/arch/x86/boot/bzImage"
echo "KVER=$(cat "$out/include/config/kernel.release")"
