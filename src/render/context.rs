//! `ccmem context --json`: `{schema: "ccmem.context/1", text}`, `text` being exactly what the
//! command prints without `--json` (the client's own reminder, `load::reminder`).

use serde::Serialize;

#[derive(Serialize)]
struct Context<'a> {
    text: &'a str,
}

/// The reminder text as JSON.
pub fn json(text: &str) -> String {
    super::json::document("ccmem.context/1", &Context { text })
}
