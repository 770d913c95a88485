#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make series: the patch series for upstream, in .build/series/patches.
# Each series/NN-*.msg is a commit message, a line "---", then the paths
# that commit takes from the prepared tree.  The commits are made from base
# in a worktree of $TREE and formatted with series/cover-letter; each patch
# must pass checkpatch --strict and build on its own.
# The series is built for both architectures, whatever ARCH says.
export ARCH=x86_64
. "$(dirname "$0")/lib.sh"

OUT=$BUILD/series
WT=$OUT/linux		# ../linux seen from $OUT/obj, as from $OBJ: ccache hits
SOBJ=$OUT/obj
PATCHDIR=$OUT/patches
ENTRY="ASYNC SYSTEM CALLS"
# SERIES_BUILD=objects (CI): for each patch compile, on x86_64, the kernel
# sources the series has changed so far, not the whole kernel: the final
# tree is the one the test kernels build, on both arches.
SERIES_BUILD=${SERIES_BUILD:-kernel}
case $SERIES_BUILD in
kernel|objects) ;;
*) fail "series" "" "SERIES_BUILD must be kernel or objects, not \"$SERIES_BUILD\"" ;;
esac

"$HARNESS/prepare-tree.sh"
ARCH=arm64 "$HARNESS/deps.sh"
final=$(git -C "$TREE" rev-parse HEAD)
author=$(git -C "$TREE" show "$final:MAINTAINERS" |
	 sed -n "/^$ENTRY/,/^\$/s/^M:\t//p" | head -n 1)
[ -n "$author" ] || fail "series" "" "no M: line in the MAINTAINERS entry $ENTRY"
ident=(-c user.name="${author% <*}" -c user.email="$(sed 's/.*<\(.*\)>/\1/' <<<"$author")")
G=(git -C "$WT" "${ident[@]}")

# The final MAINTAINERS, with only the F: lines of our entry whose paths
# exist in the worktree, and without the entry while none does.
maintainers()
{
	git -C "$TREE" show "$final:MAINTAINERS" | awk -v wt="$WT" -v entry="$ENTRY" '
		index($0, entry) == 1 { inside = 1; buf = ""; kept = 0 }
		inside && /^$/ { inside = 0; if (kept) printf "%s\n", buf; next }
		inside && /^F:/ && system("test -e \"" wt "/" $2 "\"") { next }
		inside { buf = buf $0 "\n"; kept += /^F:/; next }
		{ print }'
}

make_commits()
{
	local msg paths

	git -C "$TREE" worktree prune
	git -C "$WT" rev-parse --git-dir >/dev/null 2>&1 ||
		{ rm -rf "$WT" && git -C "$TREE" worktree add -q --detach "$WT" base; }
	"${G[@]}" checkout -q -f -B series base
	for msg in "$REPO"/series/[0-9]*.msg; do
		mapfile -t paths < <(sed '1,/^---$/d; /^$/d' "$msg")
		"${G[@]}" checkout -q "$final" -- "${paths[@]}"
		maintainers >"$WT/MAINTAINERS"
		"${G[@]}" add -A
		sed '/^---$/,$d' "$msg" |
			"${G[@]}" interpret-trailers --trailer "Signed-off-by: $author" |
			"${G[@]}" commit -q -F -
	done
	# Every change of the prepared tree must be in some patch.
	"${G[@]}" diff --quiet "$final" ||
		{ echo "changes in no series/*.msg:"; "${G[@]}" diff --stat "$final"; return 1; }
	"${G[@]}" config branch.series.description "$(cat "$REPO/series/cover-letter")"
	rm -rf "$PATCHDIR"
	"${G[@]}" format-patch -q --cover-letter --cover-from-description=subject \
		--subject-prefix="RFC PATCH" --to=linux-kernel@vger.kernel.org \
		--cc=linux-api@vger.kernel.org -o "$PATCHDIR" base..series
	man_page_patch
}

# The man page goes to the man-pages project: a patch of its own, in
# $PATCHDIR/man-pages.
man_page_patch()
{
	local repo=$OUT/man-pages
	local M=(git -C "$repo" "${ident[@]}")

	rm -rf "$repo"
	mkdir -p "$repo/man/man2"
	cp "$REPO/man/man2/async_submit.2" "$repo/man/man2/"
	"${M[@]}" init -q
	"${M[@]}" add -A
	printf '%s\n\n%s\n%s\n' "async_submit.2: New page" \
		"Document async_submit(), proposed for Linux in the series" \
		"\"$(head -n 1 "$REPO/series/cover-letter")\"." |
		fmt -w 72 | "${M[@]}" interpret-trailers --trailer "Signed-off-by: $author" |
		"${M[@]}" commit -q -F -
	"${M[@]}" format-patch -q --root --subject-prefix="RFC PATCH man-pages" \
		--to=alx@kernel.org --cc=linux-man@vger.kernel.org \
		--cc=linux-api@vger.kernel.org -o "$PATCHDIR/man-pages"
}

