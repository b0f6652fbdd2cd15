/* The page-allocator load for buddy-lock.sh: each process maps, populates and unmaps an
 * anonymous region in a loop (order-0 faults refilled from the buddy by rmqueue_bulk, the
 * unmap's frees drained back by free_pcppages_bulk, merging in __free_one_page).
 * Usage: load MIB SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 64;
	int secs = argc > 2 ? atoi(argv[2]) : 10;
	size_t len = mib << 20;
	time_t end = time(NULL) + secs;
	unsigned long rounds = 0;

	while (time(NULL) < end) {
		char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		munmap(p, len);
		rounds++;
	}
	printf("%lu rounds of %zu MiB\n", rounds, mib);
	return 0;
}
