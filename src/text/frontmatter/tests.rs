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
