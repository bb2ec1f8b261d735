//! Tests of the SWF reader and cleaning: crafted texts with exact messages and counts, and
//! the three real logs of `../shared/traces/`.

use super::*;

const STRICT: ReadOptions = ReadOptions {
    skip_bad_lines: false,
};
const SKIP: ReadOptions = ReadOptions {
    skip_bad_lines: true,
};

/// A job line with the given fields and -1 everywhere else.
fn line(id: u32, submit: &str, run: &str, alloc: &str, req_procs: &str, req_time: &str) -> String {
    format!("{id} {submit} -1 {run} {alloc} -1 -1 {req_procs} {req_time} -1 1 -1 -1 -1 -1 -1 -1 -1")
}

fn err(text: &str) -> String {
    parse("t.swf", text, &STRICT).unwrap_err().to_string()
}

#[test]
fn header_keys_indented_continued_and_free_text() {
    let text = "\
;   --- a banner, not a key ---
; Version: 2.2
;      Computer: Bull / Dell mix\r
; Information: http://a.example/
;              http://b.example/
;
; MaxProcs: 100
;    MaxNodes: 50
; UnixStartTime: 843480031
; TimeZoneString: Europe/Stockholm
; StartTime: Mon Sep 23 14:00:31 CEST 1996
; EndTime:   Fri Aug 29 10:55:01 CEST 1997
; MaxJobs: 3
; MaxRecords: 4
; Installation: Somewhere
; Note: a long note
;   that goes on
;
; an orphan line
; Queue: 1 first
; Queue: 2 second
1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1
";
    let log = parse("t.swf", text, &STRICT).unwrap();
    let h = &log.header;
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.computer.as_deref(), Some("Bull / Dell mix"));
    assert_eq!(h.installation.as_deref(), Some("Somewhere"));
    assert_eq!(h.max_procs, Some(100));
    assert_eq!(h.max_nodes, Some(50));
    assert_eq!(h.unix_start_time, Some(843_480_031));
    assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Stockholm"));
    assert_eq!(
        h.start_time.as_deref(),
        Some("Mon Sep 23 14:00:31 CEST 1996")
    );
    assert_eq!(h.end_time.as_deref(), Some("Fri Aug 29 10:55:01 CEST 1997"));
    assert_eq!(h.max_jobs, Some(3));
    assert_eq!(h.max_records, Some(4));
    assert_eq!(
        h.get("information"),
        Some("http://a.example/ http://b.example/")
    );
    assert_eq!(h.get("Note"), Some("a long note that goes on"));
    assert_eq!(h.get("Queue"), Some("1 first"));
    let keys: Vec<(usize, &str)> = h.entries.iter().map(|e| (e.line, e.key.as_str())).collect();
    assert_eq!(
        keys,
        [
            (2, "Version"),
            (3, "Computer"),
            (4, "Information"),
            (7, "MaxProcs"),
            (8, "MaxNodes"),
            (9, "UnixStartTime"),
            (10, "TimeZoneString"),
            (11, "StartTime"),
            (12, "EndTime"),
            (13, "MaxJobs"),
            (14, "MaxRecords"),
            (15, "Installation"),
            (16, "Note"),
            (20, "Queue"),
            (21, "Queue"),
        ]
    );
    let comments: Vec<(usize, &str)> = h
        .comments
        .iter()
        .map(|c| (c.line, c.text.as_str()))
        .collect();
    assert_eq!(
        comments,
        [(1, "--- a banner, not a key ---"), (19, "an orphan line")]
    );
    assert_eq!(log.jobs.len(), 1);
    assert_eq!(log.jobs[0].line, 22);
    assert_eq!(log.machine_procs(None), Ok(100));
}

#[test]
fn a_job_line_ends_a_header_entry() {
    let text =
        "; Note: first\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n; not a continuation\n";
    let log = parse("t.swf", text, &STRICT).unwrap();
    assert_eq!(log.header.get("Note"), Some("first"));
    assert_eq!(log.header.comments.len(), 1);
    assert_eq!(log.header.comments[0].line, 3);
}

