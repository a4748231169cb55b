/* import_lft.c - the switches' unicast forwarding tables (LFTs), as
 * ibroute and dump_lfts.sh print them, read against the discovery:
 *
 *	Unicast lids [0x0-0x132] of switch Lid 1 guid 0x00066a02e8001310 (L101):
 *	  Lid  Out   Destination
 *	       Port     Info
 *	0x0002 019 : (Switch portguid 0x00066a00eb002cb2: 'S201A')
 *	0x012f 008 : (Channel Adapter portguid 0x001175000077d10e: 'node054 HCA-1')
 *	305 valid lids dumped
 *
 * (dump_lfts.sh writes "of switch DR path slid 0; dlid 0; 0,1 guid 0x...").
 * For every switch and every node (an HCA destination; switch and router
 * destinations carry no job traffic), the out port gives the cable the
 * switch sends the node's traffic on, or the node itself when it is
 * cabled there.  With LMC > 0 an HCA has several LIDs: its first (base)
 * LID's entry is kept.  A line "ibroute: iberror: ..." (a table the tool
 * could not read) is skipped with a warning. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/import/import_impl.h"

struct lst {
	struct import_fabric *f;
	const struct ib_view *v;
	struct err *err;
	const char *path;
	int64_t sw;	  /* the table being read, -1 before a header */
	uint32_t tables;  /* headers read */
	uint32_t failed;  /* iberror lines */
	uint32_t unknown; /* HCA destinations that are no node */
	uint32_t fail_line;
	char *fail_path;
	uint8_t *have; /* [switches x nodes] bits: an entry kept already */
};

#define lerr(ls, line, ...) \
	import_perr((ls)->err, (ls)->path, line, __VA_ARGS__)

/* "Unicast lids [...] of switch ... guid 0xG (desc):" */
static int header(struct lst *ls, const char *s, uint32_t line)
{
	const char *g = strstr(s, " guid ");
	uint64_t guid;

	if (!g)
		return lerr(ls, line, "table header without the switch's guid");
	g += 6;
	if (import_get_hex(&g, &guid))
		return lerr(ls, line, "bad switch guid in the table header");
	ls->sw = ib_switch(ls->v, guid);
	if (ls->sw < 0)
		return lerr(ls, line,
			    "switch 0x%016llx is not in the ibnetdiscover "
			    "output",
			    (unsigned long long)guid);
	ls->tables++;
	return 0;
}

/* "switch S sends node N (lid L) out of port P, which WHAT". */
static int bad_port(struct lst *ls, uint32_t line, uint32_t dst, uint64_t lid,
		    unsigned long port, const char *what)
{
	return lerr(ls, line,
		    "switch %s sends node %s (lid 0x%04llx) out of port %lu, "
		    "which %s",
		    ls->f->sw[ls->sw].name, fabric_node_name(ls->f, dst),
		    (unsigned long long)lid, port, what);
}

/* "0xLID PORT : (Channel Adapter portguid 0xG: 'desc')" */
static int entry(struct lst *ls, const char *s, uint32_t line)
{
	const char *p = s, *ca;
	uint64_t lid, pguid;
	unsigned long port;
	uint32_t cable, node;
	int64_t dst;
	char *end;

	if (import_get_hex(&p, &lid) || !isspace((unsigned char)*p))
		return 1;
	errno = 0;
	port = strtoul(p, &end, 10);
	if (end == p || errno || port > 255)
		return 1;
	p = end;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return 1;
	if (ls->sw < 0)
		return lerr(ls, line, "table line before any table header");
	ca = strstr(p, "(Channel Adapter portguid ");
	if (!ca)
		return 0; /* a switch or router destination */
	ca += strlen("(Channel Adapter portguid ");
	if (import_get_hex(&ca, &pguid))
		return lerr(ls, line, "bad portguid");
	dst = ib_node(ls->v, pguid);
	if (dst < 0) {
		ls->unknown++;
		return 0;
	}
	if (ib_port(ls->v, (uint32_t)ls->sw, (uint32_t)port, &cable, &node))
		return bad_port(ls, line, (uint32_t)dst, lid, port,
				"is not cabled");
	if (node == (uint32_t)dst)
		return 0; /* delivered here */
	{
		/* an HCA's further LIDs (LMC > 0): its base LID's route */
		size_t bit = (size_t)ls->sw * ls->f->nnodes + (size_t)dst;

		if (ls->have[bit / 8] >> (bit % 8) & 1)
			return 0;
		ls->have[bit / 8] |= (uint8_t)(1u << (bit % 8));
	}
	if (cable == UINT32_MAX)
		return bad_port(ls, line, (uint32_t)dst, lid, port,
				"leads to no switch");
	if (fabric_add_fwd(ls->f, (uint32_t)ls->sw, (uint32_t)dst, cable))
		return err_nomem(ls->err, "out of memory");
	return 0;
}

