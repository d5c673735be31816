// Package embed holds the QuickJS-NG WebAssembly build that the wazero
// engine runs, compiled into every codemode binary, so that `go install`
// gives a binary whose hard-capped engine works with nothing else on the
// machine.
//
// The files beside this one come from the npm package named in PROVENANCE
// (MIT, LICENSE beside them): the glue and LICENSE byte for byte, the wasm
// re-optimised for speed by binaryen's wasm-opt with the flags PROVENANCE
// names (the package's is built for size). They are committed, so building
// and running codemode need neither npm nor binaryen. Package quickjs pins
// their sha256 and checks it when it loads them. To re-derive them from npm
// and compare (what CI does when npm is reachable; it needs wasm-opt of the
// binaryen release PROVENANCE names):
//
//	scripts/fetch-quickjs.sh
//
// To move to another build, change the pins in package quickjs, write the
// new files here with `go run ./runtime/internal/quickjs/cmd/fetchquickjs -o
// runtime/internal/quickjs/embed`, update PROVENANCE, and re-check the ABI
// table (abi.go) against the new glue.
package embed

import _ "embed" // for go:embed

// Wasm is dist/emscripten-module.wasm of the package, QuickJS-NG compiled
// by emscripten, after wasm-opt (PROVENANCE). Callers must not modify it.
//
//go:embed emscripten-module.wasm
var Wasm []byte

// Glue is dist/emscripten-module.cjs of the package: the JavaScript glue
// whose minified names are the only key to the module's imports and
// exports. Callers must not modify it.
//
//go:embed emscripten-module.cjs
var Glue []byte

// License is the package's LICENSE (quickjs-emscripten and QuickJS-NG, both
// MIT), carried in the binary with the code it covers.
//
//go:embed LICENSE
var License string

// Provenance is the PROVENANCE file: where the files come from and their
// checksums, as "key: value" lines.
//
//go:embed PROVENANCE
var Provenance string
