package main

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/demodesk"
)

// TestInspectorSearchInBrowser drives the inspector's search boxes in a real Chromium
// against serve --demo: a word typed in a viewer column's box finds, newest first, the
// rows that participant may read — the Reviewer's box none of the Operator's aside to
// Triage, whose words its column's DOM never holds, Triage's box the aside and its reply
// too; a hit's seq shows its row in the desk column, its thread unfolded, and reads older
// rows until it is there; More pages through next; a hit's content is text, never markup;
// a redaction takes its row's hit off the page; the console has no error.
func TestInspectorSearchInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	srv, url, secret := startDemo(t)
	_, marks := demodesk.Scenario()
	lock := uint64(marks.DeployThread) + 2 // the Reviewer's reply in the deploy thread: "It takes an exclusive lock ... split it in two."
	aside := uint64(marks.Aside)

	type css = chromedp.CSS
	triage, review := column("agent:triage", 0), column("agent:review", 0)
	b.signIn(t, url, secret)
	for _, p := range []string{"agent:triage", "agent:review"} {
		b.run(t, "open the column of "+p,
			chromedp.WaitReady(css(`#add-viewer select[name=participant] option[value="`+p+`"]`)),
			chromedp.SetValue(css(`#add-viewer select[name=participant]`), p),
			chromedp.Click(css(`#add-viewer button[type=submit]`)),
			chromedp.WaitVisible(css(column(p, 0)+` .rows > li`)),
		)
	}
	search := func(col, words string) { t.Helper(); b.search(t, col, words) }
	hits := func(col string, want int) []uint64 { t.Helper(); return b.hits(t, col, want) }

	search(review, "SPLIT")
	if got := hits(review, 1); !slices.Equal(got, []uint64{lock}) {
		t.Errorf("the Reviewer's hits for split: %v, want #%d alone", got, lock)
	}
	search(triage, "split")
	if got, want := hits(triage, 3), []uint64{aside + 1, aside, lock}; !slices.Equal(got, want) {
		t.Errorf("Triage's hits for split: %v, want %v (newest first)", got, want)
	}
	hit := get(t, b, "Triage's newest hit", chromedp.Text(css(triage+` .hit-list > li`)))
	if !strings.Contains(hit, "#"+fmt.Sprint(aside+1)) || !strings.Contains(hit, "you (Triage)") || !strings.Contains(hit, "hold the split") {
		t.Errorf("Triage's newest hit reads %q, want its seq, its author and its content", hit)
	}
	search(review, "migration split")
	hits(review, 0)
	if html := get(t, b, "the Reviewer's column", chromedp.OuterHTML(css(review))); strings.Contains(html, "between us") || strings.Contains(html, "Hold the migration") {
		t.Error("the Reviewer's column holds words of the aside to Triage")
	}

	// A hit's seq shows its row in the desk column: a reply, its thread unfolded; an old
	// row, once the column has read back to it.
	search(review, "split")
	hits(review, 1)
	b.run(t, "show the Reviewer's hit in the desk",
		chromedp.Click(css(review+` .hit-list > li button.seq`)),
		chromedp.WaitVisible(css(fmt.Sprintf(`#desk details[open] li.found[data-seq="%d"]`, lock))),
	)
	search(triage, "postmortem")
	if got := hits(triage, 2); !slices.Equal(got, []uint64{2, 1}) {
		t.Errorf("Triage's hits for postmortem: %v, want #2 and #1", got)
	}
	b.run(t, "show the desk's first row",
		chromedp.Click(css(triage+` .hit-list > li[data-seq="1"] button.seq`)),
		chromedp.WaitVisible(css(`#desk li.found[data-seq="1"]`)),
	)

	// More pages through next: the CI's flaky notices are many.
	search(review, "flaky login_flow")
	first := hits(review, 20)
	b.run(t, "more", chromedp.Click(css(review+` .hits button.more`)))
	all := hits(review, 40)
	if !slices.Equal(all[:20], first) || !slices.IsSortedFunc(all, func(a, b uint64) int { return int(b) - int(a) }) || all[19] <= all[20] {
		t.Errorf("two pages of hits: %v, want the first page then older hits, newest first", all)
	}

	// A hit's content is text, never markup.
	const markup = `<img src="x" onerror="window.injected = true"> zanzibar`
	var posted struct {
		Seq uint64 `json:"seq"`
	}
	srv.api(secret).want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": markup}, &posted)
	search(review, "zanzibar")
	hits(review, 1)
	if text := get(t, b, "the markup's hit", chromedp.Text(css(review+` .hit-list .content`))); text != markup {
		t.Errorf("the hit reads %q, want the content as text %q", text, markup)
	}
	if n := get(t, b, "images in the hits", chromedp.Evaluate[int](`document.querySelectorAll(".hit-list img").length + (window.injected ? 100 : 0)`)); n != 0 {
		t.Error("a hit's content was parsed as HTML")
	}

	// A redaction takes the hit of its row off the page: nothing finds erased content.
	srv.api(secret).want(http.StatusCreated, "DELETE", fmt.Sprintf("/v1/desks/demo/messages/%d", posted.Seq), nil, nil)
	hits(review, 0)
	if html := get(t, b, "the page", chromedp.OuterHTML(css(`#columns`))); strings.Contains(html, "zanzibar") {
		t.Error("after the redaction the page still holds the hit's words")
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}

