//! PLACEHOLDER for the kairos-core replay: a small deterministic computation with the same
//! outputs (per-event reports, totals, a digest), so that the image, the log shapes, the
//! decoder and the tests can be built before the replay engine exists. Replace [`run`] with
//! the real replay; keep [`EventReport`] and [`Totals`] (or map the engine's output to them).

/// What is logged after each event.
pub struct EventReport {
    /// Index of the event in the replay, from 0.
    pub event: u32,
    /// Scheduling decisions taken at this event.
    pub decisions: u32,
    /// Utility accrued so far.
    pub utility: u64,
    /// Energy spent so far, in millijoules.
    pub energy_mj: u64,
}

/// What is logged at the end of a run.
pub struct Totals {
    pub completed: u32,
    pub dropped: u32,
    pub unfinished: u32,
    pub utility: u64,
    pub energy_mj: u64,
    /// FNV-1a (64-bit) over every reported field, in report order, little-endian.
    pub digest: u64,
}

/// Why a run failed.
pub enum RunError {
    /// The `fail-demo` feature is on: this build fails on purpose to exercise the error path.
    FailDemo,
}

impl defmt::Format for RunError {
    fn format(&self, f: defmt::Formatter) {
        match self {
            RunError::FailDemo => defmt::write!(
                f,
                "fail-demo: this build fails on purpose (build without `--features fail-demo` for a normal run)"
            ),
        }
    }
}

const EVENTS: u32 = 12;
const SEED: u64 = 0x6b61_6972_6f73_0001; // "kairos", 1

/// Runs the placeholder replay, calling `on_event` after each event.
pub fn run(mut on_event: impl FnMut(&EventReport)) -> Result<Totals, RunError> {
    let mut rng = XorShift64(SEED);
    let mut digest = Fnv1a::new();
    let (mut completed, mut dropped, mut utility, mut energy_mj) = (0u32, 0u32, 0u64, 0u64);
    let mut pending = 0u32;

    for event in 0..EVENTS {
        if cfg!(feature = "fail-demo") && event == EVENTS / 2 {
            return Err(RunError::FailDemo);
        }
        if cfg!(feature = "panic-demo") && event == EVENTS / 2 {
            panic!("panic-demo: deliberate panic at event {}", event);
        }
        if cfg!(feature = "hardfault-demo") && event == EVENTS / 2 {
            // UDF: UsageFault, escalated to HardFault (configurable faults are disabled).
            cortex_m::asm::udf();
        }

        let r = rng.next();
        let arrivals = (r & 0x3) as u32;
        pending += arrivals;
        let decisions = ((r >> 2) & 0x3) as u32 % (pending + 1);
        pending -= decisions;
        let lost = if (r >> 4) & 0x3 == 0 && pending > 0 {
            1
        } else {
            0
        };
        pending -= lost;
        completed += decisions;
        dropped += lost;
        utility += u64::from(decisions) * ((r >> 8) % 1000);
        energy_mj += 250 + (r >> 24) % 4000;

        let report = EventReport {
            event,
            decisions,
            utility,
            energy_mj,
        };
        digest
            .u32(report.event)
            .u32(report.decisions)
            .u64(report.utility)
            .u64(report.energy_mj);
        on_event(&report);
    }

    let mut totals = Totals {
        completed,
        dropped,
        unfinished: pending,
        utility,
        energy_mj,
        digest: 0,
    };
    digest
        .u32(totals.completed)
        .u32(totals.dropped)
        .u32(totals.unfinished)
        .u64(totals.utility)
        .u64(totals.energy_mj);
    totals.digest = digest.finish();
    Ok(totals)
}

struct XorShift64(u64);

impl XorShift64 {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

struct Fnv1a(u64);

impl Fnv1a {
    fn new() -> Self {
        Fnv1a(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    fn u64(&mut self, v: u64) -> &mut Self {
        self.bytes(&v.to_le_bytes())
    }
    fn finish(&self) -> u64 {
        self.0
    }
}
