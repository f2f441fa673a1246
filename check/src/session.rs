//! One bot process under one check: the lines sent and received (recorded in a
//! [`Transcript`]), the handshake, move requests judged like the referee judges them, and
//! the end of the process. Every wait has a deadline.

use std::time::Duration;

use bao_protocol::{ProtocolError, Ready};
use bao_rules::{Move, MoveText, Position, Side};
use tokio::time::Instant;

use bao_game::judge::{self, Cause, Fault};
use bao_game::{Clock, Reason, wire};
use bao_supervise::{BotFault, BotProcess, EndedBy, ExitReport, SpawnError, StderrCapture};

use super::failure::Failure;
use super::settings::Settings;
use super::transcript::{Direction, Transcript};

/// How much of the bot's stderr is kept (the report shows its end).
const STDERR_KEPT: usize = 256 * 1024;
/// How often [`Session::wait_for_exit`] looks at the process while it reads its last lines.
const EXIT_POLL: Duration = Duration::from_millis(20);
/// How long the farewell lines of [`Session::finish`] may take to write.
const FAREWELL_WRITE: Duration = Duration::from_millis(200);

/// What is left of a check's process once it has been ended.
#[derive(Debug, Clone, Default)]
pub struct Finished {
    /// The lines exchanged.
    pub transcript: Transcript,
    /// What the bot wrote to stderr.
    pub stderr: StderrCapture,
    /// A remark for the report of a check that passed (what it did not need to check).
    pub note: Option<String>,
}

/// A running bot and the record of what was exchanged with it.
#[derive(Debug)]
pub struct Session {
    process: Option<BotProcess>,
    transcript: Transcript,
    settings: Settings,
    stderr: Option<StderrCapture>,
    plies: u32,
    game_over: Option<String>,
    quit_sent: bool,
    /// The side the bot plays in the current check (set by [`Session::greet`]).
    side: Side,
    /// See [`Finished::note`].
    pass_note: Option<String>,
}

impl Session {
    /// Starts the bot under the settings' isolation and resource limits.
    ///
    /// # Errors
    /// Why the program could not be started.
    pub async fn start(settings: &Settings) -> Result<Session, SpawnError> {
        let options = bao_supervise::SpawnOptions {
            stderr_cap: STDERR_KEPT,
            isolation: settings.isolation,
            sandbox: settings.sandbox.clone(),
            max_line_bytes: bao_protocol::MAX_LINE_BYTES,
            ..bao_supervise::SpawnOptions::default()
        };
        let process = BotProcess::spawn_with(&settings.spec, &settings.limits, &options).await?;
        Ok(Session {
            process: Some(process),
            transcript: Transcript::default(),
            settings: settings.clone(),
            stderr: None,
            plies: 0,
            game_over: None,
            quit_sent: false,
            side: Side::South,
            pass_note: None,
        })
    }

    /// Adds a remark of the checker to the transcript.
    pub fn note(&mut self, text: &str) {
        self.transcript.push(Direction::Note, text);
    }

    /// Sets the remark shown with the check's result if it passes ([`Finished::note`]).
    pub fn pass_note(&mut self, text: &str) {
        self.pass_note = Some(text.to_owned());
    }

    /// The time control of the game being played (announced in its `hello`, enforced on its
    /// moves): a check that plays a second game in the same process may change it.
    pub fn set_time(&mut self, time: bao_game::TimeControl) {
        self.settings.time = time;
    }

    /// Records how many plies the game has had (for the `game_over` sent at the end).
    pub fn set_plies(&mut self, plies: u32) {
        self.plies = plies;
    }

    /// The `game_over` line to send when the check ends (default: a draw at the ply limit).
    pub fn set_game_over(&mut self, line: String) {
        self.game_over = Some(line);
    }

    fn running(&mut self) -> Result<&mut BotProcess, Failure> {
        self.process.as_mut().ok_or_else(|| Failure::new("internal error: the bot was already stopped"))
    }

    /// Sends one line, recorded, with `within` to write it.
    ///
    /// # Errors
    /// The bot's stdin is closed (it exited) or it does not read.
    pub async fn send(&mut self, line: &str, within: Duration) -> Result<(), Failure> {
        self.transcript.push(Direction::Sent, line);
        let deadline = Instant::now() + within;
        self.running()?.send_line(line, deadline).await.map_err(|fault| {
            Failure::new(format!("could not write to the bot's stdin: {}", describe(&fault)))
        })
    }

