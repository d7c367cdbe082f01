/* Runs a program under a chosen pid, the way a busy machine hands a dead
 * process's pid to a newcomer: sets /proc/sys/kernel/ns_last_pid to PID-1
 * and forks, again while another process takes the pid first; the child
 * that got PID executes PROG, the others exit at once.  Prints "PID" when
 * it got it, then waits for PROG and exits with its status; exits 2 when
 * 1000 tries fail.
 * Usage: pidreuse PID PROG [ARGS...] */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t want, pid;
	int fd, status;

	if (argc < 3)
		return 2;
	want = atoi(argv[1]);
	fd = open("/proc/sys/kernel/ns_last_pid", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("ns_last_pid");
		return 2;
	}
	for (int tries = 0; tries < 1000; tries++) {
		char buf[16];
		int len = snprintf(buf, sizeof(buf), "%d", want - 1);

		flock(fd, LOCK_EX);	/* others writing it (CRIU) take this lock */
		if (pwrite(fd, buf, len, 0) != len) {
			perror("ns_last_pid");
			return 2;
		}
		pid = fork();
		flock(fd, LOCK_UN);
		if (pid < 0)
			return 2;
		if (pid == 0) {
			if (getpid() != want)
				_exit(0);
			execv(argv[2], argv + 2);
			_exit(127);
		}
		if (pid == want) {
			printf("%d\n", pid);
			fflush(stdout);
			if (waitpid(pid, &status, 0) != pid)
				return 2;
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
		waitpid(pid, NULL, 0);
	}
	fprintf(stderr, "pidreuse: pid %d never came back\n", want);
	return 2;
}
