/* import_slurm_yaml.c - Slurm's topology.yaml (24.11 and later) to a
 * fabric.
 *
 * A list of topologies, each
 *	- topology: NAME
 *	  cluster_default: true          (optional)
 *	  tree:
 *	    switches:
 *	      - switch: s0
 *	        nodes: n[0-3]
 *	      - switch: s2
 *	        children: s[0-1]
 * or
 *	  block:
 *	    block_sizes: [4, 8]          (read and ignored)
 *	    blocks:
 *	      - block: b1
 *	        nodes: n[0-3]
 * or
 *	  flat: true
 * One topology is read into the switches the topology.conf reader makes
 * (import_slurm.c), and slurm_build makes the same fabric from them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>
#include <yaml.h>

#include "topo/import/import_impl.h"

/* A topology of the file, as the first pass sees it. */
struct ytopo {
	const char *name;
	uint32_t line;
	bool dflt;
	yaml_node_t *tree, *block, *flat;
};

struct yst {
	struct slurm_topo st;
	yaml_document_t *doc;
	struct ytopo *t;
	uint32_t nt;
};

static uint32_t line_of(const yaml_node_t *n)
{
	return (uint32_t)n->start_mark.line + 1;
}

static yaml_node_t *get(struct yst *y, int id)
{
	return yaml_document_get_node(y->doc, id);
}

/* The text of scalar N, or NULL with the error set ("KEY: want WHAT"). */
static const char *scalar(struct yst *y, const yaml_node_t *n, const char *key,
			  const char *what)
{
	const char *s;

	if (n->type != YAML_SCALAR_NODE) {
		slurm_err(&y->st, line_of(n), "%s: want %s", key, what);
		return NULL;
	}
	s = (const char *)n->data.scalar.value;
	if (strlen(s) != n->data.scalar.length) {
		slurm_err(&y->st, line_of(n), "%s: NUL byte", key);
		return NULL;
	}
	return s;
}

/* Scalar N as a YAML boolean into *B; 0 or -1 with the error set. */
static int boolean(struct yst *y, const yaml_node_t *n, const char *key,
		   bool *b)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *s = scalar(y, n, key, "true or false");

	if (!s)
		return -1;
	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(s, yes[i])) {
			*b = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*b = false;
			return 0;
		}
	}
	return slurm_err(&y->st, line_of(n), "%s: want true or false, got '%s'",
			 key, s);
}

/* Check that N is a mapping whose keys are scalars among KNOWN (a
 * NULL-terminated list, IN naming where for messages), each once; fill
 * VAL[i] with the value node of KNOWN[i] or NULL. */
static int mapping(struct yst *y, const yaml_node_t *n, const char *in,
		   const char *const *known, const char *list,
		   yaml_node_t **val)
{
	size_t nk = 0;

	while (known[nk])
		val[nk++] = NULL;
	if (n->type != YAML_MAPPING_NODE)
		return slurm_err(&y->st, line_of(n), "%s: want a mapping (%s)",
				 in, list);
	for (yaml_node_pair_t *p = n->data.mapping.pairs.start;
	     p < n->data.mapping.pairs.top; p++) {
		yaml_node_t *k = get(y, p->key);
		const char *s = scalar(y, k, in, "KEY: VALUE pairs");
		size_t i = 0;

		if (!s)
			return -1;
		while (i < nk && strcmp(s, known[i]))
			i++;
		if (i == nk)
			return slurm_err(&y->st, line_of(k),
					 "unknown key '%s' in %s (%s)", s, in,
					 list);
		if (val[i])
			return slurm_err(&y->st, line_of(k),
					 "%s: '%s' given twice (first on line "
					 "%u)",
					 in, s, line_of(val[i]));
		val[i] = get(y, p->value);
	}
	return 0;
}

static int copy(struct yst *y, const yaml_node_t *n, const char *key,
		char **out)
{
	const char *s = scalar(y, n, key, "a hostlist");

	if (!s)
		return -1;
	if (!*s)
		return slurm_err(&y->st, line_of(n), "%s: empty hostlist", key);
	*out = strdup(s);
	return *out ? 0 : err_nomem(y->st.err, "out of memory");
}

