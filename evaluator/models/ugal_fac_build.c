/* ugal_fac_build.c - the set-up of the factored matrix-free operator of
 * the UGAL templates' VLB columns (ugal_fac_impl.h): the path-count
 * dictionary, the plans of the flows, and the operator's memory. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/ugal_fac_impl.h"

/* Products on at least this many half-table entries (S^2 HL) run on
 * NPART threads: cascade:groups=2 (the unit tests) and up. */
#define THREAD_CELLS ((size_t)1 << 17)

static void ws_free(struct ufac_ws *w)
{
	free(w->tab);
	free(w->col);
	memset(w, 0, sizeof(*w));
}

static int ws_init(struct ufac_ws *w, uint32_t nd, uint32_t S, uint32_t HL)
{
	memset(w, 0, sizeof(*w));
	w->tab = malloc(((size_t)nd * HL + 1) * sizeof(*w->tab));
	w->col = malloc(((size_t)XB * S * HL + 1) * sizeof(*w->col));
	if (!w->tab || !w->col) {
		ws_free(w);
		return -1;
	}
	return 0;
}

void ugal_fac_free(struct ugal_fac *u)
{
	if (!u)
		return;
	ugal_net_free(u->n);
	free(u->fs);
	free(u->fd);
	free(u->vg);
	free(u->dict);
	free(u->dlo);
	free(u->dhi);
	free(u->id);
	free(u->ioff);
	free(u->iv);
	for (int k = 0; k < 2; k++) {
		free(u->lid[k]);
		free(u->voff[k]);
		free(u->vl[k]);
	}
	free(u->src_off);
	free(u->by_src);
	free(u->dst_off);
	free(u->by_dst);
	free(u->h);
	free(u->xis);
	free(u->poff);
	free(u->t2off);
	free(u->inner);
	free(u->glv);
	free(u->glu);
	for (uint32_t t = 0; t < NPART; t++) {
		free(u->rl[t]);
		free(u->t2s[t]);
		ws_free(&u->ws[t]);
	}
	free(u);
}

/* The intermediates of flow F into INTER; returns their number. */
static uint32_t inters(const struct ugal_fac *u, uint32_t f, uint32_t *inter)
{
	const struct unet *n = u->n;
	uint32_t s = u->fs[f], d = u->fd[f], ni = 0;

	for (uint32_t g = 0; g < n->G; g++) {
		if (!ugal_inter_group(n, s, d, g))
			continue;
		for (uint32_t k = n->mem_off[g]; k < n->mem_off[g + 1]; k++)
			if (n->mem[k] != s && n->mem[k] != d)
				inter[ni++] = n->mem[k];
	}
	return ni;
}

/* Dictionary of the path-count vectors: an open-addressing hash table of
 * vector ids (NONE: empty), grown to keep it at most half full. */
struct dict_ht {
	uint32_t *slot;
	size_t cap;    /* a power of two */
	uint32_t dcap; /* room in u->dict */
};

static size_t vhash(const double *v, uint32_t HL)
{
	const unsigned char *p = (const unsigned char *)v;
	uint64_t h = 1469598103934665603u;

	for (size_t i = 0; i < HL * sizeof(*v); i++)
		h = (h ^ p[i]) * 1099511628211u;
	return (size_t)h;
}

static int ht_grow(struct ugal_fac *u, struct dict_ht *t)
{
	size_t nc = t->cap ? 2 * t->cap : 1024;
	uint32_t *s = malloc(nc * sizeof(*s));

	if (!s)
		return -1;
	for (size_t i = 0; i < nc; i++)
		s[i] = NONE;
	for (uint32_t v = 0; v < u->nd; v++) {
		size_t j = vhash(u->dict + (size_t)v * u->HL, u->HL) & (nc - 1);

		while (s[j] != NONE)
			j = (j + 1) & (nc - 1);
		s[j] = v;
	}
	free(t->slot);
	t->slot = s;
	t->cap = nc;
	return 0;
}

/* The id of vector V[HL] in u's dictionary, added if new.  Returns it, or
 * NONE (memory). */
