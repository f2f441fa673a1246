//! The messages of the spawn server (`spawn_server.rs`), one `SOCK_SEQPACKET` message each:
//! the referee's request to start one bot and the server's answer. Pure encoding and decoding
//! (the descriptors travel beside them, as `SCM_RIGHTS`).
//!
//! Every variable-length field is a little-endian `u32` length and its bytes; a list is a
//! `u32` count and its fields.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

/// The largest request the referee sends (a bigger one — huge arguments or environment —
/// starts its bot through an `exec` of the stub instead): well below the default socket send
/// buffer (`net.core.wmem_default`, 208 KiB), which bounds one `SOCK_SEQPACKET` message.
pub(crate) const MAX_REQUEST_BYTES: usize = 160 * 1024;

/// The largest answer (an error message).
pub(crate) const MAX_ANSWER_BYTES: usize = 4096;

/// The one byte the server writes its child once the referee has the child's pid: go on.
pub(crate) const GO: u8 = b'g';

/// Start one bot: what the referee would otherwise put on the stub's command line and in
/// its `Command`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SpawnRequest {
    /// The stub's arguments after `__exec-bot`: its options, `--`, the program and its
    /// arguments.
    pub(crate) stub_args: Vec<OsString>,
    /// The whole environment of the stub, and so of the bot: `NAME=value` entries.
    pub(crate) environment: Vec<OsString>,
    /// The working directory.
    pub(crate) dir: OsString,
}

impl SpawnRequest {
    /// Whether an argument, an environment entry or the directory holds a NUL byte, which no
    /// C string can carry: such a start goes the `Command` way, whose error names it.
    pub(crate) fn holds_a_nul(&self) -> bool {
        let has_nul = |text: &OsString| text.as_encoded_bytes().contains(&0);
        self.stub_args.iter().chain(&self.environment).any(has_nul) || has_nul(&self.dir)
    }
}

/// The server's answer to a [`SpawnRequest`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SpawnAnswer {
    /// The outer stub runs as `pid`, a child of the referee; its pidfd comes with the answer.
    Started {
        /// Its pid.
        pid: i32,
    },
    /// The bot could not be started; `errno` and `message` say why. With `pid`, a child was
    /// forked and has exited (or is exiting) without running anything: its pidfd comes with
    /// the answer, for the referee to reap it.
    Failed {
        /// The error number (`errno`) of the failure.
        errno: i32,
        /// What failed.
        message: String,
        /// The child to reap, if one was forked.
        pid: Option<i32>,
    },
    /// The server cannot start bots on this system (no `clone3`, `CLONE_PARENT` or
    /// `CLONE_PIDFD`, or the C library's thread-id cache is not found): start them with an
    /// `exec` of the stub.
    Unsupported {
        /// The error number.
        errno: i32,
        /// What was refused.
        message: String,
    },
}

impl SpawnRequest {
    /// The message's bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        put_list(&mut out, &self.stub_args);
        put_list(&mut out, &self.environment);
        put_bytes(&mut out, self.dir.as_bytes());
        out
    }

    /// Reads a message written by [`SpawnRequest::encode`].
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut reader = Reader(bytes);
        let stub_args = reader.list()?;
        let environment = reader.list()?;
        let dir = OsString::from_vec(reader.bytes()?.to_vec());
        reader.end()?;
        Ok(Self { stub_args, environment, dir })
    }
}

