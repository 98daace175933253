use super::*;

fn ok(yaml: &str) -> Parsed {
    parse(yaml).unwrap_or_else(|e| panic!("{yaml:?}: {e}"))
}

#[test]
fn strict_first_then_lenient() {
    let p = ok("name: a\ndescription: b\n");
    assert!(!p.lenient);
    let p = ok("description: Wanneer X documenteren: schrijf \"spatie na de :\"\n");
    assert!(p.lenient);
    assert_eq!(
        p.table()
            .and_then(|t| t.get("description"))
            .and_then(Value::as_str),
        Some("Wanneer X documenteren: schrijf \"spatie na de :\"")
    );
}

#[test]
fn a_failure_names_its_line_in_the_file() {
    let text = "---\nname: a\nmy tags: [x\n---\nbody\n";
    let r = read(text);
    assert!(r.error().is_some());
    assert_eq!(r.error_line(), Some(3));
    assert_eq!(r.frontmatter(), Object::new());
}

#[test]
fn lists_and_scalars_read_as_empty_tables() {
    for text in [
        "---\n- a\n- b\n---\n",
        "---\njust words\n---\n",
        "---\n\n---\n",
    ] {
        let r = read(text);
        assert!(r.error().is_none(), "{text:?}");
        assert!(r.frontmatter().is_empty(), "{text:?}");
    }
}

#[test]
fn memory_view_lays_metadata_over_top_level_keys() {
    let m = read("---\nname: x\ntype: feedback\nmetadata:\n  type: user\n  k: ~\n---\n").memory();
    assert_eq!(m.name.as_deref(), Some("x"));
    assert_eq!(m.text("type"), Some("user"));
    assert_eq!(m.metadata.get("k"), Some(&Value::Null));
    let m = read("---\nname: 123\ndescription: ''\ntype: project\nstatus: ~\n---\n").memory();
    assert_eq!((&m.name, &m.description), (&None, &None));
    assert_eq!(m.text("type"), Some("project"));
    assert!(!m.metadata.contains("status"));
}

/// Keys the memory readers ask for, and keys at the view's edges: `__proto__` (dropped at the
/// top, kept in `metadata:`), `name` (never a top-level `metadata` key), keys written as
/// numbers or words (`1e3` is `"1000"`, `True` is `"true"`, `Null` is `"null"`).
const FIELD_KEYS: [&str; 11] = [
    "type",
    "modified",
    "retired",
    "status",
    "__proto__",
    "name",
    "description",
    "1000",
    "null",
    "true",
    "x-y",
];

/// Blocks of `key: value` lines and `key:` blocks, mostly in the YAML fast path's shape, with
/// the keys of the memory view and near misses (a deeper line, a value only the full parser
/// reads, a key set twice, an empty `metadata:`).
pub(crate) fn simple_blocks() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let key = prop::sample::select(vec![
        "name",
        "description",
        "metadata",
        "type",
        "modified",
        "retired",
        "status",
        "group",
        "superseded_by",
        "replaced_by",
        "node_type",
        "__proto__",
        "1e3",
        "1000",
        "Null",
        "True",
        "x-y",
        "k_1",
    ]);
    let value = prop::sample::select(vec![
        "",
        "x",
        "feedback",
        "two words",
        "~",
        "null",
        "true",
        "TRUE",
        "tRue",
        "'true'",
        "\"\"",
        "''",
        "012",
        "-0",
        "1e3",
        ".nan",
        "2026-01-02",
        "2026-01-02T00:00:00Z",
        "a:b",
        "\"quoted\"",
        "'single'",
        "'it''s'",
        "[a]",
        "{a: 1}",
        "a: b",
        "x # c",
        "中文：说明",
        "x ",
    ]);
    let entry = (key.clone(), value.clone()).prop_map(|(k, v)| format!("{k}: {v}"));
    let nested = (
        prop::sample::select(vec![1usize, 2, 4]),
        proptest::collection::vec((entry.clone(), 0..16u8), 0..4),
    )
        .prop_map(|(width, entries)| {
            entries
                .into_iter()
                .map(|(e, r)| format!("\n{}{e}", " ".repeat(width + usize::from(r == 0))))
                .collect::<String>()
        });
    let line = prop_oneof![
        3 => entry,
        1 => (key, nested).prop_map(|(k, n)| format!("{k}:{n}")),
        1 => Just(String::new()),
    ];
    proptest::collection::vec(line, 1..7).prop_map(|lines| lines.join("\n") + "\n")
}

