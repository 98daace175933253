//! Asking the CPU for the memory of the files a few places ahead of the one a pass over the
//! library is at: the load streamed the whole library through the caches, so each file's
//! structure, and then what it points to (its path, name and text, allocations of their own),
//! wait in main memory; asked for ahead, they arrive while the files before are worked on.
//! [`ask`] is the one prefetch hint; the gathering of the lookup tables ([`keys_after`]: on the
//! 20,000-file library, one thread, 6.7 -> 5.0 ms) and the file rules (`rules::prefetch`) each
//! say what they ask for. The link scan gained nothing from it (8.2 -> 8.4 ms).

use std::sync::Arc;

use crate::memory::file::MemFile;

/// How many files ahead a file's structure is asked for (what it points to half as far, once
/// the structure has arrived).
pub(crate) const AHEAD: usize = 8;

/// Asks for what gathering the keys and the vote of `files[k]` reads, some files ahead.
pub(crate) fn keys_after(files: &[Arc<MemFile>], k: usize) {
    if let Some(f) = files.get(k + AHEAD) {
        structure(f);
    }
    if let Some(f) = files.get(k + AHEAD / 2) {
        ask(f.rel.as_ptr());
        if let Some(name) = f.meta().and_then(|m| m.name.as_deref()) {
            ask(name.as_ptr());
        }
    }
}

/// A file's path, role and content (where its text, frontmatter and links are): what every
/// pass over the files reads first.
pub(crate) fn structure(f: &MemFile) {
    ask(std::ptr::from_ref(&f.rel));
    ask(std::ptr::from_ref(&f.role));
    ask(std::ptr::from_ref(&f.content));
}

/// Asks the CPU to bring the cache line at `p` in (a hint: nothing on other architectures).
pub(crate) fn ask<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch is only a hint to the cache: it reads nothing into the program
        // and never faults, whatever the address (here always one of a live value).
        unsafe { _mm_prefetch::<{ _MM_HINT_T0 }>(p.cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
