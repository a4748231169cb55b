/* import_export.c - a topology as ibnetdiscover text, the inverse of
 * import_ibnetdiscover (for round-trip tests). */
#include <inttypes.h>

#include "topo/import/import_impl.h"
#include "topo/topo.h"

#define SWG(i) ((uint64_t)0x0002c90300000000 + (uint64_t)(i))
#define CAG(n) ((uint64_t)0x0002c90400000000 + (uint64_t)(n))

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
				")\t\t# \"n%u HCA-1\" lid 1 4xEDR\n",
				i + 1, CAG(nodes[i]), CAG(nodes[i]) + 1,
				nodes[i]);
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
			"\"[%u]\t\t# lid 1 lmc 0 \"sw%u\" lid 1 4xEDR\n\n",
			CAG(n), CAG(n), n, CAG(n) + 1, SWG(s), i + 1, s);
	}
	if (fflush(out) || ferror(out))
		return err_set(err, "write error");
	return 0;
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
