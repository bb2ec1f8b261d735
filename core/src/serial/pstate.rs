//! P-states of the serial machines (seed 002 §3.2.1, §3.5.3.1): for each (task type, machine
//! type, P-state) the execution time ETC and the average power APC, and the energy
//! EEC = ETC x APC that the energy-constrained runs charge.
//!
//! The tables are the caller's (the host draws them, `host/src/seed002/energy/env.rs`); the
//! core checks them once and then reads them. APC is integer milliwatts and EEC integer
//! millijoules (`ETC[us] x APC[mW] / 10^6`, rounded down), so the day's ledger is exact
//! (MODEL.md). P-state 0 is the fastest (highest power) state of every pair.

use super::env::{SerialEnv, SerialError};
use crate::units::{Micros, MilliJoules};

/// Most P-states a machine may have (seed 002 uses 3).
pub const MAX_SERIAL_PSTATES: usize = 4;

/// ETC and APC for every (task type, machine type, P-state).
#[derive(Clone, Copy, Debug)]
pub struct PowerModel<'a> {
    /// P-states per machine (1 to [`MAX_SERIAL_PSTATES`]).
    pub pstates: u8,
    /// ETC(i, j, k) at `[(i * machine_types + j) * pstates + k]`; P-state 0 equals the
    /// environment's ETC, and [`Micros::MAX`] marks a pair that cannot run.
    pub etc: &'a [Micros],
    /// APC(i, j, k), milliwatts, at the same index as `etc`.
    pub apc_mw: &'a [u32],
}

/// Means over every finite (task type, machine type, P-state) entry, and the extremes the
/// weighted heuristics normalise by (Eq. 3-5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerStats {
    /// Mean ETC (tau bar of Eq. 7 and Eq. 9), seconds.
    pub mean_etc_s: f64,
    /// Mean EEC (e bar of Eq. 9), joules.
    pub mean_eec_j: f64,
    /// Smallest ETC, seconds.
    pub min_etc_s: f64,
    /// Smallest EEC, joules.
    pub min_eec_j: f64,
    /// Largest EEC, joules.
    pub max_eec_j: f64,
}

impl PowerModel<'_> {
    #[inline]
    fn at(&self, env: &SerialEnv<'_>, ty: u16, j: u8, k: u8) -> usize {
        (ty as usize * env.machine_types as usize + j as usize) * self.pstates as usize + k as usize
    }

    /// The index of (`ty`, `j`, P-state 0) in the tables; P-state `k` is `k` further.
    #[inline]
    pub(crate) fn base(&self, env: &SerialEnv<'_>, ty: u16, j: u8) -> usize {
        self.at(env, ty, j, 0)
    }

    /// EEC of the entry at table index `i` ([`PowerModel::base`] plus the P-state).
    #[inline]
    pub(crate) fn eec_at(&self, i: usize) -> MilliJoules {
        eec(self.etc[i], self.apc_mw[i])
    }

    /// ETC of task type `ty` on machine type `j` in P-state `k`.
    #[inline]
    pub fn etc(&self, env: &SerialEnv<'_>, ty: u16, j: u8, k: u8) -> Micros {
        self.etc[self.at(env, ty, j, k)]
    }

    /// APC of task type `ty` on machine type `j` in P-state `k`, milliwatts.
    #[inline]
    pub fn apc_mw(&self, env: &SerialEnv<'_>, ty: u16, j: u8, k: u8) -> u32 {
        self.apc_mw[self.at(env, ty, j, k)]
    }

    /// EEC = ETC x APC of task type `ty` on machine type `j` in P-state `k` (zero where it
    /// cannot run).
    #[inline]
    pub fn eec(&self, env: &SerialEnv<'_>, ty: u16, j: u8, k: u8) -> MilliJoules {
        let i = self.at(env, ty, j, k);
        eec(self.etc[i], self.apc_mw[i])
    }

    /// Checks the tables against `env`: the lengths, P-state 0 equal to the environment's
    /// ETC, the same pairs runnable in every P-state, no zero time, P-state 0 the fastest.
    pub fn check(&self, env: &SerialEnv<'_>) -> Result<(), SerialError> {
        let k = self.pstates as usize;
        let n = env.etc.len() * k;
        if k == 0 || k > MAX_SERIAL_PSTATES || self.etc.len() != n || self.apc_mw.len() != n {
            return Err(SerialError::BadEtc);
        }
        for (pair, &e0) in env.etc.iter().enumerate() {
            let row = &self.etc[pair * k..(pair + 1) * k];
            if row[0] != e0 {
                return Err(SerialError::BadEtc);
            }
            for &e in &row[1..] {
                if (e == Micros::MAX) != (e0 == Micros::MAX) || e == Micros::ZERO || e < e0 {
                    return Err(SerialError::BadEtc);
                }
            }
        }
        Ok(())
    }

    /// The means and extremes over every runnable entry.
    pub fn stats(&self) -> PowerStats {
        let (mut n, mut sum_t, mut sum_e) = (0u64, 0u128, 0u128);
        let (mut min_t, mut min_e, mut max_e) = (u64::MAX, u64::MAX, 0u64);
        for (&t, &p) in self.etc.iter().zip(self.apc_mw) {
            if t == Micros::MAX {
                continue;
            }
            let e = eec(t, p).0;
            n += 1;
            sum_t += t.0 as u128;
            sum_e += e as u128;
            min_t = min_t.min(t.0);
            min_e = min_e.min(e);
            max_e = max_e.max(e);
        }
        let n = n.max(1) as f64;
        PowerStats {
            mean_etc_s: sum_t as f64 / n / 1e6,
            mean_eec_j: sum_e as f64 / n / 1e3,
            min_etc_s: min_t as f64 / 1e6,
            min_eec_j: min_e as f64 / 1e3,
            max_eec_j: max_e as f64 / 1e3,
        }
    }
}

