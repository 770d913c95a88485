#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# p10_http.sh ASERVE NGINX: P10, in the guest: static files over HTTP on loopback, wrk against aserve,
# then against Debian's nginx with sendfile, then with sendfile and
# "aio threads".  The files, 4 KiB each, are on an ext4 on the null_blk
# disk (0.5 ms a request, set by harness/bench.sh).  Each pass lasts
# $secs s.  The cold pass starts with the caches dropped and asks for each
# file at most once; the warm pass then asks again for the first $warm
# files, round and round.  nginx has one worker process, as aserve has one
# loop.
here=$(dirname "$0")
aserve=$1
nginx=$2
files=${P10_FILES:-24576}
warm=1024
secs=${P10_SECS:-3}
conns=32
dev=/dev/nullb0
mnt=/mnt/p10
www=$mnt/www
port=8090
failed=0

[ -b $dev ] || { echo "p10: no $dev: boot with null_blk"; exit 1; }
[ -x "$aserve" ] && [ -x "$nginx" ] || { echo "p10: no $aserve or $nginx"; exit 1; }
if ! mountpoint -q $mnt; then
	echo "# p10: $files files of 4 KiB on $dev"
	t0=$(date +%s)
	mkdir -p $mnt && mkfs.ext4 -q -F $dev && mount $dev $mnt && mkdir $www ||
		exit 1
	awk -v n=$files -v d=$www 'BEGIN {
		for (i = 0; i < n; i++) {
			printf("%-4095d\n", i) >(d "/f" i)
			close(d "/f" i)
		}
	}' || exit 1
	sync
	echo "# p10: made in $(($(date +%s) - t0)) s"
fi
ip link set lo up 2>/dev/null

# nginx_conf AIO: a configuration with one worker, everything under /tmp.
nginx_conf()
{
	pre=$(mktemp -d /tmp/p10-nginx.XXXXXX) || return
	cat >"$pre/nginx.conf" <<-CONF
		worker_processes 1;
		daemon off;
		user root;
		error_log $pre/error.log;
		pid $pre/nginx.pid;
		events { worker_connections 1024; }
		http {
			access_log off;
			sendfile on;
			$1
			keepalive_requests 1000000;
			client_body_temp_path $pre/body;
			proxy_temp_path $pre/proxy;
			fastcgi_temp_path $pre/fastcgi;
			uwsgi_temp_path $pre/uwsgi;
			scgi_temp_path $pre/scgi;
			server { listen 127.0.0.1:$port; root $www; }
		}
	CONF
	echo "$pre/nginx.conf"
}

# The non-idle jiffies of the whole guest.
busy()
{
	awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat
}

# pass METHOD cold|warm
pass()
{
	n=$files once=1
	[ "$2" = warm ] && n=$warm once=0
	b0=$(busy)
	P10_FILES=$n P10_ONCE=$once P10_METHOD=$1 P10_PARAM="$2" \
		wrk -t1 -c$conns -d${secs}s --timeout 30s -s "$here/p10_http.lua" \
		"http://127.0.0.1:$port/" || return
	echo "CSV,P10,$2,$1,cpu_ms,$((($(busy) - b0) * 1000 / $(getconf CLK_TCK)))"
}

# serve METHOD COMMAND...: start the server, wait until it answers, run
# a cold and a warm pass, stop it.
serve()
{
	method=$1
	shift
	"$@" &
	pid=$!
	for _ in $(seq 50); do
		curl -s -o /dev/null "http://127.0.0.1:$port/f0" && break
		sleep 0.2
	done
	sync
	echo 3 >/proc/sys/vm/drop_caches
	pass "$method" cold && pass "$method" warm || failed=$((failed + 1))
	kill "$pid"
	wait "$pid"
}

serve aserve "$aserve" -p $port -t 30000 $www
serve nginx_sendfile "$nginx" -e stderr -c "$(nginx_conf "")"
serve nginx_aio_threads "$nginx" -e stderr -c "$(nginx_conf "aio threads;")"
rm -rf /tmp/p10-nginx.*
exit $failed