#[test]
fn fields_fractional_seconds_and_unknowns() {
    let text = "  7  1.5 0.25 3600.000001 64 12.5 2560.5 -1 7200 -1.0 5 3 4 -1 2 1 6 0.5 \r\n";
    let log = parse("t.swf", text, &STRICT).unwrap();
    assert_eq!(
        log.jobs,
        [SwfJob {
            line: 1,
            id: 7,
            submit_us: Some(1_500_000),
            wait_us: Some(250_000),
            run_us: Some(3_600_000_001),
            allocated_procs: Some(64),
            avg_cpu_us: Some(12_500_000),
            used_memory_kb: Some(2561),
            requested_procs: None,
            requested_us: Some(7_200_000_000),
            requested_memory_kb: None,
            status: Some(5),
            user: Some(3),
            group: Some(4),
            executable: None,
            queue: Some(2),
            partition: Some(1),
            preceding_job: Some(6),
            think_time_us: Some(500_000),
        }]
    );
    assert_eq!(log.skipped, 0);
}

#[test]
fn truncated_line_names_line_and_missing_field() {
    let text = format!(
        "; MaxProcs: 8\n{}\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1\n",
        line(1, "0", "10", "4", "4", "20")
    );
    assert_eq!(
        err(&text),
        "t.swf:3: truncated line: 17 of 18 fields, field 18 (think time) is missing"
    );
    assert_eq!(
        err("1 0 5\n"),
        "t.swf:1: truncated line: 3 of 18 fields, field 4 (run time) is missing"
    );
}

#[test]
fn too_many_fields_names_line_and_extra_text() {
    assert_eq!(
        err("\n\n1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1 7 8\n"),
        "t.swf:3: too many fields: 20, expected 18 (field 19 is \"7\")"
    );
}

#[test]
fn bad_text_names_line_field_and_text() {
    let good = line(1, "0", "10", "4", "4", "20");
    let cases = [
        (
            line(2, "0", "10", "5a", "4", "20"),
            "t.swf:3: field 5 (allocated processors): \"5a\" is not a number",
        ),
        (
            line(2, "0", "-5", "4", "4", "20"),
            "t.swf:3: field 4 (run time): \"-5\" is negative (only -1, meaning unknown, may be)",
        ),
        (
            line(2, "0", "10", "4.5", "4", "20"),
            "t.swf:3: field 5 (allocated processors): \"4.5\" is not a whole number",
        ),
        (
            line(2, "0", "10", "4", "4294967296", "20"),
            "t.swf:3: field 8 (requested processors): \"4294967296\" is too large",
        ),
        (
            line(2, "1e3", "10", "4", "4", "20"),
            "t.swf:3: field 2 (submit time): \"1e3\" is not a number",
        ),
        (
            "-1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1".to_owned(),
            "t.swf:3: field 1 (job number): \"-1\" is not a job number (it may not be unknown)",
        ),
        (
            "2 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 x".to_owned(),
            "t.swf:3: field 18 (think time): \"x\" is not a number",
        ),
    ];
    for (bad, message) in cases {
        assert_eq!(err(&format!("; c\n{good}\n{bad}\n")), message);
    }
}

#[test]
fn empty_files_are_errors() {
    assert_eq!(
        err(""),
        "t.swf: no jobs (no job lines, only header or blank lines)"
    );
    assert_eq!(
        err("; MaxProcs: 100\n;\n\n   \n"),
        "t.swf: no jobs (no job lines, only header or blank lines)"
    );
    let all_bad = "1 2 3\nx\n";
    assert_eq!(
        parse("t.swf", all_bad, &SKIP).unwrap_err().to_string(),
        "t.swf: no jobs (2 bad lines skipped, none good)"
    );
}

#[test]
fn bad_header_values_are_errors_or_skipped() {
    let text = format!("; MaxProcs: many\n{}\n", line(1, "0", "10", "4", "4", "20"));
    assert_eq!(
        err(&text),
        "t.swf:1: header MaxProcs: \"many\" is not a number"
    );
    let log = parse("t.swf", &text, &SKIP).unwrap();
    assert_eq!((log.skipped, log.header.max_procs), (1, None));
    assert_eq!(
        log.machine_procs(None).unwrap_err().to_string(),
        "file t.swf has no MaxProcs or MaxNodes header; pass --procs N"
    );
}

#[test]
fn io_errors_name_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("missing.swf");
    let e = read(&path, &STRICT).unwrap_err();
    assert!(matches!(e, SwfError::Io { .. }));
    let message = e.to_string();
    assert!(
        message.starts_with(&format!("{}: cannot read: ", path.display())),
        "{message}"
    );
}

