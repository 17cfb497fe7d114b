package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sharedesk/transcript/internal/demodesk"
)

// screenshotTo, when set, is where TestInspectorScreenshotInBrowser writes its screenshot:
// the README's picture is made with
//
//	go test ./cmd/transcript -run TestInspectorScreenshotInBrowser -inspector-screenshot "$PWD/docs/inspector.png"
var screenshotTo = flag.String("inspector-screenshot", "", "write the inspector's screenshot to this `file` (docs/inspector.png)")

// TestInspectorScreenshotInBrowser makes the README's picture of the inspector, in a real
// Chromium against serve --demo, and checks that it shows what the page does: the desk
// column, Triage's and the Reviewer's view of the channel and Triage's of a thread; an
// aside to Triage, in full in Triage's column and as a stub in the Reviewer's; a row the
// operator posted and edited from the page; a row the operator redacted from the page, a
// stub in the desk column and in the viewers'; and a search's hits in the Reviewer's
// column — each on the screen when the picture is taken. It writes the picture to
// -inspector-screenshot's file when given, else into the test's temporary directory.
func TestInspectorScreenshotInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	srv, url, secret := startDemo(t)
	_, marks := demodesk.Scenario()
	thread := uint64(marks.DeployThread)
	type css = chromedp.CSS
	triage, review := column("agent:triage", 0), column("agent:review", 0)
	b.run(t, "a laptop's screen", chromedp.EmulateViewport(1280, 800))
	b.signIn(t, url, secret)
	b.addViewer(t, "agent:triage", 0)
	b.addViewer(t, "agent:review", 0)
	b.addViewer(t, "agent:triage", thread)

	var m struct {
		Seq uint64 `json:"seq"`
	}
	op := srv.api(secret)
	op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{
		"content": "Triage only: the canary runs at five percent until noon.", "audience": []string{"agent:triage"}}, &m)
	aside := fmt.Sprintf(`[data-seq="%d"]`, m.Seq)
	stub := fmt.Sprintf(`li.elision[data-from="%d"]`, m.Seq)

	postFromPage := func(content string) string {
		t.Helper()
		b.run(t, "post "+content,
			chromedp.Evaluate[chromedp.Void](`void (document.querySelector("#compose .status").textContent = "")`),
			setComposeText(""),
			chromedp.SendKeys(css(`#compose textarea`), content),
			chromedp.Click(css(`#compose button[type=submit]`)),
		)
		b.poll(t, "the post's status", `document.querySelector("#compose .status").textContent.startsWith("Posted #")`)
		var seq uint64
		if _, err := fmt.Sscanf(get(t, b, "the post's status", chromedp.Text(css(`#compose .status`))), "Posted #%d", &seq); err != nil {
			t.Fatal(err)
		}
		row := fmt.Sprintf(`li[data-seq="%d"]`, seq)
		b.run(t, "the post in the desk column", chromedp.WaitVisible(css(`#desk `+row)))
		return row
	}
	b.search(t, review, "migration")
	b.poll(t, "the Reviewer's hits", `document.querySelectorAll('`+review+` .hit-list > li').length >= 1`)
	// The desk column is drawn afresh with each row: its buttons are clicked as found.
	wrong := postFromPage("Wrong desk: this was for the on-call rota.")
	b.run(t, "redact it from the desk column (it asks twice)",
		clickNow(`#desk `+wrong+` button.redact`), clickNow(`#desk `+wrong+` button.redact[data-armed="true"]`),
		chromedp.WaitVisible(css(`#desk `+wrong+`.redacted`)),
		chromedp.WaitVisible(css(review+` `+wrong+`.redacted`)),
	)
	window := postFromPage("Deploy window tonight: 22:00.")
	b.run(t, "edit it from the desk column",
		clickNow(`#desk `+window+` button.edit`),
		setComposeText("Deploy window tonight: 23:00."),
		chromedp.Click(css(`#compose button[type=submit]`)),
	)
	for _, col := range []string{`#desk`, triage} {
		b.poll(t, "the edit in "+col, `(li => !!li && li.querySelector(".tags").textContent.includes("edited"))(document.querySelector('`+col+` `+window+`'))`)
	}

	// What the picture must show, each on the screen: not scrolled out of its list, not
	// below the window.
	for _, sel := range []string{
		`#desk ` + wrong + `.redacted`, review + ` ` + wrong + `.redacted`, triage + ` ` + wrong + `.redacted`,
		`#desk ` + window + `[data-revised]`, triage + ` ` + window + `[data-revised]`,
		triage + ` li` + aside, review + ` ` + stub,
		review + ` .hit-list > li`, review + ` .search input[name=q]`, `#desk .redact-row`,
		column("agent:triage", thread) + ` .rows > li`,
	} {
		onScreen := chromedp.Poll[bool](`(el => {
			if (!el) return false;
			const r = el.getBoundingClientRect();
			if (r.width === 0 || r.height === 0 || r.top < 0 || r.bottom > window.innerHeight || r.left < 0 || r.right > window.innerWidth) return false;
			for (let p = el.parentElement; p; p = p.parentElement) {
				const s = getComputedStyle(p);
				if (!/(auto|scroll|hidden)/.test(s.overflowY + s.overflowX)) continue;
				const q = p.getBoundingClientRect();
				if (r.top < q.top - 1 || r.bottom > q.bottom + 1) return false;
			}
			return true;
		})(document.querySelector('`+sel+`'))`, chromedp.WithPollingTimeout(5*time.Second))
		ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
		_, err := chromedp.Run(ctx, onScreen)
		cancel()
		if err != nil {
			t.Errorf("the picture would not show %s: %v", sel, err)
		}
	}
	// The fresh rows' highlight fades in two seconds; the picture is taken without it.
	b.poll(t, "no fresh highlight", `document.getAnimations().length === 0`)

	shot := get(t, b, "screenshot", chromedp.CaptureScreenshot())
	cfg, err := png.DecodeConfig(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	if cfg.Width != 1280 || cfg.Height != 800 || len(shot) < 30<<10 {
		t.Errorf("the screenshot is %d×%d and %d bytes, want 1280×800 and more than 30 KiB of page", cfg.Width, cfg.Height, len(shot))
	}
	path := *screenshotTo
	if path == "" {
		path = filepath.Join(t.TempDir(), "inspector.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the screenshot: %s", path)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
