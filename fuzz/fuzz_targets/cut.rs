//! `cut::truncate` on the MEMORY.md pipeline (frontmatter split, comment strip, cut): never
//! panics; the counts match the trimmed text; a cut keeps a prefix of at most 200 lines and
//! 25,000 UTF-16 units and appends the warning. The first byte repeats the rest (1-64 times)
//! so inputs reach the limits.
#![no_main]
use ccmem::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16};
use ccmem::text::{comments, cut, frontmatter, js};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&reps, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest).repeat(1 + usize::from(reps % 64));
    let body = comments::strip(frontmatter::split(&text).body).into_owned();
    for input in [body.as_str(), text.as_str()] {
        let t = cut::truncate(input);
        let trimmed = js::trim(input);
        assert_eq!(&input[t.start_bytes..t.start_bytes + t.trimmed_bytes], trimmed);
        assert_eq!(t.lines, trimmed.matches('\n').count() + 1);
        assert_eq!(t.utf16, js::utf16_len(trimmed));
        match &t.cut {
            None => {
                assert!(t.lines <= INDEX_MAX_LINES && t.utf16 <= INDEX_MAX_UTF16);
                assert_eq!(t.content, trimmed);
            }
            Some(c) => {
                assert!(c.kept_utf16 <= INDEX_MAX_UTF16 && c.kept_lines <= INDEX_MAX_LINES);
                assert!(c.kept_bytes <= t.trimmed_bytes);
                assert!(t.content.starts_with(&trimmed[..c.kept_bytes]));
                assert!(t.content.ends_with(&c.warning));
            }
        }
    }
});
