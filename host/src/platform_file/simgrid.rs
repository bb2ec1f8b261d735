//! SimGrid platform XML as Batsim reads it (Batsim's `src/machines.cpp`), parsed with
//! roxmltree (a maintained, read-only XML DOM that keeps each node's position, so that every
//! error names its line).
//!
//! - Hosts are every `<host>` element, anywhere in the zones, and the hosts of every
//!   `<cluster>` element (`prefix` + each number of `radical` + `suffix`).
//! - The master host is left out, as Batsim does: the host named `master_host` (Batsim's
//!   default `--master-host`) or any host whose `role` property says `master`; so are hosts
//!   of role `storage` (they cannot compute).
//! - The compute hosts are numbered as Batsim numbers its machines: sorted by name, numbers
//!   inside names compared as numbers (`host2` before `host10`).
//! - `speed` lists the host's P-states (`100Mf, 1e-9Mf, 0.5f`); `wattage_per_state` (or
//!   SimGrid's older `watt_per_state`) gives per P-state `idle:one-core:all-cores` (or
//!   `idle:all-cores`) watts; `wattage_off` (`watt_off`) the watts off; `sleep_pstates`
//!   `sleep:off:on` triples name the sleep P-states and their virtual switching ones. The
//!   computation P-states are the others, in index order: kairos's P-state 0 is the first.
//! - Consecutive hosts (in machine-id order) alike in every one of these become one
//!   partition, so that node ids are Batsim's machine ids.
//! - A partition's relative speed is its first computation P-state's speed over that of
//!   machine 0: the log's run times are taken as measured on machine 0.
//! - Batsim runs a `delay` profile as a sleep on its hosts, so they draw their idle power of
//!   the P-state they are in (SimGrid's energy plugin at zero load): a job's busy watts are
//!   the idle value of its P-state.

use std::cmp::Ordering;

use roxmltree::{Document, Node};

use super::{Accepts, Format, PStateSpec, Partition, PartitionKind, PlatformError, PlatformFile};
use kairos_core::limits::{MAX_CLUSTERS, MAX_PSTATES};

/// One compute host as read.
#[derive(Clone, Debug, PartialEq)]
struct Host {
    name: String,
    line: u32,
    /// Flops per second of each P-state.
    speeds: Vec<f64>,
    /// (idle, one core, all cores) watts per P-state; empty without the property.
    watts: Vec<[f64; 3]>,
    off: Option<f64>,
    /// Indices of the sleep P-states and of the virtual switching ones.
    sleep: Vec<usize>,
    virtuals: Vec<usize>,
    initial: usize,
    cores: u32,
}

impl Host {
    /// Everything but the name and line: what makes two hosts alike.
    fn alike(&self, o: &Host) -> bool {
        self.speeds == o.speeds
            && self.watts == o.watts
            && self.off == o.off
            && self.sleep == o.sleep
            && self.virtuals == o.virtuals
            && self.initial == o.initial
            && self.cores == o.cores
    }
}

/// An error at `line` of `file`.
fn err(file: &str, line: u32, message: impl std::fmt::Display) -> PlatformError {
    PlatformError::Invalid(vec![format!("{file}:{line}: {message}")])
}

