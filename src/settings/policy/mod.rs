//! The operating system's policy sources. The client reads them before the managed folder's
//! files (`mU`, chunk-ybcm27m2: `cU` remote, then `ve` the MDM source, then `ume` the files), so
//! what they hold decides everything `policySettings` does for memory (the `<managed-settings>`
//! entry from `claudeMd`, `claudeMdExcludes`, `autoMemoryDirectory`, `autoMemoryEnabled`).
//!
//! - macOS: ccmem reads the managed-preferences plists itself ([`plist`]).
//! - Windows: the registry value `Settings` (JSON text) under `HKLM\SOFTWARE\Policies\ClaudeCode`
//!   is the administrator's source, and the one under `HKCU\…` counts only when no
//!   administrator source holds anything (`ii`, chunk-dagnsb7p of the Windows build). On a
//!   Windows host ccmem reads both itself (`crate::sys::registry_value`, bounded at the
//!   client's 2 MiB), as below; elsewhere, under `CCMEM_PLATFORM=windows`, it cannot, and
//!   says so ([`unread_sources`]).
//! - WSL (`Eqs`, `nwe`): the client (the Linux build) reads the Windows host's registry through
//!   `/mnt/c/Windows/System32/reg.exe` and, when an administrator source there sets
//!   `wslInheritsWindowsSettings: true`, applies it and adds `/mnt/c/Program Files/ClaudeCode`
//!   (the host's managed folder) to the policy walk. ccmem reads that folder as the client
//!   does (`super::wsl`, where the flag set in the folder's own files arms it), and runs no
//!   subprocess for the registry: not read, said so.
//!
//! The registry's rules are in [`registry`], the plists' in [`plist`].

mod plist;
mod registry;

use std::path::Path;

use serde_json::Value;

use super::Problem;
use crate::env::ClientEnv;
use crate::platform::Platform;
use crate::sys::Hive;

pub(crate) use registry::read_user_policy;
use registry::{POLICY_KEY, POLICY_VALUE};

/// The `reg.exe` the client runs from WSL to read the Windows host's policy (`T2o`).
const WSL_REG_EXE: &str = "/mnt/c/Windows/System32/reg.exe";
/// The keys that are not policy content (`sAn`).
const NOT_CONTENT: [&str; 2] = ["managedSourcesBehavior", "wslInheritsWindowsSettings"];

/// A policy source the client may read and ccmem does not.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct UnreadPolicy {
    /// The file, folder or registry key.
    pub source: String,
    /// What the client does with it, and what ccmem cannot tell.
    pub note: String,
}

/// An OS policy source ccmem read, and what came of it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ReadPolicy {
    /// The file.
    pub source: String,
    /// What the client makes of it.
    pub note: String,
}

/// The OS's administrator source's part in the policy: the macOS plists, or the Windows
/// registry's `HKLM` value.
#[derive(Debug, Default)]
pub(crate) struct OsPolicy {
    /// The source that is the policy (its path and settings), if one is.
    pub policy: Option<(String, Value)>,
    /// Whether it asks for the file's settings beneath it (`managedSourcesBehavior: "merge"`).
    pub merge: bool,
    /// Plists the client could not use, worded as settings problems.
    pub problems: Vec<Problem>,
    /// Every source there, with what the client makes of it (for the receipt).
    pub read: Vec<ReadPolicy>,
    /// Whether it keeps the `HKCU` value out (`ii`: the `HKLM` document holds content, or
    /// could not be parsed or read, `ECn`).
    pub blocks_user: bool,
}

/// Reads the platform's administrator source as the client does: the macOS plists
/// ([`plist::read_plists`]), the Windows `HKLM` value ([`registry::read_machine_value`]); nothing elsewhere.
pub(crate) fn read_os_policy(env: &ClientEnv) -> OsPolicy {
    match env.platform {
        Platform::Macos => plist::read_plists(env),
        Platform::Windows => match registry::registry(env, Hive::Machine) {
            Some(value) => registry::read_machine_value(value),
            None => OsPolicy::default(),
        },
        Platform::Linux | Platform::Wsl => OsPolicy::default(),
    }
}

