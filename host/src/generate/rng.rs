//! The generator's random streams and the distributions drawn from them.
//!
//! Stream derivation (fixed; changing it changes every trial, and the golden test says so):
//! a stream is named by (scenario seed, trial, purpose, index), e.g. ("arrivals", type 17).
//! Its 32-byte ChaCha20 key is four outputs of SplitMix64 started from
//! `FNV-1a-64(seed as 8 LE bytes ++ trial as 4 LE bytes ++ index as 4 LE bytes ++ purpose
//! as UTF-8)`. Every field before the purpose has a fixed width, so no two names collide by
//! concatenation. One stream per purpose and task type makes a trial reproducible alone and
//! in any order, and a change to one draw leaves the other purposes' draws unchanged.
//!
//! Every transcendental function goes through `libm` (MODEL.md): `std`'s float methods call
//! the platform's libm, whose last bit differs between machines.

use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};

/// One named random stream.
pub struct Stream(ChaCha20Rng);

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(h, |h, &b| (h ^ b as u64).wrapping_mul(FNV_PRIME))
}

/// One SplitMix64 step: advances `state` and returns the next output.
fn splitmix64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The ChaCha20 key of stream (seed, trial, purpose, index); see the module's notes.
pub fn stream_key(seed: u64, trial: u32, purpose: &str, index: u32) -> [u8; 32] {
    let mut h = fnv1a(FNV_OFFSET, &seed.to_le_bytes());
    h = fnv1a(h, &trial.to_le_bytes());
    h = fnv1a(h, &index.to_le_bytes());
    h = fnv1a(h, purpose.as_bytes());
    let mut key = [0u8; 32];
    for chunk in key.chunks_exact_mut(8) {
        chunk.copy_from_slice(&splitmix64(&mut h).to_le_bytes());
    }
    key
}

impl Stream {
    /// The stream (seed, trial, purpose, index).
    pub fn new(seed: u64, trial: u32, purpose: &str, index: u32) -> Stream {
        Stream(ChaCha20Rng::from_seed(stream_key(
            seed, trial, purpose, index,
        )))
    }

    /// Where the stream stands: its key, its ChaCha stream number and its position in
    /// 32-bit words, 56 bytes (little-endian), so that [`Stream::resume`] continues it
    /// draw for draw (a run saved and resumed in pieces).
    pub fn position(&self) -> [u8; 56] {
        let mut out = [0u8; 56];
        out[..32].copy_from_slice(&self.0.get_seed());
        out[32..40].copy_from_slice(&self.0.get_stream().to_le_bytes());
        out[40..].copy_from_slice(&self.0.get_word_pos().to_le_bytes());
        out
    }

    /// The stream at `position` ([`Stream::position`]).
    pub fn resume(position: &[u8; 56]) -> Stream {
        let mut key = [0u8; 32];
        key.copy_from_slice(&position[..32]);
        let mut r = ChaCha20Rng::from_seed(key);
        let mut x = [0u8; 8];
        x.copy_from_slice(&position[32..40]);
        r.set_stream(u64::from_le_bytes(x));
        let mut w = [0u8; 16];
        w.copy_from_slice(&position[40..]);
        r.set_word_pos(u128::from_le_bytes(w));
        Stream(r)
    }

