"""`git memory serve`: the local web view (git_memory/web/) under uvicorn, on 127.0.0.1 only,
behind a random access token; with `--write` the review page decides as `git memory review`
does (`run_accept`, `run_reject`). Starlette and uvicorn come with the `web` extra."""

from __future__ import annotations

import secrets
import socket
import sys
import webbrowser
from typing import Any

import click

from git_memory import ui
from git_memory.commands import review
from git_memory.errors import BadInput, UsageProblem
from git_memory.model import short_id
from git_memory.store.locate import discover

HOST = "127.0.0.1"
INSTALL = "git memory serve needs the web extra: pip install 'git-memory-cli[web]'"


def _accept(entry_id: str, reason: str) -> str:
    review.run_accept([entry_id], reason=reason or None)
    return f"accepted {short_id(entry_id)}"


def _reject(entry_id: str, reason: str) -> str:
    review.run_reject([entry_id], reason=reason or None)
    return f"rejected {short_id(entry_id)}"


def _bind(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise BadInput(f"cannot listen on {HOST}:{port}: {exc.strerror}") from None
    sock.listen(64)
    return sock


@click.command("serve")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Port on 127.0.0.1 to listen on; 0 picks a free one.")
@click.option("--write", is_flag=True, help="Allow the review page to accept and reject entries.")
@click.option("--no-open", "no_open", is_flag=True, help="Do not open a browser; only print the address.")
def serve_cmd(port: int, write: bool, no_open: bool) -> int:
    """A local web view of the memory (search, entries, graph, timeline, review) on
    127.0.0.1, behind a random access token in the address it prints; read only unless
    --write. Needs the web extra (pip install 'git-memory-cli[web]')."""
    if not 0 <= port <= 65535:
        raise UsageProblem(f"--port: {port} is not a port number (0-65535)")
    try:
        import uvicorn  # lazy: the web extra, loaded on use

        from git_memory.web.app import Review, Settings, create_app  # lazy: needs Starlette
    except ImportError:
        raise UsageProblem(INSTALL) from None
    dirs = discover()
    sock = _bind(port)
    bound = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    settings = Settings(dirs=dirs, token=token, port=bound, write=write,
                        review=Review(queue=review.queue, accept=_accept, reject=_reject))
    app = create_app(settings)
    url = f"http://{HOST}:{bound}/?token={token}"
    ui.out(f"git memory: serving {'read-write' if write else 'read-only'} at {url}")
    ui.warn("press Ctrl-C to stop")
    sys.stdout.flush()
    if not no_open:
        _open(url)
    config: Any = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off")
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _open(url: str) -> None:
    try:
        webbrowser.open(url)
    except webbrowser.Error:
        pass  # no browser here: the address is printed above
