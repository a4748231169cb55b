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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo/import/import_impl.h"
#include "topo/util/hl.h"

struct snode {
	char *name;
	uint32_t sw, seq, line;
};

static const char *entry_name(const void *ctx, uint32_t i)
{
	return ((const struct slurm_topo *)ctx)->l[i].name;
}

int64_t slurm_find(const struct slurm_topo *st, const char *name)
{
	uint32_t i = st->names.name ? nameidx_find(&st->names, name) :
				      NAMEIDX_NONE;

	return i == NAMEIDX_NONE ? -1 : (int64_t)i;
}

/* Put entry I (its name new to ST) into the name table.  0 or -1. */
static int ht_put(struct slurm_topo *st, uint32_t i)
{
	if (!st->names.name)
		nameidx_init(&st->names, entry_name, st);
	return nameidx_add(&st->names, i, NULL);
}

static void sw_free(struct slurm_sw *sw)
{
	free(sw->name);
	free(sw->nodes);
	free(sw->switches);
}

int slurm_append(struct slurm_topo *st, struct slurm_sw *sw)
{
	if (!sw->nodes_line)
		sw->nodes_line = sw->line;
	if (!sw->switches_line)
		sw->switches_line = sw->line;
	if (st->nl == st->lcap) {
		uint32_t cap = st->lcap ? 2 * st->lcap : 16;
		struct slurm_sw *l = realloc(st->l, cap * sizeof(*l));

		if (!l) {
			sw_free(sw);
			return err_nomem(st->err, "out of memory");
		}
		st->l = l;
		st->lcap = cap;
	}
	st->l[st->nl++] = *sw;
	if (ht_put(st, st->nl - 1))
		return err_nomem(st->err, "out of memory");
	return 0;
}

void slurm_clear(struct slurm_topo *st)
{
	for (uint32_t i = 0; i < st->nl; i++)
		sw_free(&st->l[i]);
	free(st->l);
	st->l = NULL;
	st->nl = st->lcap = 0;
	nameidx_free(&st->names);
}

