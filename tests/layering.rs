//! The module order written in `src/lib.rs`'s header, held: each top-level module uses only
//! modules of the layers before its own (every `crate::name` path in its sources, comments
//! aside), and every module of `lib.rs` has a layer.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `lib.rs`'s order, lowest first. A module may use any module of an earlier layer, none of its
/// own layer or a later one.
const LAYERS: &[&[&str]] = &[
    &["constants", "exit", "platform", "severity", "sys"],
    &["text"],
    &["env", "fsread"],
    &["config", "settings"],
    &["write"],
    &["load"],
    &["memory"],
    &["history"],
    &["budget", "hook", "receipt"],
    &["repo"],
    &["rules"],
    &["tier", "verify"],
    &["render"],
    &["cli"],
];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

fn sources(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_dir() {
        for e in std::fs::read_dir(path).unwrap() {
            sources(&e.unwrap().path(), out);
        }
    } else if path.is_file() && path.extension().is_some_and(|x| x == "rs") {
        out.push(path.to_path_buf());
    }
}

/// The top-level modules `text` names as `crate::name`, outside comments.
fn used(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        for (k, _) in code.match_indices("crate::") {
            let before = code[..k].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$') {
                continue; // `$crate::`, `ccmem_crate::`
            }
            let name: String = code[k + 7..]
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name);
            }
        }
    }
    out
}

fn modules() -> Vec<String> {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            let l = l.trim_start();
            let rest = l
                .strip_prefix("pub mod ")
                .or_else(|| l.strip_prefix("pub(crate) mod "))?;
            rest.strip_suffix(';').map(str::to_owned)
        })
        .collect()
}

#[test]
fn every_module_has_a_layer() {
    let missing: Vec<String> = modules()
        .into_iter()
        .filter(|m| layer_of(m).is_none())
        .collect();
    assert!(
        missing.is_empty(),
        "give these a layer in lib.rs and here: {missing:?}"
    );
    assert!(modules().len() > 10, "lib.rs's module list was not read");
}

#[test]
fn modules_use_only_earlier_layers() {
    let mut wrong = Vec::new();
    for module in modules() {
        let own = layer_of(&module).expect("a layer");
        let mut files = Vec::new();
        sources(&src().join(format!("{module}.rs")), &mut files);
        sources(&src().join(&module), &mut files);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for dep in used(&text) {
                if dep == module {
                    continue;
                }
                match layer_of(&dep) {
                    Some(l) if l < own => {}
                    _ => wrong.push(format!(
                        "{}: {module} uses crate::{dep}",
                        file.strip_prefix(src()).unwrap().display()
                    )),
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "against lib.rs's module order:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_scan_sees_paths_and_not_comments() {
    let text =
        "use crate::load::x;\n// crate::cli in a comment\nlet a = crate::text::f(); $crate::y";
    assert_eq!(used(text), BTreeSet::from(["load".into(), "text".into()]));
}

/// Files outside `src/write/` that may lift `clippy.toml`'s `disallowed-methods`, and why. The
/// rule sends every file write to `crate::write`; an `allow` beside code is how a write escaped
/// it before (the client-version cache and the InstructionsLoaded log were written with
/// `std::fs` under such an `allow`, following planted links). A new exception must be added here,
/// where it is reviewed.
const DISALLOWED_METHODS_EXCEPTIONS: &[(&str, &str)] = &[
    (
        "env.rs",
        "the environment snapshot every read of std::env goes to",
    ),
    (
        "sys/windows.rs",
        "the Windows state folder (crate::write's, by path: Windows has no openat), through sys, \
         and the folder lock's own file in %TEMP% (sys::lock_dir)",
    ),
    (
        "verify/case.rs",
        "copies a recorded case into a scratch folder ccmem made (developer tooling)",
    ),
    (
        "verify/capture.rs",
        "writes the case folder a developer records (developer tooling)",
    ),
];

/// Calls that write, one of which in a file the exceptions allow for another reason (reading
/// the environment) would be a write outside the writer.
const WRITE_CALLS: &[&str] = &[
    "fs::write",
    "File::create",
    "OpenOptions",
    "fs::rename",
    "fs::remove_file",
    "fs::remove_dir",
    "fs::copy",
    "set_permissions",
    "create_dir",
    "hard_link",
    "symlink(",
];

/// The code of `text` before its `#[cfg(test)]` module, comments aside.
fn non_test_code(text: &str) -> String {
    let code = text.split("#[cfg(test)]").next().unwrap_or("");
    code.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn writes_outside_the_writer_are_only_the_reviewed_exceptions() {
    let mut files = Vec::new();
    sources(&src(), &mut files);
    let mut wrong = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src()).unwrap().display().to_string();
        if rel.starts_with("write/") || rel == "lib.rs" {
            continue;
        }
        let code = non_test_code(&std::fs::read_to_string(&file).unwrap());
        if !code.contains("clippy::disallowed_methods") {
            continue;
        }
        match DISALLOWED_METHODS_EXCEPTIONS
            .iter()
            .find(|(f, _)| *f == rel)
        {
            None => wrong.push(format!(
                "{rel}: lifts disallowed_methods; write through crate::write instead (or add a \
                 reviewed exception here)"
            )),
            Some(_) if rel == "env.rs" => {
                for call in WRITE_CALLS.iter().filter(|c| code.contains(*c)) {
                    wrong.push(format!(
                        "{rel}: writes ({call}) under the environment's exception"
                    ));
                }
            }
            Some(_) => {}
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