#[test]
fn read_names_the_file_in_messages() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("KTH.swf");
    std::fs::write(
        &path,
        "; MaxProcs: 100\n1 0 5 10 abc -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1\n",
    )
    .unwrap();
    assert_eq!(
        read(&path, &STRICT).unwrap_err().to_string(),
        format!(
            "{}:2: field 5 (allocated processors): \"abc\" is not a number",
            path.display()
        )
    );
}

#[test]
fn skip_bad_lines_counts_and_keeps_the_first_examples() {
    let mut text = String::from("; MaxProcs: 8\n");
    let mut bad_lines = Vec::new();
    for i in 1..=12u32 {
        if i % 3 == 0 {
            text.push_str(&line(i, "0", "10", "4", "4", "20"));
        } else {
            bad_lines.push(i as usize + 1);
            text.push_str(&line(i, "0", "ten", "4", "4", "20"));
        }
        text.push('\n');
    }
    text.push_str("13 0 1\n");
    bad_lines.push(14);
    let log = parse("t.swf", &text, &SKIP).unwrap();
    assert_eq!(log.jobs.len(), 4);
    assert_eq!(
        log.jobs.iter().map(|j| j.id).collect::<Vec<_>>(),
        [3, 6, 9, 12]
    );
    assert_eq!(log.skipped, 9);
    assert_eq!(log.skipped_examples.len(), SKIPPED_EXAMPLES);
    let example_lines: Vec<usize> = log
        .skipped_examples
        .iter()
        .map(|e| match e {
            SwfError::BadField { line, field, .. } => {
                assert_eq!(*field, Field::RunTime);
                *line
            }
            other => panic!("unexpected {other}"),
        })
        .collect();
    assert_eq!(example_lines, bad_lines[..SKIPPED_EXAMPLES]);
    // Strict reading fails on the first bad line.
    assert_eq!(
        err(&text),
        "t.swf:2: field 4 (run time): \"ten\" is not a number"
    );
}

#[test]
fn machine_size_prefers_the_override_then_maxprocs_then_maxnodes() {
    let job = line(1, "0", "10", "4", "4", "20");
    let both = parse(
        "t.swf",
        format!("; MaxNodes: 10\n; MaxProcs: 40\n{job}"),
        &STRICT,
    )
    .unwrap();
    assert_eq!(both.machine_procs(None), Ok(40));
    assert_eq!(both.machine_procs(Some(7)), Ok(7));
    assert_eq!(
        both.machine_procs(Some(0)),
        Err(MachineSizeError::ZeroOverride)
    );
    let nodes = parse("t.swf", format!("; MaxNodes: 10\n{job}"), &STRICT).unwrap();
    assert_eq!(nodes.machine_procs(None), Ok(10));
    let none = parse("n.swf", &job, &STRICT).unwrap();
    assert_eq!(
        none.machine_procs(None),
        Err(MachineSizeError::Unknown {
            file: "n.swf".to_owned()
        })
    );
    assert_eq!(none.machine_procs(Some(5)), Ok(5));
}

/// Fourteen jobs, each made for one cleaning step (comments say which).
fn crafted() -> Vec<SwfJob> {
    let lines = [
        line(1, "-1", "10", "4", "4", "20"),     // unknown submit
        line(2, "0", "0", "4", "4", "20"),       // run time 0
        line(3, "1", "-1", "4", "4", "20"),      // run time unknown
        line(4, "2", "10", "-1", "8", "20"),     // allocated from requested
        line(5, "3", "10", "4", "-1", "20"),     // requested from allocated
        line(6, "4", "10", "-1", "-1", "20"),    // no processors
        line(7, "5", "10", "0", "0", "20"),      // no processors (zeros)
        line(8, "6", "10", "4", "4", "-1"),      // no request
        line(9, "7", "30", "4", "4", "20"),      // run time above request
        line(10, "8", "10", "200", "200", "20"), // larger than 100
        line(11, "1.5", "10", "4", "4", "20"),   // fine, submitted early
        line(12, "10", "10", "4", "4", "0"),     // request 0
        line(13, "11", "-1", "4", "4", "-1"),    // no request and no run time
        line(14, "12", "10", "-1", "200", "20"), // requested larger than 100
    ];
    parse("c.swf", lines.join("\n"), &STRICT).unwrap().jobs
}

fn ids(jobs: &[SwfJob]) -> Vec<u64> {
    jobs.iter().map(|j| j.id).collect()
}

