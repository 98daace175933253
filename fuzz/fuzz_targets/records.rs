//! Journal and undo records (issue 23): whatever bytes `.ccmem/journal.json`, `history.json`
//! and `last.json` hold (the first byte picks which get the rest), recovery, undo, redo,
//! discard and the readers' previews change nothing outside the memory folder. The oracle and
//! its tree are `tests/common/records.rs`, shared with the property test and the corpus replay;
//! inputs may write `{ROOT}` for the tree's root (the seeds name files outside the folder so).
#![no_main]
use libfuzzer_sys::fuzz_target;

#[path = "../../tests/common/records.rs"]
mod records;

fuzz_target!(|data: &[u8]| {
    records::check(&records::from_fuzz(data));
});
