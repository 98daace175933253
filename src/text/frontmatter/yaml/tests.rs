use super::super::value::{Object, Value};
use super::parse;

fn s(x: &str) -> Value {
    Value::String(x.to_owned())
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.clone()))
            .collect::<Object>(),
    )
}

#[test]
fn documents() {
    assert_eq!(parse(""), Ok(Value::Null));
    assert_eq!(parse("# only a comment\n"), Ok(Value::Null));
    assert_eq!(parse("x"), Ok(s("x")));
    assert_eq!(
        parse("a: 1\n...\nb: 2\n"),
        Ok(Value::Array(vec![
            obj(&[("a", Value::Number(1.0))]),
            obj(&[("b", Value::Number(2.0))])
        ]))
    );
    assert_eq!(
        parse("...\na: x\n"),
        Ok(Value::Array(vec![Value::Null, obj(&[("a", s("x"))])]))
    );
}

#[test]
fn duplicate_keys_anchors_and_merges() {
    assert_eq!(
        parse("a: 1\nb: 2\na: 3\n"),
        Ok(obj(&[("a", Value::Number(3.0)), ("b", Value::Number(2.0))]))
    );
    assert_eq!(
        parse("a: &x 1\nb: &x 2\nc: *x\n").map(|v| v.as_object().and_then(|o| o.get("c")).cloned()),
        Ok(Some(Value::Number(2.0)))
    );
    assert!(parse("a: *nowhere\n").is_err());
    // Entries of a merged mapping come last first; explicit keys win.
    let v = parse("<<: {b: 1, c: 2, a: 3}\na: 9\n").unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().iter().map(|(k, _)| k).collect();
    assert_eq!(keys, ["a", "c", "b"]);
    assert_eq!(v.as_object().unwrap().get("a"), Some(&Value::Number(9.0)));
    assert_eq!(parse("<<: 5\n"), Ok(obj(&[("<<", Value::Number(5.0))])));
}

#[test]
fn bun_refuses_tabs_before_keys_and_collections() {
    for text in [
        "\ta: 1",
        "a:\n  \tb: 1",
        "- \tb: 1",
        "\t- a",
        "n: x\nd: 'C'\n\t# note\n",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    for text in [
        "- \ta",
        "a:\t1",
        "\t# c\na: 1",
        "d: 'C'\n\t# note\n",
        "n: x\nd: C\n\t# c\n",
    ] {
        assert!(parse(text).is_ok(), "{text:?}");
    }
}

#[test]
fn bun_indentation_of_flow_and_quoted_lines() {
    for text in [
        "a: [\nb]",
        "a: \"x\ny\"",
        "a:\n  b: \"x\n  y\"",
        "a: \"x\n  y\n\"",
    ] {
        assert!(parse(text).is_err(), "{text:?}");
    }
    assert_eq!(
        parse("k: [a\n]"),
        Ok(obj(&[("k", Value::Array(vec![s("a")]))]))
    );
    assert_eq!(parse("a: \"x\n\n  y\""), Ok(obj(&[("a", s("x\ny"))])));
}

#[test]
fn crlf_breaks_in_quoted_scalars_are_kept() {
    assert_eq!(parse("a: \"x \r\n  y\"\r\n"), Ok(obj(&[("a", s("x\ny"))])));
    assert_eq!(
        parse("a: 'x\r\n\r\n  y'\r\n"),
        Ok(obj(&[("a", s("x\n\ny"))]))
    );
    assert_eq!(parse("a: x\r\n  y\r\n"), Ok(obj(&[("a", s("x y"))])));
    assert!(parse("a: \"x\ry\"").is_err());
}

#[test]
fn commas_outside_flow_collections_are_text() {
    assert_eq!(parse("a: , b\n"), Ok(obj(&[("a", s(", b"))])));
    assert_eq!(parse(",a: b\n"), Ok(obj(&[(",a", s("b"))])));
    assert_eq!(
        parse("a: ,x\nb: [1, 2]\n"),
        Ok(obj(&[
            ("a", s(",x")),
            (
                "b",
                Value::Array(vec![Value::Number(1.0), Value::Number(2.0)])
            )
        ]))
    );
    assert!(parse("a: [b, c\n").is_err());
}

#[test]
fn errors_name_their_line() {
    let e = parse("a: 1\nb: [x\nc: 2\n").unwrap_err();
    assert!(e.line >= 2, "{e}");
}
