//! What a command printed, bounded: the first and the last half of the
//! output cap are kept as raw bytes, whatever the command prints, and turned
//! into the text the agent sees at the end (terminal escapes stripped,
//! CR/LF normalised, a lone CR overwriting the line like a terminal does,
//! invalid UTF-8 replaced).

/// A bounded head + tail buffer of raw output bytes.
#[derive(Debug)]
pub struct Capture {
    max: usize,
    half: usize,
    head: Vec<u8>,
    tail: Vec<u8>,
    total: u64,
}

/// The captured output as text for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Captured {
    /// Normalised text; when cut, a marker line stands where bytes were left out.
    pub text: String,
    /// Whether anything was left out.
    pub truncated: bool,
    /// Raw bytes the command printed.
    pub total_bytes: u64,
}

impl Capture {
    /// Keep at most `max` bytes (half from the start, half from the end).
    pub fn new(max: usize) -> Self {
        let max = max.max(2);
        Self {
            max,
            half: max / 2,
            head: Vec::new(),
            tail: Vec::new(),
            total: 0,
        }
    }

    /// Add raw output. Memory stays below `max` plus one chunk.
    pub fn push(&mut self, bytes: &[u8]) {
        self.total += bytes.len() as u64;
        let room = self.half.saturating_sub(self.head.len());
        let (to_head, rest) = bytes.split_at(room.min(bytes.len()));
        self.head.extend_from_slice(to_head);
        if rest.is_empty() {
            return;
        }
        self.tail.extend_from_slice(rest);
        if self.tail.len() >= self.half * 2 {
            let cut = self.tail.len() - self.half;
            self.tail.drain(..cut);
        }
    }

    /// Raw bytes seen so far.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// Bytes held right now (for tests of the memory bound).
    pub fn held(&self) -> usize {
        self.head.capacity() + self.tail.capacity()
    }

    /// The text for the agent.
    pub fn finish(self) -> Captured {
        let tail_keep = self.tail.len().min(self.half);
        let kept = (self.head.len() + tail_keep) as u64;
        let omitted = self.total - kept;
        let (text, cut) = if omitted == 0 {
            let mut all = self.head;
            all.extend_from_slice(&self.tail);
            elide(normalize(&all), self.max)
        } else {
            let tail = &self.tail[self.tail.len() - tail_keep..];
            let (head, a) = keep_head(normalize(&self.head), self.half);
            let (tail, b) = keep_tail(normalize(skip_continuation(tail)), self.half);
            let mut text = head;
            if !text.is_empty() && !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str(&marker(omitted + (a + b) as u64, self.max));
            text.push_str(&tail);
            (text, 0)
        };
        Captured {
            text,
            truncated: omitted > 0 || cut > 0,
            total_bytes: self.total,
        }
    }
}

/// The line that stands where output was left out.
fn marker(omitted: u64, max: usize) -> String {
    format!(
        "[... {omitted} bytes of output left out here: output is capped at {max} bytes, \
         the first and the last half are kept ...]\n"
    )
}

/// A raw tail cut anywhere may start inside a UTF-8 sequence: skip the
/// continuation bytes so the first character is not a replacement.
fn skip_continuation(bytes: &[u8]) -> &[u8] {
    let n = bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0xC0) == 0x80)
        .count();
    &bytes[n..]
}

fn keep_head(mut s: String, max: usize) -> (String, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    let dropped = s.len() - cut;
    s.truncate(cut);
    (s, dropped)
}

fn keep_tail(s: String, max: usize) -> (String, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let mut cut = s.len() - max;
    while !s.is_char_boundary(cut) {
        cut += 1;
    }
    (s[cut..].to_string(), cut)
}

/// Cut the middle out of text longer than `max` bytes (text can outgrow
/// the raw bytes when invalid bytes become U+FFFD).
fn elide(s: String, max: usize) -> (String, usize) {
    if s.len() <= max {
        return (s, 0);
    }
    let half = max / 2;
    let mut a = half;
    while !s.is_char_boundary(a) {
        a -= 1;
    }
    let mut b = s.len() - half;
    while !s.is_char_boundary(b) {
        b += 1;
    }
    let omitted = b - a;
    let mut text = s[..a].to_string();
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&marker(omitted as u64, max));
    text.push_str(&s[b..]);
    (text, omitted)
}

