//! A Bash command line as the client's parser sees it (a private rewrite of tree-sitter-bash,
//! chunk-t0f9hc33, whose node types it keeps): statements and pipelines, simple commands and
//! their words split into the parts that decide their value, grouping (`( )`, `{ }`, `if`,
//! `while`, `until`, `for`), redirections and comments.
//!
//! Only what the client's read tracking (`nb`, `mP`) and ccmem's own read detection need is
//! modeled (arithmetic `(( … ))` is kept as [`Command::Opaque`]). The parser recovers where the
//! client's does (an unterminated quote runs to the end of the line; a trailing `&&` is
//! dropped); a line it cannot read otherwise (an unbalanced parenthesis, a lone trailing
//! backslash) is an [`Err`], and nothing is tracked for it. `fuzz/vectors-bash/commands.json`, generated
//! from the client's own code, pins the agreement.

mod word;

use word::{is_assignment, skip_balanced};

/// One part of a word, typed as the client's parser types it (`word`, `string`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Unquoted text, backslashes kept (`word`).
    Bare(String),
    /// `"…"`, quotes kept (`string`).
    Double(String),
    /// `'…'`, quotes kept (`raw_string`).
    Single(String),
    /// `$name`, `${…}`, `$((…))`, `$'…'`, `$"…"`: text kept.
    Expansion(String),
    /// `$(…)`, `` `…` ``, `<(…)`, `>(…)`.
    Substitution(String),
}

/// A word: one part, or several written together (`concatenation`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    /// Its parts, in order.
    pub parts: Vec<Part>,
}

/// A redirection (`<`, `>`, `>>`, `2>`, `&>`, `<<`, `<<<`, `>&` …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    /// The operator, with its file descriptor if written.
    pub op: String,
    /// Its target (`None` for a heredoc body or a missing target).
    pub target: Option<Word>,
}

/// A command of a pipeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `NAME=value … word…` with redirections.
    Simple {
        /// `NAME=value` words before the command name.
        assignments: Vec<Word>,
        /// The command name and its arguments.
        words: Vec<Word>,
        /// Redirections anywhere in the command.
        redirects: Vec<Redirect>,
    },
    /// `( … )`: runs in a subshell (a `cd` inside does not persist).
    Subshell(Vec<Statement>),
    /// `{ …; }`, `if`, `while`, `until`, `for`, `!`: the statements inside, in order.
    Group(Vec<Statement>),
    /// `(( … ))`: holds no command.
    Opaque,
}

/// A pipeline joined to the next statement by `;`, `&`, `&&`, `||` or a newline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    /// The commands joined by `|` / `|&`.
    pub pipeline: Vec<Command>,
    /// Its text, from its first to its last character (a node's `text`).
    pub text: String,
}

/// Why a line did not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unparsed;

/// Parses a command line into its top-level statements.
pub fn parse(line: &str) -> Result<Vec<Statement>, Unparsed> {
    let mut p = Parser {
        s: line,
        i: 0,
        heredocs: Vec::new(),
    };
    let list = p.list(&[])?;
    if p.i < p.s.len() {
        return Err(Unparsed);
    }
    Ok(list)
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
    /// Heredoc delimiters whose bodies start at the next newline.
    heredocs: Vec<String>,
}

