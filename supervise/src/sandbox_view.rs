//! What a sandbox shows of the host, decided by the caller before the stub starts: the
//! profile's read-only paths checked (absolute, existing), and the program's own file and
//! every existing file its arguments name by absolute path (`python3 /x/bot.py`) added, read
//! only, when no path the sandbox shows holds them (`docs/supervision.md`, "The sandbox"):
//! the caller chose them, the program did not. A program in an install's `bin` or `shims`
//! folder (`/root/.pyenv/shims/python3`, `/opt/node/bin/node`) brings the whole install
//! (`/root/.pyenv`, `/opt/node`), read-only — unless that would be `/` or a home folder
//! (`/root`, `/home/NAME`, `$HOME`), or it would hold the program folder, when only the file
//! is shown. A link in the program folder is its author's: a program or argument there that
//! links out of the folder to anything the sandbox does not show anyway is refused, naming
//! the link (it never decides what the sandbox shows).

use std::path::{Path, PathBuf};

use crate::sandbox_profile::{ProgramDirAccess, SandboxProfile};

/// What the stub needs of a [`SandboxProfile`] and of the program's place.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SandboxArgs {
    /// Host paths shown read-only: the profile's, and the program's file when it lies outside.
    pub(crate) read_only: Vec<PathBuf>,
    /// The program's folder writable in a tmpfs of this many MiB, or read-only.
    pub(crate) writable_mib: Option<u64>,
    /// The size of `/tmp`, in MiB.
    pub(crate) tmp_mib: u64,
    /// The caller's variables passed on to the program.
    pub(crate) pass_env: Vec<String>,
}

/// The stub's settings for running `program` with `args` from `dir` under `profile`; an
/// error names a read-only path that is not absolute or does not exist, or a program folder
/// of `/`.
pub(crate) fn plan(
    profile: &SandboxProfile,
    program: &Path,
    args: &[String],
    dir: &Path,
) -> Result<SandboxArgs, String> {
    if dir == Path::new("/") {
        return Err(
            "its working directory is /, which the sandbox cannot show as its program folder".to_owned()
        );
    }
    let mut read_only = Vec::new();
    for path in &profile.read_only_paths {
        if !path.is_absolute() {
            return Err(format!("the sandbox's read-only path {} is not absolute", path.display()));
        }
        if std::fs::symlink_metadata(path).is_err() {
            return Err(format!("the sandbox's read-only path {} does not exist", path.display()));
        }
        read_only.push(path.clone());
    }
    let mut shown: Vec<PathBuf> = crate::sandbox_root::SYSTEM_PATHS.iter().map(PathBuf::from).collect();
    shown.extend(read_only.iter().cloned());
    let shown: Vec<PathBuf> =
        shown.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    let folder = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let within = |path: &Path| path.starts_with(&folder) || shown.iter().any(|root| path.starts_with(root));
    // The program as named, and what it links to: both must be there; so must the files its
    // arguments name. A link in the program folder is its author's (an entrant's), not the
    // caller's: it may lead only to what the sandbox shows anyway, never bring in more.
    let named = args.iter().map(Path::new).filter(|path| path.is_absolute() && path.is_file());
    for path in std::iter::once(program).chain(named) {
        let resolved = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        let in_folder = path.starts_with(dir) || parent_resolves_within(path, &folder);
        if in_folder {
            if !within(&resolved) {
                return Err(format!(
                    "{} is a symbolic link in the program folder leading out of it, to {}, which the \
                     sandbox does not show (a program folder's links may lead only within it or to \
                     the system's folders)",
                    path.display(),
                    resolved.display()
                ));
            }
            continue;
        }
        let shown_as_written =
            shown.iter().any(|root| path.starts_with(root) || parent_resolves_within(path, root));
        let resolved_shown = within(&resolved);
        for (candidate, visible) in [(path.to_path_buf(), shown_as_written), (resolved, resolved_shown)] {
            if !visible && !read_only.contains(&candidate) {
                read_only.push(candidate);
            }
        }
    }
    // The install a program named outside the program folder belongs to (the caller's own
    // tools: a pyenv shim), from the path as named; from what it links to only when the link
    // is in a folder the sandbox shows anyway, a system's or the operator's
    // (`/usr/local/bin/node -> /opt/node/bin/node`), never a link anyone else could have made.
    // Never an install holding the program folder, nor one already shown.
    if !(program.starts_with(dir) || parent_resolves_within(program, &folder)) {
        let resolved = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
        let link_shown = shown.iter().any(|root| parent_resolves_within(program, root));
        for (path, trusted) in [(program.to_path_buf(), true), (resolved, link_shown)] {
            if let Some(prefix) = install_prefix(&path).filter(|_| trusted)
                && !within(&path)
                && !folder.starts_with(std::fs::canonicalize(&prefix).unwrap_or_else(|_| prefix.clone()))
                && !read_only.contains(&prefix)
            {
                read_only.push(prefix);
            }
        }
    }
    let writable_mib = match profile.program_dir {
        ProgramDirAccess::ReadOnly => None,
        ProgramDirAccess::Writable { disk_mib } => Some(disk_mib),
    };
    Ok(SandboxArgs { read_only, writable_mib, tmp_mib: profile.tmp_mib, pass_env: profile.pass_env.clone() })
}

