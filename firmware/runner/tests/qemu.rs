//! Builds the firmware (release) in each variant, runs it under QEMU and checks the decoded log
//! and the exit status. Needs `qemu-system-arm` and the thumbv7em-none-eabihf target
//! (scripts/setup-firmware.sh). Run with `firmware/test.sh`.
//!
//! The comparison of the firmware's digests and totals with the host's `kairos digest`, and the
//! over-capacity scenario, are in host/tests/firmware_qemu.rs (run by `cargo test --workspace`,
//! where the host's replay is at hand).

use std::{
    path::{Path, PathBuf},
    process::{Command, Stdio},
    sync::Mutex,
    time::Duration,
};

use kairos_fw_run::{elf_size, run_elf, Options, Outcome};

/// Variants share one firmware target directory (and one ELF path): build and run one at a time.
static FIRMWARE: Mutex<()> = Mutex::new(());

fn firmware_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("runner/ is inside firmware/")
        .to_path_buf()
}

/// Builds the firmware in release with `features` and returns the ELF's path.
fn build(features: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    // Run from firmware/ so that firmware/.cargo/config.toml (target, DEFMT_LOG) applies.
    cmd.current_dir(firmware_dir())
        .args([
            "build",
            "--release",
            "--message-format=json-render-diagnostics",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    if !features.is_empty() {
        cmd.args(["--features", features]);
    }
    let out = cmd.output().expect("running cargo build for the firmware");
    assert!(out.status.success(), "firmware build failed ({features:?})");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "kairos-firmware")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported no kairos-firmware executable")
}

fn build_and_run(features: &str, icount: bool) -> Outcome {
    let _guard = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    let elf = build(features);
    let opts = Options {
        icount,
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let outcome = run_elf(&elf, &opts, |_| {}).expect("running the firmware under QEMU");
    for line in &outcome.lines {
        eprintln!("[{features}] {line}");
    }
    eprint!("{}", outcome.qemu_stderr);
    assert!(!outcome.timed_out, "QEMU timed out ({features:?})");
    assert_eq!(
        outcome.malformed_bytes, 0,
        "malformed defmt stream ({features:?})"
    );
    outcome
}

/// Whether `message` is `words` with each `#` a decimal number, e.g. `"event # decisions #"`.
fn has_shape(message: &str, shape: &str) -> bool {
    let (got, want): (Vec<_>, Vec<_>) = (message.split(' ').collect(), shape.split(' ').collect());
    got.len() == want.len()
        && got.iter().zip(&want).all(|(g, w)| match *w {
            "#" => !g.is_empty() && g.bytes().all(|b| b.is_ascii_digit()),
            _ => g == w,
        })
}

fn is_digest(message: &str) -> bool {
    message.strip_prefix("digest ").is_some_and(|h| {
        h.len() == 16
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

#[test]
fn success_run_logs_events_totals_and_a_digest_and_exits_0() {
    let out = build_and_run("", false);
    assert_eq!(out.code, Some(0), "QEMU exit status");
    assert_eq!(out.messages("ERROR").count(), 0);

    let info: Vec<&str> = out.messages("INFO").collect();
    let events: Vec<&&str> = info.iter().filter(|m| m.starts_with("event ")).collect();
    assert!(!events.is_empty(), "no event lines");
    for m in &events {
        assert!(
            has_shape(m, "event # decisions # utility # energy_mj #"),
            "bad event line {m:?}"
        );
    }
    let n = info.len();
    assert!(n >= 2);
    assert!(
        has_shape(
            info[n - 2],
            "totals completed # dropped # unfinished # utility # energy_mj #"
        ),
        "bad totals line {:?}",
        info[n - 2]
    );
    assert!(
        is_digest(info[n - 1]),
        "last line is not `digest <16 hex>`: {:?}",
        info[n - 1]
    );
}

#[test]
fn icount_run_gives_the_same_log() {
    // The `systick` line counts ticks of a clock that follows wall time without -icount.
    let comparable = |o: &Outcome| -> Vec<String> {
        o.lines
            .iter()
            .filter(|l| !l.message.starts_with("systick "))
            .map(|l| l.to_string())
            .collect()
    };
    let plain = build_and_run("", false);
    let counted = build_and_run("", true);
    assert_eq!(counted.code, Some(0));
    assert_eq!(comparable(&plain), comparable(&counted));
}

#[test]
fn icount_measures_the_mapping_events() {
    let out = build_and_run("", true);
    let line = out
        .messages("INFO")
        .find(|m| m.starts_with("systick "))
        .expect("no systick line");
    assert!(
        has_shape(
            line,
            "systick mapping_events # ticks_in_mapping # max_event # ticks_total #"
        ),
        "{line:?}"
    );
    let n: Vec<u64> = line.split(' ').filter_map(|w| w.parse().ok()).collect();
    let (events, in_mapping, max, total) = (n[0], n[1], n[2], n[3]);
    assert_eq!(events, 480, "8 hours of mapping events every 60 s");
    assert!(
        in_mapping > 0 && max <= in_mapping && in_mapping <= total,
        "{line}"
    );
}

#[test]
fn truncated_scenario_logs_a_decode_error_and_exits_non_zero() {
    let out = build_and_run("scenario-truncated", false);
    assert_eq!(
        out.code,
        Some(1),
        "semihosting EXIT_FAILURE is QEMU status 1"
    );
    let errors: Vec<&str> = out.messages("ERROR").collect();
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("run failed: undecodable input at byte ")),
        "errors: {errors:?}"
    );
    assert!(
        !errors
            .iter()
            .any(|m| m.starts_with("hard fault") || m.starts_with("panic")),
        "errors: {errors:?}"
    );
    // The tasks decoded before the cut were replayed: some events were logged.
    assert!(out.messages("INFO").any(|m| m.starts_with("event ")));
    assert!(
        !out.lines.iter().any(|l| is_digest(&l.message)),
        "a failed run must not log a digest"
    );
}

#[test]
fn panic_logs_and_exits_non_zero_instead_of_hanging() {
    let out = build_and_run("panic-demo", false);
    assert_eq!(out.code, Some(1));
    let errors: Vec<&str> = out.messages("ERROR").collect();
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("panic at ") && m.contains("deliberate panic")),
        "errors: {errors:?}"
    );
}

#[test]
fn hard_fault_logs_and_exits_non_zero_instead_of_hanging() {
    let out = build_and_run("hardfault-demo", false);
    assert_eq!(out.code, Some(1));
    assert!(out
        .messages("ERROR")
        .any(|m| m.starts_with("hard fault: pc 0x")));
}

#[test]
fn image_fits_the_mps2_an386_memory() {
    let _guard = FIRMWARE.lock().unwrap_or_else(|e| e.into_inner());
    let size = elf_size(&std::fs::read(build("")).unwrap()).unwrap();
    eprintln!("text {} data {} bss {}", size.text, size.data, size.bss);
    assert!(size.text > 0);
    assert!(
        size.flash() <= 4 << 20,
        "flash use {} > 4 MiB",
        size.flash()
    );
    // The link already keeps memory.x's _stack_reserve (192 KiB) free for the stack.
    assert!(
        size.ram() <= (4 << 20) - (192 << 10),
        "static RAM use {} too large",
        size.ram()
    );
}
