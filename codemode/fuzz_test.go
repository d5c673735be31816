package codemode

import (
	"encoding/json"
	"testing"

	"github.com/codemode/codemode/tools"
	"github.com/evanw/esbuild/pkg/api"
)

// FuzzDeclarations: whatever schema a server sends, the declarations parse
// as TypeScript (a program author must never get a broken .d.ts).
func FuzzDeclarations(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}}}`,
		`{"type":"object","properties":{"a-b":{"enum":[1,"x",null]}},"required":["a-b"]}`,
		`{"$defs":{"n":{"type":"object","properties":{"c":{"type":"array","items":{"$ref":"#/$defs/n"}}}}},"$ref":"#/$defs/n"}`,
		`{"anyOf":[{"type":"string"},{"type":"array","prefixItems":[{"type":"number"}]}]}`,
		`{"type":["object","null"],"additionalProperties":{"type":"integer"},"description":"*/ x"}`,
		`true`, `[]`, `{"properties":{"":{}}}`,
	} {
		f.Add("tool", s)
	}
	f.Fuzz(func(t *testing.T, name, schema string) {
		if !json.Valid([]byte(schema)) {
			return
		}
		decl := Declarations([]tools.Info{{Name: name, Description: name, InputSchema: json.RawMessage(schema), OutputSchema: json.RawMessage(schema)}})
		if res := api.Transform(decl, api.TransformOptions{Loader: api.LoaderTS}); len(res.Errors) > 0 {
			t.Fatalf("invalid TypeScript for schema %s: %s\n%s", schema, res.Errors[0].Text, decl)
		}
	})
}
