/* model_factor.c - factored instances: a flow list's paths as the
 * routing's stems and middles (routing_stems), never enumerated.
 *
 * Links are renumbered densely in order of first use, so a model's
 * per-link work is over the links the flows can touch; middle keys are
 * mapped to middle sets in order of first use, each set's segments
 * fetched from the routing once. */
#include <stdlib.h>
#include <string.h>

#include "evaluator/models/model_impl.h"

int model_grow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 64;
	void *q;

	if (n <= *cap)
		return 0;
	while (c < n)
		c *= 2;
	q = realloc(*(void **)p, c * size);
	if (!q)
		return -1;
	*(void **)p = q;
	*cap = c;
	return 0;
}

struct fbuild {
	struct model_finput *in;
	uint32_t *lid; /* topology link -> dense id, UINT32_MAX */
	size_t cap_glob, cap_cap, cap_soff, cap_smid, cap_sflow, cap_slinks,
		cap_mids, cap_segs, cap_glinks;
};

static int map_link(struct fbuild *b, uint32_t l, uint32_t *out)
{
	struct model_finput *in = b->in;

	if (b->lid[l] == UINT32_MAX) {
		if (model_grow(&in->glob, &b->cap_glob, (size_t)in->nlinks + 1,
			       sizeof(*in->glob)) ||
		    model_grow(&in->cap, &b->cap_cap, (size_t)in->nlinks + 1,
			       sizeof(*in->cap)))
			return -1;
		in->glob[in->nlinks] = l;
		b->lid[l] = in->nlinks++;
	}
	*out = b->lid[l];
	return 0;
}

/* Whether every stem of SS starts (TAIL: ends) with the same node link
 * (the injection or ejection, on every path of the flow once, never in a
 * segment: segments hold switch-to-switch links only), and has another
 * link besides. */
static bool common_end(const struct pathset *ss, const struct topo *t,
		       bool tail)
{
	uint32_t l;

	if (!ss->n)
		return false;
	l = ss->links[tail ? ss->off[1] - 1 : 0];
	if (l >= topo_first_switch_link(t))
		return false;
	for (uint32_t s = 0; s < ss->n; s++) {
		uint32_t a = ss->off[s], b = ss->off[s + 1];

		if (b - a < 2 || ss->links[tail ? b - 1 : a] != l)
			return false;
		for (uint32_t e = a; e < b; e++)
			if (ss->links[e] == l && e != (tail ? b - 1 : a))
				return false;
	}
	return true;
}

int model_finput_build(const struct routing *r, const struct flows *f,
		       struct model_finput *in, struct err *err)
{
	const struct topo *t = routing_topo(r);
	uint32_t nkeys = routing_middle_keys(r), L = topo_num_links(t);
	uint32_t *keymid = NULL;
	struct stemset ss;
	struct pathset mp;
	struct fbuild b;
	size_t nsl = 0, ngl = 0;
	uint32_t nfl = 0;
	int rc = -1;

