//! Who goes where: every line of MEMORY.md gets a role, every entry a **unit** (the user's
//! section, or a topic of a flat list) and a **rank** (how long it stays).
//!
//! Links are the library's own ([`Library::links`]: the same resolution the audit uses, `~/`,
//! `[[name]]`, code spans and reference links included), so tier and the audit never disagree
//! about what a line links.
//!
//! - Blank lines, prose and plain rule lines (no link: the rule itself, in force because it
//!   loads) stay where they are, and so do lines that only point out of the library.
//! - The title (a leading `# H1`) stays on top and is never a unit.
//! - Crowns ([`super::crown`]: the marks users write, crown headings, `[tier] pins`) stay
//!   where they are, under their own heading: tier never moves them.
//! - A list line linking a hub is a pointer; it stays (or is folded, see `shape`).
//! - Every other list line with a link is an entry of a unit:
//!   1. a section that already has exactly one hub pointer keeps feeding that hub (the user
//!      made it for this section);
//!   2. else the innermost heading it is under: **the user's section is the unit**, whatever
//!      types its entries have (type orders moves, it never forms units);
//!   3. else (a flat list) a topic: a note two entries or more link by `[[name]]`, with them
//!      (see `clusters`), else entries sharing a file-name stem (`feedback_semaphore_*`), else
//!      the first word of their titles; entries that share nothing with another form one unit
//!      per rank, so a user profile never lands beside project notes.
//! - A unit moves in **pieces**, one per rank: project status first, then reference, other,
//!   user, feedback ([`Rank`]). A section headed read-on-demand moves first whatever its lines
//!   say. All pieces of one unit go to the same hub(s), so a section is never split across
//!   hubs except by size: a unit with more entries than one hub may hold (the audit's
//!   `max-group-entries`) fills consecutive hubs.
//! - An entry whose frontmatter does not parse takes its rank from its file-name prefix, else
//!   moves with its unit's first piece: readability never decides what stays.
//!
//! [`Library::links`]: crate::memory::Library::links

mod classify;
mod clusters;
mod naming;
mod pointers;

use jiff::Timestamp;

pub use self::classify::classify;
use super::crown;
use super::parse::{Index, Kind};
use super::shape::Room;

/// What happens to an index line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Stays where it is: blank lines, prose, rule lines, outward links.
    Keep,
    /// The index's title: stays first.
    Title,
    /// A heading: stays while anything of its section stays (see `shape`).
    Heading,
    /// A crown: never moves.
    Crown,
    /// Links a hub: pointer N (into [`Layout::pointers`]).
    Pointer(usize),
    /// An entry of piece N (into [`Layout::pieces`]).
    Entry(usize),
}

/// How long an entry stays: the lowest rank moves first (issue 24, rule 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    /// In a section the user heads as read on demand.
    OnDemand,
    /// A link-less line of a dated section (a session's notes, a dated log): history.
    History,
    /// `type: project`: status, decisions, session logs.
    Project,
    /// `type: reference`.
    Reference,
    /// No type, or another one.
    Other,
    /// `type: user`: the user profile.
    User,
    /// `type: feedback`: the rules.
    Feedback,
}

impl Rank {
    fn of_type(kind: &str) -> Option<Rank> {
        Some(match kind.trim().to_ascii_lowercase().as_str() {
            "project" | "projects" => Rank::Project,
            "reference" | "references" => Rank::Reference,
            "user" => Rank::User,
            "feedback" => Rank::Feedback,
            _ => return None,
        })
    }

    /// The rank a file name's `<type>_` / `<type>-` prefix says.
    fn of_name(name: &str) -> Option<Rank> {
        let base = name.rsplit('/').next().unwrap_or(name);
        let prefix = base.split(['_', '-']).next()?;
        (prefix.len() < base.len()).then(|| Rank::of_type(prefix))?
    }
}

/// A unit: the user's section, or a topic of a flat list, with its hub(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// ASCII slug used in the hub name.
    pub key: String,
    /// The topic, in the library's own words (a heading's title, a shared title word); empty
    /// when the entries share none (their own titles name the hub then).
    pub title: String,
    /// Its hubs: the first, then one more per `max-group-entries` entries beyond it.
    pub hubs: Vec<String>,
    /// Entry lines (indices into [`Index::lines`]), in order.
    pub lines: Vec<usize>,
    /// Each entry's label (a retrieval key: its title, else its hook's first clause), for the
    /// pointer's hook.
    pub labels: Vec<String>,
    /// The first hub exists already.
    pub hub_exists: bool,
    /// A pointer line of MEMORY.md links the first hub already (pushing generates none).
    pub linked: bool,
    /// The newest `modified` among the entries' files and the hub (`None`: nothing says).
    pub last_used: Option<Timestamp>,
    /// The section's heading (index into [`Index::lines`]) when the unit is a section.
    pub heading: Option<usize>,
    /// What the first hub can still take, when it exists already (`None`: tier creates it).
    pub room: Option<Room>,
    /// For a run of dated sibling sections (one unit): the words their headings share, and
    /// each heading (index into [`Index::lines`]) with its date.
    pub run: Option<Run>,
}

/// A run of dated sibling sections moving as one unit (see [`Group::run`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Run {
    /// The words every heading of the run has besides its date (empty: none shared).
    pub shared: String,
    /// The headings and their dates, in order.
    pub dates: Vec<(usize, String)>,
}

