//! The builtin `agents-md@builtin` plugin: AGENTS.md files and the mode that decides them.
//!
//! Mode: `pluginConfigs["agents-md@builtin"].options.instructionFiles` from the `--settings`
//! or user settings only (project/local settings are ignored); invalid values mean the default
//! `claude-md-or-agents-md`; the legacy `projectInstructions` option counts only while
//! `instructionFiles` resolves to the default; `enabledPlugins["agents-md@builtin"] = false`
//! means `claude-md`.
//!
//! AGENTS files: `D/AGENTS.md`, `D/.claude/AGENTS.md` for every ancestor D (top-down), each
//! through the per-file procedure with a fresh processed set seeded with the managed and user
//! CLAUDE.md paths; every file and import becomes a Project entry. Fallback mode adds them only
//! when no ancestor has a CLAUDE.md, .claude/CLAUDE.md or CLAUDE.local.md that would load.
//! Entries whose path is already listed, or whose trimmed content equals a project/local entry's,
//! are dropped. Each directory's group goes before the first project/local entry whose chain
//! root lies strictly below that directory, else after the last project/local entry, else at
//! the end (before MEMORY.md).

use foldhash::HashSet;

use serde_json::Value;

use super::file::{Emitted, Loader};
use super::paths::{self, is_strictly_below};
use super::walk::WalkDir;
use crate::constants::{AGENTS_MD, CLAUDE_DIR_CLAUDE_MD, CLAUDE_LOCAL_MD, CLAUDE_MD};
use crate::load::{Kind, SkipWhy, Skipped, Why};
use crate::platform::Platform;
use crate::settings::{Settings, Source};
use crate::text::js;

/// The plugin's modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// AGENTS.md never loads.
    ClaudeMd,
    /// AGENTS.md only when no CLAUDE.md / CLAUDE.local.md loads (default).
    ClaudeMdOrAgentsMd,
    /// AGENTS.md always.
    ClaudeMdAndAgentsMd,
    /// Only managed files (and auto memory) stay.
    ManagedOnly,
}

impl Mode {
    /// The client's name of the mode.
    pub fn name(self) -> &'static str {
        match self {
            Mode::ClaudeMd => "claude-md",
            Mode::ClaudeMdOrAgentsMd => "claude-md-or-agents-md",
            Mode::ClaudeMdAndAgentsMd => "claude-md-and-agents-md",
            Mode::ManagedOnly => "managed-only",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        [
            Mode::ClaudeMd,
            Mode::ClaudeMdOrAgentsMd,
            Mode::ClaudeMdAndAgentsMd,
            Mode::ManagedOnly,
        ]
        .into_iter()
        .find(|m| m.name() == s)
    }
}

const PLUGIN: &str = "/pluginConfigs/agents-md@builtin/options";

/// The mode for these settings.
pub fn mode(settings: &Settings) -> Mode {
    let disabled = settings
        .merged("/enabledPlugins/agents-md@builtin")
        .is_some_and(|(v, _)| v == &Value::Bool(false));
    if disabled {
        return Mode::ClaudeMd;
    }
    let option = |key: &str| {
        [Source::Flag, Source::User]
            .into_iter()
            .find_map(|s| settings.get(s, &format!("{PLUGIN}/{key}")).cloned())
    };
    let explicit = option("instructionFiles").and_then(|v| v.as_str().and_then(Mode::parse));
    match explicit {
        Some(m) if m != Mode::ClaudeMdOrAgentsMd => m,
        _ => match option("projectInstructions") {
            None => Mode::ClaudeMdOrAgentsMd,
            Some(v) => match v.as_str() {
                Some("none") => Mode::ManagedOnly,
                Some("agents-fallback") => Mode::ClaudeMdOrAgentsMd,
                Some("both") => Mode::ClaudeMdAndAgentsMd,
                _ => Mode::ClaudeMd,
            },
        },
    }
}

