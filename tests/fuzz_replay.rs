//! Replays the committed fuzz corpora (fuzz/corpus/<target>/) through the same functions and
//! invariants as the cargo-fuzz targets, on stable, and checks the differential vectors
//! (fuzz/vectors/*.json: inputs with the output of the client's own lexer, made by
//! fuzz/oracle/gen_vectors.py).

use std::path::{Path, PathBuf};

use ccmem::text::{comments, frontmatter, markdown};

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
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn client_lexer_vectors() {
    let mut total = 0;
    let mut bad = Vec::new();
    for file in vector_files() {
        let text = std::fs::read_to_string(&file).expect("vector file readable");
        let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vector file parses");
        for v in vectors {
            total += 1;
            let got = comments::strip(&v.input);
            let edited = matches!(got, std::borrow::Cow::Owned(_));
            let paths: Vec<String> = markdown::imports(&v.input)
                .into_iter()
                .map(|r| r.path)
                .collect();
            if got != v.content || edited != v.stripped {
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
        }
    }
    for b in bad.iter().take(15) {
        eprintln!("{b}");
    }
    assert!(bad.is_empty(), "{} of {} vectors differ", bad.len(), total);
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
