/* import_ibnet.c - ibnetdiscover's text output to a fabric.
 *
 * Two formats (infiniband-diags), told apart line by line:
 *   the classic one, records of one IB node each,
 *	vendid=0x2c9 / devid=... / sysimgguid=... / switchguid=... / caguid=...
 *	Switch 36 "S-0002c90300a1b2c3"  # "desc" enhanced port 0 lid 1 lmc 0
 *	[1]  "H-0002c90300001000"[1](2c90300001001)  # "node1 HCA-1" lid 3 4xEDR
 *	Ca 1 "H-0002c90300001000"  # "node1 HCA-1"
 *	[1](2c90300001001)  "S-0002c90300a1b2c3"[1]  # lid 3 lmc 0 "desc" lid 1 4xEDR
 *   and the ports report of ibnetdiscover -p (what hwloc's netloc
 *   collected), one line per port, both ends of a cable listed,
 *	SW  18 36 0x00066a00ec002dd9 4x QDR - SW  2 19 0x00066a00eb002cb2 ( 'L112' - 'S201A' )
 *	CA 182  1 0x001175000077d284 4x QDR - SW 18 18 0x00066a00ec002dd9 ( 'node179 HCA-1' - 'L112' )
 *	SW  18  1 0x00066a00ec002dd9 4x SDR        'L112'   (unconnected)
 *   with ibnetdiscover -s's "DR path ..." progress lines between.
 * Every link appears on both of its ends; both must agree.
 *
 * Several files are several subnets (a directory holds netloc's
 * ib-subnet-PREFIX.txt files); --subnet keeps one.
 *
 * Names.  A switch is named by its description ("MF0;NAME:..." gives
 * NAME); a director's chips (descriptions ending in a chip such as L112 or
 * S201A after the chassis GUID, or "MF0;CHASSIS:MODEL/L05/U1") by their
 * chip, prefixed by the chassis when two chassis have the same chip, and
 * keep chassis and role (leaf, spine) in the comment.  A description that
 * is not unique or not a name gives the GUID name S-GUID.  An HCA is named
 * from the --guids map, else by the first word of its description when it
 * identifies a host (not a vendor's default such as "MT25408 ConnectX
 * Mellanox Technologies", not the same description as more than one other
 * HCA), else by its GUID, H-0002c903-00001000 (split so that the name
 * ends in no more digits than a hostlist keeps).  One warning per way of
 * naming says how many were named so. */
#include <ctype.h>
#include <dirent.h>
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
	uint32_t cable; /* switch-to-switch: its index in f->cab */
};

struct inode {
	char kind; /* 'S' switch, 'H' channel adapter, 'R' router */
	uint64_t guid, sysimg;
	uint32_t nports, line, file;
	char *desc;
	struct iport *ports;
	uint32_t np, pcap;
	int64_t sw;	/* fabric index of a switch */
	uint32_t node;	/* fabric node of an HCA, UINT32_MAX if none */
	bool ports_fmt; /* described by -p lines (ports known as seen) */
};

struct gent {
	uint64_t guid;
	char *host;
	uint32_t line;
};

struct pg {
	uint64_t pguid;
	uint32_t node; /* index in st->n */
};

struct st {
	const char *path; /* the file being read */
	const char **files;
	uint32_t nfiles, file;
	struct err *err;
	struct inode *n;
	uint32_t nn, ncap;
	uint32_t *ht; /* GUID hash: node index + 1, 0 for empty */
	uint32_t htcap;
	uint64_t sysimg;   /* the last sysimgguid= line */
	uint32_t lastline; /* of the last file read */
	struct gent *map;
	uint32_t nmap;
	const char *mappath;
	int64_t *sw_node; /* [fabric switches] node index */
	struct pg *pg;	  /* CA port GUIDs, sorted */
	uint32_t npg;
};

/* An error at LINE of the input: "PATH:LINE: ..." (returns -1). */
#define perr(st, line, ...) \
	import_perr((st)->err, (st)->path, line, __VA_ARGS__)
#define perr_nomem(st, line)                                        \
	import_perr_code((st)->err, (st)->path, line, ENOMEM, "%s", \
			 "out of memory")

/* The file of node ND (for messages). */
static const char *nfile(const struct st *st, const struct inode *nd)
{
	return st->files[nd->file];
}

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

