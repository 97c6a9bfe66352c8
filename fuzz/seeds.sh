#!/usr/bin/env bash
# Writes the committed seed corpus, corpus/<target>/, from fixtures/: each seed is the option
# bytes of src/lib.rs (`Options::parse`), a target's own byte where it has one, then a fixture.
# Two option sets per fixture: 120 chars with headers and no overlap, and 400 o200k tokens
# with a 10 % overlap. Rerun it after changing the input layout; it replaces the seeds.
set -euo pipefail
cd "$(dirname "$0")"
fx=../fixtures

# unit chars, budget 8 + 112, headers on, no overlap.
CHARS='\x00\xe1\x00\x80'
# unit o200k tokens, budget 32 + 368, headers on, overlap 10 %.
TOKENS='\x05\xe0\x02\x14'

seed() { # target name options own-byte file
    local target=$1 name=$2 opts=$3 own=$4 file=$5
    mkdir -p "corpus/$target"
    { printf "$opts"; [ -n "$own" ] && printf "$own"; cat "$file"; } >"corpus/$target/$name"
}

rm -rf corpus
# The languages the code targets draw from, in registry order: `languages()` with a structure
# (a grammar or a scanner) for `code`, with a grammar for `code_sections`. A test of
# cleave-code (`fuzz_seed_languages_match_the_registry`) fails when these lists are stale.
STRUCTURED=(bash c cpp csharp css go html java javascript kotlin php python ruby rust scala sql svelte swift tsx typescript vue)
PARSED=(bash c cpp csharp css go html java javascript kotlin php python ruby rust scala svelte swift tsx typescript vue)
index_of() { # name list...
    local name=$1 i=0
    shift
    for l in "$@"; do
        [ "$l" = "$name" ] && echo "$i" && return
        i=$((i + 1))
    done
    echo "seeds: $name not in the list" >&2
    exit 1
}
# code: the byte modulo the number of structured languages is the language; a high nibble of
# 0xa or more parses the file in short sections (0xa: 128 bytes), under 8 in whole-file ones.
n=${#STRUCTURED[@]}
for lang in "${STRUCTURED[@]}"; do
    i=$(index_of "$lang" "${STRUCTURED[@]}")
    short=$((0xa0 + ((i - 0xa0 % n) % n + n) % n))
    for f in "$fx/code/$lang"/*; do
        stem=$(basename "$f")
        seed code "$stem" "$CHARS" "$(printf '\\x%02x' "$i")" "$f"
        seed code "$stem.sections" "$TOKENS" "$(printf '\\x%02x' "$short")" "$f"
        # code_sections: the low five bits the language, the top three the section length
        # (0x40: 128 bytes), compared with the whole parse.
        if [ "$lang" != sql ]; then
            j=$(index_of "$lang" "${PARSED[@]}")
            seed code_sections "$stem" "$CHARS" "$(printf '\\x%02x' $((0x40 + j)))" "$f"
        fi
    done
done
seed code deep_nesting.js "$CHARS" "$(printf '\\x%02x' "$(index_of javascript "${STRUCTURED[@]}")")" "$fx/broken/deep_nesting.js"
seed code auth.py "$TOKENS" "$(printf '\\x%02x' "$(index_of python "${STRUCTURED[@]}")")" "$fx/mixed/src/auth.py"

for f in "$fx"/markdown/*.md "$fx/mixed/docs/guide.md" "$fx/broken/unterminated_fence.md"; do
    seed markdown "$(basename "$f")" "$CHARS" '' "$f"
    seed markdown "$(basename "$f").tokens" "$TOKENS" '' "$f"
done
for f in "$fx/latex/paper_with_proofs.tex" "$fx/latex/broken/unterminated.tex" \
    "$fx/broken/unterminated_math.tex"; do
    seed latex "$(basename "$f")" "$CHARS" '' "$f"
    seed latex "$(basename "$f").tokens" "$TOKENS" '' "$f"
done
# text: an even byte is plain text, an odd one RST.
for f in "$fx/text/notes.txt" "$fx/mixed/notes.txt"; do
    seed text "$(basename "$f")" "$CHARS" '\x00' "$f"
done
seed text guide.rst "$CHARS" '\x01' "$fx/text/guide.rst"
seed text guide.rst.tokens "$TOKENS" '\x01' "$fx/text/guide.rst"
# data: the byte modulo 3 is JSON, YAML, TOML.
seed data package.json "$CHARS" '\x00' "$fx/data/package.json"
seed data ci.yaml "$CHARS" '\x01' "$fx/data/ci.yaml"
seed data Cargo.toml "$CHARS" '\x02' "$fx/data/Cargo.toml"
seed data package.json.tokens "$TOKENS" '\x00' "$fx/data/package.json"
seed data ci.yaml.tokens "$TOKENS" '\x01' "$fx/data/ci.yaml"
seed data Cargo.toml.tokens "$TOKENS" '\x02' "$fx/data/Cargo.toml"
# records: the byte picks a file name in records.rs's PATHS, and so the detected format; the
# rest is raw bytes for the engine's decoder (UTF-16 with a byte-order mark included).
seed records readme.md "$CHARS" '\x00' "$fx/markdown/readme.md"
seed records unterminated.tex "$TOKENS" '\x01' "$fx/latex/broken/unterminated.tex"
seed records guide.rst "$CHARS" '\x03' "$fx/text/guide.rst"
seed records package.json "$TOKENS" '\x04' "$fx/data/package.json"
seed records items.rs "$TOKENS" '\x07' "$fx/code/rust/items.rs"
seed records app.py "$CHARS" '\x08' "$fx/code/python/app.py"
seed records TodoList.vue "$CHARS" '\x13' "$fx/code/vue/TodoList.vue"
seed records Counter.svelte "$TOKENS" '\x14' "$fx/code/svelte/Counter.svelte"
seed records guide.html "$CHARS" '\x15' "$fx/code/html/guide.html"
seed records Cart.php "$CHARS" '\x16' "$fx/code/php/Cart.php"
seed records site.css "$TOKENS" '\x17' "$fx/code/css/site.css"
seed records schema.sql "$CHARS" '\x18' "$fx/code/sql/schema.sql"
seed records list.c "$CHARS" '\x19' "$fx/code/c/list.c"
seed records deploy.sh "$TOKENS" '\x1a' "$fx/code/bash/deploy.sh"
{ printf "$CHARS"'\x02\xff\xfe'; iconv -f UTF-8 -t UTF-16LE "$fx/text/notes.txt"; } \
    >corpus/records/notes.utf16le.txt
# documents: the byte picks a decoder in documents.rs's PATHS (pdf, epub, html, docx, pptx,
# xlsx); the fixtures were made by fixtures/documents/make.py, the broken PDFs by hand.
seed documents paper.pdf "$CHARS" '\x00' "$fx/documents/paper.pdf"
seed documents encrypted.pdf "$TOKENS" '\x00' "$fx/broken-documents/encrypted.pdf"
seed documents image-only.pdf "$CHARS" '\x00' "$fx/broken-documents/image-only.pdf"
seed documents book.epub "$TOKENS" '\x01' "$fx/documents/book.epub"
seed documents page.html "$CHARS" '\x02' "$fx/documents/page.html"
seed documents reference.html "$TOKENS" '\x02' "$fx/documents/reference.html"
seed documents report.docx "$TOKENS" '\x03' "$fx/documents/report.docx"
seed documents deck.pptx "$CHARS" '\x04' "$fx/documents/deck.pptx"
seed documents book.xlsx "$TOKENS" '\x05' "$fx/documents/book.xlsx"
# packer: any bytes make a valid tree; fixtures give the fragment reader varied material.
seed packer items.rs "$CHARS" '' "$fx/code/rust/items.rs"
seed packer readme.md "$TOKENS" '' "$fx/markdown/readme.md"
seed packer app.py '\x02\x40\x00\x00' '' "$fx/code/python/app.py"
seed packer notes.txt '\x04\x31\x00\x01' '' "$fx/text/notes.txt"
# packs: a mode byte (even: import order), then files, each a path byte (an index in packs.rs's
# PATHS), a byte naming the file its import line names, a length byte and that many bytes.
packs_file() { # path-index names-index file
    local body LC_ALL=C
    body=$(head -c 200 "$3" | tr -d '\0')
    printf "$(printf '\\x%02x\\x%02x\\x%02x' "$1" "$2" "${#body}")"
    printf '%s' "$body"
}
mkdir -p corpus/packs
{ printf "$CHARS"'\x00'; packs_file 0 1 "$fx/code/rust/items.rs"; packs_file 1 0 "$fx/code/rust/items.rs"
  packs_file 19 20 "$fx/markdown/readme.md"; packs_file 20 19 "$fx/markdown/readme.md"; } \
    >corpus/packs/rust-and-markdown
{ printf "$TOKENS"'\x01'; packs_file 2 3 "$fx/code/python/app.py"; packs_file 3 2 "$fx/code/python/app.py"
  packs_file 9 10 "$fx/code/go/server.go"; packs_file 10 9 "$fx/code/go/server.go"; } \
    >corpus/packs/python-and-c
