#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# In the guest: run the samples in $1 on real input and check what they
# do against the plain tools, as TAP with a kselftest "# Totals:" line.
bin=$1
dir=$(mktemp -d "${SCRATCH:-/tmp}/samples.XXXXXX") || exit 1
pass=0 fail=0 skip=0 n=0

check()
{
	n=$((n + 1))
	if "$@"; then
		pass=$((pass + 1))
		echo "ok $n $name"
	else
		fail=$((fail + 1))
		echo "not ok $n $name"
	fi
}

skip()
{
	n=$((n + 1))
	skip=$((skip + 1))
	echo "ok $n $name # SKIP $1"
}

echo "# samples: $bin"
echo "1..17"

# 100 small files, one of 1 MiB, an empty one: acat == cat.
i=0
while [ $i -lt 100 ]; do
	seq $i $((i * 7)) >"$dir/f$i"
	i=$((i + 1))
done
head -c 1048576 /dev/urandom >"$dir/big"
: >"$dir/empty"
files="$dir/f1 $dir/big $dir/empty $(ls "$dir"/f* | sort | tr '\n' ' ')"
name="acat concatenates 103 files in order"
check sh -c "'$bin/acat' $files >'$dir/out.acat' && cat $files >'$dir/out.cat' &&
	cmp -s '$dir/out.acat' '$dir/out.cat'"

name="acat reports a missing file and a directory, exits 1, goes on"
check sh -c "! '$bin/acat' '$dir/f2' '$dir/none' '$dir' '$dir/f3' >'$dir/out.acat' 2>'$dir/err' &&
	cat '$dir/f2' '$dir/f3' | cmp -s - '$dir/out.acat' &&
	grep -q 'none: No such file' '$dir/err' && grep -q 'read: Is a directory' '$dir/err'"

name="acat reads a pipe until its end"
check sh -c "cat '$dir/big' | '$bin/acat' /proc/self/fd/0 | cmp -s - '$dir/big'"

name="acat reads a file of /proc, whose size is 0, until its end"
check sh -c "'$bin/acat' /proc/self/mountinfo >'$dir/out.acat' && cat /proc/self/mountinfo |
	cmp -s - '$dir/out.acat' && test -s '$dir/out.acat'"

name="alog appends 3 MiB and syncs each batch"
check sh -c "printf head >'$dir/log' &&
	head -c 3145728 /dev/urandom >'$dir/data' &&
	'$bin/alog' -v '$dir/log' <'$dir/data' 2>'$dir/err' &&
	{ printf head; cat '$dir/data'; } | cmp -s - '$dir/log' &&
	test \$(grep -c durable '$dir/err') = 6"

name="aread-timeout reads what comes in time"
check sh -c "echo hello | '$bin/aread-timeout' 20 | grep -qx hello"

name="aread-timeout cancels a read that does not"
check sh -c "sleep 4 | '$bin/aread-timeout' 1 2>'$dir/err'; test \$? = 2 &&
	grep -q 'cancelled: 1' '$dir/err'"

# acp against cp -a.  The guest's userland is the host's Debian on x86_64,
# busybox on arm64, whose cp keeps no hard links nor nanoseconds: the
# comparisons need GNU cp and stat.  Extended attributes are set and read
# with attr's tools, or Python when attr is not installed.
tree=$dir/tree paths=$dir/paths
gnu='' xtool=''
cp --version 2>/dev/null | grep -q GNU && stat -c %.9Y / >/dev/null 2>&1 && gnu=1
if command -v setfattr >/dev/null && command -v getfattr >/dev/null; then
	xtool=attr
elif command -v python3 >/dev/null; then
	xtool=python3
fi

# setx PATH NAME HEX: an extended attribute, on a symbolic link itself.
setx()
{
	case $xtool in
	attr)	if [ -n "$3" ]; then
			setfattr -h -n "$2" -v "0x$3" -- "$1"
		else
			setfattr -h -n "$2" -- "$1"
		fi ;;
	python3) python3 -c 'import os, sys
os.setxattr(sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3]),
	    follow_symlinks=False)' "$1" "$2" "$3" ;;
	*)	return 1 ;;
	esac
}