/// Characters that end an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'
    )
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.i..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// Skips blanks, line continuations and comments (not newlines).
    fn blanks(&mut self) {
        loop {
            let r = self.rest();
            if r.starts_with([' ', '\t']) {
                self.i += 1;
            } else if r.starts_with("\\\n") {
                self.i += 2;
            } else if r.starts_with('#') {
                self.i += r.find('\n').unwrap_or(r.len());
            } else {
                return;
            }
        }
    }

    /// A newline: consumes the bodies of pending heredocs.
    fn newline(&mut self) -> Result<(), Unparsed> {
        self.i += 1;
        for delim in std::mem::take(&mut self.heredocs) {
            loop {
                let r = self.rest();
                if r.is_empty() {
                    return Ok(());
                }
                let end = r.find('\n').unwrap_or(r.len());
                let done = r[..end].trim_start_matches('\t') == delim;
                self.i += (end + 1).min(r.len());
                if done {
                    break;
                }
            }
        }
        Ok(())
    }

    /// The reserved word at the cursor (only in command position), if any.
    fn keyword(&self) -> Option<&'static str> {
        const WORDS: [&str; 16] = [
            "if", "then", "elif", "else", "fi", "for", "in", "do", "done", "while", "until",
            "case", "esac", "function", "{", "}",
        ];
        let r = self.rest();
        let end = r.find(is_meta).unwrap_or(r.len());
        WORDS.iter().copied().find(|w| &r[..end] == *w)
    }

    /// Statements until one of `stops` (a reserved word or `)`) or the end. `&&` and `||`
    /// separate statements as `;` does: the client's splitter (`nb`) flattens `list` nodes.
    fn list(&mut self, stops: &[&str]) -> Result<Vec<Statement>, Unparsed> {
        let mut out = Vec::new();
        let mut need = false;
        loop {
            self.blanks();
            let r = self.rest();
            if r.is_empty() {
                // A trailing `&&` / `||` is forgiven, as the client's parser recovers.
                return Ok(out);
            }
            if r.starts_with('\n') {
                self.newline()?;
                continue;
            }
            if r.starts_with("&&") || r.starts_with("||") {
                if out.is_empty() || need {
                    return Err(Unparsed);
                }
                self.i += 2;
                need = true;
                continue;
            }
            if r.starts_with(";;") {
                if stops.contains(&";;") {
                    return if need { Err(Unparsed) } else { Ok(out) };
                }
                if out.is_empty() || need {
                    return Err(Unparsed);
                }
                self.i += 2;
                continue;
            }
            if r.starts_with(';') || r.starts_with('&') {
                if out.is_empty() || need {
                    return Err(Unparsed);
                }
                self.i += 1;
                continue;
            }
            if r.starts_with(')') {
                return if stops.contains(&")") && !need {
                    Ok(out)
                } else {
                    Err(Unparsed)
                };
            }
            if let Some(k) = self.keyword()
                && stops.contains(&k)
            {
                return if need { Err(Unparsed) } else { Ok(out) };
            }
            out.push(self.pipeline()?);
            need = false;
        }
    }

    /// Commands joined by `|` or `|&`.
    fn pipeline(&mut self) -> Result<Statement, Unparsed> {
        let start = self.i;
        let mut cmds = vec![self.command()?];
        let mut end = self.i;
        loop {
            self.blanks();
            let r = self.rest();
            if r.starts_with('|') && !r.starts_with("||") {
                self.i += if r.starts_with("|&") { 2 } else { 1 };
                loop {
                    self.blanks();
                    if self.rest().starts_with('\n') {
                        self.newline()?;
                    } else {
                        break;
                    }
                }
                cmds.push(self.command()?);
                end = self.i;
                continue;
            }
            break;
        }
        Ok(Statement {
            pipeline: cmds,
            text: self.s[start..end].trim_end().to_owned(),
        })
    }

    /// One command: a group, a compound, or a simple command.
    fn command(&mut self) -> Result<Command, Unparsed> {
        self.blanks();
        let r = self.rest();
        if r.starts_with('(') {
            if r.starts_with("((") {
                self.i += skip_balanced(r, '(', ')').ok_or(Unparsed)?;
                return Ok(Command::Opaque);
            }
            self.i += 1;
            let body = self.list(&[")"])?;
            if !self.rest().starts_with(')') {
                return Err(Unparsed);
            }
            self.i += 1;
            self.trailing_redirects()?;
            return Ok(Command::Subshell(body));
        }
        if r.starts_with('!') && r[1..].starts_with([' ', '\t']) {
            self.i += 1;
            let inner = self.command()?;
            return Ok(Command::Group(vec![Statement {
                pipeline: vec![inner],
                text: String::new(),
            }]));
        }
        match self.keyword() {
            Some("{") => self.block("{", &["}"], "}"),
            Some("if") => self.block("if", &["then", "elif", "else", "fi"], "fi"),
            Some("while") => self.block("while", &["do", "done"], "done"),
            Some("until") => self.block("until", &["do", "done"], "done"),
            Some("for") => self.for_loop(),
            Some("case") => self.case(),
            Some("function") => self.function(),
            Some(_) => Err(Unparsed),
            None => self.simple(),
        }
    }

    /// A compound command opened by `open`, whose lists are separated by `seps` and which ends
    /// at `end`.
    fn block(&mut self, open: &str, seps: &[&str], end: &str) -> Result<Command, Unparsed> {
        self.i += open.len();
        let mut body = Vec::new();
        loop {
            body.extend(self.list(seps)?);
            let Some(k) = self.keyword() else {
                return Err(Unparsed);
            };
            self.i += k.len();
            if k == end {
                break;
            }
        }
        self.trailing_redirects()?;
        Ok(Command::Group(body))
    }

    /// `for NAME [in WORDS]; do LIST; done` (the header holds no command).
    fn for_loop(&mut self) -> Result<Command, Unparsed> {
        self.i += 3;
        loop {
            self.blanks();
            let r = self.rest();
            if r.is_empty() {
                return Err(Unparsed);
            }
            if self.keyword() == Some("do") {
                break;
            }
            if r.starts_with(['\n', ';']) {
                self.i += 1;
                continue;
            }
            self.word()?.ok_or(Unparsed)?;
        }
        self.block("do", &["done"], "done")
    }

    /// `case WORD in PATTERN) LIST ;; … esac`: the lists of its items, in order.
    fn case(&mut self) -> Result<Command, Unparsed> {
        self.i += "case".len();
        self.blanks();
        self.word()?.ok_or(Unparsed)?;
        self.blanks();
        if self.keyword() != Some("in") {
            return Err(Unparsed);
        }
        self.i += 2;
        let mut body = Vec::new();
        loop {
            self.blanks();
            let r = self.rest();
            if r.is_empty() {
                return Err(Unparsed);
            }
            if r.starts_with('\n') {
                self.newline()?;
                continue;
            }
            if self.keyword() == Some("esac") {
                self.i += 4;
                break;
            }
            if r.starts_with('(') {
                self.i += 1;
            }
            loop {
                self.blanks();
                self.word()?.ok_or(Unparsed)?;
                self.blanks();
                match self.peek() {
                    Some('|') => self.i += 1,
                    Some(')') => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(Unparsed),
                }
            }
            body.extend(self.list(&[";;", "esac"])?);
            let r = self.rest();
            if r.starts_with(";;&") {
                self.i += 3;
            } else if r.starts_with(";;") || r.starts_with(";&") {
                self.i += 2;
            }
        }
        self.trailing_redirects()?;
        Ok(Command::Group(body))
    }

    /// `function NAME [()] COMMAND`: its body.
    fn function(&mut self) -> Result<Command, Unparsed> {
        self.i += "function".len();
        self.blanks();
        self.word()?.ok_or(Unparsed)?;
        self.blanks();
        if self.rest().starts_with("()") {
            self.i += 2;
        }
        self.function_body()
    }

    /// The command after `NAME()` or `function NAME`.
    fn function_body(&mut self) -> Result<Command, Unparsed> {
        self.blanks();
        while self.rest().starts_with('\n') {
            self.newline()?;
            self.blanks();
        }
        let body = self.command()?;
        Ok(Command::Group(vec![Statement {
            pipeline: vec![body],
            text: String::new(),
        }]))
    }

    fn trailing_redirects(&mut self) -> Result<(), Unparsed> {
        loop {
            self.blanks();
            if self.redirect()?.is_none() {
                return Ok(());
            }
        }
    }

    /// A simple command (or a function definition `name() …`).
    fn simple(&mut self) -> Result<Command, Unparsed> {
        let mut assignments = Vec::new();
        let mut words: Vec<Word> = Vec::new();
        let mut redirects = Vec::new();
        loop {
            self.blanks();
            if let Some(r) = self.redirect()? {
                redirects.push(r);
                continue;
            }
            let r = self.rest();
            if r.starts_with("()") && words.len() == 1 && assignments.is_empty() {
                self.i += 2;
                return self.function_body();
            }
            let at = self.i;
            let Some(w) = self.word()? else { break };
            if words.is_empty() && is_assignment(&self.s[at..self.i]) {
                assignments.push(w);
            } else {
                words.push(w);
            }
        }
        if words.is_empty() && assignments.is_empty() && redirects.is_empty() {
            return Err(Unparsed);
        }
        Ok(Command::Simple {
            assignments,
            words,
            redirects,
        })
    }

    /// A redirection at the cursor, if any.
    fn redirect(&mut self) -> Result<Option<Redirect>, Unparsed> {
        let r = self.rest();
        let fd = r.bytes().take_while(u8::is_ascii_digit).count();
        let ops = [
            "<<<", "<<-", "<<", "&>>", "&>", ">>", ">&", "<&", ">|", "<>", ">", "<",
        ];
        let after = &r[fd..];
        let Some(op) = ops.iter().find(|o| after.starts_with(**o)) else {
            return Ok(None);
        };
        if fd > 0 && op.starts_with('&') {
            return Ok(None);
        }
        let op_text = r[..fd + op.len()].to_owned();
        self.i += fd + op.len();
        self.blanks();
        let at = self.i;
        let target = self.word()?;
        if op.starts_with("<<") && *op != "<<<" {
            let delim = self.s[at..self.i]
                .trim_matches(|c| c == '\'' || c == '"')
                .replace('\\', "");
            self.heredocs.push(delim);
            return Ok(Some(Redirect {
                op: op_text,
                target: None,
            }));
        }
        if target.is_none() {
            return Err(Unparsed);
        }
        Ok(Some(Redirect {
            op: op_text,
            target,
        }))
    }
}

#[cfg(test)]
mod tests;
