package engine

import "testing"

func TestDropWrapperFrames(t *testing.T) {
	tests := []struct {
		name, text string
		lines      int
		want       string
	}{
		{"goja", "TypeError: x\n\tat f (program.js:2:28)\n\tat program.js:3:9\n\tat program.js:5:3\n", 3, "TypeError: x\n\tat f (program.js:2:28)\n\tat program.js:3:9\n"},
		{"quickjs", "TypeError: x\n    at f (program.js:2:1)\n    at <eval> (program.js:5:1)", 3, "TypeError: x\n    at f (program.js:2:1)"},
		{"typescript", "Error: ts\n\tat program.ts:2:12\n\tat program.ts:4:0\n", 2, "Error: ts\n\tat program.ts:2:12\n"},
		{"unknown length keeps frames", "E\n\tat program.js:9:1\n", 0, "E\n\tat program.js:9:1\n"},
		{"other files untouched", "E\n\tat native:99:1\n\tat program.js:1:1", 1, "E\n\tat native:99:1\n\tat program.js:1:1"},
		{"text that is no frame is kept", "see program.js:99:1 here\n", 1, "see program.js:99:1 here\n"},
		{"a frame inside the source is kept", "E\n  at g (program.js:1:1)", 1, "E\n  at g (program.js:1:1)"},
		{"a frame line with more after it is kept", "[ E\n\tat program.js:1:1\n\tat program.js:5:3 ]", 1, "[ E\n\tat program.js:1:1\n\tat program.js:5:3 ]"},
	}
	for _, tt := range tests {
		if got := DropWrapperFrames(tt.text, tt.lines, "program.js", "program.ts"); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestDropInternalFrames(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"goja", "Error: cmp\n\tat program.js:2:22\n\tat apply (native)\n\tat guarded (codemode:prelude:467:26(72))\n\tat sort (codemode:prelude:478:66(14))\n\tat program.js:2:7", "Error: cmp\n\tat program.js:2:22\n\tat program.js:2:7"},
		{"quickjs", "Error: x\n    at setTimeout (<codemode>:320:19)\n    at <anonymous> (program.js:1:1)", "Error: x\n    at <anonymous> (program.js:1:1)"},
		{"a native frame of the program's own is kept", "E\n    at sort (native)\n    at <anonymous> (program.js:2:3)", "E\n    at sort (native)\n    at <anonymous> (program.js:2:3)"},
		{"text naming the prelude is kept", "see codemode:prelude here", "see codemode:prelude here"},
	}
	for _, tt := range tests {
		if got := DropInternalFrames(tt.text, "codemode:prelude", "<codemode>"); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
