# cleave tasks. Every recipe is a plain cargo or shell command: the README's commands work
# without just.

# Chunk a file or folder (JSON Lines on stdout); extra arguments go to `cleave chunk`.
chunk path *args:
    cargo run --release -p cleave-cli -- chunk {{path}} {{args}}

# The test suite, as CI runs it.
test:
    cargo test --workspace

# Slow tests on real corpora (see bench/corpus.sh for building them).
test-slow:
    CLEAVE_SLOW_TESTS=1 cargo test --workspace --release -- --nocapture

# Lints as CI runs them.
lint:
    cargo fmt --all --check
    cargo clippy --workspace --all-targets -- -D warnings

# End-to-end benchmarks against the parse-only limit and text-splitter; writes bench/runs/.
bench *args:
    bash bench/run.sh {{args}}

# Instruction counts (callgrind, one thread) of cleave against parse-only on corpus slices:
# steadier than the times of `just bench` on a shared machine; writes bench/runs/.
bench-instructions *args:
    bash bench/instructions.sh {{args}}

# The second wave of languages (issue 16) against their parse-only floors and text-splitter, in
# instructions on 2 MB slices (SCALA_SRC must name a typelevel/cats checkout if bench/corpus/scala
# is not built yet; see bench/corpus.sh).
bench-languages:
    SLICE_MB=2 NO_TOKENS=1 bash bench/instructions.sh c cpp bash csharp ruby php kotlin scala swift css vue svelte html sql

# The parse-only ratio alone: parse-only and cleave timed alternately, least CPU of ROUNDS each.
bench-interleaved *args:
    bash bench/interleaved.sh {{args}}

# Fuzz the packer through the shared invariant checker with many more property cases.
fuzz cases="20000":
    PROPTEST_CASES={{cases}} cargo test --release -p cleave-core proptests
