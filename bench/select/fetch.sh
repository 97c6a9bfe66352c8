#!/usr/bin/env bash
# Builds the answer-recall corpus of bench/select/recall.py under bench/select/corpus/ from the
# package registries only (Debian, npm), pinned. Idempotent: delete bench/select/corpus to
# rebuild. The corpus stays out of git (bench/.gitignore has corpus/); a MANIFEST beside it
# (corpus.MANIFEST) records versions, sizes and a digest of every file.
#
#   docs/python/*.html  Debian python3.11-doc (HTML, decoded by cleave)
#   docs/latex/*.tex    Debian texlive-*-doc (LaTeX sources of manuals, gunzipped)
#   docs/npm/*.md       npm npm@10.9.2 (its own Markdown docs, and two bundled dependencies')
#   repos/<name>/       code repositories, hard links into bench/corpus/<lang>/ (bench/corpus.sh)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(dirname "$here")"
out="$here/corpus"
dl="$bench/tmp/select-download"

PY_DOC=python3.11-doc=3.11.2-6+deb12u9
TEX_DOCS=(texlive-latex-base-doc=2022.20230122-3 texlive-latex-recommended-doc=2022.20230122-3
    texlive-pictures-doc=2022.20230122-3)
NPM=npm@10.9.2

PY_FILES=(library/heapq.html library/difflib.html howto/descriptor.html howto/sorting.html
    howto/logging.html library/functools.html)
TEX_FILES=(latex/amsmath/amsldoc.tex latex/hyperref/hyperref-doc.tex latex/base/clsguide.tex
    latex/beamer/beamerug-overlays.tex generic/pgf/pgfmanual-en-tikz-graphs.tex)
NPM_FILES=(docs/content/commands/npm-install.md docs/content/configuring-npm/package-json.md
    docs/content/using-npm/scripts.md docs/content/using-npm/config.md
    node_modules/node-gyp/gyp/docs/LanguageSpecification.md
    node_modules/postcss-selector-parser/API.md)
# repo name -> folder under bench/corpus/
REPOS=(django:python/django zod:typescript/zod alloc:rust/library/alloc
    java-util:java/java.base/java/util
    go-cmd:go/cmd/go rust-std:rust/library/std rxjs:typescript/rxjs bundler:ruby/bundler)

if [[ -f "$here/corpus.MANIFEST" && -d "$out" ]]; then
    echo "select corpus: already built ($out)" >&2
    exit 0
fi
rm -rf "$out"
mkdir -p "$out/docs/python" "$out/docs/latex" "$out/docs/npm" "$out/repos" "$dl"

(cd "$dl" && apt-get download -qq "$PY_DOC" "${TEX_DOCS[@]}" 2>/dev/null)
x="$dl/x"
rm -rf "$x"
mkdir -p "$x"
for deb in "$dl"/*.deb; do dpkg-deb -x "$deb" "$x"; done
for f in "${PY_FILES[@]}"; do
    cp "$x/usr/share/doc/python3.11/html/$f" "$out/docs/python/$(basename "$f")"
done
for f in "${TEX_FILES[@]}"; do
    gunzip -c "$x/usr/share/doc/texlive-doc/$f.gz" >"$out/docs/latex/$(basename "$f")"
done

(cd "$dl" && rm -rf package && npm pack "$NPM" --silent >/dev/null && tar xzf npm-*.tgz)
for f in "${NPM_FILES[@]}"; do
    name="$(basename "$f")"
    case "$f" in node_modules/*) name="$(echo "$f" | cut -d/ -f2)-$name" ;; esac
    cp "$dl/package/$f" "$out/docs/npm/$name"
done

for r in "${REPOS[@]}"; do
    name="${r%%:*}" src="${r#*:}"
    lang="${src%%/*}"
    [[ -f "$bench/corpus/$lang.MANIFEST" ]] || "$bench/corpus.sh" "$lang"
    cp -al "$bench/corpus/$src" "$out/repos/$name"
done

{
    echo "python3.11-doc: $PY_DOC"
    echo "texlive: ${TEX_DOCS[*]}"
    echo "npm: $NPM"
    for r in "${REPOS[@]}"; do
        lang="${r#*:}"
        lang="${lang%%/*}"
        echo "repo ${r%%:*}: bench/corpus/${r#*:} ($(head -1 "$bench/corpus/$lang.MANIFEST"))"
    done
    echo "files: $(find "$out" -type f | wc -l)"
    echo "bytes: $(find "$out" -type f -printf '%s\n' | awk '{s+=$1} END {print s}')"
    echo "digest: $(cd "$out" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)"
} >"$here/corpus.MANIFEST"
cat "$here/corpus.MANIFEST"
