/* topo_conf.c - the topo.conf parser (format: topo.conf(5)).
 *
 * Two passes: the first reads every directive, checking its syntax, into a
 * struct pstate; the second builds the topology (a registered family, or
 * the explicit graph of SwitchName= lines through the builder), applies
 * Capacity= overrides in file order, and expands NodeName= hostlists with
 * libslurm into a name table with a hash index.  Every error names the
 * line of the directive that caused it, and every directive keeps its
 * line for the checks made later.
 *
 * A parser only: Routing=, the policies and Predict= are checked for their
 * syntax, PredictBudget= is kept as text; whether they exist and apply to
 * the topology is the machine's check (policies/machine), which has the
 * routings and policies and is handed the model check. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "topo/util/hl.h"
#include "topo/util/limits.h"
#include "topo/util/nameidx.h"

#include "topo/topo_conf.h"
#include "topo/topo_conf_impl.h"
#include "topo/topo_impl.h"

struct topo_conf {
	struct topo *topo;
	char *name;			 /* the file name used in messages */
	uint32_t lines[TOPO_CONF_NKEYS]; /* per enum topo_conf_key, 0: none */
	char *routing;
	char *defpol;
	const char *wrap; /* static: WRAP_CONS_TRES or WRAP_LINEAR */
	char *predict;	  /* Predict= or NULL */
	char *budget;	  /* PredictBudget= or NULL */
	int respect;	  /* RespectIsolation= (default no) */
	struct part_policy *pols;
	uint32_t npols;
	uint32_t nnames;      /* 0 or the number of nodes */
	char *name_buf;	      /* all names, NUL-separated */
	uint32_t *name_off;   /* [nnames] offsets into name_buf */
	struct nameidx nodex; /* node index by name */
};

#define WRAP_CONS_TRES "select/cons_tres"
#define WRAP_LINEAR "select/linear"

/* ---- helpers ---- */

int conf_perr_code(struct pstate *st, uint32_t line, int code, const char *fmt,
		   ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_code(st->err, code, "%s:%u: %s", st->file, line, msg);
}

/* Append a zeroed element to *ARR of *N.  The capacity is implicit: the
 * array doubles when *N reaches a power of two, so N pushes cost O(N). */
int conf_push(void **arr, size_t *n, size_t elem)
{
	if (!(*n & (*n - 1))) {
		void *q = realloc(*arr, (*n ? 2 * *n : 1) * elem);

		if (!q)
			return -1;
		*arr = q;
	}
	memset((char *)*arr + *n * elem, 0, elem);
	(*n)++;
	return 0;
}

static const char *sw_name(const void *ctx, uint32_t i)
{
	return ((const struct pstate *)ctx)->sws[i].name;
}

/* The index of switch NAME in st->sws, or -1. */
int conf_sw_find(const struct pstate *st, const char *name)
{
	uint32_t i = nameidx_find(&st->swx, name);

	return i == NAMEIDX_NONE ? -1 : (int)i;
}

/* Index the last switch of st->sws (its name not yet indexed). */
static int sw_index_last(struct pstate *st)
{
	return nameidx_add(&st->swx, (uint32_t)(st->nsws - 1), NULL);
}

static char *dupn(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* A positive finite capacity. */
static int parse_cap(const char *s, double *out)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(s, &end);
	if (errno || end == s || *end || !(x > 0) || x > 1e12)
		return -1;
	*out = x;
	return 0;
}

/* Switch names and hostlist atoms: letters, digits, '.', '_', '-'. */
static int name_char(int ch)
{
	return isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
}

static int valid_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!name_char((unsigned char)*s))
			return 0;
	return 1;
}

/* ---- pass 1: directives ---- */

/* Split LINE (modified in place) into whitespace-separated tokens. */
static size_t tokenize(char *line, char **tok, size_t max)
{
	size_t n = 0;
	char *p = line;

	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
	}
	return n;
}

/* "Key=Value" -> key (NUL-terminated in place) and value; NULL if no '='. */
static char *split_kv(char *tok)
{
	char *eq = strchr(tok, '=');

	if (!eq)
		return NULL;
	*eq = '\0';
	return eq + 1;
}

static int only_one(struct pstate *st, uint32_t line, char **tok, size_t ntok,
		    const char *key)
{
	if (ntok > 1)
		return perr(st, line, "%s= takes one value (unexpected '%s')",
			    key, tok[1]);
	return 0;
}

int conf_once(struct pstate *st, uint32_t line, uint32_t first, const char *key)
{
	if (first)
		return perr(st, line, "%s= given twice (first on line %u)", key,
			    first);
	return 0;
}

static int d_topology(struct pstate *st, uint32_t line, const char *rest)
{
	if (conf_once(st, line, st->topo_line, "Topology"))
		return -1;
	while (*rest == ' ' || *rest == '\t')
		rest++;
	if (!*rest)
		return perr(st, line, "Topology= needs a family");
	st->topo_line = line;
	st->topo_spec = strdup(rest);
	return st->topo_spec ? 0 : perr_nomem(st, line);
}

