// SPDX-License-Identifier: GPL-2.0
/*
 * sd-write-stall FILE VALUE CPU [SECONDS]: write VALUE to FILE (a per-domain
 * debugfs file) from a page that userfaultfd holds back, so that the write
 * sleeps in copy_from_user() with the file open and in use; meanwhile CPU
 * goes offline, which rebuilds the sched domains: the old ones are freed
 * after an RCU grace period, and removing their files waits for the write.
 * After SECONDS (default 2) the page arrives and the write completes.  A
 * kernel that keeps the domain's address in the file writes into the freed
 * domain (KASAN reports it; without KASAN the value is lost); one that looks
 * the domain up again writes the domain the file names now.
 *
 * Prints "stall: offline blocked while the write waited: yes|no",
 * "stall: write returned N" or "stall: write failed: ERRNO", and
 * "stall: offline returned N after MS ms".
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *file, *value;
static int cpu;
static char *page;
static volatile int write_done, offline_done;
static ssize_t write_ret, offline_ret;
static int write_err, offline_err;
static double offline_ms;

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void die(const char *what)
{
	printf("stall: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *writer(void *fd)
{
	write_ret = write(*(int *)fd, page, strlen(value));
	write_err = errno;
	write_done = 1;
	return NULL;
}

static void *offliner(void *unused)
{
	char path[64];
	double t0 = now_ms();
	int fd;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online", cpu);
	fd = open(path, O_WRONLY);
	offline_ret = fd < 0 ? -1 : write(fd, "0", 1);
	offline_err = errno;
	if (fd >= 0)
		close(fd);
	offline_ms = now_ms() - t0;
	offline_done = 1;
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { .mode = UFFDIO_REGISTER_MODE_MISSING };
	struct uffdio_copy copy = { 0 };
	long size = sysconf(_SC_PAGESIZE);
	pthread_t w, o;
	struct uffd_msg msg;
	char *src;
	int uffd, fd;

	if (argc < 4) {
		fprintf(stderr, "usage: %s FILE VALUE CPU [SECONDS]\n", argv[0]);
		return 2;
	}
	file = argv[1];
	value = argv[2];
	cpu = atoi(argv[3]);

	uffd = syscall(__NR_userfaultfd, O_CLOEXEC);
	if (uffd < 0)
		die("userfaultfd");
	if (ioctl(uffd, UFFDIO_API, &api))
		die("UFFDIO_API");
	page = mmap(NULL, size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	src = malloc(size);
	if (page == MAP_FAILED || !src)
		die("mmap");
	memset(src, 0, size);
	memcpy(src, value, strlen(value));
	reg.range.start = (unsigned long)page;
	reg.range.len = size;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		die("UFFDIO_REGISTER");

	fd = open(file, O_WRONLY);
	if (fd < 0)
		die(file);
	pthread_create(&w, NULL, writer, &fd);
	/* The write is in copy_from_user() once its fault arrives. */
	if (read(uffd, &msg, sizeof(msg)) != sizeof(msg) ||
	    msg.event != UFFD_EVENT_PAGEFAULT)
		die("no page fault from the write");

	pthread_create(&o, NULL, offliner, NULL);
	sleep(argc > 4 ? atoi(argv[4]) : 2);
	printf("stall: offline blocked while the write waited: %s\n",
	       offline_done ? "no" : "yes");

	copy.dst = (unsigned long)page;
	copy.src = (unsigned long)src;
	copy.len = size;
	if (ioctl(uffd, UFFDIO_COPY, &copy))
		die("UFFDIO_COPY");
	pthread_join(w, NULL);
	pthread_join(o, NULL);
	if (write_ret < 0)
		printf("stall: write failed: %s\n", strerror(write_err));
	else
		printf("stall: write returned %zd\n", write_ret);
	if (offline_ret < 0)
		printf("stall: offline failed: %s\n", strerror(offline_err));
	printf("stall: offline returned %zd after %.0f ms\n", offline_ret,
	       offline_ms);
	return 0;
}
