#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# guest-node.sh NODE_LIBDIR OUR_LIBUV_DIR: P11, in the guest: fsbench.js
# with Debian's node and its stock libuv1, then with ours through
# LD_LIBRARY_PATH, alternately, on ext4 on the null_blk disk (0.5 ms a
# request); each pass cold (caches dropped) and warm (after a pass).
# Paths are relative to the disk's root, the current directory: a walk
# from / would cross the guest's root, 9p, whose names a lookup without
# waiting cannot use, as it could a local root's.
here=$(dirname "$0")
nodelib=$1
ours=$2
rounds=${P11_ROUNDS:-3}
dev=/dev/nullb0
mnt=/mnt/p11
failed=0

[ -b $dev ] || { echo "p11: no $dev: boot with null_blk"; exit 1; }
if ! mountpoint -q $mnt; then
	mkdir -p $mnt && mkfs.ext4 -q -F $dev && mount $dev $mnt && chmod 1777 $mnt || exit 1
fi

# node LIB ARGS...: Debian's node with the stock libuv1 or ours.
node()
{
	with=$1
	shift
	if [ "$with" = ours ]; then
		LD_LIBRARY_PATH=$ours:$nodelib "$nodelib/../../bin/node" "$@"
	else
		LD_LIBRARY_PATH=$nodelib "$nodelib/../../bin/node" "$@"
	fi
}

drop()
{
	sync
	echo 3 >/proc/sys/vm/drop_caches
}

here=$(cd "$here" && pwd)
cd $mnt || exit 1
node stock "$here/fsbench.js" setup . - stock || exit 1
node ours -e 'process.exit(process.versions.uv ? 0 : 1)' || exit 1
r=1
while [ $r -le "$rounds" ]; do
	for mode in read stat copy; do
		for lib in stock ours; do
			drop
			node $lib "$here/fsbench.js" $mode . cold $lib || failed=$((failed + 1))
			node $lib "$here/fsbench.js" $mode . warm $lib || failed=$((failed + 1))
		done
	done
	r=$((r + 1))
done
exit $failed
