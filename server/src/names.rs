//! Validation of names users choose (user names, bot names) and of file names.

/// The longest name accepted.
pub const MAX_NAME_LEN: usize = 32;

/// Checks a user, bot or language name: 1 to 32 characters, ASCII letters,
/// digits, `_` and `-`, starting with a letter or digit. `what` names the field
/// in the error.
pub fn validate_name(name: &str, what: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if name.len() > MAX_NAME_LEN {
        return Err(format!("{what} is longer than {MAX_NAME_LEN} characters"));
    }
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(format!("{what} {name:?} must start with a letter or a digit"));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_' || *c == '-')) {
        return Err(format!("{what} {name:?} contains {c:?}: only letters, digits, '_' and '-' are allowed"));
    }
    Ok(())
}

/// Checks a plain file name (no directory part): letters, digits, `.`, `_`,
/// `-`, not starting with a dot, at most 64 characters.
pub fn validate_file_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > 64 {
        return Err(format!("file name {name:?} must have 1 to 64 characters"));
    }
    if name.starts_with('.') {
        return Err(format!("file name {name:?} must not start with '.'"));
    }
    if let Some(c) = name.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))) {
        return Err(format!("file name {name:?} contains {c:?}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn good_names_pass() {
        for n in ["a", "Bot-2", "x_y", "0day", "abcdefghijabcdefghijabcdefghij12"] {
            assert_eq!(validate_name(n, "bot name"), Ok(()), "{n}");
        }
    }

    #[test]
    fn bad_names_are_explained() {
        let e = validate_name("<script>", "bot name").expect_err("markup");
        assert!(e.contains("bot name") && e.contains('<'), "{e}");
        assert!(validate_name("", "bot name").expect_err("empty").contains("empty"));
        assert!(validate_name("-x", "bot name").is_err());
        assert!(validate_name("a b", "bot name").is_err());
        assert!(validate_name("é", "bot name").is_err());
        assert!(validate_name(&"a".repeat(33), "bot name").expect_err("long").contains("longer"));
    }

    #[test]
    fn file_names() {
        assert!(validate_file_name("main.py").is_ok());
        assert!(validate_file_name("../x").is_err());
        assert!(validate_file_name(".hidden").is_err());
        assert!(validate_file_name("a/b").is_err());
    }
}
