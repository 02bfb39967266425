/* yobx-export: the command line.  Parses arguments, runs the pipeline
 * through lib/, prints diagnostics and chooses the exit status:
 * 0 ok, 1 conversion failed, 2 usage or input error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "diag.h"
#include "irprint.h"
#include "lower.h"
#include "onnx.h"
#include "options.h"
#include "pt2.h"
#include "zip.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

static const char usage[] =
	"usage: yobx-export DUMP [-c OPTIONS.yaml] [-o OUT.onnx] [--print]\n"
	"       yobx-export --help | --version\n"
	"\n"
	"Converts DUMP, a file written by torch.export.save (torch 2.6 to 2.14),\n"
	"to ONNX.\n"
	"\n"
	"  -c FILE     conversion options (YAML; see docs/options.md)\n"
	"  -o FILE     the ONNX file to write (default: model.onnx)\n"
	"  --print     print the graph as read from DUMP and stop\n"
	"  --help      show this help\n"
	"  --version   show the version\n"
	"\n"
	"Exit status: 0 ok, 1 conversion failed, 2 usage or input error.\n";

typedef struct Cli {
	const char *dump, *options, *out;
	int print;
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

int
main(int argc, char **argv)
{
	Cli cli = {0};
	Arena arena;
	Program prog = {0};
	Diag d = {0};
	Options opt;
	Onnx__ModelProto *model = NULL;
	int rc;

	if ((rc = parse_cli(argc, argv, &cli)))
		return rc;
	arena_init(&arena);
	prog.arena = &arena;
	options_default(&opt);
	rc = cli.options ? options_load(&opt, &arena, cli.options, &d) : 0;
	if (!rc)
		rc = pt2_load(&prog, cli.dump, &d);
	if (!rc && cli.print)
		ir_print(stdout, &prog);
	else if (!rc && !(rc = lower_program(&prog, &opt, &arena, &model, &d)))
		rc = onnx_write(&arena, model, cli.out, opt.external_data_threshold,
		                &(OnnxSource){prog.zip->fd, prog.zip->base, prog.zip->len}, &d);
	if (d.text)
		fprintf(stderr, "yobx-export: %s", d.text);
	rc = rc ? (d.code ? d.code : rc) : 0;
	pt2_close(&prog);
	arena_free(&arena);
	diag_free(&d);
	return rc;
}
