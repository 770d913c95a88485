// SPDX-License-Identifier: GPL-2.0
/*
 * aserve: a small static-file HTTP/1.1 server on an epoll loop.
 *
 *	aserve [-p PORT] [-t MS] DIR
 *
 * It serves the regular files under DIR on 127.0.0.1:PORT (8080), GET and
 * HEAD, with keep-alive.  epoll watches the listening socket, the clients
 * and one eventfd; the file work of each request is async_submit() chains
 * whose last step writes the eventfd (async_prep_notify()):
 *
 *	look-up:	openat2(dirfd, path) -> link timeout (MS, 5000)
 *			-> fstat(<0>) -> notify
 *	response:	send(sock, header, MSG_MORE) -> sendfile(sock, fd, size)
 *			-> close(fd), run anyway -> notify
 *
 * A client's socket is blocking, for the workers' writes; the loop reads
 * requests from it with MSG_DONTWAIT when epoll says it is readable.
 * Status lines: 200, 400 (a path with "..", a request over 4 KiB), 404,
 * 405 (not GET or HEAD), 504 (the open took longer than MS: a FIFO with
 * no writer, a server that does not answer).  One request at a time per connection; a
 * pipelined request waits in the buffer.  It runs until killed.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/openat2.h>
#include <async_syscall/libasync.h>

#define MAX_CONNS	1024
#define REQ_MAX		4096
#define HDR_MAX		256

enum conn_state { READING, LOOKING_UP, RESPONDING };

struct conn {
	int sock;
	enum conn_state state;
	bool head;		/* HEAD: the header only */
	bool close_after;	/* Connection: close */
	size_t len;		/* bytes of the request buffer in use */
	int fd;			/* the file, once opened */
	struct stat st;
	struct open_how how;
	char req[REQ_MAX];
	char path[REQ_MAX];
	char hdr[HDR_MAX];
	struct async_syscall e[4];
};

static struct conn *conns[MAX_CONNS];
static struct timespec open_timeout = { .tv_sec = 5 };
static struct async_queue q;
static int epfd, efd, dirfd;

static bool parse_request(struct conn *c);

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void conn_close(struct conn *c)
{
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->sock, NULL);
	close(c->sock);
	conns[c->sock] = NULL;
	free(c);
}

/* Reads the next request once epoll says the socket is readable. */
static void wait_request(struct conn *c)
{
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLONESHOT,
		.data.fd = c->sock,
	};

	c->state = READING;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, c->sock, &ev))
		conn_close(c);
}

/* A short response the loop sends itself: an error, without a body file. */
static void reply_error(struct conn *c, int code, const char *reason)
{
	char buf[HDR_MAX];
	int n;

	n = snprintf(buf, sizeof(buf),
		     "HTTP/1.1 %d %s\r\nContent-Length: %zu\r\n"
		     "Content-Type: text/plain\r\n\r\n",
		     code, reason, strlen(reason) + 1);
	if (!c->head)
		n += snprintf(buf + n, sizeof(buf) - n, "%s\n", reason);
	if (send(c->sock, buf, n, MSG_NOSIGNAL) != n || c->close_after)
		conn_close(c);
	else if (!c->len || !parse_request(c))
		wait_request(c);
}

static void submit(struct conn *c, unsigned int nr)
{
	int ret = async_queue_add(&q, c->e, nr, c->sock);

	if (!ret)
		ret = async_queue_submit(&q);
	if (ret < 0) {
		fprintf(stderr, "aserve: async_queue_submit: %s\n",
			strerror(-ret));
		exit(1);
	}
}

/* openat2, beneath DIR -> link timeout -> fstat -> notify */
static void start_lookup(struct conn *c)
{
	c->how = (struct open_how) {
		.flags = O_RDONLY | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	async_prep(&c->e[0], __NR_openat2, dirfd, async_ptr(c->path),
		   async_ptr(&c->how), sizeof(c->how), 0, 0);
	async_prep_link_timeout(&c->e[1], &open_timeout);
	async_prep_fstat_ref(&c->e[2], 0, &c->st);
	async_prep_notify(&c->e[3], efd);
	c->state = LOOKING_UP;
	submit(c, 4);
}

/*
 * send(header) -> sendfile -> close, run anyway -> notify.  MSG_MORE puts
 * the header and a small body in one segment.
 */
static void start_response(struct conn *c)
{
	unsigned int n = 0;
	bool body;
	int len;

	len = snprintf(c->hdr, sizeof(c->hdr),
		       "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n"
		       "Content-Type: application/octet-stream\r\n%s\r\n",
		       (long long)c->st.st_size,
		       c->close_after ? "Connection: close\r\n" : "");
	body = !c->head && c->st.st_size;
	async_prep(&c->e[n++], __NR_sendto, c->sock, (uintptr_t)c->hdr, len,
		   body ? MSG_MORE : 0, 0, 0);
	if (body)
		async_prep(&c->e[n++], __NR_sendfile, c->sock, c->fd, 0,
			   c->st.st_size, 0, 0);
	async_prep_close(&c->e[n], c->fd);
	async_run_anyway(&c->e[n++]);
	async_prep_notify(&c->e[n++], efd);
	c->state = RESPONDING;
	submit(c, n);
}

static bool header_has(const char *req, const char *line)
{
	return strcasestr(req, line);
}

/*
 * Acts on the request at the start of c->req: false if it is not whole
 * yet.  Once it has acted, @c may be gone.
 */
static bool parse_request(struct conn *c)
{
	char *end = memmem(c->req, c->len, "\r\n\r\n", 4);
	char method[8], target[REQ_MAX];
	size_t used;

	if (!end) {
		if (c->len < sizeof(c->req) - 1)
			return false;
		c->close_after = true;
		reply_error(c, 400, "Bad Request");
		return true;
	}
	*end = '\0';
	used = end + 4 - c->req;
	c->close_after = header_has(c->req, "\r\nConnection: close");
	if (sscanf(c->req, "%7s %4095s HTTP/1.", method, target) != 2 ||
	    target[0] != '/') {
		c->close_after = true;
		reply_error(c, 400, "Bad Request");
		return true;
	}
	c->head = !strcmp(method, "HEAD");
	/* Keep what follows for the next request. */
	memmove(c->req, c->req + used, c->len - used);
	c->len -= used;
	if (!c->head && strcmp(method, "GET")) {
		reply_error(c, 405, "Method Not Allowed");
		return true;
	}
	if (strstr(target, "..") || !target[1]) {
		reply_error(c, 400, "Bad Request");
		return true;
	}
	memcpy(c->path, target + 1, strlen(target));
	start_lookup(c);
	return true;
}

static void on_readable(struct conn *c)
{
	ssize_t n;

	n = recv(c->sock, c->req + c->len, sizeof(c->req) - 1 - c->len,
		 MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN)) {
		conn_close(c);
		return;
	}
	if (n > 0)
		c->len += n;
	if (!parse_request(c))
		wait_request(c);
}

