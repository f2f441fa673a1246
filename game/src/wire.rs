//! The protocol messages the game loop sends, built from rules types.

use std::time::Duration;

use bao_protocol::{
    GameOver, PerSide, PositionJson, RefereeMessage, Rows, Side as WireSide, TimeControl as WireTimeControl,
};
use bao_rules::{Move, Position, Side, Stage};

use crate::{Reason, TimeControl};

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// The protocol's side for a rules side.
#[must_use]
pub fn wire_side(side: Side) -> WireSide {
    match side {
        Side::South => WireSide::South,
        Side::North => WireSide::North,
    }
}

/// The protocol's view of a time control.
#[must_use]
pub fn wire_time_control(tc: &TimeControl) -> WireTimeControl {
    WireTimeControl {
        base_ms: tc.base.map(millis),
        increment_ms: millis(tc.increment),
        move_time_ms: tc.move_time.map(millis),
        startup_ms: millis(tc.startup),
        margin_ms: millis(tc.margin),
    }
}

/// The position as sent in a move request: notation plus plain fields.
#[must_use]
pub fn position_json(position: &Position) -> PositionJson {
    let per_side = |f: &dyn Fn(Side) -> u8| PerSide { south: f(Side::South), north: f(Side::North) };
    PositionJson {
        notation: position.to_string(),
        variant: position.variant().to_string(),
        to_move: wire_side(position.side_to_move()),
        rows: Rows {
            south_front: position.front_row(Side::South),
            south_back: position.back_row(Side::South),
            north_front: position.front_row(Side::North),
            north_back: position.back_row(Side::North),
        },
        hands: per_side(&|s| position.hand(s)),
        stage: match position.stage(position.side_to_move()) {
            Stage::Namua => "namua",
            Stage::Mtaji => "mtaji",
        }
        .to_owned(),
        nyumba: PerSide {
            south: position.owns_nyumba(Side::South),
            north: position.owns_nyumba(Side::North),
        },
        takasia: position.takasia().map(|p| p.to_string()),
    }
}

/// The hello line for the bot playing `side`.
#[must_use]
pub fn hello_line(side: Side, start: &Position, tc: &TimeControl) -> String {
    RefereeMessage::hello(wire_side(side), start.variant().name(), &notation(start), wire_time_control(tc))
        .to_line()
}

/// A move request line; `legal` is the position's legal moves in notation.
///
/// Allocates a new line each call: the game loop writes into a buffer it keeps with
/// [`MoveRequestLine::write`] instead.
#[must_use]
#[expect(clippy::too_many_arguments, reason = "one argument per field of the message")]
pub fn move_request_line(
    id: u64,
    ply: u32,
    position: &Position,
    legal: Vec<String>,
    opponent_move: Option<&str>,
    you: Duration,
    opponent: Duration,
    tc: &TimeControl,
) -> String {
    let mut line = String::new();
    MoveRequestLine { id, ply, position, opponent_move, you, opponent, tc }.write(&legal, &mut line);
    line
}

/// The fields of one `move_request`, written straight into a reused buffer: no allocation
/// once the buffer has grown to the longest line, and the same bytes as the serde form of
/// [`RefereeMessage::MoveRequest`] (`{"type":"move_request","id":…,"ply":…,"position":{…},
/// "legal":[…],"opponent_move":…,"clock":{…}}`, no spaces, strings escaped like
/// `serde_json`).
#[derive(Debug, Clone, Copy)]
pub struct MoveRequestLine<'a> {
    /// The request id.
    pub id: u64,
    /// Plies played so far.
    pub ply: u32,
    /// The position the bot moves from.
    pub position: &'a Position,
    /// The opponent's last move, if any.
    pub opponent_move: Option<&'a str>,
    /// Time left on the mover's clock.
    pub you: Duration,
    /// Time left on the opponent's clock.
    pub opponent: Duration,
    /// The time control (for the increment and the move time).
    pub tc: &'a TimeControl,
}

