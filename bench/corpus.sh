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
# The second wave of languages (issue 16). Debian packages that are only unpacked (apt-get
# download + dpkg-deb -x, nothing installed): their versions go into the MANIFEST too.
PYTHONNET=3.0.5
EXPO_MODULES_CORE=2.2.3
# The web group: npm tarballs that ship their CSS and their .vue/.svelte sources.
CSS_NPM=(bootstrap@5.3.9 bulma@1.0.4 primevue@3.53.1 vitepress@1.6.4)
VUE_NPM=(primevue@3.53.1 vitepress@1.6.4)
SVELTE_NPM=(flowbite-svelte@1.33.1 bits-ui@0.22.0 @sveltejs/kit@2.70.4)
# SQL: PostgreSQL's own scripts and extensions, PostGIS (functions in $$ bodies, a 7 MB file
# of INSERTs), pgTAP, MariaDB's system tables and sys schema (DELIMITER $$, BEGIN … END
# procedures, 2.5 MB of help-table INSERTs) and test scripts, MediaWiki's and Roundcube's
# schemas and migrations (MySQL, PostgreSQL and SQLite).
SQL_DEBS=(postgresql-15 postgresql-15-postgis-3-scripts postgresql-15-pgtap mariadb-server-core
    mariadb-test-data mediawiki roundcube-core)
GLIBC_DIRS=(string stdlib malloc nptl stdio-common libio elf posix)
BOOST_DIRS=(boost/asio boost/json boost/container boost/optional)
PHP_PKGS=(
    php-symfony-all-my-sms-notifier php-symfony-amazon-mailer php-symfony-amazon-sns-notifier
    php-symfony-amazon-sqs-messenger php-symfony-amqp-messenger php-symfony-asset
    php-symfony-beanstalkd-messenger php-symfony-browser-kit php-symfony-cache
    php-symfony-clickatell-notifier php-symfony-config php-symfony-console
    php-symfony-crowdin-translation-provider php-symfony-css-selector php-symfony-debug-bundle
    php-symfony-dependency-injection php-symfony-discord-notifier php-symfony-doctrine-bridge
    php-symfony-doctrine-messenger php-symfony-dom-crawler php-symfony-dotenv
    php-symfony-error-handler php-symfony-esendex-notifier php-symfony-event-dispatcher
    php-symfony-expo-notifier php-symfony-expression-language php-symfony-fake-chat-notifier
    php-symfony-fake-sms-notifier php-symfony-filesystem php-symfony-finder
    php-symfony-firebase-notifier php-symfony-form php-symfony-framework-bundle
    php-symfony-free-mobile-notifier php-symfony-gateway-api-notifier php-symfony-gitter-notifier
    php-symfony-google-chat-notifier php-symfony-google-mailer php-symfony-http-client
)
# Markdown documents that link to each other (issue 19: documents follow their links): the
# Node.js API reference as Debian ships it, and the docs of two PyPI sdists (MkDocs and
# PyMdown Extensions).
NODEJS_DOC=nodejs-doc
MD_PYPI=(mkdocs==1.6.1 pymdown-extensions==10.12)
# Scala: no package registry reachable here ships Scala sources; the corpus is a snapshot of
# typelevel/cats at this commit, given as a checkout in SCALA_SRC.
CATS_COMMIT=7f2dce5162074c0a0ebc597b89b6cd25e5fe0536

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

# deb_unpack DIR PACKAGE…: downloads the packages' .deb files and unpacks them into DIR
# (no install, no dependencies); prints nothing.
deb_unpack() {
    local dir="$1" debs="$dl/debs"
    shift
    mkdir -p "$dir" "$debs"
    (cd "$debs" && apt-get download -qq "$@" 2>/dev/null)
    local p
    for p in "$@"; do dpkg-deb -x "$(ls "$debs/${p}"_*.deb | head -1)" "$dir"; done
}

deb_versions() { # PACKAGE…: "name version, …" of downloaded .deb files
    local p out=()
    for p in "$@"; do out+=("$p $(ls "$dl/debs/${p}"_*.deb | head -1 | sed 's/.*_\(.*\)_.*/\1/')"); done
    local IFS=,
    echo "${out[*]}"
}

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

