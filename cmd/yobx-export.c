/* yobx-export: the command line.  Parses arguments, runs the pipeline
 * through lib/ (lib/pipeline/pipeline.c: read, lower, optimize, write, report),
 * renders the diagnostics (render.c: text, JSON, SARIF) and prints the
 * summary, and chooses the exit status:
 * 0 ok, 1 conversion failed, 2 usage or input error. */
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "pipeline/pipeline.h"
#include "render.h"

/* The version is configure.ac's AC_INIT, passed by the Makefile (config.mk). */
#ifndef VERSION
#error "VERSION is defined by the Makefile from configure.ac (-DVERSION)"
#endif

/* The flags, from usage.def: USAGE_<id> indexes flags[]. */
enum {
#define USAGE_FLAG(id, name, alias, line, synarg, arg, help, text) USAGE_##id,
#include "usage.def"
	USAGE_NFLAG
};

static const struct Flag {
	const char *name, *alias, *synarg, *arg, *help;
	int line;
} flags[USAGE_NFLAG] = {
#define USAGE_FLAG(id, name, alias, line, synarg, arg, help, text) {name, alias, synarg, arg, help, line},
#include "usage.def"
};

#define USAGE_PROSE(id, text) static const char prose_##id[] = text;
#include "usage.def"

/* The --help text, built from usage.def: the two usage lines, the summary,
 * the flag list in one column wide enough for the longest "flag ARG", and
 * the exit statuses. */
static void
usage_write(FILE *f)
{
	const char *sep = " ";
	int width = 0;

	fputs("usage: yobx-export DUMP", f);
	for (int i = 0; i < USAGE_NFLAG; i++)
		if (flags[i].line == 1)
			fprintf(f, " [%s%s%s]", flags[i].name, *flags[i].synarg ? " " : "", flags[i].synarg);
	fputs("\n       yobx-export", f);
	for (int i = 0; i < USAGE_NFLAG; i++)
		if (flags[i].line == 2) {
			fprintf(f, "%s%s", sep, flags[i].name);
			sep = " | ";
		}
	fprintf(f, "\n\n%s\n", prose_SUMMARY);
	for (int i = 0; i < USAGE_NFLAG; i++) {
		int w = (int)(strlen(flags[i].name) + (*flags[i].arg ? 1 + strlen(flags[i].arg) : 0));
		width = w > width ? w : width;
	}
	for (int i = 0; i < USAGE_NFLAG; i++) {
		char left[64];
		snprintf(left, sizeof left, "%s%s%s", flags[i].name, *flags[i].arg ? " " : "", flags[i].arg);
		fprintf(f, "  %-*s   %s\n", width, left, flags[i].help);
	}
	fputs("\nExit status:", f);
	sep = " ";
#define USAGE_EXIT(code, help, text) fprintf(f, "%s%d %s", sep, code, help), sep = ", ";
#include "usage.def"
	fputs(".\n", f);
}

/* The flag a names (its name or its alias), or -1.  A flag with an
 * argument may also be written NAME=VALUE: *val is then VALUE, else NULL. */
static int
flag_find(const char *a, const char **val)
{
	*val = NULL;
	for (int i = 0; i < USAGE_NFLAG; i++) {
		size_t n = strlen(flags[i].name);
		if (strcmp(a, flags[i].name) == 0 || (flags[i].alias && strcmp(a, flags[i].alias) == 0))
			return i;
		if (*flags[i].arg && strncmp(a, flags[i].name, n) == 0 && a[n] == '=') {
			*val = a + n + 1;
			return i;
		}
	}
	return -1;
}

typedef struct Cli {
	const char *dump, *options, *out;
	int print, quiet, verify;
	int json;                  /* --diagnostics json or json:FILE */
	const char *json_file;     /* NULL: stderr */
	const char *sarif;         /* --sarif FILE, or NULL */
	const char *signature;     /* --signature FILE, or NULL */
	const char *expect;        /* --expect-signature FILE, or NULL */
} Cli;

