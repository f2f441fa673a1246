//! Arbitrary bytes from a bot, as the referee reads them: split into chunks
//! at fuzzer-chosen points, framed by the bounded line decoder, each line
//! parsed as a protocol message. Nothing may panic, no line may exceed the
//! limit, and the buffer never grows past the limit plus one chunk.

#![no_main]

use bao_protocol::{BotMessage, MAX_LINE_BYTES};
use bao_supervise::lines::BoundedLines;
use bytes::BytesMut;
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::Decoder;

/// A small limit so that the fuzzer reaches the too-long path often.
const SMALL_LIMIT: usize = 256;

fuzz_target!(|data: &[u8]| {
    let Some((&split, bytes)) = data.split_first() else { return };
    for max in [SMALL_LIMIT, MAX_LINE_BYTES] {
        let mut decoder = BoundedLines::new(max);
        let mut buf = BytesMut::new();
        let chunk = usize::from(split).max(1);
        'feed: for piece in bytes.chunks(chunk) {
            buf.extend_from_slice(piece);
            loop {
                match decoder.decode(&mut buf) {
                    Ok(Some(line)) => {
                        assert!(line.len() <= max);
                        if let Ok(message) = BotMessage::parse(&line) {
                            // What parses must print and parse back to itself.
                            assert_eq!(BotMessage::parse(&message.to_line()).ok(), Some(message));
                        }
                    }
                    Ok(None) => break,
                    Err(_) => break 'feed,
                }
            }
            assert!(buf.len() <= max + chunk + 1);
        }
    }
});
