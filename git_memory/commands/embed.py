"""`git memory embed` (hidden): give every entry a vector by meaning now, with progress;
`--background` is the detached worker that `add`, the hooks, `import` and a pull start
(`agents.embedding`). Both resume where a killed run stopped (docs/recall.md)."""

from __future__ import annotations

import click

from git_memory import ui
from git_memory.embed import worker
from git_memory.store.locate import discover


@click.command("embed", hidden=True)
@click.option("--background", is_flag=True,
              help="Embed quietly unless another worker runs (started by writes).")
def embed_cmd(*, background: bool = False) -> int:
    """Compute the missing vectors of the configured embedding model (recall by meaning)."""
    dirs = discover()
    if background:
        worker.run_in_background(dirs)
        return 0
    done = worker.embed_now(dirs, progress=ui.progress("embedding"))
    ui.out(f"embedded {ui.plural(done.embedded, 'entry')} with {done.model};"
           f" {done.have:,} of {done.total:,} entries have vectors")
    return 0
