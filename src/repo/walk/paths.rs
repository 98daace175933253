//! The walk's paths and the loader's: relative, `/`-separated on every host, against absolute
//! in the platform model's flavour, mapped one to the other.

use std::borrow::Cow;
use std::path::{Component, Path, PathBuf};

use unicode_normalization::UnicodeNormalization;

use super::Repo;
use crate::platform::Platform;
use crate::text::path;

impl Repo {
    /// The loader path of a relative one (`/`-separated): the root joined to it in the
    /// model's flavour (`C:\r\a\CLAUDE.md` for `a/CLAUDE.md` under the Windows model).
    pub fn abs(&self, rel: &str) -> String {
        let root = match &self.model_root {
            Some(r) => Cow::Borrowed(r.as_str()),
            None => self.root.to_string_lossy(),
        };
        if rel.is_empty() {
            root.into_owned()
        } else if self.platform.is_windows() {
            path::win32::join(&[&root, rel])
        } else if root.ends_with('/') {
            format!("{root}{rel}")
        } else {
            format!("{root}/{rel}")
        }
    }

    /// A loader path relative to the root (`/`-separated), or `None` when it lies outside.
    /// Under the Windows model the comparison is node's `path.win32.relative`'s: either
    /// separator, the verbatim prefix `\\?\` ignored, letter case folded (the client's own
    /// inside tests fold case, and so do Windows file systems).
    pub fn rel<'p>(&self, path: &'p str) -> Option<Cow<'p, str>> {
        let root = self.model_root.as_deref()?;
        if self.platform.is_windows() {
            return rel_win32(root, path).map(Cow::Owned);
        }
        let rest = path.strip_prefix(root)?;
        if root.ends_with('/') || rest.is_empty() {
            return Some(rest.into());
        }
        rest.strip_prefix('/').map(Cow::Borrowed)
    }

    /// A loader path as shown: relative to the root when inside, else as is.
    pub fn show<'p>(&self, path: &'p str) -> Cow<'p, str> {
        self.rel(path).unwrap_or(Cow::Borrowed(path))
    }

    /// The host path of a relative one (`/`-separated), for the file system and the loader's
    /// working directory.
    pub fn host_path(&self, rel: &str) -> PathBuf {
        let mut p = self.root.clone();
        p.extend(rel.split('/').filter(|s| !s.is_empty()));
        p
    }
}

/// The root as the loader writes it under `platform`: the working directory's form
/// (`env::client_cwd`: NFC on macOS, no verbatim prefix on Windows), normalized as node's
/// `path.join` leaves every path it builds (`\tmp\x` for `/tmp/x` under the Windows model,
/// whose `C:\` paths a Linux host has none of).
pub(super) fn model_root(platform: Platform, root: &str) -> String {
    match platform {
        Platform::Windows => path::win32::normalize(&path::strip_verbatim(root)),
        Platform::Macos if !root.is_ascii() => root.nfc().collect(),
        Platform::Macos | Platform::Linux | Platform::Wsl => root.to_owned(),
    }
}

/// [`Repo::rel`] under the Windows model, `root` in [`model_root`]'s form.
fn rel_win32(root: &str, path: &str) -> Option<String> {
    let path = path::win32::normalize(&path::strip_verbatim(path));
    let head = path.get(..root.len())?;
    if head != root && head.to_lowercase() != root.to_lowercase() {
        return None;
    }
    let rest = &path[root.len()..];
    let rest = if root.ends_with('\\') || rest.is_empty() {
        rest
    } else {
        rest.strip_prefix('\\')?
    };
    Some(rest.replace('\\', "/"))
}

