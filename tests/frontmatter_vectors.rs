//! Replays fuzz/vectors/frontmatter.json (memory-file texts with what the real client's own
//! `qd`/`DDr`/`_u`/`h$` and `Bun.YAML.parse` made of them; fuzz/oracle/gen_frontmatter.py)
//! through `ccmem::text::frontmatter`: the split, the parse (value, lenient or not, or an
//! error), the `_u` rewrite and the memory view must all be equal. Inputs listed in
//! fuzz/frontmatter-known-differences.json (with the reason) are skipped; there are none today.
//! `CCMEM_VECTORS_DUMP=FILE` writes the differing inputs there.

use std::collections::HashSet;
use std::path::PathBuf;

use ccmem::text::frontmatter::{self, Field, Fields, Value, js_number};
use serde_json::{Value as J, json};

#[derive(serde::Deserialize)]
struct Vector {
    input: String,
    split: Option<[usize; 3]>,
    parse: Option<J>,
    lenient_lines: Option<Vec<(usize, String)>>,
    #[serde(default = "no_memory")]
    memory: (Option<String>, Option<String>, J),
}

/// What a vector without `memory` stands for: no name, no description, no metadata.
fn no_memory() -> (Option<String>, Option<String>, J) {
    (None, None, json!({}))
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A value in the vectors' encoding: numbers as `{"$n": String(x)}`.
fn enc(v: &Value) -> J {
    match v {
        Value::Null => J::Null,
        Value::Bool(b) => J::Bool(*b),
        Value::Number(n) if *n == 0.0 && n.is_sign_negative() => json!({"$n": "-0"}),
        Value::Number(n) => json!({"$n": js_number(*n)}),
        Value::String(s) => J::String(s.clone()),
        Value::Array(items) => J::Array(items.iter().map(enc).collect()),
        Value::Object(o) => J::Object(o.iter().map(|(k, v)| (k.to_owned(), enc(v))).collect()),
    }
}

/// Why the port's reading of `v.input` differs from the client's, or `None`.
fn difference(v: &Vector) -> Option<String> {
    let text = &v.input;
    let read = frontmatter::read(text);
    let split = read.yaml_start().map(|start| {
        let yaml = read.split.yaml.unwrap_or_default();
        [start, start + yaml.len(), read.split.body_start]
    });
    if split != v.split {
        return Some(format!("split: port {split:?}, client {:?}", v.split));
    }
    let parse = read.parse.as_ref().map(|p| match p {
        Ok(p) => json!({"ok": enc(&p.value), "lenient": p.lenient}),
        Err(_) => json!({"error": true}),
    });
    let client = v.parse.as_ref().map(|p| match p.get("error") {
        Some(_) => json!({"error": true}),
        None => p.clone(),
    });
    if parse != client {
        let port_error = read.error().map(ToString::to_string);
        return Some(format!(
            "parse: port {parse:?} ({port_error:?}), client {:?}",
            v.parse
        ));
    }
    if let (Some(yaml), Some(changed)) = (read.split.yaml, &v.lenient_lines) {
        let mut expected: Vec<&str> = yaml.split('\n').collect();
        for (i, line) in changed {
            expected[*i] = line;
        }
        let rewritten = frontmatter::lenient::rewrite(yaml);
        if rewritten != expected.join("\n") {
            return Some(format!("_u: port {rewritten:?}, client {expected:?}"));
        }
    }
    let m = read.memory();
    let memory = (
        m.name.clone(),
        m.description.clone(),
        enc(&Value::from(m.metadata)),
    );
    let (name, description, metadata) = &v.memory;
    if (&memory.0, &memory.1, &memory.2) != (name, description, metadata) {
        return Some(format!("memory: port {memory:?}, client {:?}", v.memory));
    }
    // The memory view read straight from the text, when the block is in the simple shape.
    if let Some(fields) = read.split.yaml.and_then(|y| Fields::read(y, &FIELD_KEYS)) {
        let got = (
            fields.name,
            fields.description,
            fields.metadata.map(|f| f.map(|(v, _)| v)),
        );
        let client = (
            name.as_deref(),
            description.as_deref(),
            FIELD_KEYS.map(|k| metadata.get(k).map(field_of)),
        );
        if got != client {
            return Some(format!("fields: port {got:?}, client {client:?}"));
        }
    }
    None
}

/// Keys of the memory view checked on the fast read.
const FIELD_KEYS: [&str; 6] = [
    "type",
    "modified",
    "retired",
    "status",
    "__proto__",
    "group",
];

/// A value of the client's memory view (in the vectors' encoding) as a [`Field`].
fn field_of(v: &J) -> Field<'_> {
    match v {
        J::Null => Field::Null,
        J::Bool(b) => Field::Bool(*b),
        J::String(s) => Field::Text(s),
        _ => Field::Other,
    }
}

