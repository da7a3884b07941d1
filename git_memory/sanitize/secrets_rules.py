"""Provider rules: one per published token format (prefix, length, charset), by family.

A rule carries the lower-case literals one of which every match holds: the scanner runs
it only on text holding one, and the shim's grep is built from them. Boundaries are
explicit ASCII classes, not `\\b`: a glued `_` or a Cyrillic letter must not hide a
token. The secret is the named group `s` when the match carries context around it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

# Start and end of a token: no ASCII letter or digit glued on that side. `_`, `-` and
# non-ASCII letters do not count as part of the token (`TOKEN_ghp_...`, `ключghp_...`).
B = r"(?<![A-Za-z0-9])"
E = r"(?![A-Za-z0-9])"
E_ = r"(?![A-Za-z0-9_-])"  # for formats whose body may hold `_` and `-`


@dataclass(frozen=True)
class Rule:
    """A provider token format."""

    rule: str
    family: str
    literals: tuple[str, ...]
    source: str
    description: str
    flags: int = 0
    # A regex over the lower-cased long runs of the text, for formats whose literal is
    # too common to gate on (`sk`, `|`, `-`): the token's shape instead.
    gate: str = ""
    # "runs": the literal lies inside the token; "text": anywhere in the text.
    scope: str = "runs"

    @cached_property
    def pattern(self) -> re.Pattern[str]:
        # Compiled on first use: a hook pays only for the rules its text has a literal for.
        return re.compile(self.source, self.flags)


def _r(rule: str, family: str, literals: str | tuple[str, ...], source: str, description: str,
       flags: int = 0, gate: str = "", scope: str = "runs") -> Rule:
    words = literals if isinstance(literals, tuple) else tuple(literals.split())
    return Rule(rule, family, words, source, description, flags, gate=gate, scope=scope)


I = re.I

PROVIDER_RULES: tuple[Rule, ...] = (
    # --- cloud ---------------------------------------------------------------------
    _r("aws-access-key-id", "cloud", "akia asia abia acca a3t",
       B + r"(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}" + E, "AWS access key id", gate=r"(?:akia|asia|abia|acca|a3t[a-z0-9])[a-z0-9]{16}"),
    _r("aws-secret-access-key", "cloud", "aws amazon",
       r"(?i)(?:aws|amazon)[\w.-]{0,20}(?:secret|access)[\w.-]{0,20}[\"']?\s*(?:[:=]|=>|:=)\s*"
       r"[\"']?(?P<s>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])",
       "AWS secret access key in an assignment", scope="text"),
    _r("aws-bedrock-api-key", "cloud", "absk bedrock-api-key-",
       B + r"(?:ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{100,}={0,2}"
       r"|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&]*)",
       "Amazon Bedrock API key (long-lived ABSK..., short-lived bedrock-api-key-...)"),
    _r("google-api-key", "cloud", "aiza", B + r"AIza[0-9A-Za-z_-]{35}" + E_, "Google API key"),
    _r("google-oauth-client-secret", "cloud", "gocspx-", B + r"GOCSPX-[A-Za-z0-9_-]{28}" + E_,
       "Google OAuth client secret"),
    _r("google-oauth-token", "cloud", "ya29.", B + r"ya29\.[0-9A-Za-z_-]{30,}", "Google OAuth access token"),
    _r("gcp-service-account-key", "cloud", "service_account",
       r"\"type\"\s*:\s*\"service_account\"", "Google Cloud service account key file"),
    _r("azure-storage-key", "cloud", "accountkey=",
       r"(?i)AccountKey=(?P<s>[A-Za-z0-9+/]{86}==)", "Azure storage account key"),
    _r("azure-ad-client-secret", "cloud", "q~",
       r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])",
       "Azure AD (Entra) client secret", gate=r"\dq~"),
    _r("azure-sas-token", "cloud", "sig=",
       r"(?i)[?&]s[vrp]=[^&\s]{1,40}&.{0,200}?[?&]sig=(?P<s>[A-Za-z0-9%+/]{40,}={0,2}(?:%3D){0,2})",
       "Azure shared access signature"),
    _r("alibaba-access-key-id", "cloud", "ltai", B + r"LTAI[A-Za-z0-9]{12,20}" + E, "Alibaba Cloud AccessKey id"),
    _r("yandex-key", "cloud", "yc aqvn t1.",
       B + r"(?:YC[A-Za-z0-9_-]{38}|AQVN[A-Za-z0-9_-]{35,38}"
       r"|t1\.[A-Za-z0-9_-]+=*\.[A-Za-z0-9_-]{86}=*)" + E_, "Yandex Cloud key or IAM token", gate=r"yc[\w-]{38}|aqvn|t1\."),
    _r("digitalocean-token", "cloud", "_v1_", B + r"do[opr]_v1_[a-f0-9]{64}" + E, "DigitalOcean token"),
    _r("heroku-api-key", "cloud", "hrku-", B + r"HRKU-[A-Za-z0-9_-]{60}" + E_, "Heroku API key (v2)"),
    _r("flyio-token", "cloud", "fo1_ fm1r_ fm1a_ fm2_ flyv1",
       B + r"(?:FlyV1 )?(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})",
       "Fly.io access token"),
    _r("cloudflare-origin-ca-key", "cloud", "v1.0-",
       B + r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}" + E, "Cloudflare origin CA key"),
    _r("scalingo-token", "cloud", "tk-us-", B + r"tk-us-[A-Za-z0-9_-]{48}" + E_, "Scalingo API token"),
    _r("doppler-token", "cloud", "dp.pt.", B + r"dp\.pt\.[a-zA-Z0-9]{43}" + E, "Doppler API token"),
    _r("databricks-token", "cloud", "dapi", B + r"dapi[a-f0-9]{32}(?:-\d)?" + E, "Databricks API token", gate=r"dapi[0-9a-f]{32}"),
    _r("terraform-cloud-token", "cloud", ".atlasv1.",
       B + r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}" + E_, "Terraform Cloud / HCP API token"),
    _r("vault-token", "cloud", "hvs. hvb. hvr. s.",
       B + r"(?:hv[sbr]\.[A-Za-z0-9_-]{24,}|(?<![./\w])s\.(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[a-z])"
       r"(?=[A-Za-z0-9]*[A-Z])[A-Za-z0-9]{24}(?![A-Za-z0-9.(]))",
       "HashiCorp Vault token", gate=r"hv[sbr]\.|s\.[a-z0-9]{24}"),
    _r("pulumi-token", "cloud", "pul-", B + r"pul-[a-f0-9]{40}" + E, "Pulumi access token"),
    _r("openshift-token", "cloud", "sha256~", r"sha256~[A-Za-z0-9_-]{43}" + E_, "OpenShift user token"),
    _r("dynatrace-token", "monitoring", "dt0c01.",
       B + r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}" + E, "Dynatrace API token"),
    _r("harness-token", "ci", "pat. sat.",
       B + r"(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}" + E,
       "Harness access token", gate=r"[ps]at\.[\w-]{22}\."),
    _r("octopus-deploy-key", "ci", "api-", B + r"API-[A-Z0-9]{26}" + E, "Octopus Deploy API key", gate=r"api-[a-z0-9]{26}"),
    _r("onepassword-token", "cloud", "ops_eyj a3-",
       B + r"(?:ops_eyJ[A-Za-z0-9+/]{250,}={0,3}"
       r"|A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5})",
       "1Password service account token or secret key", gate=r"ops_eyj|a3-[a-z0-9]{6}-"),
    _r("age-secret-key", "cloud", "age-secret-key-1",
       r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}", "age encryption secret key"),
    _r("ibm-cloud-key", "cloud", "softlayer",
       r"(?i)api\.softlayer\.com/(?:soap|rest)/v3(?:\.1)?/(?P<s>[a-z0-9]{64})", "IBM SoftLayer key in a URL"),
    # --- code hosting ------------------------------------------------------------------
    _r("github-token", "code hosting", "ghp_ gho_ ghu_ ghs_ ghr_",
       B + r"gh[pousr]_[A-Za-z0-9]{36,255}" + E, "GitHub classic / OAuth / app token"),
    _r("github-fine-grained-token", "code hosting", "github_pat_",
       B + r"github_pat_[A-Za-z0-9_]{60,255}" + E, "GitHub fine-grained personal access token"),
    _r("gitlab-token", "code hosting",
       "glpat- gldt- glrt- glptt- glsoat- glcbt- glffct- glft- glimt- glagent- gloas- gr1348941",
       B + r"(?:glpat-[A-Za-z0-9_-]{20,30}(?:\.[A-Za-z0-9]{9})?"
       r"|glrt-[A-Za-z0-9_-]{20,30}(?:\.[A-Za-z0-9]{9})?"
       r"|gldt-[A-Za-z0-9_-]{20}|glptt-[A-Za-z0-9_-]{40}|glsoat-[A-Za-z0-9_-]{19,}[A-Za-z0-9]"
       r"|glcbt-[A-Za-z0-9_-]{19,}[A-Za-z0-9]|glffct-[A-Za-z0-9_-]{20}|glft-[A-Za-z0-9_-]{20}"
       r"|glimt-[A-Za-z0-9_-]{25}|glagent-[A-Za-z0-9_-]{50,1024}|gloas-[A-Za-z0-9_-]{64}"
       r"|GR1348941(?=[\w-]*[A-Za-z])[A-Za-z0-9_-]{19,49}[A-Za-z0-9])" + E_,
       "GitLab access, deploy, runner, trigger, OAuth or feed token"),
    _r("gitlab-session-cookie", "code hosting", "_gitlab_session=",
       r"_gitlab_session=(?P<s>[0-9a-z]{32})" + E, "GitLab session cookie"),
    _r("sourcegraph-token", "code hosting", "sgp_",
       B + r"sgp_(?:(?:local|[a-fA-F0-9]{16})_)?[a-fA-F0-9]{40}" + E, "Sourcegraph access token"),
    # --- CI and registries ----------------------------------------------------------------
    _r("npm-token", "registries", "npm_", B + r"npm_[A-Za-z0-9]{36}" + E, "npm access token"),
    _r("npmrc-auth", "registries", ":_authtoken=",
       r"//[^\s:/]+[^\s:]*/:_authToken=\s*(?P<s>[A-Za-z0-9_.+/=-]{8,})", "npm registry auth token in .npmrc"),
    _r("pypi-token", "registries", "pypi-agei pypi-agen",
       B + r"pypi-AgE[IN][A-Za-z0-9_-]{60,}", "PyPI / TestPyPI upload token"),
    _r("rubygems-token", "registries", "rubygems_", B + r"rubygems_[a-f0-9]{48}" + E, "RubyGems API key"),
    _r("clojars-token", "registries", "clojars_", B + r"CLOJARS_[a-z0-9]{60}" + E, "Clojars deploy token", I),
    _r("artifactory-token", "registries", "akcp cmvmd",
       B + r"(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})" + E, "JFrog Artifactory API key / reference token"),
    _r("docker-auth", "registries", ('"auths"',),
       r"(?s)\"auths\"\s*:\s*\{.{0,300}?\"auth\"\s*:\s*\"(?P<s>[A-Za-z0-9+/]{12,}={0,2})\"",
       "Docker registry credentials (config.json)"),
    _r("infracost-token", "ci", "ico-", r"(?<![A-Za-z0-9.])ico-[A-Za-z0-9]{32}" + E, "Infracost API key", gate=r"ico-[a-z0-9]{32}"),
    _r("prefect-token", "ci", "pnu_", B + r"pnu_[A-Za-z0-9]{36}" + E, "Prefect API key"),
    _r("sonar-token", "ci", "squ_ sqp_ sqa_", B + r"sq[upa]_[A-Za-z0-9]{40}" + E, "SonarQube token"),
    _r("settlemint-token", "ci", "sm_pat_ sm_aat_ sm_sat_",
       B + r"sm_(?:pat|aat|sat)_[A-Za-z0-9]{16}" + E, "SettleMint access token"),
    _r("defined-networking-key", "ci", "dnkey-",
       B + r"dnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}" + E_, "Defined Networking API key"),
    # --- chat and webhooks ------------------------------------------------------------------
    _r("slack-token", "chat", "xox xapp-",
       B + r"(?:xox[pe]-\d{5,13}-\d{5,13}-\d{5,13}-[A-Za-z0-9]{16,34}"
       r"|xoxb-\d{8,13}-\d{8,13}-[A-Za-z0-9]{20,34}|xoxb-\d{8,14}-[A-Za-z0-9]{18,26}"
       r"|xox[os]-\d+-\d+-\d+-[A-Fa-f0-9]{8,}|xox[ar]-(?:\d+-)*[A-Za-z0-9]{8,48}"
       r"|(?i:xoxe\.xox[bp]-\d-[A-Z0-9]{150,170}|xoxe-\d-[A-Z0-9]{140,150}"
       r"|xapp-\d-[A-Z0-9]+-\d+-[A-Z0-9]{30,}))" + E,
       "Slack bot, user, app, workspace or configuration token"),
    _r("slack-webhook", "chat", "hooks.slack.com",
       r"(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,}",
       "Slack incoming webhook URL"),
    _r("discord-webhook", "chat", "discord",
       r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/\d+/[A-Za-z0-9_-]{60,}",
       "Discord webhook URL"),
    _r("discord-bot-token", "chat", ".",
       r"(?<![A-Za-z0-9_-])[MNOA][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27}"
       r"(?:[A-Za-z0-9_!-]{11})?(?![A-Za-z0-9_-])",
       "Discord bot token", gate=r"[mnoa][\w-]{23,25}\.[\w-]{6}\."),
    _r("telegram-bot-token", "chat", ":a",
       r"(?<![A-Za-z0-9_:])\d{5,16}:A[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])", "Telegram bot token", gate=r"\d{5}:a[\w-]{34}"),
    _r("teams-webhook", "chat", "webhook.office.com",
       r"https://[a-z0-9-]+\.webhook\.office\.com/webhookb2/[a-z0-9-]+@[a-z0-9-]+/IncomingWebhook/"
       r"[A-Za-z0-9]+(?:/[a-z0-9-]+)?", "Microsoft Teams incoming webhook URL"),
    _r("twilio-key", "chat", "sk ac",
       r"(?<![A-Za-z0-9])(?:SK|AC)[a-fA-F0-9x]{32}" + E, "Twilio API key / account SID", gate=r"(?:sk|ac)[0-9a-fx]{32}"),
    _r("mailgun-key", "chat", "key- pubkey-",
       B + r"(?:pub)?key-[a-f0-9]{32}" + E, "Mailgun private or public key", gate=r"key-[0-9a-f]{32}"),
    _r("mailgun-signing-key", "chat", "-",
       B + r"[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}" + E, "Mailgun webhook signing key", gate=r"[a-h0-9]{32}-[a-h0-9]{8}-"),
    _r("sendgrid-api-key", "chat", "sg.",
       B + r"SG\.(?:[A-Za-z0-9_=-]{22}\.[A-Za-z0-9_=-]{43}|(?![\w.=-]*\.\.)[A-Za-z0-9_=.-]{66})" + E_, "SendGrid API key"),
    _r("sendinblue-api-key", "chat", "xkeysib-",
       B + r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + E, "Sendinblue (Brevo) API key"),
    _r("mailchimp-api-key", "chat", "-us",
       B + r"[a-f0-9]{32}-us\d{1,2}" + E, "Mailchimp API key", gate=r"[0-9a-f]{32}-us\d"),
    # --- payments ------------------------------------------------------------------------
    _r("stripe-key", "payments", "k_live_ k_test_ k_prod_",
       B + r"(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{24,247}" + E, "Stripe secret / restricted key"),
    _r("square-token", "payments", "sq0atp- sq0csp- eaaa",
       B + r"(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_\\^\]-]{40,50}|EAAA[A-Za-z0-9_+-]{60})",
       "Square access token or OAuth secret"),
    _r("shopify-token", "payments", "shpat_ shpca_ shppa_ shpss_",
       B + r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}" + E, "Shopify access token or shared secret"),
    _r("flutterwave-key", "payments", "flwpubk flwseck",
       B + r"FLW(?:PUBK|SECK)_TEST-?[a-h0-9]{12,32}(?:-X)?" + E, "Flutterwave key"),
    _r("plaid-token", "payments", "access-sandbox- access-development- access-production-",
       B + r"access-(?:sandbox|development|production)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}"
       r"-[0-9a-f]{4}-[0-9a-f]{12}" + E, "Plaid access token"),
    _r("gocardless-token", "payments", "live_", B + r"live_[A-Za-z0-9_=-]{40}" + E_, "GoCardless access token", gate=r"live_[\w=-]{40}"),
    _r("shippo-token", "payments", "shippo_", B + r"shippo_(?:live|test)_[a-f0-9]{40}" + E, "Shippo API token"),
    _r("duffel-token", "payments", "duffel_", B + r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}" + E_,
       "Duffel API token"),
    _r("easypost-token", "payments", "ezak eztk",
       r"(?<![A-Za-z0-9+/])EZ[AT]K[A-Za-z0-9]{54}" + E, "EasyPost API key", gate=r"ez[at]k[a-z0-9]{54}"),
    _r("lob-key", "payments", "live_ test_",
       B + r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}" + E, "Lob API key", gate=r"(?:live|test)_(?:pub_)?[0-9a-f]{31}"),
    _r("clickhouse-key", "databases", "4b1d", B + r"4b1d[A-Za-z0-9]{38}" + E, "ClickHouse Cloud API secret", gate=r"4b1d[a-z0-9]{38}"),
    _r("planetscale-token", "databases", "pscale_",
       B + r"pscale_(?:pw|tkn|oauth)_[A-Za-z0-9_.=-]{32,64}", "PlanetScale password or token"),
    # --- AI APIs ---------------------------------------------------------------------------
    _r("anthropic-api-key", "ai", "sk-ant-",
       B + r"sk-ant-(?:api|admin)\d{2}-[A-Za-z0-9_-]{93}AA" + E_, "Anthropic API key"),
    _r("openai-api-key", "ai", "t3blbkfj",
       B + r"sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{10,}T3BlbkFJ[A-Za-z0-9_-]{10,}",
       "OpenAI API key"),
    _r("huggingface-token", "ai", "hf_ api_org_",
       B + r"(?:hf_[A-Za-z]{34}|api_org_[A-Za-z]{34})" + E, "Hugging Face access token"),
    _r("perplexity-api-key", "ai", "pplx-", B + r"pplx-[A-Za-z0-9]{48}" + E, "Perplexity API key"),
    _r("groq-api-key", "ai", "gsk_", B + r"gsk_[A-Za-z0-9]{52}" + E, "Groq API key"),
    _r("replicate-token", "ai", "r8_", B + r"r8_[A-Za-z0-9]{37}" + E, "Replicate API token"),
    # --- monitoring ------------------------------------------------------------------------
    _r("sentry-token", "monitoring", "sntrys_ sntryu_",
       B + r"(?:sntrys_eyJ[A-Za-z0-9+/=_]{60,}|sntryu_[a-f0-9]{64}" + E + ")", "Sentry org or user token"),
    _r("new-relic-key", "monitoring", "nrak- nrjs- nrii-",
       B + r"(?:NRAK-[A-Za-z0-9]{27}|NRJS-[a-f0-9]{19}|NRII-[A-Za-z0-9_-]{32})" + E, "New Relic key"),
    _r("grafana-token", "monitoring", "glc_ glsa_ eyjrijoi",
       B + r"(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"
       r"|eyJrIjoi[A-Za-z0-9]{70,400}={0,2})" + E, "Grafana API key, cloud or service account token"),
    # --- productivity and other SaaS ---------------------------------------------------------
    _r("atlassian-api-token", "saas", "atatt3", B + r"ATATT3[A-Za-z0-9_=-]{186}" + E_, "Atlassian API token"),
    _r("linear-api-key", "saas", "lin_api_", B + r"lin_api_[A-Za-z0-9]{40}" + E, "Linear API key"),
    _r("notion-token", "saas", "ntn_ secret_",
       B + r"(?:ntn_\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})" + E, "Notion integration token"),
    _r("airtable-token", "saas", "pat",
       B + r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + E, "Airtable personal access token", gate=r"pat[a-z0-9]{14}\."),
    _r("postman-api-key", "saas", "pmak-", B + r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}" + E, "Postman API key"),
    _r("readme-api-key", "saas", "rdme_", B + r"rdme_[a-z0-9]{70}" + E, "ReadMe API key"),
    _r("typeform-token", "saas", "tfp_", B + r"tfp_[A-Za-z0-9_=.-]{59}" + E_, "Typeform token"),
    _r("frameio-token", "saas", "fio-u-", B + r"fio-u-[A-Za-z0-9_=-]{64}" + E_, "Frame.io API token"),
    _r("authress-key", "saas", ".acc_ .acc-",
       B + r"(?:sc|ext|scauth|authress)_[a-z0-9]{5,30}\.[a-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}"
       r"\.[a-z0-9+/_=-]{30,120}", "Authress service client key"),
    _r("intra-secret", "saas", "s-s4t2", B + r"s-s4t2(?:ud|af)-[a-f0-9]{64}" + E, "42 Intra client secret"),
    _r("mapbox-token", "saas", "pk. sk.",
       B + r"[ps]k\.[a-z0-9]{60}\.[a-z0-9]{22}" + E, "Mapbox token", I, gate=r"[ps]k\.[a-z0-9]{60}"),
    _r("adobe-client-secret", "saas", "p8e-", B + r"p8e-[a-z0-9]{32}" + E, "Adobe client secret", I),
    _r("facebook-token", "saas", "eaa",
       B + r"EAA[A-Za-z0-9]{20,}(?:ZD|ZC|ZB|ZA|ZZ)?[A-Za-z0-9]{0,200}(?<=[A-Za-z0-9]{40})" + E,
       "Facebook / Meta access token", gate=r"eaa[a-z0-9]{20}"),
    _r("facebook-app-token", "saas", "|",
       B + r"\d{15,16}\|[A-Za-z0-9_-]{27}" + E_, "Facebook app access token (app id|secret)", gate=r"\d{15}\|"),
    _r("twitter-bearer-token", "saas", "aaaaaaaaaaaaaaaaaaaaa",
       r"A{22}[A-Za-z0-9%]{80,}", "Twitter / X bearer token"),
    _r("twitter-access-token", "saas", "-",
       B + r"\d{15,25}-[A-Za-z0-9]{20,40}" + E, "Twitter / X access token", gate=r"\d{15}-[a-z0-9]{20}"),
    _r("sidekiq-secret", "registries", "contribsys",
       r"(?i)BUNDLE_(?:ENTERPRISE|GEMS)__CONTRIBSYS__COM[\"']?\s*[:=]\s*[\"']?(?P<s>[a-f0-9]{8}:[a-f0-9]{8})",
       "Sidekiq Enterprise / Pro credentials"),
    # --- keys and tokens of any provider ---------------------------------------------------
    _r("private-key-block", "private keys", ("private key",),
       r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----(?!-)",
       "PEM / OpenSSH / PGP private key block"),
    _r("jwt", "jwt", "ey",
       r"(?<![A-Za-z0-9_-])ey[A-Za-z0-9_-]{10,}\.ey[A-Za-z0-9_-]{10,}(?:\.[A-Za-z0-9_-]*)?",
       "JSON Web Token", gate=r"ey[\w-]{10,}\.ey"),
)
