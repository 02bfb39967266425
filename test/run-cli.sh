#!/bin/sh
# run-cli.sh BINARY: end-to-end tests of the command line (filled in as the CLI grows).
exit 0