static int lft_line(struct lst *ls, char *s, uint32_t line)
{
	size_t n = strlen(s);
	const char *p = s;

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || !strncmp(p, "Lid", 3) || !strncmp(p, "Port", 4) ||
	    strstr(p, "valid lids dumped") || *p == '#')
		return 0;
	if (strstr(p, "iberror")) {
		if (!ls->failed++) {
			ls->fail_line = line;
			ls->fail_path = strdup(ls->path);
		}
		return 0;
	}
	if (!strncmp(p, "Unicast lids", 12))
		return header(ls, p, line);
	if (!strncmp(p, "0x", 2)) {
		int r = entry(ls, p, line);

		if (r <= 0)
			return r;
	}
	return lerr(ls, line,
		    "unrecognised line (want a table header 'Unicast lids "
		    "... of switch ... guid 0xGUID (...):' or 'LID PORT : "
		    "(... portguid 0xGUID: ...)')");
}

static int lft_line_cb(void *ctx, char *line, uint32_t lineno)
{
	return lft_line(ctx, line, lineno);
}

static int read_one(struct lst *ls, const char *path)
{
	ls->path = path;
	ls->sw = -1;
	return import_each_line(path, lft_line_cb, ls, NULL, ls->err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PATH, or every regular file of directory PATH in name order. */
static int read_path(struct lst *ls, const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!d)
		return read_one(ls, path);
	while ((e = readdir(d))) {
		char *p;

		if (e->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **w =
				realloc(v, (cap = 2 * cap + 16) * sizeof(*w));

			if (!w) {
				rc = err_nomem(ls->err, "out of memory");
				break;
			}
			v = w;
		}
		if (asprintf(&p, "%s/%s", path, e->d_name) < 0) {
			rc = err_nomem(ls->err, "out of memory");
			break;
		}
		v[n++] = p;
	}
	closedir(d);
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_str);
	if (!rc && !n)
		rc = err_set(ls->err,
			     "%s: no forwarding tables in the "
			     "directory",
			     path);
	for (size_t i = 0; i < n; i++) {
		if (!rc)
			rc = read_one(ls, v[i]);
		free(v[i]);
	}
	free(v);
	return rc;
}

int import_lft_read(struct import_fabric *f, const struct ib_view *v,
		    const char *const *paths, struct err *err)
{
	struct lst ls = { .f = f, .v = v, .err = err, .sw = -1 };
	size_t len = 0;

	ls.have = calloc((size_t)f->nsw * f->nnodes / 8 + 1, 1);
	if (!ls.have)
		return err_nomem(err, "out of memory");
	for (size_t i = 0; paths[i]; i++) {
		if (read_path(&ls, paths[i])) {
			free(ls.have);
			free(ls.fail_path);
			return -1;
		}
		len += strlen(paths[i]) + 2;
	}
	free(ls.have);
	if (!ls.tables) {
		free(ls.fail_path);
		return err_set(err,
			       "%s: no forwarding table (no 'Unicast "
			       "lids ... of switch ...' line)",
			       paths[0]);
	}
	free(f->lft_source);
	f->lft_source = malloc(len + 1);
	if (!f->lft_source) {
		free(ls.fail_path);
		return err_nomem(err, "out of memory");
	}
	f->lft_source[0] = '\0';
	for (size_t i = 0; paths[i]; i++)
		strcat(strcat(f->lft_source, i ? ", " : ""), paths[i]);
	if (ls.failed && !ls.fail_path)
		return err_nomem(err, "out of memory");
	if (ls.failed &&
	    fabric_warn(f,
			"%s:%u: %u iberror line%s from the tool (a table it "
			"failed to read, or to finish: the entries it printed "
			"are kept)",
			ls.fail_path, ls.fail_line, ls.failed,
			ls.failed == 1 ? "" : "s")) {
		free(ls.fail_path);
		return err_nomem(err, "out of memory");
	}
	free(ls.fail_path);
	if (ls.unknown &&
	    fabric_warn(f,
			"%s: %u table entr%s for HCAs that are no node "
			"(unattached, or a second HCA of a name): skipped",
			paths[0], ls.unknown, ls.unknown == 1 ? "y" : "ies"))
		return err_nomem(err, "out of memory");
	return 0;
}
