//! A short-lived cache of whole answers (the leaderboard's JSON and page), so
//! that many clients reading the standings at once cost one database read per
//! second instead of one each. An answer is at most [`TTL`] old.

use std::collections::HashMap;
use std::sync::RwLock;
use std::time::{Duration, Instant};

/// How long a cached answer is served.
pub const TTL: Duration = Duration::from_secs(1);

/// Cached answers by key.
#[derive(Default)]
pub struct AnswerCache {
    entries: RwLock<HashMap<&'static str, (Instant, bytes::Bytes)>>,
}

impl AnswerCache {
    /// The fresh answer under `key`, if any.
    pub fn get(&self, key: &'static str) -> Option<bytes::Bytes> {
        let entries = self.entries.read().ok()?;
        entries.get(key).filter(|(at, _)| at.elapsed() < TTL).map(|(_, v)| v.clone())
    }

    /// Stores an answer.
    pub fn put(&self, key: &'static str, value: String) -> bytes::Bytes {
        let value = bytes::Bytes::from(value);
        if let Ok(mut entries) = self.entries.write() {
            entries.insert(key, (Instant::now(), value.clone()));
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serves_what_was_put_under_its_key() {
        let c = AnswerCache::default();
        assert!(c.get("a").is_none());
        c.put("a", "x".into());
        assert_eq!(c.get("a").as_deref(), Some(&b"x"[..]));
        assert!(c.get("b").is_none());
    }
}
