/* EPCC-style overheads of libgomp, the same repetitions as rtlib's
 * BenchmarkEPCC_* (bench_tasks_test.go) so that the two run side by side:
 *
 *   epcc CONSTRUCT NTHREADS REPS
 *
 * prints "ns_per_rep=T overhead_ns=O": the time of one repetition, and that
 * time minus the delay alone (measured here, best of 5). Constructs:
 *
 *   PARALLEL_FOR  one parallel for of N iterations (a fork/join per rep)
 *   FOR           one for of N iterations inside a persistent parallel region
 *   DYNAMIC1      the same with schedule(dynamic, 1)
 *   REDUCTION     one parallel for of N iterations with reduction(+)
 *   BARRIER       every thread: delay, barrier (inside one parallel region)
 *   CRITICAL      one critical section around the delay; threads take turns
 *   LOCK          the same with an omp_lock_t
 *   ATOMIC        every thread: delay, one atomic add to a shared counter
 *
 * Built by the benchmark with gcc -O2 -fopenmp; delay() is rtlib's.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DELAY_LEN 60

static volatile double delay_sink;

static __attribute__((noinline)) void delay(int n) {
	double a = 1.0;
	for (int i = 0; i < n; i++)
		a = a * 1.0000001 + 0.5;
	if (a < 0)
		delay_sink = a;
}

static double now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double ref_ns(void) {
	const int reps = 200000;
	double best = 1e18;
	for (int k = 0; k < 5; k++) {
		double t0 = now_ns();
		for (int i = 0; i < reps; i++)
			delay(DELAY_LEN);
		double t = (now_ns() - t0) / reps;
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: epcc CONSTRUCT NTHREADS REPS\n");
		return 2;
	}
	const char *c = argv[1];
	int n = atoi(argv[2]);
	long reps = atol(argv[3]);
	omp_set_num_threads(n);
	double ref = ref_ns();
	long count = 0;
	omp_lock_t lock;
	omp_init_lock(&lock);
	/* Start the team once, so that no run pays for creating threads. */
#pragma omp parallel
	delay(DELAY_LEN);

	double t0 = now_ns();
	if (!strcmp(c, "PARALLEL_FOR")) {
		for (long r = 0; r < reps; r++) {
#pragma omp parallel for schedule(static)
			for (int i = 0; i < n; i++)
				delay(DELAY_LEN);
		}
	} else if (!strcmp(c, "FOR")) {
#pragma omp parallel
		for (long r = 0; r < reps; r++) {
#pragma omp for schedule(static)
			for (int i = 0; i < n; i++)
				delay(DELAY_LEN);
		}
	} else if (!strcmp(c, "DYNAMIC1")) {
#pragma omp parallel
		for (long r = 0; r < reps; r++) {
#pragma omp for schedule(dynamic, 1)
			for (int i = 0; i < n; i++)
				delay(DELAY_LEN);
		}
	} else if (!strcmp(c, "REDUCTION")) {
		for (long r = 0; r < reps; r++) {
			long sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
			for (int i = 0; i < n; i++) {
				delay(DELAY_LEN);
				sum++;
			}
			count += sum;
		}
	} else if (!strcmp(c, "BARRIER")) {
#pragma omp parallel
		for (long r = 0; r < reps; r++) {
			delay(DELAY_LEN);
#pragma omp barrier
		}
	} else if (!strcmp(c, "CRITICAL") || !strcmp(c, "LOCK")) {
		int useLock = !strcmp(c, "LOCK");
#pragma omp parallel
		{
			int id = omp_get_thread_num();
			long k = reps / n + (id < reps % n);
			for (long r = 0; r < k; r++) {
				if (useLock) {
					omp_set_lock(&lock);
					delay(DELAY_LEN);
					count++;
					omp_unset_lock(&lock);
				} else {
#pragma omp critical
					{
						delay(DELAY_LEN);
						count++;
					}
				}
			}
		}
	} else if (!strcmp(c, "ATOMIC")) {
#pragma omp parallel
		for (long r = 0; r < reps; r++) {
			delay(DELAY_LEN);
#pragma omp atomic
			count++;
		}
	} else {
		fprintf(stderr, "epcc: unknown construct %s\n", c);
		return 2;
	}
	double per = (now_ns() - t0) / reps;
	omp_destroy_lock(&lock);
	printf("ns_per_rep=%.2f overhead_ns=%.2f count=%ld\n", per, per - ref, count);
	return 0;
}
