// What a copy into a buffer costs the writing CPU depending on where the buffer's lines were
// last: read by a thread on another CPU (the receiver's copy out of a page frag), untouched
// since this CPU wrote them, read by a thread on this CPU, or cold (a pool larger than the
// last-level cache). The copy is `rep movsb` from a hot source, as the kernel's user copy
// does on CPUs with FSRM/ERMS. Only the writer's copy is timed.
//
//   copy MODE SIZE POOL ROUNDS
//     MODE  xread  the reader, pinned to CPU 1, copies each buffer out after it is written
//           xhand  the reader on CPU 1 takes each buffer without touching its lines
//           same   the reader on CPU 0 (the writer's CPU) copies each buffer out
//           own    no reader: the writer rewrites its own pool
//           xstep, samestep, ownstep  lock-step: the writer fills the whole ring, then the
//           reader (CPU 1, CPU 0, none) copies the whole ring out while the writer waits:
//           no copy overlaps another, only where the lines sit differs
//     SIZE  bytes per copy; POOL buffers of SIZE in the ring; ROUNDS copies timed
// Prints one line: key=value pairs, ns per copy (median and mean) and ns per KiB; in the
// lock-step modes with a reader, also the reader's ns per KiB copying the ring out.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static size_t size, pool;
static long rounds;
static unsigned char **bufs;
static _Atomic int *ready; // 1: written, waiting for the reader; 0: free
static const char *mode;
static volatile unsigned long sink;
static _Atomic long go, done;
static int step;
// Lock-step modes: the reader's time per ring copied out, one entry per round.
static uint64_t *rd_ns;
static long rd_n;

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof s, &s)) {
		fprintf(stderr, "cannot pin to cpu %d\n", cpu);
		exit(1);
	}
}

static inline void movsb(void *d, const void *s, size_t n)
{
	__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(n) : : "memory");
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + t.tv_nsec;
}

static void *reader(void *arg)
{
	int cpu = *(int *)arg;
	unsigned char *dst = aligned_alloc(4096, size);
	memset(dst, 1, size);
	pin(cpu);
	int touch = strcmp(mode, "xhand") != 0;
	long total = rounds + rounds / 10;
	if (step) {
		for (long r = 1; (r - 1) * (long)pool < total; r++) {
			while (atomic_load_explicit(&go, memory_order_acquire) != r)
				if (cpu == 0)
					sched_yield();
			uint64_t t0 = now_ns();
			for (size_t b = 0; b < pool; b++)
				movsb(dst, bufs[b], size);
			if (r > 1)
				rd_ns[rd_n++] = now_ns() - t0;
			sink += dst[r % size];
			atomic_store_explicit(&done, r, memory_order_release);
		}
		return NULL;
	}
	for (long i = 0; i < total; i++) {
		size_t b = i % pool;
		while (!atomic_load_explicit(&ready[b], memory_order_acquire))
			if (cpu == 0)
				sched_yield();
		if (touch)
			movsb(dst, bufs[b], size);
		sink += dst[i % size];
		atomic_store_explicit(&ready[b], 0, memory_order_release);
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: copy xread|xhand|same|own|xstep|samestep|ownstep SIZE POOL ROUNDS\n");
		return 2;
	}
	mode = argv[1];
	size = strtoul(argv[2], NULL, 0);
	pool = strtoul(argv[3], NULL, 0);
	rounds = strtol(argv[4], NULL, 0);
	if (!size || !pool || rounds < 10) {
		fprintf(stderr, "bad SIZE, POOL or ROUNDS\n");
		return 2;
	}
	int rcpu = -1;
	step = strstr(mode, "step") != NULL;
	if (!strcmp(mode, "xread") || !strcmp(mode, "xhand") || !strcmp(mode, "xstep"))
		rcpu = 1;
	else if (!strcmp(mode, "same") || !strcmp(mode, "samestep"))
		rcpu = 0;
	else if (strcmp(mode, "own") && strcmp(mode, "ownstep")) {
		fprintf(stderr, "unknown mode %s\n", mode);
		return 2;
	}
	bufs = calloc(pool, sizeof *bufs);
	ready = calloc(pool, sizeof *ready);
	for (size_t i = 0; i < pool; i++) {
		bufs[i] = aligned_alloc(4096, size);
		memset(bufs[i], 0, size);
	}
	unsigned char *src = aligned_alloc(4096, size);
	memset(src, 7, size);
	pin(0);
	pthread_t t;
	rd_ns = calloc((rounds + rounds / 10) / pool + 3, sizeof *rd_ns);
	if (rcpu >= 0)
		pthread_create(&t, NULL, reader, &rcpu);
	long total = rounds + rounds / 10, warm = rounds / 10;
	uint64_t *ns = calloc(rounds, sizeof *ns);
	for (long i = 0; i < total; i++) {
		size_t b = i % pool;
		if (step && b == 0 && i > 0 && rcpu >= 0) {
			long r = i / (long)pool;
			atomic_store_explicit(&go, r, memory_order_release);
			while (atomic_load_explicit(&done, memory_order_acquire) != r)
				if (rcpu == 0)
					sched_yield();
		}
		if (rcpu >= 0 && !step)
			while (atomic_load_explicit(&ready[b], memory_order_acquire))
				if (rcpu == 0)
					sched_yield();
		src[i % size] = (unsigned char)i;
		uint64_t t0 = now_ns();
		movsb(bufs[b], src, size);
		uint64_t t1 = now_ns();
		if (i >= warm)
			ns[i - warm] = t1 - t0;
		if (rcpu >= 0 && !step)
			atomic_store_explicit(&ready[b], 1, memory_order_release);
	}
	if (rcpu >= 0 && step) {
		long r = (total + (long)pool - 1) / (long)pool;
		atomic_store_explicit(&go, r, memory_order_release);
	}
	if (rcpu >= 0)
		pthread_join(t, NULL);
	double sum = 0;
	for (long i = 0; i < rounds; i++)
		sum += ns[i];
	qsort(ns, rounds, sizeof *ns, cmp);
	double med = ns[rounds / 2], kib = size / 1024.0;
	printf("mode=%s size=%zu pool=%zu rounds=%ld median_ns=%.0f mean_ns=%.0f "
	       "median_ns_per_kib=%.1f mean_ns_per_kib=%.1f",
	       mode, size, pool, rounds, med, sum / rounds, med / kib, sum / rounds / kib);
	if (rd_n > 0) {
		// The reader's copy out of lines the writer just wrote, per KiB (median over rounds).
		qsort(rd_ns, rd_n, sizeof *rd_ns, cmp);
		printf(" reader_median_ns_per_kib=%.1f", rd_ns[rd_n / 2] / (kib * pool));
	}
	printf("\n");
	return 0;
}
