//! The log's ply record written straight into the log's line buffer, one per ply: the same
//! bytes as the serde form of [`LogRecord::Ply`](crate::log::LogRecord::Ply), without the
//! serialiser (no allocation, no formatting machinery); and read back the same way by `verify`
//! when a line has exactly the form this writer writes.

use bao_rules::Side;

use crate::log::PlyRecord;
use crate::wire::needs_json_escape;

/// Appends the ply record's JSON (without the `'\n'`) to `out` and returns `true`, or leaves
/// `out` as it was and returns `false` for a record this writer does not cover: one with
/// `info` lines, `lag_excused_us` or `lag_credit_us` (a person's move), or text that would need escaping (the referee's own
/// notation never does). Such a record is written by serde.
pub(crate) fn encode(record: &PlyRecord, out: &mut Vec<u8>) -> bool {
    if !record.info.is_empty()
        || record.lag_excused_us.is_some()
        || record.lag_credit_us.is_some()
        || needs_json_escape(record.mv.as_bytes())
        || needs_json_escape(record.position.as_bytes())
    {
        return false;
    }
    out.extend_from_slice(br#"{"type":"ply","ply":"#);
    push_int(out, record.ply);
    out.extend_from_slice(br#","side":""#);
    // A side's letter is ASCII.
    out.push(record.side.letter() as u8);
    out.extend_from_slice(br#"","move":""#);
    out.extend_from_slice(record.mv.as_bytes());
    out.extend_from_slice(br#"","time_us":"#);
    push_int(out, record.time_us);
    out.extend_from_slice(br#","cpu_us":"#);
    match record.cpu_us {
        Some(cpu) => push_int(out, cpu),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(br#","clock_ms":["#);
    push_int(out, record.clock_ms[0]);
    out.push(b',');
    push_int(out, record.clock_ms[1]);
    out.extend_from_slice(br#"],"position":""#);
    out.extend_from_slice(record.position.as_bytes());
    out.extend_from_slice(br#""}"#);
    true
}

fn push_int(out: &mut Vec<u8>, value: impl itoa::Integer) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

/// Reads a ply record (`line` without its `'\n'`) written exactly as [`encode`] writes one,
/// without the deserialiser; `None` for any other line, which is then left to serde. What it
/// accepts, serde reads as the same record: the keys in `encode`'s order, plain decimal
/// numbers in range (no sign, no leading zero, no fraction), strings without a quote, a
/// backslash or a control character.
pub(crate) fn decode(line: &str) -> Option<PlyRecord> {
    let mut rest = line.as_bytes();
    let ply = u32::try_from(int(&mut rest, br#"{"type":"ply","ply":"#)?).ok()?;
    let side = match text(&mut rest, br#","side":""#)? {
        "S" => Side::South,
        "N" => Side::North,
        _ => return None,
    };
    let mv = text(&mut rest, br#"","move":""#)?.to_owned();
    let time_us = int(&mut rest, br#"","time_us":"#)?;
    let cpu_us = match rest.strip_prefix(br#","cpu_us":null"#) {
        Some(after) => {
            rest = after;
            None
        }
        None => Some(int(&mut rest, br#","cpu_us":"#)?),
    };
    let south_ms = int(&mut rest, br#","clock_ms":["#)?;
    let north_ms = int(&mut rest, b",")?;
    let position = text(&mut rest, br#"],"position":""#)?.to_owned();
    if rest != br#""}"# {
        return None;
    }
    Some(PlyRecord {
        ply,
        side,
        mv,
        time_us,
        cpu_us,
        clock_ms: [south_ms, north_ms],
        position,
        lag_excused_us: None,
        lag_credit_us: None,
        info: Vec::new(),
    })
}

/// Skips `prefix`, then reads a plain decimal `u64` (no leading zero but in `0`).
fn int(rest: &mut &[u8], prefix: &[u8]) -> Option<u64> {
    let after = rest.strip_prefix(prefix)?;
    let digits = after.iter().take_while(|b| b.is_ascii_digit()).count();
    let (number, tail) = after.split_at(digits);
    if digits == 0 || (digits > 1 && number[0] == b'0') {
        return None;
    }
    let mut value: u64 = 0;
    for &digit in number {
        value = value.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
    }
    *rest = tail;
    Some(value)
}

/// Skips `prefix`, then reads the text of a JSON string up to its closing quote (not
/// consumed), if it holds no character that JSON escapes (`"`, `\`, control characters).
fn text<'a>(rest: &mut &'a [u8], prefix: &[u8]) -> Option<&'a str> {
    let after = rest.strip_prefix(prefix)?;
    // One pass: up to the first quote, with no backslash or control character before it.
    let len = after.iter().position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
    let (content, tail) = after.split_at(len);
    if tail.first() != Some(&b'"') {
        return None;
    }
    *rest = tail;
    // `content` ends before an ASCII quote of a `str`, so it is whole characters.
    std::str::from_utf8(content).ok()
}

#[cfg(test)]
mod tests {
    use bao_rules::{Position, Side, Variant};
    use proptest::prelude::*;

    use super::*;
    use crate::log::LogRecord;

    fn serde_form(record: &PlyRecord) -> Vec<u8> {
        serde_json::to_vec(&LogRecord::Ply(record.clone())).expect("serialisable")
    }

    fn record(ply: u32, side: Side, mv: String, position: String) -> PlyRecord {
        PlyRecord {
            ply,
            side,
            mv,
            time_us: 0,
            cpu_us: None,
            clock_ms: [0, 0],
            position,
            lag_excused_us: None,
            lag_credit_us: None,
            info: Vec::new(),
        }
    }

    #[test]
    fn the_records_of_random_games_are_the_serde_form() {
        let mut rng = 0x9e37_79b9_7f4a_7c15_u64;
        let mut out = Vec::new();
        let mut records = 0;
        for game in 0..40u64 {
            let variant = if game % 2 == 0 { Variant::Kiswahili } else { Variant::Kujifunza };
            let mut position = Position::start(variant);
            for ply in 1..=300u32 {
                let successors = position.successors();
                if successors.is_empty() {
                    break;
                }
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                let (mv, next) = successors[usize::try_from(rng % successors.len() as u64).expect("small")];
                let side = position.side_to_move();
                position = next;
                let mut r =
                    record(ply, side, crate::wire::move_notation(mv), crate::wire::notation(&position));
                r.time_us = rng >> (rng % 64);
                r.cpu_us = (!rng.is_multiple_of(3)).then_some(rng % 100_000);
                r.clock_ms = [rng % 1_000_000, u64::MAX - rng % 7];
                out.clear();
                assert!(encode(&r, &mut out), "{r:?}");
                assert_eq!(String::from_utf8_lossy(&out), String::from_utf8_lossy(&serde_form(&r)));
                let line = std::str::from_utf8(&out).expect("UTF-8");
                assert_eq!(decode(line).as_ref(), Some(&r), "{line}");
                records += 1;
            }
        }
        assert!(records > 1_500, "only {records} records");
    }

    #[test]
    fn records_it_does_not_cover_are_left_to_serde() {
        let mut out = b"kept".to_vec();
        let mut with_info = record(1, Side::South, "A6<".to_owned(), "x".to_owned());
        with_info.info.push(bao_protocol::Info::comment("thinking"));
        assert!(!encode(&with_info, &mut out));
        let mut excused = record(1, Side::South, "A6<".to_owned(), "x".to_owned());
        excused.lag_excused_us = Some(3);
        assert!(!encode(&excused, &mut out));
        let mut credited = record(1, Side::South, "A6<".to_owned(), "x".to_owned());
        credited.lag_credit_us = Some(3);
        assert!(!encode(&credited, &mut out));
        assert!(!encode(&record(1, Side::North, "A6\"<".to_owned(), "x".to_owned()), &mut out));
        assert!(!encode(&record(1, Side::North, "A6<".to_owned(), "x\\\n".to_owned()), &mut out));
        assert_eq!(out, b"kept");
    }

    proptest! {
        #[test]
        fn any_text_it_accepts_is_the_serde_form(
            mv in any::<String>(),
            position in any::<String>(),
            ply in any::<u32>(),
            time_us in any::<u64>(),
            cpu_us in any::<Option<u64>>(),
            clock_ms in any::<[u64; 2]>(),
        ) {
            let mut r = record(ply, Side::North, mv, position);
            r.time_us = time_us;
            r.cpu_us = cpu_us;
            r.clock_ms = clock_ms;
            let mut out = Vec::new();
            if encode(&r, &mut out) {
                prop_assert_eq!(&out, &serde_form(&r));
                let line = std::str::from_utf8(&out).expect("UTF-8");
                prop_assert_eq!(decode(line), Some(r));
            } else {
                prop_assert!(out.is_empty());
            }
        }

        /// Lines near the written form, changed at one place: what `decode` reads, serde reads
        /// as the same record; what serde rejects or reads otherwise, `decode` leaves to it.
        #[test]
        fn any_line_it_reads_serde_reads_the_same(
            at in any::<prop::sample::Index>(),
            insert in prop::sample::select(vec![
                "", "0", "1", "9", "-", "+", ".5", "e3", " ", "\"", "\\", "\\u0041", "\n",
                "\u{1}", "é", ",", "}", "]", "null", "S", "N", "18446744073709551616",
            ]),
            cut in 0..3usize,
            cpu in any::<bool>(),
        ) {
            let mut r = record(7, Side::North, "h3>+".to_owned(), "kiswahili N 0,1/2 3,4 SN -".to_owned());
            r.time_us = 120;
            r.cpu_us = cpu.then_some(40);
            r.clock_ms = [9_000, 10_000];
            let mut out = Vec::new();
            prop_assert!(encode(&r, &mut out));
            let mut line = String::from_utf8(out).expect("UTF-8");
            let mut i = at.index(line.len() + 1);
            while !line.is_char_boundary(i) {
                i -= 1;
            }
            let end = (i + cut).min(line.len());
            if line.is_char_boundary(end) {
                line.replace_range(i..end, insert);
            }
            let general = serde_json::from_str::<LogRecord>(&line).ok();
            if let Some(decoded) = decode(&line) {
                prop_assert_eq!(general, Some(LogRecord::Ply(decoded)), "{}", line);
            }
        }
    }

    #[test]
    fn lines_of_another_form_are_left_to_serde() {
        let good = r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#;
        assert!(decode(good).is_some());
        for line in [
            r#"{"type":"ply","ply":01,"side":"S","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#,
            r#"{"type":"ply","ply":4294967296,"side":"S","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#,
            r#"{"type":"ply","ply":1,"side":"X","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#,
            r#"{"type":"ply","ply":1,"side":"S","move":"A6\u003c","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#,
            r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p","info":[]}"#,
            r#"{"type":"ply","ply":1,"side":"S","move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"} "#,
            r#"{"type":"ply","side":"S","ply":1,"move":"A6<","time_us":5,"cpu_us":null,"clock_ms":[1,2],"position":"p"}"#,
        ] {
            assert_eq!(decode(line), None, "{line}");
        }
    }
}
