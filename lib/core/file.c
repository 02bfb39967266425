/* file.c: the one way the tool opens a file it reads by name.
 *
 * open() blocks on a FIFO with no writer and on some devices, and a read of
 * /dev/zero never ends, so a path a user (or a model's external data
 * location) names is opened with O_NONBLOCK, held to be a regular file by
 * fstat() on the descriptor it opened (no race with a rename), refused by
 * what it is otherwise ("a FIFO", "a directory", ...), and held to a size
 * cap when the caller reads it whole.  The descriptor goes back to blocking
 * mode: the readers map or read a regular file, where O_NONBLOCK changes
 * nothing, but a file handed to a library should not carry it. */
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *
kind(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISCHR(m) ? "a character device"
	       : S_ISBLK(m) ? "a block device" : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

int
file_open(const char *path, uint64_t max, uint64_t *size, char *why, size_t whylen)
{
	struct stat st;
	int fd, flags, err;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) != 0) {
		err = errno;
		close(fd);
		snprintf(why, whylen, "%s", strerror(err));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(why, whylen, "%s, not a regular file", kind(st.st_mode));
		return -1;
	}
	if (max && (uint64_t)st.st_size > max) {
		close(fd);
		snprintf(why, whylen, "%llu bytes, more than the %llu this file may hold",
		         (unsigned long long)st.st_size, (unsigned long long)max);
		return -1;
	}
	if ((flags = fcntl(fd, F_GETFL)) != -1)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	*size = (uint64_t)st.st_size;
	return fd;
}

char *
file_slurp(Arena *a, const char *path, uint64_t max, size_t *len, char *why, size_t whylen)
{
	uint64_t size;
	size_t got = 0;
	char *buf;
	int fd = file_open(path, max, &size, why, whylen);

	*len = 0;
	if (fd < 0)
		return NULL;
	if (size >= SIZE_MAX || !(buf = arena_try_alloc(a, (size_t)size + 1))) {
		close(fd);
		snprintf(why, whylen, "%llu bytes: cannot hold them in memory", (unsigned long long)size);
		return NULL;
	}
	/* read what fstat said, no more: a file growing meanwhile is cut */
	while (got < size) {
		ssize_t n = read(fd, buf + got, (size_t)size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			snprintf(why, whylen, "%s", strerror(errno));
			close(fd);
			return NULL;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = 0;
	*len = got;
	return buf;
}
