/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * perf_c2c: how long one cache line takes to go from one CPU to another
 * and back, right now (scripts/bench.py prints it with the memif figures).
 *
 *   perf_c2c [CPU_A CPU_B [SECONDS]]      (default: 0 1 0.2)
 *
 * Two threads, pinned to CPU_A and CPU_B, pass a counter back and forth in
 * one cache line; the round trip is measured over windows of 1 ms. Prints
 *   c2c_rtt_ns=MEDIAN min=MIN max=MAX windows=N
 * (nanoseconds per round trip, the median, smallest and largest window).
 *
 * net_memif moves every frame and every ring index through cache lines
 * shared by the two processes, so its throughput follows this figure. On
 * a VM it is not a constant: where the hypervisor runs the two vCPUs
 * (one core's SMT threads, one L3, two dies) changes while the guest runs,
 * and with it this round trip, by up to 10x (doc/benchmarks.md).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_WINDOWS 100000

static struct {
	volatile uint64_t v;
	char pad[56];
} line __attribute__((aligned(64)));
static volatile int stop, pong_failed;

static double
now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int
pin(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

/* The far end: answers v (odd) with v + 1. */
static void *
pong(void *arg)
{
	uint64_t want = 1;

	if (pin(*(int *)arg) != 0) {
		pong_failed = 1;
		return NULL;
	}
	while (!stop) {
		while (line.v != want && !stop)
			;
		line.v = want + 1;
		want += 2;
	}
	return NULL;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 0, b = argc > 2 ? atoi(argv[2]) : 1;
	double secs = argc > 3 ? atof(argv[3]) : 0.2, end, w0;
	static double win[MAX_WINDOWS];
	unsigned int nw = 0;
	uint64_t v = 1, n = 0;
	pthread_t t;

	if (argc > 4 || secs <= 0 || secs > 60) {
		fprintf(stderr, "usage: perf_c2c [CPU_A CPU_B [SECONDS (0..60]]]\n");
		return 2;
	}
	if (pin(a) != 0 || pthread_create(&t, NULL, pong, &b) != 0) {
		fprintf(stderr, "perf_c2c: cannot run on CPUs %d and %d\n", a, b);
		return 1;
	}
	w0 = now_ns();
	end = w0 + secs * 1e9;
	for (;;) {
		double x;

		line.v = v;
		while (line.v != v + 1) {
			if (pong_failed) {
				fprintf(stderr, "perf_c2c: cannot run on CPU %d\n", b);
				return 1;
			}
		}
		v += 2;
		if ((++n & 63) != 0)
			continue;
		x = now_ns();
		if (x - w0 >= 1e6) {
			if (nw < MAX_WINDOWS)
				win[nw++] = (x - w0) / (double)n;
			w0 = x;
			n = 0;
		}
		if (x >= end)
			break;
	}
	stop = 1;
	line.v = 0;
	pthread_join(t, NULL);
	if (nw == 0) {
		fprintf(stderr, "perf_c2c: no full window in %.3f s\n", secs);
		return 1;
	}
	qsort(win, nw, sizeof(win[0]), cmp);
	printf("c2c_rtt_ns=%.0f min=%.0f max=%.0f windows=%u\n", win[nw / 2], win[0], win[nw - 1],
	       nw);
	return 0;
}
