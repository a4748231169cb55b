/* replay.c - run a harness on saved inputs without libFuzzer: each file
 * given, and each file of each directory given (sorted by name, dot files
 * skipped), is read into a buffer of exactly its size and handed to
 * LLVMFuzzerTestOneInput once.  Linked with every fuzz_<path>.c into
 * tests/fuzz/replay_<path>, which make check runs over the regression
 * corpus (tests/fuzz/replay.sh) in the normal build and, through
 * tests/sanitize.sh, under ASan+UBSan.
 *
 * Usage: replay_<path> [-v] FILE|DIR...  Exit 0 when every input ran (a
 * finding aborts), 1 when an input cannot be read. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/fuzz/fuzz.h"

static int verbose;

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t got;

		if (len == cap) {
			size_t nc = cap ? 2 * cap : 4096;
			uint8_t *q = realloc(buf, nc);

			if (!q) {
				fprintf(stderr, "replay: %s: out of memory\n",
					path);
				free(buf);
				fclose(f);
				return -1;
			}
			buf = q;
			cap = nc;
		}
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (!got)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* an exact-size copy, so that ASan sees a read past the end */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		if (verbose)
			fprintf(stderr, "replay: %s (%zu bytes)\n", path, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of DIR; *N counts the inputs run. */
static int run_dir(const char *dir, unsigned *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t cnt = 0, cap = 0;
	int rc = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (cnt == cap) {
			size_t nc = cap ? 2 * cap : 64;
			char **q = realloc(names, nc * sizeof(*q));

			if (!q) {
				rc = -1;
				break;
			}
			names = q;
			cap = nc;
		}
		if (!(names[cnt] =
			      malloc(strlen(dir) + strlen(e->d_name) + 2))) {
			rc = -1;
			break;
		}
		sprintf(names[cnt++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(names, cnt, sizeof(*names), cmp_str);
	for (size_t i = 0; i < cnt; i++) {
		if (!rc && run_file(names[i]))
			rc = -1;
		else if (!rc)
			(*n)++;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	int rc = 0;

	for (int i = 1; i < argc && !rc; i++) {
		struct stat st;

		if (!strcmp(argv[i], "-v")) {
			verbose = 1;
			continue;
		}
		if (stat(argv[i], &st)) {
			fprintf(stderr, "replay: %s: %s\n", argv[i],
				strerror(errno));
			rc = -1;
		} else if (S_ISDIR(st.st_mode)) {
			rc = run_dir(argv[i], &n);
		} else {
			rc = run_file(argv[i]);
			n += !rc;
		}
	}
	if (!rc)
		printf("replay: %u inputs\n", n);
	return rc ? 1 : 0;
}
