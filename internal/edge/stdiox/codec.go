package stdiox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	segjson "github.com/segmentio/encoding/json"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
)

// The codec reads and writes JSON-RPC 2.0 messages as the SDK's own
// (jsonrpc.DecodeMessage, jsonrpc.EncodeMessage) do, minus their cost: the
// SDK decodes each message through a fresh segmentio/encoding Decoder,
// which allocates a 32 KiB buffer every time (three times per message on
// the read path), and that garbage is most of what the GC of `codemode
// serve` marks (docs/benchmarks.md, "The MCP transport"). Here a frame is
// checked with valid (json.Valid's answer, faster; no allocation; the
// standard library's nesting bound), its top-level members are found by a scanner that only has to
// skip over valid JSON, and one copy of the frame backs every raw member
// of the messages it holds.

var (
	errInvalidJSON    = errors.New("stdiox: frame is not valid JSON")
	errNotObject      = errors.New("stdiox: JSON-RPC message is not an object")
	errEmptyBatch     = errors.New("stdiox: empty batch")
	errInvalidRequest = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request"}
)

// maxNesting is encoding/json's bound on nesting, which json.Valid
// enforced here before: a frame nested deeper is not valid JSON to us.
const maxNesting = 10000

// valid reports whether frame is one JSON value, as encoding/json.Valid
// does (FuzzValid compares them), ~19 times as fast on a frame that is
// mostly one long string (a 12 MB program: 38 → 2 ms), which every later
// request of a stdio session waits behind: segmentio/encoding's Valid
// (the go-sdk's JSON library), which has no nesting bound, and the
// standard library's bound checked by a scan that skips strings with
// bytes.IndexByte.
func valid(frame []byte) bool {
	if !segjson.Valid(frame) {
		return false
	}
	depth := 0
	for i := 0; i < len(frame); i++ {
		switch frame[i] {
		case '"':
			i = closingQuote(frame, i+1)
		case '{', '[':
			if depth++; depth > maxNesting {
				return false
			}
		case '}', ']':
			depth--
		}
	}
	return true
}

// closingQuote returns the index of the quote that closes the string
// whose contents start at i (a quote after an odd run of backslashes is
// escaped), or len(b)-1 when there is none.
func closingQuote(b []byte, i int) int {
	for {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b) - 1
		}
		q := i + j
		n := 0
		for k := q - 1; k >= i && b[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
}

// decodeFrame decodes one frame: a message, or a batch (an array of them).
// It does not keep frame.
func decodeFrame(frame []byte) ([]jsonrpc.Message, error) {
	if !valid(frame) {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", errInvalidJSON)
	}
	return decodeValid(bytes.Clone(bytes.TrimSpace(frame)))
}

// decodeOwnedFrame is decodeFrame for a frame nothing else will write to
// (frameReader.detach): its messages' raw members are slices of it, which
// spares a huge frame a copy.
func decodeOwnedFrame(frame []byte) ([]jsonrpc.Message, error) {
	if !valid(frame) {
		return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", errInvalidJSON)
	}
	return decodeValid(bytes.TrimSpace(frame))
}

// decodeValid decodes valid JSON, which backs the raw members of the
// result.
func decodeValid(data []byte) ([]jsonrpc.Message, error) {
	if data[0] != '[' {
		m, err := decodeObject(data)
		if err != nil {
			return nil, err
		}
		return []jsonrpc.Message{m}, nil
	}
	var msgs []jsonrpc.Message
	i := skipSpace(data, 1)
	for data[i] != ']' {
		end := skipValue(data, i)
		m, err := decodeObject(data[i:end])
		if err != nil {
			return nil, err
		}
		msgs = append(msgs, m)
		i = skipSpace(data, end)
		if data[i] == ',' {
			i = skipSpace(data, i+1)
		}
	}
	if len(msgs) == 0 {
		return nil, errEmptyBatch
	}
	return msgs, nil
}

// decodeObject decodes one message from valid JSON; b backs the raw
// members of the result.
func decodeObject(b []byte) (jsonrpc.Message, error) {
	if len(b) == 0 || b[0] != '{' {
		return nil, errNotObject
	}
	var version, id, method, params, result, rerr []byte
	i := skipSpace(b, 1)
	for b[i] != '}' {
		kend := skipValue(b, i)
		key := b[i:kend]
		i = skipSpace(b, kend)
		i = skipSpace(b, i+1) // ':'
		vend := skipValue(b, i)
		val := b[i:vend]
		i = skipSpace(b, vend)
		if b[i] == ',' {
			i = skipSpace(b, i+1)
		}
		k, err := unquote(key)
		if err != nil {
			return nil, err
		}
		// Exact names, as the SDK matches them; a repeated member's last
		// value wins, as in encoding/json.
		switch k {
		case "jsonrpc":
			version = val
		case "id":
			id = val
		case "method":
			method = val
		case "params":
			params = val
		case "result":
			result = val
		case "error":
			rerr = val
		}
	}
	if v, err := unquoteValue(version); err != nil || v != "2.0" {
		return nil, fmt.Errorf("invalid message version tag %q; expected %q", version, "2.0")
	}
	mid, err := decodeID(id)
	if err != nil {
		return nil, err
	}
	if method != nil {
		name, err := unquoteValue(method)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		return &jsonrpc.Request{Method: name, ID: mid, Params: raw(params)}, nil
	}
	if !mid.IsValid() {
		return nil, errInvalidRequest
	}
	resp := &jsonrpc.Response{ID: mid, Result: raw(result)}
	if rerr != nil && string(rerr) != "null" {
		we, err := decodeWireError(rerr)
		if err != nil {
			return nil, fmt.Errorf("unmarshaling jsonrpc message: %w", err)
		}
		resp.Error = we
	}
	return resp, nil
}

