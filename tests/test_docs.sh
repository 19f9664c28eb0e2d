#!/bin/sh
# Every dfemu command the manual quotes still parses: each command line
# in a code block of README.md and docs/*.md that starts with dfemu (or
# build/emu/dfemu) is run with --check, which builds and checks the
# whole plan without forwarding, and must exit 0. A page cannot quote a
# flag, key or value the program no longer has. A --set whose value is
# a placeholder (traffic.load=LOAD) is left out of its command; synopsis
# lines (FILE, ARGS..., [--set ...]) and commands on a config the page
# writes first (a path outside the repository) are left out, and
# counted; a pipe or a redirection ends a command.
# Usage: tests/test_docs.sh PATH/TO/dfemu (from the repo root).
set -u
DFEMU=${1:?usage: $0 PATH/TO/dfemu}
cd "$(dirname "$0")/.." || exit 1
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/tap.sh

# the commands, one a line: FILE<TAB>ARGS (shell words, as quoted)
python3 - README.md docs/*.md >"$TMP/cmds" 2>"$TMP/left" <<'PY'
import os, re, shlex, sys
left = 0
for path in sys.argv[1:]:
    lines, block = [], False
    for line in open(path):
        if line.startswith("```"):
            block = not block
            continue
        if block:
            lines.append(line.rstrip("\n"))
    cmds, cur = [], ""
    for line in lines:
        cur += line[:-1] + " " if line.endswith("\\") else line
        if not line.endswith("\\"):
            cmds.append(cur)
            cur = ""
    for c in cmds:
        c = re.sub(r"^\$ ", "", c.strip())
        c = re.sub(r"\s+#.*$", "", c).rstrip(" &")
        if not re.match(r"^(\./)?(build/emu/)?dfemu ", c):
            continue
        try:
            words = shlex.split(c)[1:]
        except ValueError:
            left += 1
            continue
        for end in ("--eal", "|", ">", "2>&1"):
            if end in words:
                words = words[:words.index(end)]
        if not words or not words[0].startswith("-"):
            continue  # the program's output quoted: "dfemu report: ..."
        # --set KEY=PLACEHOLDER: the rest of the command is checked
        keep = []
        for w in words:
            if re.search(r"=[A-Z][A-Z0-9_]*$", w) and keep[-1:] == ["--set"]:
                keep.pop()
            else:
                keep.append(w)
        words = keep
        cfg = words[words.index("--config") + 1] \
            if "--config" in words[:-1] else None
        if any(re.fullmatch(r"[A-Z][A-Z0-9_.-]*(\.\.\.)?", w) or
               re.search(r"=[A-Z][A-Z0-9_]*$", w) or "[" in w or
               w.startswith("<") or w == "..." for w in words) or \
                "--" in words or (cfg and not os.path.exists(cfg)) or \
                not words:
            left += 1
            continue
        print("%s\t%s" % (path, shlex.join(words)))
print(left, file=sys.stderr)
PY
tap_plan "$(wc -l <"$TMP/cmds")"
echo "# $(cat "$TMP/left") synopsis lines or commands on a config the page writes first, left out"
while IFS="	" read -r page args; do
	# shellcheck disable=SC2086
	eval "set -- $args"
	"$DFEMU" "$@" --check >"$TMP/out" 2>&1
	rc=$?
	[ $rc -eq 0 ] || sed 's/^/#   /' "$TMP/out" | tail -3
	ok $rc "$page: dfemu $args --check (exit $rc)"
done <"$TMP/cmds"
tap_done
