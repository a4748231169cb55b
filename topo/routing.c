/* routing.c - the routing core: path sets, the registry of routings,
 * "NAME[:key=value,...]" parsing, and the generic parts of routing_paths,
 * routing_count and routing_linkset (same-switch flows, enumeration when a
 * routing has no closed form). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

/* ---- the registry ----
 *
 * One X(name) per routing; each is a const struct routing_ops named
 * routing_<name> defined in a routing_<family>.c file.  Names, options and
 * the "(known: ...)" lists come from the ops tables. */
#define ROUTINGS(X) \
	X(min)      \
	X(vlb)      \
	X(ugal)     \
	X(ecmp)     \
	X(dmodk)    \
	X(dor)      \
	X(minimal)  \
	X(ksp)      \
	X(shortest) \
	X(lft)      \
	/* new routings above this line */

#define DECLARE(n) extern const struct routing_ops routing_##n;
#define ENTRY(n) &routing_##n,
ROUTINGS(DECLARE)

static const struct routing_ops *const registry[] = { ROUTINGS(ENTRY) NULL };

/* How routing specs are written: as family specs ("ugal:intra=global",
 * topo.conf's "ugal intra=global"). */
static const struct spec_syntax routing_syntax = { SPEC_BLANKS, "option" };

static const char *routing_at(size_t i)
{
	return registry[i] ? registry[i]->name : NULL;
}

/* Derived once from the registry (pthread_once: safe under threads). */
static const char *registry_names[sizeof(registry) / sizeof(registry[0])];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void fill_names(void)
{
	for (size_t i = 0; registry[i]; i++)
		registry_names[i] = registry[i]->name;
}

const char *const *routing_names(void)
{
	pthread_once(&names_once, fill_names);
	return registry_names;
}

static const struct routing_ops *find_ops(const char *name)
{
	for (size_t i = 0; registry[i]; i++)
		if (!strcmp(registry[i]->name, name))
			return registry[i];
	return NULL;
}

/* ---- path sets ---- */

void pathset_init(struct pathset *ps)
{
	memset(ps, 0, sizeof(*ps));
}

void pathset_clear(struct pathset *ps)
{
	ps->n = 0;
	if (ps->off)
		ps->off[0] = 0;
}

void pathset_free(struct pathset *ps)
{
	free(ps->off);
	free(ps->links);
	free(ps->cls);
	pathset_init(ps);
}

int pathset_add(struct pathset *ps, const uint32_t *links, uint32_t len,
		enum path_class cls)
{
	size_t used = ps->n ? ps->off[ps->n] : 0;

	if (ps->n + 1 >= ps->cap_paths) {
		uint32_t nc = ps->cap_paths ? ps->cap_paths * 2 : 16;
		uint32_t *off;
		uint8_t *c;

		if (nc <= ps->cap_paths)
			return -1;
		off = realloc(ps->off, ((size_t)nc + 1) * sizeof(*off));
		if (!off)
			return -1;
		ps->off = off;
		c = realloc(ps->cls, nc);
		if (!c)
			return -1;
		ps->cls = c;
		if (!ps->cap_paths)
			ps->off[0] = 0;
		ps->cap_paths = nc;
	}
	if (used + len > ps->cap_links) {
		size_t nc = ps->cap_links ? ps->cap_links * 2 : 256;
		uint32_t *l;

		while (nc < used + len)
			nc *= 2;
		if (nc > UINT32_MAX)
			return -1;
		l = realloc(ps->links, nc * sizeof(*l));
		if (!l)
			return -1;
		ps->links = l;
		ps->cap_links = nc;
	}
	if (len)
		memcpy(ps->links + used, links, len * sizeof(*links));
	ps->cls[ps->n] = (uint8_t)cls;
	ps->off[ps->n + 1] = (uint32_t)(used + len);
	ps->n++;
	return 0;
}

uint32_t pathset_hops(const struct pathset *ps, const struct topo *t,
		      uint32_t i)
{
	uint32_t first = topo_first_switch_link(t), h = 0;

	for (uint32_t k = ps->off[i]; k < ps->off[i + 1]; k++)
		if (ps->links[k] >= first)
			h++;
	return h;
}

/* ---- creation ---- */

/* "min, vlb or ugal": the routings that apply to T. */
static void applicable(const struct topo *t, char *buf, size_t len)
{
	const struct routing_ops *ok[32];
	size_t n = 0, off = 0;

	buf[0] = '\0';
	for (size_t i = 0; registry[i] && n < 32; i++)
		if (!registry[i]->applies || registry[i]->applies(t))
			ok[n++] = registry[i];
	for (size_t i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0	   ? "" :
					i + 1 == n ? " or " :
						     ", ",
					ok[i]->name);
}

struct routing *routing_create(const struct topo *t, const char *spec,
			       struct err *err)
{
	struct topo_args args = { 0 };
	struct spec s;
	const struct routing_ops *ops;
	struct routing *r;
	char list[256];

