/* ugal_net.c - the dragonfly / Cascade structure the UGAL templates are
 * built from (group tables, local distances, paths and global links) and
 * its MIN halves: MIN(x -> y) by hop count (see ugal_tpl.c). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/ugal_impl.h"
#include "topo/util/spec.h"

/* ---- the structure ---- */

void ugal_net_free(struct unet *n)
{
	if (!n)
		return;
	free(n->grp);
	free(n->mem_off);
	free(n->mem);
	free(n->idx);
	free(n->mat_off);
	free(n->dist);
	free(n->np);
	free(n->lp_off);
	free(n->lp_link);
	free(n->gl_off);
	free(n->gl);
	free(n);
}

/* Group membership, and where each group's pair tables start. */
static int build_groups(struct unet *n, struct err *err)
{
	const struct topo *t = n->t;
	size_t pairs = 0;
	uint32_t *pos;

	n->grp = malloc(((size_t)n->S + 1) * sizeof(*n->grp));
	n->mem_off = calloc((size_t)n->G + 1, sizeof(*n->mem_off));
	n->mem = malloc(((size_t)n->S + 1) * sizeof(*n->mem));
	n->idx = malloc(((size_t)n->S + 1) * sizeof(*n->idx));
	n->mat_off = malloc(((size_t)n->G + 1) * sizeof(*n->mat_off));
	if (!n->grp || !n->mem_off || !n->mem || !n->idx || !n->mat_off)
		return err_nomem(err, "out of memory");
	for (uint32_t s = 0; s < n->S; s++) {
		n->grp[s] = topo_switch_group(t, s);
		if (n->grp[s] >= n->G)
			return err_set(err, "switch %u has no group", s);
		n->mem_off[n->grp[s] + 1]++;
	}
	for (uint32_t g = 0; g < n->G; g++) {
		size_t a = n->mem_off[g + 1]; /* still the group's size */

		n->mat_off[g] = pairs;
		pairs += a * a;
		if (pairs > MAX_PAIRS)
			return err_set(err,
				       "groups too large for the UGAL "
				       "models (%zu router pairs)",
				       pairs);
		n->mem_off[g + 1] += n->mem_off[g];
	}
	n->mat_off[n->G] = pairs;
	pos = malloc(((size_t)n->G + 1) * sizeof(*pos));
	if (!pos)
		return err_nomem(err, "out of memory");
	memcpy(pos, n->mem_off, ((size_t)n->G + 1) * sizeof(*pos));
	for (uint32_t s = 0; s < n->S; s++) {
		uint32_t g = n->grp[s];

		n->idx[s] = pos[g] - n->mem_off[g];
		n->mem[pos[g]++] = s;
	}
	free(pos);
	return 0;
}

/* Local distances and path counts from router X of group G (BFS over the
 * links inside the group). */
static int bfs(struct unet *n, uint32_t g, uint32_t x, uint32_t *queue,
	       struct err *err)
{
	const struct topo *t = n->t;
	size_t row = pidx(n, x, x) - n->idx[x];
	uint32_t head = 0, tail = 0;

	n->dist[row + n->idx[x]] = 0;
	n->np[row + n->idx[x]] = 1;
	queue[tail++] = x;
	while (head < tail) {
		uint32_t u = queue[head++], cnt;
		uint32_t first = topo_switch_out(t, u, &cnt);
		uint8_t du = n->dist[row + n->idx[u]];

		for (uint32_t l = first; l < first + cnt; l++) {
			uint32_t z = topo_link(t, l)->to;
			size_t iz = row + n->idx[z];

			if (n->grp[z] != g)
				continue;
			if (n->dist[iz] == UNREACH) {
				if (du + 1 > MAX_DIAM)
					return err_set(err,
						       "group %u: local "
						       "diameter above %d",
						       g, MAX_DIAM);
				n->dist[iz] = (uint8_t)(du + 1);
				queue[tail++] = z;
			}
			if (n->dist[iz] == du + 1)
				n->np[iz] += n->np[row + n->idx[u]];
		}
	}
	return 0;
}

/* Append every local shortest path X -> Y of group G (links only, each
 * after the prefix buf[0..len)) at *out. */
static void walk(const struct unet *n, uint32_t g, uint32_t x, uint32_t y,
		 uint32_t *buf, uint32_t len, uint32_t **out)
{
	const struct topo *t = n->t;
	uint32_t cnt, first;
	uint8_t dx = n->dist[pidx(n, x, y)];

	if (x == y) {
		if (len)
			memcpy(*out, buf, len * sizeof(*buf));
		*out += len;
		return;
	}
	first = topo_switch_out(t, x, &cnt);
	for (uint32_t l = first; l < first + cnt; l++) {
		uint32_t z = topo_link(t, l)->to;

		if (n->grp[z] != g || n->dist[pidx(n, z, y)] != dx - 1)
			continue;
		buf[len] = l;
		walk(n, g, z, y, buf, len + 1, out);
	}
}

