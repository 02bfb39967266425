/* xlsxload.c: libxlsxwriter, loaded when the first report is written.
 *
 * The binary does not link the library: its own dependencies (libcrypto
 * among them) took about 5 M instructions of relocation in every process,
 * with `report: false` too.  report_load() dlopen()s it once per process
 * (pthread_once, so the pipeline can load it on its report thread while
 * the conversion runs) and fills xlsx_api from xlsxapi.def.  Which file:
 * $YOBX_XLSXWRITER when set (tests point it at a missing file), else the
 * soname the build linked its configure test against (XLSX_SONAME). */
#define _GNU_SOURCE
#include "report/internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef XLSX_SONAME
#define XLSX_SONAME "libxlsxwriter.so.4"
#endif

XlsxApi xlsx_api;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char failure[512];   /* why the load failed; "" once it worked */

static void
load(void)
{
	const char *env = getenv("YOBX_XLSXWRITER");
	const char *path = env && *env ? env : XLSX_SONAME;
	const char *from = env && *env ? " (from YOBX_XLSXWRITER)" : "";
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	const char *why;

	if (!h) {
		why = dlerror();
		snprintf(failure, sizeof failure, "cannot load libxlsxwriter, %s%s: %s (apt-get install libxlsxwriter4, "
		         "or `report: false`)", path, from, why ? why : "unknown error");
		return;
	}
#define X(name) \
	if (!(*(void **)&xlsx_api.name = dlsym(h, #name))) { \
		snprintf(failure, sizeof failure, "%s%s has no function %s: not libxlsxwriter 1.0 or newer", \
		         path, from, #name); \
		return; \
	}
#include "report/xlsxapi.def"
#undef X
}

int
report_load(const char **why)
{
	pthread_once(&once, load);
	if (failure[0]) {
		*why = failure;
		return -1;
	}
	return 0;
}
