//! Unit tests of the Batsim files: the interval sets, the rows as written, the schedule
//! row's metrics, the workload reader's errors and round trip, and the sniffing of inputs.

use super::input::sniff_bytes;
use super::*;

fn row(id: &str, state: FinalState, times: Option<(u64, u64)>, nodes: &[u32]) -> BatsimJob {
    BatsimJob {
        job_id: id.to_string(),
        workload_name: "w0".to_string(),
        profile: "delay_10".to_string(),
        submit: 1_000_000,
        resources: nodes.len().max(1) as u32,
        requested_time: 20_000_000,
        state,
        start: times.map(|t| t.0),
        finish: times.map(|t| t.1),
        nodes: nodes.to_vec(),
        energy_j: None,
        metadata: String::new(),
    }
}

#[test]
fn interval_sets_are_batsims() {
    assert_eq!(interval_set(&[]), "");
    assert_eq!(interval_set(&[5]), "5");
    assert_eq!(interval_set(&[7, 0, 1, 2, 3]), "0-3 7");
    assert_eq!(interval_set(&[1, 1, 2, 4, 5, 9]), "1-2 4-5 9");
}

#[test]
fn the_header_has_batsims_17_columns_in_order() {
    let mut out = Vec::new();
    write_jobs(&mut out, &[]).unwrap();
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "job_id,workload_name,profile,submission_time,requested_number_of_resources,\
         requested_time,success,final_state,starting_time,execution_time,finish_time,\
         waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n"
    );
    assert_eq!(JOBS_COLUMNS.len(), 17);
}

#[test]
fn rows_are_written_as_batsim_does() {
    let mut done = row(
        "1",
        FinalState::CompletedSuccessfully,
        Some((3_000_000, 13_500_000)),
        &[4, 0, 1, 2, 3],
    );
    done.energy_j = Some(12.5);
    done.metadata = "cluster=1 say \"hi\"".to_string();
    let mut dropped = row("w!2", FinalState::Rejected, None, &[]);
    dropped.metadata = "dropped".to_string();
    let killed = row(
        "3",
        FinalState::CompletedWalltimeReached,
        Some((1_000_000, 21_000_000)),
        &[9],
    );
    let mut out = Vec::new();
    write_jobs(&mut out, &[done, dropped, killed]).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            "1,w0,delay_10,1.000000,5,20.000000,1,COMPLETED_SUCCESSFULLY,3.000000,10.500000,\
             13.500000,2.000000,12.500000,1.190476,0-4,12.500000,\"cluster=1 say \"\"hi\"\"\"",
            "w!2,w0,delay_10,1.000000,1,20.000000,0,REJECTED,-1,-1,-1,-1,-1,-1,,-1,\"dropped\"",
            "3,w0,delay_10,1.000000,1,20.000000,0,COMPLETED_WALLTIME_REACHED,1.000000,\
             20.000000,21.000000,0.000000,20.000000,1.000000,9,-1,\"\"",
        ]
    );
}

#[test]
fn the_schedule_row_follows_batsims_definitions() {
    let a = row(
        "1",
        FinalState::CompletedSuccessfully,
        Some((3_000_000, 5_000_000)),
        &[0],
    );
    let b = row(
        "2",
        FinalState::CompletedWalltimeReached,
        Some((1_000_000, 21_000_000)),
        &[1],
    );
    let c = row("3", FinalState::Rejected, None, &[]);
    let r = ScheduleRow::of(&[a, b, c], 4, 0.5);
    assert_eq!(r.nb_jobs, 3);
    assert_eq!(r.nb_jobs_finished, 2);
    assert_eq!(r.nb_jobs_success, 1);
    assert_eq!(r.nb_jobs_killed, 1);
    assert_eq!(r.nb_jobs_rejected, 1);
    assert_eq!(r.makespan, 21_000_000);
    assert_eq!(r.max_waiting_time, 2_000_000);
    assert_eq!(r.max_turnaround_time, 20_000_000);
    // Stretches: 4 / 2 = 2 and 20 / 20 = 1.
    assert_eq!(r.mean_slowdown, 1.5);
    assert_eq!(r.max_slowdown, 2.0);
    assert_eq!(r.mean_waiting_time, 1.0);
    assert_eq!(r.mean_turnaround_time, 12.0);
    assert_eq!(r.consumed_joules, -1.0);
    let mut out = Vec::new();
    write_schedule(&mut out, &r).unwrap();
    let text = String::from_utf8(out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], SCHEDULE_COLUMNS.join(","));
    assert_eq!(
        lines[1],
        "-1.000000,21.000000,2.000000,20.000000,2.000000,1.500000,12.000000,1.000000,4,3,2,1,\
         1,1,0.500000,0.500000"
    );
}

