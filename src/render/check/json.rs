//! The JSON document, `schema: "ccmem.check/1"` (docs/schemas/ccmem.check.1.schema.json;
//! fields are only ever added within a version):
//!
//! `client_version`, `root` (real path), `environment` (`clean` | `user`), `size_model`
//! {`context_tokens`, `chars_per_token`, `file_warn_chars`, `total_warn_chars`}, `walk`
//! {`files`, `directories`, `instruction_files`, `package_roots`, `start_directories`,
//! `start_directories_left_out`}, `directories[]` {`dir` (`.` for the root), `why[]`
//! (`root` | `instructions` | `package`), `marker`, `loaded[]` {`path`, `kind`, `chars`,
//! `tokens_estimate`}, `totals` {`files`, `chars`, `tokens_estimate`}, `lost[]` {`path`,
//! `chars`, `reason` (the loader's skip reason, `{type, …}`, or null), `reason_text`, `from`
//! ([importer, line] or null), `skipped_as`}}, `findings[]` {`rule`, `severity`, `path`
//! (relative to the root, or absolute), `line`, `column`, `message`, `fix`, `start_dirs[]`},
//! `summary` {`errors`, `warnings`, `suppressed`}. Paths are `/`-separated; sizes are UTF-16
//! units (what the client calls characters); tokens are an estimate (characters ÷ 4).

use std::io::{self, Write};

use serde_json::json;

use crate::env::CLIENT_VERSION;
use crate::render::findings::json::{Fixes, Item};
use crate::rules::repo::{Report, SCHEMA};

pub(super) fn render(out: &mut dyn Write, report: &Report) -> io::Result<()> {
    let directories: Vec<_> = report
        .sessions
        .iter()
        .map(|s| {
            let chars = s.chars();
            json!({
                "dir": s.shown(),
                "why": s.start.why,
                "marker": s.start.marker,
                "loaded": s.loaded,
                "totals": {
                    "files": s.loaded.len(),
                    "chars": chars,
                    "tokens_estimate": crate::receipt::tokens_estimate(chars),
                },
                "lost": s.lost,
            })
        })
        .collect();
    let size = &report.size;
    let fixes = Fixes::new()?;
    let findings: Vec<Item> = report
        .findings
        .iter()
        .map(|d| Item::of(d, "", &fixes))
        .collect();
    let doc = json!({
        "schema": SCHEMA,
        "client_version": CLIENT_VERSION,
        "root": report.repo.root.to_string_lossy(),
        "environment": report.environment,
        "size_model": {
            "context_tokens": size.context_tokens,
            "chars_per_token": size.chars_per_token,
            "file_warn_chars": size.file_limit(),
            "total_warn_chars": size.total_limit(),
        },
        "walk": report.walk,
        "directories": directories,
        "findings": findings,
        "summary": report.summary,
    });
    serde_json::to_writer_pretty(&mut *out, &doc)?;
    writeln!(out)
}
