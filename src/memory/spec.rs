//! The two write specs a memory library follows, both first-class, and which one a library
//! follows (detected from its files, or set in `ccmem.toml` with `spec = "…"`).
//!
//! **client**: what Claude Code 2.1.332 tells the model to write (its system prompt, `fo` /
//! `oa`, and its writer `AEr`; SPEC-automemory §11, §13): one file per memory, e.g.
//! `user_role.md` or `feedback_testing.md`, with
//!
//! ```markdown
//! ---
//! name: short-kebab-case-slug
//! description: one-line summary, used to decide relevance in future conversations
//! metadata:
//!   type: user | feedback | project | reference
//! ---
//! The fact; for feedback/project, then **Why:** and **How to apply:** lines.
//! Related memories linked with [[their-name]] (their `name:`; a name no memory has yet is fine).
//! ```
//!
//! the writer adding `node_type: memory`, `originSessionId` and `modified` under `metadata:`,
//! and MEMORY.md an index without frontmatter, one line per memory,
//! `- [Title](file.md) — one-line hook`, under ~150 characters.
//!
//! **claude-memory-manager**: the skill's typed layout: files named `<type>_<topic>.md`
//! (topic: `a-z 0-9 _ -`), top-level `type:`, a `## Why` section in feedback, groups of
//! entries behind hubs `reference_<group>_hub.md` that MEMORY.md links, `modified` stamps.

use serde::{Deserialize, Serialize};

use crate::config::SpecChoice;

/// A write spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Spec {
    /// Claude Code's own format (2.1.332).
    Client,
    /// claude-memory-manager's typed layout.
    #[serde(rename = "claude-memory-manager")]
    Manager,
}

impl Spec {
    /// The name used in `ccmem.toml`, JSON and messages.
    pub fn name(self) -> &'static str {
        match self {
            Spec::Client => "client",
            Spec::Manager => "claude-memory-manager",
        }
    }

    /// One line saying what the spec is.
    pub fn summary(self) -> &'static str {
        match self {
            Spec::Client => {
                "Claude Code 2.1.332's own format: name (kebab slug), description, metadata.type; \
                 **Why:** / **How to apply:** lines; [[name]] links"
            }
            Spec::Manager => {
                "claude-memory-manager's layout: <type>_<topic>.md, top-level type, ## Why, \
                 reference_<group>_hub.md hubs"
            }
        }
    }
}

impl std::fmt::Display for Spec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The spec a library is held to, and why.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Detected {
    /// The spec.
    pub spec: Spec,
    /// Set in `ccmem.toml` (not detected).
    pub configured: bool,
    /// Memory files in the client's form (`metadata.type`, or a top-level `type` in a file
    /// not named `<type>_<topic>.md`).
    pub client_votes: usize,
    /// Memory files in claude-memory-manager's form (a hub, or a top-level `type` in a file
    /// named `<type>_<topic>.md` with the skill's marks: `## Why` sections, tombstones, its
    /// name the file's topic).
    pub manager_votes: usize,
    /// MEMORY.md opens with the skill's quick reference (it names `audit-memory.sh` or the
    /// `memory-management` skill): the library says which spec it follows.
    pub index_marks: bool,
}

impl Detected {
    /// Decides from the votes; a tie (an empty library included) is the client's own format,
    /// which is what the client writes into a new library.
    pub fn from_votes(choice: SpecChoice, client_votes: usize, manager_votes: usize) -> Self {
        let (spec, configured) = match choice {
            SpecChoice::Client => (Spec::Client, true),
            SpecChoice::Manager => (Spec::Manager, true),
            SpecChoice::Auto if manager_votes > client_votes => (Spec::Manager, false),
            SpecChoice::Auto => (Spec::Client, false),
        };
        Detected {
            spec,
            configured,
            client_votes,
            manager_votes,
            index_marks: false,
        }
    }

    /// The same, knowing whether MEMORY.md carries claude-memory-manager's quick reference:
    /// then the library is held to that spec unless `ccmem.toml` says otherwise.
    pub fn with_index_marks(mut self, marks: bool) -> Self {
        self.index_marks = marks;
        if marks && !self.configured {
            self.spec = Spec::Manager;
        }
        self
    }

    /// `client (detected: 40 files with metadata.type, 2 with type)` or `… (set in ccmem.toml)`.
    pub fn describe(&self) -> String {
        if self.configured {
            format!("{} (set in ccmem.toml)", self.spec)
        } else {
            format!(
                "{} (detected: {} files in the client's form, {} in claude-memory-manager's{})",
                self.spec,
                self.client_votes,
                self.manager_votes,
                if self.index_marks {
                    "; MEMORY.md carries claude-memory-manager's quick reference"
                } else {
                    ""
                }
            )
        }
    }
}

