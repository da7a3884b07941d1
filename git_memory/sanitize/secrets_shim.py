"""The commit-msg shim's prefilter: one POSIX ERE (`grep -E`) from the scanner's rule
literals and context keywords; an ASCII message it does not match holds no secret, so
the shim need not start Python. Built only when `install` renders the shim.
"""

from __future__ import annotations

from git_memory.sanitize.secrets_tokens import SERVICES
from git_memory.sanitize.secrets_rules import PROVIDER_RULES


def _ere_literal(literal: str) -> str:
    """`literal` as a case-insensitive POSIX ERE (grep -E has no inline (?i))."""
    out = []
    for ch in literal:
        if ch.isalpha():
            out.append(f"[{ch.lower()}{ch.upper()}]")
        elif ch.isdigit() or ch in "_:=/@!%,;#\"'-":
            out.append(ch)
        else:
            out.append(f"[{ch}]")
    return "".join(out)


# Rules whose gate literal is too common for a commit message (`sk`, `|`, `-`): the
# shim looks for the token's shape instead. Each must match wherever the rule does.
_SHAPE_HINTS: dict[str, str] = {
    "aws-secret-access-key": "[A-Za-z0-9/+]{40}",
    "openai-api-key": "T3BlbkFJ",
    "twilio-key": "(SK|AC)[a-fA-F0-9x]{32}",
    "facebook-app-token": "[0-9]{15}[|]",
    "twitter-access-token": "[0-9]{15}-[A-Za-z0-9]{20}",
    "telegram-bot-token": "[0-9]{5}:A[A-Za-z0-9_-]{34}",
    "airtable-token": "pat[A-Za-z0-9]{14}[.]",
    "facebook-token": "EAA[A-Za-z0-9]{20}",
    "mailchimp-api-key": "[a-f0-9]{32}-us[0-9]",
    "mailgun-key": "key-[a-f0-9]{32}",
    "mailgun-signing-key": "[a-h0-9]{32}-[a-h0-9]{8}-",
    "discord-bot-token": "[MNOA][A-Za-z0-9_-]{22,26}[.][A-Za-z0-9_-]{6}[.]",
    "octopus-deploy-key": "API-[A-Z0-9]{26}",
    "gocardless-token": "live_[A-Za-z0-9_=-]{40}",
    "lob-key": "(live|test)_(pub_)?[a-f0-9]{31}",
    "vault-token": "hv[sbr][.]|s[.][A-Za-z0-9]{24}",
    "mapbox-token": "[pPsS][kK][.][a-zA-Z0-9]{60}",
    "harness-token": "[ps]at[.][A-Za-z0-9_-]{22}[.]",
    "yandex-key": "YC[A-Za-z0-9_-]{38}|AQVN|t1[.]",
    "sendgrid-api-key": "SG[.]",
    "azure-ad-client-secret": "[0-9]Q~",
    "jwt": "ey[A-Za-z0-9_-]{10,}[.]ey",
    "grafana-token": "[gG][lL][cC]_|[gG][lL][sS][aA]_|eyJrIjoi",
    "clickhouse-key": "4b1d[A-Za-z0-9]{38}",
    "databricks-token": "dapi[a-f0-9]{32}",
    "infracost-token": "ico-[A-Za-z0-9]{32}",
    "private-key-block": "PRIVATE KEY",
    "square-token": "sq0atp-|sq0csp-|EAAA[A-Za-z0-9_+-]{60}",
    "easypost-token": "EZ[AT]K[A-Za-z0-9]{54}",
    "azure-sas-token": "[sS][iI][gG]=",
}


def _assignment(keywords: tuple[str, ...], value: str) -> str:
    """A name holding one of `keywords`, an operator, then a value matching `value` (or a
    quote after a blank)."""
    return (
        "(" + "|".join(_ere_literal(k) for k in keywords)
        + ")([.-]" + _ere_literal("code") + ")?[A-Za-z0-9_]*(\\[[0-9]*])?[\"'`]?]?[[:blank:]]*"
        + "((:*=+|[?!]=+|[=-]>|:)[[:blank:]]*@?(" + value + ")|[[:blank:]][\"'`])"
    )


