/* topo.c - the topology object: builder, numbering contract, accessors,
 * statistics and the consistency checker. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "topo/topo_impl.h"
#include "topo/util/limits.h"
#include "topo/util/par.h"
#include "topo/util/rng.h"

int tb_init(struct topo_builder *b, uint32_t nswitches)
{
	memset(b, 0, sizeof(*b));
	b->nswitches = nswitches;
	b->inject_cap = 1.0;
	return 0;
}

void tb_free(struct topo_builder *b)
{
	if (!b)
		return;
	free(b->cables);
	free(b->node_sw);
	free(b->sw_group);
	free(b->sw_level);
	memset(b, 0, sizeof(*b));
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t n;
	void *q;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap * 2 : 64;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

int tb_check_size(uint64_t switches, uint64_t nodes, uint64_t cables,
		  struct err *err)
{
	uint64_t links = 2 * nodes + 2 * cables;

	if (switches > lim_get(LIM_SWITCHES))
		return lim_error(err, LIM_SWITCHES, switches, "switches");
	if (nodes > lim_get(LIM_NODES))
		return lim_error(err, LIM_NODES, nodes, "nodes");
	if (links / 2 < nodes || links > lim_get(LIM_LINKS))
		return lim_error(err, LIM_LINKS,
				 links / 2 < nodes ? UINT64_MAX : links,
				 "directed links");
	return 0;
}

int tb_cable(struct topo_builder *b, uint32_t a, uint32_t bsw, double cap,
	     enum topo_link_kind kind_ab, enum topo_link_kind kind_ba)
{
	if (a >= b->nswitches || bsw >= b->nswitches || a == bsw || !(cap > 0))
		return -1;
	if (grow((void **)&b->cables, &b->cap_cables, b->ncables + 1,
		 sizeof(*b->cables)))
		return -1;
	b->cables[b->ncables++] = (struct tb_cable){
		.a = a,
		.b = bsw,
		.cap = cap,
		.kind_ab = kind_ab,
		.kind_ba = kind_ba,
	};
	return 0;
}

int tb_node(struct topo_builder *b, uint32_t sw)
{
	if (sw >= b->nswitches)
		return -1;
	if (grow((void **)&b->node_sw, &b->cap_nodes, b->nnodes + 1,
		 sizeof(*b->node_sw)))
		return -1;
	b->node_sw[b->nnodes++] = sw;
	return 0;
}

int tb_groups(struct topo_builder *b, uint32_t ngroups)
{
	b->ngroups = ngroups;
	free(b->sw_group);
	b->sw_group = malloc((b->nswitches ? b->nswitches : 1) *
			     sizeof(*b->sw_group));
	if (!b->sw_group)
		return -1;
	for (uint32_t s = 0; s < b->nswitches; s++)
		b->sw_group[s] = TOPO_NONE;
	return 0;
}

int tb_levels(struct topo_builder *b)
{
	free(b->sw_level);
	b->sw_level =
		calloc(b->nswitches ? b->nswitches : 1, sizeof(*b->sw_level));
	return b->sw_level ? 0 : -1;
}

/* One directed switch link before numbering. */
struct dlink {
	uint32_t from, to;
	double cap;
	enum topo_link_kind kind;
	size_t cable;
	int dir;
};

static int cmp_dlink(const void *x, const void *y)
{
	const struct dlink *a = x, *b = y;

	if (a->from != b->from)
		return a->from < b->from ? -1 : 1;
	if (a->to != b->to)
		return a->to < b->to ? -1 : 1;
	if (a->cable != b->cable)
		return a->cable < b->cable ? -1 : 1;
	return 0;
}

void topo_destroy(struct topo *t)
{
	if (!t)
		return;
	free(t->links);
	free(t->node_sw);
	free(t->sw_node_off);
	free(t->sw_nodes);
	free(t->out_off);
	free(t->in_off);
	free(t->in_links);
	free(t->sw_group);
	free(t->sw_level);
	free(t->sw_names);
	free(t->sw_name_off);
	free(t->sw_idle);
	free(t->fwd);
	free(t);
}

int topo_set_switch_names(struct topo *t, const char *const *names)
{
	size_t len = 0;

	for (uint32_t s = 0; s < t->nswitches; s++)
		len += strlen(names[s]) + 1;
	if (len > UINT32_MAX)
		return -1;
	free(t->sw_names);
	free(t->sw_name_off);
	t->sw_names = malloc(len ? len : 1);
	t->sw_name_off = malloc(((size_t)t->nswitches + 1) * sizeof(uint32_t));
	if (!t->sw_names || !t->sw_name_off)
		return -1;
	len = 0;
	for (uint32_t s = 0; s < t->nswitches; s++) {
		size_t n = strlen(names[s]) + 1;

		t->sw_name_off[s] = (uint32_t)len;
		memcpy(t->sw_names + len, names[s], n);
		len += n;
	}
	return 0;
}

