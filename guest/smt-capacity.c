// SPDX-License-Identifier: GPL-2.0
/*
 * smt-capacity: measure what each core of the machine it runs on does with
 * 1, 2, ... busy threads, and print the smt_capacity= table and the CPU
 * capacities those measurements give.  Written for this project.
 *
 * For each core (its CPUs from thread_siblings_list), for k = 1 .. its
 * threads: k spinners, each bound to one of the core's first k CPUs, run
 * for the same SECONDS of wall time and count rounds of integer work; the
 * core's throughput with k busy threads is their sum per second.  ROUNDS
 * rounds, every core and k once per round, interleaved; medians.
 *
 * Prints, one line per core:
 *   core C cpus LIST cpu_capacity K: work/s W1 W2 ...: table T1,T2,...
 * (Tk = 1024 * Wk / W1; cpu_capacity as the kernel reports it, "-" if it
 * does not), one line of the capacities the single-thread throughput gives,
 * relative to the fastest core:
 *   capacity: cpuN=C ...
 * and last the table of the cores with the most threads (per k, the median
 * over those cores), made one the kernel accepts: never decreasing, a
 * thread never adding more than the one before it (the measured values
 * are kept in the core lines):
 *   smt_capacity=T1,T2,...
 *
 * Usage: smt-capacity [-S seconds] [-r rounds]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS	256
#define MAX_THREADS	8	/* smt_capacity= takes 8 values */
#define MAX_ROUNDS	15

struct spinner {
	pthread_t thread;
	int cpu;
	unsigned long work;
};

static double seconds = 1.0;
static int rounds = 3;
static pthread_barrier_t start;
static int nr_cores, core_cpus[MAX_CPUS][MAX_THREADS], core_threads[MAX_CPUS];
static double work[MAX_CPUS][MAX_THREADS][MAX_ROUNDS];	/* per second */

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Rounds of integer work until SECONDS have passed since all started. */
static void *spin(void *arg)
{
	struct spinner *s = arg;
	unsigned long x = s->cpu + 1;
	cpu_set_t set;
	double end;
	int i;

	CPU_ZERO(&set);
	CPU_SET(s->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("smt-capacity: sched_setaffinity");
		exit(1);
	}
	pthread_barrier_wait(&start);
	end = now() + seconds;
	while (now() < end) {
		for (i = 0; i < 1000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		s->work++;
	}
	/* Keeps the loop from being optimized away. */
	if (x == 42)
		s->work++;
	return NULL;
}

/* Total work per second of core C's first K CPUs, all busy. */
static double measure(int c, int k)
{
	struct spinner s[MAX_THREADS];
	unsigned long total = 0;
	int i;

	pthread_barrier_init(&start, NULL, k);
	for (i = 0; i < k; i++) {
		s[i].cpu = core_cpus[c][i];
		s[i].work = 0;
		if (pthread_create(&s[i].thread, NULL, spin, &s[i])) {
			perror("smt-capacity: pthread_create");
			exit(1);
		}
	}
	for (i = 0; i < k; i++) {
		pthread_join(s[i].thread, NULL);
		total += s[i].work;
	}
	pthread_barrier_destroy(&start);
	return total / seconds;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	double s[MAX_CPUS > MAX_ROUNDS ? MAX_CPUS : MAX_ROUNDS];

	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* CPU's first sibling, or -1 when sysfs does not say (an offline CPU). */
static int first_sibling(int cpu)
{
	char path[96];
	FILE *f;
	int first;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &first) != 1)
		first = -1;
	fclose(f);
	return first;
}

static long cpu_capacity(int cpu)
{
	char path[96];
	long cap = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%ld", &cap) != 1)
			cap = -1;
		fclose(f);
	}
	return cap;
}

