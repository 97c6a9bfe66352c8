#!/usr/bin/env bash
# Builds the labelled document-type corpus named in labels.tsv under bench/classify/docs/
# (or $1): one file per row, named by its id. Idempotent: a file already there is kept.
#
# Sources, pinned in the `source` column:
#   pypi:NAME==VERSION   the sdist (pip download --no-binary), member PATH of the archive
#   npm:NAME@VERSION     the package tarball (npm pack), member PATH
#   deb:NAME=VERSION     the Debian package (apt-get download), file PATH (a .gz is unpacked)
#   github:OWNER/NAME@COMMIT  a public repository snapshot, read with git from the mirror the
#                        search tool's `fetch` leaves in /work/.mirror/OWNER+NAME (or
#                        $CLEAVE_MIRRORS); without it the row is reported and skipped.
# Django's documentation sources are reStructuredText with a .txt suffix: they are stored
# as .rst (the id says the name), so that the corpus reads them as what they are.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-$here/docs}
mirrors=${CLEAVE_MIRRORS:-/work/.mirror}
cache=${CLEAVE_CLASSIFY_CACHE:-$here/.cache}
mkdir -p "$out" "$cache"
missing=0

unpacked() { # source -> directory with the package's files
    local src=$1 dir
    dir="$cache/$(echo "$src" | tr ':/@=' '____')"
    if [ ! -d "$dir" ]; then
        local tmp="$dir.tmp"
        rm -rf "$tmp" && mkdir -p "$tmp"
        case $src in
        pypi:*)
            pip download --quiet --no-deps --no-binary :all: "${src#pypi:}" -d "$tmp/dl"
            tar xzf "$tmp"/dl/*.tar.gz -C "$tmp"
            ;;
        npm:*)
            (cd "$tmp" && npm pack --silent "${src#npm:}" >/dev/null && tar xzf ./*.tgz)
            ;;
        deb:*)
            (cd "$tmp" && apt-get download -q "${src#deb:}" >/dev/null && dpkg-deb -x ./*.deb .)
            ;;
        esac
        mv "$tmp" "$dir"
    fi
    echo "$dir"
}

tail -n +2 "$here/labels.tsv" | while IFS=$'\t' read -r id src path _label _reason; do
    [ -s "$out/$id" ] && continue
    case $src in
    github:*)
        repo=${src#github:}
        commit=${repo#*@}
        repo=${repo%@*}
        git_dir="$mirrors/${repo/\//+}/repo"
        [ -d "$git_dir/.git" ] && git_dir="$git_dir/.git"
        if [ -d "$git_dir" ] && git -C "$git_dir" cat-file -e "$commit:$path" 2>/dev/null; then
            git -C "$git_dir" show "$commit:$path" >"$out/$id"
        else
            echo "missing: $id (fetch github:$repo, then rerun)" >&2
            missing=$((missing + 1))
        fi
        ;;
    *)
        dir=$(unpacked "$src")
        file="$dir/${path#/}"
        case $file in
        *.gz) gunzip -c "$file" >"$out/$id" ;;
        *) cp "$file" "$out/$id" ;;
        esac
        ;;
    esac
done
echo "$(find "$out" -type f | wc -l) documents in $out"
