//! Which written paths concern memory, decided from the path alone (no file is read, no
//! settings are loaded), so that every other write costs the post-tool-use hook nothing.

use crate::constants::{AGENTS_MD, CLAUDE_DIR, CLAUDE_LOCAL_MD, CLAUDE_MD, RULES_DIR};
use std::path::{Component, Path, PathBuf};

/// Instruction file names the client loads (exact case).
pub(crate) const INSTRUCTION_NAMES: [&str; 3] = [CLAUDE_MD, CLAUDE_LOCAL_MD, AGENTS_MD];

/// What a written path is, as far as memory goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// Not a memory file: the hook exits at once.
    Other,
    /// A `MEMORY.md`: measure what the next session will load.
    MemoryIndex,
    /// A `.md` file under a folder named `memory` (the client's default auto-memory folder
    /// name): a topic file if it is inside this project's auto-memory folder.
    MemoryCandidate,
    /// CLAUDE.md, CLAUDE.local.md, AGENTS.md, or a Markdown file under `.claude/rules/`.
    Instruction,
}

/// Classifies a written path from its text alone.
pub(crate) fn classify(path: &Path) -> Target {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return Target::Other;
    };
    if !name.ends_with(".md") {
        return Target::Other;
    }
    if name == crate::constants::INDEX_FILE {
        return Target::MemoryIndex;
    }
    if INSTRUCTION_NAMES.contains(&name) {
        return Target::Instruction;
    }
    let dirs: Vec<&std::ffi::OsStr> = path
        .parent()
        .into_iter()
        .flat_map(Path::components)
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s),
            _ => None,
        })
        .collect();
    if dirs
        .windows(2)
        .any(|w| w[0] == CLAUDE_DIR && w[1] == RULES_DIR)
    {
        return Target::Instruction;
    }
    if dirs.iter().any(|d| *d == crate::constants::MEMORY_DIR) {
        return Target::MemoryCandidate;
    }
    Target::Other
}

/// `file_path` made absolute against `cwd` (lexically: the file may not exist any more).
pub(crate) fn absolute(file_path: &str, cwd: &str) -> PathBuf {
    let p = Path::new(file_path);
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        Path::new(cwd).join(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(p: &str) -> Target {
        classify(Path::new(p))
    }

    #[test]
    fn classifies_from_the_path_alone() {
        assert_eq!(
            c("/h/.claude/projects/-w/memory/MEMORY.md"),
            Target::MemoryIndex
        );
        assert_eq!(
            c("/h/.claude/projects/-w/memory/deploy.md"),
            Target::MemoryCandidate
        );
        assert_eq!(c("/w/CLAUDE.md"), Target::Instruction);
        assert_eq!(c("/w/sub/CLAUDE.local.md"), Target::Instruction);
        assert_eq!(c("/w/AGENTS.md"), Target::Instruction);
        assert_eq!(c("/w/.claude/rules/a/b.md"), Target::Instruction);
        assert_eq!(c("/w/.claude/rules.md"), Target::Other);
        assert_eq!(c("/w/rules/x.md"), Target::Other);
        assert_eq!(c("/w/src/main.rs"), Target::Other);
        assert_eq!(c("/w/memory/x.txt"), Target::Other);
        assert_eq!(c("/w/README.md"), Target::Other);
        assert_eq!(c("/w/claude.md"), Target::Other);
        assert_eq!(c("/w/memory.md"), Target::Other);
        assert_eq!(c("/"), Target::Other);
        assert_eq!(c(""), Target::Other);
    }

    #[test]
    fn relative_paths_join_the_cwd() {
        assert_eq!(
            absolute("a/CLAUDE.md", "/w"),
            PathBuf::from("/w/a/CLAUDE.md")
        );
        assert_eq!(
            absolute("/x/CLAUDE.md", "/w"),
            PathBuf::from("/x/CLAUDE.md")
        );
    }
}
