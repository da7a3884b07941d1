"""`Writes`: the part of `Memory` that writes entries and curates them; each write returns a
frozen dataclass naming what it wrote."""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

from git_memory import ui
from git_memory.agents import embedding
from git_memory.agents import handoff as handoffs
from git_memory.agents.gitinfo import current_branch
from git_memory.api import curating, promoting
from git_memory.api.promoting import Demoted, Promoted
from git_memory.api.watch import Warm
from git_memory.curation import promotion, reverted
from git_memory.curation import proposal as prop
from git_memory.curation.in_git_hook import running_hook
from git_memory.curation.promotion import Promotion
from git_memory.curation.reverted import Reverted
from git_memory.curation.proposal import Proposal
from git_memory.curation.proposal_branch import Applied, apply_branch, plan, propose_entry, ref_for
from git_memory.curation.purge import purge
from git_memory.curation.record_builders import check_reason, event, trailers
from git_memory.errors import BadInput, NotFound, UsageProblem
from git_memory.index import vectors
from git_memory.index.entries import find_entry, known_ids, redaction_of
from git_memory.model import Record, short_id, split_marker, typed_text
from git_memory.sanitize.chars import check_text
from git_memory.sanitize.scan import redact_string
from git_memory.store.branch import MemoryBranch
from git_memory.store.rewrite import forget, note_applied
from git_memory.write.append import NewEntry, write_entries


@dataclass(frozen=True)
class Added:
    """What `add` did: the new entry's id, or the existing entry it reinforced."""

    id: str
    duplicate_of: str | None = None  # the entry that already held this text (reinforced)
    redacted: bool = False  # a secret was replaced by [REDACTED:rule] (redact_secrets)
    cut_to: int | None = None  # characters kept (truncate)


@dataclass(frozen=True)
class Proposed:
    """What `propose` did: the entry on a proposal branch, or the entry already holding it."""

    id: str
    ref: str  # refs/heads/git-memory-proposals/NAME
    duplicate_of: str | None = None
    where: str = ""  # for a duplicate: "memory" or the proposal branch holding it


@dataclass(frozen=True)
class Curated:
    """The records a curation appended (in one commit) and a line saying what it did."""

    ids: tuple[str, ...]
    summary: str


@dataclass(frozen=True)
class Purged:
    """The file and blob gone from history, and refs purge could not rewrite that still
    hold them."""

    path: str
    blob: str
    rewritten: int  # commits
    still_holding: list[str]


@dataclass(frozen=True)
class Handoff:
    id: str
    branch: str
    cleared: bool


