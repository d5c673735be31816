// Package golden compares test output with txtar files under testdata/ and
// rewrites them with -update.
package golden

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite golden txtar files with the current output")

// Check compares files (name → content) with the txtar archive at path,
// reporting every difference; with -update it rewrites the archive.
func Check(t *testing.T, path string, comment string, files []txtar.File) {
	t.Helper()
	want := &txtar.Archive{Comment: []byte(comment), Files: files}
	if *update {
		if err := os.WriteFile(path, txtar.Format(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	got, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	old := map[string][]byte{}
	for _, f := range got.Files {
		old[f.Name] = f.Data
	}
	for _, f := range files {
		g, ok := old[f.Name]
		if !ok {
			t.Errorf("%s: section %s missing from the golden file (run with -update)", path, f.Name)
			continue
		}
		if !bytes.Equal(g, f.Data) {
			t.Errorf("%s: section %s differs.\n--- got\n%s\n--- want\n%s", path, f.Name, f.Data, g)
		}
		delete(old, f.Name)
	}
	for name := range old {
		t.Errorf("%s: golden file has extra section %s", path, name)
	}
}