    /// Sends `quit` (recorded); [`Session::finish`] then sends nothing more.
    ///
    /// # Errors
    /// As [`Session::send`].
    pub async fn quit(&mut self, within: Duration) -> Result<(), Failure> {
        self.quit_sent = true;
        self.send(&wire::quit_line(), within).await
    }

    /// Sends `hello` and reads lines until `ready` (skipping `info`), within the startup time,
    /// through the game's judge ([`bao_game::judge::handshake`]).
    ///
    /// # Errors
    /// No `ready` in time, another message, an invalid line, or the bot ended.
    pub async fn handshake(&mut self, hello: &str) -> Result<Ready, Failure> {
        let startup = self.settings.time.startup;
        let deadline = Instant::now() + startup;
        let side = self.side;
        let Session { process, transcript, .. } = self;
        let process =
            process.as_mut().ok_or_else(|| Failure::new("internal error: the bot was already stopped"))?;
        judge::handshake(process, side, hello, deadline, transcript).await.map_err(|fault| {
            let what = match &*fault.cause {
                Cause::Process(BotFault::Timeout) => {
                    format!("no ready within the startup time of {} ms", startup.as_millis())
                }
                Cause::Process(f) => format!("{} instead of answering hello with ready", describe(f)),
                Cause::Unexpected(kind) => format!("answered hello with a {kind} message instead of ready"),
                Cause::Malformed(e) => {
                    format!("wrote a line that is not a valid message: {e}{}", stray_output_hint(e))
                }
                _ => fault.detail.clone(),
            };
            Failure::new(format!("{what} (verdict: {})", fault.reason))
        })
    }

    /// The handshake with `hello` (a line the caller made) for the bot playing `side`.
    ///
    /// # Errors
    /// As [`Session::handshake`].
    pub async fn handshake_as(&mut self, side: Side, hello: &str) -> Result<Ready, Failure> {
        self.side = side;
        self.handshake(hello).await
    }

    /// The standard `hello` for the bot playing `side` from `start`, then the handshake.
    ///
    /// # Errors
    /// As [`Session::handshake`].
    pub async fn greet(&mut self, side: Side, start: &Position) -> Result<Ready, Failure> {
        self.side = side;
        let hello = wire::hello_line(side, start, &self.settings.time);
        self.handshake(&hello).await
    }

    /// Asks for a move at `position` with the standard `move_request` and judges the answer.
    ///
    /// # Errors
    /// As [`Session::request_move`].
    pub async fn ask(
        &mut self,
        id: u64,
        ply: u32,
        position: &Position,
        opponent_move: Option<&str>,
    ) -> Result<Move, Failure> {
        let move_time = self.settings.move_time();
        let request = wire::move_request_line(
            id,
            ply,
            position,
            legal_moves(position),
            opponent_move,
            move_time,
            move_time,
            &self.settings.time,
        );
        let mv = self.request_move(&request, id, ply, position).await?;
        self.plies = ply + 1;
        Ok(mv)
    }

    /// Sends the `move_request` line `request` (with id `id`, at `ply`, for `position`) and reads
    /// and judges the answer with the game's judge ([`bao_game::judge`]): `info` lines are
    /// skipped; the `move` must come within the move time plus the margin, carry `id` and be legal.
    ///
    /// # Errors
    /// What the referee's verdict would be, in words: timeout, a wrong id, a malformed line, an
    /// unexpected message, an illegal move, or the bot ended.
    pub async fn request_move(
        &mut self,
        request: &str,
        id: u64,
        ply: u32,
        position: &Position,
    ) -> Result<Move, Failure> {
        let mut clock = Clock::new(self.settings.time);
        let allowed = clock.allowed();
        let side = self.side;
        let Session { process, transcript, settings, .. } = self;
        let process =
            process.as_mut().ok_or_else(|| Failure::new("internal error: the bot was already stopped"))?;
        let successors = position.successors();
        let judged = match judge::ask_move(process, side, request, id, allowed, transcript).await {
            Ok(answer) => judge::charge(&mut clock, side, &answer)
                .and_then(|_| judge::judge_move(side, position, &successors, &answer)),
            Err(fault) => Err(fault),
        };
        judged
            .map(|(mv, _)| mv)
            .map_err(|fault| Failure::new(move_failure(&fault, settings, id, ply, position)))
    }

