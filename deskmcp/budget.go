package deskmcp

import (
	"strings"
	"sync"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/sharedesk/transcript/internal/cut"
	"github.com/sharedesk/transcript/render"
)

// A max_tokens bound is counted with o200k_base, the encoding of OpenAI's current models,
// whose vocabulary github.com/tiktoken-go/tokenizer compiles into the binary: nothing is
// downloaded at run time. For other models' tokenizers the count is an estimate.
var o200k = sync.OnceValue(codec.NewO200kBase)

// countTokens returns how many o200k tokens text takes. The tools' text is valid UTF-8 (the
// renderer replaces what is not); were it not, the count falls back to its bytes, which no
// encoding exceeds.
func countTokens(text string) int {
	n, err := o200k().Count(text)
	if err != nil {
		return len(text)
	}
	return n
}

// joinBlocks is a result's text: its header line, then each block on lines of its own.
func joinBlocks(header string, blocks []render.Block) string {
	var b strings.Builder
	b.WriteString(header)
	for _, x := range blocks {
		b.WriteByte('\n')
		b.WriteString(x.Text)
	}
	return b.String()
}

// blockTokens counts blocks as joinBlocks lays them out.
func blockTokens(blocks []render.Block) int {
	n := 0
	for _, x := range blocks {
		n += countTokens("\n" + x.Text)
	}
	return n
}

// A chunk is a run of blocks kept or dropped whole: one item with the elisions next to it.
// A delta's items are its messages and its corrections; it is cut before an item
// (sharing.Delta.Below), so its elisions go with the item before them. A view's items are
// its messages; it is cut after one, so its elisions go with the message after them.

// chunksAfter splits blocks into the elisions before the first item (a message or a
// correction) and chunks of an item with the elisions after it.
func chunksAfter(blocks []render.Block) (lead []render.Block, chunks [][]render.Block) {
	start := -1
	for i := range blocks {
		if blocks[i].Message == nil {
			continue
		}
		s := i
		if start < 0 {
			lead = blocks[:s]
		} else {
			chunks = append(chunks, blocks[start:s])
		}
		start = s
	}
	if start < 0 {
		return blocks, nil
	}
	return lead, append(chunks, blocks[start:])
}

// chunksBefore splits blocks into chunks of a message with the elisions before it, and the
// elisions after the last message.
func chunksBefore(blocks []render.Block) (chunks [][]render.Block, trail []render.Block) {
	start := 0
	for i, x := range blocks {
		if x.Message != nil {
			chunks = append(chunks, blocks[start:i+1])
			start = i + 1
		}
	}
	return chunks, blocks[start:]
}

// firstThatFit fits blocks in max tokens in the order given (a delta's oldest first,
// search hits newest first): the elisions before the first message, then each message
// with the elisions after it, for as long as they fit
// under the header that header(kept) returns for kept messages. It returns how many
// messages fit and the text; kept is 0 when even the first message does not fit, and then
// the text holds the leading elisions only if they fit (ok).
func firstThatFit(blocks []render.Block, max int, header func(kept int) string) (kept int, text string, ok bool) {
	lead, chunks := chunksAfter(blocks)
	textOf := func(kept int) string {
		end := len(lead)
		for _, c := range chunks[:kept] {
			end += len(c)
		}
		return joinBlocks(header(kept), blocks[:end])
	}
	kept = estimate(countTokens(header(len(chunks)))+blockTokens(lead), max, len(chunks), func(i int) []render.Block { return chunks[i] })
	return settle(kept, len(chunks), max, textOf)
}

// newestFirst fits a view's blocks in max tokens by dropping its oldest messages, each
// with the elisions before it, under the header that header(dropped) returns. A pinned
// first message (a thread's root) is never dropped, nor are the elisions after the newest
// message. It returns how many messages were dropped and the text; ok is false when not
// even the newest message fits (with the pinned root), and then the text is empty.
func newestFirst(blocks []render.Block, pinned bool, max int, header func(dropped int) string) (dropped int, text string, ok bool) {
	chunks, trail := chunksBefore(blocks)
	var root []render.Block
	if pinned && len(chunks) > 0 {
		root, chunks = chunks[0], chunks[1:]
	}
	textOf := func(taken int) string {
		kept := append([]render.Block(nil), root...)
		for _, c := range chunks[len(chunks)-taken:] {
			kept = append(kept, c...)
		}
		return joinBlocks(header(len(chunks)-taken), append(kept, trail...))
	}
	used := countTokens(header(len(chunks))) + blockTokens(root) + blockTokens(trail)
	taken := estimate(used, max, len(chunks), func(i int) []render.Block { return chunks[len(chunks)-1-i] })
	taken, text, ok = settle(taken, len(chunks), max, textOf)
	if !ok || (taken == 0 && len(chunks) > 0) {
		return len(chunks), "", false
	}
	return len(chunks) - taken, text, true
}

// estimate returns how many of n chunks, taken in the order chunk gives them, fit in max
// tokens after used, counting each chunk apart: the walk's cut (cut.Within) by their
// tokens, none when not even the first fits. Chunks past the first that does not fit are
// never counted: the cost follows max, not the delta.
func estimate(used, max, n int, chunk func(i int) []render.Block) int {
	if used >= max {
		return 0
	}
	first := 0
	k := cut.Within(n, max-used, func(i int) int {
		c := blockTokens(chunk(i))
		if i == 0 {
			first = c
		}
		return c
	})
	if k > 0 && used+first > max {
		return 0
	}
	return k
}

// settle moves the estimate k to the most chunks (of n) whose whole text, textOf(k), fits
// in max tokens: counted apart, tokens merged across a line break can make the estimate
// one off either way. ok is false when not even textOf(0) fits.
func settle(k, n, max int, textOf func(int) string) (int, string, bool) {
	text := textOf(k)
	for countTokens(text) > max {
		if k == 0 {
			return 0, "", false
		}
		k--
		text = textOf(k)
	}
	for k < n {
		more := textOf(k + 1)
		if countTokens(more) > max {
			break
		}
		k, text = k+1, more
	}
	return k, text, true
}
