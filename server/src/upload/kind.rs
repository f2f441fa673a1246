//! The kind of an uploaded file, from its name.

/// How an upload is unpacked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UploadKind {
    /// One source file (or executable), saved under the language's `main` name.
    Single,
    /// A zip archive.
    Zip,
    /// A tar archive.
    Tar,
    /// A gzip-compressed tar archive.
    TarGz,
}

impl UploadKind {
    /// The kind of a file named `file_name`.
    #[must_use]
    pub fn from_file_name(file_name: &str) -> UploadKind {
        let lower = file_name.to_ascii_lowercase();
        if lower.ends_with(".zip") {
            UploadKind::Zip
        } else if lower.ends_with(".tar.gz") || lower.ends_with(".tgz") {
            UploadKind::TarGz
        } else if lower.ends_with(".tar") {
            UploadKind::Tar
        } else {
            UploadKind::Single
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_from_names() {
        assert_eq!(UploadKind::from_file_name("bot.py"), UploadKind::Single);
        assert_eq!(UploadKind::from_file_name("BOT.ZIP"), UploadKind::Zip);
        assert_eq!(UploadKind::from_file_name("b.tar.gz"), UploadKind::TarGz);
        assert_eq!(UploadKind::from_file_name("b.tgz"), UploadKind::TarGz);
        assert_eq!(UploadKind::from_file_name("b.tar"), UploadKind::Tar);
    }
}
