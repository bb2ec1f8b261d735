//! The platform: clusters of identical nodes, their P-states, and the task types with their
//! execution time (ETC) and average power (APC) per cluster and P-state (seed 000 §II.A-B).
//!
//! A task of a type needs a fixed number of nodes on each cluster it may run on; its
//! execution time there comes from an [`EtcCurve`] listed at some node counts and linearly
//! interpolated between them (seed 000 Fig. 2). The curves are resolved to the type's node
//! count once, when the type is built, so that a mapping event only reads a table.

#[cfg(test)]
use crate::error::CapacityError;
use crate::error::{full, Capacity, Error, InputError};
use crate::limits::{MAX_CLUSTERS, MAX_ETC_POINTS, MAX_PSTATES, MAX_TASK_TYPES};
use crate::units::{CoreMicros, Cores, Micros, MilliJoules, MilliWatts, NodeCount};
use serde::{Deserialize, Serialize};

/// Index of a cluster in its platform.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct ClusterId(pub u8);

/// Index of a P-state: 0 is the fastest, most power-hungry one.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct PState(pub u8);

/// Index of a task type in its platform.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct TaskTypeId(pub u16);

/// Whether a cluster runs every general task type or only the special types made for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum ClusterKind {
    /// A general-purpose cluster.
    General,
    /// A special-purpose cluster.
    Special,
}

/// A cluster of identical nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Cluster {
    /// How many nodes it has.
    pub nodes: NodeCount,
    /// Cores in each node.
    pub cores_per_node: u32,
    /// General or special purpose.
    pub kind: ClusterKind,
}

impl Cluster {
    /// Nodes needed for `cores` cores: whole nodes, rounded up (MODEL.md).
    pub fn nodes_for_cores(&self, cores: Cores) -> NodeCount {
        let cpn = self.cores_per_node.max(1) as u64;
        NodeCount(cores.0.div_ceil(cpn).min(u32::MAX as u64) as u32)
    }
    /// Total cores.
    pub fn cores(&self) -> Cores {
        Cores(self.nodes.0 as u64 * self.cores_per_node as u64)
    }
}

/// Execution time at listed node counts, linearly interpolated between them (seed 000 Fig. 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EtcCurve {
    points: heapless::Vec<(NodeCount, Micros), MAX_ETC_POINTS>,
}

impl EtcCurve {
    /// A curve from points strictly increasing in node count; times need not decrease
    /// (communication overheads can make more nodes slower, as in Fig. 2's task type 1).
    pub fn new(points: &[(NodeCount, Micros)]) -> Result<EtcCurve, Error> {
        if points.is_empty() || points.windows(2).any(|w| w[0].0 >= w[1].0) {
            return Err(InputError::BadEtcCurve.into());
        }
        if points.iter().any(|p| p.1 == Micros::ZERO || p.0 .0 == 0) {
            return Err(InputError::BadEtcCurve.into());
        }
        let mut v = heapless::Vec::new();
        for p in points {
            v.push(*p)
                .map_err(|_| full(Capacity::EtcPoints, MAX_ETC_POINTS))?;
        }
        Ok(EtcCurve { points: v })
    }

    /// Execution time on `n` nodes; `None` outside the listed range, where the model says
    /// nothing (we do not extrapolate).
    pub fn time_at(&self, n: NodeCount) -> Option<Micros> {
        let pts = &self.points;
        let i = pts.iter().position(|p| p.0 >= n)?;
        if pts[i].0 == n {
            return Some(pts[i].1);
        }
        if i == 0 {
            return None;
        }
        let (n0, t0) = (pts[i - 1].0 .0 as i128, pts[i - 1].1 .0 as i128);
        let (n1, t1) = (pts[i].0 .0 as i128, pts[i].1 .0 as i128);
        // Integer interpolation, rounded to nearest, so that it is exact across machines.
        let num = t0 * (n1 - n0) + (t1 - t0) * (n.0 as i128 - n0);
        let den = n1 - n0;
        Some(Micros(((num + den / 2) / den) as u64))
    }

    /// The listed points.
    pub fn points(&self) -> &[(NodeCount, Micros)] {
        &self.points
    }
}

/// What a task type needs and does on one cluster: its node count and, per P-state, its
/// execution time and the average power of each of its nodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Placement {
    /// Nodes the task occupies on this cluster.
    pub nodes: NodeCount,
    /// Execution time per P-state (entries past the platform's P-state count are unused).
    pub etc: [Micros; MAX_PSTATES],
    /// Average power per node per P-state (the APC matrix row).
    pub apc: [MilliWatts; MAX_PSTATES],
}

