/* Reading what a kubeconfig points at: bounded file reads into buffers
 * wiped as they grow (files may hold keys and tokens), paths relative to
 * the file that names them, Go's base64, and the list of problems the
 * loader reports in one line.
 */
#include "kubeconfig.h"
#include "kubeconfig_internal.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <yaml.h>

/* Go spells errno texts in lower case ("no such file or directory"); the
 * messages below copy kubectl's, so follow it. */
char *errno_text(int e)
{
	char *s = strdup(strerror(e));

	if (s && s[0])
		s[0] = (char)tolower((unsigned char)s[0]);
	return s;
}

void msglist_add(struct msglist *l, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	char **v;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s) {
		l->oom = true;
		return;
	}
	v = kube_array_grow(l->v, &l->cap, l->n + 1, sizeof(*v), 4);
	if (!v) {
		free(s);
		l->oom = true;
		return;
	}
	l->v = v;
	l->v[l->n++] = s;
}

void msglist_release(struct msglist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* client-go's aggregate: one problem is shown as it is, several as
 * "invalid configuration: [a, b]". */
int msglist_to_error(struct msglist *l, struct kerr *err)
{
	size_t len = 0;
	char *s, *p;

	if (l->oom)
		return kerr_set(err, KERR_OTHER, "out of memory");
	if (l->n == 1)
		return kerr_set(err, KERR_CONFIG, "%s", l->v[0]);
	for (size_t i = 0; i < l->n; i++)
		len += strlen(l->v[i]) + 2;
	s = p = malloc(len + 1);
	if (!s)
		return kerr_set(err, KERR_OTHER, "out of memory");
	for (size_t i = 0; i < l->n; i++) {
		size_t k = strlen(l->v[i]);

		if (i) {
			memcpy(p, ", ", 2);
			p += 2;
		}
		memcpy(p, l->v[i], k);
		p += k;
	}
	*p = '\0';
	kerr_set(err, KERR_CONFIG, "invalid configuration: [%s]", s);
	free(s);
	return -1;
}

/* Lexically clean an absolute path: drop "." and empty segments, fold "..". */
static void path_clean(char *p)
{
	char *out = p, *in = p;

	if (*in != '/')
		return;
	while (*in) {
		char *seg;
		size_t n;

		while (*in == '/')
			in++;
		seg = in;
		while (*in && *in != '/')
			in++;
		n = (size_t)(in - seg);
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			while (out > p && *--out != '/')
				;
			continue;
		}
		*out++ = '/';
		memmove(out, seg, n);
		out += n;
	}
	if (out == p)
		*out++ = '/';
	*out = '\0';
}

char *path_join(const char *dir, const char *rel)
{
	char *s = NULL;

	if (asprintf(&s, "%s/%s", dir, rel) < 0)
		return NULL;
	path_clean(s);
	return s;
}

/* The absolute directory holding a file, as Go's filepath.Dir(filepath.Abs()). */
char *file_dir(const char *path)
{
	char *abs, *slash;

	if (path[0] == '/') {
		abs = strdup(path);
	} else {
		char *cwd = getcwd(NULL, 0);

		abs = cwd ? path_join(cwd, path) : NULL;
		free(cwd);
	}
	if (!abs)
		return NULL;
	path_clean(abs);
	slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	return abs;
}

/* Files a kubeconfig refers to (certificates, keys, tokens) are small; the
 * limit only stops a path like /dev/zero from eating all memory. */
#define REFERENCED_FILE_MAX (16u << 20)

/* Read a whole file, up to max bytes (0 = no limit; EFBIG past it).
 * Returns 0, or an errno value. */
int read_all_max(const char *path, size_t max, struct kblob *ret)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	int e;

	if (fd < 0)
		return errno;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
		e = EISDIR;
	else
		e = kblob_read_fd(fd, max, ret);
	close(fd);
	return e;
}

int read_all(const char *path, struct kblob *ret)
{
	return read_all_max(path, REFERENCED_FILE_MAX, ret);
}

/* --- base64, as Go's encoding/base64.StdEncoding decodes it --------------- */

static int b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static size_t skip_newlines(const unsigned char *s, size_t n, size_t i)
{
	while (i < n && (s[i] == '\n' || s[i] == '\r'))
		i++;
	return i;
}

/* The padding that ends the last quantum, its '=' at s[*si - 1] in place
 * of sextet j (2 or 3): only newlines may follow.  -1 with *bad set when
 * it is not such an end. */
static int b64_padding(const unsigned char *s, size_t n, size_t *si, int j, size_t *bad)
{
	if (j == 2) {
		*si = skip_newlines(s, n, *si);
		if (*si == n) {
			*bad = n;
			return -1;
		}
		if (s[*si] != '=') {
			*bad = *si - 1;
			return -1;
		}
		(*si)++;
	}
	*si = skip_newlines(s, n, *si);
	if (*si < n) {
		*bad = *si;
		return -1;
	}
	return 0;
}

/* The next quantum from s[*si]: its sextets in q, how many in *end (4, or
 * 2 or 3 before padding).  1 read, 0 at the end of the input, -1 with *bad
 * set on bad input.  Newlines between characters are skipped. */
static int b64_quantum(const unsigned char *s, size_t n, size_t *si, int q[4], size_t *end, size_t *bad)
{
	for (int j = 0; j < 4; j++) {
		unsigned char c;

		if (*si == n) {
			if (j == 0)
				return 0;
			*bad = *si - (size_t)j;
			return -1;
		}
		c = s[(*si)++];
		if ((q[j] = b64_value(c)) >= 0)
			continue;
		if (c == '\n' || c == '\r') {
			j--;
			continue;
		}
		if (c != '=' || j < 2) {
			*bad = *si - 1;
			return -1;
		}
		*end = (size_t)j;
		return b64_padding(s, n, si, j, bad) < 0 ? -1 : 1;
	}
	*end = 4;
	return 1;
}

/* The bytes of a quantum of end sextets, at buf[*len]. */
static void b64_emit(unsigned char *buf, size_t *len, const int q[4], size_t end)
{
	unsigned v = (unsigned)q[0] << 18 | (unsigned)q[1] << 12;

	if (end > 2)
		v |= (unsigned)q[2] << 6;
	if (end > 3)
		v |= (unsigned)q[3];
	buf[(*len)++] = (unsigned char)(v >> 16);
	if (end > 2)
		buf[(*len)++] = (unsigned char)(v >> 8);
	if (end > 3)
		buf[(*len)++] = (unsigned char)v;
}

/* Decode; out may be NULL to only check.  On bad input returns -1 with *bad
 * = the input offset Go would report. */
int b64_decode(const unsigned char *s, size_t n, struct kblob *out, size_t *bad)
{
	unsigned char *buf = NULL;
	size_t si = 0, dl = 0, end = 4;
	int q[4], r = 1;

	if (out && !(buf = malloc(n / 4 * 3 + 4))) {
		*bad = SIZE_MAX;
		return -1;
	}
	while (end == 4 && (r = b64_quantum(s, n, &si, q, &end, bad)) > 0)
		if (buf)
			b64_emit(buf, &dl, q, end);
	if (r < 0) {
		if (buf) {
			explicit_bzero(buf, dl);
			free(buf);
		}
		return -1;
	}
	if (out) {
		buf[dl] = '\0';
		out->data = buf;
		out->len = dl;
	}
	return 0;
}
