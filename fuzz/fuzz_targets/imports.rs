//! `markdown::imports`: never panics; every offset points at an `@` of the input and every
//! path is non-empty, fragment-free and passes the accept rules' first-character test.
#![no_main]
use ccmem::text::markdown;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for r in markdown::imports(&text) {
        assert_eq!(text.as_bytes().get(r.offset), Some(&b'@'), "offset {}", r.offset);
        assert!(!r.path.is_empty() && !r.path.contains('#'));
        assert!(!r.path.starts_with('@'));
    }
});
