/* internal.h: private to lib/pipeline/: what options.c and options_custom.c
 * share.  Nothing outside lib/pipeline/ includes it. */
#ifndef PIPELINE_INTERNAL_H
#define PIPELINE_INTERNAL_H

#include <yaml.h>

#include "pipeline/pipeline.h"

/* options_custom.c */
/* Reads the value v of `custom_ops` into o->custom_ops.  Returns 0 or
 * DIAG_INPUT with "label:line:col: ..." in d. */
int options_custom_ops(Options *o, Arena *a, yaml_document_t *doc, yaml_node_t *v, const char *label, Diag *d);
/* Checks the `nodes:` op types against lib/onnx/onnxops.def at o->opset,
 * once the whole file is read.  Returns 0 or DIAG_INPUT. */
int options_custom_check(const Options *o, Diag *d);

#endif