static int fill_nodes(struct topo *t, const struct topo_builder *b)
{
	uint32_t S = t->nswitches, N = t->nnodes;
	uint32_t *pos;

	t->node_sw = malloc((N ? N : 1) * sizeof(uint32_t));
	t->sw_node_off = calloc(S + 1, sizeof(uint32_t));
	t->sw_nodes = malloc((N ? N : 1) * sizeof(uint32_t));
	pos = calloc(S + 1, sizeof(uint32_t));
	if (!t->node_sw || !t->sw_node_off || !t->sw_nodes || !pos) {
		free(pos);
		return -1;
	}
	for (uint32_t i = 0; i < N; i++) {
		t->node_sw[i] = b->node_sw[i];
		t->sw_node_off[b->node_sw[i] + 1]++;
	}
	for (uint32_t s = 0; s < S; s++)
		t->sw_node_off[s + 1] += t->sw_node_off[s];
	memcpy(pos, t->sw_node_off, (S + 1) * sizeof(uint32_t));
	for (uint32_t i = 0; i < N; i++)
		t->sw_nodes[pos[t->node_sw[i]]++] = i;
	free(pos);
	return 0;
}

static int fill_links(struct topo *t, const struct topo_builder *b)
{
	uint32_t S = t->nswitches, N = t->nnodes;
	size_t nd = 2 * b->ncables;
	struct dlink *d = malloc((nd ? nd : 1) * sizeof(*d));
	uint32_t *cable_id = malloc((nd ? nd : 1) * sizeof(uint32_t));
	uint32_t *pos;
	uint32_t base = 2 * N;

	t->links = malloc((t->nlinks ? t->nlinks : 1) * sizeof(*t->links));
	t->out_off = calloc(S + 1, sizeof(uint32_t));
	t->in_off = calloc(S + 1, sizeof(uint32_t));
	t->in_links = malloc((nd ? nd : 1) * sizeof(uint32_t));
	pos = calloc(S + 1, sizeof(uint32_t));
	if (!d || !cable_id || !t->links || !t->out_off || !t->in_off ||
	    !t->in_links || !pos) {
		free(d);
		free(cable_id);
		free(pos);
		return -1;
	}
	for (uint32_t i = 0; i < N; i++) {
		uint32_t sw = b->node_sw[i];

		t->links[i] = (struct topo_link){ i, sw, N + i, b->inject_cap,
						  TOPO_LINK_INJECT };
		t->links[N + i] = (struct topo_link){ sw, i, i, b->inject_cap,
						      TOPO_LINK_EJECT };
	}
	for (size_t c = 0; c < b->ncables; c++) {
		const struct tb_cable *cb = &b->cables[c];

		d[2 * c] = (struct dlink){ cb->a,	cb->b, cb->cap,
					   cb->kind_ab, c,     0 };
		d[2 * c + 1] = (struct dlink){ cb->b,	    cb->a, cb->cap,
					       cb->kind_ba, c,	   1 };
	}
	if (nd) /* qsort(NULL, 0, ...) is undefined */
		qsort(d, nd, sizeof(*d), cmp_dlink);
	for (size_t k = 0; k < nd; k++)
		cable_id[2 * d[k].cable + (size_t)d[k].dir] =
			base + (uint32_t)k;
	for (size_t k = 0; k < nd; k++) {
		uint32_t id = base + (uint32_t)k;
		uint32_t rev = cable_id[2 * d[k].cable + (size_t)!d[k].dir];

		t->links[id] = (struct topo_link){ d[k].from, d[k].to, rev,
						   d[k].cap, d[k].kind };
		t->out_off[d[k].from + 1]++;
		t->in_off[d[k].to + 1]++;
	}
	t->out_off[0] = base;
	for (uint32_t s = 0; s < S; s++) {
		t->out_off[s + 1] += t->out_off[s];
		t->in_off[s + 1] += t->in_off[s];
	}
	memcpy(pos, t->in_off, (S + 1) * sizeof(uint32_t));
	/* ids ascend with "from", so each in-list is sorted by source */
	for (size_t k = 0; k < nd; k++)
		t->in_links[pos[d[k].to]++] = base + (uint32_t)k;
	free(d);
	free(cable_id);
	free(pos);
	return 0;
}

struct topo *tb_finish(struct topo_builder *b, struct err *err)
{
	struct topo *t = calloc(1, sizeof(*t));
	uint64_t nl = 2 * (uint64_t)b->nnodes + 2 * (uint64_t)b->ncables;