/* One SwitchName= or BlockName= line's words. */
static int parse_words(struct slurm_topo *st, char *s, uint32_t line)
{
	static const char *const known = "SwitchName, Switches, Nodes, "
					 "LinkSpeed, BlockName, BlockSizes";
	struct slurm_sw sl = { .line = line };
	char *save = NULL;
	bool block = false, sizes = false;
	int rc = 0;

	for (char *w = strtok_r(s, " \t\r\n", &save); w && !rc;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		char *eq = strchr(w, '=');
		char **slot = NULL;

		if (!eq || eq == w) {
			rc = slurm_err(st, line, "expected Key=Value, got '%s'",
				       w);
			break;
		}
		*eq = '\0';
		if (!eq[1]) {
			rc = slurm_err(st, line, "%s= has an empty value", w);
			break;
		}
		if (!strcasecmp(w, "SwitchName") ||
		    !strcasecmp(w, "BlockName")) {
			if (sl.name) {
				rc = slurm_err(st, line, "%s= given twice", w);
				break;
			}
			block = !strcasecmp(w, "BlockName");
			if (!import_switch_name_ok(eq + 1)) {
				rc = slurm_err(st, line, "bad %s name '%s'",
					       block ? "block" : "switch",
					       eq + 1);
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
			rc = slurm_err(st, line, "unknown key '%s' (%s)", w,
				       known);
			break;
		}
		if (*slot) {
			rc = slurm_err(st, line, "%s= given twice", w);
			break;
		}
		*slot = strdup(eq + 1);
		if (!*slot)
			rc = err_nomem(st->err, "out of memory");
	}
	if (!rc && !sl.name && !sizes)
		rc = slurm_err(st, line,
			       "no SwitchName= or BlockName= on the line");
	if (!rc && sl.name && block && sl.switches)
		rc = slurm_err(st, line, "Switches= on a BlockName= line");
	if (!rc && sl.name && slurm_find(st, sl.name) >= 0)
		rc = slurm_err(st, line,
			       "'%s' defined twice (first on line %u)", sl.name,
			       st->l[slurm_find(st, sl.name)].line);
	if (!rc && sl.name && ((block && st->tree) || (!block && st->blocks)))
		rc = slurm_err(st, line,
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
		return slurm_append(st, &sl);
	}
	sw_free(&sl);
	return rc;
}

/* Expand hostlist EXPR (of KEY= on LINE) into a new list. */
static struct hl *expand(struct slurm_topo *st, const char *key,
			 const char *expr, uint32_t line)
{
	const char *why = hl_error(expr);
	struct hl *h;

	if (why) {
		slurm_err(st, line, "%s%s: bad hostlist: %s", key, expr, why);
		return NULL;
	}
	h = hl_parse(expr);
	if (!h)
		err_nomem(st->err, "out of memory");
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
static int add_nodes(struct slurm_topo *st, struct import_fabric *f)
{
	struct snode *v = NULL;
	uint32_t n = 0, cap = 0, kept = 0;
	int rc = 0;

	for (uint32_t i = 0; i < st->nl && !rc; i++) {
		struct hl *h;
		char *name;

		if (!st->l[i].nodes)
			continue;
		h = expand(st, st->kn, st->l[i].nodes, st->l[i].nodes_line);
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
					rc = err_nomem(st->err,
						       "out of memory");
					break;
				}
				v = nv;
			}
			v[n] = (struct snode){ .name = name,
					       .sw = i,
					       .seq = n,
					       .line = st->l[i].nodes_line };
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
			rc = err_nomem(st->err, "out of memory");
		v[i].sw = UINT32_MAX;
	}
	if (!rc && n)
		qsort(v, n, sizeof(*v), cmp_seq);
	for (uint32_t i = 0; !rc && i < n; i++)
		if (v[i].sw != UINT32_MAX &&
		    fabric_add_node(f, v[i].sw, v[i].name, 1))
			rc = err_nomem(st->err, "out of memory");
	for (uint32_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	return rc;
}

/* The switch names of a Switches= list EXPR: a hostlist when it has
 * brackets, else plain comma-separated names (switch names are no node
 * names: S-0002c90200417670 ends in more digits than a hostlist keeps).
 * A new NULL-terminated array of new strings, or NULL with ST's error
 * set. */
static char **switch_names(struct slurm_topo *st, const char *expr,
			   uint32_t line)
{
	size_t n = 1, k = 0;
	char **v;

	if (strchr(expr, '[')) {
		struct hl *h = expand(st, st->ks, expr, line);
		char *name;

		if (!h)
			return NULL;
		v = calloc(hl_count(h) + 1, sizeof(*v));
		while (v && (name = hl_shift(h)))
			v[k++] = name;
		hl_destroy(h);
		if (!v)
			err_nomem(st->err, "out of memory");
		return v;
	}
	for (const char *p = expr; *p; p++)
		n += *p == ',';
	v = calloc(n + 1, sizeof(*v));
	if (!v) {
		err_nomem(st->err, "out of memory");
		return NULL;
	}
	for (const char *p = expr; k < n; k++) {
		size_t len = strcspn(p, ",");

		v[k] = strndup(p, len);
		if (!v[k] || !import_switch_name_ok(v[k])) {
			if (v[k])
				slurm_err(st, line, "%s bad switch name '%s'",
					  st->ks_err, v[k]);
			else
				err_nomem(st->err, "out of memory");
			for (size_t i = 0; i <= k; i++)
				free(v[i]);
			free(v);
			return NULL;
		}
		p += len + (p[len] == ',');
	}
	return v;
}

/* The listings of the tree form's cables, by switch pair: open
 * addressing over the pair keys (0: empty), with the line and the
 * switch of the first listing. */
struct cableset {
	uint64_t *key;
	uint32_t *line, *from;
	uint64_t cap, used;
};

static uint64_t cs_slot(const struct cableset *c, uint64_t key)
{
	uint64_t x = (key * 0x9e3779b97f4a7c15u) & (c->cap - 1);

	while (c->key[x] && c->key[x] != key)
		x = (x + 1) & (c->cap - 1);
	return x;
}

static int cs_grow(struct cableset *c)
{
	struct cableset n = { .cap = c->cap ? 2 * c->cap : 64 };

	if (2 * (c->used + 1) <= c->cap)
		return 0;
	n.key = calloc(n.cap, sizeof(*n.key));
	n.line = calloc(n.cap, sizeof(*n.line));
	n.from = calloc(n.cap, sizeof(*n.from));
	if (!n.key || !n.line || !n.from) {
		free(n.key);
		free(n.line);
		free(n.from);
		return -1;
	}
	for (uint64_t q = 0; q < c->cap; q++)
		if (c->key[q]) {
			uint64_t x = cs_slot(&n, c->key[q]);

			n.key[x] = c->key[q];
			n.line[x] = c->line[q];
			n.from[x] = c->from[q];
		}
	n.used = c->used;
	free(c->key);
	free(c->line);
	free(c->from);
	*c = n;
	return 0;
}

/* Switch I lists switch J: a cable, unless J listed I already (the same
 * cable seen from its other end, as GUID-generated files write every
 * switch's neighbours).  Listing J twice is an error. */
static int tree_cable(struct slurm_topo *st, struct import_fabric *f,
		      struct cableset *c, uint32_t i, uint32_t j)
{
	uint64_t key = ((uint64_t)(i < j ? i : j) << 32 | (i < j ? j : i)) + 1;
	uint64_t x;

	if (cs_grow(c))
		return err_nomem(st->err, "out of memory");
	x = cs_slot(c, key);
	if (c->key[x] && c->from[x] == i)
		return slurm_err(st, st->l[i].switches_line,
				 "%s switches '%s' and '%s' are joined "
				 "already (line %u): list a cable once",
				 st->ks_err, st->l[i].name, st->l[j].name,
				 c->line[x]);
	if (c->key[x])
		return 0;
	if (fabric_add_cable(f, i, j, 1))
		return err_nomem(st->err, "out of memory");
	c->key[x] = key;
	c->line[x] = st->l[i].switches_line;
	c->from[x] = i;
	c->used++;
	return 0;
}

/* The cables of the tree form: each switch to the switches it lists; two
 * switches listing each other are one cable. */
static int add_tree_cables(struct slurm_topo *st, struct import_fabric *f)
{
	struct cableset c = { 0 };
	int rc = 0;

	for (uint32_t i = 0; !rc && i < st->nl; i++) {
		char **v;

		if (!st->l[i].switches)
			continue;
		v = switch_names(st, st->l[i].switches, st->l[i].switches_line);
		if (!v) {
			rc = -1;
			break;
		}
		for (size_t k = 0; v[k]; k++) {
			int64_t j = slurm_find(st, v[k]);

			if (rc)
				;
			else if (j < 0)
				rc = slurm_err(st, st->l[i].switches_line,
					       "%s unknown switch '%s'",
					       st->ks_err, v[k]);
			else if ((uint32_t)j == i)
				rc = slurm_err(
					st, st->l[i].switches_line,
					"%s switch '%s' linked to itself",
					st->ks_err, v[k]);
			else
				rc = tree_cable(st, f, &c, i, (uint32_t)j);
			free(v[k]);
		}
		free(v);
	}
	free(c.key);
	free(c.line);
	free(c.from);
	return rc;
}

static int add_block_top(struct slurm_topo *st, struct import_fabric *f)
{
	char top[32] = "top";
	int64_t t;

	for (uint32_t k = 0; slurm_find(st, top) >= 0; k++)
		snprintf(top, sizeof(top), "top%u", k);
	t = fabric_add_switch(f, top, "joins the blocks");
	if (t < 0)
		return err_nomem(st->err, "out of memory");
	for (uint32_t i = 0; i < st->nl; i++)
		if (fabric_add_cable(f, i, (uint32_t)t, 1))
			return err_nomem(st->err, "out of memory");
	return 0;
}

struct import_fabric *slurm_build(struct slurm_topo *st, const char *format,
				  uint32_t last_line)
{
	struct import_fabric *f = fabric_new(format, st->path);
	int rc = 0;

	if (!f) {
		err_nomem(st->err, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; !rc && i < st->nl; i++)
		if (fabric_add_switch(f, st->l[i].name, NULL) < 0)
			rc = err_nomem(st->err, "out of memory");
	if (!rc)
		rc = st->blocks ? add_block_top(st, f) : add_tree_cables(st, f);
	if (!rc)
		rc = add_nodes(st, f);
	if (!rc && !f->nnodes)
		rc = slurm_err(st, last_line, "%s", st->no_nodes);
	if (rc) {
		import_destroy(f);
		return NULL;
	}
	return f;
}

struct import_fabric *import_slurm_topology(const char *path, struct err *err)
{
	struct slurm_topo st = { .path = path,
				 .err = err,
				 .kn = "Nodes=",
				 .ks = "Switches=",
				 .ks_err = "Switches=:",
				 .no_nodes = "no Nodes= on any line" };
	struct import_fabric *f = NULL;
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL;
	size_t cap = 0;
	uint32_t lineno = 0;
	int rc = 0;

	if (!fp) {
		err_sys(err, errno, "%s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	for (ssize_t len; !rc && (len = getline(&line, &cap, fp)) >= 0;) {
		char *c;

		lineno++;
		if ((size_t)len != strlen(line)) {
			rc = slurm_err(&st, lineno, "NUL byte");
			break;
		}
		c = strchr(line, '#');
		if (c)
			*c = '\0';
		if (line[strspn(line, " \t\r\n")])
			rc = parse_words(&st, line, lineno);
	}
	free(line);
	if (!rc && ferror(fp)) /* a directory: EISDIR */
		rc = err_sys(err, errno, "%s: %s", path, strerror(errno));
	if (fp != stdin)
		fclose(fp);
	if (!rc && !st.nl)
		rc = slurm_err(&st, lineno ? lineno : 1,
			       "no SwitchName= or BlockName= lines");
	if (!rc)
		f = slurm_build(&st,
				st.blocks ? "Slurm topology.conf (block)" :
					    "Slurm topology.conf (tree)",
				lineno);
	slurm_clear(&st);
	return f;
}
