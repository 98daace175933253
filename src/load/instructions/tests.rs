//! Behaviour of the per-file procedure and of the assembled list, on temporary trees.

use std::collections::BTreeMap;
use std::fs;
use std::path::PathBuf;

use super::file::{Loader, blocked, read_text};
use super::{Kind, SkipWhy, Why, load};
use crate::env::{ClientEnv, ClientFlags};
use crate::load::LazyWhy;
use crate::platform::Platform;
use crate::settings::Settings;

mod rules;

/// A temporary tree with `home/` and a project folder `p/`.
struct Tree {
    _dir: tempfile::TempDir,
    root: String,
}

impl Tree {
    fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        // The real path as the client has it (Windows: without the `\\?\` canonicalize adds).
        let real = dir.path().canonicalize().unwrap();
        let root = crate::text::path::strip_verbatim(&real.to_string_lossy()).into_owned();
        fs::create_dir_all(format!("{root}/home")).unwrap();
        fs::create_dir_all(format!("{root}/p")).unwrap();
        let t = Tree { _dir: dir, root };
        for (path, text) in files {
            t.write(path, text.as_bytes());
        }
        t
    }

    fn write(&self, path: &str, bytes: &[u8]) {
        let p = self.path(path);
        fs::create_dir_all(PathBuf::from(&p).parent().unwrap()).unwrap();
        fs::write(p, bytes).unwrap();
    }

    /// `rel` (`/`-separated) under the root, as the host's client writes it (`C:\…\p\x.md` on
    /// Windows).
    fn path(&self, rel: &str) -> String {
        crate::text::path::join(Platform::compiled(), &[&self.root, rel])
    }

    fn env(&self, cwd: &str, flags: ClientFlags) -> ClientEnv {
        let vars: BTreeMap<String, String> = [("HOME".to_string(), self.path("home"))].into();
        ClientEnv::new(PathBuf::from(self.path(cwd)), vars, flags)
    }

    /// Loads `rel` as a depth-0 Project file; returns (loaded paths relative to root, skipped).
    fn load_one(&self, rel: &str, kind: Kind) -> (Vec<String>, Vec<crate::load::Skipped>) {
        let env = self.env("p", ClientFlags::default());
        let settings = Settings::load(&env);
        let mut loader = Loader::new(&env, &settings);
        let (mut out, mut skipped) = (Vec::new(), Vec::new());
        let why = Why::Ancestor { dir: "x".into() };
        loader.load_file(&self.path(rel), kind, why, 0, &mut out, &mut skipped);
        (out.iter().map(|l| self.rel(&l.path)).collect(), skipped)
    }

    /// A loader path relative to the root, `/`-separated (as is when outside).
    fn rel(&self, p: &str) -> String {
        let sep = Platform::compiled().sep();
        p.strip_prefix(&format!("{}{sep}", self.root))
            .map_or_else(|| p.to_owned(), |r| r.replace(sep, "/"))
    }
}

fn reasons(skipped: &[crate::load::Skipped]) -> Vec<&SkipWhy> {
    skipped.iter().map(|s| &s.why).collect()
}

#[test]
fn imports_load_pre_order_with_their_line_on_disk() {
    let t = Tree::new(&[
        (
            "p/CLAUDE.md",
            "---\nx: 1\n---\ntop\n@docs/a.md\n@c.md @docs/a.md\n",
        ),
        ("p/docs/a.md", "A @b.md"),
        ("p/docs/b.md", "B"),
        ("p/c.md", "C"),
    ]);
    let env = t.env("p", ClientFlags::default());
    let settings = Settings::load(&env);
    let mut loader = Loader::new(&env, &settings);
    let mut skipped = Vec::new();
    let why = Why::Ancestor { dir: "p".into() };
    let tree = loader.load_tree(&t.path("p/CLAUDE.md"), Kind::Project, why, 0, &mut skipped);
    let paths: Vec<String> = tree.iter().map(|e| t.rel(&e.loaded.path)).collect();
    assert_eq!(
        paths,
        ["p/CLAUDE.md", "p/docs/a.md", "p/docs/b.md", "p/c.md"]
    );
    assert_eq!(
        tree[1].loaded.why,
        Why::Import {
            from: t.path("p/CLAUDE.md"),
            line: 5,
            depth: 1
        }
    );
    assert!(matches!(
        tree[2].loaded.why,
        Why::Import {
            line: 1,
            depth: 2,
            ..
        }
    ));
    assert!(tree.iter().all(|e| e.root == t.path("p/CLAUDE.md")));
    let key = super::paths::dedup_key(Platform::compiled(), &t.path("p/docs/b.md"));
    assert!(loader.processed.contains(&key));
}