	if (!t)
		goto nomem;
	if (nl >= UINT32_MAX || b->nnodes >= UINT32_MAX) {
		err_set(err, "topology too large (%llu links)",
			(unsigned long long)nl);
		goto fail;
	}
	t->nswitches = b->nswitches;
	t->nnodes = (uint32_t)b->nnodes;
	t->nlinks = (uint32_t)nl;
	if (fill_nodes(t, b) || fill_links(t, b))
		goto nomem;
	t->ngroups = b->ngroups;
	t->sw_group = b->sw_group;
	t->sw_level = b->sw_level;
	b->sw_group = NULL;
	b->sw_level = NULL;
	t->ndims = b->ndims;
	memcpy(t->dims, b->dims, sizeof(t->dims));
	t->unconnected_ports = b->unconnected_ports;
	tb_free(b);
#ifdef STOPO_DEBUG
	/* Debug builds (configure --enable-debug, as the sanitizer run of
	 * make check is) check every topology a family or topo.conf built. */
	if (topo_check(t, err)) {
		err_prefix(err,
			   "internal error: topo_check of the new topology");
		topo_destroy(t);
		return NULL;
	}
#endif
	return t;
nomem:
	err_nomem(err, "out of memory building topology");
fail:
	topo_destroy(t);
	tb_free(b);
	return NULL;
}

/* ---- parameters ---- */

/* How family specs are written: "dragonfly:p=2,a=4", or with blanks as
 * topo.conf writes them, "dragonfly p=2 a=4". */
static const struct spec_syntax family_syntax = { SPEC_BLANKS, "parameter" };

_Static_assert(sizeof(((struct topo_param *)0)->key) == SPEC_KEY_MAX &&
		       sizeof(((struct topo_param *)0)->value) ==
			       SPEC_VALUE_MAX,
	       "a topo_param holds a spec item");

const char *targ_str(const struct topo_args *a, const char *key)
{
	return spec_value(a->spec, a->opts, key);
}

/* Note that KEY took the computed default VALUE. */
static void note_default(const struct topo_args *a, const char *key,
			 const char *value)
{
	struct topo_param *d;

	if (!a->defaults || *a->ndefaults >= TOPO_MAX_PARAMS)
		return;
	d = &a->defaults[(*a->ndefaults)++];
	snprintf(d->key, sizeof(d->key), "%s", key);
	snprintf(d->value, sizeof(d->value), "%s", value);
}

static int parse_long(const char *key, const char *v, long min, long max,
		      long *out, struct err *err)
{
	char *end;
	long x;

	if (!v)
		return err_set(err, "parameter %s: no value and no default",
			       key);
	errno = 0;
	x = strtol(v, &end, 10);
	if (errno || end == v || *end)
		return err_set(err, "parameter %s=%s: not an integer", key, v);
	if (x < min || x > max)
		return err_set(err, "parameter %s=%ld: must be in [%ld, %ld]",
			       key, x, min, max);
	*out = x;
	return 0;
}

int targ_int(const struct topo_args *a, const char *key, long min, long max,
	     long *out, struct err *err)
{
	return parse_long(key, targ_str(a, key), min, max, out, err);
}

int targ_int_computed(const struct topo_args *a, const char *key, long def,
		      long min, long max, long *out, struct err *err)
{
	const char *v = targ_str(a, key);
	char buf[32];

	if (v)
		return parse_long(key, v, min, max, out, err);
	snprintf(buf, sizeof(buf), "%ld", def);
	note_default(a, key, buf);
	*out = def;
	return 0;
}

int targ_double(const struct topo_args *a, const char *key, double *out,
		struct err *err)
{
	const char *v = targ_str(a, key);
	char *end;
	double x;

	if (!v)
		return err_set(err, "parameter %s: no value and no default",
			       key);
	errno = 0;
	x = strtod(v, &end);
	if (errno || end == v || *end || !(x > 0) || x > 1e12)
		return err_set(err,
			       "parameter %s=%s: want a number above 0, at "
			       "most 1e12",
			       key, v);
	*out = x;
	return 0;
}

int targ_init(struct topo_args *a, struct spec *s, const char *name,
	      const struct spec_opt *opts, const struct topo_param *params,
	      size_t nparams, struct err *err)
{
	memset(a, 0, sizeof(*a));
	memset(s, 0, sizeof(*s));
	a->spec = s;
	a->opts = opts;
	if (nparams > TOPO_MAX_PARAMS)
		return err_range(err, "too many parameters (at most %d)",
				 TOPO_MAX_PARAMS);
	snprintf(s->name, sizeof(s->name), "%s", name);
	for (size_t i = 0; i < nparams; i++) {
		memcpy(s->item[i].key, params[i].key, sizeof(s->item[i].key));
		memcpy(s->item[i].value, params[i].value,
		       sizeof(s->item[i].value));
	}
	s->n = nparams;
	return spec_check(s, opts, &family_syntax, err);
}

