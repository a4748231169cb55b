/* fuzz_util.c - input decoding, checks and size estimates shared by the
 * harnesses (see fuzz.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/fuzz/fuzz.h"
#include "topo/topo.h"
#include "topo/util/hl.h"
#include "topo/util/spec.h"

void fuzz_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* ---- input ---- */

static char *take(struct fuzz_in *in, size_t len, size_t skip)
{
	char *s = malloc(len + 1);

	if (s) {
		memcpy(s, in->p, len);
		s[len] = '\0';
	}
	in->p += len + skip;
	in->n -= len + skip;
	return s;
}

char *fuzz_line(struct fuzz_in *in)
{
	const uint8_t *nl = memchr(in->p, '\n', in->n);

	return nl ? take(in, (size_t)(nl - in->p), 1) : take(in, in->n, 0);
}

char *fuzz_rest(struct fuzz_in *in)
{
	return take(in, in->n, 0);
}

uint8_t fuzz_u8(struct fuzz_in *in)
{
	uint8_t b;

	if (!in->n)
		return 0;
	b = *in->p++;
	in->n--;
	return b;
}

uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | (uint16_t)fuzz_u8(in) << 8);
}

uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)fuzz_u8(in) << (8 * i);
	return v;
}

const uint8_t *fuzz_options(struct fuzz_in *in, size_t n)
{
	if (in->n < n + 1 || in->p[in->n - n - 1] != '\0')
		return NULL;
	in->n -= n + 1;
	return in->p + in->n + 1;
}

uint32_t fuzz_lines(const char *text, size_t len)
{
	uint32_t n = 1;

	for (size_t i = 0; i < len; i++)
		if (text[i] == '\n' && i + 1 < len)
			n++;
	return n;
}

/* ---- checks ---- */

void fuzz_check_err(const char *file, int line, const struct err *e,
		    const char *name, uint32_t maxline)
{
	const char *m = e->msg, *p;
	size_t nl;
	unsigned long ln;
	char *end;

	if (!m[0])
		fuzz_fail(file, line, "failed without a message");
	if (!name)
		return;
	nl = strlen(name);
	if (strncmp(m, name, nl) || m[nl] != ':')
		fuzz_fail(file, line, "message without \"%s:\": %s", name, m);
	p = m + nl + 1;
	if (*p == ' ')
		return;
	errno = 0;
	ln = strtoul(p, &end, 10);
	if (end == p || errno || *end != ':' || end[1] != ' ' || ln < 1 ||
	    ln > maxline)
		fuzz_fail(file, line,
			  "message not \"%s:LINE: what\" with LINE in "
			  "1..%u: %s",
			  name, maxline, m);
}

/* ---- size estimates ---- */

/* Integer parameter KEY of P[0..N), or DEF when absent; a value the
 * families would reject counts as 1 (nothing is built then). */
static double param(const struct topo_param *p, size_t n, const char *key,
		    double def)
{
	for (size_t i = 0; i < n; i++) {
		char *end;
		long v;

		if (strcmp(p[i].key, key))
			continue;
		errno = 0;
		v = strtol(p[i].value, &end, 10);
		if (errno || end == p[i].value || *end || v < 1)
			return 1;
		return (double)v;
	}
	return def;
}

/* Routers and the sum of the sizes of a mesh's "AxBxC" dims. */
static void dims(const struct topo_param *p, size_t n, double *routers,
		 double *sum)
{
	const char *s = "4x4x4";

	for (size_t i = 0; i < n; i++)
		if (!strcmp(p[i].key, "dims"))
			s = p[i].value;
	*routers = 1;
	*sum = 0;
	while (*s) {
		char *end;
		double v = (double)strtoul(s, &end, 10);

		if (end == s)
			return;
		*routers *= v > 0 ? v : 1;
		*sum += v;
		s = *end ? end + 1 : end;
	}
}

double fuzz_topo_size(const char *spec)
{
	struct topo_param p[SPEC_MAX_ITEMS];
	char fam[64];
	size_t n = 0;
	double r, sum;

	if (topo_parse_spec(spec, fam, sizeof(fam), p, &n, NULL))
		return 0;
	if (!strcmp(fam, "dragonfly")) {
		double a = param(p, n, "a", 4), h = param(p, n, "h", 2);
		double g = param(p, n, "g", a * h + 1);

		return a * g * (1 + param(p, n, "p", 2) + a + h);
	}
	if (!strcmp(fam, "cascade")) {
		double g = param(p, n, "groups", 6);

		return g * 96 * 25 + g * (g - 1) * param(p, n, "pair", 24);
	}
	if (!strcmp(fam, "fattree")) {
		double k = param(p, n, "k", 4), lv = param(p, n, "n", 3);

		/* (n is at most 16: a larger one builds nothing) */
		return pow(k, lv < 17 ? lv : 1) * (lv + 2);
	}
	if (!strcmp(fam, "expressmesh") || !strcmp(fam, "hyperx") ||
	    !strcmp(fam, "torus")) {
		dims(p, n, &r, &sum);
		return r * (1 + param(p, n, "p", 1) + sum);
	}
	if (!strcmp(fam, "jellyfish"))
		return param(p, n, "n", 64) * (1 + param(p, n, "r", 6));
	return 0;
}

