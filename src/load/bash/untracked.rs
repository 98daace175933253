//! The files a Bash command reads that the client does not track (`cat f | head`,
//! `cd x && cat f`, `cat a b`, `awk '…' f`, `less f`, `sort < f`, a grep over a folder), for
//! ccmem's own post-tool-use hook.
//!
//! Decided from the command text first: only a command whose statements name a known reader
//! (`cat`, `head`, `sed`, `awk`, `grep`, …) or use an input redirection goes on to look at the
//! file system. Operand values are unquoted the POSIX way (`shell-words`), `~`, `$HOME` and
//! `$PWD` expanded; a top-level `cd` moves later relative paths, as it moves the shell. A
//! folder operand (grep -r, rg) stands for the files of the output that lie under it.

use std::path::PathBuf;

use super::syntax::{Command, Statement, Word};
use super::track::Shell;
use crate::env::ClientEnv;

/// `bat`'s (and Debian's `batcat`'s) options that take a value.
const BAT_VALUED: &[&str] = &[
    "-l",
    "--language",
    "-r",
    "--line-range",
    "--style",
    "--theme",
];
/// `egrep`'s and `fgrep`'s options that take a value.
const EGREP_VALUED: &[&str] = &["-e", "-f", "-A", "-B", "-C", "-m", "--max-count"];

/// Commands that read their file operands, with the options that take a value.
const READERS: &[(&str, &[&str])] = &[
    ("cat", &[]),
    ("tac", &[]),
    ("nl", &["-b", "-s", "-w", "-v", "-i"]),
    ("bat", BAT_VALUED),
    ("batcat", BAT_VALUED),
    ("less", &["-p", "-x", "-y", "-z"]),
    ("more", &[]),
    ("most", &[]),
    ("view", &[]),
    ("head", &["-n", "-c", "--lines", "--bytes"]),
    ("tail", &["-n", "-c", "--lines", "--bytes", "-s", "--pid"]),
    ("sed", &["-e", "-f", "--expression", "--file", "-l"]),
    ("awk", &["-F", "-v", "-f"]),
    ("gawk", &["-F", "-v", "-f"]),
    ("mawk", &["-F", "-v", "-f"]),
    (
        "grep",
        &[
            "-e",
            "-f",
            "-A",
            "-B",
            "-C",
            "-m",
            "--max-count",
            "--include",
            "--exclude",
            "--exclude-dir",
        ],
    ),
    ("egrep", EGREP_VALUED),
    ("fgrep", EGREP_VALUED),
    (
        "rg",
        &[
            "-e",
            "-f",
            "-A",
            "-B",
            "-C",
            "-m",
            "-g",
            "--glob",
            "-t",
            "--type",
            "-T",
            "--type-not",
            "--max-count",
            "-M",
            "--max-columns",
            "-j",
            "--threads",
        ],
    ),
    ("wc", &[]),
    (
        "sort",
        &["-k", "-t", "-o", "-S", "--key", "--field-separator"],
    ),
    ("uniq", &["-f", "-s", "-w"]),
    ("cut", &["-d", "-f", "-c", "-b", "--delimiter", "--fields"]),
    ("diff", &[]),
    (
        "jq",
        &["--arg", "--argjson", "--slurpfile", "--rawfile", "--indent"],
    ),
    ("column", &["-s", "-t", "-c"]),
    ("strings", &["-n"]),
    ("xxd", &["-l", "-s", "-c"]),
    ("od", &["-N", "-j", "-t", "-A"]),
];

/// Commands whose first operand is a program or pattern, not a file (unless `-e`/`-f` gives it).
const FIRST_IS_PROGRAM: &[&str] = &[
    "sed", "awk", "gawk", "mawk", "grep", "egrep", "fgrep", "rg", "jq",
];

/// Whether the text alone says the command may read a file (no file system access).
pub fn may_read(command: &str) -> bool {
    let Some(statements) = super::statements(command) else {
        return false;
    };
    let mut any = false;
    visit(&statements, &mut |cmd| {
        if let Command::Simple {
            words, redirects, ..
        } = cmd
        {
            let name = words.first().map(plain);
            any |= name.is_some_and(|n| READERS.iter().any(|(r, _)| *r == n))
                || redirects
                    .iter()
                    .any(|r| r.op.ends_with('<') && r.target.is_some());
        }
    });
    any
}

fn visit(statements: &[Statement], f: &mut dyn FnMut(&Command)) {
    for st in statements {
        for cmd in &st.pipeline {
            f(cmd);
            if let Command::Subshell(body) | Command::Group(body) = cmd {
                visit(body, f);
            }
        }
    }
}

