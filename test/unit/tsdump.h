/* tsdump.h: a TsAst as text, for test_tsparse and fuzz_tsparse.
 *
 * Expressions print as prefix forms, (call f 1 k=2), (+ a b), (. a name),
 * statements one a line as "line:col kind ..." indented by their depth,
 * classes and defs with their declarations.  The walk also checks what
 * every tree must hold (positions inside the text, 1-based lines, a call's
 * positional arguments before its keywords, kinds in range) and reports
 * the first breach through ts_dump_bad, so the fuzzer can abort on it. */
#ifndef TSDUMP_H
#define TSDUMP_H

#include <stdio.h>
#include <string.h>

#include "read/ts/ts.h"

typedef struct TsDumpCheck {
	size_t len;             /* the text's length: every ofs is below it */
	const char *bad;        /* the first breach found, or NULL */
} TsDumpCheck;

static void ts_dump_expr(FILE *f, const TsExpr *e, TsDumpCheck *ck, int depth);

static inline void
ts_dump_where(TsDumpCheck *ck, uint32_t ofs, uint32_t line, uint32_t col, int depth)
{
	if (!ck->bad && (ofs > ck->len || line < 1 || col < 1))
		ck->bad = "position outside the text";
	if (!ck->bad && depth > 4 * TS_MAX_NEST + 8)
		ck->bad = "tree deeper than the nesting limit allows";
}

static inline void
ts_dump_str(FILE *f, const char *s, size_t n)
{
	fputc('"', f);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
	fputc('"', f);
}

static inline const char *
ts_dump_binop(int op)
{
	static const char *const names[] = {
		[TB_ADD] = "+", [TB_SUB] = "-", [TB_MUL] = "*", [TB_DIV] = "/", [TB_FLOORDIV] = "//",
		[TB_MOD] = "%", [TB_POW] = "**", [TB_MATMUL] = "@", [TB_AND] = "&", [TB_OR] = "|",
		[TB_XOR] = "^", [TB_SHL] = "<<", [TB_SHR] = ">>", [TB_EQ] = "==", [TB_NE] = "!=",
		[TB_LT] = "<", [TB_LE] = "<=", [TB_GT] = ">", [TB_GE] = ">=", [TB_IS] = "is",
		[TB_ISNOT] = "is-not", [TB_IN] = "in", [TB_NOTIN] = "not-in",
	};

	return op >= 0 && op <= TB_NOTIN ? names[op] : "?";
}

static inline void
ts_dump_items(FILE *f, const TsExpr *e, TsDumpCheck *ck, int depth)
{
	for (int k = 0; k < e->nitem; k++) {
		fputc(' ', f);
		ts_dump_expr(f, e->items[k], ck, depth + 1);
	}
}

