/* model_hm.c - Hoefler's method (paper 000 Sec. II-C).
 *
 * Each path of a flow is a sub-flow.  u_l counts the sub-flows crossing
 * link l (a path crossing l twice counts twice); a sub-flow gets
 * min over its links of C_l / u_l; a flow the sum of its sub-flows.
 * Demands are ignored.  Two passes over the path links: O(entries).
 *
 * The same on the routing's factored path sets (method=factored, the
 * default where the routing factors: routing_stems), kept current as
 * flow sets come and go (model_hm_state, whatif's rates).  A stem
 * standing for n paths (its middle key's n segments) puts n sub-flows on
 * its links, every link of a segment one per stem of its key; a path's
 * share is the smaller of its stem's (c, over the stem's links) and its
 * segment's (v_g), so a stem's rate is the sum over its key's segments of
 * min(c, v_g): P[k] + c (n - k) over the segment shares sorted, P their
 * prefix sums, k of them below c.  Where the routing does not factor each
 * path is a stem without a key.  On a dragonfly (routing_dfly) method=auto
 * gets the same counts and rates in closed form (model_hm_dfly.c) when no
 * link loads are asked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

static int hm_solve(const struct model_input *in, const struct model_opts *o,
		    struct model_result *res, struct err *err)
{
	uint32_t *u = calloc((size_t)in->nlinks + 1, sizeof(*u));
	double *share = malloc(((size_t)in->nlinks + 1) * sizeof(*share));
	uint32_t ne = in->path_off[in->npaths];

	if (!u || !share) {
		free(u);
		free(share);
		return err_nomem(err, "out of memory (hm)");
	}
	for (uint32_t e = 0; e < ne; e++)
		u[in->links[e]]++;
	for (uint32_t l = 0; l < in->nlinks; l++)
		share[l] = u[l] ? in->cap[l] / u[l] : INFINITY;
	for (uint32_t i = 0; i < in->nflows; i++) {
		double sum = 0;

		for (uint32_t p = in->flow_off[i]; p < in->flow_off[i + 1];
		     p++) {
			double m = INFINITY;

			for (uint32_t e = in->path_off[p];
			     e < in->path_off[p + 1]; e++)
				if (share[in->links[e]] < m)
					m = share[in->links[e]];
			res->path_rates[p] = m;
			sum += m;
		}
		res->rates[i] = sum;
	}
	res->status = MODEL_OPTIMAL;
	res->iterations = 1;
	free(u);
	free(share);
	return 0;
}
static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* A key's segment shares are sorted (at most once per set added, when a
 * stem's share first falls between the least and the largest of them)
 * and searched when it has over HM_SORT_MIN segments and at least
 * HM_SORT_USE stems of the set use it; otherwise each stem sums over
 * them directly. */
#define HM_SORT_MIN 16
/* sorted[k]: SORT_NO, each stem sums over the key's shares; SORT_WANTED,
 * sorted when a stem first needs the search; SORT_DONE, srt and pre hold
 * them. */
enum { SORT_NO, SORT_WANTED, SORT_DONE };

#define HM_SORT_USE 16

/* u[l], the sub-flows on each topology link of the flow sets present;
 * the middle segments of the keys met so far (fetched once); and the
 * scratch of one add. */
