/* fixtures.h - the topology and routing builders the unit tests share.
 * Each builder asserts (Criterion) that it succeeded, so a test body
 * starts from a valid object; every topology passes topo_check. */
#ifndef STOPO_TESTS_FIXTURES_H
#define STOPO_TESTS_FIXTURES_H

#include <criterion/criterion.h>

#include "topo/routing.h"
#include "topo/topo.h"

/* Topology SPEC, checked with topo_check.  Free with topo_destroy. */
static inline struct topo *fx_topo(const char *spec)
{
	struct err err = { "" };
	struct topo *t = topo_create(spec, &err);

	cr_assert_not_null(t, "%s: %s", spec, err.msg);
	cr_assert_eq(topo_check(t, &err), 0, "%s: %s", spec, err.msg);
	return t;
}

/* Routing SPEC over T (NULL: T's default routing).  Free with
 * routing_destroy, before T. */
static inline struct routing *fx_routing(const struct topo *t, const char *spec)
{
	struct err err = { "" };
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

#endif
