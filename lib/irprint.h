/* irprint.h: the IR as readable text (`yobx-export --print`).
 * One node per line: outputs with dtype and shape, the target, named
 * arguments, and the user's source line; subgraphs indented below. */
#ifndef IRPRINT_H
#define IRPRINT_H

#include <stdio.h>

#include "ir.h"

void ir_print(FILE *f, const Program *p);
/* ir_print() plus what the text reader (irtext.h) needs to rebuild the
 * same Program: IR_PRINT_EXACT writes floats so they read back as the same
 * double and as floats ("2.0", not "2"); IR_PRINT_NAMES adds " @NAME" to a
 * node whose name is not its first output's (torch names multi-output
 * nodes "max_1", "unbind", ...). */
enum { IR_PRINT_EXACT = 1, IR_PRINT_NAMES = 2 };
void ir_print_ext(FILE *f, const Program *p, unsigned flags);
/* "float32[s77,8]" or "SymInt" etc. (arena) */
char *ir_value_type(Arena *a, const Value *v);

#endif
