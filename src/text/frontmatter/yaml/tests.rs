use super::super::value::{Object, Value};
use super::{build, fast, parse};

fn s(x: &str) -> Value {
    Value::String(x.to_owned())
}

fn obj(pairs: &[(&str, Value)]) -> Value {
    Value::from(
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
        Ok(Value::from(vec![
            obj(&[("a", Value::Number(1.0))]),
            obj(&[("b", Value::Number(2.0))])
        ]))
    );
    assert_eq!(
        parse("...\na: x\n"),
        Ok(Value::from(vec![Value::Null, obj(&[("a", s("x"))])]))
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
        Ok(obj(&[("k", Value::from(vec![s("a")]))]))
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
                Value::from(vec![Value::Number(1.0), Value::Number(2.0)])
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

/// Every text the fast path takes reads the same through the event parser: the YAML of every
/// frontmatter vector and every file of the library corpus. (Both live in the repository, not
/// in the published crate: build.rs sets `ccmem_repository` where they are.)
#[test]
#[cfg_attr(
    not(ccmem_repository),
    ignore = "reads fuzz/vectors/ and tests/fixtures/libraries/, which only the repository holds"
)]
fn fast_path_agrees_with_the_parser_on_the_corpora() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let vectors = std::fs::read_to_string(root.join("fuzz/vectors/frontmatter.json")).unwrap();
    let vectors: Vec<serde_json::Value> = serde_json::from_str(&vectors).unwrap();
    let mut texts: Vec<String> = vectors
        .iter()
        .filter_map(|v| {
            super::super::split(v["input"].as_str()?)
                .yaml
                .map(str::to_owned)
        })
        .collect();
    let mut stack = vec![root.join("tests/fixtures/libraries")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                let t = std::fs::read_to_string(&p).unwrap();
                texts.extend(super::super::split(&t).yaml.map(str::to_owned));
            }
        }
    }
    assert_fast_path_agrees(&texts);
}

/// Every block generated from the pieces the fast path's shape allows, with near misses, reads
/// the same through the fast path and the event parser.
#[test]
fn fast_path_agrees_with_the_parser() {
    let mut texts = Vec::new();
    let keys = [
        "name",
        "description",
        "type",
        "1",
        "1.5",
        "true",
        "null",
        "a.b",
        "x-y",
        "__proto__",
        "k_1",
    ];
    let values = [
        "",
        "x",
        "two words",
        "yes",
        "~",
        "null",
        "true",
        "FALSE",
        "012",
        "0x1F",
        "-0",
        "1e3",
        ".inf",
        ".NaN",
        "2026-01-02",
        "12:30",
        "a:b",
        "x#y",
        "\"quoted\"",
        "\"\"",
        "'single'",
        "''",
        "\"a\\b\"",
        "'it''s'",
        "say \"hi\"",
        "[a]",
        "{a: 1}",
        "- x",
        "*a",
        "&a x",
        "!x y",
        "| x",
        "a: b",
        "x # c",
        "x:",
        "%x",
        "@x",
        "`x`",
        ",x",
        "?x",
        "한국어 설명",
        "中文：说明",
        "x ",
        "  padded",
    ];
    let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
    let mut pick = |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n as u64) as usize
    };
    for _ in 0..4000 {
        let mut lines = Vec::new();
        for _ in 0..1 + pick(5) {
            let key = keys[pick(keys.len())];
            if pick(4) == 0 {
                lines.push(format!("{key}:{}", if pick(3) == 0 { " " } else { "" }));
                let width = [1, 2, 4][pick(3)];
                for _ in 0..pick(4) {
                    let w = if pick(12) == 0 { width + 1 } else { width };
                    lines.push(format!(
                        "{}{}: {}",
                        " ".repeat(w),
                        keys[pick(keys.len())],
                        values[pick(values.len())]
                    ));
                }
            } else {
                lines.push(format!("{key}: {}", values[pick(values.len())]));
            }
            if pick(8) == 0 {
                lines.push(String::new());
            }
        }
        texts.push(lines.join("\n") + "\n");
    }
    assert_fast_path_agrees(&texts);
}

