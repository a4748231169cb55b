/* policy.c - the policy registry, spec parsing and the shared helpers. */
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policies/policy_impl.h"
#include "topo/util/rng.h"

/* The registry: one X(name) per policy file policy_<name>.c, which
 * defines the const struct policy_ops policy_<name>; names, options and
 * "(known: ...)" lists come from the ops tables.  nne (paper 004's gamma
 * placement of Cartesian nearest-neighbour jobs on dragonfly) reads
 * req->grid/ngrid and req->pattern.  dragonfly_balanced is defined in
 * policy_dragonfly_groups.c: it is dragonfly-groups' candidates and scan
 * with a shared tier after them. */
#define POLICIES(X)           \
	X(linear)             \
	X(clustered)          \
	X(random)             \
	X(fattree_pods)       \
	X(mesh_blocks)        \
	X(dragonfly_groups)   \
	X(dragonfly_balanced) \
	X(nne)                \
	/* new policies above this line */

#define DECLARE(n) extern const struct policy_ops policy_##n;
#define ENTRY(n) &policy_##n,
POLICIES(DECLARE)

static const struct policy_ops *const registry[] = { POLICIES(ENTRY) NULL };

/* How policy specs are written: "dragonfly-groups:large=wait". */
static const struct spec_syntax policy_syntax = { 0, "option" };

static const char *policy_at(size_t i)
{
	return registry[i] ? registry[i]->name : NULL;
}

/* Derived once from the registry (pthread_once: safe under threads). */
static const char *names[sizeof(registry) / sizeof(registry[0])];
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static void fill_names(void)
{
	for (size_t i = 0; registry[i]; i++)
		names[i] = registry[i]->name;
}

const struct policy_ops *policy_find(const char *name)
{
	for (size_t i = 0; registry[i]; i++)
		if (strcmp(registry[i]->name, name) == 0)
			return registry[i];
	return NULL;
}

const char *const *policy_names(void)
{
	pthread_once(&names_once, fill_names);
	return names;
}

int policy_check(const char *spec, struct err *err)
{
	const struct policy_ops *ops;
	struct spec args;
	char known[256];

	if (!spec)
		return err_set(err, "policy: no spec");
	if (spec_parse(spec, &policy_syntax, &args, err))
		return err_prefix(err, "policy '%s'", spec);
	if (!strcmp(args.name, POLICY_DEFAULT) && args.n)
		return err_set(err,
			       "policy %s takes no options (it stands for "
			       "the family's default policy)",
			       POLICY_DEFAULT);
	if (!strcmp(args.name, POLICY_DEFAULT))
		return 0;
	ops = policy_find(args.name);
	if (!ops)
		return err_set(
			err, "unknown policy '%s' (known: %s)", args.name,
			spec_known_names(policy_at, known, sizeof(known)));
	if (spec_check(&args, ops->opts, &policy_syntax, err))
		return err_prefix(err, "policy %s", ops->name);
	return 0;
}

/* The family's defaults, first to last, into C (NULL-terminated): the
 * policy of highest priority declaring T's family under routing RN, then
 * linear (which always applies).  A graph recognised as a family has
 * that family's (its own policy refuses a routing it cannot isolate
 * under, and says why). */
static void defaults_of(const struct topo *t, const char *rn, const char *c[3])
{
	const char *fam = topo_behaves_as_family(t);
	const struct policy_ops *best = NULL;
	int prio = 0;

	for (size_t i = 0; registry[i]; i++)
		for (const struct policy_default_for *d =
			     registry[i]->default_for;
		     d && d->family; d++)
			if (!strcmp(d->family, fam) &&
			    (!d->routing || !strcmp(d->routing, rn)) &&
			    (!best || d->priority > prio)) {
				best = registry[i];
				prio = d->priority;
			}
	c[0] = best ? best->name : "linear";
	c[1] = best ? "linear" : NULL;
	c[2] = NULL;
}

/* The family's default policy for T under R: the first of its list that
 * applies (the last, linear, always does). */
static struct policy *create_default(const struct topo *t,
				     const struct routing *r,
				     const struct policy_opts *o,
				     struct err *err)
{
	const char *list[3], *const *c = list;
	struct policy *p = NULL;

	defaults_of(t, routing_name(r), list);
	for (; !p && c[1]; c++) {
		struct err e = { 0 };

		p = policy_create_opt(*c, t, r, o, &e);
	}
	return p ? p : policy_create_opt(*c, t, r, o, err);
}

