//! The JSON a hook prints on stdout, as Claude Code 2.1.332 validates it: `systemMessage` is shown
//! to the operator; `hookSpecificOutput.additionalContext` (with the matching `hookEventName`)
//! reaches the model. Nothing else is ever printed on a hook's stdout: no colour, no prose.

use serde::Serialize;

/// The hook event an output answers (the client drops `hookSpecificOutput` whose
/// `hookEventName` differs from the event that ran).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub(crate) enum Event {
    /// At session start.
    SessionStart,
    /// After a tool ran.
    PostToolUse,
}

/// A hook's stdout JSON.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HookOutput {
    /// A message for the operator (shown in the terminal, never sent to the model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Event-specific output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<Specific>,
}

/// `hookSpecificOutput` for SessionStart and PostToolUse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Specific {
    /// Must equal the running event.
    pub hook_event_name: Event,
    /// Text added to the model's context.
    pub additional_context: String,
}

impl HookOutput {
    /// An output with an operator message and, optionally, context for the model.
    pub(crate) fn new(event: Event, message: Option<String>, context: Option<String>) -> Self {
        HookOutput {
            system_message: message,
            hook_specific_output: context.map(|additional_context| Specific {
                hook_event_name: event,
                additional_context,
            }),
        }
    }

    /// True when there is nothing to print.
    pub(crate) fn is_empty(&self) -> bool {
        self.system_message.is_none() && self.hook_specific_output.is_none()
    }

    /// The single line of JSON printed on stdout (with its newline), or `None` when empty:
    /// an empty output prints nothing at all.
    pub(crate) fn to_line(&self) -> Option<String> {
        if self.is_empty() {
            return None;
        }
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        Some(line)
    }
}

/// Truncates `text` to at most `max_chars` characters, on a character boundary.
pub(crate) fn clip(text: &str, max_chars: usize) -> (&str, bool) {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => (&text[..at], true),
        None => (text, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_the_client_field_names() {
        let out = HookOutput::new(Event::PostToolUse, Some("m".into()), Some("c".into()));
        assert_eq!(
            out.to_line().unwrap(),
            "{\"systemMessage\":\"m\",\"hookSpecificOutput\":{\"hookEventName\":\"PostToolUse\",\"additionalContext\":\"c\"}}\n"
        );
        let only = HookOutput::new(Event::SessionStart, Some("m".into()), None);
        assert_eq!(only.to_line().unwrap(), "{\"systemMessage\":\"m\"}\n");
        assert!(
            HookOutput::new(Event::SessionStart, None, None)
                .to_line()
                .is_none()
        );
    }

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("héllo", 2), ("hé", true));
        assert_eq!(clip("hé", 5), ("hé", false));
    }
}