fn known_differences() -> HashSet<String> {
    let path = root().join("fuzz/frontmatter-known-differences.json");
    let text = std::fs::read_to_string(&path).expect("known differences file");
    let list: Vec<J> = serde_json::from_str(&text).expect("known differences parse");
    list.iter()
        .filter_map(|d| d.get("input").and_then(J::as_str).map(str::to_owned))
        .collect()
}

#[test]
fn client_frontmatter_vectors() {
    let path = root().join("fuzz/vectors/frontmatter.json");
    let text = std::fs::read_to_string(&path).expect("vector file");
    let vectors: Vec<Vector> = serde_json::from_str(&text).expect("vector file parses");
    assert!(vectors.len() >= 2000, "only {} vectors", vectors.len());
    let lenient = vectors.iter().filter(|v| v.lenient_lines.is_some()).count();
    assert!(
        lenient >= 100,
        "only {lenient} vectors need the lenient pass"
    );
    let known = known_differences();
    let mut diffs = Vec::new();
    let mut mended = Vec::new();
    for v in &vectors {
        match (difference(v), known.contains(&v.input)) {
            (Some(why), false) => diffs.push(json!({"input": v.input, "why": why})),
            (None, true) => mended.push(v.input.clone()),
            _ => {}
        }
    }
    assert!(
        mended.is_empty(),
        "listed as known differences but now equal (remove them from the list): {mended:?}"
    );
    let listed = vectors.iter().filter(|v| known.contains(&v.input)).count();
    assert_eq!(
        listed,
        known.len(),
        "a known difference is not among the vectors"
    );
    if let Ok(out) = std::env::var("CCMEM_VECTORS_DUMP") {
        std::fs::write(out, serde_json::to_string_pretty(&diffs).unwrap()).unwrap();
    }
    let first: Vec<String> = diffs.iter().take(5).map(|d| d.to_string()).collect();
    assert!(
        diffs.is_empty(),
        "{} of {} vectors differ; first:\n{}",
        diffs.len(),
        vectors.len(),
        first.join("\n")
    );
}

/// A vector of fuzz/vectors/frontmatter-bombs.json (fuzz/oracle/gen_bombs.py): frontmatter
/// naming far more nodes than it holds, summarised as fuzz/oracle/bomb_oracle.js says.
#[derive(serde::Deserialize)]
struct Bomb {
    input: String,
    strict: Option<String>,
    error: Option<String>,
    keys: Vec<J>,
    json_length: u64,
    memory: (Option<String>, Option<String>),
    paths: Option<BombPaths>,
}

#[derive(serde::Deserialize)]
struct BombPaths {
    count: u64,
    last: Vec<String>,
    listed: Option<Vec<String>>,
}

/// `JSON.stringify(v).length` (UTF-16 units), each shared list and object measured once. A
/// key ccmem keeps as a stand-in for a long text counts that text (ASCII in these vectors).
fn json_length(v: &Value, memo: &mut std::collections::HashMap<usize, u64>) -> u64 {
    let string = |s: &str| -> u64 {
        if let Some(rest) = s.strip_prefix('\u{FDD1}') {
            let bytes: u64 = rest.split(' ').next().unwrap().parse().unwrap();
            return bytes + 2;
        }
        serde_json::to_string(s).unwrap().encode_utf16().count() as u64
    };
    match v {
        Value::Null => 4,
        Value::Bool(b) => {
            if *b {
                4
            } else {
                5
            }
        }
        Value::Number(n) if n.is_finite() => js_number(*n).len() as u64,
        Value::Number(_) => 4,
        Value::String(s) => string(s),
        Value::Array(items) => {
            let at = std::sync::Arc::as_ptr(items) as usize;
            if let Some(&n) = memo.get(&at) {
                return n;
            }
            let inner: u64 = items.iter().map(|i| json_length(i, memo)).sum();
            let n = 2 + inner + items.len().saturating_sub(1) as u64;
            memo.insert(at, n);
            n
        }
        Value::Object(o) => {
            let at = std::sync::Arc::as_ptr(o) as usize;
            if let Some(&n) = memo.get(&at) {
                return n;
            }
            let inner: u64 = o
                .iter()
                .map(|(k, v)| string(k) + 1 + json_length(v, memo))
                .sum();
            let n = 2 + inner + o.len().saturating_sub(1) as u64;
            memo.insert(at, n);
            n
        }
    }
}

