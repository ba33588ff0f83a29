//! Clocks, memory readings and the OS limits on thread creation.
//!
//! Memory is not estimated here: the manifest's `bytes_per_process` is the one
//! estimate, checked by the orchestrator before launch (contract section 1).

use crate::out::{fail, Fail, Kind};

/// CPU time (user+system) of the whole process, ns; CLOCK_PROCESS_CPUTIME_ID (ns resolution).
pub fn cpu_ns() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    unsafe {
        libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Several numeric fields of /proc/self/status, read at one instant (0 where absent).
pub fn status_fields<const K: usize>(labels: [&str; K]) -> [u64; K] {
    let mut out = [0; K];
    let Ok(s) = std::fs::read_to_string("/proc/self/status") else { return out };
    for l in s.lines() {
        for (i, label) in labels.iter().enumerate() {
            if let Some(rest) = l.strip_prefix(label) {
                out[i] = rest.split_whitespace().next().and_then(|v| v.parse().ok()).unwrap_or(0);
            }
        }
    }
    out
}

/// A numeric field of /proc/self/status (first number after the label).
pub fn status_field(label: &str) -> Option<u64> {
    file_field("/proc/self/status", label)
}

fn file_field(path: &str, label: &str) -> Option<u64> {
    let s = std::fs::read_to_string(path).ok()?;
    for l in s.lines() {
        if let Some(rest) = l.strip_prefix(label) {
            return rest.split_whitespace().next()?.parse().ok();
        }
    }
    None
}

/// (voluntary, involuntary) context switches of the whole process so far: getrusage
/// (RUSAGE_SELF) sums every thread's, live and exited.
pub fn ctx_switches() -> (u64, u64) {
    let ru = rusage();
    (ru.ru_nvcsw as u64, ru.ru_nivcsw as u64)
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

/// OS limits that bound how many threads this process may start, checked before
/// spawning so that a refusal names the limit instead of failing half-way. `extra`
/// threads are needed beyond those running now; `maps_per_thread` is the number of
/// memory mappings each new thread adds (stack + guard, and std's signal stack + guard).
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
    if euid != 0 && unsafe { libc::getrlimit(libc::RLIMIT_NPROC, &mut rl) } == 0 && rl.rlim_cur != libc::RLIM_INFINITY {
        let mine = user_threads(euid);
        let room = rl.rlim_cur.saturating_sub(mine + MARGIN);
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
