/* topo_conf_impl.h - private to the topo.conf parser: what its first pass
 * reads (struct pstate) and the helpers topo_conf.c shares with the graph
 * family's builder (topo_conf_graph.c). */
#ifndef STOPO_TOPO_CONF_IMPL_H
#define STOPO_TOPO_CONF_IMPL_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "topo/topo.h"
#include "topo/util/nameidx.h"

struct name_expr {
	uint32_t line;
	char *expr;
};

struct cap_rule {
	uint32_t line;
	char *target;
	double cap;
};

struct part_policy {
	uint32_t line;
	char *part, *policy;
};

struct sw_link {
	char *name;
	double cap;
	uint32_t to; /* resolved switch id */
};

struct sw_decl {
	uint32_t line;
	char *name;
	char *nodes; /* Nodes= value or NULL */
	struct sw_link *links;
	size_t nlinks;
};

/* One Forward=SWITCH line: its routes, "HOSTLIST:NEXT[@K]" each. */
struct fwd_decl {
	uint32_t line;
	char *sw;
	char **route;
	size_t nroute;
};

/* Everything read in the first pass. */
struct pstate {
	const char *file;
	struct err *err;
	uint32_t lastline;
	uint32_t topo_line;
	char *topo_spec;
	uint32_t routing_line;
	char *routing;
	uint32_t defpol_line;
	char *defpol;
	uint32_t wrap_line;
	const char *wrap; /* canonical (static) or NULL */
	uint32_t predict_line;
	char *predict;
	uint32_t budget_line;
	char *budget;
	uint32_t respect_line;
	int respect; /* RespectIsolation=: 1 yes, 0 no */
	struct name_expr *names;
	size_t nnames;
	struct cap_rule *caps;
	size_t ncaps;
	struct part_policy *pols;
	size_t npols;
	struct sw_decl *sws;
	size_t nsws;
	struct nameidx swx;    /* sws by name */
	struct fwd_decl *fwds; /* Forward= lines, file order */
	size_t nfwds;
};

/* ERR := CODE and "FILE:LINE: " and the message.  Returns -1. */
int conf_perr_code(struct pstate *st, uint32_t line, int code, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));
/* Bad input at LINE (EINVAL); out of memory at LINE (ENOMEM). */
#define perr(st, line, ...) conf_perr_code(st, line, EINVAL, __VA_ARGS__)
#define perr_nomem(st, line) \
	conf_perr_code(st, line, ENOMEM, "%s", "out of memory")

/* Append a zeroed element to *ARR of *N (doubling).  0 or -1. */
int conf_push(void **arr, size_t *n, size_t elem);
/* The index of switch NAME in st->sws, or -1. */
int conf_sw_find(const struct pstate *st, const char *name);
/* -1 with the error "KEY= given twice" when FIRST (its first line). */
int conf_once(struct pstate *st, uint32_t line, uint32_t first,
	      const char *key);
/* The graph family: the topology of the SwitchName= lines with PARAMS
 * (Topology=graph:...); NULL with the error set. */
struct topo *conf_build_graph(struct pstate *st,
			      const struct topo_param *params, size_t nparams);

#endif
