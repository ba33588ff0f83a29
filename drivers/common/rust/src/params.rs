//! `describe` | `run <workload> key=value ...`, with the bounds of the contract's section 6.
//! The orchestrator checks the same bounds before launch; the driver checks them again
//! because it must not trust its caller.

use crate::out::{fail, Fail, Kind};

/// Every workload of the contract, in its order (section 3).
pub const WORKLOADS: &[&str] = &["ring", "spawn", "pingpong", "fanin", "selective", "tree", "trace"];
const COMMON_KEYS: &[&str] = &["repeats", "warmup", "cores", "sample_ms", "samples", "stats"];

/// The workloads of the contract's section 3.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Workload {
    Ring,
    Spawn,
    Pingpong,
    Fanin,
    Selective,
    Tree,
    Trace,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Ring => "ring",
            Workload::Spawn => "spawn",
            Workload::Pingpong => "pingpong",
            Workload::Fanin => "fanin",
            Workload::Selective => "selective",
            Workload::Tree => "tree",
            Workload::Trace => "trace",
        }
    }
    pub fn from_name(s: &str) -> Option<Workload> {
        [
            Workload::Ring,
            Workload::Spawn,
            Workload::Pingpong,
            Workload::Fanin,
            Workload::Selective,
            Workload::Tree,
            Workload::Trace,
        ]
        .into_iter()
        .find(|w| w.name() == s)
    }
}

#[derive(Debug, Clone)]
pub struct Params {
    pub workload: Workload,
    pub n: u64,
    /// 0 only in continuous mode, where `m` is ignored and may be left out
    pub m: u64,
    pub tokens: u64,
    pub burst: bool,
    pub reverse: u64,
    /// tree: children of every inner process
    pub fanout: u64,
    pub repeats: u64,
    pub warmup: u64,
    pub cores: Option<u64>,
    pub sample_ms: u64,
    pub samples: u64,
    pub stats: bool,
}

impl Params {
    /// The workload's parameters before any key is read: every optional key at its default
    /// (sections 2 and 3), `n` and `m` 0. `parse_run` starts from it; a driver's tests build
    /// their parameters from it with `..`.
    pub fn defaults(workload: Workload) -> Params {
        Params {
            workload,
            n: 0,
            m: 0,
            tokens: 1,
            burst: false,
            reverse: 0,
            fanout: 10,
            repeats: 1,
            warmup: 0,
            cores: None,
            sample_ms: 0,
            samples: 3,
            stats: false,
        }
    }

    /// Where the main process injects token j (0-based) in the ring: spread evenly
    /// (p(j·n div tokens)) or, with `burst=1`, all at p0 back to back.
    pub fn injection_index(&self, j: u64) -> u64 {
        if self.burst {
            0
        } else {
            j * self.n / self.tokens
        }
    }

    /// The ascending process indices the main process needs a way into (p0 first): the
    /// injection points (distinct, as tokens <= n), or p0 alone with `burst=1`.
    pub fn entry_indices(&self) -> Vec<u64> {
        let k = if self.burst { 1 } else { self.tokens };
        (0..k).map(|j| self.injection_index(j)).collect()
    }

    /// Which of `entry_indices` token j (0-based) is injected at.
    pub fn entry_of(&self, j: u64) -> usize {
        if self.burst {
            0
        } else {
            j as usize
        }
    }

    /// Continuous mode (section 5): `ring` with `sample_ms` > 0.
    pub fn continuous(&self) -> bool {
        self.workload == Workload::Ring && self.sample_ms > 0
    }

    /// The count a correct iteration proves (section 3).
    pub fn expected_count(&self) -> u64 {
        match self.workload {
            Workload::Ring => self.n * self.m * self.tokens,
            Workload::Spawn => self.n,
            Workload::Pingpong => self.m,
            Workload::Fanin | Workload::Selective | Workload::Trace => self.n * self.m,
            Workload::Tree => self.n * (self.n - 1) / 2,
        }
    }

