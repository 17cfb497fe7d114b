package main

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/token"
)

// TestTokenCommands: token add prints the secret alone and the store keeps a token that
// authenticates as the participant; token list shows the tokens and nothing secret; token
// revoke revokes for good, idempotently, and refuses what is not an ID without echoing it.
func TestTokenCommands(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		db := newDB(t)
		c := newCLI(t, "")
		add := func(desk, as string) (secret string, r result) {
			t.Helper()
			r = c.run("token", "add", "--db", db, "--desk", desk, "--create", "--as", as)
			if r.code != exitOK || !secretLine.MatchString(r.stdout) {
				t.Fatalf("want exit 0 and the secret alone on standard output, got:\n%s", r)
			}
			return strings.TrimSuffix(r.stdout, "\n"), r
		}
		triage, r := add("eng", "agent:triage:Triage")
		triageID := token.IDOf(token.Hash(triage))
		if !strings.Contains(r.stderr, triageID) || !strings.Contains(r.stderr, "agent:triage:Triage") || !strings.Contains(r.stderr, "shown only this once") {
			t.Errorf("token add's standard error should name the token and say the secret shows once:\n%s", r)
		}
		ana, _ := add("eng", "person:ana:Ana Ruiz")
		ops, _ := add("ops", "operator:Olga")
		secrets := []string{triage, ana, ops}

		ctx := context.Background()
		st, err := dbflag.Flags{DB: db}.OpenExisting(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		got, err := token.Authenticate(ctx, st, "Bearer "+triage)
		if err != nil || got.Participant != transcript.Agent("triage", "Triage") || got.Desk != "eng" || got.ID != triageID {
			t.Fatalf("the new token authenticates as %v, %v; want agent:triage on eng", got, err)
		}

		list := c.ok("token", "list", "--db", db)
		lines := strings.Split(strings.TrimSuffix(list, "\n"), "\n")
		if len(lines) != 4 || strings.Fields(lines[0])[0] != "ID" {
			t.Fatalf("token list: want a header and 3 tokens:\n%s", list)
		}
		for _, want := range []string{triageID, "agent:triage:Triage", "person:ana:Ana Ruiz", "operator:Olga", "ops", "REVOKED"} {
			if !strings.Contains(list, want) {
				t.Errorf("token list does not show %q:\n%s", want, list)
			}
		}
		all, err := st.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tok := range all {
			for _, leak := range []string{hex.EncodeToString(tok.Hash[:]), base64.StdEncoding.EncodeToString(tok.Hash[:]), base64.RawURLEncoding.EncodeToString(tok.Hash[:])} {
				if strings.Contains(list, leak) {
					t.Errorf("token list shows a hash:\n%s", list)
				}
			}
		}
		for _, secret := range secrets {
			if strings.Contains(list, secret) {
				t.Errorf("token list shows a secret:\n%s", list)
			}
		}
		if eng := c.ok("token", "list", "--db", db, "--desk", "eng"); strings.Contains(eng, "ops") || strings.Count(eng, "\n") != 3 {
			t.Errorf("token list --desk eng:\n%s", eng)
		}
		if r := c.want(exitOK, "token", "list", "--db", db, "--desk", "nowhere"); r.stdout != "" || !strings.Contains(r.stderr, "no tokens") {
			t.Errorf("token list for a desk without tokens:\n%s", r)
		}

		r = c.want(exitOK, "token", "revoke", "--db", db, triageID)
		if r.stdout != "" || !strings.Contains(r.stderr, "revoked token "+triageID) {
			t.Errorf("token revoke:\n%s", r)
		}
		if _, err := token.Authenticate(ctx, st, "Bearer "+triage); !errors.Is(err, token.ErrRevoked) {
			t.Errorf("a revoked token authenticates: %v", err)
		}
		if r := c.want(exitOK, "token", "revoke", "--db", db, triageID); !strings.Contains(r.stderr, "revoked already") {
			t.Errorf("revoking twice:\n%s", r)
		}
		if _, err := token.Authenticate(ctx, st, "Bearer "+ana); err != nil {
			t.Errorf("revoking one token revoked another: %v", err)
		}
		list = c.ok("token", "list", "--db", db)
		for line := range strings.Lines(list) {
			revoked := !strings.HasSuffix(strings.TrimSpace(line), " -")
			if strings.HasPrefix(line, triageID) != revoked && !strings.HasPrefix(line, "ID") {
				t.Errorf("token list after a revocation: %q", line)
			}
		}

		r = c.want(exitError, "token", "revoke", "--db", db, "tok_000000000000")
		if !strings.Contains(r.stderr, "no token tok_000000000000") {
			t.Errorf("revoking an unknown ID:\n%s", r)
		}
		r = c.want(exitUsage, "token", "revoke", "--db", db, ana)
		if strings.Contains(r.stderr, ana) || strings.Contains(r.stderr, ana[len(token.SecretPrefix):len(token.SecretPrefix)+8]) {
			t.Errorf("token revoke echoed a secret:\n%s", r)
		}
		if anaID := token.IDOf(token.Hash(ana)); !strings.Contains(r.stderr, anaID) {
			t.Errorf("token revoke given a secret should name its token's ID %s:\n%s", anaID, r)
		}
		if _, err := token.Authenticate(ctx, st, "Bearer "+ana); err != nil {
			t.Errorf("token revoke given a secret revoked it: %v", err)
		}
	})
}