fn run_one(options: CleanOptions) -> (Vec<SwfJob>, CleanReport) {
    let (jobs, report) = clean(crafted(), &options);
    assert_eq!(report.input, 14);
    assert_eq!(report.kept, jobs.len());
    assert_eq!(report.input, report.kept + report.dropped());
    (jobs, report)
}

#[test]
fn no_cleaning_changes_nothing() {
    let (jobs, report) = run_one(CleanOptions::none());
    assert_eq!(jobs, crafted());
    // Requests unknown or 0 are kept, and counted as such.
    assert_eq!(
        report,
        CleanReport {
            input: 14,
            kept: 14,
            kept_missing_request: 3,
            ..CleanReport::default()
        }
    );
}

#[test]
fn clean_drop_unknown_submit() {
    let (jobs, r) = run_one(CleanOptions {
        drop_unknown_submit: true,
        ..CleanOptions::none()
    });
    assert_eq!(r.dropped_unknown_submit, 1);
    assert_eq!(r.dropped(), 1);
    assert!(!ids(&jobs).contains(&1));
}

#[test]
fn clean_drop_nonpositive_runtime() {
    let (jobs, r) = run_one(CleanOptions {
        drop_nonpositive_runtime: true,
        ..CleanOptions::none()
    });
    assert_eq!((r.dropped_nonpositive_runtime, r.dropped()), (3, 3));
    assert_eq!(ids(&jobs), [1, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14]);
}

#[test]
fn clean_fill_procs() {
    let (jobs, r) = run_one(CleanOptions {
        fill_procs: true,
        ..CleanOptions::none()
    });
    assert_eq!(
        (
            r.filled_allocated_procs,
            r.filled_requested_procs,
            r.dropped_no_procs
        ),
        (2, 1, 2)
    );
    assert_eq!(r.dropped(), 2);
    assert_eq!(ids(&jobs), [1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 13, 14]);
    let job = |id| jobs.iter().find(|j| j.id == id).unwrap();
    assert_eq!(
        (job(4).allocated_procs, job(4).requested_procs),
        (Some(8), Some(8))
    );
    assert_eq!(
        (job(5).allocated_procs, job(5).requested_procs),
        (Some(4), Some(4))
    );
}

#[test]
fn clean_missing_request_each_way() {
    let with = |missing_request| {
        run_one(CleanOptions {
            missing_request,
            ..CleanOptions::none()
        })
    };
    let (jobs, r) = with(MissingRequest::Drop);
    assert_eq!((r.dropped_missing_request, r.dropped()), (3, 3));
    assert_eq!(ids(&jobs), [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 14]);

    let (jobs, r) = with(MissingRequest::UseRuntime);
    assert_eq!((r.request_from_runtime, r.dropped_missing_request), (2, 1));
    assert_eq!(r.dropped(), 1);
    let job = |id| jobs.iter().find(|j: &&SwfJob| j.id == id).unwrap();
    assert_eq!(job(8).requested_us, Some(10_000_000));
    assert_eq!(job(12).requested_us, Some(10_000_000));
    assert!(!ids(&jobs).contains(&13));

    let (jobs, r) = with(MissingRequest::Keep);
    assert_eq!((r.kept_missing_request, r.dropped()), (3, 0));
    assert_eq!(jobs.len(), 14);
}

#[test]
fn clean_clamp_runtime_to_request() {
    let (jobs, r) = run_one(CleanOptions {
        clamp_runtime_to_request: true,
        ..CleanOptions::none()
    });
    assert_eq!((r.clamped_runtime, r.dropped()), (1, 0));
    let job9 = jobs.iter().find(|j| j.id == 9).unwrap();
    assert_eq!(job9.run_us, Some(20_000_000));
}

#[test]
fn clean_drop_larger_than_machine() {
    let (jobs, r) = run_one(CleanOptions {
        drop_larger_than_machine: Some(100),
        ..CleanOptions::none()
    });
    assert_eq!((r.dropped_larger_than_machine, r.dropped()), (2, 2));
    assert!(!ids(&jobs).contains(&10) && !ids(&jobs).contains(&14));
    // A job exactly the machine's size stays.
    let (_, r) = run_one(CleanOptions {
        drop_larger_than_machine: Some(200),
        ..CleanOptions::none()
    });
    assert_eq!(r.dropped_larger_than_machine, 0);
}