npm_unpack() { # DIR PKG@VERSION…: each tarball from `npm pack`, unpacked into DIR/<name>
    local dir="$1" pkg tgz
    shift
    mkdir -p "$dir/tgz"
    for pkg in "$@"; do
        local name="${pkg%@*}"
        name="${name//\//+}"
        [[ -d "$dir/$name" ]] && continue
        tgz=$(cd "$dir/tgz" && npm pack --silent "$pkg" | tail -1)
        mkdir -p "$dir/$name" && tar -xzf "$dir/tgz/$tgz" -C "$dir/$name"
    done
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
    c)
        # glibc's own C: a few of its folders, taken from the source tarball Debian ships.
        local unz="$dl/glibc"
        if [[ ! -d "$unz/src" ]]; then
            rm -rf "$unz" && deb_unpack "$unz/deb" glibc-source
            local tarball
            tarball=$(ls "$unz"/deb/usr/src/glibc/glibc-*.tar.xz)
            local pats=()
            for d in "${GLIBC_DIRS[@]}"; do pats+=("glibc-*/$d/*.[ch]"); done
            mkdir -p "$unz/src" && tar -xJf "$tarball" -C "$unz/src" --wildcards "${pats[@]}"
            rm -rf "$unz/deb"
        fi
        local root="$unz/src"
        (cd "$root" && find . -name '*.[ch]' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "Debian $(deb_versions glibc-source), ${GLIBC_DIRS[*]}/*.[ch]"
        ;;
    cpp)
        local unz="$dl/cpp"
        [[ -d "$unz" ]] || deb_unpack "$unz" googletest libboost1.81-dev
        local root="$unz"
        (cd "$root" && { find usr/src/googletest -name '*.cc' -printf '%p\0'
            for d in "${BOOST_DIRS[@]}"; do find "usr/include/$d" -name '*.hpp' -printf '%p\0'; done; }) |
            copy_capped "$root" "$dest"
        manifest "$dest" "Debian $(deb_versions googletest libboost1.81-dev), googletest **/*.cc, ${BOOST_DIRS[*]} **/*.hpp"
        ;;
    bash)
        # Completion scripts: shell functions; they have no extension, so they get `.bash`.
        local unz="$dl/bash"
        [[ -d "$unz" ]] || deb_unpack "$unz" bash-completion
        local root="$unz/usr/share/bash-completion/completions" f
        rm -rf "$dl/bash-named" && mkdir -p "$dl/bash-named"
        for f in "$root"/*; do [[ -f "$f" && ! -L "$f" ]] && cp "$f" "$dl/bash-named/$(basename "$f").bash"; done
        (cd "$dl/bash-named" && find . -name '*.bash' -printf '%P\0') | copy_capped "$dl/bash-named" "$dest"
        manifest "$dest" "Debian $(deb_versions bash-completion), completions/* as *.bash"
        ;;
    ruby)
        local unz="$dl/ruby"
        [[ -d "$unz" ]] || deb_unpack "$unz" libruby3.1
        local root="$unz/usr/lib/ruby/3.1.0"
        (cd "$root" && find . -name '*.rb' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "Debian $(deb_versions libruby3.1), lib/ruby/3.1.0/**/*.rb"
        ;;
    php)
        local unz="$dl/php"
        [[ -d "$unz" ]] || deb_unpack "$unz" "${PHP_PKGS[@]}"
        local root="$unz/usr/share/php"
        (cd "$root" && find Symfony -name '*.php' -print0) | copy_capped "$root" "$dest"
        manifest "$dest" "Debian php-symfony-* 5.4 (${#PHP_PKGS[@]} packages, see corpus.sh), Symfony/**/*.php"
        ;;
    csharp)
        local tgz="$dl/pythonnet-$PYTHONNET.tar.gz" unz="$dl/pythonnet"
        [[ -f "$tgz" ]] || python3 -m pip download --quiet --no-deps --no-binary=:all: "pythonnet==$PYTHONNET" -d "$dl"
        [[ -d "$unz" ]] || { mkdir -p "$unz" && tar -xzf "$tgz" -C "$unz"; }
        local root="$unz/pythonnet-$PYTHONNET"
        (cd "$root" && find . -name '*.cs' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "PyPI pythonnet==$PYTHONNET sdist, **/*.cs"
        ;;
    kotlin | swift)
        local tgz="$dl/expo-modules-core-$EXPO_MODULES_CORE.tgz" unz="$dl/expo"
        [[ -f "$tgz" ]] || (cd "$dl" && npm pack --silent "expo-modules-core@$EXPO_MODULES_CORE" >/dev/null)
        [[ -d "$unz" ]] || { mkdir -p "$unz" && tar -xzf "$tgz" -C "$unz"; }
        local root="$unz/package" ext=kt
        [[ "$lang" == swift ]] && ext=swift
        (cd "$root" && find . -name "*.$ext" -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "npm expo-modules-core@$EXPO_MODULES_CORE, **/*.$ext"
        ;;
    markdown)
        local unz="$dl/markdown" p
        if [[ ! -d "$unz/src" ]]; then
            rm -rf "$unz" && deb_unpack "$unz/deb" "$NODEJS_DOC"
            mkdir -p "$unz/src/nodejs-api" "$unz/pypi"
            cp "$unz"/deb/usr/share/doc/nodejs/api/*.md* "$unz/src/nodejs-api/"
            gunzip -f "$unz"/src/nodejs-api/*.md.gz
            python3 -m pip download --quiet --no-deps --no-binary=:all: "${MD_PYPI[@]}" -d "$unz/pypi"
            for p in "$unz"/pypi/*.tar.gz; do tar -xzf "$p" -C "$unz/pypi"; done
            for p in "$unz"/pypi/*/docs; do
                local name
                name=$(basename "$(dirname "$p")")
                cp -r "$p" "$unz/src/$name"
            done
            rm -rf "$unz/deb"
        fi
        local root="$unz/src"
        (cd "$root" && find . -name '*.md' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "Debian $(deb_versions "$NODEJS_DOC") api/*.md, PyPI ${MD_PYPI[*]} sdists docs/**/*.md"
        ;;
    scala)
        local root="${SCALA_SRC:?scala: set SCALA_SRC to a checkout of typelevel/cats at $CATS_COMMIT}"
        (cd "$root" && find . -name '*.scala' -printf '%P\0') | copy_capped "$root" "$dest"
        manifest "$dest" "typelevel/cats $CATS_COMMIT (GitHub snapshot), **/*.scala"
        ;;
    sql)
        local unz="$dl/sql" p
        for p in "${SQL_DEBS[@]}"; do [[ -d "$unz/$p" ]] || deb_unpack "$unz/$p" "$p"; done
        (cd "$unz" && { find postgresql-15/usr/share/postgresql/15 -name '*.sql' -printf '%p\0'
            find postgresql-15-postgis-3-scripts/usr/share/postgresql/15/contrib -name '*.sql' -printf '%p\0'
            find postgresql-15-pgtap mariadb-server-core mariadb-test-data mediawiki roundcube-core \
                -name '*.sql' -printf '%p\0'; }) | copy_capped "$unz" "$dest"
        manifest "$dest" "Debian $(deb_versions "${SQL_DEBS[@]}"), **/*.sql (PostGIS: contrib/ only)"
        ;;
    html)
        # HTML as source (the `html` row, not the document decoder): Django's templates (admin
        # pages with <header>, <nav>, <main> and template tags) and the PostgreSQL manual's
        # generated pages.
        local tgz="$dl/django-$DJANGO.tar.gz" unz="$dl/django" pg="$dl/html"
        if [[ ! -f "$tgz" ]]; then
            python3 -m pip download --quiet --no-deps --no-binary=:all: "django==$DJANGO" -d "$dl"
        fi
        if [[ ! -d "$unz/django-$DJANGO" ]]; then
            rm -rf "$unz" && mkdir -p "$unz" && tar -xzf "$tgz" -C "$unz"
        fi
        [[ -d "$pg" ]] || deb_unpack "$pg" postgresql-doc-15
        mkdir -p "$dl/html-both"
        ln -sfn "$unz/django-$DJANGO/django" "$dl/html-both/django"
        ln -sfn "$pg/usr/share/doc/postgresql-doc-15/html" "$dl/html-both/postgresql"
        (cd "$dl/html-both" && find -L django postgresql -name '*.html' -print0) |
            copy_capped "$dl/html-both" "$dest"
        manifest "$dest" "PyPI django==$DJANGO sdist django/**/*.html; Debian postgresql-doc-15 $(deb_versions postgresql-doc-15) html/*.html"
        ;;
    css | vue | svelte)
        local unz="$dl/web" pkgs
        case "$lang" in
            css) pkgs=("${CSS_NPM[@]}") ;;
            vue) pkgs=("${VUE_NPM[@]}") ;;
            svelte) pkgs=("${SVELTE_NPM[@]}") ;;
        esac
        npm_unpack "$unz" "${pkgs[@]}"
        local names=() p
        for p in "${pkgs[@]}"; do p="${p%@*}"; names+=("${p//\//+}"); done
        (cd "$unz" && find "${names[@]}" -name "*.$lang" -print0) | copy_capped "$unz" "$dest"
        manifest "$dest" "npm ${pkgs[*]}, **/*.$lang"
        ;;
    *)
        echo "corpus: unknown language $lang (rust, python, typescript, go, java, c, cpp, bash, csharp, ruby, php, kotlin, scala, swift, css, vue, svelte, sql, html)" >&2
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
