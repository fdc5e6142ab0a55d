// SPDX-License-Identifier: GPL-2.0
/*
 * ebizzy-like benchmark: threads look up random records in memory chunks,
 * as web application servers do, and the result is records per second.
 * Modelled on ebizzy by Valerie Henson; written for this project.
 *
 * While the threads run, the main thread samples the CPU each one last ran
 * on, after the first second, and counts threads per core (cores from
 * thread_siblings_list): the
 * placement is what load balancing decides, and under TCG it is the figure
 * that counts, since emulated SMT threads do not share execution units.
 *
 * Usage: ebizzy [-t threads] [-S seconds] [-n chunks] [-s chunk_bytes]
 * Prints one line:
 *   ebizzy threads=N records_per_s=R excess=E good=G samples=S
 * excess: mean over samples of the threads on the busiest core beyond the
 * fewest it could have, ceil(N / cores);
 * good: samples where no two threads share a core while a core is idle
 * (N <= cores) or the cores' counts differ by one at most (N > cores).
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
#define SAMPLE_MS	100
#define SETTLE_S	1.0	/* placement not sampled before */

static int nr_threads = 1, seconds = 5, nr_chunks = 64;
static size_t chunk_size = 256 * 1024;
static unsigned long **chunks;
static volatile int running = 1;
static int cpu_of[MAX_CPUS];		/* last CPU of each thread */
static unsigned long records[MAX_CPUS];	/* per thread, written at the end */
static int core_of[MAX_CPUS], nr_cpus, nr_cores;

static unsigned long xorshift(unsigned long *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* One record: a key looked up in a random chunk by linear search. */
static int lookup(unsigned long *seed)
{
	unsigned long *chunk = chunks[xorshift(seed) % nr_chunks];
	size_t n = chunk_size / sizeof(*chunk), i;
	unsigned long key = chunk[xorshift(seed) % n];

	for (i = 0; i < n; i++)
		if (chunk[i] == key)
			return 1;
	return 0;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	unsigned long seed = 88172645463325252UL + id, n = 0;

	while (running) {
		n += lookup(&seed);
		cpu_of[id] = sched_getcpu();
	}
	records[id] = n;
	return NULL;
}

static int read_cores(void)
{
	int cpu, index[MAX_CPUS];

	memset(index, -1, sizeof(index));
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (nr_cpus < 1 || nr_cpus > MAX_CPUS)
		return -1;
	for (cpu = 0; cpu < nr_cpus; cpu++) {
		char path[128];
		int first = -1;
		FILE *f;

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list", cpu);
		f = fopen(path, "r");
		if (!f || fscanf(f, "%d", &first) != 1 || first < 0 || first >= MAX_CPUS)
			return -1;
		fclose(f);
		if (index[first] < 0)
			index[first] = nr_cores++;
		core_of[cpu] = index[first];
	}
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct timespec tick = { 0, SAMPLE_MS * 1000000L };
	pthread_t tid[MAX_CPUS];
	unsigned long total = 0;
	long excess = 0;
	int opt, i, good = 0, samples = 0;
	double start, elapsed;

	while ((opt = getopt(argc, argv, "t:S:n:s:")) != -1) {
		switch (opt) {
		case 't': nr_threads = atoi(optarg); break;
		case 'S': seconds = atoi(optarg); break;
		case 'n': nr_chunks = atoi(optarg); break;
		case 's': chunk_size = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: %s [-t threads] [-S seconds] [-n chunks] [-s bytes]\n",
				argv[0]);
			return 2;
		}
	}
	if (nr_threads < 1 || nr_threads > MAX_CPUS || seconds < 1 || nr_chunks < 1 ||
	    chunk_size < sizeof(unsigned long) || read_cores()) {
		fprintf(stderr, "ebizzy: bad arguments or topology\n");
		return 2;
	}

	chunks = calloc(nr_chunks, sizeof(*chunks));
	for (i = 0; chunks && i < nr_chunks; i++) {
		unsigned long seed = i + 1;
		size_t j;

		chunks[i] = malloc(chunk_size);
		if (!chunks[i])
			break;
		for (j = 0; j < chunk_size / sizeof(unsigned long); j++)
			chunks[i][j] = xorshift(&seed);
	}
	if (!chunks || i < nr_chunks) {
		fprintf(stderr, "ebizzy: out of memory\n");
		return 1;
	}

	start = now();
	for (i = 0; i < nr_threads; i++) {
		cpu_of[i] = -1;
		if (pthread_create(&tid[i], NULL, worker, (void *)(long)i)) {
			fprintf(stderr, "ebizzy: cannot start thread %d\n", i);
			return 1;
		}
	}
	while (now() - start < seconds) {
		int count[MAX_CPUS] = { 0 }, max = 0, min = nr_threads, c, ok = 1;

		nanosleep(&tick, NULL);
		if (now() - start < SETTLE_S)
			continue;
		for (i = 0; i < nr_threads; i++) {
			if (cpu_of[i] < 0 || cpu_of[i] >= nr_cpus)
				ok = 0;
			else
				count[core_of[cpu_of[i]]]++;
		}
		if (!ok)
			continue;	/* a thread has not run yet */
		for (c = 0; c < nr_cores; c++) {
			max = count[c] > max ? count[c] : max;
			min = count[c] < min ? count[c] : min;
		}
		excess += max - (nr_threads + nr_cores - 1) / nr_cores;
		if (nr_threads <= nr_cores ? !(max > 1 && min == 0) : max - min <= 1)
			good++;
		samples++;
	}
	running = 0;
	for (i = 0; i < nr_threads; i++) {
		pthread_join(tid[i], NULL);
		total += records[i];
	}
	elapsed = now() - start;
	printf("ebizzy threads=%d records_per_s=%.0f excess=%.2f good=%d samples=%d\n",
	       nr_threads, total / elapsed, samples ? (double)excess / samples : 0.0,
	       good, samples);
	return 0;
}