impl MoveRequestLine<'_> {
    /// Replaces the contents of `out` with the line (without the `'\n'`); `legal` are the
    /// legal moves ([`bao_rules::Move`]s, or their notation as `&str` or `String`).
    pub fn write<M: LegalMove>(&self, legal: impl IntoIterator<Item = M>, out: &mut String) {
        out.clear();
        let position = self.position;
        let mover = position.side_to_move();
        out.push_str(r#"{"type":"move_request","id":"#);
        push_int(out, self.id);
        out.push_str(r#","ply":"#);
        push_int(out, self.ply);
        out.push_str(r#","position":{"notation":""#);
        push_notation(out, position);
        out.push('"');
        out.push_str(r#","variant":"#);
        push_json_str(out, position.variant().name());
        out.push_str(r#","to_move":"#);
        out.push_str(side_json(mover));
        out.push_str(r#","rows":{"A":"#);
        push_row(out, &position.front_row(Side::South));
        out.push_str(r#","B":"#);
        push_row(out, &position.back_row(Side::South));
        out.push_str(r#","a":"#);
        push_row(out, &position.front_row(Side::North));
        out.push_str(r#","b":"#);
        push_row(out, &position.back_row(Side::North));
        out.push_str(r#"},"hands":{"S":"#);
        push_int(out, position.hand(Side::South));
        out.push_str(r#","N":"#);
        push_int(out, position.hand(Side::North));
        out.push_str(r#"},"stage":"#);
        out.push_str(match position.stage(mover) {
            Stage::Namua => r#""namua""#,
            Stage::Mtaji => r#""mtaji""#,
        });
        out.push_str(r#","nyumba":{"S":"#);
        out.push_str(bool_json(position.owns_nyumba(Side::South)));
        out.push_str(r#","N":"#);
        out.push_str(bool_json(position.owns_nyumba(Side::North)));
        out.push_str(r#"},"takasia":"#);
        match position.takasia() {
            Some(pit) => push_display_str(out, pit),
            None => out.push_str("null"),
        }
        out.push_str(r#"},"legal":["#);
        for (i, mv) in legal.into_iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            mv.push_json(out);
        }
        out.push_str(r#"],"opponent_move":"#);
        match self.opponent_move {
            Some(text) => push_json_str(out, text),
            None => out.push_str("null"),
        }
        out.push_str(r#","clock":{"you_ms":"#);
        push_int(out, millis(self.you));
        out.push_str(r#","opponent_ms":"#);
        push_int(out, millis(self.opponent));
        out.push_str(r#","increment_ms":"#);
        push_int(out, millis(self.tc.increment));
        out.push_str(r#","move_time_ms":"#);
        match self.tc.move_time {
            Some(d) => push_int(out, millis(d)),
            None => out.push_str("null"),
        }
        out.push_str("}}");
    }
}

/// A legal move as a request lists it.
pub trait LegalMove {
    /// Appends the move's notation as a quoted JSON string.
    fn push_json(&self, out: &mut String);
}

/// Written without the formatting machinery (one call per legal move, every ply), as
/// [`Move`]'s `Display` prints it: `A5<`, `B3>`, `A6>+`.
impl LegalMove for Move {
    fn push_json(&self, out: &mut String) {
        out.push('"');
        push_move(out, *self);
        out.push('"');
    }
}

/// The move's notation, exactly as [`Move`]'s `Display` prints it, built without the
/// formatting machinery (for the log's ply records).
#[must_use]
pub fn move_notation(mv: Move) -> String {
    let mut out = String::with_capacity(4);
    push_move(&mut out, mv);
    out
}

/// Appends the move's notation, exactly as [`Move`]'s `Display` prints it.
pub(crate) fn push_move(out: &mut String, mv: Move) {
    let pit = mv.pit();
    out.push(pit.row().letter());
    push_int(out, pit.col());
    out.push(mv.direction().symbol());
    if mv.safari() {
        out.push('+');
    }
}

impl LegalMove for str {
    fn push_json(&self, out: &mut String) {
        push_display_str(out, self);
    }
}

impl LegalMove for String {
    fn push_json(&self, out: &mut String) {
        push_display_str(out, self);
    }
}

impl<T: LegalMove + ?Sized> LegalMove for &T {
    fn push_json(&self, out: &mut String) {
        (**self).push_json(out);
    }
}

/// `"S"` or `"N"`, quoted.
const fn side_json(side: Side) -> &'static str {
    match side {
        Side::South => r#""S""#,
        Side::North => r#""N""#,
    }
}

/// `true` or `false`.
const fn bool_json(value: bool) -> &'static str {
    if value { "true" } else { "false" }
}

/// An integer in decimal.
fn push_int(out: &mut String, value: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(value));
}

/// The position's notation, exactly as `Position`'s `Display` prints it, built without the
/// formatting machinery (for the log's ply records: one per ply).
#[must_use]
pub fn notation(position: &Position) -> String {
    let mut out = String::with_capacity(96);
    push_notation(&mut out, position);
    out
}

/// The position's notation (RULES.md section 11, as `Position`'s `Display` prints it), written
/// without the formatting machinery: `kiswahili S 0,0,…/…/…/… 22,22 SN -`. Nothing in it needs
/// escaping in JSON.
pub(crate) fn push_notation(out: &mut String, position: &Position) {
    out.push_str(position.variant().name());
    out.push(' ');
    out.push(position.side_to_move().letter());
    out.push(' ');
    // The 32 seed counts, their separators and the hands, in one `push_str`: at most 3 digits
    // and a separator per count, 4 × 8 of them, then two hands.
    let mut buf = [0u8; 4 * 32 + 2 * 4];
    let mut len = 0;
    let rows = [
        position.front_row(Side::South),
        position.back_row(Side::South),
        position.front_row(Side::North),
        position.back_row(Side::North),
    ];
    for (i, row) in rows.iter().enumerate() {
        for (j, &seeds) in row.iter().enumerate() {
            if i > 0 || j > 0 {
                buf[len] = if j == 0 { b'/' } else { b',' };
                len += 1;
            }
            len += push_u8_digits(&mut buf[len..], seeds);
        }
    }
    buf[len] = b' ';
    len += 1;
    len += push_u8_digits(&mut buf[len..], position.hand(Side::South));
    buf[len] = b',';
    len += 1;
    len += push_u8_digits(&mut buf[len..], position.hand(Side::North));
    // Only ASCII digits and separators were written.
    out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or_default());
    out.push_str(match (position.owns_nyumba(Side::South), position.owns_nyumba(Side::North)) {
        (true, true) => " SN ",
        (true, false) => " S- ",
        (false, true) => " -N ",
        (false, false) => " -- ",
    });
    match position.takasia() {
        Some(pit) => {
            use std::fmt::Write as _;
            // Writing into a String cannot fail.
            let _ = write!(out, "{pit}");
        }
        None => out.push('-'),
    }
}

/// Writes `value` in decimal at the start of `out` (which has room for 3 digits); returns the
/// number of digits.
fn push_u8_digits(out: &mut [u8], value: u8) -> usize {
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(value).as_bytes();
    out[..digits.len()].copy_from_slice(digits);
    digits.len()
}

/// A row of seed counts as a JSON array, in one `push_str`.
fn push_row(out: &mut String, row: &[u8; 8]) {
    // `[`, then at most 3 digits and a separator (`,` or `]`) per count.
    let mut buf = [0u8; 1 + 4 * 8];
    buf[0] = b'[';
    let mut len = 1;
    for (i, &seeds) in row.iter().enumerate() {
        len += push_u8_digits(&mut buf[len..], seeds);
        buf[len] = if i + 1 < row.len() { b',' } else { b']' };
        len += 1;
    }
    // Only ASCII digits and separators were written.
    out.push_str(std::str::from_utf8(&buf[..len]).unwrap_or_default());
}

/// `text` as a quoted JSON string escaped as `serde_json` escapes it (the escaping pass runs
/// only for text that needs it).
fn push_json_str(out: &mut String, text: &str) {
    use std::fmt::Write as _;
    out.push('"');
    if needs_json_escape(text.as_bytes()) {
        // Writing into a String cannot fail.
        let _ = JsonEscaped(out).write_str(text);
    } else {
        out.push_str(text);
    }
    out.push('"');
}

/// What `value` prints, as a quoted JSON string escaped as `serde_json` escapes it.
///
/// Printed straight into `out`, then checked: the rules' notation never needs escaping, so
/// the escaping pass (which allocates) runs only for text that does.
fn push_display_str(out: &mut String, value: impl std::fmt::Display) {
    use std::fmt::Write as _;
    out.push('"');
    let start = out.len();
    // Writing into a String cannot fail, and the Display impls written here do not fail.
    let _ = write!(out, "{value}");
    if needs_json_escape(&out.as_bytes()[start..]) {
        let raw = out.split_off(start);
        let _ = JsonEscaped(out).write_str(&raw);
    }
    out.push('"');
}

/// Whether `bytes` hold a byte that a JSON string must escape: `"`, `\` or a control character.
pub(crate) fn needs_json_escape(bytes: &[u8]) -> bool {
    bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

/// Escapes what is written into it as the inside of a JSON string: `"`, `\\` and control
/// characters (`\b \f \n \r \t`, others `\u00XX`), everything else as it is.
struct JsonEscaped<'a>(&'a mut String);

impl std::fmt::Write for JsonEscaped<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let out = &mut *self.0;
        let mut plain = 0;
        for (i, byte) in s.bytes().enumerate() {
            let escape = match byte {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0x08 => "\\b",
                0x0c => "\\f",
                0..0x20 => "",
                _ => continue,
            };
            out.push_str(&s[plain..i]);
            plain = i + 1;
            if escape.is_empty() {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(byte >> 4)]));
                out.push(char::from(HEX[usize::from(byte & 0xf)]));
            } else {
                out.push_str(escape);
            }
        }
        out.push_str(&s[plain..]);
        Ok(())
    }
}

/// The game_over line.
#[must_use]
pub fn game_over_line(result: &str, winner: Option<Side>, reason: Reason, plies: u32) -> String {
    RefereeMessage::GameOver(GameOver {
        result: result.to_owned(),
        winner: winner.map(wire_side),
        reason: reason.name().to_owned(),
        plies,
    })
    .to_line()
}

/// The quit line.
#[must_use]
pub fn quit_line() -> String {
    RefereeMessage::Quit.to_line()
}

#[cfg(test)]
mod tests {
    use bao_protocol::{Clock as WireClock, MoveRequest};
    use bao_rules::Variant;
    use proptest::prelude::*;

    use super::*;

    /// The reference: the serde form of the same message.
    fn serde_line(fields: &MoveRequestLine<'_>, legal: &[String]) -> String {
        RefereeMessage::MoveRequest(MoveRequest {
            id: fields.id,
            ply: fields.ply,
            position: position_json(fields.position),
            legal: legal.to_vec(),
            opponent_move: fields.opponent_move.map(str::to_owned),
            clock: WireClock {
                you_ms: millis(fields.you),
                opponent_ms: millis(fields.opponent),
                increment_ms: millis(fields.tc.increment),
                move_time_ms: fields.tc.move_time.map(millis),
            },
        })
        .to_line()
    }

    fn time_controls() -> [TimeControl; 2] {
        let fischer = TimeControl {
            base: Some(Duration::from_millis(60_000)),
            increment: Duration::from_millis(500),
            move_time: None,
            startup: Duration::from_secs(5),
            margin: Duration::from_millis(100),
        };
        let move_time = TimeControl {
            base: None,
            increment: Duration::ZERO,
            move_time: Some(Duration::from_millis(250)),
            ..fischer
        };
        [fischer, move_time]
    }

    #[test]
    fn the_written_request_is_the_serde_form_and_the_notation_the_display_for_many_positions() {
        let tcs = time_controls();
        let mut line = String::new();
        let (mut positions, mut with_takasia, mut mtaji, mut rng) =
            (0u32, 0u32, 0u32, 0x2545_f491_4f6c_dd1d_u64);
        let mut safari_moves = 0usize;
        for game in 0..200u64 {
            let variant = if game % 3 == 2 { Variant::Kujifunza } else { Variant::Kiswahili };
            let mut position = Position::start(variant);
            let mut last: Option<String> = None;
            for ply in 0..400u32 {
                let successors = position.successors();
                if successors.is_empty() || position.outcome() != bao_rules::Outcome::Ongoing {
                    break;
                }
                let legal: Vec<String> = successors.iter().map(|(m, _)| m.to_string()).collect();
                let fields = MoveRequestLine {
                    id: u64::from(ply / 2 + 1) * (game + 1),
                    ply,
                    position: &position,
                    opponent_move: last.as_deref(),
                    you: Duration::from_micros(u64::from(ply) * 7_919 + game),
                    opponent: Duration::from_millis(u64::from(ply) * 13),
                    tc: &tcs[usize::from(ply % 2 == 1)],
                };
                fields.write(successors.iter().map(|(m, _)| m), &mut line);
                assert_eq!(line, serde_line(&fields, &legal), "game {game}, ply {ply}, {position}");
                assert_eq!(notation(&position), position.to_string(), "game {game}, ply {ply}");
                positions += 1;
                with_takasia += u32::from(position.takasia().is_some());
                mtaji += u32::from(position.stage(position.side_to_move()) == Stage::Mtaji);
                safari_moves += successors.iter().filter(|(m, _)| m.safari()).count();
                for (mv, _) in &successors {
                    assert_eq!(move_notation(*mv), mv.to_string());
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let (mv, next) = successors[usize::try_from(rng % successors.len() as u64).expect("small")];
                last = Some(mv.to_string());
                position = next;
            }
        }
        assert!(positions > 5_000, "only {positions} positions");
        assert!(
            with_takasia > 0 && mtaji > 0 && safari_moves > 0,
            "takasia {with_takasia}, mtaji {mtaji}, safari moves {safari_moves}: not every field was covered"
        );
    }

    #[test]
    fn the_wrapper_and_a_reused_buffer_give_the_same_line() {
        let position = Position::start(Variant::Kiswahili);
        let tc = time_controls()[0];
        let legal: Vec<String> = position.successors().iter().map(|(m, _)| m.to_string()).collect();
        let one = move_request_line(
            3,
            4,
            &position,
            legal.clone(),
            Some("A5<"),
            Duration::ZERO,
            Duration::MAX,
            &tc,
        );
        let mut buffer = "left over from a longer line ".repeat(40);
        let fields = MoveRequestLine {
            id: 3,
            ply: 4,
            position: &position,
            opponent_move: Some("A5<"),
            you: Duration::ZERO,
            opponent: Duration::MAX,
            tc: &tc,
        };
        fields.write(&legal, &mut buffer);
        assert_eq!(buffer, one);
        assert_eq!(one, serde_line(&fields, &legal));
        assert!(one.contains(&format!(r#""opponent_ms":{}"#, u64::MAX)), "{one}");
    }

    proptest! {
        #[test]
        fn strings_are_escaped_as_serde_json_escapes_them(text in any::<String>(), id in any::<u64>()) {
            let position = Position::start(Variant::Kujifunza);
            let tc = time_controls()[1];
            let legal = [text.clone(), "A1>".to_owned(), format!("\u{1}{text}\u{7f}\"")];
            let fields = MoveRequestLine {
                id,
                ply: 0,
                position: &position,
                opponent_move: Some(&text),
                you: Duration::from_millis(1),
                opponent: Duration::from_millis(2),
                tc: &tc,
            };
            let mut line = String::new();
            fields.write(&legal, &mut line);
            prop_assert_eq!(line, serde_line(&fields, &legal));
        }
    }
}