/// Parses the SimGrid platform `text` of `file`.
pub(super) fn parse(text: &str, file: &str) -> Result<PlatformFile, PlatformError> {
    // SimGrid platforms open with a DOCTYPE naming simgrid.dtd: allowed (roxmltree never
    // fetches it, and it declares no entities Batsim's files use).
    let options = roxmltree::ParsingOptions {
        allow_dtd: true,
        ..Default::default()
    };
    let doc = Document::parse_with_options(text.trim_start_matches('\u{feff}'), options).map_err(
        |e| PlatformError::Syntax {
            file: file.to_string(),
            message: format!("not well-formed XML: {e}"),
        },
    )?;
    let line_of = |n: Node<'_, '_>| doc.text_pos_at(n.range().start).row;
    let mut hosts = Vec::new();
    for n in doc.descendants().filter(|n| n.is_element()) {
        match n.tag_name().name() {
            "host" => {
                let id = attr(file, n, "id", line_of(n))?;
                if let Some(h) = host(file, n, id.to_string(), line_of(n), &doc)? {
                    hosts.push(h);
                }
            }
            "cluster" => {
                let line = line_of(n);
                let prefix = n.attribute("prefix").unwrap_or("");
                let suffix = n.attribute("suffix").unwrap_or("");
                let radical = attr(file, n, "radical", line)?;
                for i in radical_numbers(radical).map_err(|e| err(file, line, e))? {
                    let name = format!("{prefix}{i}{suffix}");
                    if let Some(h) = host(file, n, name, line, &doc)? {
                        hosts.push(h);
                    }
                }
            }
            _ => {}
        }
    }
    if hosts.is_empty() {
        return Err(err(
            file,
            1,
            "no compute host: a platform needs hosts beside the master host",
        ));
    }
    hosts.sort_by(|a, b| natural(&a.name, &b.name));
    let reference = first_computing_speed(&hosts[0]);
    let mut partitions: Vec<(Host, Vec<String>)> = Vec::new();
    for h in hosts {
        match partitions.last_mut() {
            Some((first, names)) if first.alike(&h) => names.push(h.name),
            _ => {
                let name = h.name.clone();
                partitions.push((h, vec![name]));
            }
        }
    }
    if partitions.len() > MAX_CLUSTERS {
        return Err(err(
            file,
            partitions[MAX_CLUSTERS].0.line,
            format_args!(
                "host {}: the compute hosts form {} runs of alike hosts in machine-id order; \
                 kairos schedules at most {MAX_CLUSTERS} partitions (give alike hosts \
                 consecutive names)",
                partitions[MAX_CLUSTERS].0.name,
                partitions.len()
            ),
        ));
    }
    let counts: Vec<usize> = partitions.iter().map(|(h, _)| computing(h).len()).collect();
    if let Some(i) = counts.iter().position(|&c| c != counts[0]) {
        let h = &partitions[i].0;
        return Err(err(
            file,
            h.line,
            format_args!(
                "host {}: speed has {} computation P-states, host {} has {}: every node of a \
                 platform offers the same number",
                h.name, counts[i], partitions[0].0.name, counts[0]
            ),
        ));
    }
    let out = partitions
        .into_iter()
        .map(|(h, names)| {
            let comp = computing(&h);
            let s0 = h.speeds[comp[0]];
            let watt = |p: usize| h.watts.get(p).map_or(0.0, |w| w[0]);
            let pstates = comp
                .iter()
                .map(|&p| PStateSpec {
                    time: s0 / h.speeds[p],
                    // A delay profile sleeps on its hosts: idle power (module comment).
                    busy_watts: watt(p),
                    idle_watts: watt(p),
                    power: if watt(comp[0]) > 0.0 {
                        watt(p) / watt(comp[0])
                    } else {
                        1.0
                    },
                })
                .collect();
            Partition {
                name: h.name.clone(),
                kind: PartitionKind::General,
                nodes: names.len() as u32,
                // Batsim allocates whole hosts: a resource is a host.
                cores_per_node: 1,
                speed: s0 / reference,
                pstates,
                sleep_watts: h.sleep.first().map(|&p| watt(p)),
                off_watts: h.off,
                accepts: Accepts::default(),
                hosts: names,
                idle_watts: watt(h.initial),
                pstate_ids: comp.iter().map(|&p| p as u32).collect(),
                initial_pstate: h.initial as u32,
            }
        })
        .collect();
    let name = std::path::Path::new(file)
        .file_stem()
        .map_or(file.to_string(), |s| s.to_string_lossy().into_owned());
    Ok(PlatformFile {
        file: file.to_string(),
        format: Format::Simgrid,
        name,
        partitions: out,
    })
}

/// The computation P-states of `h`: neither sleep nor virtual, in index order.
fn computing(h: &Host) -> Vec<usize> {
    (0..h.speeds.len())
        .filter(|p| !h.sleep.contains(p) && !h.virtuals.contains(p))
        .collect()
}

fn first_computing_speed(h: &Host) -> f64 {
    computing(h).first().map_or(1.0, |&p| h.speeds[p])
}

/// A required attribute.
fn attr<'a>(file: &str, n: Node<'a, '_>, name: &str, line: u32) -> Result<&'a str, PlatformError> {
    n.attribute(name).ok_or_else(|| {
        err(
            file,
            line,
            format_args!("<{}> has no `{name}` attribute", n.tag_name().name()),
        )
    })
}

/// The `<prop id=.. value=..>` children of `n`, with their lines.
fn props<'a>(n: Node<'a, '_>, doc: &Document<'_>) -> Vec<(&'a str, &'a str, u32)> {
    n.children()
        .filter(|c| c.is_element() && c.tag_name().name() == "prop")
        .filter_map(|c| {
            Some((
                c.attribute("id")?,
                c.attribute("value")?,
                doc.text_pos_at(c.range().start).row,
            ))
        })
        .collect()
}

