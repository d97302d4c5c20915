//! `airlock log --follow`: print a live trail as it is written. The file
//! is polled; a last line still being written is held back until its
//! newline arrives. Human output prints a call once it has a result (and
//! a note while it waits or runs); JSON prints a call's records as soon as
//! the filter can tell that the call matches.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::Path;
use std::time::Duration;

use super::filter::Tri;
use super::log::{Format, LogOptions, call_line, event_line};
use super::term::Printer;
use crate::audit::reader::{LineProblem, LineSource, parse_record};
use crate::audit::timeline::{CallState, Pushed, Timeline};
use crate::call::CallId;

/// Idle polls after which a partial last line is reported as torn.
const TORN_AFTER_IDLE_POLLS: u32 = 10;

#[derive(Debug)]
enum JsonState {
    /// The call matches: its records are written as they come.
    Emit,
    /// It does not: its records are skipped.
    Drop,
    /// Not known yet: its records wait here.
    Hold(Vec<Vec<u8>>),
}

/// Follows one trail.
#[derive(Debug)]
pub struct Follower {
    src: LineSource,
    timeline: Timeline,
    opts: LogOptions,
    json: HashMap<CallId, JsonState>,
    /// Human: calls without a result, with the status last shown for them.
    open: BTreeSet<usize>,
    shown_status: HashMap<usize, CallState>,
    problems: Vec<LineProblem>,
    idle_polls: u32,
    torn_reported: bool,
}

impl Follower {
    /// Follow the trail at `path` from its first line.
    pub fn new(path: &Path, opts: LogOptions) -> Self {
        Self {
            src: LineSource::new(path),
            timeline: Timeline::default(),
            opts,
            json: HashMap::new(),
            open: BTreeSet::new(),
            shown_status: HashMap::new(),
            problems: Vec::new(),
            idle_polls: 0,
            torn_reported: false,
        }
    }

    /// The timeline read so far.
    pub fn timeline(&self) -> &Timeline {
        &self.timeline
    }

    /// The session has ended (`session_end` was read).
    pub fn ended(&self) -> bool {
        self.timeline.ended.is_some()
    }

    /// Problems found since the last call (bad lines, a torn last line).
    pub fn take_problems(&mut self) -> Vec<LineProblem> {
        std::mem::take(&mut self.problems)
    }

    /// Read what was appended and write what passes. Returns how many new
    /// lines were read.
    pub fn poll(&mut self, w: &mut dyn Write) -> std::io::Result<usize> {
        let mut fresh: Vec<(usize, Vec<u8>)> = Vec::new();
        self.src
            .read_new(|n, bytes| fresh.push((n, bytes.to_vec())))?;
        for (n, bytes) in &fresh {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let record = match parse_record(*n, bytes) {
                Ok(r) => r,
                Err(p) => {
                    self.problems.push(p);
                    continue;
                }
            };
            let (call, ts) = (record.call_id(), record.ts);
            let pushed = self.timeline.push(record);
            match self.opts.format {
                Format::Json => self.json_record(w, bytes, call, ts, pushed)?,
                Format::Human => self.human_record(w, pushed)?,
            }
        }
        if !fresh.is_empty() {
            self.idle_polls = 0;
        }
        if self.ended() {
            self.flush_held(w)?;
        }
        w.flush()?;
        Ok(fresh.len())
    }

    fn json_record(
        &mut self,
        w: &mut dyn Write,
        bytes: &[u8],
        call: Option<CallId>,
        ts: chrono::DateTime<chrono::Utc>,
        pushed: Pushed,
    ) -> std::io::Result<()> {
        let filter = &self.opts.filter;
        let Some(id) = call else {
            if filter.passes_event(ts) {
                write_line(w, bytes)?;
            }
            return Ok(());
        };
        if filter.is_empty() {
            return write_line(w, bytes);
        }
        let state = self.json.entry(id).or_insert(JsonState::Hold(Vec::new()));
        let held = match state {
            JsonState::Emit => return write_line(w, bytes),
            JsonState::Drop => return Ok(()),
            JsonState::Hold(held) => held,
        };
        held.push(bytes.to_vec());
        let verdict = match pushed {
            Pushed::Call(i) => filter.check(&self.timeline.calls[i], false),
            _ => Tri::No,
        };
        match verdict {
            Tri::Yes => {
                for l in held.iter() {
                    write_line(w, l)?;
                }
                *state = JsonState::Emit;
            }
            Tri::No => *state = JsonState::Drop,
            Tri::Unknown => {}
        }
        Ok(())
    }