struct model_hm_state {
	const struct routing *r;
	size_t stem_budget;	  /* model_opts.hm_stem_budget */
	size_t memo_max, rec_max; /* model_opts' hm_dfly budgets (rooms) */
	uint32_t L, nkeys;
	double *u, *cap;
	double *sh;	 /* [L] cap / u wherever u > 0 (hm_add, uncount) */
	double *add;	 /* [L] this set's counts, 0 outside touched */
	uint32_t *touch; /* links with add > 0 */
	uint32_t ntouch;
	uint32_t *kseg;	 /* [nkeys] first segment, UINT32_MAX: not fetched */
	uint32_t *knseg; /* [nkeys] its segments */
	uint32_t *use;	 /* [nkeys] stems of this set with the key */
	uint8_t *sorted; /* [nkeys] SORT_NO, SORT_WANTED, SORT_DONE */
	double *kmin, *kmax, *ksum; /* [nkeys] its segment shares' least,
				     * largest and sum (this set's keys) */
	uint32_t *ukeys;	    /* keys with use > 0 */
	uint32_t nukeys;
	uint32_t nsegs;	   /* segments fetched */
	uint32_t *seg_off; /* [nsegs+1] into seg_links */
	uint32_t *seg_links;
	double *v, *srt, *pre; /* [nsegs] shares, sorted, prefix sums */
	double *gload;	       /* [nsegs] segment loads (loads asked) */
	size_t cap_seg, cap_sl, cap_v;
	/* this set's stems: links st_links[st_off[s] ..), key, flow */
	uint32_t *st_off, *st_links, *st_key, *st_flow;
	size_t nst, nstl, cap_so, cap_stl, cap_sk, cap_sf;
	struct stemset ss;
	struct hm_dfly *dfly; /* the closed form, or NULL */
	uint64_t ver;	      /* moves on with every change of u */
};

static struct model_hm_state *state_new(const struct routing *r, bool closed,
					const struct model_opts *o,
					struct err *err)
{
	struct model_hm_state *h = calloc(1, sizeof(*h));
	const struct topo *t = routing_topo(r);
	uint32_t L = topo_num_links(t), K = routing_middle_keys(r);
	struct model_opts def;

	if (!o) {
		model_opts_init(&def);
		o = &def;
	}
	if (!h)
		goto nomem;
	h->r = r;
	h->stem_budget = o->hm_stem_budget;
	h->memo_max = o->hm_dfly_memo_max;
	h->rec_max = o->hm_dfly_rec_max;
	h->L = L;
	h->nkeys = K;
	h->u = calloc((size_t)L + 1, sizeof(*h->u));
	h->cap = malloc(((size_t)L + 1) * sizeof(*h->cap));
	h->sh = malloc(((size_t)L + 1) * sizeof(*h->sh));
	h->add = calloc((size_t)L + 1, sizeof(*h->add));
	h->touch = malloc(((size_t)L + 1) * sizeof(*h->touch));
	h->kseg = malloc(((size_t)K + 1) * sizeof(*h->kseg));
	h->knseg = calloc((size_t)K + 1, sizeof(*h->knseg));
	h->use = calloc((size_t)K + 1, sizeof(*h->use));
	h->sorted = calloc((size_t)K + 1, 1);
	h->kmin = malloc(((size_t)K + 1) * sizeof(*h->kmin));
	h->kmax = malloc(((size_t)K + 1) * sizeof(*h->kmax));
	h->ksum = malloc(((size_t)K + 1) * sizeof(*h->ksum));
	h->ukeys = malloc(((size_t)K + 1) * sizeof(*h->ukeys));
	h->seg_off = malloc(sizeof(*h->seg_off));
	if (!h->u || !h->cap || !h->sh || !h->add || !h->touch || !h->kseg ||
	    !h->knseg || !h->use || !h->sorted || !h->kmin || !h->kmax ||
	    !h->ksum || !h->ukeys || !h->seg_off)
		goto nomem;
	h->cap_seg = 1;
	h->seg_off[0] = 0;
	memset(h->kseg, 0xff, ((size_t)K + 1) * sizeof(*h->kseg));
	for (uint32_t l = 0; l < L; l++)
		h->cap[l] = topo_link(t, l)->capacity;
	stemset_init(&h->ss);
	if (closed && hm_dfly_create(r, o->hm_dfly_memo_max, o->hm_dfly_rec_max,
				     &h->dfly, err)) {
		model_hm_state_destroy(h);
		return NULL;
	}
	return h;
nomem:
	model_hm_state_destroy(h);
	err_nomem(err, "out of memory (hm, %u links)", L);
	return NULL;
}

