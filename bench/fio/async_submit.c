// SPDX-License-Identifier: GPL-2.0
/*
 * An fio ioengine for async_submit(), loaded as an external engine:
 *
 *	fio --ioengine=external:async_submit.so job.fio
 *
 * Built against the fio source of the same version as the fio binary (its
 * structures are the interface); see harness/fio.sh.  Each io_u becomes
 * one chain, kept in flight and reaped with libasync's struct async_queue,
 * whose waits are futex_waitv() on the chains' done words:
 *
 *	read, write	pread64 / pwrite64 at the io_u's offset
 *	fsync=N		fsync, or with sync_range=1 ASYNC_OP_FSYNC_RANGE over
 *			the bytes written to the file since its last sync
 *	fdatasync=N	fdatasync, or the ranged sync with ASYNC_FSYNC_DATASYNC
 *	chain_open=1	reads as openat -> pread64 -> close chains on the
 *			file's name: fio itself opens nothing
 *	force_async=1	every entry on a worker thread (FORCE_ASYNC)
 *
 * At the end it prints how many entries were done by the time
 * async_submit() returned, which is where the inline path shows.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>

#include "fio.h"
#include "optgroup.h"

#include <async_syscall/libasync.h>

#define CHAIN_MAX	3

struct fas_options {
	struct thread_data *td;
	unsigned int sync_range;
	unsigned int chain_open;
	unsigned int force_async;
};

/* The bytes written to a file since its last sync. */
struct fas_file {
	unsigned long long start, end;
};

struct fas_data {
	struct async_queue q;
	struct async_syscall *ents;	/* CHAIN_MAX per io_u, by index */
	struct async_queue_chain *done;	/* reaped, handed out by ->event */
	struct io_u **staged;		/* queued since the last commit */
	unsigned int nr_staged, nr_done;
	unsigned long long entries, done_at_submit;
};

static struct fio_option options[] = {
	{
		.name	= "sync_range",
		.lname	= "Ranged data sync",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct fas_options, sync_range),
		.help	= "Sync only the bytes written since the last sync",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "chain_open",
		.lname	= "Open and close in the chain",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct fas_options, chain_open),
		.help	= "Read with openat -> pread64 -> close chains on the file's name",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= "force_async",
		.lname	= "Always on a worker",
		.type	= FIO_OPT_BOOL,
		.off1	= offsetof(struct fas_options, force_async),
		.help	= "Run every entry on a worker thread (ASYNC_SYSCALL_FORCE_ASYNC)",
		.def	= "0",
		.category = FIO_OPT_C_ENGINE,
		.group	= FIO_OPT_G_INVALID,
	},
	{
		.name	= NULL,
	},
};

/* Prepare the sync of @f: whole-file, or the range written since the last. */
static void fas_prep_sync(struct thread_data *td, struct io_u *io_u,
			  struct async_syscall *e)
{
	struct fas_options *o = td->eo;
	struct fio_file *f = io_u->file;
	struct fas_file *ff = FILE_ENG_DATA(f);
	bool data = io_u->ddir == DDIR_DATASYNC;

	if (o->sync_range && ff) {
		/* Nothing written: one byte, as a length of 0 means "to EOF". */
		async_prep_fsync_range(e, f->fd, ff->start,
				       ff->end - ff->start ?: 1,
				       data ? ASYNC_FSYNC_DATASYNC : 0);
		ff->start = 0;
		ff->end = 0;
	} else {
		async_prep(e, data ? __NR_fdatasync : __NR_fsync, f->fd,
			   0, 0, 0, 0, 0);
	}
}

static void fas_note_write(struct io_u *io_u)
{
	struct fas_file *ff = FILE_ENG_DATA(io_u->file);
	unsigned long long end = io_u->offset + io_u->xfer_buflen;

	if (!ff)
		return;
	if (ff->start == ff->end) {
		ff->start = io_u->offset;
		ff->end = end;
		return;
	}
	if (io_u->offset < ff->start)
		ff->start = io_u->offset;
	if (end > ff->end)
		ff->end = end;
}