/// The host `name` of element `n` (a `<host>`, or a `<cluster>` for each of its hosts);
/// `None` for the master host and storage hosts.
fn host(
    file: &str,
    n: Node<'_, '_>,
    name: String,
    line: u32,
    doc: &Document<'_>,
) -> Result<Option<Host>, PlatformError> {
    let props = props(n, doc);
    let prop = |id: &str| props.iter().find(|p| p.0 == id).map(|p| (p.1, p.2));
    let role = prop("role").map_or("", |r| r.0);
    let roles: Vec<&str> = role.split(',').map(str::trim).collect();
    if name == "master_host" || roles.contains(&"master") || roles.contains(&"storage") {
        return Ok(None);
    }
    let at = |l: u32, field: &str, m: std::fmt::Arguments<'_>| {
        err(file, l, format_args!("host {name}: {field}: {m}"))
    };
    let speed_text = attr(file, n, "speed", line)?;
    let speeds = speed_text
        .split(',')
        .map(|s| flops(s.trim()))
        .collect::<Result<Vec<f64>, String>>()
        .map_err(|e| at(line, "speed", format_args!("{e}")))?;
    let cores = match n.attribute("core") {
        None => 1,
        Some(c) => c
            .trim()
            .parse::<u32>()
            .ok()
            .filter(|&c| c >= 1)
            .ok_or_else(|| {
                at(
                    line,
                    "core",
                    format_args!("{c:?} is not a whole number at least 1"),
                )
            })?,
    };
    let initial = match n.attribute("pstate") {
        None => 0,
        Some(p) => p
            .trim()
            .parse::<usize>()
            .ok()
            .filter(|&p| p < speeds.len())
            .ok_or_else(|| {
                at(
                    line,
                    "pstate",
                    format_args!("{p:?} is not a P-state of its {} speeds", speeds.len()),
                )
            })?,
    };
    let watts_prop = prop("wattage_per_state").or_else(|| prop("watt_per_state"));
    let mut watts = Vec::new();
    if let Some((v, l)) = watts_prop {
        for (k, part) in v.split(',').enumerate() {
            let values = part
                .split(':')
                .map(|x| x.trim().parse::<f64>())
                .collect::<Result<Vec<f64>, _>>()
                .map_err(|_| {
                    at(
                        l,
                        "wattage_per_state",
                        format_args!("P-state {k}: {part:?} is not idle:one-core:all-cores watts"),
                    )
                })?;
            let w = match values[..] {
                [idle, one, all] => [idle, one, all],
                [idle, all] => [idle, all, all],
                _ => {
                    return Err(at(
                        l,
                        "wattage_per_state",
                        format_args!(
                            "P-state {k}: {part:?} has {} values; expected idle:one-core:all-cores \
                             (or idle:all-cores)",
                            values.len()
                        ),
                    ))
                }
            };
            if let Some(x) = w.iter().find(|x| !(x.is_finite() && **x >= 0.0)) {
                return Err(at(
                    l,
                    "wattage_per_state",
                    format_args!("P-state {k}: {x} W: watts must be a number at least 0"),
                ));
            }
            watts.push(w);
        }
        if watts.len() != speeds.len() {
            return Err(at(
                l,
                "wattage_per_state",
                format_args!(
                    "{} P-states of watts for the {} speeds of `speed` (one idle:one-core:all-cores \
                     entry per P-state)",
                    watts.len(),
                    speeds.len()
                ),
            ));
        }
    }
    let off = match prop("wattage_off").or_else(|| prop("watt_off")) {
        None => None,
        Some((v, l)) => match v.trim().parse::<f64>() {
            Ok(x) if x.is_finite() && x >= 0.0 => Some(x),
            _ => {
                return Err(at(
                    l,
                    "wattage_off",
                    format_args!("{v:?}: watts must be a number at least 0"),
                ))
            }
        },
    };
    let (mut sleep, mut virtuals) = (Vec::new(), Vec::new());
    if let Some((v, l)) = prop("sleep_pstates") {
        for triple in v.split(',').filter(|t| !t.trim().is_empty()) {
            let ids: Vec<usize> = triple
                .split(':')
                .map(|x| x.trim().parse::<usize>())
                .collect::<Result<_, _>>()
                .ok()
                .filter(|ids: &Vec<usize>| ids.len() == 3 && ids.iter().all(|&p| p < speeds.len()))
                .ok_or_else(|| {
                    at(
                        l,
                        "sleep_pstates",
                        format_args!(
                            "{triple:?}: expected sleep:switch-off:switch-on P-states among the {} \
                             of `speed`",
                            speeds.len()
                        ),
                    )
                })?;
            if sleep.contains(&ids[0]) || virtuals.contains(&ids[0]) {
                return Err(at(
                    l,
                    "sleep_pstates",
                    format_args!("P-state {} is named twice", ids[0]),
                ));
            }
            sleep.push(ids[0]);
            virtuals.extend_from_slice(&ids[1..]);
        }
    }
    let h = Host {
        name: name.clone(),
        line,
        speeds,
        watts,
        off,
        sleep,
        virtuals,
        initial,
        cores,
    };
    let comp = computing(&h);
    if comp.is_empty() || comp.len() > MAX_PSTATES {
        return Err(at(
            line,
            "speed",
            format_args!(
                "{} computation P-states: kairos schedules between 1 and {MAX_PSTATES}",
                comp.len()
            ),
        ));
    }
    if let Some(&p) = comp.iter().find(|&&p| h.speeds[p] <= 0.0) {
        return Err(at(
            line,
            "speed",
            format_args!("computation P-state {p} has no speed: it must be above 0 flops"),
        ));
    }
    if !comp.contains(&h.initial) {
        return Err(at(
            line,
            "pstate",
            format_args!(
                "{} is a sleep or switching P-state, not a computation one",
                h.initial
            ),
        ));
    }
    Ok(Some(h))
}