/* Whether V starts with a registry name and then ends or goes on with ':'
 * (NAME[:key=value,...]; the options are the registry's to check). */
static int spec_shaped(const char *v)
{
	const char *p = v;

	while (isalnum((unsigned char)*p) || *p == '_' || *p == '-')
		p++;
	return p != v && (!*p || *p == ':');
}

static int d_routing(struct pstate *st, uint32_t line, char **tok,
		     const char *v, size_t ntok)
{
	if (only_one(st, line, tok, ntok, "Routing") ||
	    conf_once(st, line, st->routing_line, "Routing"))
		return -1;
	if (!spec_shaped(v))
		return perr(st, line,
			    "bad routing '%s' (want NAME[:key=value,...])", v);
	st->routing_line = line;
	st->routing = strdup(v);
	return st->routing ? 0 : perr_nomem(st, line);
}

static int d_nodename(struct pstate *st, uint32_t line, char **tok,
		      const char *v, size_t ntok)
{
	const char *why;

	if (only_one(st, line, tok, ntok, "NodeName"))
		return -1;
	if ((why = hl_error(v)))
		return perr(st, line, "NodeName=%.80s%s: %s", v,
			    strlen(v) > 80 ? "..." : "", why);
	if (conf_push((void **)&st->names, &st->nnames, sizeof(*st->names)))
		return perr_nomem(st, line);
	st->names[st->nnames - 1].line = line;
	st->names[st->nnames - 1].expr = strdup(v);
	return st->names[st->nnames - 1].expr ? 0 : perr_nomem(st, line);
}

static int d_capacity(struct pstate *st, uint32_t line, char **tok,
		      const char *v, size_t ntok)
{
	const char *colon = strrchr(v, ':');
	struct cap_rule *r;
	double cap;

	if (only_one(st, line, tok, ntok, "Capacity"))
		return -1;
	if (!colon || colon == v)
		return perr(st, line,
			    "bad Capacity=%s (want KIND:CAP or "
			    "SWITCH-SWITCH:CAP)",
			    v);
	if (parse_cap(colon + 1, &cap))
		return perr(st, line,
			    "bad capacity '%s' (want a number above 0, at "
			    "most 1e12)",
			    colon + 1);
	if (conf_push((void **)&st->caps, &st->ncaps, sizeof(*st->caps)))
		return perr_nomem(st, line);
	r = &st->caps[st->ncaps - 1];
	r->line = line;
	r->cap = cap;
	r->target = dupn(v, (size_t)(colon - v));
	return r->target ? 0 : perr_nomem(st, line);
}

static int d_partpolicy(struct pstate *st, uint32_t line, char **tok,
			const char *v, size_t ntok)
{
	const char *colon = strchr(v, ':');
	struct part_policy *pp;

	if (only_one(st, line, tok, ntok, "PartitionPolicy"))
		return -1;
	if (!colon || colon == v || !colon[1] || colon[1] == ':')
		return perr(st, line,
			    "bad PartitionPolicy=%s (want "
			    "PARTITION:POLICY[:OPTIONS])",
			    v);
	for (size_t i = 0; i < st->npols; i++)
		if (strlen(st->pols[i].part) == (size_t)(colon - v) &&
		    !strncmp(st->pols[i].part, v, (size_t)(colon - v)))
			return perr(st, line,
				    "partition '%s' given twice "
				    "(first on line %u)",
				    st->pols[i].part, st->pols[i].line);
	if (conf_push((void **)&st->pols, &st->npols, sizeof(*st->pols)))
		return perr_nomem(st, line);
	pp = &st->pols[st->npols - 1];
	pp->line = line;
	pp->part = dupn(v, (size_t)(colon - v));
	pp->policy = strdup(colon + 1);
	return pp->part && pp->policy ? 0 : perr_nomem(st, line);
}

static int d_defpolicy(struct pstate *st, uint32_t line, char **tok,
		       const char *v, size_t ntok)
{
	if (only_one(st, line, tok, ntok, "DefaultPolicy") ||
	    conf_once(st, line, st->defpol_line, "DefaultPolicy"))
		return -1;
	if (*v == ':')
		return perr(st, line,
			    "bad DefaultPolicy=%s (want "
			    "POLICY[:OPTIONS])",
			    v);
	st->defpol_line = line;
	st->defpol = strdup(v);
	return st->defpol ? 0 : perr_nomem(st, line);
}

/* Wrap=cons_tres|linear (or the full plugin names): the stock select
 * plugin the Slurm plugin wraps. */
static int d_wrap(struct pstate *st, uint32_t line, char **tok, const char *v,
		  size_t ntok)
{
	if (only_one(st, line, tok, ntok, "Wrap") ||
	    conf_once(st, line, st->wrap_line, "Wrap"))
		return -1;
	if (!strcmp(v, "cons_tres") || !strcmp(v, WRAP_CONS_TRES))
		st->wrap = WRAP_CONS_TRES;
	else if (!strcmp(v, "linear") || !strcmp(v, WRAP_LINEAR))
		st->wrap = WRAP_LINEAR;
	else
		return perr(st, line, "Wrap=%s: must be cons_tres or linear",
			    v);
	st->wrap_line = line;
	return 0;
}

