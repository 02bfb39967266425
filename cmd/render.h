/* render.h: how the command line shows a Diag (cmd/render.c).  lib/ only
 * fills diagnostics; these are the three forms they leave the process in. */
#ifndef RENDER_H
#define RENDER_H

#include <stdio.h>

#include "core/core.h"

/* The text of every item, one line each, the first after "yobx-export: ". */
void render_text(FILE *f, const Diag *d);

/* { "version": 1, "diagnostics": [...], "exit_status": N } and a newline. */
void render_json(FILE *f, const Diag *d, int exit_status);

/* A SARIF 2.1.0 log of one run: the rules of diag.def, one result per item,
 * dump as the analysed artifact. */
void render_sarif(FILE *f, const Diag *d, const char *dump, int exit_status);

/* Writes path with fn (one of the above, through a small adapter), through
 * a temporary file made durable and renamed into place (core's durable_*);
 * returns 0 or an errno value. */
typedef void (*RenderFn)(FILE *f, const void *ctx);
int render_to_file(const char *path, RenderFn fn, const void *ctx);
/* Writes fn's output to fd (left open: a temporary file of a Durable the
 * caller commits); returns 0 or an errno value. */
int render_to_fd(int fd, RenderFn fn, const void *ctx);

#endif
