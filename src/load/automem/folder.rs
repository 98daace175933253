//! Which folder holds auto memory (`$u.resolveEntry`, chunk-6bm6jz2w): the cowork override,
//! else the first settings source (policy, flag, local, project, user) that sets
//! `autoMemoryDirectory` (validated; an invalid value falls to the default, never to a lower
//! source), else `<base>/projects/<name>/memory/`. All paths are strings handled as node's
//! `path.posix` would (`join`, `normalize`), then NFC-normalized.

use unicode_normalization::UnicodeNormalization;

use super::slug::{slug, valid_project_dir_name};
use crate::env::ClientEnv;
use crate::settings::{Settings, Source};

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
    if let Some(v) = env.var("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE")
        && let Some(path) = validate(v, false, &home)
    {
        return Some(Folder {
            path,
            source: "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE".into(),
        });
    }
    if let Some((value, origin)) = setting(env, settings)
        && let Some(path) = value.as_str().and_then(|v| validate(v, true, &home))
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
            let value = settings.get(s, "/autoMemoryDirectory")?;
            Some((value, settings.layer(s)?.origin.as_str()))
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
    let path = format!(
        "{}/",
        join(&[&base, "projects", &name, crate::constants::MEMORY_DIR])
    )
    .nfc()
    .collect();
    let source = match remote {
        Some(_) => format!("CLAUDE_CODE_REMOTE_MEMORY_DIR, {how}"),
        None => format!("default, {how}"),
    };
    Folder { path, source }
}

/// The canonical git root of the project root, else the project root itself.
pub fn project_key(env: &ClientEnv) -> String {
    let root =
        crate::load::memo::git_roots(&env.cwd).map_or_else(|| env.cwd.clone(), |(_, main)| main);
    root.to_string_lossy().into_owned()
}

/// The client's `Bu(v, tilde)`: `~/` expansion (when allowed), normalization, trailing
/// separators removed, then rejected unless absolute, at least 3 units long, not a bare drive
/// letter, without NUL and not a special macOS path. Returns the folder with a trailing `/`.
pub fn validate(v: &str, tilde: bool, home: &str) -> Option<String> {
    if v.is_empty() {
        return None;
    }
    let mut o = v.to_owned();
    if tilde && (v.starts_with("~/") || v.starts_with("~\\")) {
        let rest = &v[2..];
        let y = normalize(if rest.is_empty() { "." } else { rest });
        if y == "." || y == ".." || y.starts_with("../") || y.starts_with("..\\") {
            return None;
        }
        o = join(&[home, rest]);
    }
    let g = normalize(&o);
    let g = g.trim_end_matches(['/', '\\']);
    let drive = g.len() == 2 && g.as_bytes()[0].is_ascii_alphabetic() && g.as_bytes()[1] == b':';
    let special = ["/.vol", "/.file", "/.nofollow", "/.resolve"]
        .iter()
        .any(|p| g == *p || g.starts_with(&format!("{p}/")));
    if !g.starts_with('/')
        || crate::text::js::utf16_len(g) < 3
        || drive
        || g.contains('\0')
        || special
    {
        return None;
    }
    Some(format!("{g}/").nfc().collect())
}

/// node's `path.posix.join`.
pub fn join(parts: &[&str]) -> String {
    let joined: Vec<&str> = parts.iter().copied().filter(|p| !p.is_empty()).collect();
    if joined.is_empty() {
        return ".".into();
    }
    normalize(&joined.join("/"))
}

/// node's `path.posix.normalize`.
pub fn normalize(p: &str) -> String {
    if p.is_empty() {
        return ".".into();
    }
    let absolute = p.starts_with('/');
    let trailing = p.ends_with('/');
    let mut out: Vec<&str> = Vec::new();
    for seg in p.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                if out.last().is_some_and(|l| *l != "..") {
                    out.pop();
                } else if !absolute {
                    out.push("..");
                }
            }
            s => out.push(s),
        }
    }
    let mut s = out.join("/");
    if s.is_empty() && !absolute {
        s = ".".into();
    }
    if !s.is_empty() && trailing {
        s.push('/');
    }
    if absolute { format!("/{s}") } else { s }
}

#[cfg(test)]
mod tests;