/// Applies the plugin to the assembled list; returns the paths of the AGENTS entries added.
/// AGENTS.md files that do not load are listed in `skipped` only when `report` is set (the
/// reminder alone has no use for them, and each costs a `stat`).
#[allow(clippy::too_many_arguments)]
pub fn apply(
    main: &Loader<'_>,
    settings: &Settings,
    dirs: &[WalkDir],
    seeds: HashSet<String>,
    report: bool,
    list: &mut Vec<Emitted>,
    skipped: &mut Vec<Skipped>,
) -> Vec<String> {
    let mode = mode(settings);
    if mode == Mode::ManagedOnly {
        list.retain(|e| {
            let keep = !matches!(e.loaded.kind, Kind::User | Kind::Project | Kind::Local);
            if !keep {
                skipped.push(drop_skip(
                    &e.loaded.path,
                    e.loaded.kind,
                    SkipWhy::ManagedOnly,
                ));
            }
            keep
        });
        return Vec::new();
    }
    if !settings.is_enabled(Source::Project) {
        return Vec::new();
    }
    let mut loader = main.fork();
    let plat = main.platform;
    let candidates: Vec<String> = dirs
        .iter()
        .flat_map(|d| {
            [
                paths::join(plat, &d.dir, AGENTS_MD),
                paths::join(plat, &d.dir, ".claude/AGENTS.md"),
            ]
        })
        .collect();
    if mode == Mode::ClaudeMd {
        for c in candidates
            .iter()
            .filter(|c| report && std::path::Path::new(c).is_file())
        {
            skipped.push(drop_skip(
                c,
                Kind::Project,
                SkipWhy::AgentsModeOff {
                    mode: mode.name().into(),
                },
            ));
        }
        return Vec::new();
    }
    if mode == Mode::ClaudeMdOrAgentsMd
        && let Some(by) = suppressor(&loader, dirs)
    {
        for c in candidates
            .iter()
            .filter(|c| report && std::path::Path::new(c).is_file())
        {
            skipped.push(drop_skip(
                c,
                Kind::Project,
                SkipWhy::AgentsSuppressed { by: by.clone() },
            ));
        }
        return Vec::new();
    }
    loader.processed = seeds;
    let why = Why::AgentsMd {
        mode: mode.name().into(),
    };
    let mut groups: Vec<(String, Vec<Emitted>)> = Vec::new();
    let mut taken: HashSet<String> = list.iter().map(|e| e.loaded.path.clone()).collect();
    for path in &candidates {
        for e in loader.load_tree(path, Kind::Project, why.clone(), 0, skipped) {
            if let Some(of) = duplicate_of(&e, list, &taken) {
                skipped.push(drop_skip(
                    &e.loaded.path,
                    Kind::Project,
                    SkipWhy::AgentsDuplicate { of },
                ));
                continue;
            }
            taken.insert(e.loaded.path.clone());
            let group = root_dir(plat, &e.root);
            match groups.last_mut() {
                Some((g, items)) if *g == group => items.push(e),
                _ => groups.push((group, vec![e])),
            }
        }
    }
    let mut added = Vec::new();
    for (group, items) in groups {
        added.extend(items.iter().map(|e| e.loaded.path.clone()));
        let pos = placement(plat, list, &group);
        list.splice(pos..pos, items);
    }
    added
}

/// The first ancestor CLAUDE.md / .claude/CLAUDE.md / CLAUDE.local.md that would load.
fn suppressor(loader: &Loader<'_>, dirs: &[WalkDir]) -> Option<String> {
    dirs.iter().find_map(|d| {
        let mut names = Vec::new();
        if d.project {
            names.push((CLAUDE_MD, Kind::Project));
            names.push((CLAUDE_DIR_CLAUDE_MD, Kind::Project));
        }
        names.push((CLAUDE_LOCAL_MD, Kind::Local));
        names
            .into_iter()
            .map(|(n, k)| (paths::join(loader.platform, &d.dir, n), k))
            .find(|(p, k)| loader.would_load(p, *k))
            .map(|(p, _)| p)
    })
}

