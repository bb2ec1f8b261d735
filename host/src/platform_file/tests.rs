//! The formats' parsers: P-states in both TOML forms, job rules, SimGrid hosts grouped in
//! Batsim's machine order, and the errors of each.

use super::*;
use crate::swf::ReplayJob;

fn job(procs: u32, request_s: u64, line: usize) -> ReplayJob {
    ReplayJob {
        id: line as u64,
        submit: 0,
        runtime: request_s * 1_000_000 / 2,
        request: request_s * 1_000_000,
        procs,
        line,
    }
}

#[test]
fn toml_pstates_as_factors_and_as_speeds_and_watts() {
    let p = parse(
        "name = \"p\"\n\
         [[partitions]]\nname = \"f\"\nnodes = 2\nbusy_watts = 200.0\nidle_watts = 50.0\n\
         pstates = [{ time = 1.0, power = 1.0 }, { time = 1.25, power = 0.6 }]\n\
         [[partitions]]\nname = \"a\"\nnodes = 3\ncores_per_node = 4\n\
         pstates = [{ speed = 2.0, watts = 300.0 }, { speed = 1.0, watts = 120.0 }]\n",
        "p.toml",
    )
    .unwrap();
    let f = &p.partitions[0];
    assert_eq!(
        (f.speed, f.pstates[1].time, f.pstates[1].busy_watts),
        (1.0, 1.25, 120.0)
    );
    assert_eq!(f.idle_watts, 50.0);
    let a = &p.partitions[1];
    // Absolute: the partition's speed is P-state 0's, the times are speed ratios.
    assert_eq!(
        (a.speed, a.pstates[1].time, a.pstates[1].busy_watts),
        (2.0, 2.0, 120.0)
    );
    assert_eq!(a.pstates[1].power, 0.4);
    assert_eq!(a.nodes_for(9), 3);
    assert_eq!(p.cores(), 2 + 12);
    assert_eq!(p.pstate_count(), 2);
}

#[test]
fn toml_mixed_pstate_forms_and_bad_values_are_refused() {
    let e = parse(
        "name = \"p\"\n[[partitions]]\nname = \"f\"\nnodes = 2\n\
         pstates = [{ speed = 2.0, watts = 3.0 }, { time = 1.0 }]\n",
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("p.toml:5: partitions[0].pstates[1]"), "{e}");
    let e = parse(
        "name = \"p\"\n[[partitions]]\nname = \"f\"\nnodes = 0\nspeed = 0.0\n",
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("p.toml:4: partitions[0].nodes = 0"), "{e}");
    assert!(e.contains("p.toml:5: partitions[0].speed = 0"), "{e}");
    let five = "[{ time = 1.0 }, { time = 1.0 }, { time = 1.0 }, { time = 1.0 }, { time = 1.0 }]";
    let e = parse(
        &format!("name = \"p\"\npstates = {five}\n[[partitions]]\nname = \"f\"\nnodes = 2\n"),
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("p.toml:2: pstates = 5 P-states"), "{e}");
}

#[test]
fn rules_accept_by_size_request_swf_fields_and_batsim_fields() {
    let p = parse(
        "name = \"p\"\n[[partitions]]\nname = \"f\"\nnodes = 8\n\
         [partitions.jobs]\nprocs = [2, 4]\nrequest_s = [0, 100]\nswf_queues = [1, 2]\n\
         [[partitions]]\nname = \"g\"\nnodes = 8\n\
         [partitions.jobs]\nbatsim_field = \"queue\"\nbatsim_values = [\"gpu\"]\n",
        "p.toml",
    )
    .unwrap();
    let f = &p.partitions[0].accepts;
    let tag = |q: Option<u32>| JobTag {
        queue: q,
        partition: None,
        fields: Default::default(),
    };
    assert!(f.accepts(&job(2, 100, 1), Some(&tag(Some(2)))));
    assert!(
        !f.accepts(&job(1, 100, 1), Some(&tag(Some(2)))),
        "too few processors"
    );
    assert!(
        !f.accepts(&job(2, 101, 1), Some(&tag(Some(2)))),
        "too long a request"
    );
    assert!(
        !f.accepts(&job(2, 100, 1), Some(&tag(Some(3)))),
        "another queue"
    );
    assert!(
        !f.accepts(&job(2, 100, 1), Some(&tag(None))),
        "no queue (-1)"
    );
    assert!(f.reads_swf());
    let tags = JobTags::of_batsim(
        r#"{"jobs": [{"id": 1, "queue": "gpu"}, {"id": 2, "queue": "cpu"}, {"id": 3}]}"#,
        &["queue".to_string()],
    )
    .unwrap();
    let g = &p.partitions[1].accepts;
    assert!(g.accepts(&job(1, 1, 1), tags.get(1)));
    assert!(!g.accepts(&job(1, 1, 2), tags.get(2)));
    assert!(!g.accepts(&job(1, 1, 3), tags.get(3)));
    assert!(g.describe().contains("batsim_field \"queue\""));
    // A field without its values.
    let e = parse(
        "name = \"p\"\n[[partitions]]\nname = \"f\"\nnodes = 8\n\
         [partitions.jobs]\nbatsim_field = \"queue\"\n",
        "p.toml",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("p.toml:6: partitions[0].jobs.batsim_field"),
        "{e}"
    );
}

