/* spec.c - the spec grammar (see spec.h) and the option-table helpers. */
#include <stdio.h>
#include <string.h>

#include "topo/util/spec.h"

#define BLANKS " \t"

/* Check the item P[0..LEN) (no separator inside) and append it to OUT;
 * BARE_OK: it may be a bare value. */
static int parse_item(const char *p, size_t len, bool bare_ok,
		      const struct spec_syntax *syn, struct spec *out,
		      struct err *err)
{
	const char *eq = memchr(p, '=', len);
	struct spec_item *it = &out->item[out->n];
	size_t kl, vl;

	if (!eq && !bare_ok)
		return err_set(err, "bad %s '%.*s' (want key=value)", syn->noun,
			       (int)len, p);
	kl = eq ? (size_t)(eq - p) : 0;
	vl = eq ? len - kl - 1 : len;
	if (eq && kl == 0)
		return err_set(err, "bad %s '%.*s' (empty key)", syn->noun,
			       (int)len, p);
	if (eq && vl == 0)
		return err_set(err, "bad %s '%.*s' (empty value)", syn->noun,
			       (int)len, p);
	if (kl >= SPEC_KEY_MAX)
		return err_set(err,
			       "bad %s '%.*s' (key longer than %d characters)",
			       syn->noun, (int)kl, p, SPEC_KEY_MAX - 1);
	if (vl >= SPEC_VALUE_MAX && eq)
		return err_set(err,
			       "%s '%.*s': value longer than %d characters",
			       syn->noun, (int)kl, p, SPEC_VALUE_MAX - 1);
	if (vl >= SPEC_VALUE_MAX)
		return err_set(err, "bare %s longer than %d characters",
			       syn->noun, SPEC_VALUE_MAX - 1);
	if (out->n == SPEC_MAX_ITEMS)
		return err_range(err, "too many %ss (at most %d)", syn->noun,
				 SPEC_MAX_ITEMS);
	memcpy(it->key, p, kl);
	it->key[kl] = '\0';
	memcpy(it->value, eq ? eq + 1 : p, vl);
	it->value[vl] = '\0';
	for (size_t i = 0; eq && i < out->n; i++)
		if (!strcmp(out->item[i].key, it->key))
			return err_set(err, "%s '%s' given twice", syn->noun,
				       it->key);
	out->n++;
	return 0;
}

int spec_parse(const char *text, const struct spec_syntax *syn,
	       struct spec *out, struct err *err)
{
	bool blanks = syn->flags & SPEC_BLANKS;
	bool positional = syn->flags & SPEC_POSITIONAL;
	const char *item_end = blanks ? "," BLANKS : ",";
	const char *p = text ? text : "";
	size_t len;

	memset(out, 0, sizeof(*out));
	p += strspn(p, BLANKS);
	len = strcspn(p, blanks ? ":" BLANKS : ":");
	if (len == 0)
		return err_set(err, "empty name (want NAME[:key=value,...])");
	if (len >= SPEC_NAME_MAX)
		return err_set(err, "name '%.*s...' longer than %d characters",
			       20, p, SPEC_NAME_MAX - 1);
	memcpy(out->name, p, len);
	out->name[len] = '\0';
	p += len;
	if (!*p)
		return 0;
	if (!blanks) {
		p++; /* the ':' */
		if (!*p && positional)
			return err_set(err, "empty %s list after '%s:'",
				       syn->noun, out->name);
	}
	while (*p) {
		if (blanks)
			p += strspn(p, ":," BLANKS);
		if (!*p)
			break;
		len = strcspn(p, item_end);
		if (len == 0 && positional)
			return err_set(err, "empty %s in '%s'", syn->noun,
				       text);
		if (len && parse_item(p, len, positional && out->n == 0, syn,
				      out, err))
			return -1;
		p += len;
		if (*p == ',')
			p++;
	}
	return 0;
}

static const struct spec_opt *find_opt(const struct spec_opt *opts,
				       const char *key)
{
	for (size_t i = 0; opts && opts[i].key; i++)
		if (!strcmp(opts[i].key, key))
			return &opts[i];
	return NULL;
}

