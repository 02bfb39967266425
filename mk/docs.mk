# mk/docs.mk: rules for what is generated from the op and option tables,
# and the onnxruntime run.  Included at the end of the Makefile.
#
#   make docs    rewrite docs/ops.md (lib/lower/ops/*.def), docs/options.md
#                (lib/pipeline/options.def), docs/patterns.md (lib/opt/patterns.def) and
#                docs/diagnostics.md (lib/core/diag.def); test_ops /
#                test_options / test_opt / test_diag fail when stale
#   make ort     convert every fixture and compare with torch in onnxruntime

$(B)/mkdocs: cmd/mkdocs/mkdocs.c $(B)/libyobx.a
	@mkdir -p $(B)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libyobx.a $(LDLIBS)

docs: $(B)/mkdocs
	$(B)/mkdocs ops >docs/ops.md.tmp && mv docs/ops.md.tmp docs/ops.md
	$(B)/mkdocs options >docs/options.md.tmp && mv docs/options.md.tmp docs/options.md
	$(B)/mkdocs patterns >docs/patterns.md.tmp && mv docs/patterns.md.tmp docs/patterns.md
	$(B)/mkdocs diagnostics >docs/diagnostics.md.tmp && mv docs/diagnostics.md.tmp docs/diagnostics.md

ort: $(B)/yobx-export
	sh test/run-ort.sh $(B)/yobx-export

.PHONY: docs ort
