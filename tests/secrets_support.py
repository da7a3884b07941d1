"""The secret the wiring tests put in every field and on every path, and where to look for it.

PATH_SECRET is ONE token, built at run time from harmless pieces so the repository never
holds it whole. It is a Linear API key: a family the scanner before issue #11 did not know
(bench/old_secrets.py passes it), so every path test that refuses or redacts it shows that
path uses the new scanner. It must stay a valid git ref name, since one test names a branch
after it.
"""

from __future__ import annotations

import os
import random
import string
import subprocess
from pathlib import Path

from conftest import git

PATH_SECRET = "lin_" + "api_" + "Rq7" + "vK2" * 11 + "x9Zw"
PATH_RULE = "linear-api-key"


def objects_holding(repo: Path, value: str) -> int:
    """How many git objects of `repo` (every one, loose or packed, reachable or not)
    hold `value`."""
    result = subprocess.run(
        ["git", "cat-file", "--batch-all-objects", "--batch"], cwd=repo, capture_output=True,
        check=True,
    )
    return result.stdout.count(value.encode("utf-8"))


def local_files_holding(repo: Path, value: str) -> list[str]:
    """Files under the git-memory dir (audit log, index, hook and worker logs, distill
    queue) whose bytes hold `value`."""
    common = subprocess.run(["git", "rev-parse", "--git-common-dir"], cwd=repo,
                            capture_output=True, text=True, check=True).stdout.strip()
    root = (repo / common / "git-memory").resolve()
    if not root.exists():
        return []
    needle = value.encode("utf-8")
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_file() and needle in p.read_bytes()]


def assert_nowhere(repo: Path, value: str, objects: bool = True) -> None:
    """No stored object (when `objects`), index row, audit line or log of ours holds `value`."""
    if objects:
        assert objects_holding(repo, value) == 0
    assert local_files_holding(repo, value) == []


AN = string.ascii_letters + string.digits


LN = string.ascii_lowercase + string.digits


UPN = string.ascii_uppercase + string.digits


HEX = "0123456789abcdef"


US = AN + "_-"


B64 = AN + "+/"


D = string.digits


def g(alphabet: str, n: int, seed: str = "") -> str:
    """`n` characters of `alphabet`, random but the same on every run."""
    rng = random.Random(f"{seed}{alphabet}{n}")
    return "".join(rng.choice(alphabet) for _ in range(n))


def _uuid(seed: str) -> str:
    h = g(HEX, 32, seed)
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


