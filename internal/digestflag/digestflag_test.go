package digestflag

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/cliflag"
)

func TestDigester(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, c := range []struct {
		f    Flags
		want string // the digester's Name, or "" for none
	}{
		{Flags{Name: "extractive"}, "extractive"},
		{Flags{Name: "extractive", AllowNone: true}, "extractive"},
		{Flags{Name: "none", AllowNone: true}, ""},
		{Flags{Name: "openai", Model: "m", BaseURL: "http://localhost:11434/v1"}, "openai:m"},
	} {
		c.f.Timeout = digest.DefaultTimeout
		d, err := c.f.Digester()
		if err != nil {
			t.Errorf("%+v: %v", c.f, err)
			continue
		}
		if got := ""; d != nil {
			got = d.Name()
			if got != c.want {
				t.Errorf("%+v: digester %q, want %q", c.f, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%+v: no digester, want %q", c.f, c.want)
		}
	}
}

func TestDigesterRefusals(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, c := range []struct {
		f    Flags
		want string
	}{
		{Flags{Name: "none"}, `--digester "none": want extractive or openai`},
		{Flags{Name: "llm", AllowNone: true}, `--digester "llm": want extractive, openai or none`},
		{Flags{Name: "extractiv"}, `--digester "extractiv": want extractive or openai; did you mean extractive?`},
		{Flags{Name: "OpenAI", AllowNone: true}, `--digester "OpenAI": want extractive, openai or none; did you mean openai?`},
		{Flags{Name: "sk-secret" + strings.Repeat("x", 32)}, "--digester (not quoted: it could be a secret): want extractive or openai"},
		{Flags{Name: "extractive", Model: "m"}, "--model and --base-url are for --digester openai"},
		{Flags{Name: "none", AllowNone: true, BaseURL: "https://x"}, "--model and --base-url are for --digester openai"},
		{Flags{Name: "openai", Model: " "}, "--digester openai needs --model"},
		{Flags{Name: "openai", Model: "m", BaseURL: "http://example.com/v1?k=sk-secret"}, "--base-url http://example.com is plain http to a host that is not loopback"},
		{Flags{Name: "openai", Model: "m", BaseURL: "ftp://sk-secret@example.com"}, "--base-url: want an absolute http or https URL"},
	} {
		c.f.Timeout = digest.DefaultTimeout
		_, err := c.f.Digester()
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.f, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%+v: the error quotes the key: %v", c.f, err)
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	if _, err := (Flags{Name: "openai", Model: "m", Timeout: digest.DefaultTimeout}).Digester(); !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("openai without a key: %v", err)
	}
}

// TestDigestTimeout: a --digest-timeout that is not above 0 is a usage error naming the
// flag, whatever the digester; openai's digester gives up on an endpoint that does not
// answer within it.
func TestDigestTimeout(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("OPENAI_BASE_URL", "")
	for _, f := range []Flags{
		{Name: "extractive"},
		{Name: "none", AllowNone: true, Timeout: -time.Second},
		{Name: "openai", Model: "m", BaseURL: "http://localhost:11434/v1", Timeout: -time.Second},
	} {
		if _, err := f.Digester(); !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "--digest-timeout") {
			t.Errorf("%+v: %v, want a usage error naming --digest-timeout", f, err)
		}
	}

	hung := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read whole, the request's end is heard: its context ends
		<-r.Context().Done()
	}))
	t.Cleanup(hung.Close)
	d, err := Flags{Name: "openai", Model: "m", BaseURL: hung.URL, Timeout: 50 * time.Millisecond}.Digester()
	if err != nil {
		t.Fatal(err)
	}
	req := digest.Request{Messages: []transcript.Message{{Seq: 1, Author: transcript.Operator(), Content: "hello"}}, Budget: 100}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a test without the timeout fails, not hangs
	defer cancel()
	if _, err := d.Digest(ctx, req); !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("Digest against an endpoint that never answers: %v, want a timeout of 50ms", err)
	}
}
