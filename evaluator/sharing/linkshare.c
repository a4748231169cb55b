/* linkshare.c - MLS / TLS (paper 003 Eq. 5-6) by per-link job counts.
 *
 * The incremental state keeps, per directed link, the number of jobs using
 * it and the XOR of their slot numbers (+1): when exactly one job is left
 * on a link the XOR names it, so adding or removing a job updates every
 * other job's "shared links" count in O(|l_i|) without job-pair lists. */
#include <stdlib.h>
#include <string.h>

#include "evaluator/traffic/flows.h"
#include "evaluator/sharing/linkshare.h"
#include "topo/topo.h"

struct slot {
	uint32_t id;
	uint32_t *links;
	uint32_t n;
	uint32_t shared;
	bool live;
	bool ever_shared;
};

struct ls_state {
	const struct routing *r;
	const struct topo *t;
	uint32_t nlinks, first;
	uint32_t *count; /* [nlinks] jobs on each link */
	uint32_t *xslot; /* [nlinks] XOR of (slot + 1) of those jobs */
	struct slot *slots;
	uint32_t nslots, cap;
	uint32_t *freelist;
	uint32_t nfree;
	uint32_t njobs;
	uint32_t used;	 /* links with count >= 1 */
	uint32_t shared; /* links with count >= 2 */
	/* ids of the jobs whose shared count went 0 -> 1 or 1 -> 0 in the
	 * last add or remove (ls_state_flipped) */
	uint32_t *flip;
	uint32_t nflip, flip_cap;
};

/* Collect the set bytes of USED[first, nlinks) into a new ascending array
 * and clear them. */
static int gather(uint8_t *used, uint32_t first, uint32_t nlinks,
		  uint32_t **links, uint32_t *n, struct err *err)
{
	uint32_t cnt = 0, k = 0, l;
	uint32_t *v;

	for (l = first; l < nlinks && (l & 7); l++)
		cnt += used[l] != 0;
	for (; l + 8 <= nlinks; l += 8) {
		uint64_t w;

		memcpy(&w, used + l, 8);
		if (w)
			for (uint32_t q = 0; q < 8; q++)
				cnt += used[l + q] != 0;
	}
	for (; l < nlinks; l++)
		cnt += used[l] != 0;
	*links = NULL;
	*n = 0;
	if (!cnt)
		return 0;
	v = malloc(cnt * sizeof(*v));
	if (!v) {
		for (l = first; l < nlinks; l++)
			used[l] = 0;
		return err_nomem(err, "out of memory");
	}
	for (l = first; l < nlinks && k < cnt; l++) {
		uint64_t w;

		/* a word of unused links at once (a job's links are a few
		 * of a large machine's) */
		if (!(l & 7) && l + 8 <= nlinks) {
			memcpy(&w, used + l, 8);
			if (!w) {
				l += 7;
				continue;
			}
		}
		if (used[l]) {
			v[k++] = l;
			used[l] = 0;
		}
	}
	*links = v;
	*n = cnt;
	return 0;
}

/* Mark the switch links of every path of the pattern's flows. */
static int pattern_links(const struct routing *r, const struct ls_job *j,
			 uint8_t *used, uint32_t first, struct err *err)
{
	struct flows f;
	struct pathset ps;
	int rc = 0;

	flows_init(&f);
	pathset_init(&ps);
	if (flows_pattern(j->pattern, j->nodes, j->n, j->seed ? j->seed : j->id,
			  &f, err)) {
		flows_free(&f);
		return -1;
	}
	for (uint32_t i = 0; i < f.n && !rc; i++) {
		if (f.src[i] == f.dst[i])
			continue;
		if (routing_paths(r, f.src[i], f.dst[i], &ps, err)) {
			rc = -1;
			break;
		}
		for (size_t q = 0; q < ps.off[ps.n]; q++)
			if (ps.links[q] >= first)
				used[ps.links[q]] = 1;
	}
	pathset_free(&ps);
	flows_free(&f);
	return rc;
}

