/* import_slurm.c - Slurm's topology.conf to a fabric.
 *
 * The tree form (topology/tree):
 *	SwitchName=s0 Nodes=n[0-3]
 *	SwitchName=s2 Switches=s[0-1]   (LinkSpeed= is read and ignored)
 * the block form (topology/block):
 *	BlockName=b1 Nodes=n[0-7]
 *	BlockSizes=8,16                  (read and ignored)
 * Each block becomes a switch with its nodes, every block cabled once to
 * a top switch "top" (or "top0", "top1", ... when a block has that name).
 * No link rates: every capacity is 1. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo/import/import_impl.h"
#include "topo/util/hl.h"

struct sline {
	char *name;
	char *nodes;	/* Nodes= or NULL */
	char *switches; /* Switches= or NULL */
	uint32_t line;
};

struct snode {
	char *name;
	uint32_t sw, seq, line;
};

struct sst {
	const char *path;
	struct err *err;
	struct sline *l;
	uint32_t nl, lcap;
	bool blocks, tree;
	uint32_t first_form_line;
};

/* An error at LINE of the input: "PATH:LINE: ..." (returns -1). */
#define perr(st, line, ...) \
	import_perr((st)->err, (st)->path, line, __VA_ARGS__)

static int64_t find_line(const struct sst *st, const char *name)
{
	for (uint32_t i = 0; i < st->nl; i++)
		if (!strcmp(st->l[i].name, name))
			return i;
	return -1;
}

/* One SwitchName= or BlockName= line's words. */
static int parse_words(struct sst *st, char *s, uint32_t line)
{
	static const char *const known = "SwitchName, Switches, Nodes, "
					 "LinkSpeed, BlockName, BlockSizes";
	struct sline sl = { .line = line };
	char *save = NULL;
	bool block = false, sizes = false;
	int rc = 0;

	for (char *w = strtok_r(s, " \t\r\n", &save); w && !rc;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(w, '=');
		char **slot = NULL;

		if (!eq || eq == w) {
			rc = perr(st, line, "expected Key=Value, got '%s'", w);
			break;
		}
		*eq = '\0';
		if (!eq[1]) {
			rc = perr(st, line, "%s= has an empty value", w);
			break;
		}
		if (!strcasecmp(w, "SwitchName") ||
		    !strcasecmp(w, "BlockName")) {
			if (sl.name) {
				rc = perr(st, line, "%s= given twice", w);
				break;
			}
			block = !strcasecmp(w, "BlockName");
			if (!import_name_ok(eq + 1)) {
				rc = perr(st, line, "bad %s name '%s'",
					  block ? "block" : "switch", eq + 1);
				break;
			}
			slot = &sl.name;
		} else if (!strcasecmp(w, "Nodes")) {
			slot = &sl.nodes;
		} else if (!strcasecmp(w, "Switches")) {
			slot = &sl.switches;
		} else if (!strcasecmp(w, "LinkSpeed")) {
			continue;
		} else if (!strcasecmp(w, "BlockSizes")) {
			sizes = true;
			continue;
		} else {
			rc = perr(st, line, "unknown key '%s' (%s)", w, known);
			break;
		}
		if (*slot) {
			rc = perr(st, line, "%s= given twice", w);
			break;
		}
		*slot = strdup(eq + 1);
		if (!*slot)
			rc = err_set(st->err, "out of memory");
	}
	if (!rc && !sl.name && !sizes)
		rc = perr(st, line, "no SwitchName= or BlockName= on the line");
	if (!rc && sl.name && block && sl.switches)
		rc = perr(st, line, "Switches= on a BlockName= line");
	if (!rc && sl.name && find_line(st, sl.name) >= 0)
		rc = perr(st, line, "'%s' defined twice (first on line %u)",
			  sl.name, st->l[find_line(st, sl.name)].line);
	if (!rc && sl.name && ((block && st->tree) || (!block && st->blocks)))
		rc = perr(st, line,
			  "%s= in a file of %s= lines (first on line %u)",
			  block ? "BlockName" : "SwitchName",
			  block ? "SwitchName" : "BlockName",
			  st->first_form_line);
	if (!rc && sl.name) {
		if (!st->tree && !st->blocks)
			st->first_form_line = line;
		if (block)
			st->blocks = true;
		else
			st->tree = true;
		if (st->nl == st->lcap) {
			uint32_t cap = st->lcap ? 2 * st->lcap : 16;
			struct sline *l = realloc(st->l, cap * sizeof(*l));

			if (!l)
				rc = err_set(st->err, "out of memory");
			else {
				st->l = l;
				st->lcap = cap;
			}
		}
		if (!rc) {
			st->l[st->nl++] = sl;
			return 0;
		}
	}
	free(sl.name);
	free(sl.nodes);
	free(sl.switches);
	return rc;
}

/* Expand hostlist EXPR (of KEY= on LINE) into a new list. */
static struct hl *expand(struct sst *st, const char *key, const char *expr,
			 uint32_t line)
{
	const char *why = hl_error(expr);
	struct hl *h;

	if (why) {
		perr(st, line, "%s=%s: bad hostlist: %s", key, expr, why);
		return NULL;
	}
	h = hl_parse(expr);
	if (!h)
		err_set(st->err, "out of memory");
	return h;
}