    /// Waits up to `within` for the bot to exit by itself, recording any line it still writes.
    /// `None` if it is still running.
    pub async fn wait_for_exit(&mut self, within: Duration) -> Option<ExitReport> {
        let deadline = Instant::now() + within;
        loop {
            let process = self.process.as_mut()?;
            if let Some(report) = process.exit_report() {
                return Some(report);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            let step = (now + EXIT_POLL).min(deadline);
            match process.recv_line(step).await {
                Ok(line) => self.transcript.push(Direction::Received, &line),
                Err(BotFault::Timeout) => {}
                Err(BotFault::Exited(report)) => return Some(report),
                Err(_) => tokio::time::sleep_until(step).await,
            }
        }
    }

    /// Reads what the bot writes during `within` (recorded): the first line, if it wrote one.
    /// `None` when it wrote nothing (or ended: the caller's next step tells).
    pub async fn expect_silence(&mut self, within: Duration) -> Option<String> {
        let deadline = Instant::now() + within;
        let line = self.process.as_mut()?.recv_line(deadline).await.ok()?;
        self.transcript.push(Direction::Received, &line);
        Some(line)
    }

    /// Closes the bot's stdin and gives it `grace` to exit by itself; then it is stopped
    /// (SIGTERM, then SIGKILL). Returns how it ended.
    pub async fn close_input(&mut self, grace: Duration) -> Option<ExitReport> {
        let process = self.process.take()?;
        let (report, stderr) = process.shutdown_with_stderr(grace).await;
        self.stderr = Some(stderr);
        Some(report)
    }

    /// Ends the check: sends `game_over` and `quit` unless `quit` was sent already (best effort,
    /// not recorded), then ends the bot's whole process tree, giving it `grace` to exit.
    pub async fn finish(mut self, grace: Duration) -> Finished {
        if let Some(mut process) = self.process.take() {
            if !self.quit_sent {
                let game_over = self.game_over.take().unwrap_or_else(|| {
                    wire::game_over_line("draw (max_plies)", None, Reason::MaxPlies, self.plies)
                });
                let deadline = Instant::now() + FAREWELL_WRITE;
                if process.send_line(&game_over, deadline).await.is_ok() {
                    let _ = process.send_line(&wire::quit_line(), deadline).await;
                }
            }
            let (_, stderr) = process.shutdown_with_stderr(grace).await;
            self.stderr = Some(stderr);
        }
        Finished {
            transcript: self.transcript,
            stderr: self.stderr.unwrap_or_default(),
            note: self.pass_note,
        }
    }
}

/// How a bot ended, as a sentence for the report: `exited by itself with exit code 0`.
#[must_use]
pub fn how_it_ended(report: &ExitReport) -> String {
    match report.ended_by {
        EndedBy::Itself => format!("exited by itself with {report}"),
        EndedBy::Terminate => format!("was stopped with SIGTERM ({report})"),
        EndedBy::Kill => format!("was stopped with SIGKILL ({report})"),
    }
}

/// The legal moves of `position` in notation, as a `move_request` lists them.
#[must_use]
pub fn legal_moves(position: &Position) -> Vec<String> {
    position.legal_moves().iter().map(ToString::to_string).collect()
}

/// A move-request verdict of the judge as a sentence for the report, ending with the verdict.
fn move_failure(fault: &Fault, settings: &Settings, id: u64, ply: u32, position: &Position) -> String {
    let what = match &*fault.cause {
        Cause::NoAnswer { allowed } => format!(
            "no move within {} ms (the move time of {} ms plus the margin of {} ms)",
            allowed.as_millis(),
            settings.move_time().as_millis(),
            settings.time.margin.as_millis()
        ),
        Cause::Late { used, allowed } => {
            format!("the move came after {} ms; {} ms are allowed", used.as_millis(), allowed.as_millis())
        }
        Cause::Process(BotFault::Timeout) => {
            "could not send the move_request: the bot did not read its input in time".to_owned()
        }
        Cause::Process(f) => format!("{} instead of answering the move_request", describe(f)),
        Cause::Unexpected(kind) => format!("sent a {kind} message instead of a move"),
        Cause::Malformed(e) => {
            format!("wrote a line that is not a valid message: {e}{}", stray_output_hint(e))
        }
        Cause::WrongId { got, expected } => {
            let hint = if *got == u64::from(ply) {
                " (that is the ply; the id counts this bot's requests: 1, 2, 3...)"
            } else if *got < id {
                " (an earlier request's id: a bot that answers a request twice, or writes a move \
                 between requests, gets this)"
            } else {
                ""
            };
            format!("answered with id {got}, but the request's id was {expected}{hint}")
        }
        Cause::Illegal { text, why } => {
            let legal = legal_moves(position).join(" ");
            if text.parse::<MoveText>().is_err() {
                format!("{text:?} is not a move: {why}; the legal moves were {legal}")
            } else {
                format!("the move {text:?} is illegal: {why}; the legal moves were {legal}")
            }
        }
    };
    format!("{what} (verdict: {})", fault.reason)
}

/// A reminder that stdout is for protocol lines only, after an error that a debug print or a
/// banner on stdout would cause (a line that is not a JSON object with a known type).
fn stray_output_hint(error: &ProtocolError) -> &'static str {
    match error {
        ProtocolError::EmptyLine
        | ProtocolError::NotJson(_)
        | ProtocolError::NotAnObject(_)
        | ProtocolError::MissingType
        | ProtocolError::TypeNotString(_)
        | ProtocolError::UnknownType { .. } => {
            "; stdout is for protocol lines only (write diagnostics to stderr)"
        }
        _ => "",
    }
}

