//! Where each pane goes, from the terminal size alone (the app uses it for
//! page sizes and the mouse; drawing uses it to place the panes).

use ratatui::layout::{Constraint, Layout, Rect};

/// Terminals at least this wide put the detail pane beside the list.
const WIDE: u16 = 140;

/// Rows of the status bar.
pub const STATUS_ROWS: u16 = 2;

/// The panes' areas, each including its one-line title.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Panes {
    /// The list of calls.
    pub calls: Rect,
    /// The selected call.
    pub detail: Rect,
    /// The audit records.
    pub audit: Rect,
    /// The status bar.
    pub status: Rect,
}

/// Lay the panes out in `area`.
pub fn panes(area: Rect) -> Panes {
    panes_with_status(area, STATUS_ROWS)
}

/// Lay the panes out in `area` above a status bar of `status_rows`.
pub fn panes_with_status(area: Rect, status_rows: u16) -> Panes {
    let [main, status] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(status_rows)]).areas(area);
    if main.width >= WIDE {
        let [left, detail] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(main);
        let [calls, audit] =
            Layout::vertical([Constraint::Percentage(65), Constraint::Percentage(35)]).areas(left);
        Panes {
            calls,
            detail,
            audit,
            status,
        }
    } else {
        let [calls, detail, audit] = Layout::vertical([
            Constraint::Percentage(40),
            Constraint::Percentage(37),
            Constraint::Fill(1),
        ])
        .areas(main);
        Panes {
            calls,
            detail,
            audit,
            status,
        }
    }
}

/// A pane's area below its title line.
pub fn body(pane: Rect) -> Rect {
    Rect {
        y: pane.y.saturating_add(1),
        height: pane.height.saturating_sub(1),
        ..pane
    }
}

/// The approval prompt's area: most of the screen, centred (all of its
/// width on a narrow terminal).
pub fn prompt(area: Rect) -> Rect {
    let pw = if area.width < 100 { 100 } else { 92 };
    centred(area, pw, 88, 60, 16)
}

/// A box for `w`×`h` cells of content plus its border, centred, no larger
/// than `area`.
pub fn boxed(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.saturating_add(2).min(area.width);
    let h = h.saturating_add(2).min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

/// An overlay of `pw`×`ph` percent, at least `min_w`×`min_h` cells.
pub fn centred(area: Rect, pw: u16, ph: u16, min_w: u16, min_h: u16) -> Rect {
    let w = (area.width * pw / 100).max(min_w).min(area.width);
    let h = (area.height * ph / 100).max(min_h).min(area.height);
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panes_fit_at_80_by_24_and_wide() {
        for (w, h) in [(80, 24), (160, 48), (20, 5)] {
            let p = panes(Rect::new(0, 0, w, h));
            for r in [p.calls, p.detail, p.audit, p.status] {
                assert!(r.right() <= w && r.bottom() <= h, "{r:?} in {w}x{h}");
            }
        }
        let p = panes(Rect::new(0, 0, 80, 24));
        assert!(body(p.calls).height >= 7, "{p:?}");
        assert!(body(p.audit).height >= 3, "{p:?}");
    }
}
