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
//!
//! No huge pages are asked for, here or for the text buffers (`fsread::shared`). They made the
//! audit of the 20,000-file library ~5% faster when it ran again and again (hyperfine's loop,
//! where each run reuses the pages the last one freed), but ~35% slower when it ran once after
//! a pause, the way people and CI run it: on a virtual machine whose balloon reports free
//! memory to its host (virtio-balloon free page reporting, in 2 MiB blocks), a huge page handed
//! out after the pause must first be faulted in again by the host. Median of 8 such runs each,
//! 2.5 s apart: 275 ms with the advice on the reading threads' arenas and text buffers, 180 ms
//! without. Touching 80 MiB after a pause took 0.18-0.34 s in huge pages, 0.04-0.08 s in small.

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
