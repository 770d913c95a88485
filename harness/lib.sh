# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the host-side harness: paths, steps with progress, clear failures.

set -eu

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$REPO/harness
BUILD=${BUILD:-$REPO/.build}
TREE=$BUILD/linux
# ARCH: the guest's architecture, x86_64 (the host's) or arm64 (built with
# Debian's cross compiler, run under qemu-system-aarch64).
ARCH=${ARCH:-x86_64}
[ "$ARCH" = x86 ] && ARCH=x86_64
case $ARCH in
x86_64)	CROSS_COMPILE= KIMAGE=arch/x86/boot/bzImage sfx= ;;
arm64)	CROSS_COMPILE=aarch64-linux-gnu- KIMAGE=arch/arm64/boot/Image sfx=-arm64 ;;
*)	printf 'FAILED: ARCH must be x86_64 or arm64, not "%s"\n' "$ARCH" >&2; exit 1 ;;
esac
[ "${DEBUG:-0}" = 1 ] && sfx=$sfx-debug
OBJ=$BUILD/obj$sfx
LOGS=$BUILD/logs$sfx
HDR=$OBJ/usr
USEROBJ=$OBJ/user
# The stock 6.12 kernel (tag "base" of the tree), for comparisons.
STOCK=$BUILD/obj-base
JOBS=${JOBS:-$(nproc)}
mkdir -p "$LOGS"

say()
{
	printf '==> %s\n' "$*" >&2
}

# fail STEP LOG MESSAGE: the one clear failure message of a run.
fail()
{
	local step=$1 log=$2
	shift 2
	printf '\nFAILED: %s: %s\n' "$step" "$*" >&2
	if [ -n "$log" ] && [ -s "$log" ]; then
		printf -- '--- last lines of %s ---\n' "$log" >&2
		tail -n 25 "$log" >&2
		printf -- '--- full log: %s\n' "$log" >&2
	fi
	exit 1
}

# run_logged NAME LOG CMD...: run CMD with its output in LOG, printing
# progress every 15 s; sets LOGGED_RC to CMD's status.  Call it outside
# any if, && or ||: there bash would ignore set -e in a CMD that is a
# function, and a failed command in its middle would go unnoticed.
run_logged()
{
	local name=$1 log=$2 start pid
	shift 2
	say "$name (log: ${log#"$REPO"/})"
	start=$SECONDS
	"$@" >"$log" 2>&1 &
	pid=$!
	while ! wait_for "$pid" 15; do
		printf '    ... %s: %ds, %s\n' "$name" $((SECONDS - start)) \
			"$(tail -n 1 "$log" | cut -c1-70)" >&2
	done
	LOGGED_RC=0
	wait "$pid" || LOGGED_RC=$?
}

# step NAME LOG CMD...: run_logged, and fail with the log's tail if CMD fails.
step()
{
	local name=$1 log=$2 start=$SECONDS

	run_logged "$@"
	[ "$LOGGED_RC" = 0 ] || fail "$name" "$log" "exit status $LOGGED_RC"
	printf '    done in %ds\n' $((SECONDS - start)) >&2
}

