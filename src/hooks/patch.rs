//! Codex's `apply_patch` format, read so the prompt can show every file a
//! patch adds, updates, deletes or moves:
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

/// One file operation of a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileOp {
    /// Create a file with this content.
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

/// A patch that cannot be read, or does not apply.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    /// The text is not in the patch format.
    #[error("malformed patch, line {line}: {message}")]
    Malformed {
        /// 1-based line of the patch.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An update's lines are not in the file.
    #[error("the patch does not apply to {path}: {message}")]
    DoesNotApply {
        /// The file.
        path: String,
        /// What did not match.
        message: String,
    },
}

fn malformed(line: usize, message: impl Into<String>) -> PatchError {
    PatchError::Malformed {
        line,
        message: message.into(),
    }
}

/// Read a patch. Text around `*** Begin Patch … *** End Patch` (a heredoc's
/// shell words) is not part of it.
pub fn parse(text: &str) -> Result<Vec<FileOp>, PatchError> {
    let lines: Vec<&str> = text
        .lines()
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let begin = lines
        .iter()
        .position(|l| l.trim() == "*** Begin Patch")
        .ok_or_else(|| malformed(1, "no `*** Begin Patch` line"))?;
    let mut ops = Vec::new();
    let mut i = begin + 1;
    loop {
        let Some(line) = lines.get(i) else {
            return Err(malformed(i + 1, "no `*** End Patch` line"));
        };
        let n = i + 1;
        if line.trim() == "*** End Patch" {
            break;
        }
        if let Some(path) = header(line, "*** Add File: ") {
            let (content, next) = added_lines(&lines, i + 1)?;
            ops.push(FileOp::Add {
                path: path(n)?,
                content,
            });
            i = next;
        } else if let Some(path) = header(line, "*** Delete File: ") {
            ops.push(FileOp::Delete { path: path(n)? });
            i += 1;
        } else if let Some(path) = header(line, "*** Update File: ") {
            let path = path(n)?;
            let mut j = i + 1;
            let move_to = match lines.get(j).and_then(|l| header(l, "*** Move to: ")) {
                Some(to) => {
                    j += 1;
                    Some(to(j)?)
                }
                None => None,
            };
            let (chunks, next) = chunks(&lines, j)?;
            if chunks.is_empty() && move_to.is_none() {
                return Err(malformed(n, format!("update of {path} changes nothing")));
            }
            ops.push(FileOp::Update {
                path,
                move_to,
                chunks,
            });
            i = next;
        } else {
            return Err(malformed(
                n,
                format!(
                    "expected a file header, found {:?}",
                    crate::audit::excerpt(line, 80)
                ),
            ));
        }
    }
    if ops.is_empty() {
        return Err(malformed(begin + 1, "the patch touches no file"));
    }
    Ok(ops)
}

/// `Some(path)` when `line` is the header `prefix PATH`; the path must not
/// be empty.
fn header<'a>(
    line: &'a str,
    prefix: &str,
) -> Option<impl Fn(usize) -> Result<String, PatchError> + 'a> {
    let rest = line.strip_prefix(prefix)?;
    Some(move |n: usize| {
        let p = rest.trim();
        if p.is_empty() {
            Err(malformed(n, "a file header without a path"))
        } else {
            Ok(p.to_string())
        }
    })
}

fn is_header(line: &str) -> bool {
    line.starts_with("*** ")
}

/// An added file's `+` lines, from `start`; returns the content and the
/// next line's index.
fn added_lines(lines: &[&str], start: usize) -> Result<(String, usize), PatchError> {
    let mut content = String::new();
    let mut i = start;
    while let Some(line) = lines.get(i) {
        if is_header(line) {
            break;
        }
        match line.strip_prefix('+') {
            Some(text) => {
                content.push_str(text);
                content.push('\n');
            }
            None => {
                return Err(malformed(
                    i + 1,
                    "an added file's lines must start with `+`",
                ));
            }
        }
        i += 1;
    }
    Ok((content, i))
}