#[test]
fn strong_cleaning_counts_every_step_in_order() {
    let (jobs, r) = run_one(CleanOptions::strong(100));
    assert_eq!(
        r,
        CleanReport {
            input: 14,
            kept: 4,
            dropped_unknown_submit: 1,
            dropped_nonpositive_runtime: 3,
            filled_allocated_procs: 2,
            filled_requested_procs: 1,
            dropped_no_procs: 2,
            dropped_missing_request: 2,
            request_from_runtime: 0,
            kept_missing_request: 0,
            clamped_runtime: 1,
            dropped_larger_than_machine: 2,
        }
    );
    assert_eq!(ids(&jobs), [4, 5, 9, 11]);
    let replay = replay_jobs(&jobs).unwrap();
    assert_eq!(
        replay,
        [
            ReplayJob {
                id: 11,
                submit: 1_500_000,
                runtime: 10_000_000,
                request: 20_000_000,
                procs: 4,
                line: 11
            },
            ReplayJob {
                id: 4,
                submit: 2_000_000,
                runtime: 10_000_000,
                request: 20_000_000,
                procs: 8,
                line: 4
            },
            ReplayJob {
                id: 5,
                submit: 3_000_000,
                runtime: 10_000_000,
                request: 20_000_000,
                procs: 4,
                line: 5
            },
            ReplayJob {
                id: 9,
                submit: 7_000_000,
                runtime: 20_000_000,
                request: 20_000_000,
                procs: 4,
                line: 9
            },
        ]
    );
}

#[test]
fn replay_refuses_uncleaned_jobs() {
    let jobs = crafted();
    assert_eq!(
        replay_jobs(&jobs).unwrap_err().to_string(),
        "line 1 (job 1): field 2 (submit time) is unknown; clean the log first (--clean strong)"
    );
    assert_eq!(
        ReplayJob::try_from(&jobs[3]).unwrap_err().field,
        Field::AllocatedProcessors
    );
    assert_eq!(
        ReplayJob::try_from(&jobs[11]).unwrap_err().to_string(),
        "line 12 (job 12): field 9 (requested time) is unknown or 0; clean the log first (--clean strong)"
    );
}

const KTH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/traces/KTH-SP2-1996-2.1.swf"
);
const CURIE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/traces/CEA-Curie-2011-2.1-sample.swf"
);
const GAIA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../shared/traces/UniLu-Gaia-2014-2.swf"
);

/// Strong cleaning must account for every job, and what it keeps must replay.
fn cleans_and_replays(log: SwfLog) -> CleanReport {
    let procs = log.machine_procs(None).unwrap();
    let input = log.jobs.len();
    let (jobs, report) = clean(log.jobs, &CleanOptions::strong(procs));
    assert_eq!(report.input, input);
    assert_eq!(report.input, report.kept + report.dropped());
    let replay = replay_jobs(&jobs).unwrap();
    assert_eq!(replay.len(), report.kept);
    assert!(replay
        .iter()
        .all(|j| j.runtime <= j.request && j.procs <= procs));
    report
}

#[test]
fn real_log_kth() {
    let log = read(KTH, &STRICT).unwrap();
    // MODEL.md says 28,490 jobs, as the header's MaxJobs does; the file has 28,489 job
    // lines (`grep -vc '^\s*;'`): job number 27313 is absent, the last is 28490.
    assert_eq!(log.jobs.len(), 28_489);
    assert_eq!(log.header.max_jobs, Some(28_490));
    assert_eq!(log.jobs.last().unwrap().id, 28_490);
    assert_eq!(log.header.max_procs, Some(100));
    assert_eq!(log.header.max_nodes, Some(100));
    assert_eq!(log.header.unix_start_time, Some(843_480_031));
    assert_eq!(
        log.header.get("Information"),
        Some("http://www.pdc.kth.se/ http://www.cs.huji.ac.il/labs/parallel/workload/")
    );
    assert_eq!(log.header.entries.len(), 17);
    assert_eq!(log.skipped, 0);
    assert_eq!(
        log.jobs[0],
        SwfJob {
            line: 20,
            id: 1,
            submit_us: Some(0),
            wait_us: Some(964_980_000_000),
            run_us: Some(97_225_000_000),
            allocated_procs: Some(56),
            avg_cpu_us: None,
            used_memory_kb: None,
            requested_procs: Some(56),
            requested_us: Some(210_000_000_000),
            requested_memory_kb: None,
            status: Some(1),
            user: Some(1),
            group: Some(1),
            executable: None,
            queue: None,
            partition: None,
            preceding_job: None,
            think_time_us: None,
        }
    );
    // Counted with awk: 8 lines with run time <= 0, 475 more with run time > request.
    assert_eq!(
        cleans_and_replays(log),
        CleanReport {
            input: 28_489,
            kept: 28_481,
            dropped_nonpositive_runtime: 8,
            clamped_runtime: 475,
            ..CleanReport::default()
        }
    );
}

