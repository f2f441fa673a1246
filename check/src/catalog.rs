//! The named checks, in the order they run, with what a correct bot does in each.

/// One check of `bao-referee check`. Each runs a fresh bot process through a scripted exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CheckKind {
    /// `hello` -> `ready` within the startup time, with a valid name.
    Handshake,
    /// The first move from the Kiswahili start: legal, with id 1.
    FirstMove,
    /// The first move under a Fischer clock (`base_ms` and `increment_ms` in hello).
    FischerClock,
    /// The first move under a fixed time per move (`move_time_ms` in hello, `base_ms` null).
    MoveTimeClock,
    /// Playing North from the start: the request carries South's first move in `opponent_move`.
    NorthReply,
    /// A move from a namua position in mid-game, playing North.
    NamuaMidgame,
    /// A move from the start of Bao la Kujifunza (mtaji from the first move).
    MtajiKujifunza,
    /// A move from a Kiswahili mtaji position with back-row moves.
    MtajiKiswahili,
    /// A position with exactly one legal move.
    OneLegalMove,
    /// A position whose `takasia` field is set.
    Takasia,
    /// A position where `legal` offers both `X` and `X+` (safari).
    SafariChoice,
    /// Several requests in a row (playing North): every answer carries its request's id.
    IdsIncrease,
    /// `game_over` then `quit`: the bot exits by itself with code 0 in time.
    GameOverQuit,
    /// `game_over` after a move: the bot writes nothing in reply, then exits after `quit`.
    GameOverNoReply,
    /// End of input on stdin: the bot exits by itself with code 0.
    EndOfInput,
    /// Unknown fields in every referee message, and an unknown `game_over` reason.
    UnknownFields,
    /// A whole game against a random opponent, up to the ply limit.
    LongGame,
    /// Protocol 1.1: a bot whose `ready` says `"games":"many"` plays a second game in the same
    /// process (a new `hello` after `game_over`: the other side, variant and clock mode).
    TwoGames,
}

impl CheckKind {
    /// Every check, in the order they run (the handshake first).
    pub const ALL: [CheckKind; 18] = [
        CheckKind::Handshake,
        CheckKind::FirstMove,
        CheckKind::FischerClock,
        CheckKind::MoveTimeClock,
        CheckKind::NorthReply,
        CheckKind::NamuaMidgame,
        CheckKind::MtajiKujifunza,
        CheckKind::MtajiKiswahili,
        CheckKind::OneLegalMove,
        CheckKind::Takasia,
        CheckKind::SafariChoice,
        CheckKind::IdsIncrease,
        CheckKind::GameOverQuit,
        CheckKind::GameOverNoReply,
        CheckKind::EndOfInput,
        CheckKind::UnknownFields,
        CheckKind::LongGame,
        CheckKind::TwoGames,
    ];

