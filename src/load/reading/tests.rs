//! The lazy walk over a fake per-file procedure: which folders, which order, which dedup.

use std::collections::{BTreeMap, HashMap};

use super::*;
use crate::env::ClientFlags;
use crate::load::model::Size;
use crate::platform::Platform;

/// Files by path (content, globs) and rules folders by path (rule paths in "readdir" order).
#[derive(Default)]
struct Fake {
    files: HashMap<PathBuf, Option<Vec<String>>>,
    rules: HashMap<PathBuf, Vec<PathBuf>>,
}

impl Fake {
    fn file(mut self, path: &str) -> Self {
        self.files.insert(PathBuf::from(p(path)), None);
        self
    }

    fn rule(mut self, path: &str, globs: Option<&[&str]>) -> Self {
        let path = PathBuf::from(p(path));
        let dir = path.parent().unwrap().to_path_buf();
        let globs = globs.map(|g| g.iter().map(|s| s.to_string()).collect());
        self.files.insert(path.clone(), globs);
        self.rules.entry(dir).or_default().push(path);
        self
    }

    fn candidate(&self, path: &Path, kind: Kind, why: Why) -> Option<Candidate> {
        let globs = self.files.get(path)?.clone();
        Some(Candidate {
            loaded: Loaded {
                path: path.to_string_lossy().into_owned(),
                kind,
                content: "x\n".into(),
                why,
                unverified: false,
                size: Size::default(),
            },
            globs,
        })
    }
}

impl Procedure for Fake {
    fn file(&mut self, path: &Path, kind: Kind, processed: &mut HashSet<String>) -> Vec<Candidate> {
        if !processed.insert(path.to_string_lossy().into_owned()) {
            return Vec::new();
        }
        self.candidate(path, kind, Why::UserFile)
            .into_iter()
            .collect()
    }

    fn rules(
        &mut self,
        dir: &Path,
        kind: Kind,
        processed: &mut HashSet<String>,
        _: bool,
    ) -> Vec<Candidate> {
        let why = Why::Rule {
            dir: dir.to_string_lossy().into_owned(),
        };
        let paths = self.rules.get(dir).cloned().unwrap_or_default();
        paths
            .iter()
            .filter(|p| processed.insert(p.to_string_lossy().into_owned()))
            .filter_map(|p| self.candidate(p, kind, why.clone()))
            .collect()
    }
}

/// A path of the fake tree, written as posix (`/r/proj/a`), in the host's model's form: as is,
/// or `C:\r\proj\a` on Windows, so the lazy walk (which joins host paths) runs on the host's
/// own model everywhere.
fn p(posix: &str) -> String {
    if Platform::compiled().is_windows() && posix.starts_with('/') {
        format!("C:{}", posix.replace('/', "\\"))
    } else {
        posix.to_owned()
    }
}

/// [`p`] undone, for comparing what the walk gives with posix expectations.
fn posix(host: &str) -> String {
    match host.strip_prefix("C:") {
        Some(rest) if Platform::compiled().is_windows() => rest.replace('\\', "/"),
        _ => host.to_owned(),
    }
}

/// The host's model (no `CCMEM_PLATFORM`), HOME, the managed folder and the start directory in
/// its form.
fn env(vars: &[(&str, &str)]) -> ClientEnv {
    let mut map: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    map.insert("HOME".into(), p("/r/home"));
    map.insert("CCMEM_MANAGED_DIR".into(), p("/r/managed"));
    ClientEnv::new(PathBuf::from(p("/r/proj")), map, ClientFlags::default())
}

fn session(env: &ClientEnv, startup: &[&str]) -> Session {
    let mut s = crate::load::load_session(env);
    s.entries = startup
        .iter()
        .map(|path| Loaded {
            path: p(path),
            kind: Kind::Project,
            content: String::new(),
            why: Why::UserFile,
            unverified: false,
            size: Size::default(),
        })
        .collect();
    s
}

fn run(fake: Fake, startup: &[&str], reads: &[&str]) -> Vec<Vec<String>> {
    let env = env(&[]);
    let session = session(&env, startup);
    let reads: Vec<String> = reads.iter().map(|s| p(s)).collect();
    let mut fake = fake;
    load_with(&env, &session, &reads, &mut fake)
        .into_iter()
        .map(|v| v.into_iter().map(|l| posix(&l.path)).collect())
        .collect()
}

#[test]
fn dirs_between_cwd_and_file_top_down() {
    let env = env(&[]);
    let nested = dirs::nested(&env, Path::new(&p("/r/proj/a/b/f.txt")));
    assert_eq!(
        nested,
        [PathBuf::from(p("/r/proj/a")), p("/r/proj/a/b").into()]
    );
    assert_eq!(
        dirs::cwd_level(&env),
        [PathBuf::from(p("/r")), p("/r/proj").into()]
    );
    assert!(dirs::nested(&env, Path::new(&p("/r/proj/f.txt"))).is_empty());
    assert!(dirs::nested(&env, Path::new(&p("/r/other/f.txt"))).is_empty());
}

#[test]
fn automount_roots_are_skipped() {
    // `:`-separated, `;` on Windows (node's `path.delimiter`).
    let roots = format!("{}{}rel", p("/r/proj/a"), Platform::compiled().delimiter());
    let env = env(&[("CLAUDE_CODE_AUTOMOUNT_ROOTS", &roots)]);
    let nested = dirs::nested(&env, Path::new(&p("/r/proj/a/b/f.txt")));
    assert_eq!(nested, [PathBuf::from(p("/r/proj/a/b"))]);
}