#[test]
fn real_log_curie_sample() {
    let log = read(CURIE, &STRICT).unwrap();
    assert_eq!(log.jobs.len(), 29_998);
    // The header is cut to its first line.
    assert_eq!(log.header.max_procs, Some(93_312));
    assert_eq!(log.header.entries.len(), 1);
    assert_eq!((log.header.max_nodes, log.header.max_jobs), (None, None));
    assert_eq!(log.machine_procs(None), Ok(93_312));
    assert_eq!(log.jobs[0].id, 477_353);
    assert_eq!(log.jobs[0].submit_us, Some(43_603_464_000_000));
    // The sample is already clean (counted with awk).
    assert_eq!(
        cleans_and_replays(log),
        CleanReport {
            input: 29_998,
            kept: 29_998,
            ..CleanReport::default()
        }
    );
}

#[test]
fn real_log_gaia() {
    let log = read(GAIA, &STRICT).unwrap();
    assert_eq!(log.jobs.len(), 51_987);
    let h = &log.header;
    assert_eq!((h.max_procs, h.max_nodes), (Some(2004), Some(151)));
    assert_eq!((h.max_jobs, h.max_records), (Some(51_987), Some(51_987)));
    assert_eq!(h.version.as_deref(), Some("2.2"));
    assert_eq!(h.installation.as_deref(), Some("UNILU Gaia Cluster"));
    assert_eq!(h.time_zone_string.as_deref(), Some("Europe/Luxembourg"));
    assert_eq!(h.unix_start_time, Some(1_400_749_079));
    assert_eq!(h.get("MaxQueues"), Some("3"));
    assert_eq!(h.entries.iter().filter(|e| e.key == "Queue").count(), 6);
    // The banner and the 13-line column diagram are free text.
    assert_eq!(h.comments.len(), 14);
    // Field 6 is written with two decimals ("358.00") in 31,638 lines.
    let job6 = &log.jobs[5];
    assert_eq!((job6.id, job6.avg_cpu_us), (6, Some(358_000_000)));
    // Counted with awk: 128 lines with run time <= 0, 1,500 more with run time > request.
    assert_eq!(
        cleans_and_replays(log),
        CleanReport {
            input: 51_987,
            kept: 51_859,
            dropped_nonpositive_runtime: 128,
            clamped_runtime: 1_500,
            ..CleanReport::default()
        }
    );
}

/// Times reading each real log; run with
/// `cargo test -p kairos-host --release swf::tests::read_times -- --ignored --nocapture`.
#[test]
#[ignore]
fn read_times() {
    for path in [KTH, CURIE, GAIA] {
        let bytes = std::fs::read(path).unwrap();
        let mut best = std::time::Duration::MAX;
        for _ in 0..20 {
            let t = std::time::Instant::now();
            let log = parse(path, &bytes, &STRICT).unwrap();
            best = best.min(t.elapsed());
            std::hint::black_box(log);
        }
        let t = std::time::Instant::now();
        read(path, &STRICT).unwrap();
        println!(
            "{path}: parse {best:?} (best of 20), read incl. file {:?}",
            t.elapsed()
        );
    }
}

/// Issue 27: a log too large to hold is refused from its size, before it is read (a sparse
/// 2 GB file: nothing of it is allocated), naming the memory and the way out.
#[test]
fn swf_read_refuses_a_log_too_large_before_reading() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.swf");
    std::fs::File::create(&path)
        .unwrap()
        .set_len(2_000_000_000)
        .unwrap();
    assert!(memory_for(2_000_000_000) > crate::limits::MAX_STORAGE_BYTES);
    let e = read(&path, &ReadOptions::default()).unwrap_err();
    assert!(matches!(e, SwfError::TooLarge { .. }), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("huge.swf: 2000000000 bytes") && m.contains("--allocation pool"),
        "{m}"
    );
}

