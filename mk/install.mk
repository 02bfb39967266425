# mk/install.mk: the man page and `make install` / `make uninstall`.
# Included from the Makefile, after its rules.
#
#   make install   PREFIX=/usr/local DESTDIR=   the binary, yobx-capture (cmd/yobx_capture.py,
#                                               the capture helper), the man page, the docs
#   make uninstall PREFIX=/usr/local DESTDIR=   removes exactly those files
#
# PREFIX is where the files are to live; DESTDIR, when set, is prepended to
# every path as it is written (staging for a package), so the installed
# files never hold it.  The man page is generated into $(B) by `mkdocs man`
# from cmd/usage.def (the table --help is built from) and lib/pipeline/options.def
# (the table docs/options.md is built from), so it is never committed and
# never stale.  test/install/run.sh (in `make check`) installs into a
# temporary DESTDIR, checks what is there, uninstalls and checks it is gone.

PREFIX ?= /usr/local
BINDIR = $(PREFIX)/bin
MANDIR = $(PREFIX)/share/man
DOCDIR = $(PREFIX)/share/doc/yobx-export
INSTALL ?= install

# What install writes, as paths under $(DOCDIR): uninstall removes these
# same names.  README.md links to docs/*.md, so they keep that layout.
DOC_FILES = README.md $(sort $(wildcard docs/*.md))

# The version is compiled in (-DVERSION from config.mk) and a new
# configure.ac rewrites config.mk: rebuild what may hold it.
$(LIB_OBJ) $(B)/cmd/yobx-export.o $(B)/mkdocs: config.mk

# mkdocs.c (its rule is in mk/docs.mk) reads the flag table too.
$(B)/mkdocs: cmd/usage.def

# The page's date is the last commit's (or configure.ac's, outside git),
# not the build's, so that the same sources give the same page.
MAN_DATE = $(shell git log -1 --format=%cs 2>/dev/null || date -u -r configure.ac +%Y-%m-%d)

$(B)/yobx-export.1: $(B)/mkdocs
	$(B)/mkdocs man "$(MAN_DATE)" >$@.tmp && mv $@.tmp $@

man: $(B)/yobx-export.1

install: $(B)/yobx-export $(B)/yobx-export.1
	$(INSTALL) -d "$(DESTDIR)$(BINDIR)" "$(DESTDIR)$(MANDIR)/man1" "$(DESTDIR)$(DOCDIR)/docs"
	$(INSTALL) -m 755 $(B)/yobx-export "$(DESTDIR)$(BINDIR)/yobx-export"
	$(INSTALL) -m 755 cmd/yobx_capture.py "$(DESTDIR)$(BINDIR)/yobx-capture"
	$(INSTALL) -m 644 $(B)/yobx-export.1 "$(DESTDIR)$(MANDIR)/man1/yobx-export.1"
	for f in $(DOC_FILES); do $(INSTALL) -m 644 $$f "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done

# Removes the files install wrote and the two folders that are yobx-export's
# own (share/doc/yobx-export and its docs/); bin/ and share/man/man1/ are
# shared with other programs and stay.  rmdir, not rm -r: a file someone
# else put in share/doc/yobx-export stays, and rmdir says so and fails.
uninstall:
	rm -f "$(DESTDIR)$(BINDIR)/yobx-export" "$(DESTDIR)$(BINDIR)/yobx-capture" "$(DESTDIR)$(MANDIR)/man1/yobx-export.1"
	for f in $(DOC_FILES); do rm -f "$(DESTDIR)$(DOCDIR)/$$f"; done
	[ ! -d "$(DESTDIR)$(DOCDIR)/docs" ] || rmdir "$(DESTDIR)$(DOCDIR)/docs"
	[ ! -d "$(DESTDIR)$(DOCDIR)" ] || rmdir "$(DESTDIR)$(DOCDIR)"

.PHONY: man install uninstall
