package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sharedesk/transcript/internal/demodesk"
)

// TestInspectorEditsInBrowser drives the operator's edits in a real Chromium against serve
// --demo: a row the operator posted from the page has an Edit button in the desk column, a
// row of anyone else none; Edit puts the row in the compose form, whose conversation and
// aside's readers an edit keeps; saving it edits the row, which the desk column and a
// viewer's column then show edited, in place; Cancel and a redaction of the row leave the
// edit, the form posting again; once the last viewer column is closed the page says again
// how to add one; the console has no error.
func TestInspectorEditsInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	srv, url, secret := startDemo(t)
	_, marks := demodesk.Scenario()
	type css = chromedp.CSS
	triage := column("agent:triage", 0)
	b.signIn(t, url, secret)
	b.addViewer(t, "agent:triage", 0)

	post := func(content string) uint64 {
		t.Helper()
		b.run(t, "post "+content,
			chromedp.Evaluate[chromedp.Void](`void (document.querySelector("#compose .status").textContent = "")`),
			setComposeText(""),
			chromedp.SendKeys(css(`#compose textarea`), content),
			chromedp.Click(css(`#compose button[type=submit]`)),
		)
		b.poll(t, "the post's status", `document.querySelector("#compose .status").textContent.startsWith("Posted #")`)
		var seq uint64
		status := get(t, b, "the compose status", chromedp.Text(css(`#compose .status`)))
		if _, err := fmt.Sscanf(status, "Posted #%d", &seq); err != nil {
			t.Fatalf("compose says %q: %v", status, err)
		}
		b.run(t, "the post in the columns",
			chromedp.WaitVisible(css(fmt.Sprintf(`#desk li[data-seq="%d"] button.edit`, seq))),
			chromedp.WaitVisible(css(fmt.Sprintf(`%s li[data-seq="%d"]`, triage, seq))),
		)
		return seq
	}
	formIs := func(title, submit string, disabled bool) {
		t.Helper()
		got := get(t, b, "the compose form", chromedp.Evaluate[[]string](`(() => {
			const f = document.getElementById("compose");
			return [document.getElementById("compose-title").textContent, f.querySelector("button[type=submit]").textContent,
				String(f.conversation.disabled), String(f.querySelector(".audience").disabled), String(f.querySelector(".cancel").hidden)];
		})()`))
		if want := []string{title, submit, fmt.Sprint(disabled), fmt.Sprint(disabled), fmt.Sprint(!disabled)}; strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("the compose form is %q, want %q (title, button, conversation and readers disabled, cancel hidden)", got, want)
		}
	}

	const before, after = "Deploy window tonight: 22:00.", "Deploy window tonight: 23:00."
	seq := post(before)
	row := fmt.Sprintf(`li[data-seq="%d"]`, seq)
	if n := get(t, b, "Edit buttons on others' rows", chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('#desk li[data-seq="%d"] > .meta button.edit').length`, marks.Question))); n != 0 {
		t.Errorf("Ana's row #%d has an Edit button in the desk column: only the operator's own rows do", marks.Question)
	}
	if n := get(t, b, "Edit buttons in a viewer's column", chromedp.Evaluate[int](`document.querySelectorAll('.viewer-column button.edit').length`)); n != 0 {
		t.Errorf("a viewer's column has %d Edit buttons, want none: it shows what its participant sees", n)
	}

	// The desk column is drawn afresh with each row: its buttons are clicked as found.
	b.run(t, "edit the row", clickNow(`#desk `+row+` button.edit`))
	formIs(fmt.Sprintf("Edit #%d, the operator's", seq), "Save the edit", true)
	if got := get(t, b, "the form's content", chromedp.Value(css(`#compose textarea`))); got != before {
		t.Errorf("Edit puts %q in the form, want the row's content %q", got, before)
	}
	b.run(t, "change and save",
		setComposeText(after),
		chromedp.Click(css(`#compose button[type=submit]`)),
	)
	b.poll(t, "the edit's status", fmt.Sprintf(`document.querySelector("#compose .status").textContent.startsWith("Edited #%d")`, seq))
	for _, col := range []string{`#desk`, triage} {
		b.poll(t, "the edit in "+col, fmt.Sprintf(`(() => {
			const li = document.querySelector('%s %s');
			return !!li && li.querySelector(".content").textContent === %q && li.querySelector(".tags").textContent.includes("edited");
		})()`, col, row, after))
	}
	if n := get(t, b, "the edited row in Triage's column", chromedp.Evaluate[int](`document.querySelectorAll('`+triage+" "+row+`').length`)); n != 1 {
		t.Errorf("Triage's column shows the edited row %d times, want once, in place", n)
	}
	formIs("Post as the operator", "Post", false)

	// Cancel leaves an edit; so does a redaction of the row being edited.
	b.run(t, "edit, then cancel", clickNow(`#desk `+row+` button.edit`), chromedp.Click(css(`#compose .cancel`)))
	formIs("Post as the operator", "Post", false)
	b.run(t, "edit again", clickNow(`#desk `+row+` button.edit`))
	srv.api(secret).want(http.StatusCreated, "DELETE", fmt.Sprintf("/v1/desks/demo/messages/%d", seq), nil, nil)
	b.poll(t, "the form says the row is gone", fmt.Sprintf(`document.querySelector("#compose .status").textContent === "#%d was redacted: there is nothing to edit."`, seq))
	formIs("Post as the operator", "Post", false)
	if got := get(t, b, "the form's content", chromedp.Value(css(`#compose textarea`))); got != "" {
		t.Errorf("after the redaction the form still holds %q", got)
	}

	b.run(t, "close the last column",
		chromedp.Click(css(triage+` .close`)),
		chromedp.WaitVisible(css(`#viewer-hint`)),
	)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// setComposeText sets the text of the compose form's message.
func setComposeText(text string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void (document.querySelector("#compose textarea").value = %q)`, text))
}

// clickNow clicks the element sel selects as the page holds it now: one step, so that a
// list drawn afresh between finding the element and clicking it cannot take the click.
// sel must select an element.
func clickNow(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`void document.querySelector(%q).click()`, sel))
}