    /// The session ended: calls still undecided by the filter are judged
    /// on what the trail holds.
    fn flush_held(&mut self, w: &mut dyn Write) -> std::io::Result<()> {
        let mut ids: Vec<CallId> = self
            .json
            .iter()
            .filter(|(_, s)| matches!(s, JsonState::Hold(_)))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        for id in ids {
            let yes = self
                .timeline
                .call(id)
                .is_some_and(|c| self.opts.filter.check(c, true) == Tri::Yes);
            if let Some(JsonState::Hold(held)) = self.json.insert(id, JsonState::Drop)
                && yes
            {
                for l in &held {
                    write_line(w, l)?;
                }
            }
        }
        Ok(())
    }

    fn human_record(&mut self, w: &mut dyn Write, pushed: Pushed) -> std::io::Result<()> {
        let mut out = Printer::new(w, self.opts.style);
        match pushed {
            Pushed::Event(i) => {
                let e = &self.timeline.events[i];
                if self.opts.filter.passes_event(e.at.ts) {
                    out.line(&event_line(e))?;
                }
            }
            Pushed::Call(i) => {
                let c = &self.timeline.calls[i];
                if c.finished.is_none() {
                    self.open.insert(i);
                    return Ok(());
                }
                self.open.remove(&i);
                self.shown_status.remove(&i);
                if self.opts.filter.check(c, true) == Tri::Yes {
                    let ws = self.timeline.session.as_ref().map(|s| s.workspace.as_str());
                    out.line(&call_line(c, ws, true))?;
                }
            }
            Pushed::Orphan => {}
        }
        Ok(())
    }

    /// Nothing new arrived: show calls that wait for a decision or are
    /// still running (again when that changes), and report a last line
    /// that stays without its newline.
    pub fn idle(&mut self, w: &mut dyn Write) -> std::io::Result<()> {
        self.idle_polls = self.idle_polls.saturating_add(1);
        if self.idle_polls >= TORN_AFTER_IDLE_POLLS
            && !self.torn_reported
            && let Some(p) = self.src.torn_tail()
        {
            self.problems.push(p);
            self.torn_reported = true;
        }
        if self.opts.format != Format::Human {
            return Ok(());
        }
        let ws = self.timeline.session.as_ref().map(|s| s.workspace.as_str());
        let mut out = Printer::new(w, self.opts.style);
        for &i in &self.open {
            let c = &self.timeline.calls[i];
            let status = c.status();
            if self.shown_status.get(&i) == Some(&status)
                || self.opts.filter.check(c, false) == Tri::No
            {
                continue;
            }
            out.line(&call_line(c, ws, true))?;
            self.shown_status.insert(i, status);
        }
        out.flush()
    }
}

fn write_line(w: &mut dyn Write, bytes: &[u8]) -> std::io::Result<()> {
    w.write_all(bytes)?;
    w.write_all(b"\n")
}

/// Follow the trail at `path`, writing to `w`, polling every `interval`,
/// until the session ends. `on_problem` hears about bad and torn lines.
pub fn follow(
    path: &Path,
    opts: LogOptions,
    w: &mut dyn Write,
    interval: Duration,
    mut on_problem: impl FnMut(&LineProblem),
) -> std::io::Result<()> {
    let mut f = Follower::new(path, opts);
    loop {
        let n = f.poll(w)?;
        for p in f.take_problems() {
            on_problem(&p);
        }
        if f.ended() {
            return Ok(());
        }
        if n == 0 {
            f.idle(w)?;
            for p in f.take_problems() {
                on_problem(&p);
            }
            std::thread::sleep(interval);
        }
    }
}
