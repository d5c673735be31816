package tools

import (
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

var flatSchemas = []string{
	`{"type":"object","properties":{"code":{"type":"string","description":"d"},"reset":{"type":"boolean"},"timeoutMs":{"type":"number","minimum":1}},"required":["code"],"additionalProperties":false}`,
	`{"type":"object","properties":{"n":{"type":"integer","minimum":-3,"maximum":10},"s":{"type":"string"}},"required":["n","s"]}`,
	`{"type":"object","properties":{"any":{},"x":{"type":"number"}}}`,
	`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","title":"t","properties":{}}`,
}

// Schemas the fast path leaves to the full validator.
var notFlat = []string{
	`{"type":"object","properties":{"s":{"type":"string","minLength":2}}}`,
	`{"type":"object","properties":{"s":{"enum":["a"]}}}`,
	`{"type":"object","properties":{"s":{"type":["string","null"]}}}`,
	`{"type":"object","properties":{"a":{"type":"array"}}}`,
	`{"type":"object","properties":{"s":{"type":"string","maximum":3}}}`,
	`{"type":"object","additionalProperties":{"type":"string"}}`,
	`{"type":"object","patternProperties":{"^x":{}}}`,
	`{"type":"array"}`,
	`{"properties":{}}`,
}

func TestFlatSchemaCompiles(t *testing.T) {
	for _, s := range flatSchemas {
		if compileFlat(json.RawMessage(s)) == nil {
			t.Errorf("not compiled: %s", s)
		}
	}
	for _, s := range notFlat {
		if compileFlat(json.RawMessage(s)) != nil {
			t.Errorf("compiled, but the fast path cannot hold it: %s", s)
		}
	}
	// Trivial: no validator at all, the snapshot's object check suffices.
	for s, want := range map[string]bool{
		`{"type":"object"}`: true, `{"type":"object","properties":{},"additionalProperties":true,"description":"d"}`: true,
		`{"type":"object","additionalProperties":false}`: false, `{"type":"object","required":["a"]}`: false,
		flatSchemas[0]: false, `{"type":"array"}`: false,
	} {
		if got := compileFlat(json.RawMessage(s)).trivial(); got != want {
			t.Errorf("trivial(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestFlatSchemaAgreesWithTheValidator(t *testing.T) {
	args := []string{
		`{"code":"return 1"}`, `{"code":"x","reset":true,"timeoutMs":5}`, `{"code":"x","timeoutMs":0.5}`,
		`{"code":"x","timeoutMs":1}`, `{"code":1}`, `{}`, `{"code":"x","extra":1}`, `{"code":null}`,
		`{"n":3,"s":""}`, `{"n":3.5,"s":""}`, `{"n":11,"s":""}`, `{"n":-3,"s":"a"}`, `{"n":-4,"s":"a"}`, `{"n":"3","s":""}`,
		`{"any":[1,{"a":null}],"x":1e308}`, `{"x":true}`, `{"n":1e400}`,
	}
	for _, s := range flatSchemas {
		checkFlat(t, s, args)
	}
}

func checkFlat(t *testing.T, schema string, args []string) {
	t.Helper()
	f := compileFlat(json.RawMessage(schema))
	var js jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &js); err != nil {
		t.Fatal(err)
	}
	full, err := js.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		var v any
		if json.Unmarshal([]byte(a), &v) != nil {
			continue
		}
		if f.valid(v) {
			if err := full.Validate(v); err != nil {
				t.Errorf("schema %s: the fast path accepts %s, the validator says %v", schema, a, err)
			}
		}
	}
}

// FuzzFlatSchema: whatever the arguments, the fast path never accepts what
// the validator refuses.
func FuzzFlatSchema(f *testing.F) {
	for i := range flatSchemas {
		f.Add(i, `{"code":"return 1","timeoutMs":2}`)
		f.Add(i, `{"n":2,"s":"x","any":null}`)
	}
	f.Fuzz(func(t *testing.T, i int, args string) {
		if i < 0 {
			i = -i
		}
		checkFlat(t, flatSchemas[i%len(flatSchemas)], []string{args})
	})
}