fn assert_fast_path_agrees(texts: &[String]) {
    let mut taken = 0;
    for t in texts {
        if let Some(v) = fast::parse(t) {
            taken += 1;
            // Debug, not ==: NaN equals itself there, and -0 differs from 0.
            let full = build::parse(t, false).map_err(|f| f.error);
            assert_eq!(
                format!("{full:?}"),
                format!("{:?}", Ok::<_, super::YamlError>(v)),
                "{t:?}"
            );
        }
    }
    // About a quarter of each set has the fast path's shape (982 of 4,000 generated blocks,
    // 650 of 2,229 corpus blocks): fewer than a fifth means the fast path stopped taking them.
    assert!(
        taken > texts.len() / 5,
        "the fast path took only {taken} of {}",
        texts.len()
    );
}

/// Hostile shapes a 4 MiB block can take are read in time linear in the text: a flow list of
/// 300,000 items on one line (each item's indentation check once searched back to the line
/// start), and 300,000 commas outside flow collections on one line (the second try once
/// searched back from each comma to the start of its word).
#[test]
fn long_lines_are_read_in_linear_time() {
    let started = std::time::Instant::now();
    let items = vec!["x"; 300_000].join(", ");
    match parse(&format!("k: [{items}]\n")) {
        Ok(Value::Object(o)) => {
            assert!(matches!(o.get("k"), Some(Value::Array(a)) if a.len() == 300_000));
        }
        other => panic!("{other:?}"),
    }
    let commas = ",".repeat(300_000);
    assert_eq!(
        parse(&format!("k: x{commas}\n")),
        Ok(obj(&[("k", s(&format!("x{commas}")))]))
    );
    assert!(started.elapsed().as_secs() < 30, "{:?}", started.elapsed());
}

/// An alias is the anchored value itself, and the nodes aliases name are counted as Bun counts
/// them (each alias its value whole; a mapping 1 plus a key and a value per property, repeated
/// keys included): exactly 16 Mi read, one more does not.
#[test]
fn aliases_share_and_are_counted_to_the_client_limit() {
    let v = parse("a: &a [x, y]\nb: *a\n").unwrap();
    let o = v.as_object().unwrap();
    match (o.get("a"), o.get("b")) {
        (Some(Value::Array(a)), Some(Value::Array(b))) => assert!(std::sync::Arc::ptr_eq(a, b)),
        other => panic!("{other:?}"),
    }
    // An array of 4,095 items costs 4,096; 4,096 aliases to it are the limit exactly.
    let arr = format!("a: &a [{}]\n", vec!["x"; 4095].join(", "));
    let aliases = |n: usize| vec!["*a"; n].join(", ");
    assert!(parse(&format!("{arr}b: [{}]\n", aliases(4096))).is_ok());
    let over = parse(&format!("{arr}c: &c y\nb: [{}, *c]\n", aliases(4096))).unwrap_err();
    assert!(over.message.starts_with("excessive aliasing"), "{over}");
    // 2,048 properties cost 4,097 whether their keys differ or repeat.
    for key in ["k{j}", "k"] {
        let props: Vec<String> = (0..2048)
            .map(|j| format!("{}: v", key.replace("{j}", &j.to_string())))
            .collect();
        let anchor = format!("o: &o {{{}}}\ns: &s y\n", props.join(", "));
        let refs =
            |extra: usize| format!("{}{}", vec!["*o"; 4095].join(", "), ", *s".repeat(extra));
        assert!(
            parse(&format!("{anchor}b: [{}]\n", refs(1))).is_ok(),
            "{key}"
        );
        assert!(
            parse(&format!("{anchor}b: [{}]\n", refs(2))).is_err(),
            "{key}"
        );
    }
}

/// Merge keys copy at most 1 Mi properties per parse, as Bun's merge limit.
#[test]
fn merges_are_counted_to_the_client_limit() {
    let m = format!(
        "m: &m {{{}}}\nl:\n",
        (0..1000)
            .map(|j| format!("k{j}: v"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    assert!(parse(&format!("{m}{}", "- <<: *m\n".repeat(1048))).is_ok());
    let past = parse(&format!("{m}{}", "- <<: *m\n".repeat(1049))).unwrap_err();
    assert!(past.message.starts_with("out of memory"), "{past}");
}
