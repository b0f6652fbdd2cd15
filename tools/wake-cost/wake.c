/* What a wakeup of a blocked thread costs the thread that wakes it (the WAKER), and how long
 * until the wakee runs. Thread A (the waker) is pinned to one CPU and never sleeps: it spins,
 * like a sender busy with its own work. Thread B (the wakee) blocks in the kernel, then A
 * waits GAP microseconds (long enough for B's CPU to enter idle), then times its own wake
 * call. Per iteration:
 *   call  = A's clock around the wake call (FUTEX_WAKE, or write(2) to an eventfd or a pipe)
 *   wake  = B's clock when it returns from its blocking call minus A's clock before the call
 *   rt    = A's clock when it sees B's acknowledgement minus A's clock before the call
 *   cpu   = A's own CPU time (CLOCK_THREAD_CPUTIME_ID, a system call) around the call: unlike
 *           call, it leaves out time A spends off its CPU (preempted by another task, or by B
 *           when both share a CPU); it includes the two clock reads (see the nowait control)
 * Clock: CLOCK_MONOTONIC through the vDSO (clocksource tsc on this guest; it is one clock for
 * both CPUs). Modes:
 *   block   B blocks on CPU WCPU, A on CPU 0 (the cross-CPU wakeup of an idle CPU)
 *   spin    B polls without blocking (futex word / O_NONBLOCK read) on WCPU: nobody to wake
 *   nowait  no thread B: the same call with an empty wait queue
 *   same    B blocks on CPU 0, the same CPU as A (a local wakeup, no IPI; B preempts A
 *           inside the call, so call includes B's run and two context switches)
 *   local   as same, but B runs SCHED_IDLE, so it does not preempt A: the call is the local
 *           try_to_wake_up alone; A sleeps (nanosleep) to let B run
 * Usage: wake futex|eventfd|pipe block|spin|nowait|same|local GAP_US ITERS [WCPU]
 * Prints one line: the percentiles (ns) of call, cpu, wake and rt. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

enum { FUTEX, EVENTFD, PIPE };
enum { BLOCK, SPIN, NOWAIT, SAME, LOCAL };
enum { IDLE, ARMED, WOKEN };

static int kind, mode, wcpu = 1;
static long gap_ns, iters;
static _Atomic uint32_t word;	/* futex word: 0 = wait, 1 = go */
static _Atomic int state;	/* B's state, read by A */
static _Atomic int64_t woke_at; /* B's clock on return from its blocking call */
static _Atomic int stop;
static int fds[2];		/* eventfd: fds[0] both ends; pipe: [0] read, [1] write */

static inline int64_t clock_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static inline int64_t now(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (pthread_setaffinity_np(pthread_self(), sizeof(s), &s)) {
		fprintf(stderr, "cannot pin to CPU %d\n", cpu);
		exit(1);
	}
}

static long futex(void *addr, int op, uint32_t val)
{
	return syscall(SYS_futex, addr, op, val, NULL, NULL, 0);
}

static void wake_call(void)
{
	uint64_t one = 1;
	char c = 1;
	switch (kind) {
	case FUTEX:
		atomic_store(&word, 1);
		futex(&word, FUTEX_WAKE_PRIVATE, 1);
		break;
	case EVENTFD:
		if (write(fds[0], &one, 8) != 8)
			exit(2);
		break;
	default:
		if (write(fds[1], &c, 1) != 1)
			exit(2);
	}
}

/* B: wait for the wake (blocking or polling), returns 1 if it was woken. */
static int wait_once(int poll)
{
	uint64_t v;
	char c;
	switch (kind) {
	case FUTEX:
		while (atomic_load(&word) == 0) {
			if (atomic_load(&stop))
				return 0;
			if (!poll)
				futex(&word, FUTEX_WAIT_PRIVATE, 0);
		}
		atomic_store(&word, 0);
		return 1;
	case EVENTFD:
		while (read(fds[0], &v, 8) != 8)
			if (atomic_load(&stop))
				return 0;
		return 1;
	default:
		while (read(fds[0], &c, 1) != 1)
			if (atomic_load(&stop))
				return 0;
		return 1;
	}
}

