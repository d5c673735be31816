package config

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/config.md from the field tables")

var kindNames = map[valueKind]string{
	kString: "string", kPath: "string", kBool: "boolean", kStrings: "array of strings",
	kStringMap: "object of strings", kCount: "whole number ≥ 1", kSize: "size", kDuration: "duration",
	kOptBool: "boolean", kObject: "object", kObjects: "array of objects",
}

func fieldRows[T any](fields []field[T]) string {
	var b strings.Builder
	b.WriteString("| key | value | what it sets |\n|---|---|---|\n")
	for _, r := range rowsOf(fields, "") {
		k := kindNames[r.kind]
		if r.custom {
			k = "string"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", r.key, k, r.help)
	}
	return b.String()
}

// TestConfigDoc keeps docs/config.md's key reference in step with the
// field tables: go test ./internal/config -run TestConfigDoc -update.
func TestConfigDoc(t *testing.T) {
	const path = "../../docs/config.md"
	want := `# Configuration reference

<!-- Generated from internal/config/fields.go by TestConfigDoc; edit the tables there. -->

A configuration file is the usual ` + "`mcpServers`" + ` object plus a ` + "`codemode`" + ` section. Unknown keys,
duplicate keys, wrong types and bad values are refused at start-up, every problem with its
key path (` + "`codemode.memory: \"12 parsecs\" is not a size`" + `) and, for a misspelt key, the
closest known one. Sizes are strings with a unit (B, KB, MB, GB, KiB, MiB, GiB) or a number
of bytes; durations are Go duration strings (` + "`\"30s\"`, `\"1m30s\"`" + `) or a number of
milliseconds. A key left out keeps its default.

## A server (` + "`mcpServers.<name>`" + `)

A server has exactly one of ` + "`command`" + ` (stdio) and ` + "`url`" + ` (streamable HTTP). Its name becomes part
of its tools' names, ` + "`mcp__<name>__<tool>`" + `: letters, digits, ` + "`_`" + ` and ` + "`-`" + `, without ` + "`__`" + `.

` + fieldRows(serverFields) + `
## The ` + "`codemode`" + ` section

` + fieldRows(codeModeFields)
	got, err := os.ReadFile(path)
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err != nil || string(got) != want {
		t.Errorf("%s is out of date with the field tables; run go test ./internal/config -run TestConfigDoc -update", path)
	}
}
