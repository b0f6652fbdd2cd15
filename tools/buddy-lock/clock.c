/* The core clock of this CPU: a chain of dependent adds retires one per cycle on x86 cores
 * of the last decade (1-cycle ALU latency), so adds per ns of this thread's CPU time is GHz (preemption by other tasks excluded; time the host takes the vCPU away is not). Usage: clock [MILLIONS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 2000) * 1000000L;
	unsigned long x = 0;
	struct timespec a, b;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
	for (long i = 0; i < n; i += 8)
		asm volatile("add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\t"
			     "add $1, %0\n\tadd $1, %0\n\tadd $1, %0\n\tadd $1, %0" : "+r"(x));
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
	double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);
	printf("%.0f MHz (%lu adds in %.0f ms)\n", n / ns * 1000, x, ns / 1e6);
	return 0;
}
