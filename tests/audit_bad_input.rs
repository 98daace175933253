//! Bad input: a FIFO, a symlink loop, invalid UTF-8, a binary file, malformed YAML, a 1 GiB
//! (sparse) file and a `chmod 000` file. Each is a finding on that file, the audit goes on and
//! finishes, and nothing in the folder changes.
//!
//! Tests run as root here: root reads a `chmod 000` file anyway, so for root the test expects
//! that file to be audited normally; for any other user, an `unreadable-file` finding.
//!
//! Unix only: FIFOs, symbolic links, `chmod 000` and owners.
#![cfg(unix)]

mod common;

use common::cli::Test;

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

/// A digest of the folder: every entry's name, type, size, mode and mtime, and the bytes of
/// small regular files (read without following links or opening FIFOs).
fn fingerprint(root: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(root).unwrap() {
        let e = e.unwrap();
        let meta = std::fs::symlink_metadata(e.path()).unwrap();
        let mut v = format!(
            "{:?} {} {:o} {}",
            meta.file_type(),
            meta.len(),
            meta.mode(),
            meta.mtime_nsec()
        );
        if meta.is_file() && meta.len() < 1 << 20 {
            let bytes = std::fs::read(e.path()).unwrap_or_default();
            v += &format!(" {:x}", xxhash_rust::xxh3::xxh3_64(&bytes));
        }
        out.insert(e.file_name().to_string_lossy().into_owned(), v);
    }
    out
}

#[test]
fn each_bad_file_is_a_finding_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let ok = "---\nname: ok\ndescription: fine\ntype: user\nmodified: 2026-11-01\n---\nfine\n";
    std::fs::write(
        root.join("MEMORY.md"),
        "# I\n- [ok](user_ok.md)\n- [y](user_yaml.md)\n",
    )
    .unwrap();
    std::fs::write(root.join("user_ok.md"), ok).unwrap();
    std::fs::write(root.join("user_utf8.md"), b"---\nname: caf\xe9\n---\n").unwrap();
    std::fs::write(
        root.join("user_binary.md"),
        b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR",
    )
    .unwrap();
    std::fs::write(
        root.join("user_yaml.md"),
        "---\nname: x\n  - nested: [\ndescription: d\n---\nbody\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("user_loop.md", root.join("user_loop.md")).unwrap();
    common::cli::fifo(&root.join("user_fifo.md"));
    let big = std::fs::File::create(root.join("user_huge.md")).unwrap();
    big.set_len(1 << 30).unwrap(); // sparse: 1 GiB long, no blocks written
    let locked =
        "---\nname: l\ndescription: locked\ntype: user\nmodified: 2026-11-01\n---\nother\n";
    std::fs::write(root.join("user_locked.md"), locked).unwrap();
    std::fs::set_permissions(
        root.join("user_locked.md"),
        std::fs::Permissions::from_mode(0o000),
    )
    .unwrap();

    let before = fingerprint(root);
    let out = Test::new()
        .args(["audit", "--json"])
        .arg(root)
        .timeout(std::time::Duration::from_secs(60))
        .run();
    assert_eq!(fingerprint(root), before, "the audit changed the folder");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let found: Vec<(String, String, String)> = doc["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            let path = d["path"].as_str().unwrap();
            let name = Path::new(path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (
                name,
                d["rule"].as_str().unwrap().to_owned(),
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let has = |file: &str, rule: &str, words: &str| {
        found
            .iter()
            .any(|(f, r, m)| f == file && r == rule && m.contains(words))
    };
    assert!(has("user_fifo.md", "unreadable-file", "FIFO"), "{found:#?}");
    assert!(
        has("user_loop.md", "unreadable-file", "unreadable"),
        "{found:#?}"
    );
    assert!(
        has("user_utf8.md", "unreadable-file", "UTF-8"),
        "{found:#?}"
    );
    assert!(
        has("user_binary.md", "unreadable-file", "binary"),
        "{found:#?}"
    );
    assert!(
        has("user_huge.md", "unreadable-file", "too large"),
        "{found:#?}"
    );
    assert!(
        has("user_yaml.md", "invalid-frontmatter", "not valid YAML"),
        "{found:#?}"
    );
    // Who this test runs as: the owner of the folder it just made.
    let root_user = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(root).unwrap()) == 0;
    let locked: Vec<_> = found
        .iter()
        .filter(|(f, _, _)| f == "user_locked.md")
        .collect();
    if root_user {
        // Root reads it; it is a clean entry, only not linked from MEMORY.md.
        assert!(
            locked.iter().all(|(_, r, _)| r == "unreachable-file"),
            "{locked:#?}"
        );
    } else {
        assert!(
            has("user_locked.md", "unreadable-file", "denied"),
            "{found:#?}"
        );
    }
    // The good file is audited like any other.
    assert!(
        !found.iter().any(|(f, _, _)| f == "user_ok.md"),
        "{found:#?}"
    );
    assert_eq!(
        doc["summary"]["files"], 8,
        "the memory files, not MEMORY.md"
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

    /// Whatever the bytes, the audit finishes and reports on every file.
    #[test]
    fn any_content_is_audited_without_panic(
        index in "(?s)(---\n)?[-#\\[\\]()`*_a-z0-9:. \n<>!]{0,300}",
        entry in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400),
        yaml in "[a-z_:\\[\\]{}'\" \n-]{0,80}",
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("MEMORY.md"), &index).unwrap();
        std::fs::write(dir.path().join("user_bytes.md"), &entry).unwrap();
        std::fs::write(dir.path().join("feedback_yaml.md"), format!("---\n{yaml}\n---\nbody\n")).unwrap();
        let now = jiff::Timestamp::from_second(1_800_000_000).unwrap();
        let lib = ccmem::memory::Library::load(dir.path(), &Default::default()).unwrap();
        let audit = ccmem::rules::run::audit(lib, now).unwrap();
        proptest::prop_assert_eq!(audit.summary.files, 2);
    }
}
