#!/usr/bin/env bash
# run-usdt.sh -- run Oracle dtrace-utils' USDT tests (pid-usdt/usdt) against jdtrace's
# dtrace(1M), exactly as provider-fasttrap's run-pid.sh runs the pid ones (same options; the
# USDT triggers are built with this dtrace's -h and -G). Needs gcc and systemtap-sdt-dev
# (<sys/sdt.h>, which several tests include).
#
# usage: run-usdt.sh [-v] [-k] [-T SECS] [-d DTRACE] [TEST...]
KIND=usdt exec "$(cd "$(dirname "$0")/../../provider-fasttrap/conformance" && pwd)/run-pid.sh" "$@"
