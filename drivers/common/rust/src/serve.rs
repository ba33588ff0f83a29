//! The verbs, the `--variant=` option, the iteration loop and the `stats` records: everything
//! between `main` and a driver's workloads. A driver describes itself (`Spec`), implements
//! `Driver` (its workloads) and calls `serve`.

use crate::out::{die, fail, install_panic_hook, Fail, Kind, Rec};
use crate::params::{parse_args, Command, Params, Workload};
use crate::report::{emit_result, Out, CLOCK};
use crate::sys::{rusage, status_field};
use std::time::{Duration, Instant};

/// What a driver is, for `describe` and for the requests the crate answers for it.
pub struct Spec {
    /// the folder's name
    pub name: &'static str,
    /// `--variant=` names, the first the default; empty: a driver with one way of running
    pub variants: &'static [&'static str],
    /// variants that run the `tuned` cargo profile's build (`target/tuned/`, built by
    /// `cargo build --profile tuned`): the release binary hands such a run over to it
    pub tuned_build: &'static [&'static str],
    pub workloads: &'static [Workload],
    /// why a workload of the contract is not offered (`unsupported`)
    pub unsupported: &'static [(Workload, &'static str)],
    /// `tokens`, `continuous`, `stats` (contract section 4)
    pub features: &'static [&'static str],
    /// the collector by the runtime's own name ("" without one)
    pub collector: &'static str,
    /// one OS thread per process: results carry threads_before/threads_after
    pub os_threads: bool,
}

/// A driver's workloads. `iteration` builds the processes afresh each time and returns what
/// it measured; the crate checks the count and the gate's arrivals and prints the records.
pub trait Driver {
    /// `describe`'s runtime: what runs, in a few words
    fn runtime(&self) -> String;
    /// the runtime's own idea of its version
    fn version(&self) -> String;
    /// Once, before the first iteration or continuous mode: limits checked, a runtime built.
    fn prepare(&mut self, _p: &Params) -> Result<(), Fail> {
        Ok(())
    }
    /// One iteration of `p.workload` (one of `Spec::workloads`); `warmup`: not printed
    /// (trace prints no hops then).
    fn iteration(&mut self, p: &Params, warmup: bool) -> Result<Out, Fail>;
    /// Continuous mode (section 5): start the ring, inject the tokens, print the samples
    /// (`Samples`) and return; the crate then exits without tear-down.
    fn continuous(&mut self, p: &Params) -> Result<(), Fail>;
    /// What the runtime tells cheaply, added to the crate's `stats` record.
    fn stats(&self, rec: Rec) -> Rec {
        rec
    }
}

/// The driver's `main`: `[--variant=<name>] describe | run <workload> key=value ...`.
/// `make` gets the variant and returns the driver (cheaply: `prepare` does the work).
pub fn serve<D: Driver>(spec: &Spec, make: impl FnOnce(&'static str) -> D) -> ! {
    install_panic_hook();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (variant, verb) = match parse_variant(spec, &args) {
        Ok(v) => v,
        Err(f) => die(&f),
    };
    if spec.tuned_build.contains(&variant) && build_profile() != "tuned" {
        run_tuned_build(&args);
    }
    let r = match parse_args(verb) {
        Ok(Command::Describe) => {
            describe(spec, variant, &make(variant));
            Ok(())
        }
        Ok(Command::Run(p)) => run(spec, make(variant), p),
        Err(f) => Err(f),
    };
    match r {
        Ok(()) => std::process::exit(0),
        Err(f) => die(&f),
    }
}

/// The options before the verb: `--variant=<name>` and nothing else.
fn parse_variant<'a>(spec: &Spec, args: &'a [String]) -> Result<(&'static str, &'a [String]), Fail> {
    let mut variant = spec.variants.first().copied().unwrap_or("");
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.starts_with("--")) {
        let known = || spec.variants.iter().map(|v| format!("--variant={}", v)).collect::<Vec<_>>().join(", ");
        match a.strip_prefix("--variant=").and_then(|v| spec.variants.iter().find(|k| **k == v)) {
            Some(v) => variant = v,
            None if spec.variants.is_empty() => {
                return fail(Kind::BadParam, format!("unknown option '{}' (this driver takes none)", a))
            }
            None => return fail(Kind::BadParam, format!("unknown option '{}' (known: {})", a, known())),
        }
        i += 1;
    }
    Ok((variant, &args[i..]))
}

