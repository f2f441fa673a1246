//! The log's ply record written straight into the log's line buffer, one per ply: the same
//! bytes as the serde form of [`LogRecord::Ply`](crate::log::LogRecord::Ply), without the
//! serialiser (no allocation, no formatting machinery).

use crate::log::PlyRecord;
use crate::wire::needs_json_escape;

/// Appends the ply record's JSON (without the `'\n'`) to `out` and returns `true`, or leaves
/// `out` as it was and returns `false` for a record this writer does not cover: one with
/// `info` lines or `lag_excused_us`, or text that would need escaping (the referee's own
/// notation never does). Such a record is written by serde.
pub(crate) fn encode(record: &PlyRecord, out: &mut Vec<u8>) -> bool {
    if !record.info.is_empty()
        || record.lag_excused_us.is_some()
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
                prop_assert_eq!(out, serde_form(&r));
            } else {
                prop_assert!(out.is_empty());
            }
        }
    }
}
