#!/usr/bin/env python3
"""Detection figures of the secret scanner on the fake-secrets corpus and the til notes.

    python bench/secrets_eval.py [--old] [--misses] [--fps] [--til] [--prose] [--table] [--write-docs]

Each corpus text (tests/data/secrets/corpus.jsonl) goes through the scanner the way a
write sees it (scan.rule_of: invisible characters stripped, NFKC); a text
counts as caught when a rule fires. `--old` measures the frozen pre-#11 scanner
(bench/old_secrets.py) instead; `--table` prints the Markdown table by provider family
for docs/security.md; `--til` also runs the 1,870 til notes (title + body, as an
entry) and lists those refused. `--prose` runs the real prose of issue #32: the 16,091
commit messages of ../shared/data/commit-messages and the til notes, and names every one
flagged with its rule and the flagged words' shape. `--write-docs` rewrites the generated
tables of docs/security.md (the rules; detection by family, old beside new; which kind of
detector catches each corpus credential; the prose flagged).
"""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

CORPUS = ROOT / "tests" / "data" / "secrets" / "corpus.jsonl"
TIL = ROOT / "tests" / "data" / "til-jbranchaud" / "notes.jsonl"


def commit_messages() -> list[dict]:
    """The 16,091 real commit messages (../shared/data/commit-messages)."""
    from common import shared_dir

    return load(shared_dir() / "data" / "commit-messages" / "messages.jsonl")

# Corpus provider -> family, for the table (the corpus names 148 providers).
FAMILIES = {
    "cloud": "aws aws_key alibaba azure azure_storage_key gcp yandex digitalocean heroku flyio "
             "cloudflare scalingo doppler databricks hashicorp hashicorp_vault pulumi openshift "
             "ibm_cloud_iam ibm_cos_hmac softlayer 1password age kubernetes netlify "
             "definednetworking",
    "code hosting": "github github_token gitlab gitlab_token bitbucket sourcegraph",
    "CI and registries": "npm pypi pypi_token rubygems clojars artifactory jfrog nuget infracost "
                         "prefect sonar snyk codecov droneci travisci octopusdeploy harness "
                         "settlemint sidekiq",
    "chat and webhooks": "slack discord telegram telegram_token teams twilio mattermost gitter "
                         "messagebird sendbird mailgun sendgrid sendinblue mailchimp mailchimp_key",
    "payments": "stripe stripe_key square square_oauth shopify flutterwave plaid gocardless "
                "shippo duffel easypost lob coinbase kraken kucoin bittrex finicity",
    "AI APIs": "openai anthropic huggingface perplexity cohere privateai",
    "monitoring": "datadog sentry newrelic grafana dynatrace sumologic launchdarkly",
    "databases and URLs": "planetscale clickhouse cloudant basic_auth curl",
    "private keys and JWTs": "private_key privatekey jwt",
    "generic (keyword, entropy)": "keyword generic high_entropy_strings ip_public",
}
_FAMILY_OF = {p: fam for fam, ps in FAMILIES.items() for p in ps.split()}


def family(provider: str) -> str:
    return _FAMILY_OF.get(provider, "other SaaS")


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.open(encoding="utf-8")]


def scanner(old: bool) -> Callable[[str], str | None]:
    if old:
        import old_secrets

        find = old_secrets.find_secret
    else:
        from git_memory.sanitize.secrets import find_secret as find
    from git_memory.sanitize.chars import strip_invisible

    def check(text: str) -> str | None:
        cleaned, _ = strip_invisible(text)
        return find(unicodedata.normalize("NFKC", cleaned))

    return check


def til_text(note: dict) -> str:
    return f"{note['title']}\n\n{note['body']}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--old", action="store_true")
    ap.add_argument("--misses", action="store_true")
    ap.add_argument("--fps", action="store_true")
    ap.add_argument("--til", action="store_true")
    ap.add_argument("--prose", action="store_true")
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    if args.write_docs:
        write_docs()
        return 0
    check = scanner(args.old)
    rows = load(CORPUS)
    by_family: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    tp = fp = pos = neg = 0
    for row in rows:
        rule = check(row["text"])
        cell = by_family[family(row["provider"])]
        if row["expect"]:
            pos += 1
            cell[1] += 1
            if rule:
                tp += 1
                cell[0] += 1
            elif args.misses:
                print("MISS", row["provider"], row["rule"], repr(row["text"][:140]))
        else:
            neg += 1
            cell[3] += 1
            if rule:
                fp += 1
                cell[2] += 1
                if args.fps:
                    print("FP", rule, row["provider"], repr(row["text"][:140]))
    print(f"{'old' if args.old else 'new'} scanner: caught {tp}/{pos} ({tp / pos:.1%}) "
          f"of expect:true; refused {fp}/{neg} ({fp / neg:.1%}) of expect:false")
    if args.til:
        notes = load(TIL)
        refused = [(n["id"], check(til_text(n))) for n in notes]
        refused = [r for r in refused if r[1]]
        print(f"til notes refused: {len(refused)}/{len(notes)}")
        for note_id, rule in refused:
            print("  TIL", note_id, rule)
    if args.prose:
        for name, flagged, total in prose_flags(check):
            print(f"{name} flagged: {len(flagged)}/{total}")
            for label, rule in flagged:
                print(f"  {label} {rule}")
    if args.table:
        print("\n| family | caught (expect: true) | refused (expect: false) |")
        print("| --- | ---: | ---: |")
        for fam in sorted(by_family, key=lambda f: -by_family[f][1]):
            c, p, f, n = by_family[fam]
            print(f"| {fam} | {c}/{p} ({c / p:.0%}) | {f}/{n} |" if p else
                  f"| {fam} | - | {f}/{n} |")
        print(f"| **all** | **{tp}/{pos} ({tp / pos:.1%})** | **{fp}/{neg} ({fp / neg:.1%})** |")
    return 0


