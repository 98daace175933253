//! `claudeMdExcludes` (`MLn`/`LQr`): glob patterns from every settings layer, matched with
//! picomatch semantics (`dot: true`) against the whole absolute path of a file.
//!
//! - backslashes become `/`; empty patterns are dropped;
//! - a leading `!` negates that one pattern (so `!**/p/CLAUDE.md` matches every other path);
//! - for an absolute pattern whose literal prefix directory (`dirname` of the text before the
//!   first `*?{[`) resolves through a symlink, the realpath variant is added too;
//! - only kinds User, Project and Local are ever excluded (never Managed or AutoMem);
//! - on Windows (`HLn`): picomatch's `windows` option is on (`gU`), and the non-negated
//!   patterns are also tried against the path with its drive letter's case flipped (`TLn`), so
//!   `c:/tmp/**` excludes `C:\tmp\x`; anything else is compared case-sensitively, there too
//!   (`**/P/CLAUDE.md` does not exclude `p\CLAUDE.md`).
//!
//! Patterns run on [`super::glob`] (picomatch-rs's regex source, in linear time); one whose
//! backtracking would go over the step budget is listed by [`Excludes::refused`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use picomatch_rs::CompileOptions;

use super::glob::{Budget, Glob, MAX_PATTERNS};

use super::paths::dirname;
use crate::load::Kind;
use crate::platform::Platform;
use crate::settings::Settings;

/// Paths whose verdict is kept.
const CACHED_PATHS: usize = 100_000;

/// One compiled pattern and where it came from.
struct Pattern {
    /// The pattern as matched (after `\` → `/`, possibly the realpath variant).
    text: String,
    /// The settings file that holds it.
    origin: String,
    matcher: Arc<Glob>,
    /// A leading `!` (such a pattern is not tried with the drive letter flipped).
    negated: bool,
}

/// The compiled `claudeMdExcludes` of a session.
#[derive(Default)]
pub struct Excludes {
    patterns: Vec<Pattern>,
    platform: Platform,
    /// Backtracked matches left (see [`super::glob`]).
    budget: Budget,
    /// Verdicts per path and kind: `check` asks about the same files again and again.
    cache: Mutex<HashMap<String, Option<usize>>>,
}

impl std::fmt::Debug for Excludes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.patterns.iter().map(|p| &p.text))
            .finish()
    }
}

/// What excluded a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExcludeHit {
    /// The pattern that matched.
    pub pattern: String,
    /// The settings file it came from.
    pub origin: String,
}

impl Excludes {
    /// Collects `claudeMdExcludes` from every settings layer (arrays concatenated).
    pub fn from_settings(platform: Platform, settings: &Settings) -> Self {
        let raw: Vec<(String, String)> = settings
            .concat("/claudeMdExcludes")
            .into_iter()
            .filter_map(|(v, layer)| Some((v.as_str()?.to_owned(), layer.origin.clone())))
            .collect();
        Self::new(platform, raw)
    }

    /// Compiles `(pattern, origin)` pairs the way the client does.
    pub fn new(platform: Platform, raw: Vec<(String, String)>) -> Self {
        let mut list: Vec<(String, String)> = raw
            .into_iter()
            .map(|(p, o)| (p.replace('\\', "/"), o))
            .collect();
        let variants: Vec<(String, String)> = list
            .iter()
            .filter_map(|(p, o)| realpath_variant(platform, p).map(|v| (v, o.clone())))
            .collect();
        list.extend(variants);
        let options = CompileOptions {
            dot: true,
            windows: platform.is_windows(),
            ..CompileOptions::default()
        };
        let patterns = list
            .into_iter()
            .filter(|(p, _)| !p.is_empty())
            .enumerate()
            .filter_map(|(k, (text, origin))| {
                let matcher = if k < MAX_PATTERNS {
                    Glob::new(&text, &options)?
                } else {
                    Glob::uncompiled(&text)
                };
                Some(Pattern {
                    negated: text.starts_with('!'),
                    text,
                    origin,
                    matcher,
                })
            })
            .collect();
        Excludes {
            patterns,
            platform,
            budget: Budget::default(),
            cache: Mutex::default(),
        }
    }

