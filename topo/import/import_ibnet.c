/* import_ibnet.c - ibnetdiscover's text output to a fabric.
 *
 * The format (infiniband-diags): records of one IB node each,
 *	vendid=0x2c9 / devid=... / sysimgguid=... / switchguid=... / caguid=...
 *	Switch 36 "S-0002c90300a1b2c3"  # "desc" enhanced port 0 lid 1 lmc 0
 *	[1]  "H-0002c90300001000"[1](2c90300001001)  # "node1 HCA-1" lid 3 4xEDR
 *	Ca 1 "H-0002c90300001000"  # "node1 HCA-1"
 *	[1](2c90300001001)  "S-0002c90300a1b2c3"[1]  # lid 3 lmc 0 "desc" lid 1 4xEDR
 * Every link appears on both of its ends; both must agree. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/import/import_impl.h"

struct iport {
	uint32_t port;	/* local port number */
	uint32_t rport; /* the remote end's port */
	uint64_t rguid; /* the remote end's node GUID */
	uint64_t pguid; /* local port GUID (CA ports), 0 when not given */
	char rkind;	/* 'S', 'H' or 'R' */
	double rate;	/* Gb/s: width x lane speed */
	uint32_t line;
};

struct inode {
	char kind; /* 'S' switch, 'H' channel adapter, 'R' router */
	uint64_t guid, sysimg;
	uint32_t nports, line;
	char *desc;
	struct iport *ports;
	uint32_t np, pcap;
	int64_t sw; /* fabric index of a switch */
};

struct gent {
	uint64_t guid;
	char *host;
	uint32_t line;
};

struct st {
	const char *path;
	struct err *err;
	struct inode *n;
	uint32_t nn, ncap;
	uint32_t *ht; /* GUID hash: node index + 1, 0 for empty */
	uint32_t htcap;
	uint64_t sysimg; /* the last sysimgguid= line */
	struct gent *map;
	uint32_t nmap;
	const char *mappath;
};

/* An error at LINE of the input: "PATH:LINE: ..." (returns -1). */
#define perr(st, line, ...) \
	import_perr((st)->err, (st)->path, line, __VA_ARGS__)

