//! The verdict of a candidate's SPRT.

stored_text! {
    /// What a candidate's SPRT decided (none while undecided).
    pub enum SprtVerdict ("SPRT verdict") {
        /// Not better than its baseline.
        H0 = "h0",
        /// Better than its baseline: promoted, or waiting for its owner to promote it.
        H1 = "h1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_stored_in_lower_case() {
        assert_eq!(SprtVerdict::H1.as_str(), "h1");
        assert_eq!("h0".parse(), Ok(SprtVerdict::H0));
        assert!("H1".parse::<SprtVerdict>().is_err());
    }
}
