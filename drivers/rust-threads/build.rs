// Records the compiler's version for `describe` ("version": the runtime's own idea of it).
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
    println!("cargo:rerun-if-changed=build.rs");
}
