/* test_linkshare.c - MLS / TLS (paper 003 Eq. 5-6) on hand-built job sets
 * with hand-computed values, per-job and per-link statistics, the
 * incremental state against the one-shot computation and against a
 * brute-force pairwise evaluation of Eq. 5-6, structural link sets
 * against enumerated ones, and the SVG picture parsed as XML. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/sharing/linkshare.h"
#include "evaluator/sharing/svg.h"
#include "topo/util/rng.h"
#include "topo/routing.h"
#include "topo/topo.h"
#include "tests/unit/fixtures.h"

static void compute(const struct fx_net *n, const struct ls_job *jobs,
		    uint32_t nj, struct ls_result *res)
{
	struct err err = { 0 };

	cr_assert_eq(linkshare_compute(n->r, jobs, nj, res, &err), 0, "%s",
		     err.msg);
}

#define EPS 1e-9

/* fattree:k=4,n=2 under ecmp: leaves 0-3 (nodes 4w..4w+3), spines 4-7,
 * every leaf wired to every spine.  A job on leaves A and B uses the 4
 * up-links of each and the 4 down-links into each: 16 links.  A job on
 * one leaf uses none. */
static const uint32_t A[] = { 0, 4 };	    /* leaves 0, 1 */
static const uint32_t B[] = { 5, 8 };	    /* leaves 1, 2 */
static const uint32_t C[] = { 12, 13 };	    /* leaf 3 only */
static const uint32_t D[] = { 1 };	    /* one node */
static const uint32_t E[] = { 9, 13 };	    /* leaves 2, 3 */
static const uint32_t F[] = { 10, 14, 15 }; /* leaves 2, 3 */

Test(linkshare, zero_sharing)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 1, .nodes = A, .n = 2 },
		{ .id = 2, .nodes = F, .n = 3 },
		{ .id = 3, .nodes = D, .n = 1 },
	};
	struct ls_result res;

	compute(&n, jobs, 3, &res);
	cr_assert_float_eq(res.mls, 0, EPS);
	cr_assert_float_eq(res.tls, 0, EPS);
	cr_assert_eq(res.used_links, 32);
	cr_assert_eq(res.shared_links, 0);
	cr_assert_eq(res.jobs[0].links, 16);
	cr_assert_eq(res.jobs[1].links, 16);
	cr_assert_eq(res.jobs[2].links, 0);
	for (int i = 0; i < 3; i++) {
		cr_assert(res.jobs[i].isolated);
		cr_assert_eq(res.jobs[i].nshares, 0);
	}
	cr_assert_eq(res.max_link_jobs, 1);
	linkshare_free(&res);
	fx_net_free(&n);
}

/* A shares leaf 1's 8 links with B; B shares leaf 2's 8 links with E;
 * C is on one leaf; D is one node.
 *   A: 8/16 = 50 %, B: 16/16 = 100 %, E: 8/16 = 50 %, C, D: 0 links.
 *   MLS = 100; TLS = 16 shared / 32 used = 50 %. */
