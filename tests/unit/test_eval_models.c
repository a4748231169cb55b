/* test_eval_models.c - `stopo eval --model all` runs every registered
 * model, however many there are.
 *
 * The test links its own model registry in place of
 * evaluator/models/model_registry.c (which holds the table alone, so the
 * linker takes this definition and never pulls that file): the four real
 * models and two stand-ins, six in all, more than the four stopo eval used
 * to have room for.  Then it runs the real cmd_eval and counts the models
 * in its JSON. */
#include <criterion/criterion.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evaluator/cmd/cli.h"
#include "evaluator/models/model_impl.h"

/* The real models (model_hm.c, model_jm.c, model_lp.c, model_mmf.c). */
extern const struct model_ops model_hm, model_jm, model_mcf, model_mmf;

/* A stand-in model: every flow gets 1/4 on its first path. */
static int quarter_solve(const struct model_input *in,
			 const struct model_opts *o, struct model_result *res,
			 struct err *err)
{
	(void)o;
	(void)err;
	for (uint32_t i = 0; i < in->nflows; i++) {
		res->path_rates[in->flow_off[i]] = 0.25;
		res->rates[i] = 0.25;
	}
	return 0;
}

static const struct model_ops stand_in5 = {
	.name = "stand-in5",
	.solve = quarter_solve,
};

static const struct model_ops stand_in6 = {
	.name = "stand-in6",
	.solve = quarter_solve,
};

const struct model_ops *const model_table[] = {
	&model_hm,  &model_jm,	&model_mcf, &model_mmf,
	&stand_in5, &stand_in6, NULL,
};

/* Run `stopo eval ARGS...` with stdout in a temporary file; returns the
 * exit status and the output (caller frees) in *OUT. */
static int run_eval(char **out, int argc, char **argv)
{
	char path[] = "/tmp/test_eval_models.XXXXXX";
	int fd = mkstemp(path), saved, rc;
	long len;
	FILE *f;

	cr_assert_geq(fd, 0);
	fflush(stdout);
	saved = dup(STDOUT_FILENO);
	dup2(fd, STDOUT_FILENO);
	rc = cmd_eval(argc, argv);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(fd);
	f = fopen(path, "r");
	cr_assert(f);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	*out = calloc((size_t)len + 1, 1);
	cr_assert(*out);
	cr_assert_eq(fread(*out, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	unlink(path);
	return rc;
}

Test(eval_models, all_runs_every_registered_model)
{
	char *argv[] = { "eval",      "--topo", "fattree:k=2,n=2",
			 "--pattern", "perm:1", "--json",
			 NULL };
	char *out;
	struct json_object *o, *models;
	size_t n;

	cr_assert_eq(model_count(), 6);
	cr_assert_eq(run_eval(&out, 6, argv), 0, "%s", out);
	o = json_tokener_parse(out);
	cr_assert(o, "not JSON: %s", out);
	cr_assert(json_object_object_get_ex(o, "models", &models), "%s", out);
	n = json_object_array_length(models);
	cr_expect_eq(n, model_count(), "--model all ran %zu of %zu models", n,
		     model_count());
	for (size_t i = 0; i < n && i < model_count(); i++) {
		struct json_object *m, *name;

		m = json_object_array_get_idx(models, i);
		cr_assert(json_object_object_get_ex(m, "model", &name));
		cr_expect_str_eq(json_object_get_string(name), model_name(i));
	}
	json_object_put(o);
	free(out);
}

/* A model past the fourth is selectable by name too. */
Test(eval_models, one_model_by_name)
{
	char *argv[] = { "eval",      "--topo", "fattree:k=2,n=2",
			 "--pattern", "perm:1", "--model",
			 "stand-in6", "--csv",	NULL };
	char *out;

	cr_assert_eq(run_eval(&out, 8, argv), 0, "%s", out);
	cr_expect(!strncmp(out, "flow,src,dst,demand,paths,stand-in6\n", 36),
		  "%s", out);
	free(out);
}
