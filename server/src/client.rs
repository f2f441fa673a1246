//! `bao-referee submit`: uploads a bot to a server through its API (for a bot
//! author's own CI).

use std::path::PathBuf;
use std::time::Duration;

use crate::error::ServerError;

/// What to submit, and where.
#[derive(Debug, Clone)]
pub struct SubmitOptions {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    pub server: String,
    /// The API token.
    pub token: String,
    /// The file to upload (a source file, an executable or an archive).
    pub file: PathBuf,
    /// The bot's name.
    pub bot: String,
    /// The language.
    pub language: String,
    /// Submit as a candidate against the active version.
    pub candidate: bool,
    /// Promote the candidate automatically if it passes.
    pub auto_promote: bool,
}

/// The characters kept as they are in a path segment (RFC 3986's unreserved ones).
const PATH_SEGMENT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// The URL of a bot's versions: the name percent-encoded, so that the server (not the URL
/// parser) judges it and says what is wrong with it.
fn versions_url(server: &str, bot: &str) -> String {
    let bot = percent_encoding::utf8_percent_encode(bot, PATH_SEGMENT);
    format!("{}/api/bots/{bot}/versions", server.trim_end_matches('/'))
}

/// Uploads the file and returns the server's JSON answer (the new version). `https://`
/// servers are reached over TLS (rustls, the Mozilla roots).
///
/// # Errors
/// The file cannot be read; the server cannot be reached ([`ServerError::Client`]); the
/// server refused the submission ([`ServerError::Refused`], with the server's message).
pub fn submit_client(opts: &SubmitOptions) -> Result<serde_json::Value, ServerError> {
    let bytes = std::fs::read(&opts.file)
        .map_err(|e| ServerError::io(format!("cannot read {}", opts.file.display()), e))?;
    let file_name = opts
        .file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| ServerError::Invalid(format!("{} has no file name", opts.file.display())))?;
    if !(opts.server.starts_with("http://") || opts.server.starts_with("https://")) {
        return Err(ServerError::Invalid(format!(
            "--server must start with http:// or https://, not {:?}",
            opts.server
        )));
    }
    let url = versions_url(&opts.server, &opts.bot);
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_secs(120)))
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = agent
        .post(&url)
        .query("language", &opts.language)
        .query("file_name", &file_name)
        .query("candidate", if opts.candidate { "true" } else { "false" })
        .query("auto_promote", if opts.auto_promote { "true" } else { "false" })
        .header("Authorization", &format!("Bearer {}", opts.token))
        .header("Content-Type", "application/octet-stream")
        .send(&bytes[..])
        .map_err(|e| ServerError::Client(format!("cannot reach {url}: {e}")))?;
    let status = response.status();
    let text = response.body_mut().read_to_string().map_err(|e| {
        ServerError::Client(format!("the server answered {status} but its answer cannot be read: {e}"))
    })?;
    let body = serde_json::from_str::<serde_json::Value>(&text);
    if !status.is_success() {
        // The server's own words: its JSON `error`, else the start of whatever it sent.
        let message = match &body {
            Ok(json) => json.get("error").and_then(|m| m.as_str()).map(str::to_owned),
            Err(_) => None,
        }
        .unwrap_or_else(|| excerpt(&text));
        return Err(ServerError::Refused(format!("the server refused the submission ({status}): {message}")));
    }
    body.map_err(|e| {
        ServerError::Client(format!("the server answered {status} with a body that is not JSON: {e}"))
    })
}

/// The first 300 characters of a text, on one line.
fn excerpt(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(300) {
        Some((cut, _)) => format!("{}…", &one_line[..cut]),
        None if one_line.is_empty() => "no message".to_owned(),
        None => one_line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_name_is_one_percent_encoded_path_segment() {
        assert_eq!(versions_url("http://h:1/", "alpha-1"), "http://h:1/api/bots/alpha-1/versions");
        assert_eq!(versions_url("http://h", "a<b c/d"), "http://h/api/bots/a%3Cb%20c%2Fd/versions");
    }

    #[test]
    fn https_urls_are_spoken_over_tls() {
        // A plain-HTTP listener: the client's TLS handshake meets an HTTP answer, which
        // rustls reports as such (a client without TLS would not have tried).
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let server = std::thread::spawn(move || {
            if let Ok((mut s, _)) = listener.accept() {
                use std::io::{Read, Write};
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
                let _ = s.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
            }
        });
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("bot.py");
        std::fs::write(&file, "x = 1\n").expect("write");
        let opts = SubmitOptions {
            server: format!("https://127.0.0.1:{port}"),
            token: "t".into(),
            file,
            bot: "b".into(),
            language: "python".into(),
            candidate: false,
            auto_promote: false,
        };
        let e = submit_client(&opts).expect_err("not a TLS server").to_string();
        server.join().expect("server thread");
        assert!(e.contains("corrupt message") || e.contains("InvalidContentType"), "{e}");
    }

    #[test]
    fn an_answer_that_is_not_json_is_quoted_short() {
        assert_eq!(excerpt("  <h1>502\nBad   gateway</h1> "), "<h1>502 Bad gateway</h1>");
        assert_eq!(excerpt(""), "no message");
        assert!(excerpt(&"x".repeat(500)).ends_with('…'));
    }
}