    /// The check's name in the report and on the command line (`--only`).
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            CheckKind::Handshake => "handshake",
            CheckKind::FirstMove => "first-move",
            CheckKind::FischerClock => "fischer-clock",
            CheckKind::MoveTimeClock => "move-time-clock",
            CheckKind::NorthReply => "north-reply",
            CheckKind::NamuaMidgame => "namua-midgame",
            CheckKind::MtajiKujifunza => "mtaji-kujifunza",
            CheckKind::MtajiKiswahili => "mtaji-kiswahili",
            CheckKind::OneLegalMove => "one-legal-move",
            CheckKind::Takasia => "takasia",
            CheckKind::SafariChoice => "safari-choice",
            CheckKind::IdsIncrease => "ids-increase",
            CheckKind::GameOverQuit => "game-over-quit",
            CheckKind::GameOverNoReply => "game-over-no-reply",
            CheckKind::EndOfInput => "end-of-input",
            CheckKind::UnknownFields => "unknown-fields",
            CheckKind::LongGame => "long-game",
            CheckKind::TwoGames => "two-games",
        }
    }

    /// One line: what the check runs (its help on the command line, `--only`).
    #[must_use]
    pub const fn summary(self) -> &'static str {
        match self {
            CheckKind::Handshake => "`hello` -> `ready` within the startup time, with a valid name",
            CheckKind::FirstMove => "The first move from the Kiswahili start: legal, with id 1",
            CheckKind::FischerClock => {
                "The first move under a Fischer clock (`base_ms` and `increment_ms` in hello)"
            }
            CheckKind::MoveTimeClock => {
                "The first move under a fixed time per move (`move_time_ms` in hello, `base_ms` null)"
            }
            CheckKind::NorthReply => {
                "Playing North from the start: the request carries South's first move in `opponent_move`"
            }
            CheckKind::NamuaMidgame => "A move from a namua position in mid-game, playing North",
            CheckKind::MtajiKujifunza => {
                "A move from the start of Bao la Kujifunza (mtaji from the first move)"
            }
            CheckKind::MtajiKiswahili => "A move from a Kiswahili mtaji position with back-row moves",
            CheckKind::OneLegalMove => "A position with exactly one legal move",
            CheckKind::Takasia => "A position whose `takasia` field is set",
            CheckKind::SafariChoice => "A position where `legal` offers both `X` and `X+` (safari)",
            CheckKind::IdsIncrease => {
                "Several requests in a row (playing North): every answer carries its request's id"
            }
            CheckKind::GameOverQuit => "`game_over` then `quit`: the bot exits by itself with code 0 in time",
            CheckKind::GameOverNoReply => {
                "`game_over` after a move: the bot writes nothing in reply, then exits after `quit`"
            }
            CheckKind::EndOfInput => "End of input on stdin: the bot exits by itself with code 0",
            CheckKind::UnknownFields => {
                "Unknown fields in every referee message, and an unknown `game_over` reason"
            }
            CheckKind::LongGame => "A whole game against a random opponent, up to the ply limit",
            CheckKind::TwoGames => {
                "A bot that declares \"games\":\"many\" plays a second game in the same process \
                 (hello after game_over: the other side, variant and clock)"
            }
        }
    }

    /// One sentence: what a correct bot does in this check.
    #[must_use]
    pub const fn expectation(self) -> &'static str {
        match self {
            CheckKind::Handshake => {
                "A correct bot answers hello with one ready line carrying a name of 1 to 64 characters \
                 within the startup time, and prints nothing else on stdout (diagnostics go to stderr)."
            }
            CheckKind::FirstMove => {
                "A correct bot answers the first move_request from the Kiswahili start, within the move \
                 time, with a move carrying the request's id (1) and one of the moves listed in legal."
            }
            CheckKind::FischerClock => {
                "A correct bot accepts a Fischer clock (time_control with base_ms and increment_ms, \
                 move_time_ms null; the clock of every request gives you_ms and opponent_ms) and answers \
                 with an entry of legal within the time on its clock."
            }
            CheckKind::MoveTimeClock => {
                "A correct bot accepts a fixed time per move (time_control with move_time_ms, base_ms \
                 null) and answers with an entry of legal within the move time."
            }
            CheckKind::NorthReply => {
                "A correct bot playing North waits for its first move_request, reads South's move in \
                 opponent_move (North's own view of the board is in position) and answers with an entry of legal."
            }
            CheckKind::NamuaMidgame => {
                "A correct bot plays whichever side hello gives it (here North, in namua with seeds in \
                 hand, from a start position other than the standard one) and answers with an entry of legal."
            }
            CheckKind::MtajiKujifunza => {
                "A correct bot handles the learners' variant (hello says kujifunza: no seeds in hand, \
                 mtaji from the first move) and answers with an entry of legal."
            }
            CheckKind::MtajiKiswahili => {
                "A correct bot handles the mtaji stage, where a move may start from the back row (B), \
                 and answers with an entry of legal."
            }
            CheckKind::OneLegalMove => {
                "A correct bot answers even when legal holds a single move (here a back-row move), \
                 and plays that move."
            }
            CheckKind::Takasia => {
                "A correct bot never starts a move from the pit named in position.takasia; answering \
                 with an entry of legal is always safe."
            }
            CheckKind::SafariChoice => {
                "A correct bot keeps the '+' of the move it picks: A2> and A2>+ are two different legal \
                 moves here, and any entry of legal, copied exactly, is a legal answer."
            }
            CheckKind::IdsIncrease => {
                "A correct bot answers each request exactly once with that request's own id (1, 2, 3... \
                 counted per bot, not the ply) and writes nothing between its move and the next request."
            }
            CheckKind::GameOverQuit => {
                "A correct bot accepts game_over at any time (even before it has moved) and exits by \
                 itself with code 0 within 1000 ms of quit."
            }
            CheckKind::GameOverNoReply => {
                "A correct bot writes nothing on stdout in reply to game_over (it is not a request), \
                 then exits by itself with code 0 after quit."
            }
            CheckKind::EndOfInput => {
                "A correct bot exits by itself with code 0 when its stdin reaches end of file, \
                 without waiting for quit."
            }
            CheckKind::UnknownFields => {
                "A correct bot ignores fields it does not know (in hello, move_request, the position, \
                 the clock and game_over), treats an unknown game_over reason as plain text, and exits \
                 with code 0 after quit."
            }
            CheckKind::LongGame => {
                "A correct bot plays a whole game against a random opponent, answering every request \
                 legally and in time, until the game ends or the ply limit is reached."
            }
            CheckKind::TwoGames => {
                "A correct bot that says \"games\":\"many\" in ready does not exit after game_over: \
                 it answers the next game's hello with ready within the startup time, takes its side, \
                 variant and clock from that hello (here North in Bao la Kujifunza after South in Bao la \
                 Kiswahili), answers that game's requests from id 1 legally and in time, and exits with \
                 code 0 after quit. A bot that does not say it plays one game per process and gets quit \
                 after each game, as in protocol 1."
            }
        }
    }
}

