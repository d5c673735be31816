package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/codemode/codemode/codemode"
	"github.com/codemode/codemode/internal/edge/stdiox"
)

// Clients of `--via mcp` (Options.Client).
const (
	// ClientSDK is the go-sdk's client (internal/gosdk) over this
	// repository's framing: what a Go agent would use.
	ClientSDK = "sdk"
	// ClientRaw is rawClient: JSON-RPC written and read directly on the
	// pipes, so that the client's own cost (and wake-ups) weigh as little
	// as they can on every round trip.
	ClientRaw = "raw"
)

// rawProtocolVersion is the MCP revision rawClient asks for: one that
// both the go-sdk (codemode serve) and the TypeScript SDK (the peer)
// accept.
const rawProtocolVersion = "2025-06-18"

// rawClient is a minimal MCP client over a child's stdin and stdout
// (newline-delimited JSON-RPC 2.0): initialize, notifications/initialized,
// then tools/call of code_run, one call at a time. It reads frames until
// the reply with its call's id, skips the server's notifications
// (progress, logging), answers the server's requests (ping with an empty
// result, anything else with "method not found"), and decodes only what
// the bench needs: the error of a JSON-RPC error reply, isError and its
// text, and the structured result's value. The pipes are read and written
// with raw system calls that wait in the netpoller (stdiox.RawPipe), never
// in a blocking read (CONTRACT §8).
//
// It is the light client of the bench's --client raw, for the server and
// the same-protocol peer alike, so that a round trip's figure is the
// server's and the pipe's more than the client's.
type rawClient struct {
	cmd      *exec.Cmd
	inF      *os.File       // the child's stdin, our end
	in       io.WriteCloser // inF, with raw writes
	outF     *os.File       // the child's stdout, our end
	out      *stdiox.FrameReader
	outRaw   io.ReadCloser
	id       int64
	wbuf     []byte
	code     string // the last program written, and its JSON string
	codeJSON []byte
	reply    rawReply
	err      error // the connection is broken: every call fails with it
}

// rawReply is what rawClient decodes of a frame.
type rawReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	Result struct {
		ProtocolVersion string `json:"protocolVersion"` // initialize
		IsError         bool   `json:"isError"`
		Content         []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent *struct {
			Value json.RawMessage `json:"value"`
		} `json:"structuredContent"`
	} `json:"result"`
}

// startRawClient starts cmd (its Stdin and Stdout are set here) and
// initializes the session.
func startRawClient(ctx context.Context, cmd *exec.Cmd) (*rawClient, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	// The child has its ends (or never will): ours are the other two.
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	c := &rawClient{cmd: cmd, inF: inW, in: stdiox.RawPipe(inW), outF: outR}
	c.outRaw = stdiox.RawPipe(outR)
	c.out = stdiox.NewFrameReader(c.outRaw, 0)
	if err := c.initialize(ctx); err != nil {
		c.close()
		return nil, err
	}
	return c, nil
}