# Every kind of file acp copies, with what a plain copy would lose.  All
# of it readable by nobody (65534), for the unprivileged copy.
mktree()
{
	mkdir -p "$tree/d/e/f" "$tree/ro" "$tree/private" "$tree/sticky" \
		"$tree/setgid" &&
	: >"$tree/empty" &&
	head -c 1048576 /dev/urandom >"$tree/d/big" && chmod 0444 "$tree/d/big" &&
	head -c 70000 /dev/urandom >"$tree/d/e/mid" &&
	echo small >"$tree/d/e/f/small" &&
	echo 0604 >"$tree/m0604" && chmod 0604 "$tree/m0604" &&
	echo 0755 >"$tree/m0755" && chmod 0755 "$tree/m0755" &&
	echo ro >"$tree/ro/file" && chmod 0444 "$tree/ro/file" &&
	echo private >"$tree/private/file" &&
	echo suid >"$tree/suid" && chown 65534:65534 "$tree/suid" &&
	chmod 4755 "$tree/suid" &&
	echo sgid >"$tree/sgid" && chown 0:65534 "$tree/sgid" &&
	chmod 2755 "$tree/sgid" &&
	ln -s d/e/mid "$tree/link-file" && ln -s nowhere "$tree/link-dangling" &&
	ln -s d/e "$tree/link-dir" && ln "$tree/link-file" "$tree/link-hard" &&
	echo linked >"$tree/d/hard1" && ln "$tree/d/hard1" "$tree/d/e/f/hard2" &&
	ln "$tree/d/hard1" "$tree/hard3" &&
	chown -h 65534:65534 "$tree/link-file" "$tree/d/e/mid" "$tree/private" &&
	chmod 0750 "$tree/private" && chmod 1777 "$tree/sticky" &&
	chmod 2755 "$tree/setgid" && chmod 0555 "$tree/ro" || return 1
	[ -n "$xtool" ] || return 0
	if ! { setx "$tree/d/e/mid" user.color 626c7565 &&
	       setx "$tree/d/e/mid" user.empty "" &&
	       setx "$tree/ro/file" user.ro 00ff00 &&
	       setx "$tree/d" user.dir 6469 &&
	       setx "$tree/link-file" trusted.link 6c &&
	       setx "$tree/suid" trusted.t 74; } 2>/dev/null; then
		echo "# no user.* and trusted.* attributes in $(dirname "$dir")"
		xtool=''
		return 0
	fi
	# Where the file system has them (ext4: CONFIG_EXT4_FS_SECURITY and
	# _POSIX_ACL).  CAP_NET_RAW, effective: lost if set before the chown.
	setx "$tree/m0755" security.capability \
		0100000200200000000000000000000000000000 2>/dev/null ||
		echo "# no security.capability in $(dirname "$dir")"
	# user::rw- user:65534:r-- group::r-- mask::r-- other::---
	acl=02000000 acl=${acl}01000600ffffffff acl=${acl}02000400feff0000
	acl=${acl}04000400ffffffff acl=${acl}10000400ffffffff
	acl=${acl}20000000ffffffff
	setx "$tree/m0604" system.posix_acl_access $acl 2>/dev/null ||
		echo "# no POSIX ACL in $(dirname "$dir")"
}

# Old times to the nanosecond, different for every file, atime and mtime;
# again before each copy, as reading the tree moves its atimes.
stamp()
{
	i=0
	while read -r p; do
		i=$((i + 1))
		a=$((1000000000 + i * 86413)).$(printf %09d $((i * 123456791 % 1000000000)))
		m=$((900000000 + i * 90001)).$(printf %09d $((i * 987654323 % 1000000000)))
		touch -h -a -d "@$a" -- "$tree/$p" &&
			touch -h -m -d "@$m" -- "$tree/$p" || return 1
	done <"$paths"
}

# What must be the same in two copies, of every path of the tree, into
# COPY.stat and COPY.xattr, before anything reads COPY: with relatime, a
# read moves an old atime, of a directory too.
snapshot()
{
	(cd "$1" && tr '\n' '\0' <"$paths" |
		xargs -0 stat -c '%n %f %u %g %s %h %.9X %.9Y' --) >"$1.stat" || return 1
	case $xtool in
	attr)
		(cd "$1" && tr '\n' '\0' <"$paths" |
			xargs -0 getfattr -h -d -m - -e hex -- 2>/dev/null) |
			awk '/^# file: / { f = substr($0, 9); sub(/^\.\//, "", f); next }
			     NF { print f, $0 }' |
			LC_ALL=C sort >"$1.xattr" ;;
	python3)
		(cd "$1" && python3 -c 'import os, sys
for p in sys.stdin.read().splitlines():
    for n in sorted(os.listxattr(p, follow_symlinks=False)):
        v = os.getxattr(p, n, follow_symlinks=False)
        print(p[2:] if p.startswith("./") else p, n + "=0x" + v.hex())' \
			<"$paths") >"$1.xattr" ;;
	esac
}

