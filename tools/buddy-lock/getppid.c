/* getppid in a loop for probe-cost.bt. Usage: getppid SECONDS */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	time_t end = time(NULL) + (argc > 1 ? atoi(argv[1]) : 5);

	while (time(NULL) < end)
		for (int i = 0; i < 1000; i++)
			syscall(SYS_getppid);
	return 0;
}
