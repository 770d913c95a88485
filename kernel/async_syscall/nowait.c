// SPDX-License-Identifier: GPL-2.0
/*
 * Entries the submitting thread runs itself, because they complete
 * without blocking.
 *
 * A method does what its system call does, but only where that cannot
 * wait: a read from the page cache or from a pipe with data, a path found
 * in the dentry cache, a close with nothing to flush, a write to an
 * eventfd with room.  Anywhere else it
 * returns -EAGAIN having changed nothing, and a worker runs the real
 * system call; so does any error that a second try would reproduce.  So
 * an entry's result never depends on where it ran.
 */

#include <linux/eventfd.h>
#include <linux/fcntl.h>
#include <linux/fdtable.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/fsnotify.h>
#include <linux/mount.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/sched/xacct.h>
#include <linux/slab.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include <linux/uio.h>

#include "../../fs/internal.h"
#include "async_syscall.h"

/* A fanotify listener answers permission events: that is a wait. */
static bool async_nowait_perm_watched(struct inode *inode)
{
	return fsnotify_sb_has_priority_watchers(inode->i_sb,
						 FSNOTIFY_PRIO_CONTENT);
}

/*
 * Reads @iter from @file at *@pos (NULL for a stream) with IOCB_NOWAIT.
 *
 * Only regular files and pipes.  A regular file can be read again, so
 * anything short of what the blocking read returns (an error, or a short
 * read before the end of the file) goes to a worker.  What a pipe gives is
 * gone from it, so only "nothing yet" goes to a worker there, as
 * ASYNC_NOWAIT_PEER, and any other result is final, as it is for the blocking read.  A socket may
 * hand over data or an error that a worker could not read again, and may
 * wait for its low-water mark where IOCB_NOWAIT does not: sockets always
 * go to a worker.
 */
static ssize_t async_nowait_read_iter(struct file *file, loff_t *pos,
				      struct iov_iter *iter, rwf_t flags)
{
	const fmode_t need = FMODE_READ | FMODE_CAN_READ | FMODE_NOWAIT;
	struct inode *inode = file_inode(file);
	size_t count = iov_iter_count(iter);
	bool pipe = S_ISFIFO(inode->i_mode);
	/* init_sync_kiocb() sets it whole: not zeroed twice. */
	struct kiocb kiocb __uninitialized;
	ssize_t ret;

	if ((file->f_mode & need) != need || file->f_op->read ||
	    !file->f_op->read_iter || (!pipe && !S_ISREG(inode->i_mode)) ||
	    async_nowait_perm_watched(inode))
		return -EAGAIN;
	init_sync_kiocb(&kiocb, file);
	if (kiocb_set_rw_flags(&kiocb, flags, READ))
		return -EAGAIN;
	/* Direct and polled I/O wait for the device even with IOCB_NOWAIT. */
	if (kiocb.ki_flags & (IOCB_DIRECT | IOCB_HIPRI))
		return -EAGAIN;
	kiocb.ki_flags |= IOCB_NOWAIT;
	kiocb.ki_pos = pos ? *pos : 0;
	if (rw_verify_area(READ, file, pos, count))
		return -EAGAIN;

	ret = file->f_op->read_iter(&kiocb, iter);
	if (pipe)
		return ret == -EAGAIN ? ASYNC_NOWAIT_PEER : ret;
	if (ret < 0 || (ret < count && kiocb.ki_pos < i_size_read(inode)))
		return -EAGAIN;
	if (pos)
		*pos = kiocb.ki_pos;
	return ret;
}

/*
 * The read of an inline entry is its hot path: the helpers between the
 * method and ->read_iter() are always inlined into it.
 */

/* What vfs_read() and vfs_readv() account after a read. */
static __always_inline void async_nowait_read_done(struct file *file,
						   ssize_t ret, bool vectored)
{
	if (ret > 0 || (vectored && !ret))
		fsnotify_access(file);
	if (ret > 0)
		add_rchar(current, ret);
	inc_syscr(current);
}

/* As vfs_read() and new_sync_read() make the iterator. */
static __always_inline ssize_t async_nowait_read_buf(struct file *file,
						     u64 buf, u64 count,
						     loff_t *pos)
{
	/* iov_iter_ubuf() sets it whole. */
	struct iov_iter iter __uninitialized;
	ssize_t ret;

	if (count > MAX_RW_COUNT || !access_ok(u64_to_user_ptr(buf), count))
		return -EAGAIN;
	iov_iter_ubuf(&iter, ITER_DEST, u64_to_user_ptr(buf), count);
	ret = async_nowait_read_iter(file, pos, &iter, 0);
	if (ret >= 0)
		async_nowait_read_done(file, ret, false);
	return ret;
}

