//! What `check` reports for one start directory: the receipt's view of the repository it was
//! started in ([`crate::receipt::Traps`]). The whole repository is checked, as `check` checks
//! it (rules such as `agents-md-never-loads` ask every start directory), with the given one
//! among the start directories; then each finding is kept when it bites a session started
//! there.

use std::borrow::Cow;
use std::path::{Component, Path};

use unicode_normalization::UnicodeNormalization;

use super::{Options, check};
use crate::platform::Platform;
use crate::receipt::{Trap, Traps};
use crate::rules::Diagnostic;

/// The start directory `start` relative to `root`, the repository root found from it (an
/// ancestor of `start` as given, [`crate::load::git::git_root`]), its parts joined with `/`
/// (`""`: the root); `None` when `start` is not below `root` or a part of it is not UTF-8.
///
/// Taken from the two paths as given, never from their real paths: on macOS the real path of
/// the root may not be a prefix of the start directory as the client holds it (the client
/// NFC-normalizes its working directory while the disk keeps an NFD name, `/var` is a link to
/// `/private/var`, a case-insensitive volume keeps its own case), and a start taken from a
/// failed comparison would be reported as the root.
pub fn start_rel(root: &Path, start: &Path) -> Option<String> {
    let rest = start.strip_prefix(root).ok()?;
    let mut parts = Vec::new();
    for c in rest.components() {
        match c {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::CurDir => {}
            _ => return None,
        }
    }
    Some(parts.join("/"))
}

/// The findings `check` reports for a session started in `rel` (relative to the root,
/// [`start_rel`]), a directory of the repository at `root` (its real path), and how many it
/// reports elsewhere. `command` is the `ccmem check` that shows them all.
pub fn traps(root: &Path, rel: &str, opts: &Options, command: String) -> Traps {
    let rel = rel.to_owned();
    let opts = Options {
        given: Some(rel.clone()),
        ..opts.clone()
    };
    let report = check(root, &opts);
    // The walk names folders as the disk spells them, the start is named as the client holds
    // it: compared as the platform's file system compares names.
    let platform = opts.env.platform();
    let key = |dir: &str| name_key(platform, dir).into_owned();
    let start = key(&rel);
    let here = report.sessions.iter().find(|s| key(&s.start.dir) == start);
    let bites = |f: &Diagnostic| {
        if !f.start_dirs.is_empty() {
            let shown = if rel.is_empty() { "." } else { start.as_str() };
            return f.start_dirs.iter().any(|d| key(d) == shown);
        }
        if f.is_absolute() {
            // A file outside the repository: it bites when this session reaches it.
            return here
                .is_some_and(|s| s.entry(&f.path).is_some() || s.skip_for(&f.path).is_some());
        }
        related(&key(owner(&f.path)), &start)
    };
    let (findings, elsewhere): (Vec<&Diagnostic>, Vec<&Diagnostic>) =
        report.findings.iter().partition(|f| bites(f));
    Traps {
        root: root.to_string_lossy().into_owned(),
        start: if rel.is_empty() { ".".to_owned() } else { rel },
        findings: findings
            .into_iter()
            .map(|f| Trap {
                rule: f.rule,
                severity: f.severity,
                path: f.path.clone(),
                line: f.line,
                message: f.message.clone(),
                fix: f.fix().to_owned(),
            })
            .collect(),
        elsewhere: elsewhere.len(),
        left_out: report.walk.start_directories_left_out,
        command,
    }
}

/// A folder name as the platform's default file system compares it: APFS ignores Unicode
/// normalization and letter case, NTFS letter case; Linux compares bytes.
fn name_key(platform: Platform, name: &str) -> Cow<'_, str> {
    match platform {
        Platform::Macos if name.is_ascii() => Cow::Owned(name.to_lowercase()),
        Platform::Macos => Cow::Owned(name.nfc().collect::<String>().to_lowercase()),
        Platform::Windows => Cow::Owned(name.to_lowercase()),
        Platform::Linux | Platform::Wsl => Cow::Borrowed(name),
    }
}

/// The directory a repository file belongs to (relative to the root): the one holding it, or
/// the one holding its `.claude` folder.
fn owner(path: &str) -> &str {
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    let mut end: usize = 0;
    for (k, part) in dir.split('/').enumerate() {
        if part == crate::constants::CLAUDE_DIR {
            return &dir[..end.saturating_sub(usize::from(k > 0))];
        }
        end += part.len() + 1;
    }
    dir
}

