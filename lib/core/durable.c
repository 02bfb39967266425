/* durable.c: files written whole through a temporary file, made durable
 * together (core.h, "durable").
 *
 * Why batch: each fsync of a freshly written file on ext4 allocates its
 * blocks and commits the journal, about a millisecond each even for a few
 * kilobytes.  sync_file_range(SYNC_FILE_RANGE_WRITE) on every file first
 * allocates and queues all of them, so the first fsync commits one journal
 * transaction holding every file and the others find theirs done; the
 * renames then share the directory's one fsync.  A crash at any point
 * leaves each path with its old content or its new one, never a mix. */
#define _GNU_SOURCE   /* sync_file_range */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void
durable_init(Durable *out)
{
	memset(out, 0, sizeof *out);
}

static char *
dup_n(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	char *p = malloc(n + k + 1);

	if (!p)
		die("out of memory");
	memcpy(p, s, n);
	memcpy(p + n, suffix, k + 1);
	return p;
}

int
durable_open(Durable *out, const char *path)
{
	DurableFile *f;
	char sfx[32];
	int fd;

	if (out->n == DURABLE_MAX)
		die("durable: more than %d files", DURABLE_MAX);
	f = &out->f[out->n];
	snprintf(sfx, sizeof sfx, ".tmp.%ld", (long)getpid());
	f->tmp = dup_n(path, strlen(path), sfx);
	/* a new file, never one found there: a link planted under the
	 * temporary name is removed, not written through (one retry: a stale
	 * file of a crashed run of the same pid goes the same way) */
	if ((fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0 && errno == EEXIST &&
	    unlink(f->tmp) == 0)
		fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		int err = errno;
		free(f->tmp);
		errno = err;
		return -1;
	}
	f->path = dup_n(path, strlen(path), "");
	f->fd = fd;
	f->synced = 0;
	out->n++;
	return fd;
}

int
durable_write(Durable *out, const char *path, const void *p, size_t len)
{
	const char *b = p;
	int fd = durable_open(out, path);

	if (fd < 0)
		return errno;
	while (len) {
		ssize_t n = write(fd, b, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? errno : EIO;
			durable_drop(out, fd);
			return err;
		}
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

static void
forget(Durable *out, int i, int remove)
{
	DurableFile *f = &out->f[i];

	if (f->fd >= 0)
		close(f->fd);
	if (remove)
		unlink(f->tmp);
	free(f->tmp);
	free(f->path);
	memmove(f, f + 1, sizeof *f * (size_t)(out->n - i - 1));
	out->n--;
}

void
durable_drop(Durable *out, int fd)
{
	for (int i = 0; i < out->n; i++)
		if (out->f[i].fd == fd) {
			forget(out, i, 1);
			return;
		}
	die("durable: no file %d", fd);
}

void
durable_writeback(int fd, uint64_t from, uint64_t len)
{
	(void)sync_file_range(fd, (off_t)from, (off_t)len, SYNC_FILE_RANGE_WRITE);
}

void
durable_start(Durable *out)
{
	for (int i = 0; i < out->n; i++)
		durable_writeback(out->f[i].fd, 0, 0);
}

int
durable_sync(Durable *out)
{
	int err = 0;

	durable_start(out);
	for (int i = 0; i < out->n; i++) {
		if (out->f[i].synced)
			continue;
		if (fsync(out->f[i].fd) == 0)
			out->f[i].synced = 1;
		else if (!err)
			err = errno;
	}
	return err;
}

void
durable_join(Durable *to, Durable *from)
{
	if (to->n + from->n > DURABLE_MAX)
		die("durable: more than %d files", DURABLE_MAX);
	memcpy(&to->f[to->n], from->f, sizeof *from->f * (size_t)from->n);
	to->n += from->n;
	from->n = 0;
}

void
durable_abort(Durable *out)
{
	while (out->n)
		forget(out, out->n - 1, 1);
}

/* fsyncs the directory holding path; 0 or an errno.  A file system that
 * cannot sync a directory (EINVAL) has nothing more to make durable. */
static int
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path), "") : NULL;
	int fd = open(dir ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	free(dir);
	if (fd < 0)
		return errno;
	if (fsync(fd) != 0 && errno != EINVAL)
		err = errno;
	close(fd);
	return err;
}

