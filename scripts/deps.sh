#!/usr/bin/env bash
# Installs what Cobble needs on Debian, or says what is missing.
#
#   scripts/deps.sh postgresql [boinc-client] [chromium] [nginx] [prometheus] [systemd] [axe-core]
#                   [pg-auto-failover] [poppler-utils]
#
# Each argument names a need:
#   postgresql    the PostgreSQL server binaries (initdb, pg_ctl, postgres),
#                 found the way internal/pgcluster finds them
#   boinc-client  the BOINC client, /usr/bin/boinc and /usr/bin/boinccmd
#   chromium      the Chromium browser, /usr/bin/chromium
#   nginx         nginx, /usr/sbin/nginx (deploy/'s TLS proxy test)
#   prometheus    promtool, /usr/bin/promtool (deploy/'s alerting rules test)
#   systemd       systemd-analyze, /usr/bin/systemd-analyze (deploy/'s unit test)
#   axe-core      the accessibility checker the Chromium tests inject into
#                 every page: npm's axe-core, at the version axe_version
#                 names, in .cache/axe-core/ of this checkout (git ignores
#                 it); npm comes from the Debian package of that name
#   pg-auto-failover  pg_autoctl, /usr/bin/pg_autoctl, with its extension for
#                 PostgreSQL 15: the Debian package postgresql-15-auto-failover
#                 (the failover test builds a formation with it)
#   poppler-utils pdftotext, /usr/bin/pdftotext, which reads a certificate's
#                 PDF back in the web tests
#
# Says nothing when every need is met. Otherwise, as root with apt-get, it
# installs the Debian packages of the same names (npm for axe-core, which it
# then installs with npm, root or not); without them it says what to
# install and exits 1. Installing boinc-client, nginx or prometheus may
# start the package's service: this script stops and disables it again,
# since Cobble's tests run programs of their own and need the ports free.
set -euo pipefail

readonly known="postgresql boinc-client chromium nginx prometheus systemd axe-core pg-auto-failover poppler-utils"

# The axe-core that the Chromium tests use (internal/browsertest.AxePath).
readonly axe_version=4.14.1
axe_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.cache/axe-core
readonly axe_dir

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

# have_axe: axe-core of axe_version is installed in axe_dir.
have_axe() {
	local pkg=$axe_dir/node_modules/axe-core
	[[ -f $pkg/axe.min.js ]] && grep -q "\"version\": \"$axe_version\"" "$pkg/package.json" 2>/dev/null
}

# install_axe: installs axe-core of axe_version into axe_dir with npm.
install_axe() {
	say "installing axe-core $axe_version into $axe_dir"
	mkdir -p "$axe_dir"
	npm install --prefix "$axe_dir" --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
		"axe-core@$axe_version" >&2
}

# debian_package NEED: the Debian package that meets NEED, or nothing when
# none is needed.
debian_package() {
	case $1 in
	axe-core) command -v npm >/dev/null || echo npm ;;
	pg-auto-failover) echo postgresql-15-auto-failover ;;
	*) echo "$1" ;;
	esac
}

# have NEED: the need is met.
have() {
	case $1 in
	postgresql) have_postgresql ;;
	boinc-client) [[ -x /usr/bin/boinc && -x /usr/bin/boinccmd ]] ;;
	chromium) [[ -x /usr/bin/chromium ]] ;;
	nginx) [[ -x /usr/sbin/nginx ]] ;;
	prometheus) [[ -x /usr/bin/promtool ]] ;;
	systemd) [[ -x /usr/bin/systemd-analyze ]] ;;
	axe-core) have_axe ;;
	pg-auto-failover) [[ -x /usr/bin/pg_autoctl && -f /usr/lib/postgresql/15/lib/pgautofailover.so ]] ;;
	poppler-utils) [[ -x /usr/bin/pdftotext ]] ;;
	*) return 1 ;;
	esac
}

# service_of NEED: the Debian service that installing NEED may start, as
# "SERVICE PROGRAM USER [MARK]": its name, the name of its processes, the
# user they run as, and a text their command line holds. nginx's master
# runs as root; the service starts it with "daemon on", Cobble's tests
# start theirs with "daemon off".
service_of() {
	case $1 in
	boinc-client) echo "boinc-client boinc boinc" ;;
	nginx) echo "nginx nginx root daemon_on" ;;
	prometheus) echo "prometheus prometheus prometheus" ;;
	esac
}

