//! The power model of seed 003 (Eq. 7.1-7.2): a table of DVFS levels, each a frequency and a
//! dynamic power, and one static power per used core.
//!
//! A task at level `l` runs `wcet x (b x f_0 / f_l + 1 - b)`, where `b` is the share of its
//! time that scales with the clock (1: fully frequency-bound, R2), and draws the level's
//! dynamic power meanwhile; every core the job uses draws the static power for the
//! job's whole response time (cores are held until the job completes, R8); unused cores are
//! power-gated. Energies are integer nanojoules (milliwatts x microseconds): exact sums.

use crate::dag::error::DagError;
use crate::limits::MAX_DVFS_LEVELS;
use crate::units::{Micros, MilliWatts};

/// The DVFS levels of a seed 003 core. Level 0 is the fastest, as kairos numbers P-states.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DvfsTable {
    levels: u8,
    freq_mhz: [u32; MAX_DVFS_LEVELS],
    p_dyn: [MilliWatts; MAX_DVFS_LEVELS],
    p_static: MilliWatts,
    /// Per mille of a task's time that scales with 1/f (1000: fully frequency-bound).
    freq_bound_pm: u16,
}

/// R1's frequencies: the six levels of the spec's Intel Core M stand-in, 1.8 to 0.8 GHz
/// (withdrawn as the default; kept as the `r1` table to compare against).
pub const R1_FREQ_MHZ: [u32; 6] = [1800, 1600, 1400, 1200, 1000, 800];

/// The six Enhanced SpeedStep operating points of the Intel Pentium M at 1.6 GHz (Banias,
/// 130 nm), MHz: Intel's Pentium M datasheet (document 252612, Table 5), as carried by Linux's
/// `drivers/cpufreq/speedstep-centrino.c` (`banias_1600`). The only Intel "M" part with a
/// published table of exactly six voltage/frequency levels, the count §7.3 gives for its
/// "Intel Core M" (whose datasheets publish no per-level voltage or power).
pub const PENTIUM_M_FREQ_MHZ: [u32; 6] = [1600, 1400, 1200, 1000, 800, 600];
/// The same operating points' core voltages, millivolts (same source).
pub const PENTIUM_M_MV: [u32; 6] = [1484, 1420, 1276, 1164, 1036, 956];
/// The Pentium M (Banias)'s thermal design power at its top voltage, 1.484 V, which the 1.6
/// and 1.7 GHz parts share: the whole power of its one core at level 0, static and dynamic.
/// Published for the 1.7 GHz part (tecChannel's Pentium M 735 review; heise's Dothan report);
/// the 1.6 GHz row of datasheet 252612 was not found in a searchable source (docs/model.md).
pub const PENTIUM_M_TDP: MilliWatts = MilliWatts(24_500);

impl DvfsTable {
    /// A table of `freq_mhz.len()` levels with dynamic powers `p_dyn` and static power
    /// `p_static` per used core.
    ///
    /// Errors: no level, more than [`MAX_DVFS_LEVELS`], or lists of unequal length
    /// ([`DagError::Levels`]); a frequency that is zero or not below the previous one
    /// ([`DagError::Frequency`]).
    pub fn new(
        freq_mhz: &[u32],
        p_dyn: &[MilliWatts],
        p_static: MilliWatts,
    ) -> Result<DvfsTable, DagError> {
        let n = freq_mhz.len();
        if n == 0 || n > MAX_DVFS_LEVELS || p_dyn.len() != n {
            return Err(DagError::Levels(n));
        }
        let mut t = DvfsTable {
            levels: n as u8,
            freq_mhz: [0; MAX_DVFS_LEVELS],
            p_dyn: [MilliWatts(0); MAX_DVFS_LEVELS],
            p_static,
            freq_bound_pm: 1000,
        };
        for l in 0..n {
            if freq_mhz[l] == 0 || (l > 0 && freq_mhz[l] >= freq_mhz[l - 1]) {
                return Err(DagError::Frequency(l as u8));
            }
            t.freq_mhz[l] = freq_mhz[l];
            t.p_dyn[l] = p_dyn[l];
        }
        Ok(t)
    }

    /// R1: the frequencies of [`R1_FREQ_MHZ`], V = 0.60 + 0.20 f (V, GHz), dynamic power
    /// C_eff V^2 f with C_eff = 1 nF (so V^2 f watts), rounded to the milliwatt: 1659, 1354,
    /// 1084, 847, 640 and 462 mW; `p_static` per used core.
    pub fn r1(p_static: MilliWatts) -> DvfsTable {
        let mut p = [MilliWatts(0); 6];
        for (l, &f) in R1_FREQ_MHZ.iter().enumerate() {
            // V in mV = 600 + f(MHz)/5; P(mW) = V(mV)^2 x f(MHz) / 1e6, rounded half up.
            let v = 600 + f as u64 / 5;
            p[l] = MilliWatts(((v * v * f as u64 + 500_000) / 1_000_000) as u32);
        }
        // Valid by construction: six positive, strictly decreasing frequencies.
        let mut t = DvfsTable {
            levels: 6,
            freq_mhz: [0; MAX_DVFS_LEVELS],
            p_dyn: [MilliWatts(0); MAX_DVFS_LEVELS],
            p_static,
            freq_bound_pm: 1000,
        };
        t.freq_mhz[..6].copy_from_slice(&R1_FREQ_MHZ);
        t.p_dyn[..6].copy_from_slice(&p);
        t
    }