/* ---- creation ---- */

static const char *family_at(size_t i)
{
	return topo_family_table[i] ? topo_family_table[i]->name : NULL;
}

/* The name list is derived once from the constant registry; pthread_once
 * keeps the first call safe when several threads race to it. */
static const char *family_names[32];
static pthread_once_t family_names_once = PTHREAD_ONCE_INIT;

static void fill_family_names(void)
{
	size_t i;

	for (i = 0; family_at(i) && i < 31; i++)
		family_names[i] = family_at(i);
	family_names[i] = NULL;
}

const char *const *topo_family_names(void)
{
	pthread_once(&family_names_once, fill_family_names);
	return family_names;
}

const struct topo_family_ops *topo_family_find(const char *name)
{
	for (size_t i = 0; topo_family_table[i]; i++)
		if (!strcmp(topo_family_table[i]->name, name))
			return topo_family_table[i];
	return NULL;
}

/* The effective parameters of T, in the family's table order: given, else
 * the table's default, else the default the build computed (DEFS). */
static void set_effective(struct topo *t, const struct topo_family_ops *f,
			  const struct spec *s, const struct topo_param *defs,
			  size_t ndefs)
{
	for (size_t k = 0; f->opts[k].key && t->neff < TOPO_MAX_PARAMS; k++) {
		const char *key = f->opts[k].key;
		const char *v = spec_value(s, f->opts, key);
		struct topo_param *e = &t->eff[t->neff];

		for (size_t i = 0; i < ndefs && !v; i++)
			if (!strcmp(defs[i].key, key))
				v = defs[i].value;
		if (!v)
			continue;
		snprintf(e->key, sizeof(e->key), "%s", key);
		snprintf(e->value, sizeof(e->value), "%s", v);
		t->neff++;
	}
}

struct topo *topo_create_family(const char *family,
				const struct topo_param *params, size_t nparams,
				struct err *err)
{
	const struct topo_family_ops *f = topo_family_find(family);
	struct topo_param defs[TOPO_MAX_PARAMS];
	size_t ndefs = 0;
	struct spec s;
	struct topo_args args;
	struct topo_builder b;
	struct topo *t;
	char known[256];

	if (!f) {
		err_set(err, "unknown topology family '%s' (known: %s)", family,
			spec_known_names(family_at, known, sizeof(known)));
		return NULL;
	}
	if (targ_init(&args, &s, f->name, f->opts, params, nparams, err)) {
		err_prefix(err, "%s", family);
		return NULL;
	}
	args.defaults = defs;
	args.ndefaults = &ndefs;
	tb_init(&b, 0);
	if (f->build(&b, &args, err)) {
		err_prefix(err, "%s", family);
		tb_free(&b);
		return NULL;
	}
	t = tb_finish(&b, err);
	if (!t)
		return NULL;
	t->kind = f->kind;
	t->family = f->name;
	memcpy(t->params, params, nparams * sizeof(*params));
	t->nparams = nparams;
	set_effective(t, f, &s, defs, ndefs);
	spec_format(t->spec, sizeof(t->spec), f->name, &s, NULL);
	return t;
}

int topo_parse_spec(const char *spec, char *family, size_t famlen,
		    struct topo_param *params, size_t *nparams, struct err *err)
{
	struct spec s;

	if (spec_parse(spec, &family_syntax, &s, err))
		return err_prefix(err, "topology '%s'", spec ? spec : "");
	if (strlen(s.name) >= famlen)
		return err_set(err,
			       "topology '%s': name longer than %zu "
			       "characters",
			       spec, famlen - 1);
	snprintf(family, famlen, "%s", s.name);
	for (size_t i = 0; i < s.n; i++) {
		memcpy(params[i].key, s.item[i].key, sizeof(params[i].key));
		memcpy(params[i].value, s.item[i].value,
		       sizeof(params[i].value));
	}
	*nparams = s.n;
	return 0;
}

struct topo *topo_create(const char *spec, struct err *err)
{
	struct topo_param params[TOPO_MAX_PARAMS];
	char family[64];
	size_t n = 0;

	if (!spec || !*spec) {
		err_set(err, "empty topology spec");
		return NULL;
	}
	if (topo_parse_spec(spec, family, sizeof(family), params, &n, err))
		return NULL;
	return topo_create_family(family, params, n, err);
}

/* ---- accessors ---- */