/* Predict=MODEL[:key=value,...]: the model of the plugin's prediction at
 * job start; whether it exists is the machine's check. */
static int d_predict(struct pstate *st, uint32_t line, char **tok,
		     const char *v, size_t ntok)
{
	if (only_one(st, line, tok, ntok, "Predict") ||
	    conf_once(st, line, st->predict_line, "Predict"))
		return -1;
	if (!spec_shaped(v))
		return perr(st, line,
			    "bad Predict=%s (want MODEL[:key=value,...])", v);
	st->predict_line = line;
	st->predict = strdup(v);
	return st->predict ? 0 : perr_nomem(st, line);
}

/* PredictBudget=MS: kept as text; the machine checks the number. */
static int d_budget(struct pstate *st, uint32_t line, char **tok, const char *v,
		    size_t ntok)
{
	if (only_one(st, line, tok, ntok, "PredictBudget") ||
	    conf_once(st, line, st->budget_line, "PredictBudget"))
		return -1;
	st->budget_line = line;
	st->budget = strdup(v);
	return st->budget ? 0 : perr_nomem(st, line);
}

/* RespectIsolation=yes|no: whether jobs of partitions without an
 * isolating policy avoid nodes that would share links with isolated
 * jobs. */
static int d_respect(struct pstate *st, uint32_t line, char **tok,
		     const char *v, size_t ntok)
{
	if (only_one(st, line, tok, ntok, "RespectIsolation") ||
	    conf_once(st, line, st->respect_line, "RespectIsolation"))
		return -1;
	if (!strcasecmp(v, "yes"))
		st->respect = 1;
	else if (!strcasecmp(v, "no"))
		st->respect = 0;
	else
		return perr(st, line,
			    "bad RespectIsolation=%s (want yes or no)", v);
	st->respect_line = line;
	return 0;
}

/* "sw2,sw3:2,sw4" -> links with capacities (0 = the default). */
static int parse_links(struct pstate *st, uint32_t line, struct sw_decl *d,
		       const char *v)
{
	while (*v) {
		size_t len = strcspn(v, ",");
		const char *colon = memchr(v, ':', len);
		size_t nl = colon ? (size_t)(colon - v) : len;
		struct sw_link *lk;

		if (conf_push((void **)&d->links, &d->nlinks,
			      sizeof(*d->links)))
			return perr_nomem(st, line);
		lk = &d->links[d->nlinks - 1];
		lk->name = dupn(v, nl);
		if (!lk->name)
			return perr_nomem(st, line);
		if (!valid_name(lk->name))
			return perr(st, line,
				    "bad switch name '%s' in Links=", lk->name);
		if (colon) {
			char cap[64];
			size_t cl = len - nl - 1;

			if (cl >= sizeof(cap)) /* no number is that long */
				return perr(st, line,
					    "bad capacity '%.20s...' in Links= "
					    "(more than %zu characters)",
					    colon + 1, sizeof(cap) - 1);
			memcpy(cap, colon + 1, cl);
			cap[cl] = '\0';
			if (parse_cap(cap, &lk->cap))
				return perr(st, line,
					    "bad capacity '%s' in "
					    "Links= (want a number above 0, at "
					    "most 1e12)",
					    cap);
		}
		v += len;
		if (*v == ',') {
			v++;
			if (!*v)
				return perr(st, line, "empty entry in Links=");
		}
	}
	return 0;
}

static int d_switch(struct pstate *st, uint32_t line, char **tok, size_t ntok)
{
	struct sw_decl *d;
	const char *name = tok[0] + strlen(tok[0]) + 1;
	int seen_nodes = 0, seen_links = 0;

	if (!valid_name(name))
		return perr(st, line,
			    "bad switch name '%s' (letters, digits, "
			    "'.', '_', '-')",
			    name);
	if (conf_sw_find(st, name) >= 0)
		return perr(st, line,
			    "switch '%s' defined twice "
			    "(first on line %u)",
			    name, st->sws[conf_sw_find(st, name)].line);
	if (st->nsws >= lim_get(LIM_SWITCHES)) {
		struct err e;

		lim_error(&e, LIM_SWITCHES, st->nsws + 1, "SwitchName= lines");
		return conf_perr_code(st, line, e.code, "%s", e.msg);
	}
	if (conf_push((void **)&st->sws, &st->nsws, sizeof(*st->sws)))
		return perr_nomem(st, line);
	d = &st->sws[st->nsws - 1];
	d->line = line;
	d->name = strdup(name);
	if (!d->name || sw_index_last(st))
		return perr_nomem(st, line);
	for (size_t i = 1; i < ntok; i++) {
		char *v = split_kv(tok[i]);

		if (!v)
			return perr(st, line, "expected Key=Value, got '%s'",
				    tok[i]);
		if (!*v)
			return perr(st, line, "%s= has an empty value", tok[i]);
		if (!strcasecmp(tok[i], "Nodes")) {
			const char *why = NULL;

			if (seen_nodes++)
				return perr(st, line, "Nodes= given twice");
			if (strspn(v, "0123456789") != strlen(v))
				why = hl_error(v);
			if (why)
				return perr(st, line, "Nodes=%.80s%s: %s", v,
					    strlen(v) > 80 ? "..." : "", why);
			d->nodes = strdup(v);
			if (!d->nodes)
				return perr_nomem(st, line);
		} else if (!strcasecmp(tok[i], "Links")) {
			if (seen_links++)
				return perr(st, line, "Links= given twice");
			if (parse_links(st, line, d, v))
				return -1;
		} else {
			return perr(st, line,
				    "unknown key '%s' on a "
				    "SwitchName= line (Nodes=, Links=)",
				    tok[i]);
		}
	}
	return 0;
}

