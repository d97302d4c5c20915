//! The exit code of a command the agent ran itself, as the trail keeps it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A native command's exit code: the number the agent's post-tool payload
/// gives in a structured field, or `unknown` when it gives none. Never
/// read from the command's output, which the command itself can print
/// (`echo 'Exit code: 0'`). Serialized as the number or the word
/// `"unknown"`; trails written before this type hold plain numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExitCode {
    /// The agent reported this exit status in a field of its payload.
    Reported(i32),
    /// The agent's payload has no exit-status field.
    Unknown,
}

impl ExitCode {
    /// The word shown for it: the number, or `unknown`.
    pub fn describe(self) -> String {
        match self {
            Self::Reported(code) => code.to_string(),
            Self::Unknown => "unknown".into(),
        }
    }

    /// The code, when one was reported.
    pub fn code(self) -> Option<i32> {
        match self {
            Self::Reported(code) => Some(code),
            Self::Unknown => None,
        }
    }
}

/// The word an unknown exit code is written as.
const UNKNOWN: &str = "unknown";

impl Serialize for ExitCode {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Reported(code) => s.serialize_i32(*code),
            Self::Unknown => s.serialize_str(UNKNOWN),
        }
    }
}

impl<'de> Deserialize<'de> for ExitCode {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Code(i32),
            Word(String),
        }
        match Raw::deserialize(d)? {
            Raw::Code(code) => Ok(Self::Reported(code)),
            Raw::Word(w) if w == UNKNOWN => Ok(Self::Unknown),
            Raw::Word(w) => Err(serde::de::Error::custom(format!(
                "an exit code is a number or \"unknown\", not {w:?}"
            ))),
        }
    }
}

impl std::fmt::Display for ExitCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_as_a_number_or_unknown_and_read_back() {
        for (code, json) in [
            (ExitCode::Reported(0), serde_json::json!(0)),
            (ExitCode::Reported(-9), serde_json::json!(-9)),
            (ExitCode::Unknown, serde_json::json!("unknown")),
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), json);
            assert_eq!(serde_json::from_value::<ExitCode>(json).unwrap(), code);
        }
        // A trail written before: a plain number.
        let old: ExitCode = serde_json::from_str("3").unwrap();
        assert_eq!(old, ExitCode::Reported(3));
        assert!(serde_json::from_str::<ExitCode>("\"zero\"").is_err());
        assert_eq!(ExitCode::Unknown.code(), None);
        assert_eq!(ExitCode::Reported(2).describe(), "2");
    }
}
