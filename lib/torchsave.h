/* torchsave.h: read a torch.save zip (data.pkl plus data/<key> records).
 *
 * Runs the pickle, then gives torch's rebuild calls their meaning:
 * _rebuild_tensor_v2/_v3 and _rebuild_parameter(_with_state) become
 * PY_TENSOR objects whose storage points at the data/<key> record in the
 * mapped file.  Used for the state dict and constants of torch <= 2.8
 * files and for the sample inputs of every version. */
#ifndef TORCHSAVE_H
#define TORCHSAVE_H

#include <stddef.h>
#include <stdint.h>

#include "pickle.h"

/* Returns the unpickled top-level object, or NULL with a DIAG_INPUT
 * message naming label (the outer file and entry) and what is wrong. */
PyObj *torchsave_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d);

#endif