/* The cores, each with its online CPUs in order, from the CPUs we may use. */
static void find_cores(void)
{
	int first_of[MAX_CPUS], cpu, c;
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("smt-capacity: sched_getaffinity");
		exit(1);
	}
	for (cpu = 0; cpu < MAX_CPUS; cpu++) {
		int first = CPU_ISSET(cpu, &set) ? first_sibling(cpu) : -1;

		if (first < 0)
			continue;
		for (c = 0; c < nr_cores && first_of[c] != first; c++)
			;
		if (c == nr_cores)
			first_of[nr_cores++] = first;
		if (core_threads[c] < MAX_THREADS)
			core_cpus[c][core_threads[c]++] = cpu;
	}
}

int main(int argc, char **argv)
{
	double w[MAX_CPUS][MAX_THREADS], best = 0, t[MAX_THREADS], prev, step;
	int opt, c, k, r, most = 0;

	while ((opt = getopt(argc, argv, "S:r:")) != -1) {
		switch (opt) {
		case 'S':
			seconds = atof(optarg);
			break;
		case 'r':
			rounds = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: smt-capacity [-S seconds] [-r rounds]\n");
			return 1;
		}
	}
	if (seconds <= 0 || rounds < 1 || rounds > MAX_ROUNDS) {
		fprintf(stderr, "smt-capacity: -S must be above 0, -r from 1 to %d\n", MAX_ROUNDS);
		return 1;
	}
	find_cores();
	if (!nr_cores) {
		fprintf(stderr, "smt-capacity: no CPU with topology in sysfs\n");
		return 1;
	}

	for (r = 0; r < rounds; r++)
		for (c = 0; c < nr_cores; c++)
			for (k = 1; k <= core_threads[c]; k++)
				work[c][k - 1][r] = measure(c, k);

	for (c = 0; c < nr_cores; c++) {
		for (k = 0; k < core_threads[c]; k++)
			w[c][k] = median(work[c][k], rounds);
		if (w[c][0] > best)
			best = w[c][0];
		if (core_threads[c] > most)
			most = core_threads[c];
	}
	for (c = 0; c < nr_cores; c++) {
		long cap = cpu_capacity(core_cpus[c][0]);

		printf("core %d cpus", c);
		for (k = 0; k < core_threads[c]; k++)
			printf("%c%d", k ? ',' : ' ', core_cpus[c][k]);
		if (cap < 0)
			printf(" cpu_capacity -: work/s");
		else
			printf(" cpu_capacity %ld: work/s", cap);
		for (k = 0; k < core_threads[c]; k++)
			printf(" %.0f", w[c][k]);
		printf(": table");
		for (k = 0; k < core_threads[c]; k++)
			printf("%c%.0f", k ? ',' : ' ', 1024 * w[c][k] / w[c][0]);
		printf("\n");
	}
	printf("capacity:");
	for (c = 0; c < nr_cores; c++)
		for (k = 0; k < core_threads[c]; k++)
			printf(" cpu%d=%.0f", core_cpus[c][k], 1024 * w[c][0] / best);
	printf("\n");

	/* Per k, the median over the cores with the most threads. */
	for (k = 0; k < most; k++) {
		double v[MAX_CPUS];
		int n = 0;

		for (c = 0; c < nr_cores; c++)
			if (core_threads[c] == most)
				v[n++] = 1024 * w[c][k] / w[c][0];
		t[k] = median(v, n);
	}
	/* What the kernel accepts: Tk >= Tk-1, Tk - Tk-1 <= Tk-1 - Tk-2. */
	printf("smt_capacity=1024");
	prev = 1024;
	step = 1024;
	for (k = 1; k < most; k++) {
		double v = t[k];

		if (v < prev)
			v = prev;
		if (v - prev > step)
			v = prev + step;
		if (v > 65536)
			v = 65536;
		step = (long)(v + 0.5) - (long)(prev + 0.5);
		prev = (long)(v + 0.5);
		printf(",%.0f", prev);
	}
	printf("\n");
	return 0;
}
