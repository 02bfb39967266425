/* mkdocs: prints a document generated from a table, so the docs cannot
 * drift from the code: `mkdocs ops` gives docs/ops.md (the ops/ .def files),
 * `mkdocs options` gives docs/options.md (lib/pipeline/options.def), `mkdocs
 * patterns` gives docs/patterns.md (lib/opt/patterns.def), `mkdocs
 * diagnostics` gives docs/diagnostics.md (lib/core/diag.def).  Built and
 * run by `make docs` (ops/ops.mk); test_ops, test_options, test_opt and
 * test_diag compare.
 * `mkdocs man` gives the man page yobx-export.1 from cmd/usage.def (the
 * table --help is built from) and lib/pipeline/options.def; mk/install.mk
 * makes it into the build directory, and test/install/run.sh renders it. */
#include <stdio.h>
#include <string.h>

#include "core/core.h"
#include "lower/lower.h"
#include "opt/opt.h"
#include "pipeline/pipeline.h"

#define USAGE_PROSE(id, text) static const char prose_##id[] = text;
#include "../usage.def"

static const struct {
	const char *name, *alias, *synarg, *arg, *text;
	int line;
} man_flags[] = {
#define USAGE_FLAG(id, name, alias, line, synarg, arg, help, text) {name, alias, synarg, arg, text, line},
#include "../usage.def"
};

static const struct {
	int code;
	const char *text;
} man_exits[] = {
#define USAGE_EXIT(code, help, text) {code, text},
#include "../usage.def"
};

static const struct {
	const char *name, *text;
} man_files[] = {
#define USAGE_FILE(name, text) {name, text},
#include "../usage.def"
};

static const struct {
	const char *command, *text;
} man_examples[] = {
#define USAGE_EXAMPLE(command, text) {command, text},
#include "../usage.def"
};