/* Forward=SWITCH HOSTLIST:NEXT[@K] ...: a switch's forwarding table
 * (resolved once the nodes are named: apply_forward). */
static int d_forward(struct pstate *st, uint32_t line, char **tok,
		     const char *v, size_t ntok)
{
	struct fwd_decl *d;

	if (!valid_name(v))
		return perr(st, line,
			    "bad switch name '%s' in Forward= (letters, "
			    "digits, '.', '_', '-')",
			    v);
	if (ntok < 2)
		return perr(st, line,
			    "Forward=%s gives no route (want Forward=SWITCH "
			    "HOSTLIST:NEXT[@K] ...)",
			    v);
	if (conf_push((void **)&st->fwds, &st->nfwds, sizeof(*st->fwds)))
		return perr_nomem(st, line);
	d = &st->fwds[st->nfwds - 1];
	d->line = line;
	d->sw = strdup(v);
	d->route = calloc(ntok, sizeof(*d->route));
	if (!d->sw || !d->route)
		return perr_nomem(st, line);
	for (size_t i = 1; i < ntok; i++) {
		const char *colon = strrchr(tok[i], ':');

		if (!colon || colon == tok[i] || !colon[1])
			return perr(st, line,
				    "bad route '%s' in Forward=%s (want "
				    "HOSTLIST:NEXT or HOSTLIST:NEXT@K)",
				    tok[i], v);
		d->route[d->nroute] = strdup(tok[i]);
		if (!d->route[d->nroute++])
			return perr_nomem(st, line);
	}
	return 0;
}

static int directive(struct pstate *st, uint32_t line, char *text)
{
	char *tok[4096];
	size_t ntok;
	const char *rest;
	char *v;

	/* Topology= takes the rest of the line as a family spec */
	rest = text + strspn(text, " \t\r");
	if (!strncasecmp(rest, "Topology=", 9))
		return d_topology(st, line, rest + 9);
	ntok = tokenize(text, tok, sizeof(tok) / sizeof(tok[0]));
	if (ntok == 0)
		return 0;
	if (ntok > sizeof(tok) / sizeof(tok[0]))
		return perr(st, line, "too many words on one line");
	v = split_kv(tok[0]);
	if (!v)
		return perr(st, line, "expected Key=Value, got '%s'", tok[0]);
	if (!*v)
		return perr(st, line, "%s= has an empty value", tok[0]);
	if (!strcasecmp(tok[0], "SwitchName"))
		return d_switch(st, line, tok, ntok);
	if (!strcasecmp(tok[0], "Routing"))
		return d_routing(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "NodeName"))
		return d_nodename(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "Capacity"))
		return d_capacity(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "PartitionPolicy"))
		return d_partpolicy(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "DefaultPolicy"))
		return d_defpolicy(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "Wrap"))
		return d_wrap(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "Predict"))
		return d_predict(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "PredictBudget"))
		return d_budget(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "RespectIsolation"))
		return d_respect(st, line, tok, v, ntok);
	if (!strcasecmp(tok[0], "Forward"))
		return d_forward(st, line, tok, v, ntok);
	return perr(st, line,
		    "unknown key '%s' (Topology, Routing, NodeName, "
		    "Capacity, PartitionPolicy, DefaultPolicy, SwitchName, "
		    "Forward, Wrap, Predict, PredictBudget, "
		    "RespectIsolation)",
		    tok[0]);
}

/* Split TEXT into logical lines ('#' starts a comment; a '\' ending a
 * line joins the next line, whose leading blanks are dropped) and hand
 * each to directive() with the number of its first line. */
static int read_lines(struct pstate *st, const char *text)
{
	const char *p = text;
	uint32_t line = 0, start = 0;
	char *buf = NULL;
	size_t blen = 0, bcap = 0;
	int rc = 0, joining = 0;

	while (*p && !rc) {
		size_t len = strcspn(p, "\n");
		const char *hash = memchr(p, '#', len);
		size_t keep = hash ? (size_t)(hash - p) : len;
		const char *q = p;
		int cont;

		line++;
		if (!joining)
			start = line;
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
		if (blen + keep + 1 > bcap) {
			size_t nc = (blen + keep + 1) * 2;
			char *nb = realloc(buf, nc);

			if (!nb) {
				rc = perr_nomem(st, line);
				break;
			}
			buf = nb;
			bcap = nc;
		}
		memcpy(buf + blen, q, keep);
		blen += keep;
		buf[blen] = '\0';
		p += len;
		if (*p == '\n')
			p++;
		if (cont && !*p) {
			rc = perr(st, line,
				  "the line ends in '\\' (continued) but "
				  "the file ends here");
			break;
		}
		joining = cont;
		if (joining)
			continue;
		rc = directive(st, start, buf);
		blen = 0;
	}
	st->lastline = line ? line : 1;
	free(buf);
	return rc;
}

