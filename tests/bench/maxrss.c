/*
 * maxrss: runs a command and writes its peak RSS (KiB), exit status, wall time and CPU time (user + system,
 * seconds) to a file.
 *
 *	maxrss OUTFILE COMMAND [ARG...]
 *
 * bench.py cannot take ru_maxrss from its own child: Linux keeps a process's high-water mark across
 * execve, so a command forked from a Python interpreter would report at least the interpreter's size.
 * Forked from this small program, it starts from almost nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>

int main(int argc, char **argv)
{
	struct timespec t0, t1;
	struct rusage ru;
	int status = 0;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: maxrss OUTFILE COMMAND [ARG...]\n");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid = fork();
	if (pid < 0) {
		perror("maxrss: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "maxrss: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("maxrss: wait4");
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *f = fopen(argv[1], "w");
	if (f == NULL) {
		perror("maxrss: output");
		return 2;
	}
	fprintf(f, "%ld %d %.6f %.6f\n", ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
		(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
			(double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	fclose(f);
	return 0;
}
