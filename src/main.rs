//! The `airlock` binary: parse the command line, then call into the library.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Args, Parser, Subcommand};

use airlock::call::SessionMode;
use airlock::policy::Mode;
use airlock::sandbox::{SandboxMode, SandboxOverrides, SandboxState};
use airlock::session::{self, SessionOptions};
use airlock::supervisor::{ApproveAllConfirmer, Confirmer, HeadlessConfirmer};

/// airlock supervises AI agents: read-only tool calls run at once, bash
/// commands and file writes wait for your approval, and everything lands in
/// an append-only audit trail.
#[derive(Debug, Parser)]
#[command(name = "airlock", version, about, long_about = None)]
struct Cli {
    /// Where audit trails and logs go.
    #[arg(long, value_name = "DIR", env = "AIRLOCK_DATA_DIR", global = true)]
    data_dir: Option<PathBuf>,

    #[command(flatten)]
    session: SessionArgs,

    #[command(subcommand)]
    command: Option<Command>,
}

/// Options of the commands that run a supervisor session on a workspace
/// (the TUI, `serve`) or read its configuration (`config`); the other
/// subcommands do not list them.
#[derive(Debug, Clone, Default, Args)]
struct SessionArgs {
    /// The workspace agents work in (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,

    /// Also serve MCP on Streamable HTTP, at ADDR (default: `[http]
    /// listen`, else 127.0.0.1 on a free port). The URL, with its secret:
    /// `airlock connect --print-url`.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "")]
    http: Option<String>,

    #[command(flatten)]
    run: RunArgs,
}

/// How a session runs: also `demo`'s, whose workspace is its own.
#[derive(Debug, Clone, Default, Args)]
struct RunArgs {
    /// An extra config file, read after the user and project files.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,

    /// The policy mode, overriding the config: default (writes and bash
    /// ask), read-only (writes and bash refused), trust-edits (writes inside
    /// the workspace run without asking).
    #[arg(long, value_enum)]
    mode: Option<Mode>,

    /// The bash sandbox, overriding the config: workspace-write (writes only
    /// in the workspace and a private /tmp), read-only, off.
    #[arg(long, value_enum, value_name = "MODE")]
    sandbox: Option<SandboxMode>,

    /// Let sandboxed shells reach the network.
    #[arg(long)]
    allow_network: bool,
}

impl SessionArgs {
    /// The subcommand's own options, each falling back to the one given
    /// before the subcommand (`airlock --workspace D serve --stdio`).
    fn or(self, top: &SessionArgs) -> SessionArgs {
        let (run, t) = (self.run, &top.run);
        SessionArgs {
            workspace: self.workspace.or_else(|| top.workspace.clone()),
            http: self.http.or_else(|| top.http.clone()),
            run: RunArgs {
                config: run.config.or_else(|| t.config.clone()),
                mode: run.mode.or(t.mode),
                sandbox: run.sandbox.or(t.sandbox),
                allow_network: run.allow_network || t.allow_network,
            },
        }
    }
}

/// What a session is started with: the data directory and the session
/// options, wherever on the command line they were given.
#[derive(Debug)]
struct Resolved {
    data_dir: Option<PathBuf>,
    config: Option<PathBuf>,
    mode: Option<Mode>,
    sandbox: Option<SandboxMode>,
    allow_network: bool,
    http: Option<String>,
}

impl Resolved {
    fn new(data_dir: Option<PathBuf>, s: SessionArgs) -> (Option<PathBuf>, Resolved) {
        let g = Resolved {
            data_dir,
            http: s.http,
            config: s.run.config,
            mode: s.run.mode,
            sandbox: s.run.sandbox,
            allow_network: s.run.allow_network,
        };
        (s.workspace, g)
    }
}

