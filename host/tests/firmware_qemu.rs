//! The firmware under QEMU against the host: builds the Cortex-M4F image for each reference
//! scenario, runs it in QEMU (mps2-an386) through the firmware's runner (firmware/run.sh,
//! which decodes the defmt log with the ELF's table), and checks that
//!
//! - `ph` (Max UPR, place-holders, per-resource filter) and `upe` (Max UPE, permanent
//!   reservations, adaptive filter) log the same event lines, totals and digest as the host's
//!   replay of the same bytes (`kairos digest`), and exit 0;
//! - `overcap` (more tasks than the image's task table) logs a capacity error and exits 1,
//!   without a panic or a hard fault.
//!
//! It installs what it needs if missing (scripts/setup-firmware.sh: the thumbv7em-none-eabihf
//! target and qemu-system-arm). The firmware builds in its own workspace, into
//! `$CARGO_TARGET_DIR` when that is set (as firmware/test.sh does, so the images test.sh built
//! are reused and nothing is left in the source tree), else into firmware/target. Its thumb
//! and release directories are not this test's host debug directory, so the nested cargo
//! never waits on this test's build lock.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, Once};

use kairos_host::firmware_scenarios;

/// The image variants share one target directory and ELF path: build and run one at a time.
static FIRMWARE: Mutex<()> = Mutex::new(());
static SETUP: Once = Once::new();

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("host/ is inside the project")
        .to_path_buf()
}

/// The target directory for the firmware's cargo: `CARGO_TARGET_DIR` (`var`) made absolute
/// against the project root (the nested cargo runs from firmware/, and run.sh's from the
/// runner's directory), or `None` for the firmware workspace's own firmware/target.
fn firmware_target_dir(var: Option<OsString>, root: &Path) -> Option<PathBuf> {
    let dir = PathBuf::from(var.filter(|v| !v.is_empty())?);
    Some(if dir.is_absolute() {
        dir
    } else {
        root.join(dir)
    })
}

#[test]
fn the_firmware_builds_in_cargo_target_dir_when_set() {
    let root = Path::new("/p");
    assert_eq!(firmware_target_dir(None, root), None);
    assert_eq!(firmware_target_dir(Some("".into()), root), None);
    assert_eq!(
        firmware_target_dir(Some("/t/x".into()), root),
        Some(PathBuf::from("/t/x"))
    );
    assert_eq!(
        firmware_target_dir(Some("build/t".into()), root),
        Some(PathBuf::from("/p/build/t"))
    );
}

fn succeeds(cmd: &mut Command) -> bool {
    cmd.output().is_ok_and(|o| o.status.success())
}

