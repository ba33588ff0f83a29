//! Contract plumbing shared by the Rust drivers: argument parsing and bounds,
//! JSON Lines output, error records, clocks, RSS and OS-limit probes.
//! (The same file is used by drivers/rust-threads and drivers/rust-tokio.)
#![allow(dead_code)]

use std::fmt::Display;
use std::fmt::Write as _;
use std::io::Write as _;

// ---------------------------------------------------------------- output

/// One flat JSON object, built by hand (no serde: fewer crates to build).
pub struct Rec(String);

impl Rec {
    pub fn new(ty: &str) -> Rec {
        let mut s = String::with_capacity(256);
        s.push_str("{\"type\":");
        push_json_str(&mut s, ty);
        Rec(s)
    }
    pub fn int<T: Display>(mut self, key: &str, v: T) -> Rec {
        let _ = write!(self.0, ",\"{}\":{}", key, v);
        self
    }
    pub fn str(mut self, key: &str, v: &str) -> Rec {
        let _ = write!(self.0, ",\"{}\":", key);
        push_json_str(&mut self.0, v);
        self
    }
    pub fn strs(mut self, key: &str, v: &[&str]) -> Rec {
        let _ = write!(self.0, ",\"{}\":[", key);
        for (i, s) in v.iter().enumerate() {
            if i > 0 {
                self.0.push(',');
            }
            push_json_str(&mut self.0, s);
        }
        self.0.push(']');
        self
    }
    pub fn emit(mut self) {
        self.0.push_str("}\n");
        let out = std::io::stdout();
        let mut lock = out.lock();
        let _ = lock.write_all(self.0.as_bytes());
        let _ = lock.flush();
    }
}

fn push_json_str(s: &mut String, v: &str) {
    s.push('"');
    for c in v.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\r' => s.push_str("\\r"),
            '\t' => s.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(s, "\\u{:04x}", c as u32);
            }
            c => s.push(c),
        }
    }
    s.push('"');
}

// ---------------------------------------------------------------- errors

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    BadParam,
    UnknownWorkload,
    Unsupported,
    Limit,
    Failure,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::BadParam => "bad_param",
            Kind::UnknownWorkload => "unknown_workload",
            Kind::Unsupported => "unsupported",
            Kind::Limit => "limit",
            Kind::Failure => "failure",
        }
    }
    fn exit_code(self) -> i32 {
        match self {
            Kind::BadParam | Kind::UnknownWorkload | Kind::Unsupported => 2,
            Kind::Limit => 3,
            Kind::Failure => 1,
        }
    }
}

#[derive(Debug)]
pub struct Fail {
    pub kind: Kind,
    pub message: String,
}

pub fn fail<T>(kind: Kind, message: impl Into<String>) -> Result<T, Fail> {
    Err(Fail { kind, message: message.into() })
}

/// Print the error record and exit with the contract's code. Nothing follows it.
pub fn die(f: &Fail) -> ! {
    Rec::new("error").str("kind", f.kind.name()).str("message", &f.message).emit();
    std::process::exit(f.kind.exit_code());
}

/// A panic anywhere becomes a `failure` error record instead of a bare abort.
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = format!("internal panic: {}", info);
        eprintln!("{}", msg);
        Rec::new("error").str("kind", "failure").str("message", &msg).emit();
        std::process::exit(1);
    }));
}

// ---------------------------------------------------------------- parameters

pub const WORKLOADS: &[&str] = &["ring", "spawn", "pingpong", "fanin", "selective", "trace"];
const COMMON_KEYS: &[&str] = &["repeats", "warmup", "cores", "sample_ms", "samples", "stats"];

#[derive(Debug, Clone)]
pub struct Params {
    pub workload: String,
    pub n: u64,
    pub m: u64,
    pub tokens: u64,
    pub reverse: u64,
    pub repeats: u64,
    pub warmup: u64,
    pub cores: Option<u64>,
    pub sample_ms: u64,
    pub samples: u64,
    pub stats: bool,
}

fn workload_keys(w: &str) -> (&'static [&'static str], &'static [&'static str]) {
    // (allowed workload keys, required keys)
    match w {
        "ring" => (&["n", "m", "tokens"], &["n", "m"]),
        "spawn" => (&["n"], &["n"]),
        "pingpong" => (&["m"], &["m"]),
        "fanin" => (&["n", "m"], &["n", "m"]),
        "selective" => (&["n", "m", "reverse"], &["n", "m"]),
        "trace" => (&["n", "m"], &["n", "m"]),
        _ => (&[], &[]),
    }
}

