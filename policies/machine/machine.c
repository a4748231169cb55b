/* machine.c - one machine from a topo.conf or a spec (see machine.h).
 *
 * A file machine keeps the parsed topo.conf for its node names, lines and
 * texts, owns the topology taken from it, and creates the file's routing
 * (Routing= or the family default) to check it and to bind the policies
 * to; a ROUTING argument adds a second routing, the one machine_routing
 * gives.  The prediction model is text here (the models are a layer
 * above): the machine picks it, its caller checks it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "policies/machine/machine.h"

/* One PartitionPolicy= line, or DefaultPolicy= (part NULL). */
struct mpolicy {
	const char *part, *text; /* borrowed from the conf */
	uint32_t line;
	struct policy *p;
};

struct machine {
	char *source;		   /* path, or NULL for a spec */
	struct topo_conf *conf;	   /* NULL for a spec */
	struct topo *topo;	   /* taken from the conf */
	struct routing *routing;   /* what machine_routing gives */
	struct routing *conf_rout; /* the file's, when ROUTING overrides it */
	struct mpolicy *pols;	   /* PartitionPolicy= lines, file order */
	uint32_t npols;
	struct mpolicy dflt; /* DefaultPolicy=; text NULL when absent */
	const char *predict; /* Predict= (borrowed) or the default (static) */
	uint32_t predict_line;
	uint32_t budget_ms, budget_line;
};

#define WRAP_DEFAULT "select/cons_tres"

static struct machine *machine_new(const char *source, struct err *err)
{
	struct machine *m = calloc(1, sizeof(*m));

	if (!m || (source && !(m->source = strdup(source)))) {
		free(m);
		if (source)
			err_nomem(err, "%s: out of memory", source);
		else
			err_nomem(err, "out of memory");
		return NULL;
	}
	return m;
}

/* Create policy MP against the file's routing R; "PATH:LINE: policy
 * 'TEXT'[ of partition P]: why" when it does not exist or apply. */
static int make_policy(struct machine *m, struct mpolicy *mp,
		       const struct routing *r, struct err *err)
{
	struct err sub = { 0 };

	mp->p = policy_create(mp->text, m->topo, r, &sub);
	if (mp->p)
		return 0;
	return err_from(err, &sub, "%s:%u: policy '%s'%s%s", m->source,
			mp->line, mp->text, mp->part ? " of partition " : "",
			mp->part ? mp->part : "");
}

/* Every PartitionPolicy= and DefaultPolicy=, in file order so that the
 * first bad line is the one reported. */
static int make_policies(struct machine *m, const struct routing *r,
			 struct err *err)
{
	bool dflt_done = !m->dflt.text;

	for (uint32_t i = 0; i < m->npols; i++) {
		if (!dflt_done && m->dflt.line < m->pols[i].line) {
			if (make_policy(m, &m->dflt, r, err))
				return -1;
			dflt_done = true;
		}
		if (make_policy(m, &m->pols[i], r, err))
			return -1;
	}
	return dflt_done ? 0 : make_policy(m, &m->dflt, r, err);
}

static int read_policies(struct machine *m, struct err *err)
{
	uint32_t n = topo_conf_num_partition_policies(m->conf);

	m->dflt.text = topo_conf_default_policy(m->conf);
	m->dflt.line = topo_conf_line(m->conf, TOPO_CONF_DEFAULT_POLICY);
	/* no policy line at all: every partition gets the family's */
	if (!n && !m->dflt.text)
		m->dflt.text = POLICY_DEFAULT;
	if (!n)
		return 0;
	m->pols = calloc(n, sizeof(*m->pols));
	if (!m->pols)
		return err_nomem(err, "%s: out of memory", m->source);
	for (uint32_t i = 0; i < n; i++)
		topo_conf_partition_policy(m->conf, i, &m->pols[i].part,
					   &m->pols[i].text, &m->pols[i].line);
	m->npols = n;
	return 0;
}

/* The routings of a file machine: the file's (checked at its Routing=
 * line), and ROUTING's when given. */
static int make_routings(struct machine *m, const char *routing,
			 struct err *err)
{
	const char *rspec = topo_conf_routing(m->conf);
	struct err sub = { 0 };
	struct routing *r;

