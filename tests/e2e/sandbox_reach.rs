//! Sandboxes cannot reach one another (each has a network namespace of its own, with its
//! loopback down; `sandbox_network_apart.rs` shows the names they bind stay apart too): two
//! sandboxed programs started by one caller at the same time, a
//! receiver listening on an abstract Unix socket (stream and datagram), TCP, UDP (IPv4 and
//! IPv6) and netlink (`NETLINK_USERSOCK`, which unprivileged processes of one namespace may
//! use to message each other), and a sender trying each of them. Seen from outside: the receiver's folder, writable
//! and copied back to the host when it ends, holds no `received-*` file, and a TCP listener
//! and a UDP socket the test opens on the host's loopback get nothing. The same pair under
//! `--isolation pid` (the host's network, no Landlock) does reach each other, which shows
//! that the check can fail. The sender also records the interfaces it sees: only `lo`, down.

use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use bao_supervise::{
    BotProcess, BotSpec, Isolation, IsolationLevel, ProgramDirAccess, ResourceLimits, SandboxProfile,
    SpawnOptions, StubChoice,
};

use crate::hostile::isolation_available;
use crate::sandbox::skipped;
use crate::support::{Scratch, bin};

const PYTHON: &str = "/usr/bin/python3";

/// Listens on every kind of socket it can, says `ready` on stdout, and writes
/// `received-KIND` in its folder for anything that arrives, until its stdin ends.
const RECEIVER: &str = r#"
import os, select, socket, sys
port = int(sys.argv[1])
name = b"\0bao-reach-" + sys.argv[1].encode()
def note(file, text=""):
    with open(file, "w") as f:
        f.write(text)
def make(kind):
    if kind == "abstract-stream":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(name); s.listen()
    elif kind == "abstract-dgram":
        s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.bind(name + b"-dgram")
    elif kind == "tcp":
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("0.0.0.0", port)); s.listen()
    elif kind == "udp":
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("0.0.0.0", port))
    elif kind == "netlink":
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2); s.bind((port, 0))
    else:
        s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1); s.bind(("::", port))
    return s
socks = {}
for kind in ["abstract-stream", "abstract-dgram", "tcp", "udp", "udp6", "netlink"]:
    try:
        socks[kind] = make(kind)
    except OSError as e:
        note("refused-" + kind, str(e))
note("listening", " ".join(socks))
print("ready", flush=True)
by_fd = {s.fileno(): kind for kind, s in socks.items()}
while True:
    readable, _, _ = select.select([0] + list(by_fd), [], [], 20)
    if not readable or (0 in readable and not os.read(0, 64)):
        break
    for fd in readable:
        if fd == 0:
            continue
        kind = by_fd[fd]
        s = socks[kind]
        if kind in ("abstract-stream", "tcp"):
            s.accept()
        else:
            s.recv(64)
        note("received-" + kind)
"#;

/// Tries to reach the receiver (and the host's loopback: `HOST_TCP`, `HOST_UDP`) every way,
/// three times, writes what happened to `sent.txt` and the interfaces it sees (`NAME up` or
/// `NAME down`) to `interfaces.txt`, then says `done` and waits for its stdin to end (so that
/// the test sees both programs running).
const SENDER: &str = r#"
import fcntl, socket, struct, sys, time
port, host_tcp, host_udp = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
name = b"\0bao-reach-" + sys.argv[1].encode()
log = []
def attempt(what, action):
    try:
        action(); log.append(what + " ok")
    except OSError as e:
        log.append(what + " " + str(e))
def stream(family, address):
    s = socket.socket(family, socket.SOCK_STREAM); s.settimeout(0.3)
    try:
        s.connect(address); s.sendall(b"hello")
    finally:
        s.close()
def dgram(family, address):
    s = socket.socket(family, socket.SOCK_DGRAM)
    try:
        s.sendto(b"hello", address)
    finally:
        s.close()
def netlink(to):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 2)
    try:
        s.sendto(b"hello", (to, 0))
    finally:
        s.close()
