// Records rustc's and tokio's versions for `describe` ("version").
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let rv = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "rustc (unknown)".into());
    // tokio's version as locked in Cargo.lock
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into());
    let lock = std::fs::read_to_string(format!("{}/Cargo.lock", dir)).unwrap_or_default();
    let mut tv = String::from("unknown");
    let mut it = lock.lines();
    while let Some(l) = it.next() {
        if l.trim() == "name = \"tokio\"" {
            if let Some(v) = it.next().and_then(|v| v.trim().strip_prefix("version = ")) {
                tv = v.trim_matches('"').to_string();
            }
            break;
        }
    }
    println!("cargo:rustc-env=RB_VERSION=tokio {} ({})", tv, rv);
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=Cargo.lock");
}
