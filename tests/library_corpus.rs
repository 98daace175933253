//! The library corpus (tests/fixtures/libraries/, README.md there) is self-consistent: every
//! file expect.toml names exists, planted line numbers hold what they claim, broken links are
//! broken and the links said to resolve do, the frontmatter lists are what the client-true reader
//! (`ccmem::text::frontmatter`) makes of each file, and the index numbers are what the client's
//! measure gives. This tests the corpus, not ccmem's audit.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ccmem::text::{comments, cut, frontmatter, line_of};
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    description: String,
    spec: String,
    languages: Vec<String>,
    memory: String,
    home: Option<String>,
    modified_anywhere: bool,
    crlf: Vec<String>,
    bom: Vec<String>,
    index: Option<Index>,
    frontmatter: Lists,
    #[serde(default)]
    broken_link: Vec<Plant>,
    #[serde(default)]
    link: Vec<Plant>,
    #[serde(default)]
    unmatched_wiki: Vec<Plant>,
    #[serde(default)]
    not_a_link: Vec<Plant>,
    /// A link out of the memory folder (a sibling repository) whose target is missing:
    /// unverifiable, not broken.
    #[serde(default)]
    outside_link: Vec<Plant>,
    #[serde(default)]
    duplicate_link: Vec<Plant>,
    #[serde(default)]
    rule_line: Vec<Plant>,
    #[serde(default)]
    prose_line: Vec<Plant>,
    #[serde(default)]
    hub: Vec<Plant>,
    #[serde(default)]
    dark_entry: Vec<Plant>,
    #[serde(default)]
    loaded_entry: Vec<Plant>,
    #[serde(default)]
    secret: Vec<Plant>,
    #[serde(default)]
    lookalike: Vec<Plant>,
    #[serde(default)]
    lossy_value: Vec<Plant>,
    #[serde(default)]
    type_as_read: Vec<Plant>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    file: String,
    lines: usize,
    utf16: usize,
    bytes: usize,
    over_cap: bool,
    first_dark_line: Option<usize>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Lists {
    reads_fine: Vec<String>,
    lenient: Vec<String>,
    invalid: Vec<String>,
    not_a_table: Vec<String>,
    none: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Plant {
    file: String,
    line: usize,
    text: String,
    target: Option<String>,
    resolves_to: Option<String>,
    name: Option<String>,
    kind: Option<String>,
    key: Option<String>,
    read_as: Option<String>,
    #[serde(rename = "type")]
    kind_read: Option<String>,
    entries: Option<usize>,
}

struct Lib {
    name: String,
    root: PathBuf,
    memory: PathBuf,
    expect: Expect,
}

fn libraries() -> Vec<Lib> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/libraries");
    let mut out: Vec<Lib> = std::fs::read_dir(&dir)
        .expect("corpus folder")
        .flatten()
        .filter(|e| e.path().join("expect.toml").is_file())
        .map(|e| {
            let root = e.path();
            let text = std::fs::read_to_string(root.join("expect.toml")).unwrap();
            let expect: Expect = toml::from_str(&text)
                .unwrap_or_else(|err| panic!("{}: expect.toml: {err}", root.display()));
            Lib {
                name: e.file_name().to_string_lossy().into_owned(),
                memory: root.join(&expect.memory),
                root,
                expect,
            }
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// Every file under `dir`, relative, `/`-separated.
fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let rel = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}/{name}")
        };
        if e.file_type().unwrap().is_dir() {
            walk(&e.path(), &rel, out);
        } else {
            out.push(rel);
        }
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The 1-based `line` of `text` (CRLF counts as one break).
fn nth_line(text: &str, line: usize) -> &str {
    text.split('\n')
        .nth(line - 1)
        .map_or("", |l| l.trim_end_matches('\r'))
}

#[test]
fn corpus_has_twelve_to_sixteen_small_libraries() {
    let libs = libraries();
    assert!((12..=16).contains(&libs.len()), "{} libraries", libs.len());
    for lib in &libs {
        let mut files = Vec::new();
        walk(&lib.memory, "", &mut files);
        assert!(
            (5..=120).contains(&files.len()),
            "{}: {} files",
            lib.name,
            files.len()
        );
        let bytes: u64 = files
            .iter()
            .map(|f| lib.memory.join(f).metadata().unwrap().len())
            .sum();
        assert!(bytes < 100_000, "{}: {bytes} bytes", lib.name);
        assert!(!lib.expect.description.is_empty() && !lib.expect.languages.is_empty());
        assert!(
            ["client", "claude-memory-manager", "mixed"].contains(&lib.expect.spec.as_str()),
            "{}: spec {}",
            lib.name,
            lib.expect.spec
        );
        assert_eq!(
            lib.expect.home.is_some(),
            lib.root.join("home").is_dir(),
            "{}",
            lib.name
        );
    }
}

#[test]
fn frontmatter_lists_are_what_the_client_true_reader_reads() {
    for lib in libraries() {
        let l = &lib.expect.frontmatter;
        let mut md = Vec::new();
        walk(&lib.memory, "", &mut md);
        let md: BTreeSet<String> = md
            .into_iter()
            .filter(|f| f.ends_with(".md") && f != "MEMORY.md")
            .collect();
        let mut listed = BTreeSet::new();
        for f in l
            .reads_fine
            .iter()
            .chain(&l.invalid)
            .chain(&l.not_a_table)
            .chain(&l.none)
        {
            assert!(listed.insert(f.clone()), "{}: {f} listed twice", lib.name);
        }
        assert_eq!(
            listed, md,
            "{}: the lists must cover every memory file once",
            lib.name
        );
        let mut modified = false;
        for f in &md {
            let text = read(&lib.memory.join(f));
            let r = frontmatter::read(&text);
            let at = format!("{}/{f}", lib.name);
            if l.none.contains(f) {
                assert!(r.split.yaml.is_none(), "{at}: has a block");
                continue;
            }
            let parsed = r.parse.as_ref().unwrap_or_else(|| panic!("{at}: no block"));
            if l.invalid.contains(f) {
                assert!(parsed.is_err(), "{at}: parses");
                continue;
            }
            let p = parsed.as_ref().unwrap_or_else(|e| panic!("{at}: {e}"));
            if l.not_a_table.contains(f) {
                assert!(p.table().is_none(), "{at}: is a table");
                continue;
            }
            assert!(
                p.table().is_some() || p.value == frontmatter::Value::Null,
                "{at}: not a table"
            );
            assert_eq!(p.lenient, l.lenient.contains(f), "{at}: lenient");
            modified |= r.memory().text("modified").is_some();
        }
        assert!(
            l.lenient.iter().all(|f| l.reads_fine.contains(f)),
            "{}",
            lib.name
        );
        assert_eq!(
            modified, lib.expect.modified_anywhere,
            "{}: modified_anywhere",
            lib.name
        );
        for f in &lib.expect.crlf {
            assert!(
                read(&lib.memory.join(f)).contains("\r\n"),
                "{}/{f}: no CRLF",
                lib.name
            );
        }
        for f in &lib.expect.bom {
            assert!(
                read(&lib.memory.join(f)).starts_with('\u{feff}'),
                "{}/{f}: no BOM",
                lib.name
            );
        }
    }
}

#[test]
fn index_numbers_are_the_clients_measure() {
    for lib in libraries() {
        let Some(ix) = &lib.expect.index else {
            continue;
        };
        let text = read(&lib.memory.join(&ix.file));
        let body = frontmatter::split(&text).body;
        let stripped = comments::strip(body);
        let t = cut::truncate(&stripped);
        let at = &lib.name;
        assert_eq!(
            (t.lines, t.utf16, t.trimmed_bytes),
            (ix.lines, ix.utf16, ix.bytes),
            "{at}"
        );
        assert_eq!(t.cut.is_some(), ix.over_cap, "{at}: over_cap");
        match (&t.cut, ix.first_dark_line) {
            (Some(c), Some(line)) => {
                assert_eq!(
                    stripped, body,
                    "{at}: an over-cap index with frontmatter or comments"
                );
                let first_dropped = body.len() - body.trim_start().len() + c.kept_bytes + 1;
                assert_eq!(line_of(body, first_dropped), line, "{at}: first_dark_line");
            }
            (None, None) => {}
            other => panic!("{at}: first_dark_line {other:?}"),
        }
    }
}

/// Where a link target points: `~/` in the fake HOME, else relative to the linking file.
fn resolve(lib: &Lib, from: &str, target: &str) -> PathBuf {
    let target = target.split('#').next().unwrap_or(target);
    if let Some(rest) = target.strip_prefix("~/") {
        return lib
            .root
            .join(lib.expect.home.as_deref().unwrap_or("home"))
            .join(rest);
    }
    let dir = Path::new(from).parent().unwrap_or(Path::new(""));
    lib.memory.join(dir).join(target)
}

/// Every memory's `name:` as the client reads it.
fn names(lib: &Lib) -> Vec<(String, String)> {
    let mut files = Vec::new();
    walk(&lib.memory, "", &mut files);
    files
        .into_iter()
        .filter(|f| f.ends_with(".md"))
        .filter_map(|f| {
            let name = frontmatter::read(&read(&lib.memory.join(&f)))
                .memory()
                .name?;
            Some((name, f))
        })
        .collect()
}

/// Markdown link targets of `line` (images and URLs left out; `<…>` and `#…` removed).
fn md_links(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(i) = rest.find("](") {
        let image = rest[..i]
            .rfind('[')
            .is_some_and(|o| o > 0 && rest.as_bytes()[o - 1] == b'!');
        let after = &rest[i + 2..];
        let Some(end) = after.find(')') else { break };
        let t = after[..end].trim_start_matches('<').trim_end_matches('>');
        let t = t.split('#').next().unwrap_or(t);
        if !image && !t.contains("://") && !t.is_empty() {
            out.push(t.to_owned());
        }
        rest = &after[end..];
    }
    if let Some(def) = line.strip_prefix('[').and_then(|l| l.split_once("]: ")) {
        out.push(def.1.trim().to_owned());
    }
    out
}

#[test]
fn every_link_not_planted_as_broken_resolves() {
    for lib in libraries() {
        let names = names(&lib);
        let mut files = Vec::new();
        walk(&lib.memory, "", &mut files);
        for f in files.iter().filter(|f| f.ends_with(".md")) {
            let text = read(&lib.memory.join(f));
            for (i, line) in text.split('\n').enumerate() {
                let at = format!("{}/{f}:{}", lib.name, i + 1);
                let planted = |v: &Vec<Plant>| v.iter().any(|p| p.file == *f && p.line == i + 1);
                if planted(&lib.expect.broken_link) || planted(&lib.expect.outside_link) {
                    continue;
                }
                for t in md_links(line) {
                    assert!(
                        resolve(&lib, f, &t).exists(),
                        "{at}: broken link to {t} not planted"
                    );
                }
                for w in line
                    .split("[[")
                    .skip(1)
                    .filter_map(|s| s.split_once("]]"))
                    .map(|s| s.0)
                {
                    let named = names.iter().any(|(n, _)| n == w);
                    let unmatched = lib
                        .expect
                        .unmatched_wiki
                        .iter()
                        .any(|p| p.name.as_deref() == Some(w));
                    let frontmatter = frontmatter::split(&text)
                        .yaml
                        .is_some_and(|y| y.contains(&format!("[[{w}]]")));
                    assert!(
                        named || unmatched || frontmatter,
                        "{at}: [[{w}]] neither a name nor planted"
                    );
                }
            }
        }
    }
}

#[test]
fn planted_items_hold_what_they_claim() {
    let mut secrets = 0;
    let mut lookalikes = 0;
    for lib in libraries() {
        let e = &lib.expect;
        let tables: [(&str, &Vec<Plant>); 15] = [
            ("broken_link", &e.broken_link),
            ("outside_link", &e.outside_link),
            ("link", &e.link),
            ("unmatched_wiki", &e.unmatched_wiki),
            ("not_a_link", &e.not_a_link),
            ("duplicate_link", &e.duplicate_link),
            ("rule_line", &e.rule_line),
            ("prose_line", &e.prose_line),
            ("hub", &e.hub),
            ("dark_entry", &e.dark_entry),
            ("loaded_entry", &e.loaded_entry),
            ("secret", &e.secret),
            ("lookalike", &e.lookalike),
            ("lossy_value", &e.lossy_value),
            ("type_as_read", &e.type_as_read),
        ];
        let names = names(&lib);
        for (table, plants) in tables {
            for p in plants {
                let at = format!("{}/{}:{} [{table}]", lib.name, p.file, p.line);
                let text = read(&lib.memory.join(&p.file));
                let line = nth_line(&text, p.line);
                assert!(
                    line.contains(&p.text),
                    "{at}: {line:?} does not hold {:?}",
                    p.text
                );
                let target = || {
                    p.target
                        .as_deref()
                        .unwrap_or_else(|| panic!("{at}: no target"))
                };
                match table {
                    "broken_link" => {
                        // A case-only mismatch (`Reference_Staging.md`) is broken on a
                        // case-sensitive file system, where this test runs.
                        let path = resolve(&lib, &p.file, target());
                        assert!(!path.exists(), "{at}: {} exists", path.display());
                    }
                    "link" => {
                        let to = lib
                            .root
                            .join(p.resolves_to.as_deref().expect("resolves_to"));
                        assert!(to.is_file(), "{at}: {} missing", to.display());
                        let t = target();
                        if t.ends_with(".md") || t.starts_with("~/") {
                            assert_eq!(resolve(&lib, &p.file, t), to, "{at}");
                        } else {
                            let rel = to
                                .strip_prefix(&lib.memory)
                                .unwrap()
                                .to_string_lossy()
                                .into_owned();
                            assert!(
                                names.contains(&(t.to_owned(), rel)),
                                "{at}: no memory named {t}"
                            );
                        }
                    }
                    "unmatched_wiki" => {
                        let n = p.name.as_deref().expect("name");
                        assert!(line.contains(&format!("[[{n}]]")), "{at}");
                        assert!(
                            names.iter().all(|(m, _)| m != n),
                            "{at}: a memory is named {n}"
                        );
                    }
                    "duplicate_link" => {
                        let needle = format!("]({})", target());
                        let count = text.matches(&needle).count();
                        assert!(count >= 2, "{at}: {needle} once");
                    }
                    "rule_line" => assert!(!line.contains("]("), "{at}: has a link"),
                    "prose_line" => {
                        assert!(line.contains("](") && !line.starts_with("- ["), "{at}")
                    }
                    "hub" => {
                        let hub = read(&lib.memory.join(target()));
                        let entries = hub.lines().filter(|l| l.starts_with("- [")).count();
                        assert!(entries >= 1, "{at}: empty hub");
                        if let Some(n) = p.entries {
                            assert_eq!(entries, n, "{at}: entries");
                        }
                    }
                    "dark_entry" | "loaded_entry" => {
                        let first = e
                            .index
                            .as_ref()
                            .and_then(|i| i.first_dark_line)
                            .expect("over cap");
                        assert_eq!(p.line >= first, table == "dark_entry", "{at}");
                        assert!(lib.memory.join(target()).is_file(), "{at}: target missing");
                    }
                    "secret" => secrets += 1,
                    "lookalike" => lookalikes += 1,
                    "lossy_value" => {
                        assert_eq!(p.key.as_deref(), Some("description"), "{at}");
                        let m = frontmatter::read(&text).memory();
                        assert_eq!(m.description.as_deref(), p.read_as.as_deref(), "{at}");
                    }
                    "type_as_read" => {
                        let m = frontmatter::read(&text).memory();
                        assert_eq!(m.text("type"), p.kind_read.as_deref(), "{at}");
                    }
                    _ => {}
                }
                if matches!(table, "secret" | "lookalike") {
                    assert!(p.kind.is_some(), "{at}: no kind");
                }
            }
        }
    }
    assert!(
        secrets >= 8 && lookalikes >= 10,
        "{secrets} secrets, {lookalikes} look-alikes"
    );
}