FAKES: dict[str, str] = {
    "aws-access-key-id": "AK" + "IA" + g(UPN, 16),
    "aws-secret-access-key": "aws_secret_access_key = " + g(AN + "/+", 40),
    "aws-bedrock-api-key": "ABSK" + "QmVkcm9ja0FQSUtleS" + g(B64, 110),
    "google-api-key": "AI" + "za" + g(US, 35),
    "google-oauth-client-secret": "GOC" + "SPX-" + g(US, 28),
    "google-oauth-token": "ya" + "29." + g(US, 60),
    "gcp-service-account-key": '"type": "service_' + 'account"',
    "azure-storage-key": "Account" + "Key=" + g(B64, 86) + "==",
    "azure-ad-client-secret": g(AN, 3) + "8Q" + "~" + g(AN + "_~.-", 34),
    "azure-sas-token": "https://acct.blob.core.windows.net/c?sv=2022-11-02&ss=b&sp=rl&si" + "g="
                      + g(AN, 44),
    "alibaba-access-key-id": "LT" + "AI" + g(AN, 20),
    "yandex-key": "Y" + "C" + g(US, 38),
    "digitalocean-token": "do" + "p_v1_" + g(HEX, 64),
    "heroku-api-key": "HR" + "KU-" + g(US, 60),
    "flyio-token": "fo" + "1_" + g(US, 43),
    "cloudflare-origin-ca-key": "v1" + ".0-" + g(HEX, 24) + "-" + g(HEX, 146),
    "scalingo-token": "tk" + "-us-" + g(US, 48),
    "doppler-token": "dp" + ".pt." + g(AN, 43),
    "databricks-token": "da" + "pi" + g(HEX, 32),
    "terraform-cloud-token": g(AN, 14) + ".atlas" + "v1." + g(US, 64),
    "vault-token": "hv" + "s." + g(US, 90),
    "pulumi-token": "pu" + "l-" + g(HEX, 40),
    "openshift-token": "sha256" + "~" + g(US, 43),
    "dynatrace-token": "dt0c" + "01." + g(UPN, 24) + "." + g(UPN, 64),
    "harness-token": "pa" + "t." + g(US, 22) + "." + g(AN, 24) + "." + g(AN, 20),
    "octopus-deploy-key": "AP" + "I-" + g(UPN, 26),
    "onepassword-token": "op" + "s_eyJ" + g(B64, 260),
    "age-secret-key": "AGE-SECRET" + "-KEY-1" + g("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
    "ibm-cloud-key": "https://api.softlayer.com/rest/v3/" + g(LN, 64),
    "github-token": "gh" + "p_" + g(AN, 36),
    "github-fine-grained-token": "github" + "_pat_" + g(AN + "_", 82),
    "gitlab-token": "gl" + "pat-" + g(AN, 20),
    "gitlab-session-cookie": "_gitlab" + "_session=" + g(LN, 32),
    "sourcegraph-token": "sg" + "p_" + g(HEX, 40),
    "npm-token": "np" + "m_" + g(AN, 36),
    "npmrc-auth": "//registry.npmjs.org/:_auth" + "Token=" + g(AN, 36),
    "pypi-token": "pypi-" + "AgEIcHlwaS5vcmc" + g(US, 70),
    "rubygems-token": "ruby" + "gems_" + g(HEX, 48),
    "clojars-token": "CLOJ" + "ARS_" + g(LN, 60),
    "artifactory-token": "AK" + "Cp" + g(AN, 69),
    "docker-auth": '{"auths": {"registry.internal": {"au' + 'th": "' + g(B64, 40) + '"}}}',
    "infracost-token": "ic" + "o-" + g(AN, 32),
    "prefect-token": "pn" + "u_" + g(AN, 36),
    "sonar-token": "sq" + "u_" + g(AN, 40),
    "settlemint-token": "sm" + "_pat_" + g(LN, 16),
    "defined-networking-key": "dn" + "key-" + g(US, 26) + "-" + g(US, 52),
    "slack-token": "xo" + "xb-" + g(D, 12) + "-" + g(D, 13) + "-" + g(AN, 24),
    "slack-webhook": "https://hooks.slack.com/services/" + "T" + g(UPN, 8) + "/B" + g(UPN, 8)
                     + "/" + g(AN, 24),
    "discord-webhook": "https://discord.com/api/webhooks/" + g(D, 18) + "/" + g(US, 68),
    "discord-bot-token": "M" + g(AN, 23) + "." + g(US, 6) + "." + g(US, 27),
    "telegram-bot-token": g(D, 9) + ":A" + "A" + g(US, 33),
    "teams-webhook": "https://acme.webhook.office.com/webhookb2/" + _uuid("a") + "@" + _uuid("b")
                     + "/Incoming" + "Webhook/" + g(LN, 32) + "/" + _uuid("c"),
    "twilio-key": "S" + "K" + g(HEX, 32),
    "mailgun-key": "ke" + "y-" + g(HEX, 32),
    "mailgun-signing-key": g(HEX, 32) + "-" + g(HEX, 8) + "-" + g(HEX, 8, "x"),
    "sendgrid-api-key": "S" + "G." + g(US, 22) + "." + g(US, 43),
    "sendinblue-api-key": "xkey" + "sib-" + g(HEX, 64) + "-" + g(AN, 16),
    "mailchimp-api-key": g(HEX, 32) + "-us" + "14",
    "stripe-key": "sk" + "_live_" + g(AN, 24),
    "square-token": "sq0" + "atp-" + g(US, 22),
    "shopify-token": "shp" + "at_" + g(HEX, 32),
    "flutterwave-key": "FLW" + "SECK_TEST-" + g(HEX, 32) + "-X",
    "plaid-token": "access-" + "production-" + _uuid("p"),
    "gocardless-token": "li" + "ve_" + g(US, 40),
    "shippo-token": "shippo" + "_live_" + g(HEX, 40),
    "duffel-token": "duffel" + "_test_" + g(US, 43),
    "easypost-token": "EZ" + "AK" + g(AN, 54),
    "lob-key": "te" + "st_pub_" + g(HEX, 31),
    "clickhouse-key": "4b" + "1d" + g(AN, 38),
    "planetscale-token": "pscale" + "_pw_" + g(US, 43),
    "anthropic-api-key": "sk-" + "ant-api03-" + g(US, 93) + "AA",
    "openai-api-key": "sk-" + "proj-" + g(US, 40) + "T3Blb" + "kFJ" + g(US, 40),
    "huggingface-token": "h" + "f_" + g(string.ascii_letters, 34),
    "perplexity-api-key": "pp" + "lx-" + g(AN, 48),
    "groq-api-key": "gs" + "k_" + g(AN, 52),
    "replicate-token": "r" + "8_" + g(AN, 37),
    "sentry-token": "sntr" + "yu_" + g(HEX, 64),
    "new-relic-key": "NR" + "AK-" + g(UPN, 27),
    "grafana-token": "gl" + "sa_" + g(AN, 32) + "_" + g(HEX, 8),
    "atlassian-api-token": "ATA" + "TT3" + g(US, 186),
    "linear-api-key": "lin" + "_api_" + g(AN, 40),
    "notion-token": "nt" + "n_" + g(D, 11) + g(AN, 35),
    "airtable-token": "pa" + "t" + g(AN, 14) + "." + g(HEX, 64),
    "postman-api-key": "PM" + "AK-" + g(HEX, 24) + "-" + g(HEX, 34),
    "readme-api-key": "rd" + "me_" + g(LN, 70),
    "typeform-token": "tf" + "p_" + g(US, 59),
    "frameio-token": "fio" + "-u-" + g(US, 64),
    "authress-key": "sc_" + g(LN, 10) + "." + g(LN, 5) + ".ac" + "c_" + g(LN, 12) + "." + g(LN, 50),
    "intra-secret": "s-s4" + "t2ud-" + g(HEX, 64),
    "mapbox-token": "p" + "k." + g(LN, 60) + "." + g(LN, 22),
    "adobe-client-secret": "p8" + "e-" + g(LN, 32),
    "facebook-token": "EA" + "AC" + g(AN, 100),
    "facebook-app-token": g(D, 15) + "|" + g(US, 27),
    "twitter-bearer-token": "A" * 22 + g(AN + "%", 100),
    "twitter-access-token": g(D, 18) + "-" + g(AN, 40),
    "sidekiq-secret": "BUNDLE_GEMS__CONTRIB" + "SYS__COM=" + g(HEX, 8) + ":" + g(HEX, 8, "y"),
    "private-key-block": "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIE" + g(B64, 60),
    "jwt": "ey" + "JhbGciOiJIUzI1NiJ9.ey" + "J" + g(US, 30) + "." + g(US, 30),
    "secret-assignment": 'password = "' + g(AN, 20) + '"',
    "secret-in-command-line": "--pass" + "word " + g(AN, 20),
    "authorization-header": "Authorization: " + "Bearer " + g(AN, 32),
    "credentials-in-url": "postgres://deploy:" + g(AN, 20) + "@db.internal:5432/app",
    "kubernetes-secret": "\napiVersion: v1\nkind: Secret\ndata:\n  config.json: " + g(B64, 40) + "\n",
    "service-token": "sourcegraph: " + g(AN, 40),
    # shape detectors (issue #32): formats no provider rule names
    "vendor-prefixed-token": "qz" + "v_pat_" + g(AN, 32, "vendor"),
    "password-hash": "$2" + "b$12$" + g(AN + "./", 53, "bcrypt"),
    "webhook-url": "https://hooks.chat.internal/" + "hooks/" + g(LN, 26, "hook"),
    "secret-in-known-slot": "machine api.internal login deploy " + "password " + g(AN, 16, "netrc"),
    "env-file-secret": "\nSESSION_" + "SIGNING=" + g(AN, 40, "env") + "\n",
    "newrelic-license-key": g(HEX, 36, "nral") + "NR" + "AL",
    "nuget-api-key": "oy" + "2" + g(string.ascii_lowercase + string.digits, 43, "nuget"),
    "okta-api-token": "0" + "0" + "Qa7" + g(AN, 37, "okta"),
    "truenas-api-key": "1" + "-" + g(AN, 64, "truenas"),
    "azure-devops-pat": g(string.ascii_lowercase + "234567", 52, "azdo"),
    "jenkins-api-token": "1" + "1" + g(HEX, 32, "jenkins"),
}


def _hand_record(repo: Path, record: str, name: str, parent: str | None,
                 folder: str = "entries") -> str:
    """A commit adding one file under `folder`/2026/11/26/ (the record layout) on top
    of `parent`, with git plumbing only (a scratch index, so the work tree is untouched)."""
    blob = git("hash-object", "-w", "--stdin", cwd=repo, input=record).strip()
    env = {**os.environ, "GIT_INDEX_FILE": str(repo / ".git" / "hand-record-index")}

    def plumb(*args: str) -> str:
        done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True,
                              text=True, check=True)
        return done.stdout.strip()

    plumb("read-tree", parent) if parent else plumb("read-tree", "--empty")
    plumb("update-index", "--add", "--cacheinfo", f"100644,{blob},{folder}/2026/11/26/{name}")
    root = plumb("write-tree")
    args = ["commit-tree", root, "-m", "by hand"] + (["-p", parent] if parent else [])
    return git(*args, cwd=repo).strip()


def _record(rid: str, extra: str = "", body: str = "a clean body", kind: str = "") -> str:
    head = f"kind: {kind}\n" if kind else "type: decision\n"
    return (f"---\nid: {rid}\n{head}created: 2026-11-26T00:00:00Z\nsource: manual\n"
            f"{extra}---\n{body}\n")
