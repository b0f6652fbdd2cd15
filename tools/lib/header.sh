# The lines every measurement tool prints above its data, so that a data file names its date,
# command, machine and load. A tool's script sources it by a path relative to itself,
#   . "$(dirname "$0")/../lib/header.sh"
# so it still runs from a fresh clone; sourcing sets $here to the script's folder. Then:
#   build_tool NAME   cc NAME.c beside the script into ${OUT:-/tmp/<tool>}/NAME; sets $bin;
#   header ARGS...    the date, the command line, the CPU, the vCPU count, kernel and cc;
#   header_load WHEN  the load average (WHEN: before, after).
# Prints only; changes no setting.
here=$(cd "$(dirname "$0")" && pwd)
build_tool() {
	bin=${OUT:-/tmp/$(basename "$here")}
	mkdir -p "$bin"
	cc -O2 -Wall -Wextra -pthread -o "$bin/$1" "$here/$1.c"
}
header() {
	echo "# date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "# command: bash tools/$(basename "$here")/$(basename "$0")${*:+ $*}"
	echo "# cpu: $(grep -m3 'model name\|cpu family\|^model' /proc/cpuinfo | sed 's/\t*: /=/' | paste -sd' ')"
	echo "# cpus: $(nproc); kernel: $(uname -r); cc: $(cc --version 2>/dev/null | head -1)"
}
header_load() {
	echo "# load $1: $(uptime)"
}
