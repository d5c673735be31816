package upstream

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codemode/codemode/internal/config"
	"github.com/codemode/codemode/internal/dev/fakemcp"
	"github.com/codemode/codemode/tools"
	"github.com/codemode/codemode/tools/errs"
)

// echo calls the fake's echo on server with text.
func (h *harness) echo(server, id, text string) *tools.Result {
	h.t.Helper()
	return h.exec(tools.Input{CallID: id, Name: "mcp__" + server + "__echo", Arguments: map[string]any{"text": text}})
}

// wantUntouched checks that the server kept its one connection.
func (h *harness) wantUntouched(name string) {
	h.t.Helper()
	for _, st := range h.m.Status() {
		if st.Name == name && (st.State != StateReady || st.Connects != 1 || st.Failures != 0) {
			h.t.Errorf("status of %s: got %+v, want ready with its first connection and no failure", name, st)
		}
	}
}

func wantMessage(t *testing.T, res *tools.Result, parts ...string) {
	t.Helper()
	for _, p := range parts {
		if !strings.Contains(res.Err.Message, p) {
			t.Errorf("message %q: want it to contain %q", res.Err.Message, p)
		}
	}
}

// The echo reply holds the text twice (structured and as text), so a text
// of 40,000 bytes makes a request under 64 KiB and a reply over it.
const (
	smallLimit = 64 << 10
	bigText    = 40000
)

func TestOversizedReplyFailsOnlyItsCall(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	srv := fakeServer(fakemcp.EnvEvents + "=" + events)
	srv.MaxFrameBytes = smallLimit
	h := start(t, map[string]config.Server{"fake": srv}, Options{})

	// A call in flight across the oversized reply.
	slow := make(chan *tools.Result, 1)
	go func() {
		slow <- h.exec(tools.Input{CallID: "slow", Name: "mcp__fake__slow", Arguments: map[string]any{"ms": 1000}})
	}()
	waitEvent(t, events, func(ev fakemcp.Event) bool { return ev.Kind == fakemcp.EventCall && ev.Tool == "slow" })

	res := h.echo("fake", "big", strings.Repeat("a", bigText))
	wantCode(t, res, errs.CodeResultTooLarge)
	wantMessage(t, res, `"fake"`, "mcp__fake__echo", "65536", "maxFrameBytes", "filter", "paginate")
	if got := res.Err.Info["limit"]; got != int64(smallLimit) {
		t.Errorf("Info[limit]: got %v, want %d", got, smallLimit)
	}

	wantOK(t, <-slow)
	wantOK(t, h.echo("fake", "after", "small"))
	h.wantUntouched("fake")
	if !strings.Contains(h.log.String(), "over the frame limit") {
		t.Errorf("the dropped reply was not logged; log:\n%s", h.log.String())
	}
}

// The hardening finding itself: with the default limit, a 9 MB echo makes
// an 18 MB reply.
func TestNineMegabyteEchoKeepsTheConnection(t *testing.T) {
	skipHeavy(t)
	h := start(t, map[string]config.Server{"fake": fakeServer()}, Options{})
	res := h.echo("fake", "big", strings.Repeat("a", 9<<20))
	wantCode(t, res, errs.CodeResultTooLarge)
	wantMessage(t, res, "16777216")
	wantOK(t, h.echo("fake", "after", "small"))
	h.wantUntouched("fake")
}

func TestOversizedRequestIsNotSent(t *testing.T) {
	events := filepath.Join(t.TempDir(), "events.jsonl")
	srv := fakeServer(fakemcp.EnvEvents + "=" + events)
	srv.MaxFrameBytes = smallLimit
	h := start(t, map[string]config.Server{"fake": srv}, Options{})

	res := h.echo("fake", "too-big", strings.Repeat("a", smallLimit))
	wantCode(t, res, errs.CodeArgumentsTooLarge)
	wantMessage(t, res, `"fake"`, "mcp__fake__echo", "65536", "nothing was sent")
	// The next call is the first the fake sees.
	wantOK(t, h.echo("fake", "good", "small"))
	ev := waitEvent(t, events, func(ev fakemcp.Event) bool { return ev.Kind == fakemcp.EventCall })
	if ev.Seq != 1 || ev.Meta["codemode/callId"] != "good" {
		t.Errorf("first upstream call: got %+v, want seq 1 with call id \"good\"", ev)
	}
	h.wantUntouched("fake")
}

// skipHeavy skips a test that moves tens of megabytes in -short mode and
// under the race detector (where it takes ten times as long).
func skipHeavy(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("moves tens of megabytes; skipped in -short mode and under -race")
	}
}

// A reply just under the limit goes through: the SDK's own bound, set a
// margin above ours, does not trip first.
func TestReplyJustUnderTheLimit(t *testing.T) {
	srv := fakeServer()
	srv.MaxFrameBytes = smallLimit
	h := start(t, map[string]config.Server{"fake": srv}, Options{})
	// The reply is the text twice plus about 180 bytes of envelope.
	text := strings.Repeat("c", smallLimit/2-200)
	res := h.echo("fake", "near", text)
	wantOK(t, res)
	if !strings.Contains(string(res.Value), text) {
		t.Errorf("got a value of %d bytes, want the %d-byte text back", len(res.Value), len(text))
	}
	h.wantUntouched("fake")
}

// A large reply under a raised limit (and over the SDK's default) works.
func TestLargeReplyUnderARaisedLimit(t *testing.T) {
	skipHeavy(t)
	srv := fakeServer()
	srv.MaxFrameBytes = 32 << 20
	h := start(t, map[string]config.Server{"fake": srv}, Options{})
	text := strings.Repeat("b", 10<<20)
	res := h.echo("fake", "big", text)
	wantOK(t, res)
	if !strings.Contains(string(res.Value), text) {
		t.Errorf("got a value of %d bytes, want the %d-byte text back", len(res.Value), len(text))
	}
	h.wantUntouched("fake")
}
