//! The referee's side of the spawn server (`spawn_server.rs`): started lazily, once per
//! process and stub executable, at the first bot that needs the stub; one connection behind a
//! mutex, one request at a time (a fork is about 100 µs; bots are started from any runtime
//! thread).
//!
//! The server is started from a thread of its own that lives as long as the process: the
//! server's children (every bot's outer stub, made the referee's children by
//! `CLONE_PARENT`) get as their parent the *thread* that started the server, and
//! `PR_SET_PDEATHSIG` fires when that thread exits — a runtime thread or a blocking-pool
//! thread that ended would take every bot with it.
//!
//! Where the server cannot be used the caller starts the bot with an `exec` of the stub, as
//! before: when it cannot be started or does not speak this build's stub protocol, when the
//! kernel refuses its fork (`ServerSpawn::Unavailable`), for a request too big for one
//! message, or when `BAO_SPAWN_SERVER=off` is set. A server that dies or does not answer
//! within [`ANSWER_TIMEOUT`] is killed and another one started for the next try (at most
//! [`MAX_FAILURES`] in a row per stub, then the `exec` way for good); no spawn hangs on it.

use std::io;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{Id, WaitPidFlag, waitid};
use nix::unistd::Pid;

use crate::bot_child::BotChild;
use crate::pump::lock;
use crate::seqpacket;
use crate::spawn_server::SPAWN_SERVER_SUBCOMMAND;
use crate::spawn_wire::{MAX_ANSWER_BYTES, MAX_REQUEST_BYTES, SpawnAnswer, SpawnRequest};
use crate::stub_args::STUB_PROTOCOL;

/// How long the referee waits for the server's greeting or an answer before it gives the
/// server up (it answers in about a fork's time, well under a millisecond; this is for a
/// server that hangs, e.g. stopped by a bot under `--isolation none`, which could stop the
/// referee itself as well).
pub(crate) const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);
/// Failures of the server in a row (it could not start, died, or did not answer) after which
/// bots are started with an `exec` of the stub for the rest of the process.
pub(crate) const MAX_FAILURES: u32 = 3;
/// `BAO_SPAWN_SERVER=off` (or `0`): never use the spawn server (every bot through an `exec`
/// of the stub, as before it existed).
pub(crate) const SWITCH_VARIABLE: &str = "BAO_SPAWN_SERVER";

/// What [`spawn`] did.
#[derive(Debug)]
pub(crate) enum ServerSpawn {
    /// The bot's outer stub runs (boxed: the other variants are small).
    Started(Box<BotChild>),
    /// It could not be started; the error says why (a `SpawnError` as with `Command`).
    Failed(io::Error),
    /// No server here: start the bot with an `exec` of the stub.
    Unavailable,
}

/// Starts a bot's outer stub through the spawn server of `stub` (starting the server first if
/// needed). Blocks for about a fork (like `Command::spawn`); must run on a tokio runtime.
pub(crate) fn spawn(stub: &Path, request: &SpawnRequest) -> ServerSpawn {
    if switched_off() {
        return ServerSpawn::Unavailable;
    }
    let bytes = request.encode();
    if bytes.len() > MAX_REQUEST_BYTES {
        return ServerSpawn::Unavailable;
    }
    let mut servers = lock(&SERVERS);
    // A second try with a new server if the first one failed.
    for _ in 0..2 {
        if servers.failures(stub) >= MAX_FAILURES {
            return ServerSpawn::Unavailable;
        }
        let index = match servers.running.iter().position(|server| server.stub == stub) {
            Some(index) => index,
            None => match Server::start(stub) {
                Ok(server) => {
                    servers.running.push(server);
                    servers.running.len() - 1
                }
                Err(why) => {
                    tracing::debug!("cannot start the spawn server {}: {why}", stub.display());
                    servers.failed(stub, 1);
                    continue;
                }
            },
        };
        let pipes = match Pipes::new() {
            Ok(pipes) => pipes,
            Err(e) => return ServerSpawn::Failed(io::Error::from(e)),
        };
        let answer = servers.running[index].exchange(&bytes, &pipes);
        let Pipes { ours, theirs } = pipes;
        // The child has its own copies now (or never will).
        drop(theirs);
        match answer {
            Ok((SpawnAnswer::Started { pid }, mut fds)) if fds.len() == 1 => {
                servers.succeeded(stub);
                drop(servers);
                let pidfd = fds.remove(0);
                let [stdin, stdout, stderr] = ours;
                return match BotChild::from_pidfd(Pid::from_raw(pid), pidfd, stdin, stdout, stderr) {
                    Ok(child) => ServerSpawn::Started(Box::new(child)),
                    Err(e) => ServerSpawn::Failed(e),
                };
            }
            Ok((SpawnAnswer::Failed { errno, message, pid }, _)) => {
                servers.succeeded(stub);
                if let Some(pid) = pid {
                    reap_own_child(Pid::from_raw(pid));
                }
                let kind = io::Error::from_raw_os_error(errno).kind();
                return ServerSpawn::Failed(io::Error::new(
                    kind,
                    crate::fault::WordedOsError { errno, message },
                ));
            }
            Ok((SpawnAnswer::Unsupported { message, .. }, _)) => {
                tracing::debug!(
                    "no spawn server here ({message}): bots are started with an exec of the stub"
                );
                servers.stop(index);
                servers.failed(stub, MAX_FAILURES);
                return ServerSpawn::Unavailable;
            }
            Ok((answer, fds)) => {
                if let SpawnAnswer::Started { pid } = answer {
                    reap_own_child(Pid::from_raw(pid));
                }
                tracing::debug!(
                    "the spawn server {} answered {answer:?} with {} descriptors",
                    stub.display(),
                    fds.len()
                );
                servers.stop(index);
                servers.failed(stub, 1);
            }
            Err(why) => {
                tracing::debug!("the spawn server {} failed ({why}); starting another", stub.display());
                servers.stop(index);
                servers.failed(stub, 1);
            }
        }
    }
    ServerSpawn::Unavailable
}

