//! `comments::strip` / `strip_mapped`: never panic, agree with each other, the output is a
//! subsequence of the LF-normalized input (or the input itself), the line map is monotonic,
//! in range and has one entry per output line.
#![no_main]
use std::borrow::Cow;

use ccmem::text::comments;
use libfuzzer_sys::fuzz_target;

fn is_subsequence(small: &str, big: &str) -> bool {
    let mut it = big.chars();
    small.chars().all(|c| it.any(|b| b == c))
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let out = comments::strip(&text);
    let (mapped, map) = comments::strip_mapped(&text);
    assert_eq!(out, mapped);
    match &out {
        Cow::Borrowed(s) => assert_eq!(*s, &*text),
        Cow::Owned(s) => {
            let norm = text.replace("\r\n", "\n").replace('\r', "\n");
            assert!(s.len() <= norm.len());
            assert!(is_subsequence(s, &norm));
        }
    }
    let lines = text.split('\n').count();
    assert_eq!(map.len(), out.split('\n').count());
    assert!(map.windows(2).all(|w| w[0] <= w[1]));
    assert!(map.iter().all(|&l| l < lines));
    // Stripping is idempotent on what it leaves behind only up to normalization; it must at
    // least not panic when run again.
    let _ = comments::strip(&out);
});
