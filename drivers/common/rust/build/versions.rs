// The build script of every Rust driver (`build = "../common/rust/build/versions.rs"`):
// records, for `describe`'s "version", the compiler's version (RB_RUSTC_VERSION) and the
// version of every crate the driver's Cargo.lock pins (RB_LOCKED: "name version;...",
// read with ringbench_common::locked_version).
use std::fmt::Write as _;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let v = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (unknown)".into());
    println!("cargo:rustc-env=RB_RUSTC_VERSION={}", v);

    // Cargo.lock is TOML: a `[[package]]` table per crate, its keys in any order.
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lock = std::fs::read_to_string(format!("{}/Cargo.lock", dir)).unwrap_or_default();
    let mut locked = String::new();
    for table in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            table.lines().find_map(|l| {
                let (k, v) = l.split_once('=')?;
                (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
            })
        };
        if let (Some(name), Some(version)) = (field("name"), field("version")) {
            let _ = write!(locked, "{}{} {}", if locked.is_empty() { "" } else { ";" }, name, version);
        }
    }
    println!("cargo:rustc-env=RB_LOCKED={}", locked);
    println!("cargo:rerun-if-changed=Cargo.lock");
}
