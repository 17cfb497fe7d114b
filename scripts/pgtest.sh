#!/usr/bin/env bash
# pgtest.sh runs a command with a throwaway PostgreSQL server and its address in
# TRANSCRIPT_PG_DSN, then stops the server and removes its files, whatever the command did.
# The command's exit status is the script's.
#
#	scripts/pgtest.sh [command ...]	# default: go test -race ./...
#	scripts/pgtest.sh go test -run '^$' -bench . ./pgstore
#
# The server comes from the machine's PostgreSQL install (PG_BINDIR, else the newest
# /usr/lib/postgresql/*/bin, else initdb on PATH). It is initialised into a new temporary
# directory (as the postgres user when run as root: PostgreSQL refuses to run as root), with
# trust authentication for the user postgres, and listens only on a unix socket in that
# directory (listen_addresses is empty, so no TCP port is opened; the port number only names
# the socket). The data is thrown away, so the server skips fsync unless PGTEST_DURABLE=1.
# PGTEST_CONF may hold more postgresql.conf lines (for example "shared_buffers = '512MB'").
# PGTEST_BINDIR is set to the binaries' directory, for tests that start and restart a
# server of their own (pgstore's TestWatchSurvivesRestart): restarting this one would cut
# the sessions of every other test using it.
#
# For the tests that read from a standby it starts a second server, set up as the first, and
# a hot standby that streams from it (a base backup taken with pg_basebackup -R), each on a
# port of its own in the same directory, and sets TRANSCRIPT_PG_STANDBY_PRIMARY_DSN and
# TRANSCRIPT_PG_STANDBY_DSN to them: the standby replays only what those tests write on the
# second server, not every database of the first. PGTEST_STANDBY=0 starts neither. Every
# server is stopped, and its files removed, whatever the command did.
#
# TRANSCRIPT_PG_DSN already set: the command runs against that server and nothing is started.
# No PostgreSQL install found: under CI=true that is an error; otherwise the command runs
# without TRANSCRIPT_PG_DSN and the PostgreSQL tests skip, saying how to run them.
set -euo pipefail

if [ "$#" -eq 0 ]; then
	set -- go test -race ./...
fi

if [ -n "${TRANSCRIPT_PG_DSN:-}" ]; then
	echo "pgtest: using the server in TRANSCRIPT_PG_DSN" >&2
	exec "$@"
fi

# bindir prints the directory of the PostgreSQL server binaries, or nothing.
bindir() {
	if [ -n "${PG_BINDIR:-}" ]; then
		echo "$PG_BINDIR"
		return
	fi
	local d
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5 -V -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return
		fi
	done
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
	fi
}

bin=$(bindir)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
	if [ "${CI:-}" = true ]; then
		echo "pgtest: no PostgreSQL server binaries (looked in PG_BINDIR, /usr/lib/postgresql/*/bin, PATH);" >&2
		echo "pgtest: CI=true requires them: apt-get install -y postgresql-15" >&2
		exit 1
	fi
	echo "pgtest: no PostgreSQL server binaries found: the PostgreSQL tests will skip." >&2
	echo "pgtest: install them (apt-get install postgresql-15) and run make test again." >&2
	"$@"
	exit
fi

if [ "$(id -u)" -eq 0 ] && ! id postgres >/dev/null 2>&1; then
	echo "pgtest: running as root, and there is no postgres user to run the server as" >&2
	echo "pgtest: (PostgreSQL refuses to run as root; Debian's postgresql-15 package creates the user)" >&2
	exit 1
fi

# as_postgres runs a command as the user that owns the server: postgres when we are root.
as_postgres() {
	if [ "$(id -u)" -eq 0 ]; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
		fi
	else
		"$@"
	fi
}

