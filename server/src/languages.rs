//! The language table of `arena.toml`: for each language, the file name a
//! single upload is saved as, a build command and a run command.

use serde::{Deserialize, Serialize};

/// One language entrants may submit in.
#[derive(Debug, Clone, Deserialize, Serialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Language {
    /// Its name, as given by the submitter (`python`, `cpp`, ...).
    pub name: String,
    /// A line for the submission page.
    #[serde(default)]
    pub description: String,
    /// The entry file: a single upload is saved under this name; an archive must
    /// contain it at its root.
    pub main: String,
    /// The build command, run through `sh -c` in the version's directory (may be empty).
    #[serde(default)]
    pub build: String,
    /// The bot's command line, split like a shell would (no shell runs it).
    pub run: String,
}

impl Language {
    /// The run command as a program and its arguments.
    pub fn run_argv(&self) -> Result<Vec<String>, String> {
        let argv = shell_words::split(&self.run).map_err(|e| format!("run command {:?}: {e}", self.run))?;
        if argv.is_empty() {
            return Err("run command is empty".into());
        }
        Ok(argv)
    }

    /// Checks the entry's values.
    pub fn validate(&self) -> Result<(), String> {
        crate::names::validate_name(&self.name, "language name")?;
        crate::names::validate_file_name(&self.main)?;
        self.run_argv()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_argv_splits_like_a_shell() {
        let l = Language {
            name: "java".into(),
            description: String::new(),
            main: "Main.java".into(),
            build: String::new(),
            run: "java -cp 'my classes' Main".into(),
        };
        assert_eq!(l.run_argv().expect("valid"), ["java", "-cp", "my classes", "Main"]);
        let bad = Language { run: "python3 'unclosed".into(), ..l };
        assert!(bad.validate().is_err());
    }
}