	r = routing_create(m->topo, rspec ? rspec : routing_default(m->topo),
			   &sub);
	if (!r) {
		if (rspec)
			return err_from(err, &sub, "%s:%u", m->source,
					topo_conf_line(m->conf,
						       TOPO_CONF_ROUTING));
		return err_from(err, &sub, "%s", m->source);
	}
	if (!routing) {
		m->routing = r;
		return 0;
	}
	m->conf_rout = r;
	m->routing = routing_create(m->topo, routing, err);
	return m->routing ? 0 : -1;
}

const char *machine_predict_default(const struct topo *t,
				    const struct routing *r)
{
	if (topo_behaves_traits(t)->groups && r &&
	    !strcmp(routing_name(r), "ugal"))
		return MACHINE_PREDICT_UGAL;
	return "jm";
}

/* Predict= or the default, on the file's routing; PredictBudget= read
 * as whole milliseconds, 1 to MACHINE_PREDICT_BUDGET_MAX_MS. */
static int read_predict(struct machine *m, struct err *err)
{
	const char *b = topo_conf_predict_budget(m->conf);
	unsigned long ms;
	char *end;

	m->predict = topo_conf_predict(m->conf);
	m->predict_line = topo_conf_line(m->conf, TOPO_CONF_PREDICT);
	if (!m->predict)
		m->predict = machine_predict_default(
			m->topo, m->conf_rout ? m->conf_rout : m->routing);
	m->budget_ms = MACHINE_PREDICT_BUDGET_MS;
	if (!b)
		return 0;
	m->budget_line = topo_conf_line(m->conf, TOPO_CONF_PREDICT_BUDGET);
	errno = 0;
	ms = strtoul(b, &end, 10);
	if (strspn(b, "0123456789") != strlen(b) || *end || errno || ms < 1 ||
	    ms > MACHINE_PREDICT_BUDGET_MAX_MS)
		return err_set(err,
			       "%s:%u: PredictBudget=%s: want whole "
			       "milliseconds from 1 to %u",
			       m->source, m->budget_line, b,
			       MACHINE_PREDICT_BUDGET_MAX_MS);
	m->budget_ms = (uint32_t)ms;
	return 0;
}

/* Build the machine of parsed configuration CONF (taken). */
static struct machine *from_conf(const char *source, struct topo_conf *conf,
				 const char *routing, struct err *err)
{
	struct machine *m = machine_new(source, err);

	if (!m) {
		topo_conf_destroy(conf);
		return NULL;
	}
	m->conf = conf;
	m->topo = topo_conf_take_topo(conf);
	if (!m->topo) {
		err_set(err, "%s: no topology", source);
		goto fail;
	}
	if (make_routings(m, routing, err) || read_policies(m, err) ||
	    make_policies(m, m->conf_rout ? m->conf_rout : m->routing, err) ||
	    read_predict(m, err))
		goto fail;
	return m;
fail:
	machine_destroy(m);
	return NULL;
}

struct machine *machine_load(const char *path, const char *routing,
			     struct err *err)
{
	struct topo_conf *conf = topo_conf_load(path, err);

	return conf ? from_conf(path, conf, routing, err) : NULL;
}

struct machine *machine_parse(const char *name, const char *text,
			      const char *routing, struct err *err)
{
	struct topo_conf *conf = topo_conf_parse(name, text, err);

	return conf ? from_conf(name, conf, routing, err) : NULL;
}

struct machine *machine_from_spec(const char *spec, const char *routing,
				  struct err *err)
{
	struct machine *m = machine_new(NULL, err);

	if (!m)
		return NULL;
	m->topo = topo_create(spec, err);
	if (!m->topo)
		goto fail;
	m->routing = routing_create(
		m->topo, routing ? routing : routing_default(m->topo), err);
	if (!m->routing)
		goto fail;
	m->predict = machine_predict_default(m->topo, m->routing);
	m->budget_ms = MACHINE_PREDICT_BUDGET_MS;
	return m;
fail:
	machine_destroy(m);
	return NULL;
}

bool machine_arg_is_spec(const char *arg)
{
	size_t n = strcspn(arg, ": \t");

	for (const char *const *f = topo_family_names(); *f; f++)
		if (strlen(*f) == n && !strncmp(*f, arg, n))
			return true;
	return false;
}