struct model_hm_state *model_hm_state_create(const struct routing *r,
					     const char *spec,
					     const struct model_opts *o,
					     struct err *err)
{
	return state_new(r, !spec || model_hm_auto(spec), o, err);
}

void model_hm_state_destroy(struct model_hm_state *h)
{
	if (!h)
		return;
	hm_dfly_destroy(h->dfly);
	free(h->u);
	free(h->cap);
	free(h->sh);
	free(h->add);
	free(h->touch);
	free(h->kseg);
	free(h->knseg);
	free(h->use);
	free(h->sorted);
	free(h->kmin);
	free(h->kmax);
	free(h->ksum);
	free(h->ukeys);
	free(h->seg_off);
	free(h->seg_links);
	free(h->v);
	free(h->srt);
	free(h->pre);
	free(h->gload);
	free(h->st_off);
	free(h->st_links);
	free(h->st_key);
	free(h->st_flow);
	stemset_free(&h->ss);
	free(h);
}

/* Key K's segments into the cache (once).  Returns 0 or -1. */
static int fetch_key(struct model_hm_state *h, uint32_t k, struct pathset *mp,
		     struct err *err)
{
	size_t nl;

	if (h->kseg[k] != UINT32_MAX)
		return 0;
	if (routing_middles(h->r, k, mp, err))
		return -1;
	if (!mp->n)
		return err_set(err, "middle key %u has no segment", k);
	nl = h->seg_off[h->nsegs] + (size_t)mp->off[mp->n];
	if (nl >= UINT32_MAX || (size_t)h->nsegs + mp->n >= UINT32_MAX)
		return err_set(err, "more than 2^32 middle links");
	if (model_grow(&h->seg_off, &h->cap_seg, (size_t)h->nsegs + mp->n + 1,
		       sizeof(*h->seg_off)) ||
	    model_grow(&h->seg_links, &h->cap_sl, nl, sizeof(*h->seg_links)))
		return err_nomem(err, "out of memory (hm middles)");
	if ((size_t)h->nsegs + mp->n > h->cap_v) {
		size_t c = h->cap_v ? h->cap_v : 256,
		       n = (size_t)h->nsegs + mp->n;
		double **arr[] = { &h->v, &h->srt, &h->pre, &h->gload };

		while (c < n)
			c *= 2;
		for (size_t x = 0; x < sizeof(arr) / sizeof(arr[0]); x++) {
			double *q = realloc(*arr[x], c * sizeof(double));

			if (!q)
				return err_nomem(err,
						 "out of memory (hm middles)");
			*arr[x] = q;
		}
		h->cap_v = c;
	}
	h->kseg[k] = h->nsegs;
	h->knseg[k] = mp->n;
	for (uint32_t g = 0; g < mp->n; g++) {
		uint32_t at = h->seg_off[h->nsegs];

		memcpy(h->seg_links + at, mp->links + mp->off[g],
		       (mp->off[g + 1] - mp->off[g]) * sizeof(uint32_t));
		h->seg_off[++h->nsegs] = at + mp->off[g + 1] - mp->off[g];
	}
	return 0;
}

static inline void count(struct model_hm_state *h, uint32_t l, double n)
{
	struct hm_counter c = { h->add, h->touch, &h->ntouch };

	hm_count(&c, l, n);
}

/* N of link L's count out, its share kept (cap / u while u > 0: the
 * closed form's rates read the shares of a set present as they are). */
static inline void uncount(struct model_hm_state *h, uint32_t l, double n)
{
	h->u[l] -= n;
	if (h->u[l] > 0)
		h->sh[l] = h->cap[l] / h->u[l];
}

