/* test_spec.c - the one spec grammar (topo/util/spec.h): accepted forms
 * with the name and items they give, every error with its exact message,
 * and the option-table helpers (checking, defaults, canonical form, known
 * lists). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "topo/util/spec.h"

static const struct spec_syntax fam = { SPEC_BLANKS, "parameter" };
static const struct spec_syntax pol = { 0, "option" };
static const struct spec_syntax pat = { SPEC_POSITIONAL, "argument" };

/* C repeated LEN times into BUF (room for LEN + 1). */
static const char *rep(char *buf, char c, size_t len)
{
	memset(buf, c, len);
	buf[len] = '\0';
	return buf;
}

struct ok_case {
	const struct spec_syntax *syn;
	const char *text;
	const char *items; /* "name|k=v|k=v" of the parse, bare values as v */
};

static const struct ok_case oks[] = {
	{ &fam, "dragonfly", "dragonfly" },
	{ &fam, "dragonfly:p=2,a=4", "dragonfly|p=2|a=4" },
	/* topo.conf's form: blanks end the name and separate */
	{ &fam, "  dragonfly p=4 a=8", "dragonfly|p=4|a=8" },
	{ &fam, "dragonfly: p=2 ,\t:a=4,", "dragonfly|p=2|a=4" },
	{ &fam, "dragonfly :p=2", "dragonfly|p=2" },
	{ &fam, "dragonfly:", "dragonfly" },
	/* a value runs to the next separator: ':' and '=' are in it */
	{ &fam, "dragonfly:p=2:a=4", "dragonfly|p=2:a=4" },
	{ &pol, "mesh-blocks:block=a=b", "mesh-blocks|block=a=b" },
	/* without SPEC_BLANKS a blank is part of the name or value */
	{ &pol, "random seed=1", "random seed=1" },
	{ &pol, "random:seed=1 ", "random|seed=1 " },
	{ &pol, " random:seed=1", "random|seed=1" },
	/* empty items are skipped unless positional */
	{ &pol, "random:,seed=1,,x=2,", "random|seed=1|x=2" },
	{ &pol, "random:", "random" },
	{ &pat, "random:2,seed=3", "random|2|seed=3" },
	{ &pat, "random:2,", "random|2" },
	{ &pat, "stencil:dims=4x4,elements=8x8",
	  "stencil|dims=4x4|elements=8x8" },
	{ &pat, "transpose,seed=3", "transpose,seed=3" },
};

static void items_of(const struct spec *s, char *buf, size_t len)
{
	size_t off = (size_t)snprintf(buf, len, "%s", s->name);

	for (size_t i = 0; i < s->n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "|%s%s%s",
					s->item[i].key,
					s->item[i].key[0] ? "=" : "",
					s->item[i].value);
}

Test(spec, accepted_forms)
{
	for (size_t i = 0; i < sizeof(oks) / sizeof(oks[0]); i++) {
		struct spec s;
		struct err err = { 0 };
		char got[512];

		cr_assert_eq(spec_parse(oks[i].text, oks[i].syn, &s, &err), 0,
			     "'%s': %s", oks[i].text, err.msg);
		items_of(&s, got, sizeof(got));
		cr_expect_str_eq(got, oks[i].items, "'%s'", oks[i].text);
	}
}

Test(spec, limits_are_inclusive)
{
	char name[80], key[40], val[120], text[400];
	struct spec s;
	struct err err = { 0 };

	snprintf(text, sizeof(text), "%s:%s=%s", rep(name, 'n', 63),
		 rep(key, 'k', 31), rep(val, 'v', 95));
	cr_assert_eq(spec_parse(text, &pol, &s, &err), 0, "%s", err.msg);
	cr_expect_eq(strlen(s.name), 63);
	cr_expect_eq(strlen(s.item[0].key), 31);
	cr_expect_eq(strlen(s.item[0].value), 95);
	snprintf(text, sizeof(text), "p:%s", rep(val, 'v', 95));
	cr_assert_eq(spec_parse(text, &pat, &s, &err), 0, "%s", err.msg);
	cr_expect_eq(strlen(s.item[0].value), 95);
	cr_assert_eq(spec_parse("f:a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1,j=1,"
				"k=1,l=1,m=1,n=1,o=1,p=1",
				&fam, &s, &err),
		     0, "%s", err.msg);
	cr_expect_eq(s.n, SPEC_MAX_ITEMS);
}

