//! The `airlock sessions` and `airlock log` commands: their arguments and
//! what they do, writing to the writers the binary hands in.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};

use super::filter::{CallFilter, DecisionFilter, parse_since};
use super::log::{Format, LogOptions, LogSummary, write_log};
use super::sessions::{session_rows, write_sessions, write_sessions_json};
use super::term::{Printer, Text};
use super::{Style, follow, verify_text, write_json};
use crate::audit::reader::{LineProblem, ResolveError, resolve_trail};
use crate::audit::timeline::Timeline;

/// How often `--follow` looks for new records.
const FOLLOW_POLL: Duration = Duration::from_millis(200);

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorChoice {
    /// Whether to colour, given whether stdout is a terminal.
    pub fn enabled(self, stdout_is_terminal: bool) -> bool {
        match self {
            Self::Always => true,
            Self::Never => false,
            Self::Auto => {
                stdout_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

/// `airlock sessions`.
#[derive(Debug, Clone, Args)]
pub struct SessionsArgs {
    /// One JSON object per session instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `airlock log`.
#[derive(Debug, Clone, Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "one bool per command-line flag"
)]
pub struct LogArgs {
    /// The session: its id, any unique part of it (`70c2`), or a path to a trail
    /// (.jsonl). Default: the newest.
    #[arg(value_name = "SESSION", conflicts_with = "last")]
    pub session: Option<String>,
    /// The newest session.
    #[arg(long)]
    pub last: bool,
    /// Only calls of these tools (comma-separated or repeated).
    #[arg(long, value_delimiter = ',', value_name = "TOOL")]
    pub tool: Vec<String>,
    /// Only calls decided so: approved, auto, user (or you), denied,
    /// blocked, refused, timeout, cancelled, pending, error.
    #[arg(long, value_delimiter = ',', value_name = "DECISION")]
    pub decision: Vec<DecisionFilter>,
    /// Only calls of these agents (name or id).
    #[arg(long, value_delimiter = ',', value_name = "AGENT")]
    pub agent: Vec<String>,
    /// Only what happened since: an RFC 3339 time or a span (10m, 2h, 1d).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
    /// Only calls whose summary, arguments, reason, output excerpt or diff
    /// contain this text (case-insensitive).
    #[arg(long, value_name = "TEXT")]
    pub grep: Option<String>,
    /// Print the trail's records as JSON lines, unchanged.
    #[arg(long)]
    pub json: bool,
    /// Keep printing as the session writes, until it ends.
    #[arg(long, short = 'f', conflicts_with = "verify")]
    pub follow: bool,
    /// Check sequence numbers, the hash chain, the trail's anchor and its
    /// end; exit 1 at the first line that does not verify, or when the
    /// trail is cut short or its session never ended.
    #[arg(long, conflicts_with_all = ["json", "tool", "decision", "agent", "since", "grep"])]
    pub verify: bool,
    /// Colour the output.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// A report command failed before it could say anything useful.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The session argument names no single trail.
    #[error(transparent)]
    Resolve(#[from] ResolveError),
    /// A filter is invalid.
    #[error("{0}")]
    Filter(String),
    /// Reading the trail or writing the output failed.
    #[error("{path}: {source}")]
    Io {
        /// The trail or directory.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// A closed pipe (`airlock log | head`) is not an error.
fn io_result<T: Default>(path: &Path, r: std::io::Result<T>) -> Result<T, ReportError> {
    match r {
        Ok(v) => Ok(v),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(T::default()),
        Err(source) => Err(ReportError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// `airlock sessions`: the table (or JSON) of the trails in `data_dir`.
pub fn sessions_command(
    args: &SessionsArgs,
    data_dir: &Path,
    out: &mut dyn Write,
    stdout_is_terminal: bool,
) -> Result<(), ReportError> {
    let dir = crate::dirs::audit_dir(data_dir);
    let rows = io_result(&dir, session_rows(&dir))?;
    let style = Style::new(args.color.enabled(stdout_is_terminal));
    let written = if args.json {
        write_sessions_json(out, &rows)
    } else {
        write_sessions(out, &rows, style)
    };
    io_result(&dir, written.and_then(|()| out.flush()))
}

/// `airlock log`. Returns false when `--verify` found a problem. Notes
/// about bad or torn lines go to `err`.
pub fn log_command(
    args: &LogArgs,
    data_dir: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
    stdout_is_terminal: bool,
) -> Result<bool, ReportError> {
    let dir = crate::dirs::audit_dir(data_dir);
    let trail = resolve_trail(&dir, args.session.as_deref())?;
    let path = trail.path.as_path();
    if args.verify {
        let report = crate::audit::verify_file(path).map_err(|source| ReportError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let (text, ok) = verify_text(path, &report);
        let target: &mut dyn Write = if ok { out } else { err };
        io_result(
            path,
            Printer::new(target, Style::default()).line(&Text::lines_of(&text)),
        )?;
        return Ok(ok);
    }
    let since = match &args.since {
        Some(s) => Some(parse_since(s, chrono::Utc::now()).map_err(ReportError::Filter)?),
        None => None,
    };
    let opts = LogOptions {
        filter: CallFilter {
            tools: args.tool.clone(),
            decisions: args.decision.clone(),
            agents: args.agent.clone(),
            since,
            grep: args.grep.clone(),
        },
        format: if args.json {
            Format::Json
        } else {
            Format::Human
        },
        style: Style::new(args.color.enabled(stdout_is_terminal) && !args.json),
    };
    if args.follow {
        let mut note = |p: &LineProblem| {
            let _ = Printer::new(err, Style::default())
                .line(&Text::from(format!("airlock log: {}: {p}", path.display())));
        };
        io_result(path, follow(path, opts, out, FOLLOW_POLL, &mut note))?;
        return Ok(true);
    }
    let summary = match opts.format {
        Format::Json => io_result(path, write_json(out, path, &opts.filter))?,
        Format::Human => {
            let t = io_result(path, Timeline::load(path))?;
            let mut buf = std::io::BufWriter::with_capacity(1 << 16, &mut *out);
            let s = io_result(path, write_log(&mut buf, &t, &opts))?;
            io_result(path, buf.flush())?;
            s
        }
    };
    report_problems(err, path, &summary);
    Ok(true)
}

/// Bad lines and a torn last line, on stderr; many bad lines are counted,
/// not listed.
fn report_problems(err: &mut dyn Write, path: &Path, s: &LogSummary) {
    const MAX_LISTED: usize = 5;
    let mut err = Printer::new(err, Style::default());
    let mut say = |line: String| {
        let _ = err.line(&Text::from(line));
    };
    for p in s.problems.iter().take(MAX_LISTED) {
        say(format!("airlock log: {}: {p}", path.display()));
    }
    if s.problems.len() > MAX_LISTED {
        say(format!(
            "airlock log: … and {} more bad lines",
            s.problems.len() - MAX_LISTED
        ));
    }
    if let Some(t) = &s.torn_tail {
        say(format!("airlock log: {}: {t}", path.display()));
    }
}