/* Key K's segment shares sorted into srt with prefix sums into pre. */
static void key_sort(struct model_hm_state *h, uint32_t k)
{
	uint32_t a = h->kseg[k], b = a + h->knseg[k];
	double sum = 0;

	memcpy(h->srt + a, h->v + a, (b - a) * sizeof(*h->srt));
	qsort(h->srt + a, b - a, sizeof(*h->srt), cmp_dbl);
	for (uint32_t g = a; g < b; g++) {
		h->pre[g] = sum;
		sum += h->srt[g];
	}
	h->sorted[k] = SORT_DONE;
}

/* The rate of the stem of N links LINKS with middle key K (or
 * ROUTING_NO_MIDDLE) from the shares h->sh and its key's segments' (and,
 * when LOAD, the stem's rate added to its links and its segments'
 * loads). */
static double stem_rate(struct model_hm_state *h, const uint32_t *links,
			uint32_t n, uint32_t k, double *load)
{
	double c = INFINITY, sr = 0;

	for (uint32_t e = 0; e < n; e++) {
		double x = h->sh[links[e]];

		if (x < c)
			c = x;
	}
	if (k == ROUTING_NO_MIDDLE) {
		sr = c;
	} else {
		uint32_t a = h->kseg[k], b = a + h->knseg[k];

		if (load) {
			for (uint32_t g = a; g < b; g++) {
				double x = h->v[g] < c ? h->v[g] : c;

				sr += x;
				h->gload[g] += x;
			}
		} else if (c <= h->kmin[k]) {
			/* every segment's share at least c */
			sr = c * (double)(b - a);
		} else if (c >= h->kmax[k]) {
			/* every segment's share at most c */
			sr = h->ksum[k];
		} else if (h->sorted[k] == SORT_NO) {
			/* four sums: no chain of dependent adds */
			double s4[4] = { 0, 0, 0, 0 };
			uint32_t g = a;

			for (; g + 4 <= b; g += 4)
				for (uint32_t z = 0; z < 4; z++)
					s4[z] += h->v[g + z] < c ? h->v[g + z] :
								   c;
			for (; g < b; g++)
				s4[0] += h->v[g] < c ? h->v[g] : c;
			sr = (s4[0] + s4[1]) + (s4[2] + s4[3]);
		} else {
			/* the shares below c (srt[a .. lo)) give
				 * themselves, the rest c each */
			uint32_t lo = a, hi = b;

			if (h->sorted[k] == SORT_WANTED)
				key_sort(h, k);

			while (lo < hi) {
				uint32_t mid = lo + (hi - lo) / 2;

				if (h->srt[mid] < c)
					lo = mid + 1;
				else
					hi = mid;
			}
			sr = (lo < b ? h->pre[lo] :
				       h->pre[b - 1] + h->srt[b - 1]) +
			     c * (double)(b - lo);
		}
	}
	for (uint32_t e = 0; load && e < n; e++)
		load[links[e]] += sr;
	return sr;
}

/* Flow I's stems into h->ss (each path a stem where the routing does not
 * factor).  Returns 0, or -1 with err set ("flow I: ..."). */
static int flow_stems(struct model_hm_state *h, const struct flows *f,
		      uint32_t i, struct err *err)
{
	if (h->nkeys ? routing_stems(h->r, f->src[i], f->dst[i], &h->ss, err) :
		       routing_paths(h->r, f->src[i], f->dst[i], &h->ss.p, err))
		return err_prefix(err, "flow %u", i);
	return 0;
}

/* Add flows F: their stems counted into h->u (what they added into SET
 * when not NULL), then RATES[F->n] and, when not NULL, LOAD[L] (topology
 * ids; added to) from the counts of every set present; *NPATHS the paths
 * stood for.  With COUNT_IN false F is already present (added before):
 * its links' shares are brought up to date from h->u, nothing is
 * counted.  Returns 0, or -1 with err set and the state unchanged. */
