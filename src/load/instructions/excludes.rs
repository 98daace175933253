//! `claudeMdExcludes` (`MLn`/`LQr`): glob patterns from every settings layer, matched with
//! picomatch semantics (`dot: true`) against the whole absolute path of a file.
//!
//! - backslashes become `/`; empty patterns are dropped;
//! - a leading `!` negates that one pattern (so `!**/p/CLAUDE.md` matches every other path);
//! - for an absolute pattern whose literal prefix directory (`dirname` of the text before the
//!   first `*?{[`) resolves through a symlink, the realpath variant is added too;
//! - only kinds User, Project and Local are ever excluded (never Managed or AutoMem).

use picomatch_rs::{CompileOptions, Matcher, compile_matcher};

use super::paths::dirname;
use crate::load::Kind;
use crate::settings::Settings;

/// One compiled pattern and where it came from.
struct Pattern {
    /// The pattern as matched (after `\` → `/`, possibly the realpath variant).
    text: String,
    /// The settings file that holds it.
    origin: String,
    matcher: Matcher,
}

/// The compiled `claudeMdExcludes` of a session.
#[derive(Default)]
pub struct Excludes {
    patterns: Vec<Pattern>,
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
    pub fn from_settings(settings: &Settings) -> Self {
        let raw: Vec<(String, String)> = settings
            .concat("/claudeMdExcludes")
            .into_iter()
            .filter_map(|(v, layer)| Some((v.as_str()?.to_owned(), layer.origin.clone())))
            .collect();
        Self::new(raw)
    }

    /// Compiles `(pattern, origin)` pairs the way the client does.
    pub fn new(raw: Vec<(String, String)>) -> Self {
        let mut list: Vec<(String, String)> = raw
            .into_iter()
            .map(|(p, o)| (p.replace('\\', "/"), o))
            .collect();
        let variants: Vec<(String, String)> = list
            .iter()
            .filter_map(|(p, o)| realpath_variant(p).map(|v| (v, o.clone())))
            .collect();
        list.extend(variants);
        let options = CompileOptions {
            dot: true,
            ..CompileOptions::default()
        };
        let patterns = list
            .into_iter()
            .filter(|(p, _)| !p.is_empty())
            .filter_map(|(text, origin)| {
                let matcher = compile_matcher(&text, &options).ok()?;
                Some(Pattern {
                    text,
                    origin,
                    matcher,
                })
            })
            .collect();
        Excludes { patterns }
    }

    /// The first pattern excluding `path` for a file of this kind.
    pub fn hit(&self, path: &str, kind: Kind) -> Option<ExcludeHit> {
        if !matches!(kind, Kind::User | Kind::Project | Kind::Local) {
            return None;
        }
        let path = path.replace('\\', "/");
        self.patterns
            .iter()
            .find(|p| p.matcher.is_match(&path).unwrap_or(false))
            .map(|p| ExcludeHit {
                pattern: p.text.clone(),
                origin: p.origin.clone(),
            })
    }

    /// Whether there are no patterns at all.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

/// `LQr`: for an absolute pattern whose literal prefix directory is reached through a symlink,
/// the same pattern with that directory replaced by its real path.
fn realpath_variant(pattern: &str) -> Option<String> {
    if !pattern.starts_with('/') {
        return None;
    }
    let literal = match pattern.find(['*', '?', '{', '[']) {
        Some(i) => &pattern[..i],
        None => pattern,
    };
    let dir = dirname(literal);
    let real = std::fs::canonicalize(&dir).ok()?;
    let real = real.to_string_lossy().replace('\\', "/");
    (real != dir && pattern.len() >= dir.len()).then(|| format!("{real}{}", &pattern[dir.len()..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ex(patterns: &[&str]) -> Excludes {
        Excludes::new(
            patterns
                .iter()
                .map(|p| (p.to_string(), "s.json".to_string()))
                .collect(),
        )
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
}