/// The files `command` reads, as absolute paths in command order, starting from `shell` (a
/// top-level `cd` moves later paths). `output` is the command's stdout, for folder operands.
pub fn reads(env: &ClientEnv, shell: &Shell, command: &str, output: Option<&str>) -> Vec<PathBuf> {
    let Some(statements) = super::statements(command) else {
        return Vec::new();
    };
    let mut shell = shell.clone();
    let mut out: Vec<PathBuf> = Vec::new();
    for st in &statements {
        let mut found = Vec::new();
        collect(env, &shell, std::slice::from_ref(st), output, &mut found);
        for p in found {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        shell.run(env, &st.text);
    }
    out
}

fn collect(
    env: &ClientEnv,
    shell: &Shell,
    sts: &[Statement],
    output: Option<&str>,
    out: &mut Vec<PathBuf>,
) {
    for st in sts {
        for cmd in &st.pipeline {
            match cmd {
                Command::Simple {
                    words, redirects, ..
                } => {
                    for r in redirects.iter().filter(|r| r.op.ends_with('<')) {
                        if let Some(t) = &r.target {
                            push_file(env, shell, &value(env, shell, t), out);
                        }
                    }
                    operands(env, shell, words, output, out);
                }
                Command::Subshell(body) | Command::Group(body) => {
                    collect(env, shell, body, output, out);
                }
                Command::Opaque => {}
            }
        }
    }
}

/// The file operands of one reader command.
fn operands(
    env: &ClientEnv,
    shell: &Shell,
    words: &[Word],
    output: Option<&str>,
    out: &mut Vec<PathBuf>,
) {
    let Some(name) = words.first().map(plain) else {
        return;
    };
    let Some((_, takes_value)) = READERS.iter().find(|(r, _)| *r == name) else {
        return;
    };
    let values: Vec<String> = words[1..].iter().map(|w| value(env, shell, w)).collect();
    let mut program_given = false;
    let mut operands = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while i < values.len() {
        let v = &values[i];
        if !options_done && v == "--" {
            options_done = true;
        } else if !options_done && v.starts_with('-') && v.len() > 1 {
            if matches!(v.as_str(), "-e" | "-f" | "--expression" | "--file") {
                program_given = true;
            }
            if takes_value.contains(&v.as_str()) {
                i += 1;
            }
        } else {
            operands.push(v.clone());
        }
        i += 1;
    }
    if FIRST_IS_PROGRAM.contains(&name.as_str()) && !program_given && !operands.is_empty() {
        operands.remove(0);
    }
    for op in operands {
        let path = shell.resolve(env, &op);
        if path.is_dir() {
            if let Some(output) = output {
                out.extend(files_in_output(&path, output, shell, env));
            }
        } else {
            push_file(env, shell, &op, out);
        }
    }
}

fn push_file(env: &ClientEnv, shell: &Shell, op: &str, out: &mut Vec<PathBuf>) {
    let path = shell.resolve(env, op);
    if path.is_file() && !out.contains(&path) {
        out.push(path);
    }
}

/// How many files one search over a folder attaches for at most: ccmem's own bound (the client
/// attaches nothing for such a search), so that a grep over a large tree stays one hook answer.
const MAX_FILES_FROM_OUTPUT: usize = 50;

/// Files named at the start of output lines (`PATH:…`) that lie under `dir`.
fn files_in_output(
    dir: &std::path::Path,
    output: &str,
    shell: &Shell,
    env: &ClientEnv,
) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for line in output.lines() {
        let Some((name, _)) = line.split_once(':') else {
            continue;
        };
        let path = shell.resolve(env, name);
        if path.starts_with(dir) && path.is_file() && !out.contains(&path) {
            out.push(path);
        }
        if out.len() >= MAX_FILES_FROM_OUTPUT {
            break;
        }
    }
    out
}

/// A word's command name, unquoted.
fn plain(w: &Word) -> String {
    let raw: String = w.parts.iter().map(raw_text).collect();
    shell_words::split(&raw)
        .ok()
        .and_then(|v| v.into_iter().next())
        .unwrap_or(raw)
}

/// A word's value the POSIX way, with `~`, `$HOME` and `$PWD` expanded.
fn value(env: &ClientEnv, shell: &Shell, w: &Word) -> String {
    let raw: String = w.parts.iter().map(raw_text).collect();
    let home = env.home.to_string_lossy();
    let pwd = shell.cwd.to_string_lossy();
    let expanded = raw
        .replace("${HOME}", &home)
        .replace("$HOME", &home)
        .replace("${PWD}", &pwd)
        .replace("$PWD", &pwd);
    shell_words::split(&expanded)
        .ok()
        .map(|v| v.join(" "))
        .unwrap_or(expanded)
}

fn raw_text(p: &super::syntax::Part) -> &str {
    use super::syntax::Part;
    match p {
        Part::Bare(t)
        | Part::Double(t)
        | Part::Single(t)
        | Part::Expansion(t)
        | Part::Substitution(t) => t,
    }
}
