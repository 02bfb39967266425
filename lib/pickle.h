/* pickle.h: the subset of Python's pickle that torch.save writes.
 *
 * pickle_load() runs the pickle machine and returns a tree of PyObj.  It
 * knows nothing about torch: GLOBAL yields a PY_GLOBAL ("module", "name"),
 * REDUCE yields a PY_CALL (callable, args tuple) unless the callable is
 * collections.OrderedDict (a PY_DICT), BINPERSID yields a PY_PERSID holding
 * the persistent id, BUILD attaches state to a PY_CALL.  torchsave.c gives
 * these calls their torch meaning.  Opcodes: protocol 0-5 binary subset
 * listed in shared/docs/pt2-format.md section 2.1. */
#ifndef PICKLE_H
#define PICKLE_H

#include <stdint.h>
#include <stddef.h>

#include "arena.h"
#include "diag.h"

typedef enum PyKind {
	PY_NONE, PY_BOOL, PY_INT, PY_FLOAT, PY_STR, PY_BYTES,
	PY_TUPLE, PY_LIST, PY_DICT, PY_GLOBAL, PY_CALL, PY_PERSID, PY_MARK,
	PY_TENSOR   /* never made by pickle_load: torchsave.c replaces rebuild calls with it */
} PyKind;

typedef struct PyObj PyObj;
struct PyObj {
	PyKind kind;
	int64_t i;          /* PY_BOOL, PY_INT (LONG1 values that do not fit are an error) */
	double f;           /* PY_FLOAT */
	const char *s;      /* PY_STR, PY_BYTES: bytes (NUL-terminated copy); PY_GLOBAL: module */
	const char *name;   /* PY_GLOBAL: attribute name */
	size_t n;           /* PY_STR/PY_BYTES: length; TUPLE/LIST/DICT: item count */
	PyObj **items;      /* TUPLE/LIST: items; DICT: keys (n of them) */
	PyObj **values;     /* DICT: values[i] belongs to items[i] */
	size_t cap;         /* LIST/DICT: allocated slots */
	PyObj *func;        /* PY_CALL: the callable (usually a PY_GLOBAL) */
	PyObj *args;        /* PY_CALL: the argument tuple; PY_PERSID: the id object */
	PyObj *state;       /* PY_CALL: what BUILD set, or NULL */
	struct TensorData *tensor; /* PY_TENSOR */
};

/* Runs the pickle in buf[0..len).  Returns the object STOP leaves, or NULL
 * with a DIAG_INPUT message "label: offset N: what" (bad opcode, stack
 * underflow, truncated data, memo index out of range, ...). */
PyObj *pickle_load(Arena *a, const char *label, const uint8_t *buf, size_t len, Diag *d);

/* 1 if o is the global module.name */
int py_is_global(const PyObj *o, const char *module, const char *name);
/* Returns d[key] for a dict with string keys, or NULL. */
PyObj *py_dict_get(const PyObj *d, const char *key);

#endif