static void pstate_free(struct pstate *st)
{
	free(st->topo_spec);
	free(st->routing);
	free(st->defpol);
	free(st->predict);
	free(st->budget);
	for (size_t i = 0; i < st->nnames; i++)
		free(st->names[i].expr);
	free(st->names);
	for (size_t i = 0; i < st->ncaps; i++)
		free(st->caps[i].target);
	free(st->caps);
	for (size_t i = 0; i < st->npols; i++) {
		free(st->pols[i].part);
		free(st->pols[i].policy);
	}
	free(st->pols);
	for (size_t i = 0; i < st->nsws; i++) {
		for (size_t k = 0; k < st->sws[i].nlinks; k++)
			free(st->sws[i].links[k].name);
		free(st->sws[i].links);
		free(st->sws[i].name);
		free(st->sws[i].nodes);
	}
	free(st->sws);
	nameidx_free(&st->swx);
	for (size_t i = 0; i < st->nfwds; i++) {
		for (size_t k = 0; k < st->fwds[i].nroute; k++)
			free(st->fwds[i].route[k]);
		free(st->fwds[i].route);
		free(st->fwds[i].sw);
	}
	free(st->fwds);
}

/* ---- pass 2: capacities ---- */

/* Which links a link-kind name covers. */
static int kind_match(const char *kind, enum topo_link_kind k)
{
	if (!strcmp(kind, "inject"))
		return k == TOPO_LINK_INJECT || k == TOPO_LINK_EJECT;
	if (!strcmp(kind, "local"))
		return k == TOPO_LINK_LOCAL;
	if (!strcmp(kind, "global"))
		return k == TOPO_LINK_GLOBAL;
	/* "link": every switch-to-switch link */
	return k != TOPO_LINK_INJECT && k != TOPO_LINK_EJECT;
}

/* A switch of the pair: a graph switch name, else a decimal id. */
static uint32_t cap_switch(const struct pstate *st, const struct topo *t,
			   const char *s, size_t n)
{
	char buf[128];
	char *end;
	unsigned long x;

	if (!n || n >= sizeof(buf))
		return TOPO_NONE;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (t->kind == TOPO_GRAPH) {
		int i = conf_sw_find(st, buf);

		return i < 0 ? TOPO_NONE : (uint32_t)i;
	}
	if (strspn(buf, "0123456789") != n)
		return TOPO_NONE;
	errno = 0;
	x = strtoul(buf, &end, 10);
	if (errno || x >= t->nswitches)
		return TOPO_NONE;
	return (uint32_t)x;
}

static int apply_cap(struct pstate *st, struct topo *t,
		     const struct cap_rule *r)
{
	static const char *const kinds[] = { "inject", "local", "global",
					     "link", NULL };
	uint32_t hit = 0;

	for (size_t i = 0; kinds[i]; i++) {
		if (strcmp(r->target, kinds[i]))
			continue;
		for (uint32_t l = 0; l < t->nlinks; l++)
			if (kind_match(kinds[i], t->links[l].kind)) {
				t->links[l].capacity = r->cap;
				hit++;
			}
		if (!hit)
			return perr(st, r->line,
				    "Capacity=%s: this %s "
				    "topology has no %s links",
				    r->target, t->family, r->target);
		return 0;
	}
	/* SWITCH-SWITCH: try every '-' as the separator (names may hold
	 * '-'); the first split naming two switches wins */
	for (const char *dash = strchr(r->target, '-'); dash;
	     dash = strchr(dash + 1, '-')) {
		uint32_t a = cap_switch(st, t, r->target,
					(size_t)(dash - r->target));
		uint32_t b = cap_switch(st, t, dash + 1, strlen(dash + 1));
		uint32_t cnt, first;

		if (a == TOPO_NONE || b == TOPO_NONE)
			continue;
		first = topo_link_between(t, a, b, &cnt);
		if (first == TOPO_NONE) {
			char la[80], lb[80];

			return perr(st, r->line,
				    "Capacity=%s: no link between %s and %s",
				    r->target,
				    topo_switch_label(t, a, la, sizeof(la)),
				    topo_switch_label(t, b, lb, sizeof(lb)));
		}
		for (uint32_t l = first; l < first + cnt; l++) {
			t->links[l].capacity = r->cap;
			t->links[t->links[l].reverse].capacity = r->cap;
		}
		return 0;
	}
	return perr(st, r->line,
		    "Capacity=%s: not a link kind (inject, "
		    "local, global, link) nor a pair of %s",
		    r->target,
		    t->kind == TOPO_GRAPH ? "switch names A-B" :
					    "switch ids A-B");
}