class Writes(Warm):
    def init(self) -> tuple[str, bool]:
        """The memory branch created if it is missing: its tip, and whether it was made now."""
        branch = MemoryBranch(self.dirs)
        before = branch.repo.references.get(branch.ref)
        return branch.ensure_init(), before is None

    def add(self, text: str, *, type: str | None = None, tags: Sequence[str] = (),
            source: str = "manual", on_branch: bool | None = None,
            redact_secrets: bool = False, truncate: bool = False) -> Added:
        """One entry: `text` starts with a marker (LEARNED:, DECISION:, ...) or `type` names
        it. A secret is refused (SecretFound) unless `redact_secrets`; a text over 8,000
        characters is refused unless `truncate`. The same text twice reinforces the first.
        `on_branch`: record the current branch in its origin (None: for a handoff only)."""
        entry = self._new_entry(text, type, tags, source, on_branch, truncate)
        label = f" ({source})" if source != "manual" else ""
        outcome = write_entries(self.dirs, [entry], f"memory: add {entry.type}{label}",
                                redact_secrets=redact_secrets)
        cut = outcome.cut[0][1] if outcome.cut else None
        if outcome.added:
            embedding.start(self.dirs)  # detached: add never waits for a transformer
            return Added(outcome.added[0].id, None, bool(outcome.redacted), cut)
        existing = outcome.duplicates[0][1]
        return Added(existing, existing, bool(outcome.redacted), cut)

    def propose(self, text: str, name: str | None = None, *, type: str | None = None,
                tags: Sequence[str] = (), supersedes: str | None = None,
                reason: str | None = None, source: str = "manual",
                on_branch: bool | None = None) -> Proposed:
        """One entry on the proposal branch `git-memory-proposals/NAME` for review (created
        or appended to; default name `agent-<short id>`), with the writer's checks; with
        `supersedes`, the live entry it would replace, and a `reason`."""
        if name is not None:
            ref_for(name)  # a bad name is refused before anything is sanitized or written
        why = check_reason(reason) if supersedes is not None else ""
        if supersedes is None and reason is not None:
            raise UsageProblem("a reason goes with supersedes")
        replaces = self._replaced(supersedes)
        entry = self._new_entry(text, type, tags, source, on_branch)
        done = propose_entry(self.dirs, entry, name, replaces, why)
        return Proposed(done.duplicate_of or done.record.id, done.ref, done.duplicate_of,
                        done.where)

    def handoff(self, text: str = "", *, clear: bool = False,
                branch: str | None = None) -> Handoff:
        """Open items for the next session on `branch` (default: the current one; newest
        wins), or with `clear` an end to them."""
        if clear == bool(text if not clear else text.strip()):
            raise UsageProblem("give either text or clear")
        name = branch or current_branch(self.dirs) or handoffs.DETACHED
        if clear:
            shown = redact_string(name)[0]  # a branch named after a token is not written as is
            record = handoffs.record(self.dirs, f"Handoff cleared for branch {shown}.", name,
                                     clear=True)
            return Handoff(record.id, name, True)
        marker, rest = split_marker(check_text(text, "handoff"))
        if marker not in (None, "handoff"):
            raise UsageProblem(f"a handoff cannot start with {marker.upper()}:")
        return Handoff(handoffs.record(self.dirs, rest, name).id, name, False)

    # -- curation: each checks its entries against the index (curating) and appends
    # -- its records in one commit (write_records)

    def supersede(self, old: str, new: str, *, reason: str) -> Curated:
        """Entry `old` replaced by entry `new` (no cycles, nothing redacted)."""
        return self.write_records(reason, "memory: supersede",
                                  partial(curating.supersede, old_ref=old, new_ref=new))

    def merge(self, refs: Sequence[str], *, content: str, reason: str) -> Curated:
        """Two or more entries replaced by one new entry holding `content`."""
        if len(refs) < 2:
            raise UsageProblem("merge needs at least two entries")
        body = check_text(content, "--content")
        return self.write_records(reason, "memory: merge",
                                  partial(curating.merge, refs=list(refs), body=body))

    def flag(self, ref: str, *, status: str, reason: str) -> Curated:
        """An entry's status set (needs_review, deprecated, canonical, ...)."""
        return self.write_records(reason, "memory: flag",
                                  partial(curating.flag, ref=ref, status=status))

    def redact(self, ref: str, *, reason: str) -> Curated:
        """An entry (or a curation record) hidden everywhere; its text stays in history
        until `git memory purge`."""
        return self.write_records(reason, "memory: redact", partial(curating.redact, ref=ref))

    def reinforce(self, ref: str, *, reason: str | None = None) -> Curated:
        return self.write_records(reason, "memory: reinforce",
                                  partial(curating.event, kind="reinforce", ref=ref),
                                  required=False)

    def contradict(self, ref: str, *, reason: str) -> Curated:
        return self.write_records(reason, "memory: contradict",
                                  partial(curating.event, kind="contradict", ref=ref))

    def accept(self, refs: Sequence[str], *, reason: str | None = None) -> Curated:
        """Review: each entry made `canonical`, the reviewer as the record's author."""
        return self.write_records(reason, "memory: review, accept",
                                  partial(curating.accept, refs=list(refs)), required=False)

    def reject(self, refs: Sequence[str], *, reason: str) -> Curated:
        """Review: each entry redacted (hidden, its text refused from then on)."""
        return self.write_records(reason, "memory: review, reject",
                                  partial(curating.reject, refs=list(refs)))

    def edit(self, ref: str, text: str, *, reason: str | None = None) -> Curated:
        """Review: a new canonical entry with `text` superseding entry `ref` (or the
        visible entry holding that text already)."""
        return self.write_records(reason, "memory: review, edit",
                                  partial(curating.edit, ref=ref, body=text), required=False)

    def review_text(self, ref: str) -> str:
        """The text of an entry a review may decide about (in view, not redacted)."""
        return str(curating.reviewable(self.index(), ref)["content"])

    def write_records(self, reason: str | None, message: str, make: curating.Builder,
                      required: bool = True) -> Curated:
        """The records `make` builds, appended in one commit (a secret in `reason` is refused
        and logged)."""
        why = curating.check_reason(self.dirs, reason, required)
        branch = MemoryBranch(self.dirs)
        made, summary = make(self.index(), branch.author(), why)
        branch.ensure_init()
        branch.append(made, message, trailers=trailers(made))
        if any(record.kind == "redact" for record in made):
            # Derived from the text, a redacted entry's vector must not outlive it.
            vectors.drop_hidden(self.index())
        return Curated(tuple(record.id for record in made), summary)


    def curate(self) -> Proposal:
        """What curation would change (a dry run); its `digest` names it for `apply_curation`."""
        return prop.compute(self.dirs)

    def apply_curation(self, digest: str) -> tuple[Proposal, str]:
        """Append the proposal the dry run named `digest` (ProposalChanged when the memory
        moved since), in one commit: (the proposal, the commit)."""
        return prop.apply(self.dirs, digest)

    def propose_curation(self, name: str) -> tuple[Proposal, str, str]:
        """The proposal written on branch `git-memory-proposals/NAME`, one commit per change,
        for a pull request: (the proposal, the ref, its tip)."""
        return prop.propose(self.dirs, name)

    def plan_proposal(self, name: str) -> Applied:
        """What applying proposal branch NAME would append (nothing written): its records,
        less entries whose text the memory holds by now (their links moved to that entry)."""
        return plan(self.dirs, name)

    def apply_proposal(self, planned: Applied) -> Applied:
        """A planned proposal branch's records appended, on the tip it was planned against
        (ProposalConflict when the memory moved: plan again)."""
        return apply_branch(self.dirs, planned)

    def promotions(self) -> list[Promotion]:
        """Promotions to personal memory and demotions curate proposes (each one command)."""
        return promotion.find(self.index())

    def reverted(self) -> list[Reverted]:
        """Entries a revert of their commit flagged, each with the commands to keep or drop
        it (curate proposes them; nothing is applied)."""
        return reverted.find(self.index())

    def promote(self, ref: str, *, to: str) -> Promoted:
        """A copy of an entry in personal (`to="personal"`) or this repository's memory
        (`"team"`), with `promoted_from` (repository, id, commit)."""
        return promoting.promote(self.index(), ref, to)

    def demote(self, ref: str, *, reason: str | None = None) -> Demoted:
        """A promoted copy marked needs_review where it lives."""
        return promoting.demote(self.index(), ref, reason)

    def purge(self, ref: str, *, confirm: Callable[[str], bool]) -> Purged | None:
        """History rewritten without a redacted entry (or curation record), and a purge
        record left on the branch: `confirm(path)` is asked first; None when it says no.
        Never from a git hook. Every clone's next sync rewrites its own copy."""
        hook = running_hook()
        if hook:
            raise BadInput(f"refused: purge never runs from a git hook (running inside {hook})")
        index = self.index()
        row = curating.resolve_any(index, ref)
        path, blob, entry_id, status = row["path"], row["blob"], row["id"], row["status"]
        if row["kind"] != "entry" and redaction_of(index, entry_id) is not None:
            status = "redacted"  # a curation record: hidden by a redact record aimed at it
        if status != "redacted":
            raise BadInput(f"entry {short_id(entry_id)} is not redacted; run"
                           f" `git memory redact {short_id(entry_id)} --reason ...` first")
        if not confirm(path):
            return None
        self.close()
        branch = MemoryBranch(self.dirs)
        result = purge(branch, blob)
        record = event("purge", entry_id, "purged from history", branch.author(), blobs=[blob],
                       paths=[path])
        branch.append([record], f"memory: purge {short_id(entry_id)}",
                      trailers=[("Memory-Purge", blob)])
        note_applied(self.dirs, {blob: (entry_id, False)})  # sync catches a forced push dropping it
        self.reindex()  # the old index still holds the text (and vectors: reindex drops them)
        forget(self.dirs, [branch.ref, *result.refs], {blob})
        return Purged(path, blob, result.rewritten, result.still_holding)

    def restore(self, records: Sequence[Record], *,
                progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
        """Records of a lossless export appended as they are, in one commit; those already
        held are left alone. What `import --json` of an export prints."""
        present = known_ids(self.index(), [r.id for r in records])
        new = [r for r in records if r.id not in present]
        entries = sum(1 for r in new if r.kind == "entry")
        commit = None
        if new:
            commit = MemoryBranch(self.dirs).append(
                new, f"memory: restore {ui.plural(len(new), 'record')} from an export"
                f" ({ui.plural(entries, 'entry')})")
            self.reindex(progress=progress, rebuild=False)
        return {"restored": len(new), "entries": entries, "curation": len(new) - entries,
                "present": len(present), "commit": commit}

    def _new_entry(self, text: str, type_: str | None, tags: Sequence[str], source: str,
                   on_branch: bool | None, truncate: bool = False) -> NewEntry:
        body = check_text(text, "content")
        kind, rest = typed_text(body, type_, option="type" if source != "manual" else "--type")
        origin: dict[str, str] = {}
        # A handoff is for the next session on this branch: context looks it up by branch.
        if on_branch or (on_branch is None and kind.lower() == "handoff"):
            branch = current_branch(self.dirs)
            if branch:
                origin["branch"] = branch
        return NewEntry(content=rest, type=kind, tags=list(tags), source=source,
                        origin=origin, label="text", allow_cut=truncate)

    def _replaced(self, ref: str | None) -> str | None:
        """The id of the entry a proposal would supersede: it must exist and be live."""
        if ref is None:
            return None
        row = find_entry(self.index(), ref.strip())
        if row is None:
            raise NotFound(f"no entry {ref!r}")
        if row["status"] in ("superseded", "redacted"):
            raise BadInput(f"entry {short_id(row['id'])} is {row['status']} already")
        return str(row["id"])
