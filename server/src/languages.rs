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
    /// The build command, run through `sh -c` in the version's directory, in the
    /// sandbox (may be empty). It names the files it reads explicitly (`./*.cpp`,
    /// not `*.cpp`), so that no file name of a submission becomes an option.
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

    #[test]
    fn default_builds_name_their_files_explicitly() {
        let config = crate::config::ArenaConfig::default_config();
        for l in &config.languages {
            let words = shell_words::split(&l.build).expect("splits");
            for w in &words {
                // A glob or the entry file as an argument: through `./`, so that an
                // uploaded `-x.cpp` or `@o.cpp` stays a file name.
                let names_a_file = w.contains('*') || w == &l.main || w.ends_with(&format!("/{}", l.main));
                if names_a_file {
                    assert!(w.starts_with("./"), "{}: {w:?} in {:?}", l.name, l.build);
                }
            }
        }
        // Python: the current directory is not on the import path (-I), so an uploaded
        // `py_compile.py` is not what runs.
        let python = config.language("python").expect("python");
        assert!(python.build.starts_with("python3 -I "), "{}", python.build);
    }
}