# configure OBJ EXECUTOR FRAGMENT...: configure the checked-out commit for
# $ARCH in OBJ, tinyconfig + FRAGMENTs, unless OBJ is configured already
# with these FRAGMENTs and no Kconfig file changed since; once the arch's
# EXECUTOR file exists, CONFIG_ASYNC_SYSCALL must be set.
configure()
{
	local obj=$1 executor=$2 frags last

	shift 2
	frags=$(cat "$@" | sha1sum | cut -c1-12)
	last=$(cat "$obj/.series-config" 2>/dev/null) || last=
	if [ "${last#* }" != "$frags" ] ||
	   ! git -C "$WT" diff --quiet "${last%% *}" HEAD -- '*Kconfig*' \
		'kernel/configs/' 'arch/*/configs/tiny.config' 'scripts/kconfig/' 2>/dev/null; then
		rm -f "$obj/.series-config"
		kconfigure "$WT" "$obj" "$@" || return
		echo "$(git -C "$WT" rev-parse HEAD) $frags" >"$obj/.series-config"
	fi
	[ -e "$WT/$executor" ] || return 0
	grep -qx CONFIG_ASYNC_SYSCALL=y "$obj/.config" ||
		{ echo "CONFIG_ASYNC_SYSCALL is not set for $ARCH"; return 1; }
}