static enum fio_q_status fas_queue(struct thread_data *td, struct io_u *io_u)
{
	struct fas_data *ad = td->io_ops_data;
	struct fas_options *o = td->eo;
	struct async_syscall *e = &ad->ents[CHAIN_MAX * io_u->index];
	struct fio_file *f = io_u->file;
	unsigned int nr = 1, i;
	int ret;

	fio_ro_check(td, io_u);

	switch (io_u->ddir) {
	case DDIR_READ:
		if (o->chain_open) {
			async_prep_openat(&e[0], AT_FDCWD, f->file_name,
					  O_RDONLY | (td->o.odirect ? O_DIRECT : 0),
					  0);
			async_prep_pread_ref(&e[1], 0, io_u->xfer_buf,
					     io_u->xfer_buflen, io_u->offset);
			async_prep_close_ref(&e[2], 0);
			nr = 3;
		} else {
			async_prep_pread(e, f->fd, io_u->xfer_buf,
					 io_u->xfer_buflen, io_u->offset);
		}
		break;
	case DDIR_WRITE:
		async_prep_pwrite(e, f->fd, io_u->xfer_buf, io_u->xfer_buflen,
				  io_u->offset);
		fas_note_write(io_u);
		break;
	case DDIR_SYNC:
	case DDIR_DATASYNC:
		fas_prep_sync(td, io_u, e);
		break;
	default:
		io_u->error = EINVAL;
		return FIO_Q_COMPLETED;
	}
	if (o->force_async)
		for (i = 0; i < nr; i++)
			e[i].flags |= ASYNC_SYSCALL_FORCE_ASYNC;

	ret = async_queue_add(&ad->q, e, nr, (uintptr_t)io_u);
	if (ret) {
		io_u->error = -ret;
		return FIO_Q_COMPLETED;
	}
	ad->staged[ad->nr_staged++] = io_u;
	return FIO_Q_QUEUED;
}

static unsigned int fas_chain_len(struct thread_data *td, struct io_u *io_u)
{
	struct fas_options *o = td->eo;

	return o->chain_open && io_u->ddir == DDIR_READ ? 3 : 1;
}

/* The entry whose result is the io_u's: the read of a chain. */
static struct async_syscall *fas_result_entry(struct thread_data *td,
					      struct io_u *io_u)
{
	struct fas_data *ad = td->io_ops_data;
	struct async_syscall *e = &ad->ents[CHAIN_MAX * io_u->index];

	return fas_chain_len(td, io_u) == 3 ? &e[1] : e;
}

static int fas_commit(struct thread_data *td)
{
	struct fas_data *ad = td->io_ops_data;
	unsigned int i, sent;
	struct timespec now;
	int ret;

	if (!ad->nr_staged)
		return 0;
	/* On an error the chains from the failed call on stay staged. */
	ret = async_queue_submit(&ad->q);
	sent = ad->nr_staged - ad->q.nr_staged;

	fio_gettime(&now, NULL);
	for (i = 0; i < sent; i++) {
		struct io_u *io_u = ad->staged[i];
		struct async_syscall *e = &ad->ents[CHAIN_MAX * io_u->index];
		unsigned int k, nr = fas_chain_len(td, io_u);

		for (k = 0; k < nr; k++)
			ad->done_at_submit += async_done(&e[k]);
		ad->entries += nr;
		memcpy(&io_u->issue_time, &now, sizeof(now));
		io_u_queued(td, io_u);
	}
	io_u_mark_submit(td, sent);
	ad->nr_staged -= sent;
	memmove(ad->staged, ad->staged + sent,
		ad->nr_staged * sizeof(*ad->staged));
	return ret == -EAGAIN ? 0 : min(ret, 0);	/* EAGAIN: reap, retry */
}

