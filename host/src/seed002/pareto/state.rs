//! A population's saved state, so that a Pareto run too long for one sitting (set 3's
//! million generations, Chapter 7's probabilistic scores) runs in pieces: `kairos pareto
//! --state DIR` writes each population's state at each checkpoint it reaches, and
//! `--resume` starts each population from its saved state and runs on to the later
//! checkpoints. The state is what the next generation reads: the generation count, the
//! chromosomes in their order and the run's random stream where it stands
//! (`Stream::position`); objectives are evaluated afresh (a pure function of the
//! chromosome). So the pieces give the very fronts of one sitting (tested in
//! `state_tests`).
//!
//! The file, `DIR/population-<p>.state` (little-endian): the magic `KAIROS-NSGA2-STATE-1\n`,
//! the experiment's name (u32 length, UTF-8), the population index (u32), the generation
//! (u64), the stream (56 bytes), the chromosome count and the genes per chromosome (u32
//! each), then every gene ([`GeneBytes::SIZE`] bytes each), chromosome by chromosome.
//! Written whole (`crate::output::write_atomic`): a piece killed while writing keeps the
//! previous checkpoint's state.

use crate::generate::rng::Stream;
use crate::nsga2::{Nsga2, Problem};
use anyhow::Context;
use std::path::{Path, PathBuf};

const MAGIC: &[u8] = b"KAIROS-NSGA2-STATE-1\n";

/// A gene as bytes, for the state file.
pub trait GeneBytes: Sized {
    /// Bytes per gene.
    const SIZE: usize;
    /// Appends the gene's bytes.
    fn put(&self, out: &mut Vec<u8>);
    /// The gene in `b` (exactly [`GeneBytes::SIZE`] bytes).
    fn get(b: &[u8]) -> Self;
}

impl GeneBytes for crate::seed002::pareto::Gene {
    const SIZE: usize = 6;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.machine.to_le_bytes());
        out.extend_from_slice(&self.key.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        let machine = u16::from_le_bytes([b[0], b[1]]);
        crate::seed002::pareto::Gene::new(machine, u32::from_le_bytes([b[2], b[3], b[4], b[5]]))
    }
}

impl GeneBytes for crate::seed002::pareto::stochastic::SGene {
    const SIZE: usize = 7;
    fn put(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.machine.to_le_bytes());
        out.push(self.pstate);
        out.extend_from_slice(&self.key.to_le_bytes());
    }
    fn get(b: &[u8]) -> Self {
        crate::seed002::pareto::stochastic::SGene {
            machine: u16::from_le_bytes([b[0], b[1]]),
            pstate: b[2],
            key: u32::from_le_bytes([b[3], b[4], b[5], b[6]]),
        }
    }
}

/// Where a run keeps its populations' states, and whether it starts from them.
#[derive(Clone, Debug)]
pub struct StateDir {
    /// The folder.
    pub dir: PathBuf,
    /// Start each population from its saved state.
    pub resume: bool,
    /// The experiment's name, checked on resuming.
    pub name: String,
}

impl StateDir {
    fn file(&self, p: usize) -> PathBuf {
        self.dir.join(format!("population-{p}.state"))
    }

    /// Writes population `p`'s state.
    pub fn save<P: Problem>(&self, p: usize, ga: &Nsga2<'_, P>) -> anyhow::Result<()>
    where
        P::Gene: GeneBytes,
    {
        let pop = ga.population();
        let genes = pop.first().map_or(0, Vec::len);
        let mut b = Vec::with_capacity(128 + pop.len() * genes * P::Gene::SIZE);
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&(self.name.len() as u32).to_le_bytes());
        b.extend_from_slice(self.name.as_bytes());
        b.extend_from_slice(&(p as u32).to_le_bytes());
        b.extend_from_slice(&ga.generation().to_le_bytes());
        b.extend_from_slice(&ga.stream_position());
        b.extend_from_slice(&(pop.len() as u32).to_le_bytes());
        b.extend_from_slice(&(genes as u32).to_le_bytes());
        for c in pop {
            for g in c {
                g.put(&mut b);
            }
        }
        std::fs::create_dir_all(&self.dir)
            .with_context(|| format!("{}: cannot create the state folder", self.dir.display()))?;
        crate::output::write_atomic(&self.file(p), &b)
    }