/* "K-GUID" in quotes at *S: the kind letter in *KIND. */
static int get_qguid(const char **s, char *kind, uint64_t *guid)
{
	const char *p = *s;

	if (*p != '"' || !strchr("SHR", p[1]) || !p[1] || p[2] != '-')
		return -1;
	*kind = p[1];
	p += 3;
	if (import_get_hex(&p, guid) || *p != '"')
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

/* A new node record (KIND, GUID, description D..E or "").  Returns its
 * index, or -1 with the error set. */
static int64_t new_node(struct st *st, char kind, uint64_t guid,
			uint32_t nports, const char *d, size_t dlen,
			uint32_t line)
{
	struct inode *nd;

	if (st->nn == st->ncap) {
		uint32_t cap = st->ncap ? 2 * st->ncap : 64;
		struct inode *n = realloc(st->n, cap * sizeof(*n));

		if (!n)
			return perr_nomem(st, line);
		st->n = n;
		st->ncap = cap;
	}
	nd = &st->n[st->nn];
	*nd = (struct inode){ .kind = kind,
			      .guid = guid,
			      .sysimg = st->sysimg,
			      .nports = nports,
			      .line = line,
			      .file = st->file,
			      .sw = -1,
			      .node = UINT32_MAX };
	nd->desc = d ? strndup(d, dlen) : strdup("");
	st->sysimg = 0;
	if (!nd->desc || ht_insert(st, st->nn)) {
		free(nd->desc);
		return perr_nomem(st, line);
	}
	return st->nn++;
}

/* "Switch N "S-GUID" # "desc" ..." (S after the keyword). */
static int parse_record(struct st *st, const char *s, char kind, uint32_t line)
{
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
			    "%c-%016llx described twice (first on %s%sline "
			    "%u)",
			    kind, (unsigned long long)guid,
			    st->n[prev].file != st->file ?
				    nfile(st, &st->n[prev]) :
				    "",
			    st->n[prev].file != st->file ? ":" : "",
			    st->n[prev].line);
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
	return new_node(st, kind, guid, nports, d, d ? (size_t)(e - d) : 0,
			line) < 0 ?
		       -1 :
		       0;
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

/* Width W and lane speed name P..END into *RATE; 0 or -1 with the error
 * set (PORT for the message). */
static int width_speed(struct st *st, uint32_t width, const char *p,
		       const char *end, uint32_t port, uint32_t lineno,
		       double *rate)
{
	if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12)
		return perr(st, lineno,
			    "port %u: bad link width %ux (want 1x, 2x, 4x, "
			    "8x or 12x)",
			    port, width);
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
	return width_speed(st, width, p + 1, end, port, lineno, rate);
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

/* Add port PT to node ND (no port given twice).  0 or -1. */
static int add_port(struct st *st, struct inode *nd, const struct iport *pt)
{
	for (uint32_t i = 0; i < nd->np; i++)
		if (nd->ports[i].port == pt->port)
			return perr(st, pt->line,
				    "port %u given twice (first on line %u)",
				    pt->port, nd->ports[i].line);
	if (nd->np == nd->pcap) {
		uint32_t cap = nd->pcap ? 2 * nd->pcap : 8;
		struct iport *p = realloc(nd->ports, cap * sizeof(*p));

		if (!p)
			return perr_nomem(st, pt->line);
		nd->ports = p;
		nd->pcap = cap;
	}
	nd->ports[nd->np++] = *pt;
	return 0;
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
	if (!nd || nd->file != st->file || nd->ports_fmt)
		return perr(st, lineno,
			    "port line before any Switch, Ca or "
			    "Rt line");
	if (*s == '(') {
		s++;
		if (import_get_hex(&s, &pt.pguid) || *s != ')')
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
	return add_port(st, nd, &pt);
}

/* ---- the ports report (ibnetdiscover -p) ---- */

/* One end of a ports-report line: "SW 18 36 0x00066a00ec002dd9". */
struct pend {
	char kind;
	uint32_t lid, port;
	uint64_t guid;
};

/* "SW"/"CA"/"RT", LID, PORT, GUID at *S into E.  0 or -1. */
static int get_pend(const char **s, struct pend *e)
{
	const char *p = skipb(*s);

	e->kind = !strncmp(p, "SW", 2) ? 'S' :
		  !strncmp(p, "CA", 2) ? 'H' :
		  !strncmp(p, "RT", 2) ? 'R' :
					 0;
	if (!e->kind || (p[2] != ' ' && p[2] != '\t'))
		return -1;
	p = skipb(p + 2);
	if (get_u32(&p, &e->lid))
		return -1;
	p = skipb(p);
	if (get_u32(&p, &e->port))
		return -1;
	p = skipb(p);
	if (import_get_hex(&p, &e->guid))
		return -1;
	*s = p;
	return 0;
}

/* A single-quoted description at *S into D, LEN.  0 or -1. */
static int get_sdesc(const char **s, const char **d, size_t *len)
{
	const char *p = skipb(*s), *e;

	if (*p != '\'')
		return -1;
	e = strchr(p + 1, '\'');
	if (!e)
		return -1;
	*d = p + 1;
	*len = (size_t)(e - p - 1);
	*s = e + 1;
	return 0;
}

/* The node of end E, made from its first line when new. */
static int64_t pnode(struct st *st, const struct pend *e, const char *d,
		     size_t dlen, uint32_t line)
{
	int64_t i = lookup(st, e->guid);

	if (i >= 0) {
		if (st->n[i].kind != e->kind)
			return perr(st, line,
				    "%c-%016llx is a %s here but a %s on "
				    "line %u",
				    e->kind, (unsigned long long)e->guid,
				    kind_word(e->kind),
				    kind_word(st->n[i].kind), st->n[i].line);
		if (!st->n[i].ports_fmt)
			return perr(st, line,
				    "%c-%016llx described twice (first on "
				    "line %u)",
				    e->kind, (unsigned long long)e->guid,
				    st->n[i].line);
	} else {
		i = new_node(st, e->kind, e->guid, 0, d, dlen, line);
		if (i >= 0)
			st->n[i].ports_fmt = true;
	}
	if (i >= 0 && e->port > st->n[i].nports)
		st->n[i].nports = e->port;
	return i;
}

/* "SW 18 36 GUID 4x QDR - SW 2 19 GUID ( 'a' - 'b' )", or without the
 * peer ("SW 18 1 GUID 4x SDR 'a'": an unconnected port). */
static int parse_pline(struct st *st, const char *line, uint32_t lineno)
{
	static const char want[] = "bad ports-report line (want TYPE LID "
				   "PORT GUID WIDTH SPEED - TYPE LID PORT "
				   "GUID ( 'desc' - 'desc' ))";
	const char *s = line, *sp, *d1 = NULL, *d2 = NULL;
	struct pend a, b;
	size_t l1 = 0, l2 = 0;
	uint32_t width;
	struct iport pt = { .line = lineno };
	int64_t i, j;

	if (get_pend(&s, &a))
		return perr(st, lineno, want);
	s = skipb(s);
	if (get_u32(&s, &width) || *s != 'x')
		return perr(st, lineno, want);
	s = skipb(s + 1);
	for (sp = s; isalnum((unsigned char)*s); s++)
		;
	if (s == sp)
		return perr(st, lineno, want);
	pt.port = a.port;
	if (width_speed(st, width, sp, s, a.port, lineno, &pt.rate))
		return -1;
	s = skipb(s);
	if (*s == '\'') { /* unconnected */
		if (get_sdesc(&s, &d1, &l1))
			return perr(st, lineno, want);
		return pnode(st, &a, d1, l1, lineno) < 0 ? -1 : 0;
	}
	if (*s != '-')
		return perr(st, lineno, want);
	s++;
	if (get_pend(&s, &b))
		return perr(st, lineno, want);
	s = skipb(s);
	if (*s != '(')
		return perr(st, lineno, want);
	s++;
	if (get_sdesc(&s, &d1, &l1) || (s = skipb(s), *s != '-'))
		return perr(st, lineno, want);
	s++;
	if (get_sdesc(&s, &d2, &l2) || (s = skipb(s), *s != ')'))
		return perr(st, lineno, want);
	i = pnode(st, &a, d1, l1, lineno);
	j = i < 0 ? -1 : pnode(st, &b, d2, l2, lineno);
	if (j < 0)
		return -1;
	pt.rport = b.port;
	pt.rguid = b.guid;
	pt.rkind = b.kind;
	pt.pguid = a.kind == 'H' ? a.guid : 0;
	return add_port(st, &st->n[i], &pt);
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
		if (import_get_hex(&v, &x))
			return perr(st, lineno,
				    "bad number in %.*s=", (int)klen, s);
		if (i == 2)
			st->sysimg = x;
		return 0;
	}
	return perr(st, lineno, "unknown key '%.*s'", (int)klen, s);
}

/* Whether P starts a ports-report line ("SW", "CA" or "RT" and a LID). */
static bool ports_line(const char *p)
{
	return (!strncmp(p, "SW", 2) || !strncmp(p, "CA", 2) ||
		!strncmp(p, "RT", 2)) &&
	       (p[2] == ' ' || p[2] == '\t') &&
	       isdigit((unsigned char)*skipb(p + 2));
}

static int parse_line(struct st *st, char *s, uint32_t lineno)
{
	size_t n = strlen(s);
	const char *p;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	p = skipb(s);
	if (!*p || *p == '#' || !strncmp(p, "Chassis ", 8) ||
	    !strcmp(p, "Non-Chassis Nodes") || !strncmp(p, "DR path ", 8))
		return 0;
	if (*p == '[')
		return parse_port(st, p, lineno);
	if (ports_line(p))
		return parse_pline(st, p, lineno);
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
		    "line, a ports-report line (ibnetdiscover -p), "
		    "KEY=VALUE or a # comment)");
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

		st->path = nfile(st, a);
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

/* ---- switch names ---- */

/* What a switch's description says. */
struct swdesc {
	char *name;	  /* candidate name (new string) or NULL */
	char *chassis;	  /* a director chip's chassis, else NULL */
	char *chip;	  /* its chip (L112, L05-U1) */
	const char *role; /* "leaf", "spine" or NULL */
};

static void swdesc_free(struct swdesc *d)
{
	free(d->name);
	free(d->chassis);
	free(d->chip);
}

/* Whether W..W+N is a director chip: L or S, digits, an optional letter
 * (L112, S201A, L05). */
static bool chip_word(const char *w, size_t n)
{
	size_t i = 1;

	if (n < 2 || (w[0] != 'L' && w[0] != 'S'))
		return false;
	while (i < n && isdigit((unsigned char)w[i]))
		i++;
	if (i == 1)
		return false;
	if (i < n && isupper((unsigned char)w[i]))
		i++;
	return i == n;
}

/* A director chip: "... GUID=0xCHASSIS L112" (QLogic) or
 * "MF0;CHASSIS:MODEL/L05/U1" (Mellanox).  Fills D's chassis and chip. */
static void director_chip(const char *desc, struct swdesc *d)
{
	const char *g = strstr(desc, "GUID=0x"), *w, *end;

	end = desc + strlen(desc);
	if (g) {
		for (w = end; w > desc && w[-1] != ' '; w--)
			;
		if (w > g && chip_word(w, (size_t)(end - w))) {
			const char *h = g + 7;
			size_t hl = strspn(h, "0123456789abcdefABCDEF");

			d->chassis = strndup(h, hl);
			d->chip = strndup(w, (size_t)(end - w));
		}
	} else if (!strncmp(desc, "MF0;", 4) && (g = strchr(desc + 4, ':')) &&
		   (w = strchr(g, '/')) &&
		   chip_word(w + 1, strcspn(w + 1, "/"))) {
		d->chassis = strndup(desc + 4, (size_t)(g - desc - 4));
		d->chip = strdup(w + 1);
		for (char *p = d->chip; p && *p; p++)
			if (*p == '/')
				*p = '-';
	}
	if (d->chip)
		d->role = d->chip[0] == 'L' ? "leaf" : "spine";
}

/* The name a switch's description gives: "MF0;NAME:..." -> NAME, else
 * the whole description; NULL when not usable. */
static char *desc_name(const char *desc)
{
	const char *b = desc, *e = desc + strlen(desc);
	char *s;

	if (!strncmp(desc, "MF0;", 4) && strchr(desc + 4, ':')) {
		b = desc + 4;
		e = strchr(b, ':');
	}
	s = strndup(b, (size_t)(e - b));
	if (s && !import_switch_name_ok(s)) {
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

/* Mark in DUP the switches whose candidate name in D is not unique
 * (O(S log S): sorted by name). */
static int mark_dups(const struct st *st, struct swdesc *d, bool *dup)
{
	const char **names = calloc(st->nn + 1, sizeof(*names));
	uint32_t *ord = malloc(((size_t)st->nn + 1) * sizeof(*ord)), no = 0;

	if (!names || !ord) {
		free(names);
		free(ord);
		return -1;
	}
	for (uint32_t i = 0; i < st->nn; i++) {
		dup[i] = false;
		if (d[i].name) {
			names[i] = d[i].name;
			ord[no++] = i;
		}
	}
	sort_names = names;
	if (no)
		qsort(ord, no, sizeof(*ord), cmp_by_name);
	for (uint32_t k = 1; k < no; k++)
		if (!strcmp(names[ord[k - 1]], names[ord[k]]))
			dup[ord[k - 1]] = dup[ord[k]] = true;
	free(names);
	free(ord);
	return 0;
}

/* Candidate names: chips by their chip (by chassis and chip where two
 * chassis share it), others by their description. */
static int switch_candidates(struct st *st, struct swdesc *d, bool *dup)
{
	for (uint32_t i = 0; i < st->nn; i++) {
		if (st->n[i].kind != 'S')
			continue;
		director_chip(st->n[i].desc, &d[i]);
		d[i].name = d[i].chip ? strdup(d[i].chip) :
					desc_name(st->n[i].desc);
		if (d[i].name && guid_like(d[i].name)) {
			free(d[i].name);
			d[i].name = NULL;
		}
	}
	if (mark_dups(st, d, dup))
		return -1;
	for (uint32_t i = 0; i < st->nn; i++) {
		char buf[300];

		if (!dup[i] || !d[i].chip)
			continue;
		snprintf(buf, sizeof(buf), "%.*s-%s",
			 strlen(d[i].chassis) == 16 ? 8 : 200,
			 d[i].chassis + (strlen(d[i].chassis) == 16 ? 8 : 0),
			 d[i].chip);
		free(d[i].name);
		d[i].name = import_switch_name_ok(buf) ? strdup(buf) : NULL;
	}
	return mark_dups(st, d, dup);
}

/* Each switch's name (switch_candidates), else its GUID name; one warning
 * says how many were named by GUID and why. */
static int name_switches(struct st *st, struct import_fabric *f)
{
	struct swdesc *d = calloc(st->nn + 1, sizeof(*d));
	bool *dup = calloc(st->nn + 1, sizeof(*dup));
	uint32_t nguid = 0, first = UINT32_MAX;
	int rc = 0;

	if (!d || !dup || switch_candidates(st, d, dup)) {
		rc = err_nomem(st->err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < st->nn && !rc; i++) {
		struct inode *nd = &st->n[i];
		char guid[24], note[400];
		bool uniq = d[i].name != NULL && !dup[i];

		if (nd->kind != 'S')
			continue;
		snprintf(guid, sizeof(guid), "S-%016llx",
			 (unsigned long long)nd->guid);
		if (d[i].chip)
			snprintf(note, sizeof(note), "%s chassis %s %s %s",
				 guid, d[i].chassis, d[i].role, d[i].chip);
		else if (uniq)
			snprintf(note, sizeof(note), "%s", guid);
		else
			snprintf(note, sizeof(note), "\"%s\"", nd->desc);
		nd->sw = fabric_add_switch(f, uniq ? d[i].name : guid, note);
		if (nd->sw < 0)
			rc = err_nomem(st->err, "out of memory");
		if (!uniq && !nguid++)
			first = i;
	}
	if (!rc && nguid &&
	    fabric_warn(f,
			"%s:%u: %u switch%s named by GUID (S-%016llx, ...): "
			"descriptions not unique or not names (\"%s\")",
			nfile(st, &st->n[first]), st->n[first].line, nguid,
			nguid == 1 ? "" : "es",
			(unsigned long long)st->n[first].guid,
			st->n[first].desc))
		rc = err_nomem(st->err, "out of memory");
out:
	for (uint32_t i = 0; d && i < st->nn; i++)
		swdesc_free(&d[i]);
	free(d);
	free(dup);
	return rc;
}

/* ---- node names ---- */

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

/* Whether DESC is a vendor's default description (a chip or vendor name
 * where a host name belongs): its first word MT and digits, or a vendor's
 * name in it. */
static bool vendor_default(const char *desc)
{
	static const char *const vendors[] = { "Mellanox", "ConnectX", "QLogic",
					       "Intel", "localhost" };
	size_t n = strcspn(desc, " \t");

	if (n > 2 && !strncmp(desc, "MT", 2) &&
	    strspn(desc + 2, "0123456789") == n - 2)
		return true;
	for (size_t i = 0; i < sizeof(vendors) / sizeof(*vendors); i++)
		if (strstr(desc, vendors[i]))
			return true;
	return false;
}

/* How the HCAs were named (the summary warnings). */
enum how { BY_MAP, BY_DESC, BY_GUID, NHOW };

struct naming {
	uint32_t count[NHOW];
	uint32_t first[NHOW]; /* node index of the first so named */
	uint32_t *same;	      /* [nn] HCAs with the same description */
};

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(sort_names[*(const uint32_t *)a],
		      sort_names[*(const uint32_t *)b]);
}

/* For every HCA, how many HCAs have its description (N->same). */
static int count_descs(const struct st *st, struct naming *nm)
{
	const char **d = calloc(st->nn + 1, sizeof(*d));
	uint32_t *ord = malloc(((size_t)st->nn + 1) * sizeof(*ord)), no = 0;

	nm->same = calloc(st->nn + 1, sizeof(*nm->same));
	if (!d || !ord || !nm->same) {
		free(d);
		free(ord);
		return -1;
	}
	for (uint32_t i = 0; i < st->nn; i++)
		if (st->n[i].kind == 'H') {
			d[i] = st->n[i].desc;
			ord[no++] = i;
		}
	sort_names = d;
	if (no)
		qsort(ord, no, sizeof(*ord), cmp_desc);
	for (uint32_t a = 0, b; a < no; a = b) {
		for (b = a; b < no && !strcmp(d[ord[a]], d[ord[b]]); b++)
			;
		for (uint32_t k = a; k < b; k++)
			nm->same[ord[k]] = b - a;
	}
	free(d);
	free(ord);
	return 0;
}

/* The node name of HCA ND (index I) into *NAME (a new string): from the
 * map, else its description when it names a host (a usable first word,
 * not a vendor default, no more than one other HCA with the same
 * description: a host's two ports), else its GUID. */
static int node_name(struct st *st, struct naming *nm, uint32_t i, char **name)
{
	const struct inode *nd = &st->n[i];
	const char *h = map_find(st, nd->guid);
	size_t n = strcspn(nd->desc, " \t");
	enum how how = BY_MAP;

	for (uint32_t k = 0; !h && k < nd->np; k++)
		h = map_find(st, nd->ports[k].pguid);
	if (!h)
		h = map_find(st, nd->sysimg);
	if (h) {
		*name = strdup(h);
	} else {
		*name = strndup(nd->desc, n);
		how = BY_DESC;
		if (*name && (!import_name_ok(*name) ||
			      vendor_default(nd->desc) || nm->same[i] > 2)) {
			char g[40];

			snprintf(g, sizeof(g), "H-%08llx-%08llx",
				 (unsigned long long)(nd->guid >> 32),
				 (unsigned long long)(nd->guid & 0xffffffff));
			free(*name);
			*name = strdup(g);
			how = BY_GUID;
		}
	}
	if (!*name)
		return err_nomem(st->err, "out of memory");
	if (!nm->count[how]++)
		nm->first[how] = i;
	return 0;
}

/* The summary of how the HCAs were named. */
static int naming_warnings(struct st *st, struct import_fabric *f,
			   const struct naming *nm)
{
	uint32_t g = nm->count[BY_GUID], d = nm->count[BY_DESC];
	const struct inode *ng = &st->n[nm->first[BY_GUID]];

	if (g &&
	    fabric_warn(f,
			"%s: %u HCA%s named by GUID (H-%08llx-%08llx, ...): "
			"%s (\"%s\" on %u); give --guids MAP",
			nfile(st, ng), g, g == 1 ? "" : "s",
			(unsigned long long)(ng->guid >> 32),
			(unsigned long long)(ng->guid & 0xffffffff),
			st->map ? "not in the map, and their descriptions do "
				  "not name hosts" :
				  "their descriptions do not name hosts",
			ng->desc, nm->same[nm->first[BY_GUID]]))
		return -1;
	if (st->map && d &&
	    fabric_warn(f,
			"%s: %u HCA%s not in %s: named from their "
			"descriptions (\"%s\", ...)",
			nfile(st, &st->n[nm->first[BY_DESC]]), d,
			d == 1 ? "" : "s", st->mappath,
			st->n[nm->first[BY_DESC]].desc))
		return -1;
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

/* HCA I: its first port cabled to a switch into *AT (warnings for the
 * others and for links to HCAs or routers).  1 when it has none. */
static int attach_of(struct st *st, struct import_fabric *f, uint32_t i,
		     struct naming *nm, char **names, struct attach *at)
{
	const struct inode *nd = &st->n[i];
	const struct iport *first = NULL;
	uint32_t sw1 = 0;

	st->path = nfile(st, nd);
	for (uint32_t k = 0; k < nd->np; k++) {
		const struct iport *e = &nd->ports[k];
		const struct inode *r = &st->n[lookup(st, e->rguid)];

		if (e->rkind != 'S') {
			if (fabric_warn(f,
					"%s:%u: port %u: link to a %s skipped "
					"(only switch links attach nodes)",
					st->path, e->line, e->port,
					e->rkind == 'H' ? "HCA" : "router"))
				return err_nomem(st->err, "out of memory");
		} else if (!first) {
			first = e;
			sw1 = (uint32_t)r->sw;
		} else {
			if (!names[i] && node_name(st, nm, i, &names[i]))
				return -1;
			if (fabric_warn(f,
					"%s:%u: %s: HCA port %u is also cabled "
					"(to %s port %u); a node has one "
					"switch in topo.conf: kept port %u's "
					"switch %s",
					st->path, e->line, names[i], e->port,
					f->sw[r->sw].name, e->rport,
					first->port, f->sw[sw1].name))
				return err_nomem(st->err, "out of memory");
		}
	}
	if (!first)
		return 1;
	if (!names[i] && node_name(st, nm, i, &names[i]))
		return -1;
	*at = (struct attach){ .name = names[i],
			       .sw = sw1,
			       .swport = first->rport,
			       .line = nd->line,
			       .ca = i,
			       .rate = first->rate };
	return 0;
}

/* Keep the first HCA of each name (one warning for the others), then add
 * the nodes in switch and port order. */
static int place_nodes(struct st *st, struct import_fabric *f,
		       struct attach *at, uint32_t na)
{
	uint32_t kept = 0, dups = 0, d1 = 0;

	if (na)
		qsort(at, na, sizeof(*at), cmp_attach_name);
	for (uint32_t i = 0; i < na; i++) {
		if (kept && !strcmp(at[kept - 1].name, at[i].name)) {
			if (!dups++)
				d1 = i;
			continue;
		}
		at[kept++] = at[i];
	}
	if (dups && fabric_warn(f,
				"%s:%u: %u HCA%s named like an earlier one "
				"(H-%016llx is %s like the HCA of line %u, "
				"...): kept the first of each name",
				nfile(st, &st->n[at[d1].ca]), at[d1].line, dups,
				dups == 1 ? "" : "s",
				(unsigned long long)st->n[at[d1].ca].guid,
				at[d1].name, st->n[at[d1].ca].line))
		return err_nomem(st->err, "out of memory");
	if (kept)
		qsort(at, kept, sizeof(*at), cmp_attach_port);
	for (uint32_t i = 0; i < kept; i++) {
		st->n[at[i].ca].node = f->nnodes;
		if (fabric_add_node(f, at[i].sw, at[i].name, at[i].rate))
			return err_nomem(st->err, "out of memory");
	}
	for (uint32_t i = 1; i < kept; i++)
		if (at[i].rate != at[0].rate) {
			if (fabric_warn(f,
					"%s: node links run at several rates "
					"(%g and %g Gb/s, ...): inject= is "
					"the most common",
					st->files[0], at[0].rate, at[i].rate))
				return err_nomem(st->err, "out of memory");
			break;
		}
	return 0;
}

static int add_nodes(struct st *st, struct import_fabric *f)
{
	struct attach *at = calloc(st->nn + 1, sizeof(*at));
	char **names = calloc(st->nn + 1, sizeof(*names));
	struct naming nm = { .same = NULL };
	uint32_t na = 0;
	int rc = 0;

	if (!at || !names || count_descs(st, &nm)) {
		rc = err_nomem(st->err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < st->nn && rc >= 0; i++) {
		if (st->n[i].kind == 'R') {
			st->path = nfile(st, &st->n[i]);
			if (fabric_warn(f, "%s:%u: router R-%016llx skipped",
					st->path, st->n[i].line,
					(unsigned long long)st->n[i].guid))
				rc = err_nomem(st->err, "out of memory");
			continue;
		}
		if (st->n[i].kind != 'H')
			continue;
		rc = attach_of(st, f, i, &nm, names, &at[na]);
		if (rc == 0)
			na++;
	}
	if (rc < 0)
		goto out;
	rc = naming_warnings(st, f, &nm) ? err_nomem(st->err, "out of memory") :
					   place_nodes(st, f, at, na);
out:
	for (uint32_t i = 0; names && i < st->nn; i++)
		free(names[i]);
	free(names);
	free(at);
	free(nm.same);
	return rc;
}

static int add_cables(struct st *st, struct import_fabric *f)
{
	for (uint32_t i = 0; i < st->nn; i++) {
		struct inode *a = &st->n[i];

		if (a->kind != 'S')
			continue;
		st->path = nfile(st, a);
		for (uint32_t k = 0; k < a->np; k++) {
			struct iport *e = &a->ports[k];
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
					return err_nomem(st->err,
							 "out of memory");
				e->cable = UINT32_MAX;
				continue;
			}
			if ((uint32_t)j < i) { /* added from the other end */
				const struct iport *r =
					find_port(&st->n[j], e->rport);

				e->cable = r->cable;
				continue;
			}
			e->cable = f->ncab;
			if (fabric_add_cable(f, (uint32_t)a->sw,
					     (uint32_t)st->n[j].sw, e->rate))
				return err_nomem(st->err, "out of memory");
		}
	}
	return 0;
}

/* ---- the --guids map ---- */

static int cmp_gent(const void *a, const void *b)
{
	const struct gent *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (x->line > y->line) - (x->line < y->line);
}

/* W as a map GUID: optional "0x" or "H-", 1 to 16 hex digits; 0 with
 * *GUID, else -1. */
static int map_guid(const char *w, uint64_t *guid)
{
	const char *p = w + (!strncmp(w, "H-", 2) ? 2 : 0);

	return import_get_hex(&p, guid) || *p || !*guid ? -1 : 0;
}

/* Whether W is a GUID at first sight: "0x" or "H-" before it, or 16 hex
 * digits. */
static bool guid_first(const char *w)
{
	uint64_t g;

	return (!strncmp(w, "H-", 2) || !strncasecmp(w, "0x", 2) ||
		strlen(w) == 16) &&
	       !map_guid(w, &g);
}

/* One map line's two words W[0], W[1]: HOST GUID, or GUID HOST when the
 * first word is plainly a GUID and the second is not (a HOST in double
 * quotes, as OpenSM's node name map writes it, is unquoted). */
static int map_line(struct st *st, const char *path, uint32_t lineno, char **w,
		    uint64_t *guid, const char **host)
{
	int gfirst = guid_first(w[0]) && !guid_first(w[1]);
	char *h = w[gfirst], *g = w[!gfirst];
	size_t n = strlen(h);

	if (map_guid(g, guid))
		return err_set(st->err,
			       "%s:%u: bad GUID '%s' (want up to 16 "
			       "hexadecimal digits, 0x or H- optional)",
			       path, lineno, g);
	if (n > 1 && h[0] == '"' && h[n - 1] == '"') {
		h[n - 1] = '\0';
		h++;
	}
	if (!import_name_ok(h))
		return err_set(st->err, "%s:%u: bad host name '%s'", path,
			       lineno, h);
	*host = h;
	return 0;
}

/* The --guids file: "HOST GUID" or "GUID HOST" lines, # comments. */
static int read_map(struct st *st, const char *path)
{
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0, mcap = 0;
	int rc = 0;

	if (!fp)
		return err_sys(st->err, errno, "%s: cannot open: %s", path,
			       strerror(errno));
	st->mappath = path;
	while (!rc && getline(&line, &cap, fp) >= 0) {
		char *c = strchr(line, '#'), *w[3], *save = NULL;
		const char *host = NULL;
		uint64_t guid = 0;
		int nw = 0;

		lineno++;
		if (c)
			*c = '\0';
		for (char *t = strtok_r(line, " \t\r\n", &save); t && nw < 3;
		     t = strtok_r(NULL, " \t\r\n", &save))
			w[nw++] = t;
		if (!nw)
			continue;
		if (nw != 2)
			rc = err_set(st->err,
				     "%s:%u: expected 'HOST GUID' or 'GUID "
				     "HOST'",
				     path, lineno);
		else
			rc = map_line(st, path, lineno, w, &guid, &host);
		if (rc)
			break;
		if (st->nmap == mcap) {
			struct gent *m;

			mcap = mcap ? 2 * mcap : 64;
			m = realloc(st->map, mcap * sizeof(*m));
			if (!m) {
				rc = err_nomem(st->err, "out of memory");
				break;
			}
			st->map = m;
		}
		st->map[st->nmap].host = strdup(host);
		st->map[st->nmap].guid = guid;
		st->map[st->nmap].line = lineno;
		if (!st->map[st->nmap++].host)
			rc = err_nomem(st->err, "out of memory");
	}
	free(line);
	if (!rc && ferror(fp)) /* a directory: EISDIR */
		rc = err_sys(st->err, errno, "%s: %s", path, strerror(errno));
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
	free(st->sw_node);
	free(st->pg);
}

/* ---- files and subnets ---- */

static int ibnet_line(void *ctx, char *line, uint32_t lineno)
{
	return parse_line(ctx, line, lineno);
}

/* Read the file st->path (index st->file).  0 or -1. */
static int read_file(struct st *st)
{
	return import_each_line(st->path, ibnet_line, st, &st->lastline,
				st->err);
}

/* The switch graph of F in several parts: "FILES: the switches form N
 * parts" (subnets that share no switch). */
static int check_joined(struct st *st, const struct import_fabric *f)
{
	uint32_t *par = malloc(((size_t)f->nsw + 1) * sizeof(*par)), parts = 0;

	if (!par)
		return err_nomem(st->err, "out of memory");
	for (uint32_t s = 0; s < f->nsw; s++)
		par[s] = s;
	for (uint32_t c = 0; c < f->ncab; c++) {
		uint32_t a = f->cab[c].a, b = f->cab[c].b;

		while (par[a] != a)
			a = par[a] = par[par[a]];
		while (par[b] != b)
			b = par[b] = par[par[b]];
		par[a] = b;
	}
	for (uint32_t s = 0; s < f->nsw; s++)
		parts += par[s] == s;
	free(par);
	if (parts <= 1)
		return 0;
	return err_set(st->err,
		       "%s%s: the switches form %u parts that no cable joins "
		       "(%s): a topo.conf is one fabric%s",
		       st->files[0], st->nfiles > 1 ? ", ..." : "", parts,
		       st->nfiles > 1 ? "separate subnets" :
					"is the discovery complete?",
		       st->nfiles > 1 ? "; give --subnet ID" : "");
}

/* A CA port GUID of every HCA, sorted (for the forwarding tables, which
 * name destinations by port GUID). */
static int cmp_pg(const void *a, const void *b)
{
	uint64_t x = ((const struct pg *)a)->pguid,
		 y = ((const struct pg *)b)->pguid;

	return (x > y) - (x < y);
}

static int index_ports(struct st *st, const struct import_fabric *f)
{
	uint32_t n = 0;

	st->sw_node = malloc(((size_t)f->nsw + 1) * sizeof(*st->sw_node));
	for (uint32_t i = 0; i < st->nn; i++)
		n += st->n[i].kind == 'H' ? st->n[i].np + 1 : 0;
	st->pg = malloc(((size_t)n + 1) * sizeof(*st->pg));
	if (!st->sw_node || !st->pg)
		return err_nomem(st->err, "out of memory");
	for (uint32_t i = 0; i < st->nn; i++) {
		const struct inode *nd = &st->n[i];

		if (nd->kind == 'S') {
			st->sw_node[nd->sw] = i;
			continue;
		}
		if (nd->kind != 'H')
			continue;
		st->pg[st->npg++] = (struct pg){ nd->guid, i };
		for (uint32_t k = 0; k < nd->np; k++)
			if (nd->ports[k].pguid)
				st->pg[st->npg++] =
					(struct pg){ nd->ports[k].pguid, i };
	}
	if (st->npg)
		qsort(st->pg, st->npg, sizeof(*st->pg), cmp_pg);
	return 0;
}

int64_t ib_switch(const struct ib_view *v, uint64_t guid)
{
	const struct st *st = (const struct st *)v;
	int64_t i = lookup(st, guid);

	return i >= 0 && st->n[i].kind == 'S' ? st->n[i].sw : -1;
}

int64_t ib_node(const struct ib_view *v, uint64_t pguid)
{
	const struct st *st = (const struct st *)v;
	uint32_t lo = 0, hi = st->npg;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (st->pg[mid].pguid == pguid) {
			uint32_t node = st->n[st->pg[mid].node].node;

			return node == UINT32_MAX ? -1 : (int64_t)node;
		}
		if (st->pg[mid].pguid < pguid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

int ib_port(const struct ib_view *v, uint32_t sw, uint32_t port,
	    uint32_t *cable, uint32_t *node)
{
	const struct st *st = (const struct st *)v;
	const struct inode *nd = &st->n[st->sw_node[sw]];
	const struct iport *p = find_port(nd, port);
	int64_t r;

	*cable = *node = UINT32_MAX;
	if (!p)
		return -1;
	if (p->rkind == 'S') {
		*cable = p->cable;
		return 0;
	}
	r = lookup(st, p->rguid);
	if (r >= 0)
		*node = st->n[r].node;
	return 0;
}

const char *ib_switch_desc(const struct ib_view *v, uint32_t sw)
{
	const struct st *st = (const struct st *)v;

	return st->n[st->sw_node[sw]].desc;
}

/* Whether NAME is an ib-subnet-ID.txt file of subnet SUBNET (or any). */
static bool subnet_file(const char *name, const char *subnet)
{
	size_t n = strlen(name);

	if (strncmp(name, "ib-subnet-", 10) || n < 15 ||
	    strcmp(name + n - 4, ".txt"))
		return false;
	return !subnet || (strlen(subnet) == n - 14 &&
			   !strncmp(name + 10, subnet, n - 14));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append P (taken; NULL: out of memory) to *V of *N (room *CAP, kept
 * NULL-terminated).  0 or -1 with err set. */
static int push_path(struct st *st, char ***v, size_t *n, size_t *cap, char *p)
{
	if (*n + 2 > *cap) {
		char **w = realloc(*v, (*cap = 2 * *cap + 8) * sizeof(*w));

		if (!w) {
			free(p);
			return err_nomem(st->err, "out of memory");
		}
		*v = w;
	}
	(*v)[(*n)++] = p;
	(*v)[*n] = NULL;
	return p ? 0 : err_nomem(st->err, "out of memory");
}

/* The input files: each path, a directory standing for its
 * ib-subnet-*.txt files (netloc's layout); with SUBNET only that
 * subnet's (its ID, or its 1-based position among the files).  A new
 * NULL-terminated array of new strings in *OUT; 0 or -1. */
static int input_files(struct st *st, const char *const *paths, size_t np,
		       const char *subnet, char ***out)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	for (size_t i = 0; i < np && !rc; i++) {
		DIR *d = opendir(paths[i]);
		struct dirent *e;
		size_t first = n, dlen = strlen(paths[i]);

		while (dlen > 1 && paths[i][dlen - 1] == '/')
			dlen--;
		if (!d) {
			rc = push_path(st, &v, &n, &cap, strdup(paths[i]));
			continue;
		}
		while ((e = readdir(d)) && !rc) {
			char *p;

			if (!subnet_file(e->d_name, NULL))
				continue;
			if (asprintf(&p, "%.*s/%s", (int)dlen, paths[i],
				     e->d_name) < 0)
				p = NULL;
			rc = push_path(st, &v, &n, &cap, p);
		}
		closedir(d);
		if (!rc && n == first)
			rc = err_set(st->err,
				     "%s: no ib-subnet-ID.txt files in the "
				     "directory",
				     paths[i]);
		else if (n > first + 1)
			qsort(v + first, n - first, sizeof(*v), cmp_str);
	}
	if (!rc && subnet) {
		char *end;
		unsigned long k = strtoul(subnet, &end, 10);
		size_t kept = 0;

		for (size_t i = 0; i < n; i++) {
			const char *b = strrchr(v[i], '/');
			bool keep = (!*end && k == i + 1) ||
				    subnet_file(b ? b + 1 : v[i], subnet);

			if (keep)
				v[kept++] = v[i];
			else
				free(v[i]);
		}
		n = kept;
		if (v)
			v[n] = NULL;
		if (!n)
			rc = err_set(st->err,
				     "--subnet %s: no such subnet among the "
				     "files (an ID of ib-subnet-ID.txt, or a "
				     "position from 1)",
				     subnet);
	}
	if (rc) {
		for (size_t i = 0; v && i < n; i++)
			free(v[i]);
		free(v);
		return -1;
	}
	*out = v;
	return 0;
}

struct import_fabric *import_ibnet(const char *const *paths, size_t np,
				   const struct import_ib_opts *o,
				   struct err *err)
{
	struct st st = { .err = err };
	struct import_fabric *f = NULL;
	char **files = NULL;
	uint32_t nsw = 0;

	if ((o->guids && read_map(&st, o->guids)) ||
	    input_files(&st, paths, np, o->subnet, &files))
		goto fail;
	st.files = (const char **)files;
	while (files[st.nfiles])
		st.nfiles++;
	for (st.file = 0; st.file < st.nfiles; st.file++) {
		st.path = files[st.file];
		if (read_file(&st))
			goto fail;
	}
	if (check_links(&st))
		goto fail;
	for (uint32_t i = 0; i < st.nn; i++)
		nsw += st.n[i].kind == 'S';
	st.path = files[st.nfiles - 1];
	if (!nsw) {
		perr(&st, st.lastline,
		     "no Switch records (is this ibnetdiscover output?)");
		goto fail;
	}
	f = fabric_new("ibnetdiscover", files[0]);
	if (!f) {
		err_nomem(err, "out of memory");
		goto fail;
	}
	f->rated = true;
	if (name_switches(&st, f) || add_cables(&st, f) || add_nodes(&st, f))
		goto fail;
	if (!f->nnodes) {
		st.path = files[st.nfiles - 1];
		perr(&st, st.lastline,
		     "no compute nodes: no HCA is cabled to a switch");
		goto fail;
	}
	if (check_joined(&st, f))
		goto fail;
	if (o->lft && o->lft[0] &&
	    (index_ports(&st, f) ||
	     import_lft_read(f, (const struct ib_view *)&st, o->lft, err)))
		goto fail;
	st_free(&st);
	for (uint32_t i = 0; i < st.nfiles; i++)
		free(files[i]);
	free(files);
	return f;
fail:
	import_destroy(f);
	st_free(&st);
	for (uint32_t i = 0; files && files[i]; i++)
		free(files[i]);
	free(files);
	return NULL;
}

struct import_fabric *import_ibnetdiscover(const char *path, const char *map,
					   struct err *err)
{
	struct import_ib_opts o = { .guids = map };

	return import_ibnet(&path, 1, &o, err);
}