static ssize_t async_nowait_readv(struct file *file, u64 uvec, u64 vlen,
				  loff_t *pos, rwf_t flags)
{
	struct iovec iovstack[UIO_FASTIOV], *iov = iovstack;
	struct iov_iter iter;
	ssize_t ret;

	if (vlen > UIO_MAXIOV)
		return -EAGAIN;
	/*
	 * Entries are native: a worker running a shared call's chain is not
	 * in a system call, and may look like an x32 one to import_iovec().
	 */
	ret = __import_iovec(ITER_DEST, u64_to_user_ptr(uvec), vlen,
			     ARRAY_SIZE(iovstack), &iov, &iter, false);
	if (ret < 0)
		return -EAGAIN;
	/* vfs_readv() does not call ->read_iter() for nothing. */
	ret = iov_iter_count(&iter) ?
	      async_nowait_read_iter(file, pos, &iter, flags) : -EAGAIN;
	kfree(iov);
	if (ret >= 0)
		async_nowait_read_done(file, ret, true);
	return ret;
}

/*
 * read(), readv() and preadv2() at offset -1 use and move the file
 * position, under the position lock when fdget_pos() would take it.  That
 * lock is held across another thread's blocking read of the file: if it
 * is taken, the entry goes to a worker.
 */
static long async_nowait_read_pos(const u64 *args, bool vectored, rwf_t flags)
{
	CLASS(fd, f)(args[0]);
	struct file *file = fd_file(f);
	loff_t pos, *ppos = NULL;
	bool locked = false;
	long ret;

	if (fd_empty(f))
		return -EAGAIN;
	if ((file->f_mode & FMODE_ATOMIC_POS) &&
	    (file_count(file) > 1 || file->f_op->iterate_shared)) {
		if (!mutex_trylock(&file->f_pos_lock))
			return -EAGAIN;
		locked = true;
	}
	if (!(file->f_mode & FMODE_STREAM)) {
		pos = file->f_pos;
		ppos = &pos;
	}
	if (vectored)
		ret = async_nowait_readv(file, args[1], args[2], ppos, flags);
	else
		ret = async_nowait_read_buf(file, args[1], args[2], ppos);
	if (ret >= 0 && ppos)
		file->f_pos = pos;
	if (locked)
		mutex_unlock(&file->f_pos_lock);
	return ret;
}

static __always_inline long async_nowait_read_at(const u64 *args, loff_t pos,
						 bool vectored, rwf_t flags)
{
	CLASS(fd, f)(args[0]);

	if (fd_empty(f) || pos < 0 || !(fd_file(f)->f_mode & FMODE_PREAD))
		return -EAGAIN;
	if (vectored)
		return async_nowait_readv(fd_file(f), args[1], args[2], &pos,
					  flags);
	return async_nowait_read_buf(fd_file(f), args[1], args[2], &pos);
}

long async_nowait_read(const u64 *args)
{
	return async_nowait_read_pos(args, false, 0);
}

long async_nowait_readv_fpos(const u64 *args)
{
	return async_nowait_read_pos(args, true, 0);
}

long async_nowait_pread64(const u64 *args)
{
	return async_nowait_read_at(args, args[3], false, 0);
}

/* preadv(fd, vec, vlen, pos_l, pos_h): a 64-bit kernel takes pos_l whole. */
long async_nowait_preadv(const u64 *args)
{
	return async_nowait_read_at(args, args[3], true, 0);
}

long async_nowait_preadv2(const u64 *args)
{
	loff_t pos = args[3];
	rwf_t flags = (__force rwf_t)args[5];

	if (args[5] != (u32)args[5])
		return -EAGAIN;
	if (pos == -1)
		return async_nowait_read_pos(args, true, flags);
	return async_nowait_read_at(args, pos, true, flags);
}

/*
 * Opens only what is in the dentry cache, and only what opens without
 * waiting (LOOKUP_OPEN_NOWAIT): regular files and directories of
 * filesystems on a block device or in memory.  Opening anything else can
 * wait, for a server or a device, or act (a FIFO's open wakes the other
 * end), so it is left to a worker.
 */
static long async_nowait_open(int dfd, const char __user *uname,
			      const struct open_how *how)
{
	struct open_flags op;
	struct filename *name;
	struct file *file;
	int fd;

	if (how->flags & (O_CREAT | O_TRUNC | __O_TMPFILE))
		return -EAGAIN;
	if (build_open_flags(how, &op))
		return -EAGAIN;
	op.lookup_flags |= LOOKUP_CACHED | LOOKUP_OPEN_NOWAIT;
	/* A lease taken since the check is not waited for either. */
	op.open_flag |= O_NONBLOCK;

	name = getname(uname);
	if (IS_ERR(name))
		return -EAGAIN;
	fd = get_unused_fd_flags(how->flags);
	if (fd < 0)
		goto out_name;
	file = do_filp_open(dfd, name, &op);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		fd = -EAGAIN;
		goto out_name;
	}
	if (!(how->flags & O_NONBLOCK))
		file->f_flags &= ~O_NONBLOCK;
	fd_install(fd, file);
out_name:
	putname(name);
	return fd < 0 ? -EAGAIN : fd;
}

long async_nowait_openat(const u64 *args)
{
	int flags = args[2];
	struct open_how how;

	/* As openat() does. */
	if (force_o_largefile())
		flags |= O_LARGEFILE;
	how = build_open_how(flags, args[3]);
	return async_nowait_open(args[0], u64_to_user_ptr(args[1]), &how);
}

