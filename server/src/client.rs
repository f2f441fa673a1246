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

/// Uploads the file and returns the server's JSON answer (the new version).
pub fn submit_client(opts: &SubmitOptions) -> Result<serde_json::Value, ServerError> {
    let bytes = std::fs::read(&opts.file)
        .map_err(|e| ServerError::io(format!("cannot read {}", opts.file.display()), e))?;
    let file_name = opts
        .file
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .ok_or_else(|| ServerError::Invalid(format!("{} has no file name", opts.file.display())))?;
    let url = format!("{}/api/bots/{}/versions", opts.server.trim_end_matches('/'), opts.bot);
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
    let body: serde_json::Value = response.body_mut().read_json().map_err(|e| {
        ServerError::Client(format!("the server answered {status} with a body that is not JSON: {e}"))
    })?;
    if !status.is_success() {
        let message = body.get("error").and_then(|m| m.as_str()).unwrap_or("no message");
        return Err(ServerError::Client(format!("the server refused the submission ({status}): {message}")));
    }
    Ok(body)
}
