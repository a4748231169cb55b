/* nameidx.h - the one hash table: names to dense ids.
 *
 * The names stay in the caller's table; the index holds ids only and
 * reads a name back through the caller's NAME function (open addressing,
 * FNV-1a, doubled when half full).  topo.conf's switch and node names
 * and the importers' switch and router names use it.
 */
#ifndef STOPO_NAMEIDX_H
#define STOPO_NAMEIDX_H

#include <stddef.h>
#include <stdint.h>

#define NAMEIDX_NONE UINT32_MAX

/* The name of id ID in the caller's table CTX (NUL-terminated). */
typedef const char *(*nameidx_name_fn)(const void *ctx, uint32_t id);

struct nameidx {
	nameidx_name_fn name;
	const void *ctx;
	uint32_t *slot; /* [cap] ids, NAMEIDX_NONE for empty */
	uint32_t cap, n;
};

/* An empty index over the names NAME(CTX, id) gives (no allocation). */
void nameidx_init(struct nameidx *x, nameidx_name_fn name, const void *ctx);

/* Free the index's slots (not the names); X is empty again. */
void nameidx_free(struct nameidx *x);

/* The id of NAME, or NAMEIDX_NONE. */
uint32_t nameidx_find(const struct nameidx *x, const char *name);

/* The id of the LEN bytes at S (no NUL needed), or NAMEIDX_NONE. */
uint32_t nameidx_findn(const struct nameidx *x, const char *s, size_t len);

/* Index ID under its name.  *PREV (may be NULL) is the id already
 * holding that name, which leaves ID out, or NAMEIDX_NONE when ID went
 * in.  0, or -1 when out of memory (the index unchanged). */
int nameidx_add(struct nameidx *x, uint32_t id, uint32_t *prev);

#endif
