#!/bin/sh
# Redraws docs/screenshots from the kiosk itself: plays data/scripts/play-800x480.script
# headless on a new state directory and copies the shots the docs show.
# usage: scripts/docs-screenshots.sh [BINARY]   (make screenshots)
set -eu
binary=${1:-.build/release/boardwalk}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$binary" --headless --size 800x480 --script data/scripts/play-800x480.script --shots "$work/shots" \
    --state-dir "$work/state" --data-dir "$PWD/data" >"$work/log" 2>&1 || {
    cat "$work/log" >&2
    exit 1
}
for pair in 00-menu:menu 02-zombies-walking:beat-zombies 08-zombies-lost-panel:beat-zombies-lost 06-zombies-initials:beat-zombies-initials \
    10-guess-question:guess-picture 22-2048-colours:2048-colours; do
    cp "$work/shots/${pair%%:*}.png" "docs/screenshots/${pair#*:}.png"
    echo "docs/screenshots/${pair#*:}.png"
done