static int hm_add(struct model_hm_state *h, const struct flows *f,
		  double *rates, double *load, struct model_hm_set *set,
		  uint64_t *npaths, bool count_in, struct err *err)
{
	struct pathset mp;
	uint64_t np = 0;
	uint32_t kept = f->n; /* flows [0, kept) have their stems kept */
	int rc = -1;

	pathset_init(&mp);
	h->nst = h->nstl = 0;
	h->ntouch = h->nukeys = 0;
	if (h->dfly && !load) {
		struct hm_counter c = { h->add, h->touch, &h->ntouch };

		if (hm_dfly_count(h->dfly, f, &c, &np, err))
			goto out;
		goto commit;
	}
	/* the stems, counted; keys fetched */
	for (uint32_t i = 0; i < f->n; i++) {
		const struct pathset *p = &h->ss.p;

		if (flow_stems(h, f, i, err)) {
			goto out;
		}
		if (kept == f->n && h->nstl + p->off[p->n] > h->stem_budget)
			kept = i; /* built again when rated */
		if (kept == f->n &&
		    (model_grow(&h->st_off, &h->cap_so, h->nst + p->n + 1,
				sizeof(*h->st_off)) ||
		     model_grow(&h->st_key, &h->cap_sk, h->nst + p->n + 1,
				sizeof(*h->st_key)) ||
		     model_grow(&h->st_flow, &h->cap_sf, h->nst + p->n + 1,
				sizeof(*h->st_flow)) ||
		     model_grow(&h->st_links, &h->cap_stl,
				h->nstl + p->off[p->n] + 1,
				sizeof(*h->st_links)))) {
			err_nomem(err, "out of memory (hm, %u flows)", f->n);
			goto out;
		}
		for (uint32_t s = 0; s < p->n; s++) {
			uint32_t k = h->nkeys ? h->ss.key[s] :
						ROUTING_NO_MIDDLE;
			double n = 1;

			if (k != ROUTING_NO_MIDDLE) {
				if (fetch_key(h, k, &mp, err))
					goto out;
				n = h->knseg[k];
				if (!h->use[k]++)
					h->ukeys[h->nukeys++] = k;
			}
			np += (uint64_t)n;
			for (uint32_t e = p->off[s]; e < p->off[s + 1]; e++)
				count(h, p->links[e], n);
			if (kept < f->n)
				continue;
			h->st_off[h->nst] = (uint32_t)h->nstl;
			h->st_key[h->nst] = k;
			h->st_flow[h->nst++] = i;
			for (uint32_t e = p->off[s]; e < p->off[s + 1]; e++)
				h->st_links[h->nstl++] = p->links[e];
		}
		if (h->nstl >= UINT32_MAX) {
			err_set(err, "more than 2^32 stem links");
			goto out;
		}
	}
	if (h->st_off)
		h->st_off[h->nst] = (uint32_t)h->nstl;
	for (uint32_t q = 0; q < h->nukeys; q++) {
		uint32_t k = h->ukeys[q], a = h->kseg[k], b = a + h->knseg[k];

		for (uint32_t e = h->seg_off[a]; e < h->seg_off[b]; e++)
			count(h, h->seg_links[e], h->use[k]);
	}
commit:
	if (count_in && h->ntouch)
		h->ver++;
	if (set) {
		set->link =
			malloc(((size_t)h->ntouch + 1) * sizeof(*set->link));
		set->cnt = malloc(((size_t)h->ntouch + 1) * sizeof(*set->cnt));
		if (!set->link || !set->cnt) {
			free(set->link);
			free(set->cnt);
			set->link = NULL;
			set->cnt = NULL;
			err_nomem(err, "out of memory (hm, %u links)",
				  h->ntouch);
			goto out;
		}
		set->n = h->ntouch;
	}
	for (uint32_t q = 0; q < h->ntouch; q++) {
		uint32_t l = h->touch[q];

		if (count_in)
			h->u[l] += h->add[l];
		/* u > 0: this set's (present ones keep theirs in u; one
		 * that is not, asked anyway, is rated alone) */
		h->sh[l] = h->cap[l] / (h->u[l] > 0 ? h->u[l] : h->add[l]);
		if (set) {
			set->link[q] = l;
			set->cnt[q] = h->add[l];
		}
		h->add[l] = 0;
	}
	h->ntouch = 0;
	if (h->dfly && !load) {
		hm_dfly_rates(h->dfly, f, h->sh, rates);
		goto done;
	}
	/* the shares of this set's keys' segments, their least, largest and
	 * sum; a large key used by many stems is sorted with prefix sums
	 * when a stem first needs it (most stems' share is below all or
	 * above all of their key's) */
	for (uint32_t q = 0; q < h->nukeys; q++) {
		uint32_t k = h->ukeys[q], a = h->kseg[k], b = a + h->knseg[k];
		double sum = 0, lo = INFINITY, hi = 0;

		for (uint32_t g = a; g < b; g++) {
			double m = INFINITY;

			for (uint32_t e = h->seg_off[g]; e < h->seg_off[g + 1];
			     e++) {
				double x = h->sh[h->seg_links[e]];

				if (x < m)
					m = x;
			}
			h->v[g] = m;
			sum += m;
			lo = m < lo ? m : lo;
			hi = m > hi ? m : hi;
			if (load)
				h->gload[g] = 0;
		}
		h->kmin[k] = lo;
		h->kmax[k] = hi;
		h->ksum[k] = sum;
		/* sorted on the first stem that needs it (key_sort) */
		h->sorted[k] = !load && b - a > HM_SORT_MIN &&
					       h->use[k] >= HM_SORT_USE ?
				       SORT_WANTED :
				       SORT_NO;
	}
	memset(rates, 0, (size_t)f->n * sizeof(*rates));
	for (size_t s = 0; s < h->nst; s++)
		rates[h->st_flow[s]] += stem_rate(
			h, h->st_links + h->st_off[s],
			h->st_off[s + 1] - h->st_off[s], h->st_key[s], load);
	/* the flows whose stems were not kept: built again */
	for (uint32_t i = kept; i < f->n; i++) {
		const struct pathset *p = &h->ss.p;

		if (flow_stems(h, f, i, err)) {
			if (set) { /* the counts back out */
				for (uint32_t q = 0; q < set->n; q++)
					uncount(h, set->link[q], set->cnt[q]);
				free(set->link);
				free(set->cnt);
				memset(set, 0, sizeof(*set));
			}
			goto out;
		}
		for (uint32_t s = 0; s < p->n; s++)
			rates[i] += stem_rate(h, p->links + p->off[s],
					      p->off[s + 1] - p->off[s],
					      h->nkeys ? h->ss.key[s] :
							 ROUTING_NO_MIDDLE,
					      load);
	}
	for (uint32_t q = 0; load && q < h->nukeys; q++) {
		uint32_t k = h->ukeys[q], a = h->kseg[k], b = a + h->knseg[k];

		for (uint32_t g = a; g < b; g++)
			for (uint32_t e = h->seg_off[g]; e < h->seg_off[g + 1];
			     e++)
				load[h->seg_links[e]] += h->gload[g];
	}
done:
	if (npaths)
		*npaths = np;
	rc = 0;
out:
	for (uint32_t q = 0; q < h->ntouch; q++)
		h->add[h->touch[q]] = 0;
	h->ntouch = 0;
	for (uint32_t q = 0; q < h->nukeys; q++)
		h->use[h->ukeys[q]] = 0;
	h->nukeys = 0;
	pathset_free(&mp);
	return rc;
}