# same A B: files A and B are equal; else show how they differ.
same()
{
	cmp -s "$1" "$2" && [ -s "$1" ] && return 0
	diff "$1" "$2" | head -n 20 | sed 's/^/# /'
	return 1
}

# Copy the tree with "$@" into DST, $1, from the same source times.
copy_as()
{
	dst=$1
	shift
	stamp && "$@" "$tree" "$dst" 2>"$dir/err" && ! [ -s "$dir/err" ] &&
		snapshot "$dst" && return 0
	sed 's/^/# /' "$dir/err"
	return 1
}

# The copies hold the same data and symbolic links.
same_data()
{
	diff -r --no-dereference "$1" "$2" >"$dir/diff" 2>&1 && return 0
	head -n 20 "$dir/diff" | sed 's/^/# /'
	return 1
}

# The copies made, and a few lines that show the listing means something:
# nobody's setuid file, the third link, the old times of a directory.
copies()
{
	copy_as "$dir/cp" cp -a && copy_as "$dir/acp" "$bin/acp" &&
		grep -q '^\./suid 89ed 65534 65534 5 1 ' "$dir/acp.stat" &&
		grep -q '^\./hard3 81[0-9a-f]* 0 0 7 3 ' "$dir/acp.stat" &&
		grep -q '^\./ro 416d 0 0 [0-9]* 2 10[0-9]*\.[0-9]* 9[0-9]*\.' "$dir/acp.stat"
}

# The extended attributes of every kind that the file system has.
same_xattrs()
{
	same "$1" "$2" && grep -q '^d/e/mid user\.color=0x626c7565$' "$2" &&
		grep -q '^link-file trusted\.link=0x6c$' "$2"
}

# A file of 1 MiB in chunks of 64 KiB is three chains, the metadata in
# the last one only.
chunked()
{
	copy_as "$dir/acp64k" "$bin/acp" --chunk=65536 &&
		same "$dir/cp.stat" "$dir/acp64k.stat" &&
		{ [ -z "$xtool" ] || same "$dir/cp.xattr" "$dir/acp64k.xattr"; } &&
		same_data "$dir/cp" "$dir/acp64k"
}

# Run "$@" as nobody, without capabilities.
as_nobody()
{
	if command -v setpriv >/dev/null; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		# shellcheck disable=SC2016 # the inner shell expands them
		su -s /bin/sh -c 'exec "$0" "$@"' nobody "$@"
	fi
}

# As nobody, into a directory of nobody's: the owners are refused, so
# the setuid, setgid and sticky bits go but those of nobody's own suid
# (cp keeps a directory's sticky bit only with an ACL, which the guest's
# file systems do not have).  d/big is read-only and 3 chains: its
# mode must come last.  The attributes go before the modes, ro/file's too.
unprivileged()
{
	chmod 0755 "$dir" && mkdir "$dir/u" && chown 65534:65534 "$dir/u" &&
		cp "$bin/acp" "$dir/acp.bin" && chmod 0755 "$dir/acp.bin" &&
		copy_as "$dir/u/cp" as_nobody cp -a &&
		copy_as "$dir/u/acp" as_nobody "$dir/acp.bin" --chunk=65536 &&
		same "$dir/u/cp.stat" "$dir/u/acp.stat" &&
		{ [ -z "$xtool" ] || same "$dir/u/cp.xattr" "$dir/u/acp.xattr"; } &&
		same_data "$dir/u/cp" "$dir/u/acp" &&
		grep -q '^\./suid 89ed 65534 65534 ' "$dir/u/acp.stat" &&
		grep -q '^\./sgid 81ed 65534 65534 ' "$dir/u/acp.stat" &&
		grep -q '^\./sticky 41ff 65534 65534 ' "$dir/u/acp.stat" &&
		grep -q '^\./d/big 8124 65534 65534 1048576 ' "$dir/u/acp.stat"
}

# A check of acp against cp -a, or its skip for $why.
versus()
{
	if [ -n "$why" ]; then
		skip "$why"
	else
		check "$@"
	fi
}

