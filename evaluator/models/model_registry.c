/* model_registry.c - the registry of throughput models, in the order
 * `stopo eval --model all` runs them.  Adding a model: one file defining a
 * const struct model_ops model_<name> (name, option table, solve), one
 * X(<name>) here, one test.  This file holds the table alone, so that a
 * test may link its own registry in its place. */
#include <stddef.h>

#include "evaluator/models/model_impl.h"

#define MODELS(X) \
	X(hm)     \
	X(jm)     \
	X(mcf)    \
	X(mmf)    \
	X(ugal0)  \
	X(ugal1)  \
	X(ugal2)  \
	X(ugal3)  \
	X(ugal4)  \
	X(ugal5)  \
	X(nne)    \
	/* new models above this line */

#define DECLARE(n) extern const struct model_ops model_##n;
#define ENTRY(n) &model_##n,
MODELS(DECLARE)

const struct model_ops *const model_table[] = { MODELS(ENTRY) NULL };
