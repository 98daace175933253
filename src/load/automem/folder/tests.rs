use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::env::ClientFlags;
use crate::platform::Platform;

#[test]
fn node_normalize_and_join() {
    assert_eq!(normalize("/a/b/../c/"), "/a/c/");
    assert_eq!(normalize("/.."), "/");
    assert_eq!(normalize("./x//y"), "x/y");
    assert_eq!(normalize("../x"), "../x");
    assert_eq!(normalize(""), ".");
    assert_eq!(
        join(&["rel/", "projects", "n", "memory"]),
        "rel/projects/n/memory"
    );
    assert_eq!(join(&["", "projects"]), "projects");
    assert_eq!(join(&["/h", "../x"]), "/x");
}

#[test]
fn validation_rules() {
    assert_eq!(
        validate(Platform::Linux, "/abs/mem", true, "/h").as_deref(),
        Some("/abs/mem/")
    );
    assert_eq!(
        validate(Platform::Linux, "/abs//x/../mem///", true, "/h").as_deref(),
        Some("/abs/mem/")
    );
    assert_eq!(
        validate(Platform::Linux, "~/mymem", true, "/h").as_deref(),
        Some("/h/mymem/")
    );
    assert_eq!(
        validate(Platform::Linux, "~/mymem", false, "/h"),
        None,
        "no ~ for the cowork override"
    );
    for bad in [
        "", "rel/x", "~", "~/", "~/..", "~/../x", "/", "/a\0b", "/.vol/x",
    ] {
        assert_eq!(validate(Platform::Linux, bad, true, "/h"), None, "{bad:?}");
    }
    // Network folders (the client's `za`), on Linux too; `//srv` is normalized to `/srv` first.
    assert_eq!(
        validate(Platform::Linux, "//srv/m", true, "/h").as_deref(),
        Some("/srv/m/")
    );
    for bad in ["/net/host/mem", "/NET/host/mem", "/.VOL/x"] {
        assert_eq!(validate(Platform::Linux, bad, true, "/h"), None, "{bad:?}");
    }
    assert_eq!(
        validate(Platform::Linux, "/ab", true, "/h").as_deref(),
        Some("/ab/")
    );
    assert_eq!(
        validate(Platform::Linux, "/a", true, "/h"),
        None,
        "shorter than 3 units"
    );
    assert_eq!(
        validate(Platform::Linux, "/cafe\u{301}", true, "/h").as_deref(),
        Some("/caf\u{e9}/"),
        "NFC"
    );
}

/// The Linux model, for the tests whose paths are POSIX strings that name nothing on disk (the
/// Windows rules have their own vectors).
const LINUX: (&str, &str) = (crate::env::PLATFORM_VAR, "linux");

/// `p`, a posix path, as the host's model writes it (`/h/x` is `\h\x` on Windows, where a
/// rooted path counts as absolute): for the tests whose folder is a real one on the host.
fn host(p: &str) -> String {
    if Platform::compiled().is_windows() {
        p.replace('/', "\\")
    } else {
        p.to_owned()
    }
}

fn env_in(cwd: &Path, vars: &[(&str, &str)], flags: ClientFlags) -> ClientEnv {
    let vars: BTreeMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    ClientEnv::new(cwd.to_path_buf(), vars, flags)
}

#[test]
fn default_folder_uses_git_root_slug_and_config_dir_verbatim() {
    let t = tempfile::tempdir().unwrap();
    let repo = t.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join("sub")).unwrap();
    let e = env_in(&repo.join("sub"), &[("HOME", "/h")], ClientFlags::default());
    let f = resolve(&e, &Settings::default()).unwrap();
    assert_eq!(
        f.path,
        host(&format!(
            "/h/.claude/projects/{}/memory/",
            slug(repo.to_str().unwrap())
        ))
    );
    let e = env_in(
        &repo,
        &[("HOME", "/h"), ("CLAUDE_CONFIG_DIR", "./cfg/")],
        ClientFlags::default(),
    );
    let f = resolve(&e, &Settings::default()).unwrap();
    let want = host(&format!("cfg/projects/{}", slug(repo.to_str().unwrap())));
    assert!(f.path.starts_with(&want), "{}", f.path);
}

