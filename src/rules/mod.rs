//! Every rule of ccmem, whichever command runs it, in one registry ([`RULES`]), each reporting
//! the one finding type ([`Diagnostic`]).
//!
//! A rule is one file: its user documentation as doc comments (What it does / Why it matters /
//! Example / Fix; printed by `ccmem explain NAME`, used as SARIF's `fullDescription` and in
//! `docs/rules.md`), a stable kebab-case name, a category that decides its default severity
//! (hard = error, soft = warning), its target and check function, and pass/fail vectors as
//! tests in the same file. `declare_rule!` makes the [`Rule`] from those.
//!
//! - **Memory-library rules** (`ccmem audit`, the files beside this one) read a loaded
//!   [`Library`](crate::memory::Library) through [`Ctx`], and each belongs to one or both write
//!   specs ([`crate::memory::spec`]): a library is audited against the spec it follows.
//!   [`run::audit`] runs the enabled ones (file rules in parallel over files) and scores
//!   compliance over the memory files.
//! - **Repository rules** (`ccmem check`, [`repo`]) read the repository model
//!   ([`crate::repo`]) through [`repo::Ctx`]; [`repo::check`] runs them.
//!
//! Both runners drop the findings a `<!-- ccmem-ignore: NAME -->` comment silences
//! ([`suppress`]); `ccmem.toml` names rules (`disable`, `per-file-ignores`) checked against
//! this registry ([`check_config`]).

use std::sync::OnceLock;

use serde::Serialize;

use crate::config::{Config, ConfigError};
use crate::memory::spec::{Applies, Spec};

mod ctx;
mod diagnostic;
pub mod repo;
pub mod run;
pub mod suppress;

mod labels;
mod prose;

mod bad_file_name;
mod broken_link;
mod index_encoding;
mod index_over_cap;
mod index_over_safety_line;
mod index_over_target_line;
mod interrupted_write;
mod invalid_frontmatter;
mod invalid_type;
mod large_group;
mod long_index_line;
mod missing_field;
mod missing_frontmatter;
mod missing_how_to_apply;
mod missing_modified;
mod missing_why;
mod name_not_slug;
mod near_duplicate;
mod oversized_file;
mod retired_without_tombstone;
mod secret_in_memory;
mod stale_entry;
mod stale_reference;
mod stray_tool_tag;
mod too_large_to_read;
mod unreachable_file;
mod unreadable_file;

#[cfg(test)]
mod testing;

pub use crate::severity::Severity;
pub use ctx::Ctx;
pub use diagnostic::{Diagnostic, FailOn};
pub use secret_in_memory::find as secrets;

/// Hard rules find something lost or broken (the typed write spec broken, entries gone dark,
/// instructions that never load); soft rules are signals worth a look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    /// An error (exit 1); a memory file with one counts against compliance.
    Hard,
    /// A warning.
    Soft,
}

impl Category {
    /// The severity a rule of this category reports at: the one place it is decided.
    pub fn severity(self) -> Severity {
        match self {
            Category::Hard => Severity::Error,
            Category::Soft => Severity::Warning,
        }
    }

    /// `hard` or `soft`.
    pub fn as_str(self) -> &'static str {
        match self {
            Category::Hard => "hard",
            Category::Soft => "soft",
        }
    }
}

/// The command that runs a rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Command {
    /// `ccmem audit`, over a memory library.
    Audit,
    /// `ccmem check`, over a repository.
    Check,
}

impl Command {
    /// `audit` or `check`.
    pub fn as_str(self) -> &'static str {
        match self {
            Command::Audit => "audit",
            Command::Check => "check",
        }
    }
}

/// What a rule checks, with its check function.
#[derive(Debug, Clone, Copy)]
pub enum Target {
    /// A memory library (`ccmem audit`) held to one of these write specs.
    Library(Applies, Check),
    /// A repository (`ccmem check`): the walk and every start directory's session.
    Repository(fn(&repo::Ctx, &mut Vec<Diagnostic>)),
}