/* One entry of switches: or blocks: (KIND "switch" or "block"). */
static int entry(struct yst *y, const yaml_node_t *n, const char *kind)
{
	static const char *const skeys[] = { "switch", "children", "nodes",
					     NULL };
	static const char *const bkeys[] = { "block", "nodes", NULL };
	bool block = !strcmp(kind, "block");
	struct slurm_sw sw = { .line = line_of(n) };
	yaml_node_t *v[3];
	const char *name;
	int64_t j;

	if (mapping(y, n, block ? "blocks" : "switches", block ? bkeys : skeys,
		    block ? "block, nodes" : "switch, children, nodes", v))
		return -1;
	if (!v[0])
		return slurm_err(&y->st, line_of(n),
				 "%s entry without '%s: NAME'", kind, kind);
	name = scalar(y, v[0], kind, "a name");
	if (!name)
		return -1;
	if (!import_switch_name_ok(name))
		return slurm_err(&y->st, line_of(v[0]), "bad %s name '%s'",
				 kind, name);
	j = slurm_find(&y->st, name);
	if (j >= 0)
		return slurm_err(&y->st, line_of(v[0]),
				 "%s '%s' defined twice (first on line %u)",
				 kind, name, y->st.l[j].line);
	sw.name = strdup(name);
	if (!sw.name)
		return err_nomem(y->st.err, "out of memory");
	if (!block && v[1])
		sw.switches_line = line_of(v[1]);
	if (v[block ? 1 : 2])
		sw.nodes_line = line_of(v[block ? 1 : 2]);
	if ((!block && v[1] && copy(y, v[1], "children", &sw.switches)) ||
	    (v[block ? 1 : 2] &&
	     copy(y, v[block ? 1 : 2], "nodes", &sw.nodes))) {
		free(sw.name);
		free(sw.switches);
		return -1;
	}
	return slurm_append(&y->st, &sw);
}

static int entries(struct yst *y, const yaml_node_t *list, const char *key,
		   const char *kind)
{
	if (list->type != YAML_SEQUENCE_NODE)
		return slurm_err(&y->st, line_of(list),
				 "%s: want a list (- %s: NAME ...)", key, kind);
	for (yaml_node_item_t *it = list->data.sequence.items.start;
	     it < list->data.sequence.items.top; it++)
		if (entry(y, get(y, *it), kind))
			return -1;
	return 0;
}

static int read_tree(struct yst *y, const yaml_node_t *n)
{
	static const char *const keys[] = { "switches", NULL };
	yaml_node_t *v[1];

	if (mapping(y, n, "tree", keys, "switches", v))
		return -1;
	if (!v[0])
		return slurm_err(&y->st, line_of(n),
				 "tree without 'switches:'");
	y->st.tree = true;
	return entries(y, v[0], "switches", "switch");
}

static int read_block(struct yst *y, const yaml_node_t *n)
{
	static const char *const keys[] = { "block_sizes", "blocks", NULL };
	yaml_node_t *v[2];

	if (mapping(y, n, "block", keys, "block_sizes, blocks", v))
		return -1;
	if (!v[1])
		return slurm_err(&y->st, line_of(n), "block without 'blocks:'");
	y->st.blocks = true;
	return entries(y, v[1], "blocks", "block");
}