/// A SimGrid speed (`100Mf`, `1e-9Mf`, `0.5f`, `1Gf`, or a bare number of flops).
fn flops(s: &str) -> Result<f64, String> {
    let units = [
        ("Yf", 1e24),
        ("Zf", 1e21),
        ("Ef", 1e18),
        ("Pf", 1e15),
        ("Tf", 1e12),
        ("Gf", 1e9),
        ("Mf", 1e6),
        ("kf", 1e3),
        ("f", 1.0),
    ];
    let (num, scale) = units
        .iter()
        .find_map(|(u, k)| s.strip_suffix(u).map(|n| (n, *k)))
        .unwrap_or((s, 1.0));
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x * scale),
        _ => Err(format!("{s:?} is not a speed (e.g. 100Mf)")),
    }
}

/// The numbers of a cluster's `radical` (`0-99`, `1,3,5-7`).
fn radical_numbers(r: &str) -> Result<Vec<u64>, String> {
    let mut out = Vec::new();
    for part in r.split(',') {
        let part = part.trim();
        let bad = || format!("radical {r:?}: {part:?} is not a number or a range a-b");
        match part.split_once('-') {
            Some((a, b)) => {
                let a: u64 = a.trim().parse().map_err(|_| bad())?;
                let b: u64 = b.trim().parse().map_err(|_| bad())?;
                if b < a || b - a > 10_000_000 {
                    return Err(bad());
                }
                out.extend(a..=b);
            }
            None => out.push(part.parse().map_err(|_| bad())?),
        }
    }
    Ok(out)
}

/// Batsim's machine order: names compared chunk by chunk, runs of digits as numbers, then
/// as text when they are equal that way.
pub(super) fn natural(a: &str, b: &str) -> Ordering {
    fn chunks(s: &str) -> Vec<(bool, &str)> {
        let mut out = Vec::new();
        let mut start = 0;
        let bytes = s.as_bytes();
        for i in 1..=bytes.len() {
            if i == bytes.len() || bytes[i].is_ascii_digit() != bytes[start].is_ascii_digit() {
                out.push((bytes[start].is_ascii_digit(), &s[start..i]));
                start = i;
            }
        }
        out
    }
    let (ca, cb) = (chunks(a), chunks(b));
    for (x, y) in ca.iter().zip(&cb) {
        let o = match (x.0, y.0) {
            (true, true) => {
                let (tx, ty) = (x.1.trim_start_matches('0'), y.1.trim_start_matches('0'));
                tx.len().cmp(&ty.len()).then_with(|| tx.cmp(ty))
            }
            _ => x.1.cmp(y.1),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    ca.len().cmp(&cb.len()).then_with(|| a.cmp(b))
}