/// How a memory-library rule looks at the library.
#[derive(Debug, Clone, Copy)]
pub enum Check {
    /// One file at a time (run in parallel over files).
    File(fn(&Ctx, usize, &mut Vec<Diagnostic>)),
    /// The whole library at once.
    Library(fn(&Ctx, &mut Vec<Diagnostic>)),
}

/// A rule of the registry.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// Stable kebab-case name, used in every output format and in suppressions.
    pub name: &'static str,
    /// Hard or soft: decides the severity.
    pub category: Category,
    /// What it checks, and how.
    pub target: Target,
    /// The documentation (Markdown: What it does / Why it matters / Example / Fix).
    pub doc: &'static str,
}

impl Rule {
    /// The default severity (from the category).
    pub fn severity(&self) -> Severity {
        self.category.severity()
    }

    /// The command that runs the rule.
    pub fn command(&self) -> Command {
        match self.target {
            Target::Library(..) => Command::Audit,
            Target::Repository(_) => Command::Check,
        }
    }

    /// The write specs a memory-library rule belongs to (`None` for a repository rule).
    pub fn applies(&self) -> Option<Applies> {
        match self.target {
            Target::Library(applies, _) => Some(applies),
            Target::Repository(_) => None,
        }
    }

    /// The check to run on a library held to `spec`: `None` for a rule of another spec or a
    /// repository rule.
    pub fn library_check(&self, spec: Spec) -> Option<Check> {
        match self.target {
            Target::Library(applies, check) if applies.to(spec) => Some(check),
            _ => None,
        }
    }

    /// The one-line fix printed beside each finding of the rule: the first paragraph of the
    /// documentation's "Fix" section, on one line (so `ccmem explain` opens its Fix section
    /// with the same words).
    pub fn fix(&self) -> &'static str {
        static FIXES: OnceLock<Vec<(&'static str, String)>> = OnceLock::new();
        let fixes = FIXES.get_or_init(|| RULES.iter().map(|r| (r.name, fix_of(r.doc))).collect());
        fixes
            .iter()
            .find(|(name, _)| *name == self.name)
            .map_or("", |(_, fix)| fix.as_str())
    }

