//! Arbitrary text → `bao_game::verify::verify_log`, the reader of `bao-referee verify` and of
//! `merge`. Nothing may panic; a log that verifies no longer does without its last line (it is
//! then incomplete), and an error always names a line inside the text (or one past it).

#![no_main]

use bao_game::verify::verify_log;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let lines = text.split_inclusive('\n').count();
    match verify_log(text) {
        Ok(verified) => {
            assert!(text.ends_with('\n'));
            let without_last = match text.trim_end_matches('\n').rfind('\n') {
                Some(end) => &text[..=end],
                None => "",
            };
            let cut = verify_log(without_last).expect_err("a log without its result verified");
            assert!(cut.incomplete || !cut.malformed, "{cut}");
            assert!(verified.result.len() <= text.len());
        }
        Err(e) => {
            assert!(e.line >= 1 && e.line <= lines + 1, "line {} of {lines}", e.line);
            assert!(!(e.malformed && e.incomplete), "{e}");
        }
    }
});
