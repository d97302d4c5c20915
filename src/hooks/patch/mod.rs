//! Codex's `apply_patch` format, read the way Codex reads it (its lenient
//! parser, `codex-rs/apply-patch`), so the prompt shows every file a patch
//! adds, updates, deletes or moves and what Codex will write there:
//!
//! ```text
//! *** Begin Patch
//! *** Add File: path        (then `+` lines: the content)
//! *** Delete File: path
//! *** Update File: path
//! *** Move to: new/path     (optional, right after Update)
//! @@ optional context line
//!  context
//! -removed
//! +added
//! *** End of File           (optional: the chunk ends the file)
//! *** End Patch
//! ```
//!
//! The first and last lines of the (trimmed) text must be the Begin and End
//! markers: nothing may come before or after them. Codex also takes the
//! whole patch wrapped in `<<EOF` … `EOF` lines (its "lenient" mode), as a
//! literal argument, not through a shell. Where Codex's rules differ from a
//! reading that looks natural (a path keeps the spaces after its header, an
//! anchored insertion still goes to the end of the file), Codex's rule is
//! the one here; [`apply`] says when airlock cannot be sure what Codex will
//! write.

mod apply;
#[cfg(test)]
mod tests;

pub use apply::apply;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const EOF_MARKER: &str = "*** End of File";
const CONTEXT: &str = "@@ ";
const EMPTY_CONTEXT: &str = "@@";
/// The first lines of a patch wrapped in a heredoc that Codex unwraps.
const HEREDOC_STARTS: [&str; 3] = ["<<EOF", "<<'EOF'", "<<\"EOF\""];

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create a file with this content (an existing one is overwritten).
    Add {
        /// The file.
        path: String,
        /// Its content.
        content: String,
    },
    /// Remove a file.
    Delete {
        /// The file.
        path: String,
    },
    /// Change a file (and maybe rename it).
    Update {
        /// The file.
        path: String,
        /// The new name, for a move.
        move_to: Option<String>,
        /// The changes, in file order.
        chunks: Vec<Chunk>,
    },
}

impl FileOp {
    /// The file the operation starts from.
    pub fn path(&self) -> &str {
        match self {
            FileOp::Add { path, .. } | FileOp::Delete { path } | FileOp::Update { path, .. } => {
                path
            }
        }
    }
}

/// One `@@` section of an update.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Chunk {
    /// The `@@ line` to find first, if any.
    pub anchor: Option<String>,
    /// The lines before the change (context and removed lines).
    pub old: Vec<String>,
    /// The lines after it (context and added lines).
    pub new: Vec<String>,
    /// The chunk ends at the end of the file.
    pub at_eof: bool,
}

/// A patch that cannot be read, does not apply, or whose result airlock
/// cannot be sure of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The text is not in the patch format.
    #[error("malformed patch, line {line}: {message}")]
    Malformed {
        /// 1-based line of the (trimmed) patch.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An update's lines are not in the file: Codex refuses the patch.
    #[error("the patch does not apply to {path}: {message}")]
    DoesNotApply {
        /// The file.
        path: String,
        /// What did not match.
        message: String,
    },
    /// The patch applies, but what Codex writes depends on details airlock
    /// does not reproduce for certain (its versions differ there).
    #[error("airlock cannot be sure what Codex writes to {path}: {reason}")]
    Uncertain {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

fn malformed(line: usize, message: impl Into<String>) -> PatchError {
    PatchError::Malformed {
        line,
        message: message.into(),
    }
}

/// Read a patch as Codex does: the whole (trimmed) text is the patch.
pub fn parse(text: &str) -> Result<Vec<FileOp>, PatchError> {
    let lines: Vec<&str> = text.trim().lines().collect();
    let (first, body) = boundaries(&lines)?;
    let mut ops = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let (op, used) = file_op(&body[i..], first + i)?;
        ops.push(op);
        i += used;
    }
    if ops.is_empty() {
        // Codex applies nothing and reports an error.
        return Err(malformed(first, "the patch touches no file"));
    }
    Ok(ops)
}

/// The lines between the Begin and End markers and the 1-based line of the
/// first of them: the text itself, or (as Codex allows) the text inside a
/// `<<EOF` … `EOF` wrapper.
fn boundaries<'a>(lines: &'a [&'a str]) -> Result<(usize, &'a [&'a str]), PatchError> {
    let strict = |l: &'a [&'a str], offset: usize| -> Result<(usize, &'a [&'a str]), PatchError> {
        match l {
            [first, body @ .., last] if first.trim() == BEGIN && last.trim() == END => {
                Ok((offset + 2, body))
            }
            [first, ..] if first.trim() != BEGIN => Err(malformed(
                offset + 1,
                "the first line of the patch must be '*** Begin Patch'",
            )),
            _ => Err(malformed(
                offset + l.len().max(1),
                "the last line of the patch must be '*** End Patch'",
            )),
        }
    };
    let err = match strict(lines, 0) {
        Ok(found) => return Ok(found),
        Err(e) => e,
    };
    match lines {
        [first, inner @ .., last]
            if HEREDOC_STARTS.contains(first) && last.ends_with("EOF") && lines.len() >= 4 =>
        {
            strict(inner, 1)
        }
        _ => Err(err),
    }
}