static int
parse_cli(int argc, char **argv, Cli *cli)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		int k = a[0] == '-' && a[1] ? flag_find(a, &val) : -2;

		if (k >= 0 && *flags[k].arg && !val) {
			if (i + 1 >= argc) {
				fprintf(stderr, "yobx-export: %s needs %s\n", a,
				        strcmp(flags[k].arg, "FILE") == 0 ? "a file name" : "a value");
				return 2;
			}
			val = argv[++i];
		}
		switch (k) {
		case USAGE_HELP:
			usage_write(stdout);
			exit(0);
		case USAGE_VERSION:
			printf("yobx-export %s\n", VERSION);
			exit(0);
		case USAGE_PRINT:
			cli->print = 1;
			break;
		case USAGE_QUIET:
			cli->quiet = 1;
			break;
		case USAGE_VERIFY:
			cli->verify = 1;
			break;
		case USAGE_OPTIONS:
			cli->options = val;
			break;
		case USAGE_OUT:
			cli->out = val;
			break;
		case USAGE_DIAGNOSTICS:
			if (strcmp(val, "text") == 0) {
				cli->json = 0;
			} else if (strcmp(val, "json") == 0) {
				cli->json = 1, cli->json_file = NULL;
			} else if (strncmp(val, "json:", 5) == 0 && val[5]) {
				cli->json = 1, cli->json_file = val + 5;
			} else {
				fprintf(stderr, "yobx-export: --diagnostics takes text, json or json:FILE, not '%s'\n", val);
				return 2;
			}
			break;
		case USAGE_SARIF:
			cli->sarif = val;
			break;
		case USAGE_SIGNATURE:
			cli->signature = val;
			break;
		case USAGE_EXPECT_SIGNATURE:
			cli->expect = val;
			break;
		case -1:
			fprintf(stderr, "yobx-export: unknown option '%s'\n", a);
			usage_write(stderr);
			return 2;
		case -2: /* not a flag: the input ("-" alone is a file name too) */
			if (cli->dump) {
				fprintf(stderr, "yobx-export: more than one input ('%s' and '%s')\n", cli->dump, a);
				return 2;
			}
			cli->dump = a;
			break;
		default:
			die("usage.def has flag '%s' but parse_cli() has no case for it", flags[k].name);
		}
	}
	if (!cli->dump) {
		usage_write(stderr);
		return 2;
	}
	if (!cli->out)
		cli->out = "model.onnx";
	return 0;
}

