#!/usr/bin/env bash
# Install the Debian packages the build and tests need, if any are missing.
# Called by `make run`, `make test` and .ci/run; quiet when all is present.
set -u
# libfdt-dev: the FDT fuzzer's reference reader; trace-cmd: reads tools/trace2dat's files back;
# parallel and rsync: tools/experiment's plans, here and on other hosts (tests/qemu/test_experiment.py);
# python3-matplotlib: its plots.
need=(gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm device-tree-compiler python3 libfdt-dev trace-cmd
	parallel rsync python3-matplotlib)
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
if ! $SUDO apt-get install -y -q "${missing[@]}"; then
	echo "ensure-deps: apt-get install failed; updating package lists and retrying" >&2
	$SUDO apt-get update -q && $SUDO apt-get install -y -q "${missing[@]}" || {
		echo "ensure-deps: could not install ${missing[*]}; install them by hand (Debian/Ubuntu)" >&2
		exit 1
	}
fi
