//! The `tree` workload's arithmetic (contract section 3, "tree"): which leaves each process
//! covers. The processes, their spawns and their messages are the driver's.

/// True when n = fanout^k for some k >= 0.
pub fn is_power(n: u64, fanout: u64) -> bool {
    if n == 0 || fanout < 2 {
        return false;
    }
    let mut x = n;
    while x % fanout == 0 {
        x /= fanout;
    }
    x == 1
}

/// Leaves plus inner processes of a tree of n leaves: (fanout·n − 1) / (fanout − 1).
pub fn processes(n: u64, fanout: u64) -> u64 {
    (fanout as u128 * n as u128 - 1) as u64 / (fanout - 1)
}

/// The children of a process covering the leaves `first .. first + leaves` (leaves > 1):
/// `fanout` equal, contiguous ranges, as (first leaf, leaves).
pub fn children(first: u64, leaves: u64, fanout: u64) -> impl Iterator<Item = (u64, u64)> {
    let each = leaves / fanout;
    (0..fanout).map(move |i| (first + i * each, each))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum(first: u64, leaves: u64, fanout: u64) -> (u64, u64) {
        if leaves == 1 {
            return (first, 1);
        }
        children(first, leaves, fanout).fold((0, 1), |(s, p), (f, l)| {
            let (cs, cp) = sum(f, l, fanout);
            (s + cs, p + cp)
        })
    }

    #[test]
    fn every_leaf_once() {
        for (n, f) in [(1, 10), (10, 10), (1000, 10), (1024, 2), (27, 3), (1_000_000, 10)] {
            assert_eq!(sum(0, n, f), (n * (n - 1) / 2, processes(n, f)), "n={} fanout={}", n, f);
        }
        assert!(is_power(1, 7) && is_power(49, 7) && !is_power(0, 7) && !is_power(12, 10) && !is_power(8, 3));
    }
}
