/* sym.h: symbolic integer expressions for dynamic sizes.
 *
 * torch writes sizes as sympy srepr ("Mul(Integer(2), Symbol('s3',
 * positive=True, integer=True))", torch 2.6+) or as infix text ("2*s3",
 * older files and range_constraints keys).  Both parse into the same
 * SymExpr tree.  The printer writes infix that the infix parser reads back. */
#ifndef SYM_H
#define SYM_H

#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"

/* X(ENUM, srepr name, arity (-1 variadic)) */
#define SYM_OPS(X) \
	X(SYM_INT, "Integer", 0) \
	X(SYM_SYMBOL, "Symbol", 0) \
	X(SYM_RATIONAL, "Rational", 0) \
	X(SYM_FLOAT, "Float", 0) \
	X(SYM_TRUE, "true", 0) \
	X(SYM_FALSE, "false", 0) \
	X(SYM_ADD, "Add", -1) \
	X(SYM_MUL, "Mul", -1) \
	X(SYM_POW, "Pow", 2) \
	X(SYM_MAX, "Max", -1) \
	X(SYM_MIN, "Min", -1) \
	X(SYM_FLOORDIV, "FloorDiv", 2) \
	X(SYM_CEILDIV, "CeilDiv", 2) \
	X(SYM_CLEANDIV, "CleanDiv", 2) \
	X(SYM_MOD, "Mod", 2) \
	X(SYM_PYTHONMOD, "PythonMod", 2) \
	X(SYM_MODULARINDEXING, "ModularIndexing", 3) \
	X(SYM_CEILTOINT, "CeilToInt", 1) \
	X(SYM_FLOORTOINT, "FloorToInt", 1) \
	X(SYM_TRUNCTOINT, "TruncToInt", 1) \
	X(SYM_ROUNDTOINT, "RoundToInt", 1) \
	X(SYM_POWBYNATURAL, "PowByNatural", 2) \
	X(SYM_FLOATTRUEDIV, "FloatTrueDiv", 2) \
	X(SYM_INTTRUEDIV, "IntTrueDiv", 2) \
	X(SYM_WHERE, "Where", 3) \
	X(SYM_EQ, "Eq", 2) \
	X(SYM_NE, "Ne", 2) \
	X(SYM_LT, "StrictLessThan", 2) \
	X(SYM_LE, "LessThan", 2) \
	X(SYM_GT, "StrictGreaterThan", 2) \
	X(SYM_GE, "GreaterThan", 2) \
	X(SYM_AND, "And", -1) \
	X(SYM_OR, "Or", -1) \
	X(SYM_NOT, "Not", 1) \
	X(SYM_CALL, "", -1)   /* any other function: name kept, args parsed */

typedef enum SymOp {
#define X(e, name, arity) e,
	SYM_OPS(X)
#undef X
	SYM_OP_COUNT
} SymOp;

/* Trees deeper than this are rejected by the parsers and by sym_eval. */
enum { SYM_MAX_DEPTH = 1000 };

typedef struct SymExpr SymExpr;
struct SymExpr {
	SymOp op;
	int64_t i;          /* SYM_INT value; SYM_RATIONAL numerator */
	int64_t den;        /* SYM_RATIONAL denominator */
	double f;           /* SYM_FLOAT value */
	const char *name;   /* SYM_SYMBOL name ("s77"); SYM_CALL function name */
	int n;              /* number of args */
	SymExpr **args;
};

/* Parse; NULL with a DIAG_INPUT "label: column N: what" on error. */
SymExpr *sym_parse_srepr(Arena *a, const char *label, const char *s, size_t len, Diag *d);
SymExpr *sym_parse_infix(Arena *a, const char *label, const char *s, size_t len, Diag *d);
/* Infix text: "2*s3", "s0 + 1", "(s0//2)", "Max(s0, 4)".  Deterministic. */
char *sym_print(Arena *a, const SymExpr *e);
/* Evaluates with symbol values from lookup (returns 0 if a name is unknown).
 * Returns 1 and sets *out on success, 0 if unknown symbol or undefined (x//0). */
int sym_eval(const SymExpr *e, int (*lookup)(void *ctx, const char *name, int64_t *v),
             void *ctx, int64_t *out);
/* 1 when the trees are equal (same op, values, names and args in order). */
int sym_equal(const SymExpr *a, const SymExpr *b);

#endif