#[test]
fn order_user_nested_then_cwd_level() {
    let fake = Fake::default()
        .rule("/r/home/.claude/rules/u.md", Some(&["**/*.txt"]))
        .rule("/r/home/.claude/rules/no.md", Some(&["proj/**"]))
        .file("/r/proj/a/CLAUDE.md")
        .file("/r/proj/a/CLAUDE.local.md")
        .file("/r/proj/a/.claude/CLAUDE.md")
        .rule("/r/proj/a/.claude/rules/cond.md", Some(&["b/*.txt"]))
        .rule("/r/proj/a/.claude/rules/plain.md", None)
        .file("/r/proj/a/b/CLAUDE.md")
        .rule("/r/.claude/rules/anc.md", Some(&["proj/a/**"]))
        .rule("/r/proj/.claude/rules/cwd.md", Some(&["*.txt"]));
    let got = run(fake, &[], &["a/b/f.txt"]);
    assert_eq!(
        got,
        [[
            "/r/home/.claude/rules/u.md",
            "/r/proj/a/CLAUDE.md",
            "/r/proj/a/.claude/CLAUDE.md",
            "/r/proj/a/CLAUDE.local.md",
            "/r/proj/a/.claude/rules/plain.md",
            "/r/proj/a/.claude/rules/cond.md",
            "/r/proj/a/b/CLAUDE.md",
            "/r/.claude/rules/anc.md",
            "/r/proj/.claude/rules/cwd.md",
        ]]
    );
}

#[test]
fn dedup_against_startup_earlier_reads_and_the_read_file() {
    let fake = Fake::default()
        .file("/r/proj/a/CLAUDE.md")
        .file("/r/proj/a/CLAUDE.local.md")
        .file("/r/proj/a/b/CLAUDE.md");
    let got = run(
        fake,
        &["/r/proj/a/CLAUDE.local.md"],
        &["a/f.txt", "a/f.txt", "a/CLAUDE.md", "a/b/g.txt"],
    );
    let want: [Vec<&str>; 4] = [
        vec!["/r/proj/a/CLAUDE.md"],
        vec![],
        vec![],
        vec!["/r/proj/a/b/CLAUDE.md"],
    ];
    assert_eq!(got, want);
}

#[test]
fn reading_the_claude_md_itself_skips_it() {
    let fake = Fake::default()
        .file("/r/proj/a/CLAUDE.md")
        .file("/r/proj/a/CLAUDE.local.md");
    let got = run(fake, &[], &["a/CLAUDE.md"]);
    assert_eq!(got, [["/r/proj/a/CLAUDE.local.md"]]);
}

#[test]
fn outside_cwd_nothing_nested_and_no_rule_matches() {
    let fake = Fake::default()
        .file("/r/other/CLAUDE.md")
        .rule("/r/home/.claude/rules/u.md", Some(&["*"]))
        .rule("/r/proj/.claude/rules/c.md", Some(&["**/*.txt"]));
    let got = run(fake, &[], &["/r/other/f.txt"]);
    assert_eq!(got, [Vec::<String>::new()]);
}

#[test]
fn lazy_rules_record_their_pattern() {
    let env = env(&[]);
    let session = session(&env, &[]);
    let mut fake = Fake::default().rule("/r/proj/.claude/rules/c.md", Some(&["a.md", "*.ts"]));
    let got = load_with(&env, &session, &["src/x.ts".into()], &mut fake);
    assert_eq!(
        got[0][0].why,
        Why::LazyRule {
            dir: p("/r/proj/.claude/rules"),
            pattern: "*.ts".into()
        }
    );
}

#[test]
fn disabled_sessions_attach_nothing() {
    let env = env(&[("CLAUDE_CODE_DISABLE_CLAUDE_MDS", "1")]);
    let session = session(&env, &[]);
    let mut fake = Fake::default().file("/r/proj/a/CLAUDE.md");
    let got = load_with(&env, &session, &["a/f.txt".into()], &mut fake);
    assert_eq!(got.len(), 1);
    assert!(got[0].is_empty());
}

// Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
// Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
#[cfg(unix)]
#[test]
fn working_dirs_check_follows_links_and_add_dirs() {
    let t = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(t.path()).unwrap();
    std::fs::create_dir_all(root.join("proj/a")).unwrap();
    std::fs::create_dir_all(root.join("other")).unwrap();
    std::fs::write(root.join("other/f.txt"), "x").unwrap();
    std::os::unix::fs::symlink("../other", root.join("proj/out")).unwrap();
    let mut flags = ClientFlags::default();
    let env = ClientEnv::new(root.join("proj"), BTreeMap::new(), flags.clone());
    assert!(dirs::within_working_dirs(&env, &root.join("proj/a/f.txt")));
    assert!(!dirs::within_working_dirs(
        &env,
        &root.join("proj/out/f.txt")
    ));
    assert!(!dirs::within_working_dirs(&env, &root.join("other/f.txt")));
    flags.add_dirs = vec!["../other".into()];
    let env = ClientEnv::new(root.join("proj"), BTreeMap::new(), flags);
    assert!(dirs::within_working_dirs(&env, &root.join("other/f.txt")));
}