    /// The arrivals at the gate the spawn phase ends with (section 3); none for the tree.
    pub fn expected_ready(&self) -> Option<u64> {
        match self.workload {
            Workload::Pingpong => Some(2),
            Workload::Fanin => Some(self.n + 1),
            Workload::Tree => None,
            _ => Some(self.n),
        }
    }

    /// Processes the workload runs at once at most (the tree: leaves and inner processes).
    pub fn processes(&self) -> u64 {
        match self.workload {
            Workload::Pingpong => 2,
            Workload::Fanin => self.n + 1,
            Workload::Tree => crate::tree::processes(self.n, self.fanout),
            _ => self.n,
        }
    }
}

pub enum Command {
    Describe,
    Run(Params),
}

/// The verb and its arguments (the driver's own `--options` already removed).
pub fn parse_args(args: &[String]) -> Result<Command, Fail> {
    const USAGE: &str = "usage: describe | run <workload> key=value ...";
    match args.first().map(String::as_str) {
        Some("describe") if args.len() == 1 => Ok(Command::Describe),
        Some("describe") => fail(Kind::BadParam, "describe takes no arguments"),
        Some("run") => parse_run(&args[1..]).map(Command::Run),
        Some(v) => fail(Kind::BadParam, format!("unknown verb '{}' ({})", v, USAGE)),
        None => fail(Kind::BadParam, format!("no verb given ({})", USAGE)),
    }
}

/// (allowed workload keys, required keys)
fn workload_keys(w: &str) -> (&'static [&'static str], &'static [&'static str]) {
    match w {
        "ring" => (&["n", "m", "tokens", "burst"], &["n", "m"]),
        "spawn" => (&["n"], &["n"]),
        "pingpong" => (&["m"], &["m"]),
        "fanin" => (&["n", "m"], &["n", "m"]),
        "selective" => (&["n", "m", "reverse"], &["n", "m"]),
        "tree" => (&["n", "fanout"], &["n"]),
        "trace" => (&["n", "m"], &["n", "m"]),
        _ => (&[], &[]),
    }
}

/// Inclusive bounds (contract section 6). `tokens` is further bounded by n.
fn bounds(w: &str, key: &str) -> (u64, u64) {
    let trace = w == "trace";
    match key {
        "n" | "m" if trace => (1, 100),
        "n" => (1, 100_000_000),
        "m" => (1, 1_000_000_000),
        "tokens" => (1, 100_000_000),
        "burst" | "reverse" | "stats" => (0, 1),
        "fanout" => (2, 1_000),
        "repeats" => (1, 1_000_000),
        "warmup" => (0, 1_000_000),
        "cores" => (1, 1_024),
        "sample_ms" => (0, 86_400_000),
        "samples" => (1, 1_000_000),
        _ => (0, 0),
    }
}

/// ASCII digits only: no sign, no blanks, not empty.
fn parse_int(key: &str, raw: &str, lo: u64, hi: u64) -> Result<u64, Fail> {
    let bad = || fail(Kind::BadParam, format!("{} must be an integer from {} to {}, got '{}'", key, lo, hi, raw));
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return bad();
    }
    // Longer than 20 significant digits overflows u64 and is past every bound.
    let digits = raw.trim_start_matches('0');
    if digits.len() > 20 {
        return bad();
    }
    let v: u64 = if digits.is_empty() {
        0
    } else {
        match digits.parse() {
            Ok(v) => v,
            Err(_) => return bad(),
        }
    };
    if v < lo || v > hi {
        return bad();
    }
    Ok(v)
}