impl Placement {
    /// Energy of one run in P-state `p`.
    pub fn energy(&self, p: PState) -> MilliJoules {
        let i = p.0 as usize;
        self.apc[i].energy(self.nodes, self.etc[i])
    }
}

/// One cluster's entry when adding a type from curves: node count, an ETC curve per
/// P-state, and the APC per P-state.
pub type CurveEntry<'a> = (NodeCount, &'a [EtcCurve], &'a [MilliWatts]);

/// A task type: where it may run and how it runs there.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskType {
    /// One entry per cluster of the platform: `None` where the type cannot run.
    pub placements: heapless::Vec<Option<Placement>, MAX_CLUSTERS>,
}

impl TaskType {
    /// The placement on cluster `c`, if the type may run there.
    pub fn on(&self, c: ClusterId) -> Option<&Placement> {
        self.placements.get(c.0 as usize).and_then(|p| p.as_ref())
    }
}

/// Clusters, P-states and task types.
///
/// Deserializing goes through [`Platform::new`] and [`Platform::add_resolved_type`], so a
/// decoded platform has passed the same checks as a built one (the controller indexes
/// per-P-state tables by the P-state count and relies on them).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PlatformParts")]
pub struct Platform {
    clusters: heapless::Vec<Cluster, MAX_CLUSTERS>,
    pstates: u8,
    types: heapless::Vec<TaskType, MAX_TASK_TYPES>,
}

/// The fields of a [`Platform`] as they are serialized, before their checks.
#[derive(Deserialize)]
struct PlatformParts {
    clusters: heapless::Vec<Cluster, MAX_CLUSTERS>,
    pstates: u8,
    types: heapless::Vec<TaskType, MAX_TASK_TYPES>,
}

impl TryFrom<PlatformParts> for Platform {
    type Error = Error;
    fn try_from(p: PlatformParts) -> Result<Platform, Error> {
        let mut platform = Platform::new(&p.clusters, p.pstates)?;
        for t in &p.types {
            if t.placements.len() > p.clusters.len() {
                return Err(InputError::UnknownCluster(t.placements.len() as u8 - 1).into());
            }
            platform.add_resolved_type(&t.placements)?;
        }
        Ok(platform)
    }
}

impl Platform {
    /// A platform of these clusters, each node offering `pstates` P-states, with no task type yet.
    pub fn new(clusters: &[Cluster], pstates: u8) -> Result<Platform, Error> {
        if pstates == 0 || pstates as usize > MAX_PSTATES {
            return Err(full(Capacity::PStates, MAX_PSTATES).into());
        }
        let mut v = heapless::Vec::new();
        for c in clusters {
            if c.nodes.0 == 0 {
                return Err(InputError::BadNodeCount {
                    nodes: 0,
                    cluster_nodes: 0,
                }
                .into());
            }
            v.push(*c)
                .map_err(|_| full(Capacity::Clusters, MAX_CLUSTERS))?;
        }
        Ok(Platform {
            clusters: v,
            pstates,
            types: heapless::Vec::new(),
        })
    }

