#!/usr/bin/env bash
# Real inputs written by others, taken from Debian's packages at test time
# (never copied into the tree), unpacked under build/outside/:
#   linux-dtbs   Linux's own DTBs of the boards, from linux-image-<ver>-armmp
#                (armhf; the version through the linux-image-armmp
#                meta-package): build/outside/linux-dtbs/vexpress-v2p-{ca9,
#                ca15-tc1,ca15_a7}.dtb, and VERSION (the package it came from)
#   rt-app       rt-app's package: build/outside/rt-app/examples/ (its
#                doc/examples, uncompressed, tutorial/ and the rest flattened
#                as <dir>_<file>.json) and build/outside/rt-app/rt-app (the real
#                binary, a parser to compare with)
#   all          both (the default)
# Quiet when they are already there; says what it downloads otherwise. Exit
# status 1 with one line naming what failed; 2 for a bad argument.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=$ROOT/build/outside
SUDO=
[ "$(id -u)" -ne 0 ] && SUDO=sudo
export DEBIAN_FRONTEND=noninteractive

die() { echo "outside-inputs: $*" >&2; exit 1; }

# apt-get download PKG into $1 (a fresh directory); the list is refreshed once if apt does not know it.
download() {
	local dir=$1 pkg=$2
	(cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>&1) && return 0
	echo "outside-inputs: refreshing the package lists for $pkg"
	$SUDO apt-get update -q >/dev/null 2>&1	# a mirror mid-sync may fail one index: go on with what came
	(cd "$dir" && apt-get download -q "$pkg" >/dev/null 2>&1) || die "could not download the Debian package $pkg"
}

linux_dtbs() {
	local dst=$OUT/linux-dtbs names="vexpress-v2p-ca9 vexpress-v2p-ca15-tc1 vexpress-v2p-ca15_a7" tmp ver n
	[ -f "$dst/VERSION" ] && return 0
	if ! dpkg --print-foreign-architectures | grep -qx armhf; then
		echo "outside-inputs: adding dpkg's armhf architecture (Linux's DTBs come from the armhf kernel package)"
		$SUDO dpkg --add-architecture armhf || die "dpkg --add-architecture armhf failed"
		$SUDO apt-get update -q >/dev/null 2>&1
	fi
	ver=$(apt-cache depends linux-image-armmp:armhf 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-armmp\).*/\1/p' | head -1)
	if [ -z "$ver" ]; then
		$SUDO apt-get update -q >/dev/null 2>&1
		ver=$(apt-cache depends linux-image-armmp:armhf 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-armmp\).*/\1/p' | head -1)
	fi
	[ -n "$ver" ] || die "linux-image-armmp:armhf names no kernel package (apt-cache depends)"
	echo "outside-inputs: downloading $ver:armhf for Linux's vexpress DTBs"
	tmp=$(mktemp -d) || die "mktemp failed"
	download "$tmp" "$ver:armhf"
	dpkg -x "$tmp"/*.deb "$tmp/x" || die "dpkg -x of $ver failed"
	mkdir -p "$dst"
	for n in $names; do
		f=$(find "$tmp/x" -name "$n.dtb" | head -1)
		[ -n "$f" ] || die "$ver has no $n.dtb"
		cp "$f" "$dst/$n.dtb"
	done
	echo "$ver" >"$dst/VERSION"
	rm -rf "$tmp"
}

rt_app() {
	local dst=$OUT/rt-app tmp ex f rel
	[ -x "$dst/rt-app" ] && [ -d "$dst/examples" ] && return 0
	echo "outside-inputs: downloading rt-app (its examples and its JSON parser)"
	tmp=$(mktemp -d) || die "mktemp failed"
	download "$tmp" rt-app
	dpkg -x "$tmp"/*.deb "$tmp/x" || die "dpkg -x of rt-app failed"
	ex=$tmp/x/usr/share/doc/rt-app/examples
	[ -d "$ex" ] || die "the rt-app package has no usr/share/doc/rt-app/examples"
	[ -x "$tmp/x/usr/bin/rt-app" ] || die "the rt-app package has no usr/bin/rt-app"
	rm -rf "$dst"
	mkdir -p "$dst/examples"
	# Debian compresses docs: .json.gz becomes .json; a file in a subfolder is <folder>_<file>.
	while IFS= read -r f; do
		rel=${f#"$ex"/}
		rel=${rel//\//_}
		case "$f" in
		*.json.gz) gzip -dc "$f" >"$dst/examples/${rel%.gz}" ;;
		*.json) cp "$f" "$dst/examples/$rel" ;;
		esac
	done < <(find "$ex" -type f \( -name '*.json' -o -name '*.json.gz' \) | sort)
	cp "$tmp/x/usr/bin/rt-app" "$dst/rt-app"
	rm -rf "$tmp"
	ls "$dst/examples"/*.json >/dev/null 2>&1 || die "no JSON examples in the rt-app package"
}

[ $# -eq 0 ] && set -- all
for a in "$@"; do
	case "$a" in
	linux-dtbs) linux_dtbs ;;
	rt-app) rt_app ;;
	all) linux_dtbs; rt_app ;;
	*) echo "usage: tools/outside-inputs.sh [linux-dtbs|rt-app|all]" >&2; exit 2 ;;
	esac
done