const char *policy_default_why(const struct topo *t, const struct routing *r,
			       char *buf, size_t len)
{
	const char *c[3];
	struct err e = { 0 };
	struct policy *p;

	defaults_of(t, routing_name(r), c);
	if (!c[1])
		return NULL; /* the family's own is linear */
	p = policy_create(c[0], t, r, &e);
	policy_destroy(p);
	if (p)
		return NULL;
	snprintf(buf, len, "%s", e.msg);
	return buf;
}

const char *policy_default_spec(const struct topo *t, const struct routing *r)
{
	struct err e = { 0 };
	struct policy *p = create_default(t, r, NULL, &e);
	const char *name = p ? p->ops->name : "linear";

	policy_destroy(p);
	return name;
}

struct policy *policy_create(const char *spec, const struct topo *t,
			     const struct routing *r, struct err *err)
{
	return policy_create_opt(spec, t, r, NULL, err);
}

struct policy *policy_create_opt(const char *spec, const struct topo *t,
				 const struct routing *r,
				 const struct policy_opts *o, struct err *err)
{
	const struct policy_ops *ops;
	struct policy *p;
	char known[256];

	if (!spec || !t || !r) {
		err_set(err, "policy: spec, topology and routing are required");
		return NULL;
	}
	if (!strcmp(spec, POLICY_DEFAULT))
		return create_default(t, r, o, err);
	p = calloc(1, sizeof(*p));
	if (!p) {
		err_nomem(err, "policy: out of memory");
		return NULL;
	}
	if (o)
		p->opts = *o;
	if (spec_parse(spec, &policy_syntax, &p->args, err)) {
		err_prefix(err, "policy '%s'", spec);
		free(p);
		return NULL;
	}
	ops = policy_find(p->args.name);
	if (!ops && !strcmp(p->args.name, POLICY_DEFAULT)) {
		err_set(err,
			"policy %s takes no options (it stands for the "
			"family's default policy)",
			POLICY_DEFAULT);
		free(p);
		return NULL;
	}
	if (!ops) {
		err_set(err, "unknown policy '%s' (known: %s)", p->args.name,
			spec_known_names(policy_at, known, sizeof(known)));
		free(p);
		return NULL;
	}
	p->ops = ops;
	p->t = t;
	p->r = r;
	if (spec_check(&p->args, ops->opts, &policy_syntax, err)) {
		err_prefix(err, "policy %s", ops->name);
		policy_destroy(p);
		return NULL;
	}
	if (ops->create(p, err)) {
		policy_destroy(p);
		return NULL;
	}
	spec_format(p->spec, sizeof(p->spec), ops->name, &p->args, ops->opts);
	p->wrc = willrun_cache_new();
	return p;
}

void policy_destroy(struct policy *p)
{
	if (!p)
		return;
	if (p->ops->destroy)
		p->ops->destroy(p->state);
	willrun_cache_free(p->wrc);
	free(p);
}

enum policy_status policy_place(const struct policy *p,
				const struct policy_view *v,
				const struct policy_request *req,
				struct policy_result *res)
{
	uint32_t n = topo_num_nodes(p->t), usable = 0;

	res->n = 0;
	res->nranks = 0;
	res->isolated = false;
	res->reason[0] = '\0';
	if (!v || !v->owner || !req || !res->nodes)
		return policy_say(res, POLICY_NEVER,
				  "bad call: view, owner "
				  "array and result buffer are required");
	if (req->job_id == POLICY_FREE)
		return policy_say(res, POLICY_NEVER,
				  "job id 0 is reserved "
				  "for free nodes");
	if (req->nodes == 0)
		return policy_say(res, POLICY_NEVER,
				  "a job needs at least "
				  "one node");
	if (req->ngrid > POLICY_MAX_GRID)
		return policy_say(res, POLICY_NEVER,
				  "grid has %u dimensions "
				  "(at most %d)",
				  req->ngrid, POLICY_MAX_GRID);
	/* enough usable nodes? (counted only as far as the answer needs) */
	if (!v->usable)
		usable = n;
	for (uint32_t i = 0; v->usable && i < n && usable < req->nodes; i++)
		usable += v->usable[i] != 0;
	if (req->nodes > usable)
		return policy_say(res, POLICY_NEVER,
				  "needs %u nodes, the "
				  "machine has %u usable",
				  req->nodes, usable);
	if (p->ops->search)
		return policy_place_isolated(p, v, req, res, p->ops->search);
	return p->ops->place(p, v, req, res);
}

enum policy_status policy_place_again(const struct policy *p,
				      const struct policy_view *v,
				      const struct policy_request *req,
				      struct policy_result *res)
{
	int st;