/*
 * statx(fd, "", AT_EMPTY_PATH) of an open file, as fstat() through statx
 * is: the attributes in memory of a filesystem that open_release_nowait()
 * finds local.  A path, a forced sync or a remote filesystem, which asks
 * its server, go to a worker.  do_statx_fd() looks the descriptor up
 * again: a dup2() that races it may leave a remote file's getattr to the
 * submitter, which then waits as statx() would, with the right result.
 */
long async_nowait_statx(const u64 *args)
{
	const char __user *path = u64_to_user_ptr(args[1]);
	unsigned int flags = args[2];
	int dfd = args[0];

	if ((flags & ~(AT_NO_AUTOMOUNT | AT_STATX_SYNC_TYPE)) != AT_EMPTY_PATH ||
	    (flags & AT_STATX_SYNC_TYPE) == AT_STATX_FORCE_SYNC ||
	    !vfs_empty_path(dfd, path))
		return -EAGAIN;
	{
		CLASS(fd, f)(dfd);

		if (fd_empty(f) ||
		    !open_release_nowait(fd_file(f)->f_path.dentry))
			return -EAGAIN;
	}
	return do_statx_fd(dfd, flags & ~AT_NO_AUTOMOUNT, args[3],
			   u64_to_user_ptr(args[4]));
}

/*
 * Whether closing @file is quick.  A ->flush() or a ->lock() may wait
 * for a server or a device.  Any close may drop the last reference, as
 * other threads drop theirs at any time, and the release then drops the
 * name, which a network filesystem does with its server (9p's clunk,
 * CIFS's close, FUSE's release on fuseblk); frees an unlinked inode;
 * gives back what a writer reserved on a block device (ext4's delayed
 * allocation, xfs's blocks past the end); and puts the mount, whose last
 * put after a lazy unmount tears down what was mounted on it.  So only a
 * directory, a pipe or a regular file that is still linked, of a
 * filesystem that releases without I/O, not written to nor dirty on a
 * block device, on a mount still attached.  An unlink or a lazy unmount
 * that races the close may still leave the release to the submitter: it
 * then waits, as close() would, and nothing else is affected.
 */
static bool async_nowait_close_is_quick(struct file *file)
{
	struct inode *inode = file_inode(file);

	if (file->f_op->flush || file->f_op->lock)
		return false;
	if (!open_release_nowait(file->f_path.dentry) || !inode->i_nlink ||
	    (READ_ONCE(file->f_path.mnt->mnt_flags) & MNT_UMOUNT))
		return false;
	/* A truncated file may be flushed at any close (ext4, xfs, btrfs). */
	if ((inode->i_sb->s_type->fs_flags & FS_REQUIRES_DEV) &&
	    ((file->f_mode & FMODE_WRITE) ||
	     mapping_tagged(inode->i_mapping, PAGECACHE_TAG_DIRTY)))
		return false;
	return S_ISDIR(inode->i_mode) || S_ISFIFO(inode->i_mode) ||
	       S_ISREG(inode->i_mode);
}

/*
 * As write() to an eventfd: eight bytes the counter takes whole or not at
 * all, so that an event loop's eventfd learns of a chain that completed
 * here before async_submit() returns.  Any error goes to a worker, which
 * gives it; so does a counter without room, as a wait for a reader, the
 * peer, unless the file is O_NONBLOCK.
 */
long async_nowait_write(const u64 *args)
{
	void __user *buf = u64_to_user_ptr(args[1]);
	struct file *file;
	ssize_t ret;

	CLASS(fd, f)(args[0]);
	if (fd_empty(f))
		return -EAGAIN;
	file = fd_file(f);
	if (!file_is_eventfd(file) ||
	    (file->f_mode & (FMODE_WRITE | FMODE_CAN_WRITE)) !=
	    (FMODE_WRITE | FMODE_CAN_WRITE) ||
	    args[2] != sizeof(u64) || !access_ok(buf, args[2]) ||
	    rw_verify_area(WRITE, file, &file->f_pos, args[2]))
		return -EAGAIN;
	ret = eventfd_write_nowait(file, buf, args[2]);
	if (ret == -EAGAIN && !(file->f_flags & O_NONBLOCK))
		return ASYNC_NOWAIT_PEER;
	if (ret < 0)
		return -EAGAIN;
	/* What vfs_write() accounts after a write. */
	fsnotify_modify(file);
	add_wchar(current, ret);
	inc_syscw(current);
	return ret;
}

/*
 * As close(): the release is done before the entry completes, so that
 * whatever it ends (a pipe's writer, a lock) has ended for the next entry.
 */
long async_nowait_close(const u64 *args)
{
	struct files_struct *files = current->files;
	unsigned int fd = args[0];
	struct file *file;

	spin_lock(&files->file_lock);
	file = files_lookup_fd_locked(files, fd);
	if (!file || !async_nowait_close_is_quick(file)) {
		spin_unlock(&files->file_lock);
		return -EAGAIN;
	}
	file = file_close_fd_locked(files, fd);
	spin_unlock(&files->file_lock);
	/* No ->flush(): nothing to fail, and nothing that can be restarted. */
	filp_close(file, files);
	task_work_run();
	return 0;
}
