"""Issue #32: credentials caught by their shape, for formats no provider rule names.

One family a test: a vendor-shaped prefix before a random body, a value where a syntax
keeps a password, a password hash's signature, a webhook URL whose path is the key. Every
sample is written here (no scanner's suite copied), built at run time from pieces so the
repository never holds one whole, and goes through `git memory add`, the commit-msg hook
and `git memory import`: refused each time, its value nowhere in the repository's objects
or under .git/git-memory/ afterwards.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest

from conftest import err, out
from hooks_support import commit
from secrets_support import AN, HEX, LN, assert_nowhere, g
from git_memory.sanitize.scan import rule_of
from git_memory.sanitize.secrets import redact_secrets, scan

CRYPT = AN + "./"
B32 = string.ascii_lowercase + "234567"


def _sample(text: str, value: str) -> tuple[str, str]:
    assert value in text
    return text, value


def vendor() -> list[tuple[str, str]]:
    """Prefixes no provider rule lists, in the shapes issuers use."""
    out: list[tuple[str, str]] = []
    for n, prefix in enumerate(("dk" + "rz_pat_", "dq" + ".st.prd.", "tv" + "lq-", "ji" + "nq_",
                                "QR" + "AK-", "sg" + "q_", "zap" + "k_live_")):
        token = prefix + "Qa7" + g(AN, 33, f"vendor{n}")
        out.append(_sample(f"the staging job reads {token} from the vault", token))
    fixed = [g(HEX, 36, "nral") + "NR" + "AL", "oy" + "2" + g(LN, 43, "nuget"),
             "0" + "0" + "Qa7" + g(AN, 37, "okta"), "3" + "-" + "Qa7" + g(AN, 61, "truenas"),
             g(B32, 52, "azdo"), "1" + "1" + g(HEX, 32, "jenkins")]
    out += [_sample(f"use `{t}` for the nightly export", t) for t in fixed]
    return out


def slots() -> list[tuple[str, str]]:
    """A password where a syntax keeps one: fields, URIs, connection strings, .netrc,
    constructors, command lines, env files, registry config."""
    pw = lambda n: "Vb8" + g(AN, 11, f"slot{n}") + "!"  # noqa: E731
    t = [pw(i) for i in range(24)]
    cases = [
        (f"password = {t[0]}", t[0]),
        (f'"db_passwd": "{t[1]}"', t[1]),
        (f"postgresql://app:{t[2]}@db01:5432/sales", t[2]),
        (f"mysql://app:{t[3]}@db01/sales", t[3]),
        (f"mongodb+srv://app:{t[4]}@cluster0.internal/sales", t[4]),
        (f"redis://:{t[5]}@cache01:6379/0", t[5]),
        (f"amqps://app:{t[6]}@mq01/vhost", t[6]),
        (f"jdbc:postgresql://db01:5432/sales?user=app&password={t[7]}", t[7]),
        (f"Driver={{ODBC Driver 18}};Server=db01;Uid=app;Pwd={t[8]};", t[8]),
        (f"Server=tcp:db01,1433;User ID=app;Password={t[9]};", t[9]),
        (f"machine api.internal login deploy password {t[10]}", t[10]),
        (f"machine api.internal\n  login deploy\n  password {t[11]}", t[11]),
        (f'var c = new NetworkCredential("deploy", "{t[12]}", "CORP");', t[12]),
        (f'new DirectoryEntry("LDAP://dc01/DC=corp", "svc", "{t[13]}")', t[13]),
        (f"sshpass -p '{t[14]}' ssh deploy@srv01", t[14]),
        (f"psexec \\\\srv01 -u CORP\\admin -p {t[15]} cmd.exe", t[15]),
        (f"mysql -u root -p{t[16].rstrip('!')} sales", t[16].rstrip("!")),
        (f"Connect-VIServer -Server vc01 -User admin -Password {t[17]}", t[17]),
        (f"curl -u deploy:{t[18]} https://api.internal/v1", t[18]),
        (f"DB_PASSWORD={t[19]}", t[19]),
        (f"mavenPassword={t[20]}", t[20]),
        (f"<server><id>repo</id><password>{t[21]}</password></server>", t[21]),
        (f"//npm.internal/:_password={t[22]}", t[22]),
        (f"index-url = https://deploy:{t[23]}@pypi.internal/simple", t[23]),
    ]
    env = "Qa7" + g(AN, 37, "envline")
    cases.append((f"the env file holds\nSESSION_SIGNING={env}\n", env))
    return [_sample(text, value) for text, value in cases]


def hashes() -> list[tuple[str, str]]:
    h = [
        "$2" + "b$12$" + g(CRYPT, 53, "bcrypt"),
        "$2" + "y$10$" + g(CRYPT, 53, "bcrypt-y"),
        "$1" + "$" + g(CRYPT, 8, "md5s") + "$" + g(CRYPT, 22, "md5"),
        "$5" + "$" + g(CRYPT, 16, "s256s") + "$" + g(CRYPT, 43, "s256"),
        "$6" + "$rounds=5000$" + g(CRYPT, 16, "s512s") + "$" + g(CRYPT, 86, "s512"),
        "$8" + "$" + g(CRYPT, 14, "c8s") + "$" + g(CRYPT, 43, "c8"),
        "$9" + "$" + g(CRYPT, 14, "c9s") + "$" + g(CRYPT, 43, "c9"),
        "$krb5" + "asrep$23$alice@CORP.INTERNAL:" + g(HEX, 32, "asrep") + "$" + g(HEX, 96, "asrep2"),
        "$krb5" + "tgs$23$*svc_sql$CORP.INTERNAL$MSSQLSvc/db01*$" + g(HEX, 32, "tgs") + "$"
        + g(HEX, 96, "tgs2"),
        "bob:1104:" + g(HEX, 32, "lm") + ":" + g(HEX, 32, "nt") + ":::",
        "carol::CORPNET:" + g(HEX, 16, "chal") + ":" + g(HEX, 32, "resp") + ":" + g(HEX, 40, "blob"),
    ]
    return [_sample(f"the old admin hash was {x} before the reset", x) for x in h]


def webhooks() -> list[tuple[str, str]]:
    u = lambda n, k=32: g(AN, k, f"hook{n}")  # noqa: E731
    uid = lambda n: "-".join(g(HEX, k, f"uid{n}{k}") for k in (8, 4, 4, 4, 12))  # noqa: E731
    urls = [
        f"https://acme.webhook.office.com/webhookb2/{uid(1)}@{uid(2)}/IncomingWebhook/"
        f"{g(HEX, 32, 'teams')}/{uid(3)}",
        f"https://outlook.office.com/webhook/{uid(4)}@{uid(5)}/IncomingWebhook/"
        f"{g(HEX, 32, 'o365')}/{uid(6)}",
        f"https://discord.com/api/webhooks/{g(string.digits, 19, 'dw')}/{u(2, 68)}",
        f"https://hooks.slack.com/services/T{g(string.ascii_uppercase + string.digits, 8, 'st')}/"
        f"B{g(string.ascii_uppercase + string.digits, 8, 'sb')}/{u(3, 24)}",
        f"https://chat.googleapis.com/v1/spaces/AAAA{u(4, 7)}/messages?key=Qa7{u(5, 36)}"
        f"&token={u(6, 43)}%3D",
        f"https://hooks.zapier.com/hooks/catch/{g(string.digits, 7, 'z1')}/{g(LN, 7, 'z2')}/",
        f"https://chat.internal.example/hooks/{g(LN, 26, 'mm')}",
    ]
    return [_sample(f"alerts post to {x} from CI", x) for x in urls]


FAMILIES = {"vendor": vendor, "slots": slots, "hashes": hashes, "webhooks": webhooks}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_sample_of_the_family_is_caught_and_redacted(family: str) -> None:
    for text, value in FAMILIES[family]():
        assert rule_of(text), text
        redacted, fired = redact_secrets(text)
        assert fired and value not in redacted, text


@pytest.mark.parametrize("text", [
    "bump pre-commit-hooks to v4.5.0 and sqlite-utils to 3.36",
    "see https://github.com/simonw/datasette/settings/hooks/123456789 for the hook",
    "the asset is app-4f7c9e1a3b5d7f9a0c2e.css; cache it forever",
    "an integrity of sha512-Qm7Zx2Kp9Lt4Rw8Yb3Nc6Vd1Fh5Jg0Ts2Ua4We6+/abc= is fine",
    "a commit id release-4f7c9e1a3b5d7f9a0c2e4b6d8f1a3c5e7b9d0f2a4c is no token",
    "a widget desktop-rhf_SponsoredProductsRemoteRHFSearchEXPSubsK2ClickPagination here",
    "echo $1$2 and ${HOME} are shell, not hashes",
    "machine learning models need a password manager",
    "the mysql -p flag prompts for the password",
    "the hash $2b$12$" + "x" * 53 + " is a placeholder",
    "a publishable key pk_live_" + g(AN, 24, "pk") + " is public",
    "VERSION_SHA=" + g(HEX, 40, "sha"),
])
def test_ordinary_text_near_the_shapes_passes(text: str) -> None:
    assert rule_of(text) is None, [text[f.start:f.end] for f in scan(text)]


def _check_family(repo: Path, gm, tmp_path: Path, samples: list[tuple[str, str]]) -> None:
    # add: refused, the rule named, the value never echoed
    for text, value in samples:
        result = gm("add", f"LEARNED: {text}")
        assert result.returncode != 0, text
        assert "secret" in err(result) and value not in err(result) + out(result)
    # the commit-msg hook: each marker refused
    assert gm("install").returncode == 0
    for text, value in samples:
        body = text.strip("\n").replace("\n", "\n  ")  # continuation lines of the marker
        result = commit(repo, f"Work\n\nLEARNED: {body}\n", "a.py", check=False)
        assert result.returncode != 0, text
        assert value not in result.stderr + result.stdout
    # import: every line reported as a secret and skipped
    source = tmp_path / "family.jsonl"
    source.write_text("".join(json.dumps({"type": "learned", "content": text, "key": f"k{n}"}) + "\n"
                              for n, (text, _) in enumerate(samples)), encoding="utf-8")
    result = gm("import", str(source), "--json", "--skip-secrets")
    assert result.returncode == 0, err(result)
    summary = json.loads(out(result))
    assert len([r for r in summary["rejects"] if "secret" in r["reason"]]) == len(samples)
    # redacting import: stored without the value
    result = gm("import", str(source), "--json")
    assert result.returncode == 0, err(result)
    for _, value in samples:
        assert_nowhere(repo, value)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_the_family_is_refused_by_add_the_commit_hook_and_import(family, git_repo, gm, tmp_path):
    _check_family(git_repo, gm, tmp_path, FAMILIES[family]())
