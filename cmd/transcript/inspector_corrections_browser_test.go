package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestInspectorCorrectionsInBrowser drives the inspector's corrections in a real Chromium
// against serve --demo: an edit made through the API arrives live in a viewer's column,
// in place and marked edited; the operator redacts the row from the desk column (a button
// that asks twice), and the row becomes a stub in the desk column and in the viewer's,
// whose DOM then holds none of its words; so does one redacted with the desk column's form
// (the keyboard's way); the console has no error.
func TestInspectorCorrectionsInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	srv, url, secret := startDemo(t)
	type css = chromedp.CSS
	triage := column("agent:triage", 0)
	b.signIn(t, url, secret)
	b.run(t, "open Triage's column",
		chromedp.WaitReady(css(`#add-viewer select[name=participant] option[value="agent:triage"]`)),
		chromedp.SetValue(css(`#add-viewer select[name=participant]`), "agent:triage"),
		chromedp.Click(css(`#add-viewer button[type=submit]`)),
		chromedp.WaitVisible(css(triage+` .rows > li`)),
	)

	op := srv.api(secret)
	var posted struct {
		Seq uint64 `json:"seq"`
	}
	const first, second = "The rollout of build 4711 waits for the quokka.", "The rollout of build 4711 waits for the wombat."
	op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": first}, &posted)
	row := fmt.Sprintf(`li[data-seq="%d"]`, posted.Seq)
	b.run(t, "the row in Triage's column", chromedp.WaitVisible(css(triage+" "+row)))

	var edit struct {
		Seq      uint64 `json:"seq"`
		Corrects uint64 `json:"corrects"`
	}
	op.want(http.StatusCreated, "PATCH", fmt.Sprintf("/v1/desks/demo/messages/%d", posted.Seq), map[string]any{"content": second}, &edit)
	if edit.Corrects != posted.Seq {
		t.Fatalf("the edit corrects row %d, want %d", edit.Corrects, posted.Seq)
	}
	b.poll(t, "the edit, live in Triage's column", fmt.Sprintf(`(() => {
		const li = document.querySelector('%s %s');
		return !!li && li.querySelector(".content").textContent === %q && li.dataset.revised === "%d";
	})()`, triage, row, second, edit.Seq))
	if tags := get(t, b, "the edited row's tags", chromedp.Text(css(triage+" "+row+" .tags"))); !strings.Contains(tags, "edited") {
		t.Errorf("the edited row's tags read %q, want it marked edited", tags)
	}
	if n := get(t, b, "rows of the post", chromedp.Evaluate[int](`document.querySelectorAll('`+triage+" "+row+`').length`)); n != 1 {
		t.Errorf("Triage's column shows the edited row %d times, want once (updated in place)", n)
	}

	b.run(t, "redact from the desk column",
		chromedp.WaitVisible(css(`#desk `+row+` button.redact`)),
		chromedp.Click(css(`#desk `+row+` button.redact`)),
		chromedp.WaitVisible(css(`#desk `+row+` button.redact[data-armed="true"]`)),
		chromedp.Click(css(`#desk `+row+` button.redact`)),
	)
	b.run(t, "the stub in the desk column", chromedp.WaitVisible(css(`#desk `+row+`.redacted`)))
	b.run(t, "the stub in Triage's column", chromedp.WaitVisible(css(triage+" "+row+`.redacted`)))
	html := get(t, b, "the page", chromedp.OuterHTML(css(`#columns`)))
	for _, words := range []string{first, second, "4711", "quokka", "wombat"} {
		if strings.Contains(html, words) {
			t.Errorf("after the redaction the page still holds %q", words)
		}
	}

	// The keyboard's way: the desk column's form, a row's number, submitted twice.
	const third = "Build 4711's canary key is k-0042."
	op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": third}, &posted)
	row = fmt.Sprintf(`li[data-seq="%d"]`, posted.Seq)
	b.run(t, "redact with the desk column's form",
		chromedp.WaitVisible(css(`#desk `+row)),
		chromedp.SendKeys(css(`#desk .redact-row input[name=seq]`), fmt.Sprint(posted.Seq)),
		chromedp.Click(css(`#desk .redact-row button`)),
	)
	b.poll(t, "the form asks again", `document.querySelector("#desk .redact-row .status").textContent.includes("again")`)
	b.run(t, "confirm with the desk column's form",
		chromedp.Click(css(`#desk .redact-row button`)),
		chromedp.WaitVisible(css(`#desk `+row+`.redacted`)),
		chromedp.WaitVisible(css(triage+" "+row+`.redacted`)),
	)
	if html := get(t, b, "the page", chromedp.OuterHTML(css(`#columns`))); strings.Contains(html, "k-0042") {
		t.Error("after the form's redaction the page still holds the row's words")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// holdFetch wraps the page's fetch: each answer is read whole when it comes, and the
// first read of a view begun after the page sets window.holdView is held, its answer read
// already, until the page calls window.releaseView(); window.fetching counts the reads
// whose answer the page has not yet taken (in a later task than its taking, every
// continuation of it has run up to the page's next read or its end).
const holdFetch = `(() => {
	const real = window.fetch;
	window.fetching = 0;
	window.holdView = false;
	window.heldView = false;
	window.fetch = async (...args) => {
		window.fetching++;
		const hold = window.holdView && String(args[0]).includes("/view?");
		if (hold) window.holdView = false;
		const res = await real(...args);
		const body = await res.text();
		if (hold) {
			window.heldView = true;
			await new Promise((r) => (window.releaseView = r));
		}
		const answer = new Response(res.status === 204 ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
		const taken = () => window.fetching--;
		if (res.status === 204) taken();
		answer.json = () => { taken(); return Promise.resolve(JSON.parse(body)); };
		answer.text = () => { taken(); return Promise.resolve(body); };
		return answer;
	};
})()`

// TestInspectorRedactionErasesHiddenInBrowser checks a redaction takes the erased words
// out of the whole document, hidden elements too, in a real Chromium against serve --demo:
// a read of a viewer's column begun before the redaction and answered after it is let go
// (its answer holds the row as it was); a column switched to the model input keeps no rows
// behind it, and after a redaction there, holds none of the row's words, nor does it back
// on its rows, where the row is a stub.
func TestInspectorRedactionErasesHiddenInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	srv, url, secret := startDemo(t)
	type css = chromedp.CSS
	triage := column("agent:triage", 0)
	b.signIn(t, url, secret)
	b.addViewer(t, "agent:triage", 0)
	op := srv.api(secret)
	post := func(content string) string {
		t.Helper()
		var m struct {
			Seq uint64 `json:"seq"`
		}
		op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": content}, &m)
		row := fmt.Sprintf(`li[data-seq="%d"]`, m.Seq)
		b.run(t, "the row in Triage's column", chromedp.WaitVisible(css(triage+" "+row)))
		return fmt.Sprintf("/v1/desks/demo/messages/%d", m.Seq)
	}
	page := func(what string) string {
		t.Helper()
		return get(t, b, what, chromedp.Evaluate[string](`document.documentElement.outerHTML`))
	}

	// A read of the view in flight across the redaction.
	path := post("The dingo's passphrase is dingo-7781.")
	row := `li[data-seq="` + path[strings.LastIndex(path, "/")+1:] + `"]`
	get(t, b, "hold the next read of a view", chromedp.Evaluate[bool](holdFetch+`; window.holdView = true`))
	b.run(t, "read Triage's view again", chromedp.Click(css(triage+` button[data-show="rows"]`)))
	b.poll(t, "the read answered and held", `window.heldView`)
	op.want(http.StatusCreated, "DELETE", path, nil, nil)
	b.run(t, "the stub in Triage's column", chromedp.WaitVisible(css(triage+" "+row+`.redacted`)))
	get(t, b, "answer the held read", chromedp.Evaluate[bool](`window.releaseView(), true`))
	b.poll(t, "every read answered and taken", `window.fetching === 0`)
	if html := page("the page after the held read"); strings.Contains(html, "dingo") {
		t.Error("a read of the view begun before the redaction drew its erased words")
	}
	b.run(t, "the stub stays", chromedp.WaitVisible(css(triage+" "+row+`.redacted`)))

	// A column on the model input.
	path = post("The koala's passphrase is koala-5512.")
	row = `li[data-seq="` + path[strings.LastIndex(path, "/")+1:] + `"]`
	b.run(t, "the model input",
		chromedp.Click(css(triage+` button[data-show="openai"]`)),
		chromedp.WaitVisible(css(triage+` .model pre.turn`)),
	)
	if n := get(t, b, "rows behind the model input", chromedp.Evaluate[int](`document.querySelectorAll('`+triage+` .rows > li').length`)); n != 0 {
		t.Errorf("behind the model input Triage's column keeps %d rows, want none", n)
	}
	op.want(http.StatusCreated, "DELETE", path, nil, nil)
	b.run(t, "the stub in the desk column", chromedp.WaitVisible(css(`#desk `+row+`.redacted`)))
	b.poll(t, "the page drops the row's words", `!document.documentElement.outerHTML.includes("koala")`)
	b.run(t, "back to the rows",
		chromedp.Click(css(triage+` button[data-show="rows"]`)),
		chromedp.WaitVisible(css(triage+" "+row+`.redacted`)),
	)
	if html := page("the page back on the rows"); strings.Contains(html, "koala") {
		t.Error("back on its rows, the page holds the redacted row's words")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
