//! Whatever [`line`] makes of any character is drawn: laid out
//! by the prompt's wrap and drawn by a Paragraph, each character reaches a
//! cell or is shown as its escape. (Here, not in `tui::reveal`, because
//! it draws through `ui`.)

use ratatui::style::Style;
use ratatui::text::Line;

use crate::tui::reveal::line;

/// The contexts every character is tried in: the start of a line, after
/// a letter, after a space, after an escape.
const BEFORE: [&str; 4] = ["", "a", "a ", "\u{200B}"];

/// Whether `shown` holds `c` or its escape.
fn shows(shown: &str, c: char) -> bool {
    shown.contains(c)
        || shown.contains(&crate::report::visible::code_point(c))
        || crate::report::visible::escape(c).is_some_and(|e| shown.contains(&e))
}

/// Each line drawn by a Paragraph after the prompt's own wrap, `cols`
/// wide: the cells' symbols joined, one string per line.
fn drawn(lines: &[Line<'static>], cols: usize) -> Vec<String> {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::widgets::{Paragraph, Widget};
    let mut rows = Vec::new();
    let mut of_line = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        for r in super::wrap::wrap(l.clone(), cols) {
            rows.push(r);
            of_line.push(i);
        }
    }
    let w = u16::try_from(cols).unwrap();
    let area = Rect::new(0, 0, w, u16::try_from(rows.len()).unwrap());
    let mut buf = Buffer::empty(area);
    Paragraph::new(rows).render(area, &mut buf);
    let mut out = vec![String::new(); lines.len()];
    for (y, &i) in of_line.iter().enumerate() {
        let y = u16::try_from(y).unwrap();
        out[i].extend((0..w).map(|x| buf[(x, y)].symbol().to_string()));
    }
    out
}

/// The same through the renderer itself, for every character the
/// renderer draws as nothing on its own or after a letter, and every
/// 61st of the others: the prompt's wrap and a Paragraph draw it, or
/// its escape, and the letter after it.
#[test]
fn the_renderer_draws_each_or_its_escape() {
    use crate::report::cells::{dropped_after, grapheme};
    let picked: Vec<char> = (0..=0x10_FFFFu32)
        .filter_map(char::from_u32)
        .filter(|&c| {
            c != '\t'
                && (grapheme(c.encode_utf8(&mut [0; 4])) == 0
                    || dropped_after("a", c)
                    || (c as u32).is_multiple_of(61))
        })
        .collect();
    for before in BEFORE {
        for chunk in picked.chunks(4096) {
            let lines: Vec<Line<'static>> = chunk
                .iter()
                .map(|c| Line::from(line(&format!("{before}{c}z"), Style::default()).0))
                .collect();
            for (&c, shown) in chunk.iter().zip(drawn(&lines, 40)) {
                let u = c as u32;
                assert!(shows(&shown, c), "U+{u:04X} after {before:?}: {shown:?}");
                assert!(shown.trim_end().ends_with('z'), "U+{u:04X}: {shown:?}");
            }
        }
    }
}

/// The control: laid out as it is (no escaping), a Hangul vowel jamo
/// after a Latin letter and a mark at the start of a line are dropped.
#[test]
fn control_unescaped_the_renderer_drops_them() {
    // Drawn by a Paragraph as it is, without the prompt's wrap.
    let raw = |t: &str| {
        use ratatui::buffer::Buffer;
        use ratatui::layout::Rect;
        use ratatui::widgets::{Paragraph, Widget};
        let area = Rect::new(0, 0, 40, 1);
        let mut buf = Buffer::empty(area);
        Paragraph::new(Line::raw(t.to_string())).render(area, &mut buf);
        (0..40).map(|x| buf[(x, 0)].symbol()).collect::<String>()
    };
    for t in ["notes.txt\u{1161} ; ls", "\u{301}rm", "ls x\u{D4E}"] {
        let shown = raw(t);
        let hidden = t.chars().find(|&c| !shown.contains(c));
        assert!(hidden.is_some(), "{t:?} drawn whole: {shown:?}");
        let (spans, flags) = line(t, Style::default());
        assert_eq!(flags.invisible, 1, "{t:?}");
        let escaped = drawn(&[Line::from(spans)], 40).remove(0);
        let c = hidden.unwrap();
        assert!(
            escaped.contains(&crate::report::visible::code_point(c)),
            "{escaped}"
        );
    }
}
