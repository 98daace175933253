//! The read forms the client recognises in one argv (chunk-bqhgd24a: `M8i` sed, `D8i`
//! cat/nl/bat, `L8i` head, `N8i` tail, `W8i` grep/rg, with `GQo` for line counts), the slice of
//! the file each one shows (`G8i`) and the check that the output holds it (`z8i`).

use serde::Serialize;

use crate::constants::BASH_DEFAULT_LINES;

/// A read the client recognises.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClientRead {
    /// The file operand, as written (resolved later against the shell's directory).
    pub file: String,
    /// What part of the file it shows.
    pub lines: Lines,
    /// `cat -n`, `nl`, `bat -n`: the output carries line numbers.
    pub numbered: bool,
    /// grep/rg: tracked only when the command exits 0, and its output is not compared.
    pub grep: bool,
    /// For grep/rg: the whole argv (to predict the exit code).
    pub argv: Vec<String>,
}

/// The part of the file a read shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "kebab-case")]
pub enum Lines {
    /// The whole file.
    All,
    /// Lines `start..=end` (1-based).
    Range {
        /// First line.
        start: usize,
        /// Last line.
        end: usize,
    },
    /// The last `n` lines.
    Tail {
        /// How many.
        n: usize,
    },
}

fn read(file: &str, lines: Lines) -> ClientRead {
    ClientRead {
        file: file.to_owned(),
        lines,
        numbered: false,
        grep: false,
        argv: Vec::new(),
    }
}

fn digits(s: &str) -> Option<usize> {
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .then(|| s.parse().unwrap_or(usize::MAX))
}

/// `M8i`: `sed` with `-n`/`--quiet`/`--silent`, a script `A,Bp` or `Np`, and one file; `-i`,
/// `-e`, `--expression`, `--in-place` refuse (a short option holding `i` too).
pub fn sed(argv: &[String]) -> Option<ClientRead> {
    if argv.first().map(String::as_str) != Some("sed") {
        return None;
    }
    let (mut quiet, mut script, mut file) = (false, None, None);
    for a in &argv[1..] {
        if let Some(long) = a.strip_prefix("--") {
            if long == "in-place" || long.starts_with("in-place=") || long == "expression" {
                return None;
            }
            quiet |= long == "quiet" || long == "silent";
            continue;
        }
        if a.starts_with('-') {
            if a.contains('i') || a == "-e" {
                return None;
            }
            quiet |= a.contains('n');
            continue;
        }
        if script.is_none() {
            script = Some(a.as_str());
        } else if file.is_none() {
            file = Some(a.as_str());
        } else {
            return None;
        }
    }
    let (script, file) = (script?, file?);
    if !quiet {
        return None;
    }
    let body = script.strip_suffix('p')?;
    let (start, end) = match body.split_once(',') {
        Some((a, b)) => (digits(a)?, digits(b)?),
        None => {
            let n = digits(body)?;
            (n, n)
        }
    };
    Some(read(file, Lines::Range { start, end }))
}

/// `D8i`: `cat` (`-n`, `--number`), `nl`, `bat`/`batcat` (`-n`, `--number`, `-p`, `--plain`)
/// with exactly one file that is not `-`; any other option refuses.
pub fn cat(argv: &[String]) -> Option<ClientRead> {
    let allowed: &[&str] = match argv.first()?.as_str() {
        "cat" => &["-n", "--number"],
        "nl" => &[],
        "bat" | "batcat" => &["-n", "--number", "-p", "--plain"],
        _ => return None,
    };
    let mut file = None;
    for a in &argv[1..] {
        if a.starts_with('-') && a != "-" {
            if !allowed.contains(&a.as_str()) {
                return None;
            }
            continue;
        }
        if file.is_some() {
            return None;
        }
        file = Some(a.as_str());
    }
    let file = file.filter(|f| *f != "-")?;
    let numbered = argv[0] == "nl" || argv.iter().any(|a| a == "-n" || a == "--number");
    Some(ClientRead {
        numbered,
        ..read(file, Lines::All)
    })
}

/// `GQo`: the line count (`-n N`, `--lines N`, `--lines=N`, `-nN`, `-N`; default 10, 0 refuses)
/// and the one file operand; any other option refuses.
fn count_and_file(argv: &[String]) -> Option<(usize, &str)> {
    let (mut count, mut file) = (None, None);
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a == "-n" || a == "--lines" {
            i += 1;
            count = Some(digits(argv.get(i)?)?);
        } else if let Some(v) = a.strip_prefix("--lines=") {
            count = Some(digits(v)?);
        } else if let Some(n) = a.strip_prefix("-n").and_then(digits) {
            count = Some(n);
        } else if let Some(n) = a.strip_prefix('-').and_then(digits) {
            count = Some(n);
        } else if a.starts_with('-') || file.is_some() {
            return None;
        } else {
            file = Some(a);
        }
        i += 1;
    }
    let file = file.filter(|f| *f != "-")?;
    if count == Some(0) {
        return None;
    }
    Some((count.unwrap_or(BASH_DEFAULT_LINES), file))
}

/// `L8i`: `head`.
pub fn head(argv: &[String]) -> Option<ClientRead> {
    if argv.first()? != "head" {
        return None;
    }
    let (n, file) = count_and_file(argv)?;
    Some(read(file, Lines::Range { start: 1, end: n }))
}

