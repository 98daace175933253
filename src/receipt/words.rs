//! What the receipt says in words: the client's own size warnings, counts grouped as the client
//! groups them, and why a file was skipped.

use crate::constants::{MAX_FILE_SIZE, MAX_IMPORT_HOPS};
use crate::env::ClientEnv;
use crate::load::size::{self, SizeModel};
use crate::load::{Loaded, SkipWhy};
use crate::text::js;

/// One of the client's size warnings, in its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SizeWarning {
    /// The file it is about (`None`: the total).
    pub path: Option<String>,
    /// The text, as the client's `/status` shows it (`OHa`).
    pub text: String,
}

/// The client's own warnings about large instruction files ([`crate::load::size`], the model
/// `ccmem check` uses), worded and ordered as the client's `/status` shows them: the total
/// first, then each large file in load order, its path shown as the client shows it.
pub fn size_warnings(env: &ClientEnv, entries: &[Loaded], model: &SizeModel) -> Vec<SizeWarning> {
    let w = size::warnings(entries, model);
    let count = |n: usize| js::compact(n as u64);
    let total = w.total.map(|t| SizeWarning {
        path: None,
        text: format!(
            "Instruction files will impact performance: {} files, {} chars in total > {}",
            t.files.len(),
            count(t.chars),
            count(model.total_limit())
        ),
    });
    let large = w.large.into_iter().map(|(e, n)| SizeWarning {
        path: Some(e.path.clone()),
        text: format!(
            "Large {} will impact performance ({} chars > {})",
            size::shown(&e.path, &env.cwd, &env.home),
            count(n),
            count(model.file_limit())
        ),
    });
    total.into_iter().chain(large).collect()
}

/// `12345` → `12,345` (the client's `toLocaleString`; [`crate::constants::Count`]).
pub fn group(n: usize) -> String {
    crate::constants::Count(n).to_string()
}

/// A skip reason in words.
pub fn skip_words(why: &SkipWhy) -> String {
    use SkipWhy::*;
    match why {
        Excluded { pattern, settings } => {
            format!("excluded by claudeMdExcludes pattern \"{pattern}\" in {settings}")
        }
        ExternalNotApproved { key } => format!(
            "outside the start directory; external imports are not approved for {key} (hasClaudeMdExternalIncludesApproved in ~/.claude.json)"
        ),
        DepthLimit => {
            format!("import depth limit reached (the client follows {MAX_IMPORT_HOPS} hops)")
        }
        TooLarge { bytes } => format!("{bytes} bytes: over the client's {MAX_FILE_SIZE} limit"),
        NotRegular { what } => format!("not a regular file ({what})"),
        Unreadable { error } => format!("unreadable: {error}"),
        Missing => "import target does not exist".into(),
        NonTextExtension { ext } => format!("extension \"{ext}\" is not in the client's text list"),
        Empty => "empty after frontmatter and comment stripping".into(),
        Duplicate => "already loaded earlier (first occurrence wins)".into(),
        DeniedRead { rule } => format!("withheld by the Read deny rule {rule}"),
        ProtectedFolder { folder } => format!("inside a protected folder ({folder})"),
        DevicePath => "a device or process path".into(),
        AutomountRoot => "in a directory listed in CLAUDE_CODE_AUTOMOUNT_ROOTS".into(),
        OuterWorktree => "project file of the main checkout above this git worktree".into(),
        AgentsSuppressed { by } => {
            format!("AGENTS.md not used: {by} loads (claude-md-or-agents-md mode)")
        }
        AgentsDuplicate { of } => format!("same as {of}"),
        AgentsModeOff { mode } => format!("AGENTS.md is off in mode {mode}"),
        ManagedOnly => "dropped by the managed-only instruction mode".into(),
        LocalAgentLink => "a linked user file under the local-agent entrypoint".into(),
        SourceDisabled { source } => format!("{source} is switched off by --setting-sources"),
        AddDirNeedsEnv => {
            "--add-dir files load only with CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD=1".into()
        }
        Conditional { globs } => format!("conditional rule (paths: {})", globs.join(", ")),
        Other { reason } => reason.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::Kind;

    #[test]
    fn groups_thousands() {
        assert_eq!(group(0), "0");
        assert_eq!(group(999), "999");
        assert_eq!(group(40000), "40,000");
        assert_eq!(group(1234567), "1,234,567");
    }

    /// The receipt words the one model of `load::size` as the client does; the figures
    /// themselves are pinned by the cases in `tests/oracle/size-warnings/`.
    #[test]
    fn size_warnings_in_the_clients_words_total_first() {
        let mk = size::test_loaded;
        let env = ClientEnv::new("/r".into(), Default::default(), Default::default());
        let model = SizeModel::default();
        let entries = [
            mk(Kind::AutoMem, "/m/MEMORY.md", 50_000),
            mk(Kind::Project, "/r/CLAUDE.md", 50_000),
            mk(Kind::Project, "/r/a.md", 40_000),
            mk(Kind::Local, "/r/b.md", 40_000),
        ];
        let w = size_warnings(&env, &entries, &model);
        assert_eq!(
            w,
            [SizeWarning {
                path: Some("/r/CLAUDE.md".into()),
                text: "Large CLAUDE.md will impact performance (50.0k chars > 40.0k)".into(),
            }],
            "80,000 under the limit is no total warning, though 130,000 in all"
        );
        let more = [
            &entries[..],
            &[
                mk(Kind::Project, "/r/c.md", 40_000),
                mk(Kind::Local, "/r/d.md", 1),
            ],
        ]
        .concat();
        let texts: Vec<_> = size_warnings(&env, &more, &model)
            .into_iter()
            .map(|w| w.text)
            .collect();
        assert_eq!(
            texts,
            [
                "Instruction files will impact performance: 5 files, 170.0k chars in total > 120.0k",
                "Large CLAUDE.md will impact performance (50.0k chars > 40.0k)",
            ]
        );
    }
}
