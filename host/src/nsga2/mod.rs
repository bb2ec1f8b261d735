//! A generic, seeded, deterministic NSGA-II for two minimised objectives (Deb et al. 2002, as
//! the seed 002 dissertation adapts it in §5.4.4, Algorithm 1).
//!
//! - [`sort`]: dominance, the two rankings (the text's `1 + number of dominators`, and
//!   Deb's fronts as an option), crowding distance, and the survivor selection (fill by
//!   rank, cut the last rank by crowding distance; no tournament).
//! - [`evolve`]: the population and one generation: `N / 2` crossovers of two uniformly
//!   chosen parents (every gene between two uniformly chosen indices is swapped, giving two
//!   children), each child mutated with probability `p_m` by the problem's own operator,
//!   the `N` children evaluated, parents and children merged and cut back to `N`. A problem
//!   may keep a memo per chromosome (`Problem::Memo`) that its children's evaluations reuse
//!   (each child is evaluated knowing its two parents and their memos); results never depend on it.
//!
//! Determinism: every random draw is made from one ChaCha stream, in a fixed order (each
//! generation's plan: the pairs' parents and ranges, then each child's mutation; a mutation's
//! draws do not depend on the chromosome it changes, so a plan never depends on the
//! population and the next generation's is drawn while this one's children are evaluated);
//! the children are then made and evaluated in parallel, each a pure function of its parents
//! and its plan, collected by index. So a run gives the same population on any thread count.
//! Ties (equal crowding distances, equal objective values) are broken by index, never by
//! the order a sort happens to leave.

pub mod evolve;
pub mod sort;

pub use evolve::{Cross, Nsga2, Params, Problem};
pub use sort::{crowding, dominates, non_dominated, ranks, select, Ranking};

/// A point in objective space, both objectives minimised (negate one to maximise it).
pub type Point = [f64; 2];