/// Raw terminal output → plain text.
///
/// A string sequence (OSC, DCS, SOS, PM, APC) that is never terminated
/// would take everything after its introducer with it: a terminal shows
/// nothing of it, and neither would the agent or the human. So when the
/// output ends inside one, it is shown as text from its introducer on,
/// the ESC written as [`SHOWN_ESC`]. Any ESC ends a string sequence, so
/// the unterminated one began at the last ESC.
pub fn normalize(bytes: &[u8]) -> String {
    let mut screen = Lines::default();
    let mut parser = vte::Parser::new();
    parser.advance(&mut screen, bytes);
    if at_ground(&mut parser) {
        return screen.finish();
    }
    let Some(esc) = memchr::memrchr(0x1b, bytes) else {
        return screen.finish();
    };
    let mut screen = Lines::default();
    vte::Parser::new().advance(&mut screen, &bytes[..esc]);
    for c in SHOWN_ESC.chars() {
        screen.put(c);
    }
    // No ESC after this one: the rest is plain text (and controls).
    vte::Parser::new().advance(&mut screen, &bytes[esc + 1..]);
    screen.finish()
}

/// How an ESC that began an unterminated string sequence is shown.
pub const SHOWN_ESC: &str = "\u{241B}";

/// Whether `parser` is outside any string sequence: a BEL fed to it is
/// executed (in ground, escape and CSI states) rather than ending an OSC,
/// passed into a DCS or ignored (SOS/PM/APC, a DCS header).
fn at_ground(parser: &mut vte::Parser) -> bool {
    let mut probe = Probe::default();
    parser.advance(&mut probe, b"\x07");
    probe.executed
}

/// Sees whether the probe's BEL was executed.
#[derive(Default)]
struct Probe {
    executed: bool,
}

impl vte::Perform for Probe {
    fn execute(&mut self, byte: u8) {
        self.executed |= byte == 0x07;
    }
}

/// A one-line-at-a-time terminal: enough cursor handling for progress bars
/// (`\r`, backspace, erase-in-line, cursor column), everything else dropped.
#[derive(Default)]
struct Lines {
    out: String,
    line: Vec<char>,
    col: usize,
}

impl Lines {
    fn put(&mut self, c: char) {
        while self.line.len() < self.col {
            self.line.push(' ');
        }
        if self.col < self.line.len() {
            self.line[self.col] = c;
        } else {
            self.line.push(c);
        }
        self.col += 1;
    }

    fn newline(&mut self) {
        self.out.extend(self.line.drain(..));
        self.out.push('\n');
        self.col = 0;
    }

    fn finish(mut self) -> String {
        self.out.extend(self.line.drain(..));
        self.out
    }
}

impl vte::Perform for Lines {
    fn print(&mut self, c: char) {
        self.put(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' | 0x0b | 0x0c => self.newline(),
            b'\r' => self.col = 0,
            b'\t' => self.put('\t'),
            0x08 => self.col = self.col.saturating_sub(1),
            0x80..=0xff => self.put('\u{FFFD}'),
            _ => {}
        }
    }