for _ in range(3):
    attempt("abstract-stream", lambda: stream(socket.AF_UNIX, name))
    attempt("abstract-dgram", lambda: dgram(socket.AF_UNIX, name + b"-dgram"))
    for host in ["127.0.0.1", "0.0.0.0"]:
        attempt("tcp " + host, lambda: stream(socket.AF_INET, (host, port)))
        attempt("tcp-host " + host, lambda: stream(socket.AF_INET, (host, host_tcp)))
        attempt("udp " + host, lambda: dgram(socket.AF_INET, (host, port)))
        attempt("udp-host " + host, lambda: dgram(socket.AF_INET, (host, host_udp)))
    attempt("tcp6", lambda: stream(socket.AF_INET6, ("::1", port)))
    attempt("udp6", lambda: dgram(socket.AF_INET6, ("::1", port)))
    attempt("netlink", lambda: netlink(port))
    time.sleep(0.2)
with open("sent.txt", "w") as f:
    f.write("\n".join(log) + "\n")
probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
seen = []
for _, interface in socket.if_nameindex():
    request = struct.pack("16sH14x", interface.encode(), 0)
    flags = struct.unpack("16sH14x", fcntl.ioctl(probe.fileno(), 0x8913, request))[1]
    seen.append(interface + (" up" if flags & 1 else " down"))
with open("interfaces.txt", "w") as f:
    f.write("\n".join(seen) + "\n")
print("done", flush=True)
sys.stdin.read()
"#;