impl Run {
    /// The shared words and the span of `dates` (at least one).
    fn title(&self, dates: Vec<&str>) -> String {
        let span = match dates.as_slice() {
            [first, .., last] => format!("{first} → {last}"),
            [one] => (*one).to_owned(),
            [] => String::new(),
        };
        if self.shared.is_empty() {
            span
        } else {
            format!("{} {span}", self.shared)
        }
    }
}

impl Group {
    /// The topic of the hub that receives `lines` (some of the unit's entries): the unit's
    /// title, or, for a run of dated sections, the words they share and the dates of the
    /// sections these lines are in (`会话 2026-06-25 → 2026-07-06`).
    pub fn title_of(&self, idx: &Index, lines: &[usize]) -> String {
        let Some(run) = &self.run else {
            return self.title.clone();
        };
        let dates: Vec<&str> = (run.dates.iter())
            .filter(|(h, _)| lines.iter().any(|&i| idx.headings_of(i).contains(h)))
            .map(|(_, d)| d.as_str())
            .collect();
        if dates.is_empty() {
            return self.title.clone();
        }
        run.title(dates)
    }

    /// The first hub.
    pub fn hub(&self) -> &str {
        &self.hubs[0]
    }
}

/// The entries of one rank of a unit: what tier moves at once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    /// The unit (index into [`Layout::groups`]).
    pub group: usize,
    /// Their rank.
    pub rank: Rank,
    /// Entry lines, in order.
    pub lines: Vec<usize>,
    /// Reads of their files in recorded sessions ([`super::Options`]'s usage).
    pub reads: usize,
    /// The unit gathers entries that share nothing (a rule standing alone applies to any
    /// task; one of a topic's cluster to that topic's work): moves after the clusters.
    pub standalone: bool,
}

impl Piece {
    /// The order pieces move in: lowest rank first, clustered before standalone, least read
    /// first, biggest first.
    pub fn order_key(&self) -> (Rank, bool, usize, std::cmp::Reverse<usize>, usize) {
        (
            self.rank,
            self.standalone,
            self.reads,
            std::cmp::Reverse(self.lines.len()),
            self.lines[0],
        )
    }
}

/// An existing line of MEMORY.md that links one or more hubs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pointer {
    /// Its line (index into [`Index::lines`]).
    pub line: usize,
    /// The hub files it links, in order.
    pub hubs: Vec<String>,
    /// Its label on the aggregate line: the hub's group.
    pub title: String,
    /// The newest `modified` among those hubs.
    pub last_used: Option<Timestamp>,
    /// It may be folded onto the aggregate line: not a crown's, not right under the title.
    pub foldable: bool,
}

/// An entry line none of whose links leads to a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// Its line (index into [`Index::lines`]).
    pub line: usize,
    /// The targets, as written.
    pub targets: Vec<String>,
}

/// A crown tier found, and why it is one.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Crowned {
    /// Its line (index into [`Index::lines`]).
    #[serde(skip)]
    pub line: usize,
    /// The marker (`🚨`, `NEVER`, `(엄격 적용)`…), `[tier] pins`, or the crown heading's.
    pub marker: String,
    /// `entry`, `heading` (the line is under a crown heading), or `pin`.
    pub kind: &'static str,
}

/// Every index line's role, the units, their pieces and the pointers.
#[derive(Debug, Clone)]
pub struct Layout {
    /// One per index line.
    pub roles: Vec<Role>,
    /// Units in order of first appearance.
    pub groups: Vec<Group>,
    /// Pieces (one per rank of a unit).
    pub pieces: Vec<Piece>,
    /// Pointer lines in order.
    pub pointers: Vec<Pointer>,
    /// Broken entry lines in order.
    pub broken: Vec<Broken>,
    /// Crowns in order.
    pub crowns: Vec<Crowned>,
    /// Entries whose frontmatter the client cannot read (indices into [`Index::lines`]).
    pub unreadable: Vec<usize>,
    /// An existing heading titled `Hubs`: where aggregate lines go.
    pub hubs_heading: Option<usize>,
    /// The most entries one hub holds (the audit's `max-group-entries`).
    pub max_entries: usize,
    /// The most lines one hub holds (the audit's `max-file-lines`).
    pub max_lines: usize,
    /// The hubs folded pointer lines go to: [`MORE_HUBS`], then as many more as folding
    /// every foldable pointer would fill.
    ///
    /// [`MORE_HUBS`]: super::shape::MORE_HUBS
    pub more_hubs: Vec<String>,
    /// What an existing [`MORE_HUBS`] can still take.
    ///
    /// [`MORE_HUBS`]: super::shape::MORE_HUBS
    pub more_room: Option<Room>,
}

/// Whether line `i` is a note: a link-less line (prose, a status bullet, a table row without
/// an entry) of a section under a dated heading (`## 2026-06-16 会话`: a session's notes,
/// history) or a read-on-demand one, and under no crown heading. Notes move with their section
/// (the user's section is the unit), as entries do; a marker in them records an incident or
/// stresses a clause, it crowns nothing.
pub fn is_note(idx: &Index, i: usize) -> bool {
    if idx.lines[i].kind != Kind::Text {
        return false;
    }
    let chain = idx.headings_of(i);
    let titles = || {
        chain.iter().filter_map(|&h| match &idx.lines[h].kind {
            Kind::Heading { title, .. } => Some(title.as_str()),
            _ => None,
        })
    };
    titles().any(|t| crown::dated(t) || crown::on_demand(t))
        && titles().all(|t| crown::heading(t).is_none())
}

/// The title of a heading the user keeps hub pointers under.
pub const HUBS_HEADING: &str = "Hubs";

#[cfg(test)]
mod tests;
