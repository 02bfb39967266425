/* verify/internal.h: private to lib/verify/: the onnxruntime calls
 * (ort.c) and the comparison (compare.c) that verify.c and modules.c put
 * together. */
#ifndef VERIFY_INTERNAL_H
#define VERIFY_INTERNAL_H

#include "verify/verify.h"

typedef struct OrtSession OrtSession;

/* A session of the model in the file at path, or (path NULL) in
 * bytes[0..len).  Returns NULL, or onnxruntime's message (arena). */
const char *ort_session(VerifyOrt *o, Arena *a, const char *path, const void *bytes, size_t len,
                        OrtSession **out);
void ort_session_close(VerifyOrt *o, OrtSession *s);
/* One run: in[] fed by name, out[i] read by out[i].name and filled with
 * the dtype, shape and bytes (arena) onnxruntime computed.  Returns NULL
 * or onnxruntime's message. */
const char *ort_run(VerifyOrt *o, Arena *a, OrtSession *s, int nin, const VerifyTensor *in,
                    int nout, VerifyTensor *out);

/* Elements of t (1 for rank 0). */
int64_t verify_numel(const VerifyTensor *t);
/* Compares got (what onnxruntime computed) with want (torch's: values, or
 * only dtype and shape when want->data is NULL) into row; tol_abs <= 0
 * takes the dtype's defaults.  Returns row->ok. */
int verify_compare(Arena *a, const VerifyTensor *got, const VerifyTensor *want, double tol_abs,
                   int nan_allowed, VerifyRow *row);

#endif