/* ---- pass 2: node names ---- */

static const char *node_name(const void *ctx, uint32_t i)
{
	const struct topo_conf *c = ctx;

	return c->name_buf + c->name_off[i];
}

static int build_names(struct pstate *st, struct topo_conf *c)
{
	uint32_t N = topo_num_nodes(c->topo), i = 0, prev;
	uint64_t total = 0;
	size_t blen = 0, bcap = 0;

	if (!st->nnames)
		return 0;
	for (size_t k = 0; k < st->nnames; k++) {
		struct hl *hl = hl_parse(st->names[k].expr);

		if (!hl) {
			const char *why = hl_error(st->names[k].expr);

			return conf_perr_code(st, st->names[k].line,
					      why ? EINVAL : ENOMEM,
					      "bad hostlist '%s': %s",
					      st->names[k].expr,
					      why ? why : "out of memory");
		}
		total += (uint64_t)hl_count(hl);
		hl_destroy(hl);
	}
	if (total != N)
		return perr(st, st->names[0].line,
			    "NodeName= names %llu "
			    "node%s but the topology has %u",
			    (unsigned long long)total, total == 1 ? "" : "s",
			    N);
	c->name_off = malloc((N ? N : 1) * sizeof(*c->name_off));
	if (!c->name_off)
		return perr_nomem(st, st->names[0].line);
	for (size_t k = 0; k < st->nnames; k++) {
		struct hl *hl = hl_parse(st->names[k].expr);
		char *h;

		if (!hl)
			return perr_nomem(st, st->names[k].line);
		while ((h = hl_shift(hl))) {
			size_t n = strlen(h) + 1;

			if (blen + n > bcap) {
				size_t nc = bcap ? bcap * 2 : 4096;
				char *q;

				while (nc < blen + n)
					nc *= 2;
				q = realloc(c->name_buf, nc);
				if (!q) {
					free(h);
					hl_destroy(hl);
					return perr(st, st->names[k].line,
						    "out of memory");
				}
				c->name_buf = q;
				bcap = nc;
			}
			memcpy(c->name_buf + blen, h, n);
			free(h);
			c->name_off[i] = (uint32_t)blen;
			blen += n;
			if (nameidx_add(&c->nodex, i, &prev)) {
				hl_destroy(hl);
				return perr_nomem(st, st->names[k].line);
			}
			if (prev != NAMEIDX_NONE) {
				hl_destroy(hl);
				return perr(st, st->names[k].line,
					    "node name "
					    "'%s' given twice",
					    c->name_buf + c->name_off[i]);
			}
			i++;
		}
		hl_destroy(hl);
	}
	c->nnames = i;
	return 0;
}

/* ---- pass 2: forwarding tables ---- */

/* Route R ("HOSTLIST:NEXT[@K]") of switch SW into FWD ([S x N] link ids):
 * the K-th cable (1-based, as the parallel links are numbered) from SW to
 * NEXT for every node of HOSTLIST. */
static int forward_route(struct pstate *st, struct topo_conf *c,
			 const struct fwd_decl *d, uint32_t sw, const char *r,
			 uint32_t *fwd)
{
	const struct topo *t = c->topo;
	uint32_t N = topo_num_nodes(t), cnt, first, k = 1;
	const char *colon = strrchr(r, ':'), *at = strchr(colon, '@');
	char *hlx = dupn(r, (size_t)(colon - r)), *next, *name;
	struct hl *h = NULL;
	int nx, rc = -1;

	next = dupn(colon + 1,
		    at ? (size_t)(at - colon - 1) : strlen(colon + 1));
	if (!hlx || !next) {
		perr_nomem(st, d->line);
		goto out;
	}
	if (at && (sscanf(at + 1, "%u", &k) != 1 || !k ||
		   strspn(at + 1, "0123456789") != strlen(at + 1))) {
		perr(st, d->line, "Forward=%s: bad cable number in '%s'", d->sw,
		     r);
		goto out;
	}
	nx = conf_sw_find(st, next);
	first = nx < 0 ? TOPO_NONE :
			 topo_link_between(t, sw, (uint32_t)nx, &cnt);
	if (first == TOPO_NONE || k > cnt) {
		perr(st, d->line, "Forward=%s: '%s': %s", d->sw, r,
		     nx < 0		? "no such switch" :
		     first == TOPO_NONE ? "no cable to that switch" :
					  "fewer cables to that switch");
		goto out;
	}
	h = hl_parse(hlx);
	if (!h) {
		const char *why = hl_error(hlx);

		conf_perr_code(st, d->line, why ? EINVAL : ENOMEM,
			       "Forward=%s: bad hostlist '%s': %s", d->sw, hlx,
			       why ? why : "out of memory");
		goto out;
	}
	while ((name = hl_shift(h))) {
		uint32_t i = topo_conf_node_index(c, name);

		if (i == TOPO_NONE) {
			perr(st, d->line, "Forward=%s: no node named '%s'",
			     d->sw, name);
			free(name);
			goto out;
		}
		if (fwd[(size_t)sw * N + i] != TOPO_NONE) {
			perr(st, d->line, "Forward=%s: node '%s' given twice",
			     d->sw, name);
			free(name);
			goto out;
		}
		fwd[(size_t)sw * N + i] = first + k - 1;
		free(name);
	}
	rc = 0;
out:
	hl_destroy(h);
	free(hlx);
	free(next);
	return rc;
}

