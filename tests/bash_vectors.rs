//! Replays fuzz/vectors-bash/commands.json (Bash commands with the reads the real client's own
//! `ELi` finds in them; fuzz/oracle/gen_bash_vectors.py) through `ccmem::load::bash`: every
//! command must give the same reads, except those listed with a reason in
//! fuzz/vectors-bash/known-differences.json (none today). `CCMEM_BASH_DIFFS=FILE` writes the
//! differences there. (An integration test, not a unit test: the vectors live in the fuzz
//! package, which the crate's package cannot carry.)

use ccmem::load::bash::client_reads;
use ccmem::load::bash::forms::Lines;
use serde_json::{Value, json};

fn read(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/vectors-bash")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The reads as `fuzz/oracle/gen_bash_vectors.py` writes them.
fn normalized(command: &str) -> Value {
    let reads: Vec<Value> = client_reads(command)
        .into_iter()
        .map(|r| {
            let (start, end, tail) = match r.lines {
                Lines::All => (None, None, None),
                Lines::Range { start, end } => (Some(start), Some(end), None),
                Lines::Tail { n } => (None, None, Some(n)),
            };
            json!({"file": r.file, "start": start, "end": end, "tail": tail,
                   "numbered": r.numbered, "grep": r.grep})
        })
        .collect();
    Value::Array(reads)
}

/// Every vector generated from the client's own `ELi` (fuzz/vectors-bash/commands.json) must give the
/// same reads, except the commands listed with a reason in `fuzz/vectors-bash/known-differences.json`.
#[test]
fn client_vectors_agree() {
    let vectors: Vec<Value> = serde_json::from_str(&read("commands.json")).unwrap();
    let known: Value = serde_json::from_str(&read("known-differences.json")).unwrap();
    let known: Vec<&str> = known
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["command"].as_str().unwrap())
        .collect();
    assert!(vectors.len() > 1000);
    let mut diffs = Vec::new();
    for v in &vectors {
        let command = v["command"].as_str().unwrap();
        let got = normalized(command);
        if got != v["reads"] && !known.contains(&command) {
            diffs.push(format!(
                "{command:?}\n  client: {}\n  ccmem:  {got}",
                v["reads"]
            ));
        }
    }
    if let Ok(path) = std::env::var("CCMEM_BASH_DIFFS") {
        std::fs::write(path, diffs.join("\n")).unwrap();
    }
    assert!(
        diffs.is_empty(),
        "{} differences:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}