    /// The first pattern excluding `path` for a file of this kind.
    pub fn hit(&self, path: &str, kind: Kind) -> Option<ExcludeHit> {
        if !matches!(kind, Kind::User | Kind::Project | Kind::Local) {
            return None;
        }
        let cached = self.cache.lock().ok().and_then(|c| c.get(path).copied());
        let index = match cached {
            Some(index) => index,
            None => {
                let index = self.first(path);
                if let Ok(mut c) = self.cache.lock()
                    && c.len() < CACHED_PATHS
                {
                    c.insert(path.to_owned(), index);
                }
                index
            }
        };
        index.map(|i| ExcludeHit {
            pattern: self.patterns[i].text.clone(),
            origin: self.patterns[i].origin.clone(),
        })
    }

    fn first(&self, path: &str) -> Option<usize> {
        let path = path.replace('\\', "/");
        let flipped = self
            .platform
            .is_windows()
            .then(|| flip_drive(&path))
            .flatten();
        let b = &self.budget;
        self.patterns.iter().position(|p| {
            p.matcher.is_match(&path, b)
                || (!p.negated && flipped.as_ref().is_some_and(|f| p.matcher.is_match(f, b)))
        })
    }

    /// `(pattern, settings file)` of every pattern that some path was not matched against,
    /// its backtracking being over the step budget: ccmem cannot tell whether it excludes
    /// that file (the client may hang on it).
    pub fn refused(&self) -> Vec<ExcludeHit> {
        let refused = self.budget.refused();
        let mut first: HashMap<&str, &Pattern> = HashMap::new();
        for p in &self.patterns {
            first.entry(p.matcher.text()).or_insert(p);
        }
        let mut out: Vec<ExcludeHit> = Vec::new();
        for text in refused {
            if let Some(p) = first.get(text.as_str()) {
                out.push(ExcludeHit {
                    pattern: p.text.clone(),
                    origin: p.origin.clone(),
                });
            }
        }
        out
    }

