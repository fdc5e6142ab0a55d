// SPDX-License-Identifier: GPL-2.0
/*
 * run-sleep: threads that compute for a while and sleep briefly, as
 * request handlers do, so that every wakeup asks the scheduler again where
 * the thread should run.  Written for this project.
 *
 * Each thread repeats: rounds of integer work for RUN_MS of wall time, then
 * a sleep of SLEEP_MS.  What a thread gets done in its RUN_MS depends on
 * where it ran: alone on a core, beside a busy sibling, on a small core.
 * The result is the total work per second (thousands of rounds), all
 * threads together, over SECONDS after a first second of settling.
 *
 * Usage: run-sleep [-t threads] [-S seconds] [-r run_ms] [-s sleep_ms]
 * Prints one line:
 *   run-sleep threads=N work_per_s=W
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS	256
#define SETTLE_S	1.0

static int nr_threads = 1, run_ms = 20, sleep_ms = 1;
static double seconds = 5, start, stop;
static unsigned long work[MAX_THREADS];	/* per thread, while measured */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *run_sleep(void *arg)
{
	unsigned long *done = arg, x = (unsigned long)arg;
	struct timespec nap = { 0, sleep_ms * 1000000L };
	double t, end;
	int i;

	for (t = now(); t < stop; t = now()) {
		for (end = t + run_ms / 1e3; (t = now()) < end;) {
			for (i = 0; i < 1000; i++)
				x = x * 6364136223846793005UL + 1442695040888963407UL;
			if (t >= start && t < stop)
				(*done)++;
		}
		nanosleep(&nap, NULL);
	}
	/* Keeps the work from being optimized away. */
	if (x == 42)
		(*done)++;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t threads[MAX_THREADS];
	unsigned long total = 0;
	int opt, i;

	while ((opt = getopt(argc, argv, "t:S:r:s:")) != -1) {
		switch (opt) {
		case 't':
			nr_threads = atoi(optarg);
			break;
		case 'S':
			seconds = atof(optarg);
			break;
		case 'r':
			run_ms = atoi(optarg);
			break;
		case 's':
			sleep_ms = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: run-sleep [-t threads] [-S seconds] [-r run_ms] [-s sleep_ms]\n");
			return 1;
		}
	}
	if (nr_threads < 1 || nr_threads > MAX_THREADS || seconds <= 0 ||
	    run_ms < 1 || sleep_ms < 0 || sleep_ms > 999) {
		fprintf(stderr, "run-sleep: -t from 1 to %d, -S above 0, -r 1 ms or more, -s from 0 to 999 ms\n",
			MAX_THREADS);
		return 1;
	}
	start = now() + SETTLE_S;
	stop = start + seconds;
	for (i = 0; i < nr_threads; i++)
		if (pthread_create(&threads[i], NULL, run_sleep, &work[i])) {
			perror("run-sleep: pthread_create");
			return 1;
		}
	for (i = 0; i < nr_threads; i++) {
		pthread_join(threads[i], NULL);
		total += work[i];
	}
	printf("run-sleep threads=%d work_per_s=%.0f\n", nr_threads, total / seconds);
	return 0;
}
