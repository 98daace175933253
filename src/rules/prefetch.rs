//! Asking the CPU for the next files' memory before the file rules read it.
//!
//! By the time the rules run, the load has streamed a whole library through the caches (80 MB
//! for 20,000 files), so every file's structure and text are back in main memory, each its
//! own allocation, and a rule that reads one first waits for it: on the 20,000-file library
//! the first rule's look at each file's role, the first at its text and the line count's first
//! pass over it were a third of the file rules' time. Asked for a few files ahead, that memory
//! arrives while the rules work on the files before it.

use crate::memory::library::Library;
use crate::memory::prefetch::{AHEAD, ask};

/// How much of a text is asked for (the hardware prefetcher follows a longer one).
const TEXT: usize = 2048;

/// Asks for the parts of `lib.files[i + AHEAD]` every file rule reads first (its role and
/// content; [`AHEAD`] files ahead), and the start of `lib.files[i + AHEAD / 2]`'s text, once
/// the structure (which holds where the text is) has arrived.
pub(super) fn files_after(lib: &Library, i: usize) {
    if let Some(f) = lib.files.get(i + AHEAD) {
        ask(std::ptr::from_ref(&f.role));
        ask(std::ptr::from_ref(&f.content));
    }
    if let Some(text) = lib.files.get(i + AHEAD / 2).and_then(|f| f.text()) {
        for line in text.as_bytes()[..text.len().min(TEXT)].chunks(64) {
            ask(line.as_ptr());
        }
    }
}
