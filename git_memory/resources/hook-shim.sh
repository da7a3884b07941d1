#!/bin/sh
# git-memory hook shim: managed by `git memory install`; `git memory uninstall` removes it.
# git-memory-shim-version: @VERSION@
# A hook that was here before is kept next to this file as @HOOK@.git-memory-chained
# and still runs first, with the same arguments, standard input and exit status.
GIT_MEMORY_HOOK=@HOOK@
export GIT_MEMORY_HOOK
GIT_MEMORY_PYTHON='@PYTHON@'
GIT_MEMORY_PACKAGE='@PACKAGE@'
chained="$0.git-memory-chained"
status=0
capture=

# pre-push reads its ref list on stdin: keep it for the chained hook and for us.
refs=
feed_refs() {
    if [ -n "$refs" ]; then printf '%s\n' "$refs"; fi
}
if [ "$GIT_MEMORY_HOOK" = pre-push ]; then
    refs=$(cat)
    if [ -x "$chained" ]; then
        feed_refs | "$chained" "$@" || exit $?
    fi
elif [ -x "$chained" ]; then
    "$chained" "$@"
    status=$?
    case "$GIT_MEMORY_HOOK" in
        commit-msg) [ $status -eq 0 ] || exit $status ;;
    esac
fi

# Decide cheaply when there is nothing for us to do, before any Python starts.
# has_marker: does standard input hold a line `LEARNED: ...` (may be indented) or a
# trailer `Learned: ...`? Shell builtins only, so no process is started for it.
# The two pattern lists are written from git_memory.model's entry types at install.
has_marker() {
    while IFS= read -r line || [ -n "$line" ]; do
        case $line in
            @TRAILER_MARKERS@)
                return 0 ;;
        esac
        line=${line#"${line%%[![:space:]]*}"}
        case $line in
            @LINE_MARKERS@)
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
case "$GIT_MEMORY_HOOK" in
    commit-msg)
        has_marker < "$1" || exit $status
        # Python only when a secret is possible: a token's fixed part, or any byte
        # cleaning could change to unmask one (non-ASCII, or a control character other
        # than tab: the brackets below hold a literal tab).
        secrets='@SECRET_HINTS@'
        LC_ALL=C grep -qE "$secrets" "$1" 2>/dev/null ||
            LC_ALL=C grep -q '[^[:print:]	]' "$1" 2>/dev/null || exit $status ;;
    post-commit)
        # `git commit` leaves the message in COMMIT_EDITMSG: read it without starting git.
        # A cherry-pick, revert, rebase or merge may not, so then ask git for HEAD's.
        gitdir=${GIT_DIR:-.git}
        if [ -f "$gitdir" ]; then
            IFS= read -r gitdir < "$gitdir" 2>/dev/null
            gitdir=${gitdir#gitdir: }
        fi
        if [ -f "$gitdir/COMMIT_EDITMSG" ] && [ ! -e "$gitdir/CHERRY_PICK_HEAD" ] &&
            [ ! -e "$gitdir/REVERT_HEAD" ] && [ ! -e "$gitdir/MERGE_MSG" ] &&
            [ ! -e "$gitdir/rebase-merge" ] && [ ! -e "$gitdir/rebase-apply" ] &&
            [ ! -e "$gitdir/sequencer" ]; then
            has_marker < "$gitdir/COMMIT_EDITMSG" || has_revert < "$gitdir/COMMIT_EDITMSG" ||
                exit $status
        else
            message=$(git log -1 --format=%B HEAD 2>/dev/null)
            case $message in
                *"This reverts commit "*) ;;
                *) printf '%s\n' "$message" | has_marker || exit $status ;;
            esac
        fi ;;
    post-checkout)
        # A file checkout (flag 0) or a new branch at the same commit changes no anchors.
        [ "$3" = 1 ] && [ "$1" != "$2" ] || exit $status ;;
    post-merge)
        # $1 is 1 after a squash merge, which made no commit (the `git commit` after it
        # runs post-commit). Otherwise capture runs in the foreground, so the user sees
        # it, when HEAD is a merge commit whose message has a marker (Python then checks
        # this merge made it: a fast-forward may land on someone else's) or when a pull's
        # commits are to be captured (memory.captureOnPull).
        if [ "$1" != 1 ]; then
            if git log -1 --no-walk --min-parents=2 --format=%B HEAD 2>/dev/null | has_marker ||
                [ "$(git config --type=bool memory.captureOnPull 2>/dev/null)" = true ]; then
                capture=1
            fi
        fi ;;
esac

if [ -x "$GIT_MEMORY_PYTHON" ] && [ -f "$GIT_MEMORY_PACKAGE/__init__.py" ]; then
    set -- "$GIT_MEMORY_PYTHON" -m git_memory.commands.hook "$GIT_MEMORY_HOOK" "$@"
elif command -v git-memory >/dev/null 2>&1; then
    set -- git-memory hook "$GIT_MEMORY_HOOK" "$@"
else
    echo "git-memory: not installed, $GIT_MEMORY_HOOK hook skipped (reinstall it, or run: git memory uninstall)" >&2
    exit $status
fi

case "$GIT_MEMORY_HOOK" in
    post-checkout|post-merge)
        if [ "$GIT_MEMORY_HOOK" = post-merge ]; then
            if [ -n "$capture" ]; then
                "$@" capture </dev/null ||
                    echo "git-memory: post-merge capture failed (exit $?); git continues" >&2
            fi
            set -- "$@" anchors
        fi
        # Index catch-up and anchor checks run detached: checkout returns at once.
        if [ -z "$GIT_MEMORY_HOOK_SYNC" ]; then
            if command -v nice >/dev/null 2>&1; then set -- nice -n 10 "$@"; fi
            ( "$@" </dev/null >/dev/null 2>&1 & )
            exit $status
        fi
        "$@" </dev/null ;;
    pre-push) feed_refs | "$@" ;;
    *) "$@" </dev/null ;;
esac
rc=$?
# 1 is our refusal (commit-msg, pre-push); anything else is our own failure,
# which must never stop git: say one line and step aside.
if [ $rc -gt 1 ]; then
    echo "git-memory: $GIT_MEMORY_HOOK hook failed (exit $rc); git continues" >&2
    rc=0
fi
[ $rc -ne 0 ] && exit $rc
exit $status