#[test]
fn a_path_loads_once_per_session() {
    let t = Tree::new(&[("p/CLAUDE.md", "P @CLAUDE.md")]);
    let env = t.env("p", ClientFlags::default());
    let settings = Settings::load(&env);
    let mut loader = Loader::new(&env, &settings);
    let (mut out, mut skipped) = (Vec::new(), Vec::new());
    for _ in 0..2 {
        let why = Why::Ancestor { dir: "p".into() };
        loader.load_file(
            &t.path("p/CLAUDE.md"),
            Kind::Project,
            why,
            0,
            &mut out,
            &mut skipped,
        );
    }
    assert_eq!(out.len(), 1);
    assert_eq!(
        reasons(&skipped),
        [&SkipWhy::Duplicate, &SkipWhy::Duplicate]
    );
}

#[test]
fn fifth_hop_is_dropped() {
    let t = Tree::new(&[
        ("p/CLAUDE.md", "0 @1.md"),
        ("p/1.md", "1 @2.md"),
        ("p/2.md", "2 @3.md"),
        ("p/3.md", "3 @4.md"),
        ("p/4.md", "4 @5.md"),
        ("p/5.md", "5"),
    ]);
    let (paths, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(paths.len(), 5);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].why, SkipWhy::DepthLimit);
    assert_eq!(skipped[0].from, Some((t.path("p/4.md"), 1)));
}

