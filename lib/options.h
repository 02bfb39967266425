/* options.h: conversion options, read from a YAML file (-c FILE).
 *
 * The keys are the rows of options.def; docs/options.md is generated from
 * them.  Errors read "options.yaml:3:7: unknown key 'opsett'" (1-based
 * line and column of the offending node) and are DIAG_INPUT. */
#ifndef OPTIONS_H
#define OPTIONS_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "diag.h"
#include "dimname.h"

#define OPTIONS_OPSET_MIN 17
#define OPTIONS_OPSET_MAX 23

typedef struct Options {
	int opset;                      /* target ai.onnx opset, 17..23 */
	int noutput_name;
	const char **output_names;      /* renames of the user outputs, in order (arena) */
	int64_t external_data_threshold;/* bytes; initializers this large go to OUT.data */
	int ndim_request;
	DimRequest *dim_requests;       /* dynamic_dimensions, in file order (arena) */
	int keep_assertions;            /* 1: _assert_scalar becomes a run-time check */
	const char *label;              /* the options file, for messages ("options" when none) */
	int report;                     /* 1: write OUT.xlsx */
	int report_timings;             /* 1: the report holds measured times; 0: zeros */
	const char **given;             /* by key index: the value as the file wrote it, or NULL (arena) */
	struct OptSelect *patterns;     /* optimizer rows to run (lib/opt.h); NULL: the default set */
} Options;

/* The defaults: opset 18, no renames, 1 MiB threshold, no dim names,
 * assertions dropped. */
void options_default(Options *o);
/* Reads the YAML file at path over the defaults already in o.  Returns 0,
 * or DIAG_INPUT with "path:line:col: what" lines. */
int options_load(Options *o, Arena *a, const char *path, Diag *d);
/* Same, from text in memory; label names it in messages. */
int options_parse(Options *o, Arena *a, const char *label, const char *text, size_t len, Diag *d);
/* The keys of the table, in its order: how many, the i-th key, and its
 * effective value in o as text (the file's value as written, flow style
 * for lists and mappings, or the table's default). */
int options_count(void);
const char *options_key(int i);
const char *options_value(const Options *o, int i);
/* Writes docs/options.md from the key table. */
void options_write_doc(FILE *f);

#endif