/// `N8i`: `tail`.
pub fn tail(argv: &[String]) -> Option<ClientRead> {
    if argv.first()? != "tail" {
        return None;
    }
    let (n, file) = count_and_file(argv)?;
    Some(read(file, Lines::Tail { n }))
}

/// `W8i`: `grep`/`egrep`/`fgrep`/`rg PATTERN FILE` with whitelisted flags; FILE not `-` and
/// without `*?[{`.
pub fn grep(argv: &[String]) -> Option<ClientRead> {
    let rg = argv.first()? == "rg";
    if !rg && !matches!(argv[0].as_str(), "grep" | "egrep" | "fgrep") {
        return None;
    }
    let short: &[u8] = if rg { b"iSswxFnNHUP" } else { b"niwxEFGPHh" };
    let long: &[&str] = if rg {
        &[
            "--ignore-case",
            "--smart-case",
            "--case-sensitive",
            "--word-regexp",
            "--line-regexp",
            "--fixed-strings",
            "--line-number",
            "--no-line-number",
            "--with-filename",
            "--no-filename",
            "--multiline",
            "--pcre2",
        ]
    } else {
        &[
            "--line-number",
            "--ignore-case",
            "--word-regexp",
            "--line-regexp",
            "--extended-regexp",
            "--fixed-strings",
            "--basic-regexp",
            "--perl-regexp",
            "--with-filename",
            "--no-filename",
            "--color=never",
            "--color=auto",
        ]
    };
    let (mut pattern, mut file) = (None, None);
    let mut i = 1;
    while i < argv.len() {
        let a = argv[i].as_str();
        if a.starts_with('-') && a != "-" {
            let context_long = ["--after-context", "--before-context", "--context"];
            if matches!(a, "-A" | "-B" | "-C") || rg && context_long.contains(&a) {
                i += 1;
                digits(argv.get(i)?)?;
            } else if !(is_context_short(a)
                || is_context_long(a)
                || a.len() > 1 && a[1..].bytes().all(|b| short.contains(&b))
                || long.contains(&a))
            {
                return None;
            }
        } else if pattern.is_none() {
            pattern = Some(a);
        } else if file.is_none() {
            file = Some(a);
        } else {
            return None;
        }
        i += 1;
    }
    pattern?;
    let file = file.filter(|f| *f != "-" && !f.contains(['*', '?', '[', '{']))?;
    Some(ClientRead {
        grep: true,
        argv: argv.to_vec(),
        ..read(file, Lines::All)
    })
}

/// `F8i`: `-A3`, `-B10`, `-C2`.
fn is_context_short(a: &str) -> bool {
    a.len() > 2 && matches!(&a[..2], "-A" | "-B" | "-C") && digits(&a[2..]).is_some()
}

/// `$8i`: `--after-context=N` and friends.
fn is_context_long(a: &str) -> bool {
    ["--after-context=", "--before-context=", "--context="]
        .iter()
        .any(|p| a.strip_prefix(p).and_then(digits).is_some())
}

/// `G8i`: the slice a read shows of `text` (CRLF already normalized), with its Read-style
/// offset and limit; `None` when the range starts past the end (or the file is empty for
/// `tail`).
pub fn select(text: &str, lines: Lines) -> Option<(String, Option<usize>, Option<usize>)> {
    match lines {
        Lines::All => Some((text.to_owned(), None, None)),
        Lines::Tail { n } => {
            let mut all: Vec<&str> = text.split('\n').collect();
            if all.last() == Some(&"") {
                all.pop();
            }
            if all.is_empty() {
                return None;
            }
            let k = n.min(all.len());
            let start = all.len() - k + 1;
            Some((all[start - 1..].join("\n"), Some(start), Some(k)))
        }
        Lines::Range { start, end } => {
            let all: Vec<&str> = text.split('\n').collect();
            let g = start.max(1);
            let h = end.max(g);
            if g > all.len() {
                return None;
            }
            let last = h.min(all.len());
            Some((all[g - 1..last].join("\n"), Some(g), Some(h - g + 1)))
        }
    }
}

/// `z8i`: the output holds the slice (leading blank lines dropped, trailing whitespace
/// trimmed), CRLF-normalized; a numbered read also matches with the numbers stripped (`q8i`).
pub fn output_holds(output: &str, slice: &str, numbered: bool) -> bool {
    let mut want = slice;
    loop {
        let ws = want.len() - want.trim_start_matches(crate::text::js::is_js_space).len();
        match want[..ws].rfind('\n') {
            Some(nl) if ws > 0 => want = &want[nl + 1..],
            _ => break,
        }
    }
    let want = crate::text::js::trim_end(want);
    let out = output.replace("\r\n", "\n");
    if out.contains(want) {
        return true;
    }
    numbered && {
        let stripped: Vec<&str> = out.split('\n').map(strip_number).collect();
        stripped.join("\n").contains(want)
    }
}

/// `q8i`: a line without its leading `N` + blank, a blank line as empty.
fn strip_number(line: &str) -> &str {
    let t = line.trim_start_matches([' ', '\t']);
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && t[digits..].starts_with([' ', '\t']) {
        return &t[digits + 1..];
    }
    if line.trim_matches([' ', '\t']).is_empty() {
        return "";
    }
    line
}
