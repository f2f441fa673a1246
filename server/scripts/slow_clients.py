#!/usr/bin/env python3
"""Slow clients for the leaderboard load test (server/scripts/leaderboard_load.sh): holds
CONNECTIONS connections to 127.0.0.1:PORT for SECONDS, spread over ADDRESSES loopback source
addresses (127.0.0.2, 127.0.0.3, ...), each sending a request's headers one line at a time,
one line a second, never finishing them (slowloris). A connection the server closes is
opened again at once. Prints, every 5 s and at the end, how many are held and how many the
server has closed so far.

    slow_clients.py PORT CONNECTIONS ADDRESSES SECONDS
"""

import socket
import sys
import time


def open_one(port, source):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setblocking(True)
    s.settimeout(2.0)
    s.bind((source, 0))
    s.connect(("127.0.0.1", port))
    s.sendall(b"GET /api/leaderboard HTTP/1.1\r\nHost: bench\r\n")
    s.setblocking(False)
    return s


def main():
    port, count, addresses, seconds = (int(a) for a in sys.argv[1:5])
    sources = ["127.0.0.%d" % (2 + i) for i in range(addresses)]
    held = [None] * count
    closed = failed = 0
    end = time.monotonic() + seconds
    next_report = time.monotonic() + 5
    while time.monotonic() < end:
        for i in range(count):
            s = held[i]
            if s is None:
                try:
                    held[i] = open_one(port, sources[i % addresses])
                except OSError:
                    failed += 1
                continue
            try:
                # Anything readable is the server done with it (EOF, a reset or an answer
                # such as 408): count it and open another.
                s.recv(4096)
                s.close()
                held[i] = None
                closed += 1
                continue
            except BlockingIOError:
                pass
            except OSError:
                s.close()
                held[i] = None
                closed += 1
                continue
            try:
                s.send(b"X-Slow: 1\r\n")
            except OSError:
                s.close()
                held[i] = None
                closed += 1
        if time.monotonic() >= next_report:
            next_report += 5
            print("slow clients: %d held, %d closed by the server, %d connects failed"
                  % (sum(s is not None for s in held), closed, failed), flush=True)
        time.sleep(1)
    print("slow clients at the end: %d held, %d closed by the server, %d connects failed"
          % (sum(s is not None for s in held), closed, failed), flush=True)


if __name__ == "__main__":
    main()