/// A folder every uid may write (the program's folder of one side).
fn side_dir(label: &str, script: &str) -> Scratch {
    let dir = Scratch::dir(label);
    std::fs::set_permissions(&*dir, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(dir.join("main.py"), script).unwrap();
    dir
}

fn options(level: IsolationLevel) -> SpawnOptions {
    SpawnOptions {
        stub: StubChoice::Path(bin("bao-referee")),
        isolation: Isolation { level, no_network: false },
        sandbox: SandboxProfile {
            program_dir: ProgramDirAccess::Writable { disk_mib: 8 },
            ..SandboxProfile::default()
        },
        ..SpawnOptions::default()
    }
}

fn spec(dir: &Path, args: &[String]) -> BotSpec {
    BotSpec {
        name: None,
        program: PYTHON.to_owned(),
        args: std::iter::once("main.py".to_owned()).chain(args.iter().cloned()).collect(),
        dir: Some(dir.to_path_buf()),
    }
}

/// A port free on the host's loopback now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Runs the receiver, then the sender while the receiver listens, at `level`; what the
/// exchange left, the receiver's folder and the sender's.
fn exchange(level: IsolationLevel, host: (&TcpListener, &UdpSocket)) -> (Exchange, Scratch, Scratch) {
    let receiver_dir = side_dir("reach-receiver", RECEIVER);
    let sender_dir = side_dir("reach-sender", SENDER);
    let port = free_port().to_string();
    let port_marker = format!("main.py\0{port}\0");
    let host_tcp = host.0.local_addr().unwrap().port().to_string();
    let host_udp = host.1.local_addr().unwrap().port().to_string();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let namespaces = runtime.block_on(async {
        let options = options(level);
        let limits = ResourceLimits::default();
        let deadline = || tokio::time::Instant::now() + Duration::from_secs(20);
        let mut receiver =
            BotProcess::spawn_with(&spec(&receiver_dir, std::slice::from_ref(&port)), &limits, &options)
                .await
                .expect("the receiver starts");
        let ready = receiver.recv_line(deadline()).await;
        assert_eq!(ready.as_deref().ok(), Some("ready"), "receiver: {:?}", receiver.stderr());
        let mut sender =
            BotProcess::spawn_with(&spec(&sender_dir, &[port, host_tcp, host_udp]), &limits, &options)
                .await
                .expect("the sender starts");
        let done = sender.recv_line(deadline()).await;
        assert_eq!(done.as_deref().ok(), Some("done"), "sender: {:?}", sender.stderr());
        // Both run now (the receiver ends only when its stdin closes): the network
        // namespaces they are in.
        let namespaces = network_namespaces(&port_marker);
        let sender_end = sender.shutdown(Duration::from_secs(5)).await;
        let receiver_end = receiver.shutdown(Duration::from_secs(5)).await;
        assert!(sender_end.code == Some(0), "sender: {sender_end:?}");
        assert!(receiver_end.code == Some(0), "receiver: {receiver_end:?}");
        namespaces
    });
    let mut files: Vec<String> = std::fs::read_dir(&*receiver_dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    (Exchange { files, namespaces }, receiver_dir, sender_dir)
}

/// What an exchange left: the names of the files in the receiver's folder, the network
/// namespaces of the two programs while both ran.
struct Exchange {
    files: Vec<String>,
    namespaces: Vec<String>,
}

/// The network namespaces (`net:[INODE]`) of the processes whose command line holds
/// `marker`.
fn network_namespaces(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let path = entry.path();
        let Ok(cmdline) = std::fs::read(path.join("cmdline")) else { continue };
        if !String::from_utf8_lossy(&cmdline).contains(marker) {
            continue;
        }
        if let Ok(namespace) = std::fs::read_link(path.join("ns/net")) {
            found.push(namespace.to_string_lossy().into_owned());
        }
    }
    found
}

fn ready(test: &str) -> bool {
    if !isolation_available(test) {
        return false;
    }
    if !Path::new(PYTHON).exists() {
        return skipped(test, &format!("{PYTHON} is not installed"));
    }
    true
}

#[test]
fn sandboxes_cannot_reach_each_other() {
    if !ready("sandboxes_cannot_reach_each_other") {
        return;
    }
    let host_tcp = TcpListener::bind("127.0.0.1:0").unwrap();
    host_tcp.set_nonblocking(true).unwrap();
    let host_udp = UdpSocket::bind("127.0.0.1:0").unwrap();
    host_udp.set_nonblocking(true).unwrap();

    // The check can fail: on the host's network, without Landlock, the pair does meet.
    let (control, _, _) = exchange(IsolationLevel::Pid, (&host_tcp, &host_udp));
    for kind in [
        "received-abstract-stream",
        "received-abstract-dgram",
        "received-tcp",
        "received-udp",
        "received-netlink",
    ] {
        assert!(
            control.files.iter().any(|file| file == kind),
            "under --isolation pid, no {kind}: {:?}",
            control.files
        );
    }
    // Drain what the control's sender sent to the host.
    while host_tcp.accept().is_ok() {}
    while host_udp.recv(&mut [0u8; 64]).is_ok() {}

    let (exchange, receiver_dir, sender_dir) = exchange(IsolationLevel::Full, (&host_tcp, &host_udp));
    // Each program was in a network namespace of its own, not the host's.
    let host = std::fs::read_link("/proc/self/ns/net").unwrap().to_string_lossy().into_owned();
    let namespaces = &exchange.namespaces;
    assert!(
        namespaces.len() == 2 && namespaces[0] != namespaces[1] && !namespaces.contains(&host),
        "the two sandboxes' network namespaces: {namespaces:?} (the host's: {host})"
    );
    let files = exchange.files;
    let sent = std::fs::read_to_string(sender_dir.join("sent.txt")).unwrap();
    let received: Vec<&String> = files.iter().filter(|file| file.starts_with("received-")).collect();
    assert!(received.is_empty(), "sandboxes reached each other: {received:?}; the sender's log:\n{sent}");
    // The receiver listened on what a sandbox may bind (TCP is refused by Landlock, netlink
    // `NETLINK_USERSOCK` by the seccomp filter).
    let listening = std::fs::read_to_string(receiver_dir.join("listening")).unwrap();
    assert_eq!(listening, "abstract-stream abstract-dgram udp udp6", "what the receiver bound");
    match host_tcp.accept() {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a connection from the sandbox reached the host's loopback: {other:?}"),
    }
    match host_udp.recv(&mut [0u8; 64]) {
        Err(e) if e.kind() == ErrorKind::WouldBlock => {}
        other => panic!("a datagram from the sandbox reached the host's loopback: {other:?}"),
    }
    let interfaces = std::fs::read_to_string(sender_dir.join("interfaces.txt")).unwrap();
    assert_eq!(interfaces, "lo down\n", "the interfaces a sandbox sees");
}
