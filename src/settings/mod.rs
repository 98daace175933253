//! The client's settings layers and the few keys the loader reads.
//!
//! Layers, in the client's merge order (later overrides earlier for scalars; arrays such as
//! `claudeMdExcludes` are concatenated): user (`$CFG/settings.json`), project
//! (`<cwd>/.claude/settings.json`), local (`<cwd>/.claude/settings.local.json`), flag
//! (`--settings FILE|JSON`), policy (`<managed>/managed-settings.json`, then every drop-in of
//! `<managed>/managed-settings.d/`, see [`Settings::load`]). Project settings are read from the
//! start directory only, never from an ancestor. `--setting-sources` switches the user, project
//! and local layers off; the flag and policy layers always count.
//!
//! The operating system's policy sources (macOS managed preferences, the Windows registry, and
//! on WSL the Windows host's policy) take precedence over the managed folder when they hold
//! settings ([`policy`]). ccmem reads the plists and, on a Windows host, the registry as the
//! client does: the source that is the policy is a policy layer in place of the managed
//! folder's files (or after them, when it asks for a merge; the Windows `HKCU` value only when
//! no administrator source holds anything), and [`Settings::read_policy`] says what came of
//! each. What ccmem cannot read (the registry under the Windows model on another host, the WSL
//! host's policy) [`Settings::unread_policy`] lists, so a receipt can say its prediction may
//! differ. A policy document that stops the client from starting is a problem that says so
//! ([`Settings::stops_client`]).
//!
//! A layer that is missing is simply absent. A file is read whole or not at all, as the client
//! reads it ([`file`]: its size limit, UTF-8 or UTF-16LE, `JSON.parse`, the schema's types of
//! the keys ccmem reads); one the client would drop is absent too, and is reported in
//! [`Settings::problems`].

pub(crate) mod file;
pub(crate) mod json;

mod policy;
mod wsl;

use std::path::PathBuf;

use serde_json::Value;

use crate::constants::{
    CLAUDE_DIR, LOCAL_SETTINGS_FILE, MANAGED_SETTINGS_DIR, MANAGED_SETTINGS_FILE,
    MAX_SETTINGS_BYTES, SETTINGS_FILE,
};
use crate::env::ClientEnv;
use crate::fsread::{self, Unread};
use crate::platform::Platform;
use crate::text::path;

pub(crate) use policy::{ReadPolicy, UnreadPolicy};

/// Where a settings layer comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// `$CFG/settings.json` (`userSettings`).
    User,
    /// `<cwd>/.claude/settings.json` (`projectSettings`).
    Project,
    /// `<cwd>/.claude/settings.local.json` (`localSettings`).
    Local,
    /// `--settings` (`flagSettings`).
    Flag,
    /// `<managed>/managed-settings.json` and `<managed>/managed-settings.d/*.json`, or the
    /// macOS managed-preferences plist or Windows registry value that takes their place
    /// (`policySettings`).
    Policy,
}

impl Source {
    /// The file of the user, project and local layers, for the environment's config folder
    /// and start directory (`None` for the flag and policy layers, which have no one file).
    /// `hook install` writes these files, so it asks here where they are.
    pub fn file(self, env: &ClientEnv) -> Option<PathBuf> {
        let project = || env.cwd.join(CLAUDE_DIR);
        match self {
            Source::User => Some(env.config_dir().join(SETTINGS_FILE)),
            Source::Project => Some(project().join(SETTINGS_FILE)),
            Source::Local => Some(project().join(LOCAL_SETTINGS_FILE)),
            Source::Flag | Source::Policy => None,
        }
    }
}

/// One parsed settings file (or the inline `--settings` JSON).
#[derive(Debug, Clone)]
pub struct Layer {
    /// Which layer.
    pub source: Source,
    /// The file it came from, or `--settings` for inline JSON.
    pub origin: String,
    /// The parsed JSON object.
    pub value: Value,
}

/// A settings file that exists but could not be used.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Problem {
    /// The file (or `--settings`).
    pub origin: String,
    /// What went wrong.
    pub message: String,
    /// Whether the client refuses to start because of it (an administrator's policy document
    /// that is not a JSON object: `y2o`'s `startupFatal`).
    #[serde(skip)]
    pub stops_client: bool,
}

