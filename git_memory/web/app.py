"""The Starlette application behind `git memory serve`, for one person on this machine.

A request needs the access token (`?token=` in the address `serve` prints, then an HttpOnly,
SameSite=Strict cookie) and a Host of 127.0.0.1 or localhost (no DNS rebinding); else 403.
Only `serve --write` allows a change: POST /review, when Origin (or Sec-Fetch-Site) says the
form is ours and its CSRF token is this session's. Every answer forbids inline scripts and
outside addresses, and sends no Referer to another site (the token is in the address).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from typing import Any, Callable
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from git_memory.api.memory import Memory
from git_memory.errors import GitMemoryError
from git_memory.store.locate import GitDirs
from git_memory.web import data, pages

COOKIE = "gm_token"
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self';"
    " img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none';"
    " base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin: no Referer (it would hold the token) leaves for another site; "no-referrer"
    # would also make Chromium send `Origin: null` on our own form, which the POST check refuses.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
LOCAL_HOSTS = ("127.0.0.1", "localhost")


@dataclass(frozen=True)
class Review:
    """The review queue and its two decisions, as `git memory review` makes them."""

    queue: Callable[[Memory], list[dict[str, Any]]]
    accept: Callable[[str, str], str]  # (entry id, reason) -> what was done
    reject: Callable[[str, str], str]


@dataclass(frozen=True)
class Settings:
    dirs: GitDirs
    token: str
    port: int
    write: bool
    review: Review
    csrf: str = ""


def create_app(settings: Settings) -> Starlette:
    """The application; `settings.csrf` empty: a fresh random one for this session."""
    csrf = settings.csrf or secrets.token_urlsafe(24)
    site = pages.Site("/", static=False, write=settings.write, csrf=csrf)
    views = _Views(settings, site, csrf)
    routes = [
        Route("/", views.search),
        Route("/entry/{ref}", views.entry),
        Route("/graph", views.graph),
        Route("/timeline", views.timeline),
        Route("/review", views.review, methods=["GET"]),
        Route("/review", views.decide, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=pages.assets_dir()), name="static"),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(_Guard, settings=settings)  # type: ignore[arg-type]
    return app


class _Guard:
    """Token and Host check before anything else; the security headers on every answer."""

    def __init__(self, app: Any, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        fresh = refusal is None and secrets.compare_digest(request.query_params.get("token", ""),
                                                           self.settings.token)

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                headers += [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
                if fresh:
                    headers.append((b"set-cookie", f"{COOKIE}={self.settings.token}; Path=/;"
                                    " HttpOnly; SameSite=Strict".encode()))
                message["headers"] = headers
            await send(message)

        answer = self.app if refusal is None else PlainTextResponse(refusal, status_code=403)
        await answer(scope, receive, sending)

    def _refusal(self, request: Request) -> str | None:
        host = request.headers.get("host", "")
        name = host.rsplit(":", 1)[0] if not host.startswith("[") else host
        if name not in LOCAL_HOSTS:
            return "refused: this server answers to 127.0.0.1 only"
        given = request.query_params.get("token") or request.cookies.get(COOKIE, "")
        if not secrets.compare_digest(given, self.settings.token):
            return "refused: open the address `git memory serve` printed (it holds the access token)"
        return None


class _Views:
    """One method per page; each opens a `Memory` for its request (a thread of its own:
    an open SQLite handle belongs to its thread)."""

    def __init__(self, settings: Settings, site: pages.Site, csrf: str) -> None:
        self.settings = settings
        self.site = site
        self.csrf = csrf

    def _read(self, work: Callable[[Memory], str]) -> HTMLResponse:
        with Memory.at(self.settings.dirs) as memory:
            return HTMLResponse(work(memory))

    def search(self, request: Request) -> HTMLResponse:
        args = request.query_params
        query, type_ = args.get("q", ""), args.get("type", "")
        tag, status = args.get("tag", ""), args.get("status", "")
        types, tags = [type_] if type_ else [], [tag] if tag else []
        with Memory.at(self.settings.dirs) as memory:
            if query.strip():
                hits = data.search(memory, query, types=types, tags=tags, status=status)
            else:
                hits = data.newest(memory, types=types, tags=tags, status=status)
        return HTMLResponse(pages.search_page(self.site, query, hits, type_, tag, status))

    def entry(self, request: Request) -> HTMLResponse:
        ref = request.path_params["ref"]
        site = replace(self.site, root="../")
        with Memory.at(self.settings.dirs) as memory:
            shown = data.entry(memory, ref)
            if shown is None:
                return HTMLResponse(pages.message_page(site, "Not found", f"no entry {ref!r}"), 404)
            prov = data.provenance(memory, shown["id"])
            related = data.related(memory, shown["id"])
        return HTMLResponse(pages.entry_page(site, shown, prov, related))

    def graph(self, request: Request) -> HTMLResponse:
        return self._read(lambda memory: pages.graph_page(self.site, data.whole(memory)))

    def timeline(self, request: Request) -> HTMLResponse:
        return self._read(lambda memory: pages.timeline_page(self.site, data.timeline(memory)))

    def review(self, request: Request) -> HTMLResponse:
        done = request.query_params.get("done", "")
        return self._read(lambda memory: pages.review_page(
            self.site, [data.public(e) for e in self.settings.review.queue(memory)], done))

    async def decide(self, request: Request) -> Response:
        refusal = self._cross_site(request)
        if refusal is None and not self.settings.write:
            refusal = "refused: read only (start git memory serve --write to decide)"
        form = await request.form()
        if refusal is None and not secrets.compare_digest(str(form.get("csrf", "")), self.csrf):
            refusal = "refused: the form's CSRF token is missing or stale; reload the page"
        if refusal is not None:
            return PlainTextResponse(refusal, status_code=403)
        action, entry_id = str(form.get("action", "")), str(form.get("id", ""))
        reason = str(form.get("reason", ""))
        decide = {"accept": self.settings.review.accept, "reject": self.settings.review.reject}.get(action)
        if decide is None or not entry_id:
            return PlainTextResponse("bad request: action must be accept or reject", status_code=400)
        try:
            done = await run_in_threadpool(decide, entry_id, reason)
        except GitMemoryError as exc:
            return HTMLResponse(pages.message_page(self.site, "Not done", str(exc)), 400)
        return RedirectResponse("/review?done=" + quote(done), status_code=303)

    def _cross_site(self, request: Request) -> str | None:
        """A POST must come from our own page: Origin ours when sent; Sec-Fetch-Site
        same-origin when sent (a browser sends at least one of them on a form POST)."""
        origin = request.headers.get("origin")
        ours = {f"http://{h}:{self.settings.port}" for h in LOCAL_HOSTS}
        if origin is not None and origin not in ours:
            return "refused: a cross-site request"
        fetch_site = request.headers.get("sec-fetch-site")
        if fetch_site is not None and fetch_site not in ("same-origin", "none"):
            return "refused: a cross-site request"
        if origin is None and fetch_site is None:
            return "refused: no Origin header (only a browser form of this page may post)"
        return None

