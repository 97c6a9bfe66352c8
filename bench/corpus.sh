#!/usr/bin/env bash
# Builds the pinned benchmark corpora under bench/corpus/<lang>/, from the package registries
# only (Debian, PyPI, npm), as listed in shared/DEPS.md. Idempotent: a corpus whose MANIFEST is
# already there is left alone (delete bench/corpus/<lang> to rebuild it). The MANIFEST lies
# beside the corpus (bench/corpus/<lang>.MANIFEST), not in it, so that cleave never sees it.
#
#   bench/corpus.sh            # every language
#   bench/corpus.sh rust go    # some of them
#
# Each corpus is capped at CAP_MB (default 25) MB of source, taking files in sorted path order,
# so the same package version always gives the same corpus. The MANIFEST records the package
# version, file count, byte count and a digest of the tree. Scaled copies for the linearity
# check (<lang>-x2, <lang>-x4: the tree copied into 2 or 4 subfolders, hard links) are made
# for the languages in SCALE_LANGS (default: python).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/corpus"
dl="$here/tmp/download"
cap_mb="${CAP_MB:-25}"
scale_langs="${SCALE_LANGS:-python}"
mkdir -p "$out" "$dl"

# Pinned versions. Debian packages are pinned by name and their installed version is recorded
# in the MANIFEST (a Debian security update may move the patch level).
DJANGO=5.2.19
NPM_PKGS=(rxjs@7.8.2 zod@4.6.7 @trpc/server@11.25.2)
APT_PKGS=(rust-src golang-1.19-src openjdk-17-source)

apt_ensure() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if ((${#missing[@]})); then
        echo "corpus: apt-get install ${missing[*]}" >&2
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >/dev/null
    fi
}

apt_version() { dpkg-query -W -f='${Version}' "$1"; }

# copy_capped SRC_ROOT DEST: reads NUL-separated paths relative to SRC_ROOT on stdin, sorts
# them, and copies files in that order until the cap is reached.
copy_capped() {
    # The script comes in -c: stdin carries the path list.
    python3 -c '
import os, sys, shutil
src, dst, cap = sys.argv[1], sys.argv[2], int(sys.argv[3]) * 1_000_000
paths = sorted(p for p in sys.stdin.buffer.read().decode().split("\0") if p)
total = 0
for rel in paths:
    size = os.path.getsize(os.path.join(src, rel))
    if total + size > cap:
        break
    os.makedirs(os.path.dirname(os.path.join(dst, rel)), exist_ok=True)
    shutil.copyfile(os.path.join(src, rel), os.path.join(dst, rel))
    total += size
' "$1" "$2" "$cap_mb"
}

manifest() { # DIR SOURCE-DESCRIPTION
    local dir="$1" desc="$2" files bytes digest
    files=$(find "$dir" -type f | wc -l)
    bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')
    digest=$(cd "$dir" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
    printf 'source: %s\nfiles: %s\nbytes: %s\ndigest: %s\ncap_mb: %s\n' \
        "$desc" "$files" "$bytes" "$digest" "$cap_mb" >"$dir.MANIFEST"
    echo "corpus: $(basename "$dir"): $files files, $((bytes / 1000000)) MB ($desc)" >&2
}

build() { # LANG
    local lang="$1" dest="$out/$1"
    if [[ -f "$dest.MANIFEST" && -d "$dest" ]]; then
        echo "corpus: $lang: present ($(sed -n 's/^bytes: //p' "$dest.MANIFEST") bytes)" >&2
        return
    fi
    rm -rf "$dest" "$dest.MANIFEST" && mkdir -p "$dest"
    case "$lang" in
    rust)
        # The standard library (core, alloc, std, …): real code that compiles. The compiler's
        # test suite (src/test) holds deliberately invalid code and is left out.
        apt_ensure rust-src
        local root=/usr/lib/rustlib/src/rust
        (cd "$root" && find library -name '*.rs' -print0) | copy_capped "$root" "$dest"
        manifest "$dest" "Debian rust-src $(apt_version rust-src), library/**/*.rs"
        ;;
    go)
        apt_ensure golang-1.19-src
        local root=/usr/share/go-1.19/src
        (cd "$root" && find . -name '*.go' ! -path '*/testdata/*' ! -name '*_test.go' -printf '%P\0') |
            copy_capped "$root" "$dest"
        manifest "$dest" "Debian golang-1.19-src $(apt_version golang-1.19-src), src/**/*.go without tests and testdata"
        ;;
    java)
        apt_ensure openjdk-17-source
        local zip=/usr/lib/jvm/openjdk-17/lib/src.zip unz="$dl/jdk-src"
        if [[ ! -d "$unz/java.base" ]]; then
            rm -rf "$unz" && mkdir -p "$unz"
            (cd "$unz" && python3 -c 'import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
z.extractall(".", [n for n in z.namelist() if n.startswith("java.base/") and n.endswith(".java")])' "$zip")
        fi
        (cd "$unz" && find java.base -name '*.java' -print0) | copy_capped "$unz" "$dest"
        manifest "$dest" "Debian openjdk-17-source $(apt_version openjdk-17-source), java.base/**/*.java"
        ;;
    python)
        local tgz="$dl/django-$DJANGO.tar.gz" unz="$dl/django"
        if [[ ! -f "$tgz" ]]; then
            python3 -m pip download --quiet --no-deps --no-binary=:all: "django==$DJANGO" -d "$dl"
        fi
        if [[ ! -d "$unz/django-$DJANGO" ]]; then
            rm -rf "$unz" && mkdir -p "$unz" && tar -xzf "$tgz" -C "$unz"
        fi
        local root="$unz/django-$DJANGO"
        (cd "$root" && find . -name '*.py' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "PyPI django==$DJANGO sdist, **/*.py"
        ;;
    typescript)
        local nd="$dl/npm"
        if [[ ! -d "$nd/node_modules/@trpc/server" ]]; then
            rm -rf "$nd" && mkdir -p "$nd"
            (cd "$nd" && echo '{"name":"cleave-bench-corpus","private":true}' >package.json &&
                npm install --silent --ignore-scripts --no-audit --no-fund "${NPM_PKGS[@]}" >/dev/null 2>&1)
        fi
        local root="$nd/node_modules"
        (cd "$root" && find rxjs/src zod/src @trpc/server/src -name '*.ts' ! -name '*.d.ts' -print0) |
            copy_capped "$root" "$dest"
        manifest "$dest" "npm ${NPM_PKGS[*]}, src/**/*.ts without .d.ts"
        ;;
    *)
        echo "corpus: unknown language $lang (rust, python, typescript, go, java)" >&2
        exit 2
        ;;
    esac
}

scale() { # LANG: <lang>-x2 and <lang>-x4, the corpus copied into subfolders (hard links)
    local lang="$1" n
    for n in 2 4; do
        local dest="$out/$lang-x$n"
        [[ -f "$dest.MANIFEST" && -d "$dest" ]] && continue
        rm -rf "$dest" "$dest.MANIFEST" && mkdir -p "$dest"
        for ((i = 1; i <= n; i++)); do
            mkdir -p "$dest/copy$i"
            (cd "$out/$lang" && find . -type f -printf '%P\0') |
                (cd "$out/$lang" && xargs -0 cp -l --parents -t "$dest/copy$i")
        done
        manifest "$dest" "$n x $lang"
    done
}

langs=("$@")
((${#langs[@]})) || langs=(rust python typescript go java)
for lang in "${langs[@]}"; do build "$lang"; done
for lang in $scale_langs; do
    [[ " ${langs[*]} " == *" $lang "* ]] && scale "$lang"
done
exit 0