/* Whether ARG, not a spec, reads as a path: a '/' or a ".conf" suffix. */
static bool looks_like_path(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 5 && !strcmp(arg + n - 5, ".conf"));
}

struct machine *machine_open(const char *arg, const char *routing,
			     struct err *err)
{
	struct stat st;

	if (machine_arg_is_spec(arg))
		return machine_from_spec(arg, routing, err);
	/* Not a family, and no file either: a mistyped family reads better
	 * as "unknown topology family" than as a missing file, unless the
	 * argument looks like a path. */
	if (!looks_like_path(arg) && stat(arg, &st) != 0 && errno == ENOENT)
		return machine_from_spec(arg, routing, err);
	return machine_load(arg, routing, err);
}

void machine_destroy(struct machine *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->npols; i++)
		policy_destroy(m->pols[i].p);
	free(m->pols);
	policy_destroy(m->dflt.p);
	routing_destroy(m->routing);
	routing_destroy(m->conf_rout);
	topo_destroy(m->topo);
	topo_conf_destroy(m->conf);
	free(m->source);
	free(m);
}

const struct topo *machine_topo(const struct machine *m)
{
	return m->topo;
}

const struct routing *machine_routing(const struct machine *m)
{
	return m->routing;
}

const char *machine_source(const struct machine *m)
{
	return m->source;
}

const char *machine_conf_routing(const struct machine *m)
{
	return m->conf ? topo_conf_routing(m->conf) : NULL;
}

const char *machine_wrap(const struct machine *m)
{
	return m->conf ? topo_conf_wrap(m->conf) : WRAP_DEFAULT;
}

bool machine_respect_isolation(const struct machine *m)
{
	return m->conf && topo_conf_respect_isolation(m->conf);
}

uint32_t machine_line(const struct machine *m, enum topo_conf_key key)
{
	return m->conf ? topo_conf_line(m->conf, key) : 0;
}

const char *machine_predict(const struct machine *m, uint32_t *line)
{
	if (line)
		*line = m->predict_line;
	return m->predict;
}

uint32_t machine_predict_budget(const struct machine *m, uint32_t *line)
{
	if (line)
		*line = m->budget_line;
	return m->budget_ms;
}

int machine_check_predict(const struct machine *m, machine_model_check_fn check,
			  struct err *err)
{
	struct err sub = { 0 };

	if (!check(m->predict, m->conf_rout ? m->conf_rout : m->routing, &sub))
		return 0;
	if (m->predict_line)
		return err_from(err, &sub, "%s:%u: Predict=%s", m->source,
				m->predict_line, m->predict);
	return err_from(err, &sub, "%s%sPredict=%s (the default)",
			m->source ? m->source : "", m->source ? ": " : "",
			m->predict);
}

bool machine_has_names(const struct machine *m)
{
	return m->conf && topo_conf_has_names(m->conf);
}

const char *machine_node_name(const struct machine *m, uint32_t i)
{
	return m->conf ? topo_conf_node_name(m->conf, i) : NULL;
}

uint32_t machine_node_index(const struct machine *m, const char *name)
{
	return m->conf ? topo_conf_node_index(m->conf, name) : TOPO_NONE;
}

static const struct policy *give(const struct mpolicy *mp, const char **text,
				 uint32_t *line)
{
	if (text)
		*text = mp ? mp->text : NULL;
	if (line)
		*line = mp ? mp->line : 0;
	return mp ? mp->p : NULL;
}

const struct policy *machine_policy(const struct machine *m,
				    const char *partition, const char **text,
				    uint32_t *line)
{
	for (uint32_t i = 0; partition && i < m->npols; i++)
		if (!strcmp(m->pols[i].part, partition))
			return give(&m->pols[i], text, line);
	return give(m->dflt.text ? &m->dflt : NULL, text, line);
}

uint32_t machine_num_partitions(const struct machine *m)
{
	return m->npols;
}

const struct policy *machine_partition(const struct machine *m, uint32_t i,
				       const char **partition,
				       const char **text, uint32_t *line)
{
	if (i >= m->npols) {
		if (partition)
			*partition = NULL;
		return give(NULL, text, line);
	}
	if (partition)
		*partition = m->pols[i].part;
	return give(&m->pols[i], text, line);
}