enum topo_kind topo_kind(const struct topo *t)
{
	return t->kind;
}
const char *topo_family(const struct topo *t)
{
	return t->family;
}
const char *topo_spec(const struct topo *t)
{
	return t->spec;
}
uint32_t topo_num_nodes(const struct topo *t)
{
	return t->nnodes;
}
uint32_t topo_num_switches(const struct topo *t)
{
	return t->nswitches;
}
uint32_t topo_num_links(const struct topo *t)
{
	return t->nlinks;
}
uint32_t topo_num_groups(const struct topo *t)
{
	return t->ngroups;
}

long topo_param_int(const struct topo *t, const char *key)
{
	for (size_t i = 0; i < t->nparams; i++)
		if (!strcmp(t->params[i].key, key))
			return strtol(t->params[i].value, NULL, 10);
	for (size_t i = 0; i < t->neff; i++)
		if (!strcmp(t->eff[i].key, key))
			return strtol(t->eff[i].value, NULL, 10);
	return -1;
}

size_t topo_params(const struct topo *t, const struct topo_param **params)
{
	*params = t->eff;
	return t->neff;
}

const struct topo_link *topo_link(const struct topo *t, uint32_t id)
{
	return &t->links[id];
}

uint32_t topo_eject_link(const struct topo *t, uint32_t node)
{
	return t->nnodes + node;
}

uint32_t topo_first_switch_link(const struct topo *t)
{
	return 2 * t->nnodes;
}

const char *topo_switch_name(const struct topo *t, uint32_t sw)
{
	if (!t->sw_names || sw >= t->nswitches)
		return NULL;
	return t->sw_names + t->sw_name_off[sw];
}

const char *topo_switch_label(const struct topo *t, uint32_t sw, char *buf,
			      size_t len)
{
	const char *n = topo_switch_name(t, sw);

	if (n)
		snprintf(buf, len, "%s", n);
	else
		snprintf(buf, len, "switch %u", sw);
	return buf;
}

uint32_t topo_node_switch(const struct topo *t, uint32_t node)
{
	return t->node_sw[node];
}

const uint32_t *topo_switch_nodes(const struct topo *t, uint32_t sw,
				  uint32_t *count)
{
	*count = t->sw_node_off[sw + 1] - t->sw_node_off[sw];
	return t->sw_nodes + t->sw_node_off[sw];
}

uint32_t topo_switch_out(const struct topo *t, uint32_t sw, uint32_t *count)
{
	*count = t->out_off[sw + 1] - t->out_off[sw];
	return t->out_off[sw];
}

const uint32_t *topo_switch_in(const struct topo *t, uint32_t sw,
			       uint32_t *count)
{
	*count = t->in_off[sw + 1] - t->in_off[sw];
	return t->in_links + t->in_off[sw];
}

uint32_t topo_link_between(const struct topo *t, uint32_t a, uint32_t b,
			   uint32_t *count)
{
	uint32_t lo = t->out_off[a], hi = t->out_off[a + 1], first;

	/* lower bound of "to >= b" within a's sorted out-links */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->links[mid].to < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	while (lo < t->out_off[a + 1] && t->links[lo].to == b)
		lo++;
	*count = lo - first;
	return *count ? first : TOPO_NONE;
}

uint32_t topo_switch_group(const struct topo *t, uint32_t sw)
{
	return t->sw_group ? t->sw_group[sw] : TOPO_NONE;
}

uint32_t topo_switch_level(const struct topo *t, uint32_t sw)
{
	return t->sw_level ? t->sw_level[sw] : 0;
}

int topo_dims(const struct topo *t, uint32_t *dims)
{
	for (int i = 0; i < t->ndims; i++)
		dims[i] = t->dims[i];
	return t->ndims;
}

void topo_switch_coord(const struct topo *t, uint32_t sw, uint32_t *coord)
{
	for (int i = 0; i < t->ndims; i++) {
		coord[i] = sw % t->dims[i];
		sw /= t->dims[i];
	}
}

/* ---- statistics ---- */

/* BFS from S over the switch graph; dist must hold S entries. */
static void bfs(const struct topo *t, uint32_t s, uint32_t *dist,
		uint32_t *queue)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t i = 0; i < t->nswitches; i++)
		dist[i] = UINT32_MAX;
	dist[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		uint32_t u = queue[head++];

		for (uint32_t l = t->out_off[u]; l < t->out_off[u + 1]; l++) {
			uint32_t v = t->links[l].to;

			if (dist[v] == UINT32_MAX) {
				dist[v] = dist[u] + 1;
				queue[tail++] = v;
			}
		}
	}
}

uint32_t topo_switch_distance(const struct topo *t, uint32_t a, uint32_t b)
{
	uint32_t *dist = malloc(t->nswitches * sizeof(uint32_t));
	uint32_t *queue = malloc(t->nswitches * sizeof(uint32_t));
	uint32_t d = UINT32_MAX;

	if (dist && queue) {
		bfs(t, a, dist, queue);
		d = dist[b];
	}
	free(dist);
	free(queue);
	return d;
}

