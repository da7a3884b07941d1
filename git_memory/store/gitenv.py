"""The environment for a `git` process of ours: ours, less what points git elsewhere.

A module of its own, importing nothing, so that both the runner (`gitrun`) and the
hot-path modules (`locate`) can use it without an import cycle.
"""

from __future__ import annotations

import os

# What git exports to a hook to say where the repository is. A `git` we start must not
# inherit them (they would point it at the hook's repository, index or quarantine);
# identity and config variables (GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME...) stay.
# GIT_CONFIG goes too: only `git config` reads it, as the one file to use instead of
# the user's, and what our `git config` calls must see is what every other git sees.
LOCATION_VARS = frozenset((
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR",
    "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_QUARANTINE_PATH",
    "GIT_NAMESPACE", "GIT_CONFIG",
))


def git_env(**extra: str) -> dict[str, str]:
    """The environment for a `git` process of ours: ours, less the location variables."""
    env = {k: v for k, v in os.environ.items() if k not in LOCATION_VARS}
    env.update(extra)
    return env