    fn csi_dispatch(
        &mut self,
        params: &vte::Params,
        intermediates: &[u8],
        _ignore: bool,
        action: char,
    ) {
        if !intermediates.is_empty() {
            return;
        }
        let first = params
            .iter()
            .next()
            .and_then(|p| p.first().copied())
            .unwrap_or(0) as usize;
        let n = first.max(1);
        match action {
            // Erase in line: 0 to the end, 1 to the start, 2 all.
            'K' => match first {
                0 => self.line.truncate(self.col),
                1 => {
                    for c in self.line.iter_mut().take(self.col + 1) {
                        *c = ' ';
                    }
                }
                _ => self.line.clear(),
            },
            'G' | '`' => self.col = n - 1,
            'C' => self.col += n,
            'D' => self.col = self.col.saturating_sub(n),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_escapes_and_normalises_lines() {
        assert_eq!(normalize(b"a\r\nb\r\n"), "a\nb\n");
        assert_eq!(normalize(b"\x1b[31mred\x1b[0m\n"), "red\n");
        assert_eq!(normalize(b"\x1b]0;title\x07x"), "x");
        assert_eq!(normalize(b"10%\r20%\r100%\r\n"), "100%\n");
        assert_eq!(normalize(b"abcdef\rXY"), "XYcdef");
        assert_eq!(normalize(b"abcdef\r\x1b[KXY\n"), "XY\n");
        assert_eq!(normalize(b"ab\x08c"), "ac");
        assert_eq!(normalize(b"no newline"), "no newline");
        assert_eq!(normalize(b"tab\there"), "tab\there");
    }

    /// An unterminated string sequence of each kind does not hide what
    /// follows it; a terminated one is still dropped.
    #[test]
    fn unterminated_strings_do_not_hide_the_rest() {
        for intro in ["]0;", "P1$r", "X", "^", "_"] {
            let raw = format!("before\n\x1b{intro}never ended\r\ndone\n");
            let text = normalize(raw.as_bytes());
            assert_eq!(
                text,
                format!("before\n{SHOWN_ESC}{intro}never ended\ndone\n"),
                "{intro:?}"
            );
            let ended = format!("before\n\x1b{intro}ended\x1b\\after\n");
            assert_eq!(normalize(ended.as_bytes()), "before\nafter\n", "{intro:?}");
        }
        // Only the last, unterminated one is shown; earlier ones ended.
        let raw = b"\x1b]0;title\x07a\n\x1b]2;open\nb\n";
        assert_eq!(normalize(raw), format!("a\n{SHOWN_ESC}]2;open\nb\n"));
    }

    /// The control: parsed as a terminal does (no probe), the same output
    /// loses everything after the introducer, so the test above can fail.
    #[test]
    fn control_a_terminal_parser_hides_the_rest() {
        let mut screen = Lines::default();
        vte::Parser::new().advance(&mut screen, b"before\n\x1b]0;never ended\r\ndone\n");
        assert_eq!(screen.finish(), "before\n");
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(normalize(b"a\xffb"), "a\u{FFFD}b");
        assert_eq!(normalize("é ✓".as_bytes()), "é ✓");
        let s = normalize(&[0xc3]);
        assert!(s.is_empty() || s == "\u{FFFD}", "{s:?}");
    }

    #[test]
    fn small_output_is_kept_whole() {
        let mut c = Capture::new(100);
        c.push(b"hello ");
        c.push(b"world\n");
        let out = c.finish();
        assert_eq!(out.text, "hello world\n");
        assert!(!out.truncated);
        assert_eq!(out.total_bytes, 12);
    }

    #[test]
    fn large_output_keeps_head_and_tail_with_marker() {
        let mut c = Capture::new(1000);
        let mut total = 0u64;
        for i in 0..100_000 {
            let line = format!("line {i}\n");
            total += line.len() as u64;
            c.push(line.as_bytes());
            assert!(c.held() < 4000, "memory grew: {}", c.held());
        }
        let out = c.finish();
        assert!(out.truncated);
        assert_eq!(out.total_bytes, total);
        assert!(
            out.text.starts_with("line 0\nline 1\n"),
            "{}",
            &out.text[..50]
        );
        assert!(out.text.ends_with("line 99999\n"));
        assert!(out.text.contains("bytes of output left out here"));
        let omitted: u64 = out
            .text
            .split("[... ")
            .nth(1)
            .and_then(|s| s.split(' ').next())
            .and_then(|n| n.parse().ok())
            .unwrap();
        assert_eq!(omitted, total - 1000);
        assert!(out.text.len() < 1000 + 200);
    }

    #[test]
    fn binary_output_stays_bounded() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let mut c = Capture::new(1024);
        c.push(&bytes);
        let out = c.finish();
        assert!(out.truncated);
        assert!(out.text.len() < 1024 + 200, "{}", out.text.len());
        let mut c = Capture::new(4096);
        c.push(&[0xff; 2000]);
        let out = c.finish();
        assert!(out.truncated, "expansion past the cap is cut");
        assert!(out.text.len() < 4096 + 200);
    }
}