Test(linkshare, partial_sharing)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 10, .nodes = A, .n = 2 },
		{ .id = 20, .nodes = B, .n = 2 },
		{ .id = 30, .nodes = C, .n = 2 },
		{ .id = 40, .nodes = D, .n = 1 },
		{ .id = 50, .nodes = E, .n = 2 },
	};
	struct ls_result res;
	uint32_t first = topo_first_switch_link(n.t), leaf1_up, cnt;

	compute(&n, jobs, 5, &res);
	cr_assert_float_eq(res.mls, 100, EPS);
	cr_assert_float_eq(res.tls, 50, EPS);
	cr_assert_eq(res.used_links, 32);
	cr_assert_eq(res.shared_links, 16);
	cr_assert_eq(res.jobs[0].links, 16);
	cr_assert_eq(res.jobs[0].shared, 8);
	cr_assert_float_eq(res.jobs[0].pct, 50, EPS);
	cr_assert_eq(res.jobs[1].shared, 16);
	cr_assert_float_eq(res.jobs[1].pct, 100, EPS);
	cr_assert_eq(res.jobs[2].links, 0);
	cr_assert(res.jobs[2].isolated);
	cr_assert_eq(res.jobs[3].links, 0);
	cr_assert_eq(res.jobs[4].shared, 8);
	cr_assert_not(res.jobs[0].isolated);
	cr_assert_eq(res.jobs[0].nshares, 1);
	cr_assert_eq(res.jobs[0].shares_with[0], 20);
	cr_assert_eq(res.jobs[1].nshares, 2);
	cr_assert_eq(res.jobs[1].shares_with[0], 10);
	cr_assert_eq(res.jobs[1].shares_with[1], 50);
	cr_assert_eq(res.jobs[4].nshares, 1);
	cr_assert_eq(res.jobs[4].shares_with[0], 20);
	/* per link: leaf 1's up-links carry A and B; leaf 0's only A */
	leaf1_up = topo_link_between(n.t, 1, 4, &cnt);
	cr_assert_neq(leaf1_up, TOPO_NONE);
	cr_assert_eq(res.link_jobs[leaf1_up], 2);
	cr_assert_eq(res.link_jobs[topo_link_between(n.t, 0, 5, &cnt)], 1);
	cr_assert_eq(res.link_jobs[topo_link_between(n.t, 7, 3, &cnt)], 1);
	cr_assert_eq(res.link_jobs[0], 0, "injection links are excluded");
	for (uint32_t l = 0; l < first; l++)
		cr_assert_eq(res.link_jobs[l], 0);
	cr_assert_eq(res.max_link_jobs, 2);
	linkshare_free(&res);
	fx_net_free(&n);
}

/* Two jobs both spanning leaves 0..3: identical link sets. */
Test(linkshare, total_sharing)
{
	static const uint32_t x[] = { 0, 4, 8, 12 }, y[] = { 1, 5, 9, 13 };
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 1, .nodes = x, .n = 4 },
		{ .id = 2, .nodes = y, .n = 4 },
	};
	struct ls_result res;

	compute(&n, jobs, 2, &res);
	cr_assert_float_eq(res.mls, 100, EPS);
	cr_assert_float_eq(res.tls, 100, EPS);
	cr_assert_eq(res.used_links, 32);
	cr_assert_eq(res.shared_links, 32);
	cr_assert_eq(res.jobs[0].links, 32);
	cr_assert_eq(res.jobs[1].shared, 32);
	linkshare_free(&res);
	fx_net_free(&n);
}

/* No job uses a link: TLS 0 (not 0/0), MLS 0; no jobs at all too. */
Test(linkshare, empty)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 1, .nodes = C, .n = 2 },
		{ .id = 2, .nodes = D, .n = 1 },
	};
	struct ls_result res;

	compute(&n, jobs, 2, &res);
	cr_assert_float_eq(res.mls, 0, EPS);
	cr_assert_float_eq(res.tls, 0, EPS);
	cr_assert_eq(res.used_links, 0);
	linkshare_free(&res);
	compute(&n, NULL, 0, &res);
	cr_assert_eq(res.njobs, 0);
	cr_assert_float_eq(res.tls, 0, EPS);
	linkshare_free(&res);
	linkshare_free(NULL);
	fx_net_free(&n);
}

Test(linkshare, errors)
{
	static const uint32_t bad[] = { 0, 99 };
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 1, .nodes = A, .n = 2 },
		{ .id = 7, .nodes = bad, .n = 2 },
	};
	struct ls_job twice[] = {
		{ .id = 1, .nodes = A, .n = 2 },
		{ .id = 1, .nodes = B, .n = 2 },
	};
	struct ls_job pat[] = {
		{ .id = 3, .nodes = A, .n = 2, .pattern = "nosuchpattern" }
	};
	struct ls_result res;
	struct err err = { 0 };

	cr_assert_eq(linkshare_compute(n.r, jobs, 2, &res, &err), -1);
	cr_assert(strstr(err.msg, "job 7") && strstr(err.msg, "99"), "%s",
		  err.msg);
	cr_assert_eq(res.jobs, NULL);
	cr_assert_eq(linkshare_compute(n.r, twice, 2, &res, &err), -1);
	cr_assert(strstr(err.msg, "job 1"), "%s", err.msg);
	cr_assert_eq(linkshare_compute(n.r, pat, 1, &res, &err), -1);
	cr_assert(strstr(err.msg, "job 3"), "%s", err.msg);
	fx_net_free(&n);
}