static int fas_getevents(struct thread_data *td, unsigned int min,
			 unsigned int max, const struct timespec *t)
{
	struct fas_data *ad = td->io_ops_data;
	struct timespec zero = { 0 };
	int n;

	ad->nr_done = 0;
	do {
		n = async_queue_reap(&ad->q, ad->done + ad->nr_done,
				     max - ad->nr_done,
				     ad->nr_done >= min ? &zero : t);
		if (n == -ETIMEDOUT || n == -EINTR)
			break;
		if (n < 0)
			return n;
		if (!n)		/* nothing in flight */
			break;
		ad->nr_done += n;
	} while (ad->nr_done < min);
	return ad->nr_done;
}

static struct io_u *fas_event(struct thread_data *td, int event)
{
	struct fas_data *ad = td->io_ops_data;
	struct io_u *io_u = (struct io_u *)(uintptr_t)ad->done[event].user_data;
	struct async_syscall *e = fas_result_entry(td, io_u);
	long long res = e->result;

	if (io_u->ddir == DDIR_READ && res == -ECANCELED)
		res = ad->ents[CHAIN_MAX * io_u->index].result;	/* the open */
	if (res < 0) {
		io_u->error = -res;
	} else {
		io_u->error = 0;
		if (ddir_rw(io_u->ddir) && res != io_u->xfer_buflen)
			io_u->resid = io_u->xfer_buflen - res;
	}
	return io_u;
}

static int fas_open_file(struct thread_data *td, struct fio_file *f)
{
	struct fas_options *o = td->eo;

	if (!FILE_ENG_DATA(f)) {
		struct fas_file *ff = calloc(1, sizeof(*ff));

		if (!ff)
			return 1;
		FILE_SET_ENG_DATA(f, ff);
	}
	if (o->chain_open && !td_write(td))
		return 0;	/* the chains open the file */
	return generic_open_file(td, f);
}

static int fas_close_file(struct thread_data *td, struct fio_file *f)
{
	struct fas_options *o = td->eo;

	free(FILE_ENG_DATA(f));
	FILE_SET_ENG_DATA(f, NULL);
	if (o->chain_open && !td_write(td)) {
		f->fd = -1;
		return 0;
	}
	return generic_close_file(td, f);
}

static int fas_init(struct thread_data *td)
{
	unsigned int depth = td->o.iodepth;
	struct fas_data *ad;
	int ret;

	if (async_abi_version() < 0) {
		log_err("async_submit: the kernel has no async_submit(): %s\n",
			strerror(errno));
		return 1;
	}
	ad = calloc(1, sizeof(*ad));
	if (!ad)
		return 1;
	ad->ents = calloc((size_t)depth * CHAIN_MAX, sizeof(*ad->ents));
	ad->done = calloc(depth, sizeof(*ad->done));
	ad->staged = calloc(depth, sizeof(*ad->staged));
	ret = async_queue_init(&ad->q, depth * CHAIN_MAX);
	if (!ad->ents || !ad->done || !ad->staged || ret) {
		free(ad->ents);
		free(ad->done);
		free(ad->staged);
		free(ad);
		return 1;
	}
	td->io_ops_data = ad;
	return 0;
}

static void fas_cleanup(struct thread_data *td)
{
	struct fas_data *ad = td->io_ops_data;

	if (!ad)
		return;
	/* stderr: fio's own log goes into --output, JSON included. */
	fprintf(stderr, "async_submit: %llu entries, %llu done when async_submit() returned\n",
		ad->entries, ad->done_at_submit);
	async_queue_exit(&ad->q);
	free(ad->ents);
	free(ad->done);
	free(ad->staged);
	free(ad);
	td->io_ops_data = NULL;
}

struct ioengine_ops ioengine = {
	.name			= "async_submit",
	.version		= FIO_IOOPS_VERSION,
	.init			= fas_init,
	.queue			= fas_queue,
	.commit			= fas_commit,
	.getevents		= fas_getevents,
	.event			= fas_event,
	.cleanup		= fas_cleanup,
	.open_file		= fas_open_file,
	.close_file		= fas_close_file,
	.get_file_size		= generic_get_file_size,
	.options		= options,
	.option_struct_size	= sizeof(struct fas_options),
};
