#!/usr/bin/env bash
# Install the Debian packages a target needs, if any are missing, without
# their recommends (--no-install-recommends). Quiet when all is present.
#   tools/ensure-deps.sh run          build a kernel and boot it in QEMU (make run)
#   tools/ensure-deps.sh test         everything make test uses (run's, plus the readers and tools the tests check with)
#   tools/ensure-deps.sh experiment   tools/experiment (plans, plots)
#   tools/ensure-deps.sh PKG...       those packages (make bench, make flash ... name their own)
# Arguments mix freely: `tools/ensure-deps.sh run valgrind`.
set -u
# run: the cross compiler and its C library, QEMU, dtc; python3 runs tools/qemu-run.
run=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm device-tree-compiler python3)
# experiment: parallel and rsync run plans here and on other hosts; python3-matplotlib draws the plots.
experiment=(parallel rsync python3-matplotlib)
# test: libfdt-dev is the FDT fuzzer's reference reader; trace-cmd reads tools/trace2dat's files back;
# libjson-c5 runs rt-app's own binary (make outside unpacks it: the parser the tests compare with);
# tests/qemu/test_experiment.py runs tools/experiment.
test=("${run[@]}" libfdt-dev trace-cmd libjson-c5 "${experiment[@]}")

need=()
[ $# -eq 0 ] && set -- run
for a in "$@"; do
	case "$a" in
	run) need+=("${run[@]}") ;;
	test) need+=("${test[@]}") ;;
	experiment) need+=("${experiment[@]}") ;;
	-*) echo "ensure-deps: unknown option $a (usage: tools/ensure-deps.sh run|test|experiment|PACKAGE...)" >&2; exit 2 ;;
	*) need+=("$a") ;;
	esac
done
missing=()
for p in "${need[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-deps: installing missing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
	SUDO=sudo
	command -v sudo >/dev/null || { echo "ensure-deps: not root and no sudo: install ${missing[*]} by hand" >&2; exit 1; }
else
	SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
install() { $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"; }
if ! install; then
	echo "ensure-deps: apt-get install failed; updating package lists and retrying" >&2
	$SUDO apt-get update -q	# a mirror mid-sync may fail one index: apt keeps what it had
	install || {
		echo "ensure-deps: could not install ${missing[*]}; install them by hand (Debian/Ubuntu)" >&2
		exit 1
	}
fi
