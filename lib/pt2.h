/* pt2.h: open a file written by torch.export.save as a Program.
 *
 * Detects the container (the flat zip of torch 2.6/2.7, the PT2 archive of
 * 2.8 with pickled weights, the PT2 archive of 2.9+ with raw weight files
 * and JSON configs), reads the program JSON into the IR, and binds every
 * parameter, buffer and constant to its bytes in the mapped file. */
#ifndef PT2_H
#define PT2_H

#include "diag.h"
#include "ir.h"

/* Reads path into p (p->arena must be set).  Returns 0, or DIAG_INPUT with
 * messages naming the file, the entry and what is wrong.  pt2_close()
 * releases the mapping whatever the result. */
int pt2_load(Program *p, const char *path, Diag *d);
void pt2_close(Program *p);

#endif