static const char *skipb(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* Decimal number at *S; advances *S.  0 or -1. */
static int get_u32(const char **s, uint32_t *v)
{
	unsigned long x;
	char *end;

	if (!isdigit((unsigned char)**s))
		return -1;
	errno = 0;
	x = strtoul(*s, &end, 10);
	if (errno || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	*s = end;
	return 0;
}

/* Hexadecimal GUID at *S (optional 0x, 1 to 16 digits); advances *S. */
static int get_hex(const char **s, uint64_t *v)
{
	const char *p = *s;
	uint64_t x = 0;
	int n = 0;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (; isxdigit((unsigned char)*p); p++, n++) {
		int d = isdigit((unsigned char)*p) ?
				*p - '0' :
				tolower((unsigned char)*p) - 'a' + 10;
		x = x << 4 | (uint64_t)d;
	}
	if (!n || n > 16)
		return -1;
	*v = x;
	*s = p;
	return 0;
}

/* "K-GUID" in quotes at *S: the kind letter in *KIND. */
static int get_qguid(const char **s, char *kind, uint64_t *guid)
{
	const char *p = *s;

	if (*p != '"' || !strchr("SHR", p[1]) || !p[1] || p[2] != '-')
		return -1;
	*kind = p[1];
	p += 3;
	if (get_hex(&p, guid) || *p != '"')
		return -1;
	*s = p + 1;
	return 0;
}

static uint32_t hslot(uint64_t g, uint32_t cap)
{
	g ^= g >> 33;
	g *= 0xff51afd7ed558ccdULL;
	g ^= g >> 33;
	return (uint32_t)g & (cap - 1);
}

static int64_t lookup(const struct st *st, uint64_t guid)
{
	if (!st->htcap)
		return -1;
	for (uint32_t h = hslot(guid, st->htcap);;
	     h = (h + 1) & (st->htcap - 1)) {
		if (!st->ht[h])
			return -1;
		if (st->n[st->ht[h] - 1].guid == guid)
			return st->ht[h] - 1;
	}
}

static int ht_insert(struct st *st, uint32_t idx)
{
	if (2 * (st->nn + 1) > st->htcap) {
		uint32_t cap = st->htcap ? 2 * st->htcap : 64;
		uint32_t *ht = calloc(cap, sizeof(*ht));

		if (!ht)
			return -1;
		free(st->ht);
		st->ht = ht;
		st->htcap = cap;
		for (uint32_t i = 0; i < st->nn; i++)
			if (i != idx) {
				uint32_t h = hslot(st->n[i].guid, cap);

				while (ht[h])
					h = (h + 1) & (cap - 1);
				ht[h] = i + 1;
			}
	}
	{
		uint32_t h = hslot(st->n[idx].guid, st->htcap);

		while (st->ht[h])
			h = (h + 1) & (st->htcap - 1);
		st->ht[h] = idx + 1;
	}
	return 0;
}

static const char *kind_word(char k)
{
	return k == 'S' ? "Switch" : k == 'H' ? "Ca" : "Rt";
}

/* "Switch N "S-GUID" # "desc" ..." (S after the keyword). */
static int parse_record(struct st *st, const char *s, char kind, uint32_t line)
{
	struct inode *nd;
	uint32_t nports;
	uint64_t guid;
	char k;
	const char *d, *e;
	int64_t prev;

	s = skipb(s);
	if (get_u32(&s, &nports) || !nports || nports > 255 ||
	    (s = skipb(s), get_qguid(&s, &k, &guid)) || k != kind)
		return perr(st, line,
			    "bad %s line (want %s PORTS \"%c-GUID\" # "
			    "\"description\")",
			    kind_word(kind), kind_word(kind), kind);
	prev = lookup(st, guid);
	if (prev >= 0)
		return perr(st, line,
			    "%c-%016llx described twice (first on "
			    "line %u)",
			    kind, (unsigned long long)guid, st->n[prev].line);
	s = skipb(s);
	d = e = NULL;
	if (*s == '#') {
		s = skipb(s + 1);
		if (*s == '"') {
			d = s + 1;
			e = strchr(d, '"');
			if (!e)
				return perr(st, line,
					    "unterminated node description");
		}
	}
	if (st->nn == st->ncap) {
		uint32_t cap = st->ncap ? 2 * st->ncap : 64;
		struct inode *n = realloc(st->n, cap * sizeof(*n));

		if (!n)
			return perr(st, line, "out of memory");
		st->n = n;
		st->ncap = cap;
	}
	nd = &st->n[st->nn];
	*nd = (struct inode){ .kind = kind,
			      .guid = guid,
			      .sysimg = st->sysimg,
			      .nports = nports,
			      .line = line,
			      .sw = -1 };
	nd->desc = d ? strndup(d, (size_t)(e - d)) : strdup("");
	st->sysimg = 0;
	if (!nd->desc || ht_insert(st, st->nn)) {
		free(nd->desc);
		return perr(st, line, "out of memory");
	}
	st->nn++;
	return 0;
}

/* Lane speeds (Gb/s) of the IB data rates. */
static const struct {
	const char *name;
	double gbps;
} speeds[] = {
	{ "SDR", 2.5 },	 { "DDR", 5 },	 { "QDR", 10 },
	{ "FDR10", 10 }, { "FDR", 14 },	 { "EDR", 25 },
	{ "HDR", 50 },	 { "NDR", 100 }, { "XDR", 200 },
};

/* The rate of the last word of LINE ("4xEDR"), in *RATE. */
static int link_rate(struct st *st, const char *line, uint32_t port,
		     uint32_t lineno, double *rate)
{
	const char *end = line + strlen(line), *w, *p;
	uint32_t width;

	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	for (w = end; w > line && !isspace((unsigned char)w[-1]); w--)
		;
	p = w;
	if (!strchr(line, '#') || get_u32(&p, &width) || *p != 'x')
		return perr(st, lineno,
			    "port %u: no link width and speed at the end of "
			    "the line (e.g. 4xEDR)",
			    port);
	if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12)
		return perr(st, lineno,
			    "port %u: bad link width %ux (want 1x, 2x, 4x, "
			    "8x or 12x)",
			    port, width);
	p++;
	for (size_t i = 0; i < sizeof(speeds) / sizeof(speeds[0]); i++)
		if (strlen(speeds[i].name) == (size_t)(end - p) &&
		    !strncmp(p, speeds[i].name, (size_t)(end - p))) {
			*rate = width * speeds[i].gbps;
			return 0;
		}
	return perr(st, lineno,
		    "port %u: unknown link speed '%.*s' (known: SDR, DDR, "
		    "QDR, FDR10, FDR, EDR, HDR, NDR, XDR)",
		    port, (int)(end - p), p);
}

/* Skip "[ext N]" and the like after a port number. */
static void skip_ext(const char **s)
{
	if (**s == '[' && !isdigit((unsigned char)(*s)[1])) {
		const char *e = strchr(*s, ']');

		if (e)
			*s = e + 1;
	}
}

static int parse_port(struct st *st, const char *line, uint32_t lineno)
{
	const char *s = line + 1;
	struct inode *nd = st->nn ? &st->n[st->nn - 1] : NULL;
	struct iport pt = { .line = lineno };

	if (get_u32(&s, &pt.port) || *s != ']')
		return perr(st, lineno,
			    "bad port line (want [PORT] "
			    "\"K-GUID\"[PORT] # ... WIDTHxSPEED)");
	s++;
	if (!nd)
		return perr(st, lineno,
			    "port line before any Switch, Ca or "
			    "Rt line");
	if (*s == '(') {
		s++;
		if (get_hex(&s, &pt.pguid) || *s != ')')
			return perr(st, lineno, "bad port GUID");
		s++;
	}
	skip_ext(&s);
	s = skipb(s);
	if (!*s || *s == '#' || *s == '\n' || *s == '\r')
		return 0; /* an unconnected port: nothing to build */
	if (pt.port < 1 || pt.port > nd->nports)
		return perr(st, lineno,
			    "port %u out of range (the %s has %u ports)",
			    pt.port, kind_word(nd->kind), nd->nports);
	if (get_qguid(&s, &pt.rkind, &pt.rguid) || *s != '[')
		return perr(st, lineno,
			    "bad port line (want [PORT] "
			    "\"K-GUID\"[PORT] # ... WIDTHxSPEED)");
	s++;
	if (get_u32(&s, &pt.rport) || *s != ']')
		return perr(st, lineno,
			    "bad port line (want [PORT] "
			    "\"K-GUID\"[PORT] # ... WIDTHxSPEED)");
	for (uint32_t i = 0; i < nd->np; i++)
		if (nd->ports[i].port == pt.port)
			return perr(st, lineno,
				    "port %u given twice (first on line %u)",
				    pt.port, nd->ports[i].line);
	if (link_rate(st, line, pt.port, lineno, &pt.rate))
		return -1;
	if (nd->np == nd->pcap) {
		uint32_t cap = nd->pcap ? 2 * nd->pcap : 8;
		struct iport *p = realloc(nd->ports, cap * sizeof(*p));

		if (!p)
			return perr(st, lineno, "out of memory");
		nd->ports = p;
		nd->pcap = cap;
	}
	nd->ports[nd->np++] = pt;
	return 0;
}

static int parse_key(struct st *st, const char *s, uint32_t lineno)
{
	static const char *const keys[] = { "vendid",	  "devid",
					    "sysimgguid", "switchguid",
					    "caguid",	  "rtrguid" };
	const char *eq = strchr(s, '=');
	size_t klen = (size_t)(eq - s);
	const char *v = eq + 1;
	uint64_t x;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i]) != klen || strncmp(s, keys[i], klen))
			continue;
		if (get_hex(&v, &x))
			return perr(st, lineno,
				    "bad number in %.*s=", (int)klen, s);
		if (i == 2)
			st->sysimg = x;
		return 0;
	}
	return perr(st, lineno, "unknown key '%.*s'", (int)klen, s);
}