def _context_hints() -> list[str]:
    """The hints of the context rules (built only when the shim is rendered)."""
    # The name, an operator of `secrets_context._AFTER_KEYWORD` (or a space before a
    # quote), then a value that is quoted or holds a character other than a letter, `_`
    # or `.` (those are names or words to `_secret_value`: `auth_mode=oauth`), and does
    # not start with one of `({[<$%&@` (a call, a variable: `token=${CI_TOKEN}`). Digits
    # alone are no hint under a token-like name (`max_tokens: 4096` is never random-
    # looking), but are a password under a password-like one.
    literal = "[\"'`.]|[A-Za-z_.]+[^]A-Za-z_.[:space:]\"'`;)}]"
    any_start = "[^](){[<$%&@A-Za-z_.[:space:]\"'`;}]"
    token_value = ("[^]0-9(){[<$%&@A-Za-z_.[:space:]\"'`;}]"
                   "|[0-9]+[^]0-9[:space:]\"'`;)}]")
    password_like = _assignment(("pass", "pw", "secret", "private"), literal + "|" + any_start)
    token_like = _assignment(("credential", "token", "key", "auth", "login", "bearer"),
                             literal + "|" + token_value)
    return [
        password_like,
        token_like,
        "[\"'][[:space:]]*[!=]=",  # "value" == password
        "[vV][aA][lL][uU][eE][[:space:]]*=[[:space:]]*\"",  # <add key="Password" value="..."/>
        # `--password x`, `--token=x`: the keyword ends the flag (`--redact-secrets` is none)
        "(^|[^A-Za-z0-9_-])--?[A-Za-z0-9-]*(" + "|".join(_ere_literal(k) for k in (
            "password", "passwd", "secret", "token", "access-key", "auth")) + "|"
        + _ere_literal("api") + "-?" + _ere_literal("key") + ")([=[:space:]]|$)",
        "(-u|--user)[[:space:]]",
        _ere_literal("authorization") + "[[:space:]]*([:=]|$)",
        "://[^[:space:]/@]*:[^[:space:]/@]+@",
        _ere_literal("kind:"),
        # A service's name, an operator, then a 14+ character run (the service-token rule).
        "(" + "|".join(_ere_literal(s) for s in SERVICES) + ")[A-Za-z0-9_.-]{0,30}[\"'`]?"
        "[[:blank:]]{0,3}(:=|=>|[:=(,|]|[[:blank:]])?[[:blank:]]{0,3}[\"'`]?[A-Za-z0-9+/_.~|!-]{14}",
        # A line that is one long token, alone or after a marker: the lone-token rule.
        "(^|:)[[:space:]]*[\"'`]?[^[:space:]]{14,}[[:space:]]*$",
        *_shape_hints(),
    ]