/// All settings layers the client would read, in merge order.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Loaded layers, in merge order (user, project, local, flag, policy).
    pub layers: Vec<Layer>,
    /// Layers that exist but were ignored.
    pub problems: Vec<Problem>,
    /// The platform's policy sources that exist but ccmem does not read.
    pub unread_policy: Vec<UnreadPolicy>,
    /// The platform's policy sources ccmem read (the macOS plists, the Windows registry), with
    /// what came of each.
    pub read_policy: Vec<ReadPolicy>,
    enabled: [bool; 3],
}

impl Settings {
    /// Reads every layer the client would read for this environment.
    pub fn load(env: &ClientEnv) -> Self {
        let enabled = enabled_sources(env.flags.setting_sources.as_deref());
        let mut settings = Settings {
            enabled,
            ..Settings::default()
        };
        for source in [Source::User, Source::Project, Source::Local] {
            if settings.is_enabled(source)
                && let Some(path) = source.file(env)
            {
                settings.read_file(source, path);
            }
        }
        if let Some(flag) = env.flags.settings.as_deref() {
            if flag.trim_start().starts_with('{') {
                settings.push_text(Source::Flag, "--settings".to_owned(), flag);
            } else {
                settings.read_file(Source::Flag, env.cwd.join(flag));
            }
        }
        let problems = settings.problems.len();
        settings.read_policy(env);
        settings.place_os_policy(env, problems);
        settings.unread_policy = policy::unread_sources(env);
        settings
    }

    /// The problem that stops the client from starting, if one does (`ccmem context` has no
    /// reminder to print then).
    pub fn stops_client(&self) -> Option<&Problem> {
        self.problems.iter().find(|p| p.stops_client)
    }

    /// The managed folder's policy files, in the client's order (`tyt`, chunk-fwa49gns):
    /// `managed-settings.json`, then the drop-ins of `managed-settings.d/`: entries that are
    /// files or symlinks (by the directory entry's type, so a link to a folder is listed and
    /// then fails to read), named `*.json` and not starting with `.`, sorted as JavaScript's
    /// `sort()` does (by UTF-16 units). Each file is read and checked on its own, so a broken
    /// drop-in is dropped alone; the documents then merge in that order (`GO` with `PZ`:
    /// objects deeply, a later scalar wins, arrays concatenated), which [`Settings::get`] and
    /// [`Settings::concat`] reproduce over the separate layers. A `managed-settings.d` that
    /// is missing or not a folder adds nothing; one that cannot be listed is a problem.
    fn read_policy(&mut self, env: &ClientEnv) {
        if env.platform == Platform::Wsl {
            return self.read_wsl_policy(env);
        }
        self.read_policy_dir(env, &env.managed_dir.to_string_lossy());
    }

    /// [`Settings::read_policy`] on WSL ([`wsl`]): the Windows host's managed folder in place
    /// of the managed folder's files when its files arm `wslInheritsWindowsSettings` and hold
    /// a setting (`vn`), the managed folder's beneath when they hold only the flag, and no file
    /// policy when a document there failed and nothing armed it (the client refuses to start).
    fn read_wsl_policy(&mut self, env: &ClientEnv) {
        let windows = wsl::windows_dir(env);
        let reading = wsl::read_flag(&windows);
        let (armed_by, unreadable) = match reading.flag {
            wsl::Flag::Off if reading.records.is_empty() => {
                return self.read_policy_dir(env, &env.managed_dir.to_string_lossy());
            }
            wsl::Flag::Off => return self.problems.extend(reading.records),
            wsl::Flag::Armed(file) => (file, false),
            wsl::Flag::Unreadable(file) => (file, true),
        };
        let (layers, problems) = (self.layers.len(), self.problems.len());
        self.read_policy_dir(env, &windows);
        // `gAn`: a setting, or a document that did not load (a problem and no layer: a key
        // of the wrong type dropped alone leaves the document loaded).
        let new_layers = &self.layers[layers..];
        let holds = new_layers.iter().any(|l| policy::counts_for_user(&l.value))
            || self.problems[problems..]
                .iter()
                .any(|p| !new_layers.iter().any(|l| l.origin == p.origin));
        let note = if unreadable {
            "wslInheritsWindowsSettings holds a value that is neither true nor false: the client \
             inherits the Windows host's policy anyway, and reads the managed settings of this \
             folder only"
        } else if holds {
            "wslInheritsWindowsSettings: true: the client reads the managed settings of this \
             folder in place of the managed folder's"
        } else {
            "wslInheritsWindowsSettings: true, but this folder holds no other setting: the \
             client reads the managed folder's settings beneath"
        };
        self.read_policy.push(ReadPolicy {
            source: windows.clone(),
            note: format!("{note} (flag in {armed_by})"),
        });
        if unreadable && !holds {
            self.problems.push(Problem {
                origin: armed_by,
                message: format!(
                    "\"wslInheritsWindowsSettings\" holds a value that cannot be read (it takes \
                     true or false) and no Windows administrator policy is deployed beside it \
                     ({windows}): no managed-file policy is in effect; the client refuses to \
                     start until it is fixed"
                ),
                stops_client: true,
            });
        }
        if !holds && !unreadable {
            self.layers.truncate(layers);
            self.read_policy_dir(env, &env.managed_dir.to_string_lossy());
        }
    }