#[test]
fn project_dir_name_needs_config_dir_and_no_remote() {
    let cwd = PathBuf::from("/nonexistent-ccmem/p");
    let with = env_in(
        &cwd,
        &[
            LINUX,
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "named"),
        ],
        ClientFlags::default(),
    );
    assert_eq!(
        resolve(&with, &Settings::default()).unwrap().path,
        "/c/projects/named/memory/"
    );
    let without = env_in(
        &cwd,
        &[
            LINUX,
            ("HOME", "/h"),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "named"),
        ],
        ClientFlags::default(),
    );
    assert_eq!(
        resolve(&without, &Settings::default()).unwrap().path,
        "/h/.claude/projects/-nonexistent-ccmem-p/memory/"
    );
    let remote = env_in(
        &cwd,
        &[
            LINUX,
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("CLAUDE_CODE_PROJECT_DIR_NAME", "named"),
            ("CLAUDE_CODE_REMOTE_MEMORY_DIR", "/r"),
        ],
        ClientFlags::default(),
    );
    assert_eq!(
        resolve(&remote, &Settings::default()).unwrap().path,
        "/r/projects/-nonexistent-ccmem-p/memory/"
    );
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn first_non_null_source_wins_and_invalid_blocks_lower() {
    let t = tempfile::tempdir().unwrap();
    let cwd = t.path().join("p");
    let cfg = t.path().join("cfg");
    write(
        &cfg.join("settings.json"),
        r#"{"autoMemoryDirectory":"/user/mem"}"#,
    );
    write(
        &cwd.join(".claude/settings.json"),
        r#"{"autoMemoryDirectory":"/project/mem"}"#,
    );
    write(
        &cwd.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory":null}"#,
    );
    let vars = [("HOME", "/h"), ("CLAUDE_CONFIG_DIR", cfg.to_str().unwrap())];
    let e = env_in(&cwd, &vars, ClientFlags::default());
    let s = Settings::load(&e);
    assert_eq!(resolve(&e, &s).unwrap().path, host("/project/mem/"));

    let ignore = [
        vars[0],
        vars[1],
        ("CLAUDE_CODE_IGNORE_PERSISTED_TRUST", "1"),
    ];
    let e = env_in(&cwd, &ignore, ClientFlags::default());
    assert_eq!(
        resolve(&e, &Settings::load(&e)).unwrap().path,
        host("/user/mem/")
    );

    write(
        &cwd.join(".claude/settings.local.json"),
        r#"{"autoMemoryDirectory":"relative"}"#,
    );
    let e = env_in(&cwd, &vars, ClientFlags::default());
    let f = resolve(&e, &Settings::load(&e)).unwrap();
    assert!(
        f.path.contains(&host("/projects/")),
        "invalid local falls to the default: {}",
        f.path
    );

    let flags = ClientFlags {
        setting_sources: Some("user".into()),
        ..ClientFlags::default()
    };
    let e = env_in(&cwd, &vars, flags);
    assert_eq!(
        resolve(&e, &Settings::load(&e)).unwrap().path,
        host("/user/mem/")
    );
}

#[test]
fn cowork_override_beats_settings() {
    let e = env_in(
        Path::new("/x"),
        &[
            LINUX,
            ("HOME", "/h"),
            ("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "/cw/"),
        ],
        ClientFlags::default(),
    );
    assert_eq!(resolve(&e, &Settings::default()).unwrap().path, "/cw/");
}

#[test]
fn validation_on_each_platform() {
    let (w, m) = (Platform::Windows, Platform::Macos);
    let home = r"C:\Users\me";
    assert_eq!(
        validate(w, r"D:\mem\", true, home).as_deref(),
        Some(r"D:\mem\")
    );
    assert_eq!(
        validate(w, "D:/mem", true, home).as_deref(),
        Some(r"D:\mem\")
    );
    assert_eq!(
        validate(w, r"~\mem", true, home).as_deref(),
        Some(r"C:\Users\me\mem\")
    );
    assert_eq!(
        validate(w, "~/mem", true, home).as_deref(),
        Some(r"C:\Users\me\mem\")
    );
    // Rooted without a drive counts as absolute; a bare drive, UNC (a WSL share too) do not.
    assert_eq!(validate(w, r"\mem", true, home).as_deref(), Some(r"\mem\"));
    for bad in [
        "C:",
        "C:/",
        r"\\srv\share\mem",
        r"\\wsl$\Ubuntu\mem",
        r"~\..\x",
        "mem",
    ] {
        assert_eq!(validate(w, bad, true, home), None, "{bad:?}");
    }
    // /Network is refused on macOS only; /net/<host> on both posix platforms.
    assert_eq!(validate(m, "/Network/Library/mem", true, "/h"), None);
    assert!(validate(Platform::Linux, "/Network/Library/mem", true, "/h").is_some());
    assert_eq!(
        validate(w, "/net/host/mem", true, home).as_deref(),
        Some(r"\net\host\mem\")
    );
}
