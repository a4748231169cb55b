/* test_machine.c - the machine: from a spec and from a topo.conf, the
 * routing from Routing= or from the caller, node names, the policy of
 * each partition with its line, and every error with its exact
 * "PATH:LINE: message".  Fixtures live in tests/data/ (SRCDIR is the
 * source tree). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policies/machine/machine.h"

static void data_path(char *buf, size_t len, const char *file)
{
	int n = snprintf(buf, len, "%s/tests/data/%s", SRCDIR, file);

	cr_assert(n > 0 && (size_t)n < len, "path too long: %s", file);
}

/* Load fixture FILE with ROUTING; the topology passes topo_check. */
static struct machine *load(const char *file, const char *routing)
{
	char path[1024];
	struct err err = { 0 };
	struct machine *m;

	data_path(path, sizeof(path), file);
	m = machine_load(path, routing, &err);
	cr_assert_not_null(m, "%s: %s", file, err.msg);
	cr_assert_eq(topo_check(machine_topo(m), &err), 0, "%s: %s", file,
		     err.msg);
	cr_assert_str_eq(machine_source(m), path);
	return m;
}

Test(machine, from_spec)
{
	struct err err = { 0 };
	struct machine *m =
		machine_from_spec("dragonfly:p=2,a=4,h=2,g=9", NULL, &err);
	const char *text = "x", *part = "x";
	uint32_t line = 99;

	cr_assert_not_null(m, "%s", err.msg);
	cr_assert_eq(topo_check(machine_topo(m), &err), 0, "%s", err.msg);
	cr_expect_str_eq(topo_spec(machine_topo(m)),
			 "dragonfly:p=2,a=4,h=2,g=9");
	cr_expect_str_eq(routing_spec(machine_routing(m)), "ugal:intra=local");
	cr_expect_eq(routing_topo(machine_routing(m)), machine_topo(m));
	cr_expect_null(machine_source(m));
	cr_expect_null(machine_conf_routing(m));
	cr_expect_str_eq(machine_wrap(m), "select/cons_tres");
	cr_expect_eq(machine_line(m, TOPO_CONF_TOPOLOGY), 0);
	cr_expect(!machine_has_names(m));
	cr_expect_null(machine_node_name(m, 0));
	cr_expect_eq(machine_node_index(m, "nid0000"), TOPO_NONE);
	cr_expect_null(machine_policy(m, "batch", &text, &line));
	cr_expect_null(text);
	cr_expect_eq(line, 0);
	cr_expect_eq(machine_num_partitions(m), 0);
	cr_expect_null(machine_partition(m, 0, &part, &text, &line));
	cr_expect_null(part);
	machine_destroy(m);
	/* an explicit routing */
	m = machine_from_spec("fattree:k=4,n=3", "dmodk", &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_str_eq(routing_spec(machine_routing(m)), "dmodk");
	machine_destroy(m);
	machine_destroy(NULL);
}

/* good_dragonfly.conf: Topology= line 2, Routing=ugal:intra=local line 3,
 * NodeName=nid[0000-0071] line 4, PartitionPolicy= batch line 10 and
 * debug line 11, DefaultPolicy=random:seed=7 line 12. */
Test(machine, from_file)
{
	struct machine *m = load("good_dragonfly.conf", NULL);
	const struct policy *p;
	const char *text, *part;
	uint32_t line;
	char name[16];

	cr_expect_str_eq(topo_spec(machine_topo(m)),
			 "dragonfly:p=2,a=4,h=2,g=9");
	cr_expect_str_eq(routing_spec(machine_routing(m)), "ugal:intra=local");
	cr_expect_str_eq(machine_conf_routing(m), "ugal:intra=local");
	cr_expect_str_eq(machine_wrap(m), "select/cons_tres");
	cr_expect_eq(machine_line(m, TOPO_CONF_TOPOLOGY), 2);
	cr_expect_eq(machine_line(m, TOPO_CONF_ROUTING), 3);
	cr_expect_eq(machine_line(m, TOPO_CONF_NODENAME), 4);
	cr_expect_eq(machine_line(m, TOPO_CONF_DEFAULT_POLICY), 12);
	cr_expect_eq(machine_line(m, TOPO_CONF_WRAP), 0);
	cr_expect(machine_has_names(m));
	for (uint32_t i = 0; i < 72; i++) {
		snprintf(name, sizeof(name), "nid%04u", i);
		cr_expect_str_eq(machine_node_name(m, i), name);
		cr_expect_eq(machine_node_index(m, name), i);
	}
	cr_expect_null(machine_node_name(m, 72));
	cr_expect_eq(machine_node_index(m, "nid0072"), TOPO_NONE);

	/* the policy of each partition, and the default, with its line */
	static const struct {
		const char *part, *name, *text;
		uint32_t line;
	} want[] = {
		{ "batch", "dragonfly-groups", "dragonfly-groups", 10 },
		{ "debug", "clustered", "clustered:scatter=4", 11 },
		{ "other", "random", "random:seed=7", 12 },
		{ NULL, "random", "random:seed=7", 12 },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		p = machine_policy(m, want[i].part, &text, &line);
		cr_assert_not_null(p, "%s", want[i].part);
		cr_expect_str_eq(policy_name(p), want[i].name);
		cr_expect_str_eq(text, want[i].text);
		cr_expect_eq(line, want[i].line, "%s", want[i].part);
	}
	cr_expect_eq(machine_policy(m, "batch", NULL, NULL),
		     machine_policy(m, "batch", NULL, NULL));
	cr_expect_eq(machine_num_partitions(m), 2);
	p = machine_partition(m, 1, &part, &text, &line);
	cr_assert_not_null(p);
	cr_expect_str_eq(part, "debug");
	cr_expect_str_eq(text, "clustered:scatter=4");
	cr_expect_eq(line, 11);
	cr_expect_null(machine_partition(m, 2, NULL, NULL, NULL));
	machine_destroy(m);
}

/* The caller's routing wins over Routing=; the file's policies stay
 * checked against (and bound to) the file's routing, so a routing they do
 * not support is still a what-if stopo can run. */
Test(machine, routing_override)
{
	struct machine *m = load("good_dragonfly.conf", "min");
	const struct policy *p;

	cr_expect_str_eq(routing_spec(machine_routing(m)), "min");
	cr_expect_str_eq(machine_conf_routing(m), "ugal:intra=local");
	machine_destroy(m);
	m = load("good_dragonfly.conf", "shortest");
	cr_expect_str_eq(routing_spec(machine_routing(m)), "shortest");
	p = machine_policy(m, "batch", NULL, NULL);
	cr_assert_not_null(p);
	cr_expect_str_eq(policy_name(p), "dragonfly-groups");
	machine_destroy(m);
	/* no Routing=: the family's default, or the caller's */
	m = load("good_fattree.conf", NULL);
	cr_expect_str_eq(routing_spec(machine_routing(m)), "ecmp");
	cr_expect_null(machine_conf_routing(m));
	/* no policy line: every partition gets the family's default */
	{
		const char *text = NULL;
		uint32_t line = 7;

		p = machine_policy(m, "batch", &text, &line);
		cr_assert_not_null(p);
		cr_expect_str_eq(policy_name(p), "fattree-pods");
		cr_expect_str_eq(text, "default");
		cr_expect_eq(line, 0);
	}
	machine_destroy(m);
	m = load("good_fattree.conf", "dmodk");
	cr_expect_str_eq(routing_spec(machine_routing(m)), "dmodk");
	machine_destroy(m);
}

Test(machine, wrap_and_parse)
{
	struct err err = { 0 };
	struct machine *m = load("good_wrap_linear.conf", NULL);
	uint32_t line;

	cr_expect_str_eq(machine_wrap(m), "select/linear");
	cr_expect_eq(machine_line(m, TOPO_CONF_WRAP), 4);
	machine_destroy(m);
	m = machine_parse("t.conf",
			  "Topology=graph\n"
			  "SwitchName=s0 Nodes=n[0-1] Links=s1\n"
			  "SwitchName=s1 Nodes=n[2-3]\n"
			  "DefaultPolicy=linear\n",
			  NULL, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_str_eq(machine_source(m), "t.conf");
	cr_expect_eq(machine_node_index(m, "n3"), 3);
	cr_expect_eq(machine_line(m, TOPO_CONF_NODENAME), 2);
	cr_expect_str_eq(routing_spec(machine_routing(m)), "shortest");
	cr_expect_not_null(machine_policy(m, "any", NULL, &line));
	cr_expect_eq(line, 4);
	machine_destroy(m);
}

/* A model check standing for model_check (a layer above the machine):
 * jm and mcf without options. */
static int fake_check(const char *spec, const struct routing *r,
		      struct err *err)
{
	(void)r;
	if (!strcmp(spec, "jm") || !strcmp(spec, "mcf"))
		return 0;
	return err_set(err, "fake check: no model '%s'", spec);
}

static int refuse_all(const char *spec, const struct routing *r,
		      struct err *err)
{
	(void)r;
	return err_set(err, "refused '%s'", spec);
}

/* Predict= and PredictBudget= with their lines; without them the default
 * model of machine_predict_default (ugal5 on a dragonfly or Cascade
 * routed ugal, the UGAL-G model make validate finds closest to simulated
 * UGAL-G, with the fewest variables; jm elsewhere) and
 * MACHINE_PREDICT_BUDGET_MS. */
Test(machine, predict)
{
	static const struct {
		const char *spec, *routing, *model;
	} specs[] = {
		{ "dragonfly:p=2,a=4,h=2,g=9", NULL, "ugal5" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "ugal:intra=global", "ugal5" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "min", "jm" },
		{ "dragonfly:p=2,a=4,h=2,g=9", "vlb", "jm" },
		{ "cascade", NULL, "ugal5" },
		{ "cascade", "min", "jm" },
		{ "fattree:k=4,n=3", "dmodk", "jm" },
		{ "expressmesh:dims=4x4,gap=2,p=1", NULL, "jm" },
		{ "torus:dims=4x4,p=1", NULL, "jm" },
	};
	struct err err = { 0 };
	struct machine *m = load("good_predict.conf", NULL);
	uint32_t line = 99;

	cr_expect_str_eq(machine_predict(m, &line), "mcf");
	cr_expect_eq(line, 5);
	cr_expect_eq(machine_predict_budget(m, &line), 200);
	cr_expect_eq(line, 6);
	cr_expect_eq(machine_line(m, TOPO_CONF_PREDICT), 5);
	cr_expect_eq(machine_line(m, TOPO_CONF_PREDICT_BUDGET), 6);
	cr_expect_eq(machine_check_predict(m, fake_check, &err), 0, "%s",
		     err.msg);
	machine_destroy(m);
	/* the defaults: ugal5 (Routing=ugal:intra=local) within 50 ms,
	 * lines 0 */
	m = load("good_dragonfly.conf", NULL);
	cr_expect_str_eq(machine_predict(m, &line), "ugal5");
	cr_expect_eq(line, 0);
	cr_expect_eq(machine_predict_budget(m, &line), 50);
	cr_expect_eq(line, 0);
	cr_expect_eq(machine_check_predict(m, refuse_all, &err), -1);
	cr_expect(strstr(err.msg, "Predict=ugal5 (the default): refused"), "%s",
		  err.msg);
	cr_expect_eq(machine_predict(m, NULL),
		     machine_predict_default(machine_topo(m),
					     machine_routing(m)));
	machine_destroy(m);
	for (size_t i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
		m = machine_from_spec(specs[i].spec, specs[i].routing, &err);
		cr_assert_not_null(m, "%s: %s", specs[i].spec, err.msg);
		cr_expect_str_eq(machine_predict_default(machine_topo(m),
							 machine_routing(m)),
				 specs[i].model, "%s %s", specs[i].spec,
				 specs[i].routing ? specs[i].routing : "");
		cr_expect_str_eq(machine_predict(m, &line), specs[i].model);
		cr_expect_eq(line, 0);
		cr_expect_eq(machine_predict_budget(m, NULL), 50);
		machine_destroy(m);
	}
}

/* machine_check_predict: "PATH:LINE: Predict=SPEC: why", why being the
 * check's message; the default has no line. */
Test(machine, check_predict)
{
	static const struct {
		const char *file, *msg;
	} bad[] = {
		{ "bad_predict_model.conf",
		  ":3: Predict=nosuch: fake check: no model 'nosuch'" },
		{ "bad_predict_option.conf",
		  ":2: Predict=mcf:x=1: fake check: no model 'mcf:x=1'" },
	};
	char path[1024], want[1200];
	struct err err = { 0 };
	struct machine *m;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m = load(bad[i].file, NULL);
		cr_expect_eq(machine_check_predict(m, fake_check, &err), -1);
		snprintf(want, sizeof(want), "%s%s", machine_source(m),
			 bad[i].msg);
		cr_expect_str_eq(err.msg, want);
		machine_destroy(m);
	}
	m = load("good_fattree.conf", NULL);
	cr_expect_eq(machine_check_predict(m, refuse_all, &err), -1);
	data_path(path, sizeof(path), "good_fattree.conf");
	snprintf(want, sizeof(want),
		 "%s: Predict=jm (the default): refused "
		 "'jm'",
		 path);
	cr_expect_str_eq(err.msg, want);
	machine_destroy(m);
	m = machine_from_spec("fattree:k=4,n=2", NULL, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_eq(machine_check_predict(m, refuse_all, &err), -1);
	cr_expect_str_eq(err.msg, "Predict=jm (the default): refused 'jm'");
	machine_destroy(m);
}

/* machine_open: a spec when the text before ':' (or a blank) is a
 * registered family, else a file, whatever the working directory holds. */
Test(machine, open)
{
	char path[1024], dir[] = "/tmp/test_machine.XXXXXX", cwd[1024];
	struct err err = { 0 };
	struct machine *m;
	FILE *f;

	data_path(path, sizeof(path), "good_fattree.conf");
	cr_expect(!machine_arg_is_spec(path));
	cr_expect(machine_arg_is_spec("fattree:k=4,n=2"));
	cr_expect(machine_arg_is_spec("dragonfly p=2 a=4 h=2 g=9"));
	cr_expect(machine_arg_is_spec("cascade"));
	cr_expect(!machine_arg_is_spec("./fattree"));
	cr_expect(!machine_arg_is_spec("fattre"));
	cr_expect(!machine_arg_is_spec("site.conf"));
	cr_expect(!machine_arg_is_spec("graph"));
	cr_expect(!machine_arg_is_spec("/etc/slurm/topo.conf"));
	m = machine_open(path, NULL, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_str_eq(machine_source(m), path);
	cr_expect(machine_has_names(m));
	machine_destroy(m);

	/* a file called fattree in the working directory changes nothing */
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chdir(dir), 0);
	f = fopen("fattree", "w");
	cr_assert_not_null(f);
	fputs("Topology=dragonfly p=1 a=2 h=1 g=3\n", f);
	fclose(f);
	m = machine_open("fattree", NULL, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_null(machine_source(m));
	cr_expect_str_eq(topo_family(machine_topo(m)), "fattree");
	machine_destroy(m);
	m = machine_open("./fattree", NULL, &err);
	cr_assert_not_null(m, "%s", err.msg);
	cr_expect_str_eq(machine_source(m), "./fattree");
	cr_expect_str_eq(topo_family(machine_topo(m)), "dragonfly");
	machine_destroy(m);
	/* neither a family nor a file: said as an unknown family unless it
	 * looks like a path */
	cr_expect_null(machine_open("fattre:k=4", NULL, &err));
	cr_expect_str_eq(
		err.msg,
		"unknown topology family 'fattre' (known: dragonfly, cascade, fattree, expressmesh, hyperx, torus, jellyfish)");
	cr_expect_null(machine_open("nothere.conf", NULL, &err));
	cr_expect_str_eq(err.msg, "nothere.conf: cannot open: No such file or "
				  "directory");
	unlink("fattree");
	cr_assert_eq(chdir(cwd), 0);
	rmdir(dir);
}

struct bad_case {
	const char *file; /* fixture, or NULL: SPEC */
	const char *spec;
	const char *routing;
	const char *msg; /* exact; after PATH when it starts with ':' */
};

static const struct bad_case bad[] = {
	{ "bad_policy_unknown.conf", NULL, NULL,
	  ":3: policy 'nosuch:x=1': unknown policy 'nosuch' (known: linear, "
	  "clustered, random, fattree-pods, mesh-blocks, dragonfly-groups, dragonfly-balanced, nne)" },
	{ "bad_policy_option.conf", NULL, NULL,
	  ":4: policy 'clustered:max=4' of partition debug: policy "
	  "clustered: unknown option 'max' (known: seed, scatter)" },
	{ "bad_policy_topology.conf", NULL, NULL,
	  ":3: policy 'dragonfly-groups' of partition batch: policy "
	  "dragonfly-groups: topology fattree is not a dragonfly or "
	  "cascade" },
	{ "bad_policy_routing.conf", NULL, NULL,
	  ":4: policy 'dragonfly-groups' of partition batch: policy "
	  "dragonfly-groups: routing shortest is not supported (min, vlb, "
	  "ugal)" },
	/* the caller's routing does not hide a bad file */
	{ "bad_policy_routing.conf", NULL, "min",
	  ":4: policy 'dragonfly-groups' of partition batch: policy "
	  "dragonfly-groups: routing shortest is not supported (min, vlb, "
	  "ugal)" },
	{ "bad_policy_order.conf", NULL, NULL,
	  ":4: policy 'clustered:seed=x': policy clustered: option seed=x: "
	  "expected an integer in [0, 2147483647]" },
	{ "bad_routing_family.conf", NULL, NULL,
	  ":3: routing 'ugal' does not apply to fattree; use ecmp, dmodk, "
	  "ksp or shortest" },
	{ "bad_routing_family.conf", NULL, "ecmp",
	  ":3: routing 'ugal' does not apply to fattree; use ecmp, dmodk, "
	  "ksp or shortest" },
	{ "bad_routing_option.conf", NULL, NULL,
	  ":2: routing 'ugal': intra=nowhere: must be 'local' or 'global'" },
	{ "bad_node_count.conf", NULL, NULL,
	  ":3: NodeName= names 3 nodes but the topology has 4" },
	/* PredictBudget=: whole milliseconds, 1 to 60000 */
	{ "bad_budget_value.conf", NULL, NULL,
	  ":3: PredictBudget=50ms: want whole milliseconds from 1 to 60000" },
	{ "bad_budget_zero.conf", NULL, NULL,
	  ":3: PredictBudget=0: want whole milliseconds from 1 to 60000" },
	{ "bad_budget_large.conf", NULL, NULL,
	  ":2: PredictBudget=60001: want whole milliseconds from 1 to "
	  "60000" },
	/* a bad ROUTING argument is the caller's: no file:line */
	{ "good_fattree.conf", NULL, "ugal",
	  "routing 'ugal' does not apply to fattree; use ecmp, dmodk, ksp or "
	  "shortest" },
	{ NULL, "nosuch:a=1", NULL,
	  "unknown topology family 'nosuch' (known: dragonfly, cascade, fattree, expressmesh, hyperx, torus, jellyfish)" },
	{ NULL, "", NULL, "empty topology spec" },
	{ NULL, "dragonfly:p=2,a=4,h=2,g=9", "bogus",
	  "unknown routing 'bogus' (known: min, vlb, ugal, ecmp, dmodk, dor, "
	  "minimal, ksp, shortest, lft)" },
	{ NULL, "dragonfly:p=2,a=4,h=2,g=9", "ecmp",
	  "routing 'ecmp' does not apply to dragonfly; use min, vlb, ugal, "
	  "ksp or shortest" },
};

/* One process for the whole table (valgrind runs each test process). */
Test(machine, errors)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const struct bad_case *c = &bad[i];
		char path[1024], want[1300];
		struct err err = { 0 };
		struct machine *m;

		if (c->file) {
			data_path(path, sizeof(path), c->file);
			m = machine_load(path, c->routing, &err);
			snprintf(want, sizeof(want), "%s%s",
				 c->msg[0] == ':' ? path : "", c->msg);
		} else {
			m = machine_from_spec(c->spec, c->routing, &err);
			snprintf(want, sizeof(want), "%s", c->msg);
		}
		cr_expect_null(m, "case %zu accepted", i);
		machine_destroy(m);
		cr_expect_str_eq(err.msg, want, "case %zu: got '%s'", i,
				 err.msg);
	}
	{
		struct err err = { 0 };

		cr_expect_null(machine_load("/nonexistent/x.conf", NULL, &err));
		cr_expect_str_eq(err.msg, "/nonexistent/x.conf: cannot open: "
					  "No such file or directory");
		cr_expect_null(machine_parse("p.conf",
					     "Topology=fattree\n"
					     "Routing=min\n",
					     NULL, &err));
		cr_expect_str_eq(err.msg, "p.conf:2: routing 'min' does not "
					  "apply to fattree; use ecmp, dmodk, "
					  "ksp or shortest");
	}
}