why=
if [ -z "$gnu" ]; then
	why="no GNU cp and stat"
elif ! mktree || ! (cd "$tree" && find . | LC_ALL=C sort) >"$paths"; then
	why="cannot make the tree"
fi
name="acp copies a tree as cp -a does: exit 0, no message"
versus copies
name="acp's copy: same modes, owners, sizes, link counts and times as cp -a's"
versus same "$dir/cp.stat" "$dir/acp.stat"
name="acp's copy: same extended attributes as cp -a's"
if [ -z "$why" ] && [ -z "$xtool" ]; then
	skip "no attr's tools nor Python, or no attributes in the file system"
else
	versus same_xattrs "$dir/cp.xattr" "$dir/acp.xattr"
fi
name="acp's copy: same data and symbolic links as cp -a's"
versus same_data "$dir/cp" "$dir/acp"
name="acp --chunk=65536, a file in three chains: the same as cp -a's"
versus chunked
name="acp as nobody: the same as cp -a as nobody"
if [ -z "$why" ] && [ "$(id -u)" != 0 ]; then
	why="not root"
elif [ -z "$why" ] && ! command -v setpriv >/dev/null &&
     ! command -v su >/dev/null; then
	why="neither setpriv nor su"
fi
versus unprivileged

mkdir "$dir/self" "$dir/self/sub"
name="acp refuses a directory into itself, reports a missing file, exits 1"
check sh -c "! '$bin/acp' '$dir/self' '$dir/self/sub' 2>'$dir/err' &&
	grep -q 'into itself' '$dir/err' && ! [ -e '$dir/self/sub/self' ] &&
	! '$bin/acp' '$dir/none' '$dir/copy' 2>'$dir/err' &&
	grep -q 'none: No such file' '$dir/err' && ! [ -e '$dir/copy' ]"

# aserve on loopback, fetched with curl, or with nc where there is none
# (arm64's busybox, whose wget -S crashes): prints the status, the body
# in $2.
get()
{
	local head

	if command -v curl >/dev/null; then
		curl -s -m 20 --path-as-is -o "$2" -w '%{http_code}' "http://127.0.0.1:8080/$1"
		return
	fi
	printf 'GET /%s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$1" |
		nc -w 20 127.0.0.1 8080 >"$2.raw"
	head=$(awk '{ n += length($0) + 1 } /^\r$/ { print n; exit }' "$2.raw")
	tail -c +$((head + 1)) "$2.raw" >"$2"
	sed -n '1s/^HTTP\/1\.1 \([0-9]*\).*/\1/p' "$2.raw"
}
aserve_files()
{
	[ "$(get f2 "$dir/out.f2")" = 200 ] && cmp -s "$dir/f2" "$dir/out.f2" &&
	[ "$(get big "$dir/out.big")" = 200 ] && cmp -s "$dir/big" "$dir/out.big" &&
	[ "$(get empty "$dir/out.empty")" = 200 ] && ! [ -s "$dir/out.empty" ]
}
aserve_errors()
{
	[ "$(get none "$dir/out")" = 404 ] &&
	case $(get ../etc/passwd "$dir/out") in 400|404) ;; *) false ;; esac &&
	ln -sf /etc/passwd "$dir/escape" && [ "$(get escape "$dir/out")" = 404 ]
}
# A FIFO with no writer: its open waits until the link timeout cuts it.
aserve_timeout()
{
	mkfifo "$dir/slow" && [ "$(get slow "$dir/out")" = 504 ] &&
	[ "$(get f2 "$dir/out.f2")" = 200 ] && cmp -s "$dir/f2" "$dir/out.f2"
}
ip link set lo up 2>/dev/null
"$bin/aserve" -p 8080 -t 300 "$dir" >"$dir/aserve.log" 2>&1 &
aserve=$!
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q listening "$dir/aserve.log" && break
	sleep 1
done
name="aserve serves files byte for byte"
check aserve_files
name="aserve answers 404 for a missing file and a link out of its tree, 400 for .."
check aserve_errors
name="aserve answers 504 when the open takes longer than its link timeout"
check aserve_timeout
kill "$aserve"
wait "$aserve" 2>/dev/null

rm -rf "$dir"
echo "# Totals: pass:$pass fail:$fail xfail:0 xpass:0 skip:$skip error:0"
[ "$fail" = 0 ]
