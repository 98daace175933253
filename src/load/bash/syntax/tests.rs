use super::*;

fn texts(line: &str) -> Vec<String> {
    parse(line).unwrap().into_iter().map(|s| s.text).collect()
}

#[test]
fn lists_split_into_statements_with_their_text() {
    assert_eq!(
        texts("a && b || c; d & e\nf"),
        ["a", "b", "c", "d", "e", "f"]
    );
    assert_eq!(texts("echo 'a;b' \"c&&d\""), ["echo 'a;b' \"c&&d\""]);
}

#[test]
fn pipelines_stay_one_statement() {
    let st = parse("cat f | head -1 |& tee x").unwrap();
    assert_eq!(st.len(), 1);
    assert_eq!(st[0].pipeline.len(), 3);
}

#[test]
fn words_keep_their_parts() {
    let st = parse("cat a\"b\"'c'$X${Y}$(z)").unwrap();
    let Command::Simple { words, .. } = &st[0].pipeline[0] else {
        panic!()
    };
    assert_eq!(
        words[1].parts,
        [
            Part::Bare("a".into()),
            Part::Double("\"b\"".into()),
            Part::Single("'c'".into()),
            Part::Expansion("$X".into()),
            Part::Expansion("${Y}".into()),
            Part::Substitution("$(z)".into()),
        ]
    );
}

#[test]
fn redirections_and_heredocs() {
    let st = parse("sort < in.txt > out 2>&1 <<EOF\nbody ; ls\nEOF\necho").unwrap();
    assert_eq!(st.len(), 2);
    let Command::Simple { redirects, .. } = &st[0].pipeline[0] else {
        panic!()
    };
    assert_eq!(redirects.len(), 4);
    assert_eq!(redirects[0].op, "<");
}

#[test]
fn subshells_groups_and_loops() {
    let st = parse("(cd a && cat f); { cat g; }; for x in a b; do cat h; done").unwrap();
    assert!(matches!(st[0].pipeline[0], Command::Subshell(_)));
    assert!(matches!(st[1].pipeline[0], Command::Group(_)));
    assert!(matches!(st[2].pipeline[0], Command::Group(_)));
}

#[test]
fn what_does_not_parse() {
    for bad in ["cat (f", "cat f)", "&& cat f", "cat f\\", "; x"] {
        assert_eq!(parse(bad), Err(Unparsed), "{bad}");
    }
}