/// "tuned" when this binary is the `tuned` cargo profile's build (target/tuned/), else "release".
pub fn build_profile() -> &'static str {
    let exe = std::env::current_exe().ok();
    match exe.as_ref().and_then(|e| e.parent()?.file_name()?.to_str()) {
        Some("tuned") => "tuned",
        _ => "release",
    }
}

/// Replace this process by the tuned build of the same program (same pid, same arguments).
fn run_tuned_build(args: &[String]) -> ! {
    use std::os::unix::process::CommandExt;
    let exe = std::env::current_exe().unwrap_or_default();
    let tuned = match (exe.parent().and_then(|d| d.parent()), exe.file_name()) {
        (Some(target), Some(name)) => target.join("tuned").join(name),
        _ => die(&Fail { kind: Kind::Failure, message: "cannot locate this program's tuned build".into() }),
    };
    let e = std::process::Command::new(&tuned).args(args).exec();
    die(&Fail {
        kind: Kind::Failure,
        message: format!(
            "the tuned variants run the tuned build {} ({}); build it with `cargo build --profile tuned`",
            tuned.display(),
            e
        ),
    })
}

fn describe<D: Driver>(spec: &Spec, variant: &str, d: &D) {
    let workloads: Vec<&str> = spec.workloads.iter().map(|w| w.name()).collect();
    Rec::new("describe")
        .int("contract", 4)
        .str("name", spec.name)
        .str("runtime", &d.runtime())
        .str("version", &d.version())
        .strs("workloads", &workloads)
        .strs("features", spec.features)
        .str("variant", variant)
        .str("clock", CLOCK)
        .str("collector", spec.collector)
        .emit();
}

fn run<D: Driver>(spec: &Spec, mut d: D, p: Params) -> Result<(), Fail> {
    if !spec.workloads.contains(&p.workload) {
        let why = spec.unsupported.iter().find(|(w, _)| *w == p.workload).map_or("not offered", |x| x.1);
        return fail(Kind::Unsupported, format!("{}: {}", p.workload.name(), why));
    }
    for (on, feature) in [(p.continuous(), "continuous"), (p.tokens > 1, "tokens"), (p.stats, "stats")] {
        if on && !spec.features.contains(&feature) {
            return fail(Kind::Unsupported, format!("{}: this driver does not offer {}", p.workload.name(), feature));
        }
    }
    d.prepare(&p)?;
    if p.continuous() {
        return d.continuous(&p);
    }
    for it in 0..(p.warmup + p.repeats) {
        let warmup = it < p.warmup;
        let ru0 = rusage();
        let out = d.iteration(&p, warmup)?;
        check(&p, &out)?;
        if warmup {
            continue;
        }
        let iteration = it - p.warmup + 1;
        emit_result(&p, iteration, &out, spec.os_threads);
        if p.stats {
            let ru1 = rusage();
            let rec = Rec::new("stats")
                .str("workload", p.workload.name())
                .int("iteration", iteration)
                .int("minor_faults", ru1.ru_minflt - ru0.ru_minflt)
                .int("os_threads", status_field("Threads:").unwrap_or(0))
                .int("peak_rss_bytes", status_field("VmHWM:").unwrap_or(0) * 1024);
            d.stats(rec).emit();
        }
    }
    Ok(())
}

