/* test_import.c - round trip: a generated topology written as
 * ibnetdiscover text (import_export_ibnetdiscover) and read back by
 * import_ibnetdiscover gives the same switch graph: switch, node and cable
 * counts, and every switch's node count and degree. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "topo/import/import.h"
#include "topo/topo.h"

static void round_trip(const char *spec)
{
	struct err err = { "" };
	struct topo *t = topo_create(spec, &err);
	char path[] = "/tmp/test_import_XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct import_fabric *fab;
	uint32_t nsw;

	cr_assert(t, "%s: %s", spec, err.msg);
	cr_assert(fd >= 0);
	f = fdopen(fd, "w");
	cr_assert(f);
	cr_assert_eq(import_export_ibnetdiscover(t, f, &err), 0, "%s", err.msg);
	fclose(f);
	fab = import_ibnetdiscover(path, NULL, &err);
	unlink(path);
	cr_assert(fab, "%s: %s", spec, err.msg);
	nsw = topo_num_switches(t);
	cr_assert_eq(import_num_switches(fab), nsw, "%s", spec);
	cr_assert_eq(import_num_nodes(fab), topo_num_nodes(t), "%s", spec);
	cr_assert_eq(import_num_cables(fab),
		     (topo_num_links(t) - 2 * topo_num_nodes(t)) / 2, "%s",
		     spec);
	cr_assert_eq(import_num_warnings(fab), 0, "%s: %s", spec,
		     import_warning(fab, 0));
	for (uint32_t s = 0; s < nsw; s++) {
		uint32_t nn, nout, in, ic;

		topo_switch_nodes(t, s, &nn);
		topo_switch_out(t, s, &nout);
		cr_assert_eq(import_switch_degree(fab, s, &in, &ic), 0);
		cr_assert_eq(in, nn, "%s switch %u nodes", spec, s);
		cr_assert_eq(ic, nout, "%s switch %u degree", spec, s);
	}
	cr_assert_eq(import_switch_degree(fab, nsw, &nsw, &nsw), -1);
	import_destroy(fab);
	topo_destroy(t);
}

Test(import, fattree_round_trip)
{
	round_trip("fattree:k=4,n=3");
}

Test(import, dragonfly_round_trip)
{
	round_trip("dragonfly:p=2,a=4,h=2,g=9");
}
