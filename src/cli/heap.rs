//! The heap, set up for a command that holds a whole library in memory.
//!
//! Loading a 20,000-file library allocates about 80 MB in many small blocks (file texts, links,
//! frontmatter). With glibc's defaults every new 4 KiB page of that is a page fault (18,600 on
//! the audit of such a library, about a tenth of its CPU time), the thread pool gets arenas of
//! its own, and each arena grows a page range at a time. [`prepare_for_bulk`] turns that into a
//! few faults on 2 MiB pages: one arena, one large growth of the heap up front, and transparent
//! huge pages asked for on it (the kernel's default `madvise` mode gives them only on request).
//! It runs only in the commands that load a library (`audit`, `tier`): a hook, which starts and
//! exits in under a millisecond, keeps the defaults. (glibc's `glibc.malloc.hugetlb=1` tunable
//! does the same, but only from the environment at process start; mimalloc does it too, but
//! makes every process start 0.3 ms later.)

/// How much the heap grows by beyond each request (`M_TOP_PAD`): room for a 20,000-file library
/// in one growth, so the whole of it can be advised at once.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub const PAD: usize = 128 << 20;
/// The size of a transparent huge page on x86-64 and arm64 with 4 KiB pages.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HUGE: usize = 2 << 20;

/// Sets glibc's allocator up for a load of many megabytes (see the module documentation). Call
/// on the main thread before the thread pool starts: a thread takes its arena at its first
/// allocation, and only the main thread's grows the heap (`tests/heap.rs` checks it does).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn prepare_for_bulk() {
    // SAFETY: `mallopt` only changes the allocator's settings; `sbrk(0)` only reads the current
    // end of the heap; the block is freed as soon as it made the heap grow; `madvise` with
    // MADV_HUGEPAGE is advice on pages that are this process's own heap (from the end before
    // the growth to the end after it) and changes no byte of them. Every call's failure leaves
    // the defaults, which work.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 1);
        // Blocks up to 32 MiB come from the heap (not from a mapping each), and freeing never
        // gives the heap back to the kernel: the process ends soon after.
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, i32::MAX);
        libc::mallopt(libc::M_TOP_PAD, PAD as i32);
        let before = libc::sbrk(0) as usize;
        // More than the heap has left: it grows now, by this block and PAD.
        let block = std::hint::black_box(libc::malloc(1 << 20));
        let after = libc::sbrk(0) as usize;
        libc::free(block);
        let start = (before + HUGE - 1) & !(HUGE - 1);
        let end = after & !(HUGE - 1);
        if end > start {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

/// Elsewhere the allocator's defaults stay.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn prepare_for_bulk() {}
