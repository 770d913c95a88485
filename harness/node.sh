#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make node: Debian's Node.js 18, unmodified, runs bench/node/fsbench.js in
# the guest, with Debian's libuv1 and with ours (patches/libuv) through
# LD_LIBRARY_PATH, alternately in the same boot, on ext4 on a null_blk
# disk of 0.5 ms: readFile of 10000 files, stat of a tree, copy of 1000
# files, each cold and warm, NODE_ROUNDS times (3).  node and libnode108
# are unpacked from Debian's packages, not installed: the host may have
# another Node.js.  Writes .build/node/: results.csv (medians), table.md
# and console.log.
. "$(dirname "$0")/lib.sh"
x86_64_only "make node"

OUT=$BUILD/node
ROOT=$OUT/root
LIBDIR=$ROOT/usr/lib/x86_64-linux-gnu
VER=$(apt-cache show libnode108 | sed -n 's/^Version: //p' | head -n 1)
# What libnode108 loads from the host: libraries, and JavaScript that
# Debian keeps out of its binary.
PKGS="libc-ares2 libbrotli1 libicu72 libnghttp2-14 node-acorn
      node-cjs-module-lexer node-undici"
mkdir -p "$OUT"

node_unpack()
{
	local missing

	# shellcheck disable=SC2086 # a list of names
	missing=$(deb_missing $PKGS)
	[ -z "$missing" ] || $SUDO apt-get install -y -q --no-install-recommends $missing ||
		return
	rm -rf "$ROOT" && mkdir -p "$ROOT" &&
		deb_unpack "$ROOT" "nodejs=$VER" "libnode108=$VER" &&
		echo "$VER" >"$ROOT/version"
}

[ "$(cat "$ROOT/version" 2>/dev/null)" = "$VER" ] ||
	step "Debian's node $VER, unpacked" "$LOGS/node-unpack.log" node_unpack
LD_LIBRARY_PATH=$LIBDIR "$ROOT/usr/bin/node" -e 0 ||
	fail "node" "" "$ROOT/usr/bin/node does not start on the host"
LIBUV_BUILD_ONLY=1 "$HARNESS/libuv.sh"
OURS=$BUILD/libuv/build-ours
[ -e "$OURS/libuv.so.1" ] || fail "libuv" "" "no $OURS/libuv.so.1"

export VM_APPEND="null_blk.nr_devices=1 null_blk.memory_backed=1 null_blk.gb=1
	null_blk.bs=4096 null_blk.irqmode=2 null_blk.completion_nsec=500000"
guest()
{
	VM_LOG=$OUT/vm.log "$HARNESS/vm.sh" "P11_ROUNDS=${NODE_ROUNDS:-3} \
		sh $REPO/bench/node/guest-node.sh $LIBDIR $OURS"
}
step "node in the guest, stock libuv1 and ours (a few minutes under TCG)" \
	"$OUT/console.log" guest

{
	echo "bench,param,method,metric,value"
	grep '^CSV,P11,' "$OUT/console.log" | cut -d, -f2-
} >"$OUT/all.csv"
awk -F, -f "$REPO/bench/node/report.awk" "$OUT/all.csv" >"$OUT/table.md"
echo
cat "$OUT/table.md"
say "results: ${OUT#"$REPO"/}/all.csv, table.md; console: ${OUT#"$REPO"/}/console.log"