/* The first pass: every topology's name, default flag and form. */
static int topology(struct yst *y, const yaml_node_t *n, struct ytopo *t)
{
	static const char *const keys[] = { "topology", "cluster_default",
					    "tree",	"block",
					    "flat",	NULL };
	yaml_node_t *v[5];
	bool flat = false;
	int forms;

	if (mapping(y, n, "topology", keys,
		    "topology, cluster_default, tree, block, flat", v))
		return -1;
	*t = (struct ytopo){ .line = line_of(n) };
	if (!v[0])
		return slurm_err(&y->st, t->line,
				 "topology entry without 'topology: NAME'");
	t->name = scalar(y, v[0], "topology", "a name");
	if (!t->name ||
	    (v[1] && boolean(y, v[1], "cluster_default", &t->dflt)) ||
	    (v[4] && boolean(y, v[4], "flat", &flat)))
		return -1;
	for (uint32_t i = 0; i < y->nt; i++)
		if (!strcmp(y->t[i].name, t->name))
			return slurm_err(
				&y->st, line_of(v[0]),
				"topology '%s' defined twice (first on "
				"line %u)",
				t->name, y->t[i].line);
	t->tree = v[2];
	t->block = v[3];
	t->flat = flat ? v[4] : NULL;
	forms = !!t->tree + !!t->block + !!t->flat;
	if (forms != 1)
		return slurm_err(&y->st, t->line,
				 "topology '%s': want one of tree, block or "
				 "flat: true (%s)",
				 t->name,
				 forms ? "several given" : "none given");
	return 0;
}

/* "a, b, c": the names of the topologies, into BUF. */
static const char *names(const struct yst *y, char *buf, size_t size)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < y->nt && at < size; i++)
		at += (size_t)snprintf(buf + at, size - at, "%s%s",
				       i ? ", " : "", y->t[i].name);
	return buf;
}

/* The topology to import: NAME, else the first cluster_default, else the
 * only one. */
static const struct ytopo *choose(struct yst *y, const yaml_node_t *root,
				  const char *name)
{
	char buf[120];

	for (uint32_t i = 0; i < y->nt; i++)
		if (name ? !strcmp(y->t[i].name, name) : y->t[i].dflt)
			return &y->t[i];
	if (!name && y->nt == 1)
		return &y->t[0];
	if (name)
		slurm_err(&y->st, line_of(root),
			  "no topology named '%s' (the file has: %s)", name,
			  names(y, buf, sizeof(buf)));
	else
		slurm_err(&y->st, line_of(root),
			  "%u topologies and none has cluster_default: true "
			  "(give --topology NAME: %s)",
			  y->nt, names(y, buf, sizeof(buf)));
	return NULL;
}

/* libyaml's error of parser P as "PATH:LINE: YAML syntax error: what
 * (context)".  Returns -1. */
static int syntax_err(struct yst *y, const yaml_parser_t *p)
{
	return slurm_err(&y->st, (uint32_t)p->problem_mark.line + 1,
			 "YAML syntax error: %s%s%s%s",
			 p->problem ? p->problem : "unknown",
			 p->context ? " (" : "", p->context ? p->context : "",
			 p->context ? ")" : "");
}

/* A first pass over FP's tokens: collections nested deeper than
 * YAML_DEPTH are an error (libyaml's loader takes time quadratic in the
 * depth: 200,000 '[' ran for minutes).  FP is rewound.  0 or -1. */
#define YAML_DEPTH 64
static int depth_ok(struct yst *y, FILE *fp)
{
	yaml_parser_t p;
	yaml_token_t t;
	int depth = 0, rc = 0;
	bool end = false;

	if (!yaml_parser_initialize(&p))
		return err_nomem(y->st.err, "out of memory");
	yaml_parser_set_input_file(&p, fp);
	while (!rc && !end && yaml_parser_scan(&p, &t)) {
		switch (t.type) {
		case YAML_FLOW_SEQUENCE_START_TOKEN:
		case YAML_FLOW_MAPPING_START_TOKEN:
		case YAML_BLOCK_SEQUENCE_START_TOKEN:
		case YAML_BLOCK_MAPPING_START_TOKEN:
			if (++depth > YAML_DEPTH)
				rc = slurm_err(&y->st,
					       (uint32_t)t.start_mark.line + 1,
					       "YAML nested deeper than %d",
					       YAML_DEPTH);
			break;
		case YAML_FLOW_SEQUENCE_END_TOKEN:
		case YAML_FLOW_MAPPING_END_TOKEN:
		case YAML_BLOCK_END_TOKEN:
			depth--;
			break;
		case YAML_STREAM_END_TOKEN:
			end = true;
			break;
		default:
			break;
		}
		yaml_token_delete(&t);
	}
	/* a scan error: the loader below reports it */
	yaml_parser_delete(&p);
	rewind(fp);
	return rc;
}

