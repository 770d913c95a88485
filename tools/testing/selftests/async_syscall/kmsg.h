/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading back the kernel log: audit and seccomp records go there when no
 * audit daemon takes them.  For tests that include async_test.h.
 */

#ifndef __ASYNC_KMSG_H
#define __ASYNC_KMSG_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Longest wait for a record to show in the kernel log. */
#define KMSG_TIMEOUT_S	10
#define KMSG_SIZE	(256 * 1024)
#define RATELIMIT	"/proc/sys/kernel/printk_ratelimit"

/* The records logged since kmsg_open(), each NUL-terminated. */
struct kmsg {
	int fd;
	size_t len;
	char buf[KMSG_SIZE];
};

/* Start reading the kernel log at its end: NULL if it cannot be read. */
static inline struct kmsg *kmsg_open(void)
{
	struct kmsg *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	k->fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (k->fd >= 0 && lseek(k->fd, 0, SEEK_END) >= 0)
		return k;
	if (k->fd >= 0)
		close(k->fd);
	free(k);
	return NULL;
}

static inline void write_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, value, strlen(value)) < 0)
		perror(path);
	close(fd);
}

/*
 * Without an audit daemon, records are printed through printk_ratelimit(),
 * which must not drop them: turn the limit off, keeping the old value in
 * @saved ("" if it cannot be changed) for ratelimit_restore().
 */
static inline void ratelimit_off(char *saved, size_t size)
{
	if (read_small(RATELIMIT, saved, size) <= 0) {
		saved[0] = '\0';
		return;
	}
	write_sysctl(RATELIMIT, "0");
}

static inline void ratelimit_restore(const char *saved)
{
	if (saved[0])
		write_sysctl(RATELIMIT, saved);
}

/* Append the records logged since the last call: one per read(). */
static inline void kmsg_drain(struct kmsg *k)
{
	char rec[8192];
	ssize_t n;
	size_t len;

	for (;;) {
		n = read(k->fd, rec, sizeof(rec) - 1);
		if (n < 0 && (errno == EPIPE || errno == EINTR))
			continue;	/* EPIPE: overwritten, go on */
		if (n <= 0)
			return;		/* EAGAIN: no more for now */
		rec[n] = '\0';
		/* The message, without the dictionary lines after it. */
		len = strcspn(rec, "\n");
		if (k->len + len + 1 > sizeof(k->buf))
			return;
		memcpy(k->buf + k->len, rec, len);
		k->buf[k->len + len] = '\0';
		k->len += len + 1;
	}
}

/*
 * Wait, up to KMSG_TIMEOUT_S, for a record that contains every string of
 * the NULL-terminated @needles: the record, or NULL.
 */
static inline const char *kmsg_wait(struct kmsg *k, const char *const *needles)
{
	__s64 end = now_ns() + KMSG_TIMEOUT_S * NSEC_PER_SEC;
	const char *p;
	int i;

	for (;;) {
		kmsg_drain(k);
		for (p = k->buf; p < k->buf + k->len; p += strlen(p) + 1) {
			for (i = 0; needles[i] && strstr(p, needles[i]); i++)
				;
			if (!needles[i])
				return p;
		}
		if (now_ns() >= end)
			return NULL;
		sleep_ms(POLL_MS);
	}
}

#endif /* __ASYNC_KMSG_H */
