# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the host-side harness: paths, steps with progress, clear failures.

set -eu

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
HARNESS=$REPO/harness
BUILD=${BUILD:-$REPO/.build}
TREE=$BUILD/linux
if [ "${DEBUG:-0}" = 1 ]; then
	OBJ=$BUILD/obj-debug
	LOGS=$BUILD/logs-debug
else
	OBJ=$BUILD/obj
	LOGS=$BUILD/logs
fi
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
	command -v ccache >/dev/null && cc=(CC="ccache gcc")
	# Relative paths let a fresh clone elsewhere hit the same cache.
	CCACHE_BASEDIR=$BUILD make -C "$tree" O="$obj" ARCH=x86_64 -j"$JOBS" "${cc[@]}" "$@"
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
# against the UAPI headers in INCLUDE.
make_selftests()
{
	mkdir -p "$2" &&
		make -C "$1/tools/testing/selftests/async_syscall" OUTPUT="$2" \
			KHDR_INCLUDES="-isystem $3"
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
	grep -v ASYNC_SYSCALL "$HARNESS/config/base.config" >"$frag"
	kconfigure "$BUILD/linux-base" "$STOCK" "$frag" &&
		kmake "$BUILD/linux-base" "$STOCK" bzImage
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
