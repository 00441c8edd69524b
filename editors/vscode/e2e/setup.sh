#!/usr/bin/env bash
# Installs what the VS Code end-to-end test drives, following shared RECIPES (measured on Debian 12,
# Node 20): Debian's Chromium and build tools, code-server 4.100.3 (VS Code 1.100.3) with its native
# modules rebuilt, and playwright-core. Idempotent: a stamp file marks a finished install.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
stamp="$here/node_modules/.errknow-installed"
if [[ -f "$stamp" && "$stamp" -nt "$here/package-lock.json" && "$stamp" -nt "$0" ]]; then
    exit 0
fi

# fonts-wqy-microhei: a font for Chinese, so that the screenshots of the zh step show its text.
debian=(build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev ripgrep chromium fonts-wqy-microhei)
missing=()
for package in "${debian[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'ok installed' || missing+=("$package")
done
if ((${#missing[@]})); then
    if [[ $(id -u) -ne 0 ]]; then
        echo "setup.sh: needs root to apt-get install ${missing[*]}" >&2
        exit 3
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cd "$here"
# Newer code-server releases need Node 24; their install scripts download things: skip and rebuild.
npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
npm rebuild argon2 --loglevel=error

vscode="$here/node_modules/code-server/lib/vscode"
(
    cd "$vscode"
    npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
    npm rebuild kerberos @parcel/watcher @vscode/spdlog native-watchdog node-pty @vscode/deviceid \
        --loglevel=error || true
    mkdir -p node_modules/@vscode/ripgrep/bin
    cp "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
    ln -sfn node_modules node_modules.asar
    (cd bin/remote-cli && ln -sfn code-linux.sh code-server)
    (cd bin/helpers && ln -sfn browser-linux.sh browser.sh)
    (cd extensions && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
        && node ./postinstall.mjs)
)
touch "$stamp"