	if (!t) {
		err_set(err, "routing: no topology");
		return NULL;
	}
	if (!spec || !*spec) {
		err_set(err, "empty routing spec");
		return NULL;
	}
	if (spec_parse(spec, &routing_syntax, &s, err)) {
		err_prefix(err, "routing '%s'", spec);
		return NULL;
	}
	ops = find_ops(s.name);
	if (!ops) {
		err_set(err, "unknown routing '%s' (known: %s)", s.name,
			spec_known_names(routing_at, list, sizeof(list)));
		return NULL;
	}
	if (ops->applies && !ops->applies(t)) {
		applicable(t, list, sizeof(list));
		err_set(err, "routing '%s' does not apply to %s%s; use %s",
			s.name, topo_family(t),
			topo_kind(t) == TOPO_GRAPH && !strcmp(s.name, "ecmp") ?
				" (not recognised as a fat-tree, see "
				"topo.conf(5))" :
			!strcmp(s.name, "lft") ?
				" (no forwarding tables: Forward= lines, "
				"see topo.conf(5))" :
				"",
			list[0] ? list : "another topology");
		return NULL;
	}
	if (spec_check(&s, ops->opts, &routing_syntax, err)) {
		err_prefix(err, "routing '%s'", s.name);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	r->t = t;
	r->ops = ops;
	args.spec = &s;
	args.opts = ops->opts;
	if (ops->init && ops->init(r, &args, err)) {
		err_prefix(err, "routing '%s'", s.name);
		routing_destroy(r);
		return NULL;
	}
	spec_format(r->spec, sizeof(r->spec), ops->name, &s, ops->opts);
	return r;
}

void routing_destroy(struct routing *r)
{
	if (!r)
		return;
	if (r->ops && r->ops->fini)
		r->ops->fini(r);
	free(r);
}

const char *routing_default(const struct topo *t)
{
	return topo_traits(t)->routing;
}

const char *routing_spec(const struct routing *r)
{
	return r->spec;
}

const char *routing_name(const struct routing *r)
{
	return r->ops->name;
}

const struct topo *routing_topo(const struct routing *r)
{
	return r->t;
}

bool routing_multipath(const struct routing *r)
{
	return r->ops->multipath;
}

/* ---- queries ---- */

static int check_pair(const struct routing *r, uint32_t src, uint32_t dst,
		      struct err *err)
{
	uint32_t n = topo_num_nodes(r->t);

	if (src >= n || dst >= n)
		return err_set(err,
			       "node %u out of range (the topology has %u "
			       "nodes)",
			       src >= n ? src : dst, n);
	if (src == dst)
		return err_set(err,
			       "source and destination are the same node "
			       "%u",
			       src);
	return 0;
}

int routing_paths(const struct routing *r, uint32_t src, uint32_t dst,
		  struct pathset *out, struct err *err)
{
	const struct topo *t = r->t;

	pathset_clear(out);
	if (check_pair(r, src, dst, err))
		return -1;
	if (topo_node_switch(t, src) == topo_node_switch(t, dst)) {
		uint32_t l[2] = { topo_inject_link(t, src),
				  topo_eject_link(t, dst) };

		if (pathset_add(out, l, 2, PATH_MIN))
			return err_nomem(err, "out of memory");
		return 0;
	}
	if (r->ops->paths(r, src, dst, out, err)) {
		pathset_clear(out);
		return -1;
	}
	return 0;
}

/* ---- factored path sets ---- */

void stemset_init(struct stemset *ss)
{
	pathset_init(&ss->p);
	ss->key = NULL;
	ss->cap_key = 0;
}

void stemset_clear(struct stemset *ss)
{
	pathset_clear(&ss->p);
}

void stemset_free(struct stemset *ss)
{
	pathset_free(&ss->p);
	free(ss->key);
	stemset_init(ss);
}

int stemset_add(struct stemset *ss, const uint32_t *links, uint32_t len,
		enum path_class cls, uint32_t key)
{
	if (ss->p.n >= ss->cap_key) {
		uint32_t nc = ss->cap_key ? 2 * ss->cap_key : 16;
		uint32_t *k;

		if (nc <= ss->cap_key)
			return -1;
		k = realloc(ss->key, (size_t)nc * sizeof(*k));
		if (!k)
			return -1;
		ss->key = k;
		ss->cap_key = nc;
	}
	if (pathset_add(&ss->p, links, len, cls))
		return -1;
	ss->key[ss->p.n - 1] = key;
	return 0;
}

uint32_t routing_middle_keys(const struct routing *r)
{
	return r->ops->middle_keys ? r->ops->middle_keys(r) : 0;
}

int routing_stems(const struct routing *r, uint32_t src, uint32_t dst,
		  struct stemset *out, struct err *err)
{
	const struct topo *t = r->t;