static int cmp_snode(const void *a, const void *b)
{
	const struct snode *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_seq(const void *a, const void *b)
{
	const struct snode *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The nodes of every line, in line order; a node named twice stays on
 * its first switch. */
static int add_nodes(struct sst *st, struct import_fabric *f)
{
	struct snode *v = NULL;
	uint32_t n = 0, cap = 0, kept = 0;
	int rc = 0;

	for (uint32_t i = 0; i < st->nl && !rc; i++) {
		struct hl *h;
		char *name;

		if (!st->l[i].nodes)
			continue;
		h = expand(st, "Nodes", st->l[i].nodes, st->l[i].line);
		if (!h) {
			rc = -1;
			break;
		}
		while (!rc && (name = hl_shift(h))) {
			if (n == cap) {
				struct snode *nv;

				cap = cap ? 2 * cap : 64;
				nv = realloc(v, cap * sizeof(*nv));
				if (!nv) {
					free(name);
					rc = err_set(st->err, "out of memory");
					break;
				}
				v = nv;
			}
			v[n] = (struct snode){ .name = name,
					       .sw = i,
					       .seq = n,
					       .line = st->l[i].line };
			n++;
		}
		hl_destroy(h);
	}
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_snode);
	for (uint32_t i = 1; !rc && i < n; i++) {
		if (strcmp(v[kept].name, v[i].name)) {
			kept = i;
			continue;
		}
		if (fabric_warn(f,
				"%s:%u: node %s is also on line %u: a node "
				"has one switch in topo.conf, kept the first",
				st->path, v[i].line, v[i].name, v[kept].line))
			rc = err_set(st->err, "out of memory");
		v[i].sw = UINT32_MAX;
	}
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_seq);
	for (uint32_t i = 0; !rc && i < n; i++)
		if (v[i].sw != UINT32_MAX &&
		    fabric_add_node(f, v[i].sw, v[i].name, 1))
			rc = err_set(st->err, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return rc;
}

static int add_tree_cables(struct sst *st, struct import_fabric *f)
{
	for (uint32_t i = 0; i < st->nl; i++) {
		struct hl *h;
		char *name;
		int rc = 0;

		if (!st->l[i].switches)
			continue;
		h = expand(st, "Switches", st->l[i].switches, st->l[i].line);
		if (!h)
			return -1;
		while (!rc && (name = hl_shift(h))) {
			int64_t j = find_line(st, name);

			if (j < 0)
				rc = perr(st, st->l[i].line,
					  "Switches=: unknown switch '%s'",
					  name);
			else if ((uint32_t)j == i)
				rc = perr(st, st->l[i].line,
					  "Switches=: switch '%s' linked to "
					  "itself",
					  name);
			else if (fabric_add_cable(f, i, (uint32_t)j, 1))
				rc = err_set(st->err, "out of memory");
			free(name);
		}
		hl_destroy(h);
		if (rc)
			return rc;
	}
	return 0;
}

static int add_block_top(struct sst *st, struct import_fabric *f)
{
	char top[32] = "top";
	int64_t t;

	for (uint32_t k = 0; find_line(st, top) >= 0; k++)
		snprintf(top, sizeof(top), "top%u", k);
	t = fabric_add_switch(f, top, "joins the blocks");
	if (t < 0)
		return err_set(st->err, "out of memory");
	for (uint32_t i = 0; i < st->nl; i++)
		if (fabric_add_cable(f, i, (uint32_t)t, 1))
			return err_set(st->err, "out of memory");
	return 0;
}

struct import_fabric *import_slurm_topology(const char *path, struct err *err)
{
	struct sst st = { .path = path, .err = err };
	struct import_fabric *f = NULL;
	FILE *fp = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0;
	int rc = 0;

	if (!fp) {
		err_set(err, "%s: cannot open: %s", path, strerror(errno));
		return NULL;
	}
	for (ssize_t len; !rc && (len = getline(&line, &cap, fp)) >= 0;) {
		char *c;

		lineno++;
		if ((size_t)len != strlen(line)) {
			rc = perr(&st, lineno, "NUL byte");
			break;
		}
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		if (line[strspn(line, " \t\r\n")])
			rc = parse_words(&st, line, lineno);
	}
	free(line);
	fclose(fp);
	if (!rc && !st.nl)
		rc = perr(&st, lineno ? lineno : 1,
			  "no SwitchName= or BlockName= lines");
	if (!rc) {
		f = fabric_new(st.blocks ? "Slurm topology.conf (block)" :
					   "Slurm topology.conf (tree)",
			       path);
		if (!f)
			rc = err_set(err, "out of memory");
	}
	for (uint32_t i = 0; !rc && i < st.nl; i++)
		if (fabric_add_switch(f, st.l[i].name, NULL) < 0)
			rc = err_set(err, "out of memory");
	if (!rc)
		rc = st.blocks ? add_block_top(&st, f) :
				 add_tree_cables(&st, f);
	if (!rc)
		rc = add_nodes(&st, f);
	if (!rc && !f->nnodes)
		rc = perr(&st, lineno, "no Nodes= on any line");
	for (uint32_t i = 0; i < st.nl; i++) {
		free(st.l[i].name);
		free(st.l[i].nodes);
		free(st.l[i].switches);
	}
	free(st.l);
	if (rc) {
		import_destroy(f);
		return NULL;
	}
	return f;
}