/// Parse `<workload> key=value...` (everything after `run`).
pub fn parse_run(args: &[String]) -> Result<Params, Fail> {
    let Some(workload) = args.first() else {
        return fail(
            Kind::BadParam,
            format!("usage: run <workload> key=value ...; workloads: {}", WORKLOADS.join(", ")),
        );
    };
    let Some(wl) = Workload::from_name(workload) else {
        return fail(
            Kind::UnknownWorkload,
            format!("unknown workload '{}' (known: {})", workload, WORKLOADS.join(", ")),
        );
    };
    let w = workload.as_str();
    let (wkeys, required) = workload_keys(w);
    let mut p = Params::defaults(wl);
    let mut seen: Vec<&str> = Vec::new();
    for a in &args[1..] {
        let Some((k, v)) = a.split_once('=') else {
            return fail(Kind::BadParam, format!("argument '{}' is not key=value", a));
        };
        if !wkeys.contains(&k) && !COMMON_KEYS.contains(&k) {
            let mut allowed: Vec<&str> = wkeys.to_vec();
            allowed.extend_from_slice(COMMON_KEYS);
            return fail(
                Kind::BadParam,
                format!("unknown key '{}' for workload {} (allowed: {})", k, w, allowed.join(", ")),
            );
        }
        if seen.contains(&k) {
            return fail(Kind::BadParam, format!("key {} given more than once", k));
        }
        seen.push(k);
        let (lo, hi) = bounds(w, k);
        let x = parse_int(k, v, lo, hi)?;
        match k {
            "n" => p.n = x,
            "m" => p.m = x,
            "tokens" => p.tokens = x,
            "burst" => p.burst = x == 1,
            "reverse" => p.reverse = x,
            "fanout" => p.fanout = x,
            "repeats" => p.repeats = x,
            "warmup" => p.warmup = x,
            "cores" => p.cores = Some(x),
            "sample_ms" => p.sample_ms = x,
            "samples" => p.samples = x,
            "stats" => p.stats = x == 1,
            _ => unreachable!(),
        }
    }
    let continuous = w == "ring" && p.sample_ms > 0;
    for r in required {
        if continuous && *r == "m" {
            continue;
        }
        if !seen.contains(r) {
            return fail(Kind::BadParam, format!("missing required key {} for workload {}", r, w));
        }
    }
    if p.sample_ms > 0 && w != "ring" {
        return fail(Kind::Unsupported, format!("continuous mode (sample_ms>0) is defined for ring only, not {}", w));
    }
    if w == "ring" {
        if p.tokens > p.n {
            return fail(
                Kind::BadParam,
                format!("tokens must be an integer from 1 to n (n={}), got '{}'", p.n, p.tokens),
            );
        }
        if (p.n as u128) * (p.m.max(1) as u128) * (p.tokens as u128) >= (1u128 << 62) {
            return fail(Kind::BadParam, "n*m*tokens must be < 2^62");
        }
    }
    if (w == "fanin" || w == "selective") && (p.n as u128) * (p.m as u128) >= (1u128 << 62) {
        return fail(Kind::BadParam, "n*m must be < 2^62");
    }
    if w == "tree" && !crate::tree::is_power(p.n, p.fanout) {
        return fail(
            Kind::BadParam,
            format!("tree's n (leaves) must be a power of the fanout {}, got '{}'", p.fanout, p.n),
        );
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(a: &[&str]) -> Result<Params, Fail> {
        parse_run(&a.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }
    fn kind(a: &[&str]) -> Kind {
        run(a).err().map(|f| f.kind).expect("should fail")
    }

    #[test]
    fn bounds_and_one_past() {
        for (k, lo, hi) in [
            ("cores", 1u64, 1_024u64),
            ("samples", 1, 1_000_000),
            ("sample_ms", 0, 86_400_000),
            ("repeats", 1, 1_000_000),
            ("warmup", 0, 1_000_000),
        ] {
            for (v, ok) in [(lo, true), (hi, true), (hi + 1, false)] {
                let a = format!("{}={}", k, v);
                assert_eq!(run(&["ring", "n=3", "m=1", &a]).is_ok(), ok, "{}", a);
            }
            if lo > 0 {
                let a = format!("{}={}", k, lo - 1);
                assert_eq!(kind(&["ring", "n=3", "m=1", &a]), Kind::BadParam, "{}", a);
            }
        }
        assert!(run(&["ring", "n=100000000", "m=1"]).is_ok());
        assert_eq!(kind(&["ring", "n=100000001", "m=1"]), Kind::BadParam);
        assert_eq!(kind(&["ring", "n=3", "m=1000000001"]), Kind::BadParam);
        assert_eq!(kind(&["ring", "n=3", "m=1", "tokens=4"]), Kind::BadParam);
        assert_eq!(kind(&["ring", "n=3", "m=1", "burst=2"]), Kind::BadParam);
        assert_eq!(kind(&["trace", "n=101", "m=1"]), Kind::BadParam);
    }

    #[test]
    fn malformed() {
        for a in ["n=+3", "n=-3", "n=", "n", "n= 3", "n=3 ", "n=0x3", "n=1.5", "=3"] {
            assert_eq!(kind(&["ring", a, "m=1"]), Kind::BadParam, "{}", a);
        }
        assert_eq!(kind(&["ring", "n=3", "m=1", "n=3"]), Kind::BadParam);
        assert_eq!(kind(&["ring", "n=3", "m=1", "warmup=-0"]), Kind::BadParam);
        assert_eq!(kind(&["ring", "n=3", "m=1", "warmup=99999999999999999999999"]), Kind::BadParam);
        assert_eq!(kind(&["nope", "n=3"]), Kind::UnknownWorkload);
    }

    #[test]
    fn continuous_mode_needs_no_m() {
        let p = run(&["ring", "n=3", "sample_ms=10"]).unwrap();
        assert_eq!(p.m, 0);
        assert_eq!(kind(&["ring", "n=3"]), Kind::BadParam);
        assert_eq!(kind(&["spawn", "n=3", "sample_ms=10"]), Kind::Unsupported);
    }

    #[test]
    fn tree_sizes_are_powers_of_the_fanout() {
        for (n, f) in [(1, 10), (10, 10), (1_000_000, 10), (1, 2), (1024, 2), (27, 3), (1000, 1000)] {
            let (a, b) = (format!("n={}", n), format!("fanout={}", f));
            let p = run(&["tree", &a, &b]).unwrap_or_else(|e| panic!("{} {}: {:?}", a, b, e));
            assert_eq!((p.n, p.fanout), (n, f));
        }
        assert_eq!(run(&["tree", "n=100"]).unwrap().fanout, 10);
        for a in [
            ["n=12", "fanout=10"],
            ["n=10", "fanout=1"],
            ["n=1", "fanout=1001"],
            ["n=8", "fanout=3"],
            ["n=0", "fanout=10"],
        ] {
            assert_eq!(kind(&["tree", a[0], a[1]]), Kind::BadParam, "{:?}", a);
        }
        assert_eq!(kind(&["tree", "n=100", "m=1"]), Kind::BadParam);
        // the largest power of 10 within n's bound, and one power past it
        assert!(run(&["tree", "n=100000000"]).is_ok());
        assert_eq!(kind(&["tree", "n=1000000000"]), Kind::BadParam);
        let p = run(&["tree", "n=1000"]).unwrap();
        assert_eq!((p.expected_count(), p.processes(), p.expected_ready()), (499_500, 1111, None));
    }

    #[test]
    fn injection() {
        let p = run(&["ring", "n=10", "m=1", "tokens=4"]).unwrap();
        assert_eq!((0..4).map(|j| p.injection_index(j)).collect::<Vec<_>>(), vec![0, 2, 5, 7]);
        let p = run(&["ring", "n=10", "m=1", "tokens=4", "burst=1"]).unwrap();
        assert!((0..4).all(|j| p.injection_index(j) == 0));
        assert_eq!((p.entry_indices(), p.entry_of(3)), (vec![0], 0));
        let p = run(&["ring", "n=10", "m=1", "tokens=4"]).unwrap();
        assert_eq!((p.entry_indices(), p.entry_of(3)), (vec![0, 2, 5, 7], 3));
    }
}