int spec_check(struct spec *s, const struct spec_opt *opts,
	       const struct spec_syntax *syn, struct err *err)
{
	char known[192];

	for (size_t i = 0; i < s->n; i++) {
		struct spec_item *it = &s->item[i];
		const struct spec_opt *o = NULL;
		const char *other;

		if (!it->key[0]) {
			for (size_t k = 0; opts && opts[k].key && !o; k++)
				if (opts[k].positional)
					o = &opts[k];
			if (!o)
				return err_set(err, "unexpected %s '%s'",
					       syn->noun, it->value);
			other = spec_given(s, o->key);
			if (other)
				return err_set(err,
					       "give %s once (as '%s' or as "
					       "%s=%s)",
					       o->key, it->value, o->key,
					       other);
			snprintf(it->key, sizeof(it->key), "%s", o->key);
			continue;
		}
		if (!find_opt(opts, it->key))
			return err_set(err, "unknown %s '%s' (known: %s)",
				       syn->noun, it->key,
				       spec_known_keys(opts, known,
						       sizeof(known)));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(s->item[j].key, it->key))
				return err_set(err, "%s '%s' given twice",
					       syn->noun, it->key);
	}
	return 0;
}

const char *spec_given(const struct spec *s, const char *key)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->item[i].key, key))
			return s->item[i].value;
	return NULL;
}

const char *spec_value(const struct spec *s, const struct spec_opt *opts,
		       const char *key)
{
	const char *v = spec_given(s, key);
	const struct spec_opt *o;

	if (v)
		return v;
	o = find_opt(opts, key);
	return o ? o->def : NULL;
}

size_t spec_nopts(const struct spec_opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].key)
		n++;
	return n;
}

/* Append "%s" formatted text at *off; false once BUF is full. */
static bool append(char *buf, size_t len, size_t *off, const char *a,
		   const char *b, const char *c)
{
	int w;

	if (*off >= len)
		return false;
	w = snprintf(buf + *off, len - *off, "%s%s%s", a, b, c);
	if (w < 0 || (size_t)w >= len - *off) {
		*off = len;
		return false;
	}
	*off += (size_t)w;
	return true;
}

int spec_format(char *buf, size_t len, const char *name, const struct spec *s,
		const struct spec_opt *opts)
{
	size_t off = 0, n = 0;
	bool ok;

	if (!len)
		return -1;
	buf[0] = '\0';
	ok = append(buf, len, &off, name, "", "");
	for (size_t i = 0; ok && opts && opts[i].key; i++) {
		const char *v = spec_value(s, opts, opts[i].key);

		if (v)
			ok = append(buf, len, &off, n++ ? "," : ":",
				    opts[i].key, "=") &&
			     append(buf, len, &off, v, "", "");
	}
	for (size_t i = 0; ok && !opts && s && i < s->n; i++)
		ok = append(buf, len, &off, i ? "," : ":", s->item[i].key,
			    s->item[i].key[0] ? "=" : "") &&
		     append(buf, len, &off, s->item[i].value, "", "");
	return ok ? 0 : -1;
}

/* Join the strings AT(0), AT(1) ... (up to NULL) with ", ". */
static const char *join(const char *(*at)(const void *, size_t),
			const void *ctx, char *buf, size_t len)
{
	size_t off = 0;
	const char *s;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; (s = at(ctx, i)); i++)
		if (!append(buf, len, &off, i ? ", " : "", s, ""))
			break;
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

static const char *key_at(const void *ctx, size_t i)
{
	return ((const struct spec_opt *)ctx)[i].key;
}

static const char *no_key(const void *ctx, size_t i)
{
	(void)ctx;
	(void)i;
	return NULL;
}

const char *spec_known_keys(const struct spec_opt *opts, char *buf, size_t len)
{
	return join(opts ? key_at : no_key, opts, buf, len);
}

struct names {
	spec_name_fn name_at;
};

static const char *name_at_ctx(const void *ctx, size_t i)
{
	return ((const struct names *)ctx)->name_at(i);
}

const char *spec_known_names(spec_name_fn name_at, char *buf, size_t len)
{
	struct names n = { name_at };

	return join(name_at_ctx, &n, buf, len);
}
