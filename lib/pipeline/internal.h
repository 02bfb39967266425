/* pipeline/internal.h: what pipeline.c and capture.c share, inside the
 * pipeline layer only. */
#ifndef PIPELINE_INTERNAL_H
#define PIPELINE_INTERNAL_H

#include "pipeline/pipeline.h"

/* CLOCK_MONOTONIC in seconds. */
double pipeline_now(void);
/* Lowers pl->prog (unless pl->model already holds an ONNX input) and
 * optimizes the model, timing both phases.  Returns 0 or the Diag's code;
 * a lowering failure fills the report's unsupported rows. */
int pipeline_convert(Pipeline *pl, Diag *d);
/* For an ONNX model in pl->model (label names it): checks it is well
 * formed (onnx_model_check) and of an opset the optimizer knows, and sets
 * the target opset to the model's own; fails (YE_OPTIONS_VALUE) when the
 * options ask for another. */
int pipeline_onnx_opset(Pipeline *pl, const char *label, Diag *d);
/* Tries the captures of pl->bundle in the options' order (capture.c) and
 * keeps the first that converts in pl.  Returns 0, or DIAG_CONVERT when
 * none does (a note per capture says why); the captures rows are in the
 * report either way. */
int pipeline_convert_bundle(Pipeline *pl, Diag *d);

#endif
