package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestInspectorDigestInBrowser drives a column's digest in a real Chromium against serve
// --demo, whose background folds are extractive: Triage's channel column shows the demo
// desk's digest until enough roots are posted through the API for a fold, then, without a
// reload, the channel's digest of them above its messages, marked as one, its line naming through, rows and
// digester, its text as text (a root's markup stays characters, no element), and first in
// the model input the switch shows; after the
// operator redacts a root the digest folded, the column drops that digest, and the page
// holds none of the root's words; the console has no error.
func TestInspectorDigestInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, op, seqs := foldedDemo(t, ctx)
	type css = chromedp.CSS
	triage := column("agent:triage", 0)
	shown := get(t, b, "the digest", chromedp.Evaluate[struct {
		Tag, Line, Text string
		Elements        int
		Above           bool
		Through         string
	}](`(() => {
		const col = document.querySelector('`+triage+`');
		const d = col.querySelector(".digest"), rows = col.querySelector(".rows");
		return {
			tag: d.querySelector(".tag").textContent,
			line: d.querySelector(".digest-line").textContent,
			text: d.querySelector(".digest-text").textContent,
			elements: d.querySelectorAll(".digest-text *").length,
			above: !!(d.compareDocumentPosition(rows) & Node.DOCUMENT_POSITION_FOLLOWING) && d.getBoundingClientRect().bottom <= rows.getBoundingClientRect().top + 1,
			through: d.dataset.through,
		};
	})()`))
	if shown.Tag != "digest" || !regexp.MustCompile(`^Digest of the channel through #\d+ · \d+ messages · extractive$`).MatchString(shown.Line) || shown.Through == "" {
		t.Errorf("the digest is marked %q with the line %q (through %q); want digest and its through, rows and digester", shown.Tag, shown.Line, shown.Through)
	}
	if !shown.Above {
		t.Error("the digest is not above the column's messages")
	}
	if shown.Elements != 0 || !strings.Contains(shown.Text, "<b>kiwi") {
		t.Errorf("the digest's text holds %d elements and reads %q: want the roots' markup as characters", shown.Elements, shown.Text)
	}

	// The model-input switch: the digest first, as view --digest --format renders it; back
	// to the rows, the digest above them again.
	b.run(t, "the model input",
		chromedp.Click(css(triage+` button[data-show="openai"]`)),
		chromedp.WaitVisible(css(triage+` .model pre.turn`)),
	)
	if first := get(t, b, "the model input's first block", chromedp.Text(css(triage+` .model pre.turn`))); !strings.Contains(first, `"content": "<digest of=\"channel\" through=\"`+shown.Through+`\"`) {
		t.Errorf("the model input's first block does not begin with the digest through #%s:\n%s", shown.Through, first)
	}
	if hidden := get(t, b, "the digest beside the model input", chromedp.Evaluate[bool](`document.querySelector('`+triage+` .digest').hidden`)); !hidden {
		t.Error("the column shows the digest box beside the model input, which holds it")
	}
	b.run(t, "back to the rows",
		chromedp.Click(css(triage+` button[data-show="rows"]`)),
		chromedp.WaitVisible(css(triage+` .digest .digest-text`)),
	)

	// The newest root the digest folded is redacted: every digest covering it goes.
	gone := regexp.MustCompile(`kiwi\d\d`).FindAllString(shown.Text, -1)
	word := gone[len(gone)-1]
	op.want(http.StatusCreated, "DELETE", fmt.Sprintf("/v1/desks/demo/messages/%d", seqs[word]), nil, nil)
	b.run(t, "the redaction in the desk column", chromedp.WaitVisible(css(fmt.Sprintf(`#desk li[data-seq="%d"].redacted`, seqs[word]))))
	b.poll(t, "Triage's column drops the digest", fmt.Sprintf(`(() => {
		const d = document.querySelector('%s .digest');
		return d.hidden || !d.textContent.includes(%q);
	})()`, triage, word))
	if html := get(t, b, "the page", chromedp.OuterHTML(css(`#columns`))); strings.Contains(html, word) {
		t.Errorf("after the redaction the page still holds %q", word)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// TestInspectorDigestEditInBrowser: a thread's digest is folded after the channel's, and
// Triage has a column on each; after the author edits the newest root the channel's digest
// folded, which deletes every digest of the channel standing for it, Triage's channel column
// drops that digest without a reload and shows the channel's digest as the view reads it
// (an older one, through below the root, none, or the one serve folds again after the edit,
// with the root's new text); the page holds none of the root's old words; the thread's
// column keeps its digest, which the edit left; the console has no error.
func TestInspectorDigestEditInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, op, seqs := foldedDemo(t, ctx)
	triage := column("agent:triage", 0)
	text := get(t, b, "the channel's digest", chromedp.Evaluate[string](`document.querySelector('`+triage+` .digest .digest-text').textContent`))
	folded := regexp.MustCompile(`kiwi\d\d`).FindAllString(text, -1)
	word := folded[len(folded)-1]

	// Replies to the newest root, past what a thread's fold keeps live and waits for.
	root := seqs["kiwi59"]
	for i := range 60 {
		op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": fmt.Sprintf("Reply fig%02d.", i), "parent": root}, nil)
	}
	thread := column("agent:triage", root)
	b.addViewer(t, "agent:triage", root)
	b.run(t, "the thread's digest", chromedp.WaitVisible(chromedp.CSS(thread+` .digest .digest-text`)))
	threadThrough := get(t, b, "the thread's digest", chromedp.Evaluate[string](`document.querySelector('`+thread+` .digest').dataset.through`))

	op.want(http.StatusCreated, "PATCH", fmt.Sprintf("/v1/desks/demo/messages/%d", seqs[word]), map[string]any{"content": "Release plum is tagged."}, nil)
	b.run(t, "the edit in Triage's column", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`%s li[data-seq="%d"][data-revised]`, triage, seqs[word]))))
	// The column shows the digest the view reads: serve folds the channel again after the
	// edit, so it may change once more while the page catches up.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var view struct {
			Digest *struct {
				Through uint64 `json:"through"`
				Text    string `json:"text"`
			} `json:"digest"`
		}
		op.want(http.StatusOK, "GET", "/v1/desks/demo/view?digest=true&as=agent:triage", nil, &view)
		want := "undefined"
		if view.Digest != nil {
			if strings.Contains(view.Digest.Text, word) {
				t.Fatalf("after the edit of #%d the view's digest, through #%d, holds the row's old word %q", seqs[word], view.Digest.Through, word)
			}
			want = fmt.Sprint(view.Digest.Through)
		}
		got := get(t, b, "Triage's channel digest", chromedp.Evaluate[string](fmt.Sprintf(`(() => {
			const d = document.querySelector('%s .digest');
			return String(d.dataset.through) + (d.hidden ? " hidden" : "");
		})()`, triage)))
		if got == want || want == "undefined" && got == "undefined hidden" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Triage's channel column shows the digest %q; the view's is %q", got, want)
		}
	}
	if html := get(t, b, "the page", chromedp.OuterHTML(chromedp.CSS(`#columns`))); strings.Contains(html, word) {
		t.Errorf("after the edit the page still holds %q, the edited row's old word", word)
	}
	if got := get(t, b, "the thread's digest after the edit", chromedp.Evaluate[string](`document.querySelector('`+thread+` .digest').dataset.through || ""`)); got != threadThrough {
		t.Errorf("after the edit of a root the thread's column shows the digest through %q, want the one through %s it showed", got, threadThrough)
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// foldedDemo starts serve --demo, whose background folds are extractive, opens Triage's
// channel column in a new browser, checks it shows the digest serve --demo folded as it
// loaded the desk (as the demo command does), then posts through the API
// 60 roots as the operator, each with a word of its own (kiwi00 to kiwi59) in markup a page
// must not parse, and waits until the column shows, without a reload, the channel's digest
// holding one of them. It returns the browser, the operator's API and each word's root.
func foldedDemo(t *testing.T, ctx context.Context) (*browser, api, map[string]uint64) {
	t.Helper()
	b := newBrowser(t, ctx)
	// No rate limit: the page and the posts share the operator's token.
	srv, url, secret := startDemoAt(t, filepath.Join(t.TempDir(), "demo.db"), "--rate", "inf")
	triage := column("agent:triage", 0)
	b.signIn(t, url, secret)
	b.addViewer(t, "agent:triage", 0)
	if shown := get(t, b, "the demo's digest", chromedp.Evaluate[string](`(() => {
		const d = document.querySelector('`+triage+` .digest');
		return d.hidden ? "" : d.querySelector(".digest-text").textContent;
	})()`)); shown == "" || strings.Contains(shown, "kiwi") {
		t.Fatalf("before any post Triage's column shows the digest %q; want the demo desk's", shown)
	}

	// Roots past what a fold keeps live (30) and waits for (20 more).
	op := srv.api(secret)
	seqs := map[string]uint64{}
	for i := range 60 {
		word := fmt.Sprintf("kiwi%02d", i)
		var m struct {
			Seq uint64 `json:"seq"`
		}
		op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": "Release <b>" + word + "</b> is tagged."}, &m)
		seqs[word] = m.Seq
	}
	b.run(t, "the digest, live above Triage's messages", chromedp.WaitVisible(chromedp.CSS(triage+` .digest .digest-text`)))
	b.poll(t, "the digest holds a posted root", `document.querySelector('`+triage+` .digest .digest-text').textContent.includes("kiwi")`)
	return b, op, seqs
}