    /// The policy files of one managed folder (`tyt`).
    fn read_policy_dir(&mut self, env: &ClientEnv, managed: &str) {
        let file = |parts: &[&str]| PathBuf::from(path::join(env.platform, parts));
        self.read_file(Source::Policy, file(&[managed, MANAGED_SETTINGS_FILE]));
        let dir = file(&[managed, MANAGED_SETTINGS_DIR]);
        let entries = match std::fs::read_dir(&dir) {
            Ok(entries) => entries,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return;
            }
            Err(e) => {
                return self.problems.push(Problem {
                    origin: dir.to_string_lossy().into_owned(),
                    message: format!("cannot list the drop-ins: {e}; the client reads none"),
                    stops_client: false,
                });
            }
        };
        let mut names: Vec<String> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file() || t.is_symlink()))
            .filter_map(|e| e.file_name().into_string().ok())
            .filter(|n| n.ends_with(".json") && !n.starts_with('.'))
            .collect();
        names.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
        for name in names {
            self.read_file(Source::Policy, file(&[&dir.to_string_lossy(), &name]));
        }
    }

    /// [`Settings::apply_os_policy`] after the managed folder's files were read (with
    /// `problems` the count of problems before them): `ln` (via `Ma`) keeps the HKCU value out
    /// when a managed-folder document holds content, or could not be read or parsed.
    fn place_os_policy(&mut self, env: &ClientEnv, problems: usize) {
        let files_block = self.problems.len() > problems
            || self
                .layers
                .iter()
                .any(|l| l.source == Source::Policy && policy::counts_for_user(&l.value));
        self.apply_os_policy(env, files_block);
    }

    /// Puts the OS's policy (the macOS plist or the Windows `HKLM` value,
    /// [`policy::read_os_policy`]) in its place: alone when it is the policy (`mU` picks the
    /// first source that holds settings, and `Je` keeps only that one), after the managed
    /// folder's files when it asks for a merge (`Je` then lays it over them), nowhere when it
    /// holds none. The Windows `HKCU` value ([`policy::read_user_policy`]) is the policy only
    /// when no administrator source holds anything (`files_block`: the managed folder's).
    fn apply_os_policy(&mut self, env: &ClientEnv, files_block: bool) {
        let os = policy::read_os_policy(env);
        self.problems.extend(os.problems);
        self.read_policy.extend(os.read);
        if os.policy.is_none() && !os.blocks_user {
            let user = policy::read_user_policy(env, files_block);
            self.problems.extend(user.problems);
            self.read_policy.extend(user.read);
            if let Some((origin, value)) = user.policy {
                self.layers.retain(|l| l.source != Source::Policy);
                self.layers.push(Layer {
                    source: Source::Policy,
                    origin,
                    value,
                });
            }
        }
        if let Some((origin, value)) = os.policy {
            if !os.merge {
                self.layers.retain(|l| l.source != Source::Policy);
            }
            self.layers.push(Layer {
                source: Source::Policy,
                origin,
                value,
            });
        }
    }

    /// Whether `--setting-sources` lets this layer count (flag and policy always do).
    pub fn is_enabled(&self, source: Source) -> bool {
        match source {
            Source::User => self.enabled[0],
            Source::Project => self.enabled[1],
            Source::Local => self.enabled[2],
            Source::Flag | Source::Policy => true,
        }
    }

    /// The (first) layer of one source, if it was read.
    pub fn layer(&self, source: Source) -> Option<&Layer> {
        self.layers.iter().find(|l| l.source == source)
    }

    /// A value of one source by JSON pointer (`/a/b`): the last of its files that sets it (the
    /// policy source has several, merged in order; every other source has one).
    pub fn get(&self, source: Source, pointer: &str) -> Option<&Value> {
        self.get_with_layer(source, pointer).map(|(v, _)| v)
    }

    /// [`Settings::get`] with the file that set the value.
    pub fn get_with_layer(&self, source: Source, pointer: &str) -> Option<(&Value, &Layer)> {
        self.layers
            .iter()
            .rev()
            .filter(|l| l.source == source)
            .find_map(|l| {
                l.value
                    .pointer(pointer)
                    .filter(|v| !v.is_null())
                    .map(|v| (v, l))
            })
    }

    /// The merged value of a scalar key: the last layer (in merge order) that sets it.
    pub fn merged(&self, pointer: &str) -> Option<(&Value, &Layer)> {
        self.layers.iter().rev().find_map(|l| {
            l.value
                .pointer(pointer)
                .filter(|v| !v.is_null())
                .map(|v| (v, l))
        })
    }

    /// Every element of an array key across all layers, in merge order, with its layer.
    pub fn concat(&self, pointer: &str) -> Vec<(&Value, &Layer)> {
        self.layers
            .iter()
            .filter_map(|l| l.value.pointer(pointer)?.as_array().map(|a| (a, l)))
            .flat_map(|(a, l)| a.iter().map(move |v| (v, l)))
            .collect()
    }

    fn read_file(&mut self, source: Source, path: PathBuf) {
        let origin = path.to_string_lossy().into_owned();
        let message = match fsread::read_capped(&path, MAX_SETTINGS_BYTES) {
            Ok(bytes) => return self.push_text(source, origin, &file::decode(&bytes)),
            Err(Unread::Missing) => return,
            Err(Unread::TooLarge(n)) => format!(
                "{} bytes, over the client's limit of {}: the client loads none of its settings",
                crate::constants::Count(n as usize),
                crate::constants::Bytes(MAX_SETTINGS_BYTES)
            ),
            Err(e) => e.to_string(),
        };
        self.problems.push(Problem {
            origin,
            message,
            stops_client: false,
        });
    }

    fn push_text(&mut self, source: Source, origin: String, text: &str) {
        let parsed = if source == Source::Policy {
            file::parse_policy(text).map(|(value, dropped)| {
                self.problems
                    .extend(dropped.into_iter().map(|message| Problem {
                        origin: origin.clone(),
                        message,
                        stops_client: false,
                    }));
                value
            })
        } else {
            file::parse(text)
        };
        match parsed {
            Ok(Some(value)) => self.layers.push(Layer {
                source,
                origin,
                value,
            }),
            Ok(None) => {}
            // Captured (a drop-in holding `{"claudeMd":`): the client then refuses to start,
            // `claude -p` exits 1 with "Managed settings document could not be parsed as a
            // JSON object; none of its settings are in effect. Fix or remove it."
            Err(message) if source == Source::Policy => self.problems.push(Problem {
                origin,
                message: format!("{message}; the client refuses to start until it is fixed"),
                stops_client: true,
            }),
            Err(message) => self.problems.push(Problem {
                origin,
                message,
                stops_client: false,
            }),
        }
    }
}

