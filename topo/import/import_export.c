/* import_export.c - a topology as ibnetdiscover text, the inverse of
 * import_ibnetdiscover (for round-trip tests). */
#include <inttypes.h>
#include <stdlib.h>

#include "topo/import/import_impl.h"
#include "topo/routing.h"
#include "topo/topo.h"

#define SWG(i) ((uint64_t)0x0002c90300000000 + (uint64_t)(i))
#define CAG(n) ((uint64_t)0x0002c90400000000 + (uint64_t)(n))
/* an HCA's port GUID, apart from every node GUID */
#define PG(n) (CAG(n) + 0x80000000u)

/* Port number of switch-to-switch link L on its source switch: after the
 * switch's nodes, in link order. */
static uint32_t sw_port(const struct topo *t, uint32_t l)
{
	const struct topo_link *k = topo_link(t, l);
	uint32_t nn, nout, first = topo_switch_out(t, k->from, &nout);

	topo_switch_nodes(t, k->from, &nn);
	return nn + (l - first) + 1;
}

int import_export_ibnetdiscover(const struct topo *t, FILE *out,
				struct err *err)
{
	uint32_t nsw = topo_num_switches(t);

	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t nn, nout, first = topo_switch_out(t, s, &nout);
		const uint32_t *nodes = topo_switch_nodes(t, s, &nn);

		fprintf(out,
			"switchguid=0x%016" PRIx64
			"\nSwitch\t%u \"S-%016" PRIx64
			"\"\t\t# \"sw%u\" enhanced port 0 lid %u lmc 0\n",
			SWG(s), nn + nout, SWG(s), s, s + 1);
		for (uint32_t i = 0; i < nn; i++)
			fprintf(out,
				"[%u]\t\"H-%016" PRIx64 "\"[1](%" PRIx64
				")\t\t# \"n%u HCA-1\" lid %u 4xEDR\n",
				i + 1, CAG(nodes[i]), PG(nodes[i]), nodes[i],
				nsw + 1 + nodes[i]);
		for (uint32_t l = first; l < first + nout; l++) {
			const struct topo_link *k = topo_link(t, l);

			fprintf(out,
				"[%u]\t\"S-%016" PRIx64
				"\"[%u]\t\t# \"sw%u\" lid 1 4xEDR\n",
				sw_port(t, l), SWG(k->to),
				sw_port(t, k->reverse), k->to);
		}
		fprintf(out, "\n");
	}
	for (uint32_t n = 0; n < topo_num_nodes(t); n++) {
		uint32_t s = topo_node_switch(t, n), nn, i = 0;
		const uint32_t *nodes = topo_switch_nodes(t, s, &nn);

		while (i < nn && nodes[i] != n)
			i++;
		fprintf(out,
			"caguid=0x%016" PRIx64 "\nCa\t1 \"H-%016" PRIx64
			"\"\t\t# \"n%u HCA-1\"\n[1](%" PRIx64
			")\t\"S-%016" PRIx64
			"\"[%u]\t\t# lid %u lmc 0 \"sw%u\" lid %u 4xEDR\n\n",
			CAG(n), CAG(n), n, PG(n), SWG(s), i + 1, nsw + 1 + n, s,
			s + 1);
	}
	if (fflush(out) || ferror(out))
		return err_set(err, "write error");
	return 0;
}

/* Port of node N on its switch (its position among the switch's nodes,
 * from 1), as import_export_ibnetdiscover numbers it. */
static uint32_t node_port(const struct topo *t, uint32_t n)
{
	uint32_t nn, i = 0;
	const uint32_t *nodes =
		topo_switch_nodes(t, topo_node_switch(t, n), &nn);

	while (i < nn && nodes[i] != n)
		i++;
	return i + 1;
}

/* The table entries of R toward node D: the first path from a node of
 * every other switch with nodes, its switch links into FWD[u] (a switch
 * keeps the first entry it gets: the tables are destination based). */
static int tables_to(const struct routing *r, uint32_t d, uint32_t *fwd,
		     struct pathset *ps, struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t S = topo_num_switches(t), first = topo_first_switch_link(t);

	for (uint32_t s = 0; s < S; s++) {
		uint32_t nn;
		const uint32_t *nodes = topo_switch_nodes(t, s, &nn);

		fwd[s] = s == topo_node_switch(t, d) ? UINT32_MAX - 1 : fwd[s];
		if (!nn || s == topo_node_switch(t, d))
			continue;
		if (routing_paths(r, nodes[0], d, ps, err))
			return -1;
		for (uint32_t k = ps->off[0]; k < ps->off[1]; k++) {
			uint32_t l = ps->links[k];
			uint32_t u = topo_link(t, l)->from;

			if (l >= first && fwd[u] == UINT32_MAX)
				fwd[u] = l;
		}
	}
	return 0;
}

int import_export_lft(const struct routing *r, FILE *out, struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t S = topo_num_switches(t), N = topo_num_nodes(t);
	uint32_t *fwd = malloc(((size_t)S * N + 1) * sizeof(*fwd));
	uint32_t *col = malloc(((size_t)S + 1) * sizeof(*col));
	struct pathset ps;
	int rc = 0;

	if (!fwd || !col) {
		free(fwd);
		free(col);
		return err_nomem(err, "out of memory");
	}
	pathset_init(&ps);
	for (uint32_t d = 0; d < N && !rc; d++) {
		for (uint32_t s = 0; s < S; s++)
			col[s] = UINT32_MAX;
		rc = tables_to(r, d, col, &ps, err);
		for (uint32_t s = 0; s < S; s++)
			fwd[(size_t)s * N + d] = col[s];
	}
	for (uint32_t s = 0; s < S && !rc; s++) {
		fprintf(out,
			"Unicast lids [0x0-0x%x] of switch Lid %u guid "
			"0x%016" PRIx64 " (sw%u):\n"
			"  Lid  Out   Destination\n"
			"       Port     Info \n",
			S + N, s + 1, SWG(s), s);
		for (uint32_t d = 0; d < N; d++) {
			uint32_t l = fwd[(size_t)s * N + d], port;

			if (l == UINT32_MAX)
				continue;
			port = l == UINT32_MAX - 1 ? node_port(t, d) :
						     sw_port(t, l);
			fprintf(out,
				"0x%04x %03u : (Channel Adapter portguid "
				"0x%016" PRIx64 ": 'n%u HCA-1')\n",
				S + 1 + d, port, PG(d), d);
		}
	}
	pathset_free(&ps);
	free(fwd);
	free(col);
	if (!rc && (fflush(out) || ferror(out)))
		rc = err_set(err, "write error");
	return rc;
}

int import_switch_degree(const struct import_fabric *f, uint32_t sw,
			 uint32_t *nodes, uint32_t *cables)
{
	if (sw >= f->nsw)
		return -1;
	*nodes = f->sw[sw].nnodes;
	*cables = 0;
	for (uint32_t i = 0; i < f->ncab; i++)
		*cables += (f->cab[i].a == sw) + (f->cab[i].b == sw);
	return 0;
}