double fuzz_hl_names(const char *s)
{
	double total = 0, name = 1;

	for (;;) {
		if (*s == '[') {
			double in = 0;

			s++;
			while (*s != ']') {
				char *end;
				unsigned long lo = strtoul(s, &end, 10);
				unsigned long hi = lo;

				if (*end == '-')
					hi = strtoul(end + 1, &end, 10);
				in += (double)(hi - lo + 1);
				s = *end == ',' ? end + 1 : end;
			}
			name *= in;
		} else if (*s == ',' || !*s) {
			total += name;
			name = 1;
			if (!*s)
				return total;
		}
		s++;
	}
}

/* Names of hostlist V (LEN bytes), 0 when hl_error refuses it. */
static double names(const char *v, size_t len)
{
	char buf[8192];
	size_t n = len < sizeof(buf) - 1 ? len : sizeof(buf) - 1;

	memcpy(buf, v, n);
	buf[n] = '\0';
	return hl_error(buf) ? 0 : fuzz_hl_names(buf);
}

int fuzz_routing_slow(const char *spec)
{
	static const struct spec_syntax syn = { SPEC_BLANKS, "option" };
	struct spec s;
	const char *k;

	if (spec_parse(spec, &syn, &s, NULL) || strcmp(s.name, "ksp"))
		return 0;
	k = spec_given(&s, "k");
	return k && strtol(k, NULL, 10) > 16;
}

/* Graph lines: switches, their links and Nodes= (a count or a hostlist). */
static double graph_line(const char *line)
{
	double size = 1;
	const char *p = line;

	while (*p) {
		size_t len;

		p += strspn(p, " \t\r");
		len = strcspn(p, " \t\r");
		if (!strncasecmp(p, "Nodes=", 6)) {
			size_t digits = strspn(p + 6, "0123456789");

			if (digits && digits == len - 6)
				size += strtod(p + 6, NULL);
			else
				size += names(p + 6, len - 6);
		} else if (!strncasecmp(p, "Links=", 6)) {
			for (size_t i = 6; i < len; i++)
				size += p[i] == ',';
			size++;
		}
		p += len;
	}
	return size;
}

/* The logical line at TEXT (continuations joined, comment dropped) into
 * *BUF (realloc'd, *CAP bytes); returns where the next one starts. */
static const char *logical_line(const char *p, char **buf, size_t *cap)
{
	size_t blen = 0;
	int joining = 0;

	(*buf)[0] = '\0';
	while (*p) {
		size_t len = strcspn(p, "\n");
		const char *hash = memchr(p, '#', len);
		size_t keep = hash ? (size_t)(hash - p) : len;
		const char *q = p;
		int cont;

		while (keep && (p[keep - 1] == ' ' || p[keep - 1] == '\t' ||
				p[keep - 1] == '\r'))
			keep--;
		cont = !hash && keep && p[keep - 1] == '\\';
		if (cont)
			keep--;
		if (joining)
			while (keep && (*q == ' ' || *q == '\t')) {
				q++;
				keep--;
			}
		if (blen + keep + 1 > *cap) {
			char *nb = realloc(*buf, (blen + keep + 1) * 2);

			if (!nb)
				return p + strlen(p);
			*buf = nb;
			*cap = (blen + keep + 1) * 2;
		}
		memcpy(*buf + blen, q, keep);
		blen += keep;
		(*buf)[blen] = '\0';
		p += len;
		if (*p == '\n')
			p++;
		joining = cont && *p;
		if (!joining)
			break;
	}
	return p;
}

double fuzz_conf_size(const char *text)
{
	size_t cap = 256;
	char *buf = malloc(cap);
	double topo = 0, graph = 0;
	const char *p = text;

	if (!buf)
		return 0;
	while (*p) {
		const char *s;

		p = logical_line(p, &buf, &cap);
		s = buf + strspn(buf, " \t\r");
		if (!strncasecmp(s, "Topology=", 9))
			topo += fuzz_topo_size(s + 9);
		else if (!strncasecmp(s, "SwitchName=", 11))
			graph += graph_line(s);
		else if (!strncasecmp(s, "NodeName=", 9))
			graph += names(s + 9, strcspn(s + 9, " \t\r"));
	}
	free(buf);
	return topo + graph;
}
