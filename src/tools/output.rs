//! Tool results and the bounded buffer tools write them into.

use serde_json::{Map, Value, json};

/// The result of one call, as returned to the agent.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    /// The text content.
    pub text: String,
    /// `isError` for the agent.
    pub is_error: bool,
    /// `structuredContent`, where the result has structure.
    pub structured: Option<Value>,
    /// True when the output was cut at a limit (the text says so too).
    pub truncated: bool,
    /// For a tool that keeps a shell (bash): the shell's working directory
    /// afterwards, where the agent's next command runs.
    pub shell_cwd: Option<String>,
    /// The tool stopped because the call was cancelled (the agent's
    /// cancellation, its disconnect or shutdown). A tool that went on to
    /// finish although a cancellation arrived (a write) leaves it false:
    /// the trail records what happened, not what was asked.
    pub cancelled: bool,
}

impl ToolOutput {
    /// A successful text result.
    pub fn ok(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: false,
            structured: None,
            truncated: false,
            shell_cwd: None,
            cancelled: false,
        }
    }

    /// An error result (`isError: true`).
    pub fn error(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            is_error: true,
            structured: None,
            truncated: false,
            shell_cwd: None,
            cancelled: false,
        }
    }

    /// A result saying the call was stopped by its cancellation.
    pub fn cancelled(text: impl Into<String>) -> Self {
        Self {
            cancelled: true,
            ..Self::error(text)
        }
    }

    /// Attach structured content.
    #[must_use]
    pub fn with_structured(mut self, value: Value) -> Self {
        self.structured = Some(value);
        self
    }

    /// Put a line (or lines) in front of the result, in both forms: the
    /// text starts with `note` and a newline, and the structured form's
    /// `notice` starts with it the same way.
    pub fn add_notice(&mut self, note: &str) {
        self.text = format!("{note}\n{}", self.text);
        if let Some(Value::Object(m)) = &mut self.structured {
            let notice = match m.get("notice").and_then(Value::as_str) {
                Some(old) => format!("{note}\n{old}"),
                None => note.to_string(),
            };
            m.insert("notice".into(), Value::String(notice));
        }
    }

    /// For a tool that declares an output schema: make sure the structured
    /// form is there. An error without its own structure carries its
    /// message as `{"error": text}` (the text content is the same message).
    pub fn ensure_structured(&mut self) {
        if self.structured.is_none() && self.is_error {
            self.structured = Some(json!({ "error": self.text }));
        }
    }
}

/// The structured form of a result that is only a message: an error
/// (`{"error": …}`) carries exactly its text content.
pub fn error_schema() -> Value {
    json!({
        "type": "object",
        "description": "The call failed or was not run (denied, refused, cancelled, timed out): \
            the message is the whole result, the same as the text content.",
        "properties": { "error": { "type": "string" } },
        "required": ["error"],
        "additionalProperties": false,
    })
}

/// An `outputSchema`: an object that is either `success` or an error
/// message (see [`error_schema`]).
pub fn with_error_alternative(mut success: Value) -> Map<String, Value> {
    // Every field a result may carry is declared: nothing drifts unseen.
    if let Value::Object(s) = &mut success {
        s.entry("additionalProperties").or_insert(json!(false));
    }
    let mut m = Map::new();
    m.insert("type".into(), json!("object"));
    m.insert("oneOf".into(), json!([success, error_schema()]));
    m
}

/// A text buffer that stops accepting text at a byte limit and remembers
/// that it did. Cuts happen on a UTF-8 character boundary.
#[derive(Debug, Clone)]
pub struct OutputBuf {
    text: String,
    limit: usize,
    truncated: bool,
}

impl OutputBuf {
    /// An empty buffer holding at most `limit` bytes.
    pub fn new(limit: usize) -> Self {
        Self {
            text: String::new(),
            limit,
            truncated: false,
        }
    }

    /// Append text; returns false once the limit is reached (the caller
    /// should stop producing).
    pub fn push(&mut self, s: &str) -> bool {
        if self.truncated {
            return false;
        }
        let room = self.limit.saturating_sub(self.text.len());
        if s.len() <= room {
            self.text.push_str(s);
            return true;
        }
        let mut cut = room;
        while cut > 0 && !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.text.push_str(&s[..cut]);
        self.truncated = true;
        false
    }

    /// Reserve room for `additional` more bytes (never past the limit).
    pub fn reserve(&mut self, additional: usize) {
        let room = self.limit.saturating_sub(self.text.len());
        self.text.reserve(additional.min(room));
    }

    /// Append a line followed by `\n`.
    pub fn line(&mut self, s: &str) -> bool {
        self.push(s) && self.push("\n")
    }

    /// Append `prefix`, then `s` as a line: what `push(prefix) && line(s)`
    /// does, in one step when the whole fits.
    pub fn line_after(&mut self, prefix: &str, s: &str) -> bool {
        let len = prefix.len() + s.len() + 1;
        if self.truncated || len > self.limit.saturating_sub(self.text.len()) {
            return self.push(prefix) && self.line(s);
        }
        self.text.push_str(prefix);
        self.text.push_str(s);
        self.text.push('\n');
        true
    }

    /// Whether the limit was hit.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Mark the buffer as cut for another reason (entry or read limit).
    pub fn mark_truncated(&mut self) {
        self.truncated = true;
    }

    /// The text so far.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Finish: when cut, a final line says so and how to get the rest.
    pub fn finish(self, note: &str) -> ToolOutput {
        let mut text = self.text;
        if self.truncated {
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("[truncated: ");
            text.push_str(note);
            text.push(']');
        }
        ToolOutput {
            text,
            is_error: false,
            structured: None,
            truncated: self.truncated,
            shell_cwd: None,
            cancelled: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_after_a_prefix_is_cut_as_the_pieces_would_be() {
        let lines = [
            ("     1\t", "héllo"),
            ("    12\t", ""),
            ("123456\t", "𝄞 end"),
        ];
        for limit in 0..40 {
            let (mut whole, mut pieces) = (OutputBuf::new(limit), OutputBuf::new(limit));
            for (prefix, s) in lines {
                let a = whole.line_after(prefix, s);
                let b = pieces.push(prefix) && pieces.line(s);
                assert_eq!(a, b, "limit {limit}");
            }
            assert_eq!(whole.as_str(), pieces.as_str(), "limit {limit}");
            assert_eq!(whole.is_truncated(), pieces.is_truncated(), "limit {limit}");
        }
    }

    #[test]
    fn cuts_on_char_boundary_and_marks() {
        let mut b = OutputBuf::new(5);
        assert!(b.push("ab"));
        assert!(!b.push("cdé€"));
        assert!(b.is_truncated());
        assert_eq!(b.as_str(), "abcd");
        let out = b.finish("output limit of 5 bytes reached");
        assert!(out.truncated);
        assert!(
            out.text
                .ends_with("[truncated: output limit of 5 bytes reached]")
        );
    }

    #[test]
    fn untruncated_has_no_marker() {
        let mut b = OutputBuf::new(100);
        assert!(b.line("hello"));
        let out = b.finish("x");
        assert_eq!(out.text, "hello\n");
        assert!(!out.truncated);
    }
}