static int build_local(struct unet *n, struct err *err)
{
	size_t pairs = n->mat_off[n->G], total = 0;
	uint32_t *queue, maxdiam = 0;

	n->dist = malloc(pairs ? pairs : 1);
	n->np = calloc(pairs ? pairs : 1, sizeof(*n->np));
	n->lp_off = malloc((pairs + 1) * sizeof(*n->lp_off));
	queue = malloc(((size_t)n->S + 1) * sizeof(*queue));
	if (!n->dist || !n->np || !n->lp_off || !queue) {
		free(queue);
		return err_nomem(err, "out of memory");
	}
	memset(n->dist, UNREACH, pairs ? pairs : 1);
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t k = n->mem_off[g]; k < n->mem_off[g + 1]; k++)
			if (bfs(n, g, n->mem[k], queue, err)) {
				free(queue);
				return -1;
			}
	free(queue);
	for (size_t p = 0; p < pairs; p++) {
		n->lp_off[p] = total;
		if (n->dist[p] == UNREACH)
			continue;
		if (n->dist[p] > maxdiam)
			maxdiam = n->dist[p];
		if (n->np[p] * n->dist[p] > (double)MAX_LOCAL ||
		    total + (size_t)(n->np[p] * n->dist[p]) > MAX_LOCAL)
			return err_range(err, "too many local shortest paths "
					      "inside the groups");
		total += (size_t)(n->np[p] * n->dist[p]);
	}
	n->lp_off[pairs] = total;
	n->lp_link = malloc((total ? total : 1) * sizeof(*n->lp_link));
	if (!n->lp_link)
		return err_nomem(err, "out of memory");
	for (uint32_t g = 0; g < n->G; g++)
		for (uint32_t i = n->mem_off[g]; i < n->mem_off[g + 1]; i++)
			for (uint32_t j = n->mem_off[g]; j < n->mem_off[g + 1];
			     j++) {
				uint32_t x = n->mem[i], y = n->mem[j];
				uint32_t buf[MAX_DIAM + 1];
				size_t p = pidx(n, x, y);
				uint32_t *out = n->lp_link + n->lp_off[p];

				if (n->dist[p] != UNREACH)
					walk(n, g, x, y, buf, 0, &out);
			}
	n->maxhalf = 2 * maxdiam + 1;
	return 0;
}

static int build_global(struct unet *n, struct err *err)
{
	const struct topo *t = n->t;
	size_t nb = (size_t)n->G * n->G;
	uint32_t *pos, ng = 0;

	n->gl_off = calloc(nb + 1, sizeof(*n->gl_off));
	if (!n->gl_off)
		return err_nomem(err, "out of memory");
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < n->S; s++) {
			uint32_t cnt, first = topo_switch_out(t, s, &cnt);

			for (uint32_t l = first; l < first + cnt; l++) {
				uint32_t z = topo_link(t, l)->to;
				size_t b = (size_t)n->grp[s] * n->G + n->grp[z];

				if (n->grp[z] == n->grp[s])
					continue;
				if (pass == 0)
					n->gl_off[b + 1]++;
				else
					n->gl[pos[b]++] = l;
			}
		}
		if (pass == 1)
			break;
		for (size_t b = 0; b < nb; b++)
			n->gl_off[b + 1] += n->gl_off[b];
		ng = n->gl_off[nb];
		n->gl = malloc(((size_t)ng + 1) * sizeof(*n->gl));
		pos = malloc((nb + 1) * sizeof(*pos));
		if (!n->gl || !pos) {
			free(pos);
			return err_nomem(err, "out of memory");
		}
		memcpy(pos, n->gl_off, (nb + 1) * sizeof(*pos));
	}
	free(pos);
	return 0;
}

int ugal_check(const struct routing *r, struct err *err)
{
	const struct topo *t;

	if (!r)
		return err_set(err, "no routing");
	t = routing_topo(r);
	if (!topo_behaves_traits(t)->groups)
		return err_set(err,
			       "needs a dragonfly or cascade topology, not "
			       "%s",
			       topo_family(t));
	if (strcmp(routing_name(r), "ugal"))
		return err_set(err, "needs routing ugal, not %s",
			       routing_name(r));
	return 0;
}

