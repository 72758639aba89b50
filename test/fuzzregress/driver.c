/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replays fuzz inputs through a libFuzzer harness compiled with the
 * ordinary compiler (no clang, no libFuzzer): the regression test of every
 * finding in fuzz/regressions/<target>/ and a smoke run of the seed corpus.
 * The harness's checks abort on a violation, which fails the test.
 *
 * usage: fuzzregress-<target> DIR|FILE...   (directories: their regular
 * files, sorted; a missing directory is skipped). The last line is
 * "N passed, 0 failed" (a failure never gets that far). FUZZREGRESS_QUIET
 * in the environment drops the line per input.
 *
 *        fuzzregress-<target> --known-bugs DIR
 * runs each file of DIR in a child process (this program again) and passes
 * only if every one of them still fails: those are reported engine bugs
 * not fixed yet (doc/fuzzing.md, "Findings"). A file that passes now
 * fails the test with a note to move it up into the regular regressions.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fuzz_common.h"

static unsigned int n_run;

static void
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fprintf(stderr, "fuzzregress: cannot read %s\n", path);
		exit(2);
	}
	/* An exactly-sized block, as libFuzzer gives, so ASan builds catch
	 * a read past the input. */
	buf = malloc(len ? (size_t)len : 1);
	if (buf == NULL || (len && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
		fprintf(stderr, "fuzzregress: cannot read %s\n", path);
		exit(2);
	}
	fclose(f);
	if (getenv("FUZZREGRESS_QUIET") == NULL) {
		printf("run %s (%ld bytes)\n", path, len);
		fflush(stdout);
	}
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	n_run++;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The regular files of @p dir, sorted; NULL when there is no such dir. */
static char **
list_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	*count = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			names = realloc(names, cap * sizeof(*names));
			if (names == NULL)
				exit(2);
		}
		names[n++] = strdup(path);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp);
	*count = n;
	return names ? names : calloc(1, sizeof(*names));
}

static void
run_dir(const char *dir)
{
	size_t n;
	char **names = list_dir(dir, &n);

	if (names == NULL) {
		printf("skip %s (no such directory)\n", dir);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

/* Every input of @p dir must still fail (in a child of its own). */
static int
known_bugs(const char *self, const char *dir)
{
	size_t n, still = 0;
	char **names = list_dir(dir, &n);

	if (names == NULL) {
		printf("no known engine bugs (%s does not exist)\n", dir);
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		pid_t pid;
		int status = 0;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			/* The child's report is the known one: keep the log short. */
			if (fd >= 0 && getenv("FUZZREGRESS_VERBOSE") == NULL) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			unsetenv("FZ_TOLERATE");   /* fuzz_common.h: no stepping over */
			execl(self, self, names[i], (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) != pid) {
			printf("fuzzregress: cannot run %s\n", names[i]);
			return 2;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			printf("NOW PASSES: %s: the engine bug looks fixed; move the file up "
			       "to the regular regressions (git mv) and update doc/fuzzing.md\n",
			       names[i]);
		} else {
			printf("KNOWN ENGINE BUG, still fails as reported: %s\n", names[i]);
			still++;
		}
		free(names[i]);
	}
	free(names);
	printf("%zu passed, %zu failed\n", still, n - still);
	return still == n ? 0 : 1;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--known-bugs") == 0)
		return known_bugs("/proc/self/exe", argv[2]);
	LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) == 0 && S_ISREG(st.st_mode))
			run_file(argv[i]);
		else
			run_dir(argv[i]);
	}
	printf("%u passed, 0 failed\n", n_run);
	return 0;
}
