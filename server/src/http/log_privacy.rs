//! What a game log shows to someone who owns neither bot: no `stderr` record (a bot's
//! stderr is for its owner and the administrators), no directory of the server (the
//! header's `dir`, and the arena's folder in any text, become relative to the arena). What
//! is left still verifies with `bao-referee verify`, which reads neither.

use std::path::Path;

use bao_game::log::LogRecord;

/// The public form of a log's text. Records keep their text (and their keys' order) but
/// for the header, written again without the bots' `dir`; lines that are not a record (a
/// torn last line) are left out.
#[must_use]
pub fn public_log(text: &str, arena_dir: &Path) -> String {
    // As the folder appears inside JSON strings.
    let prefixes: Vec<String> = arena_prefixes(arena_dir)
        .into_iter()
        .filter_map(|p| serde_json::to_string(&p).ok())
        .map(|quoted| quoted.trim_matches('"').to_owned())
        .collect();
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let Ok(record) = serde_json::from_str::<LogRecord>(line) else { continue };
        let kept = match record {
            LogRecord::Stderr(_) => continue,
            LogRecord::Header(mut header) => {
                header.south.dir = None;
                header.north.dir = None;
                match serde_json::to_string(&LogRecord::Header(header)) {
                    Ok(line) => line,
                    Err(_) => continue,
                }
            }
            LogRecord::Ready(_) | LogRecord::Ply(_) | LogRecord::Result(_) => line.to_owned(),
        };
        out.push_str(&scrub_text(&kept, &prefixes));
        out.push('\n');
    }
    out
}

/// The arena's folder as written in logs (as given and made absolute), each with its `/`.
#[must_use]
pub fn arena_prefixes(arena_dir: &Path) -> Vec<String> {
    let mut prefixes = vec![format!("{}/", arena_dir.display())];
    if let Ok(absolute) = std::path::absolute(arena_dir) {
        prefixes.push(format!("{}/", absolute.display()));
    }
    if let Ok(real) = arena_dir.canonicalize() {
        prefixes.push(format!("{}/", real.display()));
    }
    // The longest first, so that an absolute form is not half replaced by a shorter one.
    prefixes.sort_by_key(|p| std::cmp::Reverse(p.len()));
    prefixes.dedup();
    prefixes
}

/// Removes the arena's folder from a text: `/srv/arena/bots/3/1/bot` becomes `bots/3/1/bot`.
#[must_use]
pub fn scrub_text(text: &str, prefixes: &[String]) -> String {
    let mut text = text.to_owned();
    for prefix in prefixes {
        if prefix.len() > 1 && text.contains(prefix.as_str()) {
            text = text.replace(prefix.as_str(), "");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_records_and_torn_lines_are_left_out_and_the_folder_scrubbed() {
        let log = concat!(
            r#"{"type":"stderr","side":"S","bytes_total":6,"truncated":false,"text":"secret"}"#,
            "\n{\"type\":\"pl"
        );
        assert_eq!(public_log(log, Path::new("/srv/arena")), "");
        let prefixes = arena_prefixes(Path::new("/srv/arena"));
        assert_eq!(
            scrub_text(r#"could not start "/srv/arena/bots/1/v1/bot""#, &prefixes),
            r#"could not start "bots/1/v1/bot""#
        );
    }
}