/* The switch graph as compact adjacency lists (neighbour ids), which a
 * BFS walks several times faster than the link records. */
#define TOPO_MAX_LEVELS 32 /* k-ary n-trees have n <= 16 */

struct sgraph {
	uint32_t S;
	uint32_t *off; /* [S+1] */
	uint32_t *adj;
};

/* What one BFS source contributes. */
struct bfs_out {
	uint64_t sum;	  /* of the distances to the switches reached */
	uint32_t reached; /* switches reached, the source excluded */
	uint32_t ecc;	  /* largest distance reached */
	uint32_t far;	  /* a switch at that distance */
};

static void sg_bfs(const struct sgraph *g, uint32_t s, uint32_t *dist,
		   uint32_t *queue, struct bfs_out *o)
{
	uint32_t head = 0, tail = 0;
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->S; i++)
		dist[i] = UINT32_MAX;
	dist[s] = 0;
	queue[tail++] = s;
	while (head < tail) {
		uint32_t u = queue[head++], du = dist[u] + 1;

		for (uint32_t k = g->off[u]; k < g->off[u + 1]; k++) {
			uint32_t v = g->adj[k];

			if (dist[v] == UINT32_MAX) {
				dist[v] = du;
				sum += du;
				queue[tail++] = v;
			}
		}
	}
	o->sum = sum;
	o->reached = tail - 1;
	o->far = queue[tail - 1];
	o->ecc = dist[o->far];
}

/* BFS from every switch in SRC[0..n), OUT[i] for SRC[i], on THREADS
 * threads sharing the list. */
struct bfs_job {
	const struct sgraph *g;
	const uint32_t *src;
	struct bfs_out *out;
	uint32_t n;
	uint32_t next; /* atomically advanced */
	uint32_t done;
	const struct topo_stats_opts *o;
	pthread_mutex_t lock;
	int failed;
};

static void bfs_part(void *arg, uint32_t part)
{
	struct bfs_job *j = arg;
	uint32_t *dist = malloc(j->g->S * sizeof(uint32_t));
	uint32_t *queue = malloc(j->g->S * sizeof(uint32_t));

	if (!dist || !queue) {
		__atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
		free(dist);
		free(queue);
		return;
	}
	for (;;) {
		uint32_t i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED);
		uint32_t d;

		if (i >= j->n)
			break;
		sg_bfs(j->g, j->src[i], dist, queue, &j->out[i]);
		d = __atomic_add_fetch(&j->done, 1, __ATOMIC_RELAXED);
		if (j->o->progress && (d % 256 == 0 || d == j->n)) {
			pthread_mutex_lock(&j->lock);
			j->o->progress(j->o->ctx, d, j->n);
			pthread_mutex_unlock(&j->lock);
		}
	}
	free(dist);
	free(queue);
	(void)part; /* the parts take the next source not yet taken */
}

static int run_bfs(const struct sgraph *g, const uint32_t *src, uint32_t n,
		   struct bfs_out *out, const struct topo_stats_opts *o)
{
	struct bfs_job j = { .g = g, .src = src, .out = out, .n = n, .o = o };
	uint32_t ncpu = par_cpus();
	uint32_t nth = ncpu > 8 ? 8 : ncpu;

	if ((uint64_t)n * g->S < 4000000)
		nth = 1;
	pthread_mutex_init(&j.lock, NULL);
	par_run(nth, true, bfs_part, &j, NULL);
	pthread_mutex_destroy(&j.lock);
	return j.failed ? -1 : 0;
}

const char *topo_stats_method_name(enum topo_stats_method m)
{
	static const char *const names[] = { "exact", "symmetry", "sampled" };

	return names[m];
}

/* The orbit representatives of the family's automorphisms, if it has
 * known ones: REP[i] stands for W[i] switches.  The torus (a Cayley graph
 * of Z_k1 x ... ) and the hyperx (a Hamming graph) are vertex-transitive;
 * in a k-ary n-tree, permuting the values of one base-k digit in every
 * switch index keeps each up-link (which changes one digit), so each
 * level is one orbit.  Returns the number of orbits, 0 for none known. */
static uint32_t orbits(const struct topo *t, uint32_t *rep, uint64_t *w)
{
	uint32_t S = t->nswitches;

	if (t->kind == TOPO_TORUS || t->kind == TOPO_HYPERX) {
		rep[0] = 0;
		w[0] = S;
		return 1;
	}
	if (t->kind == TOPO_FATTREE && t->sw_level) {
		uint32_t n = 0;

		for (uint32_t s = 0; s < S; s++)
			if (!s || t->sw_level[s] != t->sw_level[s - 1]) {
				if (n == TOPO_MAX_LEVELS)
					return 0;
				rep[n] = s;
				w[n++] = 0;
			}
		for (uint32_t s = 0, k = 0; s < S; s++) {
			if (s && t->sw_level[s] != t->sw_level[s - 1])
				k++;
			w[k]++;
		}
		return n;
	}
	return 0;
}

