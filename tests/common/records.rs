#![allow(dead_code)]
//! The oracle for journal and undo records (issue 23): whatever bytes `.ccmem/journal.json`,
//! `history.json` and `last.json` hold, recovery, undo, redo, discard and the readers' previews
//! change nothing outside the memory folder. Shared by the property test in
//! `tests/security_state.rs`, the cargo-fuzz target `fuzz/fuzz_targets/records.rs` and its
//! corpus replay in `tests/fuzz_replay.rs`; std only, so the fuzz package needs nothing more.
//!
//! The tree, under a fresh folder `{ROOT}` (written so in record bytes, replaced before they are
//! written): `outside/` (a file, a private file, an empty folder, an executable), `repo/.git/
//! hooks/`, and the memory folder `repo/mem/` with its files, an executable `x`, and a private
//! `.ccmem/` whose backups hold every content of the tree, so a record's hashes can all be
//! right and only its paths decide.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every content in the tree, by name, for records that name them with the right hash.
pub(crate) const CONTENTS: &[(&str, &[u8])] = &[
    ("outside/victim.txt", b"precious\n"),
    ("outside/secret.md", b"SECRET-TOKEN\n"),
    ("outside/run.sh", b"#!/bin/sh\necho outside\n"),
    (
        "repo/mem/MEMORY.md",
        b"# Memory\n- [a](a.md) \xe2\x80\x94 a\n",
    ),
    ("repo/mem/a.md", b"---\nname: a\n---\nfact\n"),
    ("repo/mem/x", b"#!/bin/sh\necho pwned\n"),
    ("repo/mem/.a.md.ccmem-tmp.abc123", b"new a\n"),
];

/// What is at each path under a root: kind, mode, and content (a link's target).
pub(crate) type Snapshot = BTreeMap<PathBuf, (String, u32, Vec<u8>)>;

/// Everything under `root` but `skip`, without following a link.
pub(crate) fn snapshot(root: &Path, skip: &Path) -> Snapshot {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p == skip {
                continue;
            }
            let Ok(m) = fs::symlink_metadata(&p) else {
                continue;
            };
            let rel = p.strip_prefix(root).unwrap_or(&p).to_path_buf();
            let mode = mode_of(&m);
            let item = if m.file_type().is_symlink() {
                let to = fs::read_link(&p).unwrap_or_default();
                (
                    "link".to_owned(),
                    0,
                    to.into_os_string().into_encoded_bytes(),
                )
            } else if m.is_dir() {
                stack.push(p.clone());
                ("dir".to_owned(), mode, Vec::new())
            } else {
                let bytes = fs::read(&p).unwrap_or_default();
                ("file".to_owned(), mode, bytes)
            };
            out.insert(rel, item);
        }
    }
    out
}

/// A file's permission bits; on Windows only what it holds: the read-only attribute.
fn mode_of(m: &fs::Metadata) -> u32 {
    #[cfg(unix)]
    return std::os::unix::fs::MetadataExt::mode(m) & 0o7777;
    #[cfg(not(unix))]
    return if m.permissions().readonly() {
        0o444
    } else {
        0o644
    };
}

/// Sets `path`'s permission bits; on Windows read-only when `mode` has no owner write bit.
pub(crate) fn set_mode(path: &Path, mode: u32) {
    #[cfg(unix)]
    let perms = std::os::unix::fs::PermissionsExt::from_mode(mode);
    #[cfg(not(unix))]
    let perms = {
        let mut p = fs::metadata(path).unwrap().permissions();
        p.set_readonly(mode & 0o200 == 0);
        p
    };
    fs::set_permissions(path, perms).unwrap();
}

fn put(path: &Path, bytes: &[u8], mode: u32) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, bytes).unwrap();
    set_mode(path, mode);
}

/// A fresh tree (see the module header); returns `{ROOT}`.
pub(crate) fn tree() -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let root = std::env::temp_dir().join(format!(
        "ccmem-records-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = fs::remove_dir_all(&root);
    for (name, bytes) in CONTENTS {
        let mode = match *name {
            "outside/secret.md" => 0o600,
            n if n.ends_with(".sh") || n.ends_with("/x") => 0o755,
            _ => 0o644,
        };
        put(&root.join(name), bytes, mode);
    }
    fs::create_dir_all(root.join("outside/empty")).unwrap();
    fs::create_dir_all(root.join("repo/.git/hooks")).unwrap();
    let backup = root.join("repo/mem/.ccmem/backup");
    fs::create_dir_all(&backup).unwrap();
    for (_, bytes) in CONTENTS {
        put(
            &backup.join(ccmem::write::Hash::of(bytes).as_str()),
            bytes,
            0o644,
        );
    }
    for d in [root.join("repo/mem/.ccmem"), backup] {
        set_mode(&d, 0o700);
    }
    root
}

/// Writes each `(name, bytes)` into the memory folder's `.ccmem/` (`{ROOT}` replaced by the
/// tree's root), runs everything that reads or acts on records, and checks that nothing outside
/// the memory folder changed. Errors are fine (a refused record is the point); panics and
/// changes outside are not.
pub(crate) fn check(records: &[(&str, &[u8])]) {
    let root = tree();
    let mem = root.join("repo/mem");
    let root_text = root.to_string_lossy().into_owned();
    for (name, bytes) in records {
        let bytes = replace(bytes, b"{ROOT}", root_text.as_bytes());
        fs::write(mem.join(".ccmem").join(name), bytes).unwrap();
    }
    let before = snapshot(&root, &mem);
    let _ = ccmem::write::preview(&mem);
    let _ = ccmem::write::peek(&mem);
    let _ = ccmem::memory::pending::pending(&mem);
    let _ = ccmem::write::history(&mem.join(".ccmem"), &mem, false);
    if let Ok(lock) = ccmem::write::lock(&mem) {
        let _ = lock.recover();
        let _ = lock.undo();
        let _ = lock.redo();
        let _ = lock.undo();
        let _ = lock.list();
        let _ = lock.discard();
    }
    let after = snapshot(&root, &mem);
    let _ = fs::remove_dir_all(&root);
    if before != after {
        let changed: Vec<&PathBuf> = before
            .keys()
            .chain(after.keys())
            .filter(|k| before.get(*k) != after.get(*k))
            .collect();
        panic!(
            "records changed files outside the memory folder: {changed:?}\nrecords: {:?}",
            records
                .iter()
                .map(|(n, b)| (n, String::from_utf8_lossy(b)))
                .collect::<Vec<_>>()
        );
    }
}

fn replace(hay: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(hay.len());
    let mut i = 0;
    while i < hay.len() {
        if hay[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(hay[i]);
            i += 1;
        }
    }
    out
}

/// Splits fuzz input into record files: the first byte picks which of `journal.json`,
/// `history.json`, `last.json` get the rest (bits 0, 1, 2; none set: the journal).
pub(crate) fn from_fuzz(data: &[u8]) -> Vec<(&'static str, &[u8])> {
    let Some((&pick, rest)) = data.split_first() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (bit, name) in [(1, "journal.json"), (2, "history.json"), (4, "last.json")] {
        if pick & bit != 0 {
            out.push((name, rest));
        }
    }
    if out.is_empty() {
        out.push(("journal.json", rest));
    }
    out
}