	res->n = 0;
	res->nranks = 0;
	res->isolated = false;
	res->reason[0] = '\0';
	if (!p->ops->search)
		return p->ops->place(p, v, req, res);
	st = p->ops->search(p, v, req, res, false);
	if (st < 0)
		return policy_say(res, POLICY_WAIT, "out of memory");
	if (st != POLICY_PLACED)
		res->isolated = false;
	return (enum policy_status)st;
}

void policy_sync(const struct policy *p, const struct policy_view *v)
{
	if (p && v && v->owner && p->ops->sync)
		p->ops->sync(p, v);
}

static const char *const placement_names[POLICY_PLACEMENT_N] = {
	NULL, "isolated", "shared", "oblivious"
};

#define PLACEMENT_KEY " placement="
#define WHY_KEY " why=\""

const char *policy_placement_name(enum policy_placement k)
{
	return k < POLICY_PLACEMENT_N ? placement_names[k] : NULL;
}

void policy_placement_format(enum policy_placement k, const char *why,
			     char *buf, size_t len)
{
	size_t n;
	char *o;

	if (!len)
		return;
	buf[0] = '\0';
	if (!policy_placement_name(k))
		return;
	n = (size_t)snprintf(buf, len, "%s%s", PLACEMENT_KEY,
			     placement_names[k]);
	if (k != POLICY_PLACEMENT_SHARED || n + sizeof(WHY_KEY) + 1 > len)
		return;
	o = buf + n;
	memcpy(o, WHY_KEY, strlen(WHY_KEY));
	o += strlen(WHY_KEY);
	/* the why, cut to fit, its double quotes made single */
	for (const char *c = why ? why : ""; *c && o + 2 < buf + len; c++)
		*o++ = *c == '"' ? '\'' : *c;
	*o++ = '"';
	*o = '\0';
}

enum policy_placement policy_placement_parse(const char *text, char *why,
					     size_t len)
{
	const char *p = text ? strstr(text, PLACEMENT_KEY) : NULL;
	const char *w, *e;
	int k;

	if (len)
		why[0] = '\0';
	if (!p)
		return POLICY_PLACEMENT_UNKNOWN;
	p += strlen(PLACEMENT_KEY);
	for (k = POLICY_PLACEMENT_ISOLATED; k < POLICY_PLACEMENT_N; k++) {
		size_t n = strlen(placement_names[k]);

		if (!strncmp(p, placement_names[k], n) &&
		    (!p[n] || p[n] == ' '))
			break;
	}
	if (k == POLICY_PLACEMENT_N)
		return POLICY_PLACEMENT_UNKNOWN;
	w = strstr(p, WHY_KEY);
	if (k == POLICY_PLACEMENT_SHARED && w && len) {
		w += strlen(WHY_KEY);
		e = strchr(w, '"');
		snprintf(why, len, "%.*s",
			 (int)(e ? (size_t)(e - w) : strlen(w)), w);
	}
	return (enum policy_placement)k;
}

uint64_t policy_gen_next(void)
{
	static atomic_uint_fast64_t gen;

	return (uint64_t)atomic_fetch_add(&gen, 1) + 1;
}

const char *policy_name(const struct policy *p)
{
	return p->ops->name;
}

const char *policy_spec(const struct policy *p)
{
	return p->spec;
}

bool policy_isolating(const struct policy *p)
{
	return p->ops->isolating;
}

int policy_resv_level(const struct policy *p, const uint32_t *nodes, uint32_t n)
{
	return p->ops->resv_level ? p->ops->resv_level(p, nodes, n) : -1;
}

bool policy_shares(const struct policy *p)
{
	return p->ops->isolating && p->ops->shares && p->ops->shares(p->state);
}

/* ---- helpers for the policy files ---- */

const char *policy_opt(const struct policy *p, const char *key)
{
	const char *v = spec_value(&p->args, p->ops->opts, key);

	return v ? v : "";
}

int policy_opt_show(struct policy *p, const char *key, const char *value)
{
	struct spec *s = &p->args;
	struct spec_item *it = NULL;

	for (size_t i = 0; i < s->n && !it; i++)
		if (!strcmp(s->item[i].key, key))
			it = &s->item[i];
	if (!it && s->n < SPEC_MAX_ITEMS)
		it = &s->item[s->n++];
	if (!it || strlen(key) >= sizeof(it->key) ||
	    strlen(value) >= sizeof(it->value))
		return -1;
	snprintf(it->key, sizeof(it->key), "%s", key);
	snprintf(it->value, sizeof(it->value), "%s", value);
	return 0;
}

