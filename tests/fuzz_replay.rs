//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the same functions and
//! invariants as the cargo-fuzz targets, on stable, and checks the differential vectors
//! (fuzz/vectors/*.json: inputs with the output of the client's own lexer, made by
//! fuzz/oracle/gen_vectors.py).

use std::path::{Path, PathBuf};

use ccmem::text::{comments, frontmatter, markdown};

#[path = "common/records.rs"]
mod records;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(serde::Deserialize)]
struct Vector {
    input: String,
    content: String,
    stripped: bool,
    imports: Vec<String>,
}

fn vector_files() -> Vec<PathBuf> {
    if let Ok(p) = std::env::var("CCMEM_VECTORS") {
        return vec![PathBuf::from(p)];
    }
    let dir = root().join("fuzz/vectors");
    // frontmatter*.json hold the frontmatter reader's vectors (tests/frontmatter_vectors.rs).
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("frontmatter"))
    });
    v.sort();
    v
}

/// Inputs on which the port is known to differ from the client's lexer (rare emphasis and
/// link corner cases in random character soup); listed so that any new difference fails.
fn known_differences() -> std::collections::HashSet<String> {
    let path = root().join("fuzz/known-differences.json");
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<String>>(&t).ok())
        .unwrap_or_default()
        .into_iter()
        .collect()
}

#[test]
fn client_lexer_vectors() {
    let known = known_differences();
    let mut total = 0;
    let mut bad = Vec::new();
    let mut bad_inputs = Vec::new();
    for file in vector_files() {
        let text = std::fs::read_to_string(&file).expect("vector file readable");
        let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vector file parses");
        for v in vectors.into_iter().filter(|v| !known.contains(&v.input)) {
            total += 1;
            let got = comments::strip(&v.input);
            let edited = matches!(got, std::borrow::Cow::Owned(_));
            let paths: Vec<String> = markdown::imports(&v.input)
                .into_iter()
                .map(|r| r.path)
                .collect();
            let strip_ok = got == v.content && edited == v.stripped;
            if !strip_ok {
                bad.push(format!(
                    "strip {:?}\n  want {:?}\n  got  {:?}",
                    v.input, v.content, got
                ));
            }
            if paths != v.imports {
                bad.push(format!(
                    "imports {:?}\n  want {:?}\n  got  {:?}",
                    v.input, v.imports, paths
                ));
            }
            if !strip_ok || paths != v.imports {
                bad_inputs.push(v.input);
            }
        }
    }
    if let Ok(dump) = std::env::var("CCMEM_VECTORS_DUMP") {
        let json = serde_json::to_string_pretty(&bad_inputs).expect("strings serialize");
        std::fs::write(dump, json).expect("dump file writable");
    }
    for b in bad.iter().take(15) {
        eprintln!("{b}");
    }
    assert!(total > 0 || vector_files().is_empty());
    assert!(
        bad.is_empty(),
        "{} of {} vectors differ",
        bad_inputs.len(),
        total
    );
}

fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir: PathBuf = root().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(Path::new(&dir))
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

#[test]
fn replay_frontmatter() {
    for data in corpus("frontmatter") {
        let text = String::from_utf8_lossy(&data);
        let s = frontmatter::split(&text);
        assert!(text.ends_with(s.body));
        assert_eq!(&text[s.body_start..], s.body);
    }
}

#[test]
fn replay_comments() {
    for data in corpus("comments") {
        let text = String::from_utf8_lossy(&data);
        let (out, map) = comments::strip_mapped(&text);
        assert_eq!(out, comments::strip(&text));
        let lines = text.split('\n').count();
        assert_eq!(map.len(), out.split('\n').count());
        assert!(map.windows(2).all(|w| w[0] <= w[1]));
        assert!(map.iter().all(|&l| l < lines));
    }
}

#[test]
fn replay_imports() {
    for data in corpus("imports") {
        let text = String::from_utf8_lossy(&data);
        for r in markdown::imports(&text) {
            assert_eq!(text.as_bytes().get(r.offset), Some(&b'@'));
            assert!(!r.path.is_empty());
        }
    }
}

#[test]
fn replay_cut() {
    use ccmem::text::{cut, js};
    for data in corpus("cut") {
        let Some((&reps, rest)) = data.split_first() else {
            continue;
        };
        let text = String::from_utf8_lossy(rest).repeat(1 + usize::from(reps % 64));
        let body = comments::strip(frontmatter::split(&text).body).into_owned();
        let t = cut::truncate(&body);
        let trimmed = js::trim(&body);
        assert_eq!(t.lines, trimmed.matches('\n').count() + 1);
        assert_eq!(t.utf16, js::utf16_len(trimmed));
        if let Some(c) = &t.cut {
            assert!(
                c.kept_utf16 <= ccmem::constants::INDEX_MAX_UTF16
                    && c.kept_lines <= ccmem::constants::INDEX_MAX_LINES
            );
            assert!(t.content.starts_with(&trimmed[..c.kept_bytes]));
        } else {
            assert_eq!(t.content, trimmed);
        }
    }
}

/// The journal and undo records' corpus (issue 23): nothing outside the memory folder changes.
#[test]
fn replay_records() {
    let inputs = corpus("records");
    assert!(!inputs.is_empty(), "fuzz/corpus/records holds the seeds");
    for data in inputs {
        records::check(&records::from_fuzz(&data));
    }
}
