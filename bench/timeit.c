/* timeit.c: timeit RUNS CMD [ARG...] runs CMD RUNS times and prints
 * "best_ms peak_MiB": the shortest wall time of one run (fork to exit, as a
 * user's script sees it) and the largest peak resident memory (wait4's
 * ru_maxrss).  Standard output and error of CMD go to /dev/null; a run that
 * exits non-zero stops with "FAILED".  Built by bench/convert.sh. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int
main(int argc, char **argv)
{
	int runs = argc > 2 ? atoi(argv[1]) : 0;
	double best = -1;
	long peak = 0;

	if (runs < 1) {
		fprintf(stderr, "usage: timeit RUNS CMD [ARG...]\n");
		return 2;
	}
	for (int i = 0; i < runs; i++) {
		struct rusage ru;
		int status, null = open("/dev/null", O_WRONLY);
		double t0 = now_ms(), t;
		pid_t pid = fork();

		if (pid == 0) {
			dup2(null, 1);
			dup2(null, 2);
			execvp(argv[2], argv + 2);
			_exit(127);
		}
		close(null);
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			puts("FAILED");
			return 1;
		}
		t = now_ms() - t0;
		if (best < 0 || t < best)
			best = t;
		if (ru.ru_maxrss > peak)
			peak = ru.ru_maxrss;
	}
	printf("%.1f %.1f\n", best, peak / 1024.0);
	return 0;
}