/// Whether a file of directory `dir` reaches a session started in `start`: its directory is
/// an ancestor of the start (loaded at start) or below it (attached when the model reads
/// there).
fn related(dir: &str, start: &str) -> bool {
    let under = |a: &str, b: &str| a.is_empty() || b == a || b.starts_with(&format!("{a}/"));
    under(dir, start) || under(start, dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A repository with a lower-case `claude.md` (a `wrong-case-name` trap) in two packages.
    #[cfg(unix)]
    fn monorepo(root: &Path) {
        for (name, text) in [
            (".git/HEAD", "ref: refs/heads/main\n"),
            ("CLAUDE.md", "# Storefront\n\n- Use pnpm.\n"),
            ("apps/web/package.json", "{\"name\": \"web\"}\n"),
            (
                "apps/web/claude.md",
                "# ウェブ\n\n- コンポーネントは関数で書く。\n",
            ),
            ("apps/api/package.json", "{\"name\": \"api\"}\n"),
            (
                "apps/api/claude.md",
                "# API\n\n- 所有接口返回统一错误格式。\n",
            ),
        ] {
            let p = root.join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }

    #[cfg(unix)]
    fn options(platform: Platform, home: &Path) -> Options {
        Options {
            config: Default::default(),
            size: Default::default(),
            max_dirs: super::super::DEFAULT_MAX_DIRS,
            env: super::super::Environment::Clean(home.to_path_buf(), platform),
            flags: Default::default(),
            given: None,
        }
    }

    /// The traps of a session started in `cwd` (the client's working directory) as `receipt`
    /// finds them: `(start, rules and paths here, elsewhere)`.
    #[cfg(unix)]
    fn receipt_traps(cwd: &Path, platform: Platform) -> (String, Vec<(String, String)>, usize) {
        let found = crate::load::git::git_root(cwd).unwrap();
        let start = start_rel(&found, cwd).unwrap();
        let root = found.canonicalize().unwrap();
        let home = tempfile::tempdir().unwrap();
        let t = traps(&root, &start, &options(platform, home.path()), "c".into());
        let here = (t.findings.iter())
            .map(|f| (f.rule.to_owned(), f.path.clone()))
            .collect();
        (t.start, here, t.elsewhere)
    }

    /// A start directory reached through a link (`/tmp` → `/private/tmp` on macOS): its real
    /// root is no prefix of it, and the start is still `apps/web`, never the root.
    #[cfg(unix)]
    #[test]
    fn a_start_reached_through_a_link_is_named_from_the_root_found_from_it() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real");
        monorepo(&real.join("repo"));
        let link = real.parent().unwrap().join("tmp");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let cwd = link.join("repo/apps/web");
        let canonical_root = real.join("repo");
        assert!(
            cwd.strip_prefix(&canonical_root).is_err(),
            "the case is exercised"
        );
        let (start, here, elsewhere) = receipt_traps(&cwd, Platform::Linux);
        assert_eq!(start, "apps/web");
        assert_eq!(
            here,
            [(
                "wrong-case-name".to_owned(),
                "apps/web/claude.md".to_owned()
            )]
        );
        assert_eq!(elsewhere, 1, "apps/api's");
        assert_eq!(start_rel(&canonical_root, &cwd), None);
        assert_eq!(
            start_rel(&link.join("repo"), &link.join("repo")),
            Some(String::new())
        );
        assert_eq!(start_rel(&link, &link.join("repo/../x")), None);
    }

    /// Under the macOS model: the client NFC-normalizes its working directory, while the disk
    /// (APFS here emulated by an NFC link to the NFD folder) keeps the NFD name the real path
    /// gives. The start is named from the root found from the working directory, and a
    /// package folder the disk names in NFD is the one the client names in NFC.
    #[cfg(unix)]
    #[test]
    fn under_the_macos_model_an_nfd_folder_is_the_start_the_client_names_in_nfc() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        let (nfd, nfc) = ("caf\u{65}\u{301}", "caf\u{e9}");
        monorepo(&base.join(nfd));
        std::fs::create_dir_all(base.join(nfd).join("apps").join(nfd)).unwrap();
        std::fs::write(
            base.join(nfd).join("apps").join(nfd).join("claude.md"),
            "# Café\n\n- Prix en euros.\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(base.join(nfd), base.join(nfc)).unwrap();
        std::os::unix::fs::symlink(nfd, base.join(nfd).join("apps").join(nfc)).unwrap();
        let vars = [("CCMEM_PLATFORM".to_owned(), "macos".to_owned())].into();
        let env = crate::env::ClientEnv::new(
            base.join(nfd).join("apps").join(nfd),
            vars,
            Default::default(),
        );
        assert_eq!(
            env.cwd,
            base.join(nfc).join("apps").join(nfc),
            "NFC, as the client"
        );
        let (start, here, _) = receipt_traps(&env.cwd, Platform::Macos);
        assert_eq!(start, format!("apps/{nfc}"));
        assert_eq!(
            here,
            [(
                "wrong-case-name".to_owned(),
                format!("apps/{nfd}/claude.md")
            )]
        );
    }

    #[test]
    fn folder_names_compare_as_the_platforms_file_system_compares_them() {
        let (nfd, nfc) = ("apps/Caf\u{65}\u{301}", "apps/caf\u{e9}");
        assert_eq!(
            name_key(Platform::Macos, nfd),
            name_key(Platform::Macos, nfc)
        );
        assert_eq!(name_key(Platform::Windows, "Apps/Web"), "apps/web");
        assert_ne!(
            name_key(Platform::Linux, nfd),
            name_key(Platform::Linux, nfc)
        );
        assert_ne!(
            name_key(Platform::Linux, "Apps"),
            name_key(Platform::Linux, "apps")
        );
    }

    #[test]
    fn a_file_belongs_to_the_folder_holding_it_or_its_claude_folder() {
        let cases = [
            ("CLAUDE.md", ""),
            (".claude/rules/ts.md", ""),
            (".claude/rules/deep/x.md", ""),
            ("sub/claude.md", "sub"),
            ("a/b/.claude/rules/x.md", "a/b"),
            ("a/b/.claude/CLAUDE.md", "a/b"),
            ("a/b/AGENTS.md", "a/b"),
        ];
        for (path, want) in cases {
            assert_eq!(owner(path), want, "{path}");
        }
    }

    #[test]
    fn files_above_and_below_the_start_bite_there_siblings_do_not() {
        assert!(related("", "apps/web"));
        assert!(related("apps", "apps/web"));
        assert!(related("apps/web", "apps/web"));
        assert!(related("apps/web/src", "apps/web"));
        assert!(related("apps/web", ""));
        assert!(!related("apps/api", "apps/web"));
        assert!(!related("apps/webx", "apps/web"));
        assert!(!related("apps/web", "apps/webx"));
    }
}