def _shape_hints() -> list[str]:
    """The shape detectors' (`secrets_shapes`): each a superset of what its finder takes,
    and no wider than it needs (a hint that fires on prose starts Python for nothing)."""
    words = lambda *ws: "(" + "|".join(_ere_literal(w) for w in ws) + ")"  # noqa: E731
    prefix = ("([a-z]{2,7}([0-9][a-z]{0,4})?|[A-Z]{2,7}([0-9][A-Z]{0,4})?)"
              "([_.-][A-Za-z0-9]{1,8}){0,3}[_.-]")
    edge = "(^|[^A-Za-z0-9_-])"
    end = "([^A-Za-z0-9_-]|$)"
    return [
        # vendor-shaped prefix: a body with a digit and a 10-character piece, or 20 letters
        prefix + "[A-Za-z0-9_-]*[0-9][A-Za-z0-9_-]*[A-Za-z0-9]{10}",
        prefix + "[A-Za-z0-9_-]*[A-Za-z0-9]{10}[A-Za-z0-9_-]*[0-9]",
        prefix + "[A-Za-z]{20}",
        # fixed-shape issuers
        "[A-Fa-f0-9]{36}NRAL|oy2[a-z0-9]{43}|00[A-Za-z0-9_-]{40}|[0-9]-[A-Za-z0-9]{64}"
        "|[a-z2-7]{52}|[A-Za-z0-9]{76}AZDO",
        edge + "11[0-9a-f]{32}" + end,
        # password hashes
        "[$](2[abxy]?|1|apr1|md5|5|6|8|9|y|gy|7|argon2(id|i|d)|pbkdf2[a-z0-9-]*|scrypt|sha1|sha256"
        "|sha512|ml|dcc2|django|krb5(asrep|tgs|pa|tgt))[$]",
        "(pbkdf2_sha1|pbkdf2_sha256|bcrypt_sha256|argon2|scrypt)[$]",
        "[{]" + words("ssha", "sha", "smd5", "md5", "crypt", "pbkdf2") + "[A-Za-z0-9-]*[}]"
        "[A-Za-z0-9+/.$]{16}",
        ":[0-9a-fA-F]{32}:[0-9a-fA-F]{32}:::|::[^:[:space:]]*:[0-9a-fA-F]{16}:",
        # webhooks: a hook path with a digit in it, or a named service
        "/" + words("hooks", "webhook", "webhooks", "webhookb2", "workflows") + "/[^[:space:]]*[0-9]",
        words("chat.googleapis.com", "maker.ifttt.com"),
        # secret slots
        words("machine", "default") + "[[:blank:]].*" + _ere_literal("password") + "[[:blank:]]",
        "^[[:blank:]]*" + _ere_literal("password") + "[[:blank:]]+[^[:space:]]",
        words("login", "account") + "[[:blank:]]+[^[:space:]]+[[:blank:]]+" + _ere_literal("password")
        + "[[:blank:]]",
        "<[A-Za-z0-9_:.-]*" + words("pass", "secret", "apikey", "api-key", "api_key", "token")
        + "[^>]*>[[:blank:]]*[^<[:space:]]",
        words("networkcredential", "pscredential", "usernamepasswordcredential",
              "basicawscredentials", "httpbasicauth", "httpdigestauth", "basicauth",
              "directoryentry") + "[[:blank:]]*[(]",
        words("convertto-securestring", "unseal key"),
        words("jenkins-crumb", "x-jfrog-art-api", "x-api-key", "x-auth-token", "private-token",
              "x-vault-token", "api-key", "x-apikey", "x-access-token", "ocp-apim-subscription-key")
        + "[\"']?[[:blank:]]*[:=][[:blank:]]*[\"']?[A-Za-z0-9._~+/=-]{16}",
        words("sshpass", "psexec", "paexec", "rdesktop", "winexe", "zip", "7z", "7za", "unzip",
              "redis-cli", "mosquitto_pub", "mosquitto_sub", "ldapsearch", "ldapmodify")
        + "[^|;&]*[[:space:]](-[pPaAwW]|" + _ere_literal("--pass") + ")",
        words("mysql", "mysqldump", "mysqladmin", "mariadb", "mysqlimport") + "[^|;&]*[[:space:]]-p[^[:space:]]",
        words("xfreerdp", "wfreerdp", "net use", "wmic", "cmdkey", "schtasks", "runas")
        + "[^|;&]*[[:space:]]/" + words("p", "pass", "password") + "[: ]",
        words("smbclient", "rpcclient", "winexe") + "[^|;&]*-U[[:space:]]+[^[:space:]%]+%",
        "-" + words("pass", "passin", "passout") + "[[:space:]]+" + _ere_literal("pass:"),
        # env-file lines
        "^[[:blank:]]*(export[[:blank:]]+)?[A-Z][A-Z0-9_]{2,60}[[:blank:]]*=[[:blank:]]*[\"']?"
        "[A-Za-z0-9+/_.~-]{24}",
    ]


def shim_hints() -> str:
    """The whole ERE: every provider rule's literals (or its shape), then the context hints."""
    parts: list[str] = []
    for rule in PROVIDER_RULES:
        if rule.rule in _SHAPE_HINTS:
            parts.append(_SHAPE_HINTS[rule.rule])
        else:
            parts.extend(_ere_literal(lit) for lit in rule.literals)
    parts.extend(_context_hints())
    return "|".join(dict.fromkeys(parts))