# builds_source OBJ PATH: whether the .config in OBJ builds PATH, a kernel
# source or a directory: each kbuild file on its way down, from the top
# Kbuild or arch/*/, lists it under obj-y or subdir-y, or under an
# obj-$(CONFIG_*) or subdir-$(CONFIG_*) that is set.  Lists under ifdef
# count as unconditional, and a source listed otherwise (a composite
# object, lib-y, a name with a variable) as not built.
builds_source()
{
	local obj=$1 path=$2 dir item kbuild set sets

	while [[ ! $path =~ ^arch/[^/]+$ ]]; do
		dir=.
		[[ $path == */* ]] && dir=${path%/*}
		item=${path##*/}
		[[ $item == *.[cS] ]] && item=${item%.?}.o
		kbuild=$WT/$dir/Makefile
		[ -e "$WT/$dir/Kbuild" ] && kbuild=$WT/$dir/Kbuild
		[ -e "$kbuild" ] || return 1
		sets=$(sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba' -e '}' "$kbuild" |
		       awk -v item="$item" '$1 ~ /^(obj|subdir)-/ {
				for (i = 2; i <= NF; i++)
					if ($i == item || $i == item "/") print $1
			}')
		# A top directory that the top Kbuild does not list: lib/, for one.
		[ "$dir" = . ] && [ -z "$sets" ] && return 0
		while read -r set; do
			set=${set#*-}
			[ "$set" = y ] && break
			set=${set#'$('}
			[[ $set == CONFIG_*')' ]] && grep -qx "${set%)}=y" "$obj/.config" && break
			set=
		done <<<"$sets"
		[ -n "$set" ] || return 1
		[ "$dir" = . ] && return 0
		path=$dir
	done
}

# changes_outside PREFIX...: whether the checked-out commit changes a path
# that starts with none of the PREFIXes.
changes_outside()
{
	local prefix patterns=()

	for prefix; do
		patterns+=(-e "^$prefix")
	done
	git -C "$WT" diff --name-only HEAD~ HEAD | grep -qv "${patterns[@]}"
}

# build OBJ EXECUTOR FRAGMENT...: configure the checked-out commit and build
# it: the whole kernel, or with SERIES_BUILD=objects only the UAPI headers,
# each kernel source the series has added or changed so far and each
# sample directory it has changed, those this config builds.
build()
{
	local obj=$1 f goals=() skipped=()

	configure "$@" || return
	if [ "$SERIES_BUILD" != objects ]; then
		kmake "$WT" "$obj" "$(basename "$KIMAGE")"
		return
	fi
	while read -r f; do
		[[ $f == arch/* && $f != arch/${ARCH%_64}/* ]] && continue
		[[ $f == samples/*/* ]] && f=$(cut -d/ -f1-2 <<<"$f")
		builds_source "$obj" "$f" || { skipped+=("$f"); continue; }
		[[ $f == *.[cS] ]] && goals+=("${f%.?}.o") || goals+=("$f/")
	done < <(git -C "$WT" diff --name-only --no-renames --diff-filter=AM base HEAD \
			-- '*.c' '*.S' |
		 grep -v -e '^tools/' -e '^scripts/' -e '^Documentation/' | sort -u)
	echo "not built by this config: ${skipped[*]-none}"
	echo "compiling: ${goals[*]-nothing}"
	kmake "$WT" "$obj" headers ${goals[@]+"${goals[@]}"}
}

# Build the checked-out commit on x86_64, then the selftests once they
# exist.  From the arm64 wiring on, a commit that changes the kernel also
# builds on arm64, with the test kernel's config: only patches from that
# one on build there, and they mostly find the test kernel's objects in
# ccache.  SERIES_BUILD=objects leaves arm64 to its test kernel, which
# builds the final tree, and skips commits that change no kernel file.
build_commit()
{
	if [ "$SERIES_BUILD" != objects ] ||
	   changes_outside tools/ Documentation/ MAINTAINERS; then
		build "$SOBJ" arch/x86/include/asm/async_syscall.h \
			"$HARNESS/config/series.config" || return
	fi
	if [ "$SERIES_BUILD" != objects ] &&
	   [ -e "$WT/arch/arm64/include/asm/async_syscall.h" ] &&
	   changes_outside tools/ samples/ Documentation/ MAINTAINERS; then
		(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
		 KIMAGE=arch/arm64/boot/Image
		 build "$SOBJ-arm64" arch/arm64/include/asm/async_syscall.h $(kernel_fragments)) ||
			return
	fi
	[ -d "$WT/tools/testing/selftests/async_syscall" ] || return 0
	make_selftests "$WT" "$SOBJ/selftests" "$SOBJ/usr/include"
}

# checkpatch_findings PATCH: "FILE:TYPE KIND" for each finding.
checkpatch_findings()
{
	# Debian's python3 runs scripts/spdxcheck.py: it has python3-ply.
	(cd "$WT" && PATH=/usr/bin:$PATH perl scripts/checkpatch.pl --strict --show-types "$1") | awk '
		function flush() { if (kind != "") print (file == "" ? "-" : file) ":" type " " kind; kind = "" }
		/^(ERROR|WARNING|CHECK):[A-Z_0-9]+:/ {
			flush(); split($0, f, ":"); kind = f[1]; type = f[2]; file = ""; next
		}
		kind != "" && file == "" && match($0, /FILE: [^:]+/) { file = substr($0, RSTART + 6, RLENGTH - 6) }
		END { flush() }'
}

need_space 2000
mkdir -p "$OUT"
step "commit and format the series" "$LOGS/series.log" make_commits
mapfile -t commits < <(git -C "$WT" rev-list --reverse base..series)
mapfile -t patches < <(ls "$PATCHDIR"/*.patch | tail -n +2)
n=${#commits[@]}
built="built on its own"
[ "$SERIES_BUILD" = objects ] && built="its changed sources compiled"
for ((i = 0; i < n; i++)); do
	git -C "$WT" checkout -q "${commits[i]}"
	step "patch $((i + 1))/$n: $built" "$LOGS/series-build-$((i + 1)).log" build_commit
done
git -C "$WT" checkout -q series

# count PATTERN TEXT: the lines of TEXT matching PATTERN.
count()
{
	grep -c -E -- "$1" <<<"$2" || true
}

bad=0
summary=()
for p in "${patches[@]}"; do
	all=$(checkpatch_findings "$p")
	left=$(grep -v -E -f <(checkpatch_allowed '^%s:%s \n') <<<"$all" || true)
	allowed=$(($(count . "$all") - $(count . "$left")))
	summary+=("$(printf '  %-62s %d errors, %d warnings, %d checks (%d allowed)' \
		"$(basename "$p")" "$(count ' ERROR$' "$left")" "$(count ' WARNING$' "$left")" \
		"$(count ' CHECK$' "$left")" "$allowed")")
	[ -z "$left" ] || { printf '%s\n' "$left" | sed "s|^|    $(basename "$p"): |" >&2; bad=1; }
done
say "checkpatch --strict on each patch (allowed: harness/checkpatch-allowed); each $built:"
printf '%s\n' "${summary[@]}" >&2
[ "$bad" = 0 ] || fail "checkpatch" "" "findings in the series above"
say "series: ${PATCHDIR#"$REPO"/}/ ($n patches and a cover letter), the man page in ${PATCHDIR#"$REPO"/}/man-pages/"