static uint32_t dict_id(struct ugal_fac *u, struct dict_ht *t, const double *v)
{
	uint32_t HL = u->HL;
	size_t j;

	if (2 * ((size_t)u->nd + 1) > t->cap && ht_grow(u, t))
		return NONE;
	for (j = vhash(v, HL) & (t->cap - 1); t->slot[j] != NONE;
	     j = (j + 1) & (t->cap - 1))
		if (!memcmp(u->dict + (size_t)t->slot[j] * HL, v,
			    HL * sizeof(*v)))
			return t->slot[j];
	if (u->nd == t->dcap) {
		uint32_t nc = t->dcap ? 2 * t->dcap : 256;
		double *d = realloc(u->dict, (size_t)nc * HL * sizeof(*d));

		if (!d)
			return NONE;
		u->dict = d;
		t->dcap = nc;
	}
	memcpy(u->dict + (size_t)u->nd * HL, v, HL * sizeof(*v));
	t->slot[j] = u->nd;
	return u->nd++;
}

/* u->dict, dlo, dhi and id from the MIN halves of every switch pair.
 * Returns 0 or -1 (memory). */
static int build_dict(struct ugal_fac *u)
{
	const struct unet *n = u->n;
	struct dict_ht t = { NULL, 0, 0 };
	struct half hf;
	double v[HMAX];
	int rc = -1;

	memset(&hf, 0, sizeof(hf));
	memset(v, 0, sizeof(v));
	for (uint32_t x = 0; x < u->S; x++)
		for (uint32_t y = 0; y < u->S; y++) {
			uint32_t id;

			if (x != y) {
				/* no entries: no allocation */
				ugal_half_min(n, x, y, &hf, false);
				memcpy(v, hf.n,
				       (n->maxhalf + 1) * sizeof(double));
			} else {
				memset(v, 0, sizeof(v));
			}
			id = dict_id(u, &t, v);
			if (id == NONE)
				goto out;
			u->id[(size_t)x * u->S + y] = id;
		}
	u->dlo = malloc((size_t)u->nd + 1);
	u->dhi = malloc((size_t)u->nd + 1);
	if (!u->dlo || !u->dhi)
		goto out;
	for (uint32_t k = 0; k < u->nd; k++) {
		const double *d = u->dict + (size_t)k * u->HL;
		uint32_t lo = u->HL, hi = 0;

		for (uint32_t l = 0; l < u->HL; l++)
			if (d[l] != 0) {
				lo = l < lo ? l : lo;
				hi = l + 1;
			}
		u->dlo[k] = (uint8_t)(lo < hi ? lo : 0);
		u->dhi[k] = (uint8_t)hi;
	}
	rc = 0;
out:
	free(t.slot);
	return rc;
}

/* u->ioff, iv, lid, voff and vl of every flow (see struct ugal_fac).
 * Returns 0 or -1 (memory). */