fn bomb_difference(v: &Bomb) -> Option<String> {
    let read = frontmatter::read(&v.input);
    let yaml = read.split.yaml.unwrap_or_default();
    let strict = frontmatter::yaml::parse(yaml).err();
    if strict.is_some() != v.strict.is_some() {
        return Some(format!("strict: port {strict:?}, client {:?}", v.strict));
    }
    if read.error().is_some() != v.error.is_some() {
        return Some(format!(
            "error: port {:?}, client {:?}",
            read.error(),
            v.error
        ));
    }
    let front = read.frontmatter();
    let keys: Vec<J> = front
        .iter()
        .map(|(k, _)| match k.strip_prefix('\u{FDD1}') {
            Some(rest) => {
                json!({"length": rest.split(' ').next().unwrap().parse::<u64>().unwrap()})
            }
            None => J::String(k.to_owned()),
        })
        .collect();
    if keys != v.keys {
        return Some(format!("keys: port {keys:?}, client {:?}", v.keys));
    }
    let length = json_length(&Value::from(front), &mut Default::default());
    if length != v.json_length {
        return Some(format!(
            "JSON length: port {length}, client {}",
            v.json_length
        ));
    }
    let m = read.memory();
    if (&m.name, &m.description) != (&v.memory.0, &v.memory.1) {
        return Some(format!(
            "memory: port {:?}, client {:?}",
            (m.name, m.description),
            v.memory
        ));
    }
    let paths = ccmem::load::rule_paths::patterns(yaml).filter(|p| p.iter().any(|g| g != "**"));
    let want = v.paths.as_ref().map(|p| match &p.listed {
        Some(listed) if p.count <= ccmem::load::rule_paths::MAX_LISTED => listed.clone(),
        _ => p.last.clone(),
    });
    (paths != want).then(|| {
        let cut = |p: &Option<Vec<String>>| {
            p.as_ref()
                .map(|p| p.iter().take(8).cloned().collect::<Vec<_>>())
        };
        format!("paths: port {:?}, client {:?}", cut(&paths), cut(&want))
    })
}

/// Alias bombs, merge amplification and aliases as keys read as the client reads them: which
/// blocks Bun refuses (its 16 Mi alias nodes, its 1 Mi merged properties, exactly at the
/// limits), the keys and the size of what it builds, the memory view, and a rule's pattern list
/// (as the client lists it, or each pattern once at its last place past `MAX_LISTED`).
#[test]
fn client_frontmatter_bomb_vectors() {
    let path = root().join("fuzz/vectors/frontmatter-bombs.json");
    let text = std::fs::read_to_string(&path).expect("vector file");
    let vectors: Vec<Bomb> = serde_json::from_str(&text).expect("vector file parses");
    assert!(vectors.len() >= 40, "only {} vectors", vectors.len());
    let refused = vectors.iter().filter(|v| v.strict.is_some()).count();
    assert!(
        refused >= 10 && refused < vectors.len() - 10,
        "{refused} refused"
    );
    let diffs: Vec<String> = vectors
        .iter()
        .enumerate()
        .filter_map(|(i, v)| bomb_difference(v).map(|d| format!("#{i}: {d}")))
        .collect();
    assert!(
        diffs.is_empty(),
        "{} of {} differ:\n{}",
        diffs.len(),
        vectors.len(),
        diffs.join("\n")
    );
}