/* 1234567 -> "1,234,567" (into buf). */
static const char *
grouped(char *buf, size_t size, double v)
{
	char digits[32];
	int n = snprintf(digits, sizeof digits, "%.0f", v), k = 0, neg = digits[0] == '-';

	for (int i = 0; i < n && (size_t)k + 2 < size; i++) {
		if (i > neg && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = 0;
	return buf;
}

/* The one-screen summary: phases and times, counts, FLOPs, top patterns. */
static void
print_summary(FILE *f, const Pipeline *pl, int failed)
{
	char b1[32], b2[32];
	double total = 0;
	ReportStat top[3];
	int ntop = pipeline_top_patterns(pl, top, 3);

	int bundle = pl->kind == INPUT_BUNDLE;

	if (failed && pl->signature_changes)
		fprintf(f, "yobx-export: %s -> %s, but its interface differs from %s (%d change%s)\n", pl->input,
		        pl->out, pl->signature_expect, pl->signature_changes, pl->signature_changes == 1 ? "" : "s");
	else if (failed && bundle)
		fprintf(f, "yobx-export: %s: not converted (no capture converts)\n", pl->input);
	else if (failed)
		fprintf(f, "yobx-export: %s: not converted (%lld node%s could not be)\n", pl->input,
		        (long long)pl->unsupported, pl->unsupported == 1 ? "" : "s");
	else if (bundle)
		fprintf(f, "yobx-export: %s (capture %s) -> %s\n", pl->input, pl->strategy, pl->out);
	else
		fprintf(f, "yobx-export: %s -> %s\n", pl->input, pl->out);
	for (int i = 0; i < PHASE_COUNT; i++) {
		if (!pl->ran[i])
			continue;
		fprintf(f, "  %-9s %10.6f s\n", phase_name[i], pl->seconds[i]);
		total += pl->seconds[i];
	}
	fprintf(f, "  %-9s %10.6f s\n", "total", total);
	/* the peak resident memory as each phase ended (the highest so far) */
	fprintf(f, "  peak     ");
	for (int i = 0, n = 0; i < PHASE_COUNT; i++)
		if (pl->ran[i] && pl->peak_mib[i] > 0)
			fprintf(f, "%s %s %.1f", n++ ? "," : "", phase_name[i], pl->peak_mib[i]);
	fprintf(f, " MiB\n");
	if (failed && !pl->signature_changes) {
		if (!bundle)
			fprintf(f, "  nodes     %lld ATen\n", (long long)pl->aten_nodes);
	} else if (pl->kind == INPUT_ONNX || !pl->prog.graph) {
		fprintf(f, "  nodes     %lld ONNX (opset %d)\n", (long long)pl->onnx_nodes, pl->opt.opset);
	} else {
		fprintf(f, "  nodes     %lld ATen -> %lld ONNX (opset %d)\n", (long long)pl->aten_nodes,
		        (long long)pl->onnx_nodes, pl->opt.opset);
		fprintf(f, "  weights   %lld initializers, %s bytes\n", (long long)pl->initializers,
		        grouped(b1, sizeof b1, (double)pl->initializer_bytes));
		if (pl->flops >= 0)
			fprintf(f, "  flops     %s at the sample input sizes\n", grouped(b1, sizeof b1, pl->flops));
		else if (pl->opt.report)
			fprintf(f, "  flops     unknown for %lld node%s (see the report)\n",
			        (long long)pl->flops_unknown, pl->flops_unknown == 1 ? "" : "s");
	}
	if (ntop)
		fprintf(f, "  top patterns (nodes removed/added):\n");
	for (int i = 0; i < ntop; i++)
		fprintf(f, "    %-36s -%s +%s\n", top[i].pattern, grouped(b1, sizeof b1, (double)top[i].removed),
		        grouped(b2, sizeof b2, (double)top[i].added));
	if (pl->verify_seconds >= 0) {
		const VerifyResult *v = &pl->verified;
		/* "match" only for outputs compared by value */
		if (v->worst < 0 && v->nrow && v->outputs_compared == v->noutput)
			fprintf(f, "  verify    ok: %d output%s match%s torch, %d module call%s compared "
			        "(onnxruntime %s), %.6f s\n", v->noutput, v->noutput == 1 ? "" : "s",
			        v->noutput == 1 ? "es" : "", v->modules_compared, v->modules_compared == 1 ? "" : "s",
			        verify_ort_version(pl->ort), pl->verify_seconds);
		else if (v->worst < 0 && v->nrow)
			fprintf(f, "  verify    ran: %d of %d output%s compared by value with torch, %d checked "
			        "for dtype, shape and finite values only (no torch values to compare with; "
			        "onnxruntime %s), %.6f s\n", v->outputs_compared, v->noutput,
			        v->noutput == 1 ? "" : "s", v->noutput - v->outputs_compared,
			        verify_ort_version(pl->ort), pl->verify_seconds);
		else if (!v->nrow)
			fprintf(f, "  verify    FAILED: onnxruntime %s cannot run the model; it is written, for "
			        "inspection\n", verify_ort_version(pl->ort));
		else
			fprintf(f, "  verify    FAILED: %d tensor%s differ%s from torch (onnxruntime %s); the model "
			        "is written, for inspection\n", v->nbad, v->nbad == 1 ? "" : "s", v->nbad == 1 ? "s" : "",
			        verify_ort_version(pl->ort));
	}
	if (pl->report_path)
		fprintf(f, "  report    %s%s\n", pl->report_path,
		        !failed || pl->signature_changes ? "" : bundle ? " (sheet 'captures')" : " (sheet 'unsupported')");
}

typedef struct Out {
	const Diag *d;
	const char *dump;
	int rc;
} Out;

static void
json_fn(FILE *f, const void *ctx)
{
	const Out *o = ctx;

	render_json(f, o->d, o->rc);
}

static void
sarif_fn(FILE *f, const void *ctx)
{
	const Out *o = ctx;

	render_sarif(f, o->d, o->dump, o->rc);
}

/* Every output path of the run, checked before anything is written: none
 * may exist as anything but a regular file, be one of the inputs, or be
 * another output's path (each output has a temporary name of its own:
 * "<path>.tmp.<pid>").  Returns 0 or DIAG_INPUT with YE_OUTPUT_REFUSED. */
static int
check_outputs(const Cli *cli, Pipeline *pl, Diag *d)
{
	const char *out[6], *what[6];
	const char *in[4] = {cli->dump, cli->options, cli->expect, pl->opt.onnxruntime_library};
	char why[512];
	int n = 0, rc = 0;

	if (!cli->print) {
		out[n] = pl->out, what[n++] = "-o";
		out[n] = arena_printf(pl->a, "%s.data", pl->out), what[n++] = "the external data";
		if (pl->opt.report)
			out[n] = pipeline_report_path(pl->a, pl->out), what[n++] = "the report";
		if (cli->signature)
			out[n] = cli->signature, what[n++] = "--signature";
	}
	if (cli->sarif)
		out[n] = cli->sarif, what[n++] = "--sarif";
	if (cli->json && cli->json_file)
		out[n] = cli->json_file, what[n++] = "--diagnostics=json:FILE";
	for (int i = 0; i < n; i++) {
		if (durable_check_output(out[i], in, 4, why, sizeof why))
			rc = diag_report(d, YE_OUTPUT_REFUSED, &(DiagAt){.file = out[i]}, "%s: not written: %s",
			                 what[i], why);
		for (int j = 0; j < i; j++)
			if (durable_same_path(out[i], out[j]))
				rc = diag_report(d, YE_OUTPUT_REFUSED, &(DiagAt){.file = out[i]},
				                 "%s and %s name the same file", what[j], what[i]);
	}
	return rc;
}

/* The machine-readable forms' temporary files, made before the run so
 * that a path that cannot be written stops it before anything else is
 * (exit 2, nothing written).  Returns 0 or DIAG_INPUT. */
static int
open_forms(const Cli *cli, Durable *forms, int *sarif_fd, int *json_fd, Diag *d)
{
	*sarif_fd = *json_fd = -1;
	if (cli->sarif && (*sarif_fd = durable_open(forms, cli->sarif)) < 0)
		return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->sarif}, "cannot write: %s",
		                   strerror(errno));
	if (cli->json && cli->json_file && (*json_fd = durable_open(forms, cli->json_file)) < 0) {
		int err = errno;
		durable_abort(forms);
		*sarif_fd = -1;
		return diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->json_file}, "cannot write: %s",
		                   strerror(err));
	}
	return 0;
}

