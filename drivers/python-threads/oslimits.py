"""The operating system's side of one thread per process: what to say when a thread cannot be
started, and the futex hash of the tuned variant."""
import ctypes
import resource

from ringbench_driver_common import DriverError

PR_FUTEX_HASH = 78  # prctl option, Linux >= 6.16
PR_FUTEX_HASH_SET_SLOTS = 1


def read_int(path):
    try:
        with open(path) as f:
            s = f.read().split()[0]
    except (OSError, IndexError):
        return None
    return int(s) if s.isdigit() else None  # "max": no limit


def mem_available_mib():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def start_failed(alive, planned, err):
    """A thread could not be started: a `limit` error naming the machine's figures, so the user sees
    which limit ran out. The orchestrator checks these limits before launch (from the manifest); this
    is the real failure, when one it could not see was reached. Python reports every failure of
    pthread_create as RuntimeError("can't start new thread"), without errno."""
    try:
        with open("/proc/loadavg") as f:
            tasks = f.read().split()[3].split("/")[1]
    except (OSError, IndexError):
        tasks = "?"
    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    vsoft, _ = resource.getrlimit(resource.RLIMIT_AS)
    figures = [("kernel.pid_max", read_int("/proc/sys/kernel/pid_max")),
               ("kernel.threads-max", read_int("/proc/sys/kernel/threads-max")),
               ("vm.max_map_count", read_int("/proc/sys/vm/max_map_count")),
               ("ulimit -u", None if soft == resource.RLIM_INFINITY else soft),
               ("ulimit -v KiB", None if vsoft == resource.RLIM_INFINITY else vsoft // 1024),
               ("cgroup pids.max", read_int("/sys/fs/cgroup/pids.max")),
               ("MemAvailable MiB", mem_available_mib())]
    shown = ", ".join(f"{k} {'unlimited' if v is None else v}" for k, v in figures)
    raise DriverError("limit", f"could not start a thread with {alive} alive in this process ({planned} "
                      f"planned): {err}. Tasks on the machine: {tasks}; {shown}. Raise the limit that ran "
                      "out (sysctl -w kernel.pid_max=N, kernel.threads-max=N, vm.max_map_count=N; ulimit -u N; "
                      "ulimit -v; cgroup pids.max; memory) or use a smaller n")


def futex_hash_setup(threads):
    """Tuned variant only: size the process's private futex hash for `threads` threads.

    Since Linux 6.16 a process gets a private futex hash table sized by its CPU count (16 buckets on
    2 cores), not its thread count, so with thousands of parked threads every futex wake walks a long
    chain. As drivers/c-pthreads/tuned does, ask for slots = the next power of two >= threads, clamped
    to [16, 2^22]. Older kernels reject the option; any failure leaves the default table. Returns
    prctl's result, or None when the call could not be made."""
    slots = 16
    while slots < threads and slots < (1 << 22):
        slots <<= 1
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        prctl = libc.prctl
        prctl.restype = ctypes.c_int
        ul = ctypes.c_ulong
        return prctl(ctypes.c_int(PR_FUTEX_HASH), ul(PR_FUTEX_HASH_SET_SLOTS), ul(slots), ul(0), ul(0))
    except (OSError, AttributeError):
        return None
