//! `frontmatter::split`: never panics, the body is the input's suffix at `body_start`, the
//! YAML lies between the opener and the body.
#![no_main]
use ccmem::text::frontmatter;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let s = frontmatter::split(&text);
    assert_eq!(&text[s.body_start..], s.body);
    if let Some(yaml) = s.yaml {
        let start = yaml.as_ptr() as usize - text.as_ptr() as usize;
        assert!(start >= 4 && start + yaml.len() + 3 <= s.body_start);
        assert!(text[..start].trim_start_matches('\u{feff}').starts_with("---"));
    } else {
        assert_eq!(s.body_start, 0);
    }
});