/* Incremental state: the running example built up and torn down. */
Test(linkshare, state_incremental)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct err err = { 0 };
	struct ls_state *s = ls_state_create(n.r, &err);
	struct ls_job a = { .id = 10, .nodes = A, .n = 2 };
	struct ls_job b = { .id = 20, .nodes = B, .n = 2 };
	struct ls_job e = { .id = 50, .nodes = E, .n = 2 };
	struct ls_job_now jn;

	cr_assert_not_null(s);
	cr_assert_float_eq(ls_state_tls(s), 0, EPS);
	cr_assert_eq(ls_state_add_job(s, &a, &err), 0, "%s", err.msg);
	cr_assert_float_eq(ls_state_mls(s), 0, EPS);
	cr_assert_eq(ls_state_add_job(s, &b, &err), 0, "%s", err.msg);
	cr_assert_float_eq(ls_state_mls(s), 50, EPS);
	cr_assert_float_eq(ls_state_tls(s), 100.0 * 8 / 24, EPS);
	cr_assert_eq(ls_state_add_job(s, &e, &err), 0, "%s", err.msg);
	cr_assert_float_eq(ls_state_mls(s), 100, EPS);
	cr_assert_float_eq(ls_state_tls(s), 50, EPS);
	cr_assert_eq(ls_state_add_job(s, &e, &err), -1, "duplicate id");
	cr_assert_eq(ls_state_remove(s, 20), 0);
	cr_assert_eq(ls_state_remove(s, 20), -1);
	cr_assert_float_eq(ls_state_mls(s), 0, EPS);
	cr_assert_float_eq(ls_state_tls(s), 0, EPS);
	cr_assert_eq(ls_state_job(s, 10, &jn), 0);
	cr_assert_eq(jn.links, 16);
	cr_assert_eq(jn.shared, 0);
	cr_assert(jn.ever_shared, "A shared with B while B ran");
	/* a slot freed by B is reused by a new job */
	cr_assert_eq(ls_state_add_job(s, &b, &err), 0, "%s", err.msg);
	cr_assert_float_eq(ls_state_mls(s), 100, EPS);
	cr_assert_eq(ls_state_njobs(s), 3);
	cr_assert_eq(
		ls_state_link_jobs(s, topo_link_between(n.t, 1, 4, &jn.links)),
		2);
	ls_state_destroy(s);
	ls_state_destroy(NULL);
	fx_net_free(&n);
}

/* Jobs whose sharing turns over, worked from the link sets above: A
 * (leaves 0-1) and B (1-2) share leaf 1's links, B and E (2-3) leaf 2's,
 * C (leaf 3 only) uses no switch link. */
static uint32_t flips(const struct ls_state *s, uint32_t *out)
{
	const uint32_t *ids;
	uint32_t n = ls_state_flipped(s, &ids);

	for (uint32_t i = 0; i < n; i++)
		out[i] = ids[i];
	/* two at most here: in ascending order */
	if (n == 2 && out[0] > out[1]) {
		uint32_t t = out[0];

		out[0] = out[1];
		out[1] = t;
	}
	return n;
}