fn duplicate_of(e: &Emitted, list: &[Emitted], taken: &HashSet<String>) -> Option<String> {
    if taken.contains(&e.loaded.path) {
        return Some(e.loaded.path.clone());
    }
    let content = js::trim(&e.loaded.content);
    if content.is_empty() {
        return None;
    }
    list.iter()
        .filter(|o| matches!(o.loaded.kind, Kind::Project | Kind::Local))
        .find(|o| js::trim(&o.loaded.content) == content)
        .map(|o| o.loaded.path.clone())
}

/// The directory a chain root belongs to: the part before the LAST `/.claude/`, else its
/// dirname (so `p/.claude/w/CLAUDE.md` belongs to `p`; captured in
/// `instr-agents-both-claude-dir-path`).
fn root_dir(plat: Platform, root: &str) -> String {
    let marker = if plat.is_windows() {
        "\\.claude\\"
    } else {
        "/.claude/"
    };
    match root.rfind(marker) {
        Some(i) => root[..i].to_owned(),
        None => paths::dirname(plat, root),
    }
}

fn placement(plat: Platform, list: &[Emitted], group: &str) -> usize {
    let local_like = |e: &Emitted| matches!(e.loaded.kind, Kind::Project | Kind::Local);
    if let Some(i) = list
        .iter()
        .position(|e| local_like(e) && is_strictly_below(plat, &root_dir(plat, &e.root), group))
    {
        return i;
    }
    if let Some(i) = list.iter().rposition(local_like) {
        return i + 1;
    }
    list.iter()
        .position(|e| e.loaded.kind == Kind::AutoMem)
        .unwrap_or(list.len())
}

fn drop_skip(path: &str, kind: Kind, why: SkipWhy) -> Skipped {
    Skipped {
        path: path.to_owned(),
        kind: Some(kind),
        from: None,
        why,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(user: &str, flag: Option<&str>) -> Settings {
        let t = tempfile::tempdir().unwrap();
        let cfg = t.path().join(".claude");
        std::fs::create_dir_all(&cfg).unwrap();
        std::fs::write(cfg.join("settings.json"), user).unwrap();
        let vars = [("HOME".to_string(), t.path().to_string_lossy().into_owned())].into();
        let flags = crate::env::ClientFlags {
            settings: flag.map(str::to_owned),
            ..Default::default()
        };
        let env = crate::env::ClientEnv::new(t.path().join("nowhere"), vars, flags);
        Settings::load(&env)
    }

    #[test]
    fn mode_sources_and_legacy() {
        let opt = |k: &str, v: &str| {
            format!(r#"{{"pluginConfigs":{{"agents-md@builtin":{{"options":{{"{k}":"{v}"}}}}}}}}"#)
        };
        assert_eq!(mode(&settings("{}", None)), Mode::ClaudeMdOrAgentsMd);
        assert_eq!(
            mode(&settings(&opt("instructionFiles", "claude-md"), None)),
            Mode::ClaudeMd
        );
        assert_eq!(
            mode(&settings(&opt("instructionFiles", "bogus"), None)),
            Mode::ClaudeMdOrAgentsMd
        );
        assert_eq!(
            mode(&settings(&opt("projectInstructions", "both"), None)),
            Mode::ClaudeMdAndAgentsMd
        );
        assert_eq!(
            mode(&settings(&opt("projectInstructions", "x"), None)),
            Mode::ClaudeMd
        );
        assert_eq!(
            mode(&settings(
                "{}",
                Some(&opt("instructionFiles", "managed-only"))
            )),
            Mode::ManagedOnly
        );
        assert_eq!(
            mode(&settings(
                r#"{"enabledPlugins":{"agents-md@builtin":false}}"#,
                None
            )),
            Mode::ClaudeMd
        );
    }

    #[test]
    fn chain_root_directory() {
        assert_eq!(root_dir(Platform::Linux, "/r/p/.claude/rules/x.md"), "/r/p");
        assert_eq!(root_dir(Platform::Linux, "/r/p/CLAUDE.md"), "/r/p");
        assert_eq!(
            root_dir(Platform::Linux, "/r/p/.claude/w/CLAUDE.md"),
            "/r/p"
        );
        assert_eq!(
            root_dir(Platform::Linux, "/r/p/.claude/w/.claude/rules/r.md"),
            "/r/p/.claude/w"
        );
    }
}
