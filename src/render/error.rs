//! The document `--json` prints on stdout when a command fails (`ccmem.error/1`): its message,
//! the causes below it, and the exit code.

use serde::Serialize;

/// The schema of the document.
pub const SCHEMA: &str = "ccmem.error/1";

#[derive(Serialize)]
struct Error<'a> {
    error: &'a str,
    causes: &'a [String],
    exit_code: u8,
}

/// A failed command's message and causes, as JSON (exit 2).
pub fn json(message: &str, causes: &[String]) -> String {
    let doc = Error {
        error: message,
        causes,
        exit_code: 2,
    };
    super::json::document(SCHEMA, &doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_document_has_the_error_schema_first() {
        let v: serde_json::Value =
            serde_json::from_str(&json("boom", &["cause".to_owned()])).unwrap();
        assert_eq!(
            v.to_string(),
            r#"{"schema":"ccmem.error/1","error":"boom","causes":["cause"],"exit_code":2}"#
        );
    }
}
