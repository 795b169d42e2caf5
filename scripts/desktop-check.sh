#!/usr/bin/env bash
# desktop-check.sh DEB_DIR [OUT]: installs the Debian packages in DEB_DIR (cpack -G DEB's output) on THIS machine
# with apt, as a user would, and checks the desktop side of it on a virtual X display (Xvfb):
#   - the desktop entry validates (desktop-file-validate) and is the default for the workload MIME type;
#   - a *.workload.json file is typed application/x-preemptlab-workload (xdg-mime, shared-mime-info);
#   - a file manager's open (`gio open FILE`, GIO's own launcher) starts the lab on that file;
#   - the menu's start (`gtk-launch preemptlab`, the desktop entry's Exec line) starts the lab;
# each with a screenshot of the X display in OUT (default /tmp/preemptlab-desktop). Removes the package after
# (apt-get remove) unless KEEP=1. Needs root and apt (Xvfb, xdg-utils, desktop-file-utils, x11-apps, netpbm are
# installed if missing). Not a CI stage: it installs onto the machine. docs/reliability.md records its runs.
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: scripts/desktop-check.sh DEB_DIR [OUT]" >&2; exit 2; }
DEBS=$(cd "$1" && pwd)
OUT=${2:-/tmp/preemptlab-desktop}
mkdir -p "$OUT"
fail() { echo "desktop-check: FAILED: $*" >&2; exit 1; }
step() { echo "desktop-check: $*"; }
deb=$(ls "$DEBS"/preemptlab_*.deb 2>/dev/null | head -1 || true)
[ -n "$deb" ] || fail "no preemptlab_*.deb in $DEBS"
export DEBIAN_FRONTEND=noninteractive
for tool in Xvfb:xvfb xdg-mime:xdg-utils desktop-file-validate:desktop-file-utils xwd:x11-apps xwdtopnm:netpbm; do
    command -v "${tool%%:*}" >/dev/null || apt-get install -y "${tool#*:}" >/dev/null || fail "apt-get install ${tool#*:}"
done
step "apt-get install $deb"
start=$(date +%s)
apt-get install -y "$deb" >"$OUT/apt.log" 2>&1 || { tail -20 "$OUT/apt.log"; fail "apt-get install $deb"; }
step "installed in $(( $(date +%s) - start )) s (dependencies resolved by apt)"
trap '[ "${KEEP:-0}" = 1 ] || apt-get remove -y preemptlab >/dev/null 2>&1 || true' EXIT

desktop=/usr/share/applications/preemptlab.desktop
desktop-file-validate "$desktop" || fail "$desktop does not validate"
sample=$OUT/my-traffic.workload.json
cp /usr/share/preemptlab/samples/swap-wins.workload.json "$sample"
type=$(xdg-mime query filetype "$sample")
[ "$type" = "application/x-preemptlab-workload" ] || fail "xdg-mime types $sample as '$type'"
default=$(xdg-mime query default application/x-preemptlab-workload)
[ "$default" = "preemptlab.desktop" ] || fail "the default application for workloads is '$default'"
step "$sample: $type, opened by $default"

display=:$(( 40 + RANDOM % 50 ))
Xvfb "$display" -screen 0 1600x1000x24 -noreset >"$OUT/xvfb.log" 2>&1 &
xvfb=$!
trap 'kill $xvfb 2>/dev/null || true; pkill -x preemptlab 2>/dev/null || true; [ "${KEEP:-0}" = 1 ] || apt-get remove -y preemptlab >/dev/null 2>&1 || true' EXIT
export DISPLAY=$display XDG_RUNTIME_DIR=$OUT/xdg-runtime
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
sleep 2
# shot(NAME [PATTERN]): the lab (PATTERN) must still run; the X display's whole screen to OUT/NAME.png
shot() {
    pgrep -a -x preemptlab | grep -q -- "$2" || fail "the lab ('$2') exited before its screenshot"
    xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng >"$OUT/$1.png" || fail "screenshot $1"
    [ "$(stat -c %s "$OUT/$1.png")" -gt 10000 ] || fail "screenshot $1 is blank"
}
# started(PATTERN): waits up to 20 s for a preemptlab process whose command line matches PATTERN
started() {
    for _ in $(seq 40); do
        pgrep -a -x preemptlab | grep -q -- "$1" && return 0
        sleep 0.5
    done
    return 1
}
step "gio open $sample (as a file manager opens it)"
gio open "$sample" || fail "gio open $sample"
started "preemptlab $sample" || fail "gio open did not start 'preemptlab $sample'"
sleep 8
shot file-manager-open "preemptlab $sample"
pkill -x preemptlab
for _ in $(seq 20); do pgrep -x preemptlab >/dev/null || break; sleep 0.5; done
step "gtk-launch preemptlab (as the desktop menu starts it)"
gtk-launch preemptlab || fail "gtk-launch preemptlab"
started "preemptlab" || fail "gtk-launch did not start the lab"
sleep 8
shot menu-start "preemptlab"
pkill -x preemptlab
step "screenshots: $OUT/file-manager-open.png, $OUT/menu-start.png"
step "passed"