/// A process-layer fault as the start of a sentence about the bot.
fn describe(fault: &BotFault) -> String {
    match fault {
        BotFault::Timeout => "the bot did not read its input in time".to_owned(),
        BotFault::Exited(report) => format!("the bot ended ({report})"),
        BotFault::StdoutClosed => "the bot closed its stdout".to_owned(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use bao_protocol::BotMessage;
    use bao_rules::Variant;

    use super::*;

    /// The move text judged by the game's judge and worded as the report words it.
    fn judge(text: &str, position: &Position) -> Result<Move, Failure> {
        let answer = judge::Answer {
            line: format!(r#"{{"type":"move","id":1,"move":"{text}"}}"#),
            move_text: text.to_owned(),
            info: Vec::new(),
            used: Duration::ZERO,
        };
        let spec = bao_supervise::BotSpec { name: None, program: "bot".into(), args: vec![], dir: None };
        let settings = Settings::new(spec, Duration::from_secs(1), Duration::from_secs(1));
        judge::judge_move(Side::South, position, &position.successors(), &answer)
            .map(|(mv, _)| mv)
            .map_err(|f| Failure::new(move_failure(&f, &settings, 1, 0, position)))
    }

    #[test]
    fn judges_moves_like_the_referee() {
        let start = Position::start(Variant::Kiswahili);
        assert_eq!(judge("A7<", &start).map(|m| m.to_string()), Ok("A7<".to_owned()));
        let illegal = judge("A1<", &start).unwrap_err().why;
        assert!(illegal.contains("\"A1<\" is illegal") && illegal.contains("A6< A6> A7< A7>"), "{illegal}");
        assert!(illegal.ends_with("(verdict: illegal_move)"), "{illegal}");
        let garbage = judge("pass", &start).unwrap_err().why;
        assert!(garbage.contains("\"pass\" is not a move"), "{garbage}");
        let takasia = super::super::positions::parse(super::super::positions::TAKASIA).unwrap();
        assert!(judge("A4<", &takasia).unwrap_err().why.contains("takasia"));
    }

    #[test]
    fn the_stdout_hint_comes_only_for_lines_that_are_not_messages() {
        let hint = |line: &str| stray_output_hint(&BotMessage::parse(line).unwrap_err());
        assert!(hint("thinking...").contains("stdout is for protocol lines only"));
        assert!(hint(r#"{"type":"resign"}"#).contains("stderr"));
        assert_eq!(hint(r#"{"type":"move","id":"1","move":"A6<"}"#), "");
    }

    #[test]
    fn faults_read_as_sentences_with_the_referees_verdict() {
        let exited = BotFault::Exited(ExitReport { code: Some(3), ..ExitReport::default() });
        assert_eq!(describe(&exited), "the bot ended (exit code 3)");
        assert_eq!(bao_game::reason::for_fault(&exited), Reason::BotExited);
        assert_eq!(bao_game::reason::for_fault(&BotFault::InvalidUtf8), Reason::MalformedLine);
        let stopped = ExitReport { signal: Some(15), ended_by: EndedBy::Terminate, ..ExitReport::default() };
        assert_eq!(how_it_ended(&stopped), "was stopped with SIGTERM (killed by signal 15 (SIGTERM))");
    }
}
