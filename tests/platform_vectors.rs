//! Replays fuzz/vectors-platform/ (each platform rule as the client's own build computes it:
//! linux, darwin run as macos, win32, and linux as WSL; fuzz/oracle/gen_platform_vectors.py)
//! through ccmem's rules with that platform. Every vector must agree: there is no list of
//! known differences. (An integration test: the vectors live in the fuzz package.)

use ccmem::load::automem::{folder, slug};
use ccmem::load::instructions::deny::Deny;
use ccmem::load::instructions::excludes::Excludes;
use ccmem::load::instructions::{access, file, imports, paths};
use ccmem::load::{Kind, rule_paths};
use ccmem::platform::Platform;
use ccmem::text::path as node_path;
use serde_json::{Value, json};

fn doc(family: &str) -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/vectors-platform")
        .join(format!("{family}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// Runs `ours` on every input for every platform and fails with each difference.
fn check(family: &str, ours: impl Fn(Platform, &Value, &Value) -> Value) {
    let d = doc(family);
    let inputs = d["inputs"].as_array().unwrap();
    let mut diffs = Vec::new();
    for p in Platform::ALL {
        let want = d[p.name()].as_array().unwrap();
        assert_eq!(want.len(), inputs.len(), "{family} {p}");
        for (input, want) in inputs.iter().zip(want) {
            assert!(
                want.get("$error").is_none(),
                "{family} {p} {input}: the client threw {want}"
            );
            let got = ours(p, input, &d);
            if &got != want {
                diffs.push(format!("{p} {input}\n  client: {want}\n  ccmem:  {got}"));
            }
        }
    }
    assert!(
        diffs.is_empty(),
        "{family}: {} of {} differ:\n{}",
        diffs.len(),
        inputs.len() * 4,
        diffs.join("\n")
    );
}

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

#[test]
fn managed_folder() {
    check("managed", |p, _, _| json!(p.managed_dir()));
}

#[test]
fn project_slug_is_the_same_on_every_platform() {
    // Past 200 UTF-16 units with the hash suffix, non-BMP characters as two units.
    check("slug", |_, i, _| json!(slug::slug(s(i))));
}

#[test]
fn processed_set_key() {
    check("dedup", |p, i, _| json!(paths::dedup_key(p, s(i))));
}

#[test]
fn refused_paths() {
    check("refused", |p, i, _| {
        json!(access::refused(p, s(i)).is_some())
    });
}

#[test]
fn approval_key() {
    check("approval", |p, i, _| json!(imports::approval_key(p, s(i))));
}

#[test]
fn inside_the_start_directory() {
    check("inside", |p, i, _| {
        json!(paths::inside(p, s(&i[0]), s(&i[1])))
    });
}

#[test]
fn node_path_functions() {
    check("path", |p, i, _| {
        let x = s(i);
        json!({
            "normalize": node_path::normalize(p, x),
            "dirname": node_path::dirname(p, x),
            "root": node_path::root(p, x),
            "absolute": node_path::is_absolute(p, x),
        })
    });
    check("join", |p, i, _| {
        let parts: Vec<&str> = i.as_array().unwrap().iter().map(s).collect();
        json!(node_path::join(p, &parts))
    });
}

#[test]
fn memory_folder_setting() {
    check("memdir", |p, i, d| {
        json!(folder::validate(
            p,
            s(&i[0]),
            i[1].as_bool().unwrap(),
            s(&d["home"])
        ))
    });
}

#[test]
fn imports_of_a_file() {
    // The client's import list of a text read from `importer` (`ool`/`Krl`/`nil`): the token
    // scan, refused tokens dropped (`RG` on the raw path), resolution, duplicates once.
    check("includes", |p, i, d| {
        let importer = s(&d["importer"][if p.is_windows() { "windows" } else { "posix" }]);
        let mut out: Vec<String> = Vec::new();
        for r in file::process(s(i)).imports {
            if access::refused(p, &r.path).is_some() {
                continue;
            }
            let target = imports::resolve(p, &r.path, importer, s(&d["home"]));
            if !out.contains(&target) {
                out.push(target);
            }
        }
        json!(out)
    });
}

#[test]
fn claude_md_excludes() {
    check("excludes", |p, i, _| {
        let patterns = i[0].as_array().unwrap();
        let raw = patterns
            .iter()
            .map(|x| (s(x).to_owned(), "s".to_owned()))
            .collect();
        json!(Excludes::new(p, raw).hit(s(&i[1]), Kind::Project).is_some())
    });
}

#[test]
fn conditional_rule_paths() {
    check("rulematch", |p, i, _| {
        let globs: Vec<String> = i[0]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| s(g).to_owned())
            .collect();
        let rel = rule_paths::relative_on(p, s(&i[1]), s(&i[2]));
        json!(rel.is_some_and(|r| rule_paths::Matcher::new(&globs).matched(&r).is_some()))
    });
}

#[test]
fn read_deny_rules() {
    // A Read deny rule of one settings source against an instruction file, as the loader's
    // `held` reader decides (`Gt`/`Bko`), in each platform's working folder and home.
    check("deny", |p, i, d| {
        let at = &d["at"][if p.is_windows() { "windows" } else { "posix" }];
        let (cwd, home) = (s(&at["cwd"]), s(&at["home"]));
        let config = node_path::join(p, &[home, ".claude"]);
        let user = s(&i[1]) == "userSettings";
        let deny = Deny::of_rules(p, &[(s(&i[0]), user)], cwd, home, &config);
        json!(deny.hit(s(&i[2]), Kind::Project).is_some())
    });
}
