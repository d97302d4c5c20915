//! The end-of-command sentinel: a fresh random token per command, printed
//! by the shell after the command with its exit status and working
//! directory, and found again in the output stream.
//!
//! The sentinel is `RS token US status SP cwd US token RS` (RS = 0x1e,
//! US = 0x1f). The token is 128 random bits the command never sees, so
//! nothing it prints can end its call early or leak into the next one.

/// A per-command random token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token(String);

impl Token {
    /// 128 fresh random bits, hex.
    pub fn new() -> Self {
        Self(format!("{:032x}", rand::random::<u128>()))
    }

    /// The hex text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn start(&self) -> Vec<u8> {
        let mut v = vec![0x1e];
        v.extend_from_slice(self.0.as_bytes());
        v.push(0x1f);
        v
    }

    fn end(&self) -> Vec<u8> {
        let mut v = vec![0x1f];
        v.extend_from_slice(self.0.as_bytes());
        v.push(0x1e);
        v
    }
}

impl Default for Token {
    fn default() -> Self {
        Self::new()
    }
}

/// Quote `s` for bash as one word.
pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A command's end as the sentinel reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finished {
    /// `$?` of the command.
    pub status: i32,
    /// The shell's working directory afterwards.
    pub cwd: String,
    /// Bytes after the sentinel (output of background jobs): they belong
    /// to the next call.
    pub rest: Vec<u8>,
}

/// Most bytes between the start and the end of a sentinel (status + cwd).
const MAX_BODY: usize = 64 * 1024;

/// Finds one command's sentinel in the output stream, passing everything
/// else on. A short window is held back while it could be the start of the
/// sentinel, so the token never reaches the output.
#[derive(Debug)]
pub struct Scanner {
    start: Vec<u8>,
    end: Vec<u8>,
    pending: Vec<u8>,
    in_sentinel: bool,
}

impl Scanner {
    /// Look for `token`'s sentinel.
    pub fn new(token: &Token) -> Self {
        Self {
            start: token.start(),
            end: token.end(),
            pending: Vec::new(),
            in_sentinel: false,
        }
    }

    /// Feed raw bytes; `out` gets the command's output. Returns the end
    /// once the whole sentinel has arrived.
    pub fn feed(&mut self, data: &[u8], out: &mut dyn FnMut(&[u8])) -> Option<Finished> {
        self.pending.extend_from_slice(data);
        loop {
            if !self.in_sentinel {
                if let Some(i) = find(&self.pending, &self.start) {
                    if i > 0 {
                        out(&self.pending[..i]);
                    }
                    self.pending.drain(..i + self.start.len());
                    self.in_sentinel = true;
                } else {
                    let keep = partial_suffix(&self.pending, &self.start);
                    let emit = self.pending.len() - keep;
                    if emit > 0 {
                        out(&self.pending[..emit]);
                        self.pending.drain(..emit);
                    }
                    return None;
                }
            }
            match find(&self.pending, &self.end) {
                Some(j) => {
                    let body = String::from_utf8_lossy(&self.pending[..j]).into_owned();
                    let rest = self.pending[j + self.end.len()..].to_vec();
                    self.pending.clear();
                    self.in_sentinel = false;
                    let (status, cwd) = body.split_once(' ').unwrap_or((&body, ""));
                    return Some(Finished {
                        status: status.trim().parse().unwrap_or(-1),
                        cwd: cwd.replace("\r\n", "\n"),
                        rest,
                    });
                }
                None if self.pending.len() > MAX_BODY => {
                    // Not ours after all (cannot happen with a real token):
                    // give it back as output and keep looking.
                    let mut back = self.start.clone();
                    back.append(&mut self.pending);
                    out(&back);
                    self.in_sentinel = false;
                }
                None => return None,
            }
        }
    }

    /// The call ends without a sentinel (timeout, shell death): whatever is
    /// held back is output after all.
    pub fn flush(&mut self, out: &mut dyn FnMut(&[u8])) {
        if self.in_sentinel {
            let mut back = self.start.clone();
            back.append(&mut self.pending);
            out(&back);
            self.in_sentinel = false;
        } else if !self.pending.is_empty() {
            out(&self.pending);
            self.pending.clear();
        }
    }
}

/// First position of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    let mut from = 0;
    while let Some(off) = hay[from..].iter().position(|b| *b == first) {
        let i = from + off;
        if hay[i..].starts_with(needle) {
            return Some(i);
        }
        from = i + 1;
    }
    None
}

/// Length of the longest suffix of `hay` that is a proper prefix of `needle`.
fn partial_suffix(hay: &[u8], needle: &[u8]) -> usize {
    let max = hay.len().min(needle.len().saturating_sub(1));
    (1..=max)
        .rev()
        .find(|&k| hay[hay.len() - k..] == needle[..k])
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sentinel(t: &Token, status: i32, cwd: &str) -> Vec<u8> {
        let mut v = t.start();
        v.extend_from_slice(format!("{status} {cwd}").as_bytes());
        v.extend_from_slice(&t.end());
        v
    }

    fn run(scanner: &mut Scanner, chunks: &[&[u8]]) -> (Vec<u8>, Option<Finished>) {
        let mut out = Vec::new();
        let mut done = None;
        for c in chunks {
            let r = scanner.feed(c, &mut |b| out.extend_from_slice(b));
            if r.is_some() {
                done = r;
            }
        }
        (out, done)
    }

    #[test]
    fn finds_sentinel_split_byte_by_byte() {
        let t = Token::new();
        let mut stream = b"hello\r\nno newline".to_vec();
        stream.extend(sentinel(&t, 3, "/tmp/x y"));
        let chunks: Vec<&[u8]> = stream.chunks(1).collect();
        let mut s = Scanner::new(&t);
        let (out, done) = run(&mut s, &chunks);
        assert_eq!(out, b"hello\r\nno newline");
        let done = done.unwrap();
        assert_eq!(done.status, 3);
        assert_eq!(done.cwd, "/tmp/x y");
        assert_eq!(done.rest, b"");
    }

    #[test]
    fn fake_sentinels_are_output() {
        let t = Token::new();
        let fake = Token::new();
        let mut stream = sentinel(&fake, 0, "/");
        stream.extend_from_slice(b"\x1e\x1f\x1e");
        stream.extend_from_slice(&t.start()[..10]);
        stream.extend_from_slice(b" not it\n");
        let expected = stream.clone();
        stream.extend(sentinel(&t, 0, "/w"));
        stream.extend_from_slice(b"bg job");
        let mut s = Scanner::new(&t);
        let (out, done) = run(&mut s, &[&stream]);
        assert_eq!(out, expected);
        let done = done.unwrap();
        assert_eq!(done.rest, b"bg job");
        assert_eq!(done.cwd, "/w");
    }

    #[test]
    fn partial_start_is_held_then_flushed() {
        let t = Token::new();
        let mut s = Scanner::new(&t);
        let start = t.start();
        let (out, done) = run(&mut s, &[b"abc", &start[..5]]);
        assert_eq!(out, b"abc");
        assert!(done.is_none());
        let mut rest = Vec::new();
        s.flush(&mut |b| rest.extend_from_slice(b));
        assert_eq!(rest, &start[..5]);
    }

    #[test]
    fn tokens_are_fresh() {
        assert_ne!(Token::new(), Token::new());
    }
}
