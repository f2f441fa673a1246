//! The rating model of an arena (`rating.model` in `arena.toml`).

stored_text! {
    /// The model the ratings are fitted with.
    pub enum RatingModel ("rating model") {
        /// Bradley–Terry by maximum likelihood over all games, on the Elo scale.
        BradleyTerry = "bradley-terry",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_name_is_the_stored_text() {
        assert_eq!("bradley-terry".parse(), Ok(RatingModel::BradleyTerry));
        let e = "glicko".parse::<RatingModel>().expect_err("unknown");
        assert_eq!(e.to_string(), "unknown rating model \"glicko\": expected bradley-terry");
    }
}
