/* irprint.h: the IR as readable text (`yobx-export --print`).
 * One node per line: outputs with dtype and shape, the target, named
 * arguments, and the user's source line; subgraphs indented below. */
#ifndef IRPRINT_H
#define IRPRINT_H

#include <stdio.h>

#include "ir.h"

void ir_print(FILE *f, const Program *p);
/* "float32[s77,8]" or "SymInt" etc. (arena) */
char *ir_value_type(Arena *a, const Value *v);

#endif