// search types words in the search box of col (a column's CSS selector) and submits them.
func (b *browser) search(t *testing.T, col, words string) {
	t.Helper()
	b.run(t, "search "+words+" in "+col,
		chromedp.Evaluate[chromedp.Void](`void (document.querySelector('`+col+` .search input[name=q]').value = "")`),
		chromedp.SendKeys(chromedp.CSS(col+` .search input[name=q]`), words),
		chromedp.Click(chromedp.CSS(col+` .search button[type=submit]`)),
	)
}

// hits waits until the search box of col lists want hits, and returns their seqs in order.
func (b *browser) hits(t *testing.T, col string, want int) []uint64 {
	t.Helper()
	b.poll(t, fmt.Sprintf("%d hits in %s", want, col), fmt.Sprintf(`document.querySelectorAll('%s .hit-list > li').length === %d`, col, want))
	return get(t, b, "the hits of "+col, chromedp.Evaluate[[]uint64](`[...document.querySelectorAll('`+col+` .hit-list > li')].map((li) => Number(li.dataset.seq))`))
}

// settled waits until the search box of col says status, its answer drawn.
func (b *browser) settled(t *testing.T, col, status string) {
	t.Helper()
	b.poll(t, col+" says "+status, fmt.Sprintf(`document.querySelector('%s .hits .status').textContent === %q`, col, status))
}

// holdSearch wraps the page's fetch: the answer to the next search request is read whole,
// then held until window.releaseSearch() (set once it is held); window.rowReads counts the
// requests of the desk's rows.
const holdSearch = `void (() => {
	const fetch = window.fetch;
	window.rowReads = 0;
	window.holdNextSearch = true;
	window.fetch = async (url, init) => {
		if (String(url).includes("/rows?")) window.rowReads++;
		const res = await fetch(url, init);
		if (!String(url).includes("/search?") || !window.holdNextSearch) return res;
		window.holdNextSearch = false;
		const body = await res.text();
		await new Promise((release) => (window.releaseSearch = release));
		return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
	};
})()`