/// Whether `BAO_SPAWN_SERVER` switches the server off (read once).
fn switched_off() -> bool {
    static OFF: OnceLock<bool> = OnceLock::new();
    *OFF.get_or_init(|| std::env::var_os(SWITCH_VARIABLE).is_some_and(|value| value == "off" || value == "0"))
}

/// Kills and reaps `pid` if it is a child of this process (one the server forked with
/// `CLONE_PARENT` but could not hand over as a bot: it exits by itself at once, without running
/// anything); any other pid is left alone.
fn reap_own_child(pid: Pid) {
    let ours =
        waitid(Id::Pid(pid), WaitPidFlag::WEXITED | WaitPidFlag::WNOHANG | WaitPidFlag::WNOWAIT).is_ok();
    if ours {
        let _ = kill(pid, Signal::SIGKILL);
        while waitid(Id::Pid(pid), WaitPidFlag::WEXITED) == Err(Errno::EINTR) {}
    }
}

static SERVERS: Mutex<Servers> = Mutex::new(Servers { running: Vec::new(), failures: Vec::new() });

/// The running servers, one per stub executable, and the failures in a row of each.
struct Servers {
    running: Vec<Server>,
    failures: Vec<(PathBuf, u32)>,
}

impl Servers {
    fn failures(&self, stub: &Path) -> u32 {
        self.failures.iter().find(|(path, _)| path == stub).map_or(0, |(_, n)| *n)
    }

    fn failed(&mut self, stub: &Path, count: u32) {
        match self.failures.iter_mut().find(|(path, _)| path == stub) {
            Some((_, n)) => *n = n.saturating_add(count),
            None => self.failures.push((stub.to_path_buf(), count)),
        }
    }

    fn succeeded(&mut self, stub: &Path) {
        self.failures.retain(|(path, _)| path != stub);
    }

    /// Kills and reaps the server at `index`.
    fn stop(&mut self, index: usize) {
        let mut server = self.running.swap_remove(index);
        let _ = server.process.kill();
        let _ = server.process.wait();
    }
}

/// One running server and the referee's end of its socket.
struct Server {
    stub: PathBuf,
    socket: OwnedFd,
    process: std::process::Child,
}

impl Server {
    /// Starts the server (from the spawner thread) and reads its greeting.
    fn start(stub: &Path) -> Result<Self, String> {
        let (ours, theirs) = seqpacket::pair().map_err(|e| format!("cannot make its socket: {e}"))?;
        seqpacket::set_timeouts(ours.as_fd(), ANSWER_TIMEOUT)
            .map_err(|e| format!("cannot set timeouts: {e}"))?;
        // Its stderr is the referee's (for its own rare complaints); /dev/null if there is none.
        let stderr =
            std::io::stderr().as_fd().try_clone_to_owned().map_or_else(|_| Stdio::null(), Stdio::from);
        let mut command = std::process::Command::new(stub);
        command
            .arg(SPAWN_SERVER_SUBCOMMAND)
            .arg("--parent-pid")
            .arg(std::process::id().to_string())
            .stdin(Stdio::from(theirs))
            .stdout(Stdio::null())
            .stderr(stderr);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut process = on_the_spawner_thread(move || command.spawn())
            .ok_or_else(|| "no thread to start it from".to_owned())?
            .map_err(|e| format!("cannot run it: {e}"))?;
        let mut greeting = [0u8; 256];
        match seqpacket::receive(ours.as_fd(), &mut greeting) {
            Ok(Some(received))
                if !received.truncated && &greeting[..received.len] == STUB_PROTOCOL.as_bytes() =>
            {
                Ok(Self { stub: stub.to_path_buf(), socket: ours, process })
            }
            other => {
                let _ = process.kill();
                let _ = process.wait();
                Err(match other {
                    Ok(Some(received)) => format!(
                        "it greeted with {:?}, not {STUB_PROTOCOL:?}",
                        String::from_utf8_lossy(&greeting[..received.len.min(greeting.len())])
                    ),
                    Ok(None) => "it ended without a greeting (a stub of another build?)".to_owned(),
                    Err(e) => format!("no greeting: {e}"),
                })
            }
        }
    }

