//! A one-field text editor for the prompt's edit and reason steps.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

/// Text being typed, with a cursor (in characters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextInput {
    chars: Vec<char>,
    cursor: usize,
}

impl TextInput {
    /// A field holding `text`, the cursor at its end.
    pub fn new(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        let cursor = chars.len();
        Self { chars, cursor }
    }

    /// The text.
    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    /// The cursor, in characters from the start.
    pub fn cursor(&self) -> usize {
        self.cursor
    }

    /// Insert text at the cursor (pasted text too; control characters
    /// other than newlines and tabs are dropped).
    pub fn insert(&mut self, text: &str) {
        for c in text
            .chars()
            .filter(|c| !c.is_control() || *c == '\n' || *c == '\t')
        {
            self.chars.insert(self.cursor, c);
            self.cursor += 1;
        }
    }

    /// Apply an editing key; false if the key is not an editing key.
    pub fn key(&mut self, key: KeyEvent) -> bool {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('a') if ctrl => self.cursor = 0,
            KeyCode::Char('e') if ctrl => self.cursor = self.chars.len(),
            KeyCode::Char('u') if ctrl => {
                self.chars.drain(..self.cursor);
                self.cursor = 0;
            }
            KeyCode::Char('k') if ctrl => self.chars.truncate(self.cursor),
            KeyCode::Char('w') if ctrl => self.delete_word(),
            KeyCode::Char(_) if ctrl => return false,
            KeyCode::Char(c) => self.insert(&c.to_string()),
            KeyCode::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
            }
            KeyCode::Delete if self.cursor < self.chars.len() => {
                self.chars.remove(self.cursor);
            }
            KeyCode::Left => self.cursor = self.cursor.saturating_sub(1),
            KeyCode::Right => self.cursor = (self.cursor + 1).min(self.chars.len()),
            KeyCode::Home => self.cursor = 0,
            KeyCode::End => self.cursor = self.chars.len(),
            KeyCode::Backspace | KeyCode::Delete => {}
            _ => return false,
        }
        true
    }

    fn delete_word(&mut self) {
        let mut start = self.cursor;
        while start > 0 && self.chars[start - 1].is_whitespace() {
            start -= 1;
        }
        while start > 0 && !self.chars[start - 1].is_whitespace() {
            start -= 1;
        }
        self.chars.drain(start..self.cursor);
        self.cursor = start;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn k(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn edits_at_the_cursor() {
        let mut t = TextInput::new("rm -rf build");
        t.key(KeyEvent::new(KeyCode::Char('w'), KeyModifiers::CONTROL));
        assert_eq!(t.text(), "rm -rf ");
        t.insert("build/tmp");
        t.key(k(KeyCode::Home));
        t.key(k(KeyCode::Delete));
        t.key(k(KeyCode::Char('R')));
        assert_eq!(t.text(), "Rm -rf build/tmp");
        t.key(k(KeyCode::End));
        t.key(k(KeyCode::Backspace));
        assert_eq!(t.text(), "Rm -rf build/tm");
        assert_eq!(t.cursor(), 15);
        t.insert("\u{1b}[31m");
        assert_eq!(
            t.text(),
            "Rm -rf build/tm[31m",
            "escape characters are dropped"
        );
    }
}