static int load(struct yst *y, FILE *fp, yaml_document_t *doc)
{
	yaml_parser_t p;
	yaml_document_t extra;
	yaml_node_t *more;
	int rc = 0;

	if (depth_ok(y, fp))
		return -1;
	if (!yaml_parser_initialize(&p))
		return err_nomem(y->st.err, "out of memory");
	yaml_parser_set_input_file(&p, fp);
	if (!yaml_parser_load(&p, doc)) {
		rc = syntax_err(y, &p);
		yaml_parser_delete(&p);
		return rc;
	}
	if (!yaml_parser_load(&p, &extra)) {
		rc = syntax_err(y, &p);
	} else {
		more = yaml_document_get_root_node(&extra);
		if (more)
			rc = slurm_err(&y->st, line_of(more),
				       "a second YAML document: want one list "
				       "of topologies");
		yaml_document_delete(&extra);
	}
	if (rc)
		yaml_document_delete(doc);
	yaml_parser_delete(&p);
	return rc;
}

/* Read the topologies of the list ROOT, choose one, read its switches. */
static int read_file(struct yst *y, const char *name, const char **format,
		     uint32_t *line)
{
	yaml_node_t *root = yaml_document_get_root_node(y->doc);
	const struct ytopo *t;
	uint32_t n;

	if (!root || root->type != YAML_SEQUENCE_NODE)
		return slurm_err(&y->st, root ? line_of(root) : 1,
				 "want a list of topologies "
				 "(- topology: NAME ...)");
	n = (uint32_t)(root->data.sequence.items.top -
		       root->data.sequence.items.start);
	if (!n)
		return slurm_err(&y->st, line_of(root),
				 "the list of topologies is empty");
	y->t = calloc(n, sizeof(*y->t));
	if (!y->t)
		return err_nomem(y->st.err, "out of memory");
	for (uint32_t i = 0; i < n; i++, y->nt++)
		if (topology(y, get(y, root->data.sequence.items.start[i]),
			     &y->t[i]))
			return -1;
	t = choose(y, root, name);
	if (!t)
		return -1;
	*line = t->line;
	if (t->flat)
		return slurm_err(&y->st, line_of(t->flat),
				 "topology '%s' is flat: no switch structure "
				 "to import",
				 t->name);
	*format = t->tree ? "Slurm topology.yaml (tree)" :
			    "Slurm topology.yaml (block)";
	return t->tree ? read_tree(y, t->tree) : read_block(y, t->block);
}

struct import_fabric *import_slurm_yaml(const char *path, const char *name,
					struct err *err)
{
	struct yst y = { .st = { .path = path,
				 .err = err,
				 .kn = "nodes: ",
				 .ks = "children: ",
				 .ks_err = "children:",
				 .no_nodes = "no nodes: in any switch or "
					     "block" } };
	struct import_fabric *f = NULL;
	yaml_document_t doc;
	const char *format = NULL;
	uint32_t line = 1;
	FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;
	struct stat sb;

	if (!fp) {
		err_sys(err, errno, "%s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	if (!fstat(fileno(fp), &sb) && S_ISDIR(sb.st_mode)) {
		err_set(err, "%s: %s", path, strerror(EISDIR));
		fclose(fp);
		return NULL;
	}
	if (!load(&y, fp, &doc)) {
		y.doc = &doc;
		if (!read_file(&y, name, &format, &line))
			f = slurm_build(&y.st, format, line);
		yaml_document_delete(&doc);
	}
	if (fp != stdin)
		fclose(fp);
	free(y.t);
	slurm_clear(&y.st);
	return f;
}
