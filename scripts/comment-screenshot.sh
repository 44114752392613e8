#!/usr/bin/env bash
# The README's picture of the pull-request comment (docs/img/comment.png): irgate's own output,
# drawn as GitHub would draw it, offline.
#   1. irgate run --from the profiled fixture (gate/tests/fixtures/profiled: real gungraun output
#      of codec's filter benchmark before and with `inject-slowdown`), refresh, run --from again;
#   2. irgate check --format json, then `irgate comment --report --no-post`, which writes the
#      comment's body into $GITHUB_STEP_SUMMARY (the same builder as the posted comment);
#   3. that markdown to HTML with cmark-gfm (GitHub's markdown library; tables, raw HTML for
#      <details>), in a page styled like a GitHub comment, with the explanation section opened;
#   4. a headless Chromium screenshot of it.
# The environment section shows the machine this runs on (the summaries carry no environment).
# Not a screenshot of github.com: GitHub is not reachable from this project's machines.
# Needs cmark-gfm, chromium (Debian packages) and jq. Usage: scripts/comment-screenshot.sh [OUT.png]
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out=$(realpath -m "${1:-$irgate_repo/docs/img/comment.png}")
irgate=$(irgate_executable --features github)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

printf '[budgets]\nIr = { relative_pct = 1.0, absolute = 5 }\n' >gate.toml
for set in base slowdown; do
  cp -r "$irgate_repo/gate/tests/fixtures/profiled/$set" "$set"
  # The fixture's callgrind files name the checkout they were taken in; the test does the same.
  grep -rl /work/wt/explain "$set" | xargs sed -i "s#/work/wt/explain#$work#g"
  # Taken long ago: no binary at the measured path is read for inlined frames.
  find "$set" -type f -exec touch -d @1 {} +
done
"$irgate" run --from base --results base.json >/dev/null 2>&1
"$irgate" refresh --results base.json >/dev/null 2>&1
"$irgate" run --from slowdown --results slow.json >/dev/null 2>&1
"$irgate" check --results slow.json --format json >report.json || [ $? -eq 1 ]
GITHUB_STEP_SUMMARY=$work/comment.md "$irgate" comment --report report.json --no-post >/dev/null 2>&1 ||
  [ $? -eq 1 ]

{
  cat <<'HTML'
<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 16px; background: #fff; color: #1f2328;
  font: 14px/1.5 -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif, "Noto Color Emoji"; }
.comment { border: 1px solid #d1d9e0; border-radius: 6px; max-width: 1100px; }
.head { background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; color: #59636e; }
.head b { color: #1f2328; }
.body { padding: 0 16px 8px; }
h2 { font-size: 1.5em; border-bottom: 1px solid #d1d9e0; padding-bottom: .3em; margin: 16px 0; }
h3 { font-size: 1.25em; margin: 24px 0 16px; }
table { border-collapse: collapse; margin: 0 0 16px; display: block; overflow: auto; }
th, td { border: 1px solid #d1d9e0; padding: 6px 13px; }
th { font-weight: 600; } tr:nth-child(2n) { background: #f6f8fa; }
code { font: 85% ui-monospace, "DejaVu Sans Mono", monospace; background: #eff1f3; padding: .2em .4em; border-radius: 6px; }
details { margin: 0 0 16px; } summary { cursor: pointer; }
</style></head><body><div class="comment"><div class="head"><b>github-actions</b> bot commented</div><div class="body">
HTML
  # The explanation section opened, as a reviewer would; every other section as posted.
  cmark-gfm --unsafe -e table -e autolink -e strikethrough comment.md |
    sed 's#<details><summary>Where the#<details open><summary>Where the#'
  printf '</div></div></body></html>\n'
} >comment.html

chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
  --user-data-dir="$work/profile" --window-size=1140,880 --screenshot="$out" \
  "file://$work/comment.html" 2>/dev/null
echo "wrote $out"
