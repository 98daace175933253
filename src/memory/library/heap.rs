//! How the heap grows while a library is read.
//!
//! glibc gives every thread but the main one an arena of its own, reserved 64 MiB at a time and
//! made writable only as it fills: each time the arena's top runs out, exactly the pages the
//! request needs are `mprotect`ed (`grow_heap`; its `top_pad` is added only when a new arena is
//! made). The load's small allocations (a [`MemFile`](super::MemFile) per file, its frontmatter
//! strings, its links) grew the reading threads' arenas 4,300 times on the 20,000 files of the
//! benchmark library, each an `mprotect` that takes the address space's lock the other reading
//! thread's page faults wait on. With `M_TOP_PAD` at the arena's size, an arena made after it is
//! writable whole at once: 10 `mprotect`s for the same load. Only address space: a page still
//! costs memory only when it is touched, and the main thread's `brk` heap grows by the same
//! step (no page of it touched either).

/// glibc's `HEAP_MAX_SIZE` on 64-bit targets (`2 * DEFAULT_MMAP_THRESHOLD_MAX`): the size of a
/// thread's arena, which is aligned to it, and the most it is grown by at once.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const ARENA: usize = 64 << 20;

/// Sets glibc's `M_TOP_PAD` to an arena's whole size, once per process, before the reading
/// threads' arenas are made (rayon's pool starts with the first load). Elsewhere, nothing.
pub(super) fn grow_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: `mallopt` only sets a malloc parameter (under the main arena's lock);
            // any thread may call it at any time.
            unsafe {
                libc::mallopt(libc::M_TOP_PAD, ARENA as libc::c_int);
            }
        });
    }
}

/// Asks the kernel to back the calling thread's glibc arena with transparent huge pages, once
/// per thread: what glibc's `glibc.malloc.hugetlb=1` tunable does for an arena it makes, which
/// a program cannot set for itself once started. A reading thread's arena (made whole by
/// [`grow_in_large_steps`]) then takes a page fault per 2 MiB of a large library's `MemFile`s,
/// frontmatter strings and links instead of one per 4 KiB. Called only once a load has proved
/// large: for a hook's few files, clearing a huge page costs more than a few small faults.
///
/// A thread's arena is one heap of `ARENA` bytes aligned to its size (glibc's `heap_for_ptr`),
/// so the heap of a fresh small allocation is found by rounding its address down. Only advice:
/// where the thread uses the main arena, or huge pages are off, the kernel's advice on that
/// range changes how memory is backed, never what it holds.
pub(super) fn advise_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        thread_local! {
            static DONE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
        }
        if DONE.replace(true) {
            return;
        }
        let probe = Box::new(0u64);
        let heap = (&raw const *probe) as usize & !(ARENA - 1);
        // SAFETY: madvise only reads its arguments; MADV_HUGEPAGE on a range changes how the
        // kernel backs its mapped pages, never their contents, and fails harmlessly on a
        // range that is not mapped.
        unsafe {
            libc::madvise(heap as *mut libc::c_void, ARENA, libc::MADV_HUGEPAGE);
        }
        drop(probe);
    }
}
