/* serde.h: torch's serialized ExportedProgram (JSON) into the IR.
 *
 * Follows torch/_export/serde/schema.py, schema major version 8 (torch 2.6
 * to 2.14): single-key unions, missing and null alike, enums as integers.
 * Errors read "LABEL:LINE:COL: what", LABEL being "file.pt2:entry". */
#ifndef SERDE_H
#define SERDE_H

#include "diag.h"
#include "ir.h"
#include "json.h"

/* Fills p->graph, signature, ranges, versions from the program JSON.
 * Returns 0 or DIAG_INPUT. */
int serde_program(Program *p, const Json *root, const char *label, Diag *d);

/* The structural checks serde_program() ends with (lib/irvalid.c): values
 * defined once, before every read, by a node of their own graph; no node
 * reads its own output.  Returns 0 or DIAG_INPUT naming the node. */
int ir_validate(const Program *p, Diag *d);

/* A TensorMeta (also used by weight configs): dtype, sizes, strides and
 * storage offset, each SymInt as a Dim.  Returns 0 or DIAG_INPUT. */
typedef struct TensorMeta {
	DType dtype;
	int rank;
	Dim *sizes, *strides;
	Dim offset;
	int requires_grad;
} TensorMeta;
/* Reads a TensorMeta; errors say label:line:col, then what (e.g. "tensor
 * value 'x'", or NULL for nothing), then what is wrong. */
int serde_tensor_meta(Arena *a, const char *label, const char *what, const Json *j, TensorMeta *m,
                      Diag *d);

#endif
