package runtime_test

import (
	"flag"
	"os"
	"os/exec"
	"testing"
)

// The web and Intl differential corpus: programs using the web-platform
// globals and Intl, each run on both engines and compared value for value
// with the same program in V8 (Node's, whose ICU is the reference for
// Intl: run with TZ=UTC and the en-US locale, the sandbox's defaults).
// testdata/webcorpus/*.txtar holds them, in the language corpus's format
// (corpus_test.go), and the same harness (runCorpus) runs them.
//
// Adding a program is adding a section NAME.js and running
//
//	go test ./runtime -run TestWebCorpus -update-webcorpus
//
// which runs every program in node through scripts/corpus-v8.mjs (node,
// not deno: the expected Intl output is that of the ICU that
// scripts/intlgen.mjs read its data from). CI needs no node: the outcomes
// are in the files.
var updateWebCorpus = flag.Bool("update-webcorpus", false, "rewrite testdata/webcorpus/*.want sections from V8 (node)")

func TestWebCorpus(t *testing.T) {
	runCorpus(t, "web corpus", "webcorpus", *updateWebCorpus, func(t *testing.T, script string) *exec.Cmd {
		cmd := exec.Command("node", script)
		cmd.Env = append(os.Environ(), "TZ=UTC", "NO_COLOR=1", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8")
		return cmd
	})
}
