//! A faulty link, on purpose: each frame, either way, may be corrupted, truncated, dropped
//! or duplicated, at set rates from a seeded stream, so that a test can show the protocol
//! still reaches the same digest and count what it cost.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// The rates of each fault, per frame (each in `[0, 1]`), and the stream's seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultRates {
    /// A byte flipped.
    pub corrupt: f64,
    /// The frame cut short (its ending zero kept).
    pub truncate: f64,
    /// The frame lost.
    pub drop: f64,
    /// The frame delivered twice.
    pub duplicate: f64,
    /// The seed of the fault stream.
    pub seed: u64,
}

/// Faults injected so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FaultCounts {
    /// Frames seen.
    pub frames: u64,
    /// Frames corrupted.
    pub corrupted: u64,
    /// Frames truncated.
    pub truncated: u64,
    /// Frames dropped.
    pub dropped: u64,
    /// Frames duplicated.
    pub duplicated: u64,
}

/// The fault injector of one link.
pub struct Faults {
    rates: FaultRates,
    rng: ChaCha8Rng,
    /// Bytes of an incoming frame not yet ended.
    partial: Vec<u8>,
    /// What was injected.
    pub counts: FaultCounts,
}

impl Faults {
    /// An injector at `rates`.
    pub fn new(rates: FaultRates) -> Faults {
        Faults {
            rates,
            rng: ChaCha8Rng::seed_from_u64(rates.seed),
            partial: Vec::new(),
            counts: FaultCounts::default(),
        }
    }

    fn chance(&mut self, p: f64) -> bool {
        // 53 random bits, uniform in [0, 1).
        let u = (self.rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        u < p
    }

    /// What becomes of one whole frame (ending zero included): none, one or two frames.
    pub fn frame(&mut self, frame: &[u8]) -> Vec<u8> {
        self.counts.frames += 1;
        if self.chance(self.rates.drop) {
            self.counts.dropped += 1;
            return Vec::new();
        }
        let mut f = frame.to_vec();
        if f.len() > 1 && self.chance(self.rates.corrupt) {
            self.counts.corrupted += 1;
            let i = (self.rng.next_u32() as usize) % (f.len() - 1);
            // Any non-zero mask changes the byte; a byte that becomes zero splits the frame.
            f[i] ^= 1 + (self.rng.next_u32() % 255) as u8;
        }
        if f.len() > 2 && self.chance(self.rates.truncate) {
            self.counts.truncated += 1;
            let keep = (self.rng.next_u32() as usize) % (f.len() - 1);
            f.truncate(keep);
            f.push(0);
        }
        if self.chance(self.rates.duplicate) {
            self.counts.duplicated += 1;
            let copy = f.clone();
            f.extend(copy);
        }
        f
    }

    /// Incoming bytes, cut at frame ends, each whole frame through [`Faults::frame`]; bytes
    /// of a frame not yet ended wait for the rest.
    pub fn incoming(&mut self, bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for &b in bytes {
            self.partial.push(b);
            if b == 0 {
                let f = std::mem::take(&mut self.partial);
                out.extend(self.frame(&f));
            }
        }
        out
    }
}
