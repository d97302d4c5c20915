//! The patch format and its result as Codex has them: the behaviours of
//! Codex's own parser and applier tests (`codex-rs/apply-patch`: its unit
//! tests and `tests/fixtures/scenarios`), written again here.

use super::*;

const PATCH: &str = "*** Begin Patch\n*** Add File: new.txt\n+hello\n+world\n*** Delete File: old.txt\n*** Update File: src/a.rs\n*** Move to: src/b.rs\n@@ fn main() {\n-    println!(\"a\");\n+    println!(\"b\");\n }\n*** End Patch\n";

fn wrap(body: &str) -> String {
    format!("*** Begin Patch\n{body}\n*** End Patch")
}

/// The chunks of a patch of one update.
fn chunks_of(patch: &str) -> Vec<Chunk> {
    match parse(patch).unwrap().as_slice() {
        [FileOp::Update { chunks, .. }] => chunks.clone(),
        other => panic!("not one update: {other:?}"),
    }
}

/// `old` after the update `body` (one `*** Update File: f` section).
fn updated(old: &str, body: &str) -> Result<String, PatchError> {
    apply(
        "f",
        old,
        &chunks_of(&wrap(&format!("*** Update File: f\n{body}"))),
    )
}

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
    let FileOp::Update { chunks, .. } = &parse(PATCH).unwrap()[2] else {
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
fn nothing_may_come_before_or_after_the_markers() {
    // A heredoc's shell words are not part of the patch (before, the parser
    // looked for the markers anywhere and ignored the rest).
    let around = [
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
        "echo hi\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: a\n*** End Patch\necho SECOND >> /tmp/x\n",
    ];
    for text in around {
        let err = parse(text).unwrap_err();
        assert!(
            matches!(err, PatchError::Malformed { .. }),
            "{text:?}: {err}"
        );
    }
    // Control: the same patch alone is read.
    let alone = "*** Begin Patch\n*** Delete File: a\n*** End Patch\n";
    assert_eq!(
        parse(alone).unwrap(),
        vec![FileOp::Delete { path: "a".into() }]
    );
}

#[test]
fn a_literal_heredoc_wrapper_is_unwrapped_as_codex_does() {
    // Codex's lenient mode: `<<EOF`, `<<'EOF'` or `<<"EOF"` first, a line
    // ending in `EOF` last, at least four lines.
    for start in ["<<EOF", "<<'EOF'", "<<\"EOF\""] {
        let text = format!("{start}\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n");
        assert_eq!(
            parse(&text).unwrap(),
            vec![FileOp::Delete { path: "a".into() }]
        );
    }
    assert!(parse("<<'X'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nX").is_err());
}

#[test]
fn padded_markers_and_headers_are_read() {
    // Codex scenarios 017, 018 and 020: spaces around the markers and the
    // file header.
    let texts = [
        " *** Begin Patch\n*** Update File: f\n@@\n-one\n+two\n*** End Patch \n",
        "*** Begin Patch \n*** Update File: f\n@@\n-one\n+two\n *** End Patch\n",
        "*** Begin Patch\n  *** Update File: f\n@@\n-one\n+two\n*** End Patch\n",
    ];
    for text in texts {
        let chunks = chunks_of(text);
        assert_eq!(apply("f", "one\n", &chunks).unwrap(), "two\n", "{text:?}");
    }
}

#[test]
fn a_path_is_the_rest_of_its_header_line() {
    // The header line is trimmed, then the path is what follows the marker:
    // a second space is part of the name; the move line is not trimmed.
    let ops = parse("*** Begin Patch\n*** Add File:  x\n+a\n*** Update File: f\n*** Move to: g \n@@\n-a\n+b\n*** End Patch").unwrap();
    assert_eq!(ops[0].path(), " x");
    let FileOp::Update { move_to, .. } = &ops[1] else {
        panic!()
    };
    assert_eq!(move_to.as_deref(), Some("g "));
}

#[test]
fn codex_parse_cases() {
    // An update followed by another file; the first chunk without `@@`.
    let ops = parse(&wrap(
        "*** Update File: file.py\n@@\n+line\n*** Add File: other.py\n+content",
    ))
    .unwrap();
    assert_eq!(ops.len(), 2);
    let chunks = chunks_of(&wrap("*** Update File: file2.py\n import foo\n+bar"));
    assert_eq!(chunks[0].old, vec!["import foo"]);
    assert_eq!(chunks[0].new, vec!["import foo", "bar"]);
    // An added file with no lines is empty.
    assert_eq!(
        parse(&wrap("*** Add File: e")).unwrap(),
        vec![FileOp::Add {
            path: "e".into(),
            content: String::new()
        }]
    );
}

#[test]
fn malformed_patches_are_refused_with_the_line() {
    let cases = [
        ("", "last line of the patch"),
        ("bad", "first line of the patch"),
        ("*** Begin Patch\nbad", "last line of the patch"),
        (
            "*** Begin Patch\n*** Add File: a\n+x\n",
            "last line of the patch",
        ),
        ("*** Begin Patch\n*** End Patch\n", "touches no file"),
        // Not `+`: the added file ends there, and the next line is no header.
        (
            "*** Begin Patch\n*** Add File: a\nx\n*** End Patch",
            "not a valid hunk header",
        ),
        // An empty path leaves no header (the line is trimmed first).
        (
            "*** Begin Patch\n*** Add File:  \n*** End Patch",
            "not a valid hunk header",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** End Patch",
            "has no chunk",
        ),
        // A rename alone is refused by Codex too.
        (
            "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch",
            "has no chunk",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** Move to: \n@@\n-x\n+y\n*** End Patch",
            "a move without a path",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n*x\n*** End Patch",
            "must start with",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n-x\n@@x\n-y\n*** End Patch",
            "must start with `@@`",
        ),
        (
            "*** Begin Patch\n*** Frobnicate: a\n*** End Patch",
            "not a valid hunk header",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n*** End of File\n*** End Patch",
            "has no chunk",
        ),
        (
            "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch",
            "without lines",
        ),
    ];
    for (text, want) in cases {
        let err = parse(text).unwrap_err().to_string();
        assert!(err.contains(want), "{text:?}: {err}");
        assert!(err.starts_with("malformed patch, line "), "{err}");
    }
    let err = parse("*** Begin Patch\n*** Update File: todo.txt\n@@\n*garbage\n*** End Patch\n");
    assert!(
        err.unwrap_err()
            .to_string()
            .starts_with("malformed patch, line 4")
    );
}

/// The rule before this fix (the control): a pure insertion went right
/// under its `@@` line.
fn under_anchor(old: &str, anchor: &str, added: &str) -> String {
    let mut lines: Vec<&str> = old.lines().collect();
    let at = lines.iter().position(|l| *l == anchor).unwrap() + 1;
    lines.insert(at, added);
    lines.join("\n") + "\n"
}

#[test]
fn a_pure_insertion_goes_to_the_end_whatever_its_anchor() {
    // The red-team case: Codex appends `+` lines of a chunk without old
    // lines at the end of the file, not under the `@@` line.
    let old = "[dev]\ndebug = true\n[prod]\ndebug = false\n";
    let new = updated(old, "@@ [dev]\n+allow_remote = true").unwrap();
    assert_eq!(new, format!("{old}allow_remote = true\n"));
    // Control: the old rule put it under `[dev]`, a different file.
    let shown_before = under_anchor(old, "[dev]", "allow_remote = true");
    assert_eq!(
        shown_before,
        "[dev]\nallow_remote = true\ndebug = true\n[prod]\ndebug = false\n"
    );
    assert_ne!(new, shown_before);
    // The anchor must still be in the file.
    assert!(matches!(
        updated(old, "@@ [staging]\n+x"),
        Err(PatchError::DoesNotApply { .. })
    ));
    // Codex scenario 016, and an end-of-file insertion.
    assert_eq!(
        updated("line1\nline2\n", "@@\n+added line 1\n+added line 2").unwrap(),
        "line1\nline2\nadded line 1\nadded line 2\n"
    );
    assert_eq!(
        updated("foo\nbar\nbaz\n", "@@\n+quux\n*** End of File").unwrap(),
        "foo\nbar\nbaz\nquux\n"
    );
}

#[test]
fn an_insertion_before_a_replacement_still_goes_to_the_end() {
    // Codex's test_pure_addition_chunk_followed_by_removal.
    let new = updated(
        "line1\nline2\nline3\n",
        "@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement",
    );
    assert_eq!(
        new.unwrap(),
        "line1\nline2-replacement\nafter-context\nsecond-line\n"
    );
}

#[test]
fn codex_update_scenarios() {
    // Two chunks (scenario 003), interleaved changes with an end-of-file
    // chunk, a deletion only (021), the end-of-file marker (022), a file
    // without a final newline gets one (014), unicode text (019).
    let cases = [
        (
            "line1\nline2\nline3\nline4\n",
            "@@\n-line2\n+changed2\n@@\n-line4\n+changed4",
            "line1\nchanged2\nline3\nchanged4\n",
        ),
        (
            "a\nb\nc\nd\ne\nf\n",
            "@@\n a\n-b\n+B\n@@\n c\n d\n-e\n+E\n@@\n f\n+g\n*** End of File",
            "a\nB\nc\nd\nE\nf\ng\n",
        ),
        (
            "line1\nline2\nline3\n",
            "@@\n line1\n-line2\n line3",
            "line1\nline3\n",
        ),
        (
            "first\nsecond\n",
            "@@\n first\n-second\n+second updated\n*** End of File",
            "first\nsecond updated\n",
        ),
        (
            "no newline at end",
            "@@\n-no newline at end\n+first line\n+second line",
            "first line\nsecond line\n",
        ),
        (
            "line1\nnaïve café\n",
            "@@\n line1\n-naïve café\n+naïve café ✅",
            "line1\nnaïve café ✅\n",
        ),
        (
            "foo\nbar\nbaz\nqux\n",
            "@@\n foo\n-bar\n+BAR\n@@\n baz\n-qux\n+QUX",
            "foo\nBAR\nbaz\nQUX\n",
        ),
    ];
    for (old, body, want) in cases {
        assert_eq!(updated(old, body).unwrap(), want, "{body:?}");
    }
}

#[test]
fn matching_is_as_lenient_as_codex() {
    // Trailing whitespace, surrounding whitespace, then typographic
    // punctuation (Codex's test_update_line_with_unicode_dash).
    assert_eq!(
        updated("foo   \nbar\t\t\n", "@@\n-foo\n-bar\n+x").unwrap(),
        "x\n"
    );
    assert_eq!(updated("    foo   \n", "@@\n-foo\n+x").unwrap(), "x\n");
    let dash = "import asyncio  # local import \u{2013} avoids top\u{2011}level dep\n";
    assert_eq!(
        updated(
            dash,
            "@@\n-import asyncio  # local import - avoids top-level dep\n+import asyncio  # HELLO"
        )
        .unwrap(),
        "import asyncio  # HELLO\n"
    );
    assert_eq!(
        updated(
            "say \u{201C}hi\u{201D}\u{00A0}now\n",
            "@@\n-say \"hi\" now\n+x"
        )
        .unwrap(),
        "x\n"
    );
    // A pattern longer than the file does not match (and does not panic).
    assert!(updated("one\n", "@@\n-too\n-many\n-lines\n+x").is_err());
}

#[test]
fn old_lines_ending_in_an_empty_line_are_retried_without_it() {
    // The empty line stands for the final newline.
    assert_eq!(updated("a\nb\n", "@@\n a\n-b\n+c\n").unwrap(), "a\nc\n");
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
fn an_anchor_moves_the_search_past_it() {
    let old = "fn a() {\n    x\n}\nfn b() {\n    x\n}\n";
    assert_eq!(
        updated(old, "@@ fn b() {\n-    x\n+    y").unwrap(),
        "fn a() {\n    x\n}\nfn b() {\n    y\n}\n"
    );
}

#[test]
fn what_codex_releases_write_differently_is_not_guessed() {
    let uncertain = |r: Result<String, PatchError>| matches!(r, Err(PatchError::Uncertain { .. }));
    // CRLF lines: older releases keep `\r` on kept lines only, newer ones
    // write every line with the file's ending.
    assert!(uncertain(updated("a\r\nb\r\n", "@@\n a\n-b\n+c")));
    // A blank last line: older releases drop it.
    assert!(uncertain(updated("a\nb\n\n", "@@\n-a\n+c")));
    // Two changes over the same lines (an end-of-file chunk ignores where
    // the previous one ended).
    assert!(uncertain(updated(
        "a\nb\n",
        "@@\n-a\n-b\n+c\n@@\n-b\n+d\n*** End of File"
    )));
    // An insertion placed inside a replaced region (before a last empty
    // line the replacement removes).
    assert!(uncertain(updated("a\n\n", "@@\n-a\n-\n+b\n@@\n+c")));
    // Controls: the same edits on an LF file without a blank last line.
    assert_eq!(updated("a\nb\n", "@@\n a\n-b\n+c").unwrap(), "a\nc\n");
    assert_eq!(updated("a\nb\n", "@@\n-a\n+c").unwrap(), "c\nb\n");
    // A blank line that is replaced is not a blank last line any more.
    assert_eq!(updated("a\n\n", "@@\n a\n-\n+b").unwrap(), "a\nb\n");
}