static int parse_line(struct st *st, char *s, uint32_t lineno)
{
	size_t n = strlen(s);
	const char *p;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	p = skipb(s);
	if (!*p || *p == '#' || !strncmp(p, "Chassis ", 8) ||
	    !strcmp(p, "Non-Chassis Nodes"))
		return 0;
	if (*p == '[')
		return parse_port(st, p, lineno);
	if (!strncmp(p, "Switch", 6) && (p[6] == ' ' || p[6] == '\t'))
		return parse_record(st, p + 6, 'S', lineno);
	if (!strncmp(p, "Ca", 2) && (p[2] == ' ' || p[2] == '\t'))
		return parse_record(st, p + 2, 'H', lineno);
	if (!strncmp(p, "Rt", 2) && (p[2] == ' ' || p[2] == '\t'))
		return parse_record(st, p + 2, 'R', lineno);
	{
		const char *q = p;

		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		if (q > p && *q == '=')
			return parse_key(st, p, lineno);
	}
	return perr(st, lineno,
		    "unrecognised line (want Switch, Ca or Rt, a [PORT] "
		    "line, KEY=VALUE or a # comment)");
}

static int cmp_port(const void *a, const void *b)
{
	uint32_t x = ((const struct iport *)a)->port;
	uint32_t y = ((const struct iport *)b)->port;

	return (x > y) - (x < y);
}

