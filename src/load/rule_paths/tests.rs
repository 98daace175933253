//! Pattern lists and conditional detection (SPEC-instructions §7.3–7.4).

use super::*;

fn cond(yaml: &str) -> Option<Vec<String>> {
    is_conditional(Some(yaml))
}

#[test]
fn unconditional_values() {
    for yaml in [
        "",
        "globs: src/**",
        "paths:",
        "paths: null",
        "paths: ''",
        "paths: 0",
        "paths: false",
        "paths: 12",
        "paths: []",
        "paths: {a: 1}",
        "paths: '**'",
        "paths: ['**/**', '**']",
        "paths: '{**,**}'",
        "- a\n- b",
    ] {
        assert_eq!(cond(yaml), None, "{yaml:?}");
    }
    assert_eq!(is_conditional(None), None);
}

#[test]
fn conditional_values() {
    let cases: [(&str, &[&str]); 8] = [
        ("paths: src/**", &["src"]),
        ("paths: '*.py'", &["*.py"]),
        ("paths: '{**,x}'", &["**", "x"]),
        ("paths: ['**', a.md]", &["**", "a.md"]),
        ("paths: src/**/*.{ts,tsx}", &["src/**/*.ts", "src/**/*.tsx"]),
        ("paths: a, b ,c/**", &["a", "b", "c"]),
        (
            "paths:\n  - x\n  - [y, 'z,w']\n  - 3",
            &["x", "y", "z", "w"],
        ),
        ("paths: yes", &["yes"]),
    ];
    for (yaml, want) in cases {
        assert_eq!(
            cond(yaml),
            Some(want.iter().map(|s| s.to_string()).collect()),
            "{yaml:?}"
        );
    }
}

#[test]
fn invalid_yaml_is_reread_leniently() {
    assert_eq!(cond("paths: [unclosed").unwrap(), ["[unclosed"]);
    assert_eq!(cond("paths: *.md").unwrap(), ["*.md"]);
    assert_eq!(cond("x: [\npaths: a").unwrap(), ["a"]);
    assert_eq!(cond("paths: \"a\\\\b\" x: {").unwrap(), ["\"a\\\\b\" x: {"]);
}

#[test]
fn empty_patterns_and_globstar_suffix_dropped() {
    assert_eq!(patterns("paths: ['/**', '', x/**/**]").unwrap(), ["x/**"]);
    assert_eq!(patterns("paths: ' , '"), Some(vec![]));
}

#[test]
fn brace_budget_boundary() {
    let yaml = |n: usize| format!("paths: '{{{}}}'", vec!["**"; n].join(","));
    assert_eq!(cond(&yaml(1000)), None);
    assert!(cond(&yaml(1001)).is_some());
}

#[test]
fn matching_uses_base_and_rejects_outside() {
    let globs = vec!["lib/*.py".to_owned()];
    let base = Path::new("/r/proj/sub");
    assert_eq!(
        matching_pattern(&globs, base, Path::new("/r/proj/sub/lib/m.py")).as_deref(),
        Some("lib/*.py")
    );
    assert_eq!(
        matching_pattern(&globs, base, Path::new("/r/proj/lib/m.py")),
        None
    );
    assert_eq!(matching_pattern(&globs, base, base), None);
}

proptest::proptest! {
    #[test]
    fn any_yaml_is_handled(yaml in "(paths: )?[ -~\n\t]{0,40}") {
        let _ = is_conditional(Some(&yaml));
    }
}

fn to_value(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::String(s) => Value::Str(s.clone()),
        serde_json::Value::Array(a) => {
            Value::List(std::sync::Arc::new(a.iter().map(to_value).collect()))
        }
        serde_json::Value::Null | serde_json::Value::Bool(false) => Value::Falsy,
        serde_json::Value::Number(n) if n.as_f64() == Some(0.0) => Value::Falsy,
        _ => Value::Truthy,
    }
}

/// Differential vectors: the client's `vAi` (with `p6n`/`ra`/`Eu`) run under node. (In the
/// repository, not in the published crate: build.rs sets `ccmem_repository` where they are.)
#[test]
#[cfg_attr(
    not(ccmem_repository),
    ignore = "reads tests/oracle/matcher/, which only the repository holds"
)]
fn pattern_lists_agree_with_the_client() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/matcher/expand-vectors.jsonl"
    );
    let data = &std::fs::read_to_string(path).unwrap();
    let mut failures = Vec::new();
    for line in data.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let got = list(&to_value(&v["v"]));
        let got = (!got.iter().all(|p| p == "**")).then_some(got);
        let want: Option<Vec<String>> = serde_json::from_value(v["r"].clone()).unwrap();
        if got != want {
            failures.push(line.chars().take(300).collect::<String>());
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagree:\n{}",
        failures.len(),
        failures[..failures.len().min(10)].join("\n")
    );
}