    /// The Intel Pentium M 1.6 GHz's six levels ([`PENTIUM_M_FREQ_MHZ`], [`PENTIUM_M_MV`]) with
    /// `p_static` per used core: level 0 draws the datasheet's whole TDP
    /// ([`PENTIUM_M_TDP`]), of which `p_static` is static; the dynamic rest scales as the
    /// CMOS switching power C V^2 f from level to level, rounded to the milliwatt.
    ///
    /// Errors: a static power above the TDP ([`DagError::StaticPower`]).
    pub fn pentium_m(p_static: MilliWatts) -> Result<DvfsTable, DagError> {
        if p_static.0 > PENTIUM_M_TDP.0 {
            return Err(DagError::StaticPower(p_static.0));
        }
        let dyn0 = (PENTIUM_M_TDP.0 - p_static.0) as u128;
        let v2f = |l: usize| {
            let v = PENTIUM_M_MV[l] as u128;
            v * v * PENTIUM_M_FREQ_MHZ[l] as u128
        };
        let mut p = [MilliWatts(0); 6];
        for (l, x) in p.iter_mut().enumerate() {
            // dyn0 x V_l^2 f_l / (V_0^2 f_0), rounded half up; exact in u128.
            *x = MilliWatts(((dyn0 * v2f(l) * 2 + v2f(0)) / (2 * v2f(0))) as u32);
        }
        DvfsTable::new(&PENTIUM_M_FREQ_MHZ, &p, p_static)
    }

    /// This table with `permille` of a task's time scaling with 1/f and the rest fixed (the
    /// memory- or I/O-bound part).
    ///
    /// Errors: more than 1000 ([`DagError::FreqBound`]).
    pub fn with_freq_bound(mut self, permille: u16) -> Result<DvfsTable, DagError> {
        if permille > 1000 {
            return Err(DagError::FreqBound(permille));
        }
        self.freq_bound_pm = permille;
        Ok(self)
    }

    /// Per mille of a task's time that scales with 1/f.
    pub fn freq_bound_permille(&self) -> u16 {
        self.freq_bound_pm
    }

    /// The number of levels.
    pub fn levels(&self) -> usize {
        self.levels as usize
    }
    /// Level `l`'s frequency, MHz.
    pub fn freq_mhz(&self, l: usize) -> u32 {
        self.freq_mhz[l]
    }
    /// Level `l`'s dynamic power.
    pub fn p_dyn(&self, l: usize) -> MilliWatts {
        self.p_dyn[l]
    }
    /// The static power of one used core.
    pub fn p_static(&self) -> MilliWatts {
        self.p_static
    }

    /// The execution time at level `l` of a task taking `wcet` at level 0: `wcet x (b x f_0 /
    /// f_l + 1 - b)` with `b` the frequency-bound share (R2 when `b` = 1), rounded to the
    /// nearest microsecond (`l` below [`DvfsTable::levels`]).
    pub fn exec_time(&self, wcet: Micros, l: usize) -> Micros {
        if l == 0 {
            return wcet;
        }
        if self.freq_bound_pm < 1000 {
            // wcet x (b f0 + (1000 - b) fl) / (1000 fl), in u128 (no overflow for any u64).
            let (f0, fl) = (self.freq_mhz[0] as u128, self.freq_mhz[l] as u128);
            let b = self.freq_bound_pm as u128;
            let num = b * f0 + (1000 - b) * fl;
            let den = 1000 * fl;
            let t = (wcet.0 as u128 * num + den / 2) / den;
            return Micros(u64::try_from(t).unwrap_or(u64::MAX));
        }
        let (f0, fl) = (self.freq_mhz[0] as u64, self.freq_mhz[l] as u64);
        // The evaluator's inner loop: a 64-bit division when the product fits (every real
        // job), the 128-bit routine otherwise; the quotient is the same.
        if let Some(x) = wcet.0.checked_mul(f0).and_then(|x| x.checked_add(fl / 2)) {
            return Micros(x / fl);
        }
        let t = (wcet.0 as u128 * f0 as u128 + fl as u128 / 2) / fl as u128;
        Micros(if t > u64::MAX as u128 {
            u64::MAX
        } else {
            t as u64
        })
    }

    /// Dynamic energy, in nanojoules, of running `d` at level `l`.
    pub fn dynamic_nj(&self, l: usize, d: Micros) -> u64 {
        (self.p_dyn[l].0 as u64).saturating_mul(d.0)
    }

    /// Static energy, in nanojoules, of `cores` used cores held for `rt`.
    pub fn static_nj(&self, cores: u32, rt: Micros) -> u64 {
        (self.p_static.0 as u64)
            .saturating_mul(cores as u64)
            .saturating_mul(rt.0)
    }
}