static const struct iport *find_port(const struct inode *nd, uint32_t port)
{
	uint32_t lo = 0, hi = nd->np;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (nd->ports[mid].port == port)
			return &nd->ports[mid];
		if (nd->ports[mid].port < port)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Every link listed on one end is listed the same way on the other. */
static int check_links(struct st *st)
{
	for (uint32_t i = 0; i < st->nn; i++) {
		struct inode *a = &st->n[i];

		if (a->np)
			qsort(a->ports, a->np, sizeof(*a->ports), cmp_port);
	}
	for (uint32_t i = 0; i < st->nn; i++) {
		const struct inode *a = &st->n[i];

		for (uint32_t k = 0; k < a->np; k++) {
			const struct iport *e = &a->ports[k];
			int64_t j = lookup(st, e->rguid);
			const struct iport *r;

			if (j < 0 || st->n[j].kind != e->rkind)
				return perr(st, e->line,
					    "port %u: link to %c-%016llx, "
					    "which the file does not "
					    "describe",
					    e->port, e->rkind,
					    (unsigned long long)e->rguid);
			r = find_port(&st->n[j], e->rport);
			if (!r)
				return perr(st, e->line,
					    "port %u: link to %c-%016llx "
					    "port %u, which its record (line "
					    "%u) does not list",
					    e->port, e->rkind,
					    (unsigned long long)e->rguid,
					    e->rport, st->n[j].line);
			if (r->rguid != a->guid || r->rport != e->port)
				return perr(st, e->line,
					    "port %u: link to %c-%016llx "
					    "port %u disagrees with line %u",
					    e->port, e->rkind,
					    (unsigned long long)e->rguid,
					    e->rport, r->line);
			/* one cable, one rate (when both ends give one) */
			if (e->rate > 0 && r->rate > 0 && e->rate != r->rate)
				return perr(st, e->line,
					    "port %u: link to %c-%016llx "
					    "port %u at %g Gb/s, but line %u "
					    "gives %g Gb/s",
					    e->port, e->rkind,
					    (unsigned long long)e->rguid,
					    e->rport, e->rate, r->line,
					    r->rate);
		}
	}
	return 0;
}

/* The name a switch's description gives: "MF0;NAME:..." -> NAME, else
 * the whole description; NULL when not usable.  A new string. */
static char *desc_name(const char *desc)
{
	const char *b = desc, *e = desc + strlen(desc);
	char *s;

	if (!strncmp(desc, "MF0;", 4) && strchr(desc + 4, ':')) {
		b = desc + 4;
		e = strchr(b, ':');
	}
	s = strndup(b, (size_t)(e - b));
	if (s && !import_name_ok(s)) {
		free(s);
		return NULL;
	}
	return s;
}

/* Whether NAME has the form of a GUID name, "S-" and 16 hex digits: such
 * names are kept for the switches named by their GUID, so that no
 * description can take one of theirs. */
static bool guid_like(const char *name)
{
	if (strncmp(name, "S-", 2) || strlen(name) != 18)
		return false;
	for (int k = 2; k < 18; k++)
		if (!isxdigit((unsigned char)name[k]))
			return false;
	return true;
}

static const char *const *sort_names; /* qsort context (one thread) */

static int cmp_by_name(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int c = strcmp(sort_names[x], sort_names[y]);

	return c ? c : (x > y) - (x < y);
}

/* Each switch's name: its description's name when no other switch's
 * description gives the same one (O(S log S): sorted by name), else its
 * GUID name, with a warning. */
static int name_switches(struct st *st, struct import_fabric *f)
{
	char **cand = calloc(st->nn ? st->nn : 1, sizeof(*cand));
	uint32_t *ord = malloc((st->nn ? st->nn : 1) * sizeof(*ord));
	bool *dup = calloc(st->nn ? st->nn : 1, sizeof(*dup));
	uint32_t no = 0;
	int rc = 0;

	if (!cand || !ord || !dup) {
		free(cand);
		free(ord);
		free(dup);
		return err_set(st->err, "out of memory");
	}
	for (uint32_t i = 0; i < st->nn; i++)
		if (st->n[i].kind == 'S') {
			cand[i] = desc_name(st->n[i].desc);
			if (cand[i] && guid_like(cand[i])) {
				free(cand[i]);
				cand[i] = NULL;
			}
			if (cand[i])
				ord[no++] = i;
		}
	sort_names = (const char *const *)cand;
	qsort(ord, no, sizeof(*ord), cmp_by_name);
	for (uint32_t k = 1; k < no; k++)
		if (!strcmp(cand[ord[k - 1]], cand[ord[k]]))
			dup[ord[k - 1]] = dup[ord[k]] = true;
	for (uint32_t i = 0; i < st->nn && !rc; i++) {
		struct inode *nd = &st->n[i];
		char guid[24], note[300];
		bool uniq = cand[i] != NULL && !dup[i];
		int64_t sw;

		if (nd->kind != 'S')
			continue;
		snprintf(guid, sizeof(guid), "S-%016llx",
			 (unsigned long long)nd->guid);
		if (uniq) {
			sw = fabric_add_switch(f, cand[i], guid);
		} else {
			snprintf(note, sizeof(note), "\"%s\"", nd->desc);
			sw = fabric_add_switch(f, guid, note);
			if (sw >= 0 &&
			    fabric_warn(f,
					"%s:%u: switch description \"%s\" is "
					"%s: named %s",
					st->path, nd->line, nd->desc,
					cand[i] ? "not unique" :
						  "not a usable name",
					guid))
				sw = -1;
		}
		if (sw < 0)
			rc = err_set(st->err, "out of memory");
		nd->sw = sw;
	}
	for (uint32_t i = 0; i < st->nn; i++)
		free(cand[i]);
	free(cand);
	free(ord);
	free(dup);
	return rc;
}

/* One HCA port cabled to a switch. */
struct attach {
	const char *name; /* borrowed from names[] */
	uint32_t sw, swport, line, ca;
	double rate;
};

static const char *map_find(const struct st *st, uint64_t guid)
{
	uint32_t lo = 0, hi = st->nmap;

	while (guid && lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->map[mid].guid == guid)
			return st->map[mid].host;
		if (st->map[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The node name of HCA ND into *NAME (a new string). */
static int node_name(struct st *st, struct import_fabric *f,
		     const struct inode *nd, char **name)
{
	const char *h = map_find(st, nd->guid);
	size_t n;

	for (uint32_t k = 0; !h && k < nd->np; k++)
		h = map_find(st, nd->ports[k].pguid);
	if (!h)
		h = map_find(st, nd->sysimg);
	if (h) {
		*name = strdup(h);
		return *name ? 0 : err_set(st->err, "out of memory");
	}
	n = strcspn(nd->desc, " \t");
	*name = strndup(nd->desc, n);
	if (!*name)
		return err_set(st->err, "out of memory");
	if (!import_name_ok(*name))
		return perr(st, nd->line,
			    "HCA H-%016llx: description \"%s\" gives no "
			    "usable node name (give --guids MAP)",
			    (unsigned long long)nd->guid, nd->desc);
	if (st->map &&
	    fabric_warn(f,
			"%s:%u: HCA H-%016llx is not in %s: "
			"named %s from its description",
			st->path, nd->line, (unsigned long long)nd->guid,
			st->mappath, *name))
		return err_set(st->err, "out of memory");
	return 0;
}

static int cmp_attach_name(const void *a, const void *b)
{
	const struct attach *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->line > y->line) - (x->line < y->line);
}

static int cmp_attach_port(const void *a, const void *b)
{
	const struct attach *x = a, *y = b;

	if (x->sw != y->sw)
		return x->sw < y->sw ? -1 : 1;
	return (x->swport > y->swport) - (x->swport < y->swport);
}

static int add_nodes(struct st *st, struct import_fabric *f)
{
	struct attach *at = calloc(st->nn ? st->nn : 1, sizeof(*at));
	char **names = calloc(st->nn ? st->nn : 1, sizeof(*names));
	uint32_t na = 0, kept = 0;
	int rc = 0;

	if (!at || !names) {
		rc = err_set(st->err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < st->nn && !rc; i++) {
		const struct inode *nd = &st->n[i];
		const struct iport *first = NULL;
		uint32_t sw1 = 0;

		if (nd->kind == 'R') {
			rc = fabric_warn(f, "%s:%u: router R-%016llx skipped",
					 st->path, nd->line,
					 (unsigned long long)nd->guid);
			continue;
		}
		if (nd->kind != 'H')
			continue;
		for (uint32_t k = 0; k < nd->np && !rc; k++) {
			const struct iport *e = &nd->ports[k];
			const struct inode *r = &st->n[lookup(st, e->rguid)];

			if (e->rkind != 'S') {
				rc = fabric_warn(f,
						 "%s:%u: port %u: link to a "
						 "%s skipped (only switch "
						 "links attach nodes)",
						 st->path, e->line, e->port,
						 e->rkind == 'H' ? "HCA" :
								   "router");
			} else if (!first) {
				first = e;
				sw1 = (uint32_t)r->sw;
			} else {
				if (!names[i] &&
				    node_name(st, f, nd, &names[i]))
					goto out_rc;
				rc = fabric_warn(
					f,
					"%s:%u: %s: HCA port %u is also "
					"cabled (to %s port %u); a node has "
					"one switch in topo.conf: kept port "
					"%u's switch %s",
					st->path, e->line, names[i], e->port,
					f->sw[r->sw].name, e->rport,
					first->port, f->sw[sw1].name);
			}
		}
		if (rc || !first)
			continue;
		if (!names[i] && node_name(st, f, nd, &names[i]))
			goto out_rc;
		at[na++] = (struct attach){ .name = names[i],
					    .sw = sw1,
					    .swport = first->rport,
					    .line = nd->line,
					    .ca = i,
					    .rate = first->rate };
	}
	if (rc) {
		err_set(st->err, "out of memory");
		goto out;
	}
	if (na)
		qsort(at, na, sizeof(*at), cmp_attach_name);
	for (uint32_t i = 0; i < na; i++) {
		if (kept && !strcmp(at[kept - 1].name, at[i].name)) {
			if (fabric_warn(f,
					"%s:%u: HCA H-%016llx is named %s "
					"like the HCA of line %u: kept the "
					"first",
					st->path, at[i].line,
					(unsigned long long)st->n[at[i].ca].guid,
					at[i].name, at[kept - 1].line))
				goto out_mem;
			continue;
		}
		at[kept++] = at[i];
	}
	if (kept)
		qsort(at, kept, sizeof(*at), cmp_attach_port);
	for (uint32_t i = 0; i < kept; i++)
		if (fabric_add_node(f, at[i].sw, at[i].name, at[i].rate))
			goto out_mem;
	for (uint32_t i = 1; i < kept; i++)
		if (at[i].rate != at[0].rate) {
			if (fabric_warn(f,
					"%s: node links run at several rates "
					"(%g and %g Gb/s, ...): inject= is "
					"the most common",
					st->path, at[0].rate, at[i].rate))
				goto out_mem;
			break;
		}
	goto out;
out_mem:
	rc = err_set(st->err, "out of memory");
	goto out;
out_rc:
	rc = -1;
out:
	for (uint32_t i = 0; names && i < st->nn; i++)
		free(names[i]);
	free(names);
	free(at);
	return rc;
}

static int add_cables(struct st *st, struct import_fabric *f)
{
	for (uint32_t i = 0; i < st->nn; i++) {
		const struct inode *a = &st->n[i];

		if (a->kind != 'S')
			continue;
		for (uint32_t k = 0; k < a->np; k++) {
			const struct iport *e = &a->ports[k];
			int64_t j = lookup(st, e->rguid);

			if (e->rkind != 'S')
				continue;
			if ((uint32_t)j == i) {
				if (e->port < e->rport &&
				    fabric_warn(f,
						"%s:%u: port %u: cable to "
						"its own port %u skipped",
						st->path, e->line, e->port,
						e->rport))
					return err_set(st->err,
						       "out of memory");
				continue;
			}
			if ((uint32_t)j < i)
				continue;
			if (fabric_add_cable(f, (uint32_t)a->sw,
					     (uint32_t)st->n[j].sw, e->rate))
				return err_set(st->err, "out of memory");
		}
	}
	return 0;
}

static int cmp_gent(const void *a, const void *b)
{
	const struct gent *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* The --guids file: "HOST GUID" lines, # comments. */
static int read_map(struct st *st, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0, mcap = 0;
	int rc = 0;

	if (!fp)
		return err_set(st->err, "%s: cannot open: %s", path,
			       strerror(errno));
	st->mappath = path;
	while (!rc && getline(&line, &cap, fp) >= 0) {
		char *c = strchr(line, '#'), *w[3], *save = NULL;
		const char *g;
		uint64_t guid;
		int nw = 0;

		lineno++;
		if (c)
			*c = '\0';
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nw < 3;
		     t = strtok_r(NULL, " \t\r\n", &save))
			w[nw++] = t;
		if (!nw)
			continue;
		g = nw == 2 ? w[1] : NULL;
		if (nw != 2)
			rc = err_set(st->err, "%s:%u: expected 'HOST GUID'",
				     path, lineno);
		else if (!import_name_ok(w[0]))
			rc = err_set(st->err, "%s:%u: bad host name '%s'", path,
				     lineno, w[0]);
		else if (get_hex(&g, &guid) || *g || !guid)
			rc = err_set(st->err,
				     "%s:%u: bad GUID '%s' (want up to 16 "
				     "hexadecimal digits, 0x optional)",
				     path, lineno, w[1]);
		if (rc)
			break;
		if (st->nmap == mcap) {
			struct gent *m;

			mcap = mcap ? 2 * mcap : 64;
			m = realloc(st->map, mcap * sizeof(*m));
			if (!m) {
				rc = err_set(st->err, "out of memory");
				break;
			}
			st->map = m;
		}
		st->map[st->nmap].host = strdup(w[0]);
		st->map[st->nmap].guid = guid;
		st->map[st->nmap].line = lineno;
		if (!st->map[st->nmap++].host)
			rc = err_set(st->err, "out of memory");
	}
	free(line);
	if (!rc && ferror(fp)) /* a directory: EISDIR */
		rc = err_set(st->err, "%s: %s", path, strerror(errno));
	fclose(fp);
	if (rc)
		return rc;
	if (!st->nmap) /* every HCA would be named from its description */
		return err_set(st->err, "%s: no 'HOST GUID' lines", path);
	qsort(st->map, st->nmap, sizeof(*st->map), cmp_gent);
	for (uint32_t i = 1; i < st->nmap; i++)
		if (st->map[i].guid == st->map[i - 1].guid)
			return err_set(st->err,
				       "%s:%u: GUID 0x%016llx given twice "
				       "(first on line %u)",
				       path, st->map[i].line,
				       (unsigned long long)st->map[i].guid,
				       st->map[i - 1].line);
	return 0;
}

static void st_free(struct st *st)
{
	for (uint32_t i = 0; i < st->nn; i++) {
		free(st->n[i].desc);
		free(st->n[i].ports);
	}
	for (uint32_t i = 0; i < st->nmap; i++)
		free(st->map[i].host);
	free(st->map);
	free(st->n);
	free(st->ht);
}

struct import_fabric *import_ibnetdiscover(const char *path, const char *map,
					   struct err *err)
{
	struct st st = { .path = path, .err = err };
	struct import_fabric *f = NULL;
	FILE *fp;
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0, nsw = 0;
	int rc = 0;

	if (map && read_map(&st, map))
		goto fail;
	fp = strcmp(path, "-") ? fopen(path, "r") : stdin; /* - : stdin */
	if (!fp) {
		err_set(err, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	for (ssize_t len; !rc && (len = getline(&line, &cap, fp)) >= 0;) {
		lineno++;
		if ((size_t)len != strlen(line))
			rc = perr(&st, lineno, "NUL byte");
		else
			rc = parse_line(&st, line, lineno);
	}
	free(line);
	if (!rc && ferror(fp)) {
		rc = err_set(err, "%s: %s", path, strerror(errno));
		if (fp != stdin)
			fclose(fp);
		goto fail;
	}
	if (fp != stdin)
		fclose(fp);
	if (rc || check_links(&st))
		goto fail;
	for (uint32_t i = 0; i < st.nn; i++)
		nsw += st.n[i].kind == 'S';
	if (!nsw) {
		perr(&st, lineno ? lineno : 1,
		     "no Switch records (is this ibnetdiscover output?)");
		goto fail;
	}
	f = fabric_new("ibnetdiscover", path);
	if (!f) {
		err_set(err, "out of memory");
		goto fail;
	}
	f->rated = true;
	if (name_switches(&st, f) || add_cables(&st, f) || add_nodes(&st, f))
		goto fail;
	if (!f->nnodes) {
		perr(&st, lineno,
		     "no compute nodes: no HCA is cabled to a "
		     "switch");
		goto fail;
	}
	st_free(&st);
	return f;
fail:
	import_destroy(f);
	st_free(&st);
	return NULL;
}
