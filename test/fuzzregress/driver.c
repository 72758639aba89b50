/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Replays fuzz inputs through a libFuzzer harness compiled with the
 * ordinary compiler (no clang, no libFuzzer): the regression test of every
 * finding in fuzz/regressions/<target>/ and a smoke run of the seed corpus.
 * The harness's checks abort on a violation, which fails the test.
 *
 * usage: fuzzregress-<target> DIR|FILE...   (directories: their regular
 * files, sorted; a missing directory is skipped). The last line is
 * "N passed, 0 failed" (a failure never gets that far).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
	printf("run %s (%ld bytes)\n", path, len);
	fflush(stdout);
	LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	n_run++;
}

static int
cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
run_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (d == NULL) {
		printf("skip %s (no such directory)\n", dir);
		return;
	}
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
	qsort(names, n, sizeof(*names), cmp);
	for (size_t i = 0; i < n; i++) {
		run_file(names[i]);
		free(names[i]);
	}
	free(names);
}

int
main(int argc, char **argv)
{
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
