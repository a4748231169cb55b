/* hl.c - hostlist expressions through libslurm (see hl.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <slurm/slurm.h>

#include "topo/util/hl.h"

/* struct hl is libslurm's hostlist under our own name, so that no other
 * file needs <slurm/slurm.h>. */
static int name_char(int ch)
{
	return isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
}

/* A decimal number of at most HL_DIGITS digits at *S into *V (S moved
 * past it; *WIDTH raised to its digits), or why not. */
static const char *hl_number(const char **s, unsigned long *v, unsigned *width)
{
	unsigned digits = 0;

	if (!isdigit((unsigned char)**s))
		return "bad range in brackets";
	*v = 0;
	while (isdigit((unsigned char)**s)) {
		if (++digits > HL_DIGITS)
			return "number of more than 9 digits in brackets";
		*v = *v * 10 + (unsigned long)(**s - '0');
		(*s)++;
	}
	if (digits > *width)
		*width = digits;
	return NULL;
}

/* What hl_error knows of the name being read. */
struct name_state {
	int atom, bracket, suffix; /* a character seen, a bracket, text
				    * after a bracket */
	unsigned run;		   /* digits ending it so far */
	unsigned brackets;
	double names; /* the product of its brackets' sizes */
};

/* The checks of a whole name N; *MULTI sums the names of the names with
 * several brackets, which libslurm expands one range per combination of
 * all but the last bracket. */
static const char *name_end(const struct name_state *n, double *multi,
			    double *total)
{
	if (!n->atom)
		return "empty name in hostlist";
	if (n->suffix)
		return "text after ']' in hostlist";
	if (n->run > HL_DIGITS)
		return "name ending in a number of more than 9 digits";
	if (n->brackets > 1 && (*multi += n->names) > HL_RANGE_MAX)
		return "names with several brackets give more than 65536 "
		       "names";
	/* libslurm counts in an int: beyond, its count wraps */
	if ((*total += n->names) > HL_NAMES_MAX)
		return "more than 2^30 names in one hostlist";
	return NULL;
}

/* Comma-separated names, each with optional bracketed lists of decimal
 * ranges lo[-hi], lo <= hi, at most HL_RANGE_MAX names per range (Slurm's
 * MAX_RANGE), no text after the last bracket of a name, no name of the
 * list ending in more than HL_DIGITS digits, and at most HL_RANGE_MAX
 * names from names with several brackets: what libslurm parses correctly
 * and quickly (it logs to stderr and leaks on errors, accepts garbage
 * such as "nid[0000-", reads the digits ending a name as one unsigned
 * long, clamping a longer number into another name, writes them in
 * brackets in its ranged form, and builds a range per combination of a
 * name's brackets but the last). */
const char *hl_error(const char *s)
{
	struct name_state n = { .names = 1 };
	double multi = 0, total = 0;
	const char *why;

	if (!s || !*s)
		return "empty hostlist";
	while (*s) {
		if (*s == ',') {
			if ((why = name_end(&n, &multi, &total)))
				return why;
			n = (struct name_state){ .names = 1 };
			s++;
		} else if (*s == '[') {
			unsigned width = 0;
			double size = 0;

			s++;
			for (;;) {
				unsigned long lo, hi;

				if ((why = hl_number(&s, &lo, &width)))
					return why;
				hi = lo;
				if (*s == '-') {
					s++;
					if ((why = hl_number(&s, &hi, &width)))
						return why;
				}
				if (hi < lo)
					return "range with high < low";
				if (hi - lo >= HL_RANGE_MAX)
					return "range of more than 65536 "
					       "names (Slurm's limit)";
				size += (double)(hi - lo + 1);
				if (*s == ',') {
					s++;
					continue;
				}
				if (*s == ']')
					break;
				return "unterminated '[' in hostlist";
			}
			s++;
			n.atom = n.bracket = 1;
			n.suffix = 0;
			n.run += width;
			n.brackets++;
			n.names *= size;
		} else if (name_char((unsigned char)*s)) {
			n.atom = 1;
			n.suffix = n.bracket;
			n.run = isdigit((unsigned char)*s) ? n.run + 1 : 0;
			s++;
		} else {
			return "bad character in hostlist";
		}
	}
	return name_end(&n, &multi, &total);
}

struct hl *hl_parse(const char *expr)
{
	if (hl_error(expr))
		return NULL;
	return (struct hl *)slurm_hostlist_create(expr);
}

struct hl *hl_new(void)
{
	return (struct hl *)slurm_hostlist_create(NULL);
}

void hl_destroy(struct hl *h)
{
	if (h)
		slurm_hostlist_destroy((hostlist_t)h);
}

uint64_t hl_count(const struct hl *h)
{
	int n = slurm_hostlist_count((hostlist_t)h);

	return n > 0 ? (uint64_t)n : 0;
}

char *hl_shift(struct hl *h)
{
	return slurm_hostlist_shift((hostlist_t)h);
}

int hl_push(struct hl *h, const char *name)
{
	return slurm_hostlist_push_host((hostlist_t)h, name) > 0 ? 0 : -1;
}

char *hl_ranged(struct hl *h)
{
	char *s = slurm_hostlist_ranged_string_malloc((hostlist_t)h);
	char *out = s ? strdup(s) : NULL;

	free(s);
	return out;
}
