use super::*;

fn numbered(n: usize) -> String {
    (1..=n).map(|i| format!("- line {i}\n")).collect()
}

#[test]
fn plain_file_under_limits() {
    let p = process_file(b"\n- a\n- b\n\n");
    assert_eq!(p.content, "- a\n- b");
    assert_eq!(
        (p.measure.lines, p.measure.file_lines, p.measure.file_bytes),
        (2, 4, 10)
    );
    assert!(p.measure.cut.is_none());
}

#[test]
fn dark_lines_of_a_line_cut_are_numbered_on_disk() {
    let text = format!("---\nname: x\n---\n{}", numbered(203));
    let p = process_file(text.as_bytes());
    let cut = p.measure.cut.unwrap();
    let lines: Vec<usize> = cut.dark.iter().map(|d| d.line).collect();
    assert_eq!(
        lines,
        [204, 205, 206],
        "3 frontmatter lines shift the numbers"
    );
    assert_eq!(cut.dark[0].text, "- line 201");
    assert!(cut.dark.iter().all(|d| !d.partial));
}

#[test]
fn hard_cut_marks_line_one_partial() {
    let text = format!("{}\nnext\n", "x".repeat(30_000));
    let cut = process_file(text.as_bytes()).measure.cut.unwrap();
    assert_eq!(cut.dark.len(), 2);
    assert!(cut.dark[0].partial && cut.dark[0].line == 1);
    assert_eq!((cut.dark[1].line, cut.dark[1].partial), (2, false));
}

#[test]
fn sanitized_twice_and_invalid_utf8_replaced() {
    let p = process_file(b"a\xffb <system-reminder> \x07c\r\nd");
    assert_eq!(p.content, "a\u{fffd}b <\\system-reminder> c\nd");
}

#[test]
fn env_content_is_not_stripped() {
    let p = process_env("---\nname: x\n---\n<!-- c -->\nbody");
    assert_eq!(p.content, "---\nname: x\n---\n<!-- c -->\nbody");
}

#[test]
fn measure_reports_missing_and_directories() {
    let t = tempfile::tempdir().unwrap();
    assert!(matches!(
        measure(&t.path().join("MEMORY.md")),
        IndexState::Missing
    ));
    assert!(matches!(measure(t.path()), IndexState::NotRegular { .. }));
    std::fs::write(t.path().join("MEMORY.md"), numbered(201)).unwrap();
    match measure(&t.path().join("MEMORY.md")) {
        IndexState::Loaded(m) => assert_eq!(m.cut.unwrap().dark.len(), 1),
        other => panic!("{other:?}"),
    }
}

#[test]
fn dark_lines_skip_removed_comments() {
    let text = format!("<!--\na\nb\n-->\n{}", numbered(202));
    let cut = process_file(text.as_bytes()).measure.cut.unwrap();
    let lines: Vec<(usize, &str)> = cut.dark.iter().map(|d| (d.line, d.text.as_str())).collect();
    assert_eq!(lines, [(205, "- line 201"), (206, "- line 202")]);
}

#[test]
fn the_first_line_over_a_budget_is_numbered_in_the_file() {
    let mut text = String::from("---\nname: x\n---\n\n<!-- a\n comment -->\n");
    for i in 1..=10 {
        text.push_str(&format!("- entry {i}\n"));
    }
    // Frontmatter (3 lines), a blank line, a 2-line comment: entry 1 is file line 7.
    assert_eq!(first_line_over(&text, 4, 10_000), Some(7 + 4));
    assert_eq!(first_line_over(&text, 10, 10_000), None);
    // "- entry 1" is 9 units, each later line 10 with its newline: entry 3 ends at 29.
    assert_eq!(first_line_over(&text, 100, 25), Some(7 + 2));
    assert_eq!(first_line_over(&text, 100, 28), Some(7 + 2));
    assert_eq!(first_line_over(&text, 100, 29), Some(7 + 3));
    // Where the client's own cut falls, this agrees with the first dark line.
    let long = numbered(230);
    let dark = process_file(long.as_bytes()).measure.cut.unwrap().dark;
    assert_eq!(first_line_over(&long, 200, 25_000), Some(dark[0].line));
}