    /// Adds a task type given, per cluster, `None` or (node count, ETC curve per P-state, APC
    /// per P-state); the curves are resolved at the node count. Returns its id.
    pub fn add_type(
        &mut self,
        per_cluster: &[Option<CurveEntry<'_>>],
    ) -> Result<TaskTypeId, Error> {
        let mut placements = heapless::Vec::new();
        for (ci, entry) in per_cluster.iter().enumerate() {
            let cluster = self
                .clusters
                .get(ci)
                .ok_or(InputError::UnknownCluster(ci as u8))?;
            let placement = match entry {
                None => None,
                Some((nodes, curves, apc)) => {
                    if curves.len() != self.pstates as usize || apc.len() != self.pstates as usize {
                        return Err(InputError::UnknownPState(self.pstates).into());
                    }
                    let mut etc = [Micros::ZERO; MAX_PSTATES];
                    let mut power = [MilliWatts(0); MAX_PSTATES];
                    for p in 0..self.pstates as usize {
                        etc[p] = curves[p]
                            .time_at(*nodes)
                            .ok_or(InputError::NodeCountOutsideEtc(nodes.0))?;
                        power[p] = apc[p];
                    }
                    Some(self.check(
                        cluster,
                        Placement {
                            nodes: *nodes,
                            etc,
                            apc: power,
                        },
                    )?)
                }
            };
            placements
                .push(placement)
                .map_err(|_| full(Capacity::Clusters, MAX_CLUSTERS))?;
        }
        self.push_type(TaskType { placements })
    }

    /// Adds a task type from placements already resolved at their node counts.
    pub fn add_resolved_type(
        &mut self,
        placements: &[Option<Placement>],
    ) -> Result<TaskTypeId, Error> {
        let mut v = heapless::Vec::new();
        for (ci, p) in placements.iter().enumerate() {
            let cluster = self
                .clusters
                .get(ci)
                .ok_or(InputError::UnknownCluster(ci as u8))?;
            let p = match p {
                Some(p) => Some(self.check(cluster, *p)?),
                None => None,
            };
            v.push(p)
                .map_err(|_| full(Capacity::Clusters, MAX_CLUSTERS))?;
        }
        self.push_type(TaskType { placements: v })
    }

    fn check(&self, cluster: &Cluster, p: Placement) -> Result<Placement, Error> {
        if p.nodes.0 == 0 || p.nodes > cluster.nodes {
            return Err(InputError::BadNodeCount {
                nodes: p.nodes.0,
                cluster_nodes: cluster.nodes.0,
            }
            .into());
        }
        if p.etc[..self.pstates as usize].contains(&Micros::ZERO) {
            return Err(InputError::ZeroDuration.into());
        }
        Ok(p)
    }

    fn push_type(&mut self, mut t: TaskType) -> Result<TaskTypeId, Error> {
        while t.placements.len() < self.clusters.len() {
            let _ = t.placements.push(None);
        }
        let id = self.types.len() as u16;
        if t.placements.iter().all(|p| p.is_none()) {
            return Err(InputError::NoEligibleCluster(id).into());
        }
        self.types
            .push(t)
            .map_err(|_| full(Capacity::TaskTypes, MAX_TASK_TYPES))?;
        Ok(TaskTypeId(id))
    }

    /// The clusters.
    pub fn clusters(&self) -> &[Cluster] {
        &self.clusters
    }
    /// One cluster.
    pub fn cluster(&self, c: ClusterId) -> Result<&Cluster, InputError> {
        self.clusters
            .get(c.0 as usize)
            .ok_or(InputError::UnknownCluster(c.0))
    }
    /// Number of P-states of every node.
    pub fn pstates(&self) -> u8 {
        self.pstates
    }
    /// The task types.
    pub fn types(&self) -> &[TaskType] {
        &self.types
    }
    /// One task type.
    pub fn task_type(&self, t: TaskTypeId) -> Result<&TaskType, InputError> {
        self.types
            .get(t.0 as usize)
            .ok_or(InputError::UnknownTaskType(t.0))
    }
    /// Total nodes over all clusters.
    pub fn total_nodes(&self) -> u64 {
        self.clusters.iter().map(|c| c.nodes.0 as u64).sum()
    }
    /// Resources (Eq. 1) of placement `p` on cluster `c` in P-state `ps`.
    pub fn resources(&self, c: ClusterId, p: &Placement, ps: PState) -> CoreMicros {
        let cpn = self
            .clusters
            .get(c.0 as usize)
            .map(|c| c.cores_per_node)
            .unwrap_or(0);
        CoreMicros::of(Cores(p.nodes.0 as u64 * cpn as u64), p.etc[ps.0 as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: u64) -> Micros {
        Micros::from_secs(x)
    }

    /// Seed 000 Fig. 2, task type 1: listed at 1, 2, 4, 16, 32 nodes.
    fn fig2_type1() -> EtcCurve {
        EtcCurve::new(&[
            (NodeCount(1), s(100)),
            (NodeCount(2), s(70)),
            (NodeCount(4), s(50)),
            (NodeCount(16), s(25)),
            (NodeCount(32), s(30)),
        ])
        .unwrap()
    }

    #[test]
    fn fig2_listed_points_are_exact() {
        let c = fig2_type1();
        assert_eq!(c.time_at(NodeCount(1)), Some(s(100)));
        assert_eq!(c.time_at(NodeCount(16)), Some(s(25)));
        assert_eq!(c.time_at(NodeCount(32)), Some(s(30)));
    }

    #[test]
    fn fig2_interpolates_between_listed_points() {
        let c = fig2_type1();
        // 3 nodes: halfway between 70 (2) and 50 (4).
        assert_eq!(c.time_at(NodeCount(3)), Some(s(60)));
        // 10 nodes: 50 + (25 - 50) x (10 - 4) / 12 = 37.5 s.
        assert_eq!(c.time_at(NodeCount(10)), Some(Micros(37_500_000)));
        // 24 nodes: time rises again past 16 nodes: 25 + 5 x 8 / 16 = 27.5 s.
        assert_eq!(c.time_at(NodeCount(24)), Some(Micros(27_500_000)));
        // Task type 3 of Fig. 2: 8 -> 100, 16 -> 80; 12 nodes gives 90.
        let t3 = EtcCurve::new(&[
            (NodeCount(8), s(100)),
            (NodeCount(16), s(80)),
            (NodeCount(64), s(70)),
        ])
        .unwrap();
        assert_eq!(t3.time_at(NodeCount(12)), Some(s(90)));
        assert_eq!(t3.time_at(NodeCount(40)), Some(s(75)));
    }

    #[test]
    fn outside_the_listed_range_is_unknown() {
        let t2 = EtcCurve::new(&[(NodeCount(256), s(300)), (NodeCount(512), s(200))]).unwrap();
        assert_eq!(t2.time_at(NodeCount(128)), None);
        assert_eq!(t2.time_at(NodeCount(1024)), None);
    }

    #[test]
    fn bad_curves_are_errors() {
        assert!(EtcCurve::new(&[]).is_err());
        assert!(EtcCurve::new(&[(NodeCount(2), s(1)), (NodeCount(2), s(1))]).is_err());
        let many: [(NodeCount, Micros); 9] =
            core::array::from_fn(|i| (NodeCount(i as u32 + 1), s(1)));
        assert_eq!(
            EtcCurve::new(&many),
            Err(Error::Capacity(CapacityError {
                what: Capacity::EtcPoints,
                capacity: 8,
                needs: 0
            }))
        );
    }

    #[test]
    fn a_decoded_platform_passes_the_same_checks() {
        let cl = Cluster {
            nodes: NodeCount(4),
            cores_per_node: 2,
            kind: ClusterKind::General,
        };
        let mut p = Platform::new(&[cl], 3).unwrap();
        let pl = Placement {
            nodes: NodeCount(2),
            etc: [s(10), s(12), s(15), Micros::ZERO],
            apc: [MilliWatts(1000); 4],
        };
        p.add_resolved_type(&[Some(pl)]).unwrap();
        let mut buf = [0u8; 512];
        let bytes = postcard::to_slice(&p, &mut buf).unwrap();
        let back: Platform = postcard::from_bytes(bytes).unwrap();
        assert_eq!(back, p);
        // Nine P-states (the limit is four) and a node count over the cluster's both fail to
        // decode instead of reaching the controller.
        let mut bad = p.clone();
        bad.pstates = 9;
        let bytes = postcard::to_slice(&bad, &mut buf).unwrap();
        assert!(postcard::from_bytes::<Platform>(bytes).is_err());
        let mut bad = p.clone();
        bad.types[0].placements[0].as_mut().unwrap().nodes = NodeCount(5);
        let bytes = postcard::to_slice(&bad, &mut buf).unwrap();
        assert!(postcard::from_bytes::<Platform>(bytes).is_err());
    }

    #[test]
    fn platform_resolves_types_and_rejects_bad_ones() {
        let cl = Cluster {
            nodes: NodeCount(10),
            cores_per_node: 4,
            kind: ClusterKind::General,
        };
        let mut p = Platform::new(&[cl, cl], 1).unwrap();
        let c = fig2_type1();
        let t = p
            .add_type(&[
                Some((
                    NodeCount(3),
                    core::slice::from_ref(&c),
                    &[MilliWatts(100_000)],
                )),
                None,
            ])
            .unwrap();
        let pl = p.task_type(t).unwrap().on(ClusterId(0)).unwrap();
        assert_eq!(pl.etc[0], s(60));
        assert_eq!(pl.energy(PState(0)), MilliJoules(18_000_000)); // 100 W x 3 x 60 s
        assert_eq!(
            p.resources(ClusterId(0), pl, PState(0)),
            CoreMicros(12 * 60_000_000)
        );
        assert!(p.task_type(t).unwrap().on(ClusterId(1)).is_none());
        // 11 nodes on a 10-node cluster.
        let big = EtcCurve::new(&[(NodeCount(1), s(1)), (NodeCount(64), s(1))]).unwrap();
        assert!(matches!(
            p.add_type(&[
                Some((NodeCount(11), core::slice::from_ref(&big), &[MilliWatts(1)])),
                None
            ]),
            Err(Error::Input(InputError::BadNodeCount {
                nodes: 11,
                cluster_nodes: 10
            }))
        ));
        assert!(matches!(
            p.add_type(&[None, None]),
            Err(Error::Input(InputError::NoEligibleCluster(_)))
        ));
    }
}
