// Package quickjs runs QuickJS-ng compiled to WebAssembly (the emscripten
// build shipped by the npm package @jitl/quickjs-ng-wasmfile-release-sync)
// under wazero, with Go implementing the emscripten imports that the
// package's JavaScript glue would otherwise provide.
//
// # Layers
//
//   - The artifact (this file): the pinned .wasm (the npm package's,
//     re-optimised for speed by binaryen's wasm-opt when it is derived, not
//     at build or run time), its .cjs glue and LICENSE,
//     embedded in the binary by package [embed] (with their PROVENANCE) and
//     verified by sha256 every time they are loaded; $CODEMODE_QUICKJS_DIR
//     names a directory to load them from instead.
//   - The ABI (abi.go): the glue is the only key to the module's minified
//     import and export names; we read the names out of it and check every
//     import and export against the signature we expect, failing loudly on
//     anything unrecognised.
//   - The binary rewrites (rewrite.go), at load time: the module imports its
//     linear memory from the same module name as its functions, which a
//     wazero host module cannot export, so the memory import becomes a
//     memory definition; and every loop gets a countdown that calls into Go
//     every million iterations, so that long built-ins can be stopped and
//     never block the Go scheduler.
//   - The runtime (runtime.go): one wazero runtime with an on-disk
//     compilation cache, one host module, and many Instances; each Instance
//     owns one QuickJS JSRuntime and is driven by one goroutine at a time.
package quickjs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/codemode/codemode/runtime/internal/quickjs/embed"
)

// The pinned npm package and the derivation of the embedded wasm. Changing
// any of these means re-checking the ABI table in abi.go against the new
// glue (the names are minified per build), the fixes of fix.go against the
// new code, and replacing the files of package embed.
const (
	// PackageName is the npm package that ships the wasm build.
	PackageName = "@jitl/quickjs-ng-wasmfile-release-sync"
	// PackageVersion is the pinned version of PackageName.
	PackageVersion = "0.32.0"
	// PackageIntegrity is npm's dist.integrity of the pinned tarball; the
	// fetcher checks it in addition to npm's own check.
	PackageIntegrity = "sha512-XAX2jjZWWh3M0YaRqi82xMKNW/gkF6mo3MpW3UY2cmVxnQai1JuboVsJQVoLU629iEL4XWvHtO4h5lo7NRnAcg=="

	// SourceWasmSHA256 is the sha256 of the package's
	// dist/emscripten-module.wasm, built -Oz (for size), the input of
	// WasmOptFlags.
	SourceWasmSHA256 = "b56fe5094b8751c47b8c32fb5ed4d75afe2dbb43412d3d983ac5d1156af456da"
	// WasmSHA256 is the sha256 of the wasm that is embedded and loaded:
	// the package's, re-optimised for speed by wasm-opt of binaryen
	// WasmOptVersion with WasmOptFlags (fetch.go, Optimize).
	WasmSHA256 = "ce126da97d49951e7c17853d785261e837b4ac924c165314b1c49a3dac7c4199"
	// GlueSHA256 is the sha256 of dist/emscripten-module.cjs.
	GlueSHA256 = "3701f17f1697d48101988b2bb2a55cb683346325c608432b0edb691a8c5df7f4"

	// WasmOptVersion is the binaryen release whose wasm-opt derives the
	// embedded wasm (`wasm-opt --version` prints "wasm-opt version 108"):
	// another release may write other bytes. Only re-deriving the file
	// needs it; building and running codemode do not.
	WasmOptVersion = "108"
	// WasmOptFlags are wasm-opt's arguments besides the input and -o:
	// speed optimisations at -O2, and the features the -Oz build already
	// uses (wasm-opt validates against the MVP unless told). -O2 keeps the
	// import and export names, the memory, the data segments and the
	// table, and every function and its index: the glue, the rewrites and
	// the fixes of fix.go find what they expect (RATIONALE.md, "Why is the
	// embedded QuickJS wasm re-optimised with wasm-opt?").
	WasmOptFlags = "-O2 --enable-sign-ext --enable-bulk-memory --enable-nontrapping-float-to-int"
)

// File names inside an artifact directory (and of package embed's files).
const (
	WasmFile    = "emscripten-module.wasm"
	GlueFile    = "emscripten-module.cjs"
	LicenseFile = "LICENSE"
)

// DirEnv is the environment variable that names a directory to load the
// artifact from instead of the embedded copy.
const DirEnv = "CODEMODE_QUICKJS_DIR"

// FetchCommand is the command, run from the repository root, that writes the
// pinned artifact from npm into a directory (-o DIR); error messages about
// an override directory quote it.
const FetchCommand = "go run ./runtime/internal/quickjs/cmd/fetchquickjs -o DIR"

// Embedded is the Artifact.Dir of the embedded artifact.
const Embedded = "(embedded)"

// ErrArtifactMissing is wrapped by LoadArtifact's error when an override
// directory does not hold the artifact; the message names FetchCommand.
var ErrArtifactMissing = errors.New("quickjs wasm artifact missing")

// Artifact is a verified copy of the pinned build.
type Artifact struct {
	// Dir is the directory it was read from, or Embedded.
	Dir  string
	Wasm []byte // the emscripten module as derived (WasmOptFlags), sha256 == WasmSHA256
	Glue []byte // the .cjs glue, sha256 == GlueSHA256
}

// LoadArtifact returns the verified artifact: read from dir, or when dir is
// "" from $CODEMODE_QUICKJS_DIR, or when that is unset too the copy
// embedded in the binary. A directory that lacks a file yields an error
// wrapping ErrArtifactMissing whose message names FetchCommand; a file with
// the wrong hash is an error too (never silently used: the ABI table is
// only valid for the pinned build).
func LoadArtifact(dir string) (*Artifact, error) {
	if dir == "" {
		dir = os.Getenv(DirEnv)
	}
	if dir == "" {
		return verify(Embedded, embed.Wasm, embed.Glue)
	}
	read := func(name string) ([]byte, error) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s not found; write it with `%s`, or unset %s to use the embedded copy",
				ErrArtifactMissing, p, FetchCommand, DirEnv)
		}
		if err != nil {
			return nil, fmt.Errorf("reading quickjs artifact: %w", err)
		}
		return b, nil
	}
	wasm, err := read(WasmFile)
	if err != nil {
		return nil, err
	}
	glue, err := read(GlueFile)
	if err != nil {
		return nil, err
	}
	return verify(dir, wasm, glue)
}

// verify checks the pins; where names the copy in error messages.
func verify(where string, wasm, glue []byte) (*Artifact, error) {
	for _, f := range []struct {
		name string
		b    []byte
		want string
	}{{WasmFile, wasm, WasmSHA256}, {GlueFile, glue, GlueSHA256}} {
		if got := sha256Hex(f.b); got != f.want {
			return nil, fmt.Errorf("quickjs artifact %s has sha256 %s, want %s (pinned %s@%s); rewrite it with `%s`",
				filepath.Join(where, f.name), got, f.want, PackageName, PackageVersion, FetchCommand)
		}
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, fmt.Errorf("quickjs artifact %s is not a wasm binary", filepath.Join(where, WasmFile))
	}
	return &Artifact{Dir: where, Wasm: wasm, Glue: glue}, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
