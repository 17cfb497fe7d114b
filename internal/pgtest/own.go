package pgtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BinDirEnv names the variable in which scripts/pgtest.sh gives the directory of the
// PostgreSQL server binaries (initdb, pg_ctl) it started the shared test server from.
const BinDirEnv = "PGTEST_BINDIR"

// Server is a PostgreSQL server of one test's own, for a test that restarts or stops it:
// the server of TRANSCRIPT_PG_DSN is shared by every test of every package that go test
// runs at once, which a restart would break.
type Server struct {
	// DSN names the server's postgres database, in the URL form.
	DSN string

	bin, dir, data string
	port           int
	standbys       int // how many standbys of this server Standby made
}

// Own initialises and starts a server of t's own from the binaries in PGTEST_BINDIR, as
// scripts/pgtest.sh starts its own (as the postgres user when run as root, a unix socket
// only, no fsync), and stops and removes it when t ends. Unlike that one, it commits
// synchronously: a commit's WAL is written (to the operating system, which outlives the
// server) before the commit returns, so a restart in immediate mode keeps it. Without a
// test server at all it skips t, or fails it under CI=true (ServerDSN); with a server given
// in TRANSCRIPT_PG_DSN but no PGTEST_BINDIR it skips t.
func Own(t testing.TB, pkg string) *Server {
	t.Helper()
	ServerDSN(t, pkg)
	bin := os.Getenv(BinDirEnv)
	if bin == "" {
		t.Skipf("%s: %s is not set (scripts/pgtest.sh sets it when it starts the server itself), so the tests that restart a PostgreSQL of their own skip", pkg, BinDirEnv)
	}
	dir, err := os.MkdirTemp("/tmp", strings.ReplaceAll(pkg, "/", "-")+"-pg-") // short: a socket's path is at most ~107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root, and no postgres user to run the server as: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	s := &Server{bin: bin, dir: dir, data: filepath.Join(dir, "data"), port: 40000 + rand.IntN(20000)} // the port names the socket, in our own directory: no TCP port
	s.must(t, "initdb", "-D", s.data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")
	if err := appendConf(s.data, fmt.Sprintf("listen_addresses = ''\nunix_socket_directories = '%s'\nport = %d\nfsync = off\nfull_page_writes = off\n", dir, s.port)); err != nil {
		t.Fatal(err)
	}
	s.start(t)
	return s
}

// start starts the server, stops it when t ends, and sets its DSN.
func (s *Server) start(t testing.TB) {
	t.Helper()
	s.must(t, "pg_ctl", "-D", s.data, "-l", s.logPath(), "-w", "-t", "60", "start")
	t.Cleanup(func() {
		if err := s.Exec("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "60", "stop"); err != nil && s.Running() {
			t.Error(err)
		}
	})
	s.DSN = fmt.Sprintf("postgres://postgres@/postgres?host=%s&port=%d&sslmode=disable", s.dir, s.port)
}

// appendConf adds lines to the postgresql.conf of the data directory data: a later setting
// overrides an earlier one.
func appendConf(data, lines string) error {
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(lines)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Restart restarts the server in immediate mode: every session ends at once, without a
// word, and the server recovers from its WAL as after a crash. It returns the error rather
// than failing a test, so that it may run beside one.
func (s *Server) Restart() error {
	return s.Exec("pg_ctl", "-D", s.data, "-l", s.logPath(), "-m", "immediate", "-w", "-t", "60", "restart")
}

// Exec runs one of the server's programs (initdb, pg_ctl, ...) with args, as the postgres
// user when the test runs as root, within two minutes, its output in a file beside the
// server's data directory (a file, not a pipe: pg_ctl's server keeps what it inherits
// open). The error holds the program's output and the server's log.
func (s *Server) Exec(program string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	name, argv := filepath.Join(s.bin, program), args
	if os.Geteuid() == 0 {
		name, argv = "runuser", append([]string{"-u", "postgres", "--", name}, args...)
	}
	out, err := os.OpenFile(s.data+"."+program+".out", os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o666)
	if err != nil {
		return err
	}
	defer out.Close()
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Run(); err != nil {
		text, _ := os.ReadFile(out.Name())
		log, _ := os.ReadFile(s.logPath())
		return fmt.Errorf("%s %v: %w\n%s\nserver log:\n%s", program, args, err, text, log)
	}
	return nil
}

// Stop stops the server in immediate mode, as a crash would, and leaves it stopped until
// Start. (The test's end stops it too, stopped or not.)
func (s *Server) Stop() error {
	return s.Exec("pg_ctl", "-D", s.data, "-m", "immediate", "-w", "-t", "60", "stop")
}

// Start starts the server again after Stop; it recovers from its WAL, and a standby then
// streams from its primary again.
func (s *Server) Start() error {
	return s.Exec("pg_ctl", "-D", s.data, "-l", s.logPath(), "-w", "-t", "60", "start")
}

// Running reports whether the server's postmaster is up (pg_ctl status).
func (s *Server) Running() bool { return s.Exec("pg_ctl", "-D", s.data, "status") == nil }

func (s *Server) must(t testing.TB, program string, args ...string) {
	t.Helper()
	if err := s.Exec(program, args...); err != nil {
		t.Fatal(err)
	}
}

func (s *Server) logPath() string { return s.data + ".log" }