impl SpawnAnswer {
    /// The message's bytes.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        match self {
            Self::Started { pid } => {
                out.push(0);
                out.extend_from_slice(&pid.to_le_bytes());
            }
            Self::Failed { errno, message, pid } => {
                out.push(1);
                out.extend_from_slice(&errno.to_le_bytes());
                out.extend_from_slice(&pid.unwrap_or(0).to_le_bytes());
                put_bytes(&mut out, message.as_bytes());
            }
            Self::Unsupported { errno, message } => {
                out.push(2);
                out.extend_from_slice(&errno.to_le_bytes());
                put_bytes(&mut out, message.as_bytes());
            }
        }
        out
    }

    /// Reads a message written by [`SpawnAnswer::encode`].
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self, String> {
        let mut reader = Reader(bytes);
        let answer = match reader.byte()? {
            0 => Self::Started { pid: reader.i32()? },
            1 => {
                let errno = reader.i32()?;
                let pid = Some(reader.i32()?).filter(|&pid| pid > 0);
                Self::Failed { errno, message: reader.text()?, pid }
            }
            2 => Self::Unsupported { errno: reader.i32()?, message: reader.text()? },
            other => return Err(format!("unknown answer kind {other}")),
        };
        reader.end()?;
        Ok(answer)
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    let len = u32::try_from(bytes.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&bytes[..len as usize]);
}

fn put_list(out: &mut Vec<u8>, items: &[OsString]) {
    let count = u32::try_from(items.len()).unwrap_or(u32::MAX);
    out.extend_from_slice(&count.to_le_bytes());
    for item in items.iter().take(count as usize) {
        put_bytes(out, item.as_bytes());
    }
}

/// Reads the fields of a message in order.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err(format!("the message ends {} bytes early", n - self.0.len()));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        let bytes: [u8; 4] = self.take(4)?.try_into().map_err(|_| "a short number".to_owned())?;
        Ok(u32::from_le_bytes(bytes))
    }

    fn i32(&mut self) -> Result<i32, String> {
        let bytes: [u8; 4] = self.take(4)?.try_into().map_err(|_| "a short number".to_owned())?;
        Ok(i32::from_le_bytes(bytes))
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = self.u32()? as usize;
        self.take(len)
    }

    fn text(&mut self) -> Result<String, String> {
        Ok(String::from_utf8_lossy(self.bytes()?).into_owned())
    }

    fn list(&mut self) -> Result<Vec<OsString>, String> {
        let count = self.u32()? as usize;
        // Each item takes at least its 4-byte length: a count beyond that is malformed (and
        // must not reserve memory for it).
        if count > self.0.len() / 4 {
            return Err(format!("a list of {count} items in {} bytes", self.0.len()));
        }
        (0..count).map(|_| Ok(OsString::from_vec(self.bytes()?.to_vec()))).collect()
    }

    fn end(&self) -> Result<(), String> {
        if self.0.is_empty() { Ok(()) } else { Err(format!("{} bytes too many", self.0.len())) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_message_reads_back() {
        let request = SpawnRequest {
            stub_args: vec!["--isolation".into(), "pid".into(), "--".into(), "/bin/sh".into(), "".into()],
            environment: vec![
                "A=1".into(),
                "TMPDIR=/tmp/x".into(),
                OsString::from_vec(vec![b'B', b'=', 0xff]),
            ],
            dir: "/srv/bot dir".into(),
        };
        assert_eq!(SpawnRequest::decode(&request.encode()), Ok(request));
        for answer in [
            SpawnAnswer::Started { pid: 4242 },
            SpawnAnswer::Failed { errno: 11, message: "cannot fork".into(), pid: None },
            SpawnAnswer::Failed { errno: 2, message: "no such directory".into(), pid: Some(77) },
            SpawnAnswer::Unsupported { errno: 38, message: "no clone3".into() },
        ] {
            assert_eq!(SpawnAnswer::decode(&answer.encode()), Ok(answer));
        }
    }

    #[test]
    fn malformed_messages_are_errors_not_panics() {
        let good =
            SpawnRequest { stub_args: vec!["--".into(), "bot".into()], environment: vec![], dir: "/".into() }
                .encode();
        for cut in 0..good.len() {
            assert!(SpawnRequest::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(SpawnRequest::decode(&longer).unwrap_err().contains("too many"));
        assert!(SpawnRequest::decode(&u32::MAX.to_le_bytes()).unwrap_err().contains("items"));
        assert!(SpawnAnswer::decode(&[9]).unwrap_err().contains("unknown"));
        assert!(SpawnAnswer::decode(&[]).is_err());
        assert!(SpawnAnswer::decode(&[0, 0, 0, 0, 0, 0]).is_err());
    }
}
