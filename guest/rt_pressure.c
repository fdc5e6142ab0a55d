// SPDX-License-Identifier: GPL-2.0
/*
 * RT pressure on one CPU: a SCHED_FIFO task pinned to CPU that runs PERCENT
 * of every 10 ms and sleeps the rest, until it is killed.  The scheduler
 * subtracts the RT utilization from the CPU's capacity (scale_rt_capacity()),
 * so the CPU's current capacity drops below its maximum while its thread is
 * idle most of the time: the case of a "lost core" (invariant I3).
 *
 * PERCENT 100 never sleeps: with RT throttling off (sched_rt_runtime_us=-1)
 * nothing else runs on CPU again until the task is killed.
 *
 * Usage: rt_pressure CPU PERCENT
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PERIOD_NS	10000000L

static long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct sched_param param = { .sched_priority = 1 };
	struct timespec rest = { 0 };
	int cpu, percent;
	long busy, start;
	cpu_set_t set;

	if (argc != 3 || (cpu = atoi(argv[1])) < 0 ||
	    (percent = atoi(argv[2])) < 1 || (percent > 90 && percent != 100)) {
		fprintf(stderr, "usage: rt_pressure CPU PERCENT (1-90, or 100)\n");
		return 2;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &param)) {
		perror("rt_pressure");
		return 1;
	}
	busy = PERIOD_NS * percent / 100;
	rest.tv_nsec = PERIOD_NS - busy;
	for (;;) {
		start = now_ns();
		while (now_ns() - start < busy || percent == 100)
			;
		nanosleep(&rest, NULL);
	}
}