    /// The first sentence of the documentation's "What it does" section.
    pub fn summary(&self) -> &'static str {
        self.doc
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#'))
            .unwrap_or(self.name)
    }

    /// The documentation as plain Markdown (doc-comment indentation removed).
    pub fn doc_text(&self) -> String {
        self.doc
            .lines()
            .map(|l| l.strip_prefix(' ').unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// The first paragraph of the "Fix" section of a rule's documentation, joined on one line (a
/// trailing `:` that introduces an example dropped).
fn fix_of(doc: &str) -> String {
    let paragraph: Vec<&str> = doc
        .lines()
        .map(str::trim)
        .skip_while(|l| *l != "## Fix")
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.starts_with("```") && !l.starts_with('#'))
        .collect();
    paragraph.join(" ").trim_end_matches(':').to_owned()
}

/// Declares a rule: its `///` lines become both the rustdoc and [`Rule::doc`] (one source).
///
/// A memory-library rule names its write specs ([`Applies`]) and its [`Check`]:
/// `pub const RULE = ("broken-link", Hard, Both, Check::Library(check));`. A repository rule
/// names only its function: `pub const RULE = ("import-cycle", Soft, check);`.
macro_rules! declare_rule {
    ($(#[doc = $doc:literal])+ pub const RULE = ($name:literal, $cat:ident, $applies:ident, $check:expr);) => {
        $(#[doc = $doc])+
        pub(crate) const RULE: $crate::rules::Rule = $crate::rules::Rule {
            name: $name,
            category: $crate::rules::Category::$cat,
            target: $crate::rules::Target::Library($crate::memory::spec::Applies::$applies, $check),
            doc: concat!($($doc, "\n"),+),
        };
    };
    ($(#[doc = $doc:literal])+ pub const RULE = ($name:literal, $cat:ident, $check:expr);) => {
        $(#[doc = $doc])+
        pub(crate) const RULE: $crate::rules::Rule = $crate::rules::Rule {
            name: $name,
            category: $crate::rules::Category::$cat,
            target: $crate::rules::Target::Repository($check),
            doc: concat!($($doc, "\n"),+),
        };
    };
}
pub(crate) use declare_rule;

/// Every rule: the memory-library rules (hard ones first, in the order they are documented),
/// then the repository rules (hard ones first within each group, in the order `docs/rules.md`
/// lists them).
pub const RULES: &[Rule] = &[
    missing_frontmatter::RULE,
    invalid_frontmatter::RULE,
    missing_field::RULE,
    invalid_type::RULE,
    broken_link::RULE,
    unreadable_file::RULE,
    index_over_cap::RULE,
    too_large_to_read::RULE,
    secret_in_memory::RULE,
    unreachable_file::RULE,
    oversized_file::RULE,
    large_group::RULE,
    retired_without_tombstone::RULE,
    missing_modified::RULE,
    stale_entry::RULE,
    index_over_safety_line::RULE,
    index_over_target_line::RULE,
    long_index_line::RULE,
    near_duplicate::RULE,
    stray_tool_tag::RULE,
    stale_reference::RULE,
    name_not_slug::RULE,
    missing_why::RULE,
    bad_file_name::RULE,
    missing_how_to_apply::RULE,
    interrupted_write::RULE,
    index_encoding::RULE,
    repo::import_outside_start_dir::RULE,
    repo::linked_rule_outside_start_dir::RULE,
    repo::agents_md_lost_below::RULE,
    repo::agents_md_hidden_by_local::RULE,
    repo::agents_md_never_loads::RULE,
    repo::nested_agents_md::RULE,
    repo::wrong_case_name::RULE,
    repo::misplaced_instruction_file::RULE,
    repo::instruction_file_encoding::RULE,
    repo::instruction_file_unreadable::RULE,
    repo::foreign_scope_key::RULE,
    repo::paths_brace_over_budget::RULE,
    repo::invalid_paths_pattern::RULE,
    repo::paths_match_nothing::RULE,
    repo::rules_folder_linked_outside::RULE,
    repo::import_target_missing::RULE,
    repo::import_cut_at_space::RULE,
    repo::import_depth_exceeded::RULE,
    repo::import_cycle::RULE,
    repo::import_in_code::RULE,
    repo::exclude_pattern_relative::RULE,
    repo::exclude_matches_nothing::RULE,
    repo::settings_ignored::RULE,
    repo::file_over_size_warning::RULE,
    repo::total_over_size_warning::RULE,
];

/// The rule with this name.
pub fn find(name: &str) -> Option<&'static Rule> {
    RULES.iter().find(|r| r.name == name)
}

/// The rules `command` runs, in registry order.
pub fn of(command: Command) -> impl Iterator<Item = &'static Rule> {
    RULES.iter().filter(move |r| r.command() == command)
}

/// Checks the rules `ccmem.toml` names against the registry: `[audit] disable` must name
/// memory-library rules, `[check] disable` and `per-file-ignores` repository rules (or `"*"`
/// for all, in `per-file-ignores`). A name that is no such rule is an error at its line (a
/// typo must not leave the rule running).
pub fn check_config(config: &Config) -> Result<(), ConfigError> {
    let known = |command| move |n: &str| find(n).is_some_and(|r| r.command() == command);
    config.check_rule_names(
        "`audit.disable`",
        &config.audit.disable,
        known(Command::Audit),
    )?;
    config.check_rule_names(
        "`check.disable`",
        &config.check.disable,
        known(Command::Check),
    )?;
    let ignores = config.check.per_file_ignores.values().flatten();
    config.check_rule_names("`check.per-file-ignores`", ignores, |n| {
        n == "*" || known(Command::Check)(n)
    })
}

#[cfg(test)]
mod tests;