impl std::fmt::Display for CheckKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a check's, and the names that are.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown check {name:?}: expected one of {}", CheckKind::ALL.map(CheckKind::name).join(", "))]
pub struct UnknownCheck {
    /// The name given.
    pub name: String,
}

impl std::str::FromStr for CheckKind {
    type Err = UnknownCheck;

    /// A check by its [`CheckKind::name`].
    fn from_str(s: &str) -> Result<CheckKind, UnknownCheck> {
        CheckKind::ALL
            .into_iter()
            .find(|kind| kind.name() == s)
            .ok_or_else(|| UnknownCheck { name: s.to_owned() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_match_the_command_line_values() {
        let mut names: Vec<&str> = CheckKind::ALL.iter().map(|k| k.name()).collect();
        for kind in CheckKind::ALL {
            assert_eq!(kind.name().parse::<CheckKind>(), Ok(kind));
            assert_eq!(kind.to_string(), kind.name());
            assert_eq!(serde_json::to_value(kind).expect("serialises"), kind.name());
            assert!(!kind.summary().is_empty() && !kind.summary().ends_with('.'), "{kind}");
            assert!(kind.expectation().starts_with("A correct bot"), "{kind}");
            assert!(kind.expectation().ends_with('.'), "{kind}");
        }
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CheckKind::ALL.len());
        assert_eq!(CheckKind::ALL[0], CheckKind::Handshake);
        let e = "no-such-check".parse::<CheckKind>().unwrap_err();
        assert!(
            e.to_string()
                .starts_with(r#"unknown check "no-such-check": expected one of handshake, first-move, "#),
            "{e}"
        );
        assert!(e.to_string().ends_with(", long-game, two-games"), "{e}");
    }
}
