/* strategy.c: the capture strategies of the bundle format (strategy.def),
 * for the options (names to check) and the bundle path (the order, the
 * report's flags). */
#include "pipeline/pipeline.h"

#include <string.h>

#include "core/core.h"

const PipelineStrategy pipeline_strategies[] = {
#define STRATEGY(name, strict, decomp, tracing, jit, dynamo, what) \
	{name, strict, decomp, tracing, jit, dynamo, what},
#include "strategy.def"
#undef STRATEGY
};

enum { NSTRATEGY = sizeof pipeline_strategies / sizeof pipeline_strategies[0] };

int
pipeline_strategy_count(void)
{
	return NSTRATEGY;
}

int
pipeline_strategy_find(const char *name)
{
	for (int i = 0; i < NSTRATEGY; i++)
		if (strcmp(pipeline_strategies[i].name, name) == 0)
			return i;
	return -1;
}

const char *
pipeline_strategy_names(Arena *a)
{
	const char *s = "";

	for (int i = 0; i < NSTRATEGY; i++)
		s = arena_printf(a, "%s%s%s", s, i ? ", " : "", pipeline_strategies[i].name);
	return s;
}
