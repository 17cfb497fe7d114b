package digestflag

import (
	"errors"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/cliflag"
)

// Flags are the values of --digester, --model, --base-url and --digest-timeout.
type Flags struct {
	Name    string        // --digester: extractive or openai, and none where AllowNone
	Model   string        // --model: the model's name, for openai
	BaseURL string        // --base-url: the endpoint's base URL, for openai (default OPENAI_BASE_URL)
	Timeout time.Duration // --digest-timeout: the most one fold's digester may take (default digest.DefaultTimeout)
	// AllowNone: the command takes --digester none (serve), a choice of no digester.
	AllowNone bool
}

// Digester returns the digester f names: digest.Extractive, a digest.OpenAI for --model
// at --base-url with the key in OPENAI_API_KEY and --digest-timeout as its Timeout, or nil
// for none. A --digest-timeout that is not above 0 is a usage error, whatever the
// digester; so is a --digester that names none, with the nearest when one is near
// (cliflag.OneOf); so are --model and --base-url with another digester than openai, and, for
// openai, a blank --model, no OPENAI_API_KEY, and a base URL (--base-url, else
// OPENAI_BASE_URL) that is not an absolute http or https URL or that is plain http to a
// host that is not loopback.
func (f Flags) Digester() (digest.Named, error) {
	names := []string{"extractive", "openai"}
	if f.AllowNone {
		names = append(names, "none")
	}
	if f.Timeout <= 0 {
		return nil, cliflag.Usagef("--digest-timeout %v: want a duration above 0, such as 60s or 5m", f.Timeout)
	}
	if err := cliflag.OneOf("--digester", f.Name, names...); err != nil {
		return nil, err
	}
	switch f.Name {
	case "none", "extractive":
		if f.Model != "" || f.BaseURL != "" {
			return nil, cliflag.Usagef("--model and --base-url are for --digester openai")
		}
		if f.Name == "none" {
			return nil, nil
		}
		return digest.Extractive{}, nil
	}
	return f.openAI()
}

// openAI is Digester for --digester openai.
func (f Flags) openAI() (digest.Named, error) {
	if strings.TrimSpace(f.Model) == "" {
		return nil, cliflag.Usagef("--digester openai needs --model: the model's name, such as gpt-4o-mini")
	}
	key := os.Getenv("OPENAI_API_KEY")
	if key == "" {
		return nil, cliflag.Usagef("--digester openai needs the endpoint's key in OPENAI_API_KEY (for a local server that takes none, any value)")
	}
	d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: f.Model, BaseURL: f.BaseURL, Timeout: f.Timeout})
	if err == nil {
		return d, nil
	}
	from, base := "--base-url", f.BaseURL
	if base == "" {
		from, base = "OPENAI_BASE_URL", os.Getenv("OPENAI_BASE_URL")
	}
	if u, perr := url.Parse(base); perr == nil && errors.Is(err, digest.ErrCleartextKey) && !strings.Contains(u.Host, key) {
		return nil, cliflag.Usagef("%s http://%s is plain http to a host that is not loopback: the key in OPENAI_API_KEY would cross the network in clear; use https, or http to localhost, 127.0.0.1 or [::1]", from, u.Host)
	}
	return nil, cliflag.Usagef("%s: want an absolute http or https URL, such as http://localhost:11434/v1 (the value is not repeated here: it may hold a key)", from)
}
