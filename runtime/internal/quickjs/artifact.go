// Package quickjs runs QuickJS-ng compiled to WebAssembly (the emscripten
// build shipped by the npm package @jitl/quickjs-ng-wasmfile-release-sync)
// under wazero, with Go implementing the emscripten imports that the
// package's JavaScript glue would otherwise provide.
//
// # Layers
//
//   - The artifact (this file): the pinned .wasm, its .cjs glue and LICENSE,
//     fetched by `go run ./runtime/internal/quickjs/cmd/fetchquickjs` into a cache directory
//     and verified by sha256 every time it is loaded. Nothing is vendored
//     into git.
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
)

// The pinned npm package. Changing any of these means re-checking the ABI
// table in abi.go against the new glue: the names are minified per build.
const (
	// PackageName is the npm package that ships the wasm build.
	PackageName = "@jitl/quickjs-ng-wasmfile-release-sync"
	// PackageVersion is the pinned version of PackageName.
	PackageVersion = "0.32.0"
	// PackageIntegrity is npm's dist.integrity of the pinned tarball; the
	// fetcher checks it in addition to npm's own check.
	PackageIntegrity = "sha512-XAX2jjZWWh3M0YaRqi82xMKNW/gkF6mo3MpW3UY2cmVxnQai1JuboVsJQVoLU629iEL4XWvHtO4h5lo7NRnAcg=="

	// WasmSHA256 is the sha256 of dist/emscripten-module.wasm.
	WasmSHA256 = "b56fe5094b8751c47b8c32fb5ed4d75afe2dbb43412d3d983ac5d1156af456da"
	// GlueSHA256 is the sha256 of dist/emscripten-module.cjs.
	GlueSHA256 = "3701f17f1697d48101988b2bb2a55cb683346325c608432b0edb691a8c5df7f4"
)

// File names inside the artifact directory.
const (
	WasmFile    = "emscripten-module.wasm"
	GlueFile    = "emscripten-module.cjs"
	LicenseFile = "LICENSE"
)

// DirEnv is the environment variable that overrides the artifact directory.
const DirEnv = "CODEMODE_QUICKJS_DIR"

// FetchCommand is the command, run from the repository root, that places the
// artifact where DefaultDir finds it. Error messages quote it verbatim.
const FetchCommand = "go run ./runtime/internal/quickjs/cmd/fetchquickjs"

// ErrArtifactMissing is wrapped by LoadArtifact's error when the directory
// does not hold the artifact; the error message names FetchCommand.
var ErrArtifactMissing = errors.New("quickjs wasm artifact missing")

// DefaultDir returns the artifact directory: $CODEMODE_QUICKJS_DIR if set,
// else <user cache dir>/codemode/quickjs-ng-<version> (the user cache dir is
// $XDG_CACHE_HOME or ~/.cache on Linux).
func DefaultDir() (string, error) {
	if d := os.Getenv(DirEnv); d != "" {
		return d, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("locating the quickjs artifact: %w (set %s)", err, DirEnv)
	}
	return filepath.Join(base, "codemode", "quickjs-ng-"+PackageVersion), nil
}

// Artifact is the verified content of the artifact directory.
type Artifact struct {
	Dir  string
	Wasm []byte // the original emscripten module, sha256 == WasmSHA256
	Glue []byte // the .cjs glue, sha256 == GlueSHA256
}

// LoadArtifact reads and verifies the artifact in dir ("" means DefaultDir).
// A missing file yields an error wrapping ErrArtifactMissing whose message
// names FetchCommand; a file with the wrong hash is an error too (never
// silently used: the ABI table is only valid for the pinned build).
func LoadArtifact(dir string) (*Artifact, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	read := func(name, want string) ([]byte, error) {
		p := filepath.Join(dir, name)
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s not found; run `%s` (or set %s to a directory holding it)",
				ErrArtifactMissing, p, FetchCommand, DirEnv)
		}
		if err != nil {
			return nil, fmt.Errorf("reading quickjs artifact: %w", err)
		}
		if got := sha256Hex(b); got != want {
			return nil, fmt.Errorf("quickjs artifact %s has sha256 %s, want %s (pinned %s@%s); rerun `%s`",
				p, got, want, PackageName, PackageVersion, FetchCommand)
		}
		return b, nil
	}
	wasm, err := read(WasmFile, WasmSHA256)
	if err != nil {
		return nil, err
	}
	glue, err := read(GlueFile, GlueSHA256)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(wasm, []byte("\x00asm")) {
		return nil, fmt.Errorf("quickjs artifact %s is not a wasm binary", filepath.Join(dir, WasmFile))
	}
	return &Artifact{Dir: dir, Wasm: wasm, Glue: glue}, nil
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