/* Every Forward= line into the topology's table, checked: every route
 * between two nodes reaches its destination. */
static int apply_forward(struct pstate *st, struct topo_conf *c)
{
	struct topo *t = c->topo;
	uint32_t S = topo_num_switches(t), N = topo_num_nodes(t);
	uint32_t *fwd, *first_line;
	uint32_t bad, node, from;
	char lb[80], lf[80];
	int r;

	if (!st->nfwds)
		return 0;
	if (t->kind != TOPO_GRAPH || !c->nnames)
		return perr(st, st->fwds[0].line,
			    "Forward= needs Topology=graph with node names");
	fwd = malloc(((size_t)S * N + 1) * sizeof(*fwd));
	first_line = calloc((size_t)S + 1, sizeof(*first_line));
	if (!fwd || !first_line) {
		free(fwd);
		free(first_line);
		return perr_nomem(st, st->fwds[0].line);
	}
	memset(fwd, 0xff, ((size_t)S * N + 1) * sizeof(*fwd));
	for (size_t i = 0; i < st->nfwds; i++) {
		const struct fwd_decl *d = &st->fwds[i];
		int sw = conf_sw_find(st, d->sw);

		if (sw < 0) {
			perr(st, d->line, "Forward=%s: no such switch", d->sw);
			goto fail;
		}
		if (!first_line[sw])
			first_line[sw] = d->line;
		for (size_t q = 0; q < d->nroute; q++)
			if (forward_route(st, c, d, (uint32_t)sw, d->route[q],
					  fwd))
				goto fail;
	}
	topo_set_forwarding(t, fwd);
	fwd = NULL;
	r = topo_check_forwarding(t, &bad, &node, &from);
	if (r) {
		perr(st, first_line[bad] ? first_line[bad] : st->fwds[0].line,
		     r == 1 ? "Forward=%s: no route to node %s (traffic from "
			      "%s to it passes here)" :
			      "Forward=%s: the routes to node %s loop "
			      "through it (from %s)",
		     topo_switch_label(t, bad, lb, sizeof(lb)),
		     topo_conf_node_name(c, node),
		     topo_switch_label(t, from, lf, sizeof(lf)));
		goto fail;
	}
	free(first_line);
	return 0;
fail:
	free(fwd);
	free(first_line);
	return -1;
}

/* ---- the whole file ---- */

static struct topo *build_topo(struct pstate *st)
{
	struct topo_param params[TOPO_MAX_PARAMS];
	char family[64];
	size_t n = 0;
	struct err sub = { 0 };
	struct topo *t;

	if (!st->topo_line) {
		perr(st, st->lastline, "no Topology= directive");
		return NULL;
	}
	if (topo_parse_spec(st->topo_spec, family, sizeof(family), params, &n,
			    &sub)) {
		conf_perr_code(st, st->topo_line, sub.code, "%s", sub.msg);
		return NULL;
	}
	if (!strcmp(family, "graph"))
		return conf_build_graph(st, params, n);
	if (st->nsws) {
		perr(st, st->sws[0].line,
		     "SwitchName= needs Topology=graph "
		     "(this file has Topology=%s)",
		     family);
		return NULL;
	}
	t = topo_create_family(family, params, n, &sub);
	if (!t)
		conf_perr_code(st, st->topo_line, sub.code, "%s", sub.msg);
	return t;
}

struct topo_conf *topo_conf_parse(const char *name, const char *text,
				  struct err *err)
{
	struct pstate st = { .file = name, .err = err };
	struct topo_conf *c = calloc(1, sizeof(*c));

	nameidx_init(&st.swx, sw_name, &st);
	if (c)
		nameidx_init(&c->nodex, node_name, c);
	if (!c || !(c->name = strdup(name))) {
		free(c);
		err_nomem(err, "%s: out of memory", name);
		return NULL;
	}
	if (read_lines(&st, text))
		goto fail;
	c->topo = build_topo(&st);
	if (!c->topo)
		goto fail;
	for (size_t i = 0; i < st.ncaps; i++)
		if (apply_cap(&st, c->topo, &st.caps[i]))
			goto fail;
	if (build_names(&st, c) || apply_forward(&st, c))
		goto fail;
	c->lines[TOPO_CONF_TOPOLOGY] = st.topo_line;
	c->lines[TOPO_CONF_ROUTING] = st.routing_line;
	c->lines[TOPO_CONF_NODENAME] = st.nnames ? st.names[0].line : 0;
	c->lines[TOPO_CONF_DEFAULT_POLICY] = st.defpol_line;
	c->lines[TOPO_CONF_WRAP] = st.wrap_line;
	c->lines[TOPO_CONF_PREDICT] = st.predict_line;
	c->lines[TOPO_CONF_PREDICT_BUDGET] = st.budget_line;
	c->lines[TOPO_CONF_RESPECT_ISOLATION] = st.respect_line;
	c->respect = st.respect;
	c->routing = st.routing;
	st.routing = NULL;
	c->defpol = st.defpol;
	st.defpol = NULL;
	c->wrap = st.wrap ? st.wrap : WRAP_CONS_TRES;
	c->predict = st.predict;
	st.predict = NULL;
	c->budget = st.budget;
	st.budget = NULL;
	c->pols = st.pols;
	c->npols = (uint32_t)st.npols;
	st.pols = NULL;
	st.npols = 0;
	pstate_free(&st);
	return c;
fail:
	pstate_free(&st);
	topo_conf_destroy(c);
	return NULL;
}

