//! `IdMap`: a hash map keyed by tree-sitter node ids, with a cheap hasher.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Node ids are addresses: a multiply-shift hash is enough and much cheaper than SipHash.
#[derive(Default)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_right(17);
    }
}

pub(crate) type IdMap<V> = HashMap<usize, V, BuildHasherDefault<IdHasher>>;
