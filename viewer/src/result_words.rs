//! A game's result in words, the one way every page (the server's, `bao-referee play`'s) says
//! it: "South wins: North's front row is empty", "Draw: the ply limit was reached",
//! "North wins: South resigned", rather than `0–1` and a raw reason name.

use std::str::FromStr;

use bao_game::Reason;
use bao_rules::Side;

fn side_name(side: Side) -> &'static str {
    match side {
        Side::South => "South",
        Side::North => "North",
    }
}

/// What happened to `loser` (the side that lost) for `reason`, as the end of a sentence.
fn loss_words(reason: Reason, loser: &str) -> String {
    match reason {
        Reason::FrontRowEmpty => format!("{loser}'s front row is empty"),
        Reason::NoLegalMoves => format!("{loser} has no legal move"),
        Reason::IllegalMove => format!("{loser} played an illegal move"),
        Reason::MalformedLine => format!("{loser} sent a line that is not a protocol message"),
        Reason::LineTooLong => format!("{loser} sent a line longer than the protocol allows"),
        Reason::WrongId => format!("{loser} answered with the wrong request id"),
        Reason::UnexpectedMessage => format!("{loser} sent a message it was not asked for"),
        Reason::Timeout => format!("{loser} ran out of time"),
        Reason::BotExited => format!("{loser}'s program exited"),
        Reason::StdoutClosed => format!("{loser} closed its output"),
        Reason::HandshakeFailed => format!("{loser} did not start or greet the referee"),
        Reason::MemoryLimit => format!("{loser} used more memory than allowed"),
        Reason::CpuLimit => format!("{loser} used more CPU time than allowed"),
        Reason::OutputLimit => format!("{loser} wrote more output than allowed"),
        Reason::ProcessLimit => format!("{loser} started more processes than allowed"),
        Reason::MaxPlies => "the ply limit was reached".to_owned(),
        Reason::Aborted => "the game was stopped".to_owned(),
    }
}

/// The result in words from a winner (none: a draw), the log's reason name and its detail.
/// With `detail` false the detail is left out (tables); an unknown reason name is shown as is.
/// A person's resignation (the detail ends with [`bao_game::human::RESIGNED`]) reads
/// `North wins: South resigned`.
#[must_use]
pub fn result_in_words(winner: Option<Side>, reason: &str, detail: &str, with_detail: bool) -> String {
    if let Some(w) = winner
        && detail.trim_end().ends_with(bao_game::human::RESIGNED)
    {
        return format!("{} wins: {} resigned", side_name(w), side_name(w.opponent()));
    }
    let known = Reason::from_str(reason.trim()).ok();
    let mut text = match (known, winner) {
        (Some(Reason::Aborted), _) => "Aborted (not counted)".to_owned(),
        (Some(r), Some(w)) => format!("{} wins: {}", side_name(w), loss_words(r, side_name(w.opponent()))),
        (Some(Reason::MaxPlies), None) => "Draw: the ply limit was reached".to_owned(),
        (Some(r), None) => format!("Draw: {}", loss_words(r, "a side")),
        (None, Some(w)) if reason.trim().is_empty() => format!("{} wins", side_name(w)),
        (None, Some(w)) => format!("{} wins ({})", side_name(w), reason.trim()),
        (None, None) if reason.trim().is_empty() => "Draw".to_owned(),
        (None, None) => format!("Draw ({})", reason.trim()),
    };
    let detail = detail.trim();
    if with_detail && !detail.is_empty() {
        text.push_str(if known == Some(Reason::Aborted) { ": " } else { " — " });
        text.push_str(detail);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resignation_and_a_forfeit_read_as_sentences() {
        let resigned = format!("South: {}", bao_game::human::RESIGNED);
        assert_eq!(
            result_in_words(Some(Side::North), "bot_exited", &resigned, true),
            "North wins: South resigned"
        );
        assert_eq!(
            result_in_words(Some(Side::North), "bot_exited", "exit status 3", true),
            "North wins: South's program exited — exit status 3"
        );
        assert_eq!(result_in_words(None, "max_plies", "", true), "Draw: the ply limit was reached");
    }
}