fn bounds(w: &str, key: &str) -> (i128, i128) {
    let trace = w == "trace";
    match key {
        "n" if trace => (1, 100),
        "m" if trace => (1, 100),
        "n" => (1, 10_000_000),
        "m" => (1, 1_000_000_000),
        "tokens" => (1, 10_000_000),
        "reverse" => (0, 1),
        "repeats" => (1, 1_000_000),
        "warmup" => (0, 1_000_000),
        "cores" => (1, 4096),
        "sample_ms" => (0, u32::MAX as i128),
        "samples" => (1, u32::MAX as i128),
        "stats" => (0, 1),
        _ => (0, 0),
    }
}

fn parse_int(key: &str, raw: &str, lo: i128, hi: i128) -> Result<u64, Fail> {
    let bad = || {
        fail(
            Kind::BadParam,
            format!("{} must be an integer from {} to {}, got '{}'", key, lo, hi, raw),
        )
    };
    let digits = raw.strip_prefix('-').unwrap_or(raw);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return bad();
    }
    // Anything longer than 30 digits is out of every bound; avoid i128 overflow.
    let trimmed = digits.trim_start_matches('0');
    if trimmed.len() > 30 {
        return bad();
    }
    let mut v: i128 = if trimmed.is_empty() { 0 } else { trimmed.parse().unwrap_or(i128::MAX) };
    if raw.starts_with('-') {
        v = -v;
    }
    if v < lo || v > hi {
        return bad();
    }
    Ok(v as u64)
}

/// Parse `run <workload> key=value...` (args = everything after `run`).
pub fn parse_run(args: &[String]) -> Result<Params, Fail> {
    let Some(workload) = args.first() else {
        return fail(
            Kind::BadParam,
            format!("usage: run <workload> key=value ...; workloads: {}", WORKLOADS.join(", ")),
        );
    };
    if !WORKLOADS.contains(&workload.as_str()) {
        return fail(
            Kind::UnknownWorkload,
            format!("unknown workload '{}' (known: {})", workload, WORKLOADS.join(", ")),
        );
    }
    let w = workload.as_str();
    let (wkeys, required) = workload_keys(w);
    let mut p = Params {
        workload: workload.clone(),
        n: 0,
        m: 0,
        tokens: 1,
        reverse: 0,
        repeats: 1,
        warmup: 0,
        cores: None,
        sample_ms: 0,
        samples: 3,
        stats: false,
    };
    let mut seen: Vec<String> = Vec::new();
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
        if seen.iter().any(|s| s == k) {
            return fail(Kind::BadParam, format!("key {} given more than once", k));
        }
        seen.push(k.to_string());
        let (lo, hi) = bounds(w, k);
        let x = parse_int(k, v, lo, hi)?;
        match k {
            "n" => p.n = x,
            "m" => p.m = x,
            "tokens" => p.tokens = x,
            "reverse" => p.reverse = x,
            "repeats" => p.repeats = x,
            "warmup" => p.warmup = x,
            "cores" => p.cores = Some(x),
            "sample_ms" => p.sample_ms = x,
            "samples" => p.samples = x,
            "stats" => p.stats = x == 1,
            _ => unreachable!(),
        }
    }
    for r in required {
        if !seen.iter().any(|s| s == r) {
            return fail(Kind::BadParam, format!("missing required key {} for workload {}", r, w));
        }
    }
    if w == "ring" {
        if p.tokens > p.n {
            return fail(
                Kind::BadParam,
                format!("tokens must be <= n (n={}), got '{}'", p.n, p.tokens),
            );
        }
        if (p.n as u128) * (p.m as u128) * (p.tokens as u128) >= (1u128 << 62) {
            return fail(Kind::BadParam, "n*m*tokens must be < 2^62");
        }
    }
    if w == "fanin" && (p.n as u128) * (p.m as u128) >= (1u128 << 62) {
        return fail(Kind::BadParam, "n*m must be < 2^62");
    }
    if p.sample_ms > 0 && w != "ring" {
        return fail(
            Kind::Unsupported,
            format!("continuous mode (sample_ms>0) is defined for ring only, not {}", w),
        );
    }
    Ok(p)
}