static void *wakee(void *arg)
{
	(void)arg;
	pin(mode >= SAME ? 0 : wcpu);
	if (mode == LOCAL) {
		struct sched_param p = { 0 };
		if (sched_setscheduler(0, SCHED_IDLE, &p)) {
			perror("SCHED_IDLE");
			exit(1);
		}
	}
	for (;;) {
		atomic_store(&state, ARMED);
		if (!wait_once(mode == SPIN) || atomic_load(&stop))
			return NULL;
		atomic_store(&woke_at, now());
		atomic_store(&state, WOKEN);
		while (atomic_load(&state) == WOKEN) /* A resets it */
			if (mode >= SAME)
				sched_yield();
	}
}

static void drain(void)
{
	uint64_t v;
	char c;
	if (kind == EVENTFD)
		(void)!read(fds[0], &v, 8);
	else if (kind == PIPE)
		(void)!read(fds[0], &c, 1);
	else
		atomic_store(&word, 0);
}

/* A lets B run on their shared CPU: B preempts A (same) or runs when A sleeps (local). */
static void let_run(void)
{
	struct timespec ts = { 0, 1000 };
	if (mode == SAME)
		sched_yield();
	else if (mode == LOCAL)
		nanosleep(&ts, NULL);
}

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static void show(const char *name, int64_t *v, long n)
{
	if (n == 0) {
		printf(" %s=-", name);
		return;
	}
	qsort(v, n, sizeof(*v), cmp);
	printf(" %s p10=%lld p50=%lld p90=%lld p99=%lld", name, (long long)v[n / 10],
	       (long long)v[n / 2], (long long)v[n * 9 / 10], (long long)v[n * 99 / 100]);
}

int main(int argc, char **argv)
{
	static const char *kinds[] = { "futex", "eventfd", "pipe" };
	static const char *modes[] = { "block", "spin", "nowait", "same", "local" };
	kind = mode = -1;
	for (int i = 0; argc > 2 && i < 5; i++) {
		if (i < 3 && !strcmp(argv[1], kinds[i]))
			kind = i;
		if (!strcmp(argv[2], modes[i]))
			mode = i;
	}
	if (argc < 5 || kind < 0 || mode < 0) {
		fprintf(stderr, "usage: wake futex|eventfd|pipe block|spin|nowait|same|local GAP_US ITERS [WCPU]\n");
		return 1;
	}
	gap_ns = atol(argv[3]) * 1000L;
	iters = atol(argv[4]);
	if (argc > 5)
		wcpu = atoi(argv[5]);
	int nb = mode == SPIN ? O_NONBLOCK : 0;
	if (kind == EVENTFD)
		fds[0] = eventfd(0, nb ? EFD_NONBLOCK : 0);
	else if (kind == PIPE && pipe2(fds, 0) == 0 && nb)
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
	int64_t *call = calloc(iters, 8), *cpu = calloc(iters, 8), *wake = calloc(iters, 8), *rt = calloc(iters, 8);
	long preempted = 0, nw = 0;
	pthread_t b;
	pin(0);
	if (mode != NOWAIT)
		pthread_create(&b, NULL, wakee, NULL);
	for (long i = -iters / 10; i < iters; i++) { /* the first tenth warms up */
		if (mode != NOWAIT)
			while (atomic_load(&state) != ARMED)
				let_run();
		int64_t t = now();
		while (now() - t < gap_ns) /* B blocks and its CPU goes idle; A stays busy */
			;
		int64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		int64_t t0 = now();
		wake_call();
		int64_t t1 = now();
		int64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		if (mode == NOWAIT) {
			drain();
		} else {
			while (atomic_load(&state) != WOKEN)
				let_run();
		}
		int64_t t2 = now();
		if (i < 0)
			goto next;
		call[i] = t1 - t0;
		cpu[i] = c1 - c0;
		if (mode != NOWAIT) {
			int64_t w = atomic_load(&woke_at);
			rt[nw] = t2 - t0;
			wake[nw++] = w - t0;
			preempted += w < t1; /* B ran before A's call returned (same CPU) */
		}
next:
		if (mode != NOWAIT)
			atomic_store(&state, IDLE);
	}
	printf("%s %s gap_us=%ld iters=%ld", kinds[kind], modes[mode], gap_ns / 1000, iters);
	show("call", call, iters);
	show("cpu", cpu, iters);
	show("wake", wake, nw);
	show("rt", rt, nw);
	printf(" preempted=%ld\n", preempted);
	fflush(stdout);
	if (mode != NOWAIT) {
		atomic_store(&stop, 1);
		wake_call();
		pthread_join(b, NULL);
	}
	return 0;
}