/// An update's chunks, from `start`; returns them and the next line's index.
fn chunks(lines: &[&str], start: usize) -> Result<(Vec<Chunk>, usize), PatchError> {
    let mut out: Vec<Chunk> = Vec::new();
    let mut cur: Option<Chunk> = None;
    let mut i = start;
    while let Some(line) = lines.get(i) {
        if line.trim() == "*** End of File" {
            let mut c = cur
                .take()
                .ok_or_else(|| malformed(i + 1, "`*** End of File` outside a chunk"))?;
            c.at_eof = true;
            out.push(c);
            i += 1;
            continue;
        }
        if is_header(line) {
            break;
        }
        if let Some(anchor) = line.strip_prefix("@@") {
            if let Some(c) = cur.take() {
                out.push(c);
            }
            let anchor = anchor.trim();
            cur = Some(Chunk {
                anchor: (!anchor.is_empty()).then(|| anchor.to_string()),
                ..Chunk::default()
            });
            i += 1;
            continue;
        }
        let c = cur.get_or_insert_with(Chunk::default);
        match line.chars().next() {
            Some('+') => c.new.push(line[1..].to_string()),
            Some('-') => c.old.push(line[1..].to_string()),
            Some(' ') => {
                c.old.push(line[1..].to_string());
                c.new.push(line[1..].to_string());
            }
            // An empty line inside a chunk is an empty context line.
            None => {
                c.old.push(String::new());
                c.new.push(String::new());
            }
            Some(_) => {
                return Err(malformed(
                    i + 1,
                    format!(
                        "a chunk line must start with ' ', '+' or '-', found {:?}",
                        crate::audit::excerpt(line, 80)
                    ),
                ));
            }
        }
        i += 1;
    }
    if let Some(c) = cur {
        out.push(c);
    }
    if let Some(c) = out.iter().find(|c| c.old.is_empty() && c.new.is_empty()) {
        let _ = c;
        return Err(malformed(start + 1, "an empty chunk"));
    }
    Ok((out, i))
}