/// A gzip log's text is counted as it is decompressed, and no further than the limit.
#[test]
fn swf_gzip_text_read_within_a_limit() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.swf.gz");
    let text = "1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n".repeat(100);
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(text.as_bytes()).unwrap();
    std::fs::write(&path, enc.finish().unwrap()).unwrap();
    let n = text.len() as u64;
    assert_eq!(
        stream::read_maybe_gzip_within(&path, n).unwrap().unwrap(),
        text.as_bytes()
    );
    assert!(stream::read_maybe_gzip_within(&path, n - 1)
        .unwrap()
        .is_none());
}

/// Issue 27: an SWF starting with a UTF-8 byte-order mark was "truncated line: 3 of 18
/// fields"; the mark is skipped, and the header after it read.
#[test]
fn swf_bom_skipped() {
    let log = parse(
        "bom.swf",
        b"\xef\xbb\xbf; MaxProcs: 4\n1 0 0 10 4 -1 -1 4 10 -1 1 1 1 1 1 -1 -1 -1\n",
        &ReadOptions::default(),
    )
    .unwrap();
    assert_eq!(log.header.max_procs, Some(4));
    assert_eq!(log.jobs.len(), 1);
    assert!(log.order.is_clean());
}

/// The one-pass splitter and the line ends found with `memchr` against the plain forms.
mod splitting {
    use super::*;
    use proptest::prelude::*;

    /// Bytes a job line may hold: digits, signs, dots, every ASCII whitespace byte, the
    /// vertical tab (not whitespace to `is_ascii_whitespace`) and a few others.
    fn line_bytes() -> impl Strategy<Value = Vec<u8>> {
        let byte = prop::sample::select(b"0123456789-.; \t\n\x0b\x0c\rxz\xff".to_vec());
        prop::collection::vec(byte, 0..120)
    }

    proptest! {
        /// The one-pass splitter finds the words `Words` (`split_ascii_whitespace`) finds,
        /// and says too few or too many as it would.
        #[test]
        fn the_splitter_finds_the_words_of_the_line(text in line_bytes()) {
            let words: Vec<&[u8]> = Words(&text).collect();
            match fields(&text) {
                Ok(f) => prop_assert_eq!(&f[..], &words[..]),
                Err(LineError::TooFew { found }) => {
                    prop_assert!(words.len() < FIELDS);
                    prop_assert_eq!(found, words.len());
                }
                Err(LineError::TooMany { found, extra }) => {
                    prop_assert_eq!(found, words.len());
                    prop_assert_eq!(extra, words[FIELDS]);
                }
                Err(LineError::Bad { .. }) => prop_assert!(false, "a splitter error"),
            }
        }

        /// Lines found with `memchr` are the pieces `split(b'\n')` gives: the same jobs on
        /// the same lines, whatever the line ends and blank lines.
        #[test]
        fn lines_are_the_pieces_between_newlines(
            lines in prop::collection::vec(
                prop_oneof![
                    Just(String::new()),
                    Just("; MaxProcs: 8\r".to_string()),
                    Just("  ".to_string()),
                    (1u32..99).prop_map(|id| line(id, "5", "10", "2", "-1", "20")),
                    (1u32..99).prop_map(|id| format!("{}\r", line(id, "7", "1", "1", "-1", "2"))),
                ],
                1..12,
            ),
            newline_at_end in any::<bool>(),
        ) {
            let mut text = lines.join("\n");
            if newline_at_end {
                text.push('\n');
            }
            let jobs: Vec<usize> = text
                .split('\n')
                .enumerate()
                .filter(|(_, l)| {
                    let t = l.trim_ascii();
                    !t.is_empty() && !t.starts_with(';')
                })
                .map(|(i, _)| i + 1)
                .collect();
            match parse("t.swf", &text, &SKIP) {
                Ok(log) => {
                    let got: Vec<usize> = log.jobs.iter().map(|j| j.line).collect();
                    prop_assert_eq!(got, jobs);
                }
                Err(e) => prop_assert!(jobs.is_empty(), "{}", e),
            }
        }
    }
}

/// The one-pass reader of whole-number lines (`fast.rs`) against the word-by-word one.
mod one_pass {
    use super::*;
    use proptest::prelude::*;

