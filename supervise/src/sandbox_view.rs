//! What a sandbox shows of the host, decided by the caller before the stub starts: the
//! profile's read-only paths checked (absolute, existing), and the program's own file and
//! every existing file its arguments name by absolute path (`python3 /x/bot.py`) added, read
//! only, when no path the sandbox shows holds them (`docs/supervision.md`, "The sandbox"):
//! the caller chose them, the program did not. A program in an install's `bin` or `shims`
//! folder (`/root/.pyenv/shims/python3`, `/opt/node/bin/node`) brings the whole install
//! (`/root/.pyenv`, `/opt/node`), read-only — unless that would be `/` or a home folder
//! (`/root`, `/home/NAME`, `$HOME`), when only the file is shown.

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
    shown.push(dir.to_path_buf());
    let shown: Vec<PathBuf> =
        shown.iter().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())).collect();
    // The program as named, and what it links to: both must be there; so must the files its
    // arguments name.
    let canonical = std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf());
    let named =
        args.iter().map(Path::new).filter(|path| path.is_absolute() && path.is_file()).flat_map(|path| {
            [path.to_path_buf(), std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())]
        });
    for path in [program.to_path_buf(), canonical].into_iter().chain(named) {
        let resolved = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        let inside = shown.iter().any(|root| resolved.starts_with(root))
            && shown.iter().any(|root| path.starts_with(root) || parent_resolves_within(&path, root));
        if !inside && !read_only.contains(&path) {
            read_only.push(path);
        }
    }
    for path in
        [program.to_path_buf(), std::fs::canonicalize(program).unwrap_or_else(|_| program.to_path_buf())]
    {
        if let Some(prefix) = install_prefix(&path)
            && !shown.iter().any(|root| path.starts_with(root))
            && !read_only.contains(&prefix)
        {
            read_only.push(prefix);
        }
    }
    let writable_mib = match profile.program_dir {
        ProgramDirAccess::ReadOnly => None,
        ProgramDirAccess::Writable { disk_mib } => Some(disk_mib),
    };
    Ok(SandboxArgs { read_only, writable_mib, tmp_mib: profile.tmp_mib })
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
}