/* T's switch graph as adjacency lists into G, without the idle switches
 * of a recognised fat-tree (on no route: they would only lengthen the
 * diameter).  Returns 0 or -1 (memory). */
static int build_sgraph(const struct topo *t, struct sgraph *g)
{
	uint32_t S = t->nswitches, N = t->nnodes, n = 0, *id = NULL;

	g->off = malloc(((size_t)S + 1) * sizeof(uint32_t));
	g->adj = malloc(((size_t)t->nlinks - 2 * N + 1) * sizeof(uint32_t));
	if (!g->off || !g->adj)
		return -1;
	if (!t->sw_idle) {
		g->S = S;
		for (uint32_t s = 0; s <= S; s++)
			g->off[s] = t->out_off[s] - 2 * N;
		for (uint32_t l = 2 * N; l < t->nlinks; l++)
			g->adj[l - 2 * N] = t->links[l].to;
		return 0;
	}
	id = malloc(((size_t)S + 1) * sizeof(*id));
	if (!id)
		return -1;
	for (uint32_t s = 0; s < S; s++)
		id[s] = t->sw_idle[s] ? TOPO_NONE : n++;
	g->S = n;
	g->off[0] = 0;
	for (uint32_t s = 0; s < S; s++) {
		if (id[s] == TOPO_NONE)
			continue;
		g->off[id[s] + 1] = g->off[id[s]];
		for (uint32_t l = t->out_off[s]; l < t->out_off[s + 1]; l++)
			if (id[t->links[l].to] != TOPO_NONE)
				g->adj[g->off[id[s] + 1]++] =
					id[t->links[l].to];
	}
	free(id);
	return 0;
}

int topo_stats(const struct topo *t, struct topo_stats *st, struct err *err)
{
	struct topo_stats_opts o = { 0 };

	return topo_stats_opt(t, &o, st, err);
}

int topo_stats_opt(const struct topo *t, const struct topo_stats_opts *o,
		   struct topo_stats *st, struct err *err)
{
	uint32_t S = t->nswitches, n = 0;
	uint64_t budget = o->budget ? o->budget : 1000000000ULL;
	uint64_t wrep[TOPO_MAX_LEVELS], work;
	uint32_t rep[TOPO_MAX_LEVELS], norb;
	struct sgraph g = { .S = S };
	uint32_t *src = NULL;
	uint64_t *wt = NULL;
	struct bfs_out *out = NULL;
	long double sum = 0, pairs = 0;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	st->radix_min = UINT32_MAX;
	for (uint32_t s = 0; s < S; s++) {
		uint32_t r = (t->sw_node_off[s + 1] - t->sw_node_off[s]) +
			     (t->out_off[s + 1] - t->out_off[s]);

		if (r < st->radix_min)
			st->radix_min = r;
		if (r > st->radix_max)
			st->radix_max = r;
	}
	if (!S)
		st->radix_min = 0;
	st->unconnected_ports = t->unconnected_ports;
	st->connected = true;
	if (S < 2) { /* no pair of switches: exact, trivially */
		st->sources = S;
		return 0;
	}
	if (build_sgraph(t, &g))
		goto nomem;
	S = g.S;
	src = malloc((size_t)S * sizeof(uint32_t));
	wt = malloc((size_t)S * sizeof(uint64_t));
	if (!src || !wt)
		goto nomem;
	work = (uint64_t)S + g.off[S];
	norb = orbits(t, rep, wrep);
	if (!o->exact && !o->samples && norb && norb * work <= budget) {
		st->method = TOPO_STATS_SYMMETRY;
		for (n = 0; n < norb; n++) {
			src[n] = rep[n];
			wt[n] = wrep[n];
		}
	} else if (o->exact || (!o->samples && (uint64_t)S * work <= budget) ||
		   (o->samples && o->samples >= S)) {
		/* (as many samples as switches: every switch, exactly) */
		st->method = TOPO_STATS_EXACT;
		for (n = 0; n < S; n++) {
			src[n] = n;
			wt[n] = 1;
		}
	} else {
		struct rng r;
		uint64_t k = o->samples ? o->samples : budget / work;

		if (k < 64)
			k = 64;
		if (k > S)
			k = S;
		st->method = TOPO_STATS_SAMPLED;
		rng_seed(&r, o->seed ? o->seed : 1);
		for (uint32_t s = 0; s < S; s++)
			src[s] = s;
		/* the first k of a Fisher-Yates shuffle: k distinct sources */
		for (n = 0; n < k; n++) {
			uint32_t x = n + (uint32_t)rng_below(&r, S - n), y;

			y = src[n];
			src[n] = src[x];
			src[x] = y;
			wt[n] = 1;
		}
	}
	out = calloc(n + 1, sizeof(*out));
	if (!out || run_bfs(&g, src, n, out, o))
		goto nomem;
	st->sources = n;
	for (uint32_t i = 0; i < n; i++) {
		if (out[i].reached < S - 1)
			st->connected = false;
		if (out[i].ecc > st->diameter)
			st->diameter = out[i].ecc;
		sum += (long double)wt[i] * out[i].sum;
		pairs += (long double)wt[i] * out[i].reached;
	}
	st->avg_hops = pairs > 0 ? (double)(sum / pairs) : 0;
	if (st->method == TOPO_STATS_SAMPLED && st->connected) {
		/* the spread of the per-source means gives the standard
		 * error; one more BFS from the farthest switch seen (a double
		 * sweep) tightens the diameter's lower bound */
		long double m = sum / pairs, var = 0;
		uint32_t best = 0;
		struct bfs_out extra;

		for (uint32_t i = 0; i < n; i++) {
			long double x = (long double)out[i].sum / (S - 1) - m;

			var += x * x;
			if (out[i].ecc > out[best].ecc)
				best = i;
		}
		if (n > 1)
			st->avg_hops_se =
				(double)sqrtl(var / (n - 1) / n *
					      (1.0L - (long double)n / S));
		src[0] = out[best].far;
		if (run_bfs(&g, src, 1, &extra, o))
			goto nomem;
		if (extra.ecc > st->diameter)
			st->diameter = extra.ecc;
	}
	if (!st->connected)
		st->diameter = UINT32_MAX;
	rc = 0;
	goto out;
nomem:
	err_nomem(err, "out of memory");
out:
	free(g.off);
	free(g.adj);
	free(src);
	free(wt);
	free(out);
	return rc;
}

