//! Computes `CLEAVE_SOURCE_ID`: a hash of every source file, query file and the lock file
//! that decide what cleave outputs. The cache keys its entries with it, so that a build whose
//! chunking could differ (code, grammars, dependency versions) never trusts an older entry.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.join("../..");
    let mut inputs = Vec::new();
    for dir in
        ["crates/core/src", "crates/code/src", "crates/prose/src", "crates/engine/src", "grammars"]
    {
        let dir = root.join(dir);
        println!("cargo:rerun-if-changed={}", dir.display());
        files(&dir, &mut inputs);
    }
    let lock = root.join("Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    inputs.push(lock);
    inputs.sort();
    // FNV-1a over names and contents: std only, stable across builds and machines.
    let mut hash = Fnv(0xcbf2_9ce4_8422_2325);
    for path in &inputs {
        let rel = path.strip_prefix(&root).unwrap_or(path);
        hash.write(rel.to_string_lossy().as_bytes());
        hash.write(&std::fs::read(path).unwrap_or_default());
    }
    println!("cargo:rustc-env=CLEAVE_SOURCE_ID={:016x}", hash.finish());
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}
