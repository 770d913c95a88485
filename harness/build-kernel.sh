#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Configure (tinyconfig + our fragments) and build the kernel and its UAPI headers.
. "$(dirname "$0")/lib.sh"

frags=$(kernel_fragments)
[ "${DEBUG:-0}" = 1 ] && frags="$frags $HARNESS/config/debug.config"

configure()
{
	kconfigure "$TREE" "$OBJ" $frags || return
	# A fragment line that did not stick is a typo or a missing dependency.
	local bad
	bad=$(grep -h '^CONFIG_' $frags | grep -vxFf "$OBJ/.config" || true)
	[ -z "$bad" ] || { echo "not set as asked: $bad"; return 1; }
}

# x86's compressed image takes vmlinux in with .incbin, which ccache does
# not hash: when the compressed size does not change, a cached piggy.o
# would boot the kernel before the edit.  It is made again uncached.
build()
{
	local piggy=$OBJ/arch/x86/boot/compressed/piggy.o

	kmake "$TREE" "$OBJ" "$(basename "$KIMAGE")" || return
	[ -e "$piggy" ] || return 0
	rm -f "$piggy"
	CCACHE_DISABLE=1 kmake "$TREE" "$OBJ" "$(basename "$KIMAGE")"
}

mkdir -p "$OBJ"
stamp=$(cat $frags | sha1sum | cut -c1-12)
if [ "$(cat "$OBJ/.config-stamp" 2>/dev/null)" != "$stamp" ]; then
	step "configure $ARCH kernel (tinyconfig + ${frags//$HARNESS\//})" "$LOGS/config.log" configure
	echo "$stamp" >"$OBJ/.config-stamp"
fi
need_space 2000
step "build $ARCH kernel (from scratch about 10 min on 2 cores, after an edit under 1 min)" \
	"$LOGS/kernel.log" build
step "export UAPI headers" "$LOGS/headers.log" kmake "$TREE" "$OBJ" headers_install INSTALL_HDR_PATH="$HDR"
