#!/usr/bin/env bash
# Installs what Cobble needs on Debian, or says what is missing.
#
#   scripts/deps.sh postgresql [boinc-client] [chromium]
#
# Each argument names a need:
#   postgresql    the PostgreSQL server binaries (initdb, pg_ctl, postgres),
#                 found the way internal/pgcluster finds them
#   boinc-client  the BOINC client, /usr/bin/boinc and /usr/bin/boinccmd
#   chromium      the Chromium browser, /usr/bin/chromium
#
# Says nothing when every need is met. Otherwise, as root with apt-get, it
# installs the Debian packages of the same names; without them it says what
# to install and exits 1. Installing boinc-client may start Debian's
# boinc-client service: this script stops and disables it again, since Cobble
# runs BOINC clients of its own.
set -euo pipefail

readonly known="postgresql boinc-client chromium"

say() {
	echo "deps.sh: $*" >&2
}

# has_server DIR: DIR holds the PostgreSQL server binaries.
has_server() {
	[[ -x $1/initdb && -x $1/pg_ctl && -x $1/postgres ]]
}

have_postgresql() {
	local dir initdb
	if dir=$(pg_config --bindir 2>/dev/null) && has_server "$dir"; then
		return 0
	fi
	for dir in /usr/lib/postgresql/*/bin; do
		if has_server "$dir"; then
			return 0
		fi
	done
	if initdb=$(command -v initdb 2>/dev/null); then
		if has_server "$(dirname "$(readlink -f "$initdb")")" || has_server "$(dirname "$initdb")"; then
			return 0
		fi
	fi
	return 1
}

# have NEED: the need is met.
have() {
	case $1 in
	postgresql) have_postgresql ;;
	boinc-client) [[ -x /usr/bin/boinc && -x /usr/bin/boinccmd ]] ;;
	chromium) [[ -x /usr/bin/chromium ]] ;;
	*) return 1 ;;
	esac
}

# boinc_pids: the PIDs of the running BOINC clients, one a line.
boinc_pids() {
	local comm pid
	for comm in /proc/[0-9]*/comm; do
		pid=${comm#/proc/}
		pid=${pid%/comm}
		if [[ $(cat "$comm" 2>/dev/null) == boinc ]]; then
			echo "$pid"
		fi
	done
}

# stop_boinc_service BEFORE: stops the BOINC client that installing
# boinc-client started, if any. BEFORE lists the clients that ran before
# the install, which are left alone.
stop_boinc_service() {
	local before=$1 pid new=() stopped=false
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
		if systemctl is-active --quiet boinc-client.service; then
			systemctl stop boinc-client.service
			stopped=true
		fi
		if systemctl is-enabled --quiet boinc-client.service 2>/dev/null; then
			systemctl disable --quiet boinc-client.service
			say "disabled the boinc-client service that the package enabled;" \
				"Cobble runs BOINC clients of its own (\`systemctl enable --now boinc-client\` undoes this)"
		fi
	fi

	# Without systemd the package's init script may have started it. The
	# service runs as the boinc user; clients started meanwhile by anyone
	# else are not the install's doing.
	for pid in $(boinc_pids); do
		if ! grep -qx "$pid" <<<"$before" && [[ $(stat -c %U "/proc/$pid" 2>/dev/null) == boinc ]]; then
			new+=("$pid")
		fi
	done
	if ((${#new[@]} > 0)) && [[ -x /etc/init.d/boinc-client ]]; then
		/etc/init.d/boinc-client stop >/dev/null 2>&1 || true
	fi
	for pid in "${new[@]}"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for _ in $(seq 50); do
		local alive=false
		for pid in "${new[@]}"; do
			if kill -0 "$pid" 2>/dev/null; then
				alive=true
			fi
		done
		if [[ $alive == false ]]; then
			break
		fi
		sleep 0.2
	done
	for pid in "${new[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	if [[ $stopped == true ]] || ((${#new[@]} > 0)); then
		say "stopped the BOINC client that installing boinc-client started"
	fi
}

main() {
	if (($# == 0)); then
		echo "usage: $0 NEED... (needs: $known)" >&2
		exit 2
	fi

	local need missing=()
	for need in "$@"; do
		case " $known " in
		*" $need "*) ;;
		*)
			say "unknown need: $need (known: $known)"
			exit 2
			;;
		esac
		if ! have "$need" && [[ " ${missing[*]} " != *" $need "* ]]; then
			missing+=("$need")
		fi
	done
	if ((${#missing[@]} == 0)); then
		return 0
	fi

	if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
		say "Cobble needs ${missing[*]}, which this machine lacks."
		if command -v apt-get >/dev/null; then
			say "Install as root with: apt-get install ${missing[*]}"
			say "(or run this script as root: sudo $0 $*)"
		else
			say "Install the packages of those names with this system's package manager."
		fi
		exit 1
	fi

	local boinc_before=""
	if [[ " ${missing[*]} " == *" boinc-client "* ]]; then
		boinc_before=$(boinc_pids)
	fi

	say "installing ${missing[*]}"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"

	if [[ " ${missing[*]} " == *" boinc-client "* ]]; then
		stop_boinc_service "$boinc_before"
	fi

	local still=()
	for need in "${missing[@]}"; do
		if ! have "$need"; then
			still+=("$need")
		fi
	done
	if ((${#still[@]} > 0)); then
		say "installed, yet still missing: ${still[*]}"
		exit 1
	fi
}

main "$@"
