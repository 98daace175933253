use super::*;

#[test]
fn win32_normalize_follows_node() {
    for (input, want) in [
        ("C:/Users/me/p", r"C:\Users\me\p"),
        (r"C:\Users\me\..\you\.\p\", r"C:\Users\you\p\"),
        (r"c:\..\..\x", r"c:\x"),
        ("C:", "C:."),
        ("C:x/../..", r"C:.."),
        ("/tmp/x", r"\tmp\x"),
        (r"\\server\share", r"\\server\share\"),
        (r"\\server\share\a\..\..\b", r"\\server\share\b"),
        (r"\\server", r"\server"),
        ("", "."),
        ("/", r"\"),
        ("a//b/", r"a\b\"),
    ] {
        assert_eq!(win32::normalize(input), want, "{input}");
    }
}

#[test]
fn win32_join_dirname_and_roots_follow_node() {
    assert_eq!(
        win32::join(&[r"C:\Users\me\p", "CLAUDE.md"]),
        r"C:\Users\me\p\CLAUDE.md"
    );
    assert_eq!(
        win32::join(&[r"C:\p", ".claude/rules"]),
        r"C:\p\.claude\rules"
    );
    assert_eq!(win32::join(&["//server", "x"]), r"\\server\x\");
    assert_eq!(win32::join(&[r"\\server\share", "x"]), r"\\server\share\x");
    assert_eq!(win32::join(&[]), ".");
    assert_eq!(win32::dirname(r"C:\Users\me"), r"C:\Users");
    assert_eq!(win32::dirname(r"C:\Users"), r"C:\");
    assert_eq!(win32::dirname(r"C:\"), r"C:\");
    assert_eq!(win32::dirname(r"\\server\share\x"), r"\\server\share\");
    assert_eq!(win32::dirname(r"\\server\share"), r"\\server\share");
    assert_eq!(win32::dirname("x"), ".");
    for (p, want) in [
        (r"C:\Users", r"C:\"),
        ("C:", "C:"),
        ("c:x", "c:"),
        (r"\x", r"\"),
        (r"\\s\sh\x", r"\\s\sh\"),
        (r"\\s\sh", r"\\s\sh"),
        ("x", ""),
    ] {
        assert_eq!(root(Platform::Windows, p), want, "{p}");
    }
    assert!(win32::is_absolute(r"C:\x") && win32::is_absolute("/x") && !win32::is_absolute("C:x"));
}

#[test]
fn posix_follows_node() {
    assert_eq!(posix::normalize("/a/./b/../c//d/"), "/a/c/d/");
    assert_eq!(posix::normalize("a/../../b"), "../b");
    assert_eq!(posix::normalize("./"), "./");
    assert_eq!(posix::normalize("//x"), "/x");
    assert_eq!(posix::join(&["/a", "", "../b"]), "/b");
    assert_eq!(posix::dirname("/a/b/"), "/a");
    assert_eq!(posix::dirname("//a"), "//");
    assert_eq!(posix::dirname("a"), ".");
    assert_eq!(root(Platform::Macos, "/x"), "/");
    assert_eq!(root(Platform::Linux, "C:/x"), "");
}

#[test]
fn msys_forms_round_trip() {
    assert_eq!(to_msys(r"C:\Users\Me"), "/c/Users/Me");
    assert_eq!(to_msys("D:/x"), "/d/x");
    assert_eq!(to_msys(r"\\srv\share\x"), "//srv/share/x");
    assert_eq!(to_msys(r"rel\x"), "rel/x");
    assert_eq!(from_msys("/c/Users/Me"), r"C:\Users\Me");
    assert_eq!(from_msys("/c"), r"C:\");
    assert_eq!(from_msys("/cygdrive/d/x"), r"D:\x");
    assert_eq!(from_msys("//srv/share"), r"\\srv\share");
    assert_eq!(from_msys("/cc/x"), r"\cc\x");
}

#[test]
fn verbatim_prefixes_are_dropped() {
    assert_eq!(strip_verbatim(r"\\?\C:\Users\me"), r"C:\Users\me");
    assert_eq!(strip_verbatim(r"\\?\UNC\srv\share"), r"\\srv\share");
    assert_eq!(strip_verbatim(r"\\.\C:\x"), r"C:\x");
    assert_eq!(strip_verbatim(r"\\srv\share"), r"\\srv\share");
    assert_eq!(strip_verbatim("/tmp/x"), "/tmp/x");
}