/// The install a program in its `bin` or `shims` folder belongs to, unless that is `/`, `/usr`
/// or a home folder.
fn install_prefix(program: &Path) -> Option<PathBuf> {
    let folder = program.parent()?;
    if !matches!(folder.file_name()?.to_str()?, "bin" | "shims") {
        return None;
    }
    let prefix = folder.parent()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let is_home = prefix == Path::new("/root")
        || prefix.parent() == Some(Path::new("/home"))
        || home.as_deref() == Some(prefix);
    (prefix != Path::new("/") && prefix != Path::new("/usr") && !is_home).then(|| prefix.to_path_buf())
}

/// Whether `path`'s folder, with its links resolved, lies within `root` (`/bin/sh` is within
/// `/usr` where `/bin` links to `usr/bin`).
fn parent_resolves_within(path: &Path, root: &Path) -> bool {
    path.parent().and_then(|p| std::fs::canonicalize(p).ok()).is_some_and(|p| p.starts_with(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_programs_need_nothing_and_others_bring_their_file() {
        let profile = SandboxProfile::default();
        let dir = tempfile::tempdir().unwrap();
        let plan_of = |program: &str| plan(&profile, Path::new(program), &[], dir.path()).unwrap();
        assert!(plan_of("/bin/sh").read_only.is_empty(), "{:?}", plan_of("/bin/sh"));
        assert!(plan_of("/usr/bin/env").read_only.is_empty());
        let inside = dir.path().join("bot");
        std::fs::write(&inside, "").unwrap();
        assert!(plan(&profile, &inside, &[], dir.path()).unwrap().read_only.is_empty());
        let elsewhere = tempfile::tempdir().unwrap();
        let outside = elsewhere.path().join("bot");
        std::fs::write(&outside, "").unwrap();
        assert_eq!(plan(&profile, &outside, &[], dir.path()).unwrap().read_only, vec![outside.clone()]);
        let script = outside.display().to_string();
        let with_script = plan(&profile, Path::new("/usr/bin/env"), &[script, "/no/such".into()], dir.path());
        assert_eq!(with_script.unwrap().read_only, vec![outside.clone()], "named by an argument");
        let tool = elsewhere.path().join("tool");
        std::fs::create_dir_all(tool.join("shims")).unwrap();
        std::fs::write(tool.join("shims/python3"), "").unwrap();
        let install = plan(&profile, &tool.join("shims/python3"), &[], dir.path()).unwrap().read_only;
        assert_eq!(install, vec![tool.join("shims/python3"), tool.clone()], "the whole install");
        assert_eq!(install_prefix(Path::new("/root/bin/bot")), None, "never a home folder");
        assert_eq!(install_prefix(Path::new("/home/ann/bin/bot")), None);
        assert_eq!(install_prefix(Path::new("/bin/sh")), None);
        assert_eq!(install_prefix(Path::new("/root/.pyenv/shims/python3")), Some("/root/.pyenv".into()));
        let error = plan(&profile, &outside, &[], Path::new("/")).unwrap_err();
        assert!(error.contains("working directory is /"), "{error}");
        let bad = SandboxProfile { read_only_paths: vec!["relative".into()], ..SandboxProfile::default() };
        assert!(plan(&bad, &outside, &[], dir.path()).unwrap_err().contains("not absolute"));
        let missing =
            SandboxProfile { read_only_paths: vec!["/no/such/path".into()], ..SandboxProfile::default() };
        assert!(plan(&missing, &outside, &[], dir.path()).unwrap_err().contains("does not exist"));
    }

    #[test]
    fn a_link_in_the_program_folder_never_decides_what_is_shown() {
        let profile = SandboxProfile::default();
        let dir = tempfile::tempdir().unwrap();
        let arena = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(arena.path().join("bin")).unwrap();
        std::fs::write(arena.path().join("bin/python3"), "").unwrap();
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        let bot = dir.path().join("bin/bot");
        std::os::unix::fs::symlink(arena.path().join("bin/python3"), &bot).unwrap();
        let error = plan(&profile, &bot, &[], dir.path()).unwrap_err();
        assert!(error.contains(&bot.display().to_string()) && error.contains("symbolic link"), "{error}");
        let arg = dir.path().join("bot.py");
        std::os::unix::fs::symlink(arena.path().join("bin/python3"), &arg).unwrap();
        let by_arg = plan(&profile, Path::new("/bin/sh"), &[arg.display().to_string()], dir.path());
        assert!(by_arg.unwrap_err().contains("bot.py"), "an argument's link too");
        // A link to a system program (a virtual environment's `python`) is fine.
        let venv = dir.path().join("python");
        std::os::unix::fs::symlink("/bin/sh", &venv).unwrap();
        assert_eq!(plan(&profile, &venv, &[], dir.path()).unwrap().read_only, Vec::<PathBuf>::new());
        // A caller's program whose install would hold the program folder brings only its file.
        let inner = arena.path().join("bots/1");
        std::fs::create_dir_all(&inner).unwrap();
        let shown = plan(&profile, &arena.path().join("bin/python3"), &[], &inner).unwrap().read_only;
        assert_eq!(shown, vec![arena.path().join("bin/python3")]);
        // A program named outside the folder whose link leads to an install brings the file
        // it links to, not the install: the link may be anyone's.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::create_dir(elsewhere.path().join("bin")).unwrap();
        let named = elsewhere.path().join("bin/bot");
        std::os::unix::fs::symlink(arena.path().join("bin/python3"), &named).unwrap();
        let shown = plan(&profile, &named, &[], dir.path()).unwrap().read_only;
        assert_eq!(
            shown,
            vec![named.clone(), arena.path().join("bin/python3"), elsewhere.path().to_path_buf()]
        );
    }
}
