#!/usr/bin/env bash
# Instruction counts (callgrind, one thread): cleave end to end in chars and in o200k tokens
# against the parse-only baseline, and text-splitter's CodeSplitter in chars beside them, on a
# slice of each pinned corpus (its first code files in path order, up to SLICE_MB). Unlike the times of run.sh, instruction counts do not move with
# the load of a shared machine; they leave out what callgrind does not see (other threads'
# overlap, I/O waits), so they complement run.sh rather than replace it.
#
#   bench/instructions.sh                # every corpus
#   bench/instructions.sh python go      # some corpora
#   bench/instructions.sh c cpp bash csharp ruby php kotlin scala swift css vue svelte sql
#
# Environment: SLICE_MB (3), BUDGET (2000), NO_SPLITTER and NO_TOKENS (set: leave out the
# text-splitter or the cleave tokens column), OUT (the report file; default
# bench/runs/<date>-<machine>-instructions.txt). Measures the working tree.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
slice_mb="${SLICE_MB:-3}"
budget="${BUDGET:-2000}"
langs=("$@")
((${#langs[@]})) || langs=(rust python typescript go java)
out="${OUT:-$here/runs/$(date -u +%Y-%m-%d)-$(hostname -s 2>/dev/null || echo machine)-instructions.txt}"

if ! command -v valgrind >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind >/dev/null
fi
"$here/corpus.sh" "${langs[@]}"

# shellcheck source=bench/lib.sh
source "$here/lib.sh"
build_contenders instructions

# Millions of instructions callgrind counts for one run of the command.
count() {
    local file
    file=$(mktemp)
    valgrind --tool=callgrind --callgrind-out-file="$file" "$@" >/dev/null 2>&1
    awk '/^totals:/ {printf "%.0f", $2 / 1e6}' "$file"
    rm -f "$file"
}

# The extensions of a corpus's code files (find -name patterns).
ext_of() {
    case "$1" in
        rust) echo '*.rs' ;; python) echo '*.py' ;; typescript) echo '*.ts' ;; go) echo '*.go' ;;
        java) echo '*.java' ;; c) echo '*.c *.h' ;; cpp) echo '*.cc *.hpp' ;; bash) echo '*.bash' ;;
        csharp) echo '*.cs' ;; ruby) echo '*.rb' ;; php) echo '*.php' ;; kotlin) echo '*.kt' ;;
        scala) echo '*.scala' ;; swift) echo '*.swift' ;; sql) echo '*.sql' ;; css) echo '*.css' ;;
        vue) echo '*.vue' ;; svelte) echo '*.svelte' ;; html) echo '*.html' ;;
        *) echo "instructions: unknown corpus $1" >&2 && exit 2 ;;
    esac
}

{
    echo "cleave instruction counts, $(date -u '+%Y-%m-%d %H:%M') UTC"
    echo "command: bench/instructions.sh ${langs[*]}  (SLICE_MB=$slice_mb BUDGET=$budget)"
    echo "cleave: $(cd "$root" && git log -1 --format='%h %s')$(cd "$root" && git diff --quiet HEAD -- crates || echo ' (+ uncommitted changes)')"
    echo "machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
    echo "valgrind: $(valgrind --version); callgrind, one thread, millions of instructions (Ir)"
    [[ -n ${NO_TOKENS:-} ]] ||
        echo "tokens: o200k, budget $budget tokens; includes the one-time table load (about 350 M)"
    echo
    echo "text-splitter: CodeSplitter 0.33.1, same grammar, budget $budget chars (Characters), one thread"
    echo "parse-only: cleave_code::parse_only (Vue, Svelte, HTML: the host parse and the <script>/<style>"
    echo "            bodies, cleave_bench::parse_with_injections); SQL has no grammar (a scanner): n/a"
    echo
    printf '%11s %6s %12s %12s %12s %14s %13s %12s %14s\n' corpus MB parse-only 'cleave chars' \
        'cleave tokens' 'parse / chars' 'tokens / chars' 't-s chars' 't-s / chars'
} | tee "$out"

for lang in "${langs[@]}"; do
    names=()
    read -r -a pats <<<"$(ext_of "$lang")"
    for pat in "${pats[@]}"; do names+=(${names[@]:+-o} -name "$pat"); done
    slice="$here/tmp/slices/$lang"
    rm -rf "$slice" && mkdir -p "$slice"
    limit=$((slice_mb * 1000 * 1000))
    total=0
    while IFS= read -r -d '' file; do
        [[ $file == *.d.ts ]] && continue
        size=$(stat -c %s "$file")
        if ((total + size > limit)); then
            # A first file larger than the whole slice is passed over (SQL's 2.5 MB of
            # INSERTs), as cleave_bench::sample does, so that the slice is never empty.
            ((total == 0)) && continue
            break
        fi
        rel="${file#"$here/corpus/$lang/"}"
        # HTML is measured as source: an .html page would be decoded to Markdown by the CLI (a
        # document, not the grammar), so the slice names every file .xhtml, the html row's
        # extension that no decoder takes. The bytes are the same.
        [[ $lang == html ]] && rel="${rel%.html}.xhtml"
        mkdir -p "$slice/$(dirname "$rel")"
        cp "$file" "$slice/$rel"
        total=$((total + size))
    done < <(find "$here/corpus/$lang" -type f \( "${names[@]}" \) -print0 | sort -z)
    # No grammar (SQL), no parse-only floor and no text-splitter: the harness finds no files.
    parse=0 splitter=0
    if [[ $lang != sql ]]; then
        parse=$(count "$harness" parse --threads 1 "$slice")
        [[ -n ${NO_SPLITTER:-} ]] ||
            splitter=$(count "$harness" splitter --threads 1 --budget "$budget" --unit chars "$slice")
    fi
    chars=$(count "$cleave" chunk "$slice" --threads 1 --budget "$budget" -q)
    tokens=0
    [[ -n ${NO_TOKENS:-} ]] ||
        tokens=$(count "$cleave" chunk "$slice" --threads 1 --budget "$budget" --unit tokens -q)
    awk -v l="$lang" -v mb="$total" -v p="$parse" -v c="$chars" -v t="$tokens" -v s="$splitter" 'BEGIN {
        na = "n/a"
        printf "%11s %6.1f %12s %12d %12s %14s %13s %12s %14s\n", l, mb / 1e6, p ? p : na, c, t ? t : na,
            p ? sprintf("%.2f", p / c) : na, t ? sprintf("%.2f", t / c) : na, s ? s : na,
            s ? sprintf("%.2f", s / c) : na }' |
        tee -a "$out"
done
echo "instructions: written to $out" >&2