/// Runs scripts/setup-firmware.sh unless QEMU and the thumb target are both there.
fn ensure_setup() {
    SETUP.call_once(|| {
        let qemu = succeeds(Command::new("qemu-system-arm").arg("--version"));
        let target = Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .is_ok_and(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .any(|l| l.trim() == "thumbv7em-none-eabihf")
            });
        if qemu && target {
            return;
        }
        let script = root().join("scripts").join("setup-firmware.sh");
        let out = Command::new("bash")
            .arg(&script)
            .output()
            .expect("running scripts/setup-firmware.sh");
        assert!(
            out.status.success(),
            "scripts/setup-firmware.sh failed:\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    });
}

/// A firmware run: its decoded log as `LEVEL message` lines, and QEMU's exit code.
struct FwRun {
    lines: Vec<String>,
    code: Option<i32>,
    stderr: String,
}

impl FwRun {
    fn messages<'a>(&'a self, level: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.lines
            .iter()
            .filter_map(move |l| l.strip_prefix(level)?.strip_prefix(' '))
    }
}

/// Builds the image with `features` (release) and runs it under QEMU: `cargo run --release`
/// in firmware/, whose cargo runner (run.sh) runs QEMU and prints the decoded log.
fn run_firmware(features: &str) -> FwRun {
    ensure_setup();
    let _guard = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // firmware/.cargo/config.toml (target, runner, DEFMT_LOG) applies from firmware/; an
    // inherited target triple would override it. The target directory is kept (absolute, so
    // that run.sh's build of the runner lands there too).
    cmd.current_dir(root().join("firmware"))
        .args(["run", "--release", "-q"])
        .env_remove("CARGO_BUILD_TARGET");
    match firmware_target_dir(std::env::var_os("CARGO_TARGET_DIR"), &root()) {
        Some(dir) => cmd.env("CARGO_TARGET_DIR", dir),
        None => cmd.env_remove("CARGO_TARGET_DIR"),
    };
    if !features.is_empty() {
        cmd.args(["--features", features]);
    }
    let out = cmd.output().expect("running cargo run for the firmware");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let run = FwRun {
        lines: stdout.lines().map(str::to_owned).collect(),
        code: out.status.code(),
        stderr,
    };
    for l in run.lines.iter().filter(|l| !l.starts_with("INFO event ")) {
        eprintln!("[{features}] {l}");
    }
    eprint!("{}", run.stderr);
    run
}

/// The firmware's run of scenario `name` (built with `features`) equals the host's.
fn firmware_matches_host(name: &str, features: &str) {
    let bytes =
        std::fs::read(firmware_scenarios::scenario_dir().join(format!("{name}.bin"))).unwrap();
    let host = firmware_scenarios::run(&bytes).unwrap();
    let fw = run_firmware(features);
    assert_eq!(
        fw.code,
        Some(0),
        "{name}: firmware exit status; stderr:\n{}",
        fw.stderr
    );
    assert_eq!(fw.messages("ERROR").count(), 0, "{name}");
    let info: Vec<&str> = fw.messages("INFO").collect();
    assert!(
        info.iter()
            .any(|m| m.contains(&format!("scenario {name} ({} bytes)", bytes.len()))),
        "{name}: the image does not embed the {} bytes of {name}.bin",
        bytes.len()
    );

    // Every mapping event, in order.
    let fw_events: Vec<&str> = info
        .iter()
        .copied()
        .filter(|m| m.starts_with("event "))
        .collect();
    let host_events: Vec<String> = host.events.iter().map(|e| e.to_string()).collect();
    assert_eq!(fw_events.len(), host_events.len(), "{name}: event count");
    if let Some(i) = (0..fw_events.len()).find(|&i| fw_events[i] != host_events[i]) {
        panic!(
            "{name}: first different event line:\n  firmware: {}\n  host:     {}",
            fw_events[i], host_events[i]
        );
    }

    // The closing lines: totals, then the digest.
    let n = info.len();
    assert!(n >= 2, "{name}: log too short");
    assert_eq!(
        info[n - 2],
        firmware_scenarios::totals_line(&host.report),
        "{name}: totals"
    );
    assert_eq!(
        info[n - 1],
        firmware_scenarios::digest_line(&host.report),
        "{name}: digest"
    );
}

#[test]
fn ph_firmware_digest_and_totals_equal_the_hosts() {
    firmware_matches_host("ph", "");
}

#[test]
fn upe_firmware_digest_and_totals_equal_the_hosts() {
    firmware_matches_host("upe", "scenario-upe");
}

#[test]
fn overcap_scenario_fails_cleanly_on_the_firmware() {
    // The host sizes its storage to the scenario and runs it to the end.
    let bytes = std::fs::read(firmware_scenarios::scenario_dir().join("overcap.bin")).unwrap();
    let host = firmware_scenarios::run(&bytes).unwrap();
    assert_eq!(host.report.arrived, firmware_scenarios::OVERCAP_TASKS);

    let fw = run_firmware("scenario-overcap");
    assert_eq!(
        fw.code,
        Some(1),
        "semihosting EXIT_FAILURE is QEMU status 1; stderr:\n{}",
        fw.stderr
    );
    let errors: Vec<&str> = fw.messages("ERROR").collect();
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("run failed: capacity exceeded: Tasks holds at most ")),
        "errors: {errors:?}"
    );
    assert!(
        !errors
            .iter()
            .any(|m| m.starts_with("hard fault") || m.starts_with("panic")),
        "a capacity error must not fault or panic: {errors:?}"
    );
    assert!(
        !fw.lines.iter().any(|l| l.starts_with("INFO digest ")),
        "a failed run must not log a digest"
    );
    // Up to the failure, the firmware decided as the host did.
    let fw_events: Vec<&str> = fw
        .messages("INFO")
        .filter(|m| m.starts_with("event "))
        .collect();
    assert!(!fw_events.is_empty());
    for (f, h) in fw_events.iter().zip(&host.events) {
        assert_eq!(*f, h.to_string());
    }
}