# wait_for PID SECONDS: true once PID has exited, false after SECONDS.
wait_for()
{
	local i
	for ((i = 0; i < $2 * 5; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	return 1
}

# kmake TREE OBJ ARG...: make in kernel tree TREE with its objects in OBJ,
# through ccache when it is installed.
kmake()
{
	local tree=$1 obj=$2 cc=()

	shift 2
	command -v ccache >/dev/null && cc=(CC="ccache ${CROSS_COMPILE}gcc")
	# Relative paths let a fresh clone elsewhere hit the same cache.
	# Depend mode takes the headers from gcc's -MMD output: a miss costs
	# one compile, not a compile and a second preprocessor run (+30 %).
	CCACHE_BASEDIR=$BUILD CCACHE_DEPEND=1 make -C "$tree" O="$obj" ARCH="$ARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" -j"$JOBS" "${cc[@]}" "$@"
}

# kernel_fragments: the config fragments of this ARCH's kernel, without the
# debug one.
kernel_fragments()
{
	echo "$HARNESS/config/base.config $HARNESS/config/$ARCH.config"
}

# kconfigure TREE OBJ FRAGMENT...: tinyconfig with the fragments merged in.
kconfigure()
{
	local tree=$1 obj=$2

	shift 2
	kmake "$tree" "$obj" tinyconfig &&
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" &&
		kmake "$tree" "$obj" olddefconfig
}

# make_selftests TREE OUTPUT INCLUDE: build our selftests of TREE in OUTPUT
# against the UAPI headers in INCLUDE.  make does not see the headers: when
# they changed (a new system call number), everything is built again.
make_selftests()
{
	local dir=$1/tools/testing/selftests/async_syscall stamp=$2/.uapi sum

	sum=$(cat "$3"/linux/async_syscall.h "$3"/asm/unistd*.h | md5sum) || return
	mkdir -p "$2" || return
	if [ "$(cat "$stamp" 2>/dev/null)" != "$sum" ]; then
		rm -f "$stamp"
		make -C "$dir" OUTPUT="$2" ARCH="$ARCH" clean || return
	fi
	make -C "$dir" OUTPUT="$2" KHDR_INCLUDES="-isystem $3" ARCH="$ARCH" \
		CROSS_COMPILE="$CROSS_COMPILE" ${CROSS_COMPILE:+LDFLAGS=-static} &&
		echo "$sum" >"$stamp"
}

# checkpatch_allowed FORMAT: print each PATH:TYPE of harness/checkpatch-allowed
# through printf FORMAT PATH TYPE.
checkpatch_allowed()
{
	local entry

	grep -v -e '^#' -e '^$' "$HARNESS/checkpatch-allowed" |
		while read -r entry; do
			# shellcheck disable=SC2059
			printf "$1" "${entry%%:*}" "${entry##*:}"
		done
}

# check_dmesg FILE: fail on any kernel splat in a guest's dmesg.
check_dmesg()
{
	local splats='WARNING:|BUG:|Oops|KASAN|UBSAN|suspected memory leak|'\
'possible recursive locking|possible circular locking|inconsistent lock state|'\
'suspicious RCU usage|INFO: task .* blocked|soft lockup|general protection fault|'\
'Call Trace:'

	if grep -E "$splats" "$1" >&2; then
		printf 'FAILED: kernel splat in the guest dmesg, see %s\n' "$1" >&2
		return 1
	fi
}

need_space()
{
	local avail
	avail=$(df -Pm "$BUILD" | awk 'NR == 2 { print $4 }')
	[ "$avail" -ge "$1" ] ||
		fail "disk space" "" "$BUILD has ${avail} MiB free, need $1 MiB"
}

# build_stock: the stock kernel in $STOCK: tag "base" of the tree in its own
# worktree, our config without our options.
build_stock()
{
	local frag=$STOCK/stock.config

	[ -d "$BUILD/linux-base" ] ||
		git -C "$TREE" worktree add -f "$BUILD/linux-base" base || return
	mkdir -p "$STOCK"
	cat $(kernel_fragments) | grep -v ASYNC_SYSCALL >"$frag"
	kconfigure "$BUILD/linux-base" "$STOCK" "$frag" &&
		kmake "$BUILD/linux-base" "$STOCK" "$(basename "$KIMAGE")"
}

# deb_src_enable: a deb-src line for Debian bookworm in apt's sources (once),
# for apt-get source.
deb_src_enable()
{
	local list=/etc/apt/sources.list.d/async-syscall-src.list sudo=

	grep -qs '^deb-src' "$list" && return
	[ "$(id -u)" = 0 ] || sudo=sudo
	echo "deb-src http://deb.debian.org/debian bookworm main" |
		$sudo tee "$list" && $sudo apt-get update -q
}

SUDO=
[ "$(id -u)" = 0 ] || SUDO=sudo

# deb_missing PKG...: those of the packages that are not installed.
deb_missing()
{
	local p

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			printf ' %s' "$p"
	done
}

# deb_unpack DIR PKG...: Debian's packages (NAME[:ARCH][=VERSION]),
# downloaded and unpacked into DIR, not installed: for programs only the
# guest runs, or that the host has in another version.
deb_unpack()
{
	local dir=$1 tmp p rc=0

	shift
	tmp=$(mktemp -d) || return
	# The lists of a foreign arch may be missing even where dpkg has it.
	(cd "$tmp" && { apt-get download "$@" ||
		{ $SUDO apt-get update -q && apt-get download "$@"; }; }) || rc=$?
	for p in "$tmp"/*.deb; do
		[ $rc = 0 ] || break
		dpkg-deb -x "$p" "$dir" || rc=$?
	done
	rm -rf "$tmp"
	return $rc
}

# deb_source PKG VER DIR: Debian's source package PKG=VER, unpacked in DIR,
# which is emptied first.
deb_source()
{
	deb_src_enable || return
	rm -rf "$3" && mkdir -p "$3" && (cd "$3" && apt-get source -q "$1=$2")
}

# The arm64 guest's busybox, from Debian's busybox-static for arm64.
ARM64_BUSYBOX=$BUILD/arm64-busybox/bin/busybox
# Debian's nginx, for make bench's P10: run in the guest, never on the host.
NGINX=$BUILD/nginx/sbin/nginx

# arm64_initramfs FILE: the arm64 guest's initramfs, busybox and
# guest-init-arm64 as /init, made with the kernel's own gen_init_cpio.
arm64_initramfs()
{
	[ -x "$ARM64_BUSYBOX" ] && [ -x "$OBJ/usr/gen_init_cpio" ] || return
	"$OBJ/usr/gen_init_cpio" - >"$1" <<-EOF
		dir /dev 0755 0 0
		nod /dev/console 0600 0 0 c 5 1
		dir /bin 0755 0 0
		file /bin/busybox $ARM64_BUSYBOX 0755 0 0
		file /init $HARNESS/guest-init-arm64 0755 0 0
	EOF
}

# x86_64_only WHAT: fail unless ARCH is x86_64; WHAT needs the host's
# own binaries (liburing, fio, perf) in the guest.
x86_64_only()
{
	[ "$ARCH" = x86_64 ] || fail "$1" "" "runs on x86_64 only, not ARCH=$ARCH"
}