/// EEC in millijoules of a run of `etc` at `apc_mw` milliwatts (zero if it cannot run).
#[inline]
pub fn eec(etc: Micros, apc_mw: u32) -> MilliJoules {
    if etc == Micros::MAX {
        return MilliJoules::ZERO;
    }
    // The product fits 64 bits for every run of seed 002 (hours at hundreds of watts), and a
    // 64-bit division by a constant is a multiply; the 128-bit path gives the same value.
    if let Some(p) = etc.0.checked_mul(apc_mw as u64) {
        return MilliJoules(p / 1_000_000);
    }
    MilliJoules((etc.0 as u128 * apc_mw as u128 / 1_000_000).min(u64::MAX as u128) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::utility::UtilityClasses;

    #[test]
    fn eec_is_etc_times_apc_in_integer_millijoules() {
        // 10 min at 199 W = 119,400 J.
        assert_eq!(
            eec(Micros::from_mins(10), 199_000),
            MilliJoules(119_400_000)
        );
        assert_eq!(eec(Micros::MAX, 199_000), MilliJoules::ZERO);
        // Past 64 bits the 128-bit path gives the exact product, capped at u64::MAX.
        let big = Micros(u64::MAX / 1_000);
        assert_eq!(
            eec(big, 2_000_000),
            MilliJoules((big.0 as u128 * 2_000_000 / 1_000_000) as u64)
        );
        assert_eq!(eec(Micros(u64::MAX - 1), u32::MAX), MilliJoules(u64::MAX));
    }

    #[test]
    fn check_and_stats() {
        let classes = UtilityClasses::essc20();
        let env_etc = [Micros(10), Micros::MAX];
        let env = SerialEnv {
            machine_type: &[0, 1],
            machine_types: 2,
            special_types: 0,
            etc: &env_etc,
            classes: &classes,
        };
        let etc = [Micros(10), Micros(20), Micros::MAX, Micros::MAX];
        let apc = [2_000_000, 500_000, 0, 0];
        let p = PowerModel {
            pstates: 2,
            etc: &etc,
            apc_mw: &apc,
        };
        assert_eq!(p.check(&env), Ok(()));
        assert_eq!(p.eec(&env, 0, 0, 0), MilliJoules(20));
        assert_eq!(p.eec(&env, 0, 0, 1), MilliJoules(10));
        let s = p.stats();
        assert_eq!(s.mean_etc_s, 15e-6);
        assert_eq!((s.min_eec_j, s.max_eec_j), (0.010, 0.020));
        // P-state 1 faster than P-state 0 is refused.
        let bad = [Micros(10), Micros(5), Micros::MAX, Micros::MAX];
        let q = PowerModel { etc: &bad, ..p };
        assert_eq!(q.check(&env), Err(SerialError::BadEtc));
    }
}