/// Which specs a rule belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Applies {
    /// Both specs.
    Both,
    /// Only the client's.
    Client,
    /// Only claude-memory-manager's.
    #[serde(rename = "claude-memory-manager")]
    Manager,
}

impl Applies {
    /// Whether a rule with this applicability runs on a library held to `spec`.
    pub fn to(self, spec: Spec) -> bool {
        match self {
            Applies::Both => true,
            Applies::Client => spec == Spec::Client,
            Applies::Manager => spec == Spec::Manager,
        }
    }

    /// `both specs`, `client`, `claude-memory-manager`.
    pub fn describe(self) -> &'static str {
        match self {
            Applies::Both => "both write specs (client and claude-memory-manager)",
            Applies::Client => "the client's write spec only",
            Applies::Manager => "claude-memory-manager's write spec only",
        }
    }
}

/// Whether `name` is a kebab-case slug, as the client's template asks for `name:`
/// (`short-kebab-case-slug`): lower-case letters and digits in words joined by single `-`.
pub fn is_kebab_slug(name: &str) -> bool {
    !name.is_empty()
        && name.split('-').all(|w| {
            !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// Why a topic (the `<topic>` of `<type>_<topic>.md`) is not valid, or `None` when it is: the
/// one rule `bad-file-name` applies and `add` calls. Lower-case ASCII letters, digits, `_` and
/// `-`, starting with a letter or digit.
pub fn topic_problem(topic: &str) -> Option<&'static str> {
    if topic.is_empty() {
        return Some("the topic is empty");
    }
    if !topic
        .bytes()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
    {
        return Some(
            "a topic uses only a-z, 0-9, `_` and `-` (no capitals, spaces or other scripts)",
        );
    }
    if !topic.as_bytes()[0].is_ascii_alphanumeric() {
        return Some("a topic starts with a letter or digit");
    }
    None
}

/// claude-memory-manager's sections: a `## Why`-style heading, a `⚠️ Superseded by [[` tombstone.
static MANAGER_BODY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"(?im)^[ \t]*#{2,3}[ \t]+(?:why|root[ \t]+cause|根因|教训|原因|为什么)[ \t:：]*$|superseded by \[\[|已被 ?\[\[|\(亦见|（亦见",
    )
    .expect("valid regex")
});

/// The client's inline reason: `**Why:**` or `**Why**:` (its template), in any script.
static CLIENT_BODY: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?m)^[ \t]*(?:[-*+][ \t]+)?\*\*[^*\n]{1,24}(?::\*\*|\*\*[ \t]*:)|\*\*[^*\n]{1,24}(?:：\*\*|\*\*[ \t]*：)")
        .expect("valid regex")
});

/// The spec a flat file's body shows the marks of, if one.
pub fn body_marks(body: &str) -> Option<Spec> {
    if MANAGER_BODY.is_match(body) {
        Some(Spec::Manager)
    } else if CLIENT_BODY.is_match(body) {
        Some(Spec::Client)
    } else {
        None
    }
}

/// Whether MEMORY.md carries claude-memory-manager's quick reference: it names the skill's
/// audit script or the `memory-management` skill.
pub fn index_marks(index: &str) -> bool {
    index.contains("audit-memory.sh") || index.contains("memory-management skill")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn votes_decide_and_configuration_wins() {
        assert_eq!(
            Detected::from_votes(SpecChoice::Auto, 0, 0).spec,
            Spec::Client
        );
        assert_eq!(
            Detected::from_votes(SpecChoice::Auto, 3, 4).spec,
            Spec::Manager
        );
        assert_eq!(
            Detected::from_votes(SpecChoice::Auto, 4, 4).spec,
            Spec::Client
        );
        let d = Detected::from_votes(SpecChoice::Manager, 9, 0);
        assert_eq!((d.spec, d.configured), (Spec::Manager, true));
        assert!(d.describe().contains("set in ccmem.toml"));
    }

    #[test]
    fn slugs_and_topics() {
        assert!(is_kebab_slug("deploy-freeze-2"));
        for bad in ["Deploy", "deploy_freeze", "-x", "x-", "a--b", "", "日本"] {
            assert!(!is_kebab_slug(bad), "{bad}");
        }
        assert_eq!(topic_problem("wild-card_2"), None);
        assert!(topic_problem("MyTopic").is_some());
        assert!(topic_problem("移动端-mobile").is_some());
        assert!(topic_problem("-x").is_some());
        assert!(topic_problem("").is_some());
    }

    #[test]
    fn applicability() {
        assert!(Applies::Both.to(Spec::Client) && Applies::Both.to(Spec::Manager));
        assert!(Applies::Client.to(Spec::Client) && !Applies::Client.to(Spec::Manager));
        assert!(!Applies::Manager.to(Spec::Client));
    }
}
