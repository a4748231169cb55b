/* routing_lft.c - lft: the routes the subnet manager computed, as the
 * switches' unicast forwarding tables give them (topo.conf Forward=
 * lines, written by stopo import ibnetdiscover --lft from ibroute or
 * dump_lfts.sh output).
 *
 * One path per flow, deterministic: from the source's switch, each switch
 * sends the destination node's traffic on the link its table names, until
 * the destination's switch.  The path depends on the destination node,
 * not only on its switch (LIDs are per node), so link sets walk every
 * (destination, source switch) pair: per destination, a walk stops where
 * an earlier walk to the same destination went on (the rest is marked),
 * O(J x S) for a job of J nodes.
 *
 * The tables are checked when the topo.conf is loaded (topo_check_
 * forwarding): every route between two switches with nodes arrives. */
#include <stdlib.h>
#include <string.h>

#include "topo/routing_impl.h"

void topo_set_forwarding(struct topo *t, uint32_t *fwd)
{
	free(t->fwd);
	t->fwd = fwd;
}

int topo_check_forwarding(const struct topo *t, uint32_t *sw, uint32_t *node,
			  uint32_t *from)
{
	uint32_t S = t->nswitches, N = t->nnodes;
	uint32_t *ok = calloc((size_t)S + 1, sizeof(*ok));
	uint32_t *walk = calloc((size_t)S + 1, sizeof(*walk));
	uint32_t stamp = 0;
	int r = 0;

	if (!ok || !walk) {
		free(ok);
		free(walk);
		return 0; /* checked again by every path query */
	}
	for (uint32_t d = 0; d < N && !r; d++) {
		uint32_t dsw = t->node_sw[d];

		for (uint32_t s = 0; s < S && !r; s++) {
			uint32_t cur = s;

			if (s == dsw ||
			    t->sw_node_off[s + 1] == t->sw_node_off[s])
				continue;
			stamp++;
			while (cur != dsw && ok[cur] != d + 1) {
				uint32_t l = t->fwd[(size_t)cur * N + d];

				if (walk[cur] == stamp || l == TOPO_NONE) {
					*sw = cur;
					*node = d;
					*from = s;
					r = l == TOPO_NONE ? 1 : 2;
					break;
				}
				walk[cur] = stamp;
				cur = t->links[l].to;
			}
			for (cur = s; !r && cur != dsw && ok[cur] != d + 1;
			     cur = t->links[t->fwd[(size_t)cur * N + d]].to)
				ok[cur] = d + 1;
		}
	}
	free(ok);
	free(walk);
	return r;
}

static bool has_tables(const struct topo *t)
{
	return t->fwd != NULL;
}

static int lft_paths(const struct routing *r, uint32_t src, uint32_t dst,
		     struct pathset *out, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t N = t->nnodes, dsw = t->node_sw[dst], cur = t->node_sw[src];
	uint32_t buf[ROUTING_MAX_HOPS + 2], len = 0;

	buf[len++] = topo_inject_link(t, src);
	while (cur != dsw) {
		uint32_t l = t->fwd[(size_t)cur * N + dst];

		if (l == TOPO_NONE || len > ROUTING_MAX_HOPS) {
			char b[80];

			return err_set(err,
				       "lft: %s %s node %u (its forwarding "
				       "table)",
				       topo_switch_label(t, cur, b, sizeof(b)),
				       l == TOPO_NONE ? "has no route to" :
							"loops on the way to",
				       dst);
		}
		buf[len++] = l;
		cur = t->links[l].to;
	}
	buf[len++] = topo_eject_link(t, dst);
	if (pathset_add(out, buf, len, PATH_MIN))
		return err_nomem(err, "out of memory");
	return 0;
}

static int lft_count(const struct routing *r, uint32_t src, uint32_t dst,
		     struct routing_count *c, struct err *err)
{
	struct pathset ps;
	int rc;

	pathset_init(&ps);
	rc = lft_paths(r, src, dst, &ps, err);
	if (!rc)
		routing_count_add(c, PATH_MIN, pathset_hops(&ps, r->t, 0), 1);
	pathset_free(&ps);
	return rc;
}

/* Per destination node of the job, every source switch of the job walks
 * to it; a walk stops at a switch an earlier walk to the same node
 * passed (the rest of its way is marked already). */
static int lft_linkset(const struct routing *r, const uint32_t *nodes,
		       uint32_t n, uint8_t *used, struct err *err)
{
	const struct topo *t = r->t;
	uint32_t S = t->nswitches, N = t->nnodes, ns = 0;
	uint32_t *seen = calloc((size_t)S + 1, sizeof(*seen));
	uint32_t *src = malloc(((size_t)n + 1) * sizeof(*src));
	uint8_t *mine = calloc((size_t)S + 1, 1);
	int rc = 0;

	if (!seen || !src || !mine) {
		rc = err_nomem(err, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!mine[t->node_sw[nodes[i]]]) {
			mine[t->node_sw[nodes[i]]] = 1;
			src[ns++] = t->node_sw[nodes[i]];
		}
	for (uint32_t i = 0; i < n && !rc; i++) {
		uint32_t d = nodes[i], dsw = t->node_sw[d];

		for (uint32_t k = 0; k < ns && !rc; k++) {
			uint32_t cur = src[k], hops = 0;

			while (cur != dsw && seen[cur] != i + 1) {
				uint32_t l = t->fwd[(size_t)cur * N + d];

				if (l == TOPO_NONE || ++hops > S) {
					rc = err_set(err,
						     "lft: no route to node "
						     "%u (its forwarding "
						     "table)",
						     d);
					break;
				}
				seen[cur] = i + 1;
				used[l] = 1;
				cur = t->links[l].to;
			}
		}
	}
out:
	free(seen);
	free(src);
	free(mine);
	return rc;
}

const struct routing_ops routing_lft = {
	.name = "lft",
	.multipath = false,
	.switch_paths = false,
	.applies = has_tables,
	.paths = lft_paths,
	.count = lft_count,
	.linkset = lft_linkset,
};