struct bad_case {
	const struct spec_syntax *syn;
	const char *text;
	const char *msg; /* the exact message */
};

Test(spec, errors)
{
	char n64[80], k32[40], v96[120], name[200], key[200], val[200];
	const struct bad_case bad[] = {
		{ &fam, "", "empty name (want NAME[:key=value,...])" },
		{ &fam, NULL, "empty name (want NAME[:key=value,...])" },
		{ &fam, " \t ", "empty name (want NAME[:key=value,...])" },
		{ &fam, ":p=1", "empty name (want NAME[:key=value,...])" },
		{ &pol, ":seed=1", "empty name (want NAME[:key=value,...])" },
		{ &pol, name,
		  "name 'nnnnnnnnnnnnnnnnnnnn...' longer than 63 characters" },
		{ &fam, "dragonfly:p", "bad parameter 'p' (want key=value)" },
		{ &fam, "dragonfly p=2 a",
		  "bad parameter 'a' (want key=value)" },
		{ &pol, "random:seed", "bad option 'seed' (want key=value)" },
		{ &fam, "dragonfly:p=", "bad parameter 'p=' (empty value)" },
		{ &fam, "dragonfly:=2", "bad parameter '=2' (empty key)" },
		{ &pol, "random:=", "bad option '=' (empty key)" },
		{ &fam, key,
		  "bad parameter 'kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk' (key longer "
		  "than 31 characters)" },
		{ &fam, val, "parameter 'p': value longer than 95 characters" },
		{ &pat, "random:a=1,a=2", "argument 'a' given twice" },
		{ &fam, "dragonfly p=2 a=4 p=3", "parameter 'p' given twice" },
		{ &fam,
		  "f:a=1,b=1,c=1,d=1,e=1,f=1,g=1,h=1,i=1,j=1,k=1,l=1,m=1,"
		  "n=1,o=1,p=1,q=1",
		  "too many parameters (at most 16)" },
		/* positional: first item only, no empty items */
		{ &pat, "random:", "empty argument list after 'random:'" },
		{ &pat, "random:2,,seed=1",
		  "empty argument in 'random:2,,seed=1'" },
		{ &pat, "random:,2", "empty argument in 'random:,2'" },
		{ &pat, "random:seed=1,2",
		  "bad argument '2' (want key=value)" },
		{ &pat, "random:2,3", "bad argument '3' (want key=value)" },
		{ &pat, "random:2=", "bad argument '2=' (empty value)" },
	};

	rep(n64, 'n', 64);
	snprintf(name, sizeof(name), "%s:seed=1", n64);
	snprintf(key, sizeof(key), "dragonfly:%s=1", rep(k32, 'k', 32));
	snprintf(val, sizeof(val), "dragonfly:p=%s", rep(v96, 'v', 96));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct spec s;
		struct err err = { 0 };

		cr_expect_eq(spec_parse(bad[i].text, bad[i].syn, &s, &err), -1,
			     "'%s' accepted", bad[i].text);
		cr_expect_str_eq(err.msg, bad[i].msg, "'%s'", bad[i].text);
	}
}

Test(spec, bare_value_too_long)
{
	char v96[120], text[200];
	struct spec s;
	struct err err = { 0 };

	snprintf(text, sizeof(text), "random:%s", rep(v96, '7', 96));
	cr_expect_eq(spec_parse(text, &pat, &s, &err), -1);
	cr_expect_str_eq(err.msg, "bare argument longer than 95 characters");
}

/* A NULL err is allowed: the call still fails. */
Test(spec, null_err)
{
	struct spec s;

	cr_expect_eq(spec_parse("x:y", &fam, &s, NULL), -1);
}

/* ---- option tables ---- */

static const struct spec_opt random_opts[] = {
	{ .key = "x", .def = "1", .help = "destinations", .positional = true },
	{ .key = "seed", .help = "seed (default: the caller's)" },
	{ 0 },
};

struct check_case {
	const char *text;
	const struct spec_opt *opts;
	const char *msg;   /* exact error, or NULL */
	const char *canon; /* spec_format with OPTS when accepted */
};