#[test]
fn output_paths_follow_batsims_prefix() {
    let (j, s) = output_paths(std::path::Path::new("out/exp"));
    assert_eq!(j, std::path::PathBuf::from("out/exp_jobs.csv"));
    assert_eq!(s, std::path::PathBuf::from("out/exp_schedule.csv"));
}

#[test]
fn delay_profiles_are_named_for_their_time() {
    assert_eq!(delay_profile(3_600_000_000), "delay_3600");
    assert_eq!(delay_profile(12_500_000), "delay_12.5");
    assert_eq!(delay_profile(1), "delay_0.000001");
}

/// A workload file in the temporary directory.
fn workload_file(name: &str, text: &str) -> std::path::PathBuf {
    let p = std::env::temp_dir().join(format!("kairos-batsim-{}-{name}.json", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

fn read_err(name: &str, text: &str) -> String {
    let p = workload_file(name, text);
    let e = format!("{:#}", read_workload(&p).unwrap_err());
    let _ = std::fs::remove_file(&p);
    e
}

#[test]
fn workload_errors_name_the_job_and_the_field() {
    let profiles = r#""profiles": {"d": {"type": "delay", "delay": 5}, "m": {"type": "parallel"}}"#;
    let e = read_err("nores", &format!(r#"{{"jobs": [], {profiles}}}"#));
    assert!(e.contains("`nb_res` is missing"), "{e}");
    let e = read_err(
        "sub",
        &format!(r#"{{"nb_res": 4, "jobs": [{{"id": 7, "res": 1, "profile": "d"}}], {profiles}}}"#),
    );
    assert!(e.contains("jobs[0] (id 7): `subtime` is missing"), "{e}");
    let e = read_err(
        "big",
        &format!(
            r#"{{"nb_res": 4, "jobs": [{{"id": "a", "subtime": 0, "res": 5, "profile": "d"}}], {profiles}}}"#
        ),
    );
    assert!(
        e.contains("jobs[0] (id a): `res` is 5 but the platform has nb_res = 4"),
        "{e}"
    );
    let e = read_err(
        "par",
        &format!(
            r#"{{"nb_res": 4, "jobs": [{{"id": 1, "subtime": 0, "res": 1, "profile": "m"}}], {profiles}}}"#
        ),
    );
    assert!(e.contains("profile \"m\" is of type parallel"), "{e}");
    let e = read_err(
        "neg",
        &format!(
            r#"{{"nb_res": 4, "jobs": [{{"id": 1, "subtime": -3, "res": 1, "profile": "d"}}], {profiles}}}"#
        ),
    );
    assert!(e.contains("`subtime` is -3"), "{e}");
    let e = read_err("json", "{ nope");
    assert!(e.contains("not valid JSON"), "{e}");
}

#[test]
fn a_written_workload_reads_back_the_same() {
    let jobs = vec![
        WorkloadJob {
            id: "1".to_string(),
            subtime: 0,
            walltime: Some(20_000_000),
            res: 2,
            profile: delay_profile(10_000_000),
            delay: 10_000_000,
        },
        WorkloadJob {
            id: "x7".to_string(),
            subtime: 1_500_000,
            walltime: None,
            res: 4,
            profile: delay_profile(2_250_000),
            delay: 2_250_000,
        },
    ];
    let mut out = Vec::new();
    write_workload(&mut out, 4, &jobs, "test").unwrap();
    let p = workload_file("round", std::str::from_utf8(&out).unwrap());
    let w = read_workload(&p).unwrap();
    let _ = std::fs::remove_file(&p);
    assert_eq!(w.nb_res, 4);
    assert_eq!(w.jobs, jobs);
    let r = w.replay_jobs();
    assert_eq!(
        (r[0].id, r[0].request, r[0].runtime),
        (1, 20_000_000, 10_000_000)
    );
    // No walltime: planned with its run time; a string id is numbered by position.
    assert_eq!((r[1].id, r[1].request, r[1].line), (2, 2_250_000, 2));
}

#[test]
fn inputs_are_told_apart_by_content() {
    assert_eq!(sniff_bytes(&[0x1f, 0x8b, 8, 0]), InputKind::Swf);
    assert_eq!(sniff_bytes(b"; Version: 2.2\n1 0 -1 5 1"), InputKind::Swf);
    assert_eq!(sniff_bytes(b"\n1 0 -1 5 1 -1"), InputKind::Swf);
    assert_eq!(
        sniff_bytes(b"\xef\xbb\xbf  {\"nb_res\": 4}"),
        InputKind::Json
    );
    assert_eq!(
        sniff_bytes(b"# a scenario\nname = \"x\"\n"),
        InputKind::Toml
    );
    assert_eq!(sniff_bytes(b"[platform]\n"), InputKind::Toml);
    assert_eq!(sniff_bytes(b""), InputKind::Swf);
}
