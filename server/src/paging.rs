//! Page numbers of the pages that list games: `?page=N` (1 for the newest),
//! a bounded query per page, and what a bad number gets: a 400 that says what
//! was wrong for anything that is not a whole number from 1 up, the last page
//! for a number past it.

use serde::Serialize;

use crate::error::ApiError;

/// Games on one page of a list.
pub const GAMES_PER_PAGE: u32 = 50;

/// The page number a request asks for, from its query pairs (`page`; none: 1).
/// A number too large for the server (or past the last page) is the last page.
pub fn requested_page(query: &[(String, String)]) -> Result<u32, ApiError> {
    let Some((_, raw)) = query.iter().find(|(k, _)| k == "page") else { return Ok(1) };
    let raw = raw.trim();
    let bad = || {
        ApiError::bad_request(format!(
            "bad page number {raw:?}: pages are numbered 1, 2, 3, … (leave page= out for the first)"
        ))
    };
    if raw.is_empty() || !raw.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad());
    }
    match raw.parse::<u32>() {
        Ok(0) => Err(bad()),
        Ok(n) => Ok(n),
        // All digits but past u32: past the last page too.
        Err(_) => Ok(u32::MAX),
    }
}

/// Where a page is in its list, for the pager under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Paging {
    /// This page (1 for the newest).
    pub page: u32,
    /// The number of pages (at least 1, an empty list has one empty page).
    pub pages: u32,
    /// The number of items in the whole list.
    pub total: u64,
    /// Items per page.
    pub per_page: u32,
}

impl Paging {
    /// The page `requested` of a list of `total` items, `per_page` a page: past the last page, the last.
    #[must_use]
    pub fn new(requested: u32, total: u64, per_page: u32) -> Paging {
        let per_page = per_page.max(1);
        let pages = u32::try_from(total.div_ceil(u64::from(per_page))).unwrap_or(u32::MAX).max(1);
        Paging { page: requested.clamp(1, pages), pages, total, per_page }
    }

    /// How many items come before this page.
    #[must_use]
    pub fn offset(&self) -> u32 {
        (self.page - 1).saturating_mul(self.per_page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(v: &str) -> Vec<(String, String)> {
        vec![("page".to_owned(), v.to_owned())]
    }

    #[test]
    fn page_numbers_are_checked_and_clamped() {
        assert_eq!(requested_page(&[]).ok(), Some(1));
        assert_eq!(requested_page(&q("3")).ok(), Some(3));
        assert_eq!(requested_page(&q("99999999999999999999")).ok(), Some(u32::MAX));
        for bad in ["0", "-1", "abc", "", "1.5", "2e3", " "] {
            let e = requested_page(&q(bad)).expect_err(bad);
            assert_eq!(e.status, axum::http::StatusCode::BAD_REQUEST);
            assert!(e.message.contains("bad page number"), "{}", e.message);
        }
        let p = Paging::new(1, 0, 50);
        assert_eq!((p.page, p.pages, p.offset()), (1, 1, 0), "an empty list has one empty page");
        let p = Paging::new(3, 120, 50);
        assert_eq!((p.page, p.pages, p.offset()), (3, 3, 100));
        let p = Paging::new(u32::MAX, 120, 50);
        assert_eq!((p.page, p.offset()), (3, 100), "past the end: the last page");
        assert_eq!(Paging::new(2, 100, 50).pages, 2);
    }
}
