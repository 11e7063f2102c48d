/*
 * The few newlib system hooks the kernel links (--specs=nano.specs). The
 * kernel does not use stdio streams or malloc; these exist so that the
 * parts of newlib we use (string functions, vsnprintf) link, and so that
 * any stray use fails loudly instead of silently.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/stat.h>

#include "drivers/console.h"
#include "kernel/lib/panic.h"

int _write(int fd, const char *buf, int len);
int _read(int fd, char *buf, int len);
int _close(int fd);
int _lseek(int fd, int off, int whence);
int _fstat(int fd, struct stat *st);
int _isatty(int fd);
void *_sbrk(ptrdiff_t incr);
void _exit(int status);
int _kill(int pid, int sig);
int _getpid(void);

int _write(int fd, const char *buf, int len)
{
	if (fd != 1 && fd != 2) {
		errno = EBADF;
		return -1;
	}
	console_write(buf, (size_t)len);
	return len;
}

int _read(int fd, char *buf, int len)
{
	(void)fd; (void)buf; (void)len;
	errno = ENOSYS;
	return -1;
}

int _close(int fd)
{
	(void)fd;
	return -1;
}

int _lseek(int fd, int off, int whence)
{
	(void)fd; (void)off; (void)whence;
	return -1;
}

int _fstat(int fd, struct stat *st)
{
	(void)fd;
	st->st_mode = S_IFCHR;
	return 0;
}

int _isatty(int fd)
{
	(void)fd;
	return 1;
}

void *_sbrk(ptrdiff_t incr)
{
	(void)incr;
	errno = ENOMEM;
	return (void *)-1;
}

void _exit(int status)
{
	panic("newlib _exit(%d) called", status);
}

int _kill(int pid, int sig)
{
	(void)pid; (void)sig;
	errno = EINVAL;
	return -1;
}

int _getpid(void)
{
	return 1;
}