int policy_opt_long(const struct policy *p, const char *key, long lo, long hi,
		    long *out, struct err *err)
{
	const char *s = policy_opt(p, key);
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (!*s || *end || errno || v < lo || v > hi)
		return err_set(err,
			       "policy %s: option %s=%s: expected an "
			       "integer in [%ld, %ld]",
			       p->ops->name, key, s, lo, hi);
	*out = v;
	return 0;
}

int policy_opt_choice(const struct policy *p, const char *key,
		      const char *const *choices, int *out, struct err *err)
{
	const char *s = policy_opt(p, key);
	char list[160];
	size_t o = 0;

	for (int i = 0; choices[i]; i++)
		if (strcmp(s, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	list[0] = '\0';
	for (int i = 0; choices[i] && o < sizeof(list); i++)
		o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s",
				      i ? ", " : "", choices[i]);
	return err_set(err, "policy %s: option %s=%s: expected one of %s",
		       p->ops->name, key, s, list);
}

int policy_grid_parse(const char *s, struct policy_request *req,
		      struct err *err)
{
	const char *p = s;

	req->ngrid = 0;
	if (!s)
		return err_set(err, "grid: missing");
	for (;;) {
		char *end;
		unsigned long v;

		if (!isdigit((unsigned char)*p)) {
			req->ngrid = 0;
			return err_set(
				err,
				"grid %s: expected AxBxC with positive integers",
				s);
		}
		errno = 0;
		v = strtoul(p, &end, 10);
		if (!v || (v > POLICY_GRID_MAX) || errno) {
			req->ngrid = 0;
			return err_set(err, "grid %s: dimensions are 1 to %u",
				       s, POLICY_GRID_MAX);
		}
		if (req->ngrid == POLICY_MAX_GRID) {
			req->ngrid = 0;
			return err_set(
				err,
				"grid %s: expected 1 to %d dimensions AxBxC", s,
				POLICY_MAX_GRID);
		}
		req->grid[req->ngrid++] = (uint32_t)v;
		if (*end == '\0')
			return 0;
		if (*end != 'x') {
			req->ngrid = 0;
			return err_set(
				err,
				"grid %s: expected AxBxC with positive integers",
				s);
		}
		p = end + 1;
	}
}

enum policy_status policy_say(struct policy_result *res,
			      enum policy_status status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(res->reason, sizeof(res->reason), fmt, ap);
	va_end(ap);
	if (status != POLICY_PLACED)
		res->n = 0;
	return status;
}

int policy_jobs_build(struct policy_jobs *j, const uint32_t *owner, uint32_t n)
{
	uint32_t cap = 16, *keys, *vals;

	j->n = 0;
	j->idx = malloc((size_t)(n ? n : 1) * sizeof(*j->idx));
	j->ids = malloc((size_t)(n ? n : 1) * sizeof(*j->ids));
	while (cap < 2 * (uint64_t)n)
		cap *= 2;
	keys = calloc(cap, sizeof(*keys));
	vals = malloc(cap * sizeof(*vals));
	if (!j->idx || !j->ids || !keys || !vals) {
		free(keys);
		free(vals);
		policy_jobs_free(j);
		return -1;
	}
	for (uint32_t i = 0, last = POLICY_FREE, lastidx = 0; i < n; i++) {
		uint32_t id = owner[i], h;

		if (id == POLICY_FREE) {
			j->idx[i] = UINT32_MAX;
			continue;
		}
		if (id == last) { /* jobs mostly hold runs of nodes */
			j->idx[i] = lastidx;
			continue;
		}
		for (h = policy_hash32(id) & (cap - 1);
		     keys[h] && keys[h] != id; h = (h + 1) & (cap - 1))
			;
		if (!keys[h]) {
			keys[h] = id;
			vals[h] = j->n;
			j->ids[j->n++] = id;
		}
		j->idx[i] = vals[h];
		last = id;
		lastidx = vals[h];
	}
	free(keys);
	free(vals);
	return 0;
}

void policy_jobs_free(struct policy_jobs *j)
{
	free(j->idx);
	free(j->ids);
	j->idx = j->ids = NULL;
	j->n = 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

int policy_cand_cmp(const void *a, const void *b)
{
	const struct policy_cand *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Lists this short are sorted by insertion: fewer moves than the radix
 * sort's passes and counts. */
#define SORT_SHORT 32

/* Radix sort of A[0..N) by bytes, least significant first, through TMP
 * (room for N): as many passes as MAX (the largest value) has bytes, so
 * a node list of a machine under 65,536 nodes sorts in two linear
 * passes, with no comparison. */
static void radix_u32(uint32_t *a, uint32_t *tmp, uint32_t n, uint32_t max)
{
	uint32_t *src = a, *dst = tmp;

	for (unsigned sh = 0; sh < 32 && max >> sh; sh += 8) {
		uint32_t cnt[257] = { 0 }, *t;

		for (uint32_t i = 0; i < n; i++)
			cnt[((src[i] >> sh) & 0xff) + 1]++;
		for (uint32_t d = 0; d < 256; d++)
			cnt[d + 1] += cnt[d];
		for (uint32_t i = 0; i < n; i++)
			dst[cnt[(src[i] >> sh) & 0xff]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	if (src != a)
		memcpy(a, src, (size_t)n * sizeof(*a));
}

void policy_sort_u32(uint32_t *a, uint32_t n)
{
	uint32_t i = 1, max, stack[1024], *tmp;

	while (i < n && a[i - 1] <= a[i])
		i++;
	if (i >= n)
		return; /* sorted (node lists often are) */
	if (n <= SORT_SHORT) {
		for (; i < n; i++) {
			uint32_t x = a[i], j = i;

			for (; j > 0 && a[j - 1] > x; j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return;
	}
	max = a[0];
	for (i = 1; i < n; i++)
		max = a[i] > max ? a[i] : max;
	tmp = n <= 1024 ? stack : malloc((size_t)n * sizeof(*tmp));
	if (tmp)
		radix_u32(a, tmp, n, max);
	else /* out of memory: sort in place */
		qsort(a, n, sizeof(*a), cmp_u32);
	if (tmp != stack)
		free(tmp);
}

uint32_t policy_free_nodes(const struct policy *p, const struct policy_view *v,
			   uint32_t *out)
{
	uint32_t n = topo_num_nodes(p->t), f = 0;

	for (uint32_t i = 0; i < n; i++)
		if (policy_node_ok(v, i))
			out[f++] = i;
	return f;
}

uint32_t *policy_free_enough(const struct policy *p,
			     const struct policy_view *v, uint32_t need,
			     uint32_t *nfree, struct policy_result *res)
{
	uint32_t *fr = malloc(topo_num_nodes(p->t) * sizeof(*fr));

	if (!fr) {
		policy_say(res, POLICY_WAIT, "out of memory");
		return NULL;
	}
	*nfree = policy_free_nodes(p, v, fr);
	if (*nfree < need) {
		free(fr);
		policy_say(res, POLICY_WAIT,
			   "waiting for %u free nodes (%u "
			   "free)",
			   need, *nfree);
		return NULL;
	}
	return fr;
}

enum policy_status policy_place_isolated(const struct policy *p,
					 const struct policy_view *v,
					 const struct policy_request *req,
					 struct policy_result *res,
					 policy_search_fn search)
{
	int st = search(p, v, req, res, false);

	if (st < 0)
		return policy_say(res, POLICY_WAIT, "out of memory");
	if (st == POLICY_WAIT) {
		/* can it ever run isolated?  the same search with every
		 * usable node free */
		struct policy_request r0 = *req;
		struct policy_result tmp = *res;
		int e;

		static const char wait_prefix[] = "waiting for ";
		const char *need;

		r0.attempt = 0;
		e = search(p, v, &r0, &tmp, true);
		if (e >= 0 && e != POLICY_PLACED) {
			/* "waiting for X" on the empty machine reads better as
			 * "needs X"; any other reason is quoted whole */
			need = tmp.reason;
			if (!strncmp(need, wait_prefix,
				     sizeof(wait_prefix) - 1))
				need += sizeof(wait_prefix) - 1;
			st = policy_say(res, POLICY_NEVER,
					"can never run "
					"isolated: needs %s",
					need);
		}
	}
	if (st != POLICY_PLACED)
		res->isolated = false;
	return (enum policy_status)st;
}

uint64_t policy_seed(uint64_t seed, uint32_t job_id, uint32_t attempt)
{
	uint64_t x = seed ^ ((uint64_t)job_id << 32 | attempt);

	/* splitmix64 finaliser: nearby (job, attempt) give unrelated seeds */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void policy_pick_random(uint32_t *pool, uint32_t npool, uint32_t k,
			uint64_t seed, uint32_t *out)
{
	struct rng g;

	rng_seed(&g, seed);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = i + (uint32_t)rng_below(&g, npool - i),
			 t = pool[j];

		pool[j] = pool[i];
		pool[i] = t;
		out[i] = t;
	}
}