	stemset_clear(out);
	if (!routing_middle_keys(r))
		return err_set(err, "routing %s gives no factored path sets",
			       r->spec);
	if (check_pair(r, src, dst, err))
		return -1;
	if (topo_node_switch(t, src) == topo_node_switch(t, dst)) {
		uint32_t l[2] = { topo_inject_link(t, src),
				  topo_eject_link(t, dst) };

		if (stemset_add(out, l, 2, PATH_MIN, ROUTING_NO_MIDDLE))
			return err_nomem(err, "out of memory");
		return 0;
	}
	if (r->ops->stems(r, src, dst, out, err)) {
		stemset_clear(out);
		return -1;
	}
	return 0;
}

int routing_middles(const struct routing *r, uint32_t key, struct pathset *out,
		    struct err *err)
{
	uint32_t n = routing_middle_keys(r);

	pathset_clear(out);
	if (key >= n)
		return err_set(err, "middle key %u out of range (%u keys)", key,
			       n);
	if (r->ops->middles(r, key, out, err)) {
		pathset_clear(out);
		return -1;
	}
	return 0;
}

int routing_unreachable(const struct topo *t, const char *who, uint32_t a,
			uint32_t b, struct err *err)
{
	char la[80], lb[80];

	return err_set(err, "%s: %s cannot reach %s", who,
		       topo_switch_label(t, a, la, sizeof(la)),
		       topo_switch_label(t, b, lb, sizeof(lb)));
}

void routing_count_add(struct routing_count *c, enum path_class cls,
		       uint32_t hops, uint64_t n)
{
	c->total += n;
	c->by_class[cls] += n;
	c->by_hops[hops < ROUTING_MAX_HOPS ? hops : ROUTING_MAX_HOPS] += n;
}

int routing_count(const struct routing *r, uint32_t src, uint32_t dst,
		  struct routing_count *c, struct err *err)
{
	const struct topo *t = r->t;
	struct pathset ps;

	memset(c, 0, sizeof(*c));
	if (check_pair(r, src, dst, err))
		return -1;
	if (topo_node_switch(t, src) == topo_node_switch(t, dst)) {
		routing_count_add(c, PATH_MIN, 0, 1);
		return 0;
	}
	if (r->ops->count) {
		if (r->ops->count(r, src, dst, c, err)) {
			memset(c, 0, sizeof(*c));
			return -1;
		}
		return 0;
	}
	pathset_init(&ps);
	if (routing_paths(r, src, dst, &ps, err)) {
		pathset_free(&ps);
		return -1;
	}
	for (uint32_t i = 0; i < ps.n; i++)
		routing_count_add(c, (enum path_class)ps.cls[i],
				  pathset_hops(&ps, t, i), 1);
	pathset_free(&ps);
	return 0;
}

static int check_nodes(const struct routing *r, const uint32_t *nodes,
		       uint32_t n, struct err *err)
{
	uint32_t nn = topo_num_nodes(r->t);

	for (uint32_t i = 0; i < n; i++)
		if (nodes[i] >= nn)
			return err_set(err,
				       "node %u out of range (the topology "
				       "has %u nodes)",
				       nodes[i], nn);
	return 0;
}

static void mark(const struct topo *t, const struct pathset *ps, uint8_t *used)
{
	uint32_t first = topo_first_switch_link(t);

	if (!ps->n)
		return; /* off may still be unallocated */
	for (uint32_t k = 0; k < ps->off[ps->n]; k++)
		if (ps->links[k] >= first)
			used[ps->links[k]] = 1;
}

int routing_linkset_enum(const struct routing *r, const uint32_t *nodes,
			 uint32_t n, uint8_t *used, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t *rep = NULL, nrep = 0;
	uint8_t *seen = NULL;
	struct pathset ps;
	int rc = -1;

	if (check_nodes(r, nodes, n, err))
		return -1;
	pathset_init(&ps);
	if (r->ops->switch_paths) {
		/* Paths depend on the switch pair only: one node per switch. */
		seen = calloc(topo_num_switches(t) ? topo_num_switches(t) : 1,
			      1);
		rep = malloc((n ? n : 1) * sizeof(*rep));
		if (!seen || !rep) {
			err_nomem(err, "out of memory");
			goto out;
		}
		for (uint32_t i = 0; i < n; i++) {
			uint32_t sw = topo_node_switch(t, nodes[i]);

			if (!seen[sw]) {
				seen[sw] = 1;
				rep[nrep++] = nodes[i];
			}
		}
		nodes = rep;
		n = nrep;
	}
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t j = 0; j < n; j++) {
			if (topo_node_switch(t, nodes[i]) ==
			    topo_node_switch(t, nodes[j]))
				continue; /* 0 hops (and src == dst) */
			if (routing_paths(r, nodes[i], nodes[j], &ps, err))
				goto out;
			mark(t, &ps, used);
		}
	rc = 0;
out:
	pathset_free(&ps);
	free(seen);
	free(rep);
	return rc;
}

int routing_linkset(const struct routing *r, const uint32_t *nodes, uint32_t n,
		    uint8_t *used, struct err *err)
{
	if (check_nodes(r, nodes, n, err))
		return -1;
	if (r->ops->linkset)
		return r->ops->linkset(r, nodes, n, used, err);
	return routing_linkset_enum(r, nodes, n, used, err);
}
