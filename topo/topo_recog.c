/* topo_recog.c - family recognition of an explicit switch graph
 * (Topology=graph), so that what a generated family knows (levels, pods,
 * groups) also holds for a real fabric read from a topo.conf.
 *
 * The switch graph must be connected; otherwise nothing is recognised and
 * why names its parts (topo_conf refuses such a file at load).
 *
 * Then the families of the registry that have a recogniser
 * (topo_family_ops.recognise) are asked in turn, by descending priority:
 * the first to say yes names the family; when none does, why joins their
 * "no"s: "not a fat-tree: ...; not a dragonfly: ...".  The recognisers
 * are topo_recog_<family>.c; the graph helpers they share are here
 * (topo_recog_impl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/topo_recog_impl.h"

/* Distinct switch neighbours of S, ascending, into NB (degree room). */
uint32_t recog_neighbours(const struct topo *t, uint32_t s, uint32_t *nb)
{
	uint32_t cnt, first = topo_switch_out(t, s, &cnt), n = 0;

	for (uint32_t i = 0; i < cnt; i++) {
		uint32_t to = t->links[first + i].to;

		if (!n || nb[n - 1] != to)
			nb[n++] = to;
	}
	return n;
}

uint32_t recog_max_degree(const struct topo *t)
{
	uint32_t m = 0;

	for (uint32_t s = 0; s < t->nswitches; s++)
		if (t->out_off[s + 1] - t->out_off[s] > m)
			m = t->out_off[s + 1] - t->out_off[s];
	return m;
}

uint32_t recog_number_classes(uint32_t S, uint32_t *p, const uint8_t *mask,
			      uint32_t *grp, uint32_t *root_id)
{
	uint32_t n = 0;

	for (uint32_t s = 0; s < S; s++)
		root_id[s] = TOPO_NONE;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t r;

		if (!mask[s]) {
			grp[s] = TOPO_NONE;
			continue;
		}
		r = recog_uf_find(p, s);
		if (root_id[r] == TOPO_NONE)
			root_id[r] = n++;
		grp[s] = root_id[r];
	}
	return n;
}

/* ---- connectivity ---- */

/* The connected parts of the switch graph, into COMP (part of each
 * switch, numbered by their lowest switch).  Returns the count, or
 * UINT32_MAX when out of memory. */
static uint32_t parts(const struct topo *t, uint32_t *comp)
{
	uint32_t S = t->nswitches,
		 *par = malloc(((size_t)S + 1) * sizeof(*par));
	uint32_t *root = malloc(((size_t)S + 1) * sizeof(*root));
	uint8_t *all = malloc((size_t)S + 1);
	uint32_t n;

	if (!par || !root || !all) {
		free(par);
		free(root);
		free(all);
		return UINT32_MAX;
	}
	for (uint32_t s = 0; s < S; s++) {
		par[s] = s;
		all[s] = 1;
	}
	for (uint32_t l = topo_first_switch_link(t); l < t->nlinks; l++)
		par[recog_uf_find(par, t->links[l].from)] =
			recog_uf_find(par, t->links[l].to);
	n = recog_number_classes(S, par, all, comp, root);
	free(par);
	free(root);
	free(all);
	return n;
}

/* WHY: the parts of a disconnected graph, "2 parts: a, b (2 switches,
 * 4 nodes); c (1 switch, 2 nodes)", the first three parts and three
 * switches of each named. */
static void describe_parts(const struct topo *t, const uint32_t *comp,
			   uint32_t np, char *why, size_t len)
{
	size_t off = 0;

	off += (size_t)snprintf(why, len,
				"the switch graph is not connected (%u "
				"parts: ",
				np);
	for (uint32_t p = 0; p < np && p < 3 && off < len; p++) {
		uint32_t ns = 0, nn = 0, shown = 0;
		char b[80];

		for (uint32_t s = 0; s < t->nswitches; s++) {
			if (comp[s] != p)
				continue;
			ns++;
			nn += recog_nnodes(t, s);
			if (shown < 3 && off < len)
				off += (size_t)snprintf(
					why + off, len - off, "%s%s",
					shown++ ? ", " : "",
					topo_switch_label(t, s, b, sizeof(b)));
		}
		if (off < len)
			off += (size_t)snprintf(why + off, len - off,
						"%s (%u switch%s, %u node%s)%s",
						ns > shown ? ", ..." : "", ns,
						ns == 1 ? "" : "es", nn,
						nn == 1 ? "" : "s",
						p + 1 < np && p < 2 ? "; " :
						np > 3		    ? "; ..." :
								      "");
	}
	if (off < len)
		snprintf(why + off, len - off, ")");
}

/* ---- the families' recognisers ---- */

/* Whether family A's recogniser is asked before family B's (indices into
 * the registry): higher priority first, ties in registry order. */
static bool asked_before(size_t a, size_t b)
{
	int pa = topo_family_table[a]->recognise.priority;
	int pb = topo_family_table[b]->recognise.priority;

	return pa != pb ? pa > pb : a < b;
}

/* The registry index of the family whose recogniser is asked after that
 * of family AT (SIZE_MAX: the first); SIZE_MAX after the last. */