/* 1 when a and b are in the same directory (by name). */
static int
same_dir(const char *a, const char *b)
{
	const char *sa = strrchr(a, '/'), *sb = strrchr(b, '/');
	size_t na = sa ? (size_t)(sa - a) : 0, nb = sb ? (size_t)(sb - b) : 0;

	return (!sa) == (!sb) && na == nb && memcmp(a, b, na) == 0;
}

int
durable_commit(Durable *out, const char **failed)
{
	static char last[4096];   /* the path *failed points at */
	int err = 0, bad = -1, done = 0;

	durable_start(out);
	for (int i = 0; i < out->n && !err; i++) {
		if (!out->f[i].synced && fsync(out->f[i].fd) != 0)
			err = errno, bad = i;
		if (close(out->f[i].fd) != 0 && !err)
			err = errno, bad = i;
		out->f[i].fd = -1;
	}
	while (done < out->n && !err) {
		if (rename(out->f[done].tmp, out->f[done].path) != 0)
			err = errno, bad = done;
		else
			done++;
	}
	for (int i = 0; i < done && !err; i++) {
		int seen = 0;
		for (int k = 0; k < i && !seen; k++)
			seen = same_dir(out->f[k].path, out->f[i].path);
		if (!seen && (err = sync_dir(out->f[i].path)))
			bad = i;
	}
	if (err && failed) {
		snprintf(last, sizeof last, "%s", out->f[bad].path);
		*failed = last;
	}
	while (out->n)
		forget(out, out->n - 1, out->n > done);
	return err;
}

static const char *
kind(mode_t m)
{
	return S_ISLNK(m) ? "a symbolic link" : S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO"
	       : S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device"
	       : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int
durable_check_output(const char *path, const char *const *inputs, int n, char *why, size_t whylen)
{
	struct stat st, in;

	if (lstat(path, &st) != 0)
		return 0;   /* a new file (or one the write will fail to make, and say why) */
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "it is %s, which an output never replaces", kind(st.st_mode));
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev && in.st_ino == st.st_ino) {
			snprintf(why, whylen, "it is the input '%s'", inputs[i]);
			return -1;
		}
	return 0;
}

/* path with its folder resolved through links (malloc'ed), or NULL when
 * the folder does not exist. */
static char *
resolved(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path), "") : dup_n(".", 1, "");
	char *real = realpath(dir, NULL), *out = NULL;

	if (real) {
		out = dup_n(real, strlen(real), "/");
		out = realloc(out, strlen(out) + strlen(slash ? slash + 1 : path) + 1);
		if (!out)
			die("out of memory");
		strcat(out, slash ? slash + 1 : path);
		free(real);
	}
	free(dir);
	return out;
}

int
durable_same_path(const char *a, const char *b)
{
	char *ra = resolved(a), *rb = resolved(b);
	int same = ra && rb ? strcmp(ra, rb) == 0 : strcmp(a, b) == 0;

	free(ra);
	free(rb);
	return same;
}

/* The folder of path resolved through links (malloc'ed), or NULL. */
static char *
folder(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? dup_n(path, slash == path ? 1 : (size_t)(slash - path), "") : dup_n(".", 1, "");
	char *real = realpath(dir, NULL);

	free(dir);
	return real;
}

int
durable_same_dir(const char *a, const char *b)
{
	char *ra = folder(a), *rb = folder(b);
	int same = ra && rb && strcmp(ra, rb) == 0;

	free(ra);
	free(rb);
	return same;
}
