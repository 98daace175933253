//! What fixes each finding of a receipt, said beside it: a command to run (`ccmem tier` for a
//! cut index) or the edit to make (a skip's own cause). The receipt's last section lists them,
//! so the first receipt a newcomer sees ends with what to do.

use std::borrow::Cow;

use crate::constants::{INDEX_MAX_LINES, INDEX_MAX_UTF16_WORDS, MAX_FILE_SIZE, MAX_IMPORT_HOPS};
use crate::load::automem::{IndexState, Report};
use crate::load::{SkipWhy, Skipped};

/// The fix for the client's own size warnings.
pub const OVERSIZED: &str = "shorten it, or move parts into .claude/rules/*.md files with `paths:` \
     frontmatter so they load only when a matching file is read";

/// `word` as one shell word: unchanged when it is safe, quoted otherwise.
pub fn shell_word(word: &str) -> Cow<'_, str> {
    shell_words::quote(word)
}

/// The command that brings a cut (or unloadable) MEMORY.md back under the client's limits.
pub fn dark_index(report: &Report) -> String {
    if matches!(report.index, IndexState::FromEnv(_)) {
        return format!(
            "shorten CLAUDE_COWORK_MEMORY_INDEX_CONTENT (the client loads {INDEX_MAX_LINES} \
             lines and {INDEX_MAX_UTF16_WORDS} UTF-16 units of it)"
        );
    }
    let folder = report
        .folder
        .as_deref()
        .map(|f| f.strip_suffix('/').filter(|f| !f.is_empty()).unwrap_or(f));
    let command = match folder {
        Some(f) => format!("ccmem tier {}", shell_word(f)),
        None => "ccmem tier".to_owned(),
    };
    format!(
        "{command} (a dry run: the hub plan and the proof that nothing is lost; \
         add --write to apply it, ccmem undo reverts it)"
    )
}

/// The fix for a file that did not load, when there is one to make.
pub fn skip(s: &Skipped) -> Option<String> {
    use SkipWhy::*;
    let path = s.path.as_str();
    let from = s.from.as_ref().map(|(f, l)| format!("{f}:{l}"));
    let in_import = from
        .as_deref()
        .map(|f| format!(" in the @import at {f}"))
        .unwrap_or_default();
    Some(match &s.why {
        Missing => match path.chars().last().filter(|c| ".,;:!?)".contains(*c)) {
            Some(c) => format!(
                "remove the trailing \"{c}\"{in_import}: punctuation after an @import is part of \
                 the path"
            ),
            None => format!("create {path}, or correct the path{in_import}"),
        },
        TooLarge { .. } => format!("split {path}: the client skips files over {MAX_FILE_SIZE}"),
        NotRegular { .. } => format!("make {path} a regular file (the client reads no others)"),
        Unreadable { .. } => format!("make {path} readable, then run ccmem receipt again"),
        NonTextExtension { .. } => {
            format!("rename it to a .md file{in_import}: the client imports only text files")
        }
        ExternalNotApproved { .. } => "start Claude Code here interactively and approve the \
             external CLAUDE.md imports when it asks"
            .to_owned(),
        DepthLimit => format!(
            "import {path} from a file nearer the top: the client follows {MAX_IMPORT_HOPS} hops of @imports"
        ),
        DeniedRead { rule } => {
            format!("remove the Read deny rule {rule} from your permissions if it should load")
        }
        ProtectedFolder { folder } => {
            format!("move it out of {folder}: the client never loads memory from there")
        }
        DevicePath => "import a regular file instead".to_owned(),
        AutomountRoot => {
            "remove its folder from CLAUDE_CODE_AUTOMOUNT_ROOTS if it should load".to_owned()
        }
        LocalAgentLink => format!("replace the link {path} with a regular file"),
        Excluded { pattern, settings } => {
            format!("remove \"{pattern}\" from claudeMdExcludes in {settings} if it should load")
        }
        SourceDisabled { source } => {
            format!("add {source} back to --setting-sources if it should load")
        }
        AddDirNeedsEnv => "set CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1".to_owned(),
        OuterWorktree
        | AgentsModeOff { .. }
        | ManagedOnly
        | Empty
        | Duplicate
        | Conditional { .. }
        | AgentsSuppressed { .. }
        | AgentsDuplicate { .. }
        | Other { .. } => {
            return None;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skipped(path: &str, why: SkipWhy) -> Skipped {
        Skipped {
            path: path.to_owned(),
            kind: None,
            from: Some(("/p/CLAUDE.md".to_owned(), 5)),
            why,
        }
    }

    #[test]
    fn a_missing_import_with_trailing_punctuation_says_which_character() {
        let fix = skip(&skipped("/p/docs/style.md.", SkipWhy::Missing)).unwrap();
        assert_eq!(
            fix,
            "remove the trailing \".\" in the @import at /p/CLAUDE.md:5: punctuation after an \
             @import is part of the path"
        );
        let fix = skip(&skipped("/p/docs/style.md", SkipWhy::Missing)).unwrap();
        assert_eq!(
            fix,
            "create /p/docs/style.md, or correct the path in the @import at /p/CLAUDE.md:5"
        );
    }

    #[test]
    fn skips_that_are_no_problem_have_no_fix() {
        assert_eq!(skip(&skipped("/p/a.md", SkipWhy::Duplicate)), None);
        assert_eq!(skip(&skipped("/p/a.md", SkipWhy::Empty)), None);
    }

    #[test]
    fn the_tier_command_names_the_folder_as_one_shell_word() {
        let report = |folder: &str| Report {
            folder: Some(folder.to_owned()),
            index: IndexState::Missing,
            ..Report::default()
        };
        assert!(dark_index(&report("/home/u/mem/")).starts_with("ccmem tier /home/u/mem ("));
        assert!(
            dark_index(&report("/home/u/my memory/"))
                .starts_with("ccmem tier '/home/u/my memory' (")
        );
        assert!(dark_index(&report("/")).starts_with("ccmem tier / ("));
    }
}
