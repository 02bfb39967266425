/* domains.c: the custom domains a model imports.
 *
 * Every domain a lowering writes a node in, other than ai.onnx, is declared
 * through lower_import() with its version (a custom_ops entry's, a
 * torch.onnx.ops.symbolic node's) and written to the model's opset_import
 * after ai.onnx, in first-use order.  A model imports a domain once, so
 * two versions of one domain are an error at the second node.  Its own
 * file: the ops/ lowerings call it, and it calls nothing of the op table. */
#include <string.h>

#include "lower/lower.h"
#include "internal.h"

/* The domains the nodes use, in first-use order (shared by every scope). */
struct LowerImports {
	int n, cap;
	const char **dom;
	int *ver;
};

struct LowerImports *
lower_imports_new(Arena *a)
{
	return ARENA_NEW(a, struct LowerImports);
}

int
lower_import(LowerCtx *c, const Node *n, const char *domain, int version)
{
	struct LowerImports *im = c->imports;

	if (!domain || !*domain || strcmp(domain, "ai.onnx") == 0)
		return 0;
	for (int i = 0; i < im->n; i++) {
		if (strcmp(im->dom[i], domain) != 0)
			continue;
		if (im->ver[i] == version)
			return 0;
		return lower_fail(c, n, "domain '%s' at version %d, but an earlier node imports it at version %d "
		                  "(a model imports each domain once)", domain, version, im->ver[i]);
	}
	if (im->n == im->cap) {
		int cap = im->cap ? im->cap * 2 : 4;
		const char **nd = ARENA_ARRAY(c->a, const char *, cap);
		int *nv = ARENA_ARRAY(c->a, int, cap);
		if (im->n) {
			memcpy(nd, im->dom, sizeof *nd * (size_t)im->n);
			memcpy(nv, im->ver, sizeof *nv * (size_t)im->n);
		}
		im->dom = nd, im->ver = nv, im->cap = cap;
	}
	im->dom[im->n] = domain;
	im->ver[im->n++] = version;
	return 0;
}

void
lower_custom_imports(LowerCtx *c, Onnx__ModelProto *m)
{
	const struct LowerImports *im = c->imports;
	Onnx__OperatorSetIdProto **ni;

	if (!im || !im->n)
		return;
	ni = ARENA_ARRAY(c->a, Onnx__OperatorSetIdProto *, m->n_opset_import + (size_t)im->n);
	memcpy(ni, m->opset_import, sizeof *ni * m->n_opset_import);
	for (int i = 0; i < im->n; i++) {
		Onnx__OperatorSetIdProto *op = ARENA_NEW(c->a, Onnx__OperatorSetIdProto);
		*op = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
		op->domain = (char *)im->dom[i];
		op->has_version = 1;
		op->version = im->ver[i];
		ni[m->n_opset_import++] = op;
	}
	m->opset_import = ni;
}