def rates(check: Callable[[str], str | None]) -> dict[str, list[int]]:
    """family -> [caught, positives, refused, negatives]; "all" holds the totals."""
    cells: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for row in load(CORPUS):
        hit = check(row["text"]) is not None
        for key in (family(row["provider"]), "all"):
            cell = cells[key]
            if row["expect"]:
                cell[0] += hit
                cell[1] += 1
            else:
                cell[2] += hit
                cell[3] += 1
    return cells


def prose_flags(check: Callable[[str], str | None]) -> list[tuple[str, list[tuple[str, str]], int]]:
    """(corpus, [(label, rule)] of the texts flagged, texts) for each body of real prose."""
    out = []
    messages = commit_messages()
    flagged = [(f"{m['repo']}@{m['commit'][:10]}", rule) for m in messages
               if (rule := check(m["message"]))]
    out.append(("commit messages", flagged, len(messages)))
    notes = load(TIL)
    flagged = [(n["id"], rule) for n in notes if (rule := check(til_text(n)))]
    out.append(("til notes", flagged, len(notes)))
    return out


# Which kind of detector a rule is: a provider's format, a context (a keyword, a URL's
# userinfo, a command line), or one of issue #32's shapes.
def detector_kind(rule: str) -> str:
    from git_memory.sanitize.secrets_rules import PROVIDER_RULES
    from git_memory.sanitize.secrets_shapes import DESCRIPTIONS, HASH_RULE, SLOT_RULE, WEBHOOK_RULE

    if rule == HASH_RULE:
        return "shape: password hash"
    if rule == WEBHOOK_RULE:
        return "shape: webhook URL"
    if rule in (SLOT_RULE, "env-file-secret"):
        return "shape: secret slot"
    if rule in DESCRIPTIONS:
        return "shape: vendor token"
    if any(r.rule == rule for r in PROVIDER_RULES):
        return "provider rule"
    return "context rule"


def _pct(a: int, b: int) -> str:
    return f"{a}/{b} ({a / b:.0%})" if b else "-"


def write_docs() -> None:
    from git_memory.sanitize.secrets import describe

    new, old = rates(scanner(False)), rates(scanner(True))
    til = load(TIL)
    til_new = sum(1 for n in til if scanner(False)(til_text(n)))
    til_old = sum(1 for n in til if scanner(True)(til_text(n)))
    families = sorted((f for f in new if f != "all"), key=lambda f: -new[f][1])
    lines = ["| family | caught, old | caught, new | near misses refused, old | "
             "near misses refused, new |", "| --- | ---: | ---: | ---: | ---: |"]
    for fam in [*families, "all"]:
        o, n = old[fam], new[fam]
        name = "**all**" if fam == "all" else fam
        lines.append(f"| {name} | {_pct(o[0], o[1])} | {_pct(n[0], n[1])} | {_pct(o[2], o[3])} "
                     f"| {_pct(n[2], n[3])} |")
    lines.append(f"| til notes refused (prose) | | | {til_old}/{len(til)} | {til_new}/{len(til)} |")
    messages = commit_messages()
    cm_new = sum(1 for m in messages if scanner(False)(m["message"]))
    cm_old = sum(1 for m in messages if scanner(True)(m["message"]))
    lines.append(f"| commit messages refused (prose) | | | {cm_old}/{len(messages)} "
                 f"| {cm_new}/{len(messages)} |")
    table = "\n".join(lines)
    kinds: dict[str, int] = defaultdict(int)
    check = scanner(False)
    positives = [row for row in load(CORPUS) if row["expect"]]
    for row in positives:
        rule = check(row["text"])
        kinds[detector_kind(rule) if rule else "missed"] += 1
    kind_lines = ["| first detector to fire | corpus credentials |", "| --- | ---: |"]
    kind_lines += [f"| {k} | {n}/{len(positives)} |" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])]
    prose = ["| prose | flagged | which, and the rule |", "| --- | ---: | --- |"]
    for name, flagged, total in prose_flags(check):
        which = "; ".join(f"`{label}` ({rule})" for label, rule in flagged) or "none"
        prose.append(f"| {name} | {len(flagged)}/{total} | {which} |")
    rules = ["| rule | family | what it finds |", "| --- | --- | --- |"]
    rules += [f"| `{rule}` | {fam} | {text} |" for rule, fam, text in describe()]
    doc = ROOT / "docs" / "security.md"
    text = doc.read_text(encoding="utf-8")
    for name, body in (("secret-rules", "\n".join(rules)), ("secret-detection", table),
                       ("secret-kinds", "\n".join(kind_lines)), ("secret-prose", "\n".join(prose))):
        start, end = f"<!-- generated:{name} -->", f"<!-- /generated:{name} -->"
        before, rest = text.split(start, 1)
        text = before + start + "\n" + body + "\n" + end + rest.split(end, 1)[1]
    doc.write_text(text, encoding="utf-8")
    print(table, "\n".join(kind_lines), "\n".join(prose), sep="\n\n")


if __name__ == "__main__":
    raise SystemExit(main())