    /// Puts population `p` (`ga`) where its saved state stood, if resuming; returns the
    /// generation it starts from (its own when not resuming). An error names the file and
    /// what is wrong with it: another experiment's state, a damaged file, a state whose
    /// population does not fit the experiment.
    pub fn restore<P: Problem>(&self, p: usize, ga: &mut Nsga2<'_, P>) -> anyhow::Result<u64>
    where
        P::Gene: GeneBytes,
    {
        if !self.resume {
            return Ok(ga.generation());
        }
        let path = self.file(p);
        let b = std::fs::read(&path).with_context(|| {
            format!(
                "{}: cannot read population {p}'s saved state (--resume needs the state an \
                 earlier piece wrote with --state)",
                path.display()
            )
        })?;
        let (generation, pop, rng) = parse::<P::Gene>(&b, &self.name, p)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let want = (
            ga.population().len(),
            ga.population().first().map_or(0, Vec::len),
        );
        let got = (pop.len(), pop.first().map_or(0, Vec::len));
        anyhow::ensure!(
            want == got,
            "{}: {} chromosomes of {} genes, where the experiment has {} of {}",
            path.display(),
            got.0,
            got.1,
            want.0,
            want.1
        );
        ga.restore(generation, pop, rng);
        Ok(generation)
    }
}

/// Reads a state file's bytes: (generation, chromosomes, stream).
fn parse<G: GeneBytes>(
    b: &[u8],
    name: &str,
    p: usize,
) -> Result<(u64, Vec<Vec<G>>, Stream), String> {
    let mut at = 0usize;
    let mut take = |n: usize, what: &str| -> Result<&[u8], String> {
        let s = b
            .get(at..at + n)
            .ok_or_else(|| format!("cut short at byte {at} (reading {what})"))?;
        at += n;
        Ok(s)
    };
    if take(MAGIC.len(), "the magic")? != MAGIC {
        return Err("not a kairos NSGA-II state file (no KAIROS-NSGA2-STATE-1 magic)".into());
    }
    let u32_at = |s: &[u8]| u32::from_le_bytes(s.try_into().expect("4 bytes"));
    let len = u32_at(take(4, "the name's length")?) as usize;
    let saved = String::from_utf8_lossy(take(len, "the name")?).into_owned();
    if saved != name {
        return Err(format!("the state of experiment {saved:?}, not {name:?}"));
    }
    let sp = u32_at(take(4, "the population")?) as usize;
    if sp != p {
        return Err(format!("the state of population {sp}, not {p}"));
    }
    let generation = u64::from_le_bytes(take(8, "the generation")?.try_into().expect("8 bytes"));
    let position: [u8; 56] = take(56, "the stream")?.try_into().expect("56 bytes");
    let n = u32_at(take(4, "the chromosome count")?) as usize;
    let genes = u32_at(take(4, "the gene count")?) as usize;
    let body = take(n * genes * G::SIZE, "the genes")?;
    if at != b.len() {
        return Err(format!("{} bytes after the genes", b.len() - at));
    }
    let pop = body
        .chunks_exact(genes.max(1) * G::SIZE)
        .take(n)
        .map(|c| c.chunks_exact(G::SIZE).map(G::get).collect())
        .collect();
    Ok((generation, pop, Stream::resume(&position)))
}

/// Whether a state folder given on the command line exists when resuming.
pub fn check_resume(dir: &Path) -> anyhow::Result<()> {
    anyhow::ensure!(
        dir.is_dir(),
        "--resume: the state folder {} does not exist (write it with --state in an earlier piece)",
        dir.display()
    );
    Ok(())
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