static size_t next_recogniser(size_t at)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; topo_family_table[i]; i++) {
		if (!topo_family_table[i]->recognise.fn ||
		    (at != SIZE_MAX && !asked_before(at, i)))
			continue;
		if (best == SIZE_MAX || asked_before(i, best))
			best = i;
	}
	return best;
}

/* Ask the recognisers of the families in turn whether connected graph T is
 * theirs, each with LEV, GRP, IDLE zeroed and RC holding T's parts only.
 * Returns 0 (the first yes: LEV, GRP, IDLE, RC its answer), 1 (every
 * recogniser said no: t->recog.why their reasons) or -1 (memory). */
static int ask_families(struct topo *t, uint32_t *lev, uint32_t *grp,
			uint8_t *idle, struct topo_recog *rc)
{
	size_t S = t->nswitches, off = 0, len = sizeof(t->recog.why);
	int r = 1;

	for (size_t i = next_recogniser(SIZE_MAX); i != SIZE_MAX && r > 0;
	     i = next_recogniser(i)) {
		const struct topo_recogniser *g =
			&topo_family_table[i]->recognise;
		char why[140] = "";

		memset(lev, 0, (S + 1) * sizeof(*lev));
		memset(grp, 0, (S + 1) * sizeof(*grp));
		memset(idle, 0, S + 1);
		*rc = (struct topo_recog){ .parts = t->recog.parts };
		r = g->fn(t, lev, grp, idle, rc, why, sizeof(why));
		if (r > 0 && off < len)
			off += (size_t)snprintf(t->recog.why + off, len - off,
						"%snot a %s: %s",
						off ? "; " : "", g->as, why);
	}
	return r;
}

int topo_recognise(struct topo *t)
{
	uint32_t S = t->nswitches;
	uint32_t *lev = malloc(((size_t)S + 1) * sizeof(*lev));
	uint32_t *grp = malloc(((size_t)S + 1) * sizeof(*grp));
	uint8_t *idle = calloc((size_t)S + 1, 1);
	struct topo_recog rc = { 0 };
	int r;

	if (!lev || !grp || !idle)
		goto nomem;
	rc.parts = parts(t, grp);
	if (rc.parts == UINT32_MAX)
		goto nomem;
	t->recog.parts = rc.parts;
	if (rc.parts > 1) {
		describe_parts(t, grp, rc.parts, t->recog.why,
			       sizeof(t->recog.why));
		goto none;
	}
	r = ask_families(t, lev, grp, idle, &rc);
	if (r < 0)
		goto nomem;
	if (r > 0)
		goto none;
	t->recog = rc;
	free(t->sw_level);
	free(t->sw_group);
	free(t->sw_idle);
	t->sw_level = lev;
	t->sw_group = grp;
	t->sw_idle = rc.idle ? idle : NULL;
	if (!rc.idle)
		free(idle);
	t->ngroups = rc.groups;
	return 0;
none:
	free(lev);
	free(grp);
	free(idle);
	return 0;
nomem:
	free(lev);
	free(grp);
	free(idle);
	return -1;
}

const char *topo_graph_family(const struct topo *t)
{
	return t->kind == TOPO_GRAPH ? t->recog.family : NULL;
}

const char *topo_graph_why(const struct topo *t)
{
	if (t->kind != TOPO_GRAPH)
		return "not an explicit graph";
	return t->recog.family ? NULL : t->recog.why;
}

uint32_t topo_graph_levels(const struct topo *t)
{
	return topo_graph_family(t) ? t->recog.levels : 0;
}

uint32_t topo_graph_global_links(const struct topo *t)
{
	return topo_graph_family(t) ? t->recog.global_links : 0;
}

int topo_graph_info(const struct topo *t, struct topo_graph_info *gi)
{
	memset(gi, 0, sizeof(*gi));
	if (t->kind != TOPO_GRAPH)
		return -1;
	gi->family = t->recog.family;
	gi->why = topo_graph_why(t);
	gi->parts = t->recog.parts;
	if (!gi->family)
		return 0;
	gi->levels = t->recog.levels;
	gi->groups = t->recog.groups;
	gi->group_size = t->recog.group_size;
	gi->rows = t->recog.rows;
	gi->cols = t->recog.cols;
	gi->global_links = t->recog.global_links;
	gi->pair_min = t->recog.pair_min;
	gi->pair_max = t->recog.pair_max;
	gi->idle = t->recog.idle;
	gi->hosting = t->recog.hosting;
	return 0;
}

bool topo_switch_idle(const struct topo *t, uint32_t sw)
{
	return t->sw_idle && sw < t->nswitches && t->sw_idle[sw];
}

/* The family a graph was recognised as, from the registry; NULL for
 * another topology or a graph recognised as nothing. */
static const struct topo_family_ops *recognised(const struct topo *t)
{
	const char *f = topo_graph_family(t);

	return f ? topo_family_find(f) : NULL;
}

enum topo_kind topo_behaves_as(const struct topo *t)
{
	const struct topo_family_ops *f = recognised(t);

	return f ? f->kind : t->kind;
}

const char *topo_behaves_as_family(const struct topo *t)
{
	const struct topo_family_ops *f = recognised(t);

	return f ? f->name : t->family;
}