static void
ts_dump_expr(FILE *f, const TsExpr *e, TsDumpCheck *ck, int depth)
{
	if (!e) {
		fputc('_', f);
		return;
	}
	ts_dump_where(ck, e->ofs, e->line, e->col, depth);
	if (ck->bad) {
		fputs("...", f);
		return;
	}
	switch (e->kind) {
	case TE_NAME: fputs(e->s, f); break;
	case TE_INT: fprintf(f, "%lld", (long long)e->i); break;
	case TE_FLOAT: fprintf(f, "%.17gf", e->f); break;
	case TE_IMAG: fprintf(f, "%.17gj", e->f); break;
	case TE_STR:
		if (e->s[e->n] != 0)
			ck->bad = "string not NUL-terminated at n";
		ts_dump_str(f, e->s, e->n);
		break;
	case TE_NONE: fputs("None", f); break;
	case TE_TRUE: fputs("True", f); break;
	case TE_FALSE: fputs("False", f); break;
	case TE_ATTR:
		fputs("(. ", f);
		ts_dump_expr(f, e->a, ck, depth + 1);
		fprintf(f, " %s)", e->s);
		break;
	case TE_CALL: {
		int seen_kw = 0;

		fputs("(call ", f);
		ts_dump_expr(f, e->a, ck, depth + 1);
		for (int k = 0; k < e->nitem; k++) {
			fputc(' ', f);
			if (e->kw[k]) {
				fprintf(f, "%s=", e->kw[k]);
				seen_kw = 1;
			} else if (seen_kw && !ck->bad) {
				ck->bad = "positional argument after a keyword";
			}
			ts_dump_expr(f, e->items[k], ck, depth + 1);
		}
		fputc(')', f);
		break;
	}
	case TE_INDEX:
		fputs("(index ", f);
		ts_dump_expr(f, e->a, ck, depth + 1);
		fputc(' ', f);
		ts_dump_expr(f, e->b, ck, depth + 1);
		fputc(')', f);
		break;
	case TE_SLICE:
		if (e->nitem != 3 && !ck->bad)
			ck->bad = "slice without three parts";
		fputs("(slice", f);
		ts_dump_items(f, e, ck, depth);
		fputc(')', f);
		break;
	case TE_TUPLE: case TE_LIST: case TE_DICT:
		if (e->kind == TE_DICT && e->nitem % 2 && !ck->bad)
			ck->bad = "dict with an odd number of items";
		fputs(e->kind == TE_TUPLE ? "(tuple" : e->kind == TE_LIST ? "(list" : "(dict", f);
		ts_dump_items(f, e, ck, depth);
		fputc(')', f);
		break;
	case TE_UNARY:
		fprintf(f, "(%s ", e->op == 'n' ? "not" : e->op == '-' ? "neg" : e->op == '+' ? "pos" : "inv");
		ts_dump_expr(f, e->a, ck, depth + 1);
		fputc(')', f);
		break;
	case TE_BINARY: case TE_COMPARE: case TE_BOOL:
		fprintf(f, "(%s ", e->kind == TE_BOOL ? (e->op == 'a' ? "and" : "or") : ts_dump_binop(e->op));
		ts_dump_expr(f, e->a, ck, depth + 1);
		fputc(' ', f);
		ts_dump_expr(f, e->b, ck, depth + 1);
		fputc(')', f);
		break;
	case TE_IFEXP:
		if (e->nitem != 1 && !ck->bad)
			ck->bad = "conditional expression without its value";
		fputs("(if ", f);
		ts_dump_expr(f, e->a, ck, depth + 1);
		fputc(' ', f);
		ts_dump_expr(f, e->nitem ? e->items[0] : NULL, ck, depth + 1);
		fputc(' ', f);
		ts_dump_expr(f, e->b, ck, depth + 1);
		fputc(')', f);
		break;
	default:
		ck->bad = "expression kind out of range";
	}
}

static void ts_dump_def(FILE *f, const TsDef *d, int indent, TsDumpCheck *ck, int depth);

static inline void
ts_dump_body(FILE *f, const char *label, TsStmt *const *body, int n, int indent, TsDumpCheck *ck, int depth);

static inline void
ts_dump_stmt(FILE *f, const TsStmt *s, int indent, TsDumpCheck *ck, int depth)
{
	static const char *const kinds[] = {
		[TS_EXPR] = "expr", [TS_ASSIGN] = "assign", [TS_AUGASSIGN] = "augassign",
		[TS_ANNASSIGN] = "annassign", [TS_RETURN] = "return", [TS_IF] = "if", [TS_FOR] = "for",
		[TS_WHILE] = "while", [TS_PASS] = "pass", [TS_BREAK] = "break", [TS_CONTINUE] = "continue",
		[TS_RAISE] = "raise", [TS_ASSERT] = "assert", [TS_DEL] = "del", [TS_WITH] = "with",
		[TS_DEF] = "def",
	};

	ts_dump_where(ck, s->ofs, s->line, s->col, depth);
	if ((unsigned)s->kind > TS_DEF) {
		ck->bad = "statement kind out of range";
		return;
	}
	fprintf(f, "%*s%u:%u %s", indent, "", s->line, s->col, kinds[s->kind]);
	if (s->kind == TS_AUGASSIGN)
		fprintf(f, " %s", ts_dump_binop(s->op));
	if (s->target && s->kind != TS_WITH) {
		fputc(' ', f);
		ts_dump_expr(f, s->target, ck, depth + 1);
	}
	if (s->type) {
		fputs(" : ", f);
		ts_dump_expr(f, s->type, ck, depth + 1);
	}
	if (s->value) {
		fputs(s->kind == TS_ASSIGN || s->kind == TS_AUGASSIGN || s->kind == TS_ANNASSIGN ? " = " :
		      s->kind == TS_FOR ? " in " : " ", f);
		ts_dump_expr(f, s->value, ck, depth + 1);
	}
	if (s->target && s->kind == TS_WITH) {
		fputs(" as ", f);
		ts_dump_expr(f, s->target, ck, depth + 1);
	}
	if (s->msg) {
		fputs(", ", f);
		ts_dump_expr(f, s->msg, ck, depth + 1);
	}
	fputc('\n', f);
	if (s->kind == TS_DEF) {
		if (s->def)
			ts_dump_def(f, s->def, indent + 2, ck, depth + 1);
		else
			ck->bad = "nested def without its TsDef";
	}
	ts_dump_body(f, NULL, s->body, s->nbody, indent + 2, ck, depth + 1);
	ts_dump_body(f, "else", s->orelse, s->norelse, indent, ck, depth + 1);
}

