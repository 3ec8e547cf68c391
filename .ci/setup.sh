#!/usr/bin/env bash
# Installs what the tests of view and export use besides Go, and only what
# is missing, quietly, so it can run before every CI run:
#   gcc                C compiler: cgo, for golden/corpus/cgo and the otf2 export
#   chromium           headless browser: view's tests load the page and read back what it drew
#   otf2-tools         otf2-print: export's otf2 tests read the archive back with it
#   libotf2-trace-dev  the OTF2 library and headers for `go build -tags otf2`
#   openmpi-bin, libopenmpi-dev  mpirun, mpicc and the MPI library: the MPI
#                      binding's tests (build tag mpi) and its C ping-pong
#   npm @paulirish/trace_engine  DevTools' trace model: reads the Chrome export
#                      (into the user cache dir, or $SVMC_TRACE_ENGINE)
# Without them the tests concerned skip and say why.
set -euo pipefail

missing=()
for p in gcc chromium otf2-tools libotf2-trace-dev openmpi-bin libopenmpi-dev; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

engine="${SVMC_TRACE_ENGINE:-${XDG_CACHE_HOME:-$HOME/.cache}/svmc/trace_engine}"
if command -v npm >/dev/null && [ ! -f "$engine/node_modules/@paulirish/trace_engine/package.json" ]; then
	mkdir -p "$engine"
	(cd "$engine" && npm install --silent --no-audit --no-fund @paulirish/trace_engine@0.0.65 >/dev/null 2>&1) ||
		echo "setup.sh: npm @paulirish/trace_engine did not install; export's check with it will be skipped" >&2
fi