struct unet *ugal_net_create(const struct routing *r, struct err *err)
{
	static const struct spec_syntax syn = { SPEC_BLANKS, "option" };
	struct unet *n;
	struct spec s;
	const char *intra;

	if (ugal_check(r, err))
		return NULL;
	if (spec_parse(routing_spec(r), &syn, &s, err))
		return NULL;
	intra = spec_given(&s, "intra");
	n = calloc(1, sizeof(*n));
	if (!n) {
		err_nomem(err, "out of memory");
		return NULL;
	}
	n->t = routing_topo(r);
	n->intra_global = intra && !strcmp(intra, "global");
	n->S = topo_num_switches(n->t);
	n->G = topo_num_groups(n->t);
	n->L = topo_num_links(n->t);
	if (n->G == 0 || n->G > 65535) {
		err_set(err, "%u groups: not a dragonfly", n->G);
		ugal_net_free(n);
		return NULL;
	}
	if (build_groups(n, err) || build_local(n, err) ||
	    build_global(n, err)) {
		ugal_net_free(n);
		return NULL;
	}
	return n;
}

/* Does group G hold intermediates of the VLB paths s -> d (every switch
 * of G but s and d)?  Those of a flow inside one group with intra=local
 * are the group's other routers; otherwise the switches outside the
 * source and destination groups (routing.h). */
bool ugal_inter_group(const struct unet *n, uint32_t s, uint32_t d, uint32_t g)
{
	uint32_t gs = n->grp[s], gd = n->grp[d];

	if (gs == gd && !n->intra_global)
		return g == gs;
	return g != gs && g != gd;
}

/* ---- MIN halves ---- */

void ugal_half_free(struct half *h)
{
	free(h->hop);
	free(h->link);
	free(h->w);
	memset(h, 0, sizeof(*h));
}

static int half_add(struct half *h, uint32_t hop, uint32_t link, double w)
{
	if (h->len == h->cap) {
		uint32_t nc = h->cap ? 2 * h->cap : 64;
		uint8_t *a = realloc(h->hop, nc);
		uint32_t *b;
		double *c;

		if (!a)
			return -1;
		h->hop = a;
		b = realloc(h->link, nc * sizeof(*b));
		if (!b)
			return -1;
		h->link = b;
		c = realloc(h->w, nc * sizeof(*c));
		if (!c)
			return -1;
		h->w = c;
		h->cap = nc;
	}
	h->hop[h->len] = (uint8_t)hop;
	h->link[h->len] = link;
	h->w[h->len] = w;
	h->len++;
	return 0;
}

/* Add the links of every local path of pair P, each with weight W, at
 * HOP. */
static int half_local(const struct unet *n, struct half *h, size_t p,
		      uint32_t hop, double w)
{
	for (size_t e = n->lp_off[p]; e < n->lp_off[p + 1]; e++)
		if (half_add(h, hop, n->lp_link[e], w))
			return -1;
	return 0;
}

/* Fill H with MIN(x -> y), x != y; entries only when ENT.  Returns 0 or -1
 * (memory). */
int ugal_half_min(const struct unet *n, uint32_t x, uint32_t y, struct half *h,
		  bool ent)
{
	uint32_t gx = n->grp[x], gy = n->grp[y], cnt;
	const uint32_t *gl;

	memset(h->n, 0, (n->maxhalf + 1) * sizeof(h->n[0]));
	h->len = 0;
	if (gx == gy) {
		size_t p = pidx(n, x, y);

		if (n->dist[p] == UNREACH)
			return 0;
		h->n[n->dist[p]] += n->np[p];
		return ent ? half_local(n, h, p, n->dist[p], 1) : 0;
	}
	gl = glinks(n, gx, gy, &cnt);
	for (uint32_t k = 0; k < cnt; k++) {
		const struct topo_link *lk = topo_link(n->t, gl[k]);
		size_t p1 = pidx(n, x, lk->from), p2 = pidx(n, lk->to, y);
		uint32_t hop;
		double n1, n2;

		if (n->dist[p1] == UNREACH || n->dist[p2] == UNREACH)
			continue;
		hop = n->dist[p1] + 1u + n->dist[p2];
		n1 = n->np[p1];
		n2 = n->np[p2];
		h->n[hop] += n1 * n2;
		if (ent && (half_local(n, h, p1, hop, n2) ||
			    half_add(h, hop, gl[k], n1 * n2) ||
			    half_local(n, h, p2, hop, n1)))
			return -1;
	}
	return 0;
}

/* Individual MIN(x -> y) link sequences, x != y: path i is
 * link[off[i] .. off[i+1]). */