static void on_done(struct async_queue_chain *chain)
{
	struct conn *c = conns[chain->user_data];

	if (c->state == LOOKING_UP) {
		c->fd = c->e[0].result;
		if (c->e[0].result < 0 && c->e[1].result == -ETIME) {
			reply_error(c, 504, "Gateway Timeout");
		} else if (c->e[0].result < 0) {
			reply_error(c, 404, "Not Found");
		} else if (c->e[2].result < 0 || !S_ISREG(c->st.st_mode)) {
			close(c->fd);
			reply_error(c, 404, "Not Found");
		} else {
			start_response(c);
		}
		return;
	}
	/* The last step is the notify; before it, the close. */
	if (chain->entries[0].result < 0 ||
	    (chain->nr == 4 && chain->entries[1].result != c->st.st_size) ||
	    c->close_after) {
		conn_close(c);
		return;
	}
	/* A request may wait in the buffer already. */
	if (!c->len || !parse_request(c))
		wait_request(c);
}

static void on_accept(int lsock)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLONESHOT };
	struct conn *c;
	int sock, one = 1;

	while ((sock = accept4(lsock, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		c = calloc(1, sizeof(*c));
		if (!c || sock >= MAX_CONNS) {
			free(c);
			close(sock);
			continue;
		}
		/* As nginx does on keep-alive connections. */
		setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c->sock = sock;
		conns[sock] = c;
		ev.data.fd = sock;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, sock, &ev))
			conn_close(c);
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons(8080),
	};
	struct epoll_event ev = { .events = EPOLLIN }, evs[64];
	struct async_queue_chain done[64];
	int lsock, one = 1, opt, n, i, k;

	/* A worker's write to a client that went away must not kill us. */
	signal(SIGPIPE, SIG_IGN);
	while ((opt = getopt(argc, argv, "p:t:")) != -1) {
		if (opt == 'p') {
			addr.sin_port = htons(atoi(optarg));
		} else if (opt == 't') {
			open_timeout.tv_sec = atoi(optarg) / 1000;
			open_timeout.tv_nsec = atoi(optarg) % 1000 * 1000000L;
		} else {
			goto usage;
		}
	}
	if (optind != argc - 1)
		goto usage;
	dirfd = open(argv[optind], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		die(argv[optind]);
	lsock = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lsock < 0 ||
	    setsockopt(lsock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lsock, (struct sockaddr *)&addr, sizeof(addr)) ||
	    listen(lsock, 128))
		die("listen");
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (efd < 0 || epfd < 0)
		die("eventfd, epoll");
	ev.data.fd = lsock;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, lsock, &ev))
		die("epoll_ctl");
	ev.data.fd = efd;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, efd, &ev))
		die("epoll_ctl");
	if (async_queue_init(&q, 4 * MAX_CONNS))
		die("async_queue_init");
	printf("aserve: listening on 127.0.0.1:%d\n", ntohs(addr.sin_port));
	fflush(stdout);

	for (;;) {
		n = epoll_wait(epfd, evs, 64, -1);
		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (i = 0; i < n; i++) {
			int fd = evs[i].data.fd;

			if (fd == lsock) {
				on_accept(lsock);
			} else if (fd == efd) {
				while ((k = async_queue_reap_notified(&q, efd,
								      done, 64)) > 0)
					while (k--)
						on_done(&done[k]);
			} else if (conns[fd]) {
				on_readable(conns[fd]);
			}
		}
	}
usage:
	fprintf(stderr, "usage: %s [-p PORT] [-t MS] DIR\n", argv[0]);
	return 2;
}
