//! Which folder holds auto memory (`$u.resolveEntry`, chunk-6bm6jz2w): the cowork override,
//! else the first settings source (policy, flag, local, project, user) that sets
//! `autoMemoryDirectory` (validated; an invalid value falls to the default, never to a lower
//! source), else `<base>/projects/<name>/memory/`. All paths are strings handled as the
//! platform's node `path` would (`join`, `normalize`; on Windows `C:\Users\me\.claude\projects\
//! C--Users-me-p\memory\`, ending in `path.sep`), then NFC-normalized (on every platform).

use unicode_normalization::UnicodeNormalization;

use super::slug::{slug, valid_project_dir_name};
use crate::env::ClientEnv;
use crate::load::instructions::access;
use crate::platform::Platform;
use crate::settings::{Settings, Source};
use crate::text::path;

/// node's `path.posix.join` and `normalize` (agent memory folders, which are posix here yet).
pub use crate::text::path::posix::{join, normalize};

/// The resolved folder and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folder {
    /// The folder with its trailing `/`, exactly as the client prints it.
    pub path: String,
    /// Where it came from, in words.
    pub source: String,
}

/// Resolves the auto-memory folder (`None` only when no project root is known).
pub fn resolve(env: &ClientEnv, settings: &Settings) -> Option<Folder> {
    let home = env.home.to_string_lossy();
    let plat = env.platform;
    if let Some(v) = env.var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
        && let Some(path) = validate(plat, v, false, &home)
    {
        return Some(Folder {
            path,
            source: "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into(),
        });
    }
    if let Some((value, origin)) = setting(env, settings)
        && let Some(path) = value.as_str().and_then(|v| validate(plat, v, true, &home))
    {
        return Some(Folder {
            path,
            source: format!("autoMemoryDirectory in {origin}"),
        });
    }
    Some(default_folder(env))
}

/// The first settings source, in the client's order, whose `autoMemoryDirectory` is not null.
fn setting<'a>(
    env: &ClientEnv,
    settings: &'a Settings,
) -> Option<(&'a serde_json::Value, &'a str)> {
    // `-p` runs count as trusted; CLAUDE_CODE_IGNORE_PERSISTED_TRUST drops project and local.
    let trusted = !env.is_truthy("CLAUDE_CODE_IGNORE_PERSISTED_TRUST");
    let mut order = vec![Source::Policy, Source::Flag];
    if trusted {
        order.extend([Source::Local, Source::Project]);
    }
    order.push(Source::User);
    order
        .into_iter()
        .filter(|s| settings.is_enabled(*s))
        .find_map(|s| {
            let (value, layer) = settings.get_with_layer(s, "/autoMemoryDirectory")?;
            Some((value, layer.origin.as_str()))
        })
}

/// `<base>/projects/<name>/memory/`.
fn default_folder(env: &ClientEnv) -> Folder {
    let config_home: String = env.config_dir().to_string_lossy().into_owned();
    let remote = env
        .var(crate::constants::REMOTE_MEMORY_DIR_ENV)
        .filter(|v| !v.is_empty());
    let base = remote.map_or_else(|| config_home.clone(), str::to_owned);
    let override_name = env
        .var("CLAUDE_CODE_PROJECT_DIR_NAME")
        .filter(|n| valid_project_dir_name(n));
    let config_dir_set = env.var("CLAUDE_CONFIG_DIR").is_some_and(|v| !v.is_empty());
    let key = project_key(env);
    let (name, how) = match override_name {
        Some(n) if base == config_home && config_dir_set => {
            (n.to_owned(), "CLAUDE_CODE_PROJECT_DIR_NAME".to_owned())
        }
        _ => (slug(&key), format!("slug of {key}")),
    };
    let plat = env.platform;
    let folder = path::join(
        plat,
        &[
            &base,
            crate::constants::PROJECTS_DIR,
            &name,
            crate::constants::MEMORY_DIR,
        ],
    );
    let path = format!("{folder}{}", plat.sep()).nfc().collect();
    let source = match remote {
        Some(_) => format!("CLAUDE_CODE_REMOTE_MEMORY_DIR, {how}"),
        None => format!("default, {how}"),
    };
    Folder { path, source }
}

/// The canonical git root of the project root, else the project root itself, written as the
/// platform's `realpath` returns it (NFC on macOS, so an NFD folder `café` gets the slug of
/// `café` in NFC: captured in `cases-macos/mem-dir-slug-decomposed`; no `\\?\` on Windows).
pub fn project_key(env: &ClientEnv) -> String {
    let root =
        crate::load::memo::git_roots(&env.cwd).map_or_else(|| env.cwd.clone(), |(_, main)| main);
    let root = root.to_string_lossy();
    match env.platform {
        Platform::Macos if !root.is_ascii() => root.nfc().collect(),
        Platform::Windows => path::strip_verbatim(&root).into_owned(),
        _ => root.into_owned(),
    }
}

/// The client's `Ku(v, tilde)` (chunk-fsawyn72 of the win32 build, `Bu` of linux): `~/` (and
/// `~\\`) expansion when allowed, normalization, trailing separators removed, then rejected
/// unless absolute, at least 3 UTF-16 units long, not a bare drive letter (`C:`), without NUL
/// and not a path the platform refuses as a memory folder ([`access::invalid_memory_dir`]:
/// UNC even to `\\wsl$`, network mounts, macOS's special folders). Returns the folder ending
/// in `path.sep`, NFC-normalized.
pub fn validate(plat: Platform, v: &str, tilde: bool, home: &str) -> Option<String> {
    if v.is_empty() {
        return None;
    }
    let mut o = v.to_owned();
    if tilde && (v.starts_with("~/") || v.starts_with("~\\")) {
        let rest = &v[2..];
        let y = path::normalize(plat, if rest.is_empty() { "." } else { rest });
        let up = format!("..{}", plat.sep());
        if y == "."
            || y == ".."
            || y.starts_with(&up)
            || y.starts_with("../")
            || y.starts_with("..\\")
        {
            return None;
        }
        o = path::join(plat, &[home, rest]);
    }
    let g = path::normalize(plat, &o);
    let g = g.trim_end_matches(['/', '\\']);
    let drive = g.len() == 2 && g.as_bytes()[0].is_ascii_alphabetic() && g.as_bytes()[1] == b':';
    if !path::is_absolute(plat, g)
        || crate::text::js::utf16_len(g) < 3
        || drive
        || g.contains('\0')
        || access::invalid_memory_dir(plat, g)
    {
        return None;
    }
    Some(format!("{g}{}", plat.sep()).nfc().collect())
}

/// Every project's memory folder under the client's `projects/` folder (`<config>/projects/
/// <name>/memory/`, where [`resolve`] puts them by default), sorted: what `ccmem audit --all`
/// reads (a link to a folder counts as a folder).
pub fn every_project(projects: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    let mut out: Vec<std::path::PathBuf> = std::fs::read_dir(projects)?
        .flatten()
        .map(|e| e.path().join(crate::constants::MEMORY_DIR))
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests;