/// `airlock init`'s arguments.
#[derive(Debug, clap::Args)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "command-line switches, one bool each"
)]
struct InitArgs {
    /// The agent.
    #[arg(value_enum)]
    agent: airlock::init::Agent,
    /// The project (default: the current directory).
    #[arg(long, value_name = "DIR")]
    workspace: Option<PathBuf>,
    /// Write the project-level files (in --workspace, default the
    /// current directory) instead of the user's.
    #[arg(long)]
    project: bool,
    /// Take out what an earlier `airlock init` added, nothing else.
    #[arg(long)]
    remove: bool,
    /// Print the change as a diff; write nothing.
    #[arg(long)]
    dry_run: bool,
    /// Also mark the project folder trusted in the agent's own trust
    /// list (Gemini and Codex ignore project settings, and Gemini its
    /// MCP servers, in untrusted folders).
    #[arg(long)]
    trust_folder: bool,
    /// Register the running supervisor's Streamable HTTP URL (start it
    /// with `airlock --http`) instead of `airlock connect`.
    #[arg(long)]
    http: bool,
    /// Leave the agent's hooks out: airlock then sees only calls to its
    /// own MCP tools, and the agent's own shell and edit tools are
    /// turned off where the agent allows it.
    #[arg(long)]
    no_hooks: bool,
    /// Leave airlock's MCP server out (hooks only).
    #[arg(long, conflicts_with = "no_hooks")]
    no_mcp: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Print the effective configuration and which file each value came
    /// from.
    Config(SessionArgs),
    /// Trust the project's .airlock.toml as it is now: show what in it
    /// loosens your configuration, then apply all of it from now on (until
    /// its content changes). Untrusted, it may only tighten.
    Trust {
        /// The project (default: the current directory).
        #[arg(long, value_name = "DIR")]
        workspace: Option<PathBuf>,
        /// Take the trust back (and the rules saved with "always").
        #[arg(long)]
        revoke: bool,
    },
    /// Relay an agent's stdio MCP connection to the running supervisor
    /// (what an agent's MCP config launches).
    Connect {
        /// The supervisor's socket (default: AIRLOCK_SOCKET, else the
        /// supervisor whose workspace contains the current directory).
        #[expect(
            clippy::doc_markdown,
            reason = "clap's --help text, shown as written (no markdown)"
        )]
        #[arg(long, value_name = "PATH", env = "AIRLOCK_SOCKET")]
        socket: Option<PathBuf>,
        /// Wait for a supervisor to start instead of failing.
        #[arg(long)]
        wait: bool,
        /// Print the supervisor's Streamable HTTP URL (secret included)
        /// and exit, instead of relaying.
        #[arg(long)]
        print_url: bool,
    },
    /// Configure an agent to use airlock: its MCP registration (`airlock
    /// connect`, with what that agent needs) and its hooks (`airlock hook
    /// AGENT` before and after each of its own tool calls), keeping
    /// everything else in its files (backup beside each file changed).
    Init(InitArgs),
    /// Try airlock on a throw-away sample workspace, with a built-in agent
    /// that makes every kind of call and waits for your answers.
    Demo(RunArgs),
    /// A headless MCP server (no TUI): calls that need a human are denied
    /// unless --approve-all is given.
    Serve {
        /// Serve on stdin/stdout.
        #[arg(long, required_unless_present = "http", conflicts_with = "http")]
        stdio: bool,
        /// Approve every call that would need a human (audited as such).
        #[arg(long)]
        approve_all: bool,
        #[command(flatten)]
        session: SessionArgs,
    },
    /// The audit trails in the data directory, newest first, with what
    /// happened in each.
    Sessions(airlock::report::cli::SessionsArgs),
    /// One session's audit trail as a timeline or JSON lines; --verify
    /// checks that it is whole (hash chain, anchor, end).
    Log(airlock::report::cli::LogArgs),
    /// Answer an agent's hook for one of its own tool calls (what `airlock
    /// init` installs): reads the event on stdin, asks the supervisor for
    /// the workspace, prints the agent's decision. Without a supervisor the
    /// call goes back to the agent's own approval (`[hooks] when_absent`).
    Hook {
        /// The agent whose hook this is.
        #[arg(value_enum)]
        agent: airlock::hooks::HookAgent,
        /// The supervisor's socket (default: AIRLOCK_SOCKET, else the
        /// supervisor whose workspace contains the event's directory).
        #[expect(
            clippy::doc_markdown,
            reason = "clap's --help text, shown as written (no markdown)"
        )]
        #[arg(long, value_name = "PATH", env = "AIRLOCK_SOCKET")]
        socket: Option<PathBuf>,
        /// Refuse the call when no decision came within SECS (set it below
        /// the agent's own hook timeout).
        #[arg(long, value_name = "SECS")]
        timeout: Option<u64>,
        /// An extra config file, read only when no supervisor runs.
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
    },
    /// One session's audit trail in the TUI, read-only: calls, decisions,
    /// diffs; / filters, n/N jump to the next denied or failed call.
    Review(airlock::tui::review::ReviewArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The hook is on the path of every native tool call: no async runtime.
    if let Some(Command::Hook {
        agent,
        socket,
        timeout,
        config,
    }) = cli.command
    {
        return hook(&airlock::hooks::client::Options {
            agent,
            socket,
            timeout: timeout.map(std::time::Duration::from_secs),
            config_file: config,
            data_dir: cli.data_dir,
        });
    }
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("airlock: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `airlock hook`: print the answer, exit as the agent expects. A panic
/// refuses the call (exit 2), never lets it run.
fn hook(opts: &airlock::hooks::client::Options) -> ExitCode {
    std::panic::set_hook(Box::new(|info| {
        eprintln!("airlock hook failed ({info}); the call was refused");
        std::process::exit(i32::from(airlock::hooks::answer::BLOCK_EXIT));
    }));
    let out = airlock::hooks::client::run(opts, &mut std::io::stdin().lock());
    let mut stdout = std::io::stdout().lock();
    if stdout
        .write_all(out.stdout.as_bytes())
        .and_then(|()| stdout.flush())
        .is_err()
    {
        eprintln!("airlock hook: cannot write the answer; the call was refused");
        return ExitCode::from(airlock::hooks::answer::BLOCK_EXIT);
    }
    if !out.stderr.is_empty() {
        eprint!("{}", out.stderr);
    }
    ExitCode::from(out.exit)
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    // Multi-threaded for every command (`serve --stdio` serves its
    // connection on a thread of its own and runs commands here).
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    let runtime = builder
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let top = cli.session;
    let data_dir = cli.data_dir;
    match cli.command {
        Some(Command::Config(sub)) => {
            let (workspace, global) = Resolved::new(data_dir, sub.or(&top));
            config(workspace, &global)
        }
        Some(Command::Connect {
            socket: _,
            wait: _,
            print_url: true,
        }) => {
            let dir = std::env::current_dir().context("cannot read the current directory")?;
            match airlock::mcp::discovery::http_url_for(&dir) {
                Ok(url) => {
                    println!("{url}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    eprintln!("airlock connect: {e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        Some(Command::Connect { socket, wait, .. }) => {
            let say = |msg: &str| eprintln!("airlock connect: {msg}");
            match runtime.block_on(airlock::mcp::relay::connect(socket, wait, say)) {
                Ok(code) => Ok(code),
                Err(e) => {
                    eprintln!("airlock connect: {e:#}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        Some(Command::Serve {
            stdio,
            approve_all,
            session: sub,
        }) => {
            let (workspace, global) = Resolved::new(data_dir, sub.or(&top));
            serve(&runtime, workspace, &global, stdio, approve_all)
        }
        Some(Command::Init(args)) => init(args, top.workspace, data_dir.as_deref()),
        Some(Command::Trust { workspace, revoke }) => {
            let workspace = workspace_or_cwd(workspace.or(top.workspace))?;
            trust(&workspace, data_dir.as_deref(), revoke)
        }
        Some(Command::Demo(run)) => {
            let sub = SessionArgs {
                workspace: None,
                http: None,
                run,
            };
            let (_, global) = Resolved::new(data_dir, sub.or(&top));
            demo(&runtime, &global)
        }
        Some(Command::Sessions(args)) => {
            let data = airlock::dirs::data_dir(data_dir.as_deref());
            let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
            let mut out = std::io::stdout().lock();
            airlock::report::cli::sessions_command(&args, &data, &mut out, tty)?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Log(args)) => {
            let data = airlock::dirs::data_dir(data_dir.as_deref());
            let tty = std::io::IsTerminal::is_terminal(&std::io::stdout());
            let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr());
            let ok = airlock::report::cli::log_command(&args, &data, &mut out, &mut err, tty)?;
            Ok(ExitCode::from(u8::from(!ok)))
        }
        Some(Command::Hook { .. }) => unreachable!("handled before the runtime starts"),
        Some(Command::Review(args)) => {
            if !(std::io::stdin().is_terminal() && std::io::stdout().is_terminal()) {
                anyhow::bail!("review needs a terminal; `airlock log` prints the same trail");
            }
            let data = airlock::dirs::data_dir(data_dir.as_deref());
            runtime.block_on(airlock::tui::run_review_command(&args, &data))?;
            Ok(ExitCode::SUCCESS)
        }
        None => {
            let (workspace, global) = Resolved::new(data_dir, top);
            supervisor(&runtime, workspace, &global)
        }
    }
}

/// `airlock serve --stdio` / `--http`: a headless MCP server.
fn serve(
    runtime: &tokio::runtime::Runtime,
    workspace: Option<PathBuf>,
    global: &Resolved,
    stdio: bool,
    approve_all: bool,
) -> anyhow::Result<ExitCode> {
    let confirmer: Arc<dyn Confirmer> = if approve_all {
        Arc::new(ApproveAllConfirmer)
    } else {
        Arc::new(HeadlessConfirmer)
    };
    let mode = if stdio {
        SessionMode::ServeStdio
    } else {
        SessionMode::ServeHttp
    };
    let opts = session_options(workspace, global, mode)?;
    let _log = init_logging(&opts)?;
    let session = start(&opts, global, confirmer)?;
    if !stdio {
        // The URL (secret included) is the first line on stderr.
        let http = session.config.config.http.clone();
        runtime.block_on(airlock::mcp::http::serve_headless(
            session.supervisor.clone(),
            &http,
            |l| eprintln!("{}", l.url),
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    tracing::info!(audit = %session.audit_path.display(), "serving MCP on stdio");
    // The protocol and the read-only calls on this thread (no hand-off
    // between threads per request); commands and writes on the
    // multi-threaded runtime, so a stream of reads cannot starve a running
    // bash call (tests/log_crash.rs).
    let io = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let work = runtime.handle().clone();
    io.block_on(airlock::mcp::serve_stdio(session.supervisor.clone(), work))?;
    session.supervisor.shutdown("stdin closed");
    Ok(ExitCode::SUCCESS)
}

/// `airlock init AGENT`.
fn init(
    args: InitArgs,
    top_workspace: Option<PathBuf>,
    data_dir: Option<&std::path::Path>,
) -> anyhow::Result<ExitCode> {
    let InitArgs {
        agent,
        workspace,
        project,
        remove,
        dry_run,
        trust_folder,
        http,
        no_hooks,
        no_mcp,
    } = args;
    let dir = match workspace.or(top_workspace) {
        Some(w) => w,
        None => std::env::current_dir().context("cannot read the current directory")?,
    };
    let project_dir = std::fs::canonicalize(&dir)
        .with_context(|| format!("cannot open the project directory {}", dir.display()))?;
    let http_url = if http && !remove {
        Some(airlock::mcp::discovery::http_url_for(&project_dir)?)
    } else {
        None
    };
    let opts = airlock::init::Options {
        agent,
        action: if remove {
            airlock::init::Action::Remove
        } else {
            airlock::init::Action::Install
        },
        project,
        trust_folder,
        dry_run,
        hooks: !no_hooks,
        mcp: !no_mcp,
        command: airlock::init::current_command()?,
        homes: airlock::init::AgentHomes::from_env()?,
        project_dir,
        record_dir: airlock::dirs::init_record_dir(&airlock::dirs::data_dir(data_dir)),
        http_url,
    };
    let report = airlock::init::run(&opts)?;
    // A closed stdout (`| head`) is not an error worth a panic.
    let _ = write!(std::io::stdout().lock(), "{report}");
    Ok(ExitCode::SUCCESS)
}

/// `airlock config`: the effective configuration, where each value came
/// from, and whether the project's file is trusted.
fn config(workspace: Option<PathBuf>, global: &Resolved) -> anyhow::Result<ExitCode> {
    let workspace = session::canonical_workspace(&workspace_or_cwd(workspace)?)?;
    let trust =
        airlock::config::TrustStore::new(&airlock::dirs::data_dir(global.data_dir.as_deref()));
    let loaded = airlock::config::load(&workspace, global.config.as_deref(), &trust)?;
    print!("{}", airlock::config::describe(&loaded));
    if let Ok(url) = airlock::mcp::discovery::http_url_for(&workspace) {
        println!("# a running supervisor serves Streamable HTTP at {url}");
    }
    if let Some(m) = global.mode {
        println!("# --mode {} overrides mode for this run", m.as_str());
    }
    Ok(ExitCode::SUCCESS)
}

/// `airlock trust [--revoke]`: show what the project file loosens, then
/// record the content shown as trusted (or forget it).
fn trust(
    workspace: &std::path::Path,
    data_dir: Option<&std::path::Path>,
    revoke: bool,
) -> anyhow::Result<ExitCode> {
    let workspace = session::canonical_workspace(workspace)?;
    let store = airlock::config::TrustStore::new(&airlock::dirs::data_dir(data_dir));
    let file = airlock::dirs::PROJECT_CONFIG;
    let Some((path, text, canonical)) = airlock::config::project_file(&workspace)? else {
        anyhow::bail!("no {file} in {}", workspace.display());
    };
    let mut out = std::io::stdout().lock();
    if revoke {
        let had = store
            .revoke(&canonical)
            .with_context(|| format!("cannot update the trust store for {}", path.display()))?;
        let said = if had {
            "is no longer trusted: it may only tighten your configuration"
        } else {
            "was not trusted"
        };
        let _ = writeln!(out, "{} {said}", canonical.display());
        return Ok(ExitCode::SUCCESS);
    }
    // What is shown is what is recorded: one read of the file.
    let ignored = airlock::config::loosening(&workspace, &text)?;
    let sha = airlock::config::trust::digest(&text);
    let _ = write!(
        out,
        "{}",
        airlock::config::describe_loosening(&canonical, &sha, &ignored)
    );
    store
        .trust(&canonical, &text)
        .with_context(|| format!("cannot update the trust store for {}", path.display()))?;
    let _ = writeln!(
        out,
        "trusted: airlock applies all of it until its content changes (`airlock trust --revoke` takes it back)"
    );
    Ok(ExitCode::SUCCESS)
}

/// `airlock demo`: the TUI on a throw-away workspace.
fn demo(runtime: &tokio::runtime::Runtime, global: &Resolved) -> anyhow::Result<ExitCode> {
    let mut opts = session_options(None, global, SessionMode::Demo)?;
    let _log = init_logging(&opts)?;
    let demo = airlock::demo::prepare().context("cannot set up the demo workspace")?;
    opts.workspace = demo.workspace().to_path_buf();
    let (confirmer, requests) = airlock::tui::channel();
    let session = start(&opts, global, Arc::new(confirmer))?;
    let tui = airlock::tui::Options {
        label: Some("demo".into()),
        ..Default::default()
    };
    let ended = runtime.block_on(supervise(&session, requests, tui, Some(&demo)))?;
    print_ended(&ended);
    Ok(ExitCode::SUCCESS)
}

/// `airlock` without a subcommand: the TUI on a terminal, else a headless
/// supervisor that says where agents connect.
fn supervisor(
    runtime: &tokio::runtime::Runtime,
    workspace: Option<PathBuf>,
    global: &Resolved,
) -> anyhow::Result<ExitCode> {
    let opts = session_options(workspace, global, SessionMode::Supervisor)?;
    let _log = init_logging(&opts)?;
    if std::io::stdin().is_terminal() && std::io::stdout().is_terminal() {
        let (confirmer, requests) = airlock::tui::channel();
        let session = start(&opts, global, Arc::new(confirmer))?;
        let tui = airlock::tui::Options {
            agent_timeouts: agent_timeouts(&session),
            ..Default::default()
        };
        let ended = runtime.block_on(supervise(&session, requests, tui, None))?;
        print_ended(&ended);
        return Ok(ExitCode::SUCCESS);
    }
    // No terminal (a service, a pipe): serve headless and say so.
    let session = start(&opts, global, Arc::new(HeadlessConfirmer))?;
    let supervisor = session.supervisor.clone();
    runtime.block_on(airlock::mcp::run_supervisor_with(&session, |l| {
        print_where_agents_connect(l);
        if let Err(e) = serve_hooks(&l.socket, supervisor) {
            eprintln!(
                "airlock: cannot answer agent hooks ({e}); their calls go to the agents' own approval"
            );
        }
    }))?;
    Ok(ExitCode::SUCCESS)
}

/// The supervisor's start-up banner/// The supervisor's start-up banner: where agents connect and how.
fn print_where_agents_connect(l: &airlock::mcp::Listening) {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(String::from))
        .unwrap_or_else(|| "airlock".into());
    let config = serde_json::json!({
        "mcpServers": { "airlock": { "command": exe, "args": ["connect"] } }
    });
    println!(
        "airlock {} supervising {}",
        airlock::VERSION,
        l.workspace.display()
    );
    println!("  socket:      {}", l.socket.display());
    println!("  agents run:  airlock connect   (from inside the workspace, or with --socket)");
    println!("  MCP config:  {config}");
    if let Some(http) = &l.http {
        println!("  {}", http.describe());
    }
    println!("  audit trail: {}", l.audit.display());
    println!(
        "No terminal, so no approval prompt: calls that need a human are denied. Ctrl-C stops."
    );
}

/// Answer the agents' hooks beside the MCP socket `socket` (`airlock
/// hook`), until the supervisor stops. Must be called inside the runtime.
fn serve_hooks(
    socket: &std::path::Path,
    supervisor: Arc<airlock::supervisor::Supervisor>,
) -> std::io::Result<()> {
    let hooks = airlock::hooks::HookListener::bind(socket).inspect_err(|e| {
        tracing::warn!("cannot answer agent hooks: {e}");
    })?;
    tracing::info!(socket = %hooks.path().display(), "answering agent hooks");
    tokio::spawn(hooks.serve(supervisor));
    Ok(())
}

/// Serve agents on the workspace's socket and run the TUI on `session`
/// until the human quits or a signal stops the supervisor (the demo's
/// agent starts once agents can connect). The socket server belongs to
/// the session, not the UI: the TUI only consumes its events and answers
/// its confirmer.
async fn supervise(
    session: &session::Session,
    requests: tokio::sync::mpsc::UnboundedReceiver<airlock::tui::ConfirmMsg>,
    mut opts: airlock::tui::Options,
    demo: Option<&airlock::demo::Demo>,
) -> anyhow::Result<airlock::tui::Ended> {
    let runtime = airlock::dirs::runtime_dir().map_err(airlock::mcp::SocketError::RuntimeDir)?;
    let server = airlock::mcp::SocketServer::bind(&runtime, session)?;
    let listening = server.listening().clone();
    // The agents' hooks, beside the MCP socket (nothing is printed: the
    // terminal is the TUI's; a failure is logged and their calls go to the
    // agents' own approval).
    let _ = serve_hooks(&listening.socket, session.supervisor.clone());
    opts.http = listening
        .http
        .as_ref()
        .map(|h| (h.url.clone(), h.loopback()));
    // Subscribed before agents can connect, so the screen misses nothing.
    let tui = airlock::tui::Attached::new(session, &listening.socket, opts);
    let serving = tokio::spawn(server.serve(session.supervisor.clone()));
    if let Some(demo) = demo {
        demo.start_agent(&listening);
    }
    let ended = tui.run(requests).await;
    if tokio::time::timeout(std::time::Duration::from_secs(10), serving)
        .await
        .is_err()
    {
        tracing::warn!("the socket server did not stop in time");
    }
    Ok(ended?)
}

/// What the TUI leaves on the terminal once it is gone.
fn print_ended(ended: &airlock::tui::Ended) {
    println!(
        "airlock: {}; audit trail: {}",
        ended.reason,
        ended.audit.display()
    );
}

/// How long the agents airlock knows wait for a call, from their own config
/// (today Codex's `tool_timeout_sec` for airlock's server), for the prompt.
fn agent_timeouts(session: &session::Session) -> Vec<(String, u64)> {
    let Ok(homes) = airlock::init::AgentHomes::from_env() else {
        return Vec::new();
    };
    airlock::init::codex::airlock_tool_timeout(&homes, &session.workspace)
        .map(|secs| ("codex".to_string(), secs))
        .into_iter()
        .collect()
}

/// `--workspace`, else the current directory.
fn workspace_or_cwd(workspace: Option<PathBuf>) -> anyhow::Result<PathBuf> {
    match workspace {
        Some(w) => Ok(w),
        None => std::env::current_dir().context("cannot read the current directory"),
    }
}

fn session_options(
    workspace: Option<PathBuf>,
    global: &Resolved,
    mode: SessionMode,
) -> anyhow::Result<SessionOptions> {
    Ok(SessionOptions {
        workspace: workspace_or_cwd(workspace)?,
        data_dir: global.data_dir.clone(),
        config_file: global.config.clone(),
        mode,
        policy_mode: global.mode,
        user_config: true,
    })
}

/// Start the session with the sandbox flags; a sandbox weaker than asked
/// for is said on stderr too (the log and the audit trail have it as well).
fn start(
    opts: &SessionOptions,
    global: &Resolved,
    confirmer: Arc<dyn Confirmer>,
) -> anyhow::Result<session::Session> {
    let flags = SandboxOverrides {
        mode: global.sandbox,
        allow_network: global.allow_network.then_some(true),
    };
    let mut session = session::start_with(opts, &flags, confirmer)?;
    session
        .config
        .config
        .http
        .apply_flag(global.http.as_deref());
    let sb = session.sandbox_status();
    let configured_off = sb.mode == SandboxMode::Off;
    if sb.state != SandboxState::Enforced && !configured_off {
        eprintln!("airlock: {}", sb.summary);
    }
    Ok(session)
}

/// Logs go to `<data-dir>/logs/airlock.log`, never to the terminal.
fn init_logging(
    opts: &SessionOptions,
) -> anyhow::Result<tracing_appender::non_blocking::WorkerGuard> {
    let dir = airlock::dirs::log_dir(&airlock::dirs::data_dir(opts.data_dir.as_deref()));
    airlock::dirs::ensure_private_dir(&dir)
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let appender = tracing_appender::rolling::never(&dir, airlock::dirs::LOG_FILE);
    let (writer, guard) = tracing_appender::non_blocking(appender);
    // rmcp's own session span (entered on every poll of every request)
    // and its lifecycle lines stay out of the log unless asked for
    // (`AIRLOCK_LOG=info,rmcp=info`): they cost every call a few
    // microseconds and say nothing airlock's own lines do not.
    let filter = tracing_subscriber::EnvFilter::try_from_env("AIRLOCK_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,rmcp=warn"));
    tracing_subscriber::fmt()
        .with_writer(writer)
        .with_ansi(false)
        .with_env_filter(filter)
        .init();
    Ok(guard)
}