/* Writes the machine-readable forms into the files open_forms() made and
 * commits them; a file that cannot be written is one more diagnostic (exit
 * 2), shown in the forms still to come. */
static int
write_forms(const Cli *cli, Durable *forms, int sarif_fd, int json_fd, Diag *d, int rc)
{
	const char *failed = NULL;
	int err;

	if (sarif_fd >= 0 && (err = render_to_fd(sarif_fd, sarif_fn, &(Out){d, cli->dump, rc})))
		rc = diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->sarif}, "cannot write: %s", strerror(err));
	if (json_fd >= 0 && (err = render_to_fd(json_fd, json_fn, &(Out){d, cli->dump, rc})))
		rc = diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->json_file}, "cannot write: %s", strerror(err));
	if ((err = durable_commit(forms, &failed)))
		rc = diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = failed}, "cannot write: %s", strerror(err));
	return rc;
}

int
main(int argc, char **argv)
{
	Cli cli = {0};
	Arena arena;
	Pipeline pl = {0};
	Diag d = {0};
	Durable forms;
	int rc, refused, sarif_fd = -1, json_fd = -1;

	if ((rc = parse_cli(argc, argv, &cli)))
		return rc;
	/* Freed memory stays with the process: the report's zlib streams (one
	 * per part of the workbook, ~270 KB each, on the report thread's malloc
	 * arena) were given back to the kernel at each end and faulted in
	 * again at the next start, ~1,000 page faults for a small model. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	arena_init(&arena);
	pl.input = cli.dump;
	pl.options = cli.options;
	pl.out = cli.out;
	pipeline_init(&pl, &arena);
	pl.signature_out = cli.signature;
	pl.signature_expect = cli.expect;
	pl.verify = cli.verify;
	durable_init(&forms);
	/* read (nothing is written), then every output checked and the
	 * diagnostic forms' files made, before anything is written: exit
	 * status 2 from here on writes nothing but those forms */
	rc = pipeline_read(&pl, &d);
	if (!(refused = check_outputs(&cli, &pl, &d)) && open_forms(&cli, &forms, &sarif_fd, &json_fd, &d))
		rc = refused = DIAG_INPUT;
	if (!rc && refused)
		rc = refused;
	else if (!rc && cli.print)
		rc = pipeline_print(&pl, stdout, &d);
	else if (!rc)
		/* lower, optimize, write, report: the optimizer's call goes in
		 * phase_optimize() in lib/pipeline/pipeline.c (marked OPTIMIZER). */
		rc = pipeline_run(&pl, &d);
	rc = rc ? (d.code ? d.code : rc) : 0;
	if (!refused)
		rc = write_forms(&cli, &forms, sarif_fd, json_fd, &d, rc);
	if (cli.json && !cli.json_file)
		render_json(stderr, &d, rc);
	else
		render_text(stderr, &d);
	if (!cli.print && !cli.quiet && !(cli.json && !cli.json_file) && rc != DIAG_INPUT)
		print_summary(stderr, &pl, rc == DIAG_CONVERT && pl.verify_seconds < 0);
	pipeline_close(&pl);
	arena_free(&arena);
	diag_free(&d);
	return rc;
}
