use super::*;

#[test]
fn pipes_and_redirections_are_never_tracked() {
    for c in [
        "cat f | head",
        "cat f > g",
        "cat < f",
        "cat 'a|b'",
        "cat f 2>/dev/null",
    ] {
        assert!(client_reads(c).is_empty(), "{c}");
    }
}

#[test]
fn lists_need_harmless_neighbours() {
    assert_eq!(client_reads("echo hi && cat f").len(), 1);
    assert_eq!(client_reads("cat f; true").len(), 1);
    assert!(client_reads("cat f; ls").is_empty());
    assert!(client_reads("cd a && cat f").is_empty());
    assert!(
        client_reads("cat f; :").is_empty(),
        "`:` alone fails the client's \\b"
    );
    assert_eq!(client_reads("cat a; cat b").len(), 2);
}

#[test]
fn groups_read_their_first_command() {
    assert_eq!(client_reads("(cat f)")[0].file, "f");
    assert_eq!(client_reads("{ cat a; ls; }")[0].file, "a");
    assert_eq!(client_reads("for x in 1 2; do cat g; done")[0].file, "g");
    assert_eq!(client_reads("if cat h; then ls; fi")[0].file, "h");
}

#[test]
fn quoting_follows_the_clients_node_values() {
    assert_eq!(client_reads("cat \"a b\"")[0].file, "a b");
    assert_eq!(client_reads("cat a\\ b")[0].file, "a b");
    assert_eq!(client_reads("cat a\"b\"c")[0].file, "abc");
    // A double-quoted string keeps its backslashes (the client only strips the quotes).
    assert_eq!(client_reads("cat \"a\\\"b\"")[0].file, "a\\\"b");
    assert!(
        client_reads("cat $F").is_empty(),
        "an expansion alone is no operand"
    );
    assert_eq!(client_reads("cat $F/x")[0].file, "$F/x");
}

#[test]
fn commands_that_only_look_like_reads() {
    for c in [
        "cat a b",
        "catx f",
        "sed 1p f",
        "head -n 0 f",
        "grep -v x f",
        "tail -f f",
        "awk 1 f",
    ] {
        assert!(client_reads(c).is_empty(), "{c}");
    }
    assert!(client_reads("grep x f; echo").is_empty(), "grep only alone");
}

#[test]
fn heredoc_bodies_are_not_commands() {
    let st = statements("cat <<EOF\ncat f\nEOF\necho x").unwrap();
    assert_eq!(st.len(), 2);
    assert_eq!(st[1].text, "echo x");
}