#[test]
fn simgrid_names_sort_as_batsim_numbers_its_machines() {
    use std::cmp::Ordering::*;
    assert_eq!(simgrid::natural("host2", "host10"), Less);
    assert_eq!(simgrid::natural("host10", "host9"), Greater);
    assert_eq!(simgrid::natural("a1b2", "a1b10"), Less);
    assert_eq!(simgrid::natural("host01", "host1"), Less);
    assert_eq!(simgrid::natural("n", "n0"), Less);
}

const TWO_KINDS: &str = r#"<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
<zone id="AS0" routing="Full">
  <cluster id="big" prefix="big" suffix="" radical="0-2" speed="2Gf, 1Gf" bw="1Gbps" lat="1us">
    <prop id="wattage_per_state" value="95:120:200, 80:100:150" />
    <prop id="wattage_off" value="10" />
  </cluster>
  <host id="small0" speed="1Gf, 500Mf">
    <prop id="watt_per_state" value="40:80, 30:50" />
  </host>
  <host id="master" speed="1Gf"><prop id="role" value="master" /></host>
  <host id="store" speed="0f"><prop id="role" value="storage" /></host>
</zone>
</platform>
"#;

#[test]
fn simgrid_hosts_become_partitions_in_machine_order() {
    let p = parse(TWO_KINDS, "two.xml").unwrap();
    assert_eq!(p.format, Format::Simgrid);
    assert_eq!(p.name, "two");
    assert_eq!(p.partitions.len(), 2);
    let big = &p.partitions[0];
    assert_eq!(big.hosts, ["big0", "big1", "big2"]);
    assert_eq!((big.nodes, big.speed), (3, 1.0));
    assert_eq!(big.pstates[1].time, 2.0);
    // A delay job draws the idle watts of its P-state.
    assert_eq!(
        (big.pstates[0].busy_watts, big.pstates[1].busy_watts),
        (95.0, 80.0)
    );
    assert_eq!((big.idle_watts, big.off_watts), (95.0, Some(10.0)));
    let small = &p.partitions[1];
    // Half machine 0's speed: the log's run times are at machine 0's speed.
    assert_eq!((small.nodes, small.speed, small.idle_watts), (1, 0.5, 40.0));
    assert_eq!(small.pstates[1].busy_watts, 30.0);
}

#[test]
fn simgrid_errors_name_the_line_and_the_field() {
    let bad = TWO_KINDS.replace("40:80, 30:50", "40:80");
    let e = parse(&bad, "two.xml").unwrap_err().to_string();
    assert!(
        e.contains("two.xml:10: host small0: wattage_per_state"),
        "{e}"
    );
    let bad = TWO_KINDS.replace("speed=\"1Gf, 500Mf\"", "speed=\"fast\"");
    let e = parse(&bad, "two.xml").unwrap_err().to_string();
    assert!(e.contains("two.xml:9: host small0: speed"), "{e}");
    // Different computation P-state counts.
    let bad = TWO_KINDS
        .replace("speed=\"1Gf, 500Mf\"", "speed=\"1Gf\"")
        .replace("40:80, 30:50", "40:80");
    let e = parse(&bad, "two.xml").unwrap_err().to_string();
    assert!(e.contains("two.xml:9: host small0: speed has 1"), "{e}");
    let e = parse("<platform><oops></platform>", "x.xml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("x.xml: not well-formed XML"), "{e}");
    let e = parse("<platform version=\"4.1\"></platform>", "x.xml")
        .unwrap_err()
        .to_string();
    assert!(e.contains("no compute host"), "{e}");
}
