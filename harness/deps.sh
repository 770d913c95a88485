#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the host packages the harness needs, only those missing.
. "$(dirname "$0")/lib.sh"

PKGS="build-essential flex bison bc libelf-dev libssl-dev cpio xz-utils rsync
      ccache git e2fsprogs qemu-system-x86 liburing-dev sparse groff-base man-db
      gnuplot-nox python3-ply python3-git linux-perf
      fio jq dpkg-dev libaio-dev libnuma-dev zlib1g-dev"
[ -n "${KERNEL_SRC:-}" ] || PKGS="$PKGS linux-source-6.12"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
step "apt-get update" "$LOGS/apt-update.log" $SUDO apt-get update -q
step "install:$missing" "$LOGS/apt-install.log" $SUDO apt-get install -y -q --no-install-recommends $missing
