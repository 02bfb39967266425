/* dimname.h: readable names for torch's size symbols.
 *
 * torch names the symbols of dynamic dimensions s77, s39, u0: no name a
 * user can work with.  Each symbol gets, in this order of preference:
 *  1. the name the options give for an input's axis (dynamic_dimensions),
 *  2. "<input>_dim_<axis>" for the first user input axis (in forward order)
 *     whose size is exactly that symbol,
 *  3. "unbacked_<k>" for a data-dependent symbol (u0, u1, ...),
 *  4. "dim_<k>" otherwise (a symbol seen only inside expressions).
 * A dim_param is then the dim's expression printed with those names
 * ("2*seq"), so the same symbol reads the same everywhere. */
#ifndef DIMNAME_H
#define DIMNAME_H

#include "diag.h"
#include "ir.h"

/* A user's name for one axis of one input: dynamic_dimensions: {x: {0: batch}}. */
typedef struct DimRequest {
	const char *input;      /* forward argument name */
	int axis;
	const char *name;
	uint32_t line, col;     /* where the options file says it, for messages */
} DimRequest;

typedef struct DimNames DimNames;

/* Assigns names for every symbol of p.  label names the options file in
 * messages.  A request for an input or axis that does not exist, or for an
 * axis that is static, or two different names for one symbol, is an error
 * (DIAG_INPUT "label:line:col: ..."); returns NULL then. */
DimNames *dimnames_build(const Program *p, const DimRequest *req, int nreq,
                         const char *label, Arena *a, Diag *d);
/* The name for a symbol ("s77" -> "batch"); the symbol itself if unknown. */
const char *dimnames_symbol(const DimNames *dn, const char *symbol);
/* The dim_param for a symbolic dim: its expression with symbols renamed. */
const char *dimnames_expr(const DimNames *dn, const SymExpr *e);

#endif
