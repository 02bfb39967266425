/* yobx-export: the command line.  Parses arguments, runs the pipeline
 * through lib/ (lib/pipeline.c: read, lower, optimize, write, report),
 * renders the diagnostics (render.c: text, JSON, SARIF) and prints the
 * summary, and chooses the exit status:
 * 0 ok, 1 conversion failed, 2 usage or input error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"
#include "ir/ir.h"
#include "pipeline/pipeline.h"
#include "render.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

static const char usage[] =
	"usage: yobx-export DUMP [-c OPTIONS.yaml] [-o OUT.onnx] [--quiet] [--print]\n"
	"                   [--diagnostics=text|json|json:FILE] [--sarif FILE]\n"
	"       yobx-export --help | --version\n"
	"\n"
	"Converts DUMP, a file written by torch.export.save (torch 2.6 to 2.14),\n"
	"to ONNX, and writes the conversion report OUT.xlsx beside OUT.onnx\n"
	"(docs/report.md; the option `report: false` skips it).\n"
	"\n"
	"  -c FILE     conversion options (YAML; see docs/options.md)\n"
	"  -o FILE     the ONNX file to write (default: model.onnx)\n"
	"  --quiet     no summary on stderr (errors are still printed)\n"
	"  --print     print the graph as read from DUMP and stop\n"
	"  --diagnostics=FORMAT\n"
	"              how errors are shown: text (the default: one line each on\n"
	"              stderr), json (one JSON document on stderr instead of the\n"
	"              text and the summary) or json:FILE (to FILE; stderr as usual)\n"
	"  --sarif FILE  also write the diagnostics as SARIF 2.1.0 (for GitHub and\n"
	"              GitLab code scanning), on success too; codes in docs/diagnostics.md\n"
	"  --help      show this help\n"
	"  --version   show the version\n"
	"\n"
	"Exit status: 0 ok, 1 conversion failed, 2 usage or input error.\n";

typedef struct Cli {
	const char *dump, *options, *out;
	int print, quiet;
	int json;                  /* --diagnostics=json or json:FILE */
	const char *json_file;     /* NULL: stderr */
	const char *sarif;         /* --sarif FILE, or NULL */
} Cli;

static int
parse_cli(int argc, char **argv, Cli *cli)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			exit(0);
		} else if (strcmp(a, "--version") == 0) {
			printf("yobx-export %s\n", VERSION);
			exit(0);
		} else if (strcmp(a, "--print") == 0) {
			cli->print = 1;
		} else if (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) {
			cli->quiet = 1;
		} else if (strcmp(a, "--diagnostics=text") == 0) {
			cli->json = 0;
		} else if (strcmp(a, "--diagnostics=json") == 0) {
			cli->json = 1, cli->json_file = NULL;
		} else if (strncmp(a, "--diagnostics=json:", 19) == 0 && a[19]) {
			cli->json = 1, cli->json_file = a + 19;
		} else if (strcmp(a, "--sarif") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "yobx-export: %s needs a file name\n", a);
				return 2;
			}
			cli->sarif = argv[++i];
		} else if (strcmp(a, "-c") == 0 || strcmp(a, "-o") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr, "yobx-export: %s needs a file name\n", a);
				return 2;
			}
			*(a[1] == 'c' ? &cli->options : &cli->out) = argv[++i];
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "yobx-export: unknown option '%s'\n%s", a, usage);
			return 2;
		} else if (!cli->dump) {
			cli->dump = a;
		} else {
			fprintf(stderr, "yobx-export: more than one input ('%s' and '%s')\n", cli->dump, a);
			return 2;
		}
	}
	if (!cli->dump) {
		fputs(usage, stderr);
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

	if (failed)
		fprintf(f, "yobx-export: %s: not converted (%lld node%s could not be)\n", pl->input,
		        (long long)pl->unsupported, pl->unsupported == 1 ? "" : "s");
	else
		fprintf(f, "yobx-export: %s -> %s\n", pl->input, pl->out);
	for (int i = 0; i < PHASE_COUNT; i++) {
		if (!pl->ran[i])
			continue;
		fprintf(f, "  %-9s %10.6f s\n", phase_name[i], pl->seconds[i]);
		total += pl->seconds[i];
	}
	fprintf(f, "  %-9s %10.6f s\n", "total", total);
	if (failed) {
		fprintf(f, "  nodes     %lld ATen\n", (long long)pl->aten_nodes);
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
	if (pl->report_path)
		fprintf(f, "  report    %s%s\n", pl->report_path, failed ? " (sheet 'unsupported')" : "");
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

/* Writes the machine-readable forms; a file that cannot be written is one
 * more diagnostic (exit 2), shown in the forms still to come. */
static int
write_forms(const Cli *cli, Diag *d, int rc)
{
	int err;

	if (cli->sarif && (err = render_to_file(cli->sarif, sarif_fn, &(Out){d, cli->dump, rc})))
		rc = diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->sarif}, "cannot write: %s", strerror(err));
	if (cli->json && cli->json_file &&
	    (err = render_to_file(cli->json_file, json_fn, &(Out){d, cli->dump, rc})))
		rc = diag_report(d, YE_WRITE_FAILED, &(DiagAt){.file = cli->json_file}, "cannot write: %s", strerror(err));
	return rc;
}

int
main(int argc, char **argv)
{
	Cli cli = {0};
	Arena arena;
	Pipeline pl = {0};
	Diag d = {0};
	int rc;

	if ((rc = parse_cli(argc, argv, &cli)))
		return rc;
	arena_init(&arena);
	pl.input = cli.dump;
	pl.options = cli.options;
	pl.out = cli.out;
	pipeline_init(&pl, &arena);
	if (cli.print) {
		if (!(rc = pipeline_read(&pl, &d)))
			ir_print(stdout, &pl.prog);
	} else {
		/* read, lower, optimize, write, report: the optimizer's call goes in
		 * phase_optimize() in lib/pipeline.c (marked OPTIMIZER). */
		rc = pipeline_run(&pl, &d);
	}
	rc = rc ? (d.code ? d.code : rc) : 0;
	rc = write_forms(&cli, &d, rc);
	if (cli.json && !cli.json_file)
		render_json(stderr, &d, rc);
	else
		render_text(stderr, &d);
	if (!cli.print && !cli.quiet && !(cli.json && !cli.json_file) && rc != DIAG_INPUT)
		print_summary(stderr, &pl, rc == DIAG_CONVERT);
	pipeline_close(&pl);
	arena_free(&arena);
	diag_free(&d);
	return rc;
}