Test(linkshare, state_flipped)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct err err = { 0 };
	struct ls_state *s = ls_state_create(n.r, &err);
	struct ls_job a = { .id = 10, .nodes = A, .n = 2 };
	struct ls_job b = { .id = 20, .nodes = B, .n = 2 };
	struct ls_job c = { .id = 30, .nodes = C, .n = 2 };
	struct ls_job e = { .id = 50, .nodes = E, .n = 2 };
	uint32_t f[4];

	cr_assert_not_null(s);
	cr_assert_eq(ls_state_add_job(s, &a, &err), 0, "%s", err.msg);
	cr_assert_eq(flips(s, f), 0, "alone: nobody turns");
	cr_assert_eq(ls_state_add_job(s, &e, &err), 0, "%s", err.msg);
	cr_assert_eq(flips(s, f), 0, "A and E share nothing");
	/* B joins A on leaf 1 and E on leaf 2: both turn shared */
	cr_assert_eq(ls_state_add_job(s, &b, &err), 0, "%s", err.msg);
	cr_assert_eq(flips(s, f), 2);
	cr_assert(f[0] == 10 && f[1] == 50, "%u %u", f[0], f[1]);
	/* C uses no switch link */
	cr_assert_eq(ls_state_add_job(s, &c, &err), 0, "%s", err.msg);
	cr_assert_eq(flips(s, f), 0);
	/* A leaves: B still shares with E, nobody turns */
	cr_assert_eq(ls_state_remove(s, 10), 0);
	cr_assert_eq(flips(s, f), 0);
	/* B leaves: E is alone again */
	cr_assert_eq(ls_state_remove(s, 20), 0);
	cr_assert_eq(flips(s, f), 1);
	cr_assert_eq(f[0], 50);
	/* a failed add (a repeated id) leaves the last answer alone */
	cr_assert_eq(ls_state_add_job(s, &e, &err), -1);
	cr_assert_eq(flips(s, f), 1);
	ls_state_destroy(s);
	fx_net_free(&n);
}

/* Eq. 5-6 by brute force over job pairs with per-job link bitmaps. */
static void brute(const struct fx_net *n, const struct ls_job *jobs,
		  uint32_t nj, double *mls, double *tls)
{
	uint32_t L = topo_num_links(n->t);
	uint8_t **set = calloc(nj, sizeof(*set));
	uint32_t uni = 0, inter = 0;
	struct err err = { 0 };

	*mls = 0;
	for (uint32_t i = 0; i < nj; i++) {
		set[i] = calloc(L, 1);
		cr_assert_eq(routing_linkset_enum(n->r, jobs[i].nodes,
						  jobs[i].n, set[i], &err),
			     0, "%s", err.msg);
	}
	for (uint32_t i = 0; i < nj; i++) {
		uint32_t own = 0, sh = 0;

		for (uint32_t l = 0; l < L; l++) {
			bool other = false;

			if (!set[i][l])
				continue;
			own++;
			for (uint32_t k = 0; k < nj && !other; k++)
				other = k != i && set[k][l];
			sh += other;
		}
		if (own && 100.0 * sh / own > *mls)
			*mls = 100.0 * sh / own;
	}
	for (uint32_t l = 0; l < L; l++) {
		uint32_t c = 0;

		for (uint32_t i = 0; i < nj; i++)
			c += set[i][l] != 0;
		uni += c >= 1;
		inter += c >= 2;
	}
	*tls = uni ? 100.0 * inter / uni : 0;
	for (uint32_t i = 0; i < nj; i++)
		free(set[i]);
	free(set);
}

/* Random disjoint jobs on several networks: compute == brute force, and
 * the incremental state after random removals == a fresh compute. */