int model_hm_state_add(struct model_hm_state *h, const struct flows *f,
		       double *rates, struct model_hm_set *set, struct err *err)
{
	memset(set, 0, sizeof(*set));
	return hm_add(h, f, rates, NULL, set, NULL, true, err);
}

int model_hm_state_rate(struct model_hm_state *h, const struct flows *f,
			const struct model_hm_set *set, double *rates,
			struct err *err)
{
	if (!h->dfly || !set)
		return hm_add(h, f, rates, NULL, NULL, NULL, false, err);
	/* the closed form reads the shares of the links F counted, which
	 * are SET's: every add and remove keeps them (u > 0 while SET is
	 * present); its key shares are of these counts, or forgotten */
	if (hm_dfly_prepare(h->dfly, f, h->ver, err))
		return -1;
	hm_dfly_rates(h->dfly, f, h->sh, rates);
	return 0;
}

struct model_hm_room {
	struct hm_dfly *x;
};

int model_hm_room_create(const struct model_hm_state *h,
			 struct model_hm_room **out, struct err *err)
{
	struct model_hm_room *m;

	*out = NULL;
	if (!h->dfly)
		return 0;
	m = calloc(1, sizeof(*m));
	if (!m)
		return err_nomem(err, "out of memory (hm)");
	if (hm_dfly_create(h->r, h->memo_max, h->rec_max, &m->x, err)) {
		free(m);
		return -1;
	}
	*out = m;
	return 0;
}

