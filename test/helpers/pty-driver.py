#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal, for tests that need a real terminal.

usage: pty-driver.py [--separate-stderr] [--columns N] -- command [args...]

The command's stdin and stdout are a terminal (120x40, or N columns wide), and so is its stderr unless
--separate-stderr is given (then stderr stays a pipe and is relayed to this process's
stderr). What the command writes to the terminal is relayed to this process's stdout; what
arrives on this process's stdin is typed into the terminal. Exits with the command's exit
code. On SIGTERM the command is killed too. No third-party packages: the test suite spawns
this with python3 from the standard library only.
"""
import errno
import fcntl
import os
import pty
import select
import signal
import struct
import subprocess
import sys
import termios


def main() -> int:
    args = sys.argv[1:]
    separate_stderr = False
    columns = 120
    while args and args[0] in ("--separate-stderr", "--columns"):
        if args[0] == "--separate-stderr":
            separate_stderr = True
            args = args[1:]
        else:
            columns = int(args[1])
            args = args[2:]
    if args and args[0] == "--":
        args = args[1:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))

    def controlling_terminal() -> None:
        os.setsid()
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    child = subprocess.Popen(
        args,
        stdin=slave,
        stdout=slave,
        stderr=subprocess.PIPE if separate_stderr else slave,
        preexec_fn=controlling_terminal,
        close_fds=True,
    )
    os.close(slave)

    def terminate(signum, frame):  # noqa: ARG001
        try:
            child.kill()
        finally:
            os._exit(124)

    signal.signal(signal.SIGTERM, terminate)

    readers = [master, sys.stdin.fileno()]
    if separate_stderr:
        readers.append(child.stderr.fileno())
    while master in readers:
        ready, _, _ = select.select(readers, [], [], 0.5)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError as error:
                if error.errno != errno.EIO:
                    raise
                data = b""
            if fd == master:
                if not data:
                    readers.remove(master)
                else:
                    os.write(sys.stdout.fileno(), data)
            elif fd == sys.stdin.fileno():
                if not data:
                    readers.remove(fd)
                else:
                    os.write(master, data)
            else:
                if not data:
                    readers.remove(fd)
                else:
                    os.write(sys.stderr.fileno(), data)
    if separate_stderr:
        rest = child.stderr.read()
        if rest:
            os.write(sys.stderr.fileno(), rest)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
