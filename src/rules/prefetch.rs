//! Asking the CPU for the next files' memory before the file rules read it.
//!
//! By the time the rules run, the load has streamed a whole library through the caches (80 MB
//! for 20,000 files), so every file's structure and text are back in main memory, each its
//! own allocation, and a rule that reads one first waits for it: on the 20,000-file library
//! the first rule's look at each file's role, the first at its text and the line count's first
//! pass over it were a third of the file rules' time. Asked for a few files ahead, that memory
//! arrives while the rules work on the files before it.

use crate::memory::library::Library;

/// How many files ahead a file's structure is asked for; its text is asked for half as far
/// ahead, once the structure (which holds where the text is) has arrived.
const AHEAD: usize = 8;

/// How much of a text is asked for (the hardware prefetcher follows a longer one).
const TEXT: usize = 2048;

/// Asks for the parts of `lib.files[i + AHEAD]` every file rule reads first (its role and
/// content), and the start of `lib.files[i + AHEAD / 2]`'s text.
pub(super) fn files_after(lib: &Library, i: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let ask = |p: *const u8| {
            // SAFETY: a prefetch is only a hint to the cache: it reads nothing into the program
            // and never faults, whatever the address (here always one of a live value).
            unsafe { _mm_prefetch::<{ _MM_HINT_T0 }>(p.cast()) }
        };
        if let Some(f) = lib.files.get(i + AHEAD) {
            ask(std::ptr::from_ref(&f.role).cast());
            ask(std::ptr::from_ref(&f.content).cast());
        }
        if let Some(text) = lib.files.get(i + AHEAD / 2).and_then(|f| f.text()) {
            for line in text.as_bytes()[..text.len().min(TEXT)].chunks(64) {
                ask(line.as_ptr());
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (lib, i);
}