static const struct {
	const char *key, *type, *def, *example, *doc;
} man_keys[] = {
#define OPTION(key, fn, type, def, example, doc) {key, type, def, example, doc},
#include "pipeline/options.def"
#undef OPTION
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* How many bytes roff() writes for the word at s (up to a space or a
 * newline), code telling whether s is inside `backticks`. */
static int
roff_width(const char *s, int code)
{
	int n = 0;

	for (; *s && *s != ' ' && *s != '\n'; s++)
		if (*s == '`')
			n += 3, code = !code;
		else
			n += *s == '\\' || (*s == '-' && code) ? 2 : 1;
	return n;
}

/* Writes s as roff text.  The tables' texts are plain: `backticks` mark a
 * literal word, set in bold with its hyphens as \- (so that `--quiet` reads
 * and copies as two ASCII hyphens, where troff would print a typographic
 * hyphen); a backslash is \e.  lit=1 takes all of s as literal (a flag, a
 * command): hyphens as \-, backticks and newlines as they are.  Otherwise
 * the tables' newlines (wrapped for --help) are spaces, and the text is cut
 * into source lines as man(7) asks: each sentence on a line of its own, and
 * a space before a word that would pass column 78 is a newline; troff fills
 * the lines again.  A line that would open with . or ' (a request) is
 * guarded with \&.  col is the column the output is at; returns the column
 * it ends at. */
static int
roff(FILE *f, const char *s, int lit, int col)
{
	int code = lit, prev = 0;

	for (; *s; prev = *s++) {
		int c = *s == '\n' && !lit ? ' ' : *s;

		if (*s == '\n' && !lit)        /* a joined line's indent (the help's lists) goes */
			while (s[1] == ' ')
				s++;

		if (c == ' ' && !lit) {
			if (!s[1])
				break;
			if ((prev == '.' && s[1] >= 'A' && s[1] <= 'Z') ||
			    col + 1 + roff_width(s + 1, code) > 78)
				c = '\n';
		}
		if (col == 0 && (c == '.' || c == '\''))
			col += fprintf(f, "\\&");
		if (c == '`' && !lit) {
			col += fprintf(f, (code = !code) ? "\\fB" : "\\fR");
		} else if (c == '\\') {
			col += fprintf(f, "\\e");
		} else if (c == '-' && code) {
			col += fprintf(f, "\\-");
		} else {
			fputc(c, f);
			col = c == '\n' ? 0 : col + 1;
		}
	}
	return col;
}

/* A flag as the man page names it: bold flag, italic argument. */
static int
roff_flag(FILE *f, const char *name, const char *arg, int col)
{
	col = roff(f, name, 1, col + fprintf(f, "\\fB")) + fprintf(f, "\\fR");
	return *arg ? col + fprintf(f, " \\fI%s\\fR", arg) : col;
}

/* The man page: NAME, SYNOPSIS, DESCRIPTION, OPTIONS (the flags), FILE
 * OPTIONS (the keys of the -c file), EXIT STATUS, FILES, EXAMPLES, SEE ALSO.
 * date is .TH's (the Makefile passes the last commit's), so the page is
 * the same bytes for the same sources. */
static void
man_write(FILE *f, const char *date)
{
	const char *sep = "";
	int col;

	fputs(".\\\" Generated from cmd/usage.def and lib/pipeline/options.def by `mkdocs man`; do not edit.\n", f);
	fprintf(f, ".TH YOBX-EXPORT 1 \"%s\" \"yobx-export %s\" \"User Commands\"\n", date, VERSION);
	/* No hyphenation: it would break `options.yaml:3:1` and flag names. */
	fputs(".nh\n.SH NAME\n", f);
	roff(f, prose_NAME, 0, fprintf(f, "yobx-export \\- "));
	fputs("\n.SH SYNOPSIS\n.B yobx-export\n.I DUMP\n", f);
	for (size_t i = 0; i < COUNT(man_flags); i++)
		if (man_flags[i].line == 1) {
			roff_flag(f, man_flags[i].name, man_flags[i].synarg, fprintf(f, "["));
			fputs("]\n", f);
		}
	fputs(".br\n.B yobx-export\n", f);
	col = 0;
	for (size_t i = 0; i < COUNT(man_flags); i++)
		if (man_flags[i].line == 2) {
			col = roff_flag(f, man_flags[i].name, "", col + fprintf(f, "%s", sep));
			sep = " | ";
		}
	fputs("\n.SH DESCRIPTION\n", f);
	roff(f, prose_SUMMARY, 0, 0);
	fputs("\n.PP\n", f);
	roff(f, prose_DESCRIPTION, 0, 0);
	fputs("\n.SH OPTIONS\n", f);
	for (size_t i = 0; i < COUNT(man_flags); i++) {
		fputs(".TP\n", f);
		col = 0;
		if (man_flags[i].alias)
			col = roff_flag(f, man_flags[i].alias, man_flags[i].arg, 0) + fprintf(f, ", ");
		roff_flag(f, man_flags[i].name, man_flags[i].arg, col);
		fputc('\n', f);
		roff(f, man_flags[i].text, 0, 0);
		fputc('\n', f);
	}
	fputs(".SH FILE OPTIONS\n", f);
	roff(f, prose_FILE_OPTIONS, 0, 0);
	fputc('\n', f);
	for (size_t i = 0; i < COUNT(man_keys); i++) {
		/* The tag is the key alone: a .TP tag is one source line, and
		 * some types and defaults are long. */
		fprintf(f, ".TP\n.B %s\n", man_keys[i].key);
		col = roff(f, man_keys[i].type, 0, fprintf(f, "Type: "));
		col = roff(f, man_keys[i].def, 0, col + fprintf(f, "; default: "));
		fputs(".\n.IP\n", f);
		roff(f, man_keys[i].doc, 0, 0);
		fputs("\n.IP\n", f);
		col = roff(f, man_keys[i].key, 1, fprintf(f, "Example: \\fB"));
		roff(f, man_keys[i].example, 1, col + fprintf(f, ": "));
		fputs("\\fR\n", f);
	}
	fputs(".SH EXIT STATUS\n", f);
	for (size_t i = 0; i < COUNT(man_exits); i++) {
		fprintf(f, ".TP\n.B %d\n", man_exits[i].code);
		roff(f, man_exits[i].text, 0, 0);
		fputc('\n', f);
	}
	fputs(".SH FILES\n", f);
	for (size_t i = 0; i < COUNT(man_files); i++) {
		fputs(".TP\n.I ", f);
		roff(f, man_files[i].name, 1, 3);
		fputc('\n', f);
		roff(f, man_files[i].text, 0, 0);
		fputc('\n', f);
	}
	fputs(".SH EXAMPLES\n", f);
	for (size_t i = 0; i < COUNT(man_examples); i++) {
		fputs(i ? ".PP\n" : "", f);
		roff(f, man_examples[i].text, 0, 0);
		fputs("\n.IP\n.nf\n", f);
		roff(f, man_examples[i].command, 1, 0);
		fputs("\n.fi\n", f);
	}
	fputs(".SH SEE ALSO\n"
	      "The documents in share/doc/yobx-export/ (see FILES); docs/ in the source tree.\n", f);
}

int
main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "ops") == 0)
		ops_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "options") == 0)
		options_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "patterns") == 0)
		opt_write_doc(stdout);
	else if (argc == 2 && strcmp(argv[1], "diagnostics") == 0)
		diag_write_doc(stdout);
	else if (argc >= 2 && argc <= 3 && strcmp(argv[1], "man") == 0)
		man_write(stdout, argc == 3 ? argv[2] : "");
	else {
		fputs("usage: mkdocs ops|options|patterns|diagnostics|man [DATE]\n", stderr);
		return 2;
	}
	return fflush(stdout) ? 2 : 0;
}