static inline void
ts_dump_body(FILE *f, const char *label, TsStmt *const *body, int n, int indent, TsDumpCheck *ck, int depth)
{
	if (n && label)
		fprintf(f, "%*s%s\n", indent, "", label);
	for (int k = 0; k < n && !ck->bad; k++)
		ts_dump_stmt(f, body[k], label ? indent + 2 : indent, ck, depth);
}

static void
ts_dump_def(FILE *f, const TsDef *d, int indent, TsDumpCheck *ck, int depth)
{
	ts_dump_where(ck, d->ofs, d->line, 1, depth);
	fprintf(f, "%*s%u def %s(", indent, "", d->line, d->name);
	for (int k = 0; k < d->nparam; k++) {
		fprintf(f, "%s%s", k ? ", " : "", d->params[k].name);
		if (d->params[k].type) {
			fputs(": ", f);
			ts_dump_expr(f, d->params[k].type, ck, depth + 1);
		}
		if (d->params[k].def) {
			fputs("=", f);
			ts_dump_expr(f, d->params[k].def, ck, depth + 1);
		}
	}
	fputs(")", f);
	if (d->ret) {
		fputs(" -> ", f);
		ts_dump_expr(f, d->ret, ck, depth + 1);
	}
	fputc('\n', f);
	ts_dump_body(f, NULL, d->body, d->nbody, indent + 2, ck, depth + 1);
}

/* The whole tree; returns the first breach of the invariants, or NULL. */
static inline const char *
ts_dump(FILE *f, const TsAst *ast, size_t len)
{
	TsDumpCheck ck = {len, NULL};

	for (int k = 0; k < ast->nclass && !ck.bad; k++) {
		const TsClass *c = &ast->classes[k];

		fprintf(f, "%u class %s(%s)\n", c->line, c->name, c->base ? c->base : "");
		fputs("  parameters", f);
		for (int i = 0; i < c->nparameter; i++)
			fprintf(f, " %s", c->parameters[i]);
		fputs("\n  buffers", f);
		for (int i = 0; i < c->nbuffer; i++)
			fprintf(f, " %s", c->buffers[i]);
		fputc('\n', f);
		for (int i = 0; i < c->nattr; i++) {
			fprintf(f, "  attr %s : ", c->attrs[i].name);
			ts_dump_expr(f, c->attrs[i].type, &ck, 1);
			fputc('\n', f);
		}
		for (int i = 0; i < c->nconst; i++) {
			fprintf(f, "  const %s = ", c->const_names[i]);
			ts_dump_expr(f, c->const_values[i], &ck, 1);
			fputc('\n', f);
		}
		for (int i = 0; i < c->ndef; i++)
			ts_dump_def(f, &c->defs[i], 2, &ck, 1);
	}
	for (int k = 0; k < ast->ndef && !ck.bad; k++)
		ts_dump_def(f, &ast->defs[k], 0, &ck, 0);
	return ck.bad;
}

#endif