/// `content` with `chunks` applied, the way Codex matches them: in order,
/// each after the previous one, exactly or else ignoring trailing and then
/// surrounding whitespace.
pub fn apply(path: &str, content: &str, chunks: &[Chunk]) -> Result<String, PatchError> {
    let fail = |message: String| PatchError::DoesNotApply {
        path: path.to_string(),
        message,
    };
    let mut lines: Vec<String> = content.lines().map(str::to_string).collect();
    let mut cursor = 0;
    for chunk in chunks {
        if let Some(anchor) = &chunk.anchor {
            let at = find(&lines, std::slice::from_ref(anchor), cursor)
                .ok_or_else(|| fail(format!("context line {anchor:?} not found")))?;
            cursor = at + 1;
        }
        if chunk.old.is_empty() {
            // Pure insertion: at the end of the file, or after the anchor.
            let at = if chunk.at_eof || chunk.anchor.is_none() {
                lines.len()
            } else {
                cursor
            };
            lines.splice(at..at, chunk.new.iter().cloned());
            cursor = at + chunk.new.len();
            continue;
        }
        let at = if chunk.at_eof {
            let start = lines.len().checked_sub(chunk.old.len());
            start.filter(|&s| s >= cursor && find(&lines[s..], &chunk.old, 0) == Some(0))
        } else {
            find(&lines, &chunk.old, cursor)
        };
        let at = at.ok_or_else(|| {
            fail(format!(
                "expected lines not found: {:?}",
                crate::audit::excerpt(&chunk.old.join("\n"), 200)
            ))
        })?;
        lines.splice(at..at + chunk.old.len(), chunk.new.iter().cloned());
        cursor = at + chunk.new.len();
    }
    let mut out = lines.join("\n");
    if !lines.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// Where `needle` starts in `hay` at or after `from`: exactly, else with
/// trailing whitespace ignored, else with surrounding whitespace ignored.
fn find(hay: &[String], needle: &[String], from: usize) -> Option<usize> {
    let passes: [fn(&str) -> &str; 3] = [|s| s, str::trim_end, str::trim];
    passes.iter().find_map(|norm| {
        (from..=hay.len().checked_sub(needle.len())?).find(|&s| {
            hay[s..s + needle.len()]
                .iter()
                .zip(needle)
                .all(|(a, b)| norm(a) == norm(b))
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATCH: &str = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main() {\n-    println!(\"a\");\n+    println!(\"b\");\n }\n*** End Patch\n";

    #[test]
    fn reads_every_kind_of_operation() {
        let ops = parse(PATCH).unwrap();
        assert_eq!(ops.len(), 3);
        assert_eq!(
            ops[0],
            FileOp::Add {
                path: "new.txt".into(),
                content: "hello\nworld\n".into()
            }
        );
        assert_eq!(
            ops[1],
            FileOp::Delete {
                path: "old.txt".into()
            }
        );
        let FileOp::Update {
            path,
            move_to,
            chunks,
        } = &ops[2]
        else {
            panic!()
        };
        assert_eq!(
            (path.as_str(), move_to.as_deref()),
            ("src/a.rs", Some("src/b.rs"))
        );
        assert_eq!(chunks[0].anchor.as_deref(), Some("fn main() {"));
        assert_eq!(chunks[0].old, vec!["    println!(\"a\");", "}"]);
    }

    #[test]
    fn applies_chunks_in_order() {
        let ops = parse(PATCH).unwrap();
        let FileOp::Update { chunks, .. } = &ops[2] else {
            panic!()
        };
        let old = "use x;\nfn main() {\n    println!(\"a\");\n}\n";
        let new = apply("src/a.rs", old, chunks).unwrap();
        assert_eq!(new, "use x;\nfn main() {\n    println!(\"b\");\n}\n");
        // Lines that are not in the file: it does not apply.
        let err = apply("src/a.rs", "fn other() {}\n", chunks).unwrap_err();
        assert!(matches!(err, PatchError::DoesNotApply { .. }), "{err}");
    }

    #[test]
    fn whitespace_differences_still_match() {
        let chunk = Chunk {
            old: vec!["a  ".into()],
            new: vec!["b".into()],
            ..Chunk::default()
        };
        assert_eq!(apply("f", "  a\n", &[chunk]).unwrap(), "b\n");
    }

    #[test]
    fn end_of_file_chunks_match_only_at_the_end() {
        let chunk = Chunk {
            old: vec!["x".into()],
            new: vec!["y".into()],
            at_eof: true,
            ..Chunk::default()
        };
        assert_eq!(
            apply("f", "x\na\nx\n", std::slice::from_ref(&chunk)).unwrap(),
            "x\na\ny\n"
        );
        assert!(apply("f", "x\na\n", &[chunk]).is_err());
    }

    #[test]
    fn malformed_patches_are_refused_with_the_line() {
        let cases = [
            ("", "no `*** Begin Patch`"),
            (
                "*** Begin Patch\n*** Add File: a\n+x\n",
                "no `*** End Patch`",
            ),
            ("*** Begin Patch\n*** End Patch\n", "touches no file"),
            (
                "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
                "must start with `+`",
            ),
            (
                "*** Begin Patch\n*** Add File:  \n*** End Patch",
                "without a path",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End Patch",
                "changes nothing",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n@@\n*x\n*** End Patch",
                "must start with",
            ),
            (
                "*** Begin Patch\n*** Frobnicate: a\n*** End Patch",
                "expected a file header",
            ),
            (
                "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch",
                "outside a chunk",
            ),
        ];
        for (text, want) in cases {
            let err = parse(text).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
            assert!(err.starts_with("malformed patch, line "), "{err}");
        }
    }

    #[test]
    fn a_heredoc_around_the_patch_is_ignored() {
        let cmd = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n";
        assert_eq!(
            parse(cmd).unwrap(),
            vec![FileOp::Delete { path: "a".into() }]
        );
    }
}
