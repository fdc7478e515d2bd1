"""Serves the FastAPI peer on 127.0.0.1 at a port the OS picks and prints {"port": n} first;
exits on SIGTERM or when its stdin closes.

usage: python3 serve.py default|fast
  default: uvicorn's pure-Python stack (h11 + asyncio)
  fast:    uvicorn's C stack (httptools + uvloop)
"""

import json
import os
import socket
import sys
import threading

import uvicorn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fastapi_app import app  # noqa: E402

STACKS = {"default": {"http": "h11", "loop": "asyncio"}, "fast": {"http": "httptools", "loop": "uvloop"}}

if len(sys.argv) != 2 or sys.argv[1] not in STACKS:
    sys.exit("usage: serve.py " + "|".join(STACKS))

sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
sock.bind(("127.0.0.1", 0))
print(json.dumps({"port": sock.getsockname()[1]}), flush=True)


def exit_when_stdin_closes() -> None:
    # The bench holds our stdin open: its end means the bench is gone, whatever killed it.
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_when_stdin_closes, daemon=True).start()

config = uvicorn.Config(app, access_log=False, log_level="warning", lifespan="off", **STACKS[sys.argv[1]])
uvicorn.Server(config).run(sockets=[sock])