/// One file operation at the start of `lines` (`n`: the 1-based line of
/// `lines[0]`); returns it and how many lines it took.
fn file_op(lines: &[&str], n: usize) -> Result<(FileOp, usize), PatchError> {
    // Codex trims the header line before it looks for a marker; the path is
    // the rest of the line, as it is.
    let header = lines[0].trim();
    if let Some(path) = header.strip_prefix(ADD) {
        let mut content = String::new();
        let mut used = 1;
        for line in &lines[1..] {
            let Some(text) = line.strip_prefix('+') else {
                break;
            };
            content.push_str(text);
            content.push('\n');
            used += 1;
        }
        let path = path.to_string();
        return Ok((FileOp::Add { path, content }, used));
    }
    if let Some(path) = header.strip_prefix(DELETE) {
        let path = path.to_string();
        return Ok((FileOp::Delete { path }, 1));
    }
    let Some(path) = header.strip_prefix(UPDATE) else {
        return Err(malformed(
            n,
            format!(
                "{:?} is not a valid hunk header (`*** Add File: `, `*** Delete File: ` or \
                 `*** Update File: ` and a path)",
                crate::audit::excerpt(header, 80)
            ),
        ));
    };
    let mut used = 1;
    // The move line is not trimmed: its path is everything after the marker.
    let move_to = lines.get(1).and_then(|l| l.strip_prefix(MOVE));
    if move_to == Some("") {
        return Err(malformed(n + 1, "a move without a path"));
    }
    if move_to.is_some() {
        used += 1;
    }
    let mut chunks = Vec::new();
    while let Some(line) = lines.get(used) {
        // Blank lines between chunks are skipped; a `*` line ends the file.
        if line.trim().is_empty() {
            used += 1;
            continue;
        }
        if line.starts_with('*') {
            break;
        }
        let (c, took) = chunk(&lines[used..], n + used, chunks.is_empty())?;
        chunks.push(c);
        used += took;
    }
    if chunks.is_empty() {
        return Err(malformed(
            n,
            format!("the update of {path:?} has no chunk (Codex refuses it)"),
        ));
    }
    let op = FileOp::Update {
        path: path.to_string(),
        move_to: move_to.map(str::to_string),
        chunks,
    };
    Ok((op, used))
}

/// One chunk at the start of `lines` (`n`: the 1-based line of
/// `lines[0]`); the first chunk of an update may omit its `@@` line.
fn chunk(lines: &[&str], n: usize, first: bool) -> Result<(Chunk, usize), PatchError> {
    let (anchor, start) = if lines[0] == EMPTY_CONTEXT {
        (None, 1)
    } else if let Some(anchor) = lines[0].strip_prefix(CONTEXT) {
        (Some(anchor.to_string()), 1)
    } else if first {
        (None, 0)
    } else {
        return Err(malformed(
            n,
            format!(
                "a chunk must start with `@@`, found {:?}",
                crate::audit::excerpt(lines[0], 80)
            ),
        ));
    };
    let mut c = Chunk {
        anchor,
        ..Chunk::default()
    };
    let mut taken = 0;
    for line in &lines[start..] {
        if *line == EOF_MARKER {
            if taken == 0 {
                return Err(malformed(n + start, "a chunk without lines"));
            }
            c.at_eof = true;
            taken += 1;
            break;
        }
        match line.chars().next() {
            // An empty line inside a chunk is an empty context line.
            None => {
                c.old.push(String::new());
                c.new.push(String::new());
            }
            Some(' ') => {
                c.old.push(line[1..].to_string());
                c.new.push(line[1..].to_string());
            }
            Some('+') => c.new.push(line[1..].to_string()),
            Some('-') => c.old.push(line[1..].to_string()),
            Some(_) if taken == 0 => {
                return Err(malformed(
                    n + start + taken,
                    format!(
                        "a chunk line must start with ' ', '+' or '-', found {:?}",
                        crate::audit::excerpt(line, 80)
                    ),
                ));
            }
            // The next chunk or file.
            Some(_) => break,
        }
        taken += 1;
    }
    if taken == 0 {
        return Err(malformed(n + start, "a chunk without lines"));
    }
    Ok((c, start + taken))
}