/// What the client makes of an administrator source's JSON text (`sn`, then `mU`/`m$`): a
/// document that is not a JSON object stops the client (`y2o`, `startupFatal`); a key of the
/// wrong type is dropped alone; the document is the policy when it holds content
/// ([`has_content`]), merged over the managed folder's files when it asks for it.
fn judge(out: &mut OsPolicy, path: String, label: &str, text: &str) {
    let fail = |message: String| Problem {
        origin: path.clone(),
        message,
        stops_client: false,
    };
    out.blocks_user = true;
    // `sn` parses the text as it is: blank text (an empty value) is not a JSON object.
    let parsed = if crate::text::js::trim(text).is_empty() {
        Err("empty: not a JSON object".to_owned())
    } else {
        super::file::parse_policy(text)
    };
    let note = match parsed {
        Err(message) => {
            out.problems.push(Problem {
                stops_client: true,
                ..fail(format!(
                    "{message}; the client refuses to start until it is fixed"
                ))
            });
            format!("{label}: not a JSON object: the client refuses to start")
        }
        Ok((value, dropped)) => {
            out.problems.extend(dropped.into_iter().map(&fail));
            let value = value.unwrap_or_default();
            out.blocks_user = has_document_content(&value);
            if has_content(&value) {
                out.merge = value.get("managedSourcesBehavior") == Some(&Value::from("merge"));
                out.policy = Some((path.clone(), value));
                if out.merge {
                    format!(
                        "{label}: the policy, merged over managed-settings.json \
                         (managedSourcesBehavior \"merge\")"
                    )
                } else {
                    format!(
                        "{label}: the policy; managed-settings.json and its drop-ins give none \
                         of their settings"
                    )
                }
            } else {
                format!("{label}: holds no policy settings; managed-settings.json applies")
            }
        }
    };
    out.read.push(ReadPolicy { source: path, note });
}

/// Whether a plist's settings make it the policy (`Eyt`: a key outside `sAn` whose value is
/// not an object of only empty objects, `Q6r`).
fn has_content(value: &Value) -> bool {
    fn hollow(v: &Value) -> bool {
        // Iterative: a plist may nest deeply.
        let mut stack = vec![v];
        while let Some(v) = stack.pop() {
            match v.as_object() {
                Some(o) => stack.extend(o.values()),
                None => return false,
            }
        }
        true
    }
    value.as_object().is_some_and(|o| {
        o.iter()
            .any(|(k, v)| !NOT_CONTENT.contains(&k.as_str()) && !hollow(v))
    })
}

/// Whether an administrator document counts as present for the `HKCU` value (`TNt` through
/// `$Ql`): a key outside `sAn` whose value is not `null`. (The client also leaves out a
/// restrictive key whose value restricts nothing, `oo`; no such key is one ccmem reads.)
fn has_document_content(value: &Value) -> bool {
    value.as_object().is_some_and(|o| {
        o.iter()
            .any(|(k, v)| !NOT_CONTENT.contains(&k.as_str()) && !v.is_null())
    })
}

/// Whether a managed-folder document keeps the `HKCU` value out (`ei`: it holds content,
/// [`has_document_content`]; one that failed to read or parse does too, and is counted by the
/// caller from its problems).
pub(crate) fn counts_for_user(value: &Value) -> bool {
    has_document_content(value)
}

/// The unread policy sources of this environment's platform: the Windows registry when the
/// Windows model runs on another host (ccmem reads it only on Windows); on WSL, the Windows
/// host's registry (through `reg.exe`; its managed folder ccmem reads, `super::wsl`).
pub(crate) fn unread_sources(env: &ClientEnv) -> Vec<UnreadPolicy> {
    match env.platform {
        Platform::Linux | Platform::Macos => Vec::new(),
        Platform::Windows if cfg!(windows) => Vec::new(),
        Platform::Windows => vec![UnreadPolicy {
            source: format!(r"HKLM\{POLICY_KEY}\{POLICY_VALUE} and HKCU\…"),
            note: "the client reads this registry value (JSON) before managed-settings.json, and \
                   the HKCU one when no administrator source holds settings; ccmem reads the \
                   registry only when it runs on Windows, so the policy predicted here leaves \
                   it out: unverified"
                .into(),
        }],
        Platform::Wsl => {
            let mut out = Vec::new();
            if Path::new(WSL_REG_EXE).exists() {
                out.push(UnreadPolicy {
                    source: format!(
                        r"HKLM\{POLICY_KEY}\{POLICY_VALUE} and HKCU\… (through {WSL_REG_EXE})"
                    ),
                    note: "the Windows host's policy: the client applies it in WSL when an \
                           administrator source (this HKLM value, or the host's \
                           managed-settings.json) sets wslInheritsWindowsSettings: true, and \
                           when this value sets it the client also reads the host's managed \
                           folder; ccmem cannot read the registry from WSL (it would run \
                           reg.exe), so the policy predicted here leaves it out: unverified"
                        .into(),
                });
            }
            out
        }
    }
}

/// What the plist and registry tests share.
#[cfg(test)]
mod testing {
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    use crate::env::ClientEnv;
    use crate::settings::{Settings, Source};

    /// A client environment of `platform` with `vars`.
    pub(super) fn env(platform: &str, vars: &[(&str, &str)]) -> ClientEnv {
        let mut map: BTreeMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        map.insert("CCMEM_PLATFORM".into(), platform.into());
        ClientEnv::new(PathBuf::from("/p"), map, Default::default())
    }

    pub(super) fn policy(s: &Settings, key: &str) -> Option<String> {
        s.get(Source::Policy, key).map(|v| v.to_string())
    }

    pub(super) fn excludes(s: &Settings) -> Vec<String> {
        s.concat("/claudeMdExcludes")
            .into_iter()
            .map(|(v, _)| v.as_str().unwrap().to_owned())
            .collect()
    }
}