func (c *rawClient) initialize(ctx context.Context) error {
	c.id++
	c.wbuf = append(c.wbuf[:0], `{"jsonrpc":"2.0","id":`...)
	c.wbuf = strconv.AppendInt(c.wbuf, c.id, 10)
	c.wbuf = append(c.wbuf, `,"method":"initialize","params":{"protocolVersion":"`+rawProtocolVersion+`","capabilities":{},"clientInfo":{"name":"codemode-bench","version":"1"}}}`+"\n"...)
	if err := c.roundTrip(ctx); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if c.reply.Result.ProtocolVersion == "" {
		return errors.New("initialize: the reply has no protocolVersion")
	}
	c.wbuf = append(c.wbuf[:0], `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"...)
	if _, err := c.in.Write(c.wbuf); err != nil {
		c.err = fmt.Errorf("writing to the server: %w", err)
		return c.err
	}
	return nil
}

// codeRun runs code with code_run and returns the program's value.
func (c *rawClient) codeRun(ctx context.Context, code string) (json.RawMessage, error) {
	if code != c.code || c.codeJSON == nil {
		b, err := json.Marshal(code)
		if err != nil {
			return nil, err
		}
		c.code, c.codeJSON = code, b
	}
	c.id++
	c.wbuf = append(c.wbuf[:0], `{"jsonrpc":"2.0","id":`...)
	c.wbuf = strconv.AppendInt(c.wbuf, c.id, 10)
	c.wbuf = append(c.wbuf, `,"method":"tools/call","params":{"name":"`+codemode.ToolCodeRun+`","arguments":{"code":`...)
	c.wbuf = append(c.wbuf, c.codeJSON...)
	c.wbuf = append(c.wbuf, "}}}\n"...)
	if err := c.roundTrip(ctx); err != nil {
		return nil, fmt.Errorf("code_run over MCP: %w", err)
	}
	r := &c.reply.Result
	if r.IsError {
		var texts []string
		for _, ct := range r.Content {
			if ct.Type == "text" {
				texts = append(texts, ct.Text)
			}
		}
		return nil, fmt.Errorf("code_run: %s", strings.Join(texts, "\n"))
	}
	if r.StructuredContent == nil {
		return nil, errors.New("code_run: the result has no structured content")
	}
	if r.StructuredContent.Value == nil {
		return nil, errors.New("code_run: the program returned nothing")
	}
	return r.StructuredContent.Value, nil
}

// aLongTimeAgo is a deadline already passed: it wakes a waiting read or
// write when the caller's context ends.
var aLongTimeAgo = time.Unix(1, 0)

// roundTrip writes the request in c.wbuf (whose id is c.id) and reads
// frames until its reply, which it leaves decoded in c.reply. A JSON-RPC
// error reply is an error.
func (c *rawClient) roundTrip(ctx context.Context) error {
	if c.err != nil {
		return c.err
	}
	if ctx.Done() != nil {
		stop := context.AfterFunc(ctx, func() {
			_ = c.outF.SetReadDeadline(aLongTimeAgo)
			_ = c.inF.SetWriteDeadline(aLongTimeAgo)
		})
		defer func() {
			if !stop() {
				// The context ended during the call: the stream is
				// somewhere inside a frame, so the session is over.
				c.err = fmt.Errorf("the session was abandoned: %w", context.Cause(ctx))
			}
		}()
	}
	if _, err := c.in.Write(c.wbuf); err != nil {
		c.err = fmt.Errorf("writing to the server: %w", err)
		return c.err
	}
	var want [20]byte
	id := strconv.AppendInt(want[:0], c.id, 10)
	for {
		frame, err := c.out.Next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("the server closed its stdout")
			}
			c.err = fmt.Errorf("reading from the server: %w", err)
			return c.err
		}
		c.reply = rawReply{}
		if err := json.Unmarshal(frame, &c.reply); err != nil {
			c.err = fmt.Errorf("reading from the server: frame %.200q: %w", frame, err)
			return c.err
		}
		if c.reply.Method != "" {
			if c.reply.ID != nil {
				if err := c.answer(); err != nil {
					return err
				}
			}
			continue // a notification: progress, a log message
		}
		if e := c.reply.Error; e != nil && (c.reply.ID == nil || string(c.reply.ID) == "null") {
			c.err = fmt.Errorf("error reply without an id %d: %s%s", e.Code, e.Message, dataSuffix(e.Data))
			return c.err
		}
		if !bytes.Equal(c.reply.ID, id) {
			c.err = fmt.Errorf("a reply to id %s while waiting for %s", c.reply.ID, id)
			return c.err
		}
		if e := c.reply.Error; e != nil {
			return fmt.Errorf("error reply %d: %s%s", e.Code, e.Message, dataSuffix(e.Data))
		}
		return nil
	}
}

// answer replies to the server's request in c.reply: a ping with an
// empty result, anything else (the client declared no capabilities) with
// "method not found".
func (c *rawClient) answer() error {
	b := append([]byte(nil), `{"jsonrpc":"2.0","id":`...)
	b = append(b, c.reply.ID...)
	if c.reply.Method == "ping" {
		b = append(b, `,"result":{}}`+"\n"...)
	} else {
		b = append(b, `,"error":{"code":-32601,"message":"method not found"}}`+"\n"...)
	}
	if _, err := c.in.Write(b); err != nil {
		c.err = fmt.Errorf("writing to the server: %w", err)
		return c.err
	}
	return nil
}

func dataSuffix(data json.RawMessage) string {
	if len(data) == 0 || string(data) == "null" {
		return ""
	}
	return fmt.Sprintf(" (%.200s)", data)
}

// close closes the child's stdin, then waits for it to exit: SIGTERM
// after 5 s, SIGKILL after 5 s more; then closes its stdout.
func (c *rawClient) close() {
	c.in.Close()
	done := make(chan struct{})
	go func() {
		_ = c.cmd.Wait() // an exit status on close is not the bench's concern
		close(done)
	}()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		select {
		case <-done:
			c.outRaw.Close()
			return
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Signal(sig)
		}
	}
	<-done
	c.outRaw.Close()
}