	memset(in, 0, sizeof(*in));
	memset(&b, 0, sizeof(b));
	b.in = in;
	stemset_init(&ss);
	pathset_init(&mp);
	if (!nkeys)
		return err_set(err, "routing %s gives no factored path sets",
			       routing_spec(r));
	b.lid = malloc((size_t)L * sizeof(*b.lid));
	keymid = malloc((size_t)nkeys * sizeof(*keymid));
	in->flow_off = malloc(((size_t)f->n + 1) * sizeof(*in->flow_off));
	in->src = malloc(((size_t)f->n + 1) * sizeof(*in->src));
	in->floff = malloc(((size_t)f->n + 1) * sizeof(*in->floff));
	in->flinks = malloc(((size_t)2 * f->n + 1) * sizeof(*in->flinks));
	if (!b.lid || !keymid || !in->flow_off || !in->src || !in->floff ||
	    !in->flinks)
		goto nomem;
	memset(b.lid, 0xff, (size_t)L * sizeof(*b.lid));
	memset(keymid, 0xff, (size_t)nkeys * sizeof(*keymid));
	/* middle set 0: one segment without links */
	if (model_grow(&in->mid_off, &b.cap_mids, 2, sizeof(*in->mid_off)) ||
	    model_grow(&in->seg_off, &b.cap_segs, 2, sizeof(*in->seg_off)))
		goto nomem;
	in->mid_off[0] = 0;
	in->mid_off[1] = 1;
	in->seg_off[0] = in->seg_off[1] = 0;
	in->nmids = 1;
	in->nsegs = 1;
	in->nflows = f->n;
	for (uint32_t i = 0; i < f->n; i++) {
		in->flow_off[i] = in->nstems;
		in->src[i] = f->src[i];
		if (routing_stems(r, f->src[i], f->dst[i], &ss, err)) {
			err_prefix(err, "flow %u", i);
			goto out;
		}
		size_t ns = (size_t)in->nstems + ss.p.n + 1;
		bool head = common_end(&ss.p, t, false),
		     tail = common_end(&ss.p, t, true);

		in->floff[i] = nfl;
		if (head && map_link(&b, ss.p.links[0], &in->flinks[nfl++]))
			goto nomem;
		if (tail && map_link(&b, ss.p.links[ss.p.off[1] - 1],
				     &in->flinks[nfl++]))
			goto nomem;

		if (model_grow(&in->stem_off, &b.cap_soff, ns,
			       sizeof(*in->stem_off)) ||
		    model_grow(&in->smid, &b.cap_smid, ns, sizeof(*in->smid)) ||
		    model_grow(&in->sflow, &b.cap_sflow, ns,
			       sizeof(*in->sflow)) ||
		    model_grow(&in->slinks, &b.cap_slinks,
			       nsl + ss.p.off[ss.p.n], sizeof(*in->slinks)))
			goto nomem;
		for (uint32_t s = 0; s < ss.p.n; s++) {
			uint32_t id = in->nstems++, key = ss.key[s], m = 0;

			in->stem_off[id] = (uint32_t)nsl;
			in->sflow[id] = i;
			for (uint32_t e = ss.p.off[s] + head;
			     e < ss.p.off[s + 1] - tail; e++)
				if (map_link(&b, ss.p.links[e],
					     &in->slinks[nsl++]))
					goto nomem;
			if (key != ROUTING_NO_MIDDLE &&
			    keymid[key] != UINT32_MAX)
				m = keymid[key];
			else if (key != ROUTING_NO_MIDDLE) {
				if (routing_middles(r, key, &mp, err))
					goto out;
				if (!mp.n) {
					err_set(err,
						"middle key %u has no "
						"segment",
						key);
					goto out;
				}
				m = keymid[key] = in->nmids++;
				if (model_grow(&in->mid_off, &b.cap_mids,
					       (size_t)in->nmids + 1,
					       sizeof(*in->mid_off)) ||
				    model_grow(&in->seg_off, &b.cap_segs,
					       (size_t)in->nsegs + mp.n + 1,
					       sizeof(*in->seg_off)) ||
				    model_grow(&in->glinks, &b.cap_glinks,
					       ngl + mp.off[mp.n],
					       sizeof(*in->glinks)))
					goto nomem;
				for (uint32_t g = 0; g < mp.n; g++) {
					in->seg_off[in->nsegs++] =
						(uint32_t)ngl;
					for (uint32_t e = mp.off[g];
					     e < mp.off[g + 1]; e++)
						if (map_link(&b, mp.links[e],
							     &in->glinks[ngl++]))
							goto nomem;
				}
				in->seg_off[in->nsegs] = (uint32_t)ngl;
				in->mid_off[in->nmids] = in->nsegs;
			}
			in->smid[id] = m;
			in->npaths += in->mid_off[m + 1] - in->mid_off[m];
		}
		if (nsl >= UINT32_MAX || ngl >= UINT32_MAX) {
			err_set(err, "more than 2^32 stem or middle links");
			goto out;
		}
	}
	in->flow_off[f->n] = in->nstems;
	in->floff[f->n] = nfl;
	if (model_grow(&in->stem_off, &b.cap_soff, (size_t)in->nstems + 1,
		       sizeof(*in->stem_off)))
		goto nomem;
	in->stem_off[in->nstems] = (uint32_t)nsl;
	for (uint32_t l = 0; l < in->nlinks; l++)
		in->cap[l] = topo_link(t, in->glob[l])->capacity;
	rc = 0;
	goto out;
nomem:
	err_nomem(err, "out of memory (factored paths of %u flows)", f->n);
out:
	if (rc)
		model_finput_free(in);
	free(b.lid);
	free(keymid);
	stemset_free(&ss);
	pathset_free(&mp);
	return rc;
}

void model_finput_free(struct model_finput *in)
{
	if (!in)
		return;
	free(in->cap);
	free(in->glob);
	free(in->flow_off);
	free(in->src);
	free(in->floff);
	free(in->flinks);
	free(in->stem_off);
	free(in->slinks);
	free(in->smid);
	free(in->sflow);
	free(in->mid_off);
	free(in->seg_off);
	free(in->glinks);
	memset(in, 0, sizeof(*in));
}

int model_method_check(const struct spec *s, const struct spec_opt *opts,
		       struct err *err)
{
	const char *m = spec_value(s, opts, "method");

	if (strcmp(m, "auto") && strcmp(m, "paths") && strcmp(m, "factored"))
		return err_set(err, "method=%s: want auto, paths or factored",
			       m);
	return 0;
}

bool model_method_factored(const struct spec *s, const struct spec_opt *opts,
			   const struct routing *r)
{
	const char *m = spec_value(s, opts, "method");

	return !strcmp(m, "factored") ||
	       (!strcmp(m, "auto") && routing_middle_keys(r) > 0);
}
