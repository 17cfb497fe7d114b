package digestflag

import (
	"errors"
	"strings"
	"testing"

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
		{Flags{Name: "extractive", Model: "m"}, "--model and --base-url are for --digester openai"},
		{Flags{Name: "none", AllowNone: true, BaseURL: "https://x"}, "--model and --base-url are for --digester openai"},
		{Flags{Name: "openai", Model: " "}, "--digester openai needs --model"},
		{Flags{Name: "openai", Model: "m", BaseURL: "http://example.com/v1?k=sk-secret"}, "--base-url http://example.com is plain http to a host that is not loopback"},
		{Flags{Name: "openai", Model: "m", BaseURL: "ftp://sk-secret@example.com"}, "--base-url: want an absolute http or https URL"},
	} {
		_, err := c.f.Digester()
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want a usage error with %q", c.f, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%+v: the error quotes the key: %v", c.f, err)
		}
	}
	t.Setenv("OPENAI_API_KEY", "")
	if _, err := (Flags{Name: "openai", Model: "m"}).Digester(); !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Errorf("openai without a key: %v", err)
	}
}
