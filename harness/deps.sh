#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the harness needs, only those missing.
. "$(dirname "$0")/lib.sh"

PKGS="build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils rsync
      ccache git e2fsprogs qemu-system-x86 liburing-dev sparse groff-base man-db
      gnuplot-nox python3-ply python3-git linux-perf
      fio jq dpkg-dev libaio-dev libnuma-dev zlib1g-dev attr curl wrk cmake libuv1"
[ -n "${KERNEL_SRC:-}" ] || PKGS="$PKGS linux-source-6.12"
[ "$ARCH" = arm64 ] &&
	PKGS="$PKGS gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"

export DEBIAN_FRONTEND=noninteractive

# unpack_deb PKG FILE DEST: FILE of Debian's package PKG, unpacked.
unpack_deb()
{
	local tmp rc=0

	tmp=$(mktemp -d) || return
	deb_unpack "$tmp" "$1" && mkdir -p "${3%/*}" && cp "$tmp/$2" "$3" || rc=$?
	rm -rf "$tmp"
	return $rc
}

# The arm64 guest's userland: busybox-static for arm64.
arm64_busybox()
{
	dpkg --print-foreign-architectures | grep -qx arm64 ||
		{ $SUDO dpkg --add-architecture arm64 && $SUDO apt-get update -q; } || return
	unpack_deb busybox-static:arm64 bin/busybox "$ARM64_BUSYBOX"
}
if [ "$ARCH" = arm64 ] && [ ! -x "$ARM64_BUSYBOX" ]; then
	step "download busybox-static for arm64" "$LOGS/busybox.log" arm64_busybox
fi
# make bench's P10 compares aserve with nginx in the guest.
if [ "$ARCH" = x86_64 ] && [ ! -x "$NGINX" ]; then
	step "download nginx for the guest" "$LOGS/nginx.log" \
		unpack_deb nginx usr/sbin/nginx "$NGINX"
fi

# shellcheck disable=SC2086 # a list of names
missing=$(deb_missing $PKGS)
[ -z "$missing" ] && exit 0

step "apt-get update" "$LOGS/apt-update.log" $SUDO apt-get update -q
step "install:$missing" "$LOGS/apt-install.log" $SUDO apt-get install -y -q --no-install-recommends $missing