/* ---- consistency checker ---- */

int topo_check(const struct topo *t, struct err *err)
{
	uint32_t N = t->nnodes, S = t->nswitches;

	if (t->nlinks < 2 * N)
		return err_set(err, "fewer links than 2*nodes");
	for (uint32_t i = 0; i < N; i++) {
		const struct topo_link *in = &t->links[i],
				       *out = &t->links[N + i];
		uint32_t sw = t->node_sw[i];

		if (sw >= S)
			return err_set(err, "node %u on bad switch %u", i, sw);
		if (in->kind != TOPO_LINK_INJECT || in->from != i ||
		    in->to != sw || in->reverse != N + i)
			return err_set(err, "bad injection link of node %u", i);
		if (out->kind != TOPO_LINK_EJECT || out->from != sw ||
		    out->to != i || out->reverse != i)
			return err_set(err, "bad ejection link of node %u", i);
		if (!(in->capacity > 0) || in->capacity != out->capacity)
			return err_set(err, "bad capacity on node %u links", i);
	}
	for (uint32_t s = 0; s < S; s++) {
		uint32_t cnt;
		const uint32_t *nodes = topo_switch_nodes(t, s, &cnt);

		for (uint32_t k = 0; k < cnt; k++)
			if (t->node_sw[nodes[k]] != s ||
			    (k && nodes[k] <= nodes[k - 1]))
				return err_set(err,
					       "bad node list of switch %u", s);
		for (uint32_t l = t->out_off[s]; l < t->out_off[s + 1]; l++) {
			const struct topo_link *lk = &t->links[l];
			const struct topo_link *rv;

			if (lk->from != s || lk->to >= S || lk->to == s)
				return err_set(err, "link %u: bad endpoints",
					       l);
			if (l > t->out_off[s] && t->links[l - 1].to > lk->to)
				return err_set(
					err, "links of switch %u unsorted", s);
			if (lk->reverse < 2 * N || lk->reverse >= t->nlinks)
				return err_set(err, "link %u: bad reverse", l);
			rv = &t->links[lk->reverse];
			if (rv->from != lk->to || rv->to != lk->from ||
			    rv->reverse != l)
				return err_set(err, "link %u: reverse mismatch",
					       l);
			if (!(lk->capacity > 0) || rv->capacity != lk->capacity)
				return err_set(err, "link %u: bad capacity", l);
		}
	}
	if (t->out_off[S] != t->nlinks)
		return err_set(err, "link count mismatch");
	if (t->ngroups && t->sw_group)
		for (uint32_t s = 0; s < S; s++)
			if (t->sw_group[s] != TOPO_NONE &&
			    t->sw_group[s] >= t->ngroups)
				return err_set(err, "switch %u: bad group", s);
	return 0;
}
