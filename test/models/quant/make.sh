#!/bin/sh
# make.sh AO_GIT_DIR [NAME...]: regenerate the quantized fixtures (family "quant",
# test/models/families/quant.py) into test/models/torch-2.14.
#
# torch 2.14 no longer ships quantize_pt2e nor the XNNPACK quantizer: they live in
# pytorch/ao (torchao), which is not packaged in Debian. Its pure-Python part is
# enough (TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1: no C++ build). AO_GIT_DIR is a git
# directory of pytorch/ao (a clone or a bare mirror; the committed fixtures were made
# from 36027d82, version 0.19.0); its torchao/ folder is extracted into
# build-ao (git-ignored, and outside test/models, whose bytes size.sh counts), with a small torchao-VERSION.dist-info so that
# transformers' importlib.metadata check of the version passes. Run from the checkout.
set -eu
ao=${1:?usage: test/models/quant/make.sh AO_GIT_DIR [NAME...]}
shift
dst=build-ao
rm -rf "$dst"
mkdir -p "$dst"
git --git-dir="$ao" archive HEAD torchao | tar -x -C "$dst"
ver=$(git --git-dir="$ao" show HEAD:version.txt | tr -d ' \n')
mkdir -p "$dst/torchao-$ver.dist-info"
printf 'Metadata-Version: 2.1\nName: torchao\nVersion: %s\n' "$ver" >"$dst/torchao-$ver.dist-info/METADATA"
[ $# -gt 0 ] || set -- $(sed -n 's/^QUANT_FIXTURES = "\(.*\)"$/\1/p' test/models/families/quant.py)
bash ../shared/tools/torch-env.sh run sid env PYTHONPATH=/src/$dst TORCHAO_FORCE_SKIP_LOADING_SO_FILES=1 \
	python3 /src/test/models/make_fixtures.py /src/test/models/torch-2.14 --no-2.8 "$@"