/// The count the processes proved, and the gate's arrivals the spawn phase ended with.
fn check(p: &Params, out: &Out) -> Result<(), Fail> {
    if out.count != p.expected_count() {
        return fail(
            Kind::Failure,
            format!("{}: count mismatch: {} counted, {} expected", p.workload.name(), out.count, p.expected_count()),
        );
    }
    match p.expected_ready() {
        Some(r) if out.ready != r => fail(
            Kind::Failure,
            format!("{}: the spawn phase ended with {} gate arrivals, {} expected", p.workload.name(), out.ready, r),
        ),
        _ => Ok(()),
    }
}

/// Continuous mode's samples (section 5): made just before the first token is injected; the
/// driver sleeps its own way until each `next_deadline` and then `emit`s the laps counted.
pub struct Samples {
    t0: Instant,
    every: Duration,
    samples: u64,
    n: u64,
    seq: u64,
}

impl Samples {
    pub fn start(p: &Params) -> Samples {
        Samples { t0: Instant::now(), every: Duration::from_millis(p.sample_ms), samples: p.samples, n: p.n, seq: 1 }
    }
    /// When the next sample is due; None after the last.
    pub fn next_deadline(&self) -> Option<Instant> {
        (self.seq <= self.samples).then(|| self.t0 + self.every * self.seq as u32)
    }
    /// Print the sample: `laps` completed laps of p0, as hops.
    pub fn emit(&mut self, laps: u64) {
        let elapsed = self.t0.elapsed().as_nanos() as u64;
        Rec::new("sample").int("seq", self.seq).int("elapsed_ns", elapsed).int("count", laps * self.n).emit();
        self.seq += 1;
    }
}

/// The version of a crate as locked in Cargo.lock, from the `RB_LOCKED` list the shared
/// build script (build/versions.rs) records: "name version;name version;...".
pub fn locked_version<'a>(locked: &'a str, name: &str) -> Option<&'a str> {
    locked.split(';').find_map(|e| e.strip_prefix(name)?.strip_prefix(' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: Spec = Spec {
        name: "x",
        variants: &["stock", "handoff"],
        tuned_build: &[],
        workloads: &[Workload::Ring],
        unsupported: &[],
        features: &[],
        collector: "",
        os_threads: false,
    };

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_variant_option() {
        let a = args(&["describe"]);
        assert_eq!(parse_variant(&SPEC, &a).unwrap().0, "stock");
        let a = args(&["--variant=handoff", "run", "ring"]);
        let (v, rest) = parse_variant(&SPEC, &a).unwrap();
        assert_eq!((v, rest.len()), ("handoff", 2));
        for bad in ["--variant=nope", "--variant=", "--flavor=stock", "--variant"] {
            let a = args(&[bad, "describe"]);
            assert_eq!(parse_variant(&SPEC, &a).err().map(|f| f.kind), Some(Kind::BadParam), "{}", bad);
        }
        let none = Spec { variants: &[], ..SPEC };
        let a = args(&["--variant=stock", "describe"]);
        assert_eq!(parse_variant(&none, &a).err().map(|f| f.kind), Some(Kind::BadParam));
        assert_eq!(parse_variant(&none, &args(&["describe"])).unwrap().0, "");
    }

    #[test]
    fn locked_versions() {
        let l = "libc 0.2.191;tokio 1.54.1;tokio-macros 2.5.0";
        assert_eq!(locked_version(l, "tokio"), Some("1.54.1"));
        assert_eq!(locked_version(l, "tokio-macros"), Some("2.5.0"));
        assert_eq!(locked_version(l, "serde"), None);
    }

    #[test]
    fn counts_and_ready_are_checked() {
        let p = crate::params::parse_run(&args(&["ring", "n=10", "m=3", "tokens=2"])).unwrap();
        assert!(check(&p, &Out { count: 60, ready: 10, ..Default::default() }).is_ok());
        assert!(check(&p, &Out { count: 59, ready: 10, ..Default::default() }).is_err());
        assert!(check(&p, &Out { count: 60, ready: 9, ..Default::default() }).is_err());
        let t = crate::params::parse_run(&args(&["tree", "n=100"])).unwrap();
        assert!(check(&t, &Out { count: 4950, ..Default::default() }).is_ok());
    }
}