# service_pids NEED: the PIDs of the running processes of NEED's service:
# named PROGRAM, run by USER (and whose command line holds MARK, with "_"
# for a space), one a line.
service_pids() {
	local service program user mark comm pid
	read -r service program user mark <<<"$(service_of "$1")"
	for comm in /proc/[0-9]*/comm; do
		pid=${comm#/proc/}
		pid=${pid%/comm}
		if [[ $(cat "$comm" 2>/dev/null) != "$program" ]] ||
			[[ $(stat -c %U "/proc/$pid" 2>/dev/null) != "$user" ]]; then
			continue
		fi
		if [[ -n $mark ]] && ! tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "${mark//_/ }"; then
			continue
		fi
		echo "$pid"
	done
}

# kill_all PID...: ends the processes, with SIGKILL for those that outlive
# SIGTERM by 10 seconds.
kill_all() {
	local pid alive
	for pid in "$@"; do
		kill -TERM "$pid" 2>/dev/null || true
	done
	for _ in $(seq 50); do
		alive=false
		for pid in "$@"; do
			if kill -0 "$pid" 2>/dev/null; then
				alive=true
			fi
		done
		if [[ $alive == false ]]; then
			return 0
		fi
		sleep 0.2
	done
	for pid in "$@"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
}

# stop_service NEED BEFORE: stops and disables the service that installing
# NEED started, if any. BEFORE lists its processes that ran before the
# install, which are left alone.
stop_service() {
	local need=$1 before=$2 service program pid new=() stopped=false
	read -r service program _ <<<"$(service_of "$need")"
	if [[ -d /run/systemd/system ]] && command -v systemctl >/dev/null; then
		if systemctl is-active --quiet "$service.service"; then
			systemctl stop "$service.service"
			stopped=true
		fi
		if systemctl is-enabled --quiet "$service.service" 2>/dev/null; then
			systemctl disable --quiet "$service.service"
			say "disabled the $service service that the package enabled; Cobble's tests run" \
				"their own $program (\`systemctl enable --now $service\` undoes this)"
		fi
	fi

	# Without systemd the package's init script may have started it.
	# Processes started meanwhile by anyone else are not the install's doing.
	for pid in $(service_pids "$need"); do
		if ! grep -qx "$pid" <<<"$before"; then
			new+=("$pid")
		fi
	done
	if ((${#new[@]} > 0)) && [[ -x /etc/init.d/$service ]]; then
		"/etc/init.d/$service" stop >/dev/null 2>&1 || true
	fi
	if ((${#new[@]} > 0)); then
		kill_all "${new[@]}"
	fi
	if [[ $stopped == true ]] || ((${#new[@]} > 0)); then
		say "stopped the $program that installing $need started"
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

	local pkg packages=()
	for need in "${missing[@]}"; do
		pkg=$(debian_package "$need")
		if [[ -n $pkg ]]; then
			packages+=("$pkg")
		fi
	done
	if ((${#packages[@]} > 0)); then
		install_packages "${packages[@]}"
	fi
	if [[ " ${missing[*]} " == *" axe-core "* ]]; then
		install_axe
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

# install_packages PACKAGE...: installs the Debian packages as root, and
# stops the services that installing them started; says what to install
# and exits 1 when it cannot.
install_packages() {
	local need
	if ((EUID != 0)) || ! command -v apt-get >/dev/null; then
		say "Cobble needs $*, which this machine lacks."
		if command -v apt-get >/dev/null; then
			say "Install as root with: apt-get install $*"
			say "(or run this script as root: sudo $0 $*)"
		else
			say "Install the packages of those names with this system's package manager."
		fi
		exit 1
	fi

	local -A before=()
	for need in "$@"; do
		if [[ -n $(service_of "$need") ]]; then
			before[$need]=$(service_pids "$need")
		fi
	done

	say "installing $*"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"

	for need in "${!before[@]}"; do
		stop_service "$need" "${before[$need]}"
	done
}

main "$@"
