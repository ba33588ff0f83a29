//! The system allocator, except that a failed allocation ends the driver with a
//! `limit` error record (exit 3) instead of Rust's abort (SIGABRT, which the
//! orchestrator could only call a crash). Linux usually overcommits, so this is
//! reached under RLIMIT_AS (`ulimit -v`) or when overcommit is off; a cgroup
//! memory limit ends in the OOM killer instead, which no program can report.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;

pub struct LimitAlloc;

unsafe impl GlobalAlloc for LimitAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        if p.is_null() {
            out_of_memory(layout.size());
        }
        p
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            out_of_memory(new_size);
        }
        p
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout)
    }
}

/// A fixed buffer on the stack: nothing may be allocated once allocation has failed.
struct Buf {
    b: [u8; 512],
    len: usize,
}

impl std::fmt::Write for Buf {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let n = s.len().min(self.b.len() - self.len);
        self.b[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
        self.len += n;
        Ok(())
    }
}

#[cold]
#[inline(never)]
fn out_of_memory(size: usize) -> ! {
    let mut m = Buf { b: [0; 512], len: 0 };
    let _ = writeln!(
        m,
        "{{\"type\":\"error\",\"kind\":\"limit\",\"message\":\"memory: an allocation of {} bytes failed \
         (RLIMIT_AS, the cgroup memory limit or the machine's memory); free memory, raise the limit \
         (ulimit -v) or use a smaller n\"}}",
        size
    );
    unsafe {
        libc::write(1, m.b.as_ptr() as *const libc::c_void, m.len);
        libc::_exit(3);
    }
}
