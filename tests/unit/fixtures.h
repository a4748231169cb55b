/* fixtures.h - the topology and routing builders the unit tests share.
 * Each builder asserts (Criterion) that it succeeded, so a test body
 * starts from a valid object; every topology passes topo_check. */
#ifndef STOPO_TESTS_FIXTURES_H
#define STOPO_TESTS_FIXTURES_H

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "topo/routing.h"
#include "topo/topo.h"

/* Topology SPEC, checked with topo_check.  Free with topo_destroy. */
static inline struct topo *fx_topo(const char *spec)
{
	struct err err = { 0 };
	struct topo *t = topo_create(spec, &err);

	cr_assert_not_null(t, "%s: %s", spec, err.msg);
	cr_assert_eq(topo_check(t, &err), 0, "%s: %s", spec, err.msg);
	return t;
}

/* Routing SPEC over T (NULL: T's default routing).  Free with
 * routing_destroy, before T. */
static inline struct routing *fx_routing(const struct topo *t, const char *spec)
{
	struct err err = { 0 };
	struct routing *r;

	if (!spec)
		spec = routing_default(t);
	r = routing_create(t, spec, &err);
	cr_assert_not_null(r, "%s on %s: %s", spec, topo_spec(t), err.msg);
	return r;
}

/* A topology and a routing over it. */
struct fx_net {
	struct topo *t;
	struct routing *r;
};

/* Topology SPEC (checked) with routing ROUTING (NULL: the default).
 * Free with fx_net_free. */
static inline struct fx_net fx_net(const char *spec, const char *routing)
{
	struct fx_net n;

	n.t = fx_topo(spec);
	n.r = fx_routing(n.t, routing);
	return n;
}

/* Free both parts of N. */
static inline void fx_net_free(struct fx_net *n)
{
	routing_destroy(n->r);
	topo_destroy(n->t);
}

/* T as Topology=graph text: switch s is "s<s>" (skipped when DROP[s]),
 * with NODES[s] nodes when NODES is given (else its own), each cable
 * declared by its lower switch.  Free with free(). */
static inline char *fx_graph_conf(const struct topo *t, const uint8_t *drop,
				  const uint32_t *nodes)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert_not_null(f);
	fprintf(f, "Topology=graph\n");
	for (uint32_t s = 0; s < topo_num_switches(t); s++) {
		uint32_t cnt, first, nn;
		bool first_link = true;

		if (drop && drop[s])
			continue;
		topo_switch_nodes(t, s, &nn);
		fprintf(f, "SwitchName=s%u Nodes=%u", s, nodes ? nodes[s] : nn);
		first = topo_switch_out(t, s, &cnt);
		for (uint32_t i = 0; i < cnt; i++) {
			uint32_t to = topo_link(t, first + i)->to;

			if (to < s || (drop && drop[to]))
				continue;
			fprintf(f, "%ss%u", first_link ? " Links=" : ",", to);
			first_link = false;
		}
		fprintf(f, "\n");
	}
	cr_assert_eq(fclose(f), 0);
	return buf;
}

/* routing_linkset (structural where the routing has one) equals the union
 * of every enumerated path (routing_linkset_enum) for the job NODES[0..n)
 * of R; WHAT names the job in the message.  Never marks an injection or
 * ejection link.  Returns the number of links used. */
static inline uint32_t fx_linkset_vs_enum(const struct routing *r,
					  const uint32_t *nodes, uint32_t n,
					  const char *what)
{
	const struct topo *t = routing_topo(r);
	uint32_t L = topo_num_links(t), used = 0;
	uint8_t *a = calloc(L + 1, 1), *b = calloc(L + 1, 1);
	struct err err = { 0 };

	cr_assert(a && b);
	cr_assert_eq(routing_linkset(r, nodes, n, a, &err), 0, "%s", err.msg);
	cr_assert_eq(routing_linkset_enum(r, nodes, n, b, &err), 0, "%s",
		     err.msg);
	for (uint32_t l = 0; l < L; l++) {
		cr_assert_eq(a[l], b[l],
			     "%s: link %u (%u->%u) structural %d enumerated %d",
			     what, l, topo_link(t, l)->from,
			     topo_link(t, l)->to, a[l], b[l]);
		used += a[l];
	}
	for (uint32_t l = 0; l < topo_first_switch_link(t); l++)
		cr_assert_eq(a[l], 0, "%s: injection/ejection link marked",
			     what);
	free(a);
	free(b);
	return used;
}

#endif