int linkshare_linkset(const struct routing *r, const struct ls_job *j,
		      uint8_t *scratch, uint32_t **links, uint32_t *n,
		      struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t nn = topo_num_nodes(t), nl = topo_num_links(t);
	uint32_t first = topo_first_switch_link(t);
	uint8_t *used = scratch;
	int rc;

	*links = NULL;
	*n = 0;
	for (uint32_t i = 0; i < j->n; i++)
		if (j->nodes[i] >= nn)
			return err_set(err, "node %u out of range (%u nodes)",
				       j->nodes[i], nn);
	if (j->n < 2)
		return 0;
	if (!used) {
		used = calloc(nl ? nl : 1, 1);
		if (!used)
			return err_nomem(err, "out of memory");
	}
	if (j->pattern && *j->pattern)
		rc = pattern_links(r, j, used, first, err);
	else
		rc = routing_linkset(r, j->nodes, j->n, used, err);
	if (rc)
		memset(used, 0, nl);
	else
		rc = gather(used, first, nl, links, n, err);
	if (used != scratch)
		free(used);
	return rc;
}

struct ls_state *ls_state_create(const struct routing *r, struct err *err)
{
	const struct topo *t = routing_topo(r);
	struct ls_state *s = calloc(1, sizeof(*s));

	if (!s)
		goto oom;
	s->r = r;
	s->t = t;
	s->nlinks = topo_num_links(t);
	s->first = topo_first_switch_link(t);
	s->count = calloc(s->nlinks ? s->nlinks : 1, sizeof(*s->count));
	s->xslot = calloc(s->nlinks ? s->nlinks : 1, sizeof(*s->xslot));
	if (!s->count || !s->xslot)
		goto oom;
	return s;
oom:
	ls_state_destroy(s);
	err_nomem(err, "out of memory");
	return NULL;
}

void ls_state_destroy(struct ls_state *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nslots; i++)
		free(s->slots[i].links);
	free(s->slots);
	free(s->freelist);
	free(s->count);
	free(s->xslot);
	free(s->flip);
	free(s);
}

/* Note that job O's sharing turned over (its slots are never more than
 * the jobs, so one entry per other job is room enough). */
static void flipped(struct ls_state *s, const struct slot *o)
{
	s->flip[s->nflip++] = o->id;
}

static int find_slot(const struct ls_state *s, uint32_t id)
{
	for (uint32_t i = 0; i < s->nslots; i++)
		if (s->slots[i].live && s->slots[i].id == id)
			return (int)i;
	return -1;
}

static int new_slot(struct ls_state *s, uint32_t *out)
{
	if (s->nfree) {
		*out = s->freelist[--s->nfree];
		return 0;
	}
	if (s->nslots == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 16;
		struct slot *v = realloc(s->slots, cap * sizeof(*v));
		uint32_t *f;

		if (!v)
			return -1;
		s->slots = v;
		f = realloc(s->freelist, cap * sizeof(*f));
		if (!f)
			return -1;
		s->freelist = f;
		s->cap = cap;
	}
	*out = s->nslots++;
	memset(&s->slots[*out], 0, sizeof(s->slots[*out]));
	return 0;
}

int ls_state_add(struct ls_state *s, uint32_t id, uint32_t *links, uint32_t n,
		 struct err *err)
{
	struct slot *j;
	uint32_t k;

	for (uint32_t i = 0; i < n; i++)
		if (links[i] < s->first || links[i] >= s->nlinks ||
		    (i && links[i] <= links[i - 1])) {
			free(links);
			return err_set(err,
				       "job %u: link set not ascending "
				       "switch-link ids",
				       id);
		}
	if (find_slot(s, id) >= 0) {
		free(links);
		return err_set(err, "job %u given twice", id);
	}
	if (new_slot(s, &k)) {
		free(links);
		return err_nomem(err, "out of memory");
	}
	if (s->flip_cap < s->nslots) {
		uint32_t *f = realloc(s->flip, s->cap * sizeof(*f));

		if (!f) {
			s->freelist[s->nfree++] = k;
			free(links);
			return err_nomem(err, "out of memory");
		}
		s->flip = f;
		s->flip_cap = s->cap;
	}
	s->nflip = 0;
	j = &s->slots[k];
	j->id = id;
	j->links = links;
	j->n = n;
	j->shared = 0;
	j->live = true;
	j->ever_shared = false;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t l = links[i], c = s->count[l];