static void random_jobs(const char *spec, const char *routing, uint64_t seed)
{
	struct fx_net n = fx_net(spec, routing);
	uint32_t N = topo_num_nodes(n.t), nj = 0, pos = 0;
	uint32_t *perm = malloc(N * sizeof(*perm));
	struct ls_job jobs[12];
	struct rng rng;
	struct ls_result res;
	struct err err = { 0 };
	struct ls_state *s;
	double mls, tls;

	rng_seed(&rng, seed);
	for (uint32_t i = 0; i < N; i++)
		perm[i] = i;
	for (uint32_t i = N - 1; i > 0; i--) {
		uint32_t j = (uint32_t)rng_below(&rng, i + 1), x = perm[i];

		perm[i] = perm[j];
		perm[j] = x;
	}
	while (nj < 12 && pos < N) {
		uint32_t sz = 1 + (uint32_t)rng_below(&rng, N / 6 + 1);

		if (pos + sz > N)
			sz = N - pos;
		jobs[nj] = (struct ls_job){ .id = 100 + nj,
					    .nodes = perm + pos,
					    .n = sz };
		pos += sz;
		nj++;
	}
	compute(&n, jobs, nj, &res);
	brute(&n, jobs, nj, &mls, &tls);
	cr_assert_float_eq(res.mls, mls, 1e-9, "%s: mls %g vs %g", spec,
			   res.mls, mls);
	cr_assert_float_eq(res.tls, tls, 1e-9, "%s: tls %g vs %g", spec,
			   res.tls, tls);
	linkshare_free(&res);
	s = ls_state_create(n.r, &err);
	for (uint32_t i = 0; i < nj; i++)
		cr_assert_eq(ls_state_add_job(s, &jobs[i], &err), 0, "%s",
			     err.msg);
	for (uint32_t i = 0; i < nj; i += 3)
		cr_assert_eq(ls_state_remove(s, jobs[i].id), 0);
	{
		struct ls_job rest[12];
		uint32_t nr = 0;

		for (uint32_t i = 0; i < nj; i++)
			if (i % 3)
				rest[nr++] = jobs[i];
		compute(&n, rest, nr, &res);
		cr_assert_float_eq(ls_state_mls(s), res.mls, 1e-9, "%s", spec);
		cr_assert_float_eq(ls_state_tls(s), res.tls, 1e-9, "%s", spec);
		for (uint32_t i = 0; i < nr; i++) {
			struct ls_job_now jn;

			cr_assert_eq(ls_state_job(s, rest[i].id, &jn), 0);
			cr_assert_eq(jn.links, res.jobs[i].links);
			cr_assert_eq(jn.shared, res.jobs[i].shared);
		}
		linkshare_free(&res);
	}
	ls_state_destroy(s);
	free(perm);
	fx_net_free(&n);
}

Test(linkshare, random_vs_brute_force)
{
	random_jobs("fattree:k=4,n=3", "ecmp", 1);
	random_jobs("fattree:k=4,n=3", "dmodk", 2);
	random_jobs("dragonfly:p=2,a=4,h=2,g=5", "ugal", 3);
	random_jobs("dragonfly:p=2,a=4,h=2,g=5", "min", 4);
	random_jobs("expressmesh:dims=4x4,gap=1,p=2", NULL, 5);
}

/* The structural link set (routing_linkset, all pairs) equals the union
 * over the enumerated paths of the "alltoall" pattern. */
Test(linkshare, structural_equals_enumerated)
{
	static const char *const nets[][2] = {
		{ "fattree:k=4,n=3", "ecmp" },
		{ "dragonfly:p=2,a=4,h=2,g=5", "ugal" },
		{ "dragonfly:p=2,a=4,h=2,g=5", "min" },
	};

	for (size_t k = 0; k < sizeof(nets) / sizeof(nets[0]); k++) {
		struct fx_net n = fx_net(nets[k][0], nets[k][1]);
		static const uint32_t nodes[] = { 0, 3, 7, 12, 13, 21, 30 };
		struct ls_job a = { .id = 1, .nodes = nodes, .n = 7 };
		struct ls_job b = a;
		uint32_t *la, *lb, na, nb;
		struct err err = { 0 };

		b.pattern = "alltoall";
		cr_assert_eq(linkshare_linkset(n.r, &a, NULL, &la, &na, &err),
			     0, "%s", err.msg);
		cr_assert_eq(linkshare_linkset(n.r, &b, NULL, &lb, &nb, &err),
			     0, "%s", err.msg);
		cr_assert_gt(na, 0);
		cr_assert_eq(na, nb, "%s: %u vs %u", nets[k][0], na, nb);
		cr_assert_eq(memcmp(la, lb, na * sizeof(*la)), 0);
		free(la);
		free(lb);
		fx_net_free(&n);
	}
}

