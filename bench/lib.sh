# Shared by the bench scripts: sourced after `here` (this folder) and `root` are set.

# Builds cleave (release, root workspace) and the harness (release, this workspace) and sets
# `cleave` and `harness` to their paths; $1 names the calling script in the log line.
build_contenders() {
    echo "$1: building cleave (release) and the harness (release)" >&2
    (cd "$root" && cargo build --release --quiet -p cleave-cli)
    (cd "$here" && CARGO_TARGET_DIR="$here/target" cargo build --release --quiet --bins)
    cleave="$root/target/release/cleave"
    harness="$here/target/release/cleave-bench"
}
