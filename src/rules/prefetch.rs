//! Asking the CPU for the next files' memory before the file rules read it.
//!
//! By the time the rules run, the load has streamed a whole library through the caches (80 MB
//! for 20,000 files), so every file's structure and text are back in main memory, each its
//! own allocation, and a rule that reads one first waits for it: on the 20,000-file library
//! the first rule's look at each file's role, the first at its text and the line count's first
//! pass over it were a third of the file rules' time. Asked for a few files ahead, that memory
//! arrives while the rules work on the files before it.

use crate::memory::library::Library;
use crate::memory::meta::Meta;
use crate::memory::prefetch::{AHEAD, ask, structure};

/// How much of a text is asked for (the hardware prefetcher follows a longer one).
const TEXT: usize = 2048;

/// Asks for the structure of `lib.files[i + AHEAD]` (its path, role and content, which every
/// file rule reads first), and what `lib.files[i + AHEAD / 2]`'s structure points to,
/// once it has arrived: the start of its text, its frontmatter's strings (each its own
/// allocation, which `missing-field` and `stale-entry` read first) and its path (copied into
/// each of its findings).
pub(super) fn files_after(lib: &Library, i: usize) {
    if let Some(f) = lib.files.get(i + AHEAD) {
        structure(f);
    }
    let Some(f) = lib.files.get(i + AHEAD / 2) else {
        return;
    };
    if let Some(text) = f.text() {
        for line in text.as_bytes()[..text.len().min(TEXT)].chunks(64) {
            ask(line.as_ptr());
        }
    }
    ask(f.rel.as_ptr());
    if let Some(m) = f.meta() {
        meta_strings(m);
    }
}

/// Asks for the frontmatter strings the rules read of every file (`name`, `description`,
/// `type`, `modified`).
fn meta_strings(m: &Meta) {
    for s in [&m.name, &m.description, &m.kind, &m.modified]
        .into_iter()
        .flatten()
    {
        ask(s.as_ptr());
    }
}

/// What `missing-modified`'s pass over every file reads of `lib.files[i + AHEAD]` (its
/// structure) and, once that has arrived, of `lib.files[i + AHEAD / 2]` (its `modified`).
pub(super) fn modified_after(lib: &Library, i: usize) {
    if let Some(f) = lib.files.get(i + AHEAD) {
        structure(f);
    }
    if let Some(m) = lib.files.get(i + AHEAD / 2).and_then(|f| f.meta())
        && let Some(s) = &m.modified
    {
        ask(s.as_ptr());
    }
}