// TestTokenMissingDatabase: list and revoke do not create a database.
func TestTokenMissingDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{{"token", "list"}, {"token", "revoke", "tok_0123456789ab"}} {
		if r := c.want(exitError, args...); !strings.Contains(r.stderr, "no database at") {
			t.Errorf("%v on a missing database:\n%s", args, r)
		}
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
		t.Errorf("list or revoke left files: %v", entries)
	}
}

// TestTokenUsageErrors: like TestUsageErrors, for token: exit 2, the reason on standard
// error, nothing on standard output, no database; and no secret given by mistake is echoed.
func TestTokenUsageErrors(t *testing.T) {
	t.Parallel()
	secret, _, err := token.New("eng", transcript.Agent("x", ""), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string
	}{
		{"no subcommand", []string{"token"}, "token needs a subcommand"},
		{"unknown subcommand", []string{"token", "mint"}, `unknown subcommand "mint"`},
		{"a secret as the subcommand", []string{"token", secret}, "unknown subcommand (not quoted"},
		{"add without --as", []string{"token", "add", "--desk", "eng"}, "token add needs --as"},
		{"add with a bad --as", []string{"token", "add", "--as", "robot:r2"}, `"robot:r2" is not agent:ID`},
		{"add with an empty desk", []string{"token", "add", "--desk", "", "--as", "agent:x"}, "invalid desk name: empty"},
		{"add with arguments", []string{"token", "add", "--as", "agent:x", "extra"}, "token add takes no arguments"},
		{"add with an unknown flag", []string{"token", "add", "--bogus"}, "-bogus"},
		{"list with arguments", []string{"token", "list", "extra"}, "token list takes no arguments"},
		{"revoke without an ID", []string{"token", "revoke"}, "token revoke takes one ID"},
		{"revoke with two IDs", []string{"token", "revoke", "tok_0123456789ab", "tok_0123456789ac"}, "token revoke takes one ID"},
		{"revoke an upper-case ID", []string{"token", "revoke", "tok_0123456789AB"}, "is not a token ID"},
		{"revoke a short ID", []string{"token", "revoke", "tok_0123"}, "is not a token ID"},
		{"revoke a password", []string{"token", "revoke", "hunter2"}, "is not a token ID"},
		{"revoke a secret", []string{"token", "revoke", secret}, "not its secret"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, "")
			r := c.run(tc.args...)
			if r.code != exitUsage || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("want exit 2 and %q on standard error, got:\n%s", tc.stderr, r)
			}
			if r.stdout != "" {
				t.Errorf("a usage error wrote to standard output:\n%s", r)
			}
			for _, arg := range tc.args[1:] {
				if len(arg) > 4 && strings.Contains(r.stderr, arg) && strings.Contains(tc.name, "revoke") && arg != "revoke" {
					t.Errorf("token revoke echoed its argument %q:\n%s", arg, r)
				}
			}
			if strings.Contains(r.stderr, secret) {
				t.Errorf("a usage error echoed a secret:\n%s", r)
			}
			if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
				t.Errorf("a usage error left files: %v", entries)
			}
		})
	}
}

// TestTokenAndServeHelp: help token, token -h, help token SUB, token SUB -h and help serve
// exit 0, print to standard output, and document the flags.
func TestTokenAndServeHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{{"help", "token"}, {"token", "-h"}, {"token", "--help"}, {"token", "help"}} {
		r := c.want(exitOK, args...)
		for _, sub := range []string{"add", "list", "revoke"} {
			if !strings.Contains(r.stdout, "  "+sub+" ") {
				t.Errorf("%v does not list %s:\n%s", args, sub, r)
			}
		}
		if r.stderr != "" {
			t.Errorf("%v wrote to standard error:\n%s", args, r)
		}
	}
	for name, flags := range map[string][]string{
		"token add":    {"-db", "-desk", "-as"},
		"token list":   {"-db", "-desk"},
		"token revoke": {"-db"},
		"serve":        {"-db", "-addr", "-tls-cert", "-tls-key", "-insecure-http", "-rate", "-burst", "-max-streams", "-max-total-streams", "-max-answer-bytes", "-drain-timeout", "-log-format"},
	} {
		words := strings.Fields(name)
		for _, args := range [][]string{append([]string{"help"}, words...), append(words, "-h"), append(words, "--help")} {
			r := c.want(exitOK, args...)
			if n := strings.Count(r.stdout, "Usage: transcript "+name+" "); n != 1 {
				t.Errorf("%v shows the usage of %s %d times, want once:\n%s", args, name, n, r)
			}
			if r.stderr != "" {
				t.Errorf("%v wrote to standard error:\n%s", args, r)
			}
			for _, f := range flags {
				if !strings.Contains(r.stdout, "  "+f+" ") && !strings.Contains(r.stdout, "  "+f+"\n") {
					t.Errorf("%v does not document %s:\n%s", args, f, r)
				}
			}
		}
	}
	top := c.ok("help")
	for _, name := range []string{"token", "serve"} {
		if !strings.Contains(top, "  "+name+" ") {
			t.Errorf("help does not list %s:\n%s", name, top)
		}
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
		t.Errorf("help left files: %v", entries)
	}
}
