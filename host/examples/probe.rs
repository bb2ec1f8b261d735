use kairos_core::serial::{EventCost, SerialConfig, SerialHeuristic, Sim, Trigger};
use kairos_host::seed002::generate::{self, Workload};
use kairos_host::seed002::run::Buffers;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let per_day: f64 = a[1].parse().unwrap();
    let theta: f64 = a[2].parse().unwrap();
    let w = Workload::chapter2(2002, per_day);
    let tr = generate::trial(&w, 0);
    let h = SerialHeuristic::ALL
        .into_iter()
        .find(|h| h.name() == a[3])
        .unwrap();
    let cfg = SerialConfig {
        heuristic: h,
        theta,
        trigger: Trigger::MINUTE,
        cost: EventCost::Modelled,
        permute: 0,
        seed: w.seed,
        window: w.window(),
    };
    let mut b = Buffers::new(tr.tasks.len());
    let t0 = std::time::Instant::now();
    let r = Sim::new(tr.env(), &tr.tasks, cfg, b.storage())
        .unwrap()
        .run();
    eprintln!(
        "{:?} {:.3}s digest {:x}",
        h.name(),
        t0.elapsed().as_secs_f64(),
        r.digest
    );
    let p: Vec<u64> = kairos_core::serial::policy::sufferage::PROBE
        .iter()
        .map(|x| x.load(std::sync::atomic::Ordering::Relaxed))
        .collect();
    eprintln!("type-visits {} task-visits {} dirty-types {} dirty-tasks {} bestof-tasks {} dirty-same-first {}", p[0], p[1], p[2], p[3], p[4], p[5]);
}
