//! The run digest: a 64-bit FNV-1a hash over the ordered decisions and the final ledgers.
//!
//! FNV-1a is byte-order explicit here (little-endian encodings), needs no table and no
//! allocation, and gives the same value on x86_64 and on the Cortex-M4F.

use crate::plan::{Decision, DecisionKind};

/// An FNV-1a 64 hasher.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Digest(u64);

impl Default for Digest {
    fn default() -> Digest {
        Digest::new()
    }
}

impl Digest {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    /// A fresh hash.
    pub const fn new() -> Digest {
        Digest(Self::OFFSET)
    }
    /// Adds bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(Self::PRIME);
        }
    }
    /// Adds a u64, little-endian.
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// Adds a u32, little-endian.
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    /// Adds a decision: task, kind, cluster, nodes, P-state, start.
    pub fn decision(&mut self, d: &Decision) {
        self.u32(d.task.0);
        let k = match d.kind {
            DecisionKind::Start => 0u8,
            DecisionKind::Reserve => 1,
            DecisionKind::PlaceHold => 2,
            DecisionKind::Drop => 3,
        };
        self.bytes(&[k, d.cluster.0, d.pstate.0]);
        self.u32(d.nodes.0);
        self.u64(d.start.0);
    }
    /// The hash so far.
    pub const fn value(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_known_values() {
        // Published FNV-1a 64 test vectors.
        let mut d = Digest::new();
        assert_eq!(d.value(), 0xcbf29ce484222325);
        d.bytes(b"a");
        assert_eq!(d.value(), 0xaf63dc4c8601ec8c);
        let mut d = Digest::new();
        d.bytes(b"foobar");
        assert_eq!(d.value(), 0x85944171f73967e8);
    }
}