#[test]
fn external_imports_need_approval_except_for_user_files() {
    let t = Tree::new(&[
        ("p/CLAUDE.md", "P @../x.md"),
        ("x.md", "X"),
        ("home/u.md", "U @../x.md"),
    ]);
    let (paths, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(paths, ["p/CLAUDE.md"]);
    // The approval key is the folder with `/` separators on every platform (`C:/Users/me/p`).
    let want = t.path("p").replace(Platform::compiled().sep(), "/");
    assert!(matches!(&skipped[0].why, SkipWhy::ExternalNotApproved { key } if *key == want));
    let (paths, _) = t.load_one("home/u.md", Kind::User);
    assert_eq!(paths, ["home/u.md", "x.md"]);
}

#[test]
fn inside_test_is_case_insensitive() {
    let t = Tree::new(&[("p/CLAUDE.md", "P @../P/x.md"), ("P/x.md", "X")]);
    let (paths, _) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(paths, ["p/CLAUDE.md", "P/x.md"]);
}

// Unix only: Windows has no FIFOs (crate::sys::special_kind is None there).
#[cfg(unix)]
#[test]
fn non_text_empty_and_special_files_are_skipped_without_following_imports() {
    let t = Tree::new(&[
        (
            "p/CLAUDE.md",
            "P @img.png @empty.md @dir.md @a.md, @fifo.md",
        ),
        ("p/img.png", "text"),
        ("p/empty.md", "<!-- only @hidden.md -->\n  \n"),
        ("p/hidden.md", "H"),
        ("p/dir.md/x", "x"),
        ("p/a.md,", "A"),
    ]);
    crate::sys::mkfifo(std::path::Path::new(&t.path("p/fifo.md")), 0o644).unwrap();
    let (paths, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(paths, ["p/CLAUDE.md"]);
    let got = reasons(&skipped);
    assert_eq!(got.len(), 5, "{got:?}");
    assert!(matches!(got[0], SkipWhy::NonTextExtension { ext } if ext == ".png"));
    assert_eq!(got[1], &SkipWhy::Empty);
    assert!(matches!(got[2], SkipWhy::NotRegular { .. }));
    assert!(matches!(got[3], SkipWhy::NonTextExtension { ext } if ext == ".md,"));
    assert!(matches!(got[4], SkipWhy::NotRegular { what } if what == "FIFO"));
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn missing_and_dangling_imports_are_reported() {
    let t = Tree::new(&[("p/CLAUDE.md", "P @nope.md @dangling.md")]);
    std::os::unix::fs::symlink("gone.md", t.path("p/dangling.md")).unwrap();
    let (_, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(skipped[0].why, SkipWhy::Missing);
    assert!(matches!(skipped[1].why, SkipWhy::Unreadable { .. }));
}

#[test]
fn excludes_and_deny_rules_name_their_source() {
    let t = Tree::new(&[
        ("p/CLAUDE.md", "P @a.md @b.md"),
        ("p/a.md", "A @a2.md"),
        ("p/a2.md", "A2"),
        ("p/b.md", "B"),
        (
            "p/.claude/settings.json",
            r#"{"claudeMdExcludes":["**/p/a.md"],"permissions":{"deny":["Read(./b.md)"]}}"#,
        ),
    ]);
    let (paths, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert_eq!(paths, ["p/CLAUDE.md"]);
    match &skipped[0].why {
        SkipWhy::Excluded { pattern, settings } => {
            assert_eq!(pattern, "**/p/a.md");
            // (`\` on Windows)
            assert!(
                settings
                    .replace('\\', "/")
                    .ends_with("p/.claude/settings.json")
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(&skipped[1].why, SkipWhy::DeniedRead { rule } if rule == "Read(./b.md)"));
    let (paths, _) = t.load_one("p/b.md", Kind::User);
    assert_eq!(paths, ["p/b.md"], "deny rules never withhold user files");
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn symlinks_show_the_link_and_import_from_the_target_folder() {
    let t = Tree::new(&[("shared/real.md", "R @sib.md"), ("shared/sib.md", "S")]);
    std::os::unix::fs::symlink(t.path("shared/real.md"), t.path("p/CLAUDE.md")).unwrap();
    let (paths, _) = t.load_one("p/CLAUDE.md", Kind::User);
    assert_eq!(paths, ["p/CLAUDE.md", "shared/sib.md"]);
}

#[test]
fn invalid_utf8_becomes_one_replacement_per_maximal_subpart() {
    let t = Tree::new(&[]);
    t.write("p/x.md", b"a\xff\xfeb\xc3(c\xe2\x82");
    assert_eq!(
        read_text(&t.path("p/x.md")).unwrap(),
        "a\u{fffd}\u{fffd}b\u{fffd}(c\u{fffd}"
    );
}

#[test]
fn four_mib_loads_and_one_byte_more_does_not() {
    let t = Tree::new(&[]);
    let mut big = vec![b'x'; 4 * 1024 * 1024];
    t.write("p/CLAUDE.md", &big);
    assert_eq!(t.load_one("p/CLAUDE.md", Kind::Project).0.len(), 1);
    big.push(b'x');
    t.write("p/CLAUDE.md", &big);
    let (paths, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    assert!(paths.is_empty());
    assert!(matches!(skipped[0].why, SkipWhy::TooLarge { bytes } if bytes == 4 * 1024 * 1024 + 1));
}

#[test]
fn protected_and_device_paths_are_blocked() {
    let l = Platform::Linux;
    assert!(blocked(l, "/r/connector-downloads/p/CLAUDE.md").is_some());
    assert!(blocked(l, "/r/.artifact-work/CLAUDE.md").is_some());
    assert!(blocked(l, "/tmp/claude/s/123456789012/scratchpad/x.md").is_some());
    assert!(blocked(l, "/tmp/claude/s/12/scratchpad/x.md").is_none());
    assert_eq!(blocked(l, "/dev/stdin"), Some(SkipWhy::DevicePath));
    assert!(blocked(l, "//server/share/CLAUDE.md").is_some());
    assert!(blocked(l, "/r/devices/CLAUDE.md").is_none());
}

#[test]
fn a_user_import_under_network_is_refused_on_macos_before_it_is_read() {
    // The captured case `cases-macos/instr-network-refused` cannot make /Network when it
    // replays: here the reason tells the refusal (macOS) from a missing file (Linux).
    let t = Tree::new(&[(
        "home/.claude/CLAUDE.md",
        "USER @/Network/ccmem-probe/x.md\n",
    )]);
    // Only the models whose paths are the host's flavour can read the host's files (a posix
    // model on Windows sees `C:\…` as a relative name): on Windows, the Windows model alone.
    let models = [("macos", true), ("linux", false), ("windows", false)];
    let host_flavour = Platform::compiled().is_windows();
    for (platform, refused) in models
        .into_iter()
        .filter(|(p, _)| Platform::from_name(p).is_some_and(|p| p.is_windows() == host_flavour))
    {
        let vars: BTreeMap<String, String> = [
            ("HOME".to_string(), t.path("home")),
            ("CCMEM_PLATFORM".to_string(), platform.to_string()),
        ]
        .into();
        let env = ClientEnv::new(PathBuf::from(t.path("p")), vars, ClientFlags::default());
        let settings = Settings::load(&env);
        let mut loader = Loader::new(&env, &settings);
        let (mut out, mut skipped) = (Vec::new(), Vec::new());
        let why = Why::UserFile;
        loader.load_file(
            &t.path("home/.claude/CLAUDE.md"),
            Kind::User,
            why,
            0,
            &mut out,
            &mut skipped,
        );
        assert_eq!(out.len(), 1, "{platform}");
        let reason = &skipped[0].why;
        let network = matches!(reason, SkipWhy::Other { reason } if reason.contains("/Network"));
        assert_eq!(network, refused, "{platform}: {reason:?}");
    }
}

#[test]
fn startup_order_kinds_conditional_rules_and_lazy_files() {
    let t = Tree::new(&[
        ("home/.claude/CLAUDE.md", "USER"),
        ("CLAUDE.md", "ROOT"),
        ("p/CLAUDE.local.md", "LOCAL"),
        ("p/.claude/CLAUDE.md", "DOT"),
        (
            "p/.claude/rules/cond.md",
            "---\npaths: src/**\n---\nCOND @leak.md",
        ),
        ("p/.claude/rules/leak.md", "LEAK"),
        ("p/CLAUDE.md", "P"),
        ("p/sub/CLAUDE.md", "SUB"),
        ("p/AGENTS.md", "AGENTS"),
    ]);
    let env = t.env("p", ClientFlags::default());
    let instr = load(&env, &Settings::load(&env));
    let got: Vec<(String, Kind)> = instr
        .entries
        .iter()
        .map(|e| (t.rel(&e.path), e.kind))
        .collect();
    let want = [
        ("home/.claude/CLAUDE.md", Kind::User),
        ("CLAUDE.md", Kind::Project),
        ("p/CLAUDE.md", Kind::Project),
        ("p/.claude/CLAUDE.md", Kind::Project),
        ("p/.claude/rules/leak.md", Kind::Project),
        ("p/CLAUDE.local.md", Kind::Local),
    ];
    let want: Vec<(String, Kind)> = want.iter().map(|(p, k)| (p.to_string(), *k)).collect();
    assert_eq!(got, want);
    let lazy: Vec<(String, bool)> = instr
        .lazy
        .iter()
        .map(|l| {
            (
                t.rel(&l.path),
                matches!(l.why, LazyWhy::ConditionalRule { .. }),
            )
        })
        .collect();
    assert!(lazy.contains(&("p/.claude/rules/cond.md".into(), true)));
    assert!(lazy.contains(&("p/sub/CLAUDE.md".into(), false)));
    assert!(
        instr.skipped.iter().any(
            |s| matches!(&s.why, SkipWhy::AgentsSuppressed { by } if *by == t.path("CLAUDE.md"))
        )
    );
}

#[test]
fn agents_fill_in_when_no_claude_md_loads() {
    let t = Tree::new(&[
        ("p/CLAUDE.md", "  \n"),
        ("p/AGENTS.md", "AGENTS @x.md"),
        ("p/x.md", "X"),
    ]);
    let env = t.env("p", ClientFlags::default());
    let instr = load(&env, &Settings::load(&env));
    let got: Vec<String> = instr.entries.iter().map(|e| t.rel(&e.path)).collect();
    assert_eq!(got, ["p/AGENTS.md", "p/x.md"]);
    assert!(
        matches!(&instr.entries[0].why, Why::AgentsMd { mode } if mode == "claude-md-or-agents-md")
    );
}

#[test]
fn size_counts_bytes_on_disk_and_the_trimmed_content() {
    let t = Tree::new(&[]);
    t.write("p/CLAUDE.md", b"\n\xff a\nb \n\n");
    let env = t.env("p", ClientFlags::default());
    let settings = Settings::load(&env);
    let mut loader = Loader::new(&env, &settings);
    let why = Why::Ancestor { dir: "p".into() };
    let tree = loader.load_tree(
        &t.path("p/CLAUDE.md"),
        Kind::Project,
        why,
        0,
        &mut Vec::new(),
    );
    let size = tree[0].loaded.size;
    assert_eq!((size.bytes, size.lines, size.utf16), (9, 2, 5));
}

#[test]
fn agents_groups_go_before_deeper_folders_and_before_memory() {
    let t = Tree::new(&[
        ("CLAUDE.md", "ROOT"),
        ("AGENTS.md", "ROOT AGENTS"),
        ("p/CLAUDE.md", "P"),
        ("p/.claude/rules/r.md", "P RULE"),
        ("p/AGENTS.md", "P AGENTS"),
        (
            "home/.claude/settings.json",
            r#"{"pluginConfigs":{"agents-md@builtin":{"options":{"instructionFiles":"claude-md-and-agents-md"}}}}"#,
        ),
    ]);
    let env = t.env("p", ClientFlags::default());
    let instr = load(&env, &Settings::load(&env));
    let got: Vec<String> = instr.entries.iter().map(|e| t.rel(&e.path)).collect();
    assert_eq!(
        got,
        [
            "CLAUDE.md",
            "AGENTS.md",
            "p/CLAUDE.md",
            "p/.claude/rules/r.md",
            "p/AGENTS.md"
        ]
    );
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn loops_and_dangling_links_are_told_apart() {
    let t = Tree::new(&[("p/CLAUDE.md", "P @loop.md @gone.md")]);
    std::os::unix::fs::symlink("loop.md", t.path("p/loop.md")).unwrap();
    std::os::unix::fs::symlink("nothing.md", t.path("p/gone.md")).unwrap();
    let (_, skipped) = t.load_one("p/CLAUDE.md", Kind::Project);
    let errors: Vec<String> = skipped
        .iter()
        .map(|s| match &s.why {
            SkipWhy::Unreadable { error } => error.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(errors, ["symlink loop", "dangling symlink"]);
}
