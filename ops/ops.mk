# ops/ops.mk: rules for what is generated from the op and option tables,
# and the onnxruntime run.  Included at the end of the Makefile.
#
#   make docs    rewrite docs/ops.md (ops/*.def), docs/options.md
#                (lib/pipeline/options.def) and docs/patterns.md (lib/opt/patterns.def);
#                test_ops / test_options / test_opt fail when stale
#   make ort     convert every fixture and compare with torch in onnxruntime

$(B)/mkdocs: ops/mkdocs/mkdocs.c $(B)/libyobx.a
	@mkdir -p $(B)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(B)/libyobx.a $(LDLIBS)

docs: $(B)/mkdocs
	$(B)/mkdocs ops >docs/ops.md.tmp && mv docs/ops.md.tmp docs/ops.md
	$(B)/mkdocs options >docs/options.md.tmp && mv docs/options.md.tmp docs/options.md
	$(B)/mkdocs patterns >docs/patterns.md.tmp && mv docs/patterns.md.tmp docs/patterns.md

ort: $(B)/yobx-export
	sh test/run-ort.sh $(B)/yobx-export

.PHONY: docs ort
