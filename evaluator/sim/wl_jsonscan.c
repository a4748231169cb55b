/* wl_jsonscan.c - what json-c accepts and JSON does not allow, found by
 * a scan of the text json-c accepted: a key repeated in one object, a
 * comment, an escaped NUL in a string. */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "evaluator/sim/wl_impl.h"

/* A key of an object being scanned: its text (decoded when it has
 * escapes, then owned) and where its token starts. */
struct jkey {
	const char *s;
	size_t len, off;
	char *own;
};

static int cmp_jkey(const void *a, const void *b)
{
	const struct jkey *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* The keys of one object: sorted, a repeat is adjacent (the later token
 * second).  Returns the index of the repeat's second token, or -1. */
static long repeated_key(struct jkey *k, size_t n)
{
	long best = -1;

	if (n > 1)
		qsort(k, n, sizeof(*k), cmp_jkey);
	for (size_t i = 1; i < n; i++)
		if (k[i].len == k[i - 1].len &&
		    !memcmp(k[i].s, k[i - 1].s, k[i].len) &&
		    (best < 0 || k[i].off < k[best].off))
			best = (long)i;
	return best;
}

/* Decode the escapes of key token TOK (quotes included, LEN bytes) into
 * K->own (json-c reads the token alone).  0, or -1 out of memory. */
static int decode_key(const char *tok, size_t len, struct jkey *k)
{
	char *t = strndup(tok, len);
	struct json_object *d = t ? json_tokener_parse(t) : NULL;
	const char *v = tok + 1;

	free(t);
	if (!t)
		return -1;
	/* a token json-c does not read alone stays as written */
	k->len = d ? (size_t)json_object_get_string_len(d) : len - 2;
	if (d)
		v = json_object_get_string(d);
	k->own = malloc(k->len + 1);
	if (k->own) {
		memcpy(k->own, v, k->len);
		k->own[k->len] = '\0';
	}
	json_object_put(d);
	k->s = k->own;
	return k->own ? 0 : -1;
}

/* Whether the escape whose letter is TEXT[E] is \u0000 (json-c reads
 * it as a NUL inside the string, and every reader of the string stops
 * there: "random\u0000:1" would be read "random"). */
static bool nul_escape(const char *text, size_t len, size_t e)
{
	if (e + 4 >= len || text[e] != 'u')
		return false;
	for (size_t k = 1; k <= 4; k++)
		if (text[e + k] != '0')
			return false;
	return true;
}

/* json-c keeps the last of two equal keys in an object without a word;
 * here that is an error.  TEXT is a document json-c accepted (so its
 * syntax is known good): scan its tokens, collect each object's keys
 * (escaped ones decoded by json-c) and report the first repeat as
 * "NAME:LINE: bad JSON: key "K" repeated (first on line M)"; a comment
 * or an escaped NUL on the way is an error at its line. */
int wl_json_keys(const char *name, const char *text, size_t len,
		 struct err *err)
{
	enum { DEPTH = 64 };
	struct {
		struct jkey *k;
		size_t n, cap;
		bool object, want_key;
	} st[DEPTH];
	int top = -1, rc = 0;

	for (size_t i = 0; i < len && !rc; i++) {
		char c = text[i];

		if (c == '{' || c == '[') {
			if (++top == DEPTH) {
				rc = err_set(err,
					     "%s:%u: bad JSON: nested deeper "
					     "than %d",
					     name, wl_offset_line(text, i),
					     DEPTH);
				top--;
				break;
			}
			st[top].k = NULL;
			st[top].n = st[top].cap = 0;
			st[top].object = c == '{';
			st[top].want_key = c == '{';
		} else if ((c == '}' || c == ']') && top >= 0) {
			long r = repeated_key(st[top].k, st[top].n);

			if (r >= 0) {
				const struct jkey *b = &st[top].k[r],
						  *a = &st[top].k[r - 1];

				rc = err_set(err,
					     "%s:%u: bad JSON: key \"%.*s\" "
					     "repeated (first on line %u)",
					     name, wl_offset_line(text, b->off),
					     (int)(b->len > 60 ? 60 : b->len),
					     b->s,
					     wl_offset_line(text, a->off));
			}
			for (size_t q = 0; q < st[top].n; q++)
				free(st[top].k[q].own);
			free(st[top].k);
			top--;
		} else if (c == ',' && top >= 0 && st[top].object) {
			st[top].want_key = true;
		} else if (c == '/') {
			/* json-c takes comments; this scan would read the
			 * keys in them as keys, and JSON has none */
			rc = err_set(err,
				     "%s:%u: bad JSON: a comment (JSON has "
				     "none)",
				     name, wl_offset_line(text, i));
		} else if (c == '"' || c == '\'') {
			/* json-c also takes 'single-quoted' strings */
			size_t e = i + 1;
			bool esc = c == '\'';

			while (e < len && text[e] != c) {
				if (text[e] == '\\') {
					esc = true;
					e++;
					if (nul_escape(text, len, e)) {
						rc = err_set(
							err,
							"%s:%u: bad JSON: an "
							"escaped NUL (\\u0000) "
							"in a string (it would "
							"end it there)",
							name,
							wl_offset_line(text,
								       e));
						break;
					}
				}
				e++;
			}
			if (rc)
				break;
			if (e >= len) /* json-c accepted it: cannot happen */
				break;
			/* (a single-quoted key is always decoded by json-c) */
			if (top >= 0 && st[top].object && st[top].want_key) {
				struct jkey k = { text + i + 1, e - i - 1, i,
						  NULL };

				if (esc &&
				    decode_key(text + i, e - i + 1, &k)) {
					rc = err_nomem(err, "%s: out of memory",
						       name);
					break;
				}
				if (st[top].n == st[top].cap) {
					size_t nc = st[top].cap ?
							    2 * st[top].cap :
							    16;
					struct jkey *q = realloc(
						st[top].k, nc * sizeof(*q));

					if (!q) {
						free(k.own);
						rc = err_nomem(
							err,
							"%s: out of memory",
							name);
						break;
					}
					st[top].k = q;
					st[top].cap = nc;
				}
				st[top].k[st[top].n++] = k;
				st[top].want_key = false;
			}
			i = e;
		}
	}
	for (; top >= 0; top--) {
		for (size_t q = 0; q < st[top].n; q++)
			free(st[top].k[q].own);
		free(st[top].k);
	}
	return rc;
}