		if (c == 0) {
			s->used++;
		} else {
			if (c == 1) {
				struct slot *o = &s->slots[s->xslot[l] - 1];

				s->shared++;
				if (!o->shared++)
					flipped(s, o);
				o->ever_shared = true;
			}
			j->shared++;
			j->ever_shared = true;
		}
		s->count[l] = c + 1;
		s->xslot[l] ^= k + 1;
	}
	s->njobs++;
	return 0;
}

int ls_state_add_job(struct ls_state *s, const struct ls_job *j,
		     struct err *err)
{
	uint32_t *links, n;

	if (linkshare_linkset(s->r, j, NULL, &links, &n, err))
		return err_prefix(err, "job %u", j->id);
	return ls_state_add(s, j->id, links, n, err);
}

int ls_state_remove(struct ls_state *s, uint32_t id)
{
	int k = find_slot(s, id);
	struct slot *j;

	if (k < 0)
		return -1;
	j = &s->slots[k];
	s->nflip = 0;
	for (uint32_t i = 0; i < j->n; i++) {
		uint32_t l = j->links[i], c = --s->count[l];

		s->xslot[l] ^= (uint32_t)k + 1;
		if (c == 0) {
			s->used--;
		} else if (c == 1) {
			struct slot *o = &s->slots[s->xslot[l] - 1];

			s->shared--;
			if (!--o->shared)
				flipped(s, o);
		}
	}
	free(j->links);
	j->links = NULL;
	j->n = 0;
	j->live = false;
	s->freelist[s->nfree++] = (uint32_t)k;
	s->njobs--;
	return 0;
}

static double pct(uint32_t part, uint32_t whole)
{
	return whole ? 100.0 * part / whole : 0.0;
}

double ls_state_mls(const struct ls_state *s)
{
	double m = 0;

	for (uint32_t i = 0; i < s->nslots; i++) {
		const struct slot *j = &s->slots[i];

		if (j->live && j->shared && pct(j->shared, j->n) > m)
			m = pct(j->shared, j->n);
	}
	return m;
}

double ls_state_tls(const struct ls_state *s)
{
	return pct(s->shared, s->used);
}

uint32_t ls_state_njobs(const struct ls_state *s)
{
	return s->njobs;
}

int ls_state_job(const struct ls_state *s, uint32_t id, struct ls_job_now *out)
{
	int k = find_slot(s, id);

	if (k < 0)
		return -1;
	out->links = s->slots[k].n;
	out->shared = s->slots[k].shared;
	out->ever_shared = s->slots[k].ever_shared;
	return 0;
}

