#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Prepare $TREE: a git tree with the pristine 6.12 base as tag "base" and our
# files and patches as commits on top.  Only files whose content changed are
# rewritten, so an incremental kernel build stays incremental.
. "$(dirname "$0")/lib.sh"

GIT="git -C $TREE -c user.name=async-harness -c user.email=harness@localhost"
TARBALL=/usr/src/linux-source-6.12.tar.xz

if [ -n "${KERNEL_SRC:-}" ]; then
	[ -f "$KERNEL_SRC/Makefile" ] ||
		fail "kernel source" "" "KERNEL_SRC=$KERNEL_SRC is not a kernel tree"
	base_id="dir:$(realpath "$KERNEL_SRC")"
else
	[ -f "$TARBALL" ] ||
		fail "kernel source" "" "$TARBALL missing: run harness/deps.sh"
	base_id="deb:$(dpkg-query -W -f='${Version}' linux-source-6.12)"
fi

extract_base()
{
	rm -rf "$TREE" "$BUILD"/obj*
	if [ -n "${KERNEL_SRC:-}" ]; then
		rsync -a --exclude=.git "$KERNEL_SRC"/ "$TREE"/
	else
		mkdir -p "$TREE"
		tar -xf "$TARBALL" -C "$TREE" --strip-components=1
	fi
	$GIT init -q
	$GIT config gc.auto 0
	# -f: Debian's .gitignore ignores the whole top level.
	$GIT add -A -f
	$GIT commit -q -m "base: $base_id"
	$GIT tag base
	echo "$base_id" >"$TREE/.git/async-base"
}

if [ "$(cat "$TREE/.git/async-base" 2>/dev/null)" != "$base_id" ]; then
	need_space 6000
	step "extract and commit the 6.12 base ($base_id), about 2 min" \
		"$LOGS/base.log" extract_base
fi

# Build the wanted content of every file we add or patch in $STAGE, one
# per run: CI runs make series beside the other targets.
STAGE=$(mktemp -d "$BUILD/stage.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT
cd "$REPO"
for d in kernel include arch tools Documentation samples; do
	[ -d "$d" ] && find "$d" -type f -exec cp --parents {} "$STAGE" \;
done
log=$LOGS/patches.log
: >"$log"
for p in patches/*.patch; do
	[ -e "$p" ] || continue
	for f in $(sed -n 's|^+++ b/||p' "$p"); do
		[ -e "$STAGE/$f" ] && continue
		mkdir -p "$STAGE/$(dirname "$f")"
		$GIT show "base:$f" >"$STAGE/$f" 2>>"$log" || rm -f "$STAGE/$f"
	done
	echo "applying $p" >>"$log"
	patch -d "$STAGE" -p1 --fuzz=2 -N --no-backup-if-mismatch <"$p" >>"$log" 2>&1 ||
		fail "apply patches" "$log" "$p does not apply to the base"
done

# Files we used to change but no longer do go back to the base.
wanted=$(cd "$STAGE" && find . -type f | sed 's|^\./||' | sort)
for f in $($GIT diff --name-only base HEAD); do
	grep -qxF "$f" <<<"$wanted" && continue
	if $GIT cat-file -e "base:$f" 2>/dev/null; then
		$GIT checkout -q base -- "$f"
	else
		rm -f "$TREE/$f"
	fi
done
rsync -rc "$STAGE"/ "$TREE"/

[ -z "$($GIT status --porcelain --ignored --untracked-files=all)" ] && exit 0

# Re-create our commits: one per patch, then one with the new files.
$GIT reset -q base
for p in patches/*.patch; do
	[ -e "$p" ] || continue
	$GIT add -f -- $(sed -n 's|^+++ b/||p' "$p")
	msg=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$p" | head -n 1)
	$GIT commit -q -m "${msg:-$(basename "$p" .patch)}"
done
$GIT add -A
(cd "$STAGE" && find . -type f) | $GIT add -f --pathspec-from-file=-
$GIT diff --cached --quiet || $GIT commit -q -m "async_syscall: add new files"
say "kernel tree updated: $($GIT log --oneline base..HEAD | wc -l) commits on base"
