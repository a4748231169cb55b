/* bench_mcf_fast.c - the first-order path-template MCF solver
 * (mcf_tpl_solve_fast) against GLPK on paper 002's UGAL-G Model 3: for
 * every flow of a random permutation (perm:1, seed 1), the ugal paths
 * (routing_paths, enumerated) grouped by (class MIN/VLB, hop count); a
 * group's mult is its number of paths and M[e,g] its link crossings summed
 * over them.  Instances: dragonfly(2,4,2,9), (3,6,3,19), (4,8,4,33),
 * (5,10,5,51).
 *
 * Prints per instance: the template's size (links crossed, flows, groups,
 * non-zeros of M; GLPK's LP adds a row per flow, the alpha column and a
 * non-zero per group and flow), then the fast solver at gap 1 % and 0.1 %
 * (wall time, iterations, certified [lower, upper]) and GLPK's exact alpha
 * and time, and whether both intervals contain it.  GLPK runs only on
 * instances of at most 100,000 non-zeros unless --glpk is given: on
 * dfly(4,8,4,33) it took 1281 s here (alpha 0.5934831194, 24,026 simplex
 * iterations; 217 s on the design note's machine and permutation).  Run by
 * `make bench`; asserts nothing.
 *
 *   bench_mcf_fast [--glpk] [TOPOLOGY...] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "evaluator/models/mcf_tpl.h"
#include "evaluator/traffic/flows.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define GLPK_MAX_NNZ 100000
#define NKEYS (2 * (ROUTING_MAX_HOPS + 1))

static void die(const char *what, const struct err *err)
{
	fprintf(stderr, "bench_mcf_fast: %s: %s\n", what, err->msg);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "bench_mcf_fast: out of memory\n");
		exit(1);
	}
	return p;
}

/* A Model 3 template and the arrays it points to. */
struct inst {
	struct mcf_tpl p;
	double *cap, *w, *mult, *cnt;
	uint32_t *foff, *coff, *link;
	uint64_t nnz;
	uint32_t rows; /* links some group crosses */
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Append flow SRC -> DST: its paths grouped by (class, hops). */
static void add_flow(struct inst *I, const struct topo *t, struct pathset *ps,
		     uint32_t *count, uint32_t *touched, size_t *cap_nnz)
{
	uint8_t seen[NKEYS] = { 0 };
	uint32_t *key = malloc((ps->n + 1) * sizeof(*key));

	if (!key)
		exit(1);
	for (uint32_t i = 0; i < ps->n; i++) {
		uint32_t h = pathset_hops(ps, t, i);

		if (h > ROUTING_MAX_HOPS)
			h = ROUTING_MAX_HOPS;
		key[i] = (uint32_t)ps->cls[i] * (ROUTING_MAX_HOPS + 1) + h;
		seen[key[i]] = 1;
	}
	for (uint32_t k = 0; k < NKEYS; k++) {
		uint32_t nt = 0, mult = 0, g = I->p.ngroups;

		if (!seen[k])
			continue;
		for (uint32_t i = 0; i < ps->n; i++) {
			if (key[i] != k)
				continue;
			mult++;
			for (uint32_t x = ps->off[i]; x < ps->off[i + 1]; x++) {
				uint32_t e = ps->links[x];

				if (!count[e]++)
					touched[nt++] = e;
			}
		}
		qsort(touched, nt, sizeof(*touched), cmp_u32);
		if (I->nnz + nt > *cap_nnz) {
			*cap_nnz = 2 * (I->nnz + nt);
			I->link =
				xrealloc(I->link, *cap_nnz * sizeof(*I->link));
			I->cnt = xrealloc(I->cnt, *cap_nnz * sizeof(*I->cnt));
		}
		for (uint32_t j = 0; j < nt; j++) {
			I->link[I->nnz] = touched[j];
			I->cnt[I->nnz++] = count[touched[j]];
			count[touched[j]] = 0;
		}
		I->mult = xrealloc(I->mult, (g + 1) * sizeof(*I->mult));
		I->coff = xrealloc(I->coff, (g + 2) * sizeof(*I->coff));
		I->mult[g] = mult;
		I->coff[g + 1] = (uint32_t)I->nnz;
		I->p.ngroups = g + 1;
	}
	free(key);
}

static void build(struct inst *I, const struct topo *t, const struct routing *r,
		  const struct flows *f)
{
	uint32_t nl = topo_num_links(t);
	uint32_t *count = calloc(nl, sizeof(*count));
	uint32_t *touched = malloc(nl * sizeof(*touched));
	uint8_t *used = calloc(nl, 1);
	size_t cap_nnz = 0;
	struct pathset ps;
	struct err err = { 0 };

	memset(I, 0, sizeof(*I));
	I->cap = xrealloc(NULL, nl * sizeof(*I->cap));
	I->w = xrealloc(NULL, f->n * sizeof(*I->w));
	I->foff = xrealloc(NULL, (f->n + 1) * sizeof(*I->foff));
	I->coff = xrealloc(NULL, sizeof(*I->coff));
	if (!count || !touched || !used)
		exit(1);
	for (uint32_t e = 0; e < nl; e++)
		I->cap[e] = topo_link(t, e)->capacity;
	I->coff[0] = 0;
	I->foff[0] = 0;
	pathset_init(&ps);
	for (uint32_t i = 0; i < f->n; i++) {
		if (routing_paths(r, f->src[i], f->dst[i], &ps, &err))
			die("routing_paths", &err);
		add_flow(I, t, &ps, count, touched, &cap_nnz);
		I->w[i] = f->demand[i];
		I->foff[i + 1] = I->p.ngroups;
	}
	pathset_free(&ps);
	for (uint64_t x = 0; x < I->nnz; x++)
		if (!used[I->link[x]]++)
			I->rows++;
	I->p.nlinks = nl;
	I->p.cap = I->cap;
	I->p.nflows = f->n;
	I->p.demand = I->w;
	I->p.flow_off = I->foff;
	I->p.mult = I->mult;
	I->p.col_off = I->coff;
	I->p.col_link = I->link;
	I->p.col_cnt = I->cnt;
	free(count);
	free(touched);
	free(used);
}

static void inst_free(struct inst *I)
{
	free(I->cap);
	free(I->w);
	free(I->mult);
	free(I->cnt);
	free(I->foff);
	free(I->coff);
	free(I->link);
}

/* Solve at GAP; the certified interval goes to IV[0..1]. */
static void fast(const struct inst *I, double gap, double *x, double *y,
		 double *iv)
{
	struct mcf_tpl_opts o;
	struct mcf_tpl_result res = { .x = x, .y = y };
	struct err err = { 0 };
	double t0 = bench_wall();

	mcf_tpl_opts_init(&o);
	o.gap = gap;
	if (mcf_tpl_solve_fast(&I->p, &o, &res, &err))
		die("mcf_tpl_solve_fast", &err);
	printf("  %-5s gap %-5g %8.3f s  %6llu it  [%.10f, %.10f]  gap "
	       "%.2e%s\n",
	       res.solver, gap, bench_wall() - t0,
	       (unsigned long long)res.iterations, res.lower, res.upper,
	       (res.upper - res.lower) / res.lower,
	       res.status == MCF_TPL_OPTIMAL ? "" : "  (not converged)");
	iv[0] = res.lower;
	iv[1] = res.upper;
}

/* GLPK's alpha, and whether the N intervals IV contain it. */
static void glpk(const struct inst *I, int force, const double *iv, int n)
{
	struct mcf_tpl_result res = { 0 };
	struct err err = { 0 };
	double t0;
	int in = 1;

	if (I->nnz > GLPK_MAX_NNZ && !force) {
		printf("  glpk  skipped (> %d non-zeros; --glpk runs it, "
		       "see the header for a past time)\n",
		       GLPK_MAX_NNZ);
		return;
	}
	t0 = bench_wall();
	if (mcf_tpl_solve_glpk(&I->p, NULL, &res, &err))
		die("mcf_tpl_solve_glpk", &err);
	for (int i = 0; i < n; i++)
		in &= iv[2 * i] <= res.alpha * (1 + 1e-9) &&
		      res.alpha <= iv[2 * i + 1] * (1 + 1e-9);
	printf("  glpk  exact     %8.3f s  %6llu it  alpha %.10f (%s the "
	       "pdhg intervals)%s\n",
	       bench_wall() - t0, (unsigned long long)res.iterations, res.alpha,
	       in ? "inside" : "OUTSIDE",
	       res.status == MCF_TPL_OPTIMAL ? "" : "  (not optimal)");
}

static void run(const char *spec, int force_glpk)
{
	struct err err = { 0 };
	struct topo *t = topo_create(spec, &err);
	struct routing *r = t ? routing_create(t, "ugal", &err) : NULL;
	struct flows f;
	struct inst I;
	double t0, *x, *y, iv[4];

	if (!r)
		die(spec, &err);
	flows_init(&f);
	if (flows_pattern("perm:1", NULL, topo_num_nodes(t), 1, &f, &err))
		die("perm:1", &err);
	t0 = bench_wall();
	build(&I, t, r, &f);
	printf("%s, %s, perm:1, Model 3: %u flows, %u groups, %u links "
	       "crossed, %llu non-zeros (built in %.2f s)\n",
	       spec, routing_spec(r), I.p.nflows, I.p.ngroups, I.rows,
	       (unsigned long long)I.nnz, bench_wall() - t0);
	printf("  GLPK's LP: %u rows x %u columns, %llu non-zeros\n",
	       I.rows + I.p.nflows, I.p.ngroups + 1,
	       (unsigned long long)(I.nnz + I.p.ngroups + I.p.nflows));
	x = xrealloc(NULL, I.p.ngroups * sizeof(*x));
	y = xrealloc(NULL, I.p.nlinks * sizeof(*y));
	fast(&I, 1e-2, x, y, iv);
	fast(&I, 1e-3, x, y, iv + 2);
	glpk(&I, force_glpk, iv, 2);
	free(x);
	free(y);
	inst_free(&I);
	flows_free(&f);
	routing_destroy(r);
	topo_destroy(t);
}

int main(int argc, char **argv)
{
	static const char *const def[] = { "dragonfly:p=2,a=4,h=2,g=9",
					   "dragonfly:p=3,a=6,h=3,g=19",
					   "dragonfly:p=4,a=8,h=4,g=33",
					   "dragonfly:p=5,a=10,h=5,g=51",
					   NULL };
	int force = 0, nspec = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--glpk"))
			force = 1;
		else
			nspec++;
	}
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--glpk"))
			run(argv[i], force);
	for (int i = 0; !nspec && def[i]; i++)
		run(def[i], force);
	return 0;
}