    /// A field as logs write it: digits or `-1`.
    fn common_word() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => (0u64..100_000).prop_map(|v| v.to_string()),
            1 => Just("-1".to_string()),
        ]
    }

    /// A field's text the one-pass reader must read right or give up on: decimals, other
    /// negatives, signs, garbage, digit runs around the 19 that always fit, values around
    /// `u32`'s and `u64` microseconds' limits.
    fn hard_word() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<u64>().prop_map(|v| v.to_string()),
            (0u64..=u64::from(u32::MAX) + 2).prop_map(|v| v.to_string()),
            (1usize..24).prop_map(|n| "9".repeat(n)),
            (1usize..24).prop_map(|n| format!("1{}", "0".repeat(n))),
            (0usize..22, 0u32..10).prop_map(|(n, d)| format!("{}{d}", "0".repeat(n))),
            "-?[0-9]{0,3}(\\.[0-9]{0,8})?",
            "[-+.0-9a-z]{1,4}",
            prop::sample::select(vec![
                "-1.0",
                "-1.",
                "-0",
                "-2",
                "--1",
                "-",
                "1-",
                "-1x",
                "+1",
                "1e3",
                "-10",
                "18446744073709551615",
                "18446744073709",
                "18446744073710",
                "4294967295",
                "4294967296",
                "\u{e9}",
            ])
            .prop_map(str::to_string),
        ]
    }

    /// Separators: mostly spaces, sometimes tabs, form feeds, carriage returns, and the
    /// vertical tab (not whitespace to the reader).
    fn gap() -> impl Strategy<Value = String> {
        prop_oneof![
            8 => "[ ]{1,6}",
            1 => "[ \t\x0c\r]{1,3}",
            1 => Just("\x0b".to_string()),
        ]
    }

    /// A line of 16 to 20 words (mostly 18), common ones with up to three hard ones put
    /// anywhere.
    fn job_line() -> impl Strategy<Value = String> {
        let count = prop_oneof![8 => Just(FIELDS), 1 => 16usize..=20];
        count
            .prop_flat_map(|n| {
                (
                    prop::collection::vec(common_word(), n),
                    prop::collection::vec((0..n, hard_word()), 0..=3),
                    prop::collection::vec(gap(), n + 1),
                )
            })
            .prop_map(|(mut words, hard, gaps)| {
                for (at, w) in hard {
                    words[at] = w;
                }
                let mut s = gaps[0].clone();
                for (w, g) in words.iter().zip(&gaps[1..]) {
                    s.push_str(w);
                    s.push_str(g);
                }
                s
            })
    }

    /// The outcome as comparable text: the job, or the error's message.
    fn outcome(r: Result<SwfJob, LineError<'_>>) -> Result<SwfJob, String> {
        r.map_err(|e| e.with_file("t.swf", 3).to_string())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4096))]

        /// Whenever the one-pass reader gives a job, it is the word-by-word reader's, and
        /// the reader as a whole (either way) answers as the word-by-word one does, job or
        /// error message.
        #[test]
        fn one_pass_jobs_are_the_word_by_word_ones(text in job_line()) {
            let trimmed = text.as_bytes().trim_ascii();
            let by_field = outcome(parse_job_by_field(3, trimmed));
            if let Some(job) = fast::job(3, trimmed) {
                prop_assert_eq!(Ok(job), by_field.clone());
            }
            prop_assert_eq!(outcome(parse_job(3, trimmed)), by_field);
        }
    }

    /// The one-pass reader takes the common lines and leaves the others to the general one.
    #[test]
    fn one_pass_takes_whole_numbers_and_leaves_the_rest() {
        let whole = "7 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";
        let job = fast::job(1, whole.as_bytes()).expect("a whole-number line");
        assert_eq!(job.id, 7);
        assert_eq!(job.run_us, Some(10_000_000));
        assert_eq!(job.wait_us, Some(5_000_000));
        assert_eq!(job.avg_cpu_us, None);
        assert_eq!(
            Ok(job),
            outcome(parse_job_by_field(1, whole.as_bytes())).map_err(|_| ())
        );
        let nineteen = "9999999999999999999 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1";
        assert_eq!(
            fast::job(1, nineteen.as_bytes()).unwrap().id,
            9_999_999_999_999_999_999
        );
        for other in [
            "7 0 5 10.0 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "7 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1",
            "7 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1 0",
            "-1 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "7 0 5 10 4294967296 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "7 0 5 18446744073710 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "7 0 5 10 4 -2 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
            "7 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -10",
            "10000000000000000000 0 5 10 4 -1 -1 4 20 -1 1 1 1 -1 -1 -1 -1 -1",
        ] {
            assert_eq!(fast::job(1, other.as_bytes()), None, "{other}");
        }
    }
}