static const struct check_case checks[] = {
	{ "random", random_opts, NULL, "random:x=1" },
	{ "random:2", random_opts, NULL, "random:x=2" },
	{ "random:seed=5,x=3", random_opts, NULL, "random:x=3,seed=5" },
	{ "random:2,seed=5", random_opts, NULL, "random:x=2,seed=5" },
	{ "random:2,x=3", random_opts, "give x once (as '2' or as x=3)", NULL },
	{ "random:colour=3", random_opts,
	  "unknown argument 'colour' (known: x, seed)", NULL },
	{ "alltoall:3", NULL, "unexpected argument '3'", NULL },
	{ "alltoall:a=1", NULL, "unknown argument 'a' (known: none)", NULL },
	{ "alltoall", NULL, NULL, "alltoall" },
};

Test(spec, check_and_format)
{
	for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); i++) {
		const struct check_case *c = &checks[i];
		struct spec s;
		struct err err = { 0 };
		char buf[128];
		int rc;

		cr_assert_eq(spec_parse(c->text, &pat, &s, &err), 0, "%s",
			     err.msg);
		rc = spec_check(&s, c->opts, &pat, &err);
		if (c->msg) {
			cr_expect_eq(rc, -1, "'%s' accepted", c->text);
			cr_expect_str_eq(err.msg, c->msg);
			continue;
		}
		cr_assert_eq(rc, 0, "'%s': %s", c->text, err.msg);
		cr_expect_eq(spec_format(buf, sizeof(buf), s.name, &s, c->opts),
			     0);
		cr_expect_str_eq(buf, c->canon);
	}
}

/* Specs built item by item (topo_create_family's parameter arrays) are
 * checked for duplicates too. */
Test(spec, check_finds_duplicates)
{
	struct spec s = { .name = "random", .n = 2 };
	struct err err = { 0 };

	snprintf(s.item[0].key, sizeof(s.item[0].key), "seed");
	snprintf(s.item[1].key, sizeof(s.item[1].key), "seed");
	cr_expect_eq(spec_check(&s, random_opts, &pat, &err), -1);
	cr_expect_str_eq(err.msg, "argument 'seed' given twice");
}

Test(spec, values_and_defaults)
{
	struct spec s;

	cr_assert_eq(spec_parse("random:seed=9", &pat, &s, NULL), 0);
	cr_expect_str_eq(spec_value(&s, random_opts, "seed"), "9");
	cr_expect_str_eq(spec_value(&s, random_opts, "x"), "1");
	cr_expect_null(spec_given(&s, "x"));
	cr_expect_null(spec_value(&s, random_opts, "nosuch"));
	cr_expect_str_eq(spec_value(NULL, random_opts, "x"), "1");
	cr_expect_null(spec_value(NULL, random_opts, "seed"));
	cr_expect_eq(spec_nopts(random_opts), 2);
	cr_expect_eq(spec_nopts(NULL), 0);
}

/* With no table, the canonical form is the items as given. */
Test(spec, format_as_given)
{
	struct spec s;
	char buf[64], small[12];

	cr_assert_eq(spec_parse("dragonfly h=1 p=3", &fam, &s, NULL), 0);
	cr_expect_eq(spec_format(buf, sizeof(buf), "dragonfly", &s, NULL), 0);
	cr_expect_str_eq(buf, "dragonfly:h=1,p=3");
	cr_assert_eq(spec_parse("random:2,seed=3", &pat, &s, NULL), 0);
	cr_expect_eq(spec_format(buf, sizeof(buf), "random", &s, NULL), 0);
	cr_expect_str_eq(buf, "random:2,seed=3");
	cr_expect_eq(spec_format(small, sizeof(small), "random", &s, NULL), -1);
	cr_expect_str_eq(small, "random:2,se");
}

static const char *three(size_t i)
{
	static const char *const n[] = { "a", "b-c", "d", NULL };

	return i < 3 ? n[i] : NULL;
}

static const char *none(size_t i)
{
	(void)i;
	return NULL;
}

Test(spec, known_lists)
{
	char buf[32], tiny[5];

	cr_expect_str_eq(spec_known_names(three, buf, sizeof(buf)),
			 "a, b-c, d");
	cr_expect_str_eq(spec_known_names(none, buf, sizeof(buf)), "none");
	cr_expect_str_eq(spec_known_names(three, tiny, sizeof(tiny)), "a, b");
	cr_expect_str_eq(spec_known_keys(random_opts, buf, sizeof(buf)),
			 "x, seed");
	cr_expect_str_eq(spec_known_keys(NULL, buf, sizeof(buf)), "none");
}