// ---------------------------------------------------------------- clocks, memory

/// CPU time (user+system) of the whole process, ns; CLOCK_PROCESS_CPUTIME_ID (ns resolution).
pub fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// VmRSS of /proc/self/status, bytes.
pub fn rss_bytes() -> u64 {
    status_field("VmRSS:").map(|kb| kb * 1024).unwrap_or(0)
}

/// A numeric field of /proc/self/status (first number after the label).
pub fn status_field(label: &str) -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    for l in s.lines() {
        if let Some(rest) = l.strip_prefix(label) {
            return rest.split_whitespace().next()?.parse().ok();
        }
    }
    None
}

pub fn rusage() -> libc::rusage {
    unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    }
}

fn read_u64(path: &str) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// MemAvailable from /proc/meminfo, bytes.
pub fn mem_available() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    for l in s.lines() {
        if let Some(rest) = l.strip_prefix("MemAvailable:") {
            return rest.split_whitespace().next()?.parse::<u64>().ok().map(|k| k * 1024);
        }
    }
    None
}

/// The directory of this process's cgroup for `controller` ("" = unified v2 hierarchy).
fn cgroup_dir(controller: &str) -> Option<String> {
    let s = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for l in s.lines() {
        let mut parts = l.splitn(3, ':');
        let (_, ctrls, path) = (parts.next()?, parts.next()?, parts.next()?);
        if controller.is_empty() && ctrls.is_empty() {
            return Some(format!("/sys/fs/cgroup{}", path));
        }
        if !controller.is_empty() && ctrls.split(',').any(|c| c == controller) {
            return Some(format!("/sys/fs/cgroup/{}{}", controller, path));
        }
    }
    None
}

/// (limit, current, file) of a cgroup counter, v2 first then v1; None when unlimited or absent.
fn cgroup_limit(v2: (&str, &str), v1ctrl: &str, v1: (&str, &str)) -> Option<(u64, u64, String)> {
    for (dir, (maxf, curf)) in [(cgroup_dir(""), v2), (cgroup_dir(v1ctrl), v1)] {
        let Some(dir) = dir else { continue };
        let path = format!("{}/{}", dir, maxf);
        if let Ok(s) = std::fs::read_to_string(&path) {
            let Ok(max) = s.trim().parse::<u64>() else { return None }; // "max"
            if max >= (1u64 << 60) {
                return None;
            }
            let cur = read_u64(&format!("{}/{}", dir, curf)).unwrap_or(0);
            return Some((max, cur, path));
        }
    }
    None
}

/// Room left under the cgroup memory limit, bytes.
fn cgroup_mem_room() -> Option<(u64, String)> {
    let (max, cur, path) = cgroup_limit(
        ("memory.max", "memory.current"),
        "memory",
        ("memory.limit_in_bytes", "memory.usage_in_bytes"),
    )?;
    Some((max.saturating_sub(cur), path))
}

/// Refuse (kind `limit`) a request whose estimated memory does not fit.
pub fn check_memory(procs: u64, bytes_per_process: u64, what: &str) -> Result<(), Fail> {
    let need = procs.saturating_mul(bytes_per_process);
    if let Some(avail) = mem_available() {
        // keep a quarter of what is available for the OS and everything else
        if need > avail / 4 * 3 {
            return fail(
                Kind::Limit,
                format!(
                    "memory: {} {} need about {} MiB (~{} bytes each) but MemAvailable is {} MiB; \
                     free memory or use a smaller n",
                    procs,
                    what,
                    need >> 20,
                    bytes_per_process,
                    avail >> 20
                ),
            );
        }
    }
    if let Some((room, name)) = cgroup_mem_room() {
        if need > room / 4 * 3 {
            return fail(
                Kind::Limit,
                format!(
                    "memory: {} {} need about {} MiB but the {} leaves {} MiB; raise that limit \
                     or use a smaller n",
                    procs,
                    what,
                    need >> 20,
                    name,
                    room >> 20
                ),
            );
        }
    }
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } == 0 && rl.rlim_cur != libc::RLIM_INFINITY {
        let vm = status_field("VmSize:").unwrap_or(0) * 1024;
        let room = (rl.rlim_cur as u64).saturating_sub(vm);
        if need > room {
            return fail(
                Kind::Limit,
                format!(
                    "memory: {} {} need about {} MiB of address space but RLIMIT_AS (ulimit -v) \
                     leaves {} MiB; raise it with ulimit -v",
                    procs,
                    what,
                    need >> 20,
                    room >> 20
                ),
            );
        }
    }
    Ok(())
}