/// Whether the fast read of `yaml` took it, after checking it against the full parse and the
/// owned memory view.
fn fields_agree(yaml: &str) -> bool {
    let Some(fast) = Fields::read(yaml, &FIELD_KEYS) else {
        return false;
    };
    let parsed = ok(yaml);
    assert!(!parsed.lenient, "{yaml:?}");
    let table = parsed.table().unwrap_or_else(|| panic!("{yaml:?}"));
    assert_eq!(fast, Fields::of(table, &FIELD_KEYS), "{yaml:?}");
    let memory = Memory::from_frontmatter(table);
    assert_eq!(fast.name, memory.name.as_deref(), "{yaml:?}");
    assert_eq!(fast.description, memory.description.as_deref(), "{yaml:?}");
    for (k, got) in FIELD_KEYS.iter().zip(fast.metadata) {
        let want = memory.metadata.get(k).map(Field::of);
        assert_eq!(got.map(|(v, _)| v), want, "{k} in {yaml:?}");
    }
    true
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
    #[test]
    fn fields_read_from_the_text_agree_with_the_parse(yaml in simple_blocks()) {
        fields_agree(&yaml);
    }
}

#[test]
fn fields_read_from_the_text_take_most_generated_blocks() {
    use proptest::strategy::{Strategy, ValueTree};
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let blocks: Vec<String> = (0..2000)
        .map(|_| simple_blocks().new_tree(&mut runner).unwrap().current())
        .collect();
    let taken = blocks.iter().filter(|b| fields_agree(b)).count();
    // About a third are in the shape; fewer than a fifth means the fast read stopped taking
    // them (and the agreement above proves little).
    assert!(taken > blocks.len() / 5, "took {taken} of {}", blocks.len());
}

#[test]
fn fields_keep_the_memory_view_edges() {
    let f = |yaml| Fields::read(yaml, &FIELD_KEYS).unwrap();
    // A nested `metadata.type` wins, and a null inside `metadata:` is kept (over `type`).
    let got = f("type: user\nmetadata:\n  type: feedback\n");
    assert_eq!(got.metadata[0], Some((Field::Text("feedback"), true)));
    let got = f("type: user\nmetadata:\n  type: ~\n");
    assert_eq!(got.metadata[0], Some((Field::Null, true)));
    // A second `metadata:` replaces the first; a scalar `metadata` is ignored.
    let got = f("metadata:\n  type: a\nmetadata:\n  status: b\ntype: c\n");
    assert_eq!(got.metadata[0], Some((Field::Text("c"), false)));
    let got = f("metadata:\n  type: a\nmetadata: x\n");
    assert_eq!(got.metadata[0], None);
    // `__proto__` is dropped at the top, kept in `metadata:`; `name` is no metadata key.
    let got = f("__proto__: a\nname: n\n");
    assert_eq!((got.metadata[4], got.metadata[5]), (None, None));
    assert_eq!(got.name, Some("n"));
    let got = f("metadata:\n  __proto__: a\n  name: m\n");
    assert_eq!(got.metadata[4], Some((Field::Text("a"), true)));
    assert_eq!(got.metadata[5], Some((Field::Text("m"), true)));
    // Keys read as the engine writes them; a `key:` block over a key makes it no text.
    let got = f("1e3: a\nTrue: b\nNull: c\ndescription:\n  x: y\n");
    assert_eq!(
        got.metadata[7..10],
        [
            Some((Field::Text("a"), false)),
            Some((Field::Text("c"), false)),
            Some((Field::Text("b"), false)),
        ]
    );
    assert_eq!(got.description, None);
    assert!(Fields::read("name: a\n  deeper: b\n", &FIELD_KEYS).is_none());
}
