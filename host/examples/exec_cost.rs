//! What the exec protocol costs per message without Python: KTH-SP2 (or any SWF log) under
//! strict FCFS three ways: the built-in `--policy fcfs`, and an FCFS in a thread of this
//! process speaking the JSON lines (reading each request as a generic JSON value and
//! writing its answers, as a client in another language does) through the same checks as
//! `--controller exec:CMD`. The two schedules must agree; the difference in wall time over
//! the requests served is the protocol's cost per message (JSON both ways, the checks, the
//! channel), without a process or a pipe. docs/protocol.md quotes it.
//!
//!     cargo run --release -p kairos-host --example exec_cost -- LOG.swf

use anyhow::{bail, Context};
use kairos_host::live::exec::Exec;
use kairos_host::live::link::Link;
use kairos_host::trace::{self, LoadOptions, Policy, ReplayOptions};
use serde_json::{json, Value};
use std::collections::{HashMap, VecDeque};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let Some(path) = std::env::args().nth(1) else {
        bail!("usage: exec_cost LOG.swf");
    };
    let options = LoadOptions {
        procs: None,
        clean_strong: true,
        skip_bad_lines: false,
        strict: false,
    };
    let loaded = trace::load(std::path::Path::new(&path), &options)?;
    let t0 = Instant::now();
    let want = trace::replay_trace(&loaded.jobs, loaded.procs, Policy::Fcfs)?;
    let builtin_s = t0.elapsed().as_secs_f64();

    let (to_ctl, from_host) = channel();
    let (to_host, from_ctl) = channel();
    std::thread::spawn(move || fcfs(from_host, to_host));
    let mut exec = Exec::over(
        Link::channels(to_ctl, from_ctl),
        "an FCFS thread over JSON lines",
        Duration::from_secs(10),
    );
    let t0 = Instant::now();
    let run = trace::replay_trace_exec(
        &loaded.jobs,
        loaded.procs,
        &ReplayOptions::new(Policy::Exec),
        false,
        &mut exec,
    );
    let exec_s = t0.elapsed().as_secs_f64();
    let (got, _) = match (run, exec.failure()) {
        (Err(_), Some(f)) => bail!("{f}"),
        (r, _) => r.context("the replay over JSON lines")?,
    };
    let stats = exec.finish()?;
    let starts = |r: &trace::TraceResult| r.jobs.iter().map(|j| j.start).collect::<Vec<_>>();
    if starts(&got) != starts(&want) {
        bail!("the JSON-lines FCFS and the built-in disagree");
    }
    let per_us = (exec_s - builtin_s) / stats.requests as f64 * 1e6;
    println!(
        "{}: {} jobs; built-in fcfs {builtin_s:.3} s; FCFS over JSON lines in process \
         {exec_s:.3} s, {} requests, {} bytes sent, {} received; {per_us:.2} us a request \
         over the built-in",
        loaded.file,
        loaded.jobs.len(),
        stats.requests,
        stats.bytes_sent,
        stats.bytes_received
    );
    Ok(())
}

/// Strict FCFS on one cluster over JSON lines: the requests from `input`, the answers to
/// `output`, until the channel closes.
fn fcfs(input: Receiver<Vec<u8>>, output: Sender<Vec<u8>>) {
    let (mut free, mut buf) = (0u64, Vec::new());
    let mut queue: VecDeque<(u64, u64, u64)> = VecDeque::new();
    let mut running: HashMap<u64, u64> = HashMap::new();
    let mut decided: Vec<Value> = Vec::new();
    while let Ok(bytes) = input.recv() {
        buf.extend_from_slice(&bytes);
        while let Some(n) = buf.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buf.drain(..=n).collect();
            let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                return;
            };
            let body = &msg["body"];
            let answer = if let Some(h) = body.get("Hello") {
                free = h["header"]["platform"]["clusters"][0]["nodes"]
                    .as_u64()
                    .unwrap_or(0);
                json!({"Hello": {"version": 1, "tasks": u32::MAX, "nodes": free,
                    "decisions": u32::MAX, "payload": u32::MAX}})
            } else if let Some(t) = body.get("Arrival") {
                let p = &t["demand"]["Own"]["placements"][0];
                let id = t["id"].as_u64().unwrap_or(0);
                queue.push_back((
                    id,
                    p["nodes"].as_u64().unwrap_or(0),
                    p["etc"][0].as_u64().unwrap_or(0),
                ));
                json!({"Arrived": id})
            } else if let Some(c) = body.get("Completion") {
                free += running
                    .remove(&c["task"].as_u64().unwrap_or(0))
                    .unwrap_or(0);
                json!({"Completed": 0})
            } else if let Some(m) = body.get("Map") {
                let now = m["now"].as_u64().unwrap_or(0);
                decided.clear();
                while let Some(&(id, nodes, d)) = queue.front() {
                    if nodes > free {
                        break;
                    }
                    queue.pop_front();
                    free -= nodes;
                    running.insert(id, nodes);
                    decided.push(
                        json!({"decision": {"task": id, "kind": "Start", "cluster": 0,
                        "nodes": nodes, "pstate": 0, "start": now, "end": now + d},
                        "fate": "None"}),
                    );
                }
                page(&decided, 0)
            } else if let Some(p) = body.get("Page") {
                page(&decided, p["from"].as_u64().unwrap_or(0) as usize)
            } else {
                json!("Reset")
            };
            let mut out =
                serde_json::to_vec(&json!({"seq": msg["seq"], "body": answer})).unwrap_or_default();
            out.push(b'\n');
            if output.send(out).is_err() {
                return;
            }
        }
    }
}

/// The page of `decided` from `from`.
fn page(decided: &[Value], from: usize) -> Value {
    let rest = decided.get(from..).unwrap_or(&[]);
    json!({"Mapped": {"total": decided.len(), "from": from, "utility": 0, "consumed": 0,
        "decisions": &rest[..rest.len().min(48)]}})
}
