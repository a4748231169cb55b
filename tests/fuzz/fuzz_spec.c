/* fuzz_spec.c - the one spec grammar (topo/util/spec.c) under each of its
 * four syntaxes, then spec_check against an option table with a
 * positional option.  The first byte picks the syntax, the rest is the
 * spec.
 *
 * Checked: a parsed spec keeps the limits spec.h states (name, key and
 * value lengths, 16 items, no key twice), and its spec_format text parses
 * back to the same name and items. */
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz.h"
#include "topo/util/spec.h"

#define MAX_INPUT 4096

static const struct spec_opt opts[] = {
	{ .key = "x", .def = "1", .help = "positional", .positional = true },
	{ .key = "seed", .help = "no default" },
	{ .key = "dims", .def = "4x4", .help = "text" },
	{ 0 },
};

static void check_parsed(const struct spec *s)
{
	FUZZ_CHECK(s->name[0] && strlen(s->name) < SPEC_NAME_MAX, "name '%s'",
		   s->name);
	FUZZ_CHECK(s->n <= SPEC_MAX_ITEMS, "%zu items", s->n);
	for (size_t i = 0; i < s->n; i++) {
		const struct spec_item *it = &s->item[i];

		FUZZ_CHECK(strlen(it->key) < SPEC_KEY_MAX && it->value[0] &&
				   strlen(it->value) < SPEC_VALUE_MAX,
			   "item %zu '%s'='%s'", i, it->key, it->value);
		for (size_t j = 0; j < i && it->key[0]; j++)
			FUZZ_CHECK(strcmp(s->item[j].key, it->key),
				   "key '%s' twice", it->key);
	}
}

static void check_format(const struct spec *s, const struct spec_syntax *syn)
{
	char buf[SPEC_NAME_MAX +
		 SPEC_MAX_ITEMS * (SPEC_KEY_MAX + SPEC_VALUE_MAX + 2)];
	struct spec again;
	struct err err = { 0 };

	FUZZ_CHECK(!spec_format(buf, sizeof(buf), s->name, s, NULL),
		   "spec_format overflows %zu bytes", sizeof(buf));
	FUZZ_CHECK(!spec_parse(buf, syn, &again, &err),
		   "formatted '%s' does not parse: %s", buf, err.msg);
	FUZZ_CHECK(!strcmp(again.name, s->name) && again.n == s->n,
		   "formatted '%s' parses to another spec", buf);
	for (size_t i = 0; i < s->n; i++)
		FUZZ_CHECK(!strcmp(again.item[i].key, s->item[i].key) &&
				   !strcmp(again.item[i].value,
					   s->item[i].value),
			   "formatted '%s': item %zu differs", buf, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	struct spec_syntax syn = { 0, "item" };
	struct err err = { 0 };
	struct spec s;
	char *text, known[128];

	if (size > MAX_INPUT)
		return 0;
	syn.flags = fuzz_u8(&in) & (SPEC_BLANKS | SPEC_POSITIONAL);
	if (!(text = fuzz_rest(&in)))
		return 0;
	if (spec_parse(text, &syn, &s, &err)) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
		free(text);
		return 0;
	}
	check_parsed(&s);
	check_format(&s, &syn);
	err.msg[0] = '\0';
	if (spec_check(&s, opts, &syn, &err)) {
		FUZZ_CHECK_ERR(&err, NULL, 0);
	} else {
		for (size_t i = 0; i < s.n; i++)
			FUZZ_CHECK(s.item[i].key[0],
				   "checked item %zu has no key", i);
		FUZZ_CHECK(!strcmp(spec_value(&s, opts, "dims"),
				   spec_given(&s, "dims") ?
					   spec_given(&s, "dims") :
					   "4x4"),
			   "spec_value of dims");
	}
	spec_known_keys(opts, known, sizeof(known));
	free(text);
	return 0;
}