/* ---- the SVG picture: a minimal XML well-formedness check ---- */

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	return p;
}

/* Returns the number of elements, or -1 when not well-formed. */
static long xml_check(const char *p)
{
	char stack[64][32];
	int depth = 0;
	long elems = 0;

	p = skip_ws(p);
	if (!strncmp(p, "<?xml", 5)) {
		p = strstr(p, "?>");
		if (!p)
			return -1;
		p += 2;
	}
	while (*p) {
		if (*p != '<') {
			/* text: entities must be well-formed, no bare '<' */
			if (*p == '&') {
				const char *e = strchr(p, ';');

				if (!e || e - p > 8)
					return -1;
				if (strncmp(p, "&lt;", 4) &&
				    strncmp(p, "&gt;", 4) &&
				    strncmp(p, "&amp;", 5) &&
				    strncmp(p, "&quot;", 6) &&
				    strncmp(p, "&apos;", 6) && p[1] != '#')
					return -1;
			}
			if (!depth && *skip_ws(p) && *skip_ws(p) != '<')
				return -1;
			p++;
			continue;
		}
		if (p[1] == '/') {
			size_t l = strcspn(p + 2, ">");

			if (!depth || strlen(stack[depth - 1]) != l ||
			    strncmp(stack[depth - 1], p + 2, l))
				return -1;
			depth--;
			p += 2 + l + 1;
			continue;
		}
		{
			size_t l = strcspn(p + 1, " \n\t/>");
			const char *q = p + 1 + l;

			if (!l || l >= 32 || depth == 64)
				return -1;
			if (depth == 0 && elems > 0)
				return -1; /* one root */
			memcpy(stack[depth], p + 1, l);
			stack[depth][l] = '\0';
			elems++;
			for (;;) {
				q = skip_ws(q);
				if (*q == '/' && q[1] == '>') {
					q += 2;
					break;
				}
				if (*q == '>') {
					q++;
					depth++;
					break;
				}
				/* attribute name="value" */
				l = strcspn(q, "= \n\t>");
				if (!l || q[l] != '=' || (q[l + 1] != '"'))
					return -1;
				q = strchr(q + l + 2, '"');
				if (!q)
					return -1;
				q++;
			}
			p = q;
		}
	}
	return depth == 0 && elems > 0 ? elems : -1;
}

Test(linkshare, svg_well_formed)
{
	struct fx_net n = fx_net("fattree:k=4,n=2", "ecmp");
	struct ls_job jobs[] = {
		{ .id = 10, .nodes = A, .n = 2 },
		{ .id = 20, .nodes = B, .n = 2 },
		{ .id = 30, .nodes = C, .n = 2 },
	};
	struct ls_result res;
	struct err err = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	long elems;

	compute(&n, jobs, 3, &res);
	cr_assert_eq(svg_write(f, n.t, "a <title> & more", jobs, &res, &err), 0,
		     "%s", err.msg);
	fclose(f);
	elems = xml_check(buf);
	cr_assert_gt(elems, 16 + 8,
		     "well-formed, a rect per node and switch:\n%s", buf);
	cr_assert(strstr(buf, "a &lt;title&gt; &amp; more"));
	cr_assert(strstr(buf, "MLS 50.00 %"), "%s", buf);
	cr_assert(strstr(buf, "job 10: 2 nodes, 16 links, 8 shared"));
	cr_assert(strstr(buf, "job 30: 2 nodes, 0 links, isolated"));
	/* the checker itself rejects broken XML */
	cr_assert_eq(xml_check("<a><b></a></b>"), -1);
	cr_assert_eq(xml_check("<a x=1/>"), -1);
	cr_assert_eq(xml_check("<a>&bogus;</a>"), -1);
	cr_assert_eq(xml_check("<a><b/></a>"), 2);
	free(buf);
	linkshare_free(&res);
	fx_net_free(&n);
}