// TestInspectorSearchIsCurrentInBrowser: the page never shows erased content in a hit,
// whatever order the answers and the desk's stream come in — an answer read before a
// redaction that arrives after the redaction's event draws nothing of the row, and a
// reinitialization, which a redaction in the gap never crosses, asks every search again;
// a hit's seq reads at most a bounded number of rows back to show it, and says when its
// row is further back than that.
func TestInspectorSearchIsCurrentInBrowser(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b := newBrowser(t, ctx)
	db := filepath.Join(t.TempDir(), "demo.db")
	srv, url, secret := startDemoAt(t, db)
	op := srv.api(secret)
	b.signIn(t, url, secret)
	const box = "#desk" // the operator's search box
	post := func(content string) uint64 {
		t.Helper()
		var m struct {
			Seq uint64 `json:"seq"`
		}
		op.want(http.StatusCreated, "POST", "/v1/desks/demo/messages", map[string]any{"content": content}, &m)
		b.run(t, "the posted row in the desk column", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#desk .rows li[data-seq="%d"]`, m.Seq))))
		return m.Seq
	}
	noneOf := func(secret string) {
		t.Helper()
		if html := get(t, b, "the page", chromedp.OuterHTML(chromedp.CSS(`body`))); strings.Contains(html, secret) {
			t.Errorf("the page holds the erased %q", secret)
		}
	}

	// The answer was read before the redaction, and arrives after its event.
	narwhal := post("the narwhal password is hunter2")
	b.run(t, "hold the next search's answer", chromedp.Evaluate[chromedp.Void](holdSearch))
	b.search(t, box, "narwhal")
	b.poll(t, "the search's answer held", `typeof window.releaseSearch === "function"`)
	op.want(http.StatusCreated, "DELETE", fmt.Sprintf("/v1/desks/demo/messages/%d", narwhal), nil, nil)
	b.run(t, "the redaction in the desk column", chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#desk .rows li.redacted[data-seq="%d"]`, narwhal))))
	b.run(t, "let the held answer go", chromedp.Evaluate[chromedp.Void](`void window.releaseSearch()`))
	b.settled(t, box, "No row holds every word.")
	b.hits(t, box, 0)
	noneOf("hunter2")

	// A redaction in a reinitialization's gap, with more rows than the reach of a hit's seq.
	quokka := post("the quokka vault code is marmalade")
	b.search(t, box, "quokka")
	b.settled(t, box, "1 row, newest first.")
	if got := b.hits(t, box, 1); !slices.Equal(got, []uint64{quokka}) {
		t.Fatalf("the hits for quokka: %v, want #%d", got, quokka)
	}
	st, err := dbflag.Flags{DB: db}.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	gap := []transcript.Message{{Author: transcript.Operator(), Corrects: transcript.Sequence(quokka), Redacted: true}}
	for i := range 2 * 4096 {
		gap = append(gap, transcript.Message{Author: transcript.System("workflow", "CI"), Content: fmt.Sprintf("build #%d passed", 9000+i)})
	}
	if err := st.AppendBatch(ctx, demoDesk, gap); err != nil {
		t.Fatal(err)
	}
	st.Close()
	b.poll(t, "a reinitialization in the desk column", `(n => !!n && n.textContent.includes("Reinitialized (gap_too_large)"))(document.querySelector('#desk .notice.reinit'))`)
	b.settled(t, box, "No row holds every word.")
	b.hits(t, box, 0)
	noneOf("marmalade")

	// The desk's first row is now thousands of rows older than those the column holds.
	b.search(t, box, "postmortem")
	b.settled(t, box, "2 rows, newest first.")
	b.run(t, "show the desk's first row",
		chromedp.Evaluate[chromedp.Void](`void (window.rowReads = 0)`),
		chromedp.Click(chromedp.CSS(box+` .hit-list > li[data-seq="1"] button.seq`)),
	)
	b.poll(t, "the desk column says the row is too far back", `document.querySelector('#desk .notice').textContent.includes("#1 is too far back")`)
	if n := get(t, b, "the requests of rows", chromedp.Evaluate[int](`window.rowReads`)); n > 4096/512 {
		t.Errorf("showing a far hit read the rows %d times, want at most %d", n, 4096/512)
	}
	if n := get(t, b, "the first row in the desk column", chromedp.Evaluate[int](`document.querySelectorAll('#desk .rows li[data-seq="1"]').length`)); n != 0 {
		t.Error("the desk column read back to the first row")
	}

	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %q", errs)
	}
}
