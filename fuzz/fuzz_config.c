/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_config: the JSON configuration loader on arbitrary bytes.
 *
 * The input, NUL-terminated, goes to rnic_config_load_string. A rejection
 * must come with a one-line message. An accepted configuration is dumped
 * (rnic_config_dump); the dump must load again, and dumping that must give
 * the same text (the dump is a fixed point: every default filled in).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rnic_config.h"
#include "fuzz_common.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static char *
dump(const struct rnic_config *cfg, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int rc;

	FZ_CHECK(f != NULL, "open_memstream");
	rc = rnic_config_dump(f, cfg);
	FZ_CHECK(fclose(f) == 0, "fclose");
	FZ_CHECK(rc == 0, "rnic_config_dump: %d", rc);
	return buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rnic_config *c1, *c2;
	char err[512], *text, *d1, *d2;
	size_t l1, l2;

	if (size > (1u << 20))
		return 0;
	text = malloc(size + 1);
	FZ_CHECK(text != NULL, "out of memory");
	memcpy(text, data, size);
	text[size] = 0;
	err[0] = 0;
	c1 = rnic_config_load_string(text, err, sizeof(err));
	free(text);
	if (c1 == NULL) {
		/* Known bug "config-newline": a JSON string holding \n is echoed
		 * raw into the message. */
		if (strchr(err, '\n') != NULL && fz_tolerate("config-newline"))
			return 0;
		if (err[0] == 0 || strchr(err, '\n') != NULL) {
			fprintf(stderr, "message: \"");
			for (const char *p = err; *p; p++)
				fprintf(stderr, *p == '\n' ? "\\n" : "%c", *p);
			fprintf(stderr, "\"\n");
		}
		FZ_CHECK(err[0] != 0 && strchr(err, '\n') == NULL &&
			 strlen(err) < sizeof(err), "rejection without a one-line message");
		return 0;
	}
	d1 = dump(c1, &l1);
	rnic_config_free(c1);
	err[0] = 0;
	c2 = rnic_config_load_string(d1, err, sizeof(err));
	if (c2 == NULL)
		fprintf(stderr, "dump:\n%s\n", d1);
	FZ_CHECK(c2 != NULL, "the dump does not load back: %s", err);
	d2 = dump(c2, &l2);
	rnic_config_free(c2);
	if (l1 != l2 || memcmp(d1, d2, l1) != 0)
		fprintf(stderr, "first dump:\n%s\nsecond dump:\n%s\n", d1, d2);
	FZ_CHECK(l1 == l2 && memcmp(d1, d2, l1) == 0, "dump(load(dump)) != dump");
	free(d1);
	free(d2);
	return 0;
}