    /// Whether there are no patterns at all.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// `TLn`: the path with its drive letter's case flipped (`None` without a drive letter).
fn flip_drive(path: &str) -> Option<String> {
    let b = path.as_bytes();
    (b.len() >= 2 && b[0].is_ascii_alphabetic() && b[1] == b':').then(|| {
        let c = char::from(b[0]);
        let flipped = if c.is_ascii_lowercase() {
            c.to_ascii_uppercase()
        } else {
            c.to_ascii_lowercase()
        };
        format!("{flipped}{}", &path[1..])
    })
}

/// `LQr`: for an absolute pattern whose literal prefix directory is reached through a symlink,
/// the same pattern with that directory replaced by its real path.
fn realpath_variant(platform: Platform, pattern: &str) -> Option<String> {
    if !pattern.starts_with('/') {
        return None;
    }
    let literal = match pattern.find(['*', '?', '{', '[']) {
        Some(i) => &pattern[..i],
        None => pattern,
    };
    let dir = dirname(platform, literal);
    let real = std::fs::canonicalize(&dir).ok()?;
    let real = real.to_string_lossy().replace('\\', "/");
    (real != dir && pattern.len() >= dir.len()).then(|| format!("{real}{}", &pattern[dir.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(patterns: &[&str]) -> Excludes {
        ex_on(Platform::Linux, patterns)
    }

    fn ex_on(platform: Platform, patterns: &[&str]) -> Excludes {
        Excludes::new(
            platform,
            patterns
                .iter()
                .map(|p| (p.to_string(), "s.json".to_string()))
                .collect(),
        )
    }

    /// Past a list's first `MAX_PATTERNS` patterns nothing is compiled (30,000 took over a
    /// minute): such a pattern is refused, never a silent verdict, unless it is the path itself.
    #[test]
    fn patterns_past_the_bound_are_refused_not_compiled() {
        let mut patterns: Vec<String> = (0..MAX_PATTERNS).map(|k| format!("/x/{k}/**")).collect();
        patterns.push("**/p/CLAUDE.md".into());
        patterns.push("/q/CLAUDE.md".into());
        let e = ex(&patterns.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(e.hit("/r/p/CLAUDE.md", Kind::Project).is_none());
        assert!(e.hit("/q/CLAUDE.md", Kind::Project).is_some());
        let refused: Vec<String> = e.refused().into_iter().map(|h| h.pattern).collect();
        assert_eq!(refused, ["**/p/CLAUDE.md", "/q/CLAUDE.md"]);
        assert!(e.hit("/x/7/CLAUDE.md", Kind::Project).is_some());
    }

    #[test]
    fn absolute_globs_match_with_dot_files() {
        let e = ex(&["**/.claude/CLAUDE.md"]);
        assert!(e.hit("/h/.claude/CLAUDE.md", Kind::User).is_some());
        assert!(e.hit("/p/CLAUDE.md", Kind::Project).is_none());
    }

    #[test]
    fn relative_patterns_never_match_absolute_paths() {
        let e = ex(&["CLAUDE.md", "./CLAUDE.md", "p/CLAUDE.local.md"]);
        assert!(e.hit("/r/p/CLAUDE.md", Kind::Project).is_none());
        assert!(e.hit("/r/p/CLAUDE.local.md", Kind::Local).is_none());
    }

    #[test]
    fn negation_excludes_everything_else() {
        let e = ex(&["!**/p/CLAUDE.md"]);
        assert!(e.hit("/r/p/CLAUDE.md", Kind::Project).is_none());
        assert!(e.hit("/r/CLAUDE.md", Kind::Project).is_some());
    }

    #[test]
    fn managed_and_automem_are_never_excluded() {
        let e = ex(&["**"]);
        assert!(e.hit("/etc/claude-code/CLAUDE.md", Kind::Managed).is_none());
        assert!(e.hit("/m/MEMORY.md", Kind::AutoMem).is_none());
        assert_eq!(e.hit("/x.md", Kind::Local).unwrap().origin, "s.json");
    }

    // Unix only: symbolic links (on Windows they need a privilege, and wine 8, which runs the
    // Windows tests here, makes none: its CreateSymbolicLinkW succeeds and creates nothing).
    #[cfg(unix)]
    #[test]
    fn symlinked_prefix_gets_a_realpath_variant() {
        let t = tempfile::tempdir().unwrap();
        let real = t.path().canonicalize().unwrap().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = t.path().canonicalize().unwrap().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let e = ex(&[&format!("{}/CLAUDE.md", link.display())]);
        let hit = e.hit(&format!("{}/CLAUDE.md", real.display()), Kind::Project);
        assert!(hit.is_some());
    }

    #[test]
    fn windows_flips_the_drive_letter_of_plain_patterns_only() {
        let w = ex_on(Platform::Windows, &["c:/tmp/**/p/CLAUDE.local.md"]);
        assert!(w.hit(r"C:\tmp\r\p\CLAUDE.local.md", Kind::Local).is_some());
        assert!(w.hit(r"c:\tmp\r\p\CLAUDE.local.md", Kind::Local).is_some());
        let w = ex_on(
            Platform::Windows,
            &[r"C:\tmp\**\p\.claude\CLAUDE.md", "**/P/CLAUDE.md"],
        );
        assert!(
            w.hit(r"C:\tmp\r\p\.claude\CLAUDE.md", Kind::Project)
                .is_some()
        );
        assert!(
            w.hit(r"C:\tmp\r\p\CLAUDE.md", Kind::Project).is_none(),
            "case kept"
        );
        // A negated pattern is tried as the path is written only.
        // (flipped, `c:/r/p/CLAUDE.md` would be "every other path" and excluded).
        let neg = ex_on(Platform::Windows, &["!C:/r/p/CLAUDE.md"]);
        assert!(neg.hit(r"C:\r\p\CLAUDE.md", Kind::Project).is_none());
        assert!(neg.hit(r"C:\r\q\CLAUDE.md", Kind::Project).is_some());
        // Linux and macOS never flip.
        for p in [Platform::Linux, Platform::Macos] {
            let e = ex_on(p, &["c:/tmp/**"]);
            assert!(e.hit("C:/tmp/x", Kind::Project).is_none(), "{p}");
        }
    }
}