/// OS limits that bound how many threads this process may start. `extra` threads
/// are needed beyond those running now; `maps_per_thread` is the number of memory
/// mappings each new thread adds (stack + guard, and std's signal stack + guard).
pub fn check_thread_limits(extra: u64, maps_per_thread: u64) -> Result<(), Fail> {
    const MARGIN: u64 = 64;
    // Tasks (threads) on the whole machine: 4th field of /proc/loadavg, "running/total".
    let total_tasks: u64 = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|s| s.split_whitespace().nth(3)?.split('/').nth(1)?.parse().ok())
        .unwrap_or(0);
    if let Some(tmax) = read_u64("/proc/sys/kernel/threads-max") {
        let room = tmax.saturating_sub(total_tasks + MARGIN);
        if extra > room {
            return fail(
                Kind::Limit,
                format!(
                    "kernel.threads-max: {} threads needed, {} free of {} on this machine; \
                     raise with `sysctl -w kernel.threads-max=N`",
                    extra, room, tmax
                ),
            );
        }
    }
    if let Some(pmax) = read_u64("/proc/sys/kernel/pid_max") {
        let room = pmax.saturating_sub(total_tasks + MARGIN);
        if extra > room {
            return fail(
                Kind::Limit,
                format!(
                    "kernel.pid_max: {} threads need {} thread ids, {} free of {}; \
                     raise with `sysctl -w kernel.pid_max=4194304`",
                    extra, extra, room, pmax
                ),
            );
        }
    }
    if let Some(mmax) = read_u64("/proc/sys/vm/max_map_count") {
        let cur = std::fs::read_to_string("/proc/self/maps").map(|s| s.lines().count() as u64).unwrap_or(0);
        let room = mmax.saturating_sub(cur + MARGIN);
        let need = extra.saturating_mul(maps_per_thread);
        if need > room {
            return fail(
                Kind::Limit,
                format!(
                    "vm.max_map_count: {} threads need {} memory mappings ({} each: stack, guard, \
                     signal stack, guard), {} free of {}; raise with `sysctl -w vm.max_map_count=N`",
                    extra, need, maps_per_thread, room, mmax
                ),
            );
        }
    }
    // cgroup pid controller
    if let Some((max, cur, path)) = cgroup_limit(("pids.max", "pids.current"), "pids", ("pids.max", "pids.current")) {
        let room = max.saturating_sub(cur + MARGIN);
        if extra > room {
            return fail(
                Kind::Limit,
                format!(
                    "cgroup pids.max: {} threads needed, {} free of {} ({}); raise that pids.max",
                    extra, room, max, path
                ),
            );
        }
    }
    // RLIMIT_NPROC (ulimit -u) counts every thread of this user; root is exempt.
    let mut rl = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
    let euid = unsafe { libc::geteuid() };
    if euid != 0
        && unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut rl) } == 0
        && rl.rlim_cur != libc::RLIM_INFINITY
    {
        let mine = user_threads(euid);
        let room = (rl.rlim_cur as u64).saturating_sub(mine + MARGIN);
        if extra > room {
            return fail(
                Kind::Limit,
                format!(
                    "RLIMIT_NPROC (ulimit -u): {} threads needed, this user has {} of {} in use; \
                     raise with `ulimit -u N`",
                    extra, mine, rl.rlim_cur
                ),
            );
        }
    }
    Ok(())
}

/// Threads owned by `uid` on the machine (sum of Threads: over /proc/<pid>/status).
fn user_threads(uid: u32) -> u64 {
    let mut total = 0;
    let Ok(dir) = std::fs::read_dir("/proc") else { return 0 };
    for e in dir.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !name.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(s) = std::fs::read_to_string(format!("/proc/{}/status", name)) else { continue };
        let mut owner = None;
        let mut threads = 0u64;
        for l in s.lines() {
            if let Some(r) = l.strip_prefix("Uid:") {
                owner = r.split_whitespace().nth(1).and_then(|x| x.parse::<u32>().ok());
            } else if let Some(r) = l.strip_prefix("Threads:") {
                threads = r.trim().parse().unwrap_or(0);
            }
        }
        if owner == Some(uid) {
            total += threads;
        }
    }
    total
}
