//! What a game log shows to someone who owns neither bot: no `stderr` record (a bot's
//! stderr is for its owner and the administrators), no directory of the server (the
//! header's `dir`, and the arena's folder in any text, become relative to the arena). What
//! is left still verifies with `bao-referee verify`, which reads neither.

use std::path::Path;

use serde_json::Value;

/// The public form of a log's text. Lines that are not JSON (a torn last line) are left out.
#[must_use]
pub fn public_log(text: &str, arena_dir: &Path) -> String {
    let prefixes = arena_prefixes(arena_dir);
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let Ok(mut record) = serde_json::from_str::<Value>(line) else { continue };
        match record.get("type").and_then(Value::as_str) {
            Some("stderr") => continue,
            Some("header") => {
                for side in ["south", "north"] {
                    if let Some(bot) = record.get_mut(side).and_then(Value::as_object_mut) {
                        bot.remove("dir");
                    }
                }
            }
            _ => {}
        }
        scrub(&mut record, &prefixes);
        out.push_str(&record.to_string());
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

fn scrub(value: &mut Value, prefixes: &[String]) {
    match value {
        Value::String(s) => {
            if prefixes.iter().any(|p| s.contains(p.as_str())) {
                *s = scrub_text(s, prefixes);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| scrub(v, prefixes)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub(v, prefixes)),
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stderr_and_the_arena_folder_are_left_out() {
        let log = concat!(
            r#"{"type":"header","south":{"name":"a","command":"/srv/arena/bots/1/1/bot","dir":"/srv/arena/bots/1/1"},"north":{"name":"b","command":"python3 main.py","dir":"/srv/arena/bots/2/1"}}"#,
            "\n",
            r#"{"type":"ply","ply":1,"side":"S","move":"A6>"}"#,
            "\n",
            r#"{"type":"stderr","side":"S","text":"secret at /srv/arena/bots/1/1"}"#,
            "\n",
            r#"{"type":"result","detail":"could not start \"/srv/arena/bots/1/1/bot\""}"#,
            "\n{\"type\":\"pl"
        );
        let public = public_log(log, Path::new("/srv/arena"));
        assert!(!public.contains("stderr"), "{public}");
        assert!(!public.contains("secret"), "{public}");
        assert!(!public.contains("/srv/arena"), "{public}");
        assert!(public.contains(r#""command":"bots/1/1/bot""#), "{public}");
        assert!(public.contains(r#""move":"A6>""#), "{public}");
        assert_eq!(public.lines().count(), 3, "header, ply, result: {public}");
    }
}
