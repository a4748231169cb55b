/* spec.h - the one grammar of every spec string (topology families,
 * routings, models, policies, traffic patterns), and the option table each
 * registry entry declares.
 *
 *	spec  = name [ ":" items ]
 *	items = item *( "," item )
 *	item  = key "=" value
 *	      | value                  (first item only, with SPEC_POSITIONAL)
 *
 * Leading blanks are skipped.  A name runs to the ':', a key to the first
 * '=', a value to the next ',' (so "p=2:a=4" is key p, value "2:a=4").
 * A registry picks two switches (struct spec_syntax):
 *   SPEC_BLANKS      blanks also end the name and separate items, and any
 *                    run of separators (blanks, ',' and ':') counts as one,
 *                    as topo.conf writes "Topology=dragonfly p=4 a=8";
 *   SPEC_POSITIONAL  the first item may be a bare value ("random:2",
 *                    "shift:3"), which an option table maps onto its
 *                    positional option; empty items are then errors (they
 *                    would shift the positions).
 * Otherwise empty items (",,", a trailing ',') are skipped.
 *
 * Limits: names up to 63 characters, keys 31, values 95, 16 items.
 *
 * A registry entry declares its options once, in a table ending with
 * { 0 }:
 *	static const struct spec_opt opts[] = {
 *		{ .key = "p", .def = "2", .help = "nodes per router" },
 *		{ 0 },
 *	};
 * and derives from it the option checking (spec_check), the defaults
 * (spec_value) and the canonical spec (spec_format); the names of its
 * entries give the "(known: ...)" list of its unknown-name error
 * (spec_known_names).
 */
#ifndef STOPO_SPEC_H
#define STOPO_SPEC_H

#include <stdbool.h>
#include <stddef.h>

#include "topo/util/err.h"

#define SPEC_NAME_MAX 64 /* buffer sizes, terminating NUL included */
#define SPEC_KEY_MAX 32
#define SPEC_VALUE_MAX 96
#define SPEC_MAX_ITEMS 16

enum spec_flags {
	SPEC_BLANKS = 1 << 0,
	SPEC_POSITIONAL = 1 << 1,
};

/* How one registry writes its specs: the switches above and what an item
 * is called in messages ("parameter", "option", "argument"). */
struct spec_syntax {
	unsigned flags;
	const char *noun;
};

struct spec_item {
	char key[SPEC_KEY_MAX]; /* "" for a positional value */
	char value[SPEC_VALUE_MAX];
};

/* A parsed spec: the name and the items in the order given. */
struct spec {
	char name[SPEC_NAME_MAX];
	struct spec_item item[SPEC_MAX_ITEMS];
	size_t n;
};

/* One option of a registry entry.  A table ends with { 0 } (key NULL). */
struct spec_opt {
	const char *key;
	/* Default value; NULL when the option has none (required, or
	 * computed by the entry: help says which). */
	const char *def;
	const char *help; /* one line for humans */
	/* The bare first item of a SPEC_POSITIONAL spec sets this option
	 * (at most one per table). */
	bool positional;
};

/* Parse TEXT by SYN into OUT.  Returns 0, or -1 with err set to what is
 * wrong, without context: "empty name (want NAME[:key=value,...])",
 * "bad parameter 'p' (want key=value)", "parameter 'p' given twice",
 * "too many parameters (at most 16)" ... (the caller prefixes what the
 * spec was for). */
int spec_parse(const char *text, const struct spec_syntax *syn,
	       struct spec *out, struct err *err);

/* Check S against OPTS (NULL: no options): every key must be an option of
 * OPTS ("unknown option 'k' (known: a, b)"), given once; a positional value
 * becomes the item of OPTS's positional option ("unexpected option 'v'"
 * when there is none).  SYN gives the noun of the messages.  Returns 0 or
 * -1 with err set. */
int spec_check(struct spec *s, const struct spec_opt *opts,
	       const struct spec_syntax *syn, struct err *err);

/* Value of option KEY: as given in S (may be NULL), else its default in
 * OPTS, else NULL.  Borrowed from S or OPTS. */
const char *spec_value(const struct spec *s, const struct spec_opt *opts,
		       const char *key);

/* Value of KEY as given in S, or NULL (no defaults).  Borrowed from S. */
const char *spec_given(const struct spec *s, const char *key);

/* Number of options of OPTS (0 for NULL). */
size_t spec_nopts(const struct spec_opt *opts);

/* The canonical spec into BUF (LEN bytes): NAME, then ":key=value" and
 * ",key=value" for every option of OPTS in table order with its
 * spec_value (options without one are left out); with OPTS NULL, S's
 * items as given.  Returns 0, or -1 when BUF was too small (it then holds
 * as much as fits). */
int spec_format(char *buf, size_t len, const char *name, const struct spec *s,
		const struct spec_opt *opts);

/* The keys of OPTS as "a, b, c" ("none" when there are none) into BUF.
 * Returns BUF. */
const char *spec_known_keys(const struct spec_opt *opts, char *buf, size_t len);

/* Name of entry I of a registry, NULL past the last one. */
typedef const char *(*spec_name_fn)(size_t i);

/* The names NAME_AT(0), NAME_AT(1) ... up to the first NULL, as "a, b, c"
 * ("none" when there are none), into BUF: the list of an "unknown X
 * (known: ...)" error.  Returns BUF. */
const char *spec_known_names(spec_name_fn name_at, char *buf, size_t len);

#endif
