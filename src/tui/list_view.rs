//! Selection and scrolling of a list whose items have absolute positions
//! `first..end` (old items may be dropped at the front). Following means
//! the newest item stays selected and visible as items arrive.

/// A list's selection and scroll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ListView {
    /// The selected position (ignored while following).
    pub selected: usize,
    /// The first visible position.
    pub offset: usize,
    /// Stick to the newest item.
    pub follow: bool,
}

impl Default for ListView {
    fn default() -> Self {
        Self {
            selected: 0,
            offset: 0,
            follow: true,
        }
    }
}

impl ListView {
    /// The selected position within `first..end` (None when empty).
    pub fn selection(&self, first: usize, end: usize) -> Option<usize> {
        if end <= first {
            return None;
        }
        Some(if self.follow {
            end - 1
        } else {
            self.selected.clamp(first, end - 1)
        })
    }

    /// The visible positions `start..stop` for `height` rows.
    pub fn window(&self, first: usize, end: usize, height: usize) -> (usize, usize) {
        let Some(sel) = self.selection(first, end) else {
            return (first, first);
        };
        let height = height.max(1);
        let mut off = if self.follow {
            end.saturating_sub(height).max(first)
        } else {
            self.offset.clamp(first, end - 1)
        };
        if sel < off {
            off = sel;
        }
        if sel >= off + height {
            off = sel + 1 - height;
        }
        (off, (off + height).min(end))
    }

    /// Move the selection by `delta` rows; reaching the newest item
    /// follows again.
    pub fn move_by(&mut self, delta: isize, first: usize, end: usize, height: usize) {
        let Some(sel) = self.selection(first, end) else {
            return;
        };
        let (off, _) = self.window(first, end, height);
        let to = sel.saturating_add_signed(delta).clamp(first, end - 1);
        self.selected = to;
        self.offset = off;
        self.follow = to + 1 == end;
        self.offset = self.window(first, end, height).0;
    }

    /// Select the oldest item.
    pub fn top(&mut self, first: usize) {
        self.selected = first;
        self.offset = first;
        self.follow = false;
    }

    /// Select the newest item and follow.
    pub fn bottom(&mut self) {
        self.follow = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_until_moved_and_again_at_the_bottom() {
        let mut v = ListView::default();
        assert_eq!(v.window(0, 100, 10), (90, 100));
        v.move_by(-1, 0, 100, 10);
        assert!(!v.follow);
        assert_eq!(v.selection(0, 200), Some(98), "stays put as calls arrive");
        assert_eq!(v.window(0, 200, 10), (90, 100));
        v.move_by(-20, 0, 200, 10);
        assert_eq!(v.window(0, 200, 10), (78, 88));
        v.move_by(1000, 0, 200, 10);
        assert!(v.follow);
        v.top(5);
        assert_eq!(v.window(5, 200, 10), (5, 15));
        assert_eq!(ListView::default().window(0, 0, 10), (0, 0));
    }
}