/// A path relative to the root as the walk keeps it: its parts joined with `/` on every host
/// (`None`: not UTF-8). Windows gives `a\b`; a Unix name may hold a `\`, kept as is.
pub(super) fn slash_rel(rel: &Path) -> Option<String> {
    let mut out = String::new();
    for part in rel.components() {
        let Component::Normal(part) = part else {
            continue;
        };
        if !out.is_empty() {
            out.push('/');
        }
        out.push_str(part.to_str()?);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::repo::walk::InstrKind;

    /// A repository at `root` (no walk) for `platform`'s loader paths.
    fn at(root: &str, platform: Platform) -> Repo {
        Repo {
            root: PathBuf::from(root),
            platform,
            model_root: Some(model_root(platform, root)),
            ..Repo::default()
        }
    }

    #[test]
    fn posix_paths_map_byte_for_byte() {
        for platform in [Platform::Linux, Platform::Wsl, Platform::Macos] {
            let r = at("/home/ana/projet", platform);
            let rel = |p: &str| r.rel(p).map(Cow::into_owned);
            assert_eq!(
                rel("/home/ana/projet/docs/CLAUDE.md").as_deref(),
                Some("docs/CLAUDE.md")
            );
            assert_eq!(rel("/home/ana/projet").as_deref(), Some(""));
            assert_eq!(
                rel("/home/ana/projet/a\\b.md").as_deref(),
                Some("a\\b.md"),
                "a name"
            );
            assert_eq!(rel("/home/ana/projets/CLAUDE.md"), None, "a longer name");
            assert_eq!(rel("/home/ana/Projet/CLAUDE.md"), None, "case counts");
            assert_eq!(
                rel("/home/ana/projet\\CLAUDE.md"),
                None,
                "no Windows separator"
            );
            assert_eq!(r.abs("docs/CLAUDE.md"), "/home/ana/projet/docs/CLAUDE.md");
            assert_eq!(r.abs(""), "/home/ana/projet");
            assert_eq!(
                r.show("/etc/claude-code/CLAUDE.md"),
                "/etc/claude-code/CLAUDE.md"
            );
        }
        let top = at("/", Platform::Linux);
        assert_eq!(top.rel("/CLAUDE.md").as_deref(), Some("CLAUDE.md"));
        assert_eq!(top.abs("a/CLAUDE.md"), "/a/CLAUDE.md");
    }

    #[test]
    fn macos_paths_are_nfc_whatever_form_the_folder_has() {
        // An NFD folder name (`café` decomposed, as some tools create it on APFS): the client
        // normalizes its working directory, so its paths are NFC.
        let nfd = "/Users/zo\u{65}\u{301}/caf\u{65}\u{301}/\u{30d7}\u{30ed}\u{30b7}\u{3099}\u{30a7}\u{30af}\u{30c8}";
        let nfc: String = nfd.nfc().collect();
        let loaded = format!("{nfc}/.claude/rules/\u{30c6}\u{30b9}\u{30c8}.md");
        let mac = at(nfd, Platform::Macos);
        assert_eq!(
            mac.rel(&loaded).as_deref(),
            Some(".claude/rules/\u{30c6}\u{30b9}\u{30c8}.md")
        );
        assert_eq!(mac.abs("CLAUDE.md"), format!("{nfc}/CLAUDE.md"));
        // Linux keeps bytes: the NFC path is another folder.
        let linux = at(nfd, Platform::Linux);
        assert_eq!(linux.rel(&loaded), None);
        assert_eq!(linux.abs("CLAUDE.md"), format!("{nfd}/CLAUDE.md"));
    }

    #[test]
    fn windows_paths_map_with_either_separator_and_folded_case() {
        for root in [r"C:\Users\Aiko\src\web", r"\\?\C:\Users\Aiko\src\web"] {
            let r = at(root, Platform::Windows);
            let rel = |p: &str| r.rel(p).map(Cow::into_owned);
            assert_eq!(
                rel(r"C:\Users\Aiko\src\web\packages\api\CLAUDE.md").as_deref(),
                Some("packages/api/CLAUDE.md"),
                "{root}"
            );
            assert_eq!(rel(r"C:\Users\Aiko\src\web").as_deref(), Some(""));
            assert_eq!(
                rel(r"c:\users\aiko\SRC\web\AGENTS.md").as_deref(),
                Some("AGENTS.md")
            );
            assert_eq!(
                rel("C:/Users/Aiko/src/web/.claude/rules/x.md").as_deref(),
                Some(".claude/rules/x.md")
            );
            assert_eq!(
                rel(r"\\?\C:\Users\Aiko\src\web\docs\guía.md").as_deref(),
                Some("docs/guía.md")
            );
            assert_eq!(rel(r"C:\Users\Aiko\src\webapp\CLAUDE.md"), None);
            assert_eq!(rel(r"D:\Users\Aiko\src\web\CLAUDE.md"), None);
            assert_eq!(rel(r"C:\Users\Aiko\src\web\..\CLAUDE.md"), None);
            assert_eq!(
                r.abs("packages/api/CLAUDE.md"),
                r"C:\Users\Aiko\src\web\packages\api\CLAUDE.md"
            );
            assert_eq!(r.abs(""), r"C:\Users\Aiko\src\web");
            assert_eq!(
                r.show(r"C:\ProgramData\ClaudeCode\CLAUDE.md"),
                r"C:\ProgramData\ClaudeCode\CLAUDE.md"
            );
        }
        let drive = at(r"D:\", Platform::Windows);
        assert_eq!(
            drive.rel(r"D:\notes\CLAUDE.md").as_deref(),
            Some("notes/CLAUDE.md")
        );
        assert_eq!(drive.abs("notes/CLAUDE.md"), r"D:\notes\CLAUDE.md");
        let share = at(r"\\nas\équipe\projet", Platform::Windows);
        assert_eq!(
            share.rel(r"\\nas\équipe\projet\CLAUDE.md").as_deref(),
            Some("CLAUDE.md")
        );
        // A Linux folder under the Windows model: the loader joins it the win32 way.
        let posix = at("/tmp/projet", Platform::Windows);
        assert_eq!(posix.abs("CLAUDE.md"), r"\tmp\projet\CLAUDE.md");
        assert_eq!(
            posix.rel(r"\tmp\projet\CLAUDE.md").as_deref(),
            Some("CLAUDE.md")
        );
        // And a Windows path under a posix model is one name, never inside.
        assert_eq!(
            at(r"C:\Users\Aiko\src\web", Platform::Linux).rel(r"C:\Users\Aiko\src\web\CLAUDE.md"),
            None
        );
    }

    #[test]
    fn walk_paths_are_slash_separated_on_every_host() {
        let p: PathBuf = ["packages", "api", ".claude", "rules", "テスト.md"]
            .iter()
            .collect();
        assert_eq!(
            slash_rel(&p).as_deref(),
            Some("packages/api/.claude/rules/テスト.md")
        );
        assert_eq!(slash_rel(Path::new("")).as_deref(), Some(""));
        #[cfg(windows)]
        assert_eq!(
            slash_rel(Path::new(r"a\b/c.md")).as_deref(),
            Some("a/b/c.md")
        );
        #[cfg(unix)]
        assert_eq!(
            slash_rel(Path::new(r"a\b/c.md")).as_deref(),
            Some(r"a\b/c.md")
        );
    }

    /// On the host's own model, what the walk finds maps to the loader's paths and back, and
    /// the start directories are host paths.
    #[test]
    fn the_walk_and_the_loader_agree_on_the_host() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap();
        let root = PathBuf::from(path::strip_verbatim(real.to_str().unwrap()).as_ref());
        for rel in [
            "CLAUDE.md",
            "services/billing/CLAUDE.md",
            "services/billing/.claude/rules/sql.md",
        ] {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "# Règles\n").unwrap();
        }
        let platform = Platform::compiled();
        let repo = Repo::walk(&root, platform);
        let mut got: Vec<(&str, &str, InstrKind)> = repo
            .instructions
            .iter()
            .map(|f| (f.rel.as_str(), f.dir.as_str(), f.kind))
            .collect();
        got.sort_by_key(|g| g.0);
        assert_eq!(
            got,
            [
                ("CLAUDE.md", "", InstrKind::Claude),
                (
                    "services/billing/.claude/rules/sql.md",
                    "services/billing",
                    InstrKind::Rule
                ),
                (
                    "services/billing/CLAUDE.md",
                    "services/billing",
                    InstrKind::Claude
                ),
            ]
        );
        for f in &repo.instructions {
            let loader = path::join(platform, &[root.to_str().unwrap(), &f.rel]);
            assert_eq!(repo.abs(&f.rel), loader);
            assert_eq!(repo.rel(&loader).as_deref(), Some(f.rel.as_str()));
            assert!(Path::new(&repo.abs(&f.rel)).is_file(), "{}", f.rel);
        }
        assert!(repo.host_path("services/billing").is_dir());
        assert_eq!(repo.host_path(""), root);
    }
}
