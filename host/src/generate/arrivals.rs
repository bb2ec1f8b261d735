//! Arrival patterns and arrival times of one task type.
//!
//! Small types (at most `sinusoid_max_cores` cores) arrive at a sinusoidal rate (seed 002
//! App. F): a whole number of cycles a day, a uniform phase and an amplitude that is a
//! uniform fraction of the mean. Large types arrive at `work_rate` x the mean during working
//! hours and `off_rate` x the mean otherwise (MODEL.md: 2x from 09:00 to 18:00, 0.4x outside).
//! Both are functions of the clock, which reads `clock_at_start_hour` at simulated time 0.
//!
//! Arrivals are a non-homogeneous Poisson process drawn by thinning (Lewis and Shedler):
//! candidates at the pattern's peak rate, each kept with probability rate(t) / peak, over the
//! whole horizon. Candidate times accumulate in integer microseconds (each gap rounded to
//! the microsecond), so no float sum drifts. The pattern comes from stream
//! ("arrival-pattern", type) and the times from ("arrivals", type).

use super::rng::Stream;
use crate::scenario::Arrivals;
use kairos_core::units::Micros;
use serde::Serialize;

const DAY_S: f64 = 86_400.0;

/// How a task type's arrival rate varies over the day, as a multiple of its mean rate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(tag = "pattern", rename_all = "kebab-case")]
pub enum Pattern {
    /// 1 + amplitude x sin(2 pi x cycles x clock / 24 h + phase).
    Sinusoid {
        /// Whole cycles a day.
        cycles: u32,
        /// Phase, in radians.
        phase: f64,
        /// Amplitude, as a fraction of the mean.
        amplitude: f64,
    },
    /// `work_rate` during working hours, `off_rate` outside.
    WorkHours {
        /// Multiple of the mean in working hours.
        work_rate: f64,
        /// Multiple of the mean outside them.
        off_rate: f64,
        /// Working hours [start, end) on the clock.
        hours: [u32; 2],
    },
}

impl Pattern {
    /// Draws the pattern of a type of `cores` cores.
    pub fn draw(r: &mut Stream, cores: u64, a: &Arrivals) -> Pattern {
        if cores <= a.sinusoid_max_cores {
            let cycles = r.int(a.cycles[0] as u64, a.cycles[1] as u64) as u32;
            let phase = r.uniform(0.0, 2.0 * core::f64::consts::PI);
            let amplitude = r.uniform(a.amplitude[0], a.amplitude[1]);
            Pattern::Sinusoid {
                cycles,
                phase,
                amplitude,
            }
        } else {
            Pattern::WorkHours {
                work_rate: a.work_rate,
                off_rate: a.off_rate,
                hours: a.work_hours,
            }
        }
    }

    /// The rate at clock time `clock_s` (seconds since midnight), as a multiple of the mean.
    pub fn factor(&self, clock_s: f64) -> f64 {
        match *self {
            Pattern::Sinusoid {
                cycles,
                phase,
                amplitude,
            } => {
                let x = 2.0 * core::f64::consts::PI * cycles as f64 * clock_s / DAY_S + phase;
                1.0 + amplitude * libm::sin(x)
            }
            Pattern::WorkHours {
                work_rate,
                off_rate,
                hours,
            } => {
                let h = clock_s / 3600.0;
                if h >= hours[0] as f64 && h < hours[1] as f64 {
                    work_rate
                } else {
                    off_rate
                }
            }
        }
    }

    /// The peak of [`Pattern::factor`].
    pub fn peak(&self) -> f64 {
        match *self {
            Pattern::Sinusoid { amplitude, .. } => 1.0 + amplitude,
            Pattern::WorkHours {
                work_rate,
                off_rate,
                ..
            } => work_rate.max(off_rate),
        }
    }
}

/// Arrival times in [0, `horizon`) of a type with mean rate `per_day` tasks a day and
/// pattern `pattern`, the clock reading `clock_at_start_hour` at time 0; increasing (two
/// arrivals may share a microsecond).
pub fn arrival_times(
    r: &mut Stream,
    pattern: &Pattern,
    per_day: f64,
    horizon: Micros,
    clock_at_start_hour: u32,
) -> Vec<Micros> {
    let peak = pattern.peak();
    let peak_per_s = per_day * peak / DAY_S;
    let mut out = Vec::new();
    if peak_per_s <= 0.0 {
        return out;
    }
    let offset_s = clock_at_start_hour as f64 * 3600.0;
    let mut t = Micros::ZERO;
    loop {
        let gap = Micros::from_secs_f64(r.exp(peak_per_s));
        t = t.saturating_add(gap);
        if t >= horizon {
            return out;
        }
        let clock = libm::fmod(t.as_secs_f64() + offset_s, DAY_S);
        // Kept with probability factor / peak.
        if r.unit() * peak < pattern.factor(clock) {
            out.push(t);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_hours_average_to_the_mean() {
        let p = Pattern::WorkHours {
            work_rate: 2.0,
            off_rate: 0.4,
            hours: [9, 18],
        };
        let mean: f64 = (0..86_400).map(|s| p.factor(s as f64)).sum::<f64>() / DAY_S;
        assert!(libm::fabs(mean - 1.0) < 1e-9);
        assert_eq!(p.factor(9.0 * 3600.0), 2.0);
        assert_eq!(p.factor(18.0 * 3600.0), 0.4);
    }

    #[test]
    fn thinning_keeps_the_mean_and_the_shape() {
        let p = Pattern::WorkHours {
            work_rate: 2.0,
            off_rate: 0.4,
            hours: [9, 18],
        };
        let mut r = Stream::new(3, 0, "test", 0);
        let day = Micros::from_hours(24);
        let mut n = 0;
        let mut in_hours = 0;
        for _ in 0..200 {
            let ts = arrival_times(&mut r, &p, 50.0, day, 0);
            assert!(ts.windows(2).all(|w| w[0] <= w[1]));
            n += ts.len();
            in_hours += ts
                .iter()
                .filter(|t| (Micros::from_hours(9)..Micros::from_hours(18)).contains(t))
                .count();
        }
        // 200 days of 50 a day; 18 of the 24 rate-hours fall in working hours.
        assert!((9_500..10_500).contains(&n), "{n}");
        let share = in_hours as f64 / n as f64;
        assert!(libm::fabs(share - 0.75) < 0.02, "{share}");
    }
}
