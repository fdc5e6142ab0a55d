// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: pairs of processes that pass one byte back and forth through
 * two pipes, each waking the other and going to sleep at once: the sync
 * wakeup (a pipe write wakes its reader with WF_SYNC) at its purest.  Where
 * the wakee runs decides the round trip: on the waker's CPU or its SMT
 * sibling the byte stays in the core's caches; anywhere else it crosses
 * to another core, and the wakee may have to leave an idle state first.
 * Written for this project.
 *
 * Each pair repeats round trips for SECONDS after a first second of
 * settling.  The result is the round trips per second, all pairs together.
 *
 * Usage: pingpong [-p pairs] [-S seconds]
 * Prints one line:
 *   pingpong pairs=N round_trips_per_s=R
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS	64
#define SETTLE_S	1.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The echoing end: returns every byte it reads until the pipe closes. */
static void pong(int in, int out)
{
	char c;

	while (read(in, &c, 1) == 1)
		if (write(out, &c, 1) != 1)
			break;
	_exit(0);
}

/* The measuring end: round trips between @start and @stop into *@done. */
static void ping(int in, int out, double start, double stop,
		 unsigned long *done)
{
	unsigned long n = 0;
	double t;
	char c = 0;

	for (t = now(); t < stop; t = now()) {
		if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
			die("pingpong: pipe");
		if (t >= start)
			n++;
	}
	*done = n;
	_exit(0);
}

/* Fork: whether this is the child, which closes the pipe ends it does not use. */
static int forked(int unused_read, int unused_write)
{
	pid_t pid = fork();

	if (pid < 0)
		die("pingpong: fork");
	if (pid)
		return 0;
	close(unused_read);
	close(unused_write);
	return 1;
}

int main(int argc, char **argv)
{
	int pairs = 1, opt, i, to_pong[2], to_ping[2];
	double seconds = 5, start, stop;
	unsigned long *done, total = 0;

	while ((opt = getopt(argc, argv, "p:S:")) != -1) {
		switch (opt) {
		case 'p':
			pairs = atoi(optarg);
			break;
		case 'S':
			seconds = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: pingpong [-p pairs] [-S seconds]\n");
			return 2;
		}
	}
	if (pairs < 1 || pairs > MAX_PAIRS || seconds <= 0) {
		fprintf(stderr, "pingpong: 1 to %d pairs, seconds > 0\n", MAX_PAIRS);
		return 2;
	}

	done = mmap(NULL, pairs * sizeof(*done), PROT_READ | PROT_WRITE,
		    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (done == MAP_FAILED)
		die("pingpong: mmap");

	start = now() + SETTLE_S;
	stop = start + seconds;
	for (i = 0; i < pairs; i++) {
		if (pipe(to_pong) || pipe(to_ping))
			die("pingpong: pipe");
		if (forked(to_pong[1], to_ping[0]))
			pong(to_pong[0], to_ping[1]);
		if (forked(to_pong[0], to_ping[1]))
			ping(to_ping[0], to_pong[1], start, stop, &done[i]);
		close(to_pong[0]);
		close(to_pong[1]);
		close(to_ping[0]);
		close(to_ping[1]);
	}
	while (wait(NULL) > 0)
		;
	for (i = 0; i < pairs; i++)
		total += done[i];
	printf("pingpong pairs=%d round_trips_per_s=%.0f\n", pairs,
	       total / seconds);
	return 0;
}