# The socket path must stay under the kernel's ~107-byte limit: keep the directory short.
dir=$(mktemp -d /tmp/transcript-pg.XXXXXX)
data="$dir/data"
replicated="$dir/replicated"
standby="$dir/standby"
started=
replicated_started=
standby_started=
cleanup() {
	local status=$?
	if [ -n "$standby_started" ]; then
		as_postgres "$bin/pg_ctl" -D "$standby" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if [ -n "$replicated_started" ]; then
		as_postgres "$bin/pg_ctl" -D "$replicated" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	if [ -n "$started" ]; then
		as_postgres "$bin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
	return "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if [ "$(id -u)" -eq 0 ]; then
	chown postgres: "$dir"
fi
chmod 700 "$dir"

# start_server DATADIR PORT LOG initialises a server in DATADIR, listening on the unix socket
# of PORT in $dir only, and starts it.
start_server() {
	local d=$1 p=$2 log=$3
	as_postgres "$bin/initdb" -D "$d" -A trust -U postgres -E UTF8 --locale=C --no-sync >"$dir/initdb.log" 2>&1 || {
		cat "$dir/initdb.log" >&2
		echo "pgtest: initdb failed" >&2
		return 1
	}
	{
		echo "listen_addresses = ''"
		echo "unix_socket_directories = '$dir'"
		echo "port = $p"
		echo "max_connections = 300"
		echo "fsync = $durable"
		echo "synchronous_commit = $durable"
		echo "full_page_writes = $durable"
		# Commits that do not wait for their flush reach a standby when the WAL writer flushes
		# them: every 10 ms rather than the default 200.
		echo "wal_writer_delay = 10ms"
		echo "${PGTEST_CONF:-}"
	} >>"$d/postgresql.conf"
	as_postgres "$bin/pg_ctl" -D "$d" -l "$log" -w -t 60 start >/dev/null || {
		cat "$log" >&2
		echo "pgtest: the server did not start" >&2
		return 1
	}
}

# Any port will do (the socket lives in our own directory); a random one keeps two servers
# of one machine from ever sharing a socket name.
port=$((40000 + RANDOM % 20000))
durable=off
if [ "${PGTEST_DURABLE:-}" = 1 ]; then
	durable=on
fi
started=1 # from here on, cleanup stops it, whether pg_ctl start got it running or not
start_server "$data" "$port" "$dir/server.log" || exit 1
for _ in $(seq 1 100); do
	if "$bin/pg_isready" -q -h "$dir" -p "$port" -U postgres; then
		break
	fi
	sleep 0.1
done
"$bin/pg_isready" -h "$dir" -p "$port" -U postgres >&2

export PGTEST_BINDIR="$bin"
export TRANSCRIPT_PG_DSN="postgres://postgres@/postgres?host=$dir&port=$port&sslmode=disable"
echo "pgtest: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at TRANSCRIPT_PG_DSN=$TRANSCRIPT_PG_DSN" >&2

if [ "${PGTEST_STANDBY:-1}" != 0 ]; then
	# A second server, and a copy of it with primary_conninfo and standby.signal written by
	# -R: it replays the second server's WAL as it streams in and answers read-only queries.
	replicated_port=$((port + 1))
	standby_port=$((port + 2))
	replicated_started=1
	start_server "$replicated" "$replicated_port" "$dir/replicated.log" || exit 1
	"$bin/pg_isready" -h "$dir" -p "$replicated_port" -U postgres >&2
	as_postgres "$bin/pg_basebackup" -D "$standby" -R -h "$dir" -p "$replicated_port" -U postgres -X stream -c fast >"$dir/basebackup.log" 2>&1 || {
		cat "$dir/basebackup.log" >&2
		echo "pgtest: pg_basebackup failed: no standby" >&2
		exit 1
	}
	{
		echo "port = $standby_port"
		echo "hot_standby = on"
	} >>"$standby/postgresql.conf"
	standby_started=1 # from here on, cleanup stops it, whether pg_ctl start got it running or not
	as_postgres "$bin/pg_ctl" -D "$standby" -l "$dir/standby.log" -w -t 60 start >/dev/null || {
		cat "$dir/standby.log" >&2
		echo "pgtest: the standby did not start" >&2
		exit 1
	}
	"$bin/pg_isready" -h "$dir" -p "$standby_port" -U postgres >&2
	export TRANSCRIPT_PG_STANDBY_PRIMARY_DSN="postgres://postgres@/postgres?host=$dir&port=$replicated_port&sslmode=disable"
	export TRANSCRIPT_PG_STANDBY_DSN="postgres://postgres@/postgres?host=$dir&port=$standby_port&sslmode=disable"
	echo "pgtest: a second server at TRANSCRIPT_PG_STANDBY_PRIMARY_DSN=$TRANSCRIPT_PG_STANDBY_PRIMARY_DSN" >&2
	echo "pgtest: its standby at TRANSCRIPT_PG_STANDBY_DSN=$TRANSCRIPT_PG_STANDBY_DSN" >&2
fi
status=0
"$@" || status=$?
exit "$status"