static int build_plans(struct ugal_fac *u)
{
	uint32_t S = u->S, *inter = malloc(((size_t)S + 1) * sizeof(*inter));
	uint32_t *stamp = calloc((size_t)u->nd + 1, sizeof(*stamp));
	uint16_t *loc = malloc(((size_t)u->nd + 1) * sizeof(*loc));
	size_t np = 0, nv[2] = { 0, 0 };
	int rc = -1;

	u->ioff = malloc(((size_t)u->nf + 1) * sizeof(*u->ioff));
	u->voff[0] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[0]));
	u->voff[1] = malloc(((size_t)u->nf + 1) * sizeof(*u->voff[1]));
	if (!inter || !stamp || !loc || !u->ioff || !u->voff[0] || !u->voff[1])
		goto out;
	/* two rounds: count, then fill */
	for (int round = 0; round < 2; round++) {
		np = nv[0] = nv[1] = 0;
		for (uint32_t f = 0; f < u->nf; f++) {
			uint32_t ni = inters(u, f, inter);

			u->ioff[f] = np;
			for (int k = 0; k < 2; k++) {
				/* a new epoch per flow and side */
				uint32_t ep = 2 * f + (uint32_t)k + 1;

				u->voff[k][f] = nv[k];
				for (uint32_t j = 0; j < ni; j++) {
					uint32_t i = inter[j];
					uint32_t v =
						k ? u->id[(size_t)u->fs[f] * S +
							  i] :
						    u->id[(size_t)i * S +
							  u->fd[f]];

					if (stamp[v] != ep) {
						stamp[v] = ep;
						loc[v] = (uint16_t)(nv[k] -
								    u->voff[k]
									   [f]);
						if (round)
							u->vl[k][nv[k]] = v;
						nv[k]++;
					}
					if (round)
						u->lid[k][np + j] = loc[v];
				}
			}
			for (uint32_t j = 0; round && j < ni; j++)
				u->iv[np + j] = (uint16_t)inter[j];
			np += ni;
		}
		u->ioff[u->nf] = np;
		u->voff[0][u->nf] = nv[0];
		u->voff[1][u->nf] = nv[1];
		if (round)
			break;
		memset(stamp, 0, ((size_t)u->nd + 1) * sizeof(*stamp));
		u->iv = malloc((np + 1) * sizeof(*u->iv));
		u->lid[0] = malloc((np + 1) * sizeof(*u->lid[0]));
		u->lid[1] = malloc((np + 1) * sizeof(*u->lid[1]));
		u->vl[0] = malloc((nv[0] + 1) * sizeof(*u->vl[0]));
		u->vl[1] = malloc((nv[1] + 1) * sizeof(*u->vl[1]));
		if (!u->iv || !u->lid[0] || !u->lid[1] || !u->vl[0] ||
		    !u->vl[1])
			goto out;
	}
	rc = 0;
out:
	free(inter);
	free(stamp);
	free(loc);
	return rc;
}

/* OFF[S+1] and BY[nf]: the flows by switch SW[f] (counting sort, in flow
 * order within a switch). */
static void sort_flows(uint32_t S, uint32_t nf, const uint32_t *sw,
		       uint32_t *off, uint32_t *by)
{
	memset(off, 0, ((size_t)S + 1) * sizeof(*off));
	for (uint32_t f = 0; f < nf; f++)
		off[sw[f] + 1]++;
	for (uint32_t s = 0; s < S; s++)
		off[s + 1] += off[s];
	for (uint32_t f = 0; f < nf; f++)
		by[off[sw[f]]++] = f;
	for (uint32_t s = S; s > 0; s--)
		off[s] = off[s - 1];
	off[0] = 0;
}

/* The operator of the VLB groups of TP (built with w->factored) for flows
 * F; takes N over when it succeeds (freed with the operator).  Returns it
 * or NULL (memory, or more than MAX_PAIRS switch pairs). */
