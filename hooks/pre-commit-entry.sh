#!/bin/sh
# git-memory hooks for the pre-commit framework: `.pre-commit-hooks.yaml` runs this file as
# `language: script` with the hook name first. It makes the same cheap decisions as the
# shims of `git memory install` (hooks/hook-shim.sh) before any Python starts: a message
# without a knowledge marker, or a checkout that moves no commit, ends here. Otherwise it
# runs the `git-memory` command found on PATH (install it once: pipx install git-memory-cli).
hook=$1
shift

# has_marker: does standard input hold a line `LEARNED: ...` (may be indented) or a
# trailer `Learned: ...`? Shell builtins only, so no process is started for it.
# (The function the installed shims get, patterns from model.ENTRY_TYPES; a test keeps
# the two identical: pre-commit runs this file from its clone, with no install step.)
has_marker() {
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            Learned:*|Decision:*|Fact:*|Pattern:*|Investigation:*|Deviation:*|Failure:*|Handoff:*)
                return 0 ;;
        esac
        line=${line#"${line%%[![:space:]]*}"}
        case $line in
            LEARNED:*|DECISION:*|FACT:*|PATTERN:*|INVESTIGATION:*|DEVIATION:*|FAILURE:*|HANDOFF:*)
                return 0 ;;
        esac
    done
    return 1
}
# has_revert: does standard input hold git's `This reverts commit <sha>.` line? A revert
# of a captured commit flags the entries captured from it (docs/curation.md, "Reverts").
has_revert() {
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            "This reverts commit "*) return 0 ;;
        esac
    done
    return 1
}

git_dir() {
    gitdir=${GIT_DIR:-.git}
    if [ -f "$gitdir" ]; then  # a worktree or submodule: .git names the real folder
        IFS= read -r gitdir < "$gitdir" 2>/dev/null
        gitdir=${gitdir#gitdir: }
    fi
}

case "$hook" in
    commit-msg)
        # pre-commit passes the message file (pass_filenames), as git does.
        has_marker < "$1" || exit 0 ;;
    post-commit)
        # `git commit` leaves the message in COMMIT_EDITMSG; a cherry-pick, revert, rebase
        # or merge may not, so then ask git for HEAD's.
        git_dir
        if [ -f "$gitdir/COMMIT_EDITMSG" ] && [ ! -e "$gitdir/CHERRY_PICK_HEAD" ] &&
            [ ! -e "$gitdir/REVERT_HEAD" ] && [ ! -e "$gitdir/MERGE_MSG" ] &&
            [ ! -e "$gitdir/rebase-merge" ] && [ ! -e "$gitdir/rebase-apply" ] &&
            [ ! -e "$gitdir/sequencer" ]; then
            has_marker < "$gitdir/COMMIT_EDITMSG" || has_revert < "$gitdir/COMMIT_EDITMSG" ||
                exit 0
        else
            message=$(git log -1 --format=%B HEAD 2>/dev/null)
            case $message in
                *"This reverts commit "*) ;;
                *) printf '%s\n' "$message" | has_marker || exit 0 ;;
            esac
        fi ;;
    post-checkout)
        # pre-commit hands git's arguments over as variables. A file checkout (type 0) or
        # a new branch at the same commit changes no anchors.
        [ "$PRE_COMMIT_CHECKOUT_TYPE" = 1 ] && [ "$PRE_COMMIT_FROM_REF" != "$PRE_COMMIT_TO_REF" ] ||
            exit 0 ;;
    post-merge)
        # pre-commit hands git's squash flag over as a variable. A squash merge made no
        # commit; otherwise capture in the foreground when HEAD is a merge commit with a
        # marker or memory.captureOnPull is on (the same test as the shims').
        set -- "${PRE_COMMIT_IS_SQUASH_MERGE:-0}"
        capture=
        if [ "$1" != 1 ]; then
            if git log -1 --no-walk --min-parents=2 --format=%B HEAD 2>/dev/null | has_marker ||
                [ "$(git config --type=bool memory.captureOnPull 2>/dev/null)" = true ]; then
                capture=1
            fi
        fi ;;
    pre-push) ;;
    *)
        echo "git-memory: unknown hook '$hook'; nothing done" >&2
        exit 0 ;;
esac

command=$(command -v git-memory) || {
    echo "git-memory: the git-memory command is not on PATH, so the $hook hook was skipped." >&2
    echo "git-memory: install it once (pipx install git-memory-cli, or pip install --user git-memory-cli)." >&2
    exit 0
}
# The script's own interpreter runs the hook module directly, as the shims do: it skips the
# command-line parser and its imports. Anything else on PATH (a wrapper) runs as a command.
python=
IFS= read -r shebang < "$command" 2>/dev/null && python=${shebang#\#!}
case "$python" in
    /*python*) [ -x "$python" ] || python= ;;
    *) python= ;;
esac
if [ -n "$python" ]; then
    set -- "$python" -m git_memory.commands.hook "$hook" "$@"
else
    set -- "$command" hook "$hook" "$@"
fi

case "$hook" in
    post-checkout|post-merge)
        if [ "$hook" = post-merge ]; then
            if [ -n "$capture" ]; then
                "$@" capture </dev/null ||
                    echo "git-memory: post-merge capture failed (exit $?); git continues" >&2
            fi
            set -- "$@" anchors
        fi
        # Index catch-up and anchor checks run detached: the checkout returns at once.
        if [ -z "$GIT_MEMORY_HOOK_SYNC" ]; then
            if command -v nice >/dev/null 2>&1; then set -- nice -n 10 "$@"; fi
            ( "$@" </dev/null >/dev/null 2>&1 & )
            exit 0
        fi ;;
esac
# pre-push: pre-commit has read git's ref list; the hook takes it from PRE_COMMIT_* instead.
"$@" </dev/null
rc=$?
# 1 is our refusal (commit-msg, pre-push); anything else is our own failure, which must
# never stop git: say one line and step aside.
if [ $rc -gt 1 ]; then
    echo "git-memory: $hook hook failed (exit $rc); git continues" >&2
    exit 0
fi
exit $rc
