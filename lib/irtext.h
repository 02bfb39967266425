/* irtext.h: read a Program from its text form (docs/text-graph.md).
 *
 * The text form is what `yobx-export --print` writes, read back, plus a
 * few additions a hand-written graph needs: weight values (inline or a
 * deterministic fill), optional sections (no `inputs`/`outputs` means every
 * graph input is a user input and every graph output a user output), `#`
 * comment lines, and a line starting with `===` that ends the graph (the
 * lowering goldens of test/lower/ keep their expected ONNX after it).
 * It builds the same Program the .pt2 reader builds, weights in the arena. */
#ifndef IRTEXT_H
#define IRTEXT_H

#include <stddef.h>

#include "diag.h"
#include "ir.h"

/* Returns 1 when the file at path starts like a text graph (after blank
 * lines: '#', "program ", "symbols", "inputs", "outputs", "samples" or
 * "graph "), 0 otherwise (a zip, a missing file: left to pt2_load). */
int irtext_sniff(const char *path);
/* Reads the text graph at path into p (p->arena must be set).  Returns 0
 * or DIAG_INPUT with one message "path:line:col: what is wrong". */
int irtext_load(Program *p, const char *path, Diag *d);
/* The same from text[0..len) (NUL-terminated); label names it in messages. */
int irtext_parse(Program *p, const char *label, const char *text, size_t len, Diag *d);

#endif
