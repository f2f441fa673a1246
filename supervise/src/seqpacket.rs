//! One message with descriptors over a `SOCK_SEQPACKET` Unix socket (`sendmsg`/`recvmsg`
//! with `SCM_RIGHTS`): what the spawn server and the referee exchange.

use std::io::IoSlice;
use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd, RawFd};

use nix::errno::Errno;
use nix::sys::socket::{AddressFamily, ControlMessage, MsgFlags, SockFlag, SockType, sendmsg};

/// The most descriptors one message carries (a request has three).
const MAX_FDS: usize = 4;

/// A connected pair of `SOCK_SEQPACKET` Unix sockets, both close-on-exec.
pub(crate) fn pair() -> Result<(OwnedFd, OwnedFd), Errno> {
    nix::sys::socket::socketpair(AddressFamily::Unix, SockType::SeqPacket, None, SockFlag::SOCK_CLOEXEC)
}

/// Sends `bytes` as one message, with `fds` (copies of them arrive at the other end).
pub(crate) fn send(socket: BorrowedFd<'_>, bytes: &[u8], fds: &[BorrowedFd<'_>]) -> Result<(), Errno> {
    let raw: Vec<RawFd> = fds.iter().map(AsRawFd::as_raw_fd).collect();
    let rights = [ControlMessage::ScmRights(&raw)];
    let control: &[ControlMessage<'_>] = if raw.is_empty() { &[] } else { &rights };
    loop {
        // No SIGPIPE when the other end is gone: an error (EPIPE) instead.
        match sendmsg::<()>(socket.as_raw_fd(), &[IoSlice::new(bytes)], control, MsgFlags::MSG_NOSIGNAL, None)
        {
            Err(Errno::EINTR) => {}
            Ok(sent) if sent == bytes.len() => return Ok(()),
            Ok(_) => return Err(Errno::EMSGSIZE),
            Err(e) => return Err(e),
        }
    }
}

/// One message received.
#[derive(Debug)]
pub(crate) struct Received {
    /// Its length (at most the buffer's).
    pub(crate) len: usize,
    /// The descriptors that came with it (close-on-exec).
    pub(crate) fds: Vec<OwnedFd>,
    /// It, or its descriptors, did not fit: the message is not to be trusted.
    pub(crate) truncated: bool,
}

/// Receives one message into `buffer`; `None` at end of file (the other end closed: every
/// message sent is non-empty). A timeout set on the socket is `EAGAIN`.
pub(crate) fn receive(socket: BorrowedFd<'_>, buffer: &mut [u8]) -> Result<Option<Received>, Errno> {
    loop {
        let (len, flags, fds) = match crate::clone_into_cgroup::receive_with_fds::<MAX_FDS>(socket, buffer) {
            Err(Errno::EINTR) => continue,
            other => other?,
        };
        let truncated = flags.intersects(MsgFlags::MSG_TRUNC | MsgFlags::MSG_CTRUNC);
        if len == 0 && fds.is_empty() && !truncated {
            return Ok(None);
        }
        return Ok(Some(Received { len, fds, truncated }));
    }
}

/// Sets the timeouts of `send` and `receive` on `socket`.
pub(crate) fn set_timeouts(socket: BorrowedFd<'_>, timeout: std::time::Duration) -> Result<(), Errno> {
    use nix::sys::socket::{setsockopt, sockopt};
    let timeval = nix::sys::time::TimeVal::new(
        i64::try_from(timeout.as_secs()).unwrap_or(i64::MAX),
        i64::from(timeout.subsec_micros()),
    );
    setsockopt(&socket, sockopt::ReceiveTimeout, &timeval)?;
    setsockopt(&socket, sockopt::SendTimeout, &timeval)
}

#[cfg(test)]
mod tests {
    use std::os::fd::AsFd;

    use super::*;

    #[test]
    fn a_message_and_its_descriptors_arrive_and_end_of_file_is_none() {
        let (a, b) = pair().unwrap();
        let (read, write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).unwrap();
        send(a.as_fd(), b"hello", &[read.as_fd(), write.as_fd()]).unwrap();
        let mut buffer = [0u8; 64];
        let got = receive(b.as_fd(), &mut buffer).unwrap().unwrap();
        assert_eq!((&buffer[..got.len], got.fds.len(), got.truncated), (&b"hello"[..], 2, false));
        // The copies are the same pipe.
        nix::unistd::write(&got.fds[1], b"x").unwrap();
        let mut byte = [0u8; 1];
        assert_eq!(nix::unistd::read(&read, &mut byte), Ok(1));
        let mut small = [0u8; 2];
        send(a.as_fd(), b"too long", &[]).unwrap();
        assert!(receive(b.as_fd(), &mut small).unwrap().unwrap().truncated);
        drop(a);
        assert!(receive(b.as_fd(), &mut buffer).unwrap().is_none());
    }
}