/// `--setting-sources user,project,local` → which of user/project/local count.
fn enabled_sources(flag: Option<&str>) -> [bool; 3] {
    let Some(list) = flag else { return [true; 3] };
    let mut on = [false; 3];
    for name in list.split(',').map(str::trim) {
        match name {
            "user" => on[0] = true,
            "project" => on[1] = true,
            "local" => on[2] = true,
            _ => {}
        }
    }
    on
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setting_sources_parse() {
        assert_eq!(enabled_sources(None), [true; 3]);
        assert_eq!(enabled_sources(Some("")), [false; 3]);
        assert_eq!(enabled_sources(Some("user, local")), [true, false, true]);
    }

    #[test]
    fn merged_takes_last_and_concat_keeps_all() {
        let mut s = Settings {
            enabled: [true; 3],
            ..Settings::default()
        };
        s.push_text(Source::User, "u".into(), r#"{"a":1,"x":["u"]}"#);
        s.push_text(Source::Local, "l".into(), r#"{"a":2,"x":["l1","l2"]}"#);
        s.push_text(Source::Project, "bad".into(), "{nope");
        assert_eq!(s.merged("/a").unwrap().0, &Value::from(2));
        let all: Vec<_> = s
            .concat("/x")
            .iter()
            .map(|(v, l)| (v.as_str().unwrap(), l.origin.clone()))
            .collect();
        assert_eq!(
            all,
            [("u", "u".into()), ("l1", "l".into()), ("l2", "l".into())]
        );
        assert_eq!(s.problems.len(), 1);
    }
}
