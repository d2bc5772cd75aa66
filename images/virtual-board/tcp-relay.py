#!/usr/bin/env python3
"""QEMU's guestfwd command (boardtest.board.VirtualBoard(guestfwd=...)): one guest connection on
stdin/stdout, relayed to 127.0.0.1:PORT on this machine. A cmd: guestfwd starts one of
these per connection; a tcp: one would make a single connection when QEMU starts.

    tcp-relay.py PORT
"""
import os
import select
import socket
import sys

s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
fds = {0: s.fileno(), s.fileno(): 1}
open_in = True
while True:
    r, _, _ = select.select([0, s.fileno()] if open_in else [s.fileno()], [], [])
    for fd in r:
        data = os.read(fd, 65536)
        if not data:
            if fd == 0:
                s.shutdown(socket.SHUT_WR)
                open_in = False
                continue
            sys.exit(0)
        out = fds[fd]
        while data:
            n = os.write(out, data)
            data = data[n:]
