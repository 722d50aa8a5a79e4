/* Reading `fit -f` and `defrag -f`: see fit_files.h. */
#include "fit_files.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_MANIFEST (4 << 20)
/* directories below the one named, with -R */
#define MAX_DEPTH 16

static int read_all(const char *path, char **ret, size_t *ret_len, struct kerr *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f)
		return kerr_set(err, KERR_OTHER, "the path \"%s\" does not exist", path);
	for (;;) {
		size_t n;

		if (len == cap) {
			char *nb;

			cap = cap ? cap * 2 : 65536;
			if (cap > MAX_MANIFEST + 1)
				cap = MAX_MANIFEST + 1;
			nb = len < cap ? realloc(buf, cap + 1) : NULL;
			if (!nb) {
				free(buf);
				if (f != stdin)
					fclose(f);
				return len >= MAX_MANIFEST ? kerr_set(err, KERR_OTHER, "%s: the manifest is larger than 4 MiB", path)
							   : kerr_set(err, KERR_OTHER, "out of memory");
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		free(buf);
		if (f != stdin)
			fclose(f);
		return kerr_set(err, KERR_OTHER, "cannot read \"%s\"", path);
	}
	if (f != stdin)
		fclose(f);
	if (!buf && !(buf = malloc(1)))
		return kerr_set(err, KERR_OTHER, "out of memory");
	buf[len] = '\0';
	*ret = buf;
	*ret_len = len;
	return 0;
}

static int read_one(const char *path, struct manifest_set *set, struct kerr *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (read_all(path, &buf, &len, err) < 0)
		return -1;
	rc = manifest_read_all(buf, len, set, err);
	free(buf);
	if (rc < 0)
		kerr_prefix(err, "%s", strcmp(path, "-") == 0 ? "stdin" : path);
	return rc;
}

static bool manifest_name(const char *name)
{
	static const char *const exts[] = {".yaml", ".yml", ".json"};
	size_t len = strlen(name);

	for (size_t i = 0; i < 3; i++) {
		size_t n = strlen(exts[i]);

		if (len > n && strcmp(name + len - n, exts[i]) == 0)
			return true;
	}
	return false;
}

static int read_path(const char *path, bool recursive, int depth, bool named, struct manifest_set *set,
		     struct kerr *err);

/* A directory's entries in name order: files by their extension, and
 * directories with -R. */
static int read_dir(const char *dir, bool recursive, int depth, struct manifest_set *set, struct kerr *err)
{
	struct dirent **names = NULL;
	int n = scandir(dir, &names, NULL, alphasort), rc = 0;

	if (n < 0)
		return kerr_set(err, KERR_OTHER, "cannot read the directory \"%s\"", dir);
	for (int i = 0; i < n; i++) {
		char *path = NULL;

		if (rc == 0 && names[i]->d_name[0] != '.') {
			if (asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
				rc = kerr_set(err, KERR_OTHER, "out of memory");
			else
				rc = read_path(path, recursive, depth + 1, false, set, err);
			free(path);
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

static int read_path(const char *path, bool recursive, int depth, bool named, struct manifest_set *set,
		     struct kerr *err)
{
	struct stat st;

	if (strcmp(path, "-") == 0)
		return read_one(path, set, err);
	if (stat(path, &st) < 0)
		return kerr_set(err, KERR_OTHER, "the path \"%s\" does not exist", path);
	if (S_ISDIR(st.st_mode)) {
		if (!named && (!recursive || depth > MAX_DEPTH))
			return 0;
		return read_dir(path, recursive, depth, set, err);
	}
	/* a file named on the command line is read whatever its name */
	if (!named && !manifest_name(path))
		return 0;
	return read_one(path, set, err);
}

int fit_files_read(const char *list, bool recursive, struct manifest_set *set, struct kerr *err)
{
	char *copy = strdup(list), *save = NULL;
	int rc = 0;

	if (!copy)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (char *p = strtok_r(copy, ",", &save); rc == 0 && p; p = strtok_r(NULL, ",", &save))
		rc = read_path(p, recursive, 0, true, set, err);
	free(copy);
	if (rc == 0 && !set->len && !set->nskipped && !set->nclaims)
		rc = kerr_set(err, KERR_OTHER, "no objects passed to apply");
	return rc;
}
