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
// scripts/intlgen.mjs read its data from). A program holding the line
// "// expected: deno" (denoMarker) is run in deno instead ($CODEMODE_DENO,
// or deno on PATH; without one it keeps its recorded outcome): for the
// programs whose Node 20 outcome is Node 20's age, not the spec's (it
// decodes "latin1" as ISO-8859-1, and predates offset time zones), and
// whose outcome involves no CLDR data that the ICUs disagree on. CI needs
// neither: the outcomes are in the files.
var updateWebCorpus = flag.Bool("update-webcorpus", false, "rewrite testdata/webcorpus/*.want sections from V8 (node)")

func TestWebCorpus(t *testing.T) {
	runCorpusWith(t, "web corpus", "webcorpus", *updateWebCorpus, func(t *testing.T, script string) *exec.Cmd {
		cmd := exec.Command("node", script)
		cmd.Env = append(os.Environ(), "TZ=UTC", "NO_COLOR=1", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8")
		return cmd
	}, deno(t))
}

// deno is the command for the web corpus's programs marked denoMarker, or
// nil when there is no deno.
func deno(t *testing.T) func(t *testing.T, script string) *exec.Cmd {
	d := os.Getenv("CODEMODE_DENO")
	if d == "" {
		d, _ = exec.LookPath("deno")
	}
	if d == "" {
		return nil
	}
	return func(t *testing.T, script string) *exec.Cmd {
		cmd := exec.Command(d, "run", "--quiet", "--no-prompt", script)
		cmd.Env = append(os.Environ(), "TZ=UTC", "NO_COLOR=1", "LC_ALL=en_US.UTF-8", "LANG=en_US.UTF-8")
		return cmd
	}
}
