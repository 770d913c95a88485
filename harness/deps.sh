#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the harness needs, only those missing.
. "$(dirname "$0")/lib.sh"

PKGS="build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils rsync
      ccache git e2fsprogs qemu-system-x86 liburing-dev sparse groff-base man-db
      gnuplot-nox python3-ply python3-git linux-perf
      fio jq dpkg-dev libaio-dev libnuma-dev zlib1g-dev attr curl"
[ -n "${KERNEL_SRC:-}" ] || PKGS="$PKGS linux-source-6.12"
[ "$ARCH" = arm64 ] &&
	PKGS="$PKGS gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

# The arm64 guest's userland: busybox-static for arm64, unpacked, not
# installed.
arm64_busybox()
{
	local tmp

	dpkg --print-foreign-architectures | grep -qx arm64 ||
		{ $SUDO dpkg --add-architecture arm64 && $SUDO apt-get update -q; } || return
	tmp=$(mktemp -d) || return
	# The arm64 lists may be missing even where dpkg has the arch.
	(cd "$tmp" && { apt-get download busybox-static:arm64 ||
		{ $SUDO apt-get update -q && apt-get download busybox-static:arm64; }; }) &&
		dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$tmp/root" &&
		mkdir -p "${ARM64_BUSYBOX%/*}" &&
		cp "$tmp/root/bin/busybox" "$ARM64_BUSYBOX"
	local rc=$?
	rm -rf "$tmp"
	return $rc
}
if [ "$ARCH" = arm64 ] && [ ! -x "$ARM64_BUSYBOX" ]; then
	step "download busybox-static for arm64" "$LOGS/busybox.log" arm64_busybox
fi

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

step "apt-get update" "$LOGS/apt-update.log" $SUDO apt-get update -q
step "install:$missing" "$LOGS/apt-install.log" $SUDO apt-get install -y -q --no-install-recommends $missing
