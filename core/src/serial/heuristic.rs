//! The twelve heuristics of Chapter 2 by name, and whether each maps immediately or in
//! batches.

/// When a mapping event decides, and over which tasks (§2.4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// One event per arrival, mapping that task only; a mapped task is never remapped.
    Immediate,
    /// Events by trigger, mapping the new tasks and the emptied virtual queues.
    Batch,
}

/// The twelve heuristics of Chapter 2 (§2.4.2, §2.4.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Heuristic {
    /// Immediate, naive: a uniformly random machine that can run the task.
    Random,
    /// Immediate, naive: the next machine that can run it, in a per-trial random order.
    RoundRobin,
    /// Immediate: the machine that completes it first.
    MaxUtil,
    /// Immediate: the machine with the highest utility / execution time.
    MaxUpt,
    /// Immediate: a uniformly random machine of its minimum-ETC type.
    MetRandom,
    /// Immediate: the first-completing machine of its minimum-ETC type.
    MetMaxUtil,
    /// Immediate: the first-completing machine of its K fastest types.
    KBestTypes(u8),
    /// Batch: two-stage minimum completion.
    MinMinComp,
    /// Batch: tasks claim their best-utility machine, the largest sufferage wins (passes).
    Sufferage,
    /// Batch: stage 1 minimum completion, stage 2 maximum utility.
    MaxMaxUtil,
    /// Batch: both stages maximum utility / execution time.
    MaxMaxUpt,
    /// Batch: stage 1 minimum completion within the MET type, stage 2 maximum UPT.
    MetMaxUtilMaxUpt,
}

impl Heuristic {
    /// The twelve, in the dissertation's order (K-Best Types with K = 1).
    pub const ALL: [Heuristic; 12] = [
        Heuristic::Random,
        Heuristic::RoundRobin,
        Heuristic::MaxUtil,
        Heuristic::MaxUpt,
        Heuristic::MetRandom,
        Heuristic::MetMaxUtil,
        Heuristic::KBestTypes(1),
        Heuristic::MinMinComp,
        Heuristic::Sufferage,
        Heuristic::MaxMaxUtil,
        Heuristic::MaxMaxUpt,
        Heuristic::MetMaxUtilMaxUpt,
    ];

    /// Immediate or batch.
    pub const fn mode(self) -> Mode {
        match self {
            Heuristic::MinMinComp
            | Heuristic::Sufferage
            | Heuristic::MaxMaxUtil
            | Heuristic::MaxMaxUpt
            | Heuristic::MetMaxUtilMaxUpt => Mode::Batch,
            _ => Mode::Immediate,
        }
    }

    /// Its position in [`Heuristic::ALL`] (K-Best Types at any K is 6).
    pub const fn index(self) -> usize {
        match self {
            Heuristic::Random => 0,
            Heuristic::RoundRobin => 1,
            Heuristic::MaxUtil => 2,
            Heuristic::MaxUpt => 3,
            Heuristic::MetRandom => 4,
            Heuristic::MetMaxUtil => 5,
            Heuristic::KBestTypes(_) => 6,
            Heuristic::MinMinComp => 7,
            Heuristic::Sufferage => 8,
            Heuristic::MaxMaxUtil => 9,
            Heuristic::MaxMaxUpt => 10,
            Heuristic::MetMaxUtilMaxUpt => 11,
        }
    }

    /// The command-line name (`k-best-types` takes K separately).
    pub const fn name(self) -> &'static str {
        match self {
            Heuristic::Random => "random",
            Heuristic::RoundRobin => "round-robin",
            Heuristic::MaxUtil => "max-util",
            Heuristic::MaxUpt => "max-upt",
            Heuristic::MetRandom => "met-random",
            Heuristic::MetMaxUtil => "met-max-util",
            Heuristic::KBestTypes(_) => "k-best-types",
            Heuristic::MinMinComp => "min-min-comp",
            Heuristic::Sufferage => "sufferage",
            Heuristic::MaxMaxUtil => "max-max-util",
            Heuristic::MaxMaxUpt => "max-max-upt",
            Heuristic::MetMaxUtilMaxUpt => "met-max-util-max-upt",
        }
    }

    /// The dissertation's name, for reports.
    pub const fn label(self) -> &'static str {
        match self {
            Heuristic::Random => "Random",
            Heuristic::RoundRobin => "Round-Robin",
            Heuristic::MaxUtil => "Max Util",
            Heuristic::MaxUpt => "Max UPT",
            Heuristic::MetRandom => "MET-Random",
            Heuristic::MetMaxUtil => "MET-Max Util",
            Heuristic::KBestTypes(_) => "K-Best Types",
            Heuristic::MinMinComp => "Min-Min Comp",
            Heuristic::Sufferage => "Sufferage",
            Heuristic::MaxMaxUtil => "Max-Max Util",
            Heuristic::MaxMaxUpt => "Max-Max UPT",
            Heuristic::MetMaxUtilMaxUpt => "MET-Max Util-Max UPT",
        }
    }

    /// The heuristic named `name` ([`Heuristic::name`]); `k-best-types` gets K = `k`.
    pub fn from_name(name: &str, k: u8) -> Option<Heuristic> {
        Heuristic::ALL
            .iter()
            .find(|h| h.name() == name)
            .map(|&h| match h {
                Heuristic::KBestTypes(_) => Heuristic::KBestTypes(k),
                h => h,
            })
    }
}
