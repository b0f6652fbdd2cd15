#!/usr/bin/env bash
# Names this machine for its measurement file, data/measurements/<date>-<slug>.json: the CPU
# vendor, family and model from /proc/cpuinfo (e.g. amd-epyc-f25m1, intel-xeon-f6m207).
set -euo pipefail
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo | head -1; }
vendor=$(field vendor_id); family=$(field 'cpu family'); model=$(field model)
name=$(field 'model name' | tr 'A-Z' 'a-z')
case "$vendor" in
  AuthenticAMD) v=amd ;; GenuineIntel) v=intel ;; *) v=$(tr -cd 'a-z0-9' <<<"${vendor,,}") ;;
esac
line=other
for w in epyc ryzen xeon core; do case "$name" in *"$w"*) line=$w; break ;; esac; done
printf '%s-%s-f%sm%s\n' "${v:-cpu}" "$line" "${family:-0}" "${model:-0}"
