//! JSON documents: every `--json` output is one document whose first key `schema` names its
//! JSON Schema (`ccmem.<command>/<n>`, a file for each in `docs/schemas/`), followed by the
//! fields of a `Serialize` view, in the order the view declares them.

use serde::Serialize;

/// `{"schema": schema, ...body}`: the schema first, then the body's own fields.
#[derive(Serialize)]
struct Document<'a, T> {
    schema: &'a str,
    #[serde(flatten)]
    body: &'a T,
}

/// The document, pretty-printed, with a trailing newline (what every command prints).
pub fn document<T: Serialize>(schema: &str, body: &T) -> String {
    let mut s = serde_json::to_string_pretty(&Document { schema, body }).expect("views serialize");
    s.push('\n');
    s
}

/// The document on one line, with a trailing newline (the status line's).
pub fn line<T: Serialize>(schema: &str, body: &T) -> String {
    let mut s = serde_json::to_string(&Document { schema, body }).expect("views serialize");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Serialize)]
    struct Body {
        b: u8,
        a: Option<&'static str>,
    }

    #[test]
    fn the_schema_comes_first_then_the_fields_in_their_order() {
        let body = Body { b: 1, a: None };
        assert_eq!(
            line("ccmem.x/1", &body),
            "{\"schema\":\"ccmem.x/1\",\"b\":1,\"a\":null}\n"
        );
        assert_eq!(
            document("ccmem.x/1", &body),
            "{\n  \"schema\": \"ccmem.x/1\",\n  \"b\": 1,\n  \"a\": null\n}\n"
        );
    }
}
