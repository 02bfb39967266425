/* render.c: the forms a Diag leaves the process in.  The text lines of
 * today (what test/run-cli.sh and test/bad check, byte for byte), a JSON
 * document for scripts (--diagnostics=json), and SARIF 2.1.0 for code
 * scanning (--sarif FILE: GitHub, GitLab).  Every form is built from the
 * same DiagItems; the text of each item is diag_format()'s. */
#include "render.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef VERSION
#error "VERSION is defined by the Makefile from configure.ac (-DVERSION)"
#endif

#define SARIF_SCHEMA "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

void
render_text(FILE *f, const Diag *d)
{
	char small[512];

	/* one prefix for the block, as the tool always printed it */
	if (d->n)
		fputs("yobx-export: ", f);
	for (int i = 0; i < d->n; i++) {
		size_t n = diag_format(&d->items[i], small, sizeof small);
		char *buf = n < sizeof small ? small : malloc(n + 1);
		if (!buf)
			die("out of memory");
		if (buf != small)
			diag_format(&d->items[i], buf, n + 1);
		fputs(buf, f);
		fputc('\n', f);
		if (buf != small)
			free(buf);
	}
}

/* ---- JSON ---- */

/* Length of the valid UTF-8 sequence at s (1 to 4), or 0 if it is not one. */
static int
utf8_len(const unsigned char *s)
{
	int n = s[0] < 0x80 ? 1 : (s[0] & 0xE0) == 0xC0 ? 2 : (s[0] & 0xF0) == 0xE0 ? 3 : (s[0] & 0xF8) == 0xF0 ? 4 : 0;
	unsigned cp;

	if (n <= 1)
		return n;
	cp = s[0] & (0x7F >> n);
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates, past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
	    (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

/* A JSON string, or null for NULL.  Messages can quote bytes of the input
 * file, so bytes that are not UTF-8 become U+FFFD. */
static void
jstr(FILE *f, const char *s)
{
	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int n = utf8_len(p);
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", f);
		else if (*p == '\t')
			fputs("\\t", f);
		else if (*p < 0x20 || *p == 0x7F)
			fprintf(f, "\\u%04x", *p);
		else if (n == 0)
			fputs("\\ufffd", f);
		else
			fwrite(p, 1, (size_t)n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

static void
jnum_or_null(FILE *f, unsigned v)
{
	if (v)
		fprintf(f, "%u", v);
	else
		fputs("null", f);
}

void
render_json(FILE *f, const Diag *d, int exit_status)
{
	fputs("{\"version\":1,\"diagnostics\":[", f);
	for (int i = 0; i < d->n; i++) {
		const DiagItem *it = &d->items[i];
		const DiagInfo *r = diag_info(it->code);
		fprintf(f, "%s\n{\"code\":\"%s\",\"name\":\"%s\",\"severity\":\"%s\",\"file\":", i ? "," : "",
		        r->id, r->name, diag_severity_name(r->severity));
		jstr(f, it->file);
		fputs(",\"entry\":", f);
		jstr(f, it->entry);
		fputs(",\"line\":", f);
		jnum_or_null(f, it->at.line);
		fputs(",\"column\":", f);
		jnum_or_null(f, it->at.column);
		fputs(",\"graph\":", f);
		jstr(f, it->at.graph);
		fputs(",\"node\":", f);
		jstr(f, it->at.node);
		fputs(",\"target\":", f);
		jstr(f, it->at.target);
		fputs(",\"frame\":", f);
		if (it->frame.file) {
			fputs("{\"file\":", f);
			jstr(f, it->frame.file);
			fputs(",\"line\":", f);
			jnum_or_null(f, it->frame.line);
			if (it->frame.column)
				fprintf(f, ",\"column\":%u", it->frame.column);
			fputs(",\"function\":", f);
			jstr(f, it->frame.function);
			fputs(",\"text\":", f);
			jstr(f, it->at.frame);
			fputc('}', f);
		} else {
			fputs("null", f);
		}
		fputs(",\"message\":", f);
		jstr(f, it->message);
		fputc('}', f);
	}
	fprintf(f, "%s],\"exit_status\":%d}\n", d->n ? "\n" : "", exit_status);
}

/* ---- SARIF ---- */

/* A path as a URI reference: absolute paths become file:// URIs, relative
 * ones stay relative (to the directory code scanning runs in); bytes other
 * than RFC 3986's unreserved ones and '/' are percent-encoded. */
static void
juri(FILE *f, const char *path)
{
	static const char hex[] = "0123456789ABCDEF";

	fputc('"', f);
	if (path[0] == '/')
		fputs("file://", f);
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%c%c", hex[*p >> 4], hex[*p & 15]);
	}
	fputc('"', f);
}

static const char *
sarif_level(DiagSeverity s)
{
	return s == DIAG_SEV_ERROR ? "error" : s == DIAG_SEV_WARNING ? "warning" : "note";
}

static void
sarif_rules(FILE *f)
{
	for (int i = 1; i < YE_COUNT; i++) {
		const DiagInfo *r = diag_info((DiagCode)i);
		fprintf(f, "%s\n{\"id\":\"%s\",\"name\":\"%s\",\"shortDescription\":{\"text\":", i > 1 ? "," : "",
		        r->id, r->name);
		jstr(f, r->help);
		fputs("},\"fullDescription\":{\"text\":", f);
		jstr(f, r->what);
		fputs("},\"help\":{\"text\":", f);
		jstr(f, r->what);
		fprintf(f, "},\"defaultConfiguration\":{\"level\":\"%s\"}}", sarif_level(r->severity));
	}
}

/* The item's place: the user's source line when there is a frame, else the
 * file it names (the options file at a line, the dump), else the dump. */
static void
sarif_location(FILE *f, const DiagItem *it, const char *dump)
{
	const char *file = it->frame.file ? it->frame.file : it->file ? it->file : dump;
	unsigned line = it->frame.file ? it->frame.line : it->entry ? 0 : it->at.line;
	unsigned col = it->frame.file ? it->frame.column : it->entry ? 0 : it->at.column;

	fputs("{\"physicalLocation\":{\"artifactLocation\":{\"uri\":", f);
	juri(f, file);
	if (strcmp(file, dump) == 0)
		fputs(",\"index\":0", f);
	fputc('}', f);
	if (line) {
		fprintf(f, ",\"region\":{\"startLine\":%u", line);
		if (col)
			fprintf(f, ",\"startColumn\":%u", col);
		fputc('}', f);
	}
	fputc('}', f);
	if (it->at.node) {
		/* the node is a member of its graph: "main_graph/addmm_3" */
		const char *graph = it->at.graph ? it->at.graph : "main_graph";
		size_t n = strlen(graph) + strlen(it->at.node) + 2;
		char *fqn = malloc(n);
		if (!fqn)
			die("out of memory");
		snprintf(fqn, n, "%s/%s", graph, it->at.node);
		fputs(",\"logicalLocations\":[{\"name\":", f);
		jstr(f, it->at.node);
		fputs(",\"fullyQualifiedName\":", f);
		jstr(f, fqn);
		fputs(",\"kind\":\"member\"}]", f);
		free(fqn);
	}
	fputc('}', f);
}

void
render_sarif(FILE *f, const Diag *d, const char *dump, int exit_status)
{
	fputs("{\"$schema\":\"" SARIF_SCHEMA "\",\"version\":\"2.1.0\",\"runs\":[{\"tool\":{\"driver\":{"
	      "\"name\":\"yobx-export\",\"version\":\"" VERSION "\","
	      "\"rules\":[", f);
	sarif_rules(f);
	fputs("]}},\n\"artifacts\":[{\"location\":{\"uri\":", f);
	juri(f, dump);
	fputs("},\"roles\":[\"analysisTarget\"]}],\n", f);
	fprintf(f, "\"invocations\":[{\"executionSuccessful\":%s,\"exitCode\":%d}],\n\"results\":[",
	        exit_status ? "false" : "true", exit_status);
	for (int i = 0; i < d->n; i++) {
		const DiagItem *it = &d->items[i];
		const DiagInfo *r = diag_info(it->code);
		fprintf(f, "%s\n{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\",\"message\":{\"text\":",
		        i ? "," : "", r->id, (int)it->code - 1, sarif_level(r->severity));
		jstr(f, it->message);
		fputs("},\"locations\":[", f);
		sarif_location(f, it, dump);
		fputs("]}", f);
	}
	fprintf(f, "%s]}]}\n", d->n ? "\n" : "");
}

int
render_to_file(const char *path, RenderFn fn, const void *ctx)
{
	Durable out;
	int fd, err;

	durable_init(&out);
	if ((fd = durable_open(&out, path)) < 0)
		return errno;
	if ((err = render_to_fd(fd, fn, ctx))) {
		durable_abort(&out);
		return err;
	}
	return durable_commit(&out, NULL);
}

int
render_to_fd(int fd, RenderFn fn, const void *ctx)
{
	FILE *f = NULL;
	int copy, err = 0;

	if ((copy = dup(fd)) < 0 || !(f = fdopen(copy, "w"))) {
		err = errno;
		if (copy >= 0)
			close(copy);
	} else {
		fn(f, ctx);
		if (ferror(f))
			err = EIO;
		if (fclose(f) != 0 && !err)
			err = errno;
	}
	return err;
}