/* The text of PATH, NUL-terminated (free), or NULL with err set ("PATH:
 * cannot open: ...", "PATH:LINE: NUL byte", a line or file over its
 * limit). */
static char *read_text(const char *path, struct err *err)
{
	FILE *f = fopen(path, "rb");
	char *text;
	size_t len;

	if (!f) {
		err_sys(err, errno, "%s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	text = lim_read(f, path, 1, &len, err);
	fclose(f);
	return text;
}

struct topo_conf *topo_conf_load(const char *path, struct err *err)
{
	char *text = read_text(path, err);
	struct topo_conf *c;

	if (!text)
		return NULL;
	c = topo_conf_parse(path, text, err);
	free(text);
	return c;
}

const char *topo_conf_peek_wrap(const char *path, struct err *err)
{
	char *text = read_text(path, err);
	struct pstate st = { .file = path, .err = err };
	const char *wrap = NULL;

	nameidx_init(&st.swx, sw_name, &st);
	if (!text)
		return NULL;
	if (!read_lines(&st, text))
		wrap = st.wrap ? st.wrap : WRAP_CONS_TRES;
	pstate_free(&st);
	free(text);
	return wrap;
}

void topo_conf_destroy(struct topo_conf *c)
{
	if (!c)
		return;
	topo_destroy(c->topo);
	free(c->name);
	free(c->routing);
	free(c->defpol);
	free(c->predict);
	free(c->budget);
	for (uint32_t i = 0; i < c->npols; i++) {
		free(c->pols[i].part);
		free(c->pols[i].policy);
	}
	free(c->pols);
	free(c->name_buf);
	free(c->name_off);
	nameidx_free(&c->nodex);
	free(c);
}

const struct topo *topo_conf_topo(const struct topo_conf *c)
{
	return c->topo;
}

struct topo *topo_conf_take_topo(struct topo_conf *c)
{
	struct topo *t = c->topo;

	c->topo = NULL;
	return t;
}

const char *topo_conf_routing(const struct topo_conf *c)
{
	return c->routing;
}

const char *topo_conf_wrap(const struct topo_conf *c)
{
	return c->wrap;
}

const char *topo_conf_predict(const struct topo_conf *c)
{
	return c->predict;
}

const char *topo_conf_predict_budget(const struct topo_conf *c)
{
	return c->budget;
}

bool topo_conf_respect_isolation(const struct topo_conf *c)
{
	return c->respect;
}

const char *topo_conf_node_name(const struct topo_conf *c, uint32_t i)
{
	if (i >= c->nnames)
		return NULL;
	return c->name_buf + c->name_off[i];
}

uint32_t topo_conf_node_index(const struct topo_conf *c, const char *name)
{
	uint32_t i;

	if (!c->nnames || !name)
		return TOPO_NONE;
	i = nameidx_find(&c->nodex, name);
	return i == NAMEIDX_NONE ? TOPO_NONE : i;
}

int topo_conf_has_names(const struct topo_conf *c)
{
	return c->nnames > 0;
}

const char *topo_conf_policy(const struct topo_conf *c, const char *partition)
{
	for (uint32_t i = 0; partition && i < c->npols; i++)
		if (!strcmp(c->pols[i].part, partition))
			return c->pols[i].policy;
	return c->defpol;
}

const char *topo_conf_default_policy(const struct topo_conf *c)
{
	return c->defpol;
}

uint32_t topo_conf_num_partition_policies(const struct topo_conf *c)
{
	return c->npols;
}

int topo_conf_partition_policy(const struct topo_conf *c, uint32_t i,
			       const char **part, const char **policy,
			       uint32_t *line)
{
	if (i >= c->npols)
		return -1;
	*part = c->pols[i].part;
	*policy = c->pols[i].policy;
	if (line)
		*line = c->pols[i].line;
	return 0;
}

uint32_t topo_conf_line(const struct topo_conf *c, enum topo_conf_key key)
{
	return (unsigned)key < TOPO_CONF_NKEYS ? c->lines[key] : 0;
}

const char *topo_conf_name(const struct topo_conf *c)
{
	return c->name;
}