// decodeWireError decodes an error member with exact names (the SDK's
// decoder matches names case-sensitively; encoding/json would not).
func decodeWireError(b []byte) (*jsonrpc.Error, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	we := &jsonrpc.Error{}
	if v, ok := m["code"]; ok {
		if err := json.Unmarshal(v, &we.Code); err != nil {
			return nil, err
		}
	}
	if v, ok := m["message"]; ok {
		if err := json.Unmarshal(v, &we.Message); err != nil {
			return nil, err
		}
	}
	if v, ok := m["data"]; ok {
		we.Data = v
	}
	return we, nil
}

func raw(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(b)
}

// decodeID turns an id's JSON into a jsonrpc.ID as jsonrpc.MakeID does
// with the SDK's decoding (a number goes through float64).
func decodeID(b []byte) (jsonrpc.ID, error) {
	switch {
	case b == nil || string(b) == "null":
		return jsonrpc.ID{}, nil
	case b[0] == '"':
		s, err := unquote(b)
		if err != nil {
			return jsonrpc.ID{}, err
		}
		return jsonrpc.MakeID(s)
	case b[0] == '-' || (b[0] >= '0' && b[0] <= '9'):
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			return jsonrpc.ID{}, fmt.Errorf("invalid ID %s: %w", b, err)
		}
		return jsonrpc.MakeID(f)
	}
	return jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeParseError, Message: fmt.Sprintf("parse error: invalid ID %s", b)}
}

// unquoteValue decodes a member that must be a string; absent is an
// error, null is "" (as decoding into a Go string does).
func unquoteValue(b []byte) (string, error) {
	if b == nil {
		return "", errors.New("missing")
	}
	if string(b) == "null" {
		return "", nil
	}
	if b[0] != '"' {
		return "", fmt.Errorf("cannot unmarshal %s into a string", b)
	}
	return unquote(b)
}

// unquote decodes a valid JSON string.
func unquote(b []byte) (string, error) {
	if bytes.IndexByte(b, '\\') < 0 && utf8.Valid(b) {
		return string(b[1 : len(b)-1]), nil
	}
	var s string
	err := json.Unmarshal(b, &s)
	return s, err
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the value that starts at b[i]; b must be
// valid JSON (json.Valid), so nesting needs no more than a counter.
func skipValue(b []byte, i int) int {
	depth := 0
	for i < len(b) {
		switch c := b[i]; c {
		case '"':
			i = closingQuote(b, i+1) + 1
			if depth == 0 {
				return i
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
			if depth < 0 {
				return i // the end of the enclosing value
			}
		case ',', ' ', '\t', '\n', '\r', ':':
			if depth == 0 {
				return i
			}
		}
		i++
	}
	return i
}

// appendMessage appends msg's wire form to buf as jsonrpc.EncodeMessage
// writes it: members in the order jsonrpc, id, method, params, result,
// error, empty ones left out, no HTML escaping.
func appendMessage(buf []byte, msg jsonrpc.Message) ([]byte, error) {
	buf = append(buf, `{"jsonrpc":"2.0"`...)
	var (
		id     jsonrpc.ID
		method string
		params json.RawMessage
		result json.RawMessage
		rerr   error
	)
	switch m := msg.(type) {
	case *jsonrpc.Request:
		id, method, params = m.ID, m.Method, m.Params
	case *jsonrpc.Response:
		id, result, rerr = m.ID, m.Result, m.Error
	default:
		return buf, fmt.Errorf("marshaling jsonrpc message: unexpected type %T", msg)
	}
	switch v := id.Raw().(type) {
	case nil:
	case int64:
		buf = append(buf, `,"id":`...)
		buf = strconv.AppendInt(buf, v, 10)
	case string:
		buf = append(buf, `,"id":`...)
		buf = appendString(buf, v)
	default:
		return buf, fmt.Errorf("marshaling jsonrpc message: id of type %T", v)
	}
	if method != "" {
		buf = append(buf, `,"method":`...)
		buf = appendString(buf, method)
	}
	var err error
	if len(params) > 0 {
		buf = append(buf, `,"params":`...)
		if buf, err = appendRaw(buf, params); err != nil {
			return buf, err
		}
	}
	if len(result) > 0 {
		buf = append(buf, `,"result":`...)
		if buf, err = appendRaw(buf, result); err != nil {
			return buf, err
		}
	}
	if rerr != nil {
		data, err := marshalNoEscape(toWireError(rerr))
		if err != nil {
			return buf, fmt.Errorf("marshaling jsonrpc message: %w", err)
		}
		buf = append(buf, `,"error":`...)
		buf = append(buf, data...)
	}
	return append(buf, '}'), nil
}

// appendRaw appends a raw member. What the SDK hands us is compact JSON it
// marshaled itself; one with a newline inside would split the frame, so it
// is compacted first, as the SDK's encoder compacts every RawMessage.
func appendRaw(buf []byte, v json.RawMessage) ([]byte, error) {
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return append(buf, v...), nil
	}
	var c bytes.Buffer
	if err := json.Compact(&c, v); err != nil {
		return buf, fmt.Errorf("marshaling jsonrpc message: %w", err)
	}
	return append(buf, c.Bytes()...), nil
}

// toWireError is the SDK's: a wire error as it is, else the error's text
// with the code of a wire error it wraps.
func toWireError(err error) *jsonrpc.Error {
	if we, ok := err.(*jsonrpc.Error); ok {
		return we
	}
	out := &jsonrpc.Error{Message: err.Error()}
	var wrapped *jsonrpc.Error
	if errors.As(err, &wrapped) {
		out.Code = wrapped.Code
	}
	return out
}

// appendString appends s as a JSON string.
func appendString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' {
			data, _ := marshalNoEscape(s)
			return append(buf, data...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
