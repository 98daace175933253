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
        enc(&Value::Object(m.metadata)),
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