void model_hm_room_destroy(struct model_hm_room *m)
{
	if (!m)
		return;
	hm_dfly_destroy(m->x);
	free(m);
}

int model_hm_state_rate_in(struct model_hm_state *h, struct model_hm_room *m,
			   const struct flows *f, double *rates,
			   struct err *err)
{
	/* as model_hm_state_rate's closed form: H's shares and version are
	 * only read, everything written is M's (or H's closed form's) */
	struct hm_dfly *x = m ? m->x : h->dfly;

	if (!x)
		return err_set(err, "hm: no closed form to rate in");
	if (hm_dfly_prepare(x, f, h->ver, err))
		return -1;
	hm_dfly_rates(x, f, h->sh, rates);
	return 0;
}

uint64_t model_hm_state_version(const struct model_hm_state *h)
{
	return h->ver;
}

void model_hm_state_remove(struct model_hm_state *h, struct model_hm_set *set)
{
	if (h && set->n)
		h->ver++;
	for (uint32_t l = 0; h && l < set->n; l++)
		uncount(h, set->link[l], set->cnt[l]);
	free(set->link);
	free(set->cnt);
	memset(set, 0, sizeof(*set));
}

static const struct spec_opt hm_opts[] = {
	{ .key = "method",
	  .def = "auto",
	  .help = "paths (enumerate every path), factored (stems and\n"
		  "middles where the routing gives them, else each path a\n"
		  "stem) or auto (factored where the routing factors; on a\n"
		  "dragonfly under vlb or ugal the same counts in closed\n"
		  "form, without building stems)" },
	{ 0 },
};

static int hm_check(const struct spec *s, struct err *err)
{
	return model_method_check(s, hm_opts, err);
}

static bool hm_runs(const struct spec *s, const struct routing *r)
{
	return model_method_factored(s, hm_opts, r);
}

/* Factored: the same rates as hm_solve on every path, from one state
 * holding F alone. */
static int hm_run(const struct spec *s, const struct routing *r,
		  const struct flows *f, const struct model_opts *o,
		  struct model_result *res, double *load, double *cap,
		  struct err *err)
{
	struct model_hm_state *h = state_new(
		r, !strcmp(spec_value(s, hm_opts, "method"), "auto"), o, err);
	uint64_t np = 0;
	int rc;

	(void)cap;
	if (!h)
		return -1;
	rc = hm_add(h, f, res->rates, o->top_links ? load : NULL, NULL, &np,
		    true, err);
	if (!rc) {
		res->status = MODEL_OPTIMAL;
		res->iterations = 1;
		res->paths_total = np;
	}
	model_hm_state_destroy(h);
	return rc;
}

const struct model_ops model_hm = {
	.name = "hm",
	.opts = hm_opts,
	.solve = hm_solve,
	.run = hm_run,
	.check = hm_check,
	.runs = hm_runs,
};