uint32_t ls_state_link_jobs(const struct ls_state *s, uint32_t l)
{
	return l < s->nlinks ? s->count[l] : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Whether ascending link sets A[0..NA) and B[0..NB) meet. */
static bool meet(const uint32_t *a, uint32_t na, const uint32_t *b, uint32_t nb)
{
	uint32_t i = 0, k = 0;

	while (i < na && k < nb) {
		if (a[i] == b[k])
			return true;
		if (a[i] < b[k])
			i++;
		else
			k++;
	}
	return false;
}

/* Slot K's partners, marked in MARK[nslots]: a link with two jobs names
 * the other by its XOR; with more, every other job is checked. */
static void mark_partners(const struct ls_state *s, uint32_t k, uint8_t *mark)
{
	const struct slot *j = &s->slots[k];
	bool crowded = false;

	for (uint32_t i = 0; i < j->n; i++) {
		uint32_t l = j->links[i];

		if (s->count[l] == 2)
			mark[(s->xslot[l] ^ (k + 1)) - 1] = 1;
		else if (s->count[l] > 2)
			crowded = true;
	}
	if (!crowded)
		return;
	for (uint32_t o = 0; o < s->nslots; o++)
		if (o != k && !mark[o] && s->slots[o].live &&
		    meet(j->links, j->n, s->slots[o].links, s->slots[o].n))
			mark[o] = 1;
}

int ls_state_partners(const struct ls_state *s, uint32_t id, uint32_t *ids,
		      uint32_t cap, uint32_t *count, struct err *err)
{
	int k = find_slot(s, id);
	uint8_t *mark;
	uint32_t *all, n = 0;

	*count = 0;
	if (k < 0)
		return err_set(err, "job %u not in the state", id);
	if (!s->slots[k].shared)
		return 0;
	mark = calloc(s->nslots, 1);
	all = malloc(s->nslots * sizeof(*all));
	if (!mark || !all) {
		free(mark);
		free(all);
		return err_set(err, "out of memory");
	}
	mark_partners(s, (uint32_t)k, mark);
	for (uint32_t o = 0; o < s->nslots; o++)
		if (mark[o])
			all[n++] = s->slots[o].id;
	qsort(all, n, sizeof(*all), cmp_u32);
	memcpy(ids, all, (n < cap ? n : cap) * sizeof(*ids));
	*count = n;
	free(mark);
	free(all);
	return 0;
}

uint32_t ls_state_flipped(const struct ls_state *s, const uint32_t **ids)
{
	*ids = s->flip;
	return s->nflip;
}

/* shares_with of every job: per shared link a bitset of the jobs on it
 * (only jobs with shared links get a bit), OR-ed over each job's shared
 * links.  Cost O(sum |l_i| * J/64), no job-pair enumeration. */
static int fill_shares(const struct ls_state *s, struct ls_result *res,
		       struct err *err)
{
	uint32_t nj = res->njobs, jsh = 0, lsh = 0, words;
	uint32_t *cidx = NULL, *cjob = NULL, *lidx = NULL;
	uint64_t *bits = NULL, *acc = NULL;
	int rc = -1;

	cidx = malloc((nj ? nj : 1) * sizeof(*cidx));
	cjob = malloc((nj ? nj : 1) * sizeof(*cjob));
	lidx = malloc(s->nlinks * sizeof(*lidx) + 1);
	if (!cidx || !cjob || !lidx)
		goto out;
	for (uint32_t i = 0; i < nj; i++) {
		cidx[i] = UINT32_MAX;
		if (s->slots[i].shared) {
			cidx[i] = jsh;
			cjob[jsh++] = i;
		}
	}
	if (!jsh) {
		rc = 0;
		goto out;
	}
	for (uint32_t l = 0; l < s->nlinks; l++)
		lidx[l] = s->count[l] >= 2 ? lsh++ : UINT32_MAX;
	words = (jsh + 63) / 64;
	bits = calloc((size_t)lsh * words, sizeof(*bits));
	acc = malloc(words * sizeof(*acc));
	if (!bits || !acc)
		goto out;
	for (uint32_t q = 0; q < jsh; q++) {
		const struct slot *j = &s->slots[cjob[q]];

		for (uint32_t i = 0; i < j->n; i++)
			if (lidx[j->links[i]] != UINT32_MAX)
				bits[(size_t)lidx[j->links[i]] * words +
				     q / 64] |= 1ULL << (q % 64);
	}
	for (uint32_t q = 0; q < jsh; q++) {
		const struct slot *j = &s->slots[cjob[q]];
		struct ls_job_stat *st = &res->jobs[cjob[q]];
		uint32_t cnt = 0;

		memset(acc, 0, words * sizeof(*acc));
		for (uint32_t i = 0; i < j->n; i++) {
			uint32_t x = lidx[j->links[i]];

			if (x == UINT32_MAX)
				continue;
			for (uint32_t w = 0; w < words; w++)
				acc[w] |= bits[(size_t)x * words + w];
		}
		acc[q / 64] &= ~(1ULL << (q % 64));
		for (uint32_t w = 0; w < words; w++)
			cnt += (uint32_t)__builtin_popcountll(acc[w]);
		st->shares_with = malloc((cnt ? cnt : 1) * sizeof(uint32_t));
		if (!st->shares_with) {
			err_nomem(err, "out of memory");
			goto out;
		}
		st->nshares = 0;
		for (uint32_t w = 0; w < words; w++)
			for (uint64_t b = acc[w]; b; b &= b - 1)
				st->shares_with[st->nshares++] =
					res->jobs[cjob[w * 64 +
						       (uint32_t)__builtin_ctzll(
							       b)]]
						.id;
		qsort(st->shares_with, st->nshares, sizeof(uint32_t), cmp_u32);
	}
	rc = 0;
out:
	if (rc && !err->msg[0])
		err_nomem(err, "out of memory");
	free(cidx);
	free(cjob);
	free(lidx);
	free(bits);
	free(acc);
	return rc;
}

int linkshare_compute(const struct routing *r, const struct ls_job *jobs,
		      uint32_t njobs, struct ls_result *res, struct err *err)
{
	struct err local = { 0 };
	struct ls_state *s;
	uint8_t *scratch = NULL;
	uint32_t bad = UINT32_MAX;

	if (!err)
		err = &local;
	err->msg[0] = '\0';
	memset(res, 0, sizeof(*res));
	res->bad_job = UINT32_MAX;
	s = ls_state_create(r, err);
	if (!s)
		return -1;
	scratch = calloc(s->nlinks ? s->nlinks : 1, 1);
	res->jobs = calloc(njobs ? njobs : 1, sizeof(*res->jobs));
	res->link_jobs =
		calloc(s->nlinks ? s->nlinks : 1, sizeof(*res->link_jobs));
	if (!scratch || !res->jobs || !res->link_jobs) {
		err_nomem(err, "out of memory");
		goto fail;
	}
	res->njobs = njobs;
	res->nlinks = s->nlinks;
	for (uint32_t i = 0; i < njobs; i++) {
		uint32_t *links, n;

		res->jobs[i].id = jobs[i].id;
		if (linkshare_linkset(r, &jobs[i], scratch, &links, &n, err)) {
			err_prefix(err, "job %u", jobs[i].id);
			bad = i;
			goto fail;
		}
		/* slots are handed out in order, so slot i is jobs[i] */
		if (ls_state_add(s, jobs[i].id, links, n, err))
			goto fail;
	}
	for (uint32_t i = 0; i < njobs; i++) {
		struct ls_job_stat *st = &res->jobs[i];

		st->links = s->slots[i].n;
		st->shared = s->slots[i].shared;
		st->pct = pct(st->shared, st->links);
		st->isolated = st->shared == 0;
	}
	for (uint32_t l = 0; l < s->nlinks; l++) {
		uint32_t c = s->count[l];

		res->link_jobs[l] = c > UINT16_MAX ? UINT16_MAX : (uint16_t)c;
		if (c > res->max_link_jobs)
			res->max_link_jobs = c;
	}
	res->mls = ls_state_mls(s);
	res->tls = ls_state_tls(s);
	res->used_links = s->used;
	res->shared_links = s->shared;
	if (fill_shares(s, res, err))
		goto fail;
	free(scratch);
	ls_state_destroy(s);
	return 0;
fail:
	free(scratch);
	ls_state_destroy(s);
	linkshare_free(res);
	res->bad_job = bad;
	return -1;
}

void linkshare_free(struct ls_result *res)
{
	if (!res)
		return;
	for (uint32_t i = 0; res->jobs && i < res->njobs; i++)
		free(res->jobs[i].shares_with);
	free(res->jobs);
	free(res->link_jobs);
	memset(res, 0, sizeof(*res));
}