struct ugal_fac *ugal_fac_create(struct unet *n, const struct flows *f,
				 const struct ugal_tpl *tp, struct err *err)
{
	struct ugal_fac *u = calloc(1, sizeof(*u));
	const struct topo *t = n->t;
	size_t cells, hbytes, nt2 = 0;
	uint32_t ngl = n->gl_off[(size_t)n->G * n->G];
	bool mem = true;

	if (!u) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	u->S = n->S;
	u->HL = n->maxhalf + 1;
	u->NL = 2 * u->HL - 1;
	u->nf = f->n;
	if ((size_t)n->S * n->S > MAX_PAIRS) {
		err_range(err, "too many switches for the factored UGAL "
			       "template");
		ugal_fac_free(u);
		return NULL;
	}
	cells = (size_t)n->S * n->S * u->HL;
	/* aligned_alloc: a multiple of the alignment */
	hbytes = ((cells ? cells : 1) * sizeof(double) + 63) / 64 * 64;
	u->fs = malloc(((size_t)f->n + 1) * sizeof(*u->fs));
	u->fd = malloc(((size_t)f->n + 1) * sizeof(*u->fd));
	u->vg = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->vg));
	u->id = malloc(((size_t)n->S * n->S + 1) * sizeof(*u->id));
	u->src_off = malloc(((size_t)n->S + 1) * sizeof(*u->src_off));
	u->by_src = malloc(((size_t)f->n + 1) * sizeof(*u->by_src));
	u->dst_off = malloc(((size_t)n->S + 1) * sizeof(*u->dst_off));
	u->by_dst = malloc(((size_t)f->n + 1) * sizeof(*u->by_dst));
	u->h = aligned_alloc(64, hbytes);
	u->xis = malloc(((size_t)f->n * u->NL + 1) * sizeof(*u->xis));
	u->poff = malloc((n->mat_off[n->G] + 1) * sizeof(*u->poff));
	u->t2off = malloc(((size_t)ngl + 1) * sizeof(*u->t2off));
	u->inner = calloc((size_t)n->S + 1, sizeof(*u->inner));
	u->glv = malloc(((size_t)ngl + 1) * sizeof(*u->glv));
	u->glu = malloc(((size_t)ngl + 1) * sizeof(*u->glu));
	if (u->t2off) {
		u->t2off[0] = 0;
		for (uint32_t j = 0; j < ngl; j++) {
			uint32_t B = n->grp[topo_link(t, n->gl[j])->to];

			u->t2off[j + 1] =
				u->t2off[j] + n->mem_off[B + 1] - n->mem_off[B];
		}
		nt2 = u->t2off[ngl];
	}
	for (uint32_t k = 0; k < NPART; k++) {
		u->rl[k] = malloc((n->mat_off[n->G] + 1) * sizeof(*u->rl[k]));
		u->t2s[k] = malloc(((size_t)nt2 + 1) * sizeof(*u->t2s[k]));
		mem &= u->rl[k] && u->t2s[k];
	}
	if (!u->fs || !u->fd || !u->vg || !u->id || !u->src_off || !u->by_src ||
	    !u->dst_off || !u->by_dst || !u->h || !u->xis || !u->poff ||
	    !u->t2off || !u->inner || !u->glv || !u->glu || !mem) {
		err_nomem(err, "out of memory");
		ugal_fac_free(u);
		return NULL;
	}
	u->n = n;
	mem = !build_dict(u);
	for (uint32_t k = 0; k < NPART && mem; k++)
		mem = !ws_init(&u->ws[k], u->nd, u->S, u->HL);
	if (!mem) {
		u->n = NULL; /* not taken over */
		err_nomem(err, "out of memory");
		ugal_fac_free(u);
		return NULL;
	}
	for (uint32_t i = 0; i < f->n; i++) {
		uint32_t *vg = u->vg + (size_t)i * u->NL;

		u->fs[i] = topo_node_switch(t, f->src[i]);
		u->fd[i] = topo_node_switch(t, f->dst[i]);
		if (ugal_inter_group(n, u->fs[i], u->fd[i], n->grp[u->fd[i]]))
			u->inner[u->fd[i]] = true;
		for (uint32_t L = 0; L < u->NL; L++)
			vg[L] = NONE;
		for (uint32_t g = tp->flow_off[i]; g < tp->flow_off[i + 1];
		     g++) {
			if (tp->cls[g] != PATH_VLB)
				continue;
			if (tp->hops[g] == UGAL_HOPS_ANY) {
				for (uint32_t L = 0; L < u->NL; L++)
					vg[L] = g;
			} else if (tp->hops[g] < u->NL) {
				vg[tp->hops[g]] = g;
			}
		}
	}
	for (uint32_t j = 0; j < ngl; j++) {
		const struct topo_link *lk = topo_link(t, n->gl[j]);

		u->glv[j] = pidx(n, lk->to, lk->to) - n->idx[lk->to];
		u->glu[j] = n->idx[lk->from];
	}
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t i = n->mem_off[g]; i < n->mem_off[g + 1]; i++)
			for (uint32_t j = n->mem_off[g]; j < n->mem_off[g + 1];
			     j++) {
				uint32_t x = n->mem[i], y = n->mem[j];
				size_t p = pidx(n, x, y);

				u->poff[p] = n->dist[p] == UNREACH ?
						     NONE :
						     y * u->HL + n->dist[p];
			}
	if (build_plans(u)) {
		err_nomem(err, "out of memory");
		u->n = NULL; /* not taken over */
		ugal_fac_free(u);
		return NULL;
	}
	u->threads = cells >= THREAD_CELLS;
	sort_flows(u->S, u->nf, u->fs, u->src_off, u->by_src);
	sort_flows(u->S, u->nf, u->fd, u->dst_off, u->by_dst);
	return u;
}