    /// 64 random bits.
    pub fn u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in [0, 1), on the 2^-53 grid.
    pub fn unit(&mut self) -> f64 {
        (self.u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in (0, 1], on the 2^-53 grid: safe under a logarithm.
    pub fn unit_open(&mut self) -> f64 {
        ((self.u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform integer in [lo, hi] (inclusive), without modulo bias (Lemire's multiply and
    /// reject).
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        debug_assert!(lo <= hi);
        let range = (hi - lo).wrapping_add(1);
        if range == 0 {
            return self.u64();
        }
        let mut m = self.u64() as u128 * range as u128;
        if (m as u64) < range {
            let threshold = range.wrapping_neg() % range;
            while (m as u64) < threshold {
                m = self.u64() as u128 * range as u128;
            }
        }
        lo + (m >> 64) as u64
    }

    /// A standard normal draw (Box-Muller, cosine branch; each draw uses two uniforms and
    /// the sine branch is discarded, so the stream's position never depends on a cache).
    pub fn normal(&mut self) -> f64 {
        let u1 = self.unit_open();
        let u2 = self.unit();
        libm::sqrt(-2.0 * libm::log(u1)) * libm::cos(2.0 * core::f64::consts::PI * u2)
    }

    /// Exponential with rate `rate` (mean 1 / rate).
    pub fn exp(&mut self, rate: f64) -> f64 {
        -libm::log(self.unit_open()) / rate
    }

    /// Gamma with shape `k` > 0 and scale `theta` (Marsaglia and Tsang 2000; for k < 1,
    /// Gamma(k + 1) x U^(1/k)).
    pub fn gamma(&mut self, k: f64, theta: f64) -> f64 {
        if k < 1.0 {
            let g = self.gamma(k + 1.0, 1.0);
            let u = self.unit_open();
            return g * libm::pow(u, 1.0 / k) * theta;
        }
        let d = k - 1.0 / 3.0;
        let c = 1.0 / libm::sqrt(9.0 * d);
        loop {
            let x = self.normal();
            let v = 1.0 + c * x;
            if v <= 0.0 {
                continue;
            }
            let v = v * v * v;
            let u = self.unit_open();
            let x2 = x * x;
            if u < 1.0 - 0.0331 * x2 * x2 || libm::log(u) < 0.5 * x2 + d * (1.0 - v + libm::log(v))
            {
                return d * v * theta;
            }
        }
    }

    /// Gamma with mean `mean` and coefficient of variation `cov` (shape 1 / cov^2, scale
    /// mean x cov^2): the COV method's draw (Ali et al., seed 000 ref \[1\]). A COV of 0 gives
    /// the mean itself and draws nothing.
    pub fn gamma_mean_cov(&mut self, mean: f64, cov: f64) -> f64 {
        if cov <= 0.0 || mean <= 0.0 {
            return mean;
        }
        let k = 1.0 / (cov * cov);
        self.gamma(k, mean * cov * cov)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moments(xs: &[f64]) -> (f64, f64) {
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
        (m, libm::sqrt(v))
    }

    #[test]
    fn streams_differ_by_every_part_of_their_name() {
        let a = stream_key(1, 0, "arrivals", 3);
        assert_ne!(a, stream_key(2, 0, "arrivals", 3));
        assert_ne!(a, stream_key(1, 1, "arrivals", 3));
        assert_ne!(a, stream_key(1, 0, "arrivals", 4));
        assert_ne!(a, stream_key(1, 0, "classes", 3));
        assert_eq!(a, stream_key(1, 0, "arrivals", 3));
    }

    #[test]
    fn ints_stay_in_range_and_cover_it() {
        let mut s = Stream::new(7, 0, "test", 0);
        let mut seen = [0u32; 5];
        for _ in 0..5000 {
            let x = s.int(10, 14);
            seen[(x - 10) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| (800..1200).contains(&c)), "{seen:?}");
        assert_eq!(s.int(3, 3), 3);
        let _ = s.int(0, u64::MAX);
    }

    #[test]
    fn gamma_has_its_mean_and_cov() {
        let mut s = Stream::new(7, 0, "test", 1);
        for (mean, cov) in [(1.0, 0.3), (133.0, 0.2), (0.75, 0.03), (5.0, 1.5)] {
            let xs: Vec<f64> = (0..40_000).map(|_| s.gamma_mean_cov(mean, cov)).collect();
            let (m, sd) = moments(&xs);
            assert!(libm::fabs(m / mean - 1.0) < 0.02, "mean {m} for {mean}");
            assert!(
                libm::fabs(sd / m / cov - 1.0) < 0.05,
                "cov {} for {cov}",
                sd / m
            );
            assert!(xs.iter().all(|&x| x > 0.0));
        }
        assert_eq!(s.gamma_mean_cov(4.0, 0.0), 4.0);
    }

    #[test]
    fn normal_is_standard() {
        let mut s = Stream::new(7, 0, "test", 2);
        let xs: Vec<f64> = (0..40_000).map(|_| s.normal()).collect();
        let (m, sd) = moments(&xs);
        assert!(
            libm::fabs(m) < 0.02 && libm::fabs(sd - 1.0) < 0.02,
            "{m} {sd}"
        );
    }
}
