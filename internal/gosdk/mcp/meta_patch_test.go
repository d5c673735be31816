package mcp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/codemode/codemode/internal/gosdk/jsonrpc"
)

// upstreamValidateRequestMeta is validateRequestMeta as go-sdk v1.8.0 has it
// (through a map and a re-marshal per key), for the differential below.
func upstreamValidateRequestMeta(req *jsonrpc.Request) (*validatedMeta, error) {
	if !req.IsCall() {
		return &validatedMeta{}, nil
	}
	meta := extractRequestMeta(req.Params)
	if meta == nil {
		return &validatedMeta{}, nil
	}
	protocolVersion, ok := meta[MetaKeyProtocolVersion].(string)
	if !ok || protocolVersion < protocolVersion20260728 {
		return &validatedMeta{}, nil
	}
	var clientInfo *Implementation
	if _, present := meta[MetaKeyClientInfo]; present {
		var ok bool
		clientInfo, ok = decodeMetaValue[*Implementation](meta, MetaKeyClientInfo)
		if !ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("invalid _meta field %q", MetaKeyClientInfo)}
		}
	}
	capabilities, ok := decodeMetaValue[*clientCapabilitiesV2](meta, MetaKeyClientCapabilities)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("missing or invalid _meta field %q", MetaKeyClientCapabilities)}
	}
	logLevel, _ := decodeMetaValue[LoggingLevel](meta, MetaKeyLogLevel)
	return &validatedMeta{usesNewProtocol: true, initializeParams: &InitializeParams{
		ProtocolVersion: protocolVersion, Capabilities: capabilities.toV1(), ClientInfo: clientInfo,
	}, logLevel: logLevel}, nil
}

var metaCases = []string{
	``, `{}`, `{"name":"x"}`, `{"_meta":null}`, `{"_meta":"s"}`, `{"_meta":{}}`, `[1]`, `{"_meta":{"progressToken":1}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":null}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":"x"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/logLevel":"debug"},"name":"code_run","arguments":{"code":"return 1"}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":null}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":3}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":7}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":null}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{"x":1}},"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-01-01"}}`,
}

func compareMeta(t *testing.T, params string) {
	t.Helper()
	id, _ := jsonrpc.MakeID(float64(1))
	req := &jsonrpc.Request{ID: id, Method: "tools/call"}
	if params != "" {
		req.Params = json.RawMessage(params)
	}
	got, gotErr := validateRequestMeta(req)
	want, wantErr := upstreamValidateRequestMeta(req)
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%s: error %v, upstream %v", params, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: %+v, upstream %+v", params, got, want)
	}
}

func TestValidateRequestMetaAsUpstream(t *testing.T) {
	for _, c := range metaCases {
		compareMeta(t, c)
	}
}

func FuzzValidateRequestMeta(f *testing.F) {
	for _, c := range metaCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, params string) {
		if !json.Valid([]byte(params)) {
			return // the transport refuses it before
		}
		compareMeta(t, params)
	})
}