    /// Sends one request with the child's ends of its pipes; the answer and its descriptors.
    fn exchange(&self, request: &[u8], pipes: &Pipes) -> Result<(SpawnAnswer, Vec<OwnedFd>), String> {
        let [stdin, stdout, stderr] = &pipes.theirs;
        seqpacket::send(self.socket.as_fd(), request, &[stdin.as_fd(), stdout.as_fd(), stderr.as_fd()])
            .map_err(|e| format!("cannot send it a request: {e}"))?;
        let mut buffer = [0u8; MAX_ANSWER_BYTES];
        let received = match seqpacket::receive(self.socket.as_fd(), &mut buffer) {
            Ok(Some(received)) if !received.truncated => received,
            Ok(Some(_)) => return Err("its answer was truncated".to_owned()),
            Ok(None) => return Err("it closed its socket".to_owned()),
            Err(Errno::EAGAIN) => return Err(format!("no answer within {ANSWER_TIMEOUT:?}")),
            Err(e) => return Err(format!("cannot read its answer: {e}")),
        };
        let answer =
            SpawnAnswer::decode(&buffer[..received.len]).map_err(|e| format!("a bad answer: {e}"))?;
        Ok((answer, received.fds))
    }
}

/// The three pipes of a bot: the referee's ends (stdin's write end, stdout's and stderr's read
/// ends) and the child's, all close-on-exec.
struct Pipes {
    ours: [OwnedFd; 3],
    theirs: [OwnedFd; 3],
}

impl Pipes {
    fn new() -> Result<Self, Errno> {
        let pipe = || nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC);
        let (stdin_read, stdin_write) = pipe()?;
        let (stdout_read, stdout_write) = pipe()?;
        let (stderr_read, stderr_write) = pipe()?;
        Ok(Self {
            ours: [stdin_write, stdout_read, stderr_read],
            theirs: [stdin_read, stdout_write, stderr_write],
        })
    }
}

/// Runs `job` on the spawner thread, which lives as long as the process (see the module
/// docs), and returns its result; `None` if that thread cannot be started.
fn on_the_spawner_thread<T: Send + 'static>(job: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    type Job = Box<dyn FnOnce() + Send>;
    static JOBS: OnceLock<mpsc::Sender<Job>> = OnceLock::new();
    let jobs = JOBS.get_or_init(|| {
        let (sender, jobs) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new().name("bao spawn server".to_owned()).spawn(move || {
            for job in jobs {
                // A panic must not end this thread: every stub it started would be killed.
                // The job's caller then sees its answer channel closed (`None`).
                drop(std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)));
            }
            // Never ends: its children's parent-death signal is tied to it.
            loop {
                std::thread::park();
            }
        });
        if let Err(e) = thread {
            tracing::debug!("cannot start the spawn server's thread: {e}");
        }
        sender
    });
    let (done, result) = mpsc::sync_channel(1);
    jobs.send(Box::new(move || drop(done.send(job())))).ok()?;
    result.recv().ok()
}

#[cfg(test)]
mod tests {
    use crate::{BotProcess, BotSpec, Isolation, ResourceLimits, SpawnOptions, StubChoice};

    /// A stub that cannot be a spawn server (a stub of an older build, here a script that
    /// only knows `__exec-bot`) is still used, with an `exec` per bot; after a few tries the
    /// server is not asked for again.
    #[tokio::test]
    async fn a_stub_that_is_no_spawn_server_is_exec_d_instead() {
        let dir = tempfile::tempdir().unwrap();
        let stub = dir.path().join("stub");
        let script = "#!/bin/sh\n[ \"$1\" = __exec-bot ] || exit 2\nwhile [ \"$1\" != -- ]; do shift; done\nshift\nexec \"$@\"\n";
        crate::test_executable::write(&stub, script);
        let options = SpawnOptions {
            stub: StubChoice::Path(stub.clone()),
            cgroup: false,
            isolation: Isolation::NONE,
            ..SpawnOptions::default()
        };
        // Something for the stub to do.
        let limits = ResourceLimits { max_cpu_secs: Some(10), ..ResourceLimits::default() };
        let spec = BotSpec {
            name: None,
            program: "sh".into(),
            args: vec!["-c".into(), "echo hi".into()],
            dir: None,
        };
        for _ in 0..3 {
            let mut bot = BotProcess::spawn_with(&spec, &limits, &options).await.expect("the bot starts");
            assert!(bot.supervision().stub && !bot.supervision().spawn_server, "{}", bot.supervision());
            let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(5);
            assert_eq!(bot.recv_line(deadline).await.unwrap(), "hi");
            let report = bot.shutdown(std::time::Duration::from_secs(1)).await;
            assert_eq!(report.code, Some(0), "{report}");
        }
        assert!(super::lock(&super::SERVERS).failures(&stub) >= super::MAX_FAILURES);
    }
}